"""torch.nn's pointwise activations beyond relu/gelu/silu (cpp/src/ops/activation_pointwise.cpp):
F.elu, selu, celu, leaky_relu, softplus, hardtanh, relu6, logsigmoid, mish, softsign, tanhshrink,
hardsigmoid, hardswish, threshold, prelu, softmin, glu and their in-place forms (and relu_, silu's
inplace), against
torch.nn.functional: values in float32 and float64, gradients in float64, gradcheck, the extremes
(±1e4) and the kinks, non-contiguous and size-0 inputs, in-place semantics, integer inputs and
errors; the modules' reprs against torch.nn's. The C++ twins: tests/test_nn_twins.py."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_gradcheck, assert_matches_torch, assert_raises_like_torch, randn,
)

# name -> keyword arguments to try; every case runs through F.<name>(x, **kw) on both sides.
CASES = [
    ("elu", {}), ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {}), ("celu", {"alpha": 2.0}),
    ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("softplus", {}),
    ("softplus", {"beta": 2.0, "threshold": 1.5}), ("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
    ("relu6", {}), ("logsigmoid", {}), ("mish", {}), ("softsign", {}), ("tanhshrink", {}), ("hardsigmoid", {}),
    ("hardswish", {}), ("threshold", {"threshold": 0.5, "value": -2.0}),
]
CASE_IDS = [name + "".join(f"-{k}={v}" for k, v in kw.items()) for name, kw in CASES]
INPLACE = ["elu", "selu", "celu", "leaky_relu", "hardtanh", "relu6", "mish", "hardsigmoid", "hardswish", "threshold"]
# the kinks and extremes of every case above, and values around them
SPECIAL = np.array([-1e4, -100.0, -20.0, -6.0, -3.0, -2.0, -1.5, -1.0, -0.5, -1e-30, 0.0, 1e-30, 0.5, 0.75, 1.0,
                    1.5, 2.0, 3.0, 6.0, 10.0, 20.0, 21.0, 100.0, 1e4])
# torch's float64 hardsigmoid backward multiplies by 1/6 rounded to float32 (5e-9 relative off)
GRAD_RTOL = {"hardsigmoid": 1e-7}


def call(lib, name, x, kw, **extra):
    return getattr(lib, name)(x, **kw, **extra)


@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_matches_torch_on_random_input(rng, name, kw, dtype):
    x = randn(rng, (3, 5), dtype) * 4
    assert_matches_torch(lambda t: call(F, name, t, kw), lambda t: call(TF, name, t, kw), [x], grad=dtype == np.float64,
                         rtol=GRAD_RTOL.get(name))


@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_extremes_and_kinks(name, kw, dtype):
    """±1e4, 0, ±1e-30 and exactly on every kink: values, and gradients equal torch's (finite)."""
    x = SPECIAL.astype(dtype)
    xs, xt = seqlab.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ys, yt = call(F, name, xs, kw), call(TF, name, xt, kw)
    assert ys.dtype == getattr(seqlab, str(yt.dtype).split(".")[1])
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=4 * eps, atol=4 * eps)
    g = np.linspace(-1.0, 1.0, x.size).astype(dtype)
    ys.backward(seqlab.tensor(g))
    yt.backward(torch.tensor(g))
    assert np.isfinite(xs.grad.numpy()).all()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=GRAD_RTOL.get(name, 4 * eps), atol=4 * eps)


@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
def test_gradcheck(rng, name, kw):
    x = randn(rng, (4, 3), np.float64) * 3
    kinks = np.array([-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 6.0, 0.75])
    x = np.where(np.abs(x[..., None] - kinks).min(-1) < 1e-3, 0.3, x)  # central differences straddle no kink
    assert_gradcheck(lambda t: call(F, name, t, kw), [x])


@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("layout", ["T", "slice"])
def test_non_contiguous(rng, name, kw, layout):
    x = randn(rng, (4, 6), np.float64) * 3
    assert_matches_torch(lambda t: call(F, name, t, kw), lambda t: call(TF, name, t, kw), [x], layout=layout,
                         rtol=GRAD_RTOL.get(name))


