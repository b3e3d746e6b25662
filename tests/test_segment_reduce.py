"""torch.segment_reduce (python/seqlab/_segment.py) against torch: every reduction with and without
`initial`, empty segments, offsets, batched lengths along a later axis, gradients (ties of max share
theirs) and torch's errors."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_gradcheck, assert_raises_like_torch

REDUCES = ["sum", "mean", "max", "min", "prod", "amax", "amin"]


def run(lib, data, reduce, **kw):
    x = lib.tensor(data, requires_grad=True)
    kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    y = lib.segment_reduce(x, reduce, **kw)
    w = lib.tensor(np.arange(1.0, y.numel() + 1).reshape(tuple(y.shape)))
    (y.nan_to_num(0.0, 0.0, 0.0) * w).sum().backward()
    return y.detach().numpy().copy(), x.grad.numpy().copy()


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("initial", [None, 10.0])
def test_segment_reduce_matches_torch(reduce, initial):
    data = np.array([[1.0, 2.0], [5.0, 3.0], [3.0, 3.0], [5.0, 7.0], [2.0, 0.5], [6.0, 1.0]])
    lengths = np.array([2, 0, 3, 1])
    extra = {} if initial is None else {"initial": initial}
    for kw in ({"lengths": lengths}, {"offsets": np.array([0, 2, 2, 5, 6])}):
        got, want = run(seqlab, data, reduce, **kw, **extra), run(torch, data, reduce, **kw, **extra)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)   # (NaN and ±inf where torch has them)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


def test_segment_reduce_along_a_later_axis_with_batched_lengths():
    data = np.arange(24.0).reshape(2, 6, 2)
    lengths = np.array([[2, 4], [3, 3]])
    for reduce in ("sum", "max", "mean"):
        got, want = run(seqlab, data, reduce, lengths=lengths, axis=1), run(torch, data, reduce, lengths=lengths,
                                                                            axis=1)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    assert_gradcheck(lambda x: seqlab.segment_reduce(x, "prod", lengths=seqlab.tensor([2, 1, 3])),
                     [np.random.default_rng(0).uniform(0.5, 2.0, (6, 2))])


def test_segment_reduce_errors_as_torch():
    d = np.arange(6.0)
    for kw, match in [({"lengths": np.array([2, 2])}, "Expected all rows of lengths along axis to sum to"),
                      ({}, "Either lengths or offsets must be defined")]:
        assert_raises_like_torch(lambda: seqlab.segment_reduce(seqlab.tensor(d), "sum",
                                                               **{k: seqlab.tensor(v) for k, v in kw.items()}),
                                 lambda: torch.segment_reduce(torch.tensor(d), "sum",
                                                              **{k: torch.tensor(v) for k, v in kw.items()}), match)
    assert_raises_like_torch(lambda: seqlab.segment_reduce(seqlab.tensor(d), "foo", lengths=seqlab.tensor([6])),
                             lambda: torch.segment_reduce(torch.tensor(d), "foo", lengths=torch.tensor([6])),
                             "reduce argument must be either sum, prod, mean, amax or amin, got foo")
