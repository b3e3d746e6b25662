"""The functional forms torch.nn.functional has and seqlab lacked, composed of seqlab's ops: pdist (the
condensed pairwise distances), and the shrink activations hardshrink / softshrink (from
seqlab/_pointwise_extra.py). (alpha_dropout, feature_alpha_dropout and adaptive_max_pool1d are C++ ops:
_stochastic.py, _pooling.py.) Tests: tests/test_torch_compositions.py."""
import numpy as np

from .. import _core
from .._pointwise_extra import hardshrink, softshrink  # noqa: F401
from .._through_float32 import refuse


def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input, for every pair i < j in row-major
    order: N (N - 1) / 2 values (F.pdist). (At two equal rows torch's gradient is 0; seqlab's,
    through norm, is that of norm at 0.)"""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    refuse("pdist", input)   # torch has no 16-bit pdist on CPU
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    left = input.index_select(0, _core.from_numpy(np.ascontiguousarray(i, dtype=np.int64)))
    right = input.index_select(0, _core.from_numpy(np.ascontiguousarray(j, dtype=np.int64)))
    return (left - right).norm(p, 1, False)
