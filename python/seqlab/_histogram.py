"""torch.histc and torch.histogram: counts of a tensor's elements in equal-width bins (or given
edges), computed in NumPy in the input's dtype with torch's bin rule, so that an element on an
edge lands where torch puts it; torch.bincount: how often each non-negative integer occurs.
None is differentiable (torch records no derivative). Tests: tests/test_scan.py,
tests/test_int_dtypes.py (bincount)."""
from builtins import max as builtins_max
from collections import namedtuple

import numpy as np

from . import _args, _core
from ._dtypes import scalar_type_name
from ._through_float32 import through_float32

__all__ = ["histc", "histogram", "bincount"]

# torch.return_types.histogram: a tuple with .hist and .bin_edges
histogram_result = namedtuple("histogram", ["hist", "bin_edges"])


def _values(input, fn):
    if not isinstance(input, _core.Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype not in (_core.dtype.float32, _core.dtype.float64):
        name = scalar_type_name(input.dtype)
        raise NotImplementedError(f"\"{fn}\" not implemented for '{name}'")
    return input.detach().contiguous().numpy().ravel()


def _edges(lo, hi, bins, np_dtype):
    """torch's bin_edges: linspace(lo, hi, bins + 1) in the input's dtype, as its CPU kernel
    computes it: step = (hi − lo) / bins, lo + step·i in the first half and hi − step·(bins − i)
    in the second, each a fused multiply-add (float32: exact in double, then rounded once)."""
    T = np_dtype.type
    lo, hi = T(lo), T(hi)
    step = T((hi - lo) / T(bins))
    i = np.arange(bins + 1)
    wide = np.float64 if T is np.float32 else np.longdouble
    first = wide(lo) + wide(step) * i.astype(wide)
    second = wide(hi) - wide(step) * (bins - i).astype(wide)
    return np.where(i < (bins + 1) // 2, first, second).astype(T)


def _count(x, edges, weight, linear, local_search):
    """hist[b] = Σ weight of the x with edges[b] <= x < edges[b+1] (the last bin includes its
    right edge). With linear edges the bin is (x − e_0)·B / (e_B − e_0), truncated, as torch
    computes it in x's dtype; local_search then corrects it against the edges next to it."""
    B = len(edges) - 1
    inside = (x >= edges[0]) & (x <= edges[-1])  # NaN is never inside
    x = x[inside]
    w = None if weight is None else weight[inside]
    if linear:
        pos = ((x - edges[0]) * x.dtype.type(B) / (edges[-1] - edges[0])).astype(np.int64)
        if local_search:
            lo = np.maximum(pos - 1, 0)
            hi = np.minimum(pos + 2, B + 1)
            # upper_bound in the increasing edges[lo:hi] (at most 3) is lo + #{edges there <= x}
            below = np.zeros_like(pos)
            for k in range(3):
                at = lo + k
                below += (at < hi) & (edges[np.minimum(at, B)] <= x)
            pos = lo + below - 1
    else:
        pos = np.searchsorted(edges, x, side="right") - 1
    pos = np.where(pos == B, B - 1, pos)
    return np.bincount(pos, weights=w, minlength=B)[:B].astype(x.dtype if len(x) else edges.dtype)


@through_float32
def histc(input, bins=100, min=0, max=0):
    """Counts of input's elements in `bins` equal bins over [min, max]; min == max means the
    data's range (widened by 1 each side if it is one value). Elements outside are ignored."""
    x = _values(input, "histc")
    bins = _args.index(bins, "histc", "bins")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = _args.number(min, "histc", "min"), _args.number(max, "histc", "max")
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    edges = _edges(lo, hi, bins, x.dtype)
    return _core.from_numpy(np.ascontiguousarray(_count(x, edges, None, True, False), dtype=x.dtype))


def histogram(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges): bins is a number of equal bins over `range` (the data's range by
    default, widened by 0.5 each side if it is one value) or a 1-d tensor of increasing edges.
    weight: one weight per element (the counts' sum). density: hist / (Σ hist · bin width)."""
    x = _values(input, "histogram")
    w = None
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError(f"torch.histogram: if weight tensor is provided it should have the same shape as the "
                               f"input tensor, but got input with shape {list(input.shape)} and weight with shape "
                               f"{list(weight.shape)}")
        w = weight.detach().contiguous().numpy().ravel().astype(x.dtype)
    if isinstance(bins, _core.Tensor):
        if bins.dim() != 1 or bins.shape[0] < 1:
            raise RuntimeError(f"torch.histogram(): bins tensor should have one dimension and at least 1 entry, "
                               f"but got shape {list(bins.shape)}")
        edges = bins.detach().to(input.dtype).contiguous().numpy().copy()
        linear = False
    else:
        n = _args.index(bins, "histogram", "bins")
        if n <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {n} for dimension 0")
        if range is not None:
            lo, hi = (_args.number(v, "histogram", "range") for v in range)
        elif x.size:
            lo, hi = float(x.min()), float(x.max())
        else:
            lo, hi = 0.0, 1.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} "
                               f"for dimension 0")
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: range of [{lo:g}, {hi:g}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _edges(lo, hi, n, x.dtype)
        linear = True
    hist = _count(x, edges, w, linear, True) if len(edges) > 1 else np.zeros(0, dtype=x.dtype)
    if density and len(edges) > 1:
        with np.errstate(invalid="ignore", divide="ignore"):  # no data: NaN, as torch
            hist = hist / (hist.sum() * np.diff(edges))
    as_tensor = lambda a: _core.from_numpy(np.ascontiguousarray(a, dtype=x.dtype))  # noqa: E731
    return histogram_result(as_tensor(hist), as_tensor(edges))


def bincount(input, weights=None, minlength=0):
    """counts[i] = how many elements of the 1-d integer tensor `input` equal i (or the sum of their
    `weights`), for i in [0, max(max(input) + 1, minlength)). int64 counts; float32 weights sum in
    float32, other weights in float64, as torch's bincount."""
    if not isinstance(input, _core.Tensor):
        raise TypeError(f"bincount(): argument 'input' must be Tensor, not {type(input).__name__}")
    minlength = _args.index(minlength, "bincount", "minlength")
    if input.dtype.is_floating_point or input.dtype == _core.dtype.bool:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{scalar_type_name(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    x = input.detach().numpy()
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _core.from_numpy(np.bincount(x.astype(np.int64), minlength=minlength).astype(np.int64))
    if not isinstance(weights, _core.Tensor) or weights.dim() != 1 or weights.shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # torch adds the weights one by one, in the output's dtype: np.add.at does too (unbuffered)
    out = np.zeros(builtins_max(int(x.max()) + 1 if x.size else 0, minlength),
                   dtype=np.float32 if weights.dtype == _core.dtype.float32 else np.float64)
    np.add.at(out, x.astype(np.int64), weights.detach().numpy().astype(out.dtype))
    return _core.from_numpy(out)
