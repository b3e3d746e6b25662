"""seqlab.nn.functional activations (relu, gelu, tanh, sigmoid, softmax, log_softmax, dropout)
and losses (cross_entropy, nll_loss, mse_loss, binary_cross_entropy_with_logits) vs
torch.nn.functional, forward and gradient; gradchecks in float64 at the bottom.
Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn.functional as F
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_gradcheck, assert_matches_torch, randn, shape_id, sl_leaf, sl_np, tol,
)

# ----------------------------------------------------------------------------------------
# Activations
# ----------------------------------------------------------------------------------------

ACTIVATIONS = {
    "relu": lambda f, x: f.relu(x),
    "gelu": lambda f, x: f.gelu(x),
    "gelu-none": lambda f, x: f.gelu(x, approximate="none"),
    "gelu-tanh": lambda f, x: f.gelu(x, approximate="tanh"),
    "tanh": lambda f, x: f.tanh(x),
    "sigmoid": lambda f, x: f.sigmoid(x),
    "silu": lambda f, x: f.silu(x),
}

ACT_SHAPES = [(), (7,), (3, 4), (2, 3, 4), (0, 5), (1, 1)]


def act_input(rng, shape, dtype):
    # keep relu away from its kink at 0 (torch's derivative there is 0; avoid ambiguity)
    x = randn(rng, shape, dtype) * 3
    return np.where(np.abs(x) < 1e-3, 0.5, x).astype(dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", ACT_SHAPES, ids=shape_id)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation(rng, name, shape, dtype):
    fn = ACTIVATIONS[name]
    x = act_input(rng, shape, dtype)
    assert_matches_torch(lambda a: fn(F, a), lambda a: fn(TF, a), [x])


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_noncontiguous(rng, name, layout):
    fn = ACTIVATIONS[name]
    assert_matches_torch(lambda a: fn(F, a), lambda a: fn(TF, a), [act_input(rng, (5, 6), np.float32)],
                         layout=layout)


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_extreme_inputs(name):
    x = np.array([-1e4, -50.0, -10.0, 10.0, 50.0, 1e4], dtype=np.float32)
    assert_matches_torch(lambda a: ACTIVATIONS[name](F, a), lambda a: ACTIVATIONS[name](TF, a), [x])


# ----------------------------------------------------------------------------------------
# softmax / log_softmax
# ----------------------------------------------------------------------------------------

SOFTMAX_CASES = [((3, 4), 1), ((3, 4), 0), ((3, 4), -1), ((2, 3, 4), 1), ((2, 3, 4), -3), ((5,), 0), ((1,), 0),
                 ((4, 1), 1), ((0, 4), 1), ((4, 0), 1), ((2, 3, 50), -1)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,dim", SOFTMAX_CASES, ids=[f"{shape_id(s)}-dim={d}" for s, d in SOFTMAX_CASES])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax(rng, op, shape, dim, dtype):
    x = randn(rng, shape, dtype) * 2
    assert_matches_torch(lambda a: getattr(F, op)(a, dim), lambda a: getattr(TF, op)(a, dim), [x])
    assert_matches_torch(lambda a: getattr(F, op)(a, dim=dim), lambda a: getattr(TF, op)(a, dim=dim), [x],
                         layout="T")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_large_logits_are_stable(rng, op):
    """log-sum-exp: logits in the thousands give finite results (no inf/nan), as in torch."""
    x = (randn(rng, (4, 6), np.float32) * 1000).astype(np.float32)
    out = assert_matches_torch(lambda a: getattr(F, op)(a, -1), lambda a: getattr(TF, op)(a, -1), [x],
                               atol=1e-4, rtol=1e-4)
    assert np.all(np.isfinite(sl_np(out)))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_with_minus_inf(op):
    """Masked (-inf) entries get probability 0 and zero gradient."""
    x = np.array([[0.5, -np.inf, 1.0, -np.inf], [2.0, 1.0, 0.0, -1.0]], dtype=np.float64)
    assert_matches_torch(lambda a: getattr(F, op)(a, -1), lambda a: getattr(TF, op)(a, -1), [x])


def test_softmax_rows_sum_to_one(rng):
    x = randn(rng, (5, 7), np.float64)
    p = sl_np(F.softmax(sl_leaf(x, False), dim=1))
    np.testing.assert_allclose(p.sum(axis=1), np.ones(5), rtol=1e-12)
    np.testing.assert_allclose(p, np.exp(x) / np.exp(x).sum(1, keepdims=True), rtol=1e-12)


# ----------------------------------------------------------------------------------------
# cross_entropy
# ----------------------------------------------------------------------------------------

def ce_targets(rng, n_classes, shape, ignore=None, frac_ignored=0.0):
    t = rng.integers(0, n_classes, size=shape).astype(np.int64)
    if ignore is not None:
        drop = rng.random(shape) < frac_ignored
        t = np.where(drop, ignore, t).astype(np.int64)
        t.reshape(-1)[0] = ignore  # at least one ignored
        t.reshape(-1)[-1] = 0 if ignore != 0 else 1  # at least one kept
    return t


CE_KWARGS = {
    "mean": {},
    "sum": {"reduction": "sum"},
    "none": {"reduction": "none"},
    "weight": {"weight": "W"},
    "weight-sum": {"weight": "W", "reduction": "sum"},
    "weight-none": {"weight": "W", "reduction": "none"},
    "ignore-100": {"ignore": -100},
    "ignore-100-weight": {"ignore": -100, "weight": "W"},
    "ignore_index=2": {"ignore_index": 2, "ignore": 2},
    "ignore_index=2-none": {"ignore_index": 2, "ignore": 2, "reduction": "none"},
    "label_smoothing": {"label_smoothing": 0.1},
    "label_smoothing-sum": {"label_smoothing": 0.2, "reduction": "sum"},
    "label_smoothing-none": {"label_smoothing": 0.2, "reduction": "none"},
    "label_smoothing-weight": {"label_smoothing": 0.15, "weight": "W"},
    "label_smoothing-weight-ignore": {"label_smoothing": 0.1, "weight": "W", "ignore": -100},
}


def const_pair(arr):
    """The same constant (requires_grad=False) data as a seqlab and a torch tensor."""
    return seqlab.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def _ce_call(kw, weight_tensor):
    kw = dict(kw)
    kw.pop("ignore", None)
    if kw.get("weight") == "W":
        kw["weight"] = weight_tensor
    return kw


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("input_shape", [(6, 5), (3, 5, 4), (5,)], ids=["NC", "NCd", "C"])
@pytest.mark.parametrize("case", list(CE_KWARGS))
def test_cross_entropy(rng, case, input_shape, dtype):
    spec = CE_KWARGS[case]
    C = input_shape[0] if len(input_shape) == 1 else input_shape[1]
    tshape = () if len(input_shape) == 1 else (input_shape[0],) + input_shape[2:]
    x = randn(rng, input_shape, dtype) * 2
    ignore = spec.get("ignore")
    if ignore is not None and tshape == ():
        ignore = None  # a single ignored target gives nan; covered by the batched shapes
    target = ce_targets(rng, C, tshape, ignore, 0.3) if tshape != () else np.array(rng.integers(0, C), np.int64)
    ws, wt = const_pair((rng.random(C) + 0.5).astype(dtype))
    atol, rtol = tol(dtype, 10)
    assert_matches_torch(
        lambda a, t: F.cross_entropy(a, t, **_ce_call(spec, ws)),
        lambda a, t: TF.cross_entropy(a, t, **_ce_call(spec, wt)),
        [x, target], atol=atol, rtol=rtol)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_all_targets_ignored(rng, reduction):
    """torch: mean over zero kept targets is nan (0/0); sum is 0; none is all zeros."""
    x = randn(rng, (3, 4), np.float32)
    t = np.array([-100, -100, -100], dtype=np.int64)
    assert_matches_torch(lambda a, b: F.cross_entropy(a, b, reduction=reduction),
                         lambda a, b: TF.cross_entropy(a, b, reduction=reduction), [x, t], grad=False)


def test_cross_entropy_noncontiguous_and_large_logits(rng):
    x = (randn(rng, (5, 6), np.float32) * 500).astype(np.float32)
    target = rng.integers(0, 5, size=6).astype(np.int64)
    # logits stored (5,6) and transposed to (6,5): non-contiguous (N, C)
    out = assert_matches_torch(lambda a, t: F.cross_entropy(a.t(), t), lambda a, t: TF.cross_entropy(a.t(), t),
                               [x, target], atol=1e-3, rtol=1e-4)
    assert np.isfinite(out.item())


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", ["mean", "sum", "none", "weight", "label_smoothing", "label_smoothing-weight"])
def test_cross_entropy_probability_targets(rng, case, dtype):
    """Soft (class-probability) targets of the same shape as the input, as torch allows."""
    spec = CE_KWARGS[case]
    x = randn(rng, (4, 5), dtype)
    p = rng.random((4, 5)).astype(dtype)
    p /= p.sum(1, keepdims=True)
    ws, wt = const_pair((rng.random(5) + 0.5).astype(dtype))
    atol, rtol = tol(dtype, 10)
    assert_matches_torch(
        lambda a, t: F.cross_entropy(a, t, **_ce_call(spec, ws)),
        lambda a, t: TF.cross_entropy(a, t, **_ce_call(spec, wt)),
        [x, p], atol=atol, rtol=rtol)


def test_cross_entropy_equals_log_softmax_nll(rng):
    x = randn(rng, (7, 4), np.float64)
    tgt = rng.integers(0, 4, size=7)
    s = sl_leaf(x, False)
    st = seqlab.tensor(tgt.tolist())
    ce = F.cross_entropy(s, st).item()
    expected = -np.mean((x - np.log(np.exp(x).sum(1, keepdims=True)))[np.arange(7), tgt])
    np.testing.assert_allclose(ce, expected, rtol=1e-12)
    np.testing.assert_allclose(F.nll_loss(F.log_softmax(s, 1), st).item(), expected, rtol=1e-12)


# ----------------------------------------------------------------------------------------
# nll_loss
# ----------------------------------------------------------------------------------------

NLL_CASES = [k for k in CE_KWARGS if "label_smoothing" not in k]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("input_shape", [(6, 5), (3, 5, 4)], ids=["NC", "NCd"])
@pytest.mark.parametrize("case", NLL_CASES)
def test_nll_loss(rng, case, input_shape, dtype):
    spec = CE_KWARGS[case]
    C = input_shape[1]
    tshape = (input_shape[0],) + input_shape[2:]
    x = randn(rng, input_shape, dtype)  # nll_loss does not require normalised log-probs
    target = ce_targets(rng, C, tshape, spec.get("ignore"), 0.3)
    ws, wt = const_pair((rng.random(C) + 0.5).astype(dtype))
    assert_matches_torch(
        lambda a, t: F.nll_loss(a, t, **_ce_call(spec, ws)),
        lambda a, t: TF.nll_loss(a, t, **_ce_call(spec, wt)),
        [x, target], *tol(dtype, 10))


# ----------------------------------------------------------------------------------------
# mse_loss
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(4, 3), (5,), (), (2, 3, 4), (1, 1)], ids=shape_id)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(rng, reduction, shape, dtype):
    a, b = randn(rng, shape, dtype), randn(rng, shape, dtype)
    assert_matches_torch(lambda x, y: F.mse_loss(x, y, reduction=reduction),
                         lambda x, y: TF.mse_loss(x, y, reduction=reduction), [a, b], *tol(dtype, 10))


def test_mse_loss_default_and_noncontiguous(rng):
    a, b = randn(rng, (4, 6)), randn(rng, (4, 6))
    assert_matches_torch(lambda x, y: F.mse_loss(x, y), lambda x, y: TF.mse_loss(x, y), [a, b], layout="T")
    assert_matches_torch(lambda x, y: F.mse_loss(x, y), lambda x, y: TF.mse_loss(x, y), [a, b], layout="slice")


# ----------------------------------------------------------------------------------------
# binary_cross_entropy_with_logits
# ----------------------------------------------------------------------------------------

BCE_CASES = {
    "mean": {},
    "sum": {"reduction": "sum"},
    "none": {"reduction": "none"},
    "weight": {"weight": "W"},
    "pos_weight": {"pos_weight": "P"},
    "weight-pos_weight-none": {"weight": "W", "pos_weight": "P", "reduction": "none"},
    "weight-pos_weight-sum": {"weight": "W", "pos_weight": "P", "reduction": "sum"},
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(5, 3), (7,), (2, 4, 3)], ids=shape_id)
@pytest.mark.parametrize("case", list(BCE_CASES))
def test_bce_with_logits(rng, case, shape, dtype):
    spec = BCE_CASES[case]
    x = randn(rng, shape, dtype) * 3
    target = rng.random(shape).astype(dtype)  # soft targets: also differentiable in torch
    w = const_pair((rng.random(shape[-1:]) + 0.5).astype(dtype))
    pw = const_pair((rng.random(shape[-1:]) * 2 + 0.2).astype(dtype))

    def kwargs(i):  # i = 0: seqlab constants, 1: torch constants
        kw = dict(spec)
        if kw.get("weight") == "W":
            kw["weight"] = w[i]
        if kw.get("pos_weight") == "P":
            kw["pos_weight"] = pw[i]
        return kw

    assert_matches_torch(
        lambda a, t: F.binary_cross_entropy_with_logits(a, t, **kwargs(0)),
        lambda a, t: TF.binary_cross_entropy_with_logits(a, t, **kwargs(1)),
        [x, target], *tol(dtype, 10))


def test_bce_with_logits_extreme_logits_stable():
    x = np.array([-200.0, -30.0, 0.0, 30.0, 200.0], dtype=np.float32)
    t = np.array([1.0, 0.0, 1.0, 1.0, 0.0], dtype=np.float32)
    out = assert_matches_torch(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction="none"),
                               lambda a, b: TF.binary_cross_entropy_with_logits(a, b, reduction="none"),
                               [x, t], atol=1e-4, rtol=1e-5)
    assert np.all(np.isfinite(sl_np(out)))


# ----------------------------------------------------------------------------------------
# dropout (random: compared by statistics and by the exact relation out = mask * x / (1-p))
# ----------------------------------------------------------------------------------------

def test_dropout_eval_is_identity(rng):
    x = randn(rng, (20, 30))
    s = sl_leaf(x)
    out = F.dropout(s, p=0.5, training=False)
    np.testing.assert_array_equal(sl_np(out), x)
    out.sum().backward()
    np.testing.assert_array_equal(sl_np(s.grad), np.ones_like(x))


def test_dropout_p0_and_p1(rng):
    x = randn(rng, (10, 10))
    np.testing.assert_array_equal(sl_np(F.dropout(sl_leaf(x), p=0.0)), x)
    s = sl_leaf(x)
    out = F.dropout(s, p=1.0)
    np.testing.assert_array_equal(sl_np(out), np.zeros_like(x))
    out.sum().backward()
    np.testing.assert_array_equal(sl_np(s.grad), np.zeros_like(x))


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_statistics_and_gradient(rng, p):
    x = (rng.random((200, 200)) + 0.5).astype(np.float32)  # no zeros in x itself
    s = sl_leaf(x)
    out = F.dropout(s, p=p)  # training=True is the default
    o = sl_np(out)
    kept = o != 0
    frac_dropped = 1.0 - kept.mean()
    assert abs(frac_dropped - p) < 0.02, f"dropped {frac_dropped:.3f}, expected {p}"
    np.testing.assert_allclose(o[kept], x[kept] / (1 - p), rtol=1e-6)
    g = randn(rng, (200, 200))
    out.backward(seqlab.from_numpy(g.copy()))
    np.testing.assert_allclose(sl_np(s.grad), np.where(kept, g / (1 - p), 0.0), rtol=1e-6, atol=1e-7)


def test_dropout_is_seeded(rng):
    x = np.ones((50, 50), dtype=np.float32)
    seqlab.manual_seed(123)
    a = sl_np(F.dropout(sl_leaf(x, False), 0.5))
    seqlab.manual_seed(123)
    b = sl_np(F.dropout(sl_leaf(x, False), 0.5))
    c = sl_np(F.dropout(sl_leaf(x, False), 0.5))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


# ----------------------------------------------------------------------------------------
# Gradchecks
# ----------------------------------------------------------------------------------------

GRADCHECK_ACT = {
    "relu": lambda a: F.relu(a),
    "gelu": lambda a: F.gelu(a),
    "gelu-tanh": lambda a: F.gelu(a, approximate="tanh"),
    "tanh": lambda a: F.tanh(a),
    "sigmoid": lambda a: F.sigmoid(a),
    "silu": lambda a: F.silu(a),
    "softmax-dim1": lambda a: F.softmax(a, dim=1),
    "softmax-dim0": lambda a: F.softmax(a, dim=0),
    "log_softmax-dim1": lambda a: F.log_softmax(a, dim=1),
    "log_softmax-dim-neg": lambda a: F.log_softmax(a, dim=-2),
    "dropout-eval": lambda a: F.dropout(a, 0.3, training=False),
}


@pytest.mark.parametrize("name", list(GRADCHECK_ACT))
def test_gradcheck_activation(rng, name):
    assert_gradcheck(GRADCHECK_ACT[name], [act_input(rng, (3, 4), np.float64)])


GRADCHECK_LOSS = {
    "ce": lambda a, t, w: F.cross_entropy(a, t),
    "ce-sum-weight": lambda a, t, w: F.cross_entropy(a, t, weight=w, reduction="sum"),
    "ce-none-ls": lambda a, t, w: F.cross_entropy(a, t, reduction="none", label_smoothing=0.1),
    "ce-weight-ls-ignore": lambda a, t, w: F.cross_entropy(a, t, weight=w, ignore_index=0, label_smoothing=0.2),
    "nll": lambda a, t, w: F.nll_loss(a, t),
    "nll-weight-none": lambda a, t, w: F.nll_loss(a, t, weight=w, reduction="none"),
    "nll-weight-mean": lambda a, t, w: F.nll_loss(a, t, weight=w),
}


@pytest.mark.parametrize("name", list(GRADCHECK_LOSS))
def test_gradcheck_class_losses(rng, name):
    x = randn(rng, (5, 4), np.float64)
    t = np.array([0, 3, 1, 0, 2], dtype=np.int64)
    w = rng.random(4) + 0.5
    fn = GRADCHECK_LOSS[name]
    wt = seqlab.from_numpy(w)  # weight is a constant (not differentiated)
    assert_gradcheck(lambda a, tt: fn(a, tt, wt), [x, t])


def test_gradcheck_mse_bce(rng):
    a, b = randn(rng, (3, 4), np.float64), randn(rng, (3, 4), np.float64)
    assert_gradcheck(lambda x, y: F.mse_loss(x, y), [a, b])
    assert_gradcheck(lambda x, y: F.mse_loss(x, y, reduction="none"), [a, b])
    t = rng.random((3, 4))
    pw = seqlab.from_numpy(rng.random(4) + 0.5)
    w = seqlab.from_numpy(rng.random(4) + 0.5)
    assert_gradcheck(lambda x, y: F.binary_cross_entropy_with_logits(x, y), [a, t])
    assert_gradcheck(lambda x, y: F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw,
                                                                       reduction="sum"), [a, t])


def test_gradcheck_cross_entropy_probability_targets(rng):
    x = randn(rng, (3, 4), np.float64)
    p = rng.random((3, 4))
    p /= p.sum(1, keepdims=True)
    assert_gradcheck(lambda a, t: F.cross_entropy(a, t, label_smoothing=0.1), [x, p])


def test_one_hot_matches_torch():
    idx = np.array([[0, 2], [1, 1]])
    ours = seqlab.nn.functional.one_hot(seqlab.tensor(idx), 4)
    theirs = torch.nn.functional.one_hot(torch.tensor(idx), 4)
    assert ours.dtype == seqlab.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    np.testing.assert_array_equal(seqlab.nn.functional.one_hot(seqlab.tensor([0, 3])).numpy(),
                                  torch.nn.functional.one_hot(torch.tensor([0, 3])).numpy())
    with pytest.raises(RuntimeError, match="one_hot"):
        seqlab.nn.functional.one_hot(seqlab.tensor([0, 5]), 3)


def test_silu_in_place_and_as_a_module_match_torch(rng):
    """F.silu(x, inplace=True) and nn.SiLU(inplace=True) overwrite x with x·σ(x), as torch's; the
    module's repr is torch's."""
    x = act_input(rng, (4, 5), np.float64)
    for inplace in (False, True):
        ours, theirs = seqlab.tensor(x), torch.tensor(x)
        got, want = seqlab.nn.SiLU(inplace)(ours), torch.nn.SiLU(inplace)(theirs)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-14)
        assert repr(seqlab.nn.SiLU(inplace)) == repr(torch.nn.SiLU(inplace))
        F.silu(ours, inplace=inplace)
        TF.silu(theirs, inplace=inplace)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-14)


@pytest.mark.parametrize("shape,dim", [((4, 6), -1), ((6, 3), 0), ((2, 4, 5), 1), ((2, 3, 8), -1)])
def test_glu_matches_torch_forward_and_gradient(rng, shape, dim):
    """F.glu(x, dim): the halves a, b of x along dim, a·σ(b), as torch's, with its gradient."""
    x = randn(rng, shape, np.float64)
    ours, theirs = seqlab.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    got, want = F.glu(ours, dim), TF.glu(theirs, dim)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-14, atol=1e-15)
    g = randn(rng, tuple(want.shape), np.float64)
    got.backward(seqlab.tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-13, atol=1e-14)


def test_glu_errors_are_torchs():
    for x, dim, error, message in ((seqlab.randn(3, 5), -1, RuntimeError, "Halving dimension must be even, but "
                                    "dimension 1 is size 5"),
                                   (seqlab.randn(3, 4), 5, IndexError, "Dimension out of range"),
                                   (seqlab.tensor(1.0), -1, RuntimeError, "glu does not support scalars")):
        with pytest.raises(error, match=message):
            F.glu(x, dim)
