"""Tensor functions composed of seqlab's primitives, with torch's signatures: flip, roll, repeat,
repeat_interleave (one index_select or expand per dim, whose backward is the gradient), all, any,
mv, linspace, logspace, logsumexp, isnan / isinf / isfinite, index_fill, and format() of a 0-d
tensor. None has a backward of its own.
Tests: tests/test_composed.py."""
import builtins

import numpy as np

from . import _args, _core, _reduced_float
from ._dtypes import _check_device, _finish, get_default_dtype

__all__ = ["flip", "roll", "repeat", "repeat_interleave", "all", "any", "mv", "dot", "linspace", "logspace", "logsumexp",
           "isnan", "isinf", "isfinite", "index_fill"]


def _dims(dims, ndim, fn):
    if isinstance(dims, int):
        dims = (dims,)
    out = []
    for d in dims:
        d = _args.index(d, fn, "dims")
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
                             f"{max(ndim, 1) - 1}], but got {d})")
        out.append(d % max(ndim, 1))
    if len(set(out)) != len(out):
        raise RuntimeError(f"{fn}(): dims has duplicates {list(dims)}")
    return out


def _index(values):
    return _core.from_numpy(np.ascontiguousarray(values, dtype=np.int64))


def flip(input, *dims, **kwargs):
    """Reverse the order of elements along dims (torch.flip(input, dims); x.flip(0, 1))."""
    if "dims" in kwargs:
        dims = kwargs.pop("dims")
    elif len(dims) == 1 and not isinstance(dims[0], int):
        dims = dims[0]
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    out = input
    if input.dim() == 0:
        return input.clone()
    for d in _dims(dims, input.dim(), "flip"):
        out = _core.index_select(out, d, _index(np.arange(input.shape[d] - 1, -1, -1)))
    return out


def roll(input, shifts, dims=None):
    """Roll elements along dims by shifts; without dims, the flattened tensor, as torch.roll."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    dims = _dims(dims, input.dim(), "roll")
    if len(shifts) != len(dims):
        raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    out = input
    for s, d in zip(shifts, dims):
        n = input.shape[d]
        if n:
            out = _core.index_select(out, d, _index((np.arange(n) - s) % n))
    return out


def repeat(input, *sizes):
    """Tile input sizes[i] times along each dim (Tensor.repeat), as expand + reshape."""
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = tuple(sizes[0])
    sizes = [_args.index(s, "repeat", "repeats") for s in sizes]
    if len(sizes) < input.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    if builtins.any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {sizes}")
    shape = [1] * (len(sizes) - input.dim()) + list(input.shape)
    x = input.reshape(shape)
    # (s0, s1, ...) -> (1, s0, 1, s1, ...) -> (r0, s0, r1, s1, ...) -> (r0·s0, r1·s1, ...)
    inter = [v for s in shape for v in (1, s)]
    expanded = [v for r, s in zip(sizes, shape) for v in (r, s)]
    return x.reshape(inter).expand(*expanded).reshape([r * s for r, s in zip(sizes, shape)])


@_args.numpy_names
def repeat_interleave(input, repeats, dim=None, output_size=None):
    """Repeat each element repeats times (an int or one count per element) along dim, as torch's."""
    x, d = (input.reshape(-1), 0) if dim is None else (input, _dims(dim, input.dim(), "repeat_interleave")[0])
    n = x.shape[d] if x.dim() else 1
    if hasattr(repeats, "numpy"):
        counts = repeats.detach().numpy().astype(np.int64).reshape(-1)
        if counts.size == 1:
            counts = np.full(n, int(counts[0]))
    else:
        counts = np.full(n, _args.index(repeats, "repeat_interleave", "repeats"))
    if counts.size != n:
        raise RuntimeError("repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{counts.size} and input.size({d}) = {n}")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return _core.index_select(x, d, _index(np.repeat(np.arange(n), counts)))


