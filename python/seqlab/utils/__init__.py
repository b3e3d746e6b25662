"""seqlab.utils: torch.utils' layout (seqlab.utils.data, seqlab.utils.tensorboard)."""
from . import data  # noqa: F401
from . import tensorboard  # noqa: F401
