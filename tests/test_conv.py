"""Convolutions and pooling (cpp/src/ops/conv.cpp, pool.cpp; seqlab.nn.modules.conv and .pooling) against
torch 2.13: F.conv1d/conv2d (stride, padding ints/tuples/'valid'/'same' with torch's asymmetric 'same',
dilation, groups, bias=None, unbatched input), max/avg/adaptive pooling, F.pad's modes, forward and
gradients in float32 and float64 on contiguous and non-contiguous inputs, gradchecks in float64; the
errors; nn.Conv1d/Conv2d/LazyConv2d and the pooling modules (names, shapes, init, repr, state dicts
both ways); d2l's LeNet built from LazyConv2d equal to torch's after copying the state dict."""
import math

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_gradcheck, assert_matches_torch, assert_raises_like_torch, randn, sl_leaf,
    th_leaf, tol,
)

# torch warns that its 'same' padding of an even kernel copies the input; seqlab pads inside im2col
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same':UserWarning")

LAYOUTS = ["contig", "T", "slice"]

# (input shape, weight shape, bias, keyword arguments)
CONV1D = [
    ((2, 4, 10), (6, 4, 3), True, {}),
    ((2, 4, 10), (6, 4, 3), True, dict(stride=2, padding=1)),
    ((2, 4, 11), (6, 4, 3), False, dict(stride=(3,), padding=(2,), dilation=(2,))),
    ((2, 4, 10), (6, 4, 4), True, dict(padding="same")),             # even kernel: one more zero on the right
    ((2, 4, 10), (6, 4, 4), True, dict(padding="same", dilation=3)),  # dilated even kernel: 9 zeros, 4 + 5
    ((2, 4, 10), (6, 4, 5), True, dict(padding="valid")),
    ((3, 4, 9), (6, 2, 3), True, dict(groups=2, padding=1)),
    ((3, 4, 9), (8, 1, 3), True, dict(groups=4, dilation=2)),         # depthwise
    ((4, 10), (6, 4, 3), True, dict(padding=1)),                      # unbatched
    ((1, 3, 16), (5, 3, 2), True, dict(dilation=4, padding=4)),       # WaveNet-style causal (trimmed below)
    ((2, 3, 5), (4, 3, 5), True, {}),                                 # kernel = length: one output
    ((0, 3, 8), (4, 3, 3), True, {}),                                 # empty batch
]
CONV2D = [
    ((3, 1, 28, 28), (6, 1, 5, 5), True, dict(padding=2)),            # LeNet's first layer
    ((2, 3, 7, 8), (4, 3, 3, 3), True, dict(stride=(2, 1), padding=(1, 0))),
    ((2, 3, 9, 7), (4, 3, 3, 2), False, dict(dilation=(2, 1), padding=(2, 1))),
    ((2, 6, 5, 6), (6, 2, 3, 3), True, dict(groups=3, padding=1)),
    ((2, 3, 6, 7), (4, 3, 4, 3), True, dict(padding="same", dilation=(1, 2))),
    ((2, 2, 6, 7), (3, 2, 2, 2), True, dict(padding="same")),
    ((3, 6, 6), (5, 3, 3, 3), True, dict(padding=1, stride=2)),      # unbatched
    ((1, 2, 9, 9), (2, 2, 2, 2), True, dict(stride=3)),               # stride > kernel
    ((1, 16, 8, 8), (8, 16, 1, 1), True, {}),                         # 1x1
]


def conv_id(case):
    x, w, bias, kw = case
    return f"x{x}-w{w}" + ("" if bias else "-nobias") + "".join(f"-{k}={v}" for k, v in kw.items())


