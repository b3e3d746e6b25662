"""seqlab.nn.modules.sparse: torch.nn.modules.sparse's import path for classes defined in seqlab.nn."""
from ..layers import Embedding  # noqa: F401

__all__ = ["Embedding"]
