"""Elementwise ops (binary with broadcasting, unary, comparisons, logical, in-place) vs torch.

Follows torch's elementwise semantics (broadcasting, type promotion, gradients); gradchecks in
float64 at the bottom. Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_gradcheck, assert_matches_torch, assert_raises_like_torch,
    away_from_zero, randn, shape_id, sl_leaf, sl_np, th_leaf, th_np, uniform,
)

# ----------------------------------------------------------------------------------------
# Binary ops with broadcasting
# ----------------------------------------------------------------------------------------

BROADCAST_SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 1), (4,)),
    ((2, 1, 4), (3, 1)),
    ((), (3,)),
    ((5,), ()),
    ((1,), (2, 3)),
    ((2, 3, 1), (1, 1, 4)),
    ((0, 3), (3,)),
    ((4, 1), (1, 0)),
    ((1, 1), (1, 1)),
]

# name -> (fn(lib, a, b), input generator for b)
BINARY = {
    "add": lambda lib, a, b: lib.add(a, b),
    "sub": lambda lib, a, b: lib.sub(a, b),
    "mul": lambda lib, a, b: lib.mul(a, b),
    "div": lambda lib, a, b: lib.div(a, b),
    "pow": lambda lib, a, b: lib.pow(a, b),
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "minimum": lambda lib, a, b: lib.minimum(a, b),
    "op+": lambda lib, a, b: a + b,
    "op-": lambda lib, a, b: a - b,
    "op*": lambda lib, a, b: a * b,
    "op/": lambda lib, a, b: a / b,
    "op**": lambda lib, a, b: a ** b,
    "method.add": lambda lib, a, b: a.add(b),
    "method.sub": lambda lib, a, b: a.sub(b),
    "method.mul": lambda lib, a, b: a.mul(b),
    "method.div": lambda lib, a, b: a.div(b),
    "method.pow": lambda lib, a, b: a.pow(b),
    "method.maximum": lambda lib, a, b: a.maximum(b),
    "method.minimum": lambda lib, a, b: a.minimum(b),
}


def binary_inputs(rng, name, sa, sb, dtype):
    if "pow" in name or "**" in name:
        return [uniform(rng, sa, 0.5, 2.0, dtype), uniform(rng, sb, -1.5, 1.5, dtype)]
    if "div" in name or "/" in name:
        return [randn(rng, sa, dtype), away_from_zero(rng, sb, dtype)]
    return [randn(rng, sa, dtype), randn(rng, sb, dtype)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("sa,sb", BROADCAST_SHAPES, ids=[shape_id(a, b) for a, b in BROADCAST_SHAPES])
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_broadcast(rng, name, sa, sb, dtype):
    fn = BINARY[name]
    inputs = binary_inputs(rng, name, sa, sb, dtype)
    assert_matches_torch(lambda a, b: fn(seqlab, a, b), lambda a, b: fn(torch, a, b), inputs)


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "maximum", "minimum"])
def test_binary_noncontiguous(rng, name, layout):
    fn = BINARY[name]
    inputs = binary_inputs(rng, name, (3, 5), (3, 5), np.float32)
    assert_matches_torch(lambda a, b: fn(seqlab, a, b), lambda a, b: fn(torch, a, b), inputs, layout=layout)


@pytest.mark.parametrize("name", ["add", "mul", "div", "maximum"])
def test_binary_noncontiguous_broadcast(rng, name):
    """A transposed (4,3)->(3,4) operand broadcast against a (4,) row."""
    fn = BINARY[name]
    inputs = binary_inputs(rng, name, (4, 3), (4,), np.float64)
    assert_matches_torch(
        lambda a, b: fn(seqlab, a.t(), b), lambda a, b: fn(torch, a.t(), b), inputs)


@pytest.mark.parametrize("name", ["add", "mul", "sub"])
def test_binary_expanded_operand(rng, name):
    """An expand()ed operand (stride 0) behaves like the broadcast one."""
    fn = BINARY[name]
    inputs = [randn(rng, (3, 1)), randn(rng, (3, 4))]
    assert_matches_torch(
        lambda a, b: fn(seqlab, a.expand(3, 4), b), lambda a, b: fn(torch, a.expand(3, 4), b), inputs)


def test_same_tensor_both_operands(rng):
    """x * x and x + x: gradient contributions from both operands accumulate."""
    x = randn(rng, (4, 3), np.float64)
    assert_matches_torch(lambda a: a * a + a, lambda a: a * a + a, [x])


# ----------------------------------------------------------------------------------------
# Python scalars on either side
# ----------------------------------------------------------------------------------------

SCALAR_OPS = {
    "t+2.5": lambda t: t + 2.5,
    "2.5+t": lambda t: 2.5 + t,
    "t-1.5": lambda t: t - 1.5,
    "1.5-t": lambda t: 1.5 - t,
    "t*3": lambda t: t * 3,
    "3*t": lambda t: 3 * t,
    "t/4": lambda t: t / 4,
    "1/t": lambda t: 1 / t,
    "t**2": lambda t: t ** 2,
    "t**0.5": lambda t: t ** 0.5,
    "t**-1": lambda t: t ** -1,
    "2**t": lambda t: 2 ** t,
    "-t": lambda t: -t,
    "t+1(int)": lambda t: t + 1,
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(SCALAR_OPS))
def test_scalar_operand(rng, name, dtype):
    fn = SCALAR_OPS[name]
    x = uniform(rng, (3, 4), 0.5, 2.0, dtype)
    out = assert_matches_torch(fn, fn, [x])
    assert out.dtype == (seqlab.float32 if dtype == np.float32 else seqlab.float64)


# ----------------------------------------------------------------------------------------
# Unary ops
# ----------------------------------------------------------------------------------------

# name -> (fn(lib, x), input kind)
UNARY = {
    "neg": (lambda lib, x: lib.neg(x), "any"),
    "exp": (lambda lib, x: lib.exp(x), "any"),
    "log": (lambda lib, x: lib.log(x), "pos"),
    "sqrt": (lambda lib, x: lib.sqrt(x), "pos"),
    "abs": (lambda lib, x: lib.abs(x), "nonzero"),
    "tanh": (lambda lib, x: lib.tanh(x), "any"),
    "sigmoid": (lambda lib, x: lib.sigmoid(x), "any"),
    "relu": (lambda lib, x: lib.relu(x), "nonzero"),
    "clamp(-0.5,0.5)": (lambda lib, x: lib.clamp(x, -0.5, 0.5), "any"),
    "clamp(min=-0.3)": (lambda lib, x: lib.clamp(x, min=-0.3), "any"),
    "clamp(max=0.2)": (lambda lib, x: lib.clamp(x, max=0.2), "any"),
    "method.neg": (lambda lib, x: x.neg(), "any"),
    "method.exp": (lambda lib, x: x.exp(), "any"),
    "method.log": (lambda lib, x: x.log(), "pos"),
    "method.sqrt": (lambda lib, x: x.sqrt(), "pos"),
    "method.abs": (lambda lib, x: x.abs(), "nonzero"),
    "method.tanh": (lambda lib, x: x.tanh(), "any"),
    "method.sigmoid": (lambda lib, x: x.sigmoid(), "any"),
    "method.relu": (lambda lib, x: x.relu(), "nonzero"),
    "method.clamp": (lambda lib, x: x.clamp(min=-0.4, max=0.6), "any"),
    # the functions course code needs
    "sin": (lambda lib, x: lib.sin(x), "any"),
    "cos": (lambda lib, x: lib.cos(x), "any"),
    "tan": (lambda lib, x: lib.tan(x), "any"),
    "log2": (lambda lib, x: lib.log2(x), "pos"),
    "log10": (lambda lib, x: lib.log10(x), "pos"),
    "log1p": (lambda lib, x: lib.log1p(x), "gt-1"),
    "expm1": (lambda lib, x: lib.expm1(x), "any"),
    "erf": (lambda lib, x: lib.erf(x), "any"),
    "erfc": (lambda lib, x: lib.erfc(x), "any"),
    "erfinv": (lambda lib, x: lib.erfinv(x), "unit"),
    "rsqrt": (lambda lib, x: lib.rsqrt(x), "pos"),
    "sign": (lambda lib, x: lib.sign(x), "nonzero"),
    "floor": (lambda lib, x: lib.floor(x), "any"),
    "ceil": (lambda lib, x: lib.ceil(x), "any"),
    "trunc": (lambda lib, x: lib.trunc(x), "any"),
    "round": (lambda lib, x: lib.round(x), "any"),
    "round(decimals=1)": (lambda lib, x: lib.round(x, decimals=1), "any"),
    "round(decimals=-1)": (lambda lib, x: lib.round(x * 40, decimals=-1), "any"),
    "frac": (lambda lib, x: lib.frac(x), "any"),
    "method.sin": (lambda lib, x: x.sin(), "any"),
    "method.cos": (lambda lib, x: x.cos(), "any"),
    "method.tan": (lambda lib, x: x.tan(), "any"),
    "method.log2": (lambda lib, x: x.log2(), "pos"),
    "method.log10": (lambda lib, x: x.log10(), "pos"),
    "method.log1p": (lambda lib, x: x.log1p(), "gt-1"),
    "method.expm1": (lambda lib, x: x.expm1(), "any"),
    "method.erf": (lambda lib, x: x.erf(), "any"),
    "method.erfc": (lambda lib, x: x.erfc(), "any"),
    "method.erfinv": (lambda lib, x: x.erfinv(), "unit"),
    "method.rsqrt": (lambda lib, x: x.rsqrt(), "pos"),
    "method.sign": (lambda lib, x: x.sign(), "nonzero"),
    "method.floor": (lambda lib, x: x.floor(), "any"),
    "method.ceil": (lambda lib, x: x.ceil(), "any"),
    "method.trunc": (lambda lib, x: x.trunc(), "any"),
    "method.round": (lambda lib, x: x.round(decimals=2), "any"),
    "method.frac": (lambda lib, x: x.frac(), "any"),
}

UNARY_SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 4), (0,), (2, 0, 3), (1, 1, 1)]


def unary_input(rng, kind, shape, dtype):
    if kind == "pos":
        return uniform(rng, shape, 0.2, 3.0, dtype)
    if kind == "nonzero":
        return away_from_zero(rng, shape, dtype, 0.05, 2.0)
    if kind == "gt-1":
        return uniform(rng, shape, -0.9, 3.0, dtype)
    if kind == "unit":  # inside (-1, 1), away from the poles of erfinv
        return uniform(rng, shape, -0.95, 0.95, dtype)
    return randn(rng, shape, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=[shape_id(s) for s in UNARY_SHAPES])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary(rng, name, shape, dtype):
    fn, kind = UNARY[name]
    x = unary_input(rng, kind, shape, dtype)
    assert_matches_torch(lambda a: fn(seqlab, a), lambda a: fn(torch, a), [x])


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("name", [n for n in UNARY if not n.startswith("method.")])
def test_unary_noncontiguous(rng, name, layout):
    fn, kind = UNARY[name]
    x = unary_input(rng, kind, (4, 6), np.float32)
    assert_matches_torch(lambda a: fn(seqlab, a), lambda a: fn(torch, a), [x], layout=layout)


def test_exp_log_extreme_values():
    """exp overflows to inf, log(0) = -inf, sqrt(0) = 0, sigmoid saturates without nan."""
    x = np.array([-1000.0, -20.0, 0.0, 20.0, 1000.0], dtype=np.float32)
    for name in ["exp", "sigmoid", "tanh"]:
        assert_matches_torch(lambda a: getattr(seqlab, name)(a), lambda a: getattr(torch, name)(a), [x], grad=False)
    z = np.array([0.0, 1.0, 4.0], dtype=np.float64)
    assert_matches_torch(lambda a: seqlab.log(a), lambda a: torch.log(a), [z], grad=False)
    assert_matches_torch(lambda a: seqlab.sqrt(a), lambda a: torch.sqrt(a), [z], grad=False)


NAN_OPS = {
    "relu": lambda lib, x: lib.relu(x),
    "maximum": lambda lib, x: lib.maximum(x, lib.zeros_like(x)),
    "minimum": lambda lib, x: lib.minimum(lib.zeros_like(x), x),
    "clamp": lambda lib, x: lib.clamp(x, 0.0, 0.5),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "tanh": lambda lib, x: lib.tanh(x),
    "abs": lambda lib, x: lib.abs(x),
    "max": lambda lib, x: x.max(),
    "min": lambda lib, x: x.min(),
    "max-dim": lambda lib, x: tuple(x.max(dim=0)),
    "argmax": lambda lib, x: x.argmax(),
    "sum": lambda lib, x: x.sum(),
}


@pytest.mark.parametrize("name", list(NAN_OPS))
def test_nan_propagates(name):
    """NaN is never silently turned into a number (torch propagates it): a diverging loss must show."""
    x = np.array([np.nan, 1.0, -1.0, 0.25], dtype=np.float32)
    fn = NAN_OPS[name]
    assert_matches_torch(lambda a: fn(seqlab, a), lambda a: fn(torch, a), [x], grad=False)


@pytest.mark.parametrize("expo", [2, 3, -1, 2.0, 0])
def test_pow_negative_base_integer_exponent(rng, expo):
    """(pred - y) ** 2 with negative bases: must not go through log(base)."""
    x = away_from_zero(rng, (3, 4), np.float64)
    assert_matches_torch(lambda a: a ** expo, lambda a: a ** expo, [x])
    assert_matches_torch(lambda a: seqlab.pow(a, expo), lambda a: torch.pow(a, expo), [x])


def test_relu_gradient_at_zero_is_zero():
    """torch's relu has derivative 0 at exactly 0 (the subgradient choice matters for tests)."""
    x = np.array([-1.0, 0.0, 2.0], dtype=np.float32)
    assert_matches_torch(lambda a: seqlab.relu(a), lambda a: torch.relu(a), [x])
    t = sl_leaf(x)
    seqlab.relu(t).sum().backward()
    np.testing.assert_array_equal(sl_np(t.grad), [0.0, 0.0, 1.0])


