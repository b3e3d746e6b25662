"""seqlab.nn.modules.linear: torch.nn.modules.linear's import path for classes defined in seqlab.nn."""
from ..layers import Identity, Linear, Bilinear, NonDynamicallyQuantizableLinear  # noqa: F401
from ..lazy import LazyLinear  # noqa: F401

__all__ = ["Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear", "LazyLinear"]
