"""float16 and bfloat16 at the tensor level against torch: the names (seqlab.half, HalfTensor,
Tensor.half(), type()), creation with their rounding and overflow checks (tensor, from_numpy, full,
arange / linspace / logspace as torch's 16-bit kernels compute them), reading (repr, tolist, item,
numpy, DLPack), indexing and data movement, set_default_dtype, finfo and promote_types. Values are
compared bit for bit. The op sweep is tests/test_half_dtypes.py; the Python side:
python/seqlab/_tensor.py and _reduced_float.py."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_raises_like_torch

DTYPES = ["float16", "bfloat16"]


def bits(t):
    """The values of a seqlab or torch tensor as float32 bit patterns (16 -> 32 bits is exact),
    every NaN as one pattern (a NaN's payload is no value torch promises)."""
    arr = np.ascontiguousarray(t.detach().float().contiguous().numpy())
    return np.where(np.isnan(arr), np.float32(np.nan), arr).view(np.uint32)


def same(s, t):
    """seqlab tensor s is torch tensor t: dtype, shape and every bit."""
    assert str(s.dtype).rpartition(".")[2] == str(t.dtype).rpartition(".")[2], (s.dtype, t.dtype)
    assert tuple(s.shape) == tuple(t.shape), (s.shape, t.shape)
    np.testing.assert_array_equal(bits(s), bits(t))


def lib_repr(t):
    return repr(t).replace("torch.", "seqlab.")


# Values whose 16-bit rounding differs between one and two roundings, ties, subnormals, the
# largest finite values and beyond, signed zero and the non-finite.
TRICKY = [0.0, -0.0, 1.0, 1 / 3, -2.5, 3.14159265, 1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -8 + 2 ** -40, 2049.0, 2050.0,
          65504.0, 65519.0, 65520.0, 1e6, 6e-8, 1e-7, 3e-5, 1e-40, 3.3895313892515355e38, 3.4e38, 1e39,
          float("inf"), float("-inf"), float("nan")]


# ------------------------------------------------------------------ names
def test_dtype_names():
    assert seqlab.half is seqlab.float16 and str(seqlab.float16) == "seqlab.float16"
    assert str(seqlab.bfloat16) == "seqlab.bfloat16"
    for name in DTYPES:
        s, t = getattr(seqlab, name), getattr(torch, name)
        assert s.itemsize == t.itemsize == 2
        assert s.is_floating_point == t.is_floating_point
        x, y = seqlab.ones(3, dtype=s), torch.ones(3, dtype=t)
        assert x.element_size() == y.element_size() == 2
        assert x.is_floating_point() and seqlab.is_floating_point(x)


@pytest.mark.parametrize("name, type_name", [("float16", "HalfTensor"), ("bfloat16", "BFloat16Tensor")])
def test_typed_tensors(name, type_name):
    S, T = getattr(seqlab, type_name), getattr(torch, type_name)
    assert repr(S) == repr(T).replace("torch.", "seqlab.")
    same(S([1.0, 1 / 3, 2.5]), T([1.0, 1 / 3, 2.5]))
    assert tuple(S(2, 3).shape) == (2, 3) and S(2, 3).dtype == getattr(seqlab, name)
    x, y = seqlab.tensor([1.5, -2.0]), torch.tensor([1.5, -2.0])
    assert isinstance(x.type(S), S) and not isinstance(x, S) and isinstance(y.type(T), T)
    assert x.type(S).type() == y.type(T).type().replace("torch.", "seqlab.") == f"seqlab.{type_name}"
    same(x.type(f"torch.{type_name}"), y.type(f"torch.{type_name}"))
    same(x.type(f"seqlab.{type_name}"), y.type(T))
    same(x.type(getattr(seqlab, name)), y.type(getattr(torch, name)))
    same(seqlab.tensor([1, 2], dtype=getattr(seqlab, name)).type(seqlab.FloatTensor),
         torch.tensor([1, 2], dtype=getattr(torch, name)).type(torch.FloatTensor))


@pytest.mark.parametrize("method", ["half", "bfloat16"])
def test_conversion_methods(method):
    values = np.array(TRICKY[:-4], dtype=np.float64)
    for src in ("float64", "float32", "int64", "bool"):
        x = seqlab.tensor(values).to(getattr(seqlab, src))
        y = torch.tensor(values).to(getattr(torch, src))
        same(getattr(x, method)(), getattr(y, method)())
    x, y = getattr(seqlab.ones(2, 3), method)(), getattr(torch.ones(2, 3), method)()
    assert getattr(x, method)() is x and getattr(y, method)() is y  # already that dtype: self
    xt, yt = x.t(), y.t()
    assert getattr(xt, method)(memory_format=seqlab.contiguous_format) is xt
    assert getattr(yt, method)(memory_format=torch.contiguous_format) is yt
    assert getattr(seqlab.ones(2, 3).t(), method)(memory_format=seqlab.contiguous_format).is_contiguous()
    assert getattr(torch.ones(2, 3).t(), method)(memory_format=torch.contiguous_format).is_contiguous()
    same(getattr(x, method)(memory_format=seqlab.preserve_format), getattr(y, method)(memory_format=torch.preserve_format))
    assert_raises_like_torch(lambda: getattr(x, method)(memory_format=3),
                             lambda: getattr(y, method)(memory_format=3), "memory_format")
    assert_raises_like_torch(lambda: getattr(x, method)(seqlab.preserve_format),
                             lambda: getattr(y, method)(torch.preserve_format))
    # differentiable: the gradient comes back in the source's dtype
    grads = []
    for lib in (seqlab, torch):
        leaf = lib.tensor([1 / 3, 2.5, -7.0], requires_grad=True)
        out = getattr(leaf, method)()
        assert out.grad_fn.name() == "ToCopyBackward0" and out.requires_grad
        ((out * out).float() * 3).sum().backward()
        grads.append(leaf.grad)
    assert grads[0].dtype == seqlab.float32 and grads[0].tolist() == grads[1].tolist()
    # the other conversions take the same keyword
    same(x.float(memory_format=seqlab.preserve_format), y.float(memory_format=torch.preserve_format))
    same(x.double(memory_format=seqlab.contiguous_format), y.double(memory_format=torch.contiguous_format))


# ------------------------------------------------------------------ creation
@pytest.mark.parametrize("name", DTYPES)
def test_tensor_rounds_as_torch(name):
    s, t = getattr(seqlab, name), getattr(torch, name)
    same(seqlab.tensor(TRICKY, dtype=s), torch.tensor(TRICKY, dtype=t))
    arr = np.array(TRICKY)
    same(seqlab.tensor(arr, dtype=s), torch.tensor(arr, dtype=t))
    same(seqlab.as_tensor(arr, dtype=s), torch.as_tensor(arr, dtype=t))
    with np.errstate(over="ignore"):
        arr32 = arr.astype(np.float32)
    same(seqlab.tensor(arr32, dtype=s), torch.tensor(arr32, dtype=t))
    ints = [0, 1, -7, 2049, 2051, 65519, 70000, 2 ** 40, 2 ** 70]
    same(seqlab.tensor(ints, dtype=s), torch.tensor(ints, dtype=t))
    same(seqlab.tensor(np.array(ints[:-1]), dtype=s), torch.tensor(np.array(ints[:-1]), dtype=t))
    same(seqlab.tensor([[True, False]], dtype=s), torch.tensor([[True, False]], dtype=t))
    same(seqlab.tensor(1 / 3, dtype=s), torch.tensor(1 / 3, dtype=t))
    same(seqlab.tensor([], dtype=s), torch.tensor([], dtype=t))
    # a 16-bit tensor as data keeps its dtype; requires_grad as asked
    x = seqlab.tensor(seqlab.tensor([1.5, 2.25], dtype=s), requires_grad=True)
    assert x.dtype == s and x.requires_grad and x.is_leaf
    same(seqlab.tensor(seqlab.tensor(TRICKY), dtype=s), torch.tensor(torch.tensor(TRICKY), dtype=t))


def test_float16_numpy_arrays():
    arr = np.array([1.0, 1 / 3, -0.0, 65504.0, 6e-8, np.inf, np.nan], dtype=np.float16)
    for make_s, make_t in ((seqlab.tensor, torch.tensor), (seqlab.as_tensor, torch.as_tensor),
                           (seqlab.from_numpy, torch.from_numpy)):
        same(make_s(arr), make_t(arr))
    shared = seqlab.from_numpy(arr)
    assert seqlab.as_tensor(arr).data_ptr() == shared.data_ptr() == arr.ctypes.data
    copy = seqlab.tensor(arr)
    assert copy.data_ptr() != arr.ctypes.data
    arr[0] = 7.0
    assert shared[0].item() == 7.0 and copy[0].item() == 1.0
    same(seqlab.tensor(arr[::2]), torch.tensor(arr[::2]))
    same(seqlab.tensor(arr.astype(">f2")), torch.tensor(arr))  # big-endian data, converted
    same(seqlab.tensor(np.float16(2.5)), torch.tensor(np.float16(2.5)))
    same(seqlab.tensor(arr, dtype=seqlab.bfloat16), torch.tensor(arr, dtype=torch.bfloat16))


@pytest.mark.parametrize("name", DTYPES)
def test_fill_creation(name):
    s, t = getattr(seqlab, name), getattr(torch, name)
    same(seqlab.zeros(2, 3, dtype=s), torch.zeros(2, 3, dtype=t))
    same(seqlab.ones((4,), dtype=s), torch.ones((4,), dtype=t))
    assert seqlab.empty(2, 5, dtype=s).dtype == s and tuple(seqlab.empty(2, 5, dtype=s).shape) == (2, 5)
    for value in (1 / 3, 7, True, -0.0, 65504.0, 65504.5 if name == "bfloat16" else 6e-8, 1e-40, float("inf"),
                  float("nan"), 3.3e38 if name == "bfloat16" else -65500.0):
        same(seqlab.full((2, 2), value, dtype=s), torch.full((2, 2), value, dtype=t))
    same(seqlab.eye(3, 2, dtype=s), torch.eye(3, 2, dtype=t))
    big = 1e6 if name == "float16" else 1e39
    for value in (big, -big, 65504.5 if name == "float16" else 3.4e38, 65520.0 if name == "float16" else 3.5e38):
        assert_raises_like_torch(lambda: seqlab.full((2,), value, dtype=s), lambda: torch.full((2,), value, dtype=t),
                                 "value cannot be converted to type .*" + ("Half" if name == "float16" else "BFloat16")
                                 + " without overflow")


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("args", [(5,), (0.5, 3), (0, 3, 0.1), (0, 100, 0.7), (-5, 5, 0.33), (0, 3000, 1.5),
                                  (0.3, 77.7, 0.37), (0, 5000), (10, -3, -0.45), (0, 70000, 1000), (1, 1)])
def test_arange(name, args):
    same(seqlab.arange(*args, dtype=getattr(seqlab, name)), torch.arange(*args, dtype=getattr(torch, name)))


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("args", [(0, 1, 5), (0, 1, 100), (-3.3, 7.1, 1000), (0, 1, 37), (0.1, 1000, 3000),
                                  (0, 1, 5000), (3, -2, 77), (2.5, 9, 1), (2.5, 9, 0), (1 / 3, 1 / 3, 4)])
def test_linspace_logspace(name, args):
    s, t = getattr(seqlab, name), getattr(torch, name)
    same(seqlab.linspace(*args, dtype=s), torch.linspace(*args, dtype=t))
    a, b, n = args
    same(seqlab.logspace(a / 4, b / 4, n, dtype=s), torch.logspace(a / 4, b / 4, n, dtype=t))
    same(seqlab.logspace(a / 4, b / 4, n, base=2.0, dtype=s), torch.logspace(a / 4, b / 4, n, base=2.0, dtype=t))


def test_range_overflow_errors():
    assert_raises_like_torch(lambda: seqlab.linspace(0, 1e6, 3, dtype=seqlab.float16),
                             lambda: torch.linspace(0, 1e6, 3, dtype=torch.float16),
                             "value cannot be converted to type c10::Half without overflow")
    assert_raises_like_torch(lambda: seqlab.logspace(-1e39, 0, 3, dtype=seqlab.bfloat16),
                             lambda: torch.logspace(-1e39, 0, 3, dtype=torch.bfloat16),
                             "value cannot be converted to type c10::BFloat16 without overflow")
    assert_raises_like_torch(lambda: seqlab.logspace(1e39, 0, 2, dtype=seqlab.float16),
                             lambda: torch.logspace(1e39, 0, 2, dtype=torch.float16),
                             "value cannot be converted to type c10::Half without overflow")
    # one step: torch fills start (linspace) or base ** start (logspace) unchecked
    for a, b in ((1e6, 0), (6, 0), (0, 1e6), (-1e39, 0)):
        same(seqlab.linspace(a, b, 1, dtype=seqlab.float16), torch.linspace(a, b, 1, dtype=torch.float16))
        same(seqlab.logspace(a, b, 1, dtype=seqlab.bfloat16), torch.logspace(a, b, 1, dtype=torch.bfloat16))
        same(seqlab.logspace(a / 1e5, b, 1, dtype=seqlab.float16), torch.logspace(a / 1e5, b, 1, dtype=torch.float16))


@pytest.mark.parametrize("name", DTYPES)
def test_random_creation(name):
    s = getattr(seqlab, name)
    seqlab.manual_seed(0)
    u = seqlab.rand(200000, dtype=s)
    digits = 11 if name == "float16" else 8  # torch draws k / 2^digits: never 1 after rounding
    values = u.float().numpy()
    assert u.dtype == s and values.min() >= 0 and values.max() < 1
    assert np.all(values * 2 ** digits == np.floor(values * 2 ** digits))
    assert len(np.unique(values)) == 2 ** digits  # every value is drawn
    assert abs(values.mean() - 0.5) < 0.01
    n = seqlab.randn(100000, dtype=s)
    assert n.dtype == s and abs(n.float().mean().item()) < 0.02 and abs(n.float().std().item() - 1) < 0.02
    r = seqlab.randint(-5, 5, (1000,), dtype=s)
    assert r.dtype == s and set(r.tolist()) == set(float(k) for k in range(-5, 5))
    p = seqlab.randperm(200, dtype=s)
    assert p.dtype == s and sorted(p.tolist()) == [float(k) for k in range(200)]
    t = getattr(torch, name)
    assert_raises_like_torch(lambda: seqlab.randint(0, 10 ** 39, (2,), dtype=s),
                             lambda: torch.randint(0, 10 ** 39, (2,), dtype=t), "Overflow|out of bounds")
    if name == "float16":
        assert_raises_like_torch(lambda: seqlab.randint(-70000, 5, (2,), dtype=s),
                                 lambda: torch.randint(-70000, 5, (2,), dtype=t), "from is out of bounds for c10::Half")
        assert_raises_like_torch(lambda: seqlab.randint(0, 70000, (2,), dtype=s),
                                 lambda: torch.randint(0, 70000, (2,), dtype=t), "to - 1 is out of bounds for c10::Half")
        assert_raises_like_torch(lambda: seqlab.randperm(2050, dtype=s), lambda: torch.randperm(2050, dtype=t),
                                 "n cannot be greater than 2049 for Half type.")
        assert seqlab.randperm(2049, dtype=s).shape == torch.randperm(2049, dtype=t).shape
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^\d+\), 2\^\d+\]. Due to precision"):
        seqlab.randint(0, 5000, (3,), dtype=s)
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^\d+\), 2\^\d+\]. Due to precision"):
        torch.randint(0, 5000, (3,), dtype=t)
    x = seqlab.zeros(3, 4, dtype=s)
    for like in (seqlab.rand_like(x), seqlab.randn_like(x), seqlab.randint_like(x, 3)):
        assert like.dtype == s and tuple(like.shape) == (3, 4)


