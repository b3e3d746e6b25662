"""seqlab.nn.modules.normalization: torch.nn.modules.normalization's import path for classes defined in seqlab.nn."""
from ..layers import LayerNorm  # noqa: F401

__all__ = ["LayerNorm"]
