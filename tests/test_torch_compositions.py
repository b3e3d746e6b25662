"""torch's compositions against torch 2.13: values and dtypes in float32 and float64, every gradient
(float64 gradcheck), broadcasting, non-contiguous and size-0 inputs, and errors; the random samplers
by their statistics. Covers python/seqlab/_pointwise_extra.py, _compositions.py, _nn_top_level.py,
_random_extra.py and nn/_functional_extra.py."""
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn.functional as F
from conftest import (FLOAT_DTYPES, DTYPE_IDS, assert_gradcheck, assert_matches_torch, assert_raises_like_torch,
                      away_from_zero, randn, sl_np, th_np)

LAYOUTS = ["contig", "T", "slice"]


def same(got, want):
    """Same dtype name, shape and values (NaN equal) for a seqlab and a torch tensor."""
    assert str(got.dtype)[7:] == str(want.dtype)[6:], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(sl_np(got), th_np(want), rtol=1e-6, atol=1e-7, equal_nan=True)


# ------------------------------------------------------------------ pointwise
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_addcmul_addcdiv_match_torch(rng, dtype, layout):
    a, b, c = randn(rng, (3, 4), dtype), randn(rng, (3, 4), dtype), away_from_zero(rng, (3, 4), dtype)
    for name in ("addcmul", "addcdiv"):
        for value in (1, 0.5, -2):
            assert_matches_torch(lambda x, y, z: getattr(seqlab, name)(x, y, z, value=value),
                                 lambda x, y, z: getattr(torch, name)(x, y, z, value=value), [a, b, c], layout=layout)
            assert_matches_torch(lambda x, y, z: getattr(x * 1, name + "_")(y, z, value=value),
                                 lambda x, y, z: getattr(x * 1, name + "_")(y, z, value=value), [a, b, c])
        assert_matches_torch(lambda x, y, z: getattr(x, name)(y, z), lambda x, y, z: getattr(x, name)(y, z),
                             [a[0], b, c[:, :1]])  # broadcast
    assert_gradcheck(lambda x, y, z: seqlab.addcdiv(x, y, z, value=0.3), [a, b, c])
    ints = [seqlab.ones(2, dtype=seqlab.int64)] * 3
    tints = [torch.ones(2, dtype=torch.int64)] * 3
    same(seqlab.addcmul(*ints, value=2), torch.addcmul(*tints, value=2))
    assert_raises_like_torch(lambda: seqlab.addcdiv(*ints), lambda: torch.addcdiv(*tints),
                             "Integer division with addcdiv is no longer supported")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_fmax_fmin_ignore_nan_and_match_torch(rng, dtype):
    a, b = randn(rng, (3, 4), dtype), randn(rng, (4,), dtype)
    a[0, 0], b[1] = np.nan, np.nan
    a[2, 1] = b[1]  # both NaN there
    for name in ("fmax", "fmin"):
        for layout in LAYOUTS:
            assert_matches_torch(lambda x, y: getattr(seqlab, name)(x, y), lambda x, y: getattr(torch, name)(x, y),
                                 [a, b], layout=layout)
        assert_matches_torch(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), [a[:0], b])
        same(getattr(seqlab, name)(seqlab.tensor([1, 5]), seqlab.tensor([2.0, 3.0])),
             getattr(torch, name)(torch.tensor([1, 5]), torch.tensor([2.0, 3.0])))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_frexp_ldexp_match_torch(rng, dtype):
    a = np.concatenate([randn(rng, (6,), dtype) * 100, np.array([0.0, 1.0, -0.5, np.inf], dtype)])
    assert_matches_torch(lambda x: seqlab.frexp(x), lambda x: torch.frexp(x), [a])
    assert_matches_torch(lambda x: x.frexp(), lambda x: x.frexp(), [a[:0]])
    assert_raises_like_torch(lambda: seqlab.frexp(seqlab.tensor([1, 2])), lambda: torch.frexp(torch.tensor([1, 2])),
                             "only supports floating-point dtypes")
    e = np.array([-3, 0, 2, 5, 1, -1, 0, 4, 2, 3])
    assert_matches_torch(lambda x: seqlab.ldexp(x, seqlab.tensor(e)), lambda x: torch.ldexp(x, torch.tensor(e)), [a],
                         grad=False)
    # (torch's gradient is 0 at a negative integer exponent, 2**-3 computed in integers; seqlab's is 2**e)
    assert_matches_torch(lambda x: seqlab.ldexp(x, seqlab.tensor(np.abs(e))),
                         lambda x: torch.ldexp(x, torch.tensor(np.abs(e))), [a])
    assert_gradcheck(lambda x: seqlab.ldexp(x, seqlab.tensor(e[:9])), [a[:9]])
    assert_matches_torch(lambda x, y: x.ldexp(y), lambda x, y: x.ldexp(y), [a[:4], randn(rng, (4,), dtype)])
    s, t = seqlab.tensor(a), torch.tensor(a)
    s.ldexp_(seqlab.tensor(e))
    t.ldexp_(torch.tensor(e))
    same(s, t)
    same(seqlab.ldexp(seqlab.tensor([1, 3]), seqlab.tensor([3, 1])),
         torch.ldexp(torch.tensor([1, 3]), torch.tensor([3, 1])))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_angle_conversions_match_torch(rng, dtype):
    a = randn(rng, (3, 4), dtype) * 90
    for name in ("deg2rad", "rad2deg"):
        for layout in LAYOUTS:
            assert_matches_torch(lambda x: getattr(seqlab, name)(x), lambda x: getattr(torch, name)(x), [a],
                                 layout=layout)
        assert_matches_torch(lambda x: getattr(x * 1, name + "_")(), lambda x: getattr(x * 1, name + "_")(), [a])
        same(getattr(seqlab, name)(seqlab.tensor([180, 0])), getattr(torch, name)(torch.tensor([180, 0])))
        s, t = seqlab.tensor(a), torch.tensor(a)
        assert getattr(seqlab, name + "_")(s) is s
        getattr(torch, name + "_")(t)
        same(s, t)


def test_heaviside_nextafter_gcd_lcm_match_torch(rng):
    x = np.array([-1.5, 0.0, 2.0, 0.0, -0.0, np.nan])
    v = np.array([0.5])
    same(seqlab.heaviside(seqlab.tensor(x), seqlab.tensor(v)), torch.heaviside(torch.tensor(x), torch.tensor(v)))
    same(seqlab.tensor(x).heaviside_(seqlab.tensor(v)), torch.tensor(x).heaviside_(torch.tensor(v)))
    assert_raises_like_torch(lambda: seqlab.heaviside(seqlab.tensor(x), seqlab.tensor([1])),
                             lambda: torch.heaviside(torch.tensor(x), torch.tensor([1])), "different dtypes")
    for dtype in (np.float32, np.float64):
        a, b = randn(rng, (3, 4), dtype), randn(rng, (4,), dtype)
        same(seqlab.nextafter(seqlab.tensor(a), seqlab.tensor(b)), torch.nextafter(torch.tensor(a), torch.tensor(b)))
        same(seqlab.tensor(a).nextafter_(seqlab.tensor(b)), torch.tensor(a).nextafter_(torch.tensor(b)))
    a = rng.integers(-30, 30, size=(3, 4))
    b = rng.integers(-30, 30, size=(4,))
    for name in ("gcd", "lcm"):
        for dt in ("int64", "int32", "int16"):
            s = getattr(seqlab, name)(seqlab.tensor(a).to(getattr(seqlab, dt)),
                                      seqlab.tensor(b).to(getattr(seqlab, dt)))
            t = getattr(torch, name)(torch.tensor(a).to(getattr(torch, dt)), torch.tensor(b).to(getattr(torch, dt)))
            same(s, t)
        s, t = seqlab.tensor(a), torch.tensor(a)
        getattr(seqlab, name + "_")(s, seqlab.tensor(b))
        getattr(torch, name + "_")(t, torch.tensor(b))
        same(s, t)
        assert_raises_like_torch(lambda: getattr(seqlab, name)(seqlab.ones(2), seqlab.ones(2)),
                                 lambda: getattr(torch, name)(torch.ones(2), torch.ones(2)),
                                 "not implemented for 'Float'")


