"""More torch.nn names against torch 2.13: AdaptiveLogSoftmaxWithLoss (torch's state dict both
ways, outputs, loss, gradients, log_prob, predict); gumbel_softmax (statistics, one-hot-ness, the
straight-through gradient); the channel and alpha dropouts (eval is the identity, training by
statistics and by gradient = mask · scale; Dropout1d/2d's and Softmax2d's own tests are
test_nn_modules_more.py's); adaptive max pooling and power-average pooling;
transposed convolutions; MultiLabelMarginLoss, TripletMarginWithDistanceLoss, NLLLoss2d, Container;
reprs, errors with torch's type and message, and seqlab.to_torch of each module (CONVERTS)."""
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from conftest import assert_gradcheck, assert_matches_torch, assert_raises_like_torch, make_rng, sl_leaf

DTYPES = [np.float32, np.float64]
SL_DTYPE = {np.float32: seqlab.float32, np.float64: seqlab.float64}
TH_DTYPE = {np.float32: torch.float32, np.float64: torch.float64}

# the modules seqlab.to_torch converts, each tested in test_every_new_module_converts_to_torch
CONVERTS = ["CTCLoss", "AdaptiveLogSoftmaxWithLoss", "Dropout1d", "Dropout2d", "AlphaDropout", "FeatureAlphaDropout",
            "Softmax2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "ConvTranspose1d",
            "ConvTranspose2d", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "NLLLoss2d", "Container"]


def sl(a):
    return seqlab.from_numpy(np.array(a, order="C"))  # (ascontiguousarray would make a 0-d array 1-d)


def th(a):
    return torch.from_numpy(np.array(a, order="C"))


# ------------------------------------------------------------------------ AdaptiveLogSoftmaxWithLoss

ASM_CASES = [dict(in_features=8, n_classes=20, cutoffs=[5, 12]),
             dict(in_features=16, n_classes=10, cutoffs=[3], div_value=2.0, head_bias=True),
             dict(in_features=6, n_classes=30, cutoffs=(4, 10, 20), div_value=1.5)]


def asm_pair(kwargs, dtype):
    torch.manual_seed(0)
    with warnings.catch_warnings():  # (torch: "Initializing zero-element tensors is a no-op" for an empty tail)
        warnings.simplefilter("ignore", UserWarning)
        theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(**kwargs).to(TH_DTYPE[dtype])
    ours = nn.AdaptiveLogSoftmaxWithLoss(**kwargs, dtype=SL_DTYPE[dtype])
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", ASM_CASES, ids=lambda k: str(k["cutoffs"]))
def test_adaptive_log_softmax_matches_torch(dtype, kwargs):
    ours, theirs = asm_pair(kwargs, dtype)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    assert repr(ours) == repr(theirs)
    rng = make_rng(1)
    x = rng.standard_normal((13, kwargs["in_features"])).astype(dtype)
    target = rng.integers(0, kwargs["n_classes"], size=13)
    target[:3] = [0, kwargs["n_classes"] - 1, kwargs["cutoffs"][0]]
    xs, xt = sl_leaf(x), th(x).requires_grad_()
    out, tout = ours(xs, sl(target)), theirs(xt, th(target))
    assert out._fields == tout._fields == ("output", "loss")
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(out.output.detach().numpy(), tout.output.detach().numpy(), **tol)
    np.testing.assert_allclose(out.loss.item(), tout.loss.item(), **tol)
    g = rng.standard_normal(13).astype(dtype)
    (out.output * sl(g)).sum().add(out.loss).backward()
    ((tout.output * th(g)).sum() + tout.loss).backward()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), **tol)
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), err_msg=name, **tol)
    with seqlab.no_grad(), torch.no_grad():
        np.testing.assert_allclose(ours.log_prob(sl(x)).numpy(), theirs.log_prob(th(x)).numpy(), **tol)
        np.testing.assert_allclose(np.exp(ours.log_prob(sl(x)).numpy()).sum(1), 1.0, rtol=1e-5)
        # predict: scale the input so some rows pick a cluster and some the shortlist
        for scale in (0.1, 1.0, 5.0):
            np.testing.assert_array_equal(ours.predict(sl(x * scale)).numpy(), theirs.predict(th(x * scale)).numpy())
    # unbatched
    o1, t1 = ours(sl(x[0]), sl(np.array(target[0]))), theirs(th(x[0]), th(np.array(target[0])))
    assert tuple(o1.output.shape) == tuple(t1.output.shape) == ()
    np.testing.assert_allclose(o1.output.item(), t1.output.item(), **tol)


def test_adaptive_log_softmax_state_dict_goes_to_torch_and_reset():
    kwargs = ASM_CASES[2]
    seqlab.manual_seed(3)
    ours = nn.AdaptiveLogSoftmaxWithLoss(**kwargs, dtype=seqlab.float64)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(**kwargs).double()
    theirs.load_state_dict(nn.to_torch_state_dict(ours))
    x = make_rng(4).standard_normal((5, 6))
    np.testing.assert_allclose(ours.log_prob(sl(x)).detach().numpy(), theirs.log_prob(th(x)).detach().numpy(),
                               rtol=1e-12)
    before = ours.head.weight.detach().numpy().copy()
    ours.reset_parameters()
    assert not np.array_equal(before, ours.head.weight.detach().numpy())
    bound = 1 / math.sqrt(kwargs["in_features"])
    assert np.abs(ours.head.weight.detach().numpy()).max() <= bound
    assert ours.tail[0][0].weight.shape == theirs.tail[0][0].weight.shape


def test_adaptive_log_softmax_gradcheck():
    seqlab.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(4, 9, [3, 6], div_value=2.0, dtype=seqlab.float64)
    target = sl(np.array([0, 4, 8, 2, 7]))
    assert_gradcheck(lambda x: m(x, target).output, [make_rng(2).standard_normal((5, 4))])


def _asm_errors():
    x = np.zeros((4, 8), dtype=np.float32)
    t = np.array([1, 2, 3, 4])
    return [
        ("empty cutoffs", lambda M, a: M(8, 20, []), ["cutoffs should be a sequence of length larger than 0"]),
        ("unsorted cutoffs", lambda M, a: M(8, 20, [10, 5]), ["cutoffs should be a sequence of unique, positive"]),
        ("cutoff too large", lambda M, a: M(8, 20, [5, 20]), ["between 1 and n_classes-1"]),
        ("repeated cutoff", lambda M, a: M(8, 20, [5, 5]), ["unique"]),
        ("zero cutoff", lambda M, a: M(8, 20, [0, 5]), ["positive"]),
        ("target out of range", lambda M, a: M(8, 20, [5])(a(x), a(np.array([1, 2, 25, 3]))),
         [r"Target values should be in \[0, 19\], but values in range \[1, 25\] were found"]),
        ("negative target", lambda M, a: M(8, 20, [5])(a(x), a(np.array([-1, 2, 3, 3]))),
         [r"Target values should be in \[0, 19\]"]),
        ("batch mismatch", lambda M, a: M(8, 20, [5])(a(x), a(t[:3])),
         ["Input and target should have the same size in the batch dimension"]),
        ("1-d target, 3-d input", lambda M, a: M(8, 20, [5])(a(x[None]), a(np.array([1]))),
         ["1D target tensor expects 2D input tensors"]),
        ("0-d target, 2-d input", lambda M, a: M(8, 20, [5])(a(x), a(np.array(1))),
         ["0D target tensor expects 1D input tensors"]),
        ("2-d target", lambda M, a: M(8, 20, [5])(a(x), a(t[None])), ["0D or 1D target tensor expected"]),
    ]


@pytest.mark.parametrize("case", _asm_errors(), ids=lambda c: c[0])
def test_adaptive_log_softmax_errors(case):
    _, call, fragments = case
    assert_raises_like_torch(lambda: call(nn.AdaptiveLogSoftmaxWithLoss, sl),
                             lambda: call(torch.nn.AdaptiveLogSoftmaxWithLoss, th), *fragments)


# ------------------------------------------------------------------------------------ gumbel_softmax

def test_gumbel_softmax_statistics_and_shapes():
    seqlab.manual_seed(0)
    logits = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    n = 20000
    batch = sl(np.tile(logits, (n, 1)))
    soft = F.gumbel_softmax(batch, tau=0.5)
    assert tuple(soft.shape) == (n, 4)
    np.testing.assert_allclose(soft.numpy().sum(1), 1.0, rtol=1e-6)
    # argmax(logits + Gumbel) is a draw from softmax(logits) (the Gumbel-max trick), whatever tau
    hard = F.gumbel_softmax(batch, tau=2.0, hard=True).numpy()
    assert set(np.unique(hard)) <= {0.0, 1.0} and np.all(hard.sum(1) == 1)
    freq = hard.mean(0)
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.3, 0.4], atol=0.015)
    # a small tau makes soft samples nearly one-hot; a large one nearly uniform
    cold = F.gumbel_softmax(batch[:2000], tau=0.05).numpy()
    hot = F.gumbel_softmax(batch[:2000], tau=100.0).numpy()
    assert np.mean(cold.max(1)) > 0.95 and np.abs(hot - 0.25).max() < 0.06
    # dim
    x3 = sl(make_rng(1).standard_normal((3, 5, 2)))
    y = F.gumbel_softmax(x3, dim=1, hard=True).numpy()
    assert y.shape == (3, 5, 2) and np.all(y.sum(1) == 1)
    assert F.gumbel_softmax(x3, dim=1).dtype == seqlab.float64


