"""The in-place forms torch has and seqlab lacked: the Tensor methods (x.exp_(), x.eq_(y), x.cumsum_(0),
x.fill_diagonal_(v), x.masked_scatter_(m, s), x.put_(i, s), x.renorm_(p, d, m)...) written through
_math._in_place (copy_ keeps autograd's history; torch's refusals of a leaf that requires grad and of
a result the tensor's dtype cannot hold), and torch's function forms of in-place ops (torch.exp_(x)
is x.exp_()). Also reciprocal, square, clamp_min / clamp_max, float_power, masked_scatter, put,
renorm, sum_to_size and fill, which some of them write back. Tests: tests/test_torch_aliases.py."""
import builtins

import numpy as np

from . import _args, _core, _dtypes
from ._math import _in_place

# ------------------------------------------------------------------ out-of-place ops the forms need


def reciprocal(input):
    """1 / input elementwise (torch.reciprocal); an integer tensor gives the default float dtype."""
    if not input.is_floating_point():
        input = input.to(_dtypes.get_default_dtype())
    return 1.0 / input


def square(input):
    """input ** 2 elementwise (torch.square); a bool tensor gives int64, as torch's pow does."""
    if input.dtype == _dtypes.bool:
        input = input.to(_dtypes.int64)
    return _core.pow(input, 2)


def _clamp_to_tensor(input, bound, beyond):
    """where(beyond(input, bound) or bound is NaN, bound, input): a tensor bound broadcasts and
    promotes as torch's clamp; the gradient goes to input where it is kept (ties included), to
    bound where it replaced input."""
    return _core.where(beyond(input, bound).logical_or(bound.isnan()), bound, input)


def clamp_min(input, min):
    """max(input, min) elementwise (torch.clamp_min): clamp with only a lower bound, a number or a
    tensor."""
    if isinstance(min, _core.Tensor):
        return _clamp_to_tensor(input, min, _core.lt)
    return _core.clamp(input, min, None)


def clamp_max(input, max):
    """min(input, max) elementwise (torch.clamp_max): clamp with only an upper bound, a number or a
    tensor."""
    if isinstance(max, _core.Tensor):
        return _clamp_to_tensor(input, max, _core.gt)
    return _core.clamp(input, None, max)


def clamp(input, min=None, max=None):
    """min(max(input, min), max) elementwise (torch.clamp, alias clip): the bounds numbers or
    tensors (broadcast and promoted as torch's; a tensor bound gets the gradient where it replaced
    input), either may be None; where min > max the result is max."""
    if not isinstance(min, _core.Tensor) and not isinstance(max, _core.Tensor):
        return _core.clamp(input, min, max)
    if any(b is not None and not isinstance(b, _core.Tensor) for b in (min, max)):  # torch takes no mix either
        raise TypeError(f"clamp() received an invalid combination of arguments - got (Tensor, "
                        f"{type(min).__name__}, {type(max).__name__}): the bounds are both numbers or both tensors")
    out = input if min is None else clamp_min(input, min)
    return out if max is None else clamp_max(out, max)


def clip(input, min=None, max=None):
    """torch.clip: clamp(input, min, max), the bounds numbers, tensors or None."""
    return clamp(input, min, max)


def float_power(input, exponent):
    """input ** exponent computed in float64, whatever the operands' dtypes (torch.float_power);
    the gradient flows back into each operand's own dtype."""
    if isinstance(input, _core.Tensor):
        input = input.to(_dtypes.float64)
    else:
        input = _core.from_numpy(np.array(input, dtype=np.float64))
    if isinstance(exponent, _core.Tensor):
        exponent = exponent.to(_dtypes.float64)
    else:
        exponent = _args.number(exponent, "float_power", "exponent")
    return _core.pow(input, exponent)


def fill(input, value):
    """A new tensor of input's shape and dtype holding `value` everywhere (torch.fill, the
    functional form of fill_); a tensor value must be 0-d and carries the gradient (summed)."""
    if isinstance(value, _core.Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               f"dimensions.")
        everywhere = _core._full(list(input.shape), 1.0, _dtypes.bool)  # (input gets its zero gradient, as torch's)
        return _core.where(everywhere, value.to(input.dtype), input)
    full = _core._full(list(input.shape), _args.number(value, "fill", "value"), input.dtype)
    if _core.is_grad_enabled() and input.requires_grad:  # keep the graph: input gets a zero gradient, as torch's
        return _core.where(_core._full(list(input.shape), 1.0, _dtypes.bool), full, input)
    return full


