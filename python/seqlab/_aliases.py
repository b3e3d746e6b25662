"""torch's other names for ops seqlab has (absolute, multiply, divide, greater, concatenate, row_stack,
fix, ravel, split_with_sizes, unsafe_split...), div's rounding_mode, the deprecated inclusive range,
and the small Tensor facts torch reports (itemsize, nbytes, mT / mH / H / adjoint, is_signed,
is_nonzero, get_device, output_nr...). Each alias is the op itself, so it shares its gradient.
Tests: tests/test_torch_aliases.py."""
import builtins
import math
import warnings

import numpy as np

from . import _args, _core
from . import _dtypes
from ._shape import vstack
from ._switches import strided

# ------------------------------------------------------------------ division with a rounding mode


def _trunc_int_div(a, b):
    """Integer a / b rounded toward zero: floor division, plus one where the remainder is nonzero
    and the signs differ (floor went one below)."""
    q = _core.floor_divide(a, b)
    adjust = (q * b != a).logical_and((a < 0).logical_xor(b < 0))
    return q + adjust.to(q.dtype)


def _float_floor_div(a, b):
    """Float a / b rounded toward -inf as Python's // (and torch's floor mode): from the remainder,
    not floor(a / b), which is one too high where a / b rounds up to a whole number (7.0 // 0.1 is
    69, floor(7.0 / 0.1) is 70). floor_divide records no graph; the gradient is torch's 0, attached
    through an exact zero selected from a and b."""
    q = _core.floor_divide(a.detach(), b.detach() if isinstance(b, _core.Tensor) else b)
    needs_grad = a.requires_grad or (isinstance(b, _core.Tensor) and b.requires_grad)
    if not needs_grad or not _core.is_grad_enabled():
        return q
    # an exact +0 that carries a's (and b's) zero gradient whatever their values (where() selects,
    # so an inf or NaN in a never reaches the arithmetic); q - (+0) keeps q's -0, inf and NaN
    never = _core._full([], 0.0, _dtypes.bool)
    zero = _core.where(never, a, 0.0)
    if isinstance(b, _core.Tensor) and b.requires_grad:
        zero = zero + _core.where(never, b, 0.0)
    return q - zero


def div(input, other, *, rounding_mode=None):
    """input / other (torch.div): true division (an integer result becomes float) unless
    rounding_mode is "trunc" (toward zero) or "floor" (toward -inf), which keep integer
    operands integer. The rounded forms have gradient 0, as torch's."""
    if rounding_mode is None:
        return _core.div(input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    integral = not input.is_floating_point() and not (
        other.is_floating_point() if isinstance(other, _core.Tensor) else isinstance(other, float))
    if rounding_mode == "floor":
        return _core.floor_divide(input, other) if integral else _float_floor_div(input, other)
    if integral:
        if not isinstance(other, _core.Tensor):
            other = _core.from_numpy(np.array(other, dtype=np.int64))
        if bool((other == 0).any()):
            raise RuntimeError("ZeroDivisionError")
        return _trunc_int_div(input, other)
    return _core.div(input, other).trunc()


divide = div


def _div_(self, other, *, rounding_mode=None):
    """In place: self = div(self, other, rounding_mode=...) (torch.Tensor.div_); true division of an
    integer tensor is torch's error, since its float result cannot be written back."""
    if rounding_mode is None:
        return _plain_div_(self, other)
    out = div(self.clone() if self.requires_grad else self, other, rounding_mode=rounding_mode)
    if out.dtype != self.dtype and not (self.is_floating_point() and out.is_floating_point()):
        raise RuntimeError(f"result type {_dtypes.scalar_type_name(out.dtype)} can't be cast to the desired output "
                           f"type {_dtypes.scalar_type_name(self.dtype)}")
    return self.copy_(out)


_plain_div_ = _core.Tensor.div_
_div_.__name__ = "div_"

# ------------------------------------------------------------------ plain aliases (torch's own list)
def absolute(input):
    """|input| elementwise: abs under NumPy's name (torch.absolute)."""
    return _core.abs(input)


def multiply(input, other):
    """input * other: mul under NumPy's name (torch.multiply)."""
    return _core.mul(input, other)


def subtract(input, other, *, alpha=1):
    """input - alpha * other: sub under NumPy's name (torch.subtract)."""
    return _core.sub(input, other, alpha=alpha)


def greater(input, other):
    """input > other elementwise: gt under NumPy's name (torch.greater)."""
    return _core.gt(input, other)


def greater_equal(input, other):
    """input >= other elementwise: ge under NumPy's name (torch.greater_equal)."""
    return _core.ge(input, other)


def less(input, other):
    """input < other elementwise: lt under NumPy's name (torch.less)."""
    return _core.lt(input, other)


def less_equal(input, other):
    """input <= other elementwise: le under NumPy's name (torch.less_equal)."""
    return _core.le(input, other)


def not_equal(input, other):
    """input != other elementwise: ne under NumPy's name (torch.not_equal)."""
    return _core.ne(input, other)


def fix(input):
    """input rounded toward zero: trunc under NumPy's name (torch.fix)."""
    return _core.trunc(input)


def unsafe_chunk(input, chunks, dim=0):
    """chunk (torch.unsafe_chunk: torch skips a view check seqlab does not make)."""
    return _core.chunk(input, chunks, dim)


def unsafe_split(input, split_size, dim=0):
    """split (torch.unsafe_split: torch skips a view check seqlab does not make)."""
    return _core.split(input, split_size, dim)


row_stack = vstack


def concatenate(tensors, axis=0, *, dim=None):
    """cat(tensors, axis) under NumPy's name (torch.concatenate); dim= is accepted too."""
    return _core.cat(tensors, axis if dim is None else dim)


def positive(input):
    """input itself (torch.positive: +x); a bool tensor is torch's error."""
    if input.dtype == _dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def split_with_sizes(input, split_sizes, dim=0):
    """input split along dim into pieces of the given sizes, which must sum to its size there
    (torch.split_with_sizes): views."""
    return _core.split(input, _args.ints(split_sizes, "split_with_sizes", "split_sizes"), dim)


unsafe_split_with_sizes = split_with_sizes


def ravel(input):
    """input flattened to one dimension, a view when its layout allows (torch.ravel)."""
    return input.reshape(-1)


def reshape_as(self, other):
    """self reshaped to other's shape (torch.Tensor.reshape_as)."""
    return self.reshape(other.shape)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Deprecated (torch.range): start, start + step, ... up to end INCLUDED, default float dtype
    unless dtype says otherwise; torch's UserWarning says to use arange, which stops before end."""
    warnings.warn("seqlab.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use seqlab.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    dtype = _args.dtype(dtype, "range") or _dtypes.get_default_dtype()
    start, end, step = (_args.number(v, "range", n) for v, n in ((start, "start"), (end, "end"), (step, "step")))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    count = math.floor((end - start) / step) + 1
    out = _core._arange(0, count, 1, _dtypes.float64).mul_(step).add_(start).to(dtype)
    return out.requires_grad_(True) if requires_grad else out


# ------------------------------------------------------------------ small facts about a tensor
def is_floating_point(input):
    """True for float32 and float64 tensors (torch.is_floating_point)."""
    return input.is_floating_point()


def is_signed(input):
    """True unless the dtype is uint8 or bool (torch.is_signed)."""
    return input.dtype not in (_dtypes.uint8, _dtypes.bool)


def is_nonzero(input):
    """The truth of a one-element tensor (torch.is_nonzero); more or fewer elements are torch's error."""
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item() != 0)


def is_same_size(input, other):
    """True if the two tensors have the same shape (torch.is_same_size)."""
    return tuple(input.shape) == tuple(other.shape)


def is_inference(input):
    """False: seqlab has no inference tensors (inference_mode is no_grad), so none is one."""
    del input
    return False


def get_device(input):
    """-1, torch's answer for a CPU tensor (torch.get_device)."""
    del input
    return -1


def _itemsize(self):
    return _dtypes_itemsize[self.dtype]


_dtypes_itemsize = {_dtypes.float32: 4, _dtypes.float64: 8, _dtypes.float16: 2, _dtypes.bfloat16: 2, _dtypes.int64: 8,
                    _dtypes.int32: 4, _dtypes.int16: 2, _dtypes.int8: 1, _dtypes.uint8: 1, _dtypes.bool: 1}


def _matrix_transpose(self):
    """The last two dims swapped (torch's x.mT); fewer than 2 dims is torch's error."""
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D "
                           f"tensor.")
    return self.transpose(-2, -1)


