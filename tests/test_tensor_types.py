"""torch.Tensor(...) (the legacy constructor), FloatTensor, DoubleTensor, LongTensor, BoolTensor,
get_default_dtype and the dtype aliases against torch: values, dtypes, shapes, isinstance,
x.type(T), and the errors (python/seqlab/_tensor.py, cpp/python/bind_tensor.cpp)."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import sl_np

TYPES = ["Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "BoolTensor"]


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("args", [([1, 2, 3],), ([[1.5, -2.0], [0.0, 4.0]],), ((2, 3),), (np.array([1, 0, 2]),), ()])
def test_data_and_empty_match_torch(name, args):
    s, t = getattr(seqlab, name)(*args), getattr(torch, name)(*args)
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


def test_errors_match_torch():
    for bad in (lambda lib: lib.Tensor(2.5), lambda lib: lib.LongTensor(lib.tensor([1.0])),
                lambda lib: lib.Tensor("ab")):
        with pytest.raises(TypeError):
            bad(torch)
        with pytest.raises(TypeError):
            bad(seqlab)
    with pytest.raises(RuntimeError, match="CPU"):
        seqlab.FloatTensor([1.0], device="cuda")