@pytest.mark.parametrize("name", DTYPES)
def test_like_and_new(name):
    s, t = getattr(seqlab, name), getattr(torch, name)
    x, y = seqlab.tensor([[1.0, 2.0, 3.0]], dtype=s), torch.tensor([[1.0, 2.0, 3.0]], dtype=t)
    same(seqlab.zeros_like(x), torch.zeros_like(y))
    same(seqlab.ones_like(x), torch.ones_like(y))
    same(seqlab.full_like(x, 1 / 3), torch.full_like(y, 1 / 3))
    same(seqlab.full_like(seqlab.zeros(2), 1 / 3, dtype=s), torch.full_like(torch.zeros(2), 1 / 3, dtype=t))
    assert seqlab.empty_like(x).dtype == s and tuple(seqlab.empty_like(x).shape) == (1, 3)
    same(seqlab.zeros_like(seqlab.zeros(2, dtype=seqlab.int64), dtype=s), torch.zeros_like(torch.zeros(2), dtype=t))
    same(x.new_zeros(2), y.new_zeros(2))
    same(x.new_ones((1, 2)), y.new_ones((1, 2)))
    same(x.new_full((3,), 2.7), y.new_full((3,), 2.7))
    same(x.new_tensor([1 / 3, 7.1]), y.new_tensor([1 / 3, 7.1]))
    same(x.new([1 / 3, 7.1]), y.new([1 / 3, 7.1]))
    assert x.new_empty(4).dtype == s and x.new_empty((2, 2)).shape == (2, 2)
    same(seqlab.zeros(2).new_tensor([1 / 3], dtype=s), torch.zeros(2).new_tensor([1 / 3], dtype=t))
    assert_raises_like_torch(lambda: x.new_full((2,), 1e39), lambda: y.new_full((2,), 1e39), "without overflow")


