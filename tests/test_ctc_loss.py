"""F.ctc_loss, nn.CTCLoss and torch.ctc_loss (cpp/src/ops/ctc_loss.cpp) against torch: losses and
gradients in float32 and float64 for padded and concatenated targets, lengths as tensors or tuples,
repeated labels, blank != 0, empty targets, empty inputs, impossible alignments (inf, NaN gradients;
zero_infinity), unbatched input, non-contiguous input, every reduction; a float64 gradcheck through
the log_softmax that makes log_probs; torch's errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from conftest import assert_gradcheck, assert_matches_torch, assert_raises_like_torch, make_rng, sl_leaf, th_leaf

DTYPES = [np.float32, np.float64]
REDUCTIONS = ["none", "mean", "sum"]


def log_softmax_np(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def make_case(seed, T=10, N=4, C=6, S=5, blank=0, dtype=np.float64, repeats=False):
    """log_probs (T, N, C), padded targets (N, S) avoiding blank, input lengths in [S*2, T] and
    target lengths in [0, S]."""
    rng = make_rng(seed)
    lp = log_softmax_np(rng.standard_normal((T, N, C))).astype(dtype)
    labels = [c for c in range(C) if c != blank]
    targets = rng.choice(labels, size=(N, S))
    if repeats:
        targets[:, 1] = targets[:, 0]
        targets[:, 3] = targets[:, 2]
    input_lengths = rng.integers(T // 2, T + 1, size=N)
    input_lengths[0] = T
    target_lengths = rng.integers(0, S + 1, size=N)
    target_lengths[0] = S
    return lp, targets.astype(np.int64), input_lengths.astype(np.int64), target_lengths.astype(np.int64)


def concat(targets, target_lengths):
    return np.concatenate([targets[i, :n] for i, n in enumerate(target_lengths)]).astype(np.int64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("blank", [0, 3, 5])
@pytest.mark.parametrize("repeats", [False, True])
def test_padded_targets_tensor_lengths(dtype, reduction, blank, repeats):
    lp, tg, il, tl = make_case(blank + 7 * repeats, blank=blank, dtype=dtype, repeats=repeats)
    assert_matches_torch(lambda *a: F.ctc_loss(*a, blank=blank, reduction=reduction),
                         lambda *a: TF.ctc_loss(*a, blank=blank, reduction=reduction), [lp, tg, il, tl])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_concatenated_targets_tuple_lengths(dtype, reduction):
    lp, tg, il, tl = make_case(3, T=14, N=5, S=4, dtype=dtype, repeats=True)
    flat = concat(tg, tl)
    il_t, tl_t = tuple(int(v) for v in il), tuple(int(v) for v in tl)
    assert_matches_torch(lambda lp, t: F.ctc_loss(lp, t, il_t, tl_t, reduction=reduction),
                         lambda lp, t: TF.ctc_loss(lp, t, il_t, tl_t, reduction=reduction), [lp, flat])
    # lists work as tuples; concatenated targets with tensor lengths too
    assert_matches_torch(lambda lp, t, i, n: F.ctc_loss(lp, t, i, n, reduction=reduction),
                         lambda lp, t, i, n: TF.ctc_loss(lp, t, i, n, reduction=reduction), [lp, flat, il, tl])
    got = F.ctc_loss(seqlab.from_numpy(lp), seqlab.from_numpy(flat), list(il_t), list(tl_t), reduction=reduction)
    want = TF.ctc_loss(torch.from_numpy(lp), torch.from_numpy(flat), list(il_t), list(tl_t), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_impossible_alignments_empty_targets_and_inputs(dtype, zero_infinity, reduction):
    """Target 0 needs 5 frames (a a b b b: a, blank, a, b, blank, b, blank, b = 8 with repeats) and
    gets 3: inf (NaN gradient rows in torch and here), or 0 with zero_infinity; target 1 is empty;
    input 2 has length 0 and an empty target (loss -0.0); input 3 has length 0 and a target (inf)."""
    rng = make_rng(11)
    T, N, C = 6, 5, 4
    lp = log_softmax_np(rng.standard_normal((T, N, C))).astype(dtype)
    tg = np.array([[1, 1, 2, 2, 2], [1, 2, 3, 1, 2], [3, 3, 3, 3, 3], [2, 1, 1, 1, 1], [1, 2, 1, 2, 1]])
    il = np.array([3, 6, 0, 0, 6])
    tl = np.array([5, 0, 0, 2, 2])
    assert_matches_torch(lambda *a: F.ctc_loss(*a, reduction=reduction, zero_infinity=zero_infinity),
                         lambda *a: TF.ctc_loss(*a, reduction=reduction, zero_infinity=zero_infinity),
                         [lp, tg, il, tl])
    loss = F.ctc_loss(seqlab.from_numpy(lp), seqlab.from_numpy(tg), seqlab.from_numpy(il), seqlab.from_numpy(tl),
                      reduction="none", zero_infinity=zero_infinity).numpy()
    assert (loss[0] == 0) if zero_infinity else np.isinf(loss[0])
    assert loss[2] == 0 and np.signbit(loss[2])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_unbatched(dtype, reduction):
    lp, tg, il, tl = make_case(5, N=1, dtype=dtype)
    lp1, tg1 = lp[:, 0], tg[0]
    assert_matches_torch(lambda lp, t, i, n: F.ctc_loss(lp, t, i, n, reduction=reduction),
                         lambda lp, t, i, n: TF.ctc_loss(lp, t, i, n, reduction=reduction),
                         [lp1, tg1, np.array(il[0]), np.array(tl[0])])
    lengths = (int(il[0]),), (int(tl[0]),)
    assert_matches_torch(lambda lp, t: F.ctc_loss(lp, t, *lengths, reduction=reduction),
                         lambda lp, t: TF.ctc_loss(lp, t, *lengths, reduction=reduction), [lp1, tg1])


@pytest.mark.parametrize("layout", ["T", "slice"])
def test_non_contiguous_log_probs(layout):
    lp, tg, il, tl = make_case(8, dtype=np.float64)
    assert_matches_torch(lambda lp, t: F.ctc_loss(lp, t, tuple(il), tuple(tl)),
                         lambda lp, t: TF.ctc_loss(lp, t, tuple(il), tuple(tl)), [lp, tg], layout=layout)


def test_unnormalised_log_probs_get_torchs_gradient():
    """torch's gradient, y - γ, is not the derivative of the loss in log_probs when they are not
    normalised; seqlab gives the same."""
    rng = make_rng(2)
    _, tg, il, tl = make_case(2)
    lp = rng.standard_normal((10, 4, 6))
    for dtype in DTYPES:
        assert_matches_torch(lambda *a: F.ctc_loss(*a, reduction="sum"), lambda *a: TF.ctc_loss(*a, reduction="sum"),
                             [lp.astype(dtype), tg, il, tl])


def test_int32_targets_and_lengths():
    lp, tg, il, tl = make_case(4)
    assert_matches_torch(F.ctc_loss, TF.ctc_loss, [lp, tg.astype(np.int32), il.astype(np.int32), tl.astype(np.int32)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("blank", [0, 2])
def test_gradcheck_through_log_softmax(reduction, blank):
    """Through log_softmax torch's gradient is the loss's derivative: a float64 finite-difference check."""
    rng = make_rng(9)
    logits = rng.standard_normal((7, 3, 5))
    tg = np.array([[1, 1, 3], [4, 3, 4], [3, 1, 0]])
    if blank == 2:
        tg = np.where(tg == 2, 0, tg)
    else:
        tg = np.where(tg == 0, 2, tg)
    il, tl = np.array([7, 6, 5]), np.array([3, 2, 1])
    assert_gradcheck(lambda x, t, i, n: F.ctc_loss(x.log_softmax(-1), t, i, n, blank=blank, reduction=reduction),
                     [logits, tg, il, tl])


def test_large_batch_matches_torch_float32():
    lp, tg, il, tl = make_case(21, T=50, N=16, C=20, S=12, dtype=np.float32, repeats=True)
    assert_matches_torch(F.ctc_loss, TF.ctc_loss, [lp, tg, il, tl], atol=1e-4, rtol=1e-4)


def test_module_and_top_level():
    lp, tg, il, tl = make_case(6)
    args_sl = [seqlab.from_numpy(a) for a in (lp, tg, il, tl)]
    args_th = [torch.from_numpy(a) for a in (lp, tg, il, tl)]
    for kwargs in [dict(), dict(blank=0, reduction="sum", zero_infinity=True), dict(reduction="none")]:
        ours, theirs = nn.CTCLoss(**kwargs), torch.nn.CTCLoss(**kwargs)
        assert repr(ours) == repr(theirs) == "CTCLoss()"
        assert ours.state_dict() == {} and len(theirs.state_dict()) == 0
        fields = ("blank", "reduction", "zero_infinity")
        assert [getattr(ours, f) for f in fields] == [getattr(theirs, f) for f in fields]
        np.testing.assert_allclose(ours(*args_sl).numpy(), theirs(*args_th).numpy(), rtol=1e-12)
    assert isinstance(nn.CTCLoss(), nn.modules.loss._Loss)
    # torch.ctc_loss: reduction is the enum, and leaving it out gives the per-sample losses, as torch's
    for extra in [(), (0, 0), (0, 1), (0, 2, True)]:
        np.testing.assert_allclose(seqlab.ctc_loss(*args_sl, *extra).numpy(),
                                   torch.ctc_loss(*args_th, *extra).numpy(), rtol=1e-12)
    np.testing.assert_allclose(seqlab.ctc_loss(*args_sl, reduction=2).numpy(),
                               torch.ctc_loss(*args_th, reduction=2).numpy(), rtol=1e-12)


def test_loss_trains_a_model():
    """A gradient step on CTC lowers it (the gradient reaches logits through log_softmax)."""
    lp, tg, il, tl = make_case(12, T=12, N=3, C=5, S=3)
    logits = sl_leaf(lp)
    lengths = [seqlab.from_numpy(a) for a in (tg, il, tl)]
    before = F.ctc_loss(logits.log_softmax(-1), *lengths)
    before.backward()
    with seqlab.no_grad():
        stepped = logits - 0.5 * logits.grad
    after = F.ctc_loss(stepped.log_softmax(-1), *lengths)
    assert after.item() < before.item()


def _errors():
    lp, tg, il, tl = make_case(1, T=6, N=3, C=5, S=3)
    lp = lp.astype(np.float32)
    il = np.array([6, 5, 4])
    tl = np.array([3, 2, 1])
    flat = concat(tg, tl)
    cases = [
        ("blank too large", lambda m, a: m(a(lp), a(tg), a(il), a(tl), blank=5), ["blank must be in label range"]),
        ("blank negative", lambda m, a: m(a(lp), a(tg), a(il), a(tl), blank=-1), ["blank must be in label range"]),
        ("input_lengths size", lambda m, a: m(a(lp), a(tg), a(il[:2]), a(tl)),
         ["input_lengths must be of size batch_size"]),
        ("target_lengths size", lambda m, a: m(a(lp), a(tg), a(il), a(tl[:2])),
         ["target_lengths must be of size batch_size"]),
        ("input length too long", lambda m, a: m(a(lp), a(tg), a(np.array([7, 5, 4])), a(tl)),
         ["Expected input_lengths to have value at most 6, but got value 7"]),
        ("input length negative", lambda m, a: m(a(lp), a(tg), a(np.array([-1, 5, 4])), a(tl)),
         ["Expected input_lengths to have value at least 0, but got value -1"]),
        ("target length negative", lambda m, a: m(a(lp), a(tg), a(il), a(np.array([-1, 2, 1]))),
         ["Expected target_lengths to have value at least 0, but got value -1"]),
        ("target length past padding", lambda m, a: m(a(lp), a(tg), a(il), a(np.array([4, 2, 1]))),
         ["Expected tensor to have size at least 4 at dimension 1, but got size 3 for argument #2 'targets'"]),
        ("concatenated too short", lambda m, a: m(a(lp), a(flat[:5]), a(il), a(tl)),
         ["Expected tensor to have size 6 at dimension 0, but got size 5 for argument #2 'targets'"]),
        ("integer log_probs", lambda m, a: m(a(lp.astype(np.int64)), a(tg), a(il), a(tl)),
         ["\"ctc_loss_cpu\" not implemented for 'Long'"]),
        ("float lengths", lambda m, a: m(a(lp), a(tg), a(il.astype(np.float32)), a(tl)),
         ["input_lengths must be integral"]),
        ("4-d log_probs", lambda m, a: m(a(lp[None]), a(tg), a(il), a(tl)),
         ["Expected 3-dimensional tensor, but got 5-dimensional tensor for argument #1 'log_probs'"]),
        ("1-d log_probs", lambda m, a: m(a(lp[0, 0]), a(tg), a(il), a(tl)),
         ["Expected 3-dimensional tensor, but got 2-dimensional tensor for argument #1 'log_probs'"]),
        ("3-d targets", lambda m, a: m(a(lp), a(tg[None]), a(il), a(tl)),
         ["Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument #2 'targets'"]),
        ("empty log_probs", lambda m, a: m(a(lp[:, :0]), a(tg[:0]), a(il[:0]), a(tl[:0])),
         ["log_probs tensor must not be empty"]),
        ("bad reduction", lambda m, a: m(a(lp), a(tg), a(il), a(tl), reduction="foo"),
         ["foo is not a valid value for reduction"]),
        ("tensor and tuple lengths", lambda m, a: m(a(lp), a(tg), a(il), (3, 2, 1)),
         ["ctc_loss\\(\\) received an invalid combination of arguments"]),
        ("int lengths", lambda m, a: m(a(lp[:, 0]), a(tg[0]), 6, 3), ["ctc_loss\\(\\)", "int"]),
    ]
    return cases


@pytest.mark.parametrize("case", _errors(), ids=lambda c: c[0])
def test_errors_like_torch(case):
    _, call, fragments = case
    assert_raises_like_torch(lambda: call(F.ctc_loss, seqlab.from_numpy), lambda: call(TF.ctc_loss, torch.from_numpy),
                             *fragments)


def test_out_of_range_target_is_refused():
    """torch reads past the class dimension for a label outside [0, C); seqlab raises IndexError."""
    lp, tg, il, tl = make_case(1, C=5)
    bad = tg.copy()
    bad[0, 1] = 7
    with pytest.raises(IndexError, match=r"ctc_loss: target 7 \(element 1 of target 0\) is out of bounds"):
        F.ctc_loss(seqlab.from_numpy(lp), seqlab.from_numpy(bad), seqlab.from_numpy(il), seqlab.from_numpy(tl))
    with pytest.raises(IndexError, match="out of bounds for 5 classes"):
        F.ctc_loss(seqlab.from_numpy(lp), seqlab.from_numpy(-tg), seqlab.from_numpy(il), seqlab.from_numpy(tl))


def test_gradient_leaf_shape_and_no_grad():
    lp, tg, il, tl = make_case(13)
    x, xt = sl_leaf(lp), th_leaf(lp)
    F.ctc_loss(x, *[seqlab.from_numpy(a) for a in (tg, il, tl)]).backward()
    TF.ctc_loss(xt, *[torch.from_numpy(a) for a in (tg, il, tl)]).backward()
    assert tuple(x.grad.shape) == lp.shape
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    with seqlab.no_grad():
        assert not F.ctc_loss(x, *[seqlab.from_numpy(a) for a in (tg, il, tl)]).requires_grad