@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("shape", [(0, 3), (), (1, 1)], ids=["size0", "0d", "1x1"])
def test_small_shapes(rng, name, kw, shape):
    x = randn(rng, shape, np.float64)
    assert_matches_torch(lambda t: call(F, name, t, kw), lambda t: call(TF, name, t, kw), [x],
                         rtol=GRAD_RTOL.get(name))


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "leaky_relu", "softplus", "logsigmoid", "mish",
                                  "hardsigmoid", "hardswish", "softsign", "tanhshrink", "hardtanh", "relu6"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_integer_and_bool_inputs(name, dtype):
    """torch has no integer kernel for most (NotImplementedError naming it); softsign and tanhshrink
    compute integers in float32; hardtanh and relu6 clamp integers in their dtype; none take bool."""
    data = [-3, 0, 2, 7] if dtype == "int64" else [True, False, True, True]
    xt = torch.tensor(data)
    xs = seqlab.tensor(data)
    try:
        yt = getattr(TF, name)(xt)
    except Exception as e:  # noqa: BLE001 - torch's error is the expectation
        fragment = str(e).split(".")[0][:40].replace("(", r"\(").replace(")", r"\)").replace("`", ".")
        assert_raises_like_torch(lambda: getattr(F, name)(xs), lambda: getattr(TF, name)(xt), fragment)
        return
    ys = getattr(F, name)(xs)
    assert ys.dtype == getattr(seqlab, str(yt.dtype).split(".")[1])
    np.testing.assert_allclose(ys.numpy(), yt.numpy(), rtol=1e-6)


def test_threshold_keeps_integer_dtypes():
    for dtype in ["int64", "int32", "uint8"]:
        xt = torch.tensor([1, 2, 3, 9], dtype=getattr(torch, dtype))
        xs = seqlab.tensor([1, 2, 3, 9], dtype=getattr(seqlab, dtype))
        ys, yt = F.threshold(xs, 2, 5), TF.threshold(xt, 2, 5)
        assert ys.dtype == getattr(seqlab, dtype)
        assert ys.tolist() == yt.tolist()
    assert F.threshold(seqlab.tensor([1, 2, 3]), 1.5, 7.9).tolist() == TF.threshold(torch.tensor([1, 2, 3]), 1.5,
                                                                                     7.9).tolist()
    assert_raises_like_torch(lambda: F.threshold(seqlab.tensor([True]), 0, 1),
                             lambda: TF.threshold(torch.tensor([True]), 0, 1),
                             "\"threshold_cpu\" not implemented for 'Bool'")


def test_hardtanh_truncates_its_bounds_for_integers():
    xs, xt = seqlab.tensor([-3, 0, 2, 9]), torch.tensor([-3, 0, 2, 9])
    for lo, hi in [(-0.5, 0.5), (-2.7, 3.9)]:
        ys, yt = F.hardtanh(xs, lo, hi), TF.hardtanh(xt, lo, hi)
        assert ys.dtype == seqlab.int64 and ys.tolist() == yt.tolist()


