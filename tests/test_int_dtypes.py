"""int32, int16, int8 and uint8 against torch: creation, NumPy round trips,
conversions, torch's type promotion (every pair of dtypes, tensor-tensor, tensor-0-d and
tensor-number, against torch.result_type and the op's result), integer overflow wrapping,
comparisons, reductions and counting, indexing with int32 indices, printing, save/load and state
dicts, and the errors. The dtypes: cpp/include/seqlab/dtype.hpp; the dispatch:
cpp/src/kernel_utils.hpp; the Python names: python/seqlab/_tensor.py."""
import io
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import sl_np

NEW = ["int32", "int16", "int8", "uint8"]                       # the four dtypes this file is about
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"]
NP = {"int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8}


def S(name):
    return getattr(seqlab, name)


def T(name):
    return getattr(torch, name)


def name_of(t):
    return str(t.dtype).rpartition(".")[2]


def same(s, t):
    """seqlab tensor s equals torch tensor t: dtype, shape and every element."""
    assert name_of(s) == name_of(t), (s, t)
    assert tuple(s.shape) == tuple(t.shape)
    np.testing.assert_array_equal(sl_np(s), t.numpy())


def both(fn):
    """fn(seqlab), fn(torch), or the exceptions they raise."""
    out = []
    for lib in (seqlab, torch):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001  (the test compares what each library raises)
            out.append(e)
    return out


def values(lib, dtype, shape=(2, 3)):
    """Small values every dtype holds (0..5, bool alternating), as a tensor of `shape`."""
    n = int(np.prod(shape))
    data = np.arange(n) % 6
    if dtype == "bool":
        data = data % 2 == 1
    return lib.tensor(data.reshape(shape).tolist(), dtype=getattr(lib, dtype))


# ------------------------------------------------------------------ creation
@pytest.mark.parametrize("dtype", NEW)
def test_creation_functions(dtype):
    for make in (lambda L: L.tensor([[1, 2], [3, 4]], dtype=getattr(L, dtype)),
                 lambda L: L.zeros(2, 3, dtype=getattr(L, dtype)),
                 lambda L: L.ones((2, 3), dtype=getattr(L, dtype)),
                 lambda L: L.full((2, 2), 7, dtype=getattr(L, dtype)),
                 lambda L: L.arange(5, dtype=getattr(L, dtype)),
                 lambda L: L.arange(1, 10, 3, dtype=getattr(L, dtype)),
                 lambda L: L.eye(3, dtype=getattr(L, dtype)),
                 lambda L: L.zeros_like(L.tensor([1.5, 2.5]), dtype=getattr(L, dtype)),
                 lambda L: L.ones(2, dtype=getattr(L, dtype)).new_zeros(3)):
        s, t = both(make)
        same(s, t)
    s, t = both(lambda L: L.empty(2, 3, dtype=getattr(L, dtype)))
    assert name_of(s) == name_of(t) and tuple(s.shape) == (2, 3)
    assert S(dtype).itemsize == T(dtype).itemsize and S(dtype).is_signed == T(dtype).is_signed
    assert not S(dtype).is_floating_point


def test_uint8_arange_wraps_as_torch():
    s, t = both(lambda L: L.arange(300, dtype=L.uint8))
    same(s, t)


# What tensor() stores into each type: the type's range (uint8 also [-255, 0) from an integer,
# which wraps), floats truncated; anything else is torch's RuntimeError.
@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("data", [[-1], [-255], [-256], [255], [256], [127], [128], [-128], [-129], [32767],
                                  [32768], [2**31 - 1], [2**31], [-2**31 - 1], [1.7, -1.7], [255.5], [-0.5],
                                  [127.9], [-128.5], [float("nan")], [True, False]])
def test_tensor_checks_values_as_torch(dtype, data):
    s, t = both(lambda L: L.tensor(data, dtype=getattr(L, dtype)))
    if isinstance(t, Exception):
        assert isinstance(s, RuntimeError) and "without overflow" in str(s), s
        assert f"type {dtype} without overflow" in str(s)
    else:
        same(s, t)


@pytest.mark.parametrize("dtype", NEW)
def test_full_and_fill_refuse_what_does_not_fit(dtype):
    for fn in (lambda L: L.full((2,), 2**40, dtype=getattr(L, dtype)),
               lambda L: L.zeros(2, dtype=getattr(L, dtype)).fill_(2**40),
               lambda L: L.zeros(2, dtype=getattr(L, dtype)).masked_fill(L.tensor([True, False]), 2**40)):
        s, t = both(fn)
        assert isinstance(t, RuntimeError) and isinstance(s, RuntimeError)
        assert "value cannot be converted to type" in str(s) and "without overflow" in str(s)


# ------------------------------------------------------------------ NumPy
@pytest.mark.parametrize("dtype", NEW)
def test_numpy_round_trips(dtype):
    info = np.iinfo(NP[dtype])
    arr = np.array([[info.min, 0, 1], [info.max, 5, -1 if info.min < 0 else 7]], dtype=NP[dtype])
    s = seqlab.from_numpy(arr)                      # borrowed, as torch.from_numpy
    assert name_of(s) == dtype and s.tolist() == arr.tolist()
    arr[0, 1] = 9
    assert s[0, 1].item() == 9
    back = s.numpy()
    assert back.dtype == NP[dtype] and np.shares_memory(back, arr)
    same(seqlab.tensor(arr), torch.tensor(arr))     # tensor() of an array keeps its dtype, as torch
    same(seqlab.as_tensor(arr), torch.as_tensor(arr))
    np.testing.assert_array_equal(np.asarray(s.t()), arr.T)   # a transposed view through __array__
    same(seqlab.from_dlpack(torch.from_numpy(arr)), torch.from_numpy(arr))
    same(seqlab.tensor(arr.T[::2]), torch.tensor(arr.T[::2]))   # non-contiguous arrays copy


def test_numpy_integer_arrays_convert_modulo_2_to_the_bits():
    arr = np.array([300, -1, 1000], dtype=np.int64)
    for dtype in NEW:
        same(seqlab.tensor(arr, dtype=S(dtype)), torch.tensor(arr, dtype=T(dtype)))


# ------------------------------------------------------------------ conversions
CONVERTERS = ["int", "short", "char", "byte", "long", "float", "double", "bool"]


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("method", CONVERTERS)
def test_conversion_methods(src, method):
    # from every dtype to every dtype, on a transposed (non-contiguous) input with negatives
    data = [[-3.7, 0.0, 2.5], [100.0, 1.0, -0.2]] if src in ("float32", "float64") else [[-3, 0, 2], [100, 1, 5]]
    if src == "uint8":
        data = [[3, 0, 2], [200, 1, 5]]
    if src == "bool":
        data = [[True, False, True], [False, True, True]]
    s, t = seqlab.tensor(data, dtype=S(src)).t(), torch.tensor(data, dtype=T(src)).t()
    same(getattr(s, method)(), getattr(t, method)())


@pytest.mark.parametrize("dst", NEW)
def test_to_and_type(dst):
    s, t = seqlab.tensor([[1.9, -2.0], [3.0, 250.0]]), torch.tensor([[1.9, -2.0], [3.0, 250.0]])
    if dst != "uint8":
        same(s.to(S(dst)), t.to(T(dst)))
        same(s.to(dtype=S(dst)), t.to(dtype=T(dst)))
        same(s.type(S(dst)), t.type(T(dst)))
    x = seqlab.tensor([1, 2], dtype=S(dst))
    assert x.to(S(dst)) is x and x.to(S(dst), copy=True) is not x
    same(x.to("cpu", seqlab.float64), torch.tensor([1, 2], dtype=T(dst)).to("cpu", torch.float64))
    same(x.type_as(seqlab.tensor([1.5])), torch.tensor([1, 2], dtype=T(dst)).type_as(torch.tensor([1.5])))


def test_negative_floats_to_uint8_wrap_as_torch():
    same(seqlab.tensor([-1.0, -2.5, 3.5]).byte(), torch.tensor([-1.0, -2.5, 3.5]).byte())


# ------------------------------------------------------------------ promotion
@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("b", ALL)
def test_promotion_tensor_tensor(a, b):
    x, y = values(seqlab, a), values(seqlab, b, (3,))         # (2, 3) with (3,): broadcasting
    tx, ty = values(torch, a), values(torch, b, (3,))
    assert name_of(seqlab.add(x, y)) == str(torch.result_type(tx, ty)).rpartition(".")[2]
    same(x + y, tx + ty)
    same(x * y, tx * ty)
    same(y * x.t().t(), ty * tx)
    same(x == y, tx == ty)
    same(x < y, tx < ty)
    same(seqlab.maximum(x, y), torch.maximum(tx, ty))
    same(seqlab.where(x > 2, x, y), torch.where(tx > 2, tx, ty))
    if "bool" not in (a, b):
        same(x - y, tx - ty)
        ys, yt = y + (y == 0), ty + (ty == 0)                  # nonzero divisors
        same(x / ys, tx / yt)
        same(x % ys, tx % yt)


@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("b", ALL)
def test_promotion_with_a_0d_tensor(a, b):
    # a 0-d operand raises the category but not the width (torch's three tiers)
    x, tx = values(seqlab, a), values(torch, a)
    y, ty = seqlab.tensor(1, dtype=S(b)), torch.tensor(1, dtype=T(b))
    assert name_of(x + y) == str(torch.result_type(tx, ty)).rpartition(".")[2]
    same(x + y, tx + ty)
    same(y * x, ty * tx)
    same(y + y, ty + ty)


@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("number", [True, 3, -2, 2.5, 0])
def test_promotion_with_a_python_number(a, number):
    # an integer tensor + a Python int keeps its dtype; + a float is float32; bool promotes up
    x, tx = values(seqlab, a), values(torch, a)
    assert name_of(x + number) == str(torch.result_type(tx, number)).rpartition(".")[2]
    same(x + number, tx + number)
    same(number + x, number + tx)
    same(x * number, tx * number)
    same(x == number, tx == number)
    same(x > number, tx > number)
    x0, tx0 = seqlab.tensor(3, dtype=S(a)), torch.tensor(3, dtype=T(a))      # a 0-d tensor too
    same(x0 + number, tx0 + number)
    if a != "bool" and not isinstance(number, bool):
        same(x - number, tx - number)
        same(number - x, number - tx)
        if number != 0:
            same(x / number, tx / number)
            same(x % number, tx % number)


@pytest.mark.parametrize("dtype", NEW)
def test_in_place_arithmetic_keeps_the_dtype(dtype):
    s, t = values(seqlab, dtype), values(torch, dtype)
    for op in (lambda x: x.add_(3), lambda x: x.mul_(2), lambda x: x.sub_(1), lambda x: x.__iadd__(x)):
        op(s)
        op(t)
        same(s, t)
    s2, t2 = both(lambda L: values(L, dtype).add_(L.ones(3, dtype=L.int64)))    # int64 into a narrower type
    same(s2, t2)
    s3, t3 = both(lambda L: values(L, dtype).add_(1.5))
    assert isinstance(s3, RuntimeError) and isinstance(t3, RuntimeError)
    assert "can't be cast to the desired output type" in str(s3)


# ------------------------------------------------------------------ overflow
@pytest.mark.parametrize("fn", [
    lambda L: L.tensor([127], dtype=L.int8) + L.tensor([1], dtype=L.int8),
    lambda L: L.tensor([-128], dtype=L.int8) - 1,
    lambda L: L.tensor([3], dtype=L.uint8) - L.tensor([5], dtype=L.uint8),
    lambda L: L.tensor([1], dtype=L.uint8) - 2,
    lambda L: L.tensor([1], dtype=L.uint8) + (-1),
    lambda L: L.tensor([32767], dtype=L.int16) + 1,
    lambda L: L.tensor([200], dtype=L.int16) * 200,
    lambda L: L.tensor([2**31 - 1], dtype=L.int32) * 2,
    lambda L: L.tensor([2**31 - 1], dtype=L.int32) + L.tensor([1], dtype=L.int32),
    lambda L: L.tensor([1, 100], dtype=L.int8) + 1000,
    lambda L: L.tensor([1], dtype=L.int8) + 2**40,
    lambda L: -L.tensor([1, 2, 0], dtype=L.uint8),
    lambda L: -L.tensor([-128], dtype=L.int8),
    lambda L: L.tensor([-128], dtype=L.int8).abs(),
    lambda L: L.tensor([16], dtype=L.int8) ** 2,
    lambda L: L.tensor([3], dtype=L.int32) ** 21,
    lambda L: L.tensor([250, 10], dtype=L.uint8).cumsum(0, dtype=L.uint8),
    lambda L: L.tensor([250, 10], dtype=L.uint8).sum(dtype=L.uint8),
    lambda L: L.tensor([100, 100], dtype=L.int8).cumprod(0, dtype=L.int8),
], ids=["int8+int8", "int8-1", "uint8-uint8", "uint8-2", "uint8+-1", "int16+1", "int16*200", "int32*2",
        "int32+int32", "int8+1000", "int8+2**40", "neg-uint8", "neg-int8-min", "abs-int8-min", "int8**2",
        "int32**21", "cumsum-uint8", "sum-uint8", "cumprod-int8"])
def test_overflow_wraps_as_torch(fn):
    s, t = both(fn)
    same(s, t)


# ------------------------------------------------------------------ elementwise
@pytest.mark.parametrize("dtype", NEW)
def test_elementwise_ops(dtype):
    data = [[7, 0, 5], [2, 9, 4]] if dtype == "uint8" else [[7, -4, 0], [-2, 9, 5]]
    s, t = seqlab.tensor(data, dtype=S(dtype)).t(), torch.tensor(data, dtype=T(dtype)).t()
    for fn in (lambda x: x.abs(), lambda x: x.sign(), lambda x: x.relu(), lambda x: x.clamp(0, 5),
               lambda x: x.clamp(min=1), lambda x: x.clamp(0.5, 5), lambda x: x.floor(), lambda x: x.round(),
               lambda x: x % 3, lambda x: x ** 2, lambda x: x.sqrt(),
               lambda x: x.float() / 2, lambda x: x / 2, lambda x: x.masked_fill(x > 4, 1),
               lambda x: x.flip(0), lambda x: x.repeat(2, 1), lambda x: x.tril(), lambda x: x.contiguous().view(-1),
               lambda x: x.reshape(3, 2), lambda x: x.clone(), lambda x: x.unsqueeze(0).expand(2, 3, 2) + 1):
        same(fn(s), fn(t))
    for fn in (lambda x: x.exp(), lambda x: x.sin(), lambda x: x.log1p()):   # float32, within an ulp of torch
        assert name_of(fn(s)) == name_of(fn(t)) == "float32"
        np.testing.assert_allclose(sl_np(fn(s)), fn(t).numpy(), rtol=1e-6)
    same(seqlab.cat([s, s.long()]), torch.cat([t, t.long()]))
    same(seqlab.stack([s, s]), torch.stack([t, t]))
    same(seqlab.where(s > 3, s, 0), torch.where(t > 3, t, 0))
    assert seqlab.equal(s, s.clone()) and torch.equal(t, t.clone())


@pytest.mark.parametrize("dtype", NEW)
def test_comparisons_give_bool(dtype):
    s, t = values(seqlab, dtype), values(torch, dtype)
    for other in (2, 2.5, seqlab.tensor([1, 2, 3]), seqlab.tensor([1.5, 2.0, 3.0]),
                  seqlab.tensor([1, 2, 3], dtype=seqlab.uint8)):
        o = torch.tensor(sl_np(other)) if isinstance(other, seqlab.Tensor) else other
        for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
            same(getattr(s, op)(other), getattr(t, op)(o))
    same(seqlab.logical_and(s, s > 2), torch.logical_and(t, t > 2))
    same(seqlab.logical_not(s), torch.logical_not(t))


# ------------------------------------------------------------------ reductions and counting
@pytest.mark.parametrize("dtype", NEW)
def test_reductions(dtype):
    data = [[7, 0, 5, 5], [2, 9, 4, 1], [3, 3, 8, 0]]
    s, t = seqlab.tensor(data, dtype=S(dtype)).t(), torch.tensor(data, dtype=T(dtype)).t()
    for fn in (lambda x: x.sum(), lambda x: x.sum(0), lambda x: x.sum(1, keepdim=True), lambda x: x.sum(dtype=x.dtype),
               lambda x: x.max(), lambda x: x.min(), lambda x: x.argmax(), lambda x: x.argmin(1),
               lambda x: x.argmax(0, keepdim=True), lambda x: x.cumsum(0), lambda x: x.cumsum(1, dtype=x.dtype),
               lambda x: x.all(), lambda x: x.any(1), lambda x: x.nonzero()):
        same(fn(s), fn(t))
    for dim in (0, 1):
        (sv, si), (tv, ti) = s.max(dim), t.max(dim)
        same(sv, tv)
        same(si, ti)
        (sv, si), (tv, ti) = s.min(dim, keepdim=True), t.min(dim, keepdim=True)
        same(sv, tv)
        same(si, ti)
    assert s.sum().item() == t.sum().item() and isinstance(s.sum().item(), int)
    assert s.float().mean().item() == pytest.approx(t.float().mean().item())
    same(s.sort(0)[0], t.sort(0)[0])
    same(s.topk(2, 0)[0], t.topk(2, 0)[0])


@pytest.mark.parametrize("dtype", NEW + ["int64"])
def test_bincount(dtype):
    x = [1, 1, 3, 0, 7, 3, 3]
    s, t = seqlab.tensor(x, dtype=S(dtype)), torch.tensor(x, dtype=T(dtype))
    same(seqlab.bincount(s), torch.bincount(t))
    same(s.bincount(minlength=10), t.bincount(minlength=10))
    for w in ([0.5, 1.0, 2.0, 1.5, 0.25, 3.0, 1.0], ):
        for wd in ("float32", "float64", "int32"):
            same(seqlab.bincount(s, weights=seqlab.tensor(w, dtype=S(wd))),
                 torch.bincount(t, weights=torch.tensor(w, dtype=T(wd))))
    same(seqlab.bincount(s[:0]), torch.bincount(t[:0]))
    same(seqlab.bincount(s[:0], minlength=3), torch.bincount(t[:0], minlength=3))


def test_bincount_errors_match_torch():
    for fn in (lambda L: L.bincount(L.tensor([1.0, 2.0])), lambda L: L.bincount(L.tensor([True])),
               lambda L: L.bincount(L.tensor([[1]])), lambda L: L.bincount(L.tensor([-1, 2], dtype=L.int32)),
               lambda L: L.bincount(L.tensor([1]), minlength=-1),
               lambda L: L.bincount(L.tensor([1, 2]), weights=L.tensor([1.0]))):
        s, t = both(fn)
        assert type(s) is type(t) and str(s) == str(t), (s, t)


# ------------------------------------------------------------------ indexing with int32 indices
def test_int32_indices_index_like_int64():
    x, tx = seqlab.arange(12.0).view(3, 4), torch.arange(12.0).view(3, 4)
    i, ti = seqlab.tensor([2, 0, -1], dtype=seqlab.int32), torch.tensor([2, 0, -1], dtype=torch.int32)
    j, tj = seqlab.tensor([3, 1], dtype=seqlab.int32), torch.tensor([3, 1], dtype=torch.int32)
    same(x[i], tx[ti])
    same(x[:, j], tx[:, tj])
    same(x.t()[j], tx.t()[tj])                                   # non-contiguous source
    same(x[i[:2], j], tx[ti[:2], tj])
    same(x.index_select(1, j), tx.index_select(1, tj))
    same(seqlab.index_select(x, 0, i[:2]), torch.index_select(tx, 0, ti[:2]))
    g, tg = seqlab.tensor([[1, 0], [3, 3], [0, 2]], dtype=seqlab.int32), torch.tensor([[1, 0], [3, 3], [0, 2]],
                                                                                       dtype=torch.int32)
    same(x.gather(1, g), tx.gather(1, tg))
    same(seqlab.zeros(3, 4).scatter_add_(1, g, x[:, :2].contiguous()),
         torch.zeros(3, 4).scatter_add_(1, tg, tx[:, :2].contiguous()))
    y, ty = x.clone(), tx.clone()
    y[i[:2]] = 5.0
    ty[ti[:2]] = 5.0
    y[:, j] = seqlab.tensor([[1.0, 2.0]] * 3)
    ty[:, tj] = torch.tensor([[1.0, 2.0]] * 3)
    same(y, ty)
    for dtype in NEW:                                            # and of every integer dtype
        s, t = both(lambda L: L.arange(6, dtype=getattr(L, dtype)).view(2, 3)[L.tensor([1, 0], dtype=L.int32)])
        same(s, t)


def test_int32_indices_have_gradients():
    x = seqlab.arange(12.0, dtype=seqlab.float64).view(3, 4).requires_grad_()
    tx = torch.arange(12.0, dtype=torch.float64).view(3, 4).requires_grad_()
    idx, tidx = seqlab.tensor([[2], [0], [2]], dtype=seqlab.int32), torch.tensor([[2], [0], [2]], dtype=torch.int32)
    (x.gather(1, idx).sum() + (x[idx.view(-1)] ** 2).sum() + x.index_select(1, idx.view(-1)).sum()).backward()
    (tx.gather(1, tidx).sum() + (tx[tidx.view(-1)] ** 2).sum() + tx.index_select(1, tidx.view(-1)).sum()).backward()
    np.testing.assert_allclose(sl_np(x.grad), tx.grad.numpy())


def test_embedding_takes_int32_inputs():
    seqlab.manual_seed(0)
    emb = seqlab.nn.Embedding(5, 3)
    temb = torch.nn.Embedding(5, 3)
    with torch.no_grad():
        temb.weight.copy_(torch.from_numpy(sl_np(emb.weight)))
    ids = [[1, 4, 0], [2, 2, 3]]
    out = emb(seqlab.tensor(ids, dtype=seqlab.int32))
    tout = temb(torch.tensor(ids, dtype=torch.int32))
    np.testing.assert_array_equal(sl_np(out), tout.detach().numpy())
    (out ** 2).sum().backward()
    (tout ** 2).sum().backward()
    np.testing.assert_allclose(sl_np(emb.weight.grad), temb.weight.grad.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(sl_np(seqlab.nn.functional.embedding(seqlab.tensor([1], dtype=seqlab.int32),
                                                                        emb.weight.detach())),
                                  sl_np(emb.weight.detach())[[1]])


def test_uint8_index_is_a_mask_as_in_torch():
    x, tx = seqlab.arange(4), torch.arange(4)
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        s = x[seqlab.tensor([1, 0, 1, 1], dtype=seqlab.uint8)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = tx[torch.tensor([1, 0, 1, 1], dtype=torch.uint8)]
    same(s, t)


@pytest.mark.parametrize("dtype", ["int16", "int8"])
def test_other_index_dtypes_are_refused_as_torch(dtype):
    x = (seqlab.arange(6.0).view(2, 3), torch.arange(6.0).view(2, 3))
    cases = [(IndexError, "tensors used as indices must be long, int, byte or bool tensors",
              lambda L, x: x[L.tensor([1], dtype=getattr(L, dtype))]),
             (RuntimeError, "index_select\\(\\): Expected dtype int32 or int64 for index",
              lambda L, x: x.index_select(0, L.tensor([1], dtype=getattr(L, dtype)))),
             (RuntimeError, "gather\\(\\): Expected dtype int32/int64 for index",
              lambda L, x: x.gather(1, L.tensor([[1], [0]], dtype=getattr(L, dtype)))),
             (RuntimeError, "scatter\\(\\): Expected dtype int32/int64 for index",
              lambda L, x: x.scatter_add_(1, L.tensor([[1], [0]], dtype=getattr(L, dtype)), x[:, :1].contiguous())),
             (RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                            "Long, Int",
              lambda L, x: L.nn.functional.embedding(L.tensor([1], dtype=getattr(L, dtype)), x))]
    for exc, match, fn in cases:
        for lib, xx in zip((seqlab, torch), x):
            with pytest.raises(exc, match=match):
                fn(lib, xx)


# ------------------------------------------------------------------ printing, item, save/load
@pytest.mark.parametrize("dtype", NEW)
def test_repr_item_and_tolist(dtype):
    for data in ([1, 2], [[1, 0], [3, 4]], 5, []):
        s, t = seqlab.tensor(data, dtype=S(dtype)), torch.tensor(data, dtype=T(dtype))
        assert repr(s) == repr(t).replace("torch.", "seqlab."), (repr(s), repr(t))
        assert s.tolist() == t.tolist()
    one = seqlab.tensor([7], dtype=S(dtype))
    assert one.item() == 7 and type(one.item()) is int and int(one) == 7 and float(one) == 7.0
    assert [10, 20, 30][seqlab.tensor(1, dtype=S(dtype))] == 20               # __index__
    assert str(S(dtype)) == f"seqlab.{dtype}"


def test_torch_aliases():
    assert seqlab.int is seqlab.int32 and seqlab.short is seqlab.int16
    assert (str(torch.int), str(torch.short)) == ("torch.int32", "torch.int16")


def test_save_load_and_state_dicts():
    tensors = {d: seqlab.tensor([[1, 2], [3, 4]], dtype=S(d)).t() for d in NEW}   # (non-contiguous)
    tensors["min"] = seqlab.tensor([-128, 127], dtype=seqlab.int8)
    f = io.BytesIO()
    seqlab.save(tensors, f)
    f.seek(0)
    loaded = seqlab.load(f)
    for k, v in tensors.items():
        assert loaded[k].dtype == v.dtype and loaded[k].tolist() == v.tolist()

    class Counts(seqlab.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("counts", seqlab.zeros(3, dtype=seqlab.int32))
            self.register_buffer("mask", seqlab.zeros(3, dtype=seqlab.uint8))

    m = Counts()
    m.load_state_dict({"counts": torch.tensor([5, 6, 7], dtype=torch.int32),
                       "mask": torch.tensor([1, 0, 255], dtype=torch.uint8)})
    assert m.counts.dtype == seqlab.int32 and m.counts.tolist() == [5, 6, 7]
    assert m.mask.dtype == seqlab.uint8 and m.mask.tolist() == [1, 0, 255]
    sd = m.state_dict()
    assert sd["counts"].dtype == seqlab.int32
    f = io.BytesIO()
    seqlab.save(sd, f)
    f.seek(0)
    m2 = Counts()
    m2.load_state_dict(seqlab.load(f))
    assert m2.counts.tolist() == [5, 6, 7] and m2.mask.tolist() == [1, 0, 255]


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("dtype", NEW)
def test_what_torch_refuses_seqlab_refuses(dtype):
    cases = [(lambda L: L.tensor([1, 2], dtype=getattr(L, dtype)).requires_grad_(),
              "only Tensors of floating point dtype can require gradients"),
             (lambda L: L.tensor([1, 2], dtype=getattr(L, dtype)).mean(), "mean\\(\\): could not infer output dtype"),
             (lambda L: L.tensor([1, 2], dtype=getattr(L, dtype)) ** -1,
              "Integers to negative integer powers are not allowed"),
             (lambda L: L.tensor([1, 2], dtype=getattr(L, dtype)) % 0, "ZeroDivisionError"),
             (lambda L: L.tensor([1, 2], dtype=getattr(L, dtype)).clamp_(0.5, 1),
              "result type Float can't be cast to the desired output type"),
             (lambda L: L.nn.functional.one_hot(L.tensor([1, 0], dtype=getattr(L, dtype))),
              "one_hot is only applicable to index tensor of type")]
    for fn, match in cases:
        s, t = both(fn)
        assert isinstance(t, RuntimeError), t
        assert isinstance(s, RuntimeError), s
        assert pytest.raises(RuntimeError, fn, seqlab).match(match)


@pytest.mark.parametrize("dtype", NEW)
def test_what_torch_lacks_seqlab_lacks_in_torchs_words(dtype):
    # integer matmul and bitwise ops exist now (tests/test_int_ops.py); frac has no integer kernel
    x = seqlab.tensor([[1, 2]], dtype=S(dtype))
    scalar = {"int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte"}[dtype]
    with pytest.raises(NotImplementedError, match=f"not implemented for '{scalar}'"):
        x.frac()
    same(x @ x.t(), T("tensor")([[1, 2]], dtype=T(dtype)) @ T("tensor")([[1], [2]], dtype=T(dtype)))
    same(x & x, T("tensor")([[1, 2]], dtype=T(dtype)))