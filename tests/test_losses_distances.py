"""The losses and distances composed in Python (python/seqlab/nn/_losses.py) and their modules,
each against torch: values in float32 and float64, float64 gradients with respect to every
differentiable input (and gradcheck), the three reductions and the deprecated size_average /
reduce (with torch's warning), broadcasting, strided inputs, empty batches, the kinks and
extreme inputs (no NaN gradient where torch's is finite), torch's warnings and errors, and the
modules' reprs and conversion to torch."""
import warnings

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from conftest import assert_matches_torch, assert_raises_like_torch
from seqlab.autograd import gradcheck

TF = torch.nn.functional
REDUCTIONS = ["mean", "sum", "none"]
DTYPES = [np.float32, np.float64]

# the modules this file converts to torch and back (tests/test_to_torch.py's walk over seqlab.nn)
CONVERTS = ["L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "CosineSimilarity", "PairwiseDistance",
            "MarginRankingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
            "MultiMarginLoss", "SoftMarginLoss", "HingeEmbeddingLoss", "MultiLabelSoftMarginLoss"]


def quiet(fn):
    """fn with warnings silenced (the target-size warning of broadcast cases is tested apart)."""
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return run


def check(ours, theirs, inputs, layout="contig"):
    return assert_matches_torch(quiet(ours), quiet(theirs), inputs, layout=layout)


def gradchecked(fn, arrays):
    args = [seqlab.tensor(a, dtype=seqlab.float64, requires_grad=True) for a in arrays]
    assert gradcheck(quiet(fn), tuple(args))


# ------------------------------------------------------------------------------ regression losses