def test_isin_isneginf_isposinf_rsub_scalar_tensor_match_torch(rng):
    a, t = rng.integers(0, 6, size=(3, 4)), np.array([1, 3, 7])
    for invert in (False, True):
        same(seqlab.isin(seqlab.tensor(a), seqlab.tensor(t), invert=invert),
             torch.isin(torch.tensor(a), torch.tensor(t), invert=invert))
    same(seqlab.isin(seqlab.tensor(a), 3), torch.isin(torch.tensor(a), 3))
    same(seqlab.isin(3, seqlab.tensor(t)), torch.isin(3, torch.tensor(t)))
    same(seqlab.isin(seqlab.tensor(a[:0]), seqlab.tensor(t)), torch.isin(torch.tensor(a[:0]), torch.tensor(t)))
    x = np.array([-np.inf, np.inf, 1.0, np.nan])
    for name in ("isneginf", "isposinf"):
        same(getattr(seqlab, name)(seqlab.tensor(x)), getattr(torch, name)(torch.tensor(x)))
        same(getattr(seqlab.tensor([1, 2]), name)(), getattr(torch.tensor([1, 2]), name)())
    b, c = randn(rng, (3, 4), np.float64), randn(rng, (4,), np.float64)
    assert_matches_torch(lambda x, y: seqlab.rsub(x, y, alpha=2), lambda x, y: torch.rsub(x, y, alpha=2), [b, c])
    assert_matches_torch(lambda x: seqlab.rsub(x, 5), lambda x: torch.rsub(x, 5), [b], layout="T")
    for value, kwargs in ((3, {}), (2.5, {}), (True, {}), (3, {"dtype": "int64"}), (1.5, {"dtype": "float64"})):
        got = seqlab.scalar_tensor(value, **{k: getattr(seqlab, v) for k, v in kwargs.items()})
        want = torch.scalar_tensor(value, **{k: getattr(torch, v) for k, v in kwargs.items()})
        same(got, want)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_shrink_activations_match_torch(rng, dtype):
    a = randn(rng, (3, 5), dtype)
    for lambd in (0.5, 0.0, 1.2):
        for layout in LAYOUTS:
            for name in ("hardshrink", "softshrink"):
                assert_matches_torch(lambda x: getattr(F, name)(x, lambd), lambda x: getattr(TF, name)(x, lambd), [a],
                                     layout=layout)
        assert_matches_torch(lambda x: seqlab.hardshrink(x, lambd), lambda x: torch.hardshrink(x, lambd), [a])
        assert_matches_torch(lambda x: x.hardshrink(lambd), lambda x: x.hardshrink(lambd), [a[:0]])
    assert_raises_like_torch(lambda: F.softshrink(seqlab.tensor(a), -1), lambda: TF.softshrink(torch.tensor(a), -1),
                             "lambda must be in range")
    assert_raises_like_torch(lambda: F.hardshrink(seqlab.tensor([1]), 0.5),
                             lambda: TF.hardshrink(torch.tensor([1]), 0.5),
                             "not implemented for 'Long'")


# ------------------------------------------------------------------ products, shapes, statistics
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_inner_vdot_diagflat_dsplit_match_torch(rng, dtype):
    a, b = randn(rng, (2, 3, 4), dtype), randn(rng, (5, 4), dtype)
    for layout in LAYOUTS:
        assert_matches_torch(lambda x, y: seqlab.inner(x, y), lambda x, y: torch.inner(x, y), [a, b], layout=layout)
    assert_matches_torch(lambda x, y: x.inner(y), lambda x, y: x.inner(y), [np.array(2.0, dtype), b])
    assert_matches_torch(lambda x, y: seqlab.vdot(x, y), lambda x, y: torch.vdot(x, y), [b[0], b[1]])
    assert_matches_torch(lambda x, y: x.vdot(y), lambda x, y: x.vdot(y), [b[0, :0], b[1, :0]])
    for offset in (0, 1, -2):
        assert_matches_torch(lambda x: seqlab.diagflat(x, offset), lambda x: torch.diagflat(x, offset), [b],
                             layout="T")
    assert_matches_torch(lambda x: x.dsplit(2), lambda x: x.dsplit(2), [a])
    assert_matches_torch(lambda x: seqlab.dsplit(x, [1, 3]), lambda x: torch.dsplit(x, [1, 3]), [a])
    for fn_s, fn_t, fragment in (
            (lambda: seqlab.inner(seqlab.ones(3), seqlab.ones(4)), lambda: torch.inner(torch.ones(3), torch.ones(4)),
             "the last dimension must match"),
            (lambda: seqlab.vdot(seqlab.ones(2, 2), seqlab.ones(2, 2)),
             lambda: torch.vdot(torch.ones(2, 2), torch.ones(2, 2)), "1D tensors expected"),
            (lambda: seqlab.vdot(seqlab.ones(3), seqlab.ones(2)), lambda: torch.vdot(torch.ones(3), torch.ones(2)),
             "inconsistent tensor size"),
            (lambda: seqlab.dsplit(seqlab.ones(2, 3), 2), lambda: torch.dsplit(torch.ones(2, 3), 2),
             "requires a tensor with at least 3 dimension")):
        assert_raises_like_torch(fn_s, fn_t, fragment)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_cov_corrcoef_match_torch(rng, dtype):
    a = randn(rng, (3, 6), dtype)
    fw = rng.integers(1, 4, size=6)
    aw = rng.uniform(0.2, 2.0, size=6).astype(dtype)
    for correction in (0, 1, 2):
        assert_matches_torch(lambda x: seqlab.cov(x, correction=correction),
                             lambda x: torch.cov(x, correction=correction), [a], layout="T")
        assert_matches_torch(lambda x, w: seqlab.cov(x, correction=correction, fweights=seqlab.tensor(fw), aweights=w),
                             lambda x, w: torch.cov(x, correction=correction, fweights=torch.tensor(fw), aweights=w),
                             [a, aw])
    assert_matches_torch(lambda x: x.cov(), lambda x: x.cov(), [a[0]])
    assert_matches_torch(lambda x: seqlab.corrcoef(x), lambda x: torch.corrcoef(x), [a])
    assert_matches_torch(lambda x: x.corrcoef(), lambda x: x.corrcoef(), [a[:1]])
    assert_gradcheck(lambda x: seqlab.corrcoef(x), [a])
    same(seqlab.cov(seqlab.tensor([[1, 2, 4]])), torch.cov(torch.tensor([[1, 2, 4]])))
    assert_raises_like_torch(lambda: seqlab.cov(seqlab.ones(2, 2, 2)), lambda: torch.cov(torch.ones(2, 2, 2)),
                             "expected input to have two or fewer dimensions")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_trapezoid_family_matches_torch(rng, dtype):
    y = randn(rng, (3, 5), dtype)
    xs = np.sort(rng.uniform(0, 4, size=5)).astype(dtype)
    for name in ("trapezoid", "trapz", "cumulative_trapezoid"):
        for layout in LAYOUTS:
            assert_matches_torch(lambda a: getattr(seqlab, name)(a), lambda a: getattr(torch, name)(a), [y],
                                 layout=layout)
        assert_matches_torch(lambda a: getattr(seqlab, name)(a, dx=0.5, dim=0),
                             lambda a: getattr(torch, name)(a, dx=0.5, dim=0), [y])
        assert_matches_torch(lambda a, x: getattr(seqlab, name)(a, x), lambda a, x: getattr(torch, name)(a, x),
                             [y, xs])
        assert_matches_torch(lambda a: getattr(seqlab, name)(a), lambda a: getattr(torch, name)(a), [y[:, :0]])
    assert_gradcheck(lambda a, x: seqlab.trapezoid(a, x), [y, xs])
    same(seqlab.trapezoid(seqlab.tensor([1, 2, 3])), torch.trapezoid(torch.tensor([1, 2, 3])))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_gradient_matches_torch(rng, dtype):
    f = randn(rng, (4, 5), dtype)
    coords = [np.sort(rng.uniform(0, 3, size=n)).astype(dtype) for n in (4, 5)]
    for edge_order in (1, 2):
        for kwargs in ({}, {"spacing": 2.0}, {"spacing": [0.5], "dim": 1}, {"dim": [0]}, {"spacing": [1.5, 3.0]}):
            assert_matches_torch(lambda a: seqlab.gradient(a, edge_order=edge_order, **kwargs),
                                 lambda a: torch.gradient(a, edge_order=edge_order, **kwargs), [f], layout="T")
        assert_matches_torch(
            lambda a, x0, x1: seqlab.gradient(a, spacing=(x0, x1), edge_order=edge_order),
            lambda a, x0, x1: torch.gradient(a, spacing=(x0, x1), edge_order=edge_order), [f] + coords, grad=False,
            atol=1e-4 if dtype == np.float32 else 1e-9)
    assert_gradcheck(lambda a: seqlab.gradient(a, edge_order=2)[1], [f])
    assert_raises_like_torch(lambda: seqlab.gradient(seqlab.ones(2), edge_order=2),
                             lambda: torch.gradient(torch.ones(2), edge_order=2), "at least edge_order\\+1")


