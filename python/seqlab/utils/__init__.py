"""seqlab.utils: torch.utils' layout (seqlab.utils.data)."""
from . import data  # noqa: F401
