"""sort, argsort and topk (python/seqlab/_sorting.py) against torch: values, indices, NaN and
ties, every dim, descending/largest, gradients through the values, errors."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_matches_torch, assert_raises_like_torch


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_match_torch(rng, dtype, dim, descending):
    # distinct values, so that the order (and the indices) are unique
    x = rng.permutation(60).reshape(3, 4, 5).astype(dtype) - 17
    assert_matches_torch(lambda t: seqlab.sort(t, dim=dim, descending=descending),
                         lambda t: torch.sort(t, dim=dim, descending=descending), [x])
    assert_matches_torch(lambda t: t.argsort(dim, descending=descending),
                         lambda t: t.argsort(dim, descending=descending), [x], grad=False)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_topk_matches_torch(rng, largest, k):
    x = rng.permutation(40).reshape(8, 5).astype(np.float64) / 7
    assert_matches_torch(lambda t: t.topk(k, largest=largest), lambda t: t.topk(k, largest=largest), [x])
    assert_matches_torch(lambda t: seqlab.topk(t, min(k, 8), dim=0, largest=largest),
                         lambda t: torch.topk(t, min(k, 8), dim=0, largest=largest), [x])


def test_nan_is_the_largest_value_as_in_torch():
    x = np.array([3.0, np.nan, -1.0, 7.0, np.nan, 0.5])
    for descending in (False, True):
        s, t = seqlab.sort(seqlab.tensor(x), descending=descending), torch.sort(torch.tensor(x), descending=descending)
        np.testing.assert_array_equal(s.values.numpy(), t.values.numpy())
    np.testing.assert_array_equal(seqlab.tensor(x).topk(2).values.numpy(), torch.tensor(x).topk(2).values.numpy())


def test_ties_keep_their_order_and_results_unpack_as_torch():
    x = seqlab.tensor([2, 1, 2, 1, 2])
    values, indices = x.sort(stable=True)
    assert values.tolist() == [1, 1, 2, 2, 2] and indices.tolist() == [1, 3, 0, 2, 4]
    r = x.topk(2)
    assert r.values.tolist() == [2, 2] and r.indices.dtype == seqlab.int64
    assert seqlab.sort(seqlab.tensor(5.0)).values.item() == 5.0


def test_topk_logits_filter_as_in_generation_code(rng):
    """nanoGPT's top-k filter: logits[logits < v[:, [-1]]] = -inf."""
    logits = rng.standard_normal((2, 10))
    out = []
    for lib in (seqlab, torch):
        t = lib.tensor(logits)
        v, _ = lib.topk(t, 3)
        t[t < v[:, [-1]]] = -float("inf")
        out.append(np.isfinite(t.numpy()).sum(1))
    assert out[0].tolist() == out[1].tolist() == [3, 3]


def test_errors():
    x, tx = seqlab.zeros(3, 4), torch.zeros(3, 4)
    assert_raises_like_torch(lambda: x.topk(5), lambda: tx.topk(5), "selected index k out of range")
    assert_raises_like_torch(lambda: x.sort(dim=2), lambda: tx.sort(dim=2), "Dimension out of range")
    assert_raises_like_torch(lambda: x.topk(1.5), lambda: tx.topk(1.5), "must be int")