def test_vander_and_index_helpers_match_torch(rng):
    for x in ([1, 2, 3], [1.5, -2.0, 0.0, 3.0]):
        for kwargs in ({}, {"N": 2}, {"N": 5, "increasing": True}, {"N": 0}):
            same(seqlab.vander(seqlab.tensor(x), **kwargs), torch.vander(torch.tensor(x), **kwargs))
    v = randn(rng, (3,), np.float64)
    # (torch's own backward of vander fails, a cumprod it modified in place; seqlab's is gradchecked)
    assert_matches_torch(lambda x: seqlab.vander(x, 4), lambda x: torch.vander(x, 4), [v], grad=False)
    assert_gradcheck(lambda x: seqlab.vander(x, 4, increasing=True), [v])
    assert_raises_like_torch(lambda: seqlab.vander(seqlab.ones(2, 2)), lambda: torch.vander(torch.ones(2, 2)),
                             "x must be a one-dimensional tensor")
    for name in ("tril_indices", "triu_indices"):
        for args in ((3, 3), (3, 5, 1), (4, 2, -1), (0, 3), (3, 3, 10)):
            same(getattr(seqlab, name)(*args), getattr(torch, name)(*args))
        same(getattr(seqlab, name)(3, 3, dtype=seqlab.int32), getattr(torch, name)(3, 3, dtype=torch.int32))
    for idx, shape in (([5, 3, 0], (2, 3)), ([[7, 1], [2, 23]], (2, 3, 4)), ([-1], (4,)), (4, (2, 3))):
        got = seqlab.unravel_index(seqlab.tensor(idx), shape)
        want = torch.unravel_index(torch.tensor(idx), shape)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_scatter_views_match_torch(rng, dtype):
    a = randn(rng, (4, 5), dtype)
    cases = [
        ("diagonal_scatter", (1, 0, 1), randn(rng, (4,), dtype)),
        ("diagonal_scatter", (-1,), randn(rng, (3,), dtype)),
        ("select_scatter", (1, 2), randn(rng, (4,), dtype)),
        ("slice_scatter", (0, 1, None, 2), randn(rng, (2, 5), dtype)),
        ("slice_scatter", (1, 1, 4), randn(rng, (4, 3), dtype)),
    ]
    for name, args, src in cases:
        for layout in LAYOUTS:
            assert_matches_torch(lambda x, s: getattr(seqlab, name)(x, s, *args),
                                 lambda x, s: getattr(torch, name)(x, s, *args), [a, src], layout=layout)
        assert_matches_torch(lambda x, s: getattr(x, name)(s, *args), lambda x, s: getattr(x, name)(s, *args),
                             [a, src])
        assert_gradcheck(lambda x, s: getattr(seqlab, name)(x, s, *args), [a, src])
    assert_raises_like_torch(lambda: seqlab.select_scatter(seqlab.zeros(2, 2), seqlab.ones(3), 0, 0),
                             lambda: torch.select_scatter(torch.zeros(2, 2), torch.ones(3), 0, 0),
                             "expected src to have a size equal to the slice of self")


COPIES = [
    ("alias_copy", ()), ("detach_copy", ()), ("diagonal_copy", (1,)), ("expand_copy", ((2, 3, 4, 5),)),
    ("permute_copy", ((2, 0, 1),)), ("select_copy", (1, 2)), ("slice_copy", (2, 1, 4, 2)), ("split_copy", (2, 1)),
    ("split_with_sizes_copy", ([1, 4], 2)), ("squeeze_copy", ()), ("t_copy", None), ("transpose_copy", (0, 2)),
    ("unbind_copy", (1,)), ("unfold_copy", (2, 2, 1)), ("unsqueeze_copy", (1,)), ("view_copy", ((12, 5),)),
    ("narrow_copy", (1, 1, 2)),
]


@pytest.mark.parametrize("name,args", COPIES, ids=[c[0] for c in COPIES])
def test_copy_ops_match_torch_and_do_not_share_memory(rng, name, args):
    a = randn(rng, (3, 4, 5), np.float64) if args is not None else randn(rng, (4, 5), np.float64)
    args = args or ()
    if name in ("squeeze_copy", "expand_copy"):
        a = a[None]
    out = assert_matches_torch(lambda x: getattr(seqlab, name)(x, *args), lambda x: getattr(torch, name)(x, *args),
                               [a], grad=name != "detach_copy")
    leaf = seqlab.tensor(a)
    first = getattr(seqlab, name)(leaf, *args)
    first = first[0] if isinstance(first, tuple) else first
    if first.numel():
        first.fill_(123.0)
        assert not np.any(sl_np(leaf) == 123.0)
    del out


def test_asarray_and_frombuffer_match_torch():
    arr = np.arange(6, dtype=np.float32)
    s, t = seqlab.asarray(arr), torch.asarray(arr)
    arr[0] = 9.0
    assert s[0].item() == t[0].item() == 9.0  # shared
    assert seqlab.asarray(arr, copy=True)[0].item() == 9.0
    c = seqlab.asarray(arr, copy=True)
    arr[1] = 7.0
    assert c[1].item() == 1.0
    same(seqlab.asarray([[1, 2], [3, 4]]), torch.asarray([[1, 2], [3, 4]]))
    same(seqlab.asarray([1.5, 2.0], dtype=seqlab.float64), torch.asarray([1.5, 2.0], dtype=torch.float64))
    x = seqlab.ones(3)
    assert seqlab.asarray(x) is x and seqlab.asarray(x, dtype=seqlab.int64).dtype == seqlab.int64
    with pytest.raises(ValueError):
        seqlab.asarray([1, 2], copy=False)
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    for kwargs in ({}, {"count": 2}, {"offset": 4}, {"count": 1, "offset": 8}):
        same(seqlab.frombuffer(buf, dtype=seqlab.int32, **kwargs), torch.frombuffer(buf, dtype=torch.int32, **kwargs))
    shared = seqlab.frombuffer(buf, dtype=seqlab.int32)
    buf[0] = 42
    assert shared[0].item() == 42
    assert_raises_like_torch(lambda: seqlab.frombuffer(buf, dtype=seqlab.int32, count=9),
                             lambda: torch.frombuffer(buf, dtype=torch.int32, count=9), "must not be greater")


