"""torch's math functions and reductions, composed of seqlab's primitives (exp, log1p, expm1, sqrt,
where, masked_fill, max, gather, sum), so each gets its gradient from its parts: amax / amin (ties,
±inf ones too, share the gradient evenly; a row with NaN gets NaN, as torch's) / aminmax, nansum /
nanmean, count_nonzero, diff, lerp, xlogy, logaddexp / logaddexp2, hypot, sgn / signbit / copysign,
nan_to_num, isclose, sinh / cosh / asinh / acosh / atanh, atan / atan2 / asin / acos (from Cephes'
rational atan), var_mean / std_mean, cummax / cummin, logcumsumexp, with torch's signatures and
dtype promotion (a 0-d tensor promotes as in torch's binary ops), and the in-place Tensor methods
(x.sinh_(), x.lerp_(end, w), ...) that write the result into x.
Where a formula overflows or loses digits (x² in asinh, exp in logaddexp, sinh / cosh) the unused
branch of a where() gets a safe argument, so no NaN reaches a gradient; at the ends of a domain
(asin / acos at ±1, acosh at 1, atanh at ±1) the gradient is torch's ±inf. Tests:
tests/test_torch_functions.py."""
import builtins
import collections
import math

import numpy as np

from . import _args, _core
from ._dtypes import get_default_dtype, scalar_type_name
from ._reduced_float import numpy_values
from ._composed import _dims, isfinite, isinf, isnan
from ._shape import _result_dtype, broadcast_tensors
from ._through_float32 import through_float32

__all__ = ["amax", "amin", "aminmax", "nansum", "nanmean", "count_nonzero", "diff", "lerp", "xlogy", "logaddexp",
           "logaddexp2", "hypot", "sgn", "signbit", "copysign", "nan_to_num", "isclose", "sinh", "cosh", "asinh",
           "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "var_mean", "std_mean", "cummax", "cummin",
           "logcumsumexp", "nan_to_num_", "atan", "atan2", "asin", "acos", "arctan", "arctan2", "arcsin", "arccos"]



def _tensor(x, like):
    """A Python number as a 0-d tensor (float: `like`'s float dtype or the default dtype), a tensor as it is."""
    if isinstance(x, _core.Tensor):
        return x
    if isinstance(x, builtins.bool):
        return _core.from_numpy(np.array(x))
    if isinstance(x, int):
        return _core.from_numpy(np.array(x, dtype=np.int64))
    dtype = like.dtype if isinstance(like, _core.Tensor) and like.is_floating_point() else get_default_dtype()
    return _core.from_numpy(np.array(x, dtype=np.float64)).to(dtype)


def _floats(*tensors):
    """The tensors in their promoted dtype (torch's binary-op rule, 0-d tensors included: see
    _shape._result_dtype), integers and bools computed in the default dtype (torch's rule for functions such as
    xlogy and hypot that always give floats)."""
    dtype = _result_dtype(tensors)
    dtype = dtype if dtype.is_floating_point else get_default_dtype()
    return [t if t.dtype == dtype else t.to(dtype) for t in tensors]


def _floats_only(fn, *tensors):
    """The tensors in their promoted dtype, which must be floating point: torch has no integer kernel
    of these functions (NotImplementedError, as its message)."""
    if not builtins.any(t.is_floating_point() for t in tensors):
        raise NotImplementedError(f"\"{fn}_cpu\" not implemented for '{_dtype_name(tensors[0].dtype)}'")
    return _floats(*tensors)


def _dtype_name(dtype):
    """torch's name of a dtype (Long, Float, ...): _tensor.scalar_type_name, imported at call time
    because _tensor imports this module."""
    return scalar_type_name(dtype)


def _two_tensors(fn, input, other):
    """(input, other), or torch's TypeError for a function that takes no Python numbers."""
    for i, (name, value) in enumerate((("input", input), ("other", other))):
        if not isinstance(value, _core.Tensor):
            raise TypeError(f"{fn}(): argument '{name}' (position {i + 1}) must be Tensor, not {type(value).__name__}")
    return input, other


