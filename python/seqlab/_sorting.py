"""sort, argsort and topk with torch's signatures and results (torch.sort, torch.topk): the
order is computed in NumPy (a stable sort; NaN counts as the largest value, as in torch), and the
values are one `gather` of the input by it, so their gradient is gather's (scattered back to
where each value came from). Tests: tests/test_sorting.py.

unique and unique_consecutive (torch.unique, torch.unique_consecutive) are NumPy's too; like
torch's they have no derivative (their values are detached). Tests: tests/test_int_ops.py."""
from collections import namedtuple

import numpy as np

from . import _args, _core, _reduced_float
from ._through_float32 import through_float32

__all__ = ["sort", "argsort", "topk", "unique", "unique_consecutive"]

# torch.return_types.sort / topk: a tuple with .values and .indices
sort_result = namedtuple("sort", ["values", "indices"])
topk_result = namedtuple("topk", ["values", "indices"])


def _dim(x, dim, fn):
    nd = max(x.dim(), 1)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{fn}(): argument 'dim' must be int, not {type(dim).__name__}")
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    return dim % nd


def _order(x, dim, descending):
    """Indices that sort x along dim (stable), as an int64 NumPy array."""
    a = _reduced_float.numpy_values(x.contiguous())  # (bfloat16 as float32: the same order)
    if a.ndim == 0:
        return np.zeros((), dtype=np.int64)
    if np.issubdtype(a.dtype, np.floating):
        # torch: NaN is the largest value, above +inf; ascending puts it last (NumPy does too),
        # descending first: sorted by (not NaN, −value), NaN and +inf kept apart
        if descending:
            nan = np.isnan(a)
            keys = (np.moveaxis(np.where(nan, 0.0, -a), dim, -1), np.moveaxis(~nan, dim, -1))
            return np.moveaxis(np.lexsort(keys, axis=-1), -1, dim).astype(np.int64)
        key = a
    elif a.dtype == np.bool_:
        key = ~a if descending else a
    else:
        key = ~a if descending else a  # ~v = -v - 1: decreasing in v without overflow at INT64_MIN
    return np.argsort(key, axis=dim, kind="stable").astype(np.int64)


def _gather(x, dim, idx):
    if x.dim() == 0:
        return x.clone()
    return _core.gather(x, dim, _core.from_numpy(np.ascontiguousarray(idx)))


@_args.numpy_names
@through_float32
def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) of input sorted along dim (ascending unless descending), as torch.sort."""
    d = _dim(input, dim, "sort")
    idx = _order(input, d, descending)
    return sort_result(_gather(input, d, idx), _core.from_numpy(np.array(idx, dtype=np.int64)))  # (0-d stays 0-d)


@_args.numpy_names
@through_float32
def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort input along dim, as torch.argsort."""
    return sort(input, dim, descending, stable).indices


@_args.numpy_names
@through_float32
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) values along dim and their indices, as torch.topk."""
    d = _dim(input, dim, "topk")
    if not isinstance(k, int) or isinstance(k, bool):
        raise TypeError(f"topk(): argument 'k' (position 2) must be int, not {type(k).__name__}")
    size = input.shape[d] if input.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range: k = {k} is not in [0, {size}]"
                           if k >= 0 else f"selected index k out of range")
    idx = _order(input, d, largest)
    if input.dim():
        idx = np.take(idx, np.arange(k), axis=d)
    return topk_result(_gather(input, d, idx), _core.from_numpy(np.array(idx, dtype=np.int64)))


def _unique_result(values, inverse, counts, return_inverse, return_counts, dtype, like=None):
    """torch's return convention: the values alone, or a tuple with the inverse and/or counts.
    like: the input, whose dtype the values take (bfloat16 is read as float32)."""
    out = [_core.from_numpy(np.array(values, dtype=dtype, order="C"))]
    if like is not None and out[0].dtype != like.dtype:
        out[0] = out[0].to(like.dtype)
    if return_inverse:  # (np.array, not ascontiguousarray, which makes a 0-d inverse 1-d)
        out.append(_core.from_numpy(np.array(inverse, dtype=np.int64, order="C")))
    if return_counts:
        out.append(_core.from_numpy(np.array(counts, dtype=np.int64, order="C")))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_dim(input, dim, fn):
    d = _dim(input, dim, fn)
    if input.dim() and any(s == 0 for i, s in enumerate(input.shape) if i != d):
        raise RuntimeError(f"There are 0 sized dimensions, and they aren't selected, so {fn} cannot be applied")
    return d


@through_float32
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of input in ascending order (torch.unique); dim=None flattens input first,
    dim=d takes the distinct slices along d in lexicographic order. return_inverse: where each
    element (slice) of input went, shaped as input (as input.shape[d]); return_counts: how often
    each value occurs. NaNs are all distinct, as in torch. torch's CPU kernel sorts also when
    sorted=False, and so does seqlab."""
    a = _reduced_float.numpy_values(input.contiguous())
    if dim is None:
        flat = a.reshape(-1)
        values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
        return _unique_result(values, inverse.reshape(a.shape), counts, return_inverse, return_counts, a.dtype, input)
    d = _unique_dim(input, dim, "unique")
    if a.ndim == 0:
        return _unique_result(a.reshape(1), np.zeros(1), np.ones(1), return_inverse, return_counts, a.dtype, input)
    moved = np.moveaxis(a, d, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    # Lexicographic order of the slices, as torch's unique_dim: sort by the last column first.
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
    srt = rows[order]
    new = np.ones(len(srt), dtype=bool)
    if len(srt) > 1:
        new[1:] = np.any(srt[1:] != srt[:-1], axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(srt), dtype=np.int64)
    inverse[order] = group
    counts = np.diff(np.append(np.flatnonzero(new), len(srt)))
    values = np.moveaxis(moved[order][new], 0, d)
    return _unique_result(values, inverse, counts, return_inverse, return_counts, a.dtype, input)


@through_float32
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive elements (slices along dim) to one, as
    torch.unique_consecutive; return_inverse and return_counts as in unique."""
    a = _reduced_float.numpy_values(input.contiguous())
    if dim is None:
        rows = a.reshape(-1, 1)
        shape = a.shape
    else:
        d = _unique_dim(input, dim, "unique_consecutive")
        a = a.reshape(1) if a.ndim == 0 else a
        moved = np.moveaxis(a, d, 0)
        rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
        shape = (rows.shape[0],)
    new = np.ones(len(rows), dtype=bool)
    if len(rows) > 1:
        new[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    inverse = (np.cumsum(new) - 1).reshape(shape)
    counts = np.diff(np.append(np.flatnonzero(new), len(rows)))
    values = rows[new].reshape(-1) if dim is None else np.moveaxis(moved[new], 0, d)
    return _unique_result(values, inverse, counts, return_inverse, return_counts, a.dtype, input)