def test_gumbel_softmax_hard_gradient_is_the_soft_one():
    """Straight-through: with the same noise, the hard sample's gradient is the soft sample's."""
    x = make_rng(3).standard_normal((6, 5))
    g = sl(make_rng(4).standard_normal((6, 5)))
    grads = []
    for hard in (False, True):
        seqlab.manual_seed(11)
        leaf = sl_leaf(x)
        (F.gumbel_softmax(leaf, tau=0.7, hard=hard) * g).sum().backward()
        grads.append(leaf.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-14)
    assert np.abs(grads[0]).max() > 0


def test_gumbel_softmax_eps_warns_as_torch():
    x = sl(np.zeros((2, 3)))
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        F.gumbel_softmax(x, eps=1e-5)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        TF.gumbel_softmax(th(np.zeros((2, 3))), eps=1e-5)


# ------------------------------------------------------------------------------------ dropouts

CHANNEL_DROPOUTS = [("dropout1d", (40, 30, 7), nn.Dropout1d), ("dropout2d", (20, 30, 4, 5), nn.Dropout2d),
                    ("feature_alpha_dropout", (20, 30, 4, 5), nn.FeatureAlphaDropout)]


@pytest.mark.parametrize("name,shape,module", CHANNEL_DROPOUTS + [("alpha_dropout", (200, 50), nn.AlphaDropout)],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_eval_is_the_identity(name, shape, module):
    x = sl(make_rng(0).standard_normal(shape).astype(np.float32))
    assert getattr(F, name)(x, 0.5, training=False) is x
    m = module(0.3).eval()
    assert np.array_equal(m(x).numpy(), x.numpy())
    assert repr(m) == repr(getattr(torch.nn, module.__name__)(0.3)) == f"{module.__name__}(p=0.3, inplace=False)"
    assert getattr(F, name)(x, 0.0, training=True) is x


@pytest.mark.parametrize("name,shape,module", CHANNEL_DROPOUTS, ids=lambda v: v if isinstance(v, str) else "")
def test_channel_dropout_drops_whole_channels(name, shape, module):
    seqlab.manual_seed(5)
    p = 0.3
    x = sl_leaf(np.abs(make_rng(1).standard_normal(shape)) + 0.5)
    y = getattr(F, name)(x, p, training=True)
    yv, xv = y.detach().numpy(), x.detach().numpy()
    per_channel = (shape[0], shape[1], -1)
    if name == "feature_alpha_dropout":  # kept: a x + λα a p; dropped: λα a (p - 1), for the whole channel
        a = 1 / math.sqrt((1.7580993408473766 ** 2 * p + 1) * (1 - p))
        kept_value = (a * xv + 1.7580993408473766 * a * p).reshape(per_channel)
        dropped_value = 1.7580993408473766 * a * (p - 1)
        kept = np.isclose(yv.reshape(per_channel), kept_value, rtol=0, atol=1e-12).all(2)
        dropped = np.isclose(yv.reshape(per_channel), dropped_value, rtol=0, atol=1e-12).all(2)
        assert np.all(kept != dropped)
        scale = a
    else:
        ratio = (yv / xv).reshape(per_channel)
        assert np.allclose(ratio, ratio[:, :, :1])  # one mask value per (n, c) channel
        kept = ratio[:, :, 0] > 0
        assert np.allclose(ratio[:, :, 0][kept], 1 / (1 - p)) and np.all(ratio[:, :, 0][~kept] == 0)
        scale = 1 / (1 - p)
    assert abs((~kept).mean() - p) < 0.05
    g = make_rng(2).standard_normal(shape)
    (y * sl(g)).sum().backward()
    mask = np.broadcast_to(kept.reshape(shape[:2] + (1,) * (len(shape) - 2)), shape)
    np.testing.assert_allclose(x.grad.numpy(), g * mask * scale, rtol=1e-12)
    assert module(p).train()(x).shape == x.shape


def test_alpha_dropout_keeps_mean_and_variance_and_its_gradient_is_the_mask():
    seqlab.manual_seed(2)
    p = 0.2
    x = sl_leaf(make_rng(0).standard_normal((400, 500)))
    y = F.alpha_dropout(x, p, training=True)
    yv = y.detach().numpy()
    assert abs(yv.mean()) < 0.01 and abs(yv.std() - 1) < 0.01
    a = 1 / math.sqrt((1.7580993408473766 ** 2 * p + 1) * (1 - p))
    dropped = np.isclose(yv, 1.7580993408473766 * a * (p - 1), rtol=0, atol=1e-13)
    assert abs(dropped.mean() - p) < 0.01
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(dropped, 0.0, a), rtol=1e-12)
    # torch's statistics on the same input agree
    ty = TF.alpha_dropout(th(x.detach().numpy()), p, training=True).numpy()
    assert abs(ty.std() - yv.std()) < 0.01