def conv_inputs(rng, case, dtype):
    x, w, bias, _ = case
    arrays = [randn(rng, x, dtype), randn(rng, w, dtype)]
    if bias:
        arrays.append(randn(rng, (w[0],), dtype))
    return arrays


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", CONV1D, ids=conv_id)
def test_conv1d_matches_torch(rng, case, dtype, layout):
    kw = case[3]
    assert_matches_torch(lambda *a: F.conv1d(*a, **kw), lambda *a: torch.nn.functional.conv1d(*a, **kw),
                         conv_inputs(rng, case, dtype), *tol(dtype, 10), layout=layout)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", CONV2D, ids=conv_id)
def test_conv2d_matches_torch(rng, case, dtype, layout):
    kw = case[3]
    assert_matches_torch(lambda *a: F.conv2d(*a, **kw), lambda *a: torch.nn.functional.conv2d(*a, **kw),
                         conv_inputs(rng, case, dtype), *tol(dtype, 10), layout=layout)


def test_conv_has_torchs_grad_fn_and_keeps_a_leaf_without_grad(rng):
    x = sl_leaf(randn(rng, (2, 3, 8), np.float32))
    w = sl_leaf(randn(rng, (4, 3, 3), np.float32), requires_grad=False)
    y = F.conv1d(x, w)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    y.sum().backward()
    assert w.grad is None and x.grad is not None
    with seqlab.no_grad():
        assert F.conv2d(x.unsqueeze(2), w.unsqueeze(2)).grad_fn is None


def test_causal_dilated_conv1d_sees_only_the_past(rng):
    # WaveNet / TCN: pad d*(k-1) on the left only (pad both sides, drop the last outputs); output t
    # must not depend on inputs after t.
    k, d = 2, 4
    x = sl_leaf(randn(rng, (1, 3, 16), np.float64))
    w = sl_leaf(randn(rng, (5, 3, k), np.float64))
    y = F.conv1d(x, w, padding=d * (k - 1), dilation=d)[..., :-d * (k - 1)]
    assert tuple(y.shape) == (1, 5, 16)
    y[..., 7].sum().backward()
    g = x.grad.numpy()
    assert np.all(g[..., 8:] == 0) and np.any(g[..., 7] != 0) and np.any(g[..., 3] != 0)


CONV_GRADCHECK = [
    (F.conv1d, (2, 4, 7), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    (F.conv1d, (3, 6), (4, 3, 2), dict(padding="same")),
    (F.conv2d, (2, 2, 5, 6), (4, 1, 3, 2), dict(stride=(1, 2), padding=(1, 1), dilation=(2, 1), groups=2)),
    (F.conv2d, (1, 2, 5, 5), (3, 2, 2, 3), dict(padding="same", dilation=2)),
]


@pytest.mark.parametrize("fn, x, w, kw", CONV_GRADCHECK, ids=[f"{c[0].__name__}-{c[3]}" for c in CONV_GRADCHECK])
def test_conv_gradcheck(rng, fn, x, w, kw):
    arrays = [randn(rng, x, np.float64), randn(rng, w, np.float64), randn(rng, (w[0],), np.float64)]
    assert_gradcheck(lambda a, b, c: fn(a, b, c, **kw), arrays)


# --- pooling

POOL1D = [  # (fn name, input shape, keyword arguments)
    ("max_pool1d", (2, 3, 10), dict(kernel_size=3)),
    ("max_pool1d", (2, 3, 10), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("max_pool1d", (3, 11), dict(kernel_size=2, stride=1, dilation=3, padding=1)),
    ("max_pool1d", (2, 3, 9), dict(kernel_size=4, stride=3, ceil_mode=True, return_indices=True)),
    ("avg_pool1d", (2, 3, 10), dict(kernel_size=3)),
    ("avg_pool1d", (2, 3, 10), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg_pool1d", (3, 11), dict(kernel_size=4, stride=3, padding=2, count_include_pad=False, ceil_mode=True)),
    ("adaptive_avg_pool1d", (2, 3, 10), dict(output_size=4)),
    ("adaptive_avg_pool1d", (3, 7), dict(output_size=7)),
]
POOL2D = [
    ("max_pool2d", (2, 3, 8, 8), dict(kernel_size=2)),
    ("max_pool2d", (2, 3, 9, 7), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), ceil_mode=True)),
    ("max_pool2d", (3, 9, 9), dict(kernel_size=3, stride=2, dilation=2, padding=1, return_indices=True)),
    ("max_pool2d", (1, 2, 7, 7), dict(kernel_size=3, stride=2, ceil_mode=True, return_indices=True)),
    ("avg_pool2d", (2, 3, 8, 8), dict(kernel_size=2, stride=2)),
    ("avg_pool2d", (2, 3, 9, 7), dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True)),
    ("avg_pool2d", (3, 7, 7), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ("avg_pool2d", (2, 3, 7, 7), dict(kernel_size=3, padding=1, ceil_mode=True, count_include_pad=False)),
    ("avg_pool2d", (2, 2, 6, 6), dict(kernel_size=3, stride=2, divisor_override=5)),
    ("adaptive_avg_pool2d", (2, 3, 10, 7), dict(output_size=(3, 4))),
    ("adaptive_avg_pool2d", (2, 3, 6, 6), dict(output_size=1)),
    ("adaptive_avg_pool2d", (3, 5, 8), dict(output_size=(None, 3))),
]


def pool_id(case):
    name, x, kw = case
    return f"{name}-{x}" + "".join(f"-{k}={v}" for k, v in kw.items())


def distinct(rng, shape, dtype):
    """Values without ties (a max pool's argmax is then unambiguous)."""
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) / n).astype(dtype).reshape(shape)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", POOL1D + POOL2D, ids=pool_id)
def test_pooling_matches_torch(rng, case, dtype, layout):
    name, shape, kw = case
    assert_matches_torch(lambda x: getattr(F, name)(x, **kw), lambda x: getattr(torch.nn.functional, name)(x, **kw),
                         [distinct(rng, shape, dtype)], layout=layout)


