"""Issue 27, torch.nn's remaining surface against torch 2.13: ParameterList, ParameterDict and
nn.Buffer (container API, state dict names, reprs), Unflatten, the padding modules and F.pad's
edge rules, GroupNorm, InstanceNorm1d/2d, LocalResponseNorm, RReLU, EmbeddingBag and the rest of
nn.init. Layers are built in both libraries with torch's (randomised) state dict loaded into
seqlab's (check_layer, tests/test_nn_layers.py): outputs, every gradient and the buffers agree in
float32 and float64, in training and eval mode; seqlab's state dicts load back into torch."""
import collections
import math
import warnings

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_gradcheck, assert_matches_torch, assert_raises_like_torch, sl_leaf,
    sl_np, th_leaf, tol,
)
from test_nn_layers import check_layer, fixed, idx, r

TF = torch.nn.functional


def same_repr(ours, theirs):
    """seqlab's repr is torch's with seqlab's names for dtypes and tensor types."""
    assert repr(ours) == repr(theirs).replace("torch.", "seqlab.")


def round_trip(sl, th):
    """torch's state dict loads into seqlab's module and seqlab's back into torch's, names and values intact."""
    sl.load_state_dict(th.state_dict())
    back = {k: torch.from_numpy(sl_np(v)) for k, v in sl.state_dict().items()}
    assert list(back) == list(th.state_dict())
    th.load_state_dict(back)
    for k, v in th.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), back[k].numpy())


# ------------------------------------------------------------------ ParameterList, ParameterDict, Buffer

def both_lists():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(3)]
    sl = nn.ParameterList([nn.Parameter(seqlab.tensor(arrays[0])), seqlab.tensor(arrays[1])])
    th = torch.nn.ParameterList([torch.nn.Parameter(torch.tensor(arrays[0])), torch.tensor(arrays[1])])
    return sl, th


def test_parameter_list_api_matches_torch():
    sl, th = both_lists()
    same_repr(sl, th)
    assert len(sl) == len(th) == 2
    assert isinstance(sl[1], nn.Parameter) and sl[1].requires_grad  # a plain tensor became a Parameter
    assert [k for k, _ in sl.named_parameters()] == [k for k, _ in th.named_parameters()] == ["0", "1"]
    for lib, lst in ((seqlab, sl), (torch, th)):
        lst.append(lib.ones(4))
        lst.extend([lib.zeros(1, 2)])
        lst += [lib.ones(2, 2, dtype=lib.float64)]
        lst.append("a string")  # any object, kept as is
        lst[0] = lib.zeros(2, 3)
    same_repr(sl, th)
    assert list(sl.state_dict()) == list(th.state_dict()) == ["0", "1", "2", "3", "4"]
    assert sl[-2].dtype == seqlab.float64 and sl[-1] == "a string"
    assert len(sl[1:3]) == 2 and isinstance(sl[1:3], nn.ParameterList)
    assert all(a is b for a, b in zip(list(sl)[1:3], sl[1:3]))
    round_trip(sl, th)


def test_parameter_list_trains_and_refuses_like_torch():
    sl, th = both_lists()
    (sl[0].sum() * 2 + sl[1].sum()).backward()
    np.testing.assert_array_equal(sl_np(sl[0].grad), np.full((2, 3), 2.0, np.float32))
    assert_raises_like_torch(lambda: sl[5], lambda: th[5], "index 5 is out of range")
    assert_raises_like_torch(lambda: sl.extend(3), lambda: th.extend(3), "should be called with an iterable")
    assert_raises_like_torch(lambda: sl(1), lambda: th(1), "ParameterList should not be called")
    assert repr(nn.ParameterList()) == repr(torch.nn.ParameterList()) == "ParameterList()"


def both_dicts(kind=dict):
    rng = np.random.default_rng(1)
    arrays = {"w": rng.standard_normal((2, 3)).astype(np.float32), "b": rng.standard_normal(3).astype(np.float32)}
    sl = nn.ParameterDict(kind((k, seqlab.tensor(v)) for k, v in arrays.items()))
    th = torch.nn.ParameterDict(kind((k, torch.tensor(v)) for k, v in arrays.items()))
    return sl, th


@pytest.mark.parametrize("kind", [dict, collections.OrderedDict, list], ids=["dict", "OrderedDict", "pairs"])
def test_parameter_dict_api_matches_torch(kind):
    sl, th = both_dicts(kind)
    same_repr(sl, th)
    assert list(sl.keys()) == list(th.keys())  # a plain dict sorted, as torch's
    assert [k for k, _ in sl.named_parameters()] == [k for k, _ in th.named_parameters()]
    for lib, d in ((seqlab, sl), (torch, th)):
        d["c"] = lib.ones(4)
        d.update({"z": lib.zeros(1), "a": lib.zeros(2)})
        d.update([("y", lib.ones(3))])
        d.setdefault("x", lib.zeros(5))
        assert d.pop("w").shape == (2, 3)
        del d["b"]
    assert list(sl.keys()) == list(th.keys())
    assert [(k, tuple(v.shape)) for k, v in sl.items()] == [(k, tuple(v.shape)) for k, v in th.items()]
    assert "c" in sl and "w" not in sl and sl.get("w") is None and len(sl) == len(th)
    assert list(reversed(sl)) == list(reversed(th))
    same_repr(sl, th)
    round_trip(sl, th)
    merged = sl | nn.ParameterDict({"q": seqlab.ones(1)})
    assert list(merged.keys()) == list(sl.keys()) + ["q"] and "q" not in sl
    assert sl.popitem()[0] == th.popitem()[0]
    sl.clear()
    assert len(sl) == 0 and list(sl.parameters()) == []


