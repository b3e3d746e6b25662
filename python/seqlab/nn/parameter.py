"""seqlab.nn.parameter: torch.nn.parameter's import path for Parameter (module.py) and the lazy
modules' placeholders (lazy.py)."""
from .lazy import UninitializedBuffer, UninitializedParameter  # noqa: F401
from .module import Parameter  # noqa: F401

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer"]
