"""Fused layer_norm and embedding against torch (forward, every gradient, gradcheck), and
seqlab.nn.init against torch.nn.init's formulas (bounds, spreads, fans, gains, errors)."""
import math

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn.functional as F
import seqlab.nn.init as init


@pytest.mark.parametrize("dtype,atol", [(np.float32, 1e-5), (np.float64, 1e-10)], ids=["f32", "f64"])
@pytest.mark.parametrize("shape,normalized,affine", [
    ((4, 6), (6,), True), ((2, 3, 5), (5,), True), ((2, 3, 5), (3, 5), True), ((3, 7), (7,), False),
    ((1, 1), (1,), True), ((0, 4), (4,), True)], ids=["2d", "3d-last", "3d-two", "no-affine", "size1", "size0"])
def test_layer_norm_matches_torch(shape, normalized, affine, dtype, atol):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype) * 3 + 1
    w = rng.standard_normal(normalized).astype(dtype)
    b = rng.standard_normal(normalized).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    sx, tx = seqlab.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    sw, tw = (seqlab.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)) if affine else (None, None)
    sb, tb = (seqlab.tensor(b, requires_grad=True), torch.tensor(b, requires_grad=True)) if affine else (None, None)
    ys = F.layer_norm(sx, normalized, sw, sb, eps=1e-5)
    yt = torch.nn.functional.layer_norm(tx, normalized, tw, tb, eps=1e-5)
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), atol=atol, rtol=1e-5)
    ys.backward(seqlab.tensor(g))
    yt.backward(torch.tensor(g))
    pairs = [(sx, tx)] + ([(sw, tw), (sb, tb)] if affine else [])
    for s, t in pairs:
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), atol=atol * 10, rtol=1e-5)


def test_layer_norm_non_contiguous_input():
    x = np.random.default_rng(1).standard_normal((5, 4))
    sx = seqlab.tensor(x, requires_grad=True)
    ys = F.layer_norm(sx.t(), (5,))
    yt = torch.nn.functional.layer_norm(torch.tensor(x).t(), (5,))
    np.testing.assert_allclose(ys.detach().numpy(), yt.numpy(), atol=1e-12)


def test_layer_norm_gradcheck():
    rng = np.random.default_rng(2)
    args = [seqlab.tensor(rng.standard_normal(s), requires_grad=True) for s in [(3, 2, 4), (2, 4), (2, 4)]]
    assert seqlab.autograd.gradcheck(lambda x, w, b: F.layer_norm(x, (2, 4), w, b), args)


def test_layer_norm_shape_error_names_shapes():
    with pytest.raises(RuntimeError, match=r"layer_norm.*\[4\].*\[2, 3\]"):
        F.layer_norm(seqlab.ones(2, 3), (4,))


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_matches_torch(padding_idx):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((6, 3))
    idx = np.array([[0, 2, 5], [2, 2, 1]])
    g = rng.standard_normal((2, 3, 3))
    sw, tw = seqlab.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    ys = F.embedding(seqlab.tensor(idx), sw, padding_idx=padding_idx)
    yt = torch.nn.functional.embedding(torch.tensor(idx), tw, padding_idx=padding_idx)
    np.testing.assert_array_equal(ys.detach().numpy(), yt.detach().numpy())
    ys.backward(seqlab.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(sw.grad.numpy(), tw.grad.numpy(), atol=1e-12)


def test_embedding_errors():
    w = seqlab.ones(4, 2)
    with pytest.raises(IndexError, match=r"index 4 is out of range"):
        F.embedding(seqlab.tensor([1, 4]), w)
    with pytest.raises(RuntimeError, match=r"int64|Long"):
        F.embedding(seqlab.tensor([1.0]), w)


def test_fans_and_gains_match_torch():
    for shape in [(3, 5), (4, 2, 3), (6, 1, 2, 2)]:
        assert init._calculate_fan_in_and_fan_out(seqlab.empty(*shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    for nl, p in [("linear", None), ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", 0.2),
                  ("selu", None)]:
        ours = init.calculate_gain(nl) if p is None else init.calculate_gain(nl, p)
        theirs = torch.nn.init.calculate_gain(nl) if p is None else torch.nn.init.calculate_gain(nl, p)
        assert ours == pytest.approx(theirs)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(seqlab.empty(5))


def test_uniform_initialisers_respect_torch_bounds():
    seqlab.manual_seed(0)
    w = seqlab.empty(200, 100)
    init.xavier_uniform_(w, gain=2.0)
    bound = 2.0 * math.sqrt(6 / 300)
    a = w.numpy()
    assert a.max() <= bound and a.min() >= -bound and a.max() > 0.95 * bound
    init.kaiming_uniform_(w, a=math.sqrt(5))  # nn.Linear's default
    bound = 1 / math.sqrt(100)
    a = w.numpy()
    assert a.max() <= bound and a.min() >= -bound and a.max() > 0.95 * bound


def test_normal_initialisers_have_torch_spread():
    seqlab.manual_seed(1)
    w = seqlab.empty(400, 300)
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert w.numpy().std() == pytest.approx(math.sqrt(2 / 400), rel=0.02)
    init.xavier_normal_(w)
    assert w.numpy().std() == pytest.approx(math.sqrt(2 / 700), rel=0.02)
    init.normal_(w, mean=3.0, std=0.5)
    assert w.numpy().mean() == pytest.approx(3.0, abs=0.01)


@pytest.mark.parametrize("shape", [(4, 7), (7, 4), (3, 2, 2)])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape):
    w = seqlab.empty(*shape, dtype=seqlab.float64)
    init.orthogonal_(w, gain=1.5)
    m = w.numpy().reshape(shape[0], -1)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, 2.25 * np.eye(gram.shape[0]), atol=1e-10)


def test_initialisers_record_no_history_and_work_on_leaves():
    w = seqlab.empty(3, 4, requires_grad=True)
    init.constant_(w, 0.5)
    assert w.is_leaf and w.grad_fn is None
    np.testing.assert_array_equal(w.detach().numpy(), np.full((3, 4), 0.5, np.float32))
    init.zeros_(w)
    init.ones_(w)
    assert w.detach().numpy().sum() == 12
