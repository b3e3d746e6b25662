"""Autograd engine behaviour: gradient accumulation, retain_graph, freed graphs, grad modes
(no_grad / enable_grad / set_grad_enabled), detach, requires_grad_, retain_grad, explicit
gradients, in-place safety checks, gradcheck itself, and flat memory over a long training loop.

Follows torch.autograd semantics. Helpers live in tests/conftest.py.
"""

import gc

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn.functional as F
from conftest import randn, rss_bytes, sl_leaf, sl_np


def leaf(values, dtype=np.float64):
    return sl_leaf(np.asarray(values, dtype=dtype), requires_grad=True)


# ----------------------------------------------------------------------------------------
# Accumulation and graph lifetime
# ----------------------------------------------------------------------------------------

def test_grad_accumulates_over_two_backward_calls():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).sum().backward()
    np.testing.assert_allclose(sl_np(x.grad), [2.0, 4.0, 6.0])
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(sl_np(x.grad), [5.0, 7.0, 9.0])
    x.grad.zero_()
    (x.exp()).sum().backward()
    np.testing.assert_allclose(sl_np(x.grad), np.exp([1.0, 2.0, 3.0]))


def test_grad_accumulates_matches_torch(rng):
    a = randn(rng, (3, 4), np.float64)
    w = randn(rng, (4, 2), np.float64)
    xs, ws = sl_leaf(a), sl_leaf(w)
    xt, wt = torch.tensor(a, requires_grad=True), torch.tensor(w, requires_grad=True)
    for _ in range(3):
        (xs @ ws).tanh().sum().backward()
        (xt @ wt).tanh().sum().backward()
    np.testing.assert_allclose(sl_np(xs.grad), xt.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(sl_np(ws.grad), wt.grad.numpy(), rtol=1e-10)


def test_retain_graph_allows_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(sl_np(x.grad), [4.0, 8.0])


def test_backward_twice_through_freed_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()  # mul saves x for backward
    y.backward()
    with pytest.raises(RuntimeError, match=r"(?i)second time|freed"):
        y.backward()


def test_backward_twice_through_freed_graph_raises_exp():
    x = leaf([0.5, -0.5])
    y = x.exp().tanh().sum()  # exp and tanh save their outputs
    y.backward()
    with pytest.raises(RuntimeError, match=r"(?i)second time|freed"):
        y.backward()


def test_retain_graph_then_free():
    x = leaf([3.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=False)
    with pytest.raises(RuntimeError):
        y.backward()
    np.testing.assert_allclose(sl_np(x.grad), [12.0])


def test_shared_subgraph_diamond():
    """y = a*b with a, b both depending on x: gradients from both branches add up."""
    x = leaf([2.0])
    a = x * 3.0
    b = x.exp()
    (a * b + a).sum().backward()
    xv = 2.0
    np.testing.assert_allclose(sl_np(x.grad), [3 * np.exp(xv) + 3 * xv * np.exp(xv) + 3], rtol=1e-12)


# ----------------------------------------------------------------------------------------
# Non-scalar outputs
# ----------------------------------------------------------------------------------------

def test_backward_non_scalar_with_explicit_gradient():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    y.backward(seqlab.tensor([1.0, 0.5, -1.0], dtype=seqlab.float64))
    np.testing.assert_allclose(sl_np(x.grad), [2.0, 2.0, -6.0])


def test_backward_non_scalar_gradient_keyword_2d(rng):
    a = randn(rng, (2, 3), np.float64)
    g = randn(rng, (2, 3), np.float64)
    x = sl_leaf(a)
    x.tanh().backward(gradient=seqlab.from_numpy(g.copy()))
    np.testing.assert_allclose(sl_np(x.grad), g * (1 - np.tanh(a) ** 2), rtol=1e-12)


def test_backward_non_scalar_without_gradient_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2.0).backward()


def test_backward_implicit_gradient_for_single_element_output():
    """torch creates the implicit gradient whenever numel() == 1, whatever the shape."""
    x = leaf([1.0, 2.0])
    y = (x * x).sum().reshape(1)
    y.backward()  # torch allows implicit grad when numel() == 1
    np.testing.assert_allclose(sl_np(x.grad), [2.0, 4.0])


def test_backward_on_tensor_without_grad_raises():
    x = seqlab.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        (x * 2.0).sum().backward()


# ----------------------------------------------------------------------------------------
# Grad modes
# ----------------------------------------------------------------------------------------

def test_no_grad_context_manager():
    x = leaf([1.0, 2.0])
    assert seqlab.is_grad_enabled()
    with seqlab.no_grad():
        assert not seqlab.is_grad_enabled()
        y = x * 2.0
        z = (x @ x) + x.exp().sum()
    assert seqlab.is_grad_enabled()
    assert y.requires_grad is False and y.grad_fn is None
    assert z.requires_grad is False
    np.testing.assert_allclose(sl_np(y), [2.0, 4.0])


def test_no_grad_decorator():
    @seqlab.no_grad()
    def f(t):
        assert not seqlab.is_grad_enabled()
        return t * t

    x = leaf([3.0])
    y = f(x)
    assert y.requires_grad is False
    assert seqlab.is_grad_enabled()
    assert f.__name__ == "f"


def test_no_grad_restores_on_exception():
    with pytest.raises(ValueError):
        with seqlab.no_grad():
            raise ValueError("boom")
    assert seqlab.is_grad_enabled()


def test_enable_grad_inside_no_grad_and_set_grad_enabled():
    x = leaf([1.0])
    with seqlab.no_grad():
        with seqlab.enable_grad():
            assert seqlab.is_grad_enabled()
            y = x * 2.0
        assert not seqlab.is_grad_enabled()
    assert y.requires_grad
    seqlab.set_grad_enabled(False)
    try:
        assert not seqlab.is_grad_enabled()
        assert (x * 2.0).requires_grad is False
    finally:
        seqlab.set_grad_enabled(True)
    assert seqlab.is_grad_enabled()
    with seqlab.set_grad_enabled(False):
        assert (x + 1.0).requires_grad is False
    assert seqlab.is_grad_enabled()


def test_sgd_update_under_no_grad_keeps_leaf():
    w = leaf([1.0, -1.0])
    (w * w).sum().backward()
    with seqlab.no_grad():
        w -= 0.1 * w.grad
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    np.testing.assert_allclose(sl_np(w), [0.8, -0.8])
    w.grad.zero_()
    (w * w).sum().backward()
    np.testing.assert_allclose(sl_np(w.grad), [1.6, -1.6])


# ----------------------------------------------------------------------------------------
# detach / requires_grad_ / retain_grad / leaves
# ----------------------------------------------------------------------------------------

def test_detach_stops_gradient_and_shares_storage():
    x = leaf([1.0, 2.0])
    y = x * 3.0
    d = y.detach()
    assert d.requires_grad is False and d.grad_fn is None and d.is_leaf
    (x * d).sum().backward()  # d is a constant
    np.testing.assert_allclose(sl_np(x.grad), [3.0, 6.0])
    # detach shares storage with the original
    xd = x.detach()
    xd.mul_(0.0)
    np.testing.assert_array_equal(sl_np(x), [0.0, 0.0])


def test_requires_grad_():
    x = seqlab.tensor([1.0, 2.0])
    assert not x.requires_grad
    r = x.requires_grad_()
    assert x.requires_grad and r.requires_grad
    (x * x).sum().backward()
    np.testing.assert_allclose(sl_np(x.grad), [2.0, 4.0])
    x.requires_grad_(False)
    assert not x.requires_grad
    assert not (x * x).requires_grad


def test_is_leaf_and_grad_fn():
    x = leaf([1.0])
    c = seqlab.tensor([2.0])
    y = x * c
    assert x.is_leaf and c.is_leaf and not y.is_leaf
    assert x.grad_fn is None and y.grad_fn is not None
    assert (c * 2.0).is_leaf  # results of ops on tensors that don't require grad are leaves


def test_non_leaf_grad_is_none_unless_retain_grad():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    z = y * y
    y.retain_grad()
    w = x + 1.0
    (z.sum() + w.sum()).backward()
    np.testing.assert_allclose(sl_np(y.grad), [4.0, 8.0])
    assert w.grad is None
    np.testing.assert_allclose(sl_np(x.grad), [9.0, 17.0])


def test_grad_of_unused_leaf_stays_none():
    x, y = leaf([1.0]), leaf([2.0])
    (x * 2.0).sum().backward()
    assert y.grad is None
    assert x.grad is not None


def test_requires_grad_propagates():
    a = seqlab.tensor([1.0])
    b = leaf([2.0])
    assert not (a * a).requires_grad
    assert (a * b).requires_grad
    assert (a + b).sum().requires_grad


# ----------------------------------------------------------------------------------------
# In-place safety
# ----------------------------------------------------------------------------------------

def test_inplace_on_saved_tensor_raises_on_backward():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2.0
    z = y * y  # saves y
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_on_saved_output_raises_on_backward():
    x = leaf([0.1, 0.2])
    y = x.exp()  # exp saves its output
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_inplace_on_view_of_saved_tensor_raises():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1.0
    z = y.sigmoid()  # saves its output z
    z[0].zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_on_unsaved_tensor_is_fine():
    x = leaf([1.0, 2.0])
    y = x * 2.0  # scalar mul does not save y
    z = y + 1.0  # add saves nothing
    y.mul_(3.0)
    z.sum().backward()
    np.testing.assert_allclose(sl_np(x.grad), [2.0, 2.0])


@pytest.mark.parametrize("op", ["add_", "mul_", "zero_", "fill_", "+=", "clamp_", "setitem"])
def test_inplace_on_leaf_requiring_grad_raises(op):
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf"):
        if op == "add_":
            x.add_(1.0)
        elif op == "mul_":
            x.mul_(2.0)
        elif op == "zero_":
            x.zero_()
        elif op == "fill_":
            x.fill_(3.0)
        elif op == "+=":
            x += 1.0
        elif op == "clamp_":
            x.clamp_(0.0, 1.0)
        else:
            x[0] = 5.0
    np.testing.assert_array_equal(sl_np(x), [1.0, 2.0])  # unchanged


def test_inplace_on_leaf_allowed_under_no_grad():
    x = leaf([1.0, 2.0])
    with seqlab.no_grad():
        x.add_(1.0)
        x[0] = 10.0
    np.testing.assert_array_equal(sl_np(x), [10.0, 3.0])
    assert x.requires_grad and x.is_leaf


# ----------------------------------------------------------------------------------------
# gradcheck itself
# ----------------------------------------------------------------------------------------

def test_gradcheck_passes_for_correct_function(rng):
    x = sl_leaf(randn(rng, (3,), np.float64))
    assert seqlab.autograd.gradcheck(lambda t: (t * t).sum(), (x,)) is True


def test_gradcheck_detects_wrong_gradient(rng):
    """x.detach() * x has true derivative 2x but autograd sees x: gradcheck must notice."""
    x = sl_leaf(randn(rng, (3,), np.float64) + 3.0)
    f = lambda t: t.detach() * t  # noqa: E731
    assert seqlab.autograd.gradcheck(f, (x,), raise_exception=False) is False
    with pytest.raises(RuntimeError):
        seqlab.autograd.gradcheck(f, (x,))


def test_gradcheck_multiple_inputs_and_tolerances(rng):
    a = sl_leaf(randn(rng, (2, 3), np.float64))
    b = sl_leaf(randn(rng, (3, 2), np.float64))
    assert seqlab.autograd.gradcheck(lambda x, y: (x @ y).tanh(), (a, b), eps=1e-6, atol=1e-5, rtol=1e-3)


# ----------------------------------------------------------------------------------------
# Memory: a 10,000-step training loop holds flat memory
# ----------------------------------------------------------------------------------------

def test_memory_flat_over_long_training_loop():
    seqlab.manual_seed(0)
    rng = np.random.default_rng(0)
    X = seqlab.from_numpy(rng.standard_normal((32, 8)).astype(np.float32))
    true_w = rng.standard_normal((8, 1)).astype(np.float32)
    Y = seqlab.from_numpy(np.tanh(sl_np(X) @ true_w).astype(np.float32))  # a learnable target

    W1 = (seqlab.randn(8, 16) * 0.3).requires_grad_()
    b1 = seqlab.zeros(16, requires_grad=True)
    W2 = (seqlab.randn(16, 1) * 0.3).requires_grad_()
    b2 = seqlab.zeros(1, requires_grad=True)
    params = [W1, b1, W2, b2]
    lr = 0.05

    def step():
        h = (X @ W1 + b1).relu()
        pred = h @ W2 + b2
        loss = ((pred - Y) ** 2).mean()
        loss.backward()
        with seqlab.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad.zero_()
        return loss.item()

    first_loss = step()
    for _ in range(999):
        step()
    gc.collect()
    rss_1000 = rss_bytes()
    for _ in range(9000):
        last_loss = step()
    gc.collect()
    rss_10000 = rss_bytes()

    growth_mb = (rss_10000 - rss_1000) / 2**20
    assert growth_mb < 20, f"RSS grew by {growth_mb:.1f} MB between step 1000 and 10000"
    assert np.isfinite(last_loss)
    assert last_loss < 0.5 * first_loss, f"training did not reduce the loss: {first_loss} -> {last_loss}"


def test_memory_flat_when_graphs_are_dropped_without_backward():
    """Building graphs and dropping them (e.g. evaluation without no_grad) frees them."""
    w = seqlab.randn(64, 64, requires_grad=True)
    x = seqlab.randn(16, 64)
    for _ in range(200):
        (x @ w).tanh().sum()
    gc.collect()
    before = rss_bytes()
    for _ in range(3000):
        (x @ w).tanh().sum()
    gc.collect()
    growth_mb = (rss_bytes() - before) / 2**20
    # 3000 leaked graphs would hold 3000 * (16*64*4*2) bytes ~ 24 MB of saved activations
    assert growth_mb < 10, f"RSS grew by {growth_mb:.1f} MB"


# ----------------------------------------------------------------------------------------
# Threads: compute calls release the GIL; independent graphs in several Python threads
# ----------------------------------------------------------------------------------------

def test_concurrent_forward_backward_in_threads():
    import threading

    rng = np.random.default_rng(7)
    problems = [(rng.standard_normal((32, 48)), rng.standard_normal((48, 16))) for _ in range(4)]

    def run(a, w):
        x, wl = sl_leaf(a), sl_leaf(w)
        out = (x @ wl).tanh()
        loss = (out * out).mean() + F.log_softmax(out, dim=1).sum() * 1e-3
        loss.backward()
        return loss.item(), sl_np(x.grad), sl_np(wl.grad)

    expected = [run(a, w) for a, w in problems]
    errors, results = [], {}

    def worker(k):
        try:
            for _ in range(25):
                results[k] = run(*problems[k])
                got = results[k]
                assert got[0] == pytest.approx(expected[k][0], rel=1e-12)
                np.testing.assert_allclose(got[1], expected[k][1], rtol=1e-10)
                np.testing.assert_allclose(got[2], expected[k][2], rtol=1e-10)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((k, repr(e)))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "threads deadlocked"
    assert not errors, errors

# ----------------------------------------------------------------------------------------
# Deep graphs: no recursion limits or stack overflows (run in a subprocess: a crash must be
# reported as a failure, not take the test session down)
# ----------------------------------------------------------------------------------------

def _run_isolated(code):
    import subprocess
    import sys
    import textwrap

    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"exit code {proc.returncode}\nstdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}"
    return proc.stdout


def test_backward_through_very_deep_graph():
    out = _run_isolated("""
        import seqlab
        x = seqlab.tensor([1.0, 2.0], dtype=seqlab.float64, requires_grad=True)
        y = x
        for _ in range(100_000):
            y = y * 1.00001
        y.sum().backward()
        print(x.grad.tolist())
    """)
    g = eval(out.strip().splitlines()[-1])
    np.testing.assert_allclose(g, [1.00001 ** 100_000] * 2, rtol=1e-9)


def test_dropping_very_deep_graph_without_backward():
    """The course anti-pattern `total = total + loss` builds a long chain; freeing it must not crash."""
    out = _run_isolated("""
        import gc
        import seqlab
        w = seqlab.ones(3, requires_grad=True)
        total = seqlab.zeros(())
        for _ in range(200_000):
            total = total + (w * 2.0).sum()
        print(total.item())
        del total
        gc.collect()
        print("freed")
    """)
    lines = out.strip().splitlines()
    assert lines[-1] == "freed"
    assert float(lines[-2]) == pytest.approx(1_200_000.0)


def test_data_attribute_updates_without_history_like_torch():
    """makemore's update `p.data += -lr * p.grad` works as in torch."""
    import torch
    for lib in (seqlab, torch):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        (p * p).sum().backward()
        p.data += -0.1 * p.grad
        assert p.is_leaf and p.requires_grad and p.grad_fn is None
        np.testing.assert_allclose(p.detach().numpy(), [0.8, 1.6])
    for lib in (seqlab, torch):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        p.data = lib.tensor([5.0, 6.0])
        np.testing.assert_array_equal(p.detach().numpy(), [5.0, 6.0])
        p.data = lib.zeros(3, dtype=lib.float64)  # torch allows another shape and dtype: p takes them
        assert tuple(p.shape) == (3,) and p.dtype == lib.float64 and p.requires_grad and p.is_leaf
        (p * 2).sum().backward()
        np.testing.assert_array_equal(p.grad.numpy(), [2.0, 2.0, 2.0])


def test_accumulate_grad_variable_is_the_leaf_as_in_torch():
    x = seqlab.randn(3, requires_grad=True)
    mul = (x * 2).sum().grad_fn.next_functions[0][0]
    acc = mul.next_functions[0][0]
    assert acc.name() == "AccumulateGrad" and acc.variable is x
    tx = torch.randn(3, requires_grad=True)
    tmul = (tx * 2).sum().grad_fn.next_functions[0][0]
    assert tmul.next_functions[0][0].variable is tx
    for node, name in ((mul, "MulBackward0"), (tmul, "MulBackward0")):
        with pytest.raises(AttributeError, match=f"'{name}' object has no attribute 'variable'"):
            node.variable
