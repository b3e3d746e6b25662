"""seqlab.nn.modules: torch.nn.modules' import paths (torch.nn.modules.linear.Linear, ...) for the
classes defined in seqlab.nn, which scripts name when they allow-list classes for torch.load.
One submodule per torch file; each only re-exports."""
from . import activation, batchnorm, container, dropout, flatten, linear, loss, module, normalization, rnn  # noqa: F401
from . import sparse, transformer, conv, pooling  # noqa: F401
from . import distance  # noqa: F401