def _reduce_dims(dim, ndim, fn):
    """dim of amax and friends: None or () means every dim."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return list(range(ndim))
    return _dims(dim, ndim, fn)


# ---------------------------------------------------------------- reductions


def _extreme(input, dim, keepdim, fn, largest):
    dims = _reduce_dims(dim, input.dim(), fn)
    if input.dim() == 0:
        return input.clone()
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    if input.numel() == 0:  # a zero-size dim that is not reduced
        return input.sum(dims, keepdim=keepdim).to(input.dtype)
    if input.dtype == _core.dtype.bool:
        return _extreme(input.to(_core.dtype.uint8), dims, keepdim, fn, largest) != 0
    m = input.detach()
    for d in dims:
        m = (m.max if largest else m.min)(d, keepdim=True).values
    if not input.is_floating_point() or not input.requires_grad:
        out = m
    else:
        # The value is m; the gradient goes to every element equal to it, shared evenly by the ties
        # (torch's amax/amin backward): y = Σ x·w with w = [x == m] / count, added as y − y.detach()
        # (Σ of c copies of m / c need not be m to the last bit). Where m is ±inf, y is m itself (the
        # tied infinities sum to it; y − y.detach() would be NaN); where m is NaN nothing equals it,
        # w = 0/0, and nothing masked, y is NaN with a NaN gradient for the whole row, as torch's.
        hit = input.detach() == m
        weight = hit.to(input.dtype) / hit.to(input.dtype).sum(dims, keepdim=True)
        y = (input.masked_fill(~(hit | isnan(m)), 0.0) * weight).sum(dims, keepdim=True)
        out = _core.where(isfinite(m), m + (y - y.detach()), y)
    for d in sorted(dims, reverse=True) if not keepdim else ():
        out = out.squeeze(d)
    return out


@_args.numpy_names
def amax(input, dim=(), keepdim=False):
    """The largest element over dim (an int or a tuple; () or None: all); ties share the gradient
    evenly, NaN propagates (torch.amax)."""
    return _extreme(input, dim, keepdim, "amax", True)


@_args.numpy_names
def amin(input, dim=(), keepdim=False):
    """The smallest element over dim (an int or a tuple; () or None: all); ties share the gradient
    evenly, NaN propagates (torch.amin)."""
    return _extreme(input, dim, keepdim, "amin", False)


_aminmax_result = collections.namedtuple("aminmax", ["min", "max"])


def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) of input over dim (None: every element), as torch.aminmax."""
    if dim is None:
        empty = input.numel() == 0
    else:
        empty = input.dim() > 0 and input.shape[_dims(dim, input.dim(), "aminmax")[0]] == 0
    if empty:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dim is None:
        lo, hi = amin(input, (), keepdim), amax(input, (), keepdim)
        if keepdim and input.dim():  # torch keeps every dim as 1
            lo, hi = lo.reshape([1] * input.dim()), hi.reshape([1] * input.dim())
        return _aminmax_result(lo, hi)
    dim = _args.index(dim, "aminmax", "dim")
    return _aminmax_result(amin(input, dim, keepdim), amax(input, dim, keepdim))


@_args.numpy_names
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Σ input over dim with NaNs counted as 0 (torch.nansum)."""
    x = input.masked_fill(isnan(input), 0) if input.is_floating_point() else input
    if dtype is not None:
        x = x.to(dtype)
    return x.sum() if dim is None and not keepdim else x.sum(_reduce_dims(dim, x.dim(), "nansum"), keepdim=keepdim)


@_args.numpy_names
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over dim of the elements that are not NaN (torch.nanmean; NaN where all are)."""
    if not input.is_floating_point():
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_dtype_name(input.dtype)}")
    keep = ~isnan(input)
    return nansum(input, dim, keepdim, dtype=dtype) / nansum(keep.to(dtype or input.dtype), dim, keepdim)