# ------------------------------------------------------------------ reading
REPR_DATA = [[1.0, 2.0], [1 / 3, 2.5, -7.25], [1e-5, 1.0, 3e4], [0.0, -0.0], [65504.0, -1.0],
             [float("nan"), float("inf"), 1.5], [[1.0, 2.5], [3.0, 4.0]], 3.14159, [], [6e-8, 1.0],
             list(range(2000))]


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("data", REPR_DATA, ids=range(len(REPR_DATA)))
def test_repr(name, data):
    x = seqlab.tensor(data, dtype=getattr(seqlab, name))
    y = torch.tensor(data, dtype=getattr(torch, name))
    assert repr(x) == lib_repr(y)
    assert str(x) == str(y).replace("torch.", "seqlab.")
    assert repr(x.requires_grad_(x.numel() > 0)) == lib_repr(y.requires_grad_(y.numel() > 0))


@pytest.mark.parametrize("name", DTYPES)
def test_tolist_item(name):
    x, y = seqlab.tensor(TRICKY, dtype=getattr(seqlab, name)), torch.tensor(TRICKY, dtype=getattr(torch, name))
    got, want = x.tolist(), y.tolist()
    assert all(type(a) is float for a in got)
    np.testing.assert_array_equal(np.array(got), np.array(want))
    assert [np.signbit(v) for v in got] == [np.signbit(v) for v in want]
    for i in range(len(TRICKY)):
        a, b = x[i].item(), y[i].item()
        assert type(a) is float and (a == b or (np.isnan(a) and np.isnan(b)))
    assert x[3].tolist() == y[3].tolist() and float(x[3]) == float(y[3]) and int(x[2]) == int(y[2])
    assert seqlab.tensor([[1.5]], dtype=getattr(seqlab, name)).tolist() == [[1.5]]