def test_parameter_dict_refuses_like_torch():
    sl, th = both_dicts()
    assert_raises_like_torch(lambda: sl[1], lambda: th[1], "cannot be used as a key as it is not a string",
                             "type is 'int'")
    assert_raises_like_torch(lambda: sl.update(3), lambda: th.update(3), "should be called with an iterable")
    assert_raises_like_torch(lambda: sl.update([("a", seqlab.ones(1), 3)]),
                             lambda: th.update([("a", torch.ones(1), 3)]), "element #0 has length 3; 2 is required")
    assert_raises_like_torch(lambda: sl.update([3]), lambda: th.update([3]), "element #0 should be Iterable")
    assert_raises_like_torch(lambda: sl(1), lambda: th(1), "ParameterDict should not be called")
    assert_raises_like_torch(lambda: sl["nope"], lambda: th["nope"], "nope")


def test_buffer_registers_itself_as_in_torch():
    for lib, tnn in ((seqlab, nn), (torch, torch.nn)):
        m = tnn.Module()
        m.kept = tnn.Buffer(lib.ones(2))
        m.scratch = tnn.Buffer(lib.zeros(3), persistent=False)
        m.plain = lib.zeros(1)  # a plain tensor is an attribute, not a buffer
        assert [k for k, _ in m.named_buffers()] == ["kept", "scratch"]
        assert list(m.state_dict()) == ["kept"]
        assert isinstance(m.kept, tnn.Buffer) and not isinstance(m.plain, tnn.Buffer)
        assert not isinstance(m.kept, tnn.Parameter)
        m.kept = lib.full((2,), 3.0)  # a tensor assigned to a buffer's name replaces it
        assert m.state_dict()["kept"].tolist() == [3.0, 3.0]
        b = tnn.Buffer(lib.ones(2, requires_grad=True))
        assert b.requires_grad and b.persistent and b.is_leaf
        with pytest.raises(KeyError, match="attribute 'plain' already exists"):
            m.plain = tnn.Buffer(lib.ones(1))
    assert repr(nn.Buffer()) == "tensor([])" and tuple(nn.Buffer().shape) == (0,)


# ------------------------------------------------------------------ Unflatten

@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("dim, size, shape", [(1, (2, 3), (4, 6)), (-1, [2, -1], (2, 3, 4)), (0, (1, 0), (0, 5))])
def test_unflatten_matches_torch(dtype, dim, size, shape):
    rng = np.random.default_rng(2)
    check_layer(lambda tnn: tnn.Unflatten(dim, size), [r(shape)(rng, dtype)], dtype, rng)
    same_repr(nn.Unflatten(dim, size), torch.nn.Unflatten(dim, size))


def test_unflatten_errors_match_torch():
    assert_raises_like_torch(lambda: nn.Unflatten(1, (2, 3.0)), lambda: torch.nn.Unflatten(1, (2, 3.0)),
                             "unflattened_size must be tuple of ints, but found element of type float at pos 1")
    assert_raises_like_torch(lambda: nn.Unflatten(1, 6), lambda: torch.nn.Unflatten(1, 6),
                             "unflattened_size must be a tuple of ints, but found type int")
    with pytest.raises(NotImplementedError, match="named tensors"):
        nn.Unflatten("features", (("a", 2), ("b", 3)))  # torch's named-tensor form
    assert_raises_like_torch(lambda: nn.Unflatten(1, (4, 2))(seqlab.zeros(2, 6)),
                             lambda: torch.nn.Unflatten(1, (4, 2))(torch.zeros(2, 6)), "unflatten")


# ------------------------------------------------------------------ padding modules and F.pad