def count_nonzero(input, dim=None):
    """How many elements of input along dim (an int, a tuple, None: all) are nonzero, as int64
    (torch.count_nonzero)."""
    nonzero = (input != 0).to(_core.dtype.int64)
    return nonzero.sum() if dim is None else nonzero.sum(_dims(dim, input.dim(), "count_nonzero"))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference out[i] = x[i+1] − x[i] along dim, after prepend and append are
    joined to input along it (torch.diff; for bools, x[i+1] != x[i])."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    n = _args.index(n, "diff", "n")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dims(dim, input.dim(), "diff")[0]
    parts = []
    for extra in (prepend, input, append):
        if extra is None:
            continue
        if not isinstance(extra, _core.Tensor):
            raise TypeError(f"diff(): argument 'prepend'/'append' must be Tensor, not {type(extra).__name__}")
        if extra.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        parts.append(extra)
    x = _core.cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        if x.shape[d] == 0:
            break
        k = x.shape[d] - 1
        after, before = x.narrow(d, 1, k), x.narrow(d, 0, k)
        x = after != before if x.dtype == _core.dtype.bool else after - before
    return x


# ---------------------------------------------------------------- pointwise


def _lerp_floats(input, kernel):
    """torch's NotImplementedError for lerp of integers or bools (its kernels are floating point only)."""
    if not input.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_name(input.dtype)}'")


@through_float32
def lerp(input, end, weight):
    """input + weight·(end − input), weight a number or a tensor (all broadcast); as torch, the
    form end − (end − input)·(1 − weight) where |weight| ≥ 0.5, exact at weight = 1 (torch.lerp;
    floating point only, as torch's kernels)."""
    if not isinstance(weight, _core.Tensor):
        weight = _args.number(weight, "lerp", "weight")
        if input.dtype != end.dtype:
            raise RuntimeError(f"lerp: expected dtype {input.dtype} for `end` but got dtype {end.dtype}")
        _lerp_floats(input, "lerp_kernel_scalar")
        delta = end - input
        return input + delta * weight if abs(weight) < 0.5 else end - delta * (1 - weight)
    if input.dtype != end.dtype or input.dtype != weight.dtype:
        bad, which = (end, "end") if end.dtype != input.dtype else (weight, "weight")
        raise RuntimeError(f"lerp: expected dtype {input.dtype} for `{which}` but got dtype {bad.dtype}")
    _lerp_floats(input, "lerp_kernel_tensor")
    delta = end - input
    return _core.where(weight.abs() < 0.5, input + weight * delta, end - delta * (1 - weight))


def xlogy(input, other):
    """input·log(other), 0 where input is 0 (unless other is NaN); ints compute in the default dtype (torch.xlogy)."""
    x, y = broadcast_tensors(*_floats(_tensor(input, other), _tensor(other, input)))
    # log(y) at y <= 0 (or inf) is not finite; where x is 0 the product is 0, and the gradient stays finite
    zero = (x == 0) & ((y <= 0) | (y == float("inf")))
    return x * y.masked_fill(zero, 1.0).log()


def _logaddexp(input, other, fn, log1p_exp):
    a, b = broadcast_tensors(*_floats_only(fn, *_two_tensors(fn, input, other)))
    same_inf = isinf(a) & (a == b)          # inf − inf would be NaN: the answer is a itself
    a_safe, b_safe = a.masked_fill(same_inf, 0.0), b.masked_fill(same_inf, 0.0)
    m = _core.maximum(a_safe, b_safe)
    out = m + log1p_exp(-(a_safe - b_safe).abs())
    return _core.where(same_inf, a, out)


@through_float32
def logaddexp(input, other):
    """log(exp(input) + exp(other)), as max + log1p(exp(−|input − other|)) so nothing overflows
    (torch.logaddexp)."""
    return _logaddexp(input, other, "logaddexp", lambda t: t.exp().log1p())


@through_float32
def logaddexp2(input, other):
    """log2(2^input + 2^other), as max + log2(1 + 2^(−|input − other|)) (torch.logaddexp2)."""
    return _logaddexp(input, other, "logaddexp2", lambda t: (t * math.log(2)).exp().log1p() / math.log(2))