# ------------------------------------------------------------------ in place
@pytest.mark.parametrize("name", INPLACE)
def test_inplace_writes_input_and_matches_torch(rng, name):
    kw = dict(CASES)[name] if name != "threshold" else {"threshold": 0.5, "value": -2.0}
    x = randn(rng, (3, 4), np.float64) * 4
    xs, xt = seqlab.tensor(x), torch.tensor(x)
    out = call(F, name, xs, kw, inplace=True)
    call(TF, name, xt, kw, inplace=True)
    assert out is xs
    np.testing.assert_allclose(xs.numpy(), xt.numpy(), rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_under_autograd(rng, name):
    """On a non-leaf the in-place form records the op (self's history rebased), so backward reaches
    the leaf with torch's gradient; on a leaf that requires grad it is torch's RuntimeError."""
    kw = {"threshold": 0.5, "value": -2.0} if name == "threshold" else {}
    x = randn(rng, (3, 4), np.float64) * 4
    xs, xt = seqlab.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ys = call(F, name, xs * 2, kw, inplace=True)
    yt = call(TF, name, xt * 2, kw, inplace=True)
    g = randn(rng, (3, 4), np.float64)
    ys.backward(seqlab.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=GRAD_RTOL.get(name, 1e-12), atol=1e-12)
    assert_raises_like_torch(lambda: call(F, name, xs, kw, inplace=True),
                             lambda: call(TF, name, xt, kw, inplace=True),
                             "a leaf Variable that requires grad is being used in an in-place operation")


@pytest.mark.parametrize("name,args", [("elu_", ()), ("leaky_relu_", (0.3,)), ("hardtanh_", (-0.5, 0.5)),
                                       ("threshold_", (0.1, 9.0))])
def test_underscore_forms(rng, name, args):
    x = randn(rng, (5,), np.float64)
    xs, xt = seqlab.tensor(x), torch.tensor(x)
    assert getattr(F, name)(xs, *args) is xs
    getattr(TF, name)(xt, *args)
    np.testing.assert_allclose(xs.numpy(), xt.numpy(), rtol=1e-15)


def test_celu_alpha_zero():
    x = randn(np.random.default_rng(0), (3,), np.float32)
    assert_raises_like_torch(lambda: F.celu(seqlab.tensor(x), 0.0), lambda: TF.celu(torch.tensor(x), 0.0),
                             "ZeroDivisionError")


# ------------------------------------------------------------------ softmin, glu, prelu
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_softmin(rng, dim, dtype):
    x = randn(rng, (3, 4), dtype) * 3
    assert_matches_torch(lambda t: F.softmin(t, dim), lambda t: TF.softmin(t, dim), [x], grad=dtype == np.float64)
    assert_matches_torch(lambda t: F.softmin(t, dim, dtype=seqlab.float64),
                         lambda t: TF.softmin(t, dim, dtype=torch.float64), [x.astype(np.float32)])
    assert_gradcheck(lambda t: F.softmin(t, dim), [x.astype(np.float64)])


def test_softmin_extremes_and_implicit_dim():
    x = np.array([[-1e4, 0.0, 1e4], [1.0, 1.0, 1.0]])
    assert_matches_torch(lambda t: F.softmin(t, 1), lambda t: TF.softmin(t, 1), [x])
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        F.softmin(seqlab.tensor(x))


@pytest.mark.parametrize("shape,dim", [((4, 6), -1), ((4, 6), 0), ((2, 0, 4), 2), ((2, 3, 4), 1)])
def test_glu(rng, shape, dim):
    x = randn(rng, shape, np.float64)
    if shape[dim] % 2:
        assert_raises_like_torch(lambda: F.glu(seqlab.tensor(x), dim), lambda: TF.glu(torch.tensor(x), dim),
                                 "Halving dimension must be even")
        return
    assert_matches_torch(lambda t: F.glu(t, dim), lambda t: TF.glu(t, dim), [x])
    assert_matches_torch(lambda t: nn.GLU(dim)(t), lambda t: torch.nn.GLU(dim)(t), [x])


def test_glu_errors():
    s, t = seqlab.tensor(1.0), torch.tensor(1.0)
    assert_raises_like_torch(lambda: F.glu(s), lambda: TF.glu(t), "glu does not support scalars")
    s, t = seqlab.zeros(2, 4), torch.zeros(2, 4)
    assert_raises_like_torch(lambda: F.glu(s, 2), lambda: TF.glu(t, 2), "Dimension out of range")


@pytest.mark.parametrize("xshape,wsize", [((2, 3, 4), 3), ((2, 3, 4), 1), ((5,), 1), ((), 1), ((0, 3), 3),
                                          ((4, 3), 3)])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_prelu(rng, xshape, wsize, dtype):
    x = randn(rng, xshape, dtype) * 2
    if x.size:
        x.flat[0] = 0.0  # the kink: torch's gradient there is the weight's side
    w = np.linspace(-0.5, 0.5, wsize).astype(dtype)
    assert_matches_torch(F.prelu, TF.prelu, [x, w], grad=dtype == np.float64)
    if dtype == np.float64 and x.size:
        assert_gradcheck(F.prelu, [np.where(x == 0, 0.3, x), w])


def test_prelu_errors():
    x, w = np.zeros((2, 3)), np.ones(4)
    assert_raises_like_torch(lambda: F.prelu(seqlab.tensor(x), seqlab.tensor(w)),
                             lambda: TF.prelu(torch.tensor(x), torch.tensor(w)),
                             "Mismatch of parameter numbers and input channel size. Found parameter numbers = 4 "
                             "and channel size = 3")
    assert_raises_like_torch(lambda: F.prelu(seqlab.tensor(1.0), seqlab.ones(3)),
                             lambda: TF.prelu(torch.tensor(1.0), torch.ones(3)), "Not allow zero-dim input tensor")
    assert_raises_like_torch(lambda: F.prelu(seqlab.zeros(2, 3), seqlab.ones(1, 3)),
                             lambda: TF.prelu(torch.zeros(2, 3), torch.ones(1, 3)),
                             "Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2")
    assert_raises_like_torch(lambda: F.prelu(seqlab.tensor([1, 2]), seqlab.tensor([1])),
                             lambda: TF.prelu(torch.tensor([1, 2]), torch.tensor([1])),
                             "\"prelu_cpu\" not implemented for 'Long'")
    assert_raises_like_torch(lambda: F.prelu(seqlab.zeros(2, 3, dtype=seqlab.float64), seqlab.ones(3)),
                             lambda: TF.prelu(torch.zeros(2, 3, dtype=torch.float64), torch.ones(3)),
                             "prelu: Type promoting not supported. Got Double and Float")


def test_prelu_module_trains_its_weight(rng):
    m, mt = nn.PReLU(3, init=0.1).double(), torch.nn.PReLU(3, init=0.1).double()
    assert m.weight.tolist() == mt.weight.tolist() and m.weight.dtype == seqlab.float64
    x = randn(rng, (4, 3, 2), np.float64)
    m(seqlab.tensor(x)).sum().backward()
    mt(torch.tensor(x)).sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), mt.weight.grad.numpy(), rtol=1e-12)


