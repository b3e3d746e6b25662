"""The functional forms torch.nn.functional has and seqlab lacked, composed of seqlab's ops: alpha_dropout
and feature_alpha_dropout (Klambauer et al. 2017, SELU's dropout), pdist (the condensed pairwise
distances), adaptive_max_pool1d, and the shrink activations hardshrink / softshrink (from
seqlab/_pointwise_extra.py). Tests: tests/test_torch_compositions.py."""
import math

import numpy as np

from .. import _core
from .._pointwise_extra import hardshrink, softshrink  # noqa: F401

# SELU's negative saturation value: -scale * alpha (Klambauer et al. 2017, §"New Dropout Technique")
_SELU_SATURATION = -1.0507009873554805 * 1.6732632423543772


def _alpha_dropout(input, p, training, feature, name):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * _core._full([], 0.0, input.dtype)
    if feature:
        if input.dim() < 2:
            raise RuntimeError(f"{name}: Feature dropout requires at least 2 dimensions in the input")
        mask_shape = list(input.shape[:2]) + [1] * (input.dim() - 2)
    else:
        mask_shape = list(input.shape)
    # keep ~ Bernoulli(1 - p); dropped units take the saturation value, then an affine map
    # restores mean 0 and variance 1:  out = a (x keep + α' (1 - keep)) + b
    keep = _core._empty(mask_shape, input.dtype).bernoulli_(1 - p)
    a = 1.0 / math.sqrt((1 - p) * (1 + p * _SELU_SATURATION ** 2))
    b = -a * _SELU_SATURATION * p
    return (input * keep + (1 - keep) * _SELU_SATURATION) * a + b


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks (F.alpha_dropout): in training each element is set to SELU's
    negative saturation with probability p, then scaled and shifted so mean and variance are kept;
    the input itself otherwise (or when p = 0)."""
    out = _alpha_dropout(input, p, training, False, "alpha_dropout")
    return input.copy_(out) if inplace and out is not input else out


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (F.feature_alpha_dropout): one draw per (batch, channel),
    shared over the remaining dims."""
    out = _alpha_dropout(input, p, training, True, "feature_alpha_dropout")
    return input.copy_(out) if inplace and out is not input else out


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
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    left = input.index_select(0, _core.from_numpy(np.ascontiguousarray(i, dtype=np.int64)))
    right = input.index_select(0, _core.from_numpy(np.ascontiguousarray(j, dtype=np.int64)))
    return (left - right).norm(p, 1, False)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The maximum over output_size windows of the last dim of a (C, L) or (N, C, L) input, window i
    covering [floor(i L / out), ceil((i + 1) L / out)) (F.adaptive_max_pool1d); with
    return_indices also each maximum's position in L."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: {list(input.shape)}")
    out_size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    length = input.shape[-1]
    if length == 0 or out_size < 0:
        raise RuntimeError(f"adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, "
                           f"but input has sizes {list(input.shape)} with dimension {input.dim() - 1} being empty")
    values, indices = [], []
    for k in range(out_size):
        start, end = (k * length) // out_size, -((-(k + 1) * length) // out_size)
        v, at = input.narrow(-1, start, end - start).max(-1, True)
        values.append(v)
        indices.append(at + start)
    if out_size == 0:
        shape = list(input.shape[:-1]) + [0]
        empty_v, empty_i = _core._empty(shape, input.dtype), _core._empty(shape, _core.dtype.int64)
        return (empty_v, empty_i) if return_indices else empty_v
    out = _core.cat(values, -1)
    return (out, _core.cat(indices, -1)) if return_indices else out
