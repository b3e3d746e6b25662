"""torch.Tensor(...) (the legacy constructor), FloatTensor, DoubleTensor, LongTensor, IntTensor,
ShortTensor, CharTensor, ByteTensor, BoolTensor,
get_default_dtype and the dtype aliases against torch: values, dtypes, shapes, isinstance,
x.type(T), and the errors (python/seqlab/_tensor.py, cpp/python/bind_tensor.cpp)."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import sl_np

TYPES = ["Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
         "ByteTensor", "BoolTensor"]


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("args", [([1, 2, 3],), ([[1.5, -2.0], [0.0, 4.0]],), ((2, 3),), (np.array([1, 0, 2]),), ()])
def test_data_and_empty_match_torch(name, args):
    try:
        t = getattr(torch, name)(*args)
    except RuntimeError:  # ByteTensor([-2.0]): a negative float does not fit uint8
        with pytest.raises(RuntimeError, match="without overflow"):
            getattr(seqlab, name)(*args)
        return
    s = getattr(seqlab, name)(*args)
    assert isinstance(s, seqlab.Tensor) and dtype_name(s) == dtype_name(t)
    assert tuple(s.shape) == tuple(t.shape)
    np.testing.assert_array_equal(sl_np(s), t.numpy())


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("size", [(3,), (2, 3), (0, 4)])
def test_sizes_match_torch(name, size):
    s, t = getattr(seqlab, name)(*size), getattr(torch, name)(*size)
    assert tuple(s.shape) == tuple(t.shape) == size and dtype_name(s) == dtype_name(t)


def test_isinstance_type_and_autograd():
    x = seqlab.Tensor([1.5, 2.0])
    assert isinstance(x, seqlab.Tensor) and isinstance(x, seqlab.FloatTensor)
    assert not isinstance(x, seqlab.LongTensor) and isinstance(seqlab.tensor([1]), seqlab.LongTensor)
    assert x.type(seqlab.LongTensor).dtype == seqlab.int64
    assert seqlab.Tensor([1.5]).type(seqlab.LongTensor).tolist() == torch.Tensor([1.5]).type(torch.LongTensor).tolist()
    x.requires_grad_()
    (x * x).sum().backward()
    assert sl_np(x.grad).tolist() == [3.0, 4.0]
    assert seqlab.get_default_dtype() == seqlab.float32 and str(torch.get_default_dtype()) == "torch.float32"
    assert (seqlab.long, seqlab.float, seqlab.double) == (seqlab.int64, seqlab.float32, seqlab.float64)
    assert (seqlab.int, seqlab.short) == (seqlab.int32, seqlab.int16)


@pytest.mark.parametrize("name", ["IntTensor", "ShortTensor", "CharTensor", "ByteTensor"])
def test_integer_types_convert_and_test_like_torch(name):
    S, T = getattr(seqlab, name), getattr(torch, name)
    s, t = seqlab.tensor([3.7, -1.2, 0.0]), torch.tensor([3.7, -1.2, 0.0])
    assert s.type(S).tolist() == t.type(T).tolist() and dtype_name(s.type(S)) == dtype_name(t.type(T))
    assert s.type(f"torch.{name}").dtype == S.dtype == s.type(S).dtype
    assert isinstance(s.type(S), S) and not isinstance(s, S) and s.type(S).type() == f"seqlab.{name}"
    assert repr(S) == f"<class 'seqlab.{name}'>"
    with pytest.raises(TypeError):
        T(torch.tensor([1.0]))
    with pytest.raises(TypeError):
        S(seqlab.tensor([1.0]))


def test_errors_match_torch():
    for bad in (lambda lib: lib.Tensor(2.5), lambda lib: lib.LongTensor(lib.tensor([1.0])),
                lambda lib: lib.Tensor("ab")):
        with pytest.raises(TypeError):
            bad(torch)
        with pytest.raises(TypeError):
            bad(seqlab)
    with pytest.raises(RuntimeError, match="CPU"):
        seqlab.FloatTensor([1.0], device="cuda")