def _nonzero(input):
    """1 where input is nonzero (True), else 0, as int64."""
    return (input if input.dtype == _core.dtype.bool else input != 0).to(_core.dtype.int64)


@_args.numpy_names
def all(input, dim=None, keepdim=False):
    """True where every element (along dim) is nonzero, as torch.all (a bool tensor; uint8 for a
    uint8 input, torch's legacy rule)."""
    zeros = 1 - _nonzero(input)
    s = zeros.sum() if dim is None else zeros.sum(dim, keepdim=keepdim)
    return _like_torch(s == 0, input)


@_args.numpy_names
def any(input, dim=None, keepdim=False):
    """True where some element (along dim) is nonzero, as torch.any (a bool tensor; uint8 for a
    uint8 input)."""
    s = _nonzero(input).sum() if dim is None else _nonzero(input).sum(dim, keepdim=keepdim)
    return _like_torch(s > 0, input)


def _like_torch(result, input):
    return result.to(_core.dtype.uint8) if input.dtype == _core.dtype.uint8 else result


def mv(input, vec):
    """Matrix (n, m) times vector (m,), as torch.mv."""
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {vec.dim()}, {input.dim()}, {vec.dim()}")
    if input.dtype != vec.dtype:
        raise RuntimeError(f"mv: addmv input tensors must have the same dtype, but got {input.dtype} and {vec.dtype}")
    return input @ vec


def dot(input, tensor):
    """Σ_i input_i · tensor_i of two 1-d tensors of one size and dtype, as torch.dot."""
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{tensor.shape[0]}] to have the same number of elements, but got {input.shape[0]} "
                           f"and {tensor.shape[0]} elements respectively")
    if input.dtype != tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype} and "
                           f"{tensor.dtype}")
    return input @ tensor  # (integers: a GEMM of 1 x n by n x 1, keeping the dtype as torch's dot)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """steps values from start to end inclusive, as torch.linspace (its symmetric formula:
    start + i·step in the first half, end − (steps−1−i)·step in the second)."""
    _check_device(device, "linspace")
    steps = _args.index(steps, "linspace", "steps")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _args.dtype(dtype, "linspace") or get_default_dtype()
    if dtype in _reduced_float.REDUCED:  # torch's kernel computes in the 16-bit type itself
        start, end = _args.number(start, "linspace", "start"), _args.number(end, "linspace", "end")
        return _finish(_reduced_float.linspace(start, end, steps, dtype), requires_grad)
    np_dtype = np.float64 if dtype == _core.dtype.float64 else np.float32
    start, end = _args.number(start, "linspace", "start"), _args.number(end, "linspace", "end")
    i = np.arange(steps)
    if steps == 1:
        values = np.array([start], dtype=np_dtype if dtype in (_core.dtype.float32, _core.dtype.float64) else np.int64)
    elif dtype in (_core.dtype.float32, _core.dtype.float64):
        step = np_dtype((np_dtype(end) - np_dtype(start)) / max(steps - 1, 1))
        half = steps // 2
        values = np.where(i < half, np_dtype(start) + step * i.astype(np_dtype),
                          np_dtype(end) - step * (steps - 1 - i).astype(np_dtype)).astype(np_dtype)
    else:  # integer linspace: computed in double, truncated, as torch
        step = (end - start) / max(steps - 1, 1)
        values = np.where(i < steps // 2, start + step * i, end - step * (steps - 1 - i)).astype(np.int64)
    t = _core.from_numpy(np.ascontiguousarray(values))
    return _finish(t if t.dtype == dtype else t.to(dtype), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """base ** linspace(start, end, steps), as torch.logspace."""
    dtype_ = _args.dtype(dtype, "logspace")
    if dtype_ in _reduced_float.REDUCED or (dtype_ is None and get_default_dtype() in _reduced_float.REDUCED):
        _check_device(device, "logspace")
        steps = _args.index(steps, "logspace", "steps")
        if steps < 0:
            raise RuntimeError("number of steps must be non-negative")
        start, end = _args.number(start, "logspace", "start"), _args.number(end, "logspace", "end")
        t = _reduced_float.logspace(start, end, steps, base, dtype_ or get_default_dtype())
        return _finish(t, requires_grad)
    exps = linspace(start, end, steps, dtype=_core.dtype.float64, device=device)
    out = _core.from_numpy(np.ascontiguousarray(np.power(float(base), exps.numpy())))
    dtype = _args.dtype(dtype, "logspace") or get_default_dtype()
    return _finish(out if out.dtype == dtype else out.to(dtype), requires_grad)


def format_tensor(self, spec):
    """format(t, '.4f') of a 0-d tensor formats its value; an empty spec is str(t), as torch's."""
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