REGRESSION = {  # name: (seqlab function, torch function, the options to try)
    "l1_loss": (F.l1_loss, TF.l1_loss, [{}]),
    "smooth_l1_loss": (F.smooth_l1_loss, TF.smooth_l1_loss, [{}, {"beta": 0.5}, {"beta": 0.0}, {"beta": 2.0}]),
    "huber_loss": (F.huber_loss, TF.huber_loss, [{}, {"delta": 0.5}, {"delta": 2.5}]),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", list(REGRESSION))
def test_regression_losses_match_torch(rng, name, reduction, dtype):
    ours, theirs, options = REGRESSION[name]
    x, y = (rng.standard_normal((2, 3, 4)) * 2).astype(dtype), (rng.standard_normal((2, 3, 4)) * 2).astype(dtype)
    for kw in options:
        check(lambda a, b: ours(a, b, reduction=reduction, **kw), lambda a, b: theirs(a, b, reduction=reduction, **kw),
              [x, y])
        check(lambda a, b: ours(a, b, reduction=reduction, **kw), lambda a, b: theirs(a, b, reduction=reduction, **kw),
              [x, y], layout="T")
        if dtype == np.float64:
            gradchecked(lambda a, b: ours(a, b, reduction=reduction, **kw), [x, y])


@pytest.mark.parametrize("name", list(REGRESSION))
def test_regression_losses_broadcast_with_torchs_warning_and_at_the_kinks(name):
    ours, theirs, options = REGRESSION[name]
    x, y = np.arange(-3.0, 3.0, 0.5).reshape(4, 3), np.array([0.5, -1.0, 1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = ours(seqlab.tensor(x), seqlab.tensor(y))
        want = theirs(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    texts = [str(w.message) for w in caught]
    assert sum("Using a target size" in t and "different to the input size (" in t and "broadcasting" in t
               for t in texts) == 2, texts  # once from each library
    check(lambda a, b: ours(a, b, reduction="none"), lambda a, b: theirs(a, b, reduction="none"), [x, y])
    # differences exactly 0, ±0.5, ±1, ±2 (the kinks of every option) and huge
    d = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 1e4, -1e4, 2.5, -2.5])
    for kw in options:
        check(lambda a, b: ours(a, b, **kw), lambda a, b: theirs(a, b, **kw), [d, np.zeros_like(d)])
        check(lambda a, b: ours(a, b, reduction="sum", **kw), lambda a, b: theirs(a, b, reduction="sum", **kw),
              [np.zeros(11), d])
    # an empty batch: 'mean' is NaN, 'sum' 0, 'none' empty, as torch's
    for reduction in REDUCTIONS:
        check(lambda a, b: ours(a, b, reduction=reduction), lambda a, b: theirs(a, b, reduction=reduction),
              [np.zeros((0, 3)), np.zeros((0, 3))])


@pytest.mark.parametrize("name", ["l1_loss", "smooth_l1_loss", "binary_cross_entropy"])
def test_the_deprecated_size_average_and_reduce_map_as_torchs(name):
    ours, theirs = (F.binary_cross_entropy, TF.binary_cross_entropy) if name == "binary_cross_entropy" else \
        REGRESSION[name][:2]
    x, y = np.linspace(0.1, 0.9, 6).reshape(2, 3), np.full((2, 3), 0.3)
    if name == "binary_cross_entropy":  # (weight comes third)
        ours = (lambda a, b, s, r, f=ours: f(a, b, None, s, r))
        theirs = (lambda a, b, s, r, f=theirs: f(a, b, None, s, r))
    for size_average, reduce in [(False, None), (None, False), (True, True), (False, True), (None, True)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = ours(seqlab.tensor(x), seqlab.tensor(y), size_average, reduce)
            want = theirs(torch.tensor(x), torch.tensor(y), size_average, reduce)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
        texts = [str(w.message) for w in caught]
        assert len(texts) == 2 and texts[0] == texts[1] and "please use reduction=" in texts[0], texts
        assert caught[0].filename == __file__  # the warning points at the caller, as torch's


def test_weighted_l1_and_huber_losses_match_torch(rng):
    x, y, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.random((3, 4)) + 0.1
    for reduction in REDUCTIONS:
        check(lambda a, b, c: F.l1_loss(a, b, reduction=reduction, weight=c),
              lambda a, b, c: TF.l1_loss(a, b, reduction=reduction, weight=c), [x, y, w])
        check(lambda a, b, c: F.huber_loss(a, b, reduction=reduction, delta=0.7, weight=c),
              lambda a, b, c: TF.huber_loss(a, b, reduction=reduction, delta=0.7, weight=c), [x, y, w])
    for ours, theirs in [(F.l1_loss, TF.l1_loss), (F.huber_loss, TF.huber_loss)]:
        assert_raises_like_torch(lambda: ours(seqlab.tensor(x), seqlab.tensor(y), weight=seqlab.ones(4)),
                                 lambda: theirs(torch.tensor(x), torch.tensor(y), weight=torch.ones(4)),
                                 "Weights and input must have the same size")
        assert_raises_like_torch(lambda: ours(seqlab.tensor(x), seqlab.tensor(y), reduction="avg",
                                              weight=seqlab.tensor(w)),
                                 lambda: theirs(torch.tensor(x), torch.tensor(y), reduction="avg",
                                                weight=torch.tensor(w)), "Invalid reduction mode: avg")


def test_regression_loss_errors_are_torchs():
    x, y = np.zeros((3, 2)), np.zeros((4, 2))
    for name, (ours, theirs, _) in REGRESSION.items():
        assert_raises_like_torch(quiet(lambda: ours(seqlab.tensor(x), seqlab.tensor(y))),
                                 lambda: theirs(torch.tensor(x), torch.tensor(y)),
                                 "size of tensor a \\(3\\) must match")
        assert_raises_like_torch(lambda: ours(seqlab.tensor(x), seqlab.tensor(x), reduction="avg"),
                                 lambda: theirs(torch.tensor(x), torch.tensor(x), reduction="avg"),
                                 "avg is not a valid value for reduction")
    assert_raises_like_torch(lambda: F.smooth_l1_loss(seqlab.tensor(x), seqlab.tensor(x), beta=-1.0),
                             lambda: TF.smooth_l1_loss(torch.tensor(x), torch.tensor(x), beta=-1.0),
                             "smooth_l1_loss does not support negative values for beta")
    for delta in (0.0, -1.0):
        assert_raises_like_torch(lambda: F.huber_loss(seqlab.tensor(x), seqlab.tensor(x), delta=delta),
                                 lambda: TF.huber_loss(torch.tensor(x), torch.tensor(x), delta=delta),
                                 "huber_loss does not support non-positive values for delta")


# ------------------------------------------------------------------------------ binary cross-entropy

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_matches_torch(rng, reduction, dtype):
    x = rng.uniform(0.02, 0.98, (4, 5)).astype(dtype)
    y, w, soft = (rng.random((4, 5)) > 0.5).astype(dtype), (rng.random(5) + 0.5).astype(dtype), rng.random((4, 5))
    check(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction),
          lambda a, b: TF.binary_cross_entropy(a, b, reduction=reduction), [x, soft.astype(dtype)])
    check(lambda a, b: F.binary_cross_entropy(a, b, seqlab.tensor(w), reduction=reduction),  # (torch: weight
          lambda a, b: TF.binary_cross_entropy(a, b, torch.tensor(w), reduction=reduction),  # takes no gradient)
          [x, y], layout="T")
    if dtype == np.float64:
        gradchecked(lambda a, b: F.binary_cross_entropy(a, b, seqlab.tensor(w), reduction=reduction), [x, soft])


def test_binary_cross_entropy_clamps_the_log_at_minus_100_with_finite_gradients():
    x = np.array([0.0, 1.0, 0.0, 1.0, 1e-50, 1 - 1e-16, 0.5])
    y = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.3])
    got = F.binary_cross_entropy(seqlab.tensor(x), seqlab.tensor(y), reduction="none")
    want = TF.binary_cross_entropy(torch.tensor(x), torch.tensor(y), reduction="none")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)  # 100 where the log is clamped
    a = seqlab.tensor(x, requires_grad=True)
    b = seqlab.tensor(y, requires_grad=True)
    F.binary_cross_entropy(a, b, reduction="sum").backward()
    ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    TF.binary_cross_entropy(ta, tb, reduction="sum").backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12)  # (x − y) / max(x(1 − x), 1e-12)
    finite = np.isfinite(tb.grad.numpy())  # the target's: log(1 − x) − log x, infinite at x = 0 or 1 in torch
    assert not finite[:4].any() and np.isfinite(b.grad.numpy()).all()
    np.testing.assert_allclose(b.grad.numpy()[finite], tb.grad.numpy()[finite], rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy()[:4], [100.0, -100.0, 100.0, -100.0])  # the clamped logs' difference