# ------------------------------------------------------------------ modules
MODULES = [
    ("ELU", ()), ("ELU", (0.5, True)), ("SELU", ()), ("SELU", (True,)), ("CELU", ()), ("CELU", (2.0, True)),
    ("LeakyReLU", ()), ("LeakyReLU", (0.2, True)), ("Softplus", ()), ("Softplus", (2, 5)), ("Hardtanh", ()),
    ("Hardtanh", (-2.5, 3.0, True)), ("ReLU6", ()), ("ReLU6", (True,)), ("LogSigmoid", ()), ("Mish", ()),
    ("Mish", (True,)), ("Softsign", ()), ("Tanhshrink", ()), ("Hardsigmoid", ()), ("Hardsigmoid", (True,)),
    ("Hardswish", ()), ("Hardswish", (True,)), ("Threshold", (0.1, 20)), ("Threshold", (0.1, 20.0, True)),
    ("Softmin", ()), ("Softmin", (1,)), ("GLU", ()), ("GLU", (0,)), ("PReLU", ()), ("PReLU", (3, 0.1)),
]


@pytest.mark.parametrize("name,args", MODULES, ids=[f"{n}{a}" for n, a in MODULES])
def test_module_repr_and_forward(rng, name, args):
    m, mt = getattr(nn, name)(*args).double(), getattr(torch.nn, name)(*args).double()
    assert repr(m) == repr(mt)
    if name == "Softmin" and not args:
        return
    shape = (4, 3, 2) if name == "PReLU" else (2, 4)
    x = randn(rng, shape, np.float64) * 4
    assert_matches_torch(lambda t: m(t * 1), lambda t: mt(t * 1), [x], rtol=GRAD_RTOL.get(name.lower()))


def test_hardtanh_module_bounds():
    with pytest.raises(AssertionError):
        torch.nn.Hardtanh(1.0, 1.0)
    with pytest.raises(AssertionError, match="max_val must be greater than min_val"):
        nn.Hardtanh(1.0, 1.0)
    with pytest.raises(ValueError, match="max_val must be greater than min_val"):
        seqlab._core.cpp_nn.Hardtanh(1.0, 1.0)


def test_module_import_paths():
    from seqlab.nn.modules.activation import ELU, GLU, PReLU, Softmin  # noqa: F401  torch.nn.modules.activation's
    for name in ["elu_", "leaky_relu_", "hardtanh_", "threshold_", "relu_", "prelu", "softmin", "logsigmoid"]:
        assert callable(getattr(F, name)) and getattr(F, name).__doc__


