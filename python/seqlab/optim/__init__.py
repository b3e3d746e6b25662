"""seqlab.optim: torch.optim's optimizers (update loops in C++) and lr_scheduler."""
from . import lr_scheduler  # noqa: F401
from .algorithms import SGD, Adam, AdamW, Adagrad, RMSprop  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