@through_float32
def hypot(input, other):
    """sqrt(input² + other²), scaled by max(|input|, |other|) so that the squares do not overflow
    (torch.hypot)."""
    a, b = broadcast_tensors(*_floats_only("hypot", *_two_tensors("hypot", input, other)))
    infinite = isinf(a) | isinf(b)
    s = _core.maximum(a.detach().abs(), b.detach().abs())
    s = s.masked_fill((s == 0) | infinite | isnan(s), 1.0)
    out = s * ((a / s) ** 2 + (b / s) ** 2).sqrt()
    return out.masked_fill(infinite, float("inf"))


def sgn(input):
    """The sign of input, −1, 0 or 1 (torch.sgn; for real numbers the same as sign)."""
    return input.sign()


@through_float32
def signbit(input):
    """True where input's sign bit is set: negative numbers and −0.0 (torch.signbit)."""
    if input.dtype == _core.dtype.bool:
        return input != input
    return _core.from_numpy(np.array(np.signbit(input.detach().numpy()), order="C"))


@through_float32
def copysign(input, other):
    """|input| with the sign (bit) of other; always floating point (torch.copysign)."""
    x = _tensor(input, other)
    y = _tensor(other, input)
    x, = _floats(x, y)[:1]
    negative = signbit(y if isinstance(other, _core.Tensor) else y.to(x.dtype))
    out = _core.where(negative, -x.abs(), x.abs())
    if y.requires_grad:  # other gets a zero gradient, as in torch: + (−0.0), which keeps −0.0 too
        out = out + y.masked_fill(_core.from_numpy(np.array(True)), -0.0).to(out.dtype)
    return out


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """input with NaN replaced by nan, +inf by posinf and −inf by neginf (default: the dtype's
    largest and lowest finite values) (torch.nan_to_num)."""
    if not input.is_floating_point():
        return input.clone()
    most = {_core.dtype.float64: float(np.finfo(np.float64).max), _core.dtype.float16: 65504.0,
            _core.dtype.bfloat16: (2 - 2.0 ** -7) * 2.0 ** 127}.get(input.dtype, float(np.finfo(np.float32).max))
    posinf = most if posinf is None else posinf
    neginf = -most if neginf is None else neginf
    out = input.masked_fill(isnan(input), nan)
    out = out.masked_fill(input == float("inf"), posinf)
    return out.masked_fill(input == float("-inf"), neginf)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True where |input − other| ≤ atol + rtol·|other|, or the two are equal (infinities), or both
    NaN when equal_nan (torch.isclose)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"isclose: {input.dtype} did not match {other.dtype}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    a, b = input.detach(), other.detach()
    close = a == b
    if equal_nan:
        close = close | (isnan(a) & isnan(b))
    if a.dtype == _core.dtype.bool:
        return close
    fa, fb = (a, b) if a.is_floating_point() else (a.to(_core.dtype.float64), b.to(_core.dtype.float64))
    within = ((fa - fb).abs() <= atol + rtol * fb.abs()) & isfinite(fa) & isfinite(fb)
    return close | within


# ---------------------------------------------------------------- hyperbolic functions


def _float(input):
    return input if input.is_floating_point() else input.to(get_default_dtype())


def _half_exp(x):
    """(far, near, big): where |x| is beyond the point at which e^|x| overflows (e^|x| / 2 may not),
    far = e^|x| / 2 computed as (e^(|x|/2) / 2)·e^(|x|/2), which is finite wherever the result is, as
    is its gradient (e^−|x| is below rounding there); near is x elsewhere. Each gets safe arguments
    where it is not used. (The two factors are separate nodes, so the gradient adds two halves of
    g·e^|x| / 2 rather than forming g·e^|x|, which may overflow where torch's is finite.)"""
    limit = 709.0 if x.dtype == _core.dtype.float64 else 88.0
    big = x.abs() > limit
    a = x.masked_fill(~big, limit).abs()
    return ((a * 0.5).exp() * 0.5) * (a * 0.5).exp(), x.masked_fill(big, 0.0), big