# ------------------------------------------------------------------ torch's top-level nn functions
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_top_level_nn_functions_match_torch(rng, dtype):
    x, y = randn(rng, (3, 4), dtype), randn(rng, (3, 4), dtype)
    prob = rng.uniform(0.1, 0.9, size=(3, 4)).astype(dtype)
    sign = np.where(rng.random(3) > 0.5, 1.0, -1.0).astype(dtype)
    seq = randn(rng, (2, 3, 8), dtype)
    cases = [
        ("layer_norm", lambda m, a: m.layer_norm(a, [4]), [x]),
        ("layer_norm w", lambda m, a, w, b: m.layer_norm(a, [4], w, b, 1e-3), [x, y[0], y[1]]),
        ("rms_norm", lambda m, a: m.rms_norm(a, [4]), [x]),
        ("batch_norm", lambda m, a, w, b: m.batch_norm(a, w, b, None, None, True, 0.1, 1e-5, False), [x, y[0], y[1]]),
        ("bilinear", lambda m, a, b, w: m.bilinear(a, b, w), [x, y, randn(rng, (2, 4, 4), dtype)]),
        ("prelu", lambda m, a: m.prelu(a, m.tensor([0.25], dtype=a.dtype)), [x]),
        ("celu", lambda m, a: m.celu(a, 0.7), [x]),
        ("selu", lambda m, a: m.selu(a), [x]),
        ("threshold", lambda m, a: m.threshold(a, 0.1, 2.0), [x]),
        ("kl_div", lambda m, a, b: m.kl_div(a, b), [x, prob]),
        ("kl_div mean", lambda m, a, b: m.kl_div(a, b, 1), [x, prob]),
        ("kl_div log", lambda m, a, b: m.kl_div(a, b, 2, log_target=True), [x, y]),
        ("bce logits", lambda m, a, b: m.binary_cross_entropy_with_logits(a, b), [x, prob]),
        ("bce logits w", lambda m, a, b: m.binary_cross_entropy_with_logits(a, b, None, m.tensor(prob[0]), 1),
         [x, prob]),
        ("cosine_similarity", lambda m, a, b: m.cosine_similarity(a, b), [x, y]),
        ("pairwise_distance", lambda m, a, b: m.pairwise_distance(a, b, 3, 1e-6, True), [x, y]),
        ("pdist", lambda m, a: m.pdist(a), [x]),
        ("cosine_embedding_loss", lambda m, a, b: m.cosine_embedding_loss(a, b, m.tensor(sign), 0.1, 1), [x, y]),
        ("hinge_embedding_loss", lambda m, a: m.hinge_embedding_loss(a, m.tensor(np.sign(y))), [x]),
        ("margin_ranking_loss", lambda m, a, b: m.margin_ranking_loss(a, b, m.tensor(sign), 0.2, 2),
         [x[:, 0], y[:, 0]]),
        ("triplet_margin_loss", lambda m, a, b, c: m.triplet_margin_loss(a, b, c), [x, y, prob]),
        ("poisson_nll_loss", lambda m, a, b: m.poisson_nll_loss(a, b, True, True, 1e-8, 1), [x, prob]),
        ("constant_pad_nd", lambda m, a: m.constant_pad_nd(a, [1, 2, 0, 1], 0.5), [x]),
        ("avg_pool1d", lambda m, a: m.avg_pool1d(a, 3, 2, 1), [seq]),
        ("max_pool1d", lambda m, a: m.max_pool1d(a, 2), [seq]),
        ("max_pool2d", lambda m, a: m.max_pool2d(a, 2, 1), [seq]),
        ("max_pool1d_with_indices", lambda m, a: m.max_pool1d_with_indices(a, 3, 2), [seq]),
        ("adaptive_avg_pool1d", lambda m, a: m.adaptive_avg_pool1d(a, 3), [seq]),
        ("adaptive_max_pool1d", lambda m, a: m.adaptive_max_pool1d(a, 3), [seq]),
        ("adaptive_max_pool1d 5", lambda m, a: m.adaptive_max_pool1d(a, 5), [seq]),
        ("conv1d", lambda m, a, w: m.conv1d(a, w, None, 1, 1), [seq, randn(rng, (4, 3, 2), dtype)]),
        ("dropout eval", lambda m, a: m.dropout(a, 0.5, False), [x]),
        ("embedding", lambda m, w: m.embedding(w, m.tensor([[1, 0], [3, 3]])), [randn(rng, (5, 2), dtype)]),
        ("embedding pad", lambda m, w: m.embedding(w, m.tensor([1, 0, 3]), 0), [randn(rng, (5, 2), dtype)]),
    ]
    for what, fn, inputs in cases:  # (float64: the composed losses round differently in the 9th digit)
        assert_matches_torch(lambda *a: fn(seqlab, *a), lambda *a: fn(torch, *a), inputs,
                             atol=1e-5 if dtype == np.float32 else 1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_matches_torch(lambda a: seqlab.frobenius_norm(a, (0, 1)), lambda a: torch.frobenius_norm(a, (0, 1)), [x])
        assert_matches_torch(lambda a: seqlab.frobenius_norm(a, 1, True), lambda a: torch.frobenius_norm(a, 1, True),
                             [x])
    with pytest.warns(UserWarning, match="frobenius_norm is deprecated"):
        seqlab.frobenius_norm(seqlab.ones(2), 0)
    for name in ("celu_", "selu_", "threshold_"):
        args = (0.1, 2.0) if name == "threshold_" else ()
        s, t = seqlab.tensor(x), torch.tensor(x)
        assert getattr(seqlab, name)(s, *args) is s
        getattr(torch, name)(t, *args)
        same(s, t)
    assert_raises_like_torch(lambda: seqlab.kl_div(seqlab.tensor(x), seqlab.tensor(y), "mean"),
                             lambda: torch.kl_div(torch.tensor(x), torch.tensor(y), "mean"),
                             "argument 'reduction' must be int, not str")
    assert_raises_like_torch(lambda: seqlab.dropout(seqlab.tensor(x), 0.5), lambda: torch.dropout(torch.tensor(x), 0.5),
                             "missing 1 required positional argument")


def test_dropout_family_statistics():
    x = seqlab.ones(400, 50, dtype=seqlab.float64)
    out = seqlab.dropout(x, 0.3, True)
    kept = (out != 0).to(seqlab.float64).mean().item()
    assert abs(kept - 0.7) < 0.02 and set(np.unique(sl_np(out)).round(6)) <= {0.0, round(1 / 0.7, 6)}
    out = seqlab.feature_dropout(seqlab.ones(200, 30, 6), 0.4, True)
    rows = sl_np(out)
    assert np.all(rows.min(-1) == rows.max(-1))  # one draw per channel
    assert abs((rows[..., 0] != 0).mean() - 0.6) < 0.03
    z = seqlab.randn(500, 400, dtype=seqlab.float64)
    for fn in (seqlab.alpha_dropout, F.alpha_dropout):
        a = fn(z, 0.2, True)
        assert abs(a.mean().item()) < 0.02 and abs(a.std().item() - 1.0) < 0.02  # SELU's fixed point is kept
    fa = sl_np(seqlab.feature_alpha_dropout(seqlab.zeros(300, 20, 5), 0.5, True))
    assert np.all(fa.min(-1) == fa.max(-1)) and len(np.unique(fa.round(6))) == 2
    for fn in (seqlab.alpha_dropout, seqlab.feature_dropout, seqlab.feature_alpha_dropout):
        assert fn(z, 0.5, False) is z
        same(fn(seqlab.ones(2, 3), 1.0, True), torch.zeros(2, 3))
    y = seqlab.ones(4, 5, requires_grad=True)
    h = y * 2
    seqlab.dropout_(h, 0.5, True).sum().backward()
    assert set(np.unique(sl_np(y.grad))) <= {0.0, 4.0}
    assert_raises_like_torch(lambda: seqlab.alpha_dropout(seqlab.ones(2), 1.5, True),
                             lambda: torch.alpha_dropout(torch.ones(2), 1.5, True), "dropout probability has to be")


# ------------------------------------------------------------------ random samplers
def _ks_statistic(samples, cdf):
    s = np.sort(samples)
    n = len(s)
    c = cdf(s)
    return max(np.max(np.arange(1, n + 1) / n - c), np.max(c - np.arange(n) / n))


def test_random_fills_follow_their_distributions():
    n = 20000
    c = sl_np(seqlab.empty(n, dtype=seqlab.float64).cauchy_(1.0, 2.0))
    assert _ks_statistic(c, lambda v: 0.5 + np.arctan((v - 1.0) / 2.0) / np.pi) < 0.015
    g = sl_np(seqlab.empty(n).geometric_(0.3))
    assert g.min() >= 1 and np.all(g == np.round(g))
    assert abs(g.mean() - 1 / 0.3) < 0.1 and abs((g == 1).mean() - 0.3) < 0.015
    ln = sl_np(seqlab.empty(n, dtype=seqlab.float64).log_normal_(0.5, 0.4))
    assert ln.min() > 0 and abs(np.log(ln).mean() - 0.5) < 0.015 and abs(np.log(ln).std() - 0.4) < 0.015
    seqlab.manual_seed(3)
    first = sl_np(seqlab.empty(5).cauchy_())
    seqlab.manual_seed(3)
    assert np.array_equal(first, sl_np(seqlab.empty(5).cauchy_()))  # seqlab's generator drives them
    gen = seqlab.Generator().manual_seed(7)
    again = seqlab.Generator().manual_seed(7)
    assert np.array_equal(sl_np(seqlab.empty(4).geometric_(0.5, generator=gen)),
                          sl_np(seqlab.empty(4).geometric_(0.5, generator=again)))
    for call_s, call_t, fragment in (
            (lambda: seqlab.ones(3).geometric_(1.5), lambda: torch.ones(3).geometric_(1.5), "expects p to be in"),
            (lambda: seqlab.ones(3).cauchy_(0, 0), lambda: torch.ones(3).cauchy_(0, 0), "expects sigma > 0.0"),
            (lambda: seqlab.ones(3).log_normal_(1, -1), lambda: torch.ones(3).log_normal_(1, -1), "expects std > 0.0"),
            (lambda: seqlab.ones(3, dtype=seqlab.int64).cauchy_(), lambda: torch.ones(3, dtype=torch.int64).cauchy_(),
             "continuous probability distribution"),
            (lambda: seqlab.ones(3, dtype=seqlab.int64).log_normal_(),
             lambda: torch.ones(3, dtype=torch.int64).log_normal_(), "not implemented for 'Long'")):
        assert_raises_like_torch(call_s, call_t, fragment)


def test_binomial_and_poisson_follow_their_distributions():
    count = seqlab.full((20000,), 12.0)
    prob = seqlab.full((20000,), 0.25)
    b = sl_np(seqlab.binomial(count, prob))
    assert b.dtype == np.float32 and b.min() >= 0 and b.max() <= 12
    assert abs(b.mean() - 3.0) < 0.05 and abs(b.var() - 12 * 0.25 * 0.75) < 0.1
    same(seqlab.binomial(seqlab.tensor([0.0, 5.0]), seqlab.tensor([0.3, 1.0])),
         torch.binomial(torch.tensor([0.0, 5.0]), torch.tensor([0.3, 1.0])))
    rates = seqlab.tensor([0.5, 4.0, 30.0], dtype=seqlab.float64).expand(8000, 3)
    p = sl_np(seqlab.poisson(rates))
    assert np.allclose(p.mean(0), [0.5, 4.0, 30.0], rtol=0.05) and np.allclose(p.var(0), [0.5, 4.0, 30.0], rtol=0.1)
    r = seqlab.tensor([2.0, 3.0], requires_grad=True)
    seqlab.poisson(r).sum().backward()
    assert r.grad.tolist() == [0.0, 0.0]  # torch's gradient of poisson is zero
    seqlab.manual_seed(5)
    first = seqlab.poisson(seqlab.full((6,), 3.0)).tolist()
    seqlab.manual_seed(5)
    assert seqlab.poisson(seqlab.full((6,), 3.0)).tolist() == first
    assert_raises_like_torch(lambda: seqlab.binomial(seqlab.tensor([10]), seqlab.tensor([0.5])),
                             lambda: torch.binomial(torch.tensor([10]), torch.tensor([0.5])),
                             "binomial only supports floating-point dtypes for count")
    assert_raises_like_torch(lambda: seqlab.poisson(seqlab.tensor([-1.0])), lambda: torch.poisson(torch.tensor([-1.0])),
                             "invalid Poisson rate")
    assert math.isfinite(float(seqlab.poisson(seqlab.zeros(1)).item()))


# ------------------------------------------------------------------ review fixes: kl_div, hinge_embedding_loss, tril/triu_indices
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_kl_div_of_a_negative_target_is_nan_like_torch(dtype):
    x, y = np.array([-1.0, -0.5, -2.0], dtype), np.array([-0.2, 0.0, 0.3], dtype)
    for reduction in ("none", "sum", "batchmean"):
        s = F.kl_div(seqlab.tensor(x), seqlab.tensor(y), reduction=reduction)
        t = TF.kl_div(torch.tensor(x), torch.tensor(y), reduction=reduction)
        np.testing.assert_allclose(sl_np(s), th_np(t), rtol=1e-6)  # NaN where torch's is NaN
    for reduction in (0, 2):
        s = seqlab.kl_div(seqlab.tensor(x), seqlab.tensor(y), reduction)
        t = torch.kl_div(torch.tensor(x), torch.tensor(y), reduction)
        np.testing.assert_allclose(sl_np(s), th_np(t), rtol=1e-6)
    assert np.isnan(sl_np(F.kl_div(seqlab.tensor(x), seqlab.tensor(y), reduction="sum")))


def test_hinge_embedding_loss_keeps_an_integer_input_dtype_like_torch():
    x, y = np.array([1, 2, 0, 5]), np.array([-1, -1, -1, 1])
    for dtype in ("int64", "int32"):
        for margin in (1.0, 1.5, 2.7):
            for reduction in ("none", "sum"):
                s = F.hinge_embedding_loss(seqlab.tensor(x).to(getattr(seqlab, dtype)), seqlab.tensor(y), margin,
                                           reduction=reduction)
                t = TF.hinge_embedding_loss(torch.tensor(x).to(getattr(torch, dtype)), torch.tensor(y), margin,
                                            reduction=reduction)
                same(s, t)
    same(seqlab.hinge_embedding_loss(seqlab.tensor(x), seqlab.tensor(y), 1.0, 2),
                torch.hinge_embedding_loss(torch.tensor(x), torch.tensor(y), 1.0, 2))
    assert_raises_like_torch(lambda: F.hinge_embedding_loss(seqlab.tensor(x), seqlab.tensor(y)),
                             lambda: TF.hinge_embedding_loss(torch.tensor(x), torch.tensor(y)),
                             "mean\\(\\): could not infer output dtype")
    assert_matches_torch(lambda a, b: F.hinge_embedding_loss(a, b), lambda a, b: TF.hinge_embedding_loss(a, b),
                         [x.astype(np.float32), y])


def test_tril_and_triu_indices_refuse_an_overflowing_size_up_front_like_torch():
    for name in ("tril_indices", "triu_indices"):
        for r, c, o in ((0, 0, 0), (1, 1, 0), (3, 5, -1), (5, 3, 1), (4, 4, -6), (4, 4, 6), (6, 2, 0), (2, 6, -1)):
            for dtype in ("int64", "int32"):
                s = getattr(seqlab, name)(r, c, o, dtype=getattr(seqlab, dtype))
                t = getattr(torch, name)(r, c, o, dtype=getattr(torch, dtype))
                same(s, t)
        for dtype in ("int64", "int32"):
            assert_raises_like_torch(lambda: getattr(seqlab, name)(2 ** 31, 2 ** 31, dtype=getattr(seqlab, dtype)),
                                     lambda: getattr(torch, name)(2 ** 31, 2 ** 31, dtype=getattr(torch, dtype)),
                                     "Storage size calculation overflowed with sizes=\\[2, 2305843010287435776\\]")
    # a huge matrix with an empty (or tiny) triangle is built without a row x col mask
    assert tuple(seqlab.tril_indices(10 ** 7, 10 ** 7, -10 ** 7).shape) == (2, 0)
    assert seqlab.triu_indices(10 ** 6, 10 ** 6, 10 ** 6 - 1).tolist() == [[0], [10 ** 6 - 1]]


# ------------------------------------------------------------------ top-level forms: group_norm, instance_norm, rrelu, conv_transpose, ...
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_group_and_instance_norm_top_level_forms_match_torch(rng, dtype):
    x, w, b = randn(rng, (2, 4, 5), dtype), randn(rng, (4,), dtype), randn(rng, (4,), dtype)
    for layout in LAYOUTS:
        assert_matches_torch(lambda a, c, d: seqlab.group_norm(a, 2, c, d, 1e-5, True),
                             lambda a, c, d: torch.group_norm(a, 2, c, d, 1e-5, True), [x, w, b], layout=layout)
        assert_matches_torch(lambda a: seqlab.group_norm(a, 4), lambda a: torch.group_norm(a, 4), [x], layout=layout)
        assert_matches_torch(lambda a, c, d: seqlab.instance_norm(a, c, d, None, None, True, 0.1, 1e-5, True),
                             lambda a, c, d: torch.instance_norm(a, c, d, None, None, True, 0.1, 1e-5, True),
                             [x, w, b], layout=layout)
    rm, rv = np.zeros(4, dtype), np.ones(4, dtype) * 2
    assert_matches_torch(lambda a: seqlab.instance_norm(a, None, None, seqlab.tensor(rm), seqlab.tensor(rv), False,
                                                        0.1, 1e-5, False),
                         lambda a: torch.instance_norm(a, None, None, torch.tensor(rm), torch.tensor(rv), False,
                                                       0.1, 1e-5, False), [x])
    assert_gradcheck(lambda a, c, d: seqlab.group_norm(a, 2, c, d), [x, w, b])
    assert_raises_like_torch(lambda: seqlab.group_norm(seqlab.tensor(x), 3), lambda: torch.group_norm(torch.tensor(x), 3),
                             "Expected number of channels in input to be divisible by num_groups")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_rrelu_conv_transpose_detach_top_level_forms_match_torch(rng, dtype):
    x = randn(rng, (3, 4), dtype)
    for layout in LAYOUTS:
        assert_matches_torch(lambda a: seqlab.rrelu(a, 0.1, 0.3), lambda a: torch.rrelu(a, 0.1, 0.3), [x], layout=layout)
        assert_matches_torch(lambda a: seqlab.rrelu(a, generator=None), lambda a: torch.rrelu(a, generator=None), [x],
                             layout=layout)
    s, t = seqlab.tensor(x), torch.tensor(x)
    assert seqlab.rrelu_(s) is s and torch.rrelu_(t) is t
    np.testing.assert_allclose(sl_np(s), th_np(t), rtol=1e-6)
    assert_raises_like_torch(lambda: seqlab.rrelu(seqlab.tensor(x), generator=1),
                             lambda: torch.rrelu(torch.tensor(x), generator=1), "must be torch.Generator, not int")
    with pytest.raises(NotImplementedError, match="generator"):
        seqlab.rrelu(seqlab.tensor(x), training=True, generator=seqlab.Generator())
    trained = seqlab.rrelu(seqlab.tensor(x), 0.1, 0.3, True)
    ratio = sl_np(trained)[x < 0] / x[x < 0]
    assert ((ratio >= 0.1 - 1e-6) & (ratio <= 0.3 + 1e-6)).all()
    inp, w1, w2 = randn(rng, (2, 4, 5), dtype), randn(rng, (4, 3, 2), dtype), randn(rng, (4, 2, 2, 3), dtype)
    bias = randn(rng, (6,), dtype)
    assert_matches_torch(lambda a, w, b: seqlab.conv_transpose1d(a, w, b, 2, 1, 1, 2, 1),
                         lambda a, w, b: torch.conv_transpose1d(a, w, b, 2, 1, 1, 2, 1), [inp, w1, bias])
    assert_matches_torch(lambda a, w: seqlab.conv_transpose2d(a, w, stride=(2, 1), dilation=2),
                         lambda a, w: torch.conv_transpose2d(a, w, stride=(2, 1), dilation=2),
                         [randn(rng, (2, 4, 3, 5), dtype), w2])
    assert_gradcheck(lambda a, w: seqlab.conv_transpose1d(a, w, stride=2), [inp, randn(rng, (4, 3, 2), dtype)])
    leaf = seqlab.tensor(x, requires_grad=True)
    d = seqlab.detach(leaf * 2)
    assert not d.requires_grad and not torch.detach(torch.tensor(x, requires_grad=True) * 2).requires_grad
    y = leaf * 2
    assert seqlab.detach_(y) is y and not y.requires_grad


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_chain_matmul_and_nuclear_norm_warn_and_match_torch(rng, dtype):
    a, b, c = randn(rng, (2, 5), dtype), randn(rng, (5, 3), dtype), randn(rng, (3, 4), dtype)
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        seqlab.chain_matmul(seqlab.tensor(a), seqlab.tensor(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for layout in LAYOUTS:
            assert_matches_torch(lambda *m: seqlab.chain_matmul(*m), lambda *m: torch.chain_matmul(*m), [a, b, c],
                                 layout=layout)
        assert_matches_torch(lambda m: seqlab.chain_matmul(m), lambda m: torch.chain_matmul(m), [a])
        assert_gradcheck(lambda *m: seqlab.chain_matmul(*m), [a, b, c])
        assert_raises_like_torch(lambda: seqlab.chain_matmul(seqlab.ones(2, 2, 2)),
                                 lambda: torch.chain_matmul(torch.ones(2, 2, 2)), "Tensor dimension is 3, expected 2")
        x = randn(rng, (2, 3, 4), dtype)
        for layout in LAYOUTS:
            assert_matches_torch(lambda m: seqlab.nuclear_norm(m), lambda m: torch.nuclear_norm(m), [x], layout=layout)
            assert_matches_torch(lambda m: seqlab.nuclear_norm(m, (0, 2), True),
                                 lambda m: torch.nuclear_norm(m, (0, 2), True), [x], layout=layout)
        assert_gradcheck(lambda m: seqlab.nuclear_norm(m), [x])
    with pytest.warns(UserWarning, match="nuclear_norm is deprecated"):
        seqlab.nuclear_norm(seqlab.eye(2))


# ------------------------------------------------------------------ linalg.vander, tensorinv, tensorsolve, inv_ex, cholesky_ex, solve_ex
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_linalg_vander_tensorinv_tensorsolve_match_torch(rng, dtype):
    x = randn(rng, (2, 4), dtype)
    for layout in LAYOUTS:
        assert_matches_torch(lambda a: seqlab.linalg.vander(a), lambda a: torch.linalg.vander(a), [x], layout=layout)
        assert_matches_torch(lambda a: seqlab.linalg.vander(a, N=6), lambda a: torch.linalg.vander(a, N=6), [x],
                             layout=layout)
    same(seqlab.linalg.vander(seqlab.tensor([1, 2, 3])), torch.linalg.vander(torch.tensor([1, 2, 3])))
    assert_gradcheck(lambda a: seqlab.linalg.vander(a, N=3), [x])
    for bad in (lambda m: m.linalg.vander(m.ones(3), N=1), lambda m: m.linalg.vander(m.ones(0)),
                lambda m: m.linalg.vander(m.tensor(2.0))):
        assert_raises_like_torch(lambda: bad(seqlab), lambda: bad(torch), "N must be greater than 1")
    A = randn(rng, (6, 2, 3), dtype) + np.eye(6, dtype=dtype).reshape(6, 2, 3) * 3
    for layout in ("contig", "slice"):
        assert_matches_torch(lambda a: seqlab.linalg.tensorinv(a, 1), lambda a: torch.linalg.tensorinv(a, 1), [A],
                             layout=layout)
    A4 = randn(rng, (2, 3, 6), dtype) + np.eye(6, dtype=dtype).reshape(2, 3, 6) * 3
    assert_matches_torch(lambda a: seqlab.linalg.tensorinv(a), lambda a: torch.linalg.tensorinv(a),
                         [A4.reshape(2, 3, 2, 3)])
    assert_gradcheck(lambda a: seqlab.linalg.tensorinv(a, 1), [A])
    B = randn(rng, (2, 3), dtype)
    assert_matches_torch(lambda a, b: seqlab.linalg.tensorsolve(a, b), lambda a, b: torch.linalg.tensorsolve(a, b),
                         [A4.reshape(2, 3, 6), B])
    assert_matches_torch(lambda a, b: seqlab.linalg.tensorsolve(a, b, dims=(0,)),
                         lambda a, b: torch.linalg.tensorsolve(a, b, dims=(0,)),
                         [np.moveaxis(A4.reshape(2, 3, 6), 2, 0).copy(), B])
    assert_gradcheck(lambda a, b: seqlab.linalg.tensorsolve(a, b), [A4.reshape(2, 3, 6), B])
    assert_raises_like_torch(lambda: seqlab.linalg.tensorinv(seqlab.ones(2, 3), 1),
                             lambda: torch.linalg.tensorinv(torch.ones(2, 3), 1), "but got 3 != 2")
    assert_raises_like_torch(lambda: seqlab.linalg.tensorinv(seqlab.ones(2, 2), 0),
                             lambda: torch.linalg.tensorinv(torch.ones(2, 2), 0), "strictly positive integer")
    assert_raises_like_torch(lambda: seqlab.linalg.tensorsolve(seqlab.ones(2, 3, 6), seqlab.ones(2, 4)),
                             lambda: torch.linalg.tensorsolve(torch.ones(2, 3, 6), torch.ones(2, 4)), "but got 6 != 8")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_linalg_ex_forms_report_info_like_torch(rng, dtype):
    good = randn(rng, (3, 3), dtype) + np.eye(3, dtype=dtype) * 4
    spd = good @ good.T + np.eye(3, dtype=dtype)
    batch = np.stack([good, good])
    for layout in LAYOUTS:
        assert_matches_torch(lambda a: seqlab.linalg.inv_ex(a), lambda a: torch.linalg.inv_ex(a), [batch],
                             layout=layout)
        assert_matches_torch(lambda a: seqlab.linalg.cholesky_ex(a, upper=True)[0],
                             lambda a: torch.linalg.cholesky_ex(a, upper=True)[0], [spd], layout=layout)
        assert_matches_torch(lambda a, b: seqlab.linalg.solve_ex(a, b), lambda a, b: torch.linalg.solve_ex(a, b),
                             [batch, randn(rng, (2, 3), dtype)], layout=layout)
    assert_matches_torch(lambda a, b: seqlab.linalg.solve_ex(a, b, left=False)[0],
                         lambda a, b: torch.linalg.solve_ex(a, b, left=False)[0], [good, randn(rng, (2, 3), dtype)])
    assert_gradcheck(lambda a: seqlab.linalg.inv_ex(a)[0], [good])
    assert_gradcheck(lambda a: seqlab.linalg.cholesky_ex((a + a.mT) / 2)[0], [spd])  # (only one triangle is read)
    assert_matches_torch(lambda a: seqlab.linalg.inv_ex(a), lambda a: torch.linalg.inv_ex(a),
                         [np.zeros((0, 3, 3), dtype)])
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], dtype)
    mixed = np.stack([np.eye(2, dtype=dtype), singular, np.zeros((2, 2), dtype)])
    for name, fn, args in (("inv_ex", lambda m, a: m.linalg.inv_ex(m.tensor(a)), mixed),
                           ("cholesky_ex", lambda m, a: m.linalg.cholesky_ex(m.tensor(a)),
                            np.stack([spd[:2, :2], singular - 3 * np.eye(2, dtype=dtype)])),
                           ("solve_ex", lambda m, a: m.linalg.solve_ex(m.tensor(a), m.ones(3, 2, dtype=m.float64).to(
                               m.tensor(a).dtype)), mixed)):
        s, t = fn(seqlab, args), fn(torch, args)
        assert s.info.tolist() == t.info.tolist() and str(s.info.dtype)[7:] == str(t.info.dtype)[6:], name
        ok = np.array(t.info.tolist()) == 0
        np.testing.assert_allclose(sl_np(s[0])[ok], th_np(t[0])[ok], rtol=1e-5, atol=1e-6)
        assert np.isnan(sl_np(s[0])[~ok]).all()  # torch's are LAPACK's partial results there
    for fn in (lambda m: m.linalg.inv_ex(m.tensor(singular), check_errors=True),
               lambda m: m.linalg.cholesky_ex(m.tensor(singular), check_errors=True),
               lambda m: m.linalg.solve_ex(m.tensor(singular), m.ones(2, dtype=m.tensor(singular).dtype),
                                           check_errors=True)):
        with pytest.raises(seqlab.linalg.LinAlgError):
            fn(seqlab)
        with pytest.raises(torch.linalg.LinAlgError):
            fn(torch)


def test_replace_all_batch_norm_modules_matches_torch(rng):
    x = randn(rng, (4, 3, 5), np.float32)

    def build(m):
        net = m.nn.Sequential(m.nn.BatchNorm1d(3), m.nn.InstanceNorm1d(3, track_running_stats=True),
                              m.nn.Sequential(m.nn.BatchNorm1d(3, track_running_stats=False)))
        assert m.func.replace_all_batch_norm_modules_(net) is net
        return net

    s, t = build(seqlab), build(torch)
    for sm, tm in zip(s.modules(), t.modules()):
        assert sorted(dict(sm.named_buffers())) == sorted(dict(tm.named_buffers()))
        if hasattr(tm, "track_running_stats"):
            assert sm.track_running_stats == tm.track_running_stats
            assert (sm.running_mean is None) == (tm.running_mean is None)
    s.eval(), t.eval()
    np.testing.assert_allclose(sl_np(s[0](seqlab.tensor(x))), th_np(t[0](torch.tensor(x))), rtol=1e-5, atol=1e-5)
    assert sorted(s.state_dict()) == sorted(t.state_dict())


# ------------------------------------------------------------------ ATen's recurrent functions
def _rnn_params(rng, mode, input_size, hidden, layers, bidirectional, has_biases, proj_size=0):
    """Flat params in nn.LSTM's _flat_weights order, as float64 arrays."""
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    out_size = proj_size or hidden
    params = []
    for layer in range(layers):
        for _ in range(2 if bidirectional else 1):
            in_size = input_size if layer == 0 else out_size * (2 if bidirectional else 1)
            params += [rng.standard_normal((gates * hidden, in_size)) * 0.3,
                       rng.standard_normal((gates * hidden, out_size)) * 0.3]
            if has_biases:
                params += [rng.standard_normal(gates * hidden) * 0.1, rng.standard_normal(gates * hidden) * 0.1]
            if proj_size:
                params.append(rng.standard_normal((proj_size, hidden)) * 0.3)
    return params


_RNN_FUNCTIONS = [("lstm", "LSTM"), ("gru", "GRU"), ("rnn_tanh", "RNN_TANH"), ("rnn_relu", "RNN_RELU")]
_RNN_LAYOUTS = [(1, False, True, False, 0), (2, True, True, True, 0), (2, False, False, False, 0)]


@pytest.mark.parametrize("name,mode,layers,bidirectional,has_biases,batch_first,proj_size",
                         [f + layout for f in _RNN_FUNCTIONS for layout in _RNN_LAYOUTS]
                         + [("lstm", "LSTM", 2, True, True, False, 3)])   # projections: LSTM only
def test_aten_recurrent_functions_match_torch(rng, name, mode, layers, bidirectional, has_biases, batch_first,
                                              proj_size):
    """torch.lstm / gru / rnn_tanh / rnn_relu (the functions nn.LSTM & co. call) on the same flat
    params: outputs, final states and every gradient, in the input and the packed form."""
    T, B, I, H = 5, 3, 4, 6
    directions = 2 if bidirectional else 1
    arrays = _rnn_params(rng, mode, I, H, layers, bidirectional, has_biases, proj_size)
    x = rng.standard_normal((B, T, I) if batch_first else (T, B, I))
    h0 = rng.standard_normal((layers * directions, B, proj_size or H))
    c0 = rng.standard_normal((layers * directions, B, H))

    def run(lib):
        ps = [lib.tensor(a, requires_grad=True) for a in arrays]
        xs, hs, cs = (lib.tensor(a, requires_grad=True) for a in (x, h0, c0))
        hx = [hs, cs] if mode == "LSTM" else hs
        outs = getattr(lib, name)(xs, hx, ps, has_biases, layers, 0.0, True, bidirectional, batch_first)
        loss = sum((o * (k + 1)).sin().sum() for k, o in enumerate(outs))
        loss.backward()
        leaves = ps + [xs, hs] + ([cs] if mode == "LSTM" else [])
        return [o.detach().numpy() for o in outs] + [t.grad.numpy() for t in leaves]

    for got, want in zip(run(seqlab), run(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)

    # the packed form: data and batch_sizes of a PackedSequence (lengths sorted), hx in that order
    lengths = [5, 4, 2]
    def run_packed(lib, nn_utils):
        ps = [lib.tensor(a) for a in arrays]
        seq = nn_utils.pack_padded_sequence(lib.tensor(x if not batch_first else x.transpose(1, 0, 2)), lengths)
        hx = [lib.tensor(h0), lib.tensor(c0)] if mode == "LSTM" else lib.tensor(h0)
        outs = getattr(lib, name)(seq.data, seq.batch_sizes, hx, ps, has_biases, layers, 0.0, False, bidirectional)
        return [o.numpy() for o in outs]

    import seqlab.nn.utils.rnn as sl_rnn
    import torch.nn.utils.rnn as th_rnn
    for got, want in zip(run_packed(seqlab, sl_rnn), run_packed(torch, th_rnn)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)


def test_aten_recurrent_cells_match_torch(rng):
    """torch.lstm_cell (hx = [h, c]), gru_cell, rnn_tanh_cell, rnn_relu_cell: values and gradients,
    with and without biases."""
    B, I, H = 3, 4, 5
    x, h, c = rng.standard_normal((B, I)), rng.standard_normal((B, H)), rng.standard_normal((B, H))
    for name, gates in [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)]:
        for biased in (True, False):
            arrays = [rng.standard_normal((gates * H, I)), rng.standard_normal((gates * H, H))]
            if biased:
                arrays += [rng.standard_normal(gates * H), rng.standard_normal(gates * H)]

            def run(lib):
                ts = [lib.tensor(a, requires_grad=True) for a in [x, h, c] + arrays]
                hx = [ts[1], ts[2]] if name == "lstm_cell" else ts[1]
                out = getattr(lib, name)(ts[0], hx, *ts[3:])
                outs = list(out) if isinstance(out, tuple) else [out]
                sum((o * (k + 2)).cos().sum() for k, o in enumerate(outs)).backward()
                used = ts if name == "lstm_cell" else ts[:2] + ts[3:]
                return [o.detach().numpy() for o in outs] + [t.grad.numpy() for t in used]

            for got, want in zip(run(seqlab), run(torch)):
                np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=f"{name} biased={biased}")
    assert_raises_like_torch(lambda: seqlab.lstm_cell(seqlab.ones(2, 4), [seqlab.ones(2, 5)], seqlab.ones(20, 4),
                                                      seqlab.ones(20, 5)),
                             lambda: torch.lstm_cell(torch.ones(2, 4), [torch.ones(2, 5)], torch.ones(20, 4),
                                                     torch.ones(20, 5)), "lstm_cell expects two hidden states")
    assert_raises_like_torch(lambda: seqlab.lstm(seqlab.ones(2, 1, 4), [seqlab.ones(1, 1, 5)], [], True, 1, 0.0, False,
                                                 False, False),
                             lambda: torch.lstm(torch.ones(2, 1, 4), [torch.ones(1, 1, 5)], [], True, 1, 0.0, False,
                                                False, False), "lstm expects two hidden states")