def test_dropout1d_p_one_zeroes_inplace_is_accepted_and_unbatched_input():
    x = sl(np.ones((3, 4, 5)))
    assert np.all(F.dropout1d(x, 1.0).numpy() == 0)
    y = sl(np.ones((3, 4, 5)))
    out = F.dropout1d(y, 0.5, inplace=True)  # accepted; the result is a new tensor, as F.dropout's
    assert set(np.unique(out.numpy())) <= {0.0, 2.0} and np.all(out.numpy().std(2) == 0)
    z = sl(np.ones((4, 5)))  # unbatched (C, L)
    seqlab.manual_seed(1)
    out = F.dropout1d(z, 0.5, training=True)
    assert out.shape == (4, 5) and set(np.unique(out.numpy())) <= {0.0, 2.0}
    assert np.all(out.numpy().std(1) == 0)


def _dropout_errors():
    x = np.ones((2, 3, 4, 5), dtype=np.float32)
    return [
        ("dropout1d 4-d", lambda f, a: f.dropout1d(a(x), 0.5),
         ["dropout1d: Expected 2D or 3D input, but received a 4D"]),
        ("dropout1d p", lambda f, a: f.dropout1d(a(x[0]), 1.5),
         ["dropout probability has to be between 0 and 1, but got 1.5"]),
        ("dropout2d p", lambda f, a: f.dropout2d(a(x), -0.1), ["dropout probability has to be between 0 and 1"]),
        ("alpha p", lambda f, a: f.alpha_dropout(a(x), 2.0), ["dropout probability has to be between 0 and 1"]),
        ("feature alpha p", lambda f, a: f.feature_alpha_dropout(a(x), 2.0), ["dropout probability"]),
        ("feature alpha 1-d", lambda f, a: f.feature_alpha_dropout(a(x[0, 0, 0]), 0.5, True),
         ["Feature dropout requires at least 2 dimensions in the input"]),
    ]


@pytest.mark.parametrize("case", _dropout_errors(), ids=lambda c: c[0])
def test_dropout_errors(case):
    _, call, fragments = case
    assert_raises_like_torch(lambda: call(F, sl), lambda: call(TF, th), *fragments)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout2d(1.5)


# ------------------------------------------------------------------------------------ pooling

ADAPTIVE_MAX = [("adaptive_max_pool1d", (2, 3, 11), 4), ("adaptive_max_pool1d", (3, 7), 7),
                ("adaptive_max_pool1d", (2, 3, 5), 8), ("adaptive_max_pool2d", (2, 3, 9, 7), (4, 3)),
                ("adaptive_max_pool2d", (3, 6, 6), 4), ("adaptive_max_pool2d", (1, 2, 7, 8), (None, 3)),
                ("adaptive_max_pool2d", (1, 2, 5, 5), (1, 1))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["contig", "T"])
@pytest.mark.parametrize("name,shape,size", ADAPTIVE_MAX, ids=lambda v: str(v))
def test_adaptive_max_pool(dtype, layout, name, shape, size):
    x = make_rng(1).standard_normal(shape).astype(dtype)
    assert_matches_torch(lambda t: getattr(F, name)(t, size, return_indices=True),
                         lambda t: getattr(TF, name)(t, size, return_indices=True), [x], layout=layout)
    assert_matches_torch(lambda t: getattr(F, name + "_with_indices")(t, size),
                         lambda t: getattr(TF, name + "_with_indices")(t, size), [x])
    module = "AdaptiveMaxPool" + name[-2:]
    ours, theirs = getattr(nn, module)(size), getattr(torch.nn, module)(size)
    assert repr(ours) == repr(theirs)
    assert_matches_torch(ours, theirs, [x])
    assert_matches_torch(getattr(nn, module)(size, True), getattr(torch.nn, module)(size, True), [x])


def test_adaptive_max_pool_gradcheck_and_nan():
    assert_gradcheck(lambda t: F.adaptive_max_pool2d(t, (3, 2)), [make_rng(5).standard_normal((2, 2, 7, 5))])
    x = np.array([[[1.0, np.nan, 3.0, 2.0]]])
    assert_matches_torch(lambda t: F.adaptive_max_pool1d(t, 2, True), lambda t: TF.adaptive_max_pool1d(t, 2, True),
                         [x], grad=False)


def test_adaptive_max_pool_errors():
    x = np.ones((2, 3, 4), dtype=np.float32)
    assert_raises_like_torch(lambda: F.adaptive_max_pool1d(sl(x[None]), 2),
                             lambda: TF.adaptive_max_pool1d(th(x[None]), 2),
                             "adaptive_max_pool1d")
    assert_raises_like_torch(lambda: F.adaptive_max_pool2d(sl(x[0, 0]), 2),
                             lambda: TF.adaptive_max_pool2d(th(x[0, 0]), 2),
                             "adaptive_max_pool2d")