PADS = [
    ("ZeroPad1d", (2,), (2, 3, 5)), ("ZeroPad1d", ((1, -2),), (3, 5)), ("ZeroPad2d", ((1, 0, 2, 1),), (1, 2, 3, 4)),
    ("ZeroPad2d", (1,), (3, 4)),
    ("ConstantPad1d", ((2, 1), 3.5), (2, 3, 5)), ("ConstantPad2d", (2, -1.5), (2, 3, 4)),
    ("ReflectionPad1d", (2,), (2, 3, 5)), ("ReflectionPad1d", ((3, -1),), (3, 5)),
    ("ReflectionPad2d", ((1, 2, 2, 0),), (1, 2, 3, 4)), ("ReflectionPad2d", (1,), (2, 3, 4)),
    ("ReplicationPad1d", ((4, 1),), (2, 3, 5)), ("ReplicationPad2d", ((0, 3, 1, 2),), (2, 2, 3, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 4)),
    ("CircularPad1d", (2,), (2, 3, 5)), ("CircularPad1d", ((-1, 3),), (3, 5)),
    ("CircularPad2d", ((1, 2, 3, 0),), (1, 2, 3, 4)), ("CircularPad2d", ((-1, 1, 1, -2),), (2, 3, 4)),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name, args, shape", PADS, ids=[f"{n}{a}" for n, a, _ in PADS])
def test_padding_modules_match_torch(name, args, shape, dtype):
    rng = np.random.default_rng(3)
    check_layer(lambda tnn: getattr(tnn, name)(*args), [r(shape)(rng, dtype)], dtype, rng)
    same_repr(getattr(nn, name)(*args), getattr(torch.nn, name)(*args))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("layout", ["T", "slice"])
def test_pad_of_strided_input_matches_torch(mode, layout):
    rng = np.random.default_rng(4)
    assert_matches_torch(lambda x: F.pad(x, (1, 2, 2, -1), mode), lambda x: TF.pad(x, (1, 2, 2, -1), mode),
                         [rng.standard_normal((2, 3, 4))], layout=layout)


def test_pad_gradcheck():
    rng = np.random.default_rng(5)
    for mode in ("constant", "reflect", "replicate", "circular"):
        assert_gradcheck(lambda x: F.pad(x, (2, -1, 1, 1), mode), [rng.standard_normal((1, 2, 3, 4))])


def test_circular_pad_crops_before_it_wraps():
    x = [[1.0, 2.0, 3.0]]
    assert F.pad(seqlab.tensor(x), (-1, 1), "circular").tolist() == TF.pad(torch.tensor(x), (-1, 1), "circular").tolist() \
        == [[2.0, 3.0, 2.0]]
    assert F.pad(seqlab.tensor([[1.0, 2, 3, 4]]), (3, -1), "circular").tolist() == [[1.0, 2, 3, 1, 2, 3]]


@pytest.mark.parametrize("mode, pad, shape, fragment", [
    ("constant", (-4, 1), (1, 3), "narrow.*length must be non-negative"),  # the crop is longer than the dim
    ("constant", (1, -4), (2, 3), "narrow.*length must be non-negative"),
    ("circular", (4, 0), (1, 2, 3), "wrapping around more than once"),
    ("circular", (-2, -2), (1, 2, 3), "Negative padding value is resulting in an empty dimension"),
    ("reflect", (0, -3), (1, 2, 3), "too small"),
    ("replicate", (-2, -2, -1, -1), (1, 2, 3), "too small"),
    ("reflect", (3, 0), (1, 2, 3), "padding size should be less than"),
    ("reflect", (1, 1), (1, 0, 3), "non-zero dimensions"),
    ("replicate", (1, 1, 1, 1), (1, 0, 2, 3), "non-zero dimensions"),
])
def test_pad_refuses_as_torch(mode, pad, shape, fragment):
    assert_raises_like_torch(lambda: F.pad(seqlab.zeros(*shape), pad, mode), lambda: TF.pad(torch.zeros(*shape), pad, mode),
                             fragment)


def test_circular_pad_module_checks_dims_as_torch():
    assert_raises_like_torch(lambda: nn.CircularPad2d(1)(seqlab.zeros(2, 3)), lambda: torch.nn.CircularPad2d(1)(torch.zeros(2, 3)),
                             "expected 3D or 4D input")


# ------------------------------------------------------------------ GroupNorm, InstanceNorm, LocalResponseNorm

NORMS = {
    "GroupNorm": (lambda tnn: tnn.GroupNorm(2, 4), [r((3, 4, 5))]),
    "GroupNorm-4d": (lambda tnn: tnn.GroupNorm(3, 6, eps=1e-3), [r((2, 6, 3, 2))]),
    "GroupNorm-2d-one-group": (lambda tnn: tnn.GroupNorm(1, 5), [r((4, 5))]),
    "GroupNorm-per-channel": (lambda tnn: tnn.GroupNorm(4, 4), [r((2, 4, 7))]),
    "GroupNorm-noaffine": (lambda tnn: tnn.GroupNorm(2, 4, affine=False), [r((3, 4, 5))]),
    "GroupNorm-nobias": (lambda tnn: tnn.GroupNorm(2, 4, bias=False), [r((3, 4, 5))]),
    "GroupNorm-empty-batch": (lambda tnn: tnn.GroupNorm(2, 4), [r((0, 4, 5))]),
    "InstanceNorm1d": (lambda tnn: tnn.InstanceNorm1d(3), [r((2, 3, 5))]),
    "InstanceNorm1d-unbatched": (lambda tnn: tnn.InstanceNorm1d(3, affine=True), [r((3, 5))]),
    "InstanceNorm1d-tracked": (lambda tnn: tnn.InstanceNorm1d(3, affine=True, track_running_stats=True),
                               [r((4, 3, 5))]),
    "InstanceNorm1d-momentum-None": (lambda tnn: tnn.InstanceNorm1d(3, momentum=None, track_running_stats=True),
                                     [r((4, 3, 5))]),
    "InstanceNorm2d": (lambda tnn: tnn.InstanceNorm2d(2, eps=1e-3, affine=True, bias=False), [r((2, 2, 3, 4))]),
    "InstanceNorm2d-tracked": (lambda tnn: tnn.InstanceNorm2d(2, momentum=0.3, affine=True, track_running_stats=True),
                               [r((3, 2, 3, 4))]),
    "InstanceNorm2d-unbatched": (lambda tnn: tnn.InstanceNorm2d(2, track_running_stats=True), [r((2, 3, 4))]),
    "LocalResponseNorm": (lambda tnn: tnn.LocalResponseNorm(3), [r((2, 5, 4))]),
    "LocalResponseNorm-4d": (lambda tnn: tnn.LocalResponseNorm(2, alpha=0.5, beta=0.5, k=2.0), [r((2, 4, 3, 2))]),
    "LocalResponseNorm-5d": (lambda tnn: tnn.LocalResponseNorm(4, alpha=0.1), [r((1, 6, 2, 2, 3))]),
}


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(NORMS))
def test_norm_layers_match_torch(name, dtype, train):
    make, makers = NORMS[name]
    rng = np.random.default_rng(6)
    sl, th = check_layer(make, [m(rng, dtype) for m in makers], dtype, rng, train=train, steps=2)
    same_repr(sl, th)
    round_trip(sl, th)


