"""seqlab.nn.modules.module: torch.nn.modules.module's import path for classes defined in seqlab.nn."""
from ..module import Module  # noqa: F401

__all__ = ["Module"]
