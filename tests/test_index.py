"""Indexing (t[...] get/set with ints, slices, None, Ellipsis, index tensors, bool masks),
gather, index_select, masked_fill, triu, tril vs torch, forward and gradient.

Gradchecks in float64 at the bottom. Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_gradcheck, assert_matches_torch, randn, shape_id,
    sl_leaf, sl_np, th_leaf, th_np,
)

# name -> (shape, index builder(lib) -> index object)
GETITEM = {
    "int": ((4, 3), lambda lib: 2),
    "neg-int": ((4, 3), lambda lib: -1),
    "int-int": ((4, 3), lambda lib: (1, 2)),
    "int-neg-int": ((4, 3), lambda lib: (-4, -3)),
    "slice": ((6, 3), lambda lib: slice(1, 4)),
    "slice-step": ((7, 3), lambda lib: slice(None, None, 2)),
    "slice-step3-start": ((8, 3), lambda lib: slice(1, None, 3)),
    "slice-neg": ((6, 3), lambda lib: slice(-3, -1)),
    "slice-out-of-bounds-clipped": ((4, 3), lambda lib: slice(2, 100)),
    "slice-empty": ((4, 3), lambda lib: slice(3, 1)),
    "slice-both-dims": ((5, 6), lambda lib: (slice(1, 4), slice(None, None, 2))),
    "int-slice": ((5, 6), lambda lib: (2, slice(1, 5, 2))),
    "slice-int": ((5, 6), lambda lib: (slice(None), 3)),
    "none": ((3, 4), lambda lib: None),
    "none-mid": ((3, 4), lambda lib: (slice(None), None, slice(None))),
    "none-int": ((3, 4), lambda lib: (None, 1)),
    "ellipsis": ((2, 3, 4), lambda lib: Ellipsis),
    "ellipsis-int": ((2, 3, 4), lambda lib: (Ellipsis, 1)),
    "int-ellipsis": ((2, 3, 4), lambda lib: (0, Ellipsis)),
    "ellipsis-slice-none": ((2, 3, 4), lambda lib: (Ellipsis, slice(1, 3), None)),
    "int-ellipsis-int": ((2, 3, 4, 5), lambda lib: (1, Ellipsis, 2)),
    "0d-ellipsis": ((), lambda lib: Ellipsis),
    "0d-none": ((), lambda lib: None),
    "index-list": ((5, 3), lambda lib: [0, 2, 4]),
    "index-list-dups": ((5, 3), lambda lib: [1, 1, 3, 1]),
    "index-list-neg": ((5, 3), lambda lib: [-1, 0]),
    "index-tensor": ((5, 3), lambda lib: lib.tensor([4, 0, 2])),
    "index-tensor-dups": ((5, 3), lambda lib: lib.tensor([2, 2, 2])),
    "index-tensor-2d": ((5, 3), lambda lib: lib.tensor([[0, 1], [4, 4]])),
    "index-tensor-0d": ((5, 3), lambda lib: lib.tensor(3)),
    "index-tensor-empty": ((5, 3), lambda lib: lib.tensor([], dtype=lib.int64)),
    "slice-index-tensor": ((4, 5), lambda lib: (slice(None), lib.tensor([4, 0, 0]))),
    "two-index-tensors": ((4, 5), lambda lib: (lib.tensor([0, 3, 3]), lib.tensor([1, 1, 4]))),
    "int-and-index-list": ((4, 5), lambda lib: (2, [0, 4])),
    "bool-mask-full": ((3, 4), "mask-full"),
    "bool-mask-rows": ((4, 3), "mask-rows"),
    "bool-mask-list": ((3, 2), lambda lib: [True, False, True]),
    "bool-mask-none-selected": ((3, 4), "mask-none"),
}


def make_index(lib, spec, rng_mask):
    """Build the index object for `lib` (seqlab or torch) from a GETITEM/SETITEM spec."""
    masks = {"mask-full": rng_mask[0], "mask-rows": rng_mask[1], "mask-none": np.zeros((3, 4), dtype=bool)}
    if isinstance(spec, str):
        return lib.from_numpy(masks[spec].copy())
    return spec(lib)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(GETITEM))
def test_getitem(rng, name, dtype):
    shape, spec = GETITEM[name]
    x = randn(rng, shape, dtype)
    masks = (rng.random((3, 4)) < 0.5, np.array([True, False, True, True]))
    s_idx = make_index(seqlab, spec, masks)
    t_idx = make_index(torch, spec, masks)
    assert_matches_torch(lambda a: a[s_idx], lambda a: a[t_idx], [x])


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("name", ["int", "int-int", "slice-step", "slice-both-dims", "none-mid", "ellipsis-int",
                                  "index-list-dups", "index-tensor-2d", "two-index-tensors", "bool-mask-rows",
                                  "slice-index-tensor"])
def test_getitem_noncontiguous(rng, name, layout):
    shape, spec = GETITEM[name]
    x = randn(rng, shape, np.float32)
    masks = (rng.random((3, 4)) < 0.5, np.array([True, False, True, True]))
    s_idx, t_idx = make_index(seqlab, spec, masks), make_index(torch, spec, masks)
    assert_matches_torch(lambda a: a[s_idx], lambda a: a[t_idx], [x], layout=layout)


def test_getitem_basic_is_view():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    s = sl_leaf(base, False)
    v = s[1:, ::2]
    v.fill_(-1.0)
    expected = base.copy()
    expected[1:, ::2] = -1.0
    np.testing.assert_array_equal(sl_np(s), expected)
    row = s[0]
    row.zero_()
    expected[0] = 0.0
    np.testing.assert_array_equal(sl_np(s), expected)


def test_getitem_advanced_is_copy():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    s = sl_leaf(base, False)
    c = s[[0, 2]]
    c.fill_(5.0)
    np.testing.assert_array_equal(sl_np(s), base)


def test_getitem_int_returns_0d_and_item():
    s = sl_leaf(np.arange(6, dtype=np.float64).reshape(2, 3), False)
    e = s[1, 2]
    assert tuple(e.shape) == ()
    assert e.item() == 5.0
    assert s[-1][-1].item() == 5.0


def test_getitem_int64_tensor(rng):
    a = rng.integers(-9, 9, size=(4, 5)).astype(np.int64)
    assert_matches_torch(lambda t: t[1:3, [0, 4]], lambda t: t[1:3, [0, 4]], [a], grad=False)
    assert_matches_torch(lambda t: t[t > 0], lambda t: t[t > 0], [a], grad=False)


def test_getitem_mask_from_comparison(rng):
    x = randn(rng, (4, 5), np.float64)
    assert_matches_torch(lambda a: a[a > 0.3], lambda a: a[a > 0.3], [x])


# ----------------------------------------------------------------------------------------
# __setitem__
# ----------------------------------------------------------------------------------------

SETITEM = {
    "int-scalar": ((4, 3), lambda lib: 1, "scalar"),
    "int-row-tensor": ((4, 3), lambda lib: 2, (3,)),
    "int-row-bcast": ((4, 3), lambda lib: -1, (1,)),
    "slice-scalar": ((5, 3), lambda lib: slice(1, 4), "scalar"),
    "slice-step-tensor": ((6, 3), lambda lib: slice(None, None, 2), (3, 3)),
    "slice-cols-bcast": ((4, 6), lambda lib: (slice(None), slice(1, 5, 2)), (2,)),
    "int-int": ((4, 3), lambda lib: (2, 1), "scalar"),
    "ellipsis": ((2, 3, 4), lambda lib: (Ellipsis, 0), (2, 3)),
    "index-list": ((5, 3), lambda lib: [0, 3], (2, 3)),
    "index-tensor-scalar": ((5, 3), lambda lib: lib.tensor([4, 1]), "scalar"),
    "bool-mask-scalar": ((3, 4), "mask-full", "scalar"),
    "bool-mask-rows-tensor": ((4, 3), "mask-rows", (3,)),
}


@pytest.mark.parametrize("name", list(SETITEM))
def test_setitem(rng, name):
    shape, spec, vshape = SETITEM[name]
    x = randn(rng, shape, np.float32)
    value = 2.5 if vshape == "scalar" else randn(rng, vshape, np.float32)
    masks = (rng.random((3, 4)) < 0.5, np.array([True, False, True, True]))
    s, t = sl_leaf(x, False), th_leaf(x, False)
    s_idx, t_idx = make_index(seqlab, spec, masks), make_index(torch, spec, masks)
    s[s_idx] = value if vshape == "scalar" else sl_leaf(value, False)
    t[t_idx] = value if vshape == "scalar" else th_leaf(value, False)
    assert_close(sl_np(s), th_np(t), 0, 0)


def test_setitem_on_noncontiguous_view():
    base = np.zeros((4, 5), dtype=np.float64)
    s, t = sl_leaf(base, False), th_leaf(base, False)
    s.t()[1:3] = 7.0
    t.t()[1:3] = 7.0
    assert_close(sl_np(s), th_np(t), 0, 0)


def test_setitem_autograd(rng):
    """y = x.clone(); y[idx] = z: gradient flows to z at idx and to x elsewhere."""
    x = randn(rng, (3, 4), np.float64)
    z = randn(rng, (4,), np.float64)

    def f(lib):
        def g(a, b):
            y = a.clone()
            y[1] = b
            return y * 2.0
        return g

    assert_matches_torch(f(seqlab), f(torch), [x, z])


def test_setitem_int64_and_bool_tensors(rng):
    a = rng.integers(0, 10, size=(3, 3)).astype(np.int64)
    s, t = sl_leaf(a), th_leaf(a)
    s[0] = 42
    t[0] = 42
    s[s > 5] = -1
    t[t > 5] = -1
    assert_close(sl_np(s), th_np(t), 0, 0)
    m = np.zeros(4, dtype=bool)
    sm, tm = sl_leaf(m), th_leaf(m)
    sm[1:3] = True
    tm[1:3] = True
    assert_close(sl_np(sm), th_np(tm), 0, 0)


# ----------------------------------------------------------------------------------------
# gather, index_select, masked_fill, triu, tril
# ----------------------------------------------------------------------------------------

GATHER = [
    ((3, 4), 1, (3, 2)),
    ((3, 4), 0, (2, 4)),
    ((3, 4), -1, (3, 6)),       # repeated indices: gradient accumulates
    ((2, 3, 4), 2, (2, 3, 1)),
    ((2, 3, 4), 1, (1, 2, 4)),  # index smaller than input in other dims
    ((5,), 0, (3,)),
    ((3, 4), 1, (3, 0)),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,dim,ishape", GATHER, ids=[f"{shape_id(s)}-dim={d}-idx{shape_id(i)}"
                                                          for s, d, i in GATHER])
def test_gather(rng, shape, dim, ishape, dtype):
    x = randn(rng, shape, dtype)
    idx = rng.integers(0, shape[dim], size=ishape).astype(np.int64)
    assert_matches_torch(lambda a, i: seqlab.gather(a, dim, i), lambda a, i: torch.gather(a, dim, i), [x, idx])
    assert_matches_torch(lambda a, i: a.gather(dim, i), lambda a, i: a.gather(dim, i), [x, idx])


def test_gather_noncontiguous(rng):
    x = randn(rng, (4, 5))
    idx = rng.integers(0, 5, size=(4, 3)).astype(np.int64)
    assert_matches_torch(lambda a, i: a.gather(1, i), lambda a, i: a.gather(1, i), [x, idx], layout="T")


INDEX_SELECT = [
    ((5, 3), 0, [4, 0, 0, 2]),
    ((5, 3), 1, [2, 1]),
    ((5, 3), -1, [0]),
    ((2, 3, 4), 2, [3, 3, 1]),
    ((5,), 0, [1, 4]),
    ((5, 3), 0, []),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,dim,index", INDEX_SELECT,
                         ids=[f"{shape_id(s)}-dim={d}-{i}" for s, d, i in INDEX_SELECT])
def test_index_select(rng, shape, dim, index, dtype):
    x = randn(rng, shape, dtype)
    idx = np.array(index, dtype=np.int64)
    assert_matches_torch(lambda a, i: seqlab.index_select(a, dim, i), lambda a, i: torch.index_select(a, dim, i),
                         [x, idx])
    assert_matches_torch(lambda a, i: a.index_select(dim, i), lambda a, i: a.index_select(dim, i), [x, idx],
                         layout="T")


MASKED_FILL = [
    ((3, 4), (3, 4), 0.0),
    ((3, 4), (4,), -1e9),
    ((3, 4), (3, 1), float("-inf")),
    ((2, 3, 3), (3, 3), 1.5),
    ((3, 4), (), 2.0),
    ((0, 4), (4,), 1.0),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,mshape,value", MASKED_FILL,
                         ids=[f"{shape_id(s, m)}-{v}" for s, m, v in MASKED_FILL])
def test_masked_fill(rng, shape, mshape, value, dtype):
    x = randn(rng, shape, dtype)
    mask = rng.random(mshape) < 0.5
    assert_matches_torch(lambda a, m: a.masked_fill(m, value), lambda a, m: a.masked_fill(m, value), [x, mask])
    assert_matches_torch(lambda a, m: seqlab.masked_fill(a, m, value), lambda a, m: torch.masked_fill(a, m, value),
                         [x, mask])


def test_masked_fill_causal_softmax(rng):
    """The attention idiom: scores.masked_fill(triu mask, -inf).softmax(-1)."""
    x = randn(rng, (2, 4, 4), np.float64)

    def f(lib):
        def g(a):
            mask = lib.triu(lib.ones(4, 4, dtype=lib.bool), diagonal=1)
            return lib.nn.functional.softmax(a.masked_fill(mask, float("-inf")), dim=-1)
        return g

    assert_matches_torch(f(seqlab), f(torch), [x])


TRI = [((4, 4), 0), ((4, 4), 1), ((4, 4), -1), ((3, 5), 2), ((5, 3), -2), ((2, 3, 3), 0), ((3, 3), 5),
       ((3, 3), -5), ((0, 3), 0)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,k", TRI, ids=[f"{shape_id(s)}-k={k}" for s, k in TRI])
@pytest.mark.parametrize("op", ["triu", "tril"])
def test_triu_tril(rng, op, shape, k, dtype):
    x = randn(rng, shape, dtype)
    assert_matches_torch(lambda a: getattr(seqlab, op)(a, k), lambda a: getattr(torch, op)(a, k), [x])
    assert_matches_torch(lambda a: getattr(a, op)(diagonal=k), lambda a: getattr(a, op)(diagonal=k), [x],
                         layout="T")


@pytest.mark.parametrize("op", ["triu", "tril"])
def test_triu_tril_default_diagonal_and_bool(op):
    ones = np.ones((3, 3), dtype=bool)
    assert_matches_torch(lambda a: getattr(a, op)(), lambda a: getattr(a, op)(), [ones], grad=False)


# ----------------------------------------------------------------------------------------
# Gradchecks
# ----------------------------------------------------------------------------------------

def test_gradcheck_getitem(rng):
    x = randn(rng, (4, 5), np.float64)
    assert_gradcheck(lambda a: a[1:3, ::2], [x])
    assert_gradcheck(lambda a: a[2], [x])
    assert_gradcheck(lambda a: a[None, ..., 1], [x])
    assert_gradcheck(lambda a: a[[0, 0, 3]], [x])
    assert_gradcheck(lambda a: a[:, seqlab.tensor([4, 1, 4])], [x])
    mask = seqlab.from_numpy(rng.random((4, 5)) < 0.5)
    assert_gradcheck(lambda a: a[mask], [x])


def test_gradcheck_gather_index_select_masked_fill_tri(rng):
    x = randn(rng, (3, 4), np.float64)
    idx = rng.integers(0, 4, size=(3, 5)).astype(np.int64)
    assert_gradcheck(lambda a, i: a.gather(1, i), [x, idx])
    sel = np.array([2, 0, 2], dtype=np.int64)
    assert_gradcheck(lambda a, i: a.index_select(1, i), [x, sel])
    mask = rng.random((3, 4)) < 0.5
    assert_gradcheck(lambda a, m: a.masked_fill(m, 0.5), [x, mask])
    assert_gradcheck(lambda a: a.triu(1), [x])
    assert_gradcheck(lambda a: a.tril(-1), [x])


def test_gradcheck_setitem(rng):
    x, z = randn(rng, (3, 4), np.float64), randn(rng, (2,), np.float64)

    def f(a, b):
        y = a * 1.0
        y[0, 1:3] = b
        return y
    assert_gradcheck(f, [x, z])