def test_binary_cross_entropy_errors_are_torchs():
    x, y = np.full((2, 3), 0.5), np.full((2, 3), 0.5)
    assert_raises_like_torch(lambda: F.binary_cross_entropy(seqlab.tensor(x), seqlab.tensor(y[0])),
                             lambda: TF.binary_cross_entropy(torch.tensor(x), torch.tensor(y[0])),
                             r"Using a target size \(\(?.*3.*\)\) that is different to the input size")
    bad = x.copy()
    bad[1, 2] = 1.5
    assert_raises_like_torch(lambda: F.binary_cross_entropy(seqlab.tensor(bad), seqlab.tensor(y)),
                             lambda: TF.binary_cross_entropy(torch.tensor(bad), torch.tensor(y)),
                             "all elements of input should be between 0 and 1")
    assert_raises_like_torch(lambda: F.binary_cross_entropy(seqlab.tensor(x), seqlab.tensor(-bad)),
                             lambda: TF.binary_cross_entropy(torch.tensor(x), torch.tensor(-bad)),
                             "all elements of target should be between 0 and 1")
    assert_raises_like_torch(lambda: F.binary_cross_entropy(seqlab.tensor(x), seqlab.tensor(y), reduction="avg"),
                             lambda: TF.binary_cross_entropy(torch.tensor(x), torch.tensor(y), reduction="avg"),
                             "avg is not a valid value for reduction")
    for reduction in REDUCTIONS:  # an empty batch
        check(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction),
              lambda a, b: TF.binary_cross_entropy(a, b, reduction=reduction), [np.zeros((0, 3)), np.zeros((0, 3))])


# ------------------------------------------------------------------------------ distances

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes,dim", [(((4, 5), (4, 5)), 1), (((4, 5), (4, 5)), 0), (((2, 3, 4), (3, 1)), -1),
                                        (((5,), (3, 5)), 1), (((2, 1, 4), (3, 4)), 0), (((6,), (6,)), 0)])
def test_cosine_similarity_matches_torch(rng, shapes, dim, dtype):
    x1, x2 = (rng.standard_normal(s).astype(dtype) for s in shapes)
    check(lambda a, b: F.cosine_similarity(a, b, dim), lambda a, b: TF.cosine_similarity(a, b, dim), [x1, x2])
    check(lambda a, b: F.cosine_similarity(a, b, dim, eps=0.5), lambda a, b: TF.cosine_similarity(a, b, dim, eps=0.5),
          [x1, x2], layout="slice")
    if dtype == np.float64:
        gradchecked(lambda a, b: F.cosine_similarity(a, b, dim), [x1, x2])


def test_cosine_similarity_of_zero_and_tiny_vectors_clamps_the_norms_as_torch():
    x1 = np.array([[0.0, 0.0, 0.0], [1e-10, 0.0, 0.0], [1e4, -1e4, 3.0], [1.0, 2.0, 3.0]])
    x2 = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [2.0, 4.0, 6.0]])
    out = check(lambda a, b: F.cosine_similarity(a, b), lambda a, b: TF.cosine_similarity(a, b), [x1, x2])
    assert np.isfinite(out.detach().numpy()).all()
    check(lambda a, b: F.cosine_similarity(a, b), lambda a, b: TF.cosine_similarity(a, b),
          [np.zeros((0, 3)), np.zeros((0, 3))])
    check(lambda a, b: F.cosine_similarity(a, b), lambda a, b: TF.cosine_similarity(a, b),
          [np.zeros((2, 0)), np.zeros((2, 0))])
    assert_raises_like_torch(lambda: F.cosine_similarity(seqlab.zeros(2, 3), seqlab.zeros(2, 3), dim=2),
                             lambda: TF.cosine_similarity(torch.zeros(2, 3), torch.zeros(2, 3), dim=2),
                             "Dimension out of range")
    assert_raises_like_torch(lambda: F.cosine_similarity(seqlab.zeros(2, 3), seqlab.zeros(4, 3)),
                             lambda: TF.cosine_similarity(torch.zeros(2, 3), torch.zeros(4, 3)),
                             "size of tensor a \\(2\\) must match the size of tensor b \\(4\\)")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf"), 1.5, 0.5])
@pytest.mark.parametrize("shapes", [((4, 5), (4, 5)), ((4, 5), (5,)), ((2, 3, 4), (3, 4)), ((5,), (5,))])
def test_pairwise_distance_matches_torch(rng, shapes, p, dtype):
    x1, x2 = (rng.standard_normal(s).astype(dtype) for s in shapes)
    for keepdim in (False, True):
        check(lambda a, b: F.pairwise_distance(a, b, p, keepdim=keepdim),
              lambda a, b: TF.pairwise_distance(a, b, p, keepdim=keepdim), [x1, x2])
    check(lambda a, b: F.pairwise_distance(a, b, p, eps=0.1), lambda a, b: TF.pairwise_distance(a, b, p, eps=0.1),
          [x1, x2], layout="T")
    if dtype == np.float64 and p != float("inf"):
        gradchecked(lambda a, b: F.pairwise_distance(a, b, p), [x1, x2])


