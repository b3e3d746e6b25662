"""seqlab.nn.modules.flatten: torch.nn.modules.flatten's import path for classes defined in seqlab.nn."""
from ..layers import Flatten  # noqa: F401

__all__ = ["Flatten"]