def test_numpy_float16_shares_memory():
    x = seqlab.tensor([1.0, 1 / 3, 6e-8], dtype=seqlab.float16)
    y = torch.tensor([1.0, 1 / 3, 6e-8], dtype=torch.float16)
    a = x.numpy()
    assert a.dtype == np.float16 == y.numpy().dtype
    np.testing.assert_array_equal(a, y.numpy())
    a[0] = 5.0
    assert x[0].item() == 5.0
    b = np.asarray(x)
    assert b.dtype == np.float16 and b.ctypes.data == x.data_ptr()
    np.testing.assert_array_equal(np.asarray(x, dtype=np.float32), np.asarray(y, dtype=np.float32) * [5, 1, 1])
    np.testing.assert_array_equal(x.t().numpy(), a)


def test_numpy_bfloat16_refused():
    x, y = seqlab.tensor([1.0, 2.0], dtype=seqlab.bfloat16), torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
    for fn in (lambda z: z.numpy(), lambda z: np.asarray(z), lambda z: z.__array__(), lambda z: np.array(z)):
        assert_raises_like_torch(lambda: fn(x), lambda: fn(y), "Got unsupported ScalarType BFloat16")


@pytest.mark.parametrize("name", DTYPES)
def test_dlpack_round_trips(name):
    s, t = getattr(seqlab, name), getattr(torch, name)
    x = seqlab.tensor(TRICKY, dtype=s)
    y = torch.from_dlpack(x)
    assert y.dtype == t and y.data_ptr() == x.data_ptr()
    same(x, y)
    z = torch.tensor(TRICKY, dtype=t)
    w = seqlab.from_dlpack(z)
    assert w.dtype == s and w.data_ptr() == z.data_ptr()
    same(w, z)
    same(seqlab.from_dlpack(z[::3]), z[::3])  # strided
    back = seqlab.from_dlpack(torch.from_dlpack(x))
    assert back.data_ptr() == x.data_ptr()
    z[0] = 4.0
    assert w[0].item() == 4.0
    same(seqlab.from_dlpack(z.view(6, 4).t()), z.view(6, 4).t())
    target = seqlab.zeros(len(TRICKY), dtype=s)
    target.copy_(z)
    same(target, z)