def test_pairwise_distance_of_equal_points_has_torchs_finite_gradient():
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1e4, -1e4, 0.0]])
    for p in (2.0, 1.0, 3.0):
        out = check(lambda a, b: F.pairwise_distance(a, b, p), lambda a, b: TF.pairwise_distance(a, b, p), [x, x])
        assert np.isfinite(out.detach().numpy()).all()
        check(lambda a, b: F.pairwise_distance(a, b, p, eps=0.0), lambda a, b: TF.pairwise_distance(a, b, p, eps=0.0),
              [x, x.copy()])  # exactly 0: the norm's gradient there is 0 in both
    check(lambda a, b: F.pairwise_distance(a, b), lambda a, b: TF.pairwise_distance(a, b),
          [np.zeros((0, 3)), np.zeros((0, 3))])
    assert_raises_like_torch(lambda: F.pairwise_distance(seqlab.zeros(2, 3), seqlab.zeros(2, 4)),
                             lambda: TF.pairwise_distance(torch.zeros(2, 3), torch.zeros(2, 4)),
                             "size of tensor a \\(3\\) must match the size of tensor b \\(4\\)")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 1), (2.0, -1), (3.0, 0), (float("inf"), 1), (2.0, (1, 2))])
def test_normalize_matches_torch(rng, p, dim, dtype):
    x = rng.standard_normal((2, 3, 4)).astype(dtype)
    x[0, :, 0] = 0.0  # a zero vector along dim 1
    check(lambda a: F.normalize(a, p, dim), lambda a: TF.normalize(a, p, dim), [x])
    check(lambda a: F.normalize(a, p, dim, eps=0.5), lambda a: TF.normalize(a, p, dim, eps=0.5), [x], layout="T")
    if dtype == np.float64 and p != float("inf"):
        gradchecked(lambda a: F.normalize(a, p, dim), [rng.standard_normal((2, 3, 4))])


def test_normalize_defaults_zero_vectors_out_and_errors():
    x = np.array([[0.0, 0.0], [3.0, 4.0], [1e-13, 0.0]])
    out = check(lambda a: F.normalize(a), lambda a: TF.normalize(a), [x])
    assert np.isfinite(out.detach().numpy()).all()
    check(lambda a: F.normalize(a), lambda a: TF.normalize(a), [np.zeros((0, 3))])
    got = seqlab.empty(3, 2, dtype=seqlab.float64)
    res = F.normalize(seqlab.tensor(x), out=got)
    assert res is got
    np.testing.assert_allclose(got.numpy(), TF.normalize(torch.tensor(x)).numpy())
    assert_raises_like_torch(lambda: F.normalize(seqlab.zeros(3)), lambda: TF.normalize(torch.zeros(3)),
                             "Dimension out of range")


# ------------------------------------------------------------------------------ modules

MODULES = [  # (module name, constructor arguments, input kind)
    ("L1Loss", {}, "pair"), ("L1Loss", {"reduction": "sum"}, "pair"),
    ("SmoothL1Loss", {"beta": 0.5, "reduction": "none"}, "pair"), ("SmoothL1Loss", {}, "pair"),
    ("HuberLoss", {"delta": 0.3}, "pair"), ("HuberLoss", {"reduction": "sum"}, "pair"),
    ("BCELoss", {}, "probabilities"), ("BCELoss", {"weight": "w", "reduction": "none"}, "probabilities"),
    ("CosineSimilarity", {}, "pair"), ("CosineSimilarity", {"dim": 0, "eps": 1e-3}, "pair"),
    ("PairwiseDistance", {}, "pair"), ("PairwiseDistance", {"p": 1.0, "eps": 0.0, "keepdim": True}, "pair"),
    ("MarginRankingLoss", {}, "ranking"), ("MarginRankingLoss", {"margin": 0.5, "reduction": "none"}, "ranking"),
    ("CosineEmbeddingLoss", {}, "embedding"), ("CosineEmbeddingLoss", {"margin": 0.2, "reduction": "sum"}, "embedding"),
    ("TripletMarginLoss", {}, "triplet"), ("TripletMarginLoss", {"margin": 2.0, "p": 1.0, "eps": 0.0, "swap": True,
                                                                 "reduction": "none"}, "triplet"),
    ("PoissonNLLLoss", {}, "poisson"), ("PoissonNLLLoss", {"log_input": False, "full": True, "eps": 1e-4}, "rates"),
    ("GaussianNLLLoss", {}, "gaussian"),
    ("GaussianNLLLoss", {"full": True, "eps": 0.5, "reduction": "sum"}, "gaussian"),
    ("MultiMarginLoss", {}, "classes"), ("MultiMarginLoss", {"p": 2, "margin": 0.5, "weight": "w"}, "classes"),
    ("SoftMarginLoss", {}, "signs"), ("SoftMarginLoss", {"reduction": "none"}, "signs"),
    ("HingeEmbeddingLoss", {}, "signs"), ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "sum"}, "signs"),
    ("MultiLabelSoftMarginLoss", {}, "labels"), ("MultiLabelSoftMarginLoss", {"weight": "w"}, "labels"),
]


def signs(rng, shape, dtype=np.int64):
    """±1 targets; int64 where torch's loss takes no gradient for its target."""
    return np.where(rng.random(shape) > 0.5, 1, -1).astype(dtype)


