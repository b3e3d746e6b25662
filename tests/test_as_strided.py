"""torch.as_strided and its forms (as_strided_, as_strided_copy, as_strided_scatter): a view of a
tensor's storage with any geometry inside it (cpp/src/ops/shape.cpp), against torch: values, that
the view shares memory, gradients (outputs that read one element twice, an expanded input, a
storage offset, a sliced input), float64 gradcheck, 16-bit tensors and torch's errors."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_gradcheck, assert_raises_like_torch

CASES = [  # (input shape, how the input is made from a base, size, stride, storage_offset)
    ((6,), None, (2, 2), (1, 1), None),           # overlapping windows: element 1 and 2 read twice
    ((6,), None, (3, 2), (2, 1), 0),
    ((6,), "slice", (3, 2), (1, 1), None),        # x = base[1:]: the default offset is x's own
    ((4, 3), None, (3, 4), (1, 3), 0),             # a transpose by strides
    ((3,), "expand", (2,), (1,), None),            # an input whose elements share storage
    ((2, 3), None, (2, 2, 2), (3, 1, 1), 0),
    ((5,), None, (0, 3), (1, 1), 2),
    ((4,), None, (), (), 3),
]


def make(lib, shape, how, data, requires_grad):
    base = lib.tensor(data, requires_grad=requires_grad)
    if how == "slice":
        return base, base[1:]
    if how == "expand":
        return base, base.expand(2, *shape)
    return base, base


@pytest.mark.parametrize("shape,how,size,stride,offset", CASES)
def test_as_strided_matches_torch(rng, shape, how, size, stride, offset):
    n = int(np.prod(shape)) + (1 if how == "slice" else 0)
    data = rng.standard_normal(n if how == "slice" else shape)
    out = {}
    for lib in (seqlab, torch):
        base, x = make(lib, shape, how, data, True)
        y = x.as_strided(size, stride, offset) if offset is not None else x.as_strided(size, stride)
        w = lib.tensor(np.arange(int(np.prod(size)), dtype=np.float64).reshape(size) + 1)
        (y * w).sum().backward()
        out[lib.__name__] = (y.detach().numpy().copy(), base.grad.numpy().copy(), tuple(y.stride()))
    np.testing.assert_array_equal(out["seqlab"][0], out["torch"][0])
    np.testing.assert_allclose(out["seqlab"][1], out["torch"][1], rtol=1e-12, atol=1e-12)
    assert out["seqlab"][2] == out["torch"][2]
    # the module function is the same view
    x = seqlab.tensor(data)
    np.testing.assert_array_equal(seqlab.as_strided(x, size, stride, offset).numpy(),
                                  torch.as_strided(torch.tensor(data), size, stride, offset).numpy())


def test_as_strided_is_a_view_and_gradchecks(rng):
    base = seqlab.zeros(6)
    v = base.as_strided((2, 2), (2, 1), 1)
    v.fill_(3.0)   # writes through to base: positions 1, 2, 3, 4
    np.testing.assert_array_equal(base.numpy(), [0, 3, 3, 3, 3, 0])
    x = rng.standard_normal(7)
    assert_gradcheck(lambda t: t.as_strided((3, 3), (2, 1), 0).sin(), [x])
    assert_gradcheck(lambda t: t[2:].as_strided((2, 2), (1, 2)) ** 2, [x])
    assert_gradcheck(lambda t: t[:3].expand(2, 3).as_strided((2,), (1,)) * 3, [x])
    # an in-place write into the view of a non-leaf flows back as torch's CopySlices
    for lib in (seqlab, torch):
        a = lib.tensor(np.arange(6.0), requires_grad=True)
        b = a * 2
        b.as_strided((2,), (3,), 0).mul_(lib.tensor([5.0, 7.0]))
        b.sum().backward()
        if lib is seqlab:
            got = a.grad.numpy().copy()
        else:
            np.testing.assert_array_equal(got, a.grad.numpy())


def test_as_strided_of_sixteen_bit_tensors_is_a_view():
    x = seqlab.tensor([1.0, 2.0, 3.0, 4.0]).to(seqlab._core.dtype.float16)
    v = x.as_strided((2,), (2,))
    assert v.dtype == x.dtype
    np.testing.assert_array_equal(v.float().numpy(), [1.0, 3.0])
    v.fill_(9.0)
    np.testing.assert_array_equal(x.float().numpy(), [9.0, 2.0, 9.0, 4.0])


def test_as_strided_inplace_copy_and_scatter_match_torch(rng):
    data = rng.standard_normal(8)
    for lib in (seqlab, torch):
        z = lib.tensor(data)
        assert z.as_strided_((3,), (2,), 1) is z
        assert lib.as_strided_(lib.tensor(data), (2,), (3,)).stride() == (3,)
        assert tuple(z.shape) == (3,) and tuple(z.stride()) == (2,)
        if lib is seqlab:
            got = z.numpy().copy()
        else:
            np.testing.assert_array_equal(got, z.numpy())
    np.testing.assert_array_equal(seqlab.as_strided_copy(seqlab.tensor(data), (2, 2), (1, 2), 1).numpy(),
                                  torch.as_strided_copy(torch.tensor(data), (2, 2), (1, 2), 1).numpy())
    c = seqlab.as_strided_copy(seqlab.tensor(data), (2,), (1,))
    c.fill_(0.0)   # a copy: the source is untouched
    # as_strided_scatter: values, and gradients against torch's own composition (clone, then copy_
    # into the strided view): torch 2.13's as_strided_scatter gives `input` the gradient of the
    # overwritten positions instead of the others (its AsStridedScatterBackward0), which float64
    # finite differences refute; seqlab follows the derivative.
    src = rng.standard_normal((2, 2))
    w = np.arange(8.0).reshape(2, 4)
    x, s = seqlab.tensor(data.reshape(2, 4), requires_grad=True), seqlab.tensor(src, requires_grad=True)
    out = seqlab.as_strided_scatter(x, s, (2, 2), (1, 3), 1)
    (out * seqlab.tensor(w)).sum().backward()
    tx, ts = torch.tensor(data.reshape(2, 4), requires_grad=True), torch.tensor(src, requires_grad=True)
    np.testing.assert_array_equal(out.detach().numpy(), torch.as_strided_scatter(tx, ts, (2, 2), (1, 3), 1).detach().numpy())
    composed = tx.clone()
    composed.as_strided((2, 2), (1, 3), 1).copy_(ts)
    (composed * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(s.grad.numpy(), ts.grad.numpy())
    assert_gradcheck(lambda a, b: seqlab.as_strided_scatter(a, b, (2, 2), (1, 3), 1) * 2, [data.reshape(2, 4), src])
    assert x.as_strided_scatter(s, (2, 2), (1, 3), 1).shape == (2, 4)


def test_as_strided_errors_as_torch():
    for args in [((3, 3), (1, 1)), ((2,), (1,), -1), ((2, 2), (1,)), ((2,), (-1,)), ((2, 2), (1, 1), 3)]:
        assert_raises_like_torch(lambda: seqlab.arange(4.0).as_strided(*args),
                                 lambda: torch.arange(4.0).as_strided(*args),
                                 r"out of bounds for storage of size 16|invalid storage offset -1|"
                                 r"mismatch in length of strides and shape|Negative strides are not supported")
    assert_raises_like_torch(lambda: seqlab.zeros(4, requires_grad=True).as_strided_((2,), (2,)),
                             lambda: torch.zeros(4, requires_grad=True).as_strided_((2,), (2,)),
                             "a leaf Variable that requires grad is being used in an in-place operation")
