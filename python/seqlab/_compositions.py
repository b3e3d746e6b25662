"""torch's functions that compose seqlab's ops, so each gets its gradient from its parts: inner, vdot,
diagflat, dsplit, cov / corrcoef, the trapezoid rule (trapezoid, trapz, cumulative_trapezoid),
gradient (finite differences, numpy.gradient's formulas), vander, tril_indices / triu_indices,
unravel_index, the *_scatter ops (input with one view of it replaced, through index_put), the
functional *_copy ops (a view op, then a copy), and asarray / frombuffer.
Tests: tests/test_torch_compositions.py."""
import builtins
import operator
import warnings

import numpy as np

from . import _args, _core, _dtypes
from ._composed import flip
from ._dtypes import _check_device
from ._math import diff
from ._shape import diag, tensor_split, tensordot
from ._tensor import as_tensor


def _c_order(array, dtype=None):
    """A C-contiguous copy of array that stays 0-d when it is (np.ascontiguousarray makes 0-d 1-d)."""
    return np.array(array, dtype=dtype, order="C")


def _float(t):
    """t, or t converted to the default float dtype when it is an integer or bool tensor."""
    return t if t.is_floating_point() else t.to(_dtypes.get_default_dtype())


def _dim(dim, ndim):
    d = operator.index(dim)
    n = builtins.max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return d % n


# ------------------------------------------------------------------ products
def inner(input, other):
    """The sum of products over the last dims of input and other (torch.inner): shape
    input.shape[:-1] + other.shape[:-1]; a 0-d operand multiplies."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, [[input.dim() - 1], [other.dim() - 1]])


def vdot(input, other):
    """The dot product of two 1-D tensors (torch.vdot; for real tensors, dot)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_dtypes.scalar_type_name(input.dtype)} and {_dtypes.scalar_type_name(other.dtype)}")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
                           f"elements respectively")
    return (input * other).sum()


def diagflat(input, offset=0):
    """A 2-D tensor with input's elements (flattened) on its offset-th diagonal (torch.diagflat)."""
    return diag(input.reshape(-1), offset)


def dsplit(input, indices_or_sections):
    """tensor_split along dim 2 (torch.dsplit); an int must divide that dim."""
    if input.dim() < 3:
        raise RuntimeError(f"torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with "
                           f"{input.dim()} dimensions!")
    if isinstance(indices_or_sections, int) and input.shape[2] % indices_or_sections:
        raise RuntimeError(f"torch.dsplit attempted to split along dimension 2, but the size of the dimension "
                           f"{input.shape[2]} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, 2)


# ------------------------------------------------------------------ covariance
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in input's rows (observations in columns; a 1-D input
    is one variable) (torch.cov): Σ_k w_k (x_ik - x̄_i)(x_jk - x̄_j) / (Σ w - correction·Σ w a / Σ w),
    w = fweights · aweights, x̄ the weighted means. A 1-D or one-row input gives a 0-d result."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = _float(input)
    x = x.reshape(1, -1) if x.dim() < 2 else x
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.is_floating_point():
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        w = fweights.to(x.dtype)
    if aweights is not None:
        if not aweights.is_floating_point():
            raise RuntimeError("cov(): expected aweights to have floating point dtype")
        w = aweights.to(x.dtype) if w is None else w * aweights.to(x.dtype)
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is not None and (weights.dim() > 1 or weights.numel() != n):
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                               f"input but got {weights.numel()} != {n}")
    if w is None:
        w_sum = float(n)
        mean = x.mean(1, True)
        factor = n - correction
    else:
        w_sum = w.sum()
        mean = (x * w).sum(1, True) / w_sum
        if correction == 0:
            factor = w_sum
        elif aweights is None:
            factor = w_sum - correction
        else:
            factor = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    if float(factor if not isinstance(factor, _core.Tensor) else factor.item()) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        factor = 0.0 if not isinstance(factor, _core.Tensor) else factor * 0
    centred = x - mean
    weighted = centred if w is None else centred * w
    out = _core.matmul(weighted, centred.t()) / factor
    return out.reshape([]) if input.dim() < 2 or input.shape[0] == 1 else out