LP_CASES = [("lp_pool1d", (2, 3, 10), 2.0, 3, None, False), ("lp_pool1d", (3, 9), 1.0, 2, 1, True),
            ("lp_pool1d", (2, 2, 8), 3.5, 4, 2, False), ("lp_pool2d", (2, 3, 8, 7), 2.0, 3, None, False),
            ("lp_pool2d", (2, 6, 6), 3.0, (2, 3), (1, 2), True), ("lp_pool2d", (1, 2, 5, 5), 1.5, 2, 1, False)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,shape,p,k,s,ceil", LP_CASES, ids=lambda v: str(v))
def test_lp_pool(dtype, name, shape, p, k, s, ceil):
    x = (np.abs(make_rng(2).standard_normal(shape)) + 0.1).astype(dtype)  # positive: x^p is real for any p
    assert_matches_torch(lambda t: getattr(F, name)(t, p, k, s, ceil), lambda t: getattr(TF, name)(t, p, k, s, ceil),
                         [x], rtol=1e-4 if dtype == np.float32 else 1e-10)
    module = "LPPool" + name[-2:]
    ours, theirs = getattr(nn, module)(p, k, s, ceil), getattr(torch.nn, module)(p, k, s, ceil)
    assert repr(ours) == repr(theirs)
    assert_matches_torch(ours, theirs, [x], rtol=1e-4 if dtype == np.float32 else 1e-10)
    if dtype == np.float64:
        assert_gradcheck(lambda t: getattr(F, name)(t, p, k, s, ceil), [x])


# ------------------------------------------------------------------------------------ transposed convolutions

CONVT = [  # (nsp, in, out, kernel, kwargs, input spatial)
    (1, 4, 6, 3, dict(), (7,)),
    (1, 4, 6, 3, dict(stride=2, padding=1, output_padding=1), (5,)),
    (1, 4, 6, 2, dict(stride=3, padding=2, groups=2, dilation=2, bias=False), (6,)),
    (1, 3, 2, 4, dict(stride=2, output_padding=1, dilation=3), (4,)),
    (2, 4, 6, 3, dict(), (5, 4)),
    (2, 4, 6, (3, 2), dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0), groups=2), (4, 5)),
    (2, 2, 3, 3, dict(stride=2, padding=1, dilation=(2, 1), bias=False), (3, 3)),
    (2, 6, 4, 1, dict(stride=2, groups=2), (3, 2)),
]


def convt_pair(nsp, cin, cout, k, kwargs, dtype):
    torch.manual_seed(1)
    name = f"ConvTranspose{nsp}d"
    theirs = getattr(torch.nn, name)(cin, cout, k, **kwargs).to(TH_DTYPE[dtype])
    ours = getattr(nn, name)(cin, cout, k, **kwargs, dtype=SL_DTYPE[dtype])
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CONVT, ids=lambda c: f"{c[0]}d-{c[4]}")
def test_conv_transpose_matches_torch(dtype, case):
    nsp, cin, cout, k, kwargs, spatial = case
    ours, theirs = convt_pair(nsp, cin, cout, k, kwargs, dtype)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    rng = make_rng(3)
    x = rng.standard_normal((2, cin) + spatial).astype(dtype)
    w = theirs.weight.detach().numpy()
    args = dict(stride=ours.stride, padding=ours.padding, output_padding=ours.output_padding, groups=ours.groups,
                dilation=ours.dilation)
    fn = f"conv_transpose{nsp}d"
    tol = dict(atol=1e-4, rtol=1e-4) if dtype == np.float32 else {}
    if theirs.bias is not None:
        b = theirs.bias.detach().numpy()
        assert_matches_torch(lambda x, w, b: getattr(F, fn)(x, w, b, **args),
                             lambda x, w, b: getattr(TF, fn)(x, w, b, **args), [x, w, b], **tol)
    else:
        assert_matches_torch(lambda x, w: getattr(F, fn)(x, w, **args), lambda x, w: getattr(TF, fn)(x, w, **args),
                             [x, w], **tol)
    assert_matches_torch(lambda x, w: getattr(F, fn)(x, w, **args), lambda x, w: getattr(TF, fn)(x, w, **args),
                         [x, w], layout="T", **tol)
    # unbatched, the module, the module's parameter gradients
    assert_matches_torch(ours, theirs, [x[0]], **tol)
    y, ty = ours(sl_leaf(x)), theirs(th(x))
    y.sum().backward()
    ty.sum().backward()
    for (n, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4 if dtype == np.float32 else 1e-10,
                                   atol=1e-4 if dtype == np.float32 else 1e-10, err_msg=n)
    # state dict back to torch
    theirs2 = getattr(torch.nn, f"ConvTranspose{nsp}d")(cin, cout, k, **kwargs).to(TH_DTYPE[dtype])
    theirs2.load_state_dict(nn.to_torch_state_dict(ours))