@pytest.mark.parametrize("name", DTYPES)
def test_equal_allclose_pickle(name):
    s, t = getattr(seqlab, name), getattr(torch, name)
    x, y = seqlab.tensor([1.0, 1 / 3], dtype=s), torch.tensor([1.0, 1 / 3], dtype=t)
    assert seqlab.equal(x, x.clone()) == torch.equal(y, y.clone()) is True
    assert seqlab.equal(x, x + 1) == torch.equal(y, y + 1) is False
    assert x.allclose(x.clone()) and seqlab.allclose(x, x.clone())
    z = pickle.loads(pickle.dumps(x.requires_grad_()))
    assert z.dtype == s and z.requires_grad and seqlab.equal(z, x)


# ------------------------------------------------------------------ indexing and data movement
def pair(name, data):
    return seqlab.tensor(data, dtype=getattr(seqlab, name)), torch.tensor(data, dtype=getattr(torch, name))


MATRIX = [[1 / 3, -2.5, 7.0, 0.0], [1e-6, 65504.0, -0.0, 3.0], [2.0, 1.0, -1.0, 1 / 7]]


@pytest.mark.parametrize("name", DTYPES)
def test_indexing(name):
    x, y = pair(name, MATRIX)
    for key in (1, -1, (2, 3), slice(None, None, 2), (slice(None), slice(1, 3)), (Ellipsis, 0), (None, 1),
                [0, 2], ([0, 2], [1, 3]), (slice(None), [3, 0, 0])):
        xk, yk = x[key], y[key]
        same(xk, yk)
    same(x[x > 1], y[y > 1])
    same(x[seqlab.tensor([True, False, True])], y[torch.tensor([True, False, True])])
    same(x[seqlab.tensor([2, 0])], y[torch.tensor([2, 0])])
    same(x[seqlab.tensor([2, 0], dtype=seqlab.int32)], y[torch.tensor([2, 0], dtype=torch.int32)])
    assert x[1]._base is not None if hasattr(x[1], "_base") else True
    v = x[1]  # a basic index is a view: a write through it reaches x
    v[0] = 9.0
    assert x[1, 0].item() == 9.0
    assert x.t().data_ptr() == x.data_ptr() and x[:, 1:].data_ptr() != 0


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("source", ["float", "double", "int", "long", "same", "bool"])
def test_setitem(name, source):
    x, y = pair(name, MATRIX)
    v_s, v_t = seqlab.tensor([1 / 3, 1e6, -5.0, 2049.0]), torch.tensor([1 / 3, 1e6, -5.0, 2049.0])
    if source == "same":
        v_s, v_t = v_s.to(x.dtype), v_t.to(y.dtype)
    elif source == "bool":
        v_s, v_t = v_s > 0, v_t > 0
    else:
        v_s, v_t = getattr(v_s, source)(), getattr(v_t, source)()
    x[0], y[0] = v_s, v_t  # a basic index: a copy, converted
    x[:, 1], y[:, 1] = v_s[:3], v_t[:3]
    x[x > 3], y[y > 3] = v_s[0], v_t[0]  # one mask and a 0-d value: a masked_fill, converted
    same(x, y)
    if source == "same":
        x[[2, 1], [3, 3]], y[[2, 1], [3, 3]] = v_s[1:3], v_t[1:3]
        x[0, [1, 2]], y[0, [1, 2]] = v_s[0], v_t[0]
    else:  # index_put_ takes only self's dtype
        for key in (([2, 1], [3, 3]), [0], (0, [1, 2]), x > 3):
            value_s, value_t = (v_s[:1], v_t[:1]) if isinstance(key, list) else (v_s[1:3], v_t[1:3])
            if isinstance(key, seqlab.Tensor):
                value_s, value_t, key_t = v_s[:1].expand(int(key.sum())), v_t[:1].expand(int(key.sum())), y > 3
            else:
                key_t = key
            assert_raises_like_torch(lambda: x.__setitem__(key, value_s), lambda: y.__setitem__(key_t, value_t),
                                     "Index put requires the source and destination dtypes match, got "
                                     f"{'Half' if name == 'float16' else 'BFloat16'} for the destination")
    same(x, y)
    x[1, 2], y[1, 2] = 1 / 3, 1 / 3
    x[2], y[2] = 7, 7
    x[0, 0], y[0, 0] = 1e6, 1e6  # a Python number: rounded (float16: inf), as torch, not refused
    x[..., 3], y[..., 3] = True, True
    x[seqlab.tensor([0, 2])], y[torch.tensor([0, 2])] = 2.5, 2.5
    same(x, y)


