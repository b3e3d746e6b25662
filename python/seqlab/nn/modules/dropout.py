"""seqlab.nn.modules.dropout: torch.nn.modules.dropout's import path for classes defined in seqlab.nn."""
from ..layers import Dropout  # noqa: F401

__all__ = ["Dropout"]
