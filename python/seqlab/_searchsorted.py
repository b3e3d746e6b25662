"""searchsorted and bucketize with torch's signatures and errors (torch.searchsorted,
torch.bucketize): for each value, the index where it would be inserted into a sorted sequence to
keep it sorted, the first such place (side='left': boundaries[i-1] < v <= boundaries[i]) or the
last (side='right'). The search is NumPy's binary search, row by row for an N-D sequence; the
result is int64 (int32 with out_int32) and has no gradient, as torch's. With NaN among the
boundaries NumPy's order (NaN last) decides, where torch's comparisons give other indices.
Tests: tests/test_add_products.py."""
import numpy as np

from . import _core
from ._reduced_float import numpy_values
from ._dtypes import scalar_type_name
from ._through_float32 import through_float32

__all__ = ["searchsorted", "bucketize"]


def _side(side, right):
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if right and side == "left":
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left while "
                           "right was True")
    return side


def _result(index, out_int32):
    return _core.from_numpy(np.array(index, dtype=np.int32 if out_int32 else np.int64, order="C"))


@through_float32
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Insertion indices of `input`'s values into `sorted_sequence` (1-D: one sequence for all
    values; N-D: one sequence per row, its first N-1 dims equal to input's); input may be a number
    (a 0-d result). sorter: the indices that sort an unsorted sequence (argsort's)."""
    side = _side(side, right)
    seq = numpy_values(sorted_sequence)  # (bfloat16 as its float32 values: the same order)
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if sorter is not None:
        if tuple(sorter.shape) != seq.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(seq.shape)}and got sorter tensor {list(sorter.shape)}")
        if sorter.dtype != _core.dtype.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{scalar_type_name(sorter.dtype)}")
        order = sorter.detach().numpy()
        if order.size and (order.min() < 0 or order.max() >= seq.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
        seq = np.take_along_axis(seq, order, axis=-1)
    scalar = not isinstance(input, _core.Tensor)
    # a number keeps its own type (2.5 among int64 boundaries is searched as 2.5, not 2)
    values = np.asarray(input) if scalar else numpy_values(input)
    if seq.ndim <= 1:
        return _result(np.searchsorted(seq.reshape(-1), values, side=side), out_int32)
    if scalar or values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(np.shape(values))}")
    rows_seq = seq.reshape(-1, seq.shape[-1])
    rows_val = values.reshape(-1, values.shape[-1])
    index = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(rows_seq, rows_val)])
    return _result(index.reshape(values.shape), out_int32)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value of input among 1-D increasing `boundaries`: i with
    boundaries[i-1] < v <= boundaries[i] (right=False) or boundaries[i-1] <= v < boundaries[i]."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