def corrcoef(input):
    """Pearson's correlation coefficients of input's rows (torch.corrcoef): cov / (σ_i σ_j),
    clipped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = c.diagonal().sqrt()
    return (c / std.unsqueeze(1) / std.unsqueeze(0)).clamp(-1.0, 1.0)


# ------------------------------------------------------------------ the trapezoid rule
def _spacings(y, x, dx, dim, fn):
    """The widths between the samples along dim: x's differences (x 1-D or y's shape), or dx."""
    if x is not None and dx is not None:
        raise TypeError(f"{fn}() received an invalid combination of arguments: x and dx both given")
    if x is None:
        return 1.0 if dx is None else dx
    n = y.shape[dim]
    if x.dim() == 1:
        if x.shape[0] != n:
            raise RuntimeError(f"{fn}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = n - 1 if n else 0
        return diff(x, 1, 0).reshape(shape)
    d = _dim(dim, x.dim())
    return x.narrow(d, 1, x.shape[d] - 1) - x.narrow(d, 0, x.shape[d] - 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """∫ y along dim by the trapezoid rule (torch.trapezoid): Σ (y_i + y_{i+1}) / 2 · Δx_i, Δx from
    the sample points x or the constant dx (1 by default)."""
    d = _dim(dim, y.dim())
    y = _float(y)
    n = y.shape[d]
    if n == 0:  # (no interval: zeros without history, as torch's)
        return _core._full([s for i, s in enumerate(y.shape) if i != d], 0.0, y.dtype)
    widths = _spacings(y, x, dx, d, "trapezoid")
    heights = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
    return (heights * widths).sum(d)


def trapz(y, x=None, *, dx=None, dim=-1):
    """trapezoid under its older name (torch.trapz)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid integral along dim, one value per interval (torch.cumulative_trapezoid)."""
    d = _dim(dim, y.dim())
    y = _float(y)
    n = y.shape[d]
    if n == 0:
        return _core.cumsum(y, d)
    widths = _spacings(y, x, dx, d, "cumulative_trapezoid")
    heights = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
    return _core.cumsum(heights * widths, d)


# ------------------------------------------------------------------ finite differences
def _coords_along(values, d, ndim):
    shape = [1] * ndim
    shape[d] = -1
    return values.reshape(shape)


def _gradient_one(f, d, h, edge_order):
    """∂f/∂x_d by central differences inside and one-sided ones at the ends (numpy.gradient); h is
    a number (uniform spacing) or the 1-D coordinates along d."""
    n = f.shape[d]

    def at(start, length):
        return f.narrow(d, start, length)

    if not isinstance(h, _core.Tensor):
        inside = (at(2, n - 2) - at(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first = (at(1, 1) - at(0, 1)) / h
            last = (at(n - 1, 1) - at(n - 2, 1)) / h
        else:
            first = (at(0, 1) * -1.5 + at(1, 1) * 2.0 - at(2, 1) * 0.5) / h
            last = (at(n - 3, 1) * 0.5 - at(n - 2, 1) * 2.0 + at(n - 1, 1) * 1.5) / h
        return _core.cat([first, inside, last], d)
    dx = (h.narrow(0, 1, n - 1) - h.narrow(0, 0, n - 1)).to(f.dtype)
    hd, hs = dx.narrow(0, 0, n - 2), dx.narrow(0, 1, n - 2)  # h_{i-1}, h_i around each inner point
    a = _coords_along(-hs / (hd * (hd + hs)), d, f.dim())
    b = _coords_along((hs - hd) / (hd * hs), d, f.dim())
    c = _coords_along(hd / (hs * (hd + hs)), d, f.dim())
    inside = a * at(0, n - 2) + b * at(1, n - 2) + c * at(2, n - 2)
    if edge_order == 1:
        first = (at(1, 1) - at(0, 1)) / dx[0].item()
        last = (at(n - 1, 1) - at(n - 2, 1)) / dx[n - 2].item()
    else:
        d1, d2 = dx[0].item(), dx[1].item()
        first = at(0, 1) * (-(2 * d1 + d2) / (d1 * (d1 + d2))) + at(1, 1) * ((d1 + d2) / (d1 * d2)) + \
            at(2, 1) * (-d1 / (d2 * (d1 + d2)))
        d1, d2 = dx[n - 3].item(), dx[n - 2].item()
        last = at(n - 3, 1) * (d2 / (d1 * (d1 + d2))) + at(n - 2, 1) * (-(d2 + d1) / (d1 * d2)) + \
            at(n - 1, 1) * ((2 * d2 + d1) / (d2 * (d1 + d2)))
    return _core.cat([first, inside, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of the sampled function input along each dim in `dim` (all by default), by
    second-order central differences inside and edge_order-th one-sided differences at the ends
    (torch.gradient). spacing: one number for every dim, a list with one number or one 1-D tensor
    of coordinates per dim. Returns a tuple, one tensor per dim."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(builtins.range(input.dim())) if dim is None else \
        [_dim(d, input.dim()) for d in (dim if isinstance(dim, (list, tuple)) else [dim])]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               f"dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        steps = list(spacing)
    else:
        steps = [spacing] * len(dims)
    f = _float(input)
    out = []
    for d, h in zip(dims, steps):
        if f.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        out.append(_gradient_one(f, d, h if isinstance(h, _core.Tensor) else float(h), edge_order))
    return tuple(out)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D x: columns x^(N-1), ..., x, 1 (or the other way with
    increasing=True), N = len(x) by default (torch.vander); the powers are a cumulative product."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x.dtype if x.dtype != _dtypes.bool else _dtypes.int64
    if n == 0:
        return _core._empty([x.shape[0], 0], dtype)
    x = x.to(dtype)
    columns = [_core._full([x.shape[0], 1], 1.0, dtype)] + ([x.unsqueeze(1).expand(x.shape[0], n - 1)] if n > 1 else [])
    powers = _core.cumprod(_core.cat(columns, 1), 1)
    return powers if increasing else flip(powers, [1])


# ------------------------------------------------------------------ index helpers
def _triangle_indices(fn, np_fn, row, col, offset, dtype, device):
    _check_device(device, fn)
    dtype = _args.dtype(dtype, fn) or _dtypes.int64
    if dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"\"{fn}\" not implemented for '{_dtypes.scalar_type_name(dtype)}'")
    row, col, offset = (_args.index(v, fn, n) for v, n in ((row, "row"), (col, "col"), (offset, "offset")))
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got{row}" if row < 0 else f"col must be non-negative, got{col}")
    lower = fn == "tril_indices"
    count = _tril_count(row, col, offset) if lower else row * col - _tril_count(row, col, offset - 1)
    itemsize = 8 if dtype == _dtypes.int64 else 4
    if 2 * count * itemsize >= 2 ** 63:  # refused before any allocation, as torch's storage-size check
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[2, {count}]")
    # row i holds the columns [start_i, stop_i): built in O(row + count), no row x col mask
    i = np.arange(row, dtype=np.int64)
    start = np.zeros(row, np.int64) if lower else np.clip(i + offset, 0, col)
    stop = np.clip(i + offset + 1, 0, col) if lower else np.full(row, col, np.int64)
    width = np.maximum(stop - start, 0)
    rows = np.repeat(i, width)
    first = np.cumsum(width) - width  # position of each row's first entry
    cols = np.arange(count, dtype=np.int64) - np.repeat(first - start, width)
    out = np.stack([rows, cols]).astype(np.int64 if dtype == _dtypes.int64 else np.int32)
    return _core.from_numpy(_c_order(out.reshape(2, -1)))


def _tril_count(row, col, offset):
    """sum over i < row of clamp(i + offset + 1, 0, col): the size of the lower triangle, exactly."""
    a = offset + 1
    lo = min(max(0, 1 - a), row)  # rows before lo are empty
    hi = min(max(col - a, lo), row)  # rows from hi on are full
    return (hi - lo) * (lo + hi - 1 + 2 * a) // 2 + (row - hi) * col


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, K) row and column indices of the lower triangle (offset above or below the main
    diagonal) of a row x col matrix, row by row (torch.tril_indices)."""
    return _triangle_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, K) indices of the upper triangle of a row x col matrix (torch.triu_indices)."""
    return _triangle_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device)


def unravel_index(indices, shape):
    """The coordinates in a tensor of `shape` of the flat (row-major) indices, as a tuple of tensors
    shaped like indices (torch.unravel_index)."""
    if not isinstance(indices, _core.Tensor):
        raise TypeError(f"unravel_index(): argument 'indices' must be Tensor, not {type(indices).__name__}")
    if indices.is_floating_point() or indices.dtype == _dtypes.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = _args.ints(shape, "unravel_index", "shape")
    if builtins.any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    total = int(np.prod(shape))
    flat = indices.to(_dtypes.int64).detach().numpy()
    if flat.size and (flat.min() < -total or flat.max() >= total):
        raise RuntimeError(f"index {int(flat.max() if flat.max() >= total else flat.min())} is out of bounds for "
                           f"shape {tuple(shape)}")
    coords = np.unravel_index(np.where(flat < 0, flat + total, flat), shape)
    return tuple(_core.from_numpy(_c_order(np.asarray(c, dtype=np.int64))) for c in coords)


# ------------------------------------------------------------------ the *_scatter ops
def _scatter_into_view(input, src, view, fn):
    """input with view(input) replaced by src: index_put at the flat positions view(arange) picks,
    so input gets the gradient everywhere else and src at its positions."""
    positions = view(_core._arange(0, input.numel(), 1, _dtypes.int64).reshape(list(input.shape)))
    if tuple(src.shape) != tuple(positions.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(positions.shape)}")
    if src.dtype != input.dtype:
        raise RuntimeError(f"{fn}(): expected src to have the same dtype as self, but got "
                           f"{_dtypes.scalar_type_name(src.dtype)} and {_dtypes.scalar_type_name(input.dtype)}")
    flat = _core._index_put(input.reshape(-1), [positions.reshape(-1)], src.reshape(-1), False)
    return flat.reshape(list(input.shape))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its diagonal (offset, dim1, dim2) replaced by src (torch.diagonal_scatter)."""
    return _scatter_into_view(input, src, lambda t: t.diagonal(offset, dim1, dim2), "diagonal_scatter")


