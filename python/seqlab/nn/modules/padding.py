"""torch.nn.modules.padding: the padding layers (ZeroPad, ConstantPad, ReflectionPad, ReplicationPad,
CircularPad, 1d and 2d; the 3-D ones are out of scope as the other volume layers), each one call of
F.pad with its mode; they hold no parameters (Python only: tests/test_nn_twins.py PYTHON_ONLY).
Tests: tests/test_nn_modules_more.py."""
from .. import functional as F
from .._helpers import _ntuple
from .module import Module

__all__ = [
    "CircularPad1d", "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d",
]


class _PadNd(Module):
    """Pads the last `_dims` dims: padding an int (every side) or a tuple of 2·_dims ints
    (left, right, top, bottom), as F.pad reads it."""

    _dims = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        # torch's check: a (batch of) (C, *spatial) input
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with `value`: padding an int or (left, right)."""
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with `value`: padding an int or (left, right, top, bottom)."""
    _dims = 2



class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros: padding an int or (left, right)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dims with zeros: padding an int or (left, right, top, bottom)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"



class ReflectionPad1d(_PadNd):
    """Pads the last dim with its mirror image, the edge not repeated: padding an int or (left, right)."""
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pads the last 2 dims with their mirror images: padding an int or (left, right, top, bottom)."""
    _dims, _mode = 2, "reflect"



class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating its edge values: padding an int or (left, right)."""
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pads the last 2 dims by repeating their edges: padding an int or (left, right, top, bottom)."""
    _dims, _mode = 2, "replicate"



class CircularPad1d(_CircularPadNd):
    """Pads the last dim by wrapping around: padding an int or (left, right)."""
    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last 2 dims by wrapping around: padding an int or (left, right, top, bottom)."""
    _dims = 2
