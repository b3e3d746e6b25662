"""cumsum, cumprod (cpp/src/ops/scan.cpp), histc, histogram (python/seqlab/_histogram.py) and
NumPy's axis=/keepdims= names (cpp/python/bind_errors.cpp, seqlab._args.numpy_names) against
torch: values, dtypes, gradients (float32 and float64, strided inputs, size-0 and size-1 dims,
zeros in cumprod), gradcheck, and torch's errors."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_close, assert_gradcheck, assert_matches_torch, assert_raises_like_torch, sl_np


SHAPES_DIMS = [((5,), 0), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 1), ((2, 0, 3), 2), ((2, 1, 3), 1), ((), 0)]


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("shape, dim", SHAPES_DIMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["contig", "T", "slice"])
def test_scan_matches_torch(rng, name, shape, dim, dtype, layout):
    x = rng.uniform(0.5, 1.5, shape).astype(dtype) * rng.choice([-1, 1], shape)
    assert_matches_torch(lambda t: getattr(seqlab, name)(t, dim), lambda t: getattr(torch, name)(t, dim), [x],
                         layout=layout)
    assert_matches_torch(lambda t: getattr(t, name)(dim=dim), lambda t: getattr(t, name)(dim=dim), [x], layout=layout)


@pytest.mark.parametrize("zeros", [[0], [2], [5], [1, 3], [0, 5], [2, 2]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cumprod_gradient_with_zeros(rng, zeros, dtype):
    """torch's cumprod_backward: before the first zero g·y/x, at it the product of the others, after it 0."""
    x = rng.uniform(0.5, 1.5, (3, 6)).astype(dtype)
    x[1, zeros] = 0
    x[2, zeros[0]] = 0
    assert_matches_torch(lambda t: seqlab.cumprod(t, 1), lambda t: torch.cumprod(t, 1), [x])
    assert_matches_torch(lambda t: seqlab.cumprod(t, 0), lambda t: torch.cumprod(t, 0), [x.T.copy()])


def test_scan_gradcheck(rng):
    x = rng.uniform(0.5, 1.5, (3, 5))
    assert_gradcheck(lambda t: seqlab.cumsum(t, 1), [x])
    assert_gradcheck(lambda t: seqlab.cumprod(t, 1), [x])
    assert_gradcheck(lambda t: seqlab.cumprod(t, 0), [x])
    x[1, 2] = 0
    assert_gradcheck(lambda t: seqlab.cumprod(t, 1), [x])


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_dtypes_match_torch(rng, name):
    ints = rng.integers(-3, 4, (3, 4))
    cases = [(ints, None), (ints > 0, None), (ints, seqlab.float64), (ints.astype(np.float32), seqlab.float64),
             (ints.astype(np.float64), seqlab.float32), (ints.astype(np.float32), seqlab.int64)]
    names = {seqlab.float32: torch.float32, seqlab.float64: torch.float64, seqlab.int64: torch.int64}
    for x, dtype in cases:
        s = getattr(seqlab, name)(seqlab.tensor(x), 1, dtype=dtype)
        t = getattr(torch, name)(torch.tensor(x), 1, dtype=names.get(dtype))
        assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (x.dtype, dtype, s.dtype, t.dtype)
        assert_close(sl_np(s), t.numpy(), 0, 1e-6)
    # dtype= on a float input that requires grad: the gradient comes back in the input's dtype
    x = rng.standard_normal((2, 3)).astype(np.float32)
    assert_matches_torch(lambda t: getattr(seqlab, name)(t, 1, dtype=seqlab.float64),
                         lambda t: getattr(torch, name)(t, 1, dtype=torch.float64), [x])


def test_cumsum_float32_accumulates_like_torch():
    """torch's CPU kernel accumulates float32 in double; so does seqlab's."""
    x = np.full(100_000, 0.1, dtype=np.float32)
    assert_close(sl_np(seqlab.cumsum(seqlab.tensor(x), 0)), torch.cumsum(torch.tensor(x), 0).numpy(), 0, 0)