def masked_scatter(input, mask, source):
    """input with the positions where mask (a bool tensor broadcast to input's shape) is True
    filled, in row-major order, with source's first elements (torch.masked_scatter). Written as
    where(mask, source.flatten()[cumsum(mask) - 1], input), so both get their gradient."""
    if mask.dtype != _dtypes.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_dtypes.scalar_type_name(mask.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got "
                           f"{_dtypes.scalar_type_name(input.dtype)} and {_dtypes.scalar_type_name(source.dtype)}")
    mask = mask.expand(input.shape) if tuple(mask.shape) != tuple(input.shape) else mask
    flat = mask.reshape(-1)
    taken = int(flat.sum().item()) if flat.numel() else 0
    if taken > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if taken == 0:  # (plus an empty sum of source, so that source gets its zero gradient as in torch)
        return input + source.reshape(-1).narrow(0, 0, 0).sum()
    position = (_core.cumsum(flat.to(_dtypes.int64), 0) - 1).clamp(0, None)
    picked = source.reshape(-1).index_select(0, position).reshape(input.shape)
    return _core.where(mask, picked, input)


def put(input, index, source, accumulate=False):
    """input with the elements at the flat positions `index` (negative ones count from the end)
    set to source's values, or increased by them with accumulate=True (torch.put)."""
    if index.dtype != _dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_dtypes.scalar_type_name(index.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_dtypes.scalar_type_name(input.dtype)} and "
                           f"source.dtype = {_dtypes.scalar_type_name(source.dtype)}")
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        lo, hi = int(flat_index.min().item()), int(flat_index.max().item())
        for bad in (lo, hi):
            if not -n <= bad < n:
                raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
        flat_index = _core.where(flat_index < 0, flat_index + n, flat_index)
    flat = _core._index_put(input.reshape(-1), [flat_index], source.reshape(-1), builtins.bool(accumulate))
    return flat.reshape(input.shape)


def renorm(input, p, dim, maxnorm):
    """input with each slice along dim whose p-norm exceeds maxnorm scaled down to norm maxnorm
    (torch.renorm): factor = maxnorm / (norm + 1e-7) where norm > maxnorm, else 1."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = dim + input.dim() if dim < 0 else dim
    if not 0 <= d < builtins.max(input.dim(), 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.dim()}, {input.dim() - 1}], "
                         f"but got {dim})")
    others = [i for i in builtins.range(input.dim()) if i != d]
    norm = input.norm(p, others, True) if others else input.abs()
    factor = _core.where(norm > maxnorm, maxnorm / (norm + 1e-7), _core._full([], 1.0, norm.dtype))
    return input * factor


def sum_to_size(self, *size):
    """self summed over the dims it was broadcast along, to `size` (torch.Tensor.sum_to_size):
    size must expand to self's shape."""
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    one = len(size) == 1 and not isinstance(size[0], int)
    target = _args.ints(size[0] if one else size, "sum_to_size")
    shape = list(self.shape)
    lead = len(shape) - len(target)
    ok = lead >= 0 and builtins.all(t in (1, s) for t, s in zip(target, shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{target}}} is not expandable to size {{{shape}}}.")
    out = self.sum(list(builtins.range(lead))) if lead else self
    dims = [i for i, (t, s) in enumerate(zip(target, shape[lead:])) if t == 1 and s != 1]
    return out.sum(dims, True) if dims else out


# ------------------------------------------------------------------ the in-place Tensor methods
def _cast_back(fn):
    """fn whose result torch writes into self converted to self's dtype (comparisons, logical ops)."""
    def cast(self, *args, **kwargs):
        return fn(self, *args, **kwargs).to(self.dtype)
    cast.__name__ = fn.__name__
    return cast


def _float_power_(self, exponent):
    """In place: self = float_power(self, exponent); self must be float64, as torch's."""
    if self.dtype != _dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_dtypes.scalar_type_name(self.dtype)} but "
                           f"the operation's result requires dtype Double")
    return _in_place(float_power)(self, exponent)