@pytest.mark.parametrize("name", ["silu", "relu"])
def test_silu_and_relu_in_place_under_autograd(rng, name):
    """F.silu(inplace=True), F.relu_ and the modules' inplace=True differentiate as torch's (relu_'s
    gradient at 0 is 0; silu's backward no longer finds its input overwritten)."""
    x = randn(rng, (3, 4), np.float64)
    x[0, :2] = 0.0
    g = randn(rng, (3, 4), np.float64)
    for seqlab_fn, torch_fn in [
        ((lambda t: F.silu(t, inplace=True)) if name == "silu" else F.relu_,
         (lambda t: TF.silu(t, inplace=True)) if name == "silu" else TF.relu_),
        (getattr(nn, "SiLU" if name == "silu" else "ReLU")(inplace=True),
         getattr(torch.nn, "SiLU" if name == "silu" else "ReLU")(inplace=True)),
    ]:
        xs, xt = seqlab.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        hs, ht = xs * 1, xt * 1
        ys, yt = seqlab_fn(hs), torch_fn(ht)
        assert ys is hs
        ys.backward(seqlab.tensor(g))
        yt.backward(torch.tensor(g))
        np.testing.assert_allclose(hs.detach().numpy(), ht.detach().numpy(), rtol=1e-15)
        np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-15)
        assert_raises_like_torch(lambda: seqlab_fn(xs), lambda: torch_fn(xt),
                                 "a leaf Variable that requires grad is being used in an in-place operation")


# ------------------------------------------------------------------ review fixes (review 27)
def test_threshold_converts_its_arguments_to_the_integer_dtype():
    """torch converts threshold (and value) to the tensor's integer dtype first: -0.5 becomes 0, so
    threshold([-2, -1, 0, 1, 2], -0.5, 7) also replaces the 0."""
    data = [-3, -2, -1, 0, 1, 2, 3]
    for dtype in ["int64", "int32", "int16", "int8"]:
        xs, xt = seqlab.tensor(data, dtype=getattr(seqlab, dtype)), torch.tensor(data, dtype=getattr(torch, dtype))
        for th, value in [(-0.5, 7), (-1.5, 7.9), (1.5, -4), (2.7, 0), (-2.0, 5)]:
            ys, yt = F.threshold(xs, th, value), TF.threshold(xt, th, value)
            assert ys.dtype == getattr(seqlab, dtype) and ys.tolist() == yt.tolist(), (dtype, th, value)
    xs, xt = seqlab.tensor([0, 1, 2, 9], dtype=seqlab.uint8), torch.tensor([0, 1, 2, 9], dtype=torch.uint8)
    assert F.threshold(xs, 1.7, 5).tolist() == TF.threshold(xt, 1.7, 5).tolist()
    xs, xt = seqlab.tensor(data), torch.tensor(data)
    assert F.threshold_(xs, -0.5, 7).tolist() == TF.threshold_(xt, -0.5, 7).tolist() == xt.tolist()
    # a threshold or value outside the dtype's range is torch's overflow error; negative ints wrap into uint8
    for dtype, th, value in [("int8", 1000, 0), ("int8", 0, -200.0), ("uint8", -0.5, 7), ("int32", float("nan"), 1),
                             ("int16", 1.0, float("inf"))]:
        assert_raises_like_torch(lambda: F.threshold(seqlab.tensor([1, 2], dtype=getattr(seqlab, dtype)), th, value),
                                 lambda: TF.threshold(torch.tensor([1, 2], dtype=getattr(torch, dtype)), th, value),
                                 f"value cannot be converted to type {dtype if dtype != 'int32' else 'int'}")
    xs, xt = seqlab.tensor([0, 3, 250, 255], dtype=seqlab.uint8), torch.tensor([0, 3, 250, 255], dtype=torch.uint8)
    assert F.threshold(xs, -3, 9).tolist() == TF.threshold(xt, -3, 9).tolist()


@pytest.mark.parametrize("inplace", [False, True])
def test_hardtanh_refuses_min_above_max(inplace):
    x = np.array([-2.0, -0.5, 0.0, 1.0])
    assert_raises_like_torch(lambda: F.hardtanh(seqlab.tensor(x), 1.0, -1.0, inplace),
                             lambda: TF.hardtanh(torch.tensor(x), 1.0, -1.0, inplace),
                             "^min_val cannot be greater than max_val$")
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        seqlab._core.hardtanh(seqlab.tensor(x), 0.5, 0.25)   # the C++ functional (the twin's) checks too
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(seqlab.tensor([1, 2]), 3, 2, inplace)   # integers too
    # F.hardtanh_ does not check, as torch's: clamp's order, max_val everywhere (NaN stays), gradient 0
    xn = np.array([-2.0, -0.5, 0.0, 1.0, np.nan])
    xs, xt = seqlab.tensor(xn), torch.tensor(xn)
    assert F.hardtanh_(xs, 1.0, -1.0) is xs
    np.testing.assert_array_equal(xs.numpy(), TF.hardtanh_(xt, 1.0, -1.0).numpy())
    assert_matches_torch(lambda t: F.hardtanh_(t * 1, 1.0, -1.0), lambda t: TF.hardtanh_(t * 1, 1.0, -1.0), [x])
    assert F.hardtanh_(seqlab.tensor([-3, 0, 3]), 2, -2).tolist() == \
        TF.hardtanh_(torch.tensor([-3, 0, 3]), 2, -2).tolist()
    # equal bounds are allowed: every element becomes the bound, gradient 0
    assert_matches_torch(lambda t: F.hardtanh(t * 1, 0.5, 0.5, inplace),
                         lambda t: TF.hardtanh(t * 1, 0.5, 0.5, inplace), [x])


