"""torch's type promotion as functions: promote_types (the lattice of cpp/include/seqlab/dtype.hpp
`promote`), result_type (tensors with dims, then 0-d tensors, then Python numbers, each counting only
when its category bool < integer < float is higher) and can_cast (no float to integer, nothing but
bool to bool). Tests: tests/test_torch_switches.py."""
import builtins
import numbers

from . import _core, _dtypes

_F16, _BF16 = _core.dtype.float16, _core.dtype.bfloat16
_ORDER = [_dtypes.bool, _dtypes.uint8, _dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64, _F16, _BF16,
          _dtypes.float32, _dtypes.float64]
_FLOATS = (_F16, _BF16, _dtypes.float32, _dtypes.float64)


def _check(d, fn, arg):
    if not isinstance(d, _core.dtype):
        raise TypeError(f"{fn}(): argument '{arg}' must be seqlab.dtype, not {type(d).__name__}")


def promote_types(type1, type2):
    """The smallest dtype both convert to without losing their kind (torch.promote_types):
    bool < uint8 < int8 < int16 < int32 < int64 < float16, bfloat16 < float32 < float64, uint8 with int8
    is int16 and float16 with bfloat16 is float32."""
    _check(type1, "promote_types", "type1")
    _check(type2, "promote_types", "type2")
    lo, hi = sorted((type1, type2), key=_ORDER.index)
    if (lo, hi) == (_dtypes.uint8, _dtypes.int8):
        return _dtypes.int16
    if (lo, hi) == (_F16, _BF16):   # neither holds the other: float32 holds both
        return _dtypes.float32
    return hi


def _category(d):
    return 2 if d in _FLOATS else 0 if d == _dtypes.bool else 1


def _combine(higher, lower):
    """torch's combine_categories: the higher-priority group's dtype, unless the lower one is of a
    higher category (then the two promote)."""
    if higher is None:
        return lower
    if lower is None or _category(higher) >= _category(lower):
        return higher
    return promote_types(higher, lower)


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on these two operands returns (torch.result_type): each a tensor
    or a Python number (bool, int, float: the default float dtype)."""
    groups = {"dim": None, "zero": None, "number": None}
    for arg, name in ((tensor1, "tensor1"), (tensor2, "tensor2")):
        if isinstance(arg, _core.Tensor):
            key, d = ("dim" if arg.dim() > 0 else "zero"), arg.dtype
        elif isinstance(arg, builtins.bool):
            key, d = "number", _dtypes.bool
        elif isinstance(arg, numbers.Integral):
            key, d = "number", _dtypes.int64
        elif isinstance(arg, numbers.Real):
            key, d = "number", _dtypes.get_default_dtype()
        else:
            raise TypeError(f"result_type(): argument '{name}' must be Tensor or Number, not {type(arg).__name__}")
        groups[key] = d if groups[key] is None else promote_types(groups[key], d)
    return _combine(groups["dim"], _combine(groups["zero"], groups["number"]))


def can_cast(from_, to):
    """Whether torch's type promotion lets `from_` be written into `to` (torch.can_cast): a float
    into an integer or bool, or a non-bool into bool, is refused."""
    _check(from_, "can_cast", "from_")
    _check(to, "can_cast", "to")
    if from_ in _FLOATS and to not in _FLOATS:
        return False
    return not (from_ != _dtypes.bool and to == _dtypes.bool)