@pytest.mark.parametrize("name", DTYPES)
def test_shape_and_movement(name):
    x, y = pair(name, MATRIX)
    cases = [
        lambda m, a: m.cat([a, a * 0], 0), lambda m, a: m.cat([a, a], 1), lambda m, a: m.stack([a, a], 1),
        lambda m, a: m.where(a > 0, a, -a), lambda m, a: m.where(a > 1, a, 0.5), lambda m, a: a.masked_fill(a < 1, 1 / 3),
        lambda m, a: a.t().contiguous(), lambda m, a: a.view(4, 3), lambda m, a: a.reshape(2, 6),
        lambda m, a: a.permute(1, 0), lambda m, a: a[:1].expand(3, 4), lambda m, a: a.flip(0), lambda m, a: a.flip(1),
        lambda m, a: a.roll(1, 1), lambda m, a: a.roll(-2), lambda m, a: a.gather(1, m.tensor([[0, 0], [3, 1], [2, 2]])),
        lambda m, a: a.index_select(1, m.tensor([3, 0])), lambda m, a: a.sort(1)[0], lambda m, a: a.sort(1)[1],
        lambda m, a: a.sort(0, descending=True)[0], lambda m, a: a.topk(2)[0], lambda m, a: a.topk(2)[1],
        lambda m, a: a.argmax(), lambda m, a: a.argmax(1), lambda m, a: a.argmin(0), lambda m, a: a.max(1)[0],
        lambda m, a: a == a.flip(0), lambda m, a: a > 1, lambda m, a: a <= 1 / 3, lambda m, a: a != 0,
        lambda m, a: a.unsqueeze(0).squeeze(0), lambda m, a: a.flatten(), lambda m, a: a.narrow(1, 1, 2),
        lambda m, a: a.transpose(0, 1).reshape(-1), lambda m, a: a.split(2, 1)[1], lambda m, a: a.chunk(3)[2],
        lambda m, a: a.clone(), lambda m, a: a.detach(), lambda m, a: a.unbind(1)[2], lambda m, a: a.tril(),
        lambda m, a: a.repeat(2, 1), lambda m, a: a.masked_select(a > 0), lambda m, a: a.nonzero(),
        lambda m, a: m.cat([a.float(), a]),
    ]
    for i, case in enumerate(cases):
        got, want = case(seqlab, x), case(torch, y)
        if want.dtype.is_floating_point:
            same(got, want)
        else:
            assert str(got.dtype).rpartition(".")[2] == str(want.dtype).rpartition(".")[2], i
            np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=str(i))


@pytest.mark.parametrize("name", DTYPES)
def test_fill_overflow(name):
    """fill_ and masked_fill convert their number as torch's checked conversion: beyond the largest
    finite value is refused (inf is not); a 0-d tensor fill_ value is copied, unchecked."""
    x, y = pair(name, [1.0, 2.0, 3.0])
    m_s, m_t = seqlab.tensor([True, False, True]), torch.tensor([True, False, True])
    kind = "Half" if name == "float16" else "BFloat16"
    big = 1e6 if name == "float16" else 1e39
    for value in (big, -big, 65504.5 if name == "float16" else 3.4e38):
        for fn in (lambda a, m, v: a.masked_fill(m, v), lambda a, m, v: a.clone().masked_fill_(m, v),
                   lambda a, m, v: a.clone().fill_(v)):
            assert_raises_like_torch(lambda: fn(x, m_s, value), lambda: fn(y, m_t, value),
                                     f"value cannot be converted to type .*{kind} without overflow")
        if name == "float16":  # (a float32 0-d value: 1e6 stays finite; bfloat16's bounds go inf in float32)
            assert_raises_like_torch(lambda: x.masked_fill(m_s, seqlab.tensor(value)),
                                     lambda: y.masked_fill(m_t, torch.tensor(value)), f"{kind} without overflow")
        same(x.clone().fill_(seqlab.tensor(value)), y.clone().fill_(torch.tensor(value)))
    for value in (float("inf"), float("nan"), 1 / 3, 65504.0, 7):
        same(x.masked_fill(m_s, value), y.masked_fill(m_t, value))
        same(seqlab.masked_fill(x, m_s, value), torch.masked_fill(y, m_t, value))
        same(x.clone().masked_fill_(m_s, value), y.clone().masked_fill_(m_t, value))
        same(x.clone().fill_(value), y.clone().fill_(value))