def _transpose_2d(self):
    """x.H (x.T for real tensors): a matrix transposed, a vector or scalar itself."""
    if self.dim() not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
    return self.t() if self.dim() == 2 else self


def adjoint(input):
    """The conjugate transpose of the last two dims: for seqlab's real tensors, input.mT (torch.adjoint)."""
    if input.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                           f"{input.dim()}-D tensor.")
    return input.transpose(-2, -1)


PROPERTIES = {
    "itemsize": property(_itemsize, doc="Bytes per element (torch.Tensor.itemsize)."),
    "nbytes": property(lambda self: self.numel() * _itemsize(self),
                       doc="Bytes the elements take: numel() * itemsize (torch.Tensor.nbytes)."),
    "mT": property(_matrix_transpose, doc="The last two dims swapped, a view (torch.Tensor.mT)."),
    "mH": property(_matrix_transpose, doc="The conjugate transpose of the last two dims; for real tensors mT."),
    "H": property(_transpose_2d, doc="The conjugate transpose of a matrix; for real tensors x.T of a 2-D x."),
    "is_meta": property(lambda self: False, doc="False: no seqlab tensor lives on the meta device."),
    "is_quantized": property(lambda self: False, doc="False: seqlab has no quantized tensors."),
    "output_nr": property(lambda self: 0, doc="The output of its grad_fn this tensor is: 0 (torch's output_nr; "
                                              "seqlab's multi-output ops do not record it)."),
    "layout": property(lambda self: strided, doc="seqlab.strided: every tensor is a strided one."),
}


# Tensor methods: name -> function (self first)
METHODS = {"absolute": absolute, "multiply": multiply, "divide": div, "div": div, "subtract": subtract,
           "greater": greater, "greater_equal": greater_equal, "less": less, "less_equal": less_equal,
           "not_equal": not_equal, "fix": fix, "positive": positive, "unsafe_chunk": unsafe_chunk,
           "unsafe_split": unsafe_split, "split_with_sizes": split_with_sizes,
           "unsafe_split_with_sizes": unsafe_split_with_sizes, "ravel": ravel, "reshape_as": reshape_as,
           "is_signed": is_signed, "is_nonzero": is_nonzero, "is_same_size": is_same_size,
           "is_inference": is_inference, "get_device": get_device, "adjoint": adjoint, "div_": _div_,
           "divide_": _div_}