@pytest.mark.parametrize("case", [c for c in POOL1D + POOL2D if "return_indices" not in c[2]], ids=pool_id)
def test_pooling_gradcheck(rng, case):
    name, shape, kw = case
    assert_gradcheck(lambda x: getattr(F, name)(x, **kw), [distinct(rng, shape, np.float64)])


def test_max_pool_propagates_nan_as_torch():
    x = np.array([[[1.0, np.nan, 3.0, 0.5, -np.inf, -np.inf]]], dtype=np.float32)
    out, idx = F.max_pool1d(seqlab.from_numpy(x), 2, return_indices=True)
    t_out, t_idx = torch.nn.functional.max_pool1d(torch.from_numpy(x), 2, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), t_out.numpy())
    np.testing.assert_array_equal(idx.numpy(), t_idx.numpy())


# --- F.pad (the conv layers' padding modes)

PAD = [
    ((2, 3, 6), (2, 1), "constant", 1.5),
    ((2, 3, 6), (-1, 2), "constant", None),
    ((2, 3, 5, 6), (1, 2, 0, 3), "constant", None),
    ((2, 3, 6), (2, 3), "reflect", None),
    ((3, 5, 6), (1, 2, 3, 1), "reflect", None),
    ((2, 3, 6), (2, 3), "replicate", None),
    ((2, 3, 5, 6), (1, 2, 3, 1), "replicate", None),
    ((2, 3, 6), (2, 3), "circular", None),
    ((2, 3, 5, 6), (1, 2, 5, 1), "circular", None),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, pad, mode, value", PAD, ids=[f"{c[2]}-{c[0]}-{c[1]}" for c in PAD])
def test_pad_matches_torch(rng, shape, pad, mode, value, dtype):
    kw = dict(mode=mode) if value is None else dict(mode=mode, value=value)
    assert_matches_torch(lambda x: F.pad(x, pad, **kw), lambda x: torch.nn.functional.pad(x, pad, **kw),
                         [randn(rng, shape, dtype)], layout="T")


def test_pad_errors():
    x = seqlab.zeros(1, 2, 3)
    with pytest.raises(RuntimeError, match="pad.*divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(RuntimeError, match="pad.*padding size should be less than.*input"):
        F.pad(x, (3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="pad.*wrapping around more than once"):
        F.pad(x, (4, 0), mode="circular")
    with pytest.raises(NotImplementedError, match="pad.*mode"):
        F.pad(x, (1, 1), mode="wrap")


# --- errors name the op and the shapes

def both(fn_name, *shapes, **kw):
    """The same call for seqlab and torch on zero tensors of the given shapes."""
    return (lambda: getattr(F, fn_name)(*[seqlab.zeros(*s) for s in shapes], **kw),
            lambda: getattr(torch.nn.functional, fn_name)(*[torch.zeros(*s) for s in shapes], **kw))


ERRORS = [
    (both("conv2d", (2, 3, 8, 8), (6, 1, 5, 5)), ["conv2d", r"\[6, 1, 5, 5\]", r"\[2, 3, 8, 8\]", "1 channels",
                                                  "got 3 channels"]),
    (both("conv2d", (2, 1, 4, 4), (6, 1, 5, 5)), ["conv2d", r"padded input size per channel: \(4 x 4\)",
                                                  r"Kernel size: \(5 x 5\)"]),
    (both("conv1d", (2, 1, 4), (6, 1, 3), dilation=2), ["conv1d", r"\(4\)", r"Kernel size: \(5\)"]),
    (both("conv2d", (2, 4, 8, 8), (6, 2, 3, 3), groups=4), ["conv2d", "groups=4", "divisible by 4",
                                                            r"\[6, 2, 3, 3\]"]),
    (both("conv2d", (8, 8), (6, 1, 3, 3)), ["conv2d", r"3D \(unbatched\) or 4D \(batched\)", r"\[8, 8\]"]),
    (both("conv1d", (2, 3, 8), (6, 3, 3), (5,)), ["conv1d", "bias", "6 elements", r"\[5\]"]),
    (both("conv1d", (2, 3, 8), (6, 3, 3), stride=0), ["conv1d", "non-positive stride"]),
    (both("conv1d", (2, 3, 8), (6, 3, 3), padding=-1), ["conv1d", "negative padding"]),
    (both("conv1d", (2, 3, 8), (6, 3, 3), groups=0), ["conv1d", "non-positive groups"]),
    (both("conv2d", (2, 3, 8, 8), (6, 3, 3, 3), padding="same", stride=2), ["conv2d", "'same'", "strided"]),
    (both("conv2d", (2, 3, 8, 8), (6, 3, 3, 3), stride=(1, 2, 3)), ["conv2d", "stride", r"\[1, 2, 3\]"]),
    (both("max_pool2d", (2, 3, 8, 8), kernel_size=2, padding=2), ["max_pool2d", "pad should be at most half"]),
    (both("max_pool2d", (2, 3, 1, 1), kernel_size=2), ["max_pool2d", r"\[2, 3, 1, 1\]", "too small"]),
    (both("avg_pool2d", (2, 3, 8, 8), kernel_size=0), ["avg_pool2d", "kernel size should be greater than zero"]),
    (both("max_pool1d", (8,), kernel_size=2), ["max_pool1d", r"\[8\]"]),
    (both("avg_pool1d", (2, 3, 4), kernel_size=2, stride=0), ["avg_pool1d", "stride should be greater than zero"]),
]


@pytest.mark.parametrize("calls, fragments", ERRORS, ids=[f[0] + "-" + f[-1] for _, f in ERRORS])
def test_errors_name_the_op_and_shapes_as_torch(calls, fragments):
    assert_raises_like_torch(calls[0], calls[1], *fragments)


def test_conv_errors_on_dtypes():
    x, w = seqlab.zeros(1, 2, 5), seqlab.zeros(3, 2, 2)
    with pytest.raises(RuntimeError, match="conv1d.*dtype.*float64.*float32"):
        F.conv1d(x.double(), w)
    with pytest.raises((RuntimeError, NotImplementedError), match="conv1d.*Long"):
        F.conv1d(x.long(), w.long())
    with pytest.raises(RuntimeError, match="conv2d: invalid padding string 'full'"):
        F.conv2d(x.unsqueeze(0), w.unsqueeze(0), padding="full")


# --- modules

MODULES = [
    ("Conv1d", dict(in_channels=4, out_channels=6, kernel_size=3), (2, 4, 10)),
    ("Conv1d", dict(in_channels=4, out_channels=6, kernel_size=4, padding="same", dilation=2, bias=False), (4, 10)),
    ("Conv1d", dict(in_channels=4, out_channels=8, kernel_size=3, groups=4, stride=2, padding=1), (2, 4, 9)),
    ("Conv1d", dict(in_channels=2, out_channels=3, kernel_size=3, padding=2, padding_mode="reflect"), (2, 2, 7)),
    ("Conv1d", dict(in_channels=2, out_channels=3, kernel_size=4, padding="same", padding_mode="circular"),
     (2, 2, 7)),
    ("Conv2d", dict(in_channels=1, out_channels=6, kernel_size=5, padding=2), (2, 1, 28, 28)),
    ("Conv2d", dict(in_channels=16, out_channels=32, kernel_size=3, padding=1), (2, 16, 16, 16)),
    ("Conv2d", dict(in_channels=4, out_channels=6, kernel_size=(3, 2), stride=(2, 1), dilation=(1, 2), groups=2,
                    bias=False), (2, 4, 9, 9)),
    ("Conv2d", dict(in_channels=2, out_channels=3, kernel_size=3, padding=(1, 2), padding_mode="replicate"),
     (2, 2, 6, 5)),
    ("Conv2d", dict(in_channels=2, out_channels=3, kernel_size=3, padding=1, padding_mode="circular"), (2, 6, 5)),
    ("Conv2d", dict(in_channels=2, out_channels=3, kernel_size=3, padding="same", padding_mode="reflect"),
     (2, 2, 6, 5)),
    ("MaxPool1d", dict(kernel_size=3, stride=2, padding=1), (2, 3, 9)),
    ("MaxPool2d", dict(kernel_size=2), (2, 3, 8, 8)),
    ("MaxPool2d", dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True), (2, 3, 8, 8)),
    ("AvgPool1d", dict(kernel_size=3, stride=2, padding=1, count_include_pad=False), (2, 3, 9)),
    ("AvgPool2d", dict(kernel_size=2, stride=2), (2, 3, 8, 8)),
    ("AvgPool2d", dict(kernel_size=3, padding=1, ceil_mode=True, divisor_override=4), (2, 3, 8, 8)),
    ("AdaptiveAvgPool1d", dict(output_size=3), (2, 3, 8)),
    ("AdaptiveAvgPool2d", dict(output_size=(2, None)), (2, 3, 8, 5)),
]


def module_id(case):
    name, kw, _ = case
    return name + "(" + ", ".join(f"{k}={v}" for k, v in kw.items()) + ")"


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", MODULES, ids=module_id)
def test_modules_match_torch(rng, case, dtype):
    name, kw, shape = case
    ours, theirs = getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.named_parameters()] == \
           [(k, tuple(v.shape)) for k, v in theirs.named_parameters()]
    if dtype == np.float64:
        ours.double()
        theirs.double()
    ours.load_state_dict(theirs.state_dict())  # torch -> seqlab
    x = randn(rng, shape, dtype)
    assert_matches_torch(ours, theirs, [x], *tol(dtype, 10))
    for (k, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), *tol(dtype, 10)[::-1], err_msg=k)
    theirs.load_state_dict(nn.to_torch_state_dict(ours))  # and back