def select_scatter(input, src, dim, index):
    """input with input.select(dim, index) replaced by src (torch.select_scatter)."""
    return _scatter_into_view(input, src, lambda t: t.select(dim, index), "select_scatter")


def _slice(t, dim, start, end, step):
    d = _dim(dim, t.dim())
    return t[(slice(None),) * d + (slice(start, end, step),)]


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with input[..., start:end:step, ...] (along dim) replaced by src (torch.slice_scatter)."""
    return _scatter_into_view(input, src, lambda t: _slice(t, dim, start, end, step), "slice_scatter")


def as_strided_(input, size, stride, storage_offset=None):
    """input restrided in place over its storage (torch.as_strided_); returns input."""
    return input.as_strided_(size, stride, storage_offset)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input with input.clone().as_strided(size, stride, storage_offset) replaced by src
    (torch.as_strided_scatter): the strides address the clone's contiguous storage."""
    return _scatter_into_view(input, src, lambda t: t.as_strided(size, stride, storage_offset), "as_strided_scatter")


# ------------------------------------------------------------------ the functional *_copy ops
def _copies(out):
    return tuple(o.clone() for o in out) if isinstance(out, (list, tuple)) else out.clone()


def alias_copy(input):
    """A copy of input (torch.alias_copy: alias, then a copy)."""
    return input.clone()