@pytest.mark.parametrize("case", [CONVT[1], CONVT[2], CONVT[5], CONVT[6]], ids=lambda c: f"{c[0]}d-{c[4]}")
def test_conv_transpose_gradcheck(case):
    nsp, cin, cout, k, kwargs, spatial = case
    ours, _ = convt_pair(nsp, cin, cout, k, kwargs, np.float64)
    args = dict(stride=ours.stride, padding=ours.padding, output_padding=ours.output_padding, groups=ours.groups,
                dilation=ours.dilation)
    rng = make_rng(4)
    x = rng.standard_normal((2, cin) + spatial)
    w = rng.standard_normal(tuple(ours.weight.shape))
    b = rng.standard_normal(cout)
    assert_gradcheck(lambda x, w, b: getattr(F, f"conv_transpose{nsp}d")(x, w, b, **args), [x, w, b])


def test_conv_transpose_output_size_and_init():
    torch.manual_seed(0)
    theirs = torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1).double()
    ours = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, dtype=seqlab.float64)
    ours.load_state_dict(theirs.state_dict())
    x = make_rng(0).standard_normal((1, 3, 4, 5))
    for size in [(7, 9), (8, 10), [1, 4, 8, 9]]:
        np.testing.assert_allclose(ours(sl(x), output_size=size).detach().numpy(),
                                   theirs(th(x), output_size=size).detach().numpy(), rtol=1e-12)
    assert_raises_like_torch(lambda: ours(sl(x), output_size=(6, 9)), lambda: theirs(th(x), output_size=(6, 9)),
                             r"requested an output size of \[6, 9\], but valid sizes range from \[7, 9\] to \[8, 10\]")
    assert_raises_like_torch(lambda: ours(sl(x), output_size=(7,)), lambda: theirs(th(x), output_size=(7,)),
                             "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements")
    # torch's init: U(-1/sqrt(fan_in)) with fan_in = out/groups * prod(kernel), from the weight's dim 1
    seqlab.manual_seed(0)
    m = nn.ConvTranspose1d(64, 2, 5)
    bound = 1 / math.sqrt(2 * 5)
    w = m.weight.detach().numpy()
    assert w.shape == (64, 2, 5) and np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound


def _convt_errors():
    x = np.ones((2, 4, 5), dtype=np.float32)
    w = np.ones((4, 3, 3), dtype=np.float32)
    return [
        ("channels", lambda f, a: f.conv_transpose1d(a(x), a(w[:3])), ["expected input", "to have 3 channels"]),
        ("output_padding", lambda f, a: f.conv_transpose1d(a(x), a(w), stride=2, output_padding=2),
         ["output padding must be smaller than either stride or dilation"]),
        ("too small", lambda f, a: f.conv_transpose1d(a(x[:, :, :1]), a(w), padding=3), ["Output size is too small"]),
        ("bias", lambda f, a: f.conv_transpose1d(a(x), a(w), a(np.ones(4, dtype=np.float32))),
         ["expected bias to be 1-dimensional with 3 elements"]),
        ("input dims", lambda f, a: f.conv_transpose2d(a(x[0, 0]), a(w[..., None])),
         ["Expected 3D \\(unbatched\\) or 4D"]),
        ("empty weight", lambda f, a: f.conv_transpose1d(a(x[:, :0]), a(w[:0])),
         ["expected weight to be at least 1 at dimension 0"]),
    ]


@pytest.mark.parametrize("case", _convt_errors(), ids=lambda c: c[0])
def test_conv_transpose_errors(case):
    _, call, fragments = case
    assert_raises_like_torch(lambda: call(F, sl), lambda: call(TF, th), *fragments)


def test_conv_transpose_module_errors():
    assert_raises_like_torch(lambda: nn.ConvTranspose1d(4, 6, 3, padding_mode="reflect"),
                             lambda: torch.nn.ConvTranspose1d(4, 6, 3, padding_mode="reflect"),
                             'Only "zeros" padding mode is supported for ConvTranspose1d')
    assert_raises_like_torch(lambda: nn.ConvTranspose2d(4, 6, 3, groups=4),
                             lambda: torch.nn.ConvTranspose2d(4, 6, 3, groups=4),
                             "out_channels must be divisible by groups")