def test_scan_errors_match_torch():
    assert_raises_like_torch(lambda: seqlab.cumsum(seqlab.ones(2, 3), 2), lambda: torch.cumsum(torch.ones(2, 3), 2),
                             "out of range")
    assert_raises_like_torch(lambda: seqlab.cumprod(seqlab.ones(2), -2), lambda: torch.cumprod(torch.ones(2), -2),
                             "out of range")
    assert_raises_like_torch(lambda: seqlab.cumsum(seqlab.ones(2)), lambda: torch.cumsum(torch.ones(2)), "dim")
    assert_raises_like_torch(lambda: seqlab.cumsum(seqlab.ones(2), 0.5), lambda: torch.cumsum(torch.ones(2), 0.5),
                             "dim")
    assert_raises_like_torch(lambda: seqlab.cumsum(seqlab.ones(2), 0, dtype=seqlab.bool),
                             lambda: torch.cumsum(torch.ones(2), 0, dtype=torch.bool), "not implemented for 'Bool'")
    assert_raises_like_torch(lambda: seqlab.cumprod(seqlab.ones(2), 0, dtype=seqlab.bool),
                             lambda: torch.cumprod(torch.ones(2), 0, dtype=torch.bool), "not implemented for 'Bool'")


# ---------------------------------------------------------------------------- histc, histogram