# ----------------------------------------------------------------------------------------
# where
# ----------------------------------------------------------------------------------------

WHERE_SHAPES = [
    ((3, 4), (3, 4), (3, 4)),
    ((3, 1), (1, 4), (4,)),
    ((4,), (3, 4), ()),
    ((2, 1, 3), (3,), (2, 1, 1)),
    ((0, 2), (2,), (0, 2)),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("sc,sa,sb", WHERE_SHAPES, ids=[shape_id(*s) for s in WHERE_SHAPES])
def test_where(rng, sc, sa, sb, dtype):
    cond = rng.random(sc) < 0.5
    a, b = randn(rng, sa, dtype), randn(rng, sb, dtype)
    assert_matches_torch(lambda c, x, y: seqlab.where(c, x, y), lambda c, x, y: torch.where(c, x, y), [cond, a, b])


def test_where_from_comparison(rng):
    x = randn(rng, (5, 3))
    assert_matches_torch(lambda a: seqlab.where(a > 0, a, a * 0.1),
                         lambda a: torch.where(a > 0, a, a * 0.1), [x])


# ----------------------------------------------------------------------------------------
# Comparisons and logical ops
# ----------------------------------------------------------------------------------------

COMPARE = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}


CMP_SHAPES = [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (5,)), ((0, 2), (2,))]