def _cumulative_(fn, name):
    def method(self, dim, *, dtype=None):
        if dtype is not None and dtype != self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {self.dtype} and output tensor dtype {dtype} "
                               f"should match")
        return _in_place(lambda x, d: fn(x, d), name)(self, dim)
    method.__name__ = name
    method.__doc__ = f"In place: self = {name[:-1]}(self, dim), written into self (Tensor.{name})."
    return method


def _fill_diagonal_(self, fill_value, wrap=False):
    """Writes fill_value on the main diagonal, in place (torch.Tensor.fill_diagonal_): a matrix's
    (i, i), or an n-d tensor's (i, i, ..., i) when all its dims are equal; with wrap=True a tall
    matrix starts the diagonal again every cols + 1 rows."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    shape = tuple(self.shape)
    step = builtins.sum(int(np.prod(shape[k + 1:])) for k in builtins.range(len(shape)))
    if self.dim() == 2 and wrap and shape[0] > shape[1] + 1:
        count = -(-self.numel() // step)
    else:
        count = builtins.min(shape)
    mask = np.zeros(self.numel(), dtype=np.bool_)
    mask[np.arange(count) * step] = True
    return self.masked_fill_(_core.from_numpy(mask.reshape(shape)), fill_value)


# x.name_(...) = name(x, ...) written into x
_FROM_FUNCTIONS = {
    "abs_": _core.abs, "absolute_": _core.abs, "exp_": _core.exp, "log_": _core.log, "neg_": _core.neg,
    "negative_": _core.neg, "sqrt_": _core.sqrt, "sigmoid_": _core.sigmoid, "tanh_": _core.tanh,
    "fix_": _core.trunc, "clip_": clip, "clamp_": clamp, "pow_": _core.pow, "reciprocal_": reciprocal, "square_": square,
    "clamp_min_": clamp_min, "clamp_max_": clamp_max, "multiply_": _core.mul, "subtract_": _core.sub,
    "true_divide_": _core.div, "tril_": _core.tril, "triu_": _core.triu, "masked_scatter_": masked_scatter,
    "put_": put, "renorm_": renorm,
}
_CAST_BACK = {"eq_": _core.eq, "ne_": _core.ne, "lt_": _core.lt, "le_": _core.le, "gt_": _core.gt, "ge_": _core.ge,
              "greater_": _core.gt, "greater_equal_": _core.ge, "less_": _core.lt, "less_equal_": _core.le,
              "not_equal_": _core.ne, "logical_and_": _core.logical_and, "logical_or_": _core.logical_or,
              "logical_xor_": _core.logical_xor, "logical_not_": _core.logical_not}

IN_PLACE = {name: _in_place(fn, name) for name, fn in _FROM_FUNCTIONS.items()}
IN_PLACE.update({name: _in_place(_cast_back(fn), name) for name, fn in _CAST_BACK.items()})
IN_PLACE.update({"float_power_": _float_power_, "cumsum_": _cumulative_(_core.cumsum, "cumsum_"),
                 "cumprod_": _cumulative_(_core.cumprod, "cumprod_"), "fill_diagonal_": _fill_diagonal_})

# Tensor methods of the out-of-place ops above
METHODS = {"clamp": clamp, "clip": clip, "reciprocal": reciprocal, "square": square, "clamp_min": clamp_min, "clamp_max": clamp_max,
           "float_power": float_power, "masked_scatter": masked_scatter, "put": put, "renorm": renorm,
           "sum_to_size": sum_to_size}


# ------------------------------------------------------------------ torch.name_(x, ...) = x.name_(...)
def _function_form(name):
    def function(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name}(input, ...): input.{name}(...), the in-place op as a function; returns input."
    return function


FUNCTION_FORMS = {name: _function_form(name) for name in (
    "abs_", "acos_", "acosh_", "asin_", "asinh_", "atan_", "atanh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "ceil_", "floor_", "round_", "trunc_", "frac_", "fix_", "clamp_", "clamp_min_",
    "clamp_max_", "clip_", "cos_", "cosh_", "sin_", "sinh_", "tan_", "tanh_", "exp_", "expm1_", "erf_", "erfc_",
    "log_", "log10_", "log1p_", "log2_", "neg_", "negative_", "reciprocal_", "rsqrt_", "sigmoid_", "sqrt_",
    "square_", "relu_", "zero_", "fill_", "addmv_", "exp2_", "i0_", "sinc_", "logit_", "xlogy_", "detach_")}