@pytest.mark.parametrize("shape,dim", [((4,), 0), ((2, 4), 0), ((2, 4), 1), ((2, 4), -1), ((), 0), ((2, 3, 4), 1)])
def test_softmin_and_glu_refuse_integers(shape, dim):
    """torch's softmax and glu kernels have no integer form: NotImplementedError naming the kernel."""
    x = np.arange(int(np.prod(shape))).reshape(shape) - 3
    for f, tf in [(F.softmin, TF.softmin), (F.glu, TF.glu)]:
        if f is F.glu and (not shape or shape[dim] % 2):
            continue
        try:
            tf(torch.tensor(x), dim)
        except NotImplementedError as e:
            fragment = str(e).replace("\"", ".").replace("'", ".")
        assert_raises_like_torch(lambda: f(seqlab.tensor(x), dim), lambda: tf(torch.tensor(x), dim), fragment)
    # with dtype= the conversion comes first, as torch's
    assert_matches_torch(lambda t: F.softmin(t, dim, dtype=seqlab.float64),
                         lambda t: TF.softmin(t, dim, dtype=torch.float64), [x], grad=False)


@pytest.mark.parametrize("name,kw", CASES + [("prelu", {"weight": 0.25}), ("softmin", {"dim": 0}),
                                             ("glu", {"dim": 0}), ("relu", {})],
                         ids=CASE_IDS + ["prelu", "softmin", "glu", "relu"])
def test_gradient_at_nan(name, kw):
    """At NaN the gradient is torch's: elu/selu/celu test the negative branch first, so NaN takes the
    positive branch's scale (1, 1.0507, 1); hardtanh, threshold, hardswish pass the gradient,
    leaky_relu/prelu scale it, hardsigmoid drops it, the smooth ones give NaN."""
    x = np.array([np.nan, np.nan, 1.0, -1.0])
    xs, xt = seqlab.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    if name == "prelu":
        ys = F.prelu(xs, seqlab.tensor([0.25], dtype=seqlab.float64))
        yt = TF.prelu(xt, torch.tensor([0.25], dtype=torch.float64))
    else:
        ys, yt = call(F, name, xs, kw), call(TF, name, xt, kw)
    g = np.array([1.0, -2.0, 0.5, 3.0])[: ys.shape[0]]
    ys.backward(seqlab.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=GRAD_RTOL.get(name, 1e-12), equal_nan=True)


@pytest.mark.parametrize("name", ["elu", "selu", "celu"])
def test_elu_family_gradient_at_nan_is_the_positive_scale(name):
    for dtype in FLOAT_DTYPES:
        xs = seqlab.tensor(np.array([np.nan], dtype), requires_grad=True)
        call(F, name, xs, {}).sum().backward()
        assert xs.grad.tolist() == pytest.approx([1.0507009873554805 if name == "selu" else 1.0])


def test_relu_takes_inplace_and_is_recognised_by_identity():
    import inspect
    assert list(inspect.signature(F.relu).parameters) == list(inspect.signature(TF.relu).parameters)
    x = np.array([-1.0, 2.0, 0.0])
    xs, xt = seqlab.tensor(x), torch.tensor(x)
    assert F.relu(xs, inplace=True) is xs
    assert xs.tolist() == TF.relu(xt, inplace=True).tolist() == xt.tolist()
    ys = F.relu(seqlab.tensor(x), inplace=False)
    assert ys.tolist() == [0.0, 2.0, 0.0]
    assert_matches_torch(lambda t: F.relu(t * 1, True), lambda t: TF.relu(t * 1, True), [x])
    # the Transformer's C++ fast path and to_torch know F.relu and seqlab.relu (the C++ op)
    from seqlab.nn.modules.activation import _activation_arg
    for act in (F.relu, seqlab.relu, "relu"):
        layer = nn.TransformerEncoderLayer(8, 2, 16, activation=act)
        assert layer.activation_relu_or_gelu == 1 and _activation_arg(layer.activation) == "relu"
        assert seqlab.to_torch(layer).activation is TF.relu
        assert seqlab.from_torch(seqlab.to_torch(layer)).activation is F.relu
    assert _activation_arg(F.gelu) == "gelu"