@pytest.mark.parametrize("name", DTYPES)
def test_numpy_read_ops(name):
    """The ops seqlab computes through NumPy (sort, unique, order statistics, searchsorted) read
    bfloat16 as its float32 values and give back bfloat16."""
    data = [[1 / 3, -2.5, 7.0, 1.0], [1e-6, 3.0, 2.0, 3.0], [2.0, 1.0, -1.0, 1 / 7]]
    x, y = pair(name, data)
    assert x.itemsize == y.itemsize == 2 and x.nbytes == y.nbytes == 24
    cases = [lambda m, a: a.unique(), lambda m, a: m.unique(a, return_inverse=True, return_counts=True)[1],
             lambda m, a: a.unique_consecutive(), lambda m, a: a.unique(dim=0), lambda m, a: a.median(),
             lambda m, a: a.median(0)[0], lambda m, a: a.median(0)[1], lambda m, a: a.kthvalue(2, 1)[0],
             lambda m, a: a.kthvalue(2, 1)[1], lambda m, a: a.mode(1)[0], lambda m, a: m.msort(a),
             lambda m, a: a.argsort(1), lambda m, a: a.sort(1, descending=True)[0], lambda m, a: a.nanmedian(),
             lambda m, a: m.searchsorted(a[0].sort()[0], a[1]), lambda m, a: m.bucketize(a[1], a[0].sort()[0]),
             lambda m, a: a.reshape(-1)[:0].median(), lambda m, a: a.cummax(1)[0], lambda m, a: a.cummin(0)[1]]
    for i, case in enumerate(cases):
        got, want = case(seqlab, x), case(torch, y)
        if want.dtype.is_floating_point:
            same(got, want)
        else:
            np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=str(i))


@pytest.mark.parametrize("name", DTYPES)
def test_comparisons_in_common_dtype(name):
    """torch compares in the operands' common dtype: a number or a 0-d tensor is rounded to the
    16-bit dtype first (x == 2049 finds the stored 2048; bf16(1/3) <= 1/3)."""
    x, y = pair(name, [1 / 3, 2049.0, 65504.0, 1e-8, -0.0, float("nan"), 257.0, 3e38 if name == "bfloat16" else 7.0])
    others = [1 / 3, 2049, 65519, 65520, 1e6, 1e-8, 0, True, 257, 2 ** 62, 3e38, float("inf"), float("nan")]
    for o in others:
        for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
            np.testing.assert_array_equal(getattr(x, op)(o).numpy(), getattr(y, op)(o).numpy(), err_msg=f"{op} {o}")
        for fn in ("eq", "ne", "lt", "le", "gt", "ge"):
            np.testing.assert_array_equal(getattr(seqlab, fn)(x, o).numpy(), getattr(torch, fn)(y, o).numpy())
            np.testing.assert_array_equal(getattr(x, fn)(o).numpy(), getattr(y, fn)(o).numpy())
        for dt in ("float32", "float64", "int64"):
            if dt == "int64" and isinstance(o, float):
                continue
            s0, t0 = seqlab.tensor(o, dtype=getattr(seqlab, dt)), torch.tensor(o, dtype=getattr(torch, dt))
            np.testing.assert_array_equal((x == s0).numpy(), (y == t0).numpy(), err_msg=f"{dt} {o}")
            np.testing.assert_array_equal((x <= s0).numpy(), (y <= t0).numpy(), err_msg=f"{dt} {o}")
            np.testing.assert_array_equal((s0 >= x).numpy(), (t0 >= y).numpy(), err_msg=f"{dt} {o}")
    # dimensioned tensors of another float dtype: compared in that (wider) dtype
    w_s, w_t = seqlab.tensor([1 / 3] * 8), torch.tensor([1 / 3] * 8)
    np.testing.assert_array_equal((x == w_s).numpy(), (y == w_t).numpy())
    ints_s, ints_t = seqlab.tensor([2049] * 8), torch.tensor([2049] * 8)
    np.testing.assert_array_equal((x == ints_s).numpy(), (y == ints_t).numpy())
    np.testing.assert_array_equal((ints_s == x[1]).numpy(), (ints_t == y[1]).numpy())
    other = "bfloat16" if name == "float16" else "float16"
    np.testing.assert_array_equal((x == x.to(getattr(seqlab, other))).numpy(), (y == y.to(getattr(torch, other))).numpy())
    assert_raises_like_torch(lambda: x == 2 ** 64, lambda: y == 2 ** 64)