@through_float32
def sinh(input):
    """(e^x − e^−x) / 2, as (expm1(x) − expm1(−x)) / 2 to keep the digits of small x, and as
    sign(x)·e^|x| / 2 without overflow for large |x| (torch.sinh)."""
    x = _float(input)
    far, near, big = _half_exp(x)
    return _core.where(big, _core.where(x < 0, -far, far), (near.expm1() - (-near).expm1()) * 0.5)


@through_float32
def cosh(input):
    """(e^x + e^−x) / 2, as e^|x| / 2 without overflow for large |x| (torch.cosh)."""
    x = _float(input)
    far, near, big = _half_exp(x)
    return _core.where(big, far, (near.exp() + (-near).exp()) * 0.5)


def _vertical(x, at, side):
    """For where(at, ..., ...): a term that is ±0 where `at` (x on an end of its function's domain) and
    whose gradient there is +inf, as torch's for asin, acos, acosh, atanh: side·sqrt(side·x − side·x)
    with the second side·x detached (+0 exactly), side +1 where the domain lies above x, −1 below."""
    if isinstance(side, _core.Tensor):
        side = side.masked_fill(~at, 1.0)
    u = side * x.masked_fill(~at, 0.0)
    return side * (u - u.detach() + (~at).to(x.dtype)).sqrt()   # (1 under the root where not `at`)


def _large(x):
    """|x| beyond which x² overflows in x's dtype (1/√eps: there the +1 under the roots is lost too)."""
    return 1e150 if x.dtype == _core.dtype.float64 else 1e18


@through_float32
def asinh(input):
    """log(x + sqrt(x² + 1)), computed as sign(x)·log1p(|x| + x²/(1 + sqrt(1 + x²))) for precision near
    0 and as sign(x)·(log|x| + log 2) where x² would overflow (torch.asinh)."""
    x = _float(input)
    big = x.abs() > (1e8 if x.dtype == _core.dtype.float64 else 1e4)
    negative = x < 0

    def f(a):  # asinh(a) for a ≥ 0; no abs(), whose gradient at 0 would be 0
        return (a + a * a / (1 + (1 + a * a).sqrt())).log1p()

    def far(a):  # a large: log 2a + 1/(4a²)
        return a.log() + math.log(2) + 1 / (4 * a * a)

    # each branch gets safe arguments where it is not used (no inf or NaN reaches a gradient)
    pos, neg = x.masked_fill(negative | big, 0.0), (-x).masked_fill(~negative | big, 0.0)
    near = _core.where(negative, -f(neg), f(pos))
    pos_big, neg_big = x.masked_fill(negative | ~big, 1.0), (-x).masked_fill(~negative | ~big, 1.0)
    out = _core.where(big, _core.where(negative, -far(neg_big), far(pos_big)), near)
    return _core.where(x == 0, x, out)   # asinh(−0) = −0


@through_float32
def acosh(input):
    """log(x + sqrt(x² − 1)) for x ≥ 1 (NaN below), computed as log1p((x − 1) + sqrt((x − 1)(x + 1)))
    and as log x + log 2 where x² would overflow; gradient +inf at 1 (torch.acosh)."""
    x = _float(input)
    big = x > (1e8 if x.dtype == _core.dtype.float64 else 1e4)
    at = x.detach() == 1   # acosh(1) = 0 with torch's gradient +inf
    small_x = x.masked_fill(big | at, 2.0)
    big_x = x.masked_fill(~big, 1.0)
    near = ((small_x - 1) + ((small_x - 1) * (small_x + 1)).sqrt()).log1p()
    far = big_x.log() + math.log(2) - 1 / (4 * big_x * big_x)
    return _core.where(at, _vertical(x, at, 1.0), _core.where(big, far, near))


