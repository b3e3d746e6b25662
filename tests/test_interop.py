"""Zero-copy interop: seqlab.from_numpy, Tensor.numpy(), the buffer protocol (np.asarray),
DLPack with torch and numpy in both directions; plus tolist() and item().

Zero-copy is checked by writing through one side and reading through the other.
Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import sl_np

NP_DTYPES = [np.float32, np.float64, np.int64, np.bool_]
NP_IDS = ["f32", "f64", "i64", "bool"]
SL_OF = {np.float32: "float32", np.float64: "float64", np.int64: "int64", np.bool_: "bool"}


def sample(dtype, shape=(2, 3)):
    a = np.arange(int(np.prod(shape))).reshape(shape)
    if dtype == np.bool_:
        return (a % 2 == 0)
    return a.astype(dtype)


def poke_value(dtype):
    return True if dtype == np.bool_ else dtype(42)


# ----------------------------------------------------------------------------------------
# from_numpy
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NP_DTYPES, ids=NP_IDS)
def test_from_numpy_dtype_shape_values(dtype):
    a = sample(dtype)
    t = seqlab.from_numpy(a)
    assert t.dtype == getattr(seqlab, SL_OF[dtype])
    assert tuple(t.shape) == a.shape
    np.testing.assert_array_equal(sl_np(t), a)
    assert t.requires_grad is False


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=NP_IDS)
def test_from_numpy_zero_copy_both_directions(dtype):
    a = sample(dtype)
    t = seqlab.from_numpy(a)
    a[1, 2] = poke_value(dtype)
    assert t[1, 2].item() == a[1, 2]
    # and a write through the tensor shows in the array
    t.fill_(False if dtype == np.bool_ else 7)
    assert np.all(a == (False if dtype == np.bool_ else 7))


def test_from_numpy_noncontiguous_array_shares_memory():
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    view = base.T[1:, ::2]  # shape (3, 2), strided
    t = seqlab.from_numpy(view)
    assert tuple(t.shape) == view.shape
    assert tuple(t.stride()) == tuple(s // 8 for s in view.strides)
    np.testing.assert_array_equal(sl_np(t), view)
    base[2, 2] = -5.0  # view[i, j] is base[2j, 1+i]
    assert t[1, 1].item() == -5.0


def test_from_numpy_0d_and_empty():
    t = seqlab.from_numpy(np.array(3.5))
    assert tuple(t.shape) == () and t.item() == 3.5
    e = seqlab.from_numpy(np.zeros((0, 4), dtype=np.float32))
    assert tuple(e.shape) == (0, 4) and e.numel() == 0


def test_from_numpy_keeps_array_alive():
    t = seqlab.from_numpy(np.arange(1000, dtype=np.float64))
    import gc
    gc.collect()
    assert t.sum().item() == sum(range(1000))


def test_from_numpy_then_autograd():
    a = np.array([1.0, 2.0])
    t = seqlab.from_numpy(a).requires_grad_()
    (t * t).sum().backward()
    np.testing.assert_allclose(sl_np(t.grad), [2.0, 4.0])


# ----------------------------------------------------------------------------------------
# Tensor.numpy() and the buffer protocol
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", NP_DTYPES, ids=NP_IDS)
def test_numpy_zero_copy(dtype):
    t = seqlab.zeros(2, 3, dtype=getattr(seqlab, SL_OF[dtype]))
    n = t.numpy()
    assert n.dtype == dtype and n.shape == (2, 3)
    n[0, 1] = poke_value(dtype)
    assert t[0, 1].item() == poke_value(dtype)
    t.fill_(True if dtype == np.bool_ else 3)
    assert np.all(n == (True if dtype == np.bool_ else 3))


def test_numpy_of_view_shares_memory_with_strides():
    t = seqlab.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    v = t.t()
    n = v.numpy()
    np.testing.assert_array_equal(n, np.arange(12, dtype=np.float32).reshape(3, 4).T)
    assert n.strides == (4, 16)
    n[0, 2] = 99.0
    assert t[2, 0].item() == 99.0


def test_numpy_keeps_tensor_alive():
    n = (seqlab.arange(10) * 2).numpy()
    import gc
    gc.collect()
    np.testing.assert_array_equal(n, np.arange(10) * 2)


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=NP_IDS)
def test_asarray_zero_copy(dtype):
    t = seqlab.from_numpy(sample(dtype))
    n = np.asarray(t)
    assert n.dtype == dtype and n.shape == (2, 3)
    np.testing.assert_array_equal(n, sample(dtype))
    assert np.shares_memory(n, t.numpy())
    n[1, 1] = poke_value(dtype)
    assert t[1, 1].item() == poke_value(dtype)


def test_asarray_of_noncontiguous_and_0d():
    t = seqlab.from_numpy(np.arange(6, dtype=np.float64).reshape(2, 3))
    n = np.asarray(t.t())
    np.testing.assert_array_equal(n, np.arange(6, dtype=np.float64).reshape(2, 3).T)
    assert np.shares_memory(n, t.numpy())
    z = np.asarray(seqlab.tensor(2.5))
    assert z.shape == () and z == 2.5


def test_memoryview_buffer_protocol():
    t = seqlab.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    m = memoryview(t)
    assert m.shape == (2, 3) and m.format.endswith("f") and m.itemsize == 4
    assert m.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_numpy_ufuncs_accept_tensor():
    t = seqlab.from_numpy(np.array([1.0, 4.0, 9.0]))
    np.testing.assert_array_equal(np.sqrt(np.asarray(t)), [1.0, 2.0, 3.0])


# ----------------------------------------------------------------------------------------
# DLPack
# ----------------------------------------------------------------------------------------

TORCH_OF = {np.float32: torch.float32, np.float64: torch.float64, np.int64: torch.int64, np.bool_: torch.bool}


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=NP_IDS)
def test_dlpack_seqlab_to_torch_shares_memory(dtype):
    s = seqlab.from_numpy(sample(dtype))
    t = torch.from_dlpack(s)
    assert t.dtype == TORCH_OF[dtype] and tuple(t.shape) == (2, 3)
    np.testing.assert_array_equal(t.numpy(), sample(dtype))
    t[0, 2] = True if dtype == np.bool_ else 42
    assert s[0, 2].item() == t[0, 2].item()
    s.fill_(False if dtype == np.bool_ else 5)
    assert bool(torch.all(t == (False if dtype == np.bool_ else 5)))


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=NP_IDS)
def test_dlpack_torch_to_seqlab_shares_memory(dtype):
    t = torch.from_numpy(sample(dtype).copy())
    s = seqlab.from_dlpack(t)
    assert s.dtype == getattr(seqlab, SL_OF[dtype]) and tuple(s.shape) == (2, 3)
    np.testing.assert_array_equal(sl_np(s), sample(dtype))
    t[1, 0] = True if dtype == np.bool_ else 42
    assert s[1, 0].item() == t[1, 0].item()
    s.fill_(True if dtype == np.bool_ else -1)
    assert bool(torch.all(t == (True if dtype == np.bool_ else -1)))


def test_dlpack_noncontiguous_both_ways():
    s = seqlab.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    t = torch.from_dlpack(s.t())
    np.testing.assert_array_equal(t.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4).T)
    assert tuple(t.stride()) == (1, 4)
    tt = torch.arange(12, dtype=torch.float64).reshape(3, 4)[:, ::2]
    s2 = seqlab.from_dlpack(tt)
    np.testing.assert_array_equal(sl_np(s2), tt.numpy())
    assert tuple(s2.stride()) == tuple(tt.stride())
    tt[2, 1] = -7.0
    assert s2[2, 1].item() == -7.0


def test_dlpack_torch_tensor_kept_alive():
    s = seqlab.from_dlpack(torch.arange(100, dtype=torch.float64))
    import gc
    gc.collect()
    assert s.sum().item() == sum(range(100))


def test_dlpack_device():
    dev = seqlab.zeros(3).__dlpack_device__()
    assert tuple(dev) == (1, 0)  # (kDLCPU, device 0)


def test_dlpack_numpy_both_ways():
    s = seqlab.from_numpy(np.arange(6, dtype=np.float64).reshape(2, 3))
    n = np.from_dlpack(s)
    np.testing.assert_array_equal(n, np.arange(6).reshape(2, 3))
    s.mul_(2.0)
    np.testing.assert_array_equal(n, 2 * np.arange(6).reshape(2, 3))
    a = np.arange(4, dtype=np.float32)
    s2 = seqlab.from_dlpack(a)
    a[3] = 100.0
    assert s2[3].item() == 100.0


def test_dlpack_0d_and_empty():
    s = seqlab.tensor(4.5)
    t = torch.from_dlpack(s)
    assert t.shape == () and t.item() == 4.5
    e = seqlab.from_dlpack(torch.zeros(0, 3))
    assert tuple(e.shape) == (0, 3)


def test_dlpack_roundtrip_through_torch_autograd_values():
    """seqlab -> torch -> compute in torch -> back: values are consistent."""
    s = seqlab.randn(4, 5)
    t = torch.from_dlpack(s)
    back = seqlab.from_dlpack(t * 2)
    np.testing.assert_allclose(sl_np(back), 2 * sl_np(s), rtol=1e-6)


# ----------------------------------------------------------------------------------------
# tolist / item
# ----------------------------------------------------------------------------------------

TOLIST_CASES = {
    "f32-2d": np.array([[1.5, 2.0], [3.0, -4.25]], dtype=np.float32),
    "f64-1d": np.array([0.1, 0.2], dtype=np.float64),
    "i64-3d": np.arange(8, dtype=np.int64).reshape(2, 2, 2),
    "bool": np.array([True, False]),
    "0d": np.array(7.5, dtype=np.float64),
    "empty": np.zeros((2, 0), dtype=np.float32),
}


@pytest.mark.parametrize("name", list(TOLIST_CASES))
def test_tolist_matches_torch(name):
    a = TOLIST_CASES[name]
    got = seqlab.from_numpy(a.copy()).tolist()
    expected = torch.from_numpy(a.copy()).tolist()
    assert got == expected
    assert type(got) is type(expected)


def test_tolist_element_types_and_noncontiguous():
    s = seqlab.tensor([[1, 2], [3, 4]])
    assert s.t().tolist() == [[1, 3], [2, 4]]
    assert all(type(v) is int for row in s.tolist() for v in row)
    assert type(seqlab.tensor([1.5]).tolist()[0]) is float
    assert type(seqlab.tensor([True]).tolist()[0]) is bool
    assert seqlab.tensor([1.0], requires_grad=True).tolist() == [1.0]


def test_item():
    v = seqlab.tensor(2.5).item()
    assert v == 2.5 and type(v) is float
    i = seqlab.tensor([[7]]).item()
    assert i == 7 and type(i) is int
    b = seqlab.tensor([True]).item()
    assert b is True
    f32 = seqlab.tensor(0.1, dtype=seqlab.float32).item()
    assert f32 == float(np.float32(0.1))
    x = seqlab.tensor([3.0], requires_grad=True)
    assert (x * 2).item() == 6.0  # item works on tensors that require grad