def _hist_inputs(rng, dtype):
    return [rng.standard_normal(500).astype(dtype),
            np.arange(-4, 5, 0.5).astype(dtype),  # on the edges of integer-aligned bins
            np.array([1.0, 1.0, 1.0], dtype=dtype),  # one value: the range is widened
            np.array([np.nan, 1.0, 2.0, 3.0], dtype=dtype),
            rng.standard_normal((4, 5)).astype(dtype),
            np.zeros(0, dtype=dtype)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histc_matches_torch(rng, dtype):
    for x in _hist_inputs(rng, dtype):
        if np.isnan(x).any():
            args_list = [(3, 0, 4)]  # torch refuses the data's range when it holds NaN
        else:
            args_list = [(), (7,), (8, -4, 4), (5, 0, 1), (3, 2, 2), (4, -1.5, 2.5)]
        for args in args_list:
            s = seqlab.histc(seqlab.tensor(x), *args)
            t = torch.histc(torch.tensor(x), *args)
            assert s.dtype == seqlab.tensor(x).dtype
            assert_close(sl_np(s), t.numpy(), 0, 0, f"histc{args} of {x[:5]}")
            assert_close(sl_np(seqlab.tensor(x).histc(*args)), t.numpy(), 0, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_matches_torch(rng, dtype):
    for x in _hist_inputs(rng, dtype):
        w = rng.uniform(0, 2, x.shape).astype(dtype)
        for kwargs in [dict(bins=6), dict(bins=8, range=(-4.0, 4.0)), dict(bins=3, weight=True),
                       dict(bins=5, density=True), dict(bins=np.array([-1.0, 0.0, 0.5, 3.0])),
                       dict(bins=np.array([-1.0, 0.0, 0.5, 3.0]), weight=True, density=True)]:
            if np.isnan(x).any() and "range" not in kwargs and not isinstance(kwargs["bins"], np.ndarray):
                continue  # torch: "range of [nan, nan] is not finite"
            sk, tk = dict(kwargs), dict(kwargs)
            if isinstance(kwargs["bins"], np.ndarray):
                sk["bins"], tk["bins"] = seqlab.tensor(kwargs["bins"].astype(dtype)), torch.tensor(kwargs["bins"].astype(dtype))
            if kwargs.get("weight"):
                sk["weight"], tk["weight"] = seqlab.tensor(w), torch.tensor(w)
            s, t = seqlab.histogram(seqlab.tensor(x), **sk), torch.histogram(torch.tensor(x), **tk)
            assert s.hist.dtype == s.bin_edges.dtype == seqlab.tensor(x).dtype
            hist, edges = s
            assert_close(sl_np(edges), t.bin_edges.numpy(), 0, 0 if dtype == np.float32 else 1e-15,
                         f"histogram edges {kwargs}")
            assert_close(sl_np(hist), t.hist.numpy(), 1e-6, 1e-6, f"histogram {kwargs} of {x[:5]}")


def test_histogram_errors_match_torch():
    x = seqlab.randn(5)
    tx = torch.randn(5)
    assert_raises_like_torch(lambda: seqlab.histc(x, -1), lambda: torch.histc(tx, -1), "bins must be > 0")
    assert_raises_like_torch(lambda: seqlab.histc(x, 5, 2, 1), lambda: torch.histc(tx, 5, 2, 1), "max must be larger")
    assert_raises_like_torch(lambda: seqlab.histc(seqlab.tensor([1.0, float("inf")]), 3),
                             lambda: torch.histc(torch.tensor([1.0, float("inf")]), 3), "not finite")
    assert_raises_like_torch(lambda: seqlab.histc(seqlab.arange(5), 5), lambda: torch.histc(torch.arange(5), 5),
                             "not implemented for 'Long'")
    assert_raises_like_torch(lambda: seqlab.histogram(x, 0), lambda: torch.histogram(tx, 0), "bins must be > 0")
    assert_raises_like_torch(lambda: seqlab.histogram(x, 3, range=(3.0, 1.0)),
                             lambda: torch.histogram(tx, 3, range=(3.0, 1.0)), "min should not exceed max")
    assert_raises_like_torch(lambda: seqlab.histogram(x, 3, weight=seqlab.ones(2)),
                             lambda: torch.histogram(tx, 3, weight=torch.ones(2)), "weight")
    h = seqlab.histc(seqlab.randn(4, requires_grad=True), 3)
    assert not h.requires_grad  # as torch: histc records no derivative


# ---------------------------------------------------------------------------- axis= / keepdims=

AXIS_CALLS = [
    lambda lib, t: lib.sum(t, axis=1), lambda lib, t: t.sum(axis=0, keepdims=True),
    lambda lib, t: lib.mean(t, axis=-1, keepdims=True), lambda lib, t: t.mean(axis=(0, 1)),
    lambda lib, t: t.var(axis=1), lambda lib, t: lib.std(t, axis=0),
    lambda lib, t: t.max(axis=1).values, lambda lib, t: lib.min(t, axis=0).indices,
    lambda lib, t: t.argmax(axis=1), lambda lib, t: lib.argmin(t, axis=0, keepdims=True),
    lambda lib, t: lib.softmax(t, axis=1), lambda lib, t: t.log_softmax(axis=0),
    lambda lib, t: lib.cumsum(t, axis=1), lambda lib, t: t.cumprod(axis=0),
    lambda lib, t: lib.cat([t, t], axis=1), lambda lib, t: lib.stack([t, t], axis=0),
    lambda lib, t: t.unsqueeze(axis=0), lambda lib, t: t.squeeze(axis=0), lambda lib, t: lib.norm(t, dim=1),
    lambda lib, t: t.sort(axis=0).values, lambda lib, t: lib.argsort(t, axis=1),
    lambda lib, t: t.topk(2, axis=0).values, lambda lib, t: t.all(axis=1), lambda lib, t: lib.any(t > 0, axis=0),
    lambda lib, t: t.repeat_interleave(2, axis=1), lambda lib, t: lib.unbind(t, axis=1)[0],
    lambda lib, t: t.index_select(axis=1, index=lib.tensor([0, 2])), lambda lib, t: lib.narrow(t, axis=1, start=0, length=2),
]


@pytest.mark.parametrize("i", range(len(AXIS_CALLS)))
def test_numpy_names_as_torch(rng, i):
    """torch's argument parser takes axis= for dim= and keepdims= for keepdim=; so does seqlab."""
    x = rng.standard_normal((3, 4))
    call = AXIS_CALLS[i]
    t = call(torch, torch.tensor(x))
    s = call(seqlab, seqlab.tensor(x))
    assert tuple(s.shape) == tuple(t.shape)
    assert_close(sl_np(s), t.numpy(), 1e-12, 1e-12)


def test_numpy_names_do_not_hide_errors():
    x = seqlab.ones(2, 3)
    with pytest.raises(IndexError, match="out of range"):
        x.sum(axis=5)
    with pytest.raises(TypeError, match="axis"):
        x.sum(axis=0, dim=1)  # both names: torch refuses it too
    with pytest.raises(TypeError):
        torch.ones(2, 3).sum(axis=0, dim=1)
    with pytest.raises(TypeError, match="foo"):
        x.sum(foo=1)