@through_float32
def atanh(input):
    """½·log((1 + x)/(1 − x)) for |x| ≤ 1, computed as ½·log1p(2x / (1 − x)); ±inf at ±1, with
    gradient +inf there (torch.atanh)."""
    x = _float(input)
    at = x.detach().abs() == 1
    inner = x.masked_fill(at, 0.0)
    return _core.where(at, x.detach() * float("inf") + _vertical(x, at, -x.detach()),
                       (2 * inner / (1 - inner)).log1p() * 0.5)


arcsinh, arccosh, arctanh = asinh, acosh, atanh


# ---------------------------------------------------------------- inverse trigonometric functions

# atan(x) = x + x·z·P(z)/Q(z), z = x², for |x| ≤ 0.66: the rational approximation of Cephes' atan.c
# (S. L. Moshier), accurate to 2.2e-16; larger |x| is reduced to it by atan(x) = π/4 + atan((x−1)/(x+1))
# and, beyond tan(3π/8), atan(x) = π/2 + atan(−1/x). Only +, ·, / of tensors: the gradient is the
# derivative of the approximation, 1/(1 + x²) to the same accuracy, and so is every higher one.
_ATAN_P = [-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1,
           -1.228866684490136173410e2, -6.485021904942025371773e1]
_ATAN_Q = [1.0, 2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
           4.853903996359136964868e2, 1.945506571482613964425e2]
_T3P8 = 2.41421356237309504880   # tan(3π/8)


def _polyval(coefficients, z):
    out = z * 0 + coefficients[0]
    for c in coefficients[1:]:
        out = out * z + c
    return out


def _atan_nonnegative(a):
    """atan(a) for a ≥ 0 (NaN passes through)."""
    far, mid = a > _T3P8, (a > 0.66) & ~(a > _T3P8)
    near = ~far & ~mid
    # the reduced argument of each range; each range's formula reads safe values outside it
    a_mid = a.masked_fill(~mid, 1.0)
    reduced = _core.where(mid, (a_mid - 1) / (a_mid + 1), a.masked_fill(~near, 0.0))
    t = _core.where(far, -1 / a.masked_fill(~far, 1.0), reduced)
    z = t * t
    r = t + t * z * _polyval(_ATAN_P, z) / _polyval(_ATAN_Q, z)
    r = _core.where(t == 0, t, r)   # atan(−0) = −0 (the sum above would give +0)
    zero = t * 0   # (t is finite where a is inf)
    return r + _core.where(far, zero + math.pi / 2, _core.where(mid, zero + math.pi / 4, zero))


@through_float32
def atan(input):
    """The angle in (−π/2, π/2) whose tangent is input (torch.atan; see _ATAN_P for how)."""
    x = _float(input)
    negative = x < 0   # odd: atan(−x) = −atan(x), without abs() (its gradient at 0 would be 0)
    return _core.where(negative, -_atan_nonnegative((-x).masked_fill(~negative, 0.0)),
                       _atan_nonnegative(x.masked_fill(negative, 0.0)))


@through_float32
def atan2(input, other):
    """The angle in [−π, π] of the point (x, y) = (other, input): atan(y/x) moved to x's half-plane,
    as π/2·sign(y) − atan(x/y) where |y| > |x| (so no division by 0), with C's signed zeros and
    infinities; at (0, 0) the gradient is 0, as torch's (torch.atan2)."""
    y, x = broadcast_tensors(*_floats(*_two_tensors("atan2", input, other)))
    both_inf = isinf(x) & isinf(y)   # atan2(±inf, ±inf) is that of (±1, ±1)
    x, y = _core.where(both_inf, x.sign().detach(), x), _core.where(both_inf, y.sign().detach(), y)
    steep = y.detach().abs() > x.detach().abs()
    y_negative, x_negative = signbit(y), signbit(x)
    # at x = 0 the divisor is a stand-in 1 (no gradient to x); at (0, 0) y's gradient is 0 too, as torch's
    y_flat = _core.where((x == 0) & (y == 0), y.detach(), y)
    flat = atan(y_flat.masked_fill(steep, 0.0) / x.masked_fill(steep | (x == 0), 1.0))
    turn = _core.where(x_negative, _core.where(y_negative, flat * 0 - math.pi, flat * 0 + math.pi), flat * 0)
    flat = flat + turn
    upright = atan(x.masked_fill(~steep, 0.0) / y.masked_fill(~steep, 1.0))
    upright = _core.where(y_negative, upright * 0 - math.pi / 2, upright * 0 + math.pi / 2) - upright
    return _core.where(steep, upright, flat)