@pytest.mark.parametrize("layout", ["T", "slice"])
def test_group_norm_of_strided_input_matches_torch(layout):
    rng = np.random.default_rng(7)
    for dtype in FLOAT_DTYPES:
        x, w, b = rng.standard_normal((3, 6, 4)).astype(dtype), rng.standard_normal(6).astype(dtype), \
            rng.standard_normal(6).astype(dtype)
        assert_matches_torch(lambda x, w, b: F.group_norm(x, 3, w, b), lambda x, w, b: TF.group_norm(x, 3, w, b),
                             [x, w, b], layout=layout)
        assert_matches_torch(lambda x: F.instance_norm(x), lambda x: TF.instance_norm(x), [x], layout=layout)


def test_group_and_instance_norm_gradcheck():
    rng = np.random.default_rng(8)
    x, w, b = rng.standard_normal((2, 4, 3)), rng.standard_normal(4), rng.standard_normal(4)
    assert_gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), [x, w, b])
    assert_gradcheck(lambda x, w: F.group_norm(x, 4, w), [x, w])
    assert_gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [x, w, b])
    assert_gradcheck(lambda x: F.local_response_norm(x, 3, alpha=0.3, beta=0.6), [x])


def test_instance_norm_functional_running_stats_match_torch():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 2, 5))
    rm, rv = rng.standard_normal(2), rng.uniform(0.5, 1.5, 2)
    ours = [seqlab.tensor(rm), seqlab.tensor(rv)]
    theirs = [torch.tensor(rm), torch.tensor(rv)]
    out = F.instance_norm(seqlab.tensor(x), *ours, momentum=0.2)
    ref = TF.instance_norm(torch.tensor(x), *theirs, momentum=0.2)
    assert_close(sl_np(out), ref.numpy(), 1e-12, 1e-12)
    for a, b in zip(ours, theirs):
        assert_close(sl_np(a), b.numpy(), 1e-12, 1e-12)
    out = F.instance_norm(seqlab.tensor(x), *ours, use_input_stats=False)
    ref = TF.instance_norm(torch.tensor(x), *theirs, use_input_stats=False)
    assert_close(sl_np(out), ref.numpy(), 1e-12, 1e-12)


def test_norm_errors_match_torch():
    assert_raises_like_torch(lambda: nn.GroupNorm(3, 4), lambda: torch.nn.GroupNorm(3, 4),
                             r"num_channels \(4\) must be divisible by num_groups \(3\)")
    assert_raises_like_torch(lambda: F.group_norm(seqlab.zeros(2, 5, 3), 2), lambda: TF.group_norm(torch.zeros(2, 5, 3), 2),
                             "Expected number of channels in input to be divisible by num_groups", r"\[2, 5, 3\]")
    assert_raises_like_torch(lambda: F.group_norm(seqlab.zeros(5), 1), lambda: TF.group_norm(torch.zeros(5), 1),
                             "Expected at least 2 dimensions for input tensor but received 1")
    assert_raises_like_torch(lambda: F.group_norm(seqlab.zeros(2, 4, 3), 2, seqlab.ones(3)),
                             lambda: TF.group_norm(torch.zeros(2, 4, 3), 2, torch.ones(3)),
                             "Expected weight to be a vector of size equal to the number of channels", r"\[3\]")
    assert_raises_like_torch(lambda: F.group_norm(seqlab.zeros(2, 4, 3), 2, None, seqlab.ones(5)),
                             lambda: TF.group_norm(torch.zeros(2, 4, 3), 2, None, torch.ones(5)),
                             "Expected bias to be a vector of size equal to the number of channels")
    assert_raises_like_torch(lambda: F.group_norm(seqlab.zeros(2, 4, dtype=seqlab.int64), 2),
                             lambda: TF.group_norm(torch.zeros(2, 4, dtype=torch.int64), 2), "not implemented for")
    assert_raises_like_torch(lambda: nn.InstanceNorm1d(3)(seqlab.zeros(2, 3, 4, 5)),
                             lambda: torch.nn.InstanceNorm1d(3)(torch.zeros(2, 3, 4, 5)),
                             r"expected 2D or 3D input \(got 4D input\)")
    assert_raises_like_torch(lambda: nn.InstanceNorm2d(3)(seqlab.zeros(2, 3)),
                             lambda: torch.nn.InstanceNorm2d(3)(torch.zeros(2, 3)), r"expected 3D or 4D input")
    assert_raises_like_torch(lambda: nn.InstanceNorm1d(3, affine=True)(seqlab.zeros(2, 4, 5)),
                             lambda: torch.nn.InstanceNorm1d(3, affine=True)(torch.zeros(2, 4, 5)),
                             r"expected input's size at dim=1 to match num_features \(3\), but got: 4.")
    assert_raises_like_torch(lambda: F.instance_norm(seqlab.zeros(2, 3, 1)), lambda: TF.instance_norm(torch.zeros(2, 3, 1)),
                             "Expected more than 1 spatial element when training", r"\[2, 3, 1\]")
    assert_raises_like_torch(lambda: F.local_response_norm(seqlab.zeros(2, 3), 2),
                             lambda: TF.local_response_norm(torch.zeros(2, 3), 2),
                             r"Expected 3D or higher dimensionality input \(got 2 dimensions\)")


def test_instance_norm_warns_as_torch_when_channels_differ_without_affine():
    for tnn, lib in ((nn, seqlab), (torch.nn, torch)):
        with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
            tnn.InstanceNorm1d(3)(lib.zeros(2, 4, 5) + lib.arange(5.0))


# ------------------------------------------------------------------ RReLU

