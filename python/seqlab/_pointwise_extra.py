"""torch's remaining elementwise functions, composed of seqlab's ops (so each differentiable one gets
its gradient from its parts): addcmul / addcdiv, fmax / fmin (NaN-ignoring max / min), frexp / ldexp,
deg2rad / rad2deg, heaviside, nextafter, gcd / lcm (integers), isin, isneginf / isposinf, rsub,
scalar_tensor, and the shrink activations hardshrink / softshrink, with their in-place Tensor methods.
Tests: tests/test_torch_compositions.py."""
import builtins
import collections
import math
import numbers

import numpy as np

from . import _args, _core, _dtypes
from ._dtypes import _check_device
from ._promotion import result_type
from ._through_float32 import through_float32

def _c_order(array, dtype=None):
    """A C-contiguous copy of array that stays 0-d when it is (np.ascontiguousarray makes 0-d 1-d)."""
    return np.array(array, dtype=dtype, order="C")


# ------------------------------------------------------------------ add a scaled product / quotient


def _dtype_of(*operands):
    out = operands[0].dtype if isinstance(operands[0], _core.Tensor) else result_type(operands[0], operands[0])
    for o in operands[1:]:
        out = result_type(_core._empty([1], out), o)
    return out


@through_float32
def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2, broadcast (torch.addcmul). Integer operands take an
    integer value only, as torch's."""
    if not _dtype_of(input, tensor1, tensor2).is_floating_point and isinstance(value, float):
        raise RuntimeError("For integral input tensors, argument value must not be a floating point number.")
    product = tensor1 * tensor2
    return input + (product if value == 1 else product * value)


@through_float32
def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2, broadcast (torch.addcdiv); two integer tensors are
    torch's error (its old integer division is gone)."""
    if not tensor1.is_floating_point() and not tensor2.is_floating_point():
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                           "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                           "for all dtypes.")
    quotient = tensor1 / tensor2
    return input + (quotient if value == 1 else quotient * value)


# ------------------------------------------------------------------ NaN-ignoring max / min
def fmax(input, other):
    """The elementwise maximum, ignoring NaN: where(input >= other or other is NaN, input, other)
    (torch.fmax); NaN only where both are. The gradient goes to the chosen operand (input on ties)."""
    return _core.where((input >= other).logical_or(other.isnan()), input, other)


def fmin(input, other):
    """The elementwise minimum, ignoring NaN: where(input <= other or other is NaN, input, other)
    (torch.fmin)."""
    return _core.where((input <= other).logical_or(other.isnan()), input, other)


# ------------------------------------------------------------------ mantissa and exponent
_frexp_result = collections.namedtuple("frexp", ["mantissa", "exponent"])  # torch.return_types.frexp


@through_float32
def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent and 0.5 <= |mantissa| < 1
    (torch.frexp); exponent is int32. mantissa = input * 2**-exponent, so its gradient is
    2**-exponent, as torch's."""
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    _, exponent = np.frexp(input.detach().numpy())
    scale = np.ldexp(np.ones_like(exponent, dtype=input.detach().numpy().dtype), -exponent)
    mantissa = input * _core.from_numpy(_c_order(scale))
    return _frexp_result(mantissa, _core.from_numpy(_c_order(exponent.astype(np.int32))))


def _power_of_two(other, like):
    """2**other as a tensor: exact (NumPy's ldexp) unless other is a float tensor that needs a
    gradient, then exp(other ln 2)."""
    if isinstance(other, _core.Tensor) and other.is_floating_point() and other.requires_grad:
        return _core.exp(other * math.log(2.0))
    values = other.detach().numpy() if isinstance(other, _core.Tensor) else np.asarray(other)
    dtype = np.float64 if like == _dtypes.float64 else np.float32
    return _core.from_numpy(_c_order(np.ldexp(np.ones(values.shape, dtype), values.astype(np.int64))
                                                 if values.dtype.kind in "iub" else np.exp2(values.astype(dtype))))


@through_float32
def ldexp(input, other):
    """input * 2**other (torch.ldexp); an integer input gives the default float dtype."""
    if not input.is_floating_point():
        input = input.to(_dtypes.get_default_dtype())
    float_other = other.dtype if isinstance(other, _core.Tensor) and other.is_floating_point() else input.dtype
    return input * _power_of_two(other, _promote(input.dtype, float_other))


def _promote(a, b):
    return _dtypes.float64 if _dtypes.float64 in (a, b) else a


# ------------------------------------------------------------------ angles
def deg2rad(input):
    """input * pi / 180 (torch.deg2rad); an integer input gives the default float dtype."""
    if not input.is_floating_point():
        input = input.to(_dtypes.get_default_dtype())
    return input * (math.pi / 180.0)


def rad2deg(input):
    """input * 180 / pi (torch.rad2deg); an integer input gives the default float dtype."""
    if not input.is_floating_point():
        input = input.to(_dtypes.get_default_dtype())
    return input * (180.0 / math.pi)