@pytest.mark.parametrize("sa,sb", CMP_SHAPES, ids=[shape_id(*s) for s in CMP_SHAPES])
@pytest.mark.parametrize("name", list(COMPARE))
def test_comparison(rng, name, sa, sb):
    # small integers stored as floats so equality actually occurs
    a = rng.integers(-2, 3, size=sa).astype(np.float32)
    b = rng.integers(-2, 3, size=sb).astype(np.float32)
    out = assert_matches_torch(COMPARE[name], COMPARE[name], [a, b], grad=False)
    assert out.dtype == seqlab.bool
    # comparisons never require grad, even of inputs that do
    ta, tb = sl_leaf(a), sl_leaf(b)
    assert COMPARE[name](ta, tb).requires_grad is False


@pytest.mark.parametrize("name", list(COMPARE))
def test_comparison_with_scalar(rng, name):
    a = rng.integers(-2, 3, size=(4, 5)).astype(np.float64)
    assert_matches_torch(lambda t: COMPARE[name](t, 0.0), lambda t: COMPARE[name](t, 0.0), [a], grad=False)


@pytest.mark.parametrize("name", list(COMPARE))
def test_comparison_int64(rng, name):
    a = rng.integers(-3, 4, size=(3, 4)).astype(np.int64)
    b = rng.integers(-3, 4, size=(4,)).astype(np.int64)
    assert_matches_torch(COMPARE[name], COMPARE[name], [a, b], grad=False)


LOGICAL = {
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "not": lambda a, b: ~a,
    "not-and": lambda a, b: ~(a & b) | b,
}


