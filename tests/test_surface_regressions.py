"""Regressions a review of the torch-surface additions found, each against torch: float floor
division through div(rounding_mode="floor") (values where a / b rounds up to a whole number, the zero
gradient, the in-place form), the index fast path for plain keys, and inference mode per thread."""
import threading

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_matches_torch


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_floor_division_is_pythons_not_floor_of_the_quotient(dtype):
    a = np.array([1.0, 7.0, -7.0, 5.5, 0.3, -0.0, 1.0], dtype)
    b = np.array([0.1, 0.7, 0.7, -2.0, 0.1, 3.0, 0.0], dtype)  # 1 / 0.1 rounds up to 10: the answer is 9
    assert_matches_torch(lambda x, y: seqlab.div(x, y, rounding_mode="floor"),
                         lambda x, y: torch.div(x, y, rounding_mode="floor"), [a, b])
    assert_matches_torch(lambda x: x.div(0.1, rounding_mode="floor"), lambda x: x.div(0.1, rounding_mode="floor"), [a])
    assert_matches_torch(lambda x, y: seqlab.divide(x, y, rounding_mode="floor"),
                         lambda x, y: torch.divide(x, y, rounding_mode="floor"), [a, b])


def test_float_floor_division_in_place_and_without_grad():
    x, t = seqlab.tensor([7.0, 1.0, -7.0]), torch.tensor([7.0, 1.0, -7.0])
    x.div_(0.1, rounding_mode="floor")
    t.div_(0.1, rounding_mode="floor")
    assert x.tolist() == t.tolist() == [69.0, 9.0, -70.0]
    with seqlab.no_grad():
        y = seqlab.div(seqlab.tensor([7.0], requires_grad=True), 0.1, rounding_mode="floor")
    assert not y.requires_grad and y.tolist() == [69.0]


def test_plain_keys_index_as_before():
    x, t = seqlab.arange(24.0).reshape(2, 3, 4), torch.arange(24.0).reshape(2, 3, 4)
    for key in (0, -1, slice(1, 3), slice(None, None, 2), None, Ellipsis, (0, slice(1, None)), [1, 0], [[0, 1]]):
        with pytest.warns(UserWarning) if key == [[0, 1]] else _nothing():
            got = x[key]
        assert got.tolist() == t[key].tolist(), key


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_inference_mode_is_per_thread():
    seen = []
    with seqlab.inference_mode():
        worker = threading.Thread(target=lambda: seen.append(seqlab.is_inference_mode_enabled()))
        worker.start()
        worker.join()
        assert seqlab.is_inference_mode_enabled()
    assert seen == [False] and not seqlab.is_inference_mode_enabled()
    with torch.inference_mode():  # torch's is per thread too
        torch_seen = []
        worker = threading.Thread(target=lambda: torch_seen.append(torch.is_inference_mode_enabled()))
        worker.start()
        worker.join()
    assert torch_seen == [False]


def test_backward_takes_torchs_inputs_and_create_graph():
    results = []
    for lib in (seqlab, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0], requires_grad=True)
        loss = (w * b).sum()
        loss.backward(inputs=[w], retain_graph=True, create_graph=False)
        assert b.grad is None
        loss.backward(inputs=w)                      # accumulates, as without inputs
        h = w * 2
        (h * b).sum().backward(inputs=[h])           # a non-leaf input gets its .grad
        lib.autograd.backward([(w * b).sum()], inputs=[b])
        results.append((w.grad.tolist(), h.grad.tolist(), b.grad.tolist()))
        with pytest.raises(RuntimeError, match="`inputs` argument to `backward\\(\\)` cannot be empty"):
            (w * b).sum().backward(inputs=[])
    assert results[0] == results[1] == ([6.0, 6.0], [3.0, 3.0], [3.0])
    with pytest.raises(NotImplementedError, match="double backward"):
        (seqlab.ones(1, requires_grad=True) * 2).sum().backward(create_graph=True)