@pytest.mark.parametrize("name", DTYPES)
def test_views_share_memory(name):
    x = seqlab.zeros(3, 4, dtype=getattr(seqlab, name))
    for view in (x.view(12), x.reshape(2, 6), x.t(), x.permute(1, 0), x[1], x[:, 2], x.unsqueeze(0), x[:1].expand(5, 4),
                 x.narrow(0, 1, 1), x.transpose(0, 1)):
        assert view.data_ptr() >= x.data_ptr() and view.dtype == x.dtype
    v = x.t()
    v[1, 2] = 4.0
    assert x[2, 1].item() == 4.0


# ------------------------------------------------------------------ the default dtype
@pytest.mark.parametrize("name", DTYPES)
def test_set_default_dtype(name):
    s, t = getattr(seqlab, name), getattr(torch, name)
    try:
        seqlab.set_default_dtype(s)
        torch.set_default_dtype(t)
        assert seqlab.get_default_dtype() == s and torch.get_default_dtype() == t
        cases = [
            lambda m: m.tensor([1.5, 1 / 3]), lambda m: m.zeros(2), lambda m: m.ones(2, 2), lambda m: m.full((2,), 1 / 3),
            lambda m: m.arange(0.5, 3), lambda m: m.linspace(0, 1, 7), lambda m: m.eye(2),
            lambda m: m.tensor([1, 2, 3]) / 3, lambda m: m.tensor([1, 2]) * 1.5, lambda m: m.tensor([1, 2]).exp(),
            lambda m: m.tensor([1, 2]).sqrt(), lambda m: m.where(m.tensor([True, False]), 1 / 3, 2.0),
            lambda m: m.tensor([4, 7]) ** 0.5, lambda m: m.tensor([1.5], dtype=m.float32) + m.tensor([1, 2]),
            lambda m: m.tensor(np.array([1.0, 2.0])),
        ]
        for i, case in enumerate(cases):
            same(case(seqlab), case(torch))
        assert seqlab.rand(3).dtype == s and seqlab.randn(3).dtype == s
        for data in ([1.0, 2.5], [1 / 3]):
            assert repr(seqlab.tensor(data)) == lib_repr(torch.tensor(data))
            assert repr(seqlab.tensor(data, dtype=seqlab.float32)) == lib_repr(torch.tensor(data, dtype=torch.float32))
        assert seqlab.tensor([1, 2]).dtype == seqlab.int64
    finally:
        seqlab.set_default_dtype(seqlab.float32)
        torch.set_default_dtype(torch.float32)
    same(seqlab.tensor([1, 2]) / 3, torch.tensor([1, 2]) / 3)


@pytest.mark.parametrize("type_name", ["HalfTensor", "BFloat16Tensor"])
def test_set_default_tensor_type(type_name):
    try:
        for make_s, make_t in ((lambda: getattr(seqlab, type_name), lambda: getattr(torch, type_name)),
                               (lambda: f"torch.{type_name}", lambda: f"torch.{type_name}")):
            with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
                seqlab.set_default_tensor_type(make_s())
            with warnings.catch_warnings():  # (torch warns once per process)
                warnings.simplefilter("ignore")
                torch.set_default_tensor_type(make_t())
            assert str(seqlab.get_default_dtype()) == str(torch.get_default_dtype()).replace("torch.", "seqlab.")
            same(seqlab.tensor([1 / 3]), torch.tensor([1 / 3]))
            seqlab.set_default_dtype(seqlab.float32)
            torch.set_default_dtype(torch.float32)
    finally:
        seqlab.set_default_dtype(seqlab.float32)
        torch.set_default_dtype(torch.float32)


def test_set_default_dtype_refuses_integers():
    assert_raises_like_torch(lambda: seqlab.set_default_dtype(seqlab.int16), lambda: torch.set_default_dtype(torch.int16),
                             "only floating-point types are supported as the default type")


# ------------------------------------------------------------------ finfo and promotion
@pytest.mark.parametrize("name", DTYPES)
def test_finfo(name):
    s, t = seqlab.finfo(getattr(seqlab, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(s, attr) == getattr(t, attr) and type(getattr(s, attr)) is type(getattr(t, attr)), attr
    assert repr(s) == repr(t) and str(s) == str(t)
    assert s == seqlab.finfo(getattr(seqlab, name)) and s != seqlab.finfo(seqlab.float32)


def test_promote_types():
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
    for a in names:
        for b in names:
            got = seqlab.promote_types(getattr(seqlab, a), getattr(seqlab, b))
            want = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert str(got).rpartition(".")[2] == str(want).rpartition(".")[2], (a, b)
            assert seqlab.can_cast(getattr(seqlab, a), getattr(seqlab, b)) == torch.can_cast(getattr(torch, a),
                                                                                             getattr(torch, b))
    x, y = seqlab.ones(2, dtype=seqlab.float16), torch.ones(2, dtype=torch.float16)
    for other in (1, 2.5, True):
        assert str(seqlab.result_type(x, other)).rpartition(".")[2] == str(torch.result_type(y, other)).rpartition(".")[2]