@pytest.mark.parametrize("name", list(LOGICAL))
@pytest.mark.parametrize("sa,sb", [((4, 3), (4, 3)), ((4, 1), (3,)), ((0,), (0,))], ids=["same", "bcast", "empty"])
def test_logical_bool(rng, name, sa, sb):
    a = rng.random(sa) < 0.5
    b = rng.random(sb) < 0.5
    out = assert_matches_torch(LOGICAL[name], LOGICAL[name], [a, b], grad=False)
    assert out.dtype == seqlab.bool


# ----------------------------------------------------------------------------------------
# Integer tensors and type promotion
# ----------------------------------------------------------------------------------------

INT_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "neg": lambda a, b: -a,
    "abs": lambda a, b: a.abs(),
    "maximum": lambda a, b: a.maximum(b),
    "truediv": lambda a, b: a / b,
    "add-scalar": lambda a, b: a + 3,
}


@pytest.mark.parametrize("name", list(INT_OPS))
def test_int64_ops(rng, name):
    a = rng.integers(-5, 6, size=(3, 4)).astype(np.int64)
    b = rng.integers(1, 4, size=(4,)).astype(np.int64)
    assert_matches_torch(INT_OPS[name], INT_OPS[name], [a, b], grad=False)


PROMOTION = [
    ("f32+f64", np.float32, np.float64),
    ("i64+f32", np.int64, np.float32),
    ("f64*i64", np.float64, np.int64),
    ("bool+i64", np.bool_, np.int64),
]


@pytest.mark.parametrize("name,da,db", PROMOTION, ids=[p[0] for p in PROMOTION])
def test_type_promotion(rng, name, da, db):
    a = (rng.integers(0, 3, size=(2, 3))).astype(da)
    b = (rng.integers(1, 3, size=(3,))).astype(db)
    assert_matches_torch(lambda x, y: x + y, lambda x, y: x + y, [a, b], grad=False)
    assert_matches_torch(lambda x, y: x * y, lambda x, y: x * y, [a, b], grad=False)


def test_float32_times_python_float_stays_float32(rng):
    t = seqlab.from_numpy(randn(rng, (3,)))
    assert (t * 2.5).dtype == seqlab.float32
    assert (t + 1).dtype == seqlab.float32
    i = seqlab.tensor([1, 2, 3])
    assert (i + 1).dtype == seqlab.int64
    assert (i * 1.5).dtype == seqlab.float32
    np.testing.assert_allclose(sl_np(i * 1.5), [1.5, 3.0, 4.5])


@pytest.mark.parametrize("expr", ["b + True", "b * True", "b * False", "i + True", "f * True", "b / True", "b == False",
                                  "True - i", "f - True", "b - True", "b % True", "i % True", "f % True"])
def test_python_bool_operand(expr):
    """A Python bool is a bool number: mask + True stays bool (logical or), as in torch, and where
    torch refuses (bool - bool, no bool remainder kernel) seqlab refuses too."""
    def run(lib):
        return eval(expr, {"b": lib.tensor([True, False]), "i": lib.tensor([3, -4]), "f": lib.tensor([1.5, -2.0])})

    try:
        expected = run(torch)
    except Exception:
        assert_raises_like_torch(lambda: run(seqlab), lambda: run(torch), r"Subtraction|not implemented for 'Bool'")
        return
    assert_close(sl_np(run(seqlab)), th_np(expected), 0, 0, what=expr)


def test_mixed_dtype_gradient(rng):
    """float32 + float64 promotes to float64; each input's grad keeps its own dtype."""
    a, b = randn(rng, (2, 3), np.float32), randn(rng, (2, 3), np.float64)
    assert_matches_torch(lambda x, y: x * y, lambda x, y: x * y, [a, b], atol=1e-6, rtol=1e-5)


# ----------------------------------------------------------------------------------------
# In-place ops
# ----------------------------------------------------------------------------------------

INPLACE = {
    "add_": lambda a, b: a.add_(b),
    "sub_": lambda a, b: a.sub_(b),
    "mul_": lambda a, b: a.mul_(b),
    "div_": lambda a, b: a.div_(b),
    "add_scalar": lambda a, b: a.add_(2.0),
    "mul_scalar": lambda a, b: a.mul_(-3.0),
    "zero_": lambda a, b: a.zero_(),
    "fill_": lambda a, b: a.fill_(1.25),
    "copy_": lambda a, b: a.copy_(b),
    "clamp_": lambda a, b: a.clamp_(-0.5, 0.5),
    "clamp_min_": lambda a, b: a.clamp_(min=0.0),
}


def _iadd(a, b):
    a += b
    return a


def _isub(a, b):
    a -= b
    return a


def _imul(a, b):
    a *= b
    return a


def _idiv(a, b):
    a /= b
    return a


INPLACE.update({"+=": _iadd, "-=": _isub, "*=": _imul, "/=": _idiv})


@pytest.mark.parametrize("sb", [(3, 4), (4,), (1, 4), ()], ids=shape_id)
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_forward(rng, name, sb):
    """In-place ops write into the tensor itself (same object, and visible through a view)."""
    a = randn(rng, (3, 4))
    b = away_from_zero(rng, sb)
    fn = INPLACE[name]
    sa, sbt = sl_leaf(a, requires_grad=False), sl_leaf(b, requires_grad=False)
    ta, tbt = th_leaf(a, requires_grad=False), th_leaf(b, requires_grad=False)
    view = sa.view(12)
    res_s = fn(sa, sbt)
    res_t = fn(ta, tbt)
    assert_close(sl_np(res_s), th_np(res_t), 1e-6, 1e-6, what=name + " return value")
    assert_close(sl_np(sa), th_np(ta), 1e-6, 1e-6, what=name)
    assert_close(sl_np(view), th_np(ta).reshape(12), 1e-6, 1e-6, what=name + " through view")