# ------------------------------------------------------------------ step, next float, gcd / lcm
def _detached(fn, *tensors):
    """fn of the tensors' NumPy arrays, broadcast, as a new tensor without history (for torch's
    functions that have no derivative)."""
    arrays = np.broadcast_arrays(*[t.detach().numpy() for t in tensors])
    return _core.from_numpy(_c_order(fn(*arrays)))


@through_float32
def heaviside(input, values):
    """0 where input < 0, values where input == 0, 1 where input > 0 (torch.heaviside); input and
    values must share a dtype. No gradient (torch has none for it)."""
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _detached(lambda x, v: np.where(x == 0, v, (x > 0).astype(x.dtype)).astype(x.dtype), input, values)


def nextafter(input, other):
    """The next representable float after input toward other, in input's dtype (torch.nextafter).
    No gradient."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"nextafter: expected both inputs to have the same dtype, but got "
                           f"{_dtypes.scalar_type_name(input.dtype)} and {_dtypes.scalar_type_name(other.dtype)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{_dtypes.scalar_type_name(input.dtype)}'")
    return _detached(np.nextafter, input, other)


def _integer_pair(name, fn):
    def op(input, other):
        for t in (input, other):
            if t.is_floating_point() or t.dtype == _dtypes.bool:
                raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dtypes.scalar_type_name(t.dtype)}'")
        out = _detached(fn, input, other)
        return out.to(result_type(input, other))
    op.__name__ = op.__qualname__ = name
    return op


gcd = _integer_pair("gcd", np.gcd)
gcd.__doc__ = "The greatest common divisor of integer tensors, elementwise, never negative (torch.gcd)."
lcm = _integer_pair("lcm", np.lcm)
lcm.__doc__ = "The least common multiple of integer tensors, elementwise, never negative (torch.lcm)."


# ------------------------------------------------------------------ membership and infinities
@through_float32
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """A bool tensor of elements' shape: True where the element is one of test_elements (torch.isin);
    invert=True negates it. Either may be a number."""
    del assume_unique
    shape = tuple(elements.shape) if isinstance(elements, _core.Tensor) else ()
    e = elements.detach().numpy() if isinstance(elements, _core.Tensor) else np.asarray(elements)
    t = test_elements.detach().numpy() if isinstance(test_elements, _core.Tensor) else np.asarray(test_elements)
    found = np.isin(e, t, invert=builtins.bool(invert)).reshape(shape)
    return _core.from_numpy(_c_order(found))


def isneginf(input):
    """True where input is -inf (torch.isneginf); never for integers."""
    if not input.is_floating_point():
        return _core._full(list(input.shape), 0.0, _dtypes.bool)
    return input == -math.inf


def isposinf(input):
    """True where input is +inf (torch.isposinf); never for integers."""
    if not input.is_floating_point():
        return _core._full(list(input.shape), 0.0, _dtypes.bool)
    return input == math.inf


def rsub(input, other, *, alpha=1):
    """other - alpha * input (torch.rsub: sub with the operands swapped)."""
    if isinstance(other, _core.Tensor):
        return _core.sub(other, input, alpha=alpha)
    return other - (input if alpha == 1 else input * alpha)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-d tensor holding the number s, of the default float dtype unless dtype says otherwise
    (torch.scalar_tensor: even an int or a bool becomes a float)."""
    del layout, pin_memory
    _check_device(device, "scalar_tensor")
    dtype = _args.dtype(dtype, "scalar_tensor") or _dtypes.get_default_dtype()
    out = _core._full([], _args.number(s, "scalar_tensor", "s"), dtype)
    return out.requires_grad_(True) if requires_grad else out


# ------------------------------------------------------------------ shrink activations
# One op each, in C++ (cpp/src/ops/shrink.cpp), which nn.Hardshrink / Softshrink's twins call too;
# here torch's TypeError for a lambd that is not a number, then the op.
def _check_lambd(lambd, name):
    if not isinstance(lambd, numbers.Real):
        raise TypeError(f"{name}(): argument 'lambd' must be Number, not {type(lambd).__name__}")


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0 (torch.nn.functional.hardshrink); the gradient passes where x is
    kept."""
    _check_lambd(lambd, "hardshrink")
    return _core.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0 (torch.nn.functional.softshrink);
    lambd must be >= 0."""
    _check_lambd(lambd, "softshrink")
    return _core.softshrink(input, lambd)


# Tensor methods (self first) and, in _inplace_forms' style, their in-place forms
METHODS = {"addcmul": addcmul, "addcdiv": addcdiv, "fmax": fmax, "fmin": fmin, "frexp": frexp, "ldexp": ldexp,
           "deg2rad": deg2rad, "rad2deg": rad2deg, "heaviside": heaviside, "nextafter": nextafter, "gcd": gcd,
           "lcm": lcm, "isneginf": isneginf, "isposinf": isposinf, "hardshrink": hardshrink}
IN_PLACE_OF = ("addcmul", "addcdiv", "ldexp", "deg2rad", "rad2deg", "heaviside", "nextafter", "gcd", "lcm")