def module_inputs(kind, rng):
    normal = lambda *shape: rng.standard_normal(shape)  # noqa: E731
    return {"pair": lambda: [normal(4, 5), normal(4, 5)],
            "probabilities": lambda: [rng.uniform(0.05, 0.95, (4, 5)), rng.random((4, 5))],
            "ranking": lambda: [normal(6), normal(6), signs(rng, 6, float)],
            "embedding": lambda: [normal(4, 5), normal(4, 5), signs(rng, 4)],
            "triplet": lambda: [normal(4, 5), normal(4, 5), normal(4, 5)],
            "poisson": lambda: [normal(4, 5), rng.poisson(2.0, (4, 5)).astype(float)],
            "rates": lambda: [rng.uniform(0.1, 3.0, (4, 5)), rng.poisson(2.0, (4, 5)) + 1.0],
            "gaussian": lambda: [normal(4, 5), normal(4, 5), rng.uniform(0.1, 2.0, (4, 5))],
            "classes": lambda: [normal(4, 5), rng.integers(0, 5, 4)],
            "signs": lambda: [normal(4, 5), signs(rng, (4, 5))],
            "labels": lambda: [normal(4, 5), (rng.random((4, 5)) > 0.5).astype(float)]}[kind]()


def build(name, kwargs, lib, w):
    kwargs = {k: (lib.tensor(w) if v == "w" else v) for k, v in kwargs.items()}
    return getattr(lib.nn, name)(**kwargs)


@pytest.mark.parametrize("name,kwargs,kind", MODULES, ids=lambda v: str(v))
def test_modules_match_torchs_and_convert(rng, name, kwargs, kind):
    from test_to_torch import assert_same_function
    w = rng.random(5) + 0.5
    m, tm = build(name, kwargs, seqlab, w), build(name, kwargs, torch, w)
    assert repr(m) == repr(tm)
    assert sorted(k for k, _ in m.named_buffers()) == sorted(k for k, _ in tm.named_buffers())
    check(lambda *a: m(*a), lambda *a: tm(*a), module_inputs(kind, rng))
    converted = seqlab.to_torch(m)
    assert type(converted) is type(tm) and repr(converted) == repr(tm)
    assert {k: v for k, v in vars(converted).items() if not k.startswith("_")} == \
        {k: v for k, v in vars(tm).items() if not k.startswith("_")}
    xs = [seqlab.tensor(a) for a in module_inputs(kind, rng)]
    assert_same_function(m.double(), converted.double(), xs, name, 1e-10)
    back = seqlab.from_torch(tm)
    assert type(back) is type(m) and repr(back) == repr(m)
    assert {k: v for k, v in vars(back).items() if not k.startswith("_")} == \
        {k: v for k, v in vars(m).items() if not k.startswith("_")}
    check(lambda *a: back(*a), lambda *a: tm(*a), module_inputs(kind, rng))