@pytest.mark.parametrize("name", ["add_", "mul_", "fill_", "zero_", "clamp_", "copy_"])
def test_inplace_on_noncontiguous_view_writes_base(rng, name):
    """In-place on a transposed/sliced view writes to the right elements of the base."""
    a = randn(rng, (4, 6))
    b = away_from_zero(rng, (2, 4))
    fn = INPLACE[name]
    sa, ta = sl_leaf(a, False), th_leaf(a, False)
    fn(sa[:, ::3].t(), sl_leaf(b, False))
    fn(ta[:, ::3].t(), th_leaf(b, False))
    assert_close(sl_np(sa), th_np(ta), 1e-6, 1e-6)


def test_masked_fill_inplace(rng):
    a = randn(rng, (3, 4))
    mask = rng.random((3, 4)) < 0.5
    sa, ta = sl_leaf(a, False), th_leaf(a, False)
    r = sa.masked_fill_(sl_leaf(mask), -9.0)
    ta.masked_fill_(th_leaf(mask), -9.0)
    assert r is sa
    assert_close(sl_np(sa), th_np(ta), 0, 0)
    # broadcast mask (4,) over rows
    m2 = rng.random((4,)) < 0.5
    sa.masked_fill_(sl_leaf(m2), 3.5)
    ta.masked_fill_(th_leaf(m2), 3.5)
    assert_close(sl_np(sa), th_np(ta), 0, 0)


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_", "+=", "*=", "clamp_", "add_scalar"])
def test_inplace_autograd_on_intermediate(rng, name):
    """In-place on a non-leaf intermediate is recorded by autograd (torch semantics)."""
    fn = INPLACE[name]
    x = randn(rng, (3, 4), np.float64)
    z = away_from_zero(rng, (4,), np.float64)
    assert_matches_torch(lambda a, b: fn(a * 2.0, b).exp(), lambda a, b: fn(a * 2.0, b).exp(), [x, z])


def test_inplace_on_view_of_intermediate_autograd(rng):
    """y = x * 1; y[:, 1:].add_(z); (y * y).sum(): torch rebases the view's history."""
    x = randn(rng, (3, 4), np.float64)
    z = randn(rng, (3, 3), np.float64)

    def f(a, b):
        y = a * 1.0
        y[:, 1:].mul_(b)
        return y * y

    assert_matches_torch(f, f, [x, z])


def test_inplace_int_tensor(rng):
    a = rng.integers(-5, 5, size=(5,)).astype(np.int64)
    s, t = sl_leaf(a), th_leaf(a)
    s += 3
    t += 3
    s.mul_(2)
    t.mul_(2)
    assert_close(sl_np(s), th_np(t), 0, 0)


# ----------------------------------------------------------------------------------------
# Gradcheck (float64, finite differences) for every differentiable elementwise op
# ----------------------------------------------------------------------------------------

GRADCHECK_BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]


@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (2, 3))], ids=["same", "bcast", "scalar"])
@pytest.mark.parametrize("name", GRADCHECK_BINARY)
def test_gradcheck_binary(rng, name, sa, sb):
    a, b = binary_inputs(rng, name, sa, sb, np.float64)
    if name in ("maximum", "minimum"):
        # a on the grid k/2, b on the grid k/2 + 1/4: never within eps of a tie
        a = rng.integers(-4, 5, size=sa) * 0.5
        b = rng.integers(-4, 5, size=sb) * 0.5 + 0.25
    assert_gradcheck(lambda x, y: getattr(seqlab, name)(x, y), [a, b])


@pytest.mark.parametrize("name", [n for n in UNARY if not n.startswith("method.")])
def test_gradcheck_unary(rng, name):
    fn, kind = UNARY[name]
    x = unary_input(rng, kind, (3, 4), np.float64)
    if name.startswith("clamp"):
        # keep values away from the clamp bounds
        x = np.where(np.abs(np.abs(x) - 0.5) < 0.02, x + 0.1, x)
        x = np.where(np.abs(x + 0.3) < 0.02, x + 0.1, x)
        x = np.where(np.abs(x - 0.2) < 0.02, x + 0.1, x)
    assert_gradcheck(lambda a: fn(seqlab, a), [x])


def test_gradcheck_where(rng):
    cond = rng.random((3, 4)) < 0.5
    a, b = randn(rng, (3, 4), np.float64), randn(rng, (4,), np.float64)
    assert_gradcheck(lambda c, x, y: seqlab.where(c, x, y), [cond, a, b])


def test_gradcheck_scalar_ops(rng):
    x = uniform(rng, (2, 3), 0.5, 2.0, np.float64)
    assert_gradcheck(lambda a: (2 ** a) + (1 / a) - a ** 3 + 3.0 * a - 1.5, [x])


# ----------------------------------------------------------------------------------------
# The functions course code needs: edge values, integer inputs, in place
# ----------------------------------------------------------------------------------------

MATH = ["sin", "cos", "tan", "log2", "log10", "log1p", "expm1", "erf", "erfc", "erfinv", "rsqrt", "sign", "floor", "ceil",
        "round", "trunc", "frac"]
INF, NAN = np.inf, np.nan
EDGE_VALUES = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0, -2.0, 1e-30, -1e-30, 1e-8, -3.7, 7.25, 1e10, -1e10,
               1e30, -1e30, 3e38, INF, -INF, NAN]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", MATH)
