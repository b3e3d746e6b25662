"""seqlab.nn.modules.conv: torch.nn.modules.conv's import path for classes defined in seqlab.nn."""
from ..conv import Conv1d, Conv2d, LazyConv1d, LazyConv2d  # noqa: F401

__all__ = ["Conv1d", "Conv2d", "LazyConv1d", "LazyConv2d"]