@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("args", [(), (0.1, 0.3), (0.2, 0.2)])
def test_rrelu_eval_is_torchs_fixed_slope(args, dtype):
    rng = np.random.default_rng(10)
    check_layer(lambda tnn: tnn.RReLU(*args), [r((4, 6))(rng, dtype)], dtype, rng, train=False)
    assert_matches_torch(lambda x: F.rrelu(x, *args), lambda x: TF.rrelu(x, *args), [r((3, 4))(rng, dtype)],
                         layout="T")
    same_repr(nn.RReLU(*args), torch.nn.RReLU(*args))
    same_repr(nn.RReLU(*args, inplace=True), torch.nn.RReLU(*args, inplace=True))


@pytest.mark.parametrize("dtype", [seqlab.float32, seqlab.float64], ids=DTYPE_IDS)
def test_rrelu_training_draws_a_slope_per_element_and_its_gradient_is_that_slope(dtype):
    seqlab.manual_seed(0)
    lower, upper = 0.1, 0.4
    x = seqlab.randn(20000, dtype=dtype).requires_grad_()
    y = F.rrelu(x, lower, upper, training=True)
    y.sum().backward()
    xs, ys, g = sl_np(x), sl_np(y), sl_np(x.grad)
    pos, neg = xs > 0, xs < 0
    np.testing.assert_array_equal(ys[pos], xs[pos])
    np.testing.assert_array_equal(g[pos], 1.0)
    slopes = ys[neg] / xs[neg]
    atol = 1e-6 if dtype == seqlab.float32 else 1e-14
    np.testing.assert_allclose(g[neg], slopes, rtol=atol)  # dy/dx is the slope used
    assert slopes.min() >= lower - atol and slopes.max() <= upper + atol
    n = slopes.size  # U(lower, upper): mean (l + u) / 2, variance (u - l)² / 12
    assert abs(slopes.mean() - (lower + upper) / 2) < 4 * (upper - lower) / math.sqrt(12 * n)
    assert abs(slopes.var() - (upper - lower) ** 2 / 12) < 0.05 * (upper - lower) ** 2 / 12
    assert len(np.unique(slopes)) > 0.99 * n  # one draw per element
    # the module: training draws, eval is torch's; in place writes the input
    m = nn.RReLU(lower, upper, inplace=True)
    z = seqlab.randn(1000, dtype=dtype)
    out = m(z)
    assert out is z or seqlab.equal(out, z)
    m.eval()
    w = seqlab.tensor([-2.0, 3.0], dtype=dtype)
    assert m(w).tolist() == pytest.approx([-2.0 * (lower + upper) / 2, 3.0])


def test_rrelu_errors_match_torch():
    assert_raises_like_torch(lambda: nn.RReLU(0.5, 0.1)(seqlab.zeros(3)), lambda: torch.nn.RReLU(0.5, 0.1)(torch.zeros(3)),
                             "Lower bound should be less than or equal to the upper bound")
    assert_raises_like_torch(lambda: F.rrelu(seqlab.zeros(3, dtype=seqlab.int64), training=True),
                             lambda: TF.rrelu(torch.zeros(3, dtype=torch.int64), training=True), "not implemented for")


# ------------------------------------------------------------------ EmbeddingBag

def bag_case(rng, dtype, mode, two_d, psw=False, include_last_offset=False, padding_idx=None):
    if two_d:
        inp, offsets = rng.integers(0, 10, (4, 3)), None
    else:
        inp = rng.integers(0, 10, 9)
        offsets = np.array([0, 2, 2, 5, 9] if include_last_offset else [0, 2, 2, 5])  # an empty bag
    if padding_idx is not None:
        inp.flat[::3] = padding_idx
    weights = rng.standard_normal(inp.shape).astype(dtype) if psw else None
    return inp, offsets, weights


BAGS = [dict(mode=m, two_d=t) for m in ("sum", "mean", "max") for t in (True, False)] + [
    dict(mode="sum", two_d=True, psw=True), dict(mode="sum", two_d=False, psw=True),
    dict(mode="mean", two_d=False, include_last_offset=True), dict(mode="max", two_d=False, include_last_offset=True),
    dict(mode="mean", two_d=False, padding_idx=3), dict(mode="sum", two_d=True, padding_idx=0, psw=True),
    dict(mode="max", two_d=True, padding_idx=1),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", BAGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_embedding_bag_matches_torch(case, dtype):
    rng = np.random.default_rng(11)
    inp, offsets, psw = bag_case(rng, dtype, **case)
    kwargs = dict(mode=case["mode"], include_last_offset=case.get("include_last_offset", False),
                  padding_idx=case.get("padding_idx"))
    atol, rtol = tol(dtype)
    th = torch.nn.EmbeddingBag(10, 4, **kwargs)
    sl = nn.EmbeddingBag(10, 4, **kwargs)
    if dtype == np.float64:
        th.double()
        sl.double()
    sl.load_state_dict(th.state_dict())
    same_repr(sl, th)
    args_th = [torch.from_numpy(inp), None if offsets is None else torch.from_numpy(offsets)]
    args_sl = [seqlab.from_numpy(inp), None if offsets is None else seqlab.from_numpy(offsets)]
    psw_th = None if psw is None else th_leaf(psw)
    psw_sl = None if psw is None else sl_leaf(psw)
    out_th, out_sl = th(*args_th, per_sample_weights=psw_th), sl(*args_sl, per_sample_weights=psw_sl)
    assert_close(sl_np(out_sl), out_th.detach().numpy(), atol, rtol, "forward")
    g = rng.standard_normal(tuple(out_th.shape)).astype(dtype)
    out_th.backward(torch.from_numpy(g))
    out_sl.backward(seqlab.from_numpy(g))
    assert_close(sl_np(sl.weight.grad), th.weight.grad.numpy(), atol, rtol, "weight grad")
    if psw is not None:
        assert_close(sl_np(psw_sl.grad), psw_th.grad.numpy(), atol, rtol, "per_sample_weights grad")
    round_trip(sl, th)


def test_embedding_bag_init_max_norm_and_from_pretrained():
    seqlab.manual_seed(0)
    bag = nn.EmbeddingBag(10, 3, padding_idx=2)
    assert sl_np(bag.weight)[2].tolist() == [0.0, 0.0, 0.0] and abs(sl_np(bag.weight).std() - 1) < 0.5
    rng = np.random.default_rng(12)
    wt = rng.standard_normal((6, 4)) * 3
    th = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(wt), max_norm=1.5, mode="sum")
    sl = nn.EmbeddingBag.from_pretrained(seqlab.tensor(wt), max_norm=1.5, mode="sum")
    same_repr(sl, th)
    inp = np.array([[0, 1], [1, 4]])
    assert_close(sl_np(sl(seqlab.from_numpy(inp))), th(torch.from_numpy(inp)).numpy(), 1e-12, 1e-12)
    assert_close(sl_np(sl.weight), th.weight.numpy(), 1e-12, 1e-12)  # the rows used, renormalised in place
    assert not sl.weight.requires_grad