def test_loss_modules_take_the_deprecated_flags_with_torchs_warning():
    for name in ("L1Loss", "SmoothL1Loss", "BCELoss", "MarginRankingLoss", "CosineEmbeddingLoss", "TripletMarginLoss",
                 "PoissonNLLLoss", "MultiMarginLoss", "SoftMarginLoss", "HingeEmbeddingLoss",
                 "MultiLabelSoftMarginLoss"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ours, theirs = getattr(nn, name)(size_average=False), getattr(torch.nn, name)(size_average=False)
        assert ours.reduction == theirs.reduction == "sum"
        texts = [str(w.message) for w in caught]
        assert len(texts) == 2 and texts[0] == texts[1], texts


# ------------------------------------------------------------------------------ margin, embedding, likelihood losses

def margin_cases(rng, dtype):
    """(seqlab function, torch function, inputs, options to try) for each loss of this section."""
    n = lambda *shape: rng.standard_normal(shape).astype(dtype)  # noqa: E731
    ints = lambda shape: signs(rng, shape)  # noqa: E731
    return {
        "margin_ranking_loss": (F.margin_ranking_loss, TF.margin_ranking_loss,
                                [n(6), n(6), signs(rng, 6, dtype)], [{}, {"margin": 0.5}]),
        "hinge_embedding_loss": (F.hinge_embedding_loss, TF.hinge_embedding_loss, [n(4, 5), ints((4, 5))],
                                 [{}, {"margin": 0.3}]),
        "soft_margin_loss": (F.soft_margin_loss, TF.soft_margin_loss, [n(4, 5) * 3, ints((4, 5))], [{}]),
        "multilabel_soft_margin_loss": (F.multilabel_soft_margin_loss, TF.multilabel_soft_margin_loss,
                                        [n(4, 5) * 3, (rng.random((4, 5)) > 0.5).astype(dtype)], [{}]),
        "cosine_embedding_loss": (F.cosine_embedding_loss, TF.cosine_embedding_loss, [n(4, 5), n(4, 5), ints(4)],
                                  [{}, {"margin": 0.3}, {"margin": -0.5}]),
        "triplet_margin_loss": (F.triplet_margin_loss, TF.triplet_margin_loss, [n(4, 5), n(4, 5), n(4, 5)],
                                [{}, {"margin": 0.5, "p": 1.0}, {"swap": True}, {"p": 3.0, "eps": 0.0, "swap": True}]),
        "poisson_nll_loss": (F.poisson_nll_loss, TF.poisson_nll_loss,
                             [n(4, 5), rng.poisson(2.0, (4, 5)).astype(dtype) + 2], [{}, {"full": True}]),
        "poisson_nll_loss/rates": (F.poisson_nll_loss, TF.poisson_nll_loss,
                                   [rng.uniform(0.1, 3, (4, 5)).astype(dtype), rng.poisson(2.0, (4, 5)) + dtype(2.0)],
                                   [{"log_input": False}, {"log_input": False, "full": True, "eps": 0.1}]),
        "gaussian_nll_loss": (F.gaussian_nll_loss, TF.gaussian_nll_loss,
                              [n(4, 5), n(4, 5), rng.uniform(0.1, 2, (4, 5)).astype(dtype)],
                              [{}, {"full": True}, {"eps": 0.5}]),
        "multi_margin_loss": (F.multi_margin_loss, TF.multi_margin_loss, [n(4, 5), rng.integers(0, 5, 4)],
                              [{}, {"p": 2}, {"margin": 0.3}]),
    }


MARGIN_NAMES = list(margin_cases(np.random.default_rng(0), np.float64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", MARGIN_NAMES)
def test_margin_and_likelihood_losses_match_torch(rng, name, reduction, dtype):
    ours, theirs, inputs, options = margin_cases(rng, dtype)[name]
    for kw in options:
        check(lambda *a: ours(*a, reduction=reduction, **kw), lambda *a: theirs(*a, reduction=reduction, **kw), inputs)
        if dtype == np.float64:
            # not: the ±1 target of margin_ranking_loss, the Poisson counts (the Stirling term jumps at 1;
            # torch's definition), var clamped at eps (torch passes the gradient through the clamp)
            floats = [i for i, a in enumerate(inputs) if a.dtype == np.float64 and not (
                name.startswith("margin_ranking") and i == 2 or name.startswith("poisson") and i == 1
                or "eps" in kw and i == 2)]

            def fn(*args, kw=kw):
                full = list(seqlab.tensor(a) for a in inputs)
                for i, a in zip(floats, args):
                    full[i] = a
                return ours(*full, reduction=reduction, **kw)
            gradchecked(fn, [inputs[i] for i in floats])
    check(lambda *a: ours(*a, reduction=reduction, **options[-1]),  # strided inputs
          lambda *a: theirs(*a, reduction=reduction, **options[-1]), inputs, layout="slice")


@pytest.mark.parametrize("name", MARGIN_NAMES)
def test_margin_and_likelihood_losses_take_the_deprecated_flags(rng, name):
    ours, theirs, inputs, options = margin_cases(rng, np.float64)[name]
    if name.startswith("gaussian"):
        return  # (gaussian_nll_loss has no size_average / reduce in torch either)
    for size_average, reduce in [(False, None), (None, False)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = ours(*[seqlab.tensor(a) for a in inputs], size_average=size_average, reduce=reduce)
            want = theirs(*[torch.tensor(a) for a in inputs], size_average=size_average, reduce=reduce)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
        expected = "sum" if reduce is None else "none"
        assert [str(w.message) for w in caught].count(
            f"size_average and reduce args will be deprecated, please use reduction='{expected}' instead.") == 2


def test_margin_losses_at_their_kinks_and_extremes_and_broadcast():
    x1, x2 = np.array([1.0, 0.0, -1.0, 2.0, 1e4]), np.array([0.0, 0.0, 0.0, 2.5, -1e4])
    y = np.array([1.0, -1.0, 1.0, -1.0, -1.0])
    for margin in (0.0, 1.0, 0.5):  # y·(x1 − x2) exactly at the margin in several places
        check(lambda a, b, c: F.margin_ranking_loss(a, b, c, margin, reduction="none"),
              lambda a, b, c: TF.margin_ranking_loss(a, b, c, margin, reduction="none"), [x1, x2, y])
    check(lambda a, b, c: F.margin_ranking_loss(a, b, c), lambda a, b, c: TF.margin_ranking_loss(a, b, c),
          [np.ones((3, 1)), np.zeros((1, 4)), np.ones((3, 4))])  # broadcast
    d = np.array([[0.0, 1.0, 0.5, 2.0, 1e4, -1e4]])
    t = np.array([[1, -1, -1, -1, -1, 1]])
    check(lambda a, b: F.hinge_embedding_loss(a, b, reduction="none"),
          lambda a, b: TF.hinge_embedding_loss(a, b, reduction="none"), [d, t])
    check(lambda a, b: F.hinge_embedding_loss(a, b, reduction="none"),
          lambda a, b: TF.hinge_embedding_loss(a, b, reduction="none"), [d, np.array([[0, 2, 1, -1, 1, 0]])])
    # soft margin / multilabel: stable where torch is finite, finite where torch overflows
    x = np.array([-50.0, -1.0, 0.0, 1.0, 50.0, 500.0, -500.0])
    check(lambda a, b: F.soft_margin_loss(a, b, reduction="none"),
          lambda a, b: TF.soft_margin_loss(a, b, reduction="none"), [x[:5], np.ones(5, dtype=np.int64)])
    big = seqlab.tensor(np.array([-1e4, 1e4]), requires_grad=True)
    out = F.soft_margin_loss(big, seqlab.tensor([1, 1]), reduction="sum")
    out.backward()
    assert out.item() == 1e4 and big.grad.tolist() == [-1.0, 0.0]  # torch: inf and NaN here
    check(lambda a, b: F.multilabel_soft_margin_loss(a, b), lambda a, b: TF.multilabel_soft_margin_loss(a, b),
          [np.stack([x, -x]), np.stack([np.ones(7), np.zeros(7)])])
    check(lambda a, b: F.multilabel_soft_margin_loss(a, b, weight=seqlab.tensor([0.5, 2.0, 1.0], dtype=seqlab.float64)),
          lambda a, b: TF.multilabel_soft_margin_loss(a, b, weight=torch.tensor([0.5, 2.0, 1.0], dtype=torch.float64)),
          [np.arange(6.0).reshape(2, 3) - 2, np.array([[1.0, 0, 1], [0, 0, 1]])])
    # cosine embedding: zero vectors (the 1e-12 keeps them finite), a 0-d target with 1-D inputs
    a, b = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 0.0]]), np.array([[1.0, 1.0], [0.0, 0.0], [3.0, 0.0]])
    for t in ([1, 1, -1], [-1, -1, 1]):
        check(lambda p, q: F.cosine_embedding_loss(p, q, seqlab.tensor(t), reduction="none"),
              lambda p, q: TF.cosine_embedding_loss(p, q, torch.tensor(t), reduction="none"), [a, b])
    check(lambda p, q: F.cosine_embedding_loss(p, q, seqlab.tensor(-1), margin=0.1),
          lambda p, q: TF.cosine_embedding_loss(p, q, torch.tensor(-1), margin=0.1), [a[1], a[2]])
    # triplet: equal points (the eps keeps the distance's gradient finite), broadcast positive
    p = np.array([[1.0, 2.0], [0.0, 0.0]])
    check(lambda x, y, z: F.triplet_margin_loss(x, y, z, reduction="none"),
          lambda x, y, z: TF.triplet_margin_loss(x, y, z, reduction="none"), [p, p.copy(), p[::-1].copy()])
    check(lambda x, y, z: F.triplet_margin_loss(x, y, z, swap=True),
          lambda x, y, z: TF.triplet_margin_loss(x, y, z, swap=True),
          [np.random.default_rng(1).standard_normal((3, 4)), np.zeros((1, 4)), np.ones((3, 4))])
    # multi-margin: margins met exactly (z = 0), a single sample (C,), empty batch
    s = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    for pp in (1, 2):
        check(lambda x, t: F.multi_margin_loss(x, t, p=pp, reduction="none"),
              lambda x, t: TF.multi_margin_loss(x, t, p=pp, reduction="none"), [s, np.array([0, 2])])
    for t in (np.array(1), np.array([1])):
        check(lambda x, tt: F.multi_margin_loss(x, tt, reduction="none"),
              lambda x, tt: TF.multi_margin_loss(x, tt, reduction="none"), [np.array([0.3, -1.0, 2.0]), t])
    check(lambda x, t: F.multi_margin_loss(x, t, weight=seqlab.tensor([1.0, 2.0, 3.0], dtype=seqlab.float64)),
          lambda x, t: TF.multi_margin_loss(x, t, weight=torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)),
          [np.random.default_rng(2).standard_normal((5, 3)), np.array([0, 1, 2, 2, 1])])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_and_likelihood_losses_of_an_empty_batch(reduction):
    e = np.zeros((0, 3))
    e1 = np.zeros(0)
    cases = [(F.margin_ranking_loss, TF.margin_ranking_loss, [e1, e1, e1]),
             (F.hinge_embedding_loss, TF.hinge_embedding_loss, [e, e]),
             (F.soft_margin_loss, TF.soft_margin_loss, [e, np.zeros((0, 3), dtype=np.int64)]),
             (F.multilabel_soft_margin_loss, TF.multilabel_soft_margin_loss, [e, e]),
             (F.cosine_embedding_loss, TF.cosine_embedding_loss, [e, e, np.zeros(0, dtype=np.int64)]),
             (F.triplet_margin_loss, TF.triplet_margin_loss, [e, e, e]),
             (F.poisson_nll_loss, TF.poisson_nll_loss, [e, e]),
             (F.gaussian_nll_loss, TF.gaussian_nll_loss, [e, e, e]),
             (F.multi_margin_loss, TF.multi_margin_loss, [e, np.zeros(0, dtype=np.int64)])]
    if reduction == "mean":  # torch's multi_margin_loss returns uninitialised memory here; the mean of nothing is NaN
        cases.pop()
        assert np.isnan(F.multi_margin_loss(seqlab.zeros(0, 3), seqlab.zeros(0, dtype=seqlab.int64)).item())
    for ours, theirs, inputs in cases:
        check(lambda *a: ours(*a, reduction=reduction), lambda *a: theirs(*a, reduction=reduction), inputs)