def detach_copy(input):
    """A copy of input without history (torch.detach_copy)."""
    return input.detach().clone()


def as_strided_copy(input, size, stride, storage_offset=None):
    """input.as_strided(size, stride, storage_offset) copied (torch.as_strided_copy)."""
    return input.as_strided(size, stride, storage_offset).clone()


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    """input.diagonal(offset, dim1, dim2) copied (torch.diagonal_copy)."""
    return input.diagonal(offset, dim1, dim2).clone()


def expand_copy(input, size, *, implicit=False):
    """input.expand(size) copied into memory of its own (torch.expand_copy)."""
    del implicit
    return input.expand(*size).clone()


def permute_copy(input, dims):
    """input.permute(dims) copied (torch.permute_copy)."""
    return input.permute(*dims).clone()


def select_copy(input, dim, index):
    """input.select(dim, index) copied (torch.select_copy)."""
    return input.select(dim, index).clone()


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """input[..., start:end:step, ...] along dim, copied (torch.slice_copy)."""
    return _slice(input, dim, start, end, step).clone()


def split_copy(input, split_size, dim=0):
    """split(input, split_size, dim), each piece copied (torch.split_copy)."""
    return _copies(_core.split(input, split_size, dim))


def split_with_sizes_copy(input, split_sizes, dim=0):
    """split(input, split_sizes, dim) with sizes summing to the dim, each piece copied."""
    return _copies(_core.split(input, _args.ints(split_sizes, "split_with_sizes_copy", "split_sizes"), dim))