def test_embedding_bag_errors_match_torch():
    sl, th = nn.EmbeddingBag(10, 3), torch.nn.EmbeddingBag(10, 3)
    cases = [
        ((np.array([[1, 2]]), np.array([0])), "if input is 2D, then offsets has to be None"),
        ((np.array([1, 2]), None), "offsets has to be a 1D Tensor but got None"),
        ((np.array([1, 2]), np.array([[0]])), "offsets has to be a 1D Tensor"),
        ((np.zeros((1, 1, 1), np.int64), None), "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"),
        ((np.array([1, 2]), np.array([1])), "offsets.0. has to be 0"),
        ((np.array([1, 2]), np.array([0, 3])), "offsets.-1. can not be greater than input's length 2"),
        ((np.array([1, 12]), np.array([0])), r"Index 1 of input takes value 12 which is not in the valid range \[0, 10\)"),
    ]
    for (inp, offsets), fragment in cases:
        assert_raises_like_torch(
            lambda: sl(seqlab.from_numpy(inp), None if offsets is None else seqlab.from_numpy(offsets)),
            lambda: th(torch.from_numpy(inp), None if offsets is None else torch.from_numpy(offsets)), fragment)
    x = np.array([[1, 2]])
    assert_raises_like_torch(lambda: sl(seqlab.from_numpy(x), per_sample_weights=seqlab.ones(2, 1)),
                             lambda: th(torch.from_numpy(x), per_sample_weights=torch.ones(2, 1)),
                             "If per_sample_weights .* is not None, then it must have the same shape as the input")
    assert_raises_like_torch(lambda: sl(seqlab.from_numpy(x), per_sample_weights=seqlab.ones(1, 2)),
                             lambda: th(torch.from_numpy(x), per_sample_weights=torch.ones(1, 2)),
                             "per_sample_weights is only supported for mode='sum' \\(got mode='mean'\\)")
    assert_raises_like_torch(lambda: F.embedding_bag(seqlab.from_numpy(x), seqlab.ones(3, 2), mode="min"),
                             lambda: TF.embedding_bag(torch.from_numpy(x), torch.ones(3, 2), mode="min"),
                             "mode has to be one of sum, mean or max")
    assert_raises_like_torch(lambda: F.embedding_bag(seqlab.from_numpy(x), seqlab.ones(3)),
                             lambda: TF.embedding_bag(torch.from_numpy(x), torch.ones(3)),
                             "weight has to be a 2D Tensor, but got Tensor of dimension 1")
    assert_raises_like_torch(lambda: nn.EmbeddingBag(3, 2, padding_idx=3), lambda: torch.nn.EmbeddingBag(3, 2, padding_idx=3),
                             "padding_idx must be within num_embeddings")


# ------------------------------------------------------------------ nn.init

def test_eye_and_dirac_equal_torchs():
    for shape in [(3, 5), (4, 2)]:
        assert sl_np(nn.init.eye_(seqlab.empty(*shape))).tolist() == torch.nn.init.eye_(torch.empty(*shape)).tolist()
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 2), 2), ((4, 2, 1, 3, 3), 2), ((2, 5, 3), 1)]:
        ours = nn.init.dirac_(seqlab.empty(*shape), groups)
        assert sl_np(ours).tolist() == torch.nn.init.dirac_(torch.empty(*shape), groups).tolist()
    w = seqlab.empty(2, 2, requires_grad=True)
    assert nn.init.eye_(w) is w and w.requires_grad and w.grad_fn is None  # in place, no history


def test_init_errors_match_torch():
    cases = [
        ("eye_", (seqlab.empty(3), torch.empty(3)), (), "Only tensors with 2 dimensions are supported"),
        ("dirac_", (seqlab.empty(3, 3), torch.empty(3, 3)), (), "Only tensors with 3, 4, or 5 dimensions"),
        ("dirac_", (seqlab.empty(3, 3, 3), torch.empty(3, 3, 3)), (2,), "dim 0 must be divisible by groups"),
        ("sparse_", (seqlab.empty(3), torch.empty(3)), (0.5,), "Only tensors with 2 dimensions are supported"),
    ]
    for name, (a, b), args, fragment in cases:
        assert_raises_like_torch(lambda: getattr(nn.init, name)(a, *args), lambda: getattr(torch.nn.init, name)(b, *args),
                                 fragment)


