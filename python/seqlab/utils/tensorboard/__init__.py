"""seqlab.utils.tensorboard: torch.utils.tensorboard's SummaryWriter (event files TensorBoard reads)."""
from .writer import SummaryWriter  # noqa: F401
