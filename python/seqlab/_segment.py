"""torch.segment_reduce: data split along `axis` into consecutive segments of the given lengths
(or between the given offsets), each reduced to one slice by sum, mean, max, min or prod. It is
one scatter_reduce into a tensor of initial values (cpp/src/ops/scatter.cpp), so gradients are
scatter_reduce's, as torch's (ties of max/min share the gradient). Tests: tests/test_segment_reduce.py."""
import numpy as np

from . import _core

__all__ = ["segment_reduce"]

# torch's name -> scatter_reduce's, and the value of an empty segment without `initial`
_REDUCE = {"sum": ("sum", 0.0), "mean": ("sum", 0.0), "max": ("amax", -np.inf), "amax": ("amax", -np.inf),
           "min": ("amin", np.inf), "amin": ("amin", np.inf), "prod": ("prod", 1.0)}


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """Reduces each segment of data along axis (torch.segment_reduce). lengths (*B, S) or offsets
    (*B, S + 1) give S consecutive segments per leading index B, where data is (*B, N, ...) and axis
    is len(B); an empty segment gives `initial`, else sum 0, mean NaN, max -inf, min inf, prod 1;
    mean with `initial` is (initial + sum) / length."""
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if lengths is not None:
        lens = np.asarray(lengths.detach().numpy(), dtype=np.int64)
    else:
        off = np.asarray(offsets.detach().numpy(), dtype=np.int64)
        lens = np.diff(off, axis=-1)
    d = axis + data.dim() if axis < 0 else axis
    if d != lens.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    if tuple(data.shape[:d]) != lens.shape[:-1]:
        raise RuntimeError(f"segment_reduce(): Expected lengths {list(lens.shape)} to match data's leading dims "
                           f"{list(data.shape[:d])}")
    n = data.shape[d]
    if not unsafe:
        if (lens < 0).any():
            raise RuntimeError("segment_reduce(): lengths contains negative value!")
        if (lens.sum(axis=-1) != n).any():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                               "data.size(lengths.dim()-1) when !unsafe.")
    kind, empty = _REDUCE[reduce]
    segments = lens.shape[-1]
    # segment id of each position along axis, per leading index: (*B, N)
    ids = np.stack([np.repeat(np.arange(segments), row) for row in lens.reshape(-1, segments)]).reshape(
        lens.shape[:-1] + (n,)) if n else np.zeros(lens.shape[:-1] + (0,), dtype=np.int64)
    trailing = tuple(data.shape[d + 1:])
    index = _core.from_numpy(np.ascontiguousarray(ids.reshape(ids.shape + (1,) * len(trailing))))
    index = index.expand(*data.shape) if data.dim() else index
    out_shape = tuple(data.shape[:d]) + (segments,) + trailing
    dtype = data.dtype
    start = empty if initial is None else float(initial)
    out = _core._full(list(out_shape), start, dtype).scatter_reduce(d, index, data, kind, include_self=True)
    if reduce == "mean":   # (initial + Σ) / length; an empty segment keeps initial (NaN without one)
        count = _core.from_numpy(np.ascontiguousarray(lens.reshape(lens.shape + (1,) * len(trailing)))).to(dtype)
        if initial is None:
            out = out / count
        else:
            out = _core.where(count > 0, out / count.clamp(min=1), out)
    return out