def test_math_edge_values(name, dtype):
    """0, -0, halfway cases, tiny, huge, ±inf and NaN: values and gradients as torch's."""
    x = np.array(EDGE_VALUES, dtype=dtype)
    with np.errstate(over="ignore"):
        assert_matches_torch(lambda a: getattr(seqlab, name)(a), lambda a: getattr(torch, name)(a), [x])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_large_arguments(name, dtype):
    """Range reduction: sin(1e22) is a number in [-1, 1], and the same number as torch's."""
    big = [1e4, 12345.678, -98765.4321, 1e6, 1e10, 1e15, 1e20, 1e22, 1e30, -3e38]
    if dtype == np.float64:
        big += [1e100, 1e300, -1.7e308]
    x = np.array(big, dtype=dtype)
    assert_matches_torch(lambda a: getattr(seqlab, name)(a), lambda a: getattr(torch, name)(a), [x])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_round_halfway_cases_go_to_even(dtype):
    x = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 0.49999997, 1 - 2**-24, 8388607.5, 2**23 + 1.0,
                  4503599627370495.5, -4503599627370497.0], dtype=dtype)
    out = assert_matches_torch(lambda a: seqlab.round(a), lambda a: torch.round(a), [x])
    assert sl_np(out)[:7].tolist() == [0.0, 2.0, 2.0, 4.0, -0.0, -2.0, -2.0]


ROUND_DECIMALS = {
    1: [0.05, 0.15, 0.25, 0.35, 1.25, 2.675, -0.35, -0.45, 123.456, 1e-3],
    2: [0.125, 0.375, 1.005, -2.675, 1e-8, 3.14159],
    3: [1.0005, 2.0015, -0.0005, 1e30],
    -1: [5.0, 15.0, 25.0, -35.0, 1234.5, 4.9],
    -2: [50.0, 150.0, 250.0, -149.0, 1e30],
    0: [0.5, 1.5, -2.5],
    10: [1.23456789012345, 1e30, -3e38],
    40: [1.5, 0.0, -2.0],  # 10**40 overflows float32: NaN as in torch
    -40: [1.5, 1e39, -2.0],
    400: [1.5, 0.0],  # 10**400 overflows float64 too
    -400: [1.5, -2.0],
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("decimals", list(ROUND_DECIMALS))
def test_round_decimals(decimals, dtype):
    """round(x, decimals=d): nearbyint(x * 10^d) / 10^d as torch computes it: 2.675 -> 2.68 (2.675 * 100
    rounds to 267.5, then half to even), where Python's round(2.675, 2) is 2.67."""
    with np.errstate(over="ignore"):
        x = np.array(ROUND_DECIMALS[decimals] + [INF, -INF, NAN, -0.0], dtype=dtype)
    assert_matches_torch(lambda a: seqlab.round(a, decimals=decimals), lambda a: torch.round(a, decimals=decimals),
                         [x], atol=0, rtol=0)
    assert_matches_torch(lambda a: a.round(decimals=decimals), lambda a: a.round(decimals=decimals), [x], atol=0,
                         rtol=0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "sign"])
def test_piecewise_constant_ops_have_zero_gradient(name, dtype):
    """torch's gradient is zeros_like(grad), also at the jumps and for inf."""
    x = np.array([-1.5, -1.0, 0.0, 0.3, 2.0, INF], dtype=dtype)
    t = sl_leaf(x)
    getattr(t, name)().sum().backward()
    assert sl_np(t.grad).tolist() == [0.0] * 6
    assert getattr(t * 1.0, name)().grad_fn.name() == getattr(th_leaf(x) * 1.0, name)().grad_fn.name()


INT_INPUTS = {"int64": np.array([-7, -1, 0, 1, 3, 10], dtype=np.int64),
              "bool": np.array([True, False, True])}


