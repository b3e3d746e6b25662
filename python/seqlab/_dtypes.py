"""seqlab's dtypes under torch's names, the default dtype and torch's scalar-type names ("Float",
"Long": the words of its dtype errors). A leaf: it imports only the compiled core and _device, so
every Python module may import it at the top (tests/test_import_graph.py: the package has no cycle)."""
from . import _core
from ._device import check_device as _check_device_type

float32 = _core.dtype.float32
float64 = _core.dtype.float64
float16 = _core.dtype.float16  # storage dtypes: their ops compute in float32 and round once
bfloat16 = _core.dtype.bfloat16
int64 = _core.dtype.int64
int32 = _core.dtype.int32
int16 = _core.dtype.int16
int8 = _core.dtype.int8
uint8 = _core.dtype.uint8
bool = _core.dtype.bool  # noqa: A001 (torch.bool)

# The dtype of floating tensors made without one: float32 as torch's, until set_default_dtype.
# Readers call get_default_dtype() (a `from _dtypes import` of the variable would keep the old one).
_default_dtype = float32

_SCALAR_TYPE_NAMES = {float32: "Float", float64: "Double", float16: "Half", bfloat16: "BFloat16", int64: "Long",
                      int32: "Int", int16: "Short", int8: "Char", uint8: "Byte", bool: "Bool"}


def get_default_dtype():
    """The dtype of floating tensors made without one: float32 (torch's default) unless
    set_default_dtype chose float64."""
    return _default_dtype


def set_default_dtype(d, /):
    """The dtype of floating tensors made without one (torch.set_default_dtype): float32, float64,
    float16 or bfloat16. It is what tensor([1.5]), zeros, rand, arange(0.5), full(.., 1.5), linspace
    and the layers' parameters make, what an op promotes integers to (int_tensor / 2, exp of ints;
    a 16-bit default computes in float32 and rounds, as every 16-bit op), and the float dtype repr
    leaves unnamed."""
    global _default_dtype
    if not isinstance(d, _core.dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if d not in (float32, float64, float16, bfloat16):
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d
    _core._set_default_float_dtype(d)


def scalar_type_name(dtype):
    """torch's name of a dtype in its errors: "Float", "Double", "Long", ..."""
    return _SCALAR_TYPE_NAMES[dtype]


def _check_device(device, fn):
    """device= of a creation function, as torch's: None or the CPU (a device or a string); any
    other device is a RuntimeError that says seqlab runs on the CPU."""
    if device is not None:
        _check_device_type(device, fn)


def _finish(t, requires_grad):
    """A creation function's result, made a leaf that requires grad when asked."""
    if requires_grad:
        t.requires_grad_(True)
    return t
