"""seqlab.optim: torch.optim's optimizers (update loops in C++; LBFGS drives whole-vector C++ ops from
Python, as torch's does) and lr_scheduler."""
from . import lr_scheduler  # noqa: F401
from .algorithms import SGD, Adam, AdamW, Adagrad, RMSprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