# ------------------------------------------------------------------------------------ losses

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(dtype, reduction):
    rng = make_rng(0)
    x = rng.standard_normal((5, 6)).astype(dtype)
    y = np.array([[3, 0, -1, 1, 1, 1], [0, 1, 2, 3, 4, 5], [-1, 2, 2, 2, 2, 2], [5, 5, -1, 0, 0, 0],
                  [2, 4, 1, -1, 3, 3]])
    assert_matches_torch(lambda x, y: F.multilabel_margin_loss(x, y, reduction=reduction),
                         lambda x, y: TF.multilabel_margin_loss(x, y, reduction=reduction), [x, y])
    assert_matches_torch(lambda x, y: F.multilabel_margin_loss(x, y, reduction=reduction),
                         lambda x, y: TF.multilabel_margin_loss(x, y, reduction=reduction), [x[0], y[0]])
    ours, theirs = nn.MultiLabelMarginLoss(reduction=reduction), torch.nn.MultiLabelMarginLoss(reduction=reduction)
    assert repr(ours) == repr(theirs)
    assert_matches_torch(ours, theirs, [x, y])
    if dtype == np.float64:
        assert_gradcheck(lambda x, y: F.multilabel_margin_loss(x, y, reduction=reduction), [x, y])


def test_multilabel_margin_loss_errors():
    x = np.zeros((2, 3), dtype=np.float32)
    assert_raises_like_torch(lambda: F.multilabel_margin_loss(sl(x), sl(np.zeros((2, 2), dtype=np.int64))),
                             lambda: TF.multilabel_margin_loss(th(x), th(np.zeros((2, 2), dtype=np.int64))),
                             "inconsistent target size")
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.multilabel_margin_loss(sl(x), sl(np.zeros((2, 3), dtype=np.int64)), reduction="foo")
    with pytest.raises(RuntimeError, match="out of bounds for 3 classes"):  # torch reads past the row
        F.multilabel_margin_loss(sl(x), sl(np.array([[0, 7, -1], [1, -1, 0]])))


def cosine_distance(a, b):
    return 1.0 - (a * b).sum(-1) / ((a * a).sum(-1) * (b * b).sum(-1)).sqrt()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [dict(), dict(margin=0.5, swap=True), dict(reduction="none"),
                                    dict(distance_function=cosine_distance, reduction="sum"),
                                    dict(distance_function=cosine_distance, swap=True, margin=2.0)], ids=str)
def test_triplet_margin_with_distance_loss(dtype, kwargs):
    rng = make_rng(1)
    a, p, n = (rng.standard_normal((7, 5)).astype(dtype) for _ in range(3))
    assert_matches_torch(lambda *t: F.triplet_margin_with_distance_loss(*t, **kwargs),
                         lambda *t: TF.triplet_margin_with_distance_loss(*t, **kwargs), [a, p, n])
    ours = nn.TripletMarginWithDistanceLoss(**kwargs)
    theirs = torch.nn.TripletMarginWithDistanceLoss(**kwargs)
    if "distance_function" not in kwargs:
        assert repr(ours) == repr(theirs)
    assert_matches_torch(ours, theirs, [a, p, n])
    if dtype == np.float64:
        assert_gradcheck(lambda *t: F.triplet_margin_with_distance_loss(*t, **kwargs), [a, p, n])


def test_triplet_margin_with_distance_loss_errors():
    x = np.zeros((2, 3), dtype=np.float32)
    assert_raises_like_torch(lambda: F.triplet_margin_with_distance_loss(sl(x), sl(x), sl(x), margin=0),
                             lambda: TF.triplet_margin_with_distance_loss(th(x), th(x), th(x), margin=0),
                             "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got 0 instead")
    assert_raises_like_torch(lambda: F.triplet_margin_with_distance_loss(sl(x), sl(x), sl(x[0])),
                             lambda: TF.triplet_margin_with_distance_loss(th(x), th(x), th(x[0])),
                             "anchor 2D, positive 2D, and negative 1D inputs")
    assert_raises_like_torch(lambda: nn.TripletMarginWithDistanceLoss(margin=-1.0),
                             lambda: torch.nn.TripletMarginWithDistanceLoss(margin=-1.0),
                             "expected margin to be greater than 0, got -1.0 instead")


def test_nll_loss_2d_and_container_are_deprecated_as_torchs():
    x = make_rng(0).standard_normal((2, 3, 4, 5))
    t = make_rng(1).integers(0, 3, size=(2, 4, 5))
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead"):
        ours = nn.NLLLoss2d(reduction="sum")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.NLLLoss2d(reduction="sum")
    assert isinstance(ours, nn.NLLLoss) and repr(ours) == repr(theirs)
    assert_matches_torch(ours, theirs, [x, t])
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated. All of its functionality"):
        c = nn.Container(lin=nn.Linear(2, 3), act=nn.Tanh())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tc = torch.nn.Container(lin=torch.nn.Linear(2, 3), act=torch.nn.Tanh())
    assert repr(c) == repr(tc)
    assert list(c.state_dict()) == list(tc.state_dict()) == ["lin.weight", "lin.bias"]