def squeeze_copy(input, dim=None):
    """input.squeeze(dim) copied (torch.squeeze_copy)."""
    return (input.squeeze() if dim is None else input.squeeze(dim)).clone()


def t_copy(input):
    """input.t() copied (torch.t_copy)."""
    return input.t().clone()


def transpose_copy(input, dim0, dim1):
    """input.transpose(dim0, dim1) copied (torch.transpose_copy)."""
    return input.transpose(dim0, dim1).clone()


def unbind_copy(input, dim=0):
    """The slices of input along dim, each copied (torch.unbind_copy)."""
    return tuple(input.select(dim, i).clone() for i in builtins.range(input.shape[_dim(dim, input.dim())]))


def unfold_copy(input, dimension, size, step):
    """input.unfold(dimension, size, step) copied (torch.unfold_copy)."""
    return input.unfold(dimension, size, step).clone()


def unsqueeze_copy(input, dim):
    """input.unsqueeze(dim) copied (torch.unsqueeze_copy)."""
    return input.unsqueeze(dim).clone()


def view_copy(input, size):
    """input.view(size) copied; a dtype reinterprets the bytes only when it has the same item size,
    as seqlab's view(dtype) (torch.view_copy)."""
    if isinstance(size, _core.dtype):
        return input.view(size).clone()
    return input.view(*size).clone() if isinstance(size, (list, tuple)) else input.view(size).clone()


def narrow_copy(input, dim, start, length):
    """input.narrow(dim, start, length) copied (torch.narrow_copy)."""
    return input.narrow(dim, start, length).clone()


# ------------------------------------------------------------------ asarray, frombuffer
_NP_OF = {_dtypes.float32: np.float32, _dtypes.float64: np.float64, _dtypes.int64: np.int64,
          _dtypes.int32: np.int32, _dtypes.int16: np.int16, _dtypes.int8: np.int8, _dtypes.uint8: np.uint8,
          _dtypes.bool: np.bool_}


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of a Python buffer (bytearray, memoryview, array.array...),
    skipping `offset` bytes and reading `count` elements (all by default), sharing its memory when
    the buffer is writable (torch.frombuffer; a read-only buffer is copied)."""
    if not isinstance(dtype, _core.dtype):
        raise TypeError(f"frombuffer(): argument 'dtype' must be seqlab.dtype, not {type(dtype).__name__}")
    view = memoryview(buffer)
    length = view.nbytes
    item = np.dtype(_NP_OF[dtype]).itemsize
    if not 0 <= offset < length or length == 0:
        raise ValueError(f"both buffer length ({length}) and offset ({offset}) must be greater than 0 and less "
                         f"than the buffer length")
    if count <= 0 and (length - offset) % item:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({item})")
    if count > 0 and count * item > length - offset:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    array = np.frombuffer(view, dtype=_NP_OF[dtype], count=count if count > 0 else -1, offset=offset)
    if view.readonly:
        array = array.copy()
    out = _core.from_numpy(array)
    return out.requires_grad_(True) if requires_grad else out


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor (torch.asarray): a tensor or NumPy array is shared when its dtype needs no
    conversion, unless copy=True; copy=False refuses to copy; anything else (lists, numbers,
    buffers, DLPack producers) is read as tensor() reads it."""
    _check_device(device, "asarray")
    _args.dtype(dtype, "asarray")
    shared = None
    if isinstance(obj, _core.Tensor):
        shared = obj if dtype is None or obj.dtype == dtype else None
    elif isinstance(obj, np.ndarray):
        try:
            shared = as_tensor(obj) if dtype is None or _NP_OF.get(dtype) == obj.dtype else None
        except (TypeError, ValueError):
            shared = None
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        shared = _core.from_dlpack(obj)
        shared = shared if dtype is None or shared.dtype == dtype else None
    if copy is False and shared is None:
        raise ValueError("can't alias the object: its dtype or layout needs a copy, and copy=False was given")
    if shared is not None and not copy:
        out = shared
    elif isinstance(obj, _core.Tensor):
        out = obj.to(dtype or obj.dtype).clone() if copy or dtype is not None else obj
    else:
        out = as_tensor(obj, dtype=dtype)
        if copy and shared is not None:
            out = out.clone()
    return out.requires_grad_(True) if requires_grad else out