def test_sparse_zeros_each_column_as_torch():
    seqlab.manual_seed(0)
    for rows, cols, sparsity in [(10, 4, 0.3), (7, 3, 0.5), (5, 2, 0.0)]:
        ours = sl_np(nn.init.sparse_(seqlab.empty(rows, cols), sparsity, std=0.5))
        theirs = torch.nn.init.sparse_(torch.empty(rows, cols), sparsity, std=0.5).numpy()
        assert ((ours == 0).sum(0) == (theirs == 0).sum(0)).all()
        nonzero = ours[ours != 0]
        assert nonzero.size == 0 or np.abs(nonzero).max() < 0.5 * 6


def test_trunc_normal_is_the_truncated_distribution():
    seqlab.manual_seed(0)
    mean, std, a, b = 0.5, 2.0, -1.0, 3.0
    x = sl_np(nn.init.trunc_normal_(seqlab.empty(200000, dtype=seqlab.float64), mean, std, a, b))
    assert x.min() >= a and x.max() <= b
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda t: (1 + math.erf(t / math.sqrt(2))) / 2  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    expected_mean = mean + std * (pdf(alpha) - pdf(beta)) / z
    expected_var = std ** 2 * (1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - ((pdf(alpha) - pdf(beta)) / z) ** 2)
    assert abs(x.mean() - expected_mean) < 5 * math.sqrt(expected_var / x.size)
    assert abs(x.var() / expected_var - 1) < 0.02
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        nn.init.trunc_normal_(seqlab.empty(3), mean=10.0)


@pytest.mark.parametrize("name, args", [
    ("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("eye", ()), ("xavier_uniform", ()), ("xavier_normal", ()),
    ("kaiming_uniform", ()), ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,)),
])
def test_deprecated_names_warn_as_torch(name, args):
    messages = []
    for init, lib in ((nn.init, seqlab), (torch.nn.init, torch)):
        with pytest.warns(FutureWarning) as caught:
            t = getattr(init, name)(lib.empty(4, 3), *args)
        messages.append(str(caught[0].message))
        assert tuple(t.shape) == (4, 3)
    assert messages[0] == messages[1] == f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."
    with pytest.warns(FutureWarning):
        assert sl_np(nn.init.dirac(seqlab.empty(2, 2, 3))).tolist() == \
            torch.nn.init.dirac_(torch.empty(2, 2, 3)).tolist()


def test_init_names_are_torchs():
    ours = {n for n in dir(nn.init) if not n.startswith("_")}
    theirs = {n for n in torch.nn.init.__all__} if hasattr(torch.nn.init, "__all__") else set()
    assert theirs <= ours, sorted(theirs - ours)


# ------------------------------------------------------------------ seqlab.to_torch / from_torch

CONVERTS = {
    "ParameterList": lambda: nn.ParameterList([seqlab.randn(2, 3), nn.Parameter(seqlab.randn(3), requires_grad=False)]),
    "ParameterDict": lambda: nn.ParameterDict({"b": seqlab.randn(2), "a": seqlab.randn(1, 2)}),
    "Unflatten": lambda: nn.Unflatten(1, (2, 3)),
    "LocalResponseNorm": lambda: nn.LocalResponseNorm(3, alpha=0.2),
    "EmbeddingBag": lambda: nn.EmbeddingBag(10, 3, mode="sum", padding_idx=1),
    **{name: (lambda name=name, args=args: getattr(nn, name)(*args)) for name, args, _ in PADS},
}
CONVERT_INPUTS = {"Unflatten": (2, 6), "LocalResponseNorm": (2, 5, 3), "EmbeddingBag": "index"}


@pytest.mark.parametrize("name", list(CONVERTS))
def test_to_torch_builds_torchs_class_and_back(name):
    seqlab.manual_seed(0)
    m = CONVERTS[name]()
    t = seqlab.to_torch(m)
    assert type(t) is getattr(torch.nn, name)
    same_repr(m, t)
    back = seqlab.from_torch(t)
    assert type(back) is type(m)
    assert list(back.state_dict()) == list(m.state_dict()) == list(t.state_dict())
    for (k, a), (_, b) in zip(m.state_dict().items(), back.state_dict().items()):
        assert seqlab.equal(a, b), k
    assert [p.requires_grad for p in t.parameters()] == [p.requires_grad for p in m.parameters()]
    shape = CONVERT_INPUTS.get(name, next((s for n, _, s in PADS if n == name), None))
    if shape == "index":
        x = seqlab.randint(0, 10, (3, 4))
        assert seqlab.equal(back(x), m(x))
        np.testing.assert_allclose(sl_np(m(x)), t(torch.from_numpy(sl_np(x))).detach().numpy(), atol=1e-6)
    elif shape is not None:
        x = seqlab.randn(*shape)
        np.testing.assert_allclose(sl_np(m(x)), t(torch.from_numpy(sl_np(x))).detach().numpy(), atol=1e-6)


def test_fused_group_norm_equals_its_composed_oracle():
    """group_norm's one node equals layer_norm over each sample's groups followed by the per-channel
    affine (the composition it fuses), values and every gradient, in float64."""
    rng = np.random.default_rng(13)
    x, w, b = rng.standard_normal((3, 6, 2, 4)), rng.standard_normal(6), rng.standard_normal(6)

    def composed(x, w, b):
        y = F.layer_norm(x.reshape(3, 2, 24), (24,)).reshape(3, 6, 2, 4)
        return y * w.reshape(6, 1, 1) + b.reshape(6, 1, 1)

    outs, grads = [], []
    for fn in (lambda x, w, b: F.group_norm(x, 2, w, b), composed):
        leaves = [sl_leaf(a) for a in (x, w, b)]
        out = fn(*leaves)
        out.backward(seqlab.from_numpy(np.cos(np.arange(out.numel())).reshape(out.shape)))
        outs.append(sl_np(out))
        grads.append([sl_np(t.grad) for t in leaves])
    assert_close(outs[0], outs[1], 1e-12, 1e-12, "forward")
    for a, b_ in zip(*grads):
        assert_close(a, b_, 1e-12, 1e-12, "gradient")


