"""torch.finfo and torch.iinfo: the numerical limits of seqlab's floating and integer dtypes, with
torch's attributes, repr and errors (the values are NumPy's finfo / iinfo of the same type).
Tests: tests/test_type_info.py."""
import numpy as np

from ._dtypes import get_default_dtype

__all__ = ["finfo", "iinfo"]

_FLOATS = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": None}
_INTS = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32, "int64": np.int64}


def _name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


class finfo:
    """The limits of a floating dtype (default: the default dtype): bits, eps (the gap above 1),
    max, min (= −max), tiny = smallest_normal (the smallest positive normal number), resolution
    (10^−digits), and dtype (its name)."""

    def __init__(self, type=None):
        if type is None:
            type = get_default_dtype()
        name = _name(type)
        if name not in _FLOATS:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        if name == "bfloat16":  # NumPy has no bfloat16: 8 exponent bits as float32, 7 mantissa bits
            self.bits, self.dtype = 16, name
            self.eps, self.max = 2.0 ** -7, (2.0 - 2.0 ** -7) * 2.0 ** 127
            self.min, self.tiny = -self.max, 2.0 ** -126
            self.smallest_normal, self.resolution = self.tiny, 0.01   # 10^−2: 7 bits hold 2 decimal digits
            return
        info = np.finfo(_FLOATS[name])
        self.bits, self.dtype = int(info.bits), name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)   # 10^−digits as a Python float, as torch

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None   # as torch's

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype: bits, max, min and dtype (its name)."""

    def __init__(self, type):
        name = _name(type)
        if name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if name not in _INTS:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        info = np.iinfo(_INTS[name])
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"