@pytest.mark.parametrize("name, kw", [("Conv1d", dict(in_channels=8, out_channels=50, kernel_size=5)),
                                      ("Conv2d", dict(in_channels=6, out_channels=40, kernel_size=3, groups=2))])
def test_conv_init_is_torchs(name, kw):
    # kaiming_uniform_(a=sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias the same bound
    m = getattr(nn, name)(**kw)
    fan_in = m.weight.shape[1] * math.prod(m.weight.shape[2:])
    bound = 1 / math.sqrt(fan_in)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound  # the variance of U(-a, a) is a^2 / 3


def test_conv_module_argument_errors_as_torch():
    for kw in (dict(groups=0), dict(groups=3), dict(padding="full"), dict(padding="same", stride=2),
               dict(padding_mode="mirror")):
        args = dict(in_channels=4, out_channels=6, kernel_size=3, **kw)
        with pytest.raises(ValueError) as theirs:
            torch.nn.Conv2d(**args)
        with pytest.raises(ValueError) as ours:
            nn.Conv2d(**args)
        # the same words up to the set of choices, which torch prints in hash order
        assert str(ours.value).split("{")[0] == str(theirs.value).split("{")[0]


def test_lazy_conv_materialises_in_place_as_torch(rng):
    ours, theirs = nn.LazyConv2d(6, kernel_size=5, stride=2), torch.nn.LazyConv2d(6, kernel_size=5, stride=2)
    assert repr(ours) == repr(theirs)
    assert isinstance(ours.weight, nn.UninitializedParameter) and repr(ours.weight) == "<UninitializedParameter>"
    weight = ours.weight
    opt = seqlab.optim.SGD(ours.parameters(), lr=0.1)  # built before the first call, as course code does
    x = randn(rng, (2, 3, 12, 12), np.float32)
    ours(sl_leaf(x, requires_grad=False))
    theirs(th_leaf(x, requires_grad=False))
    assert type(ours) is nn.Conv2d and ours.weight is weight and ours.in_channels == 3
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape) == (6, 3, 5, 5)
    ours.load_state_dict(theirs.state_dict())
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.1)
    for _ in range(2):
        for o, m, inp in ((opt, ours, sl_leaf(x, False)), (opt_t, theirs, th_leaf(x, False))):
            o.zero_grad()
            (m(inp) ** 2).mean().backward()
            o.step()
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), atol=1e-6)
    c1 = nn.LazyConv1d(4, 3)
    c1(seqlab.zeros(5, 7))  # unbatched: in_channels from dim 0
    assert type(c1) is nn.Conv1d and tuple(c1.weight.shape) == (4, 5, 3)
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input to LazyConv1d"):
        nn.LazyConv1d(4, 3)(seqlab.zeros(7))


