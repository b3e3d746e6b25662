"""flip, roll, repeat, repeat_interleave, all, any, mv, linspace, logspace, inference_mode and
format() of 0-d tensors (python/seqlab/_composed.py, autograd.py) against torch: values, dtypes
and gradients, and torch's errors."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_close, assert_matches_torch, assert_raises_like_torch


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_flip_roll_repeat_match_torch(rng, dtype):
    x = (rng.standard_normal((2, 3, 4)) * 10).astype(dtype)
    cases = [
        (lambda t: t.flip(0), None), (lambda t: t.flip(0, 2), None), (lambda t: t.flip(dims=(-1,)), None),
        (lambda t: t.roll(1), None), (lambda t: t.roll(-2, 1), None), (lambda t: t.roll((1, 5), (0, 2)), None),
        (lambda t: t.repeat(2, 1, 3), None), (lambda t: t.repeat(2, 1, 1, 2), None),
        (lambda t: t.repeat_interleave(2), None), (lambda t: t.repeat_interleave(3, dim=1), None),
    ]
    for fn, _ in cases:
        assert_matches_torch(fn, fn, [x])
    assert_matches_torch(lambda t: seqlab.flip(t, [1]), lambda t: torch.flip(t, [1]), [x])
    assert_matches_torch(lambda t: seqlab.roll(t, 2), lambda t: torch.roll(t, 2), [x])
    assert_matches_torch(lambda t: seqlab.repeat_interleave(t, seqlab.tensor([1, 0, 2]), dim=1),
                         lambda t: torch.repeat_interleave(t, torch.tensor([1, 0, 2]), dim=1), [x])


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.bool_])
def test_all_any_match_torch(rng, dtype):
    x = (rng.random((3, 4)) > 0.3).astype(dtype)
    x[1] = 1
    for fn in (lambda lib, t: lib.all(t), lambda lib, t: lib.any(t), lambda lib, t: t.all(1),
               lambda lib, t: t.any(0, keepdim=True), lambda lib, t: t.all(dim=-1, keepdim=True)):
        s, t = fn(seqlab, seqlab.tensor(x)), fn(torch, torch.tensor(x))
        assert_close(s.numpy(), t.numpy(), 0, 0, "all/any")


def test_mv_matches_torch(rng):
    assert_matches_torch(lambda a, b: seqlab.mv(a, b), lambda a, b: torch.mv(a, b),
                         [rng.standard_normal((3, 4)), rng.standard_normal(4)])
    assert_raises_like_torch(lambda: seqlab.mv(seqlab.ones(3), seqlab.ones(3)),
                             lambda: torch.mv(torch.ones(3), torch.ones(3)), "expected")


@pytest.mark.parametrize("args", [(0, 1, 5), (-3.5, 2.25, 7), (0, 10, 1), (5, -5, 11), (0, 1, 0), (0, 1, 1000)])
@pytest.mark.parametrize("dtype", [None, seqlab.float64])
def test_linspace_logspace_match_torch(args, dtype):
    th_dtype = None if dtype is None else torch.float64
    s, t = seqlab.linspace(*args, dtype=dtype), torch.linspace(*args, dtype=th_dtype)
    assert_close(s.numpy(), t.numpy(), 0, 3e-7 if dtype is None else 1e-15, "linspace")  # float32: 2 ulp
    s, t = seqlab.logspace(*args, base=2.0, dtype=dtype), torch.logspace(*args, base=2.0, dtype=th_dtype)
    assert_close(s.numpy(), t.numpy(), 0, 1e-6 if dtype is None else 1e-13, "logspace")
    s, t = seqlab.linspace(0, 10, 5, dtype=seqlab.int64), torch.linspace(0, 10, 5, dtype=torch.int64)
    assert s.tolist() == t.tolist()


def test_inference_mode_as_context_and_decorator():
    x = seqlab.ones(2, requires_grad=True)
    with seqlab.inference_mode():
        assert not (x * 2).requires_grad
    with seqlab.inference_mode(False):
        assert (x * 2).requires_grad

    @seqlab.inference_mode()
    def f():
        return x * 2

    @seqlab.inference_mode
    def g():
        return x * 2
    assert not f().requires_grad and not g().requires_grad and (x * 2).requires_grad


def test_format_of_a_0d_tensor_as_torch():
    for v in (3.14159, 2, True):
        s, t = seqlab.tensor(v), torch.tensor(v)
        for spec in ("", ".2f", ">8"):
            if isinstance(v, bool) and spec == ".2f":
                continue  # torch formats True with .2f as 1.00 too; bool's own __format__
            assert format(s, spec) == format(t, spec)
    with pytest.raises(TypeError):
        format(seqlab.ones(2), ".2f")
    with pytest.raises(TypeError):
        format(torch.ones(2), ".2f")


def test_errors_as_torch():
    x, tx = seqlab.zeros(2, 3), torch.zeros(2, 3)
    assert_raises_like_torch(lambda: x.flip(2), lambda: tx.flip(2), "Dimension out of range")
    assert_raises_like_torch(lambda: x.repeat(2), lambda: tx.repeat(2), "can not be smaller")
    assert_raises_like_torch(lambda: x.roll((1, 2), 0), lambda: tx.roll((1, 2), 0), "shifts and dimensions must align")
    assert_raises_like_torch(lambda: x.repeat_interleave(seqlab.tensor([1, 2]), dim=1),
                             lambda: tx.repeat_interleave(torch.tensor([1, 2]), dim=1), "repeats must have the same size")
