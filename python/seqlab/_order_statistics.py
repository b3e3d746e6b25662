"""Order statistics with torch's signatures and results: kthvalue, median, nanmedian, quantile,
nanquantile, mode and msort (torch.kthvalue, torch.median, ...). As in sort (_sorting.py) the
order is found in NumPy on the detached values (NaN counts as the largest value), and each value
is one `gather` of the input, so its gradient goes back to the element it came from; quantile
interpolates between two gathered values with torch's lerp, so its gradient is split between
them as torch's is.
Where torch's choice among equal values is its own (median's index among ties), the index names
an element equal to the value. Tests: tests/test_order_statistics.py."""
from collections import namedtuple

import numpy as np

from . import _core
from ._reduced_float import numpy_values
from ._math import lerp
from ._sorting import _dim, sort
from ._through_float32 import through_float32

__all__ = ["kthvalue", "median", "nanmedian", "quantile", "nanquantile", "mode", "msort"]

# torch.return_types.kthvalue / median / nanmedian / mode: a tuple with .values and .indices
kthvalue_result = namedtuple("kthvalue", ["values", "indices"])
median_result = namedtuple("median", ["values", "indices"])
nanmedian_result = namedtuple("nanmedian", ["values", "indices"])
mode_result = namedtuple("mode", ["values", "indices"])

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _rows(x, dim):
    """x's values as a NumPy array with dim moved last: (..., n)."""
    a = numpy_values(x.contiguous())  # (bfloat16 as its float32 values: the same order)
    return np.moveaxis(a.reshape(1) if a.ndim == 0 else a, dim, -1)


def _select(x, dim, idx, keepdim, result):
    """result(values, indices): x gathered along dim at idx (shape (...,) of the other dims)."""
    idx = np.asarray(idx, dtype=np.int64)
    if x.dim() == 0:
        return result(x.clone(), _core.from_numpy(np.zeros((), dtype=np.int64)))
    at = _core.from_numpy(np.ascontiguousarray(np.expand_dims(idx, dim)))
    values, indices = _core.gather(x, dim, at), at
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return result(values, indices)


def _nonempty(x, dim, fn):
    if x.dim() and x.shape[dim] == 0:
        raise IndexError(f"{fn}(): Expected reduction dim {dim} to have non-zero size.")


def _order(rows):
    """A stable ascending order of each row (NaN last, as torch's NaN-is-largest)."""
    return np.argsort(rows, axis=-1, kind="stable")