def test_poisson_and_gaussian_nll_details():
    # full Stirling term only where target > 1; target 0 gives torch a NaN target gradient, here 0
    x, y = np.array([0.5, -1.0, 2.0, 0.1]), np.array([0.0, 1.0, 2.0, 7.0])
    check(lambda a, b: F.poisson_nll_loss(a, b, full=True, reduction="none"),
          lambda a, b: TF.poisson_nll_loss(a, b, full=True, reduction="none"), [x, y + 1])
    a = seqlab.tensor(x, requires_grad=True)
    b = seqlab.tensor(y, requires_grad=True)
    F.poisson_nll_loss(a, b, full=True).backward()
    assert np.isfinite(b.grad.numpy()).all()
    # var: homoscedastic (one dimension short, or size 1 in one dimension), a float, clamped at eps
    rng = np.random.default_rng(3)
    inp, tgt = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    for var in (rng.uniform(0.1, 1, 4), rng.uniform(0.1, 1, (4, 1)), rng.uniform(0.1, 1, (1, 3)),
                np.array([[1e-9, 0.0, 2.0]] * 4)):
        check(lambda p, q, v: F.gaussian_nll_loss(p, q, v), lambda p, q, v: TF.gaussian_nll_loss(p, q, v),
              [inp, tgt, var])
    check(lambda p, q: F.gaussian_nll_loss(p, q, 0.5, full=True),
          lambda p, q: TF.gaussian_nll_loss(p, q, 0.5, full=True), [inp, tgt])
    for var, message in ((-1.0, "var has negative entry"), (seqlab.tensor([[-1.0, 1.0, 1.0]]), "var has negative"),
                         (seqlab.ones(3, 4), "var is of incorrect size"), (seqlab.ones(2, 3), "var is of incorrect")):
        tvar = var if isinstance(var, float) else torch.from_dlpack(var).clone()
        assert_raises_like_torch(lambda: F.gaussian_nll_loss(seqlab.tensor(inp), seqlab.tensor(tgt), var),
                                 lambda: TF.gaussian_nll_loss(torch.tensor(inp), torch.tensor(tgt), tvar), message)
    assert_raises_like_torch(lambda: F.gaussian_nll_loss(seqlab.tensor(inp), seqlab.tensor(tgt), 1.0, reduction="x"),
                             lambda: TF.gaussian_nll_loss(torch.tensor(inp), torch.tensor(tgt), 1.0, reduction="x"),
                             "x is not valid")
    assert_raises_like_torch(lambda: F.poisson_nll_loss(seqlab.tensor(inp), seqlab.tensor(tgt), reduction="x"),
                             lambda: TF.poisson_nll_loss(torch.tensor(inp), torch.tensor(tgt), reduction="x"),
                             "x is not a valid value for reduction")