@pytest.mark.parametrize("name,args", [("selu_", ()), ("celu_", ()), ("celu_", (0.5,))])
def test_selu_and_celu_underscore_forms(rng, name, args):
    import inspect
    expected = ["input"] if name == "selu_" else ["input", "alpha"]
    assert list(inspect.signature(getattr(F, name)).parameters) == expected
    x = randn(rng, (5,), np.float64) * 3
    xs, xt = seqlab.tensor(x), torch.tensor(x)
    assert getattr(F, name)(xs, *args) is xs
    getattr(TF, name)(xt, *args)
    np.testing.assert_allclose(xs.numpy(), xt.numpy(), rtol=1e-15)
    assert getattr(F, name).__doc__


def test_hardtanh_module_takes_the_deprecated_min_value_max_value():
    for kw in [dict(min_value=-0.5), dict(max_value=2.0), dict(min_value=-2.0, max_value=0.25)]:
        with pytest.warns(FutureWarning) as ws:
            m = nn.Hardtanh(**kw)
        with pytest.warns(FutureWarning) as wt:
            mt = torch.nn.Hardtanh(**kw)
        assert [str(w.message) for w in ws] == [str(w.message) for w in wt]
        assert all(w.filename == __file__ for w in ws)
        assert repr(m) == repr(mt) and (m.min_val, m.max_val) == (mt.min_val, mt.max_val)
    with pytest.warns(FutureWarning), pytest.raises(AssertionError):
        nn.Hardtanh(min_value=3.0)


NEGATIVE_INPLACE = [
    ("elu_", lambda f, t: f.elu_(t, -0.5)), ("elu-inplace", lambda f, t: f.elu(t, -0.5, inplace=True)),
    ("celu_", lambda f, t: f.celu_(t, -1.5)), ("celu-inplace", lambda f, t: f.celu(t, -1.5, inplace=True)),
    ("leaky_relu_", lambda f, t: f.leaky_relu_(t, -0.2)),
    ("leaky_relu-inplace", lambda f, t: f.leaky_relu(t, -0.2, inplace=True)),
]


@pytest.mark.parametrize("name,fn", NEGATIVE_INPLACE, ids=[n for n, _ in NEGATIVE_INPLACE])
def test_inplace_negative_slope_refuses_backward(rng, name, fn):
    """torch's in-place elu_/celu_/leaky_relu_ differentiate from the result, which a negative alpha
    (slope) does not allow: the forward runs, the backward raises torch's RuntimeError."""
    x = randn(rng, (3, 4), np.float64) * 3
    xs, xt = seqlab.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ys, yt = fn(F, xs * 1), fn(TF, xt * 1)
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=1e-14)
    fragment = ("In-place leakyReLu backward calculation is triggered with a negative slope which is not supported"
                if "leaky" in name else "In-place elu backward calculation is triggered with a negative slope")
    assert_raises_like_torch(lambda: ys.sum().backward(), lambda: yt.sum().backward(), fragment,
                             "please call out-of-place version instead")
    # without autograd the in-place form just computes, as torch's
    xs, xt = seqlab.tensor(x), torch.tensor(x)
    assert fn(F, xs) is xs
    fn(TF, xt)
    np.testing.assert_allclose(xs.numpy(), xt.numpy(), rtol=1e-14)
    with seqlab.no_grad():
        hs = seqlab.tensor(x, requires_grad=True) * 1
        fn(F, hs)
    # the C++ twin module records the same
    if "leaky" in name:
        hs = seqlab.tensor(x, requires_grad=True) * 1
        out = seqlab._core.cpp_nn.LeakyReLU(-0.2, True)(hs)
        with pytest.raises(RuntimeError, match="In-place leakyReLu backward"):
            out.sum().backward()