# ------------------------------------------------------------------ Hardshrink, Softshrink, Softmax2d, Dropout1d/2d

@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("make", [lambda tnn: tnn.Hardshrink(), lambda tnn: tnn.Hardshrink(0.25),
                                  lambda tnn: tnn.Softshrink(), lambda tnn: tnn.Softshrink(1.0)],
                         ids=["Hardshrink", "Hardshrink(0.25)", "Softshrink", "Softshrink(1.0)"])
def test_shrinks_match_torch(make, dtype):
    rng = np.random.default_rng(14)
    lambd = make(torch.nn).lambd
    x = rng.standard_normal((4, 6)).astype(dtype)
    x[0, :4] = [lambd, -lambd, 0.0, 2 * lambd]  # the kinks: torch's gradient there is 0
    check_layer(make, [x], dtype, rng)
    same_repr(make(nn), make(torch.nn))
    name = type(make(nn)).__name__.lower()
    assert_matches_torch(lambda x: getattr(F, name)(x, 0.7), lambda x: getattr(TF, name)(x, 0.7), [x], layout="T")
    assert_gradcheck(lambda x: getattr(F, name)(x, 0.3), [rng.standard_normal((3, 4))])


@pytest.mark.parametrize("name", ["hardshrink", "softshrink"])
def test_shrink_errors_match_torch(name):
    if name == "softshrink":
        assert_raises_like_torch(lambda: F.softshrink(seqlab.zeros(3), -1.0), lambda: TF.softshrink(torch.zeros(3), -1.0),
                                 "lambda must be in range", "but found -1")
    else:  # torch's hardshrink takes a negative lambd: every x is kept
        assert F.hardshrink(seqlab.tensor([0.0, -2.0]), -1.0).tolist() == [0.0, -2.0]
    assert_raises_like_torch(lambda: getattr(F, name)(seqlab.arange(3), 1.0), lambda: getattr(TF, name)(torch.arange(3), 1.0),
                             "not implemented for")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 2, 4)])
def test_softmax2d_matches_torch(shape, dtype):
    rng = np.random.default_rng(15)
    check_layer(lambda tnn: tnn.Softmax2d(), [r(shape)(rng, dtype)], dtype, rng)
    same_repr(nn.Softmax2d(), torch.nn.Softmax2d())
    assert_raises_like_torch(lambda: nn.Softmax2d()(seqlab.zeros(2, 3)), lambda: torch.nn.Softmax2d()(torch.zeros(2, 3)),
                             "Softmax2d: expected input to be 3D or 4D, got 2D instead")


@pytest.mark.parametrize("name, shape, channels", [("Dropout1d", (40, 30, 7), (40, 30, 1)),
                                                   ("Dropout1d", (300, 7), (300, 1)),
                                                   ("Dropout2d", (30, 40, 3, 2), (30, 40, 1, 1))])
def test_channel_dropout_zeroes_whole_channels(name, shape, channels):
    seqlab.manual_seed(1)
    p = 0.3
    m = getattr(nn, name)(p)
    same_repr(m, getattr(torch.nn, name)(p))
    x = (seqlab.rand(*shape, dtype=seqlab.float64) + 1).requires_grad_()
    y = m(x)
    y.backward(seqlab.ones(*shape, dtype=seqlab.float64))
    ratio = sl_np(y) / sl_np(x)
    per_channel = ratio.reshape(int(np.prod(channels)), -1)
    assert np.allclose(per_channel, per_channel[:, :1])  # one decision per channel
    assert set(np.round(np.unique(per_channel), 12)) <= {0.0, round(1 / (1 - p), 12)}
    zeroed = (per_channel[:, 0] == 0).mean()
    n = per_channel.shape[0]
    assert abs(zeroed - p) < 4 * math.sqrt(p * (1 - p) / n)
    np.testing.assert_allclose(sl_np(x.grad), ratio)  # the gradient is the mask
    m.eval()
    assert seqlab.equal(m(x), x)


def test_channel_dropout_errors_and_warnings_match_torch():
    assert_raises_like_torch(lambda: F.dropout1d(seqlab.zeros(3), 0.5), lambda: TF.dropout1d(torch.zeros(3), 0.5),
                             "dropout1d: Expected 2D or 3D input, but received a 1D input")
    assert_raises_like_torch(lambda: F.dropout2d(seqlab.zeros(2, 3, 4, 5), 1.5),
                             lambda: TF.dropout2d(torch.zeros(2, 3, 4, 5), 1.5),
                             "dropout probability has to be between 0 and 1, but got 1.5")
    assert_raises_like_torch(lambda: nn.Dropout1d(-0.1), lambda: torch.nn.Dropout1d(-0.1), "between 0 and 1")
    for shape in [(2, 3, 4), (2, 3)]:
        messages = []
        for fn, lib in ((F.dropout2d, seqlab), (TF.dropout2d, torch)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = fn(lib.ones(*shape), 0.5)
            messages.append([str(w.message) for w in caught])
            assert tuple(out.shape) == shape
        assert messages[0] == messages[1] and messages[0]