# ------------------------------------------------------------------ convolution entry points and weight-norm helpers
def _match(fn, inputs, **kw):
    """assert_matches_torch of fn(library, *tensors) written once for both libraries."""
    assert_matches_torch(lambda *a: fn(seqlab, *a), lambda *a: fn(torch, *a), inputs, **kw)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("nd", [1, 2])
def test_convolution_matches_torch(rng, nd, transposed):
    """torch.convolution, the entry point every conv module reaches: values and gradients for 1-D
    and 2-D, plain and transposed, with stride, padding, dilation, output_padding and groups."""
    shape = (2, 4) + (7,) * nd
    w_shape = (4, 3) + (3,) * nd if transposed else (6, 2) + (3,) * nd
    stride, padding, dilation, out_pad = [2] * nd, [1] * nd, [1] * nd, [1] * nd if transposed else [0] * nd
    _match(
        lambda L, x, w, b: L.convolution(x, w, b, stride, padding, dilation, transposed, out_pad, 2),
        [rng.standard_normal(shape), rng.standard_normal(w_shape),
         rng.standard_normal(w_shape[1] * 2 if transposed else w_shape[0])], atol=1e-9, rtol=1e-9)


def test_conv_tbc_matches_torch(rng):
    """torch.conv_tbc and F.conv_tbc (fairseq's time-batch-channel 1-D convolution): values,
    gradients and torch's shape errors."""
    for pad in (0, 1, 2):
        _match(lambda L, x, w, b: L.conv_tbc(x, w, b, pad),
                             [rng.standard_normal((7, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)],
                             atol=1e-9, rtol=1e-9)
    x, w, b = seqlab.ones(5, 2, 3), seqlab.ones(3, 3, 4), seqlab.ones(4)
    assert F.conv_tbc(x, w, b, 1).shape == (5, 2, 4)
    for bad in [(seqlab.ones(5, 3), w, b), (x, seqlab.ones(3, 2, 4), b), (x, w, seqlab.ones(5))]:
        tb = [torch.tensor(t.numpy()) for t in bad]
        assert_raises_like_torch(lambda: seqlab.conv_tbc(*bad), lambda: torch.conv_tbc(*tb),
                                 "Input must have 3 dims|not == dim 1 in the weight|Bias size must equal")


def test_norm_except_dim_and_embedding_renorm_match_torch(rng):
    v = rng.standard_normal((3, 4, 5))
    for p, d in [(2, 0), (2, 1), (3, 2), (2, -1), (1, -2)]:
        _match(lambda L, t: L.norm_except_dim(t, p, d), [v], atol=1e-12, rtol=1e-12)
    np.testing.assert_array_equal(seqlab.norm_except_dim(seqlab.tensor([-3.0, 4.0]), 2, 0).numpy(), [3.0, 4.0])
    assert_raises_like_torch(lambda: seqlab.norm_except_dim(seqlab.tensor(5.0), 2, 0),
                             lambda: torch.norm_except_dim(torch.tensor(5.0), 2, 0),
                             "Dimension specified as 0 but tensor has no dimensions")
    w = rng.standard_normal((6, 3)) * 2
    sw, tw = seqlab.tensor(w), torch.tensor(w)
    assert seqlab.embedding_renorm_(sw, seqlab.tensor([0, 2, 2, 5]), 1.0, 2.0) is sw
    torch.embedding_renorm_(tw, torch.tensor([0, 2, 2, 5]), 1.0, 2.0)
    np.testing.assert_allclose(sw.numpy(), tw.numpy(), rtol=1e-12)


def test_get_file_path_and_grad_scaler_at_the_top_level():
    import os
    assert seqlab.get_file_path("seqlab", "nn") == os.path.join(os.path.dirname(os.path.dirname(seqlab.__file__)),
                                                                "seqlab", "nn")
    assert os.path.isdir(seqlab.get_file_path("seqlab", "nn"))
    assert torch.get_file_path("torch", "nn") == os.path.join(os.path.dirname(os.path.dirname(torch.__file__)),
                                                              "torch", "nn")
    assert seqlab.GradScaler is seqlab.amp.GradScaler and torch.GradScaler is torch.amp.GradScaler