@pytest.mark.parametrize("kind", list(INT_INPUTS))
@pytest.mark.parametrize("call", ["function", "method", "inplace", "decimals"])
@pytest.mark.parametrize("name", MATH)
def test_math_integer_and_bool_inputs(name, call, kind):
    """torch computes sin .. rsqrt of integers in float32, keeps floor .. sign on integers, has no
    bool kernel for the rounding ops, and no integer kernel for frac or round(decimals=);
    x.sin_() of an integer tensor cannot hold the result. seqlab: the same dtypes, values, errors."""
    if call == "decimals" and name != "round":
        return

    def run(lib, t):
        if call == "function":
            return getattr(lib, name)(t)
        if call == "method":
            return getattr(t, name)()
        if call == "decimals":
            return lib.round(t, decimals=1), t.round(decimals=0)
        return getattr(t, name + "_")()

    x = INT_INPUTS[kind]
    try:
        expected = run(torch, th_leaf(x))
    except Exception:
        assert_raises_like_torch(lambda: run(seqlab, sl_leaf(x)), lambda: run(torch, th_leaf(x)),
                                 name if call != "inplace" else r"result type Float can't be cast to the desired "
                                 r"output type (Long|Bool)|" + name)
        return
    assert_matches_torch(lambda a: run(seqlab, a), lambda a: expected, [x], grad=False, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("name", MATH)
def test_math_inplace(rng, name):
    """x.f_() writes f(x) into x (also through a non-contiguous view), returns x, and under
    autograd on an intermediate records the op as torch does."""
    x = randn(rng, (3, 4), np.float64) * 2
    if name in ("log2", "log10"):
        x = np.abs(x) + 0.1
    if name == "log1p":
        x = np.abs(x) - 0.5
    s, t = sl_leaf(x, False), th_leaf(x, False)
    assert getattr(s, name + "_")() is s
    getattr(t, name + "_")()
    assert_close(sl_np(s), th_np(t), 1e-12, 1e-12, what=name + "_")
    s, t = sl_leaf(x, False), th_leaf(x, False)
    getattr(s[:, ::2].t(), name + "_")()
    getattr(t[:, ::2].t(), name + "_")()
    assert_close(sl_np(s), th_np(t), 1e-12, 1e-12, what=name + "_ through a view")
    assert_matches_torch(lambda a: getattr(a * 1.5, name + "_")() * a, lambda a: getattr(a * 1.5, name + "_")() * a,
                         [x])
    if name == "round":
        s, t = sl_leaf(x, False), th_leaf(x, False)
        s.round_(decimals=1)
        t.round_(decimals=1)
        assert_close(sl_np(s), th_np(t), 0, 0, what="round_(decimals=1)")


@pytest.mark.parametrize("name", ["sin", "floor", "remainder", "fmod"])
def test_math_inplace_errors(name):
    """In-place on a leaf that requires grad, and on an expanded tensor, raise torch's errors."""
    args = (2.0,) if name in ("remainder", "fmod") else ()
    assert_raises_like_torch(lambda: getattr(seqlab.ones(3, requires_grad=True), name + "_")(*args),
                             lambda: getattr(torch.ones(3, requires_grad=True), name + "_")(*args),
                             "a leaf Variable that requires grad is being used in an in-place operation")
    assert_raises_like_torch(lambda: getattr(seqlab.ones(1, 3).expand(2, 3), name + "_")(*args),
                             lambda: getattr(torch.ones(1, 3).expand(2, 3), name + "_")(*args),
                             "more than one element of the written-to tensor refers to a single memory location")


# ---------------------------------------------------------------- remainder and fmod
MODULO = {
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "op%": lambda lib, a, b: a % b,
    "method.remainder": lambda lib, a, b: a.remainder(b),
    "method.fmod": lambda lib, a, b: a.fmod(b),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("sa,sb", BROADCAST_SHAPES, ids=[shape_id(a, b) for a, b in BROADCAST_SHAPES])
@pytest.mark.parametrize("name", list(MODULO))
def test_modulo_broadcast(rng, name, sa, sb, dtype):
    """Both gradients: 1 for the dividend, -floor(a/b) (remainder) or -trunc(a/b) (fmod) for the divisor."""
    a = randn(rng, sa, dtype) * 5
    b = away_from_zero(rng, sb, dtype, 0.5, 3.0)
    fn = MODULO[name]
    assert_matches_torch(lambda x, y: fn(seqlab, x, y), lambda x, y: fn(torch, x, y), [a, b])


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_modulo_noncontiguous(rng, name, layout):
    a, b = randn(rng, (3, 5)) * 5, away_from_zero(rng, (3, 5), np.float32, 0.5, 3.0)
    fn = MODULO[name]
    assert_matches_torch(lambda x, y: fn(seqlab, x, y), lambda x, y: fn(torch, x, y), [a, b], layout=layout)


MODULO_SCALARS = {
    "t%2.5": lambda t: t % 2.5,
    "t%-2": lambda t: t % -2,
    "t%1(int)": lambda t: t % 1,
    "remainder(t,-1.5)": lambda t: t.remainder(-1.5),
    "fmod(t,2)": lambda t: t.fmod(2),
    "fmod(t,-1.5)": lambda t: t.fmod(-1.5),
    "remainder(t,0-d float64)": lambda t: t.remainder(t.new_tensor(2.0).double()),  # keeps t's dtype
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(MODULO_SCALARS))
def test_modulo_scalar_divisor(rng, name, dtype):
    x = randn(rng, (3, 4), dtype) * 5
    fn = MODULO_SCALARS[name]
    out = assert_matches_torch(fn, fn, [x])
    assert out.dtype == (seqlab.float32 if dtype == np.float32 else seqlab.float64)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_number_modulo_tensor(rng, dtype):
    """7 % x and torch.remainder(7, x): the number is the dividend, the sign is x's. torch records
    no derivative for this form: the output requires grad and backward raises."""
    x = away_from_zero(rng, (3, 4), dtype, 0.5, 3.0)
    for fn in (lambda lib, t: 7 % t, lambda lib, t: -2.5 % t, lambda lib, t: lib.remainder(7, t),
               lambda lib, t: lib.remainder(-2.5, t)):
        assert_matches_torch(lambda t: fn(seqlab, t), lambda t: fn(torch, t), [x], grad=False)
        s, t = sl_leaf(x), th_leaf(x)
        so, to = fn(seqlab, s), fn(torch, t)
        assert so.requires_grad and to.requires_grad
        assert so.grad_fn.name() == type(to.grad_fn).__name__ == "NotImplemented"
        assert_raises_like_torch(lambda: so.sum().backward(), lambda: to.sum().backward(),
                                 "derivative for aten::remainder is not implemented")


MODULO_EDGE_A = [5.0, -5.0, 5.0, -5.0, 0.0, -0.0, 0.0, -0.0, 5.5, 5.0, -5.0, INF, -INF, NAN, 1e30, -1e-30, 3.0,
                 7.5, -7.5, 1.0]
MODULO_EDGE_B = [3.0, 3.0, -3.0, -3.0, 2.0, 2.0, -2.0, -2.0, 0.0, INF, INF, 2.0, 2.0, 2.0, 3.0, 3.0, NAN, -INF,
                 -INF, -0.0]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_modulo_edge_values(name, dtype):
    """Signs (remainder follows b, fmod follows a), signed zeros, division by zero (NaN), ±inf and
    NaN operands: as torch, gradients included."""
    a, b = np.array(MODULO_EDGE_A, dtype=dtype), np.array(MODULO_EDGE_B, dtype=dtype)
    out = assert_matches_torch(lambda x, y: getattr(seqlab, name)(x, y), lambda x, y: getattr(torch, name)(x, y),
                               [a, b])
    expected = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    number = ~np.isnan(expected)  # (a NaN's sign bit means nothing)
    np.testing.assert_array_equal(np.signbit(sl_np(out))[number], np.signbit(expected)[number])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_remainder_divisor_gradient_is_python_floor_division(dtype):
    """-grad * (a // b) with Python's floor division, which is exact where floor(a / b) is not:
    0.3 // 0.1 is 2 (0.3 / 0.1 rounds to 3.0000000000000004), and torch agrees."""
    a = np.array([0.3, 1.0, -0.3, 0.7, 1e16 + 2, -1.0, 5.0, 0.0, -0.0], dtype=dtype)
    b = np.array([0.1, 0.1, 0.1, 0.1, 3.0, 3.0, -1e-30, 3.0, -3.0], dtype=dtype)
    assert_matches_torch(lambda x, y: seqlab.remainder(x, y), lambda x, y: torch.remainder(x, y), [a, b],
                         atol=0, rtol=0)
    assert_matches_torch(lambda x, y: seqlab.fmod(x, y), lambda x, y: torch.fmod(x, y), [a, b], atol=0, rtol=0)


MODULO_INT = {
    "int%int": (np.array([-7, -1, 0, 7, 5, 9]), np.array([2, -3, -2, 3, 5, -4])),
    "int%int-bcast": (np.array([[-7], [7], [0]]), np.array([3, -3])),
    "int%float": (np.array([-7, 0, 7]), 2.5),
    "int%-2": (np.array([-7, 0, 7]), -2),
    "bool%2": (np.array([True, False]), 2),
    "bool%1.5": (np.array([True, False]), 1.5),
    "int%bool": (np.array([3, 4]), np.array([True, True])),
    "int%0d-f64": (np.array([5, 6]), np.array(2.5)),
    "int64min%-1": (np.array([-2**63, 5]), -1),
    "empty%0": (np.zeros((0, 3), dtype=np.int64), 0),
    "int%0": (np.array([1, 2]), 0),
    "int%has0": (np.array([1, 2]), np.array([3, 0])),
    "int%0.0": (np.array([1, -2, 0]), 0.0),
    "bool%bool": (np.array([True, False]), np.array([True, True])),
    "bool%True": (np.array([True, False]), True),
}


@pytest.mark.parametrize("name", ["remainder", "fmod", "op%"])
@pytest.mark.parametrize("case", list(MODULO_INT))
def test_modulo_integers_and_bools(case, name):
    """torch's result types, Python's sign convention for remainder, and torch's errors:
    ZeroDivisionError for an integer divisor 0 (not for an empty result), no bool kernel."""
    a, b = MODULO_INT[case]
    fn = MODULO[name]

    def run(lib, leaf):
        x = leaf(a, False)
        y = leaf(b, False) if isinstance(b, np.ndarray) else b
        return fn(lib, x, y)

    try:
        expected = run(torch, th_leaf)
    except Exception:
        assert_raises_like_torch(lambda: run(seqlab, sl_leaf), lambda: run(torch, th_leaf),
                                 r"ZeroDivisionError|(remainder|fmod)_cpu\" not implemented for 'Bool'")
        return
    assert_close(sl_np(run(seqlab, sl_leaf)), th_np(expected), 1e-6, 1e-6, what=case)


def _modulo_(t, name, other):
    if name == "%=":
        t %= other
        return t
    return getattr(t, name)(other)


@pytest.mark.parametrize("b", [3, -2.5, "tensor", "tensor-f64"])
@pytest.mark.parametrize("name", ["remainder_", "fmod_", "%="])
def test_modulo_inplace(rng, name, b):
    """x.remainder_(b), x.fmod_(b), x %= b write into x, keep its dtype, and under autograd (on an
    intermediate) give both gradients as torch."""
    x = randn(rng, (3, 4)) * 5
    y = away_from_zero(rng, (4,), np.float64 if b == "tensor-f64" else np.float32, 0.5, 3.0)
    s, t = sl_leaf(x, False), th_leaf(x, False)
    other_s, other_t = (sl_leaf(y, False), th_leaf(y, False)) if isinstance(b, str) else (b, b)
    assert _modulo_(s, name, other_s) is s
    _modulo_(t, name, other_t)
    assert_close(sl_np(s), th_np(t), 1e-6, 1e-6, what=name)
    if isinstance(b, str):
        assert_matches_torch(lambda u, v: _modulo_(u * 1.0, name, v) * u, lambda u, v: _modulo_(u * 1.0, name, v) * u,
                             [x, y], atol=1e-5, rtol=1e-4)
    else:
        assert_matches_torch(lambda u: _modulo_(u * 1.0, name, b) * u, lambda u: _modulo_(u * 1.0, name, b) * u, [x])


@pytest.mark.parametrize("name", ["remainder_", "fmod_", "%="])
def test_modulo_inplace_integer_errors(name):
    """An integer tensor cannot hold x % 2.5; integer x %= 0 is ZeroDivisionError and leaves x as it was."""
    def run(lib, other):
        t = lib.tensor([5, -7, 9])
        if name == "%=":
            t %= other
        else:
            getattr(t, name)(other)
        return t

    assert_raises_like_torch(lambda: run(seqlab, 2.5), lambda: run(torch, 2.5),
                             "result type Float can't be cast to the desired output type Long")
    assert_raises_like_torch(lambda: run(seqlab, 0), lambda: run(torch, 0), "ZeroDivisionError")
    t = seqlab.tensor([5, -7, 9])
    with pytest.raises(RuntimeError):
        t.remainder_(seqlab.tensor([2, 0, 2]))
    assert t.tolist() == [5, -7, 9]
    assert run(seqlab, -2).tolist() == run(torch, -2).tolist()


@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (2, 3)), ((2, 3), ())],
                         ids=["same", "bcast", "0-d-dividend", "0-d-divisor"])
@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_gradcheck_modulo(rng, name, sa, sb):
    # divisors ±1.5 and dividends (k + f) * 1.5 with f in [0.1, 0.9]: every quotient a/b is
    # ±(k + f), far from the integers where a // b jumps
    b = np.where(rng.random(sb) < 0.5, -1.5, 1.5)
    a = (rng.integers(-4, 5, size=sa) + rng.uniform(0.1, 0.9, size=sa)) * 1.5
    assert_gradcheck(lambda x, y: getattr(seqlab, name)(x, y), [a, b])
