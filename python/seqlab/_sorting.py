"""sort, argsort and topk with torch's signatures and results (torch.sort, torch.topk): the
order is computed in NumPy (a stable sort; NaN counts as the largest value, as in torch), and the
values are one `gather` of the input by it, so their gradient is gather's (scattered back to
where each value came from). Tests: tests/test_sorting.py."""
from collections import namedtuple

import numpy as np

from . import _args, _core

__all__ = ["sort", "argsort", "topk"]

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
    a = x.detach().contiguous().numpy()
    if a.ndim == 0:
        return np.zeros((), dtype=np.int64)
    if np.issubdtype(a.dtype, np.floating):
        # torch: NaN is the largest value; ascending puts it last (NumPy does too), descending first
        key = np.where(np.isnan(a), -np.inf, -a) if descending else a
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
def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) of input sorted along dim (ascending unless descending), as torch.sort."""
    d = _dim(input, dim, "sort")
    idx = _order(input, d, descending)
    return sort_result(_gather(input, d, idx), _core.from_numpy(np.ascontiguousarray(idx)))


@_args.numpy_names
def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort input along dim, as torch.argsort."""
    return sort(input, dim, descending, stable).indices


@_args.numpy_names
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
    return topk_result(_gather(input, d, idx), _core.from_numpy(np.ascontiguousarray(idx)))