def logsumexp(input, dim, keepdim=False):
    """log Σ exp(input) over dim (an int or a tuple), computed as m + log Σ exp(input − m) with m the
    (detached) maximum, so nothing overflows; rows of −inf give −inf, a +inf gives +inf (torch.logsumexp).
    Integer inputs compute in the default dtype. The gradient is softmax(input) along dim."""
    x = input if input.is_floating_point() else input.to(get_default_dtype())
    dims = _dims(dim, x.dim(), "logsumexp")
    if x.dim() == 0 or x.numel() == 0:
        return (x.exp().sum(dims, keepdim=keepdim) if x.dim() else x.exp()).log()
    m = x.detach()
    for d in dims:
        m = m.max(d, keepdim=True).values
    m = m.masked_fill(~isfinite(m), 0.0)   # all −inf (or an inf) rows: no shift
    out = (x - m).exp().sum(dims, keepdim=True).log() + m
    for d in sorted(dims, reverse=True) if not keepdim else ():
        out = out.squeeze(d)
    return out


def isnan(input):
    """True where input is NaN (torch.isnan); never for integers."""
    return input != input


def isinf(input):
    """True where input is +inf or −inf (torch.isinf); never for integers."""
    if not input.is_floating_point():
        return input != input   # all False
    return input.abs() == float("inf")


def isfinite(input):
    """True where input is neither NaN nor ±inf (torch.isfinite); always for integers."""
    if not input.is_floating_point():
        return input == input   # all True
    return (input - input) == 0   # inf − inf and NaN − NaN are NaN; finite − finite is 0


def _index_mask(input, dim, index, fn):
    d = _dims(dim, input.dim(), fn)[0]
    if not isinstance(index, _core.Tensor):
        raise TypeError(f"{fn}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype != _core.dtype.int64:
        raise IndexError(f"{fn}_(): Expected dtype int64 for index. (got {index.dtype})")
    if index.dim() > 1:
        raise RuntimeError(f"Index has to be a vector/scalar ({fn}: index of shape {list(index.shape)})")
    n = input.shape[d] if input.dim() else 1
    positions = index.reshape(-1).numpy()
    if positions.size and (positions.min() < -n or positions.max() >= n):
        raise IndexError(f"{fn}(): index {int(positions.max() if positions.max() >= n else positions.min())} is out "
                         f"of bounds for dimension {d} with size {n}")
    hit = np.zeros(n, dtype=bool)
    hit[positions % n if n else positions] = True
    shape = [1] * input.dim()
    if input.dim():
        shape[d] = n
    return _core.from_numpy(hit.reshape(shape))


def index_fill(input, dim, index, value):
    """A copy of input with the entries at positions `index` along dim set to value (a number or a
    0-d tensor), as torch.index_fill; the gradient skips the filled entries."""
    _check_fill_value(value)
    return input.masked_fill(_index_mask(input, dim, index, "index_fill"), value)


def index_fill_(input, dim, index, value):
    """In place: input[..., index, ...] = value along dim (Tensor.index_fill_)."""
    _check_fill_value(value)
    return input.masked_fill_(_index_mask(input, dim, index, "index_fill"), value)


def _check_fill_value(value):
    if isinstance(value, _core.Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