@through_float32
def asin(input):
    """The angle in [−π/2, π/2] whose sine is input, atan2(x, sqrt((1 − x)(1 + x))); NaN outside
    [−1, 1]; at ±1, ±π/2 with gradient +inf (torch.asin)."""
    x = _float(input)
    at = x.detach().abs() == 1
    inner = x.masked_fill(at, 0.0)
    return _core.where(at, x.detach() * (math.pi / 2) + _vertical(x, at, -x.detach()),
                       atan2(inner, ((1 - inner) * (1 + inner)).sqrt()))


@through_float32
def acos(input):
    """The angle in [0, π] whose cosine is input, atan2(sqrt((1 − x)(1 + x)), x); NaN outside [−1, 1];
    at 1 and −1, 0 and π with gradient −inf (torch.acos)."""
    x = _float(input)
    at = x.detach().abs() == 1
    inner = x.masked_fill(at, 0.0)
    return _core.where(at, (1 - x.detach()) * (math.pi / 2) - _vertical(x, at, -x.detach()),
                       atan2(((1 - inner) * (1 + inner)).sqrt(), inner))


arctan, arctan2, arcsin, arccos = atan, atan2, asin, acos


# ---------------------------------------------------------------- statistics, scans


def _var_args(fn, dim, unbiased, correction):
    if isinstance(dim, builtins.bool) and unbiased is None:  # var_mean(x, False): torch's (input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{fn}: can't pass both unbiased and correction")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


@_args.numpy_names
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) of input over dim, correction 1 (Bessel's) unless told (torch.var_mean)."""
    dim, correction = _var_args("var_mean", dim, unbiased, correction)
    return (input.var(dim, keepdim=keepdim, correction=correction),
            input.mean() if dim is None and not keepdim else input.mean(dim if dim is not None else
                                                                       list(range(input.dim())), keepdim=keepdim))


@_args.numpy_names
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) of input over dim, correction 1 (Bessel's) unless told (torch.std_mean)."""
    dim, correction = _var_args("std_mean", dim, unbiased, correction)
    var, mean = var_mean(input, dim, keepdim=keepdim, correction=correction)
    return var.sqrt(), mean


_scan_result = {"cummax": collections.namedtuple("cummax", ["values", "indices"]),
                "cummin": collections.namedtuple("cummin", ["values", "indices"])}


def _cumulative_extreme(input, dim, fn, largest):
    d = _dims(dim, input.dim(), fn)[0]
    x = numpy_values(input) if input.dim() else numpy_values(input).reshape(1)  # (bfloat16 as float32)
    x = np.moveaxis(x, d, -1) if input.dim() else x
    index = np.zeros(x.shape, dtype=np.int64)
    if x.shape[-1] and x.size:
        # The running extreme M; the index is the last position j ≤ i where x[j] = M[j] (a later equal
        # value takes the place, as in torch), and from the first NaN on, the latest NaN's position.
        accumulate = (np.maximum if largest else np.minimum).accumulate
        nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, dtype=bool)
        filled = np.where(nan, -np.inf if largest else np.inf, x) if x.dtype.kind == "f" else x
        at = np.broadcast_to(np.arange(x.shape[-1]), x.shape)
        index = np.maximum.accumulate(np.where(filled == accumulate(filled, axis=-1), at, 0), axis=-1)
        last_nan = np.maximum.accumulate(np.where(nan, at, -1), axis=-1)
        index = np.where(last_nan >= 0, last_nan, index)
    index = np.moveaxis(index, -1, d) if input.dim() else index.reshape(())
    idx = _core.from_numpy(np.array(index, order="C"))
    values = input.gather(d, idx) if input.dim() else input.clone()
    return _scan_result[fn](values, idx)


