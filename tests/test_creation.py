"""Tensor creation (tensor, zeros/ones/empty/full, arange, eye, rand/randn/randint, *_like,
manual_seed), dtypes and basic Tensor attributes/conversions, compared with torch.

Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_close, sl_np


def same_dtype(s_dtype, t_dtype):
    names = {torch.float32: seqlab.float32, torch.float64: seqlab.float64, torch.int64: seqlab.int64,
             torch.bool: seqlab.bool}
    return s_dtype == names[t_dtype]


def assert_same_tensor(s, t):
    assert tuple(s.shape) == tuple(t.shape), f"shape {tuple(s.shape)} != torch {tuple(t.shape)}"
    assert same_dtype(s.dtype, t.dtype), f"dtype {s.dtype} != torch {t.dtype}"
    assert_close(sl_np(s), t.detach().numpy().copy(), 1e-7, 1e-7)


# ----------------------------------------------------------------------------------------
# dtypes
# ----------------------------------------------------------------------------------------

def test_dtype_aliases():
    assert seqlab.float == seqlab.float32
    assert seqlab.double == seqlab.float64
    assert seqlab.long == seqlab.int64
    assert seqlab.float32 != seqlab.float64
    assert seqlab.int64 != seqlab.bool
    assert len({seqlab.float32, seqlab.float64, seqlab.int64, seqlab.bool}) == 4  # hashable, distinct


# ----------------------------------------------------------------------------------------
# seqlab.tensor
# ----------------------------------------------------------------------------------------

TENSOR_DATA = {
    "float-list": [1.0, 2.5, -3.0],
    "int-list": [1, 2, 3],
    "bool-list": [True, False, True],
    "nested": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
    "nested-int": [[1, 2], [3, 4], [5, 6]],
    "mixed-int-float": [1, 2.5],
    "mixed-bool-int": [True, 2],
    "float-scalar": 3.5,
    "int-scalar": 7,
    "bool-scalar": True,
    "empty": [],
    "empty-nested": [[], []],
    "deep": [[[1.0], [2.0]], [[3.0], [4.0]]],
    "tuple": (1.0, 2.0),
    "numpy-f64": np.array([[1.0, 2.0]], dtype=np.float64),
    "numpy-f32": np.array([1.5, 2.5], dtype=np.float32),
    "numpy-i64": np.array([3, 4], dtype=np.int64),
    "numpy-bool": np.array([True, False]),
    "numpy-T": np.arange(6.0).reshape(2, 3).T,
}


@pytest.mark.parametrize("name", list(TENSOR_DATA))
def test_tensor_from_data(name):
    data = TENSOR_DATA[name]
    s, t = seqlab.tensor(data), torch.tensor(data)
    assert_same_tensor(s, t)
    assert s.requires_grad is False
    assert s.is_leaf


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_tensor_with_dtype(dtype):
    data = [[0, 1, 2], [3, 0, 5]]
    s = seqlab.tensor(data, dtype=getattr(seqlab, dtype))
    t = torch.tensor(data, dtype=getattr(torch, dtype))
    assert_same_tensor(s, t)
    assert s.dtype == getattr(seqlab, dtype)


def test_tensor_float_to_int_dtype_truncates():
    assert_same_tensor(seqlab.tensor([1.7, -1.7, 2.2], dtype=seqlab.int64),
                       torch.tensor([1.7, -1.7, 2.2], dtype=torch.int64))


def test_tensor_requires_grad():
    s = seqlab.tensor([1.0, 2.0], requires_grad=True)
    assert s.requires_grad and s.is_leaf and s.grad is None and s.grad_fn is None
    (s * s).sum().backward()
    np.testing.assert_allclose(sl_np(s.grad), [2.0, 4.0])


def test_tensor_copies_numpy_data():
    a = np.array([1.0, 2.0, 3.0])
    s = seqlab.tensor(a)
    a[0] = 100.0
    assert s[0].item() == 1.0, "seqlab.tensor must copy (from_numpy is the zero-copy path)"


def test_tensor_from_tensor_values():
    s = seqlab.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert tuple(seqlab.tensor(s.tolist()).shape) == (2, 2)


# ----------------------------------------------------------------------------------------
# zeros / ones / empty / full
# ----------------------------------------------------------------------------------------

SIZE_FORMS = {
    "varargs": ((2, 3), {}),
    "tuple": (((2, 3),), {}),
    "list": (([4],), {}),
    "0d-tuple": (((),), {}),
    "size0": ((0, 3), {}),
    "3d": ((2, 1, 3), {}),
    "f64": ((3,), {"dtype": "float64"}),
    "i64": ((2, 2), {"dtype": "int64"}),
    "bool": ((2,), {"dtype": "bool"}),
}


def _kw(lib, kw):
    kw = dict(kw)
    if "dtype" in kw:
        kw["dtype"] = getattr(lib, kw["dtype"])
    return kw


@pytest.mark.parametrize("form", list(SIZE_FORMS))
@pytest.mark.parametrize("fn", ["zeros", "ones"])
def test_zeros_ones(fn, form):
    args, kw = SIZE_FORMS[form]
    assert_same_tensor(getattr(seqlab, fn)(*args, **_kw(seqlab, kw)), getattr(torch, fn)(*args, **_kw(torch, kw)))


@pytest.mark.parametrize("form", list(SIZE_FORMS))
def test_empty_shape_dtype(form):
    args, kw = SIZE_FORMS[form]
    s, t = seqlab.empty(*args, **_kw(seqlab, kw)), torch.empty(*args, **_kw(torch, kw))
    assert tuple(s.shape) == tuple(t.shape)
    assert same_dtype(s.dtype, t.dtype)
    assert s.is_contiguous()


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
def test_creation_requires_grad(fn):
    s = getattr(seqlab, fn)(2, 3, requires_grad=True)
    assert s.requires_grad and s.is_leaf
    (s * 2.0).sum().backward()
    np.testing.assert_array_equal(sl_np(s.grad), np.full((2, 3), 2.0, dtype=np.float32))


FULL_CASES = {
    "float": ((2, 3), 1.5, None),
    "int": ((2, 3), 7, None),
    "bool": ((3,), True, None),
    "int-as-f64": ((2,), 3, "float64"),
    "float-as-f32": ((2, 2), -0.25, "float32"),
    "list-size": ([4], 2.0, None),
    "0d": ((), 9.0, None),
    "empty": ((0, 2), 1.0, None),
    "inf": ((2,), float("inf"), None),
}


@pytest.mark.parametrize("name", list(FULL_CASES))
def test_full(name):
    size, value, dtype = FULL_CASES[name]
    kw_s = {} if dtype is None else {"dtype": getattr(seqlab, dtype)}
    kw_t = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    assert_same_tensor(seqlab.full(size, value, **kw_s), torch.full(size, value, **kw_t))


# ----------------------------------------------------------------------------------------
# arange / eye
# ----------------------------------------------------------------------------------------

ARANGE_CASES = {
    "end": ((5,), {}),
    "start-end": ((2, 7), {}),
    "step": ((0, 10, 3), {}),
    "neg-step": ((5, 0, -1), {}),
    "float-end": ((2.5,), {}),
    "float-step": ((0, 1, 0.25), {}),
    "float-neg": ((1.0, -1.0, -0.5), {}),
    "dtype-f64": ((4,), {"dtype": "float64"}),
    "dtype-f32": ((1, 4), {"dtype": "float32"}),
    "empty": ((3, 3), {}),
    "kw-end": ((0,), {"end": 4}),
    "kw-step": ((1, 10), {"step": 4}),
    "inexact-end": ((0, 1, 0.1), {}),
}


@pytest.mark.parametrize("name", list(ARANGE_CASES))
def test_arange(name):
    args, kw = ARANGE_CASES[name]
    assert_same_tensor(seqlab.arange(*args, **_kw(seqlab, kw)), torch.arange(*args, **_kw(torch, kw)))


@pytest.mark.parametrize("args", [(3,), (1,), (0,), (2, 4), (4, 2), (3, 0)], ids=str)
def test_eye(args):
    assert_same_tensor(seqlab.eye(*args), torch.eye(*args))


def test_eye_m_keyword():
    assert_same_tensor(seqlab.eye(2, m=3), torch.eye(2, m=3))


# ----------------------------------------------------------------------------------------
# Random
# ----------------------------------------------------------------------------------------

def test_rand_shape_range_and_stats():
    s = seqlab.rand(200, 300)
    assert tuple(s.shape) == (200, 300) and s.dtype == seqlab.float32
    a = sl_np(s)
    assert a.min() >= 0.0 and a.max() < 1.0
    assert abs(a.mean() - 0.5) < 0.01
    assert abs(a.var() - 1 / 12) < 0.005


def test_randn_shape_and_stats():
    s = seqlab.randn((300, 200))
    assert tuple(s.shape) == (300, 200) and s.dtype == seqlab.float32
    a = sl_np(s)
    assert abs(a.mean()) < 0.02
    assert abs(a.std() - 1.0) < 0.02
    assert abs((np.abs(a) < 1.0).mean() - 0.6827) < 0.01


def test_rand_randn_shapes():
    for fn in (seqlab.rand, seqlab.randn):
        s = fn(3, 4)
        assert s.dtype == seqlab.float32 and not s.requires_grad and tuple(s.shape) == (3, 4)
    assert tuple(seqlab.randn(0, 3).shape) == (0, 3)
    assert tuple(seqlab.rand(()).shape) == ()


def test_randint():
    s = seqlab.randint(-3, 5, (100, 100))
    assert tuple(s.shape) == (100, 100) and s.dtype == seqlab.int64
    a = sl_np(s)
    assert a.min() == -3 and a.max() == 4  # high is exclusive; with 10^4 draws both ends occur
    counts = np.bincount(a.ravel() + 3)
    assert counts.min() > 1000  # roughly uniform over 8 values (expected 1250)
    assert tuple(seqlab.randint(0, 2, size=(3,)).shape) == (3,)


def test_manual_seed_reproducible():
    seqlab.manual_seed(42)
    a, b, c = sl_np(seqlab.rand(5)), sl_np(seqlab.randn(3, 3)), sl_np(seqlab.randint(0, 100, (4,)))
    seqlab.manual_seed(42)
    a2, b2, c2 = sl_np(seqlab.rand(5)), sl_np(seqlab.randn(3, 3)), sl_np(seqlab.randint(0, 100, (4,)))
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    np.testing.assert_array_equal(c, c2)
    a3 = sl_np(seqlab.rand(5))
    assert not np.array_equal(a, a3), "consecutive draws must differ"
    seqlab.manual_seed(43)
    assert not np.array_equal(a, sl_np(seqlab.rand(5))), "different seeds must give different draws"


# ----------------------------------------------------------------------------------------
# *_like
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like"])
def test_zeros_ones_empty_like(fn, dtype):
    base_np = np.arange(6).reshape(2, 3).astype(dtype)
    s = getattr(seqlab, fn)(seqlab.from_numpy(base_np.copy()).t())
    t = getattr(torch, fn)(torch.from_numpy(base_np.copy()).t())
    assert tuple(s.shape) == tuple(t.shape) == (3, 2)
    assert same_dtype(s.dtype, t.dtype)
    if fn != "empty_like":
        assert_same_tensor(s, t)


def test_like_does_not_copy_requires_grad():
    z = seqlab.zeros_like(seqlab.ones(3, requires_grad=True))
    assert z.requires_grad is False  # *_like does not copy requires_grad (torch semantics)


def test_full_like():
    base = np.zeros((2, 3), dtype=np.float64)
    assert_same_tensor(seqlab.full_like(seqlab.from_numpy(base.copy()), 2.5),
                       torch.full_like(torch.from_numpy(base.copy()), 2.5))
    ib = np.zeros((2,), dtype=np.int64)
    assert_same_tensor(seqlab.full_like(seqlab.from_numpy(ib.copy()), 3.7),
                       torch.full_like(torch.from_numpy(ib.copy()), 3.7))


def test_rand_like_randn_like():
    base = seqlab.zeros(100, 100, dtype=seqlab.float64)
    r = seqlab.rand_like(base)
    assert tuple(r.shape) == (100, 100) and r.dtype == seqlab.float64
    a = sl_np(r)
    assert a.min() >= 0 and a.max() < 1 and abs(a.mean() - 0.5) < 0.02
    n = sl_np(seqlab.randn_like(base))
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05


# ----------------------------------------------------------------------------------------
# Attributes and conversions
# ----------------------------------------------------------------------------------------

def test_basic_attributes():
    s = seqlab.zeros(2, 3, 4)
    assert tuple(s.shape) == (2, 3, 4)
    assert s.shape == (2, 3, 4)
    assert tuple(s.size()) == (2, 3, 4)
    assert s.size(1) == 3 and s.size(-1) == 4 and s.size(dim=0) == 2
    assert s.shape[0] == 2 and len(s.shape) == 3
    assert s.dim() == 3 and s.ndim == 3
    assert s.numel() == 24
    assert tuple(s.stride()) == (12, 4, 1)
    assert s.stride(0) == 12
    assert s.is_contiguous()
    assert s.dtype == seqlab.float32
    assert s.requires_grad is False and s.is_leaf and s.grad is None and s.grad_fn is None
    z = seqlab.tensor(5.0)
    assert z.dim() == 0 and z.numel() == 1 and tuple(z.shape) == () and tuple(z.stride()) == ()
    e = seqlab.zeros(0, 5)
    assert e.numel() == 0 and e.shape == (0, 5)


@pytest.mark.parametrize("conv,expected", [
    ("to-f64", "float64"), ("to-i64", "int64"), ("to-bool", "bool"), ("to-f32", "float32"),
    ("float", "float32"), ("double", "float64"), ("long", "int64"),
])
def test_dtype_conversions(conv, expected):
    data = np.array([[-1.7, 0.0, 2.5], [3.2, -0.2, 1.0]], dtype=np.float64)

    def apply(lib, x):
        if conv.startswith("to-"):
            d = {"f64": "float64", "i64": "int64", "bool": "bool", "f32": "float32"}[conv[3:]]
            return x.to(getattr(lib, d))
        return getattr(x, conv)()

    s = apply(seqlab, seqlab.from_numpy(data.copy()))
    t = apply(torch, torch.from_numpy(data.copy()))
    assert s.dtype == getattr(seqlab, expected)
    assert_same_tensor(s, t)


def test_to_same_dtype_and_conversion_gradient():
    s = seqlab.tensor([1.0, 2.0], requires_grad=True)
    d = s.double()
    assert d.dtype == seqlab.float64 and d.requires_grad
    (d * d).sum().backward()
    assert s.grad.dtype == seqlab.float32
    np.testing.assert_allclose(sl_np(s.grad), [2.0, 4.0])
    i = seqlab.tensor([1, 2])
    assert i.long().dtype == seqlab.int64
    np.testing.assert_array_equal(sl_np(i.float()), [1.0, 2.0])


def test_clone_is_independent_and_differentiable():
    s = seqlab.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = s.clone()
    assert c.requires_grad and not c.is_leaf and c.grad_fn is not None
    with seqlab.no_grad():
        c.mul_(10.0)
    np.testing.assert_array_equal(sl_np(s), [1.0, 2.0, 3.0])
    base = seqlab.tensor([[1.0, 2.0], [3.0, 4.0]])
    ct = base.t().clone()
    np.testing.assert_array_equal(sl_np(ct), [[1.0, 3.0], [2.0, 4.0]])


def test_set_get_num_threads():
    old = seqlab.get_num_threads()
    assert isinstance(old, int) and old >= 1
    try:
        seqlab.set_num_threads(1)
        assert seqlab.get_num_threads() == 1
        a = seqlab.randn(64, 64)
        r1 = sl_np(a @ a)
        seqlab.set_num_threads(2)
        assert seqlab.get_num_threads() == 2
        r2 = sl_np(a @ a)
        np.testing.assert_allclose(r1, r2, rtol=1e-5, atol=1e-5)
    finally:
        seqlab.set_num_threads(old)
    assert seqlab.get_num_threads() == old