def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices): the k-th smallest element along dim (k = 1 is the smallest; NaN is the
    largest), torch.kthvalue."""
    d = _dim(input, dim, "kthvalue")
    n = input.shape[d] if input.dim() else 1
    if not isinstance(k, int) or isinstance(k, bool):
        raise TypeError(f"kthvalue(): argument 'k' (position 2) must be int, not {type(k).__name__}")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    idx = _order(_rows(input, d))[..., k - 1]
    return _select(input, d, idx, keepdim, kthvalue_result)


def _median_index(rows, ignore_nan):
    """The lower median's index in each row: position (m − 1) // 2 of the ascending order, m the
    row's length (or its count of non-NaN values with ignore_nan); a row with NaN (without
    ignore_nan) or with no number gives its first NaN's index or 0, its value NaN."""
    order = _order(rows)
    nan = np.isnan(rows) if np.issubdtype(rows.dtype, np.floating) else np.zeros(rows.shape, dtype=bool)
    m = (~nan).sum(axis=-1) if ignore_nan else np.full(rows.shape[:-1], rows.shape[-1])
    idx = np.take_along_axis(order, np.maximum((m - 1) // 2, 0)[..., None], axis=-1)[..., 0]
    has_nan = nan.any(axis=-1)
    poisoned = (m == 0) if ignore_nan else has_nan
    return np.where(poisoned, np.where(has_nan, nan.argmax(axis=-1), 0), idx)


def _median(input, dim, keepdim, fn, ignore_nan, result):
    if dim is None:   # the whole tensor: a 0-d value (NaN when empty, as torch)
        flat = input.reshape(-1)
        if flat.shape[0] == 0:   # NaN, or an integer dtype's smallest value (NaN converted, as torch's)
            kind = numpy_values(flat).dtype
            empty = np.nan if np.issubdtype(kind, np.floating) else np.iinfo(kind).min
            return _core.from_numpy(np.array(empty, dtype=kind)).to(input.dtype)
        return _select(flat, 0, _median_index(_rows(flat, 0), ignore_nan), False, result).values
    d = _dim(input, dim, fn)
    _nonempty(input, d, fn)
    return _select(input, d, _median_index(_rows(input, d), ignore_nan), keepdim, result)


@through_float32
def median(input, dim=None, keepdim=False):
    """The lower median (the ((m − 1) // 2)-th smallest of m values): of all elements as a 0-d
    tensor, or (values, indices) along dim; NaN wherever a NaN is among the values (torch.median)."""
    return _median(input, dim, keepdim, "median", False, median_result)


@through_float32
def nanmedian(input, dim=None, keepdim=False):
    """median ignoring NaN: the lower median of the numbers; NaN only where there are none
    (torch.nanmedian)."""
    return _median(input, dim, keepdim, "nanmedian", True, nanmedian_result)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    fn = "quantile"   # torch's messages say quantile() for nanquantile too
    if input.dtype not in (_core.dtype.float32, _core.dtype.float64):
        raise RuntimeError(f"{fn}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{fn}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if isinstance(q, _core.Tensor):
        if q.dim() > 1:
            raise RuntimeError(f"{fn}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{fn}() q tensor must be same dtype as the input tensor")
        qs, q_dim = q.detach().numpy().astype(np.float64).reshape(-1), q.dim() == 1
    else:
        qs, q_dim = np.array([float(q)]), False
    for v in qs:
        if not 0 <= v <= 1:
            raise RuntimeError(f"{fn}() q must be in the range [0, 1] but got {v:g}")
    if input.numel() == 0:
        raise RuntimeError(f"{fn}() input tensor must be non-empty")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _dim(input, dim, fn)
    rows = _rows(x, d)
    order = _order(rows)
    nan = np.isnan(rows)
    m = (~nan).sum(axis=-1) if ignore_nan else np.full(rows.shape[:-1], rows.shape[-1])
    poisoned = (m == 0) if ignore_nan else nan.any(axis=-1)
    out = []
    for v in qs:
        # pos = q (m − 1) in the ascending order; lower and upper neighbours and the weight between
        pos = v * np.maximum(m - 1, 0)
        if interpolation == "nearest":
            pos = np.round(pos)                  # half to even, as torch's round
        lo = np.floor(pos).astype(np.int64)
        hi = np.ceil(pos).astype(np.int64)
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        i_lo = np.take_along_axis(order, lo[..., None], axis=-1)[..., 0]
        i_hi = np.take_along_axis(order, hi[..., None], axis=-1)[..., 0]
        a = _select(x, d, i_lo, keepdim, median_result).values
        b = _select(x, d, i_hi, keepdim, median_result).values
        if interpolation in ("lower", "higher", "nearest"):
            value = a                            # the element itself (torch does not interpolate)
        else:
            # torch's lerp(a, b, w), w = pos − lo (linear) or 0.5 (midpoint, even where lo = hi), so an
            # infinite neighbour gives what torch's does (NaN at w = 0 between inf and itself, too)
            w = np.full(pos.shape, 0.5) if interpolation == "midpoint" else pos - lo
            # (np.array, not np.ascontiguousarray: that one makes a 0-d array 1-d)
            value = lerp(a, b, _core.from_numpy(np.array(np.reshape(w, a.shape), dtype=np.float64,
                                                         order="C")).to(input.dtype))
        if poisoned.any():
            bad = _core.from_numpy(np.array(np.reshape(poisoned, value.shape), order="C"))
            value = _core.where(bad, float("nan"), value)
        out.append(value)
    if dim is None and keepdim:   # every dim kept at size 1
        out = [o.reshape([1] * input.dim()) for o in out]
    return _core.stack(out, 0) if q_dim else out[0]


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles along dim (all elements with dim=None): at position q (m − 1) of the
    sorted values, between its neighbours by `interpolation` (linear, lower, higher, midpoint,
    nearest); a 1-D q adds a leading dim; NaN where the values hold a NaN (torch.quantile)."""
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile of the numbers only, NaN ignored; NaN where a row has no number (torch.nanquantile)."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


@through_float32
def mode(input, dim=-1, keepdim=False):
    """(values, indices): the most frequent value along dim, the smallest among equally frequent
    ones, and the index of its last occurrence, as torch.mode on CPU. NaN counts as one value, the
    largest (torch's answer with NaN follows its sort's undefined order for NaN, and differs)."""
    d = _dim(input, dim, "mode")
    _nonempty(input, d, "mode")
    rows = _rows(input, d)
    flat = rows.reshape(-1, rows.shape[-1])
    idx = np.empty(flat.shape[0], dtype=np.int64)
    for r, row in enumerate(flat):
        values, counts = np.unique(row, return_counts=True)   # ascending: the first of the most frequent is the smallest
        best = values[np.argmax(counts)]
        same = (row == best) | (np.isnan(row) & np.isnan(best))
        idx[r] = np.flatnonzero(same)[-1]
    return _select(input, d, idx.reshape(rows.shape[:-1]), keepdim, mode_result)


@through_float32
def msort(input):
    """input sorted along its first dim (torch.msort: sort(input, dim=0).values)."""
    return sort(input, 0).values
