"""seqlab.autograd.grad (torch.autograd.grad): gradients of outputs with respect to chosen inputs,
leaves or intermediate tensors, returned without touching any .grad; grad_outputs, several outputs
and inputs, allow_unused / materialize_grads, retain_graph, and torch's errors."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_close


def both(fn, arrays):
    """fn(lib, *leaves) -> (outputs, inputs) run in seqlab and torch on the same numbers."""
    sl = [seqlab.tensor(a, requires_grad=True) for a in arrays]
    th = [torch.tensor(a, requires_grad=True) for a in arrays]
    return fn(seqlab, *sl), fn(torch, *th), sl, th


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad_of_leaves_and_intermediates_equals_torch(rng, dtype):
    arrays = [rng.standard_normal((3, 4)).astype(dtype), rng.standard_normal((4, 2)).astype(dtype)]

    def f(lib, a, b):
        h = (a @ b).tanh()          # an intermediate tensor
        loss = (h * h).sum() + a.sin().mean()
        return loss, [a, h, b]

    (sl_loss, sl_in), (th_loss, th_in), sl_leaves, _ = both(f, arrays)
    got = seqlab.autograd.grad(sl_loss, sl_in)
    want = torch.autograd.grad(th_loss, th_in)
    assert isinstance(got, tuple) and len(got) == 3
    for g, w, what in zip(got, want, ["a", "h", "b"]):
        assert_close(g.numpy(), w.numpy(), *((1e-5, 1e-5) if dtype == np.float32 else (1e-12, 1e-12)), what)
    assert all(x.grad is None for x in sl_leaves)  # no .grad is touched


def test_grad_outputs_several_outputs_and_retain_graph(rng):
    arrays = [rng.standard_normal((5,)), rng.standard_normal((5,))]

    def f(lib, x, y):
        return [x * y, (x + y).exp()], [x, y]

    (sl_out, sl_in), (th_out, th_in), _, _ = both(f, arrays)
    go = [rng.standard_normal((5,)), rng.standard_normal((5,))]
    got = seqlab.autograd.grad(sl_out, sl_in, grad_outputs=[seqlab.tensor(g) for g in go], retain_graph=True)
    want = torch.autograd.grad(th_out, th_in, grad_outputs=[torch.tensor(g) for g in go], retain_graph=True)
    for g, w in zip(got, want):
        assert_close(g.numpy(), w.numpy(), 1e-12, 1e-12, "grad_outputs")
    # the graph was kept: a second call and a backward still work
    again = seqlab.autograd.grad(sl_out[0].sum(), sl_in[0])
    assert_close(again[0].numpy(), arrays[1], 1e-12, 1e-12, "d(sum x*y)/dx = y")
    sl_out[1].sum().backward()
    assert_close(sl_in[0].grad.numpy(), np.exp(arrays[0] + arrays[1]), 1e-12, 1e-12, "backward after grad")


def test_unused_inputs_and_errors():
    x = seqlab.tensor([1.0, 2.0], requires_grad=True)
    y = seqlab.tensor([3.0], requires_grad=True)
    z = seqlab.tensor([1.0, 1.0])
    loss = (x * x).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        seqlab.autograd.grad(loss, [x, y], retain_graph=True)
    gx, gy = seqlab.autograd.grad(loss, [x, y], allow_unused=True, retain_graph=True)
    assert gy is None and gx.tolist() == [2.0, 4.0]
    gx, gy = seqlab.autograd.grad(loss, [x, y], materialize_grads=True, retain_graph=True)
    assert gy.tolist() == [0.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        seqlab.autograd.grad(loss, [z], retain_graph=True)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        seqlab.autograd.grad(x * 2, x)
    with pytest.raises(NotImplementedError, match="double backward"):
        seqlab.autograd.grad(loss, x, create_graph=True)
    # torch raises on the same calls
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        torch.autograd.grad((tx * tx).sum(), [tx, torch.tensor([3.0], requires_grad=True)])


def test_a_single_tensor_input_gives_a_one_tuple():
    x = seqlab.tensor(2.0, requires_grad=True)
    (g,) = seqlab.autograd.grad(x ** 3, x)
    assert g.item() == 12.0