def test_margin_loss_errors_are_torchs():
    z2, z1 = (seqlab.zeros(2, 3), torch.zeros(2, 3)), (seqlab.zeros(3), torch.zeros(3))
    i2 = (seqlab.tensor([0, 1]), torch.tensor([0, 1]))
    cases = [
        (lambda L, s, t: L.margin_ranking_loss(s[0], s[1], t[0]), "margin_ranking_loss : All input tensors should "
         "have same dimension"),
        (lambda L, s, t: L.cosine_embedding_loss(s[1], s[1], s[1]), "0D or 1D target tensor expected"),
        (lambda L, s, t: L.cosine_embedding_loss(t[1], t[1], t[0]), "1D target tensor expects 2D input tensors, but "
         "found inputs with sizes \\[3\\] and \\[3\\]"),
        (lambda L, s, t: L.triplet_margin_loss(s[1], s[1], s[1], margin=0.0), "margin must be greater than 0, got 0"),
        (lambda L, s, t: L.triplet_margin_loss(s[1], s[1], t[1]), "The anchor, positive, and negative tensors are "
         "expected to have the same number of dimensions, but got: anchor 2D, positive 2D, and negative 1D inputs"),
        (lambda L, s, t: L.multi_margin_loss(s[1], s[2], p=3), "only p == 1 and p == 2 supported"),
        (lambda L, s, t: L.multi_margin_loss(s[1], s[2], weight=s[1]), "weight must be one-dimensional"),
        (lambda L, s, t: L.multi_margin_loss(s[1], s[2] * 3), "target out of range"),
        (lambda L, s, t: L.multi_margin_loss(s[1], t[1].long()), "target tensor should be 1-D with size equal to "
         "the number of input samples \\(batch size\\). Expected target size \\[2\\], but got \\[3\\]"),
        (lambda L, s, t: L.multi_margin_loss(s[1][:, :0], s[2]), "Expected non-empty vector or matrix"),
        (lambda L, s, t: L.multilabel_soft_margin_loss(s[1], s[1], reduction="x"), "x is not valid"),
        (lambda L, s, t: L.soft_margin_loss(s[1], s[1], reduction="x"), "x is not a valid value for reduction"),
    ]
    for call, message in cases:
        assert_raises_like_torch(lambda: call(F, (z2[0], z2[0], i2[0]), (z1[0], z1[0])),
                                 lambda: call(TF, (z2[1], z2[1], i2[1]), (z1[1], z1[1])), message)
    for cls, kw, message in [("TripletMarginLoss", {"margin": -1.0},
                              "TripletMarginLoss: expected margin to be greater"),
                             ("MultiMarginLoss", {"p": 3}, "only p == 1 and p == 2 supported")]:
        assert_raises_like_torch(lambda: getattr(nn, cls)(**kw), lambda: getattr(torch.nn, cls)(**kw), message)