def test_lazy_conv_loads_a_state_dict_before_its_first_call():
    theirs = torch.nn.Conv2d(3, 6, 5)
    ours = nn.LazyConv2d(6, 5)
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(2, 3, 9, 9)
    np.testing.assert_allclose(ours(seqlab.from_numpy(x.numpy())).detach().numpy(), theirs(x).detach().numpy(),
                               atol=1e-5)


def lenet(lib, pool):
    """d2l's LeNet (chapter 7.6) with LazyConv2d/LazyLinear; pool 'avg' (sigmoid) or 'max' (ReLU, the
    modern variant)."""
    act = lib.nn.Sigmoid if pool == "avg" else lib.nn.ReLU
    Pool = lib.nn.AvgPool2d if pool == "avg" else lib.nn.MaxPool2d
    return lib.nn.Sequential(
        lib.nn.LazyConv2d(6, kernel_size=5, padding=2), act(), Pool(kernel_size=2, stride=2),
        lib.nn.LazyConv2d(16, kernel_size=5), act(), Pool(kernel_size=2, stride=2),
        lib.nn.Flatten(),
        lib.nn.LazyLinear(120), act(), lib.nn.LazyLinear(84), act(), lib.nn.LazyLinear(10))


@pytest.mark.parametrize("pool", ["avg", "max"])
def test_d2l_lenet_with_lazy_conv2d_equals_torch(rng, pool):
    ours, theirs = lenet(seqlab, pool), lenet(torch, pool)
    dummy = np.zeros((1, 1, 28, 28), np.float32)
    ours(seqlab.from_numpy(dummy))
    theirs(torch.from_numpy(dummy))
    assert repr(ours) == repr(theirs)
    shapes = [(k, tuple(v.shape)) for k, v in ours.state_dict().items()]
    assert shapes == [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    ours.load_state_dict(theirs.state_dict())
    x, y = randn(rng, (16, 1, 28, 28), np.float32), rng.integers(0, 10, 16)
    loss_o = nn.functional.cross_entropy(ours(seqlab.from_numpy(x)), seqlab.from_numpy(y))
    loss_t = torch.nn.functional.cross_entropy(theirs(torch.from_numpy(x)), torch.from_numpy(y))
    np.testing.assert_allclose(loss_o.item(), loss_t.item(), rtol=1e-5)
    loss_o.backward()
    loss_t.backward()
    for (k, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-5, rtol=1e-4, err_msg=k)
    theirs.load_state_dict(nn.to_torch_state_dict(ours))


def test_huge_arguments_are_refused_not_overflowed():
    # beyond 2^31 - 1 the size arithmetic would overflow: a clear error instead
    x, w = seqlab.zeros(1, 2, 5), seqlab.zeros(3, 2, 2)
    for kw in (dict(padding=2**62), dict(dilation=2**62), dict(stride=2**62), dict(padding="same", dilation=2**62)):
        with pytest.raises(RuntimeError, match=r"conv1d: stride, padding, dilation, groups and kernel size must be at "
                                               r"most 2147483647.*weight of size \[3, 2, 2\]"):
            F.conv1d(x, w, **kw)
    with pytest.raises(RuntimeError, match="conv1d: .*groups=4611686018427387904"):
        F.conv1d(x, seqlab.zeros(0, 2, 2), groups=2**62)
    for kw in (dict(kernel_size=2, dilation=2**62), dict(kernel_size=2**62), dict(kernel_size=3, padding=2**40)):
        with pytest.raises(RuntimeError, match="max_pool1d: kernel_size, stride, padding and dilation must be at most"):
            F.max_pool1d(x, **kw)
    with pytest.raises(RuntimeError, match="adaptive_avg_pool1d: elements of output_size must be between 0 and"):
        F.adaptive_avg_pool1d(x, 2**40)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(3, 16, 20, 20, 32), (2, 64, 66, 66, 64)])  # (N, C, H, W, OC)
def test_conv2d_both_gemm_paths_equal_torch(threads, shape):
    # conv.cpp picks per-sample GEMMs or one batched GEMM by the product's size and the thread
    # count (kPerSampleFlops, kThreadedPerSampleFlops); the second shape is big enough to go per
    # sample on 2 threads too, so each path runs forward and backward at each thread count.
    N, C, H, W, OC = shape
    rng = np.random.default_rng(7)
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    w = (rng.standard_normal((OC, C, 3, 3)) * 0.1).astype(np.float32)
    b = rng.standard_normal(OC).astype(np.float32)
    before = seqlab.get_num_threads()
    seqlab.set_num_threads(threads)
    try:
        sx, sw, sb = (seqlab.tensor(a, requires_grad=True) for a in (x, w, b))
        sy = F.conv2d(sx, sw, sb, padding=1)
        sy.pow(2).sum().backward()
    finally:
        seqlab.set_num_threads(before)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = torch.nn.functional.conv2d(tx, tw, tb, padding=1)
    ty.pow(2).sum().backward()
    np.testing.assert_allclose(sy.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-4)
    for s, t in ((sx, tx), (sw, tw), (sb, tb)):
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-3, atol=1e-2)