# ------------------------------------------------------------------------------------ to_torch

def _modules_for_conversion():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return [
            (nn.CTCLoss(blank=1, reduction="sum", zero_infinity=True), None),
            (nn.AdaptiveLogSoftmaxWithLoss(8, 20, [5, 12], div_value=2.0, head_bias=True), None),
            (nn.Dropout1d(0.2), None), (nn.Dropout2d(0.3, inplace=True), None), (nn.AlphaDropout(0.1), None),
            (nn.FeatureAlphaDropout(0.4), None), (nn.Softmax2d(), (2, 3, 4, 5)),
            (nn.AdaptiveMaxPool1d(3, return_indices=True), (2, 3, 9)), (nn.AdaptiveMaxPool2d((None, 2)), (2, 3, 5, 6)),
            (nn.LPPool1d(2, 3, stride=2), (2, 3, 9)), (nn.LPPool2d(3.0, (2, 3), ceil_mode=True), (2, 3, 5, 7)),
            (nn.ConvTranspose1d(4, 6, 3, stride=2, output_padding=1, groups=2), (2, 4, 5)),
            (nn.ConvTranspose2d(4, 2, (3, 2), padding=1, bias=False, dilation=2), (2, 4, 5, 5)),
            (nn.MultiLabelMarginLoss(reduction="sum"), None), (nn.TripletMarginWithDistanceLoss(margin=0.5), None),
            (nn.NLLLoss2d(ignore_index=1), None), (nn.Container(lin=nn.Linear(3, 2)), None),
        ]


def test_every_new_module_converts_to_torch():
    converted = set()
    for m, shape in _modules_for_conversion():
        m = m.double()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            tm = seqlab.to_torch(m)
            back = seqlab.from_torch(tm)
        name = type(m).__name__
        assert type(tm) is getattr(torch.nn, name), name
        assert type(back) is type(m), name
        assert repr(tm) == repr(m) == repr(back), name
        for (k, v), (tk, tv) in zip(m.state_dict().items(), tm.state_dict().items()):
            assert k == tk and np.array_equal(v.numpy(), tv.numpy()), (name, k)
        if shape is not None:
            x = make_rng(0).standard_normal(shape)
            out, tout = m(sl(x)), tm(th(x))
            for o, t in zip(out if isinstance(out, tuple) else (out,), tout if isinstance(tout, tuple) else (tout,)):
                np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)
        converted.add(name)
    assert converted == set(CONVERTS)


# ------------------------------------------------------------------------------------ BatchNorm2d

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [dict(), dict(momentum=None, affine=False), dict(eps=1e-3, bias=False)], ids=str)
def test_batch_norm_2d_matches_torch(dtype, kwargs):
    torch.manual_seed(0)
    theirs = torch.nn.BatchNorm2d(3, **kwargs).to(TH_DTYPE[dtype])
    ours = nn.BatchNorm2d(3, **kwargs, dtype=SL_DTYPE[dtype])
    with torch.no_grad():
        for p in theirs.parameters():
            p.uniform_(0.5, 1.5)
    ours.load_state_dict(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    rng = make_rng(1)
    for step in range(3):  # training steps move the running statistics alike
        x = (rng.standard_normal((4, 3, 5, 2)) * 2 + 1).astype(dtype)
        assert_matches_torch(ours, theirs, [x], layout="T" if step == 1 else "contig")
    for (k, v), (tk, tv) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert k == tk
        np.testing.assert_allclose(v.numpy(), tv.numpy(), rtol=1e-5 if dtype == np.float32 else 1e-12)
    ours.eval(), theirs.eval()
    assert_matches_torch(ours, theirs, [x])
    assert_raises_like_torch(lambda: ours(sl(x[0])), lambda: theirs(th(x[0])), r"expected 4D input \(got 3D input\)")


def test_torch_level_dropout_functions():
    """torch.feature_dropout, alpha_dropout, feature_alpha_dropout(input, p, train): the C++ functionals."""
    x = sl(make_rng(0).standard_normal((4, 5, 6)))
    for name in ("feature_dropout", "alpha_dropout", "feature_alpha_dropout"):
        assert getattr(seqlab, name)(x, 0.5, False) is x
        seqlab.manual_seed(0)
        y = getattr(seqlab, name)(x, 0.5, True)
        assert y.shape == x.shape and not np.array_equal(y.numpy(), x.numpy())
        assert_raises_like_torch(lambda: getattr(seqlab, name)(x, 1.5, True),
                                 lambda: getattr(torch, name)(th(x.numpy()), 1.5, True),
                                 "dropout probability has to be between 0 and 1, but got 1.5")