@through_float32
def cummax(input, dim):
    """(values, indices): the running maximum along dim and where it was found (the last of equal
    values; NaN propagates, pointing at the latest NaN), as torch.cummax. The gradient goes to the
    element each value came from."""
    return _cumulative_extreme(input, dim, "cummax", True)


@through_float32
def cummin(input, dim):
    """(values, indices): the running minimum along dim and where it was found, as torch.cummin."""
    return _cumulative_extreme(input, dim, "cummin", False)


@through_float32
def logcumsumexp(input, dim):
    """out[i] = log Σ_{j ≤ i} exp(input[j]) along dim, by a scan of log2(n) logaddexp steps (each adds
    the partial results 1, 2, 4, ... places back), so no exp overflows or underflows
    (torch.logcumsumexp)."""
    x, = _floats_only("logcumsumexp_out", input)
    if x.dim() == 0:
        return x.clone()
    d = _dims(dim, x.dim(), "logcumsumexp")[0]
    n = x.shape[d]
    shift = 1
    while shift < n:
        pad_shape = list(x.shape)
        pad_shape[d] = shift
        pad = x.new_zeros(*pad_shape).masked_fill(x.new_zeros(*pad_shape) == 0, float("-inf")).detach()
        x = logaddexp(x, _core.cat([pad, x.narrow(d, 0, n - shift)], d))
        shift *= 2
    return x


# ---------------------------------------------------------------- in place


def _in_place(fn, name=None):
    """x.fn_(...): fn(x, ...) written into x (through copy_, which keeps autograd's history; fn reads a
    clone whenever it records a graph, i.e. x or another tensor argument requires grad, so that the x
    its backward saves is not overwritten), with
    torch's refusals: a leaf that requires grad, a result of another shape or of a dtype x cannot hold."""
    name = name or fn.__name__ + "_"

    def method(self, *args, **kwargs):
        if _core.is_grad_enabled() and self.requires_grad and self.is_leaf:
            raise RuntimeError(f"a leaf Variable that requires grad is being used in an in-place operation ({name}).")
        recorded = _core.is_grad_enabled() and builtins.any(
            isinstance(t, _core.Tensor) and t.requires_grad for t in (self, *args, *kwargs.values()))
        out = fn(self.clone() if recorded else self, *args, **kwargs)
        if tuple(out.shape) != tuple(self.shape):
            raise RuntimeError(f"{name}: output with shape {list(self.shape)} doesn't match the broadcast shape "
                               f"{list(out.shape)}")
        if out.dtype != self.dtype and not (self.is_floating_point() and out.is_floating_point()):
            raise RuntimeError(f"{name}: result type {_dtype_name(out.dtype)} can't be cast to the desired output "
                               f"type {_dtype_name(self.dtype)}")
        return self.copy_(out)

    method.__name__ = name
    method.__doc__ = f"In place: self = {fn.__name__}(self, ...), written into self (Tensor.{name})."
    return method


nan_to_num_ = _in_place(nan_to_num)
IN_PLACE = {f.__name__ + "_": _in_place(f) for f in (lerp, xlogy, hypot, sgn, copysign, sinh, cosh, asinh, acosh,
                                                     atanh, atan, atan2, asin, acos)}
IN_PLACE.update({"nan_to_num_": nan_to_num_, "arcsinh_": _in_place(asinh, "arcsinh_"),
                 "arccosh_": _in_place(acosh, "arccosh_"), "arctanh_": _in_place(atanh, "arctanh_"),
                 "arctan_": _in_place(atan, "arctan_"), "arctan2_": _in_place(atan2, "arctan2_"),
                 "arcsin_": _in_place(asin, "arcsin_"), "arccos_": _in_place(acos, "arccos_")})
