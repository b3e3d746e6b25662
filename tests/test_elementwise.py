"""Elementwise ops (binary with broadcasting, unary, comparisons, logical, in-place) vs torch.

Follows torch's elementwise semantics (broadcasting, type promotion, gradients); gradchecks in
float64 at the bottom. Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_gradcheck, assert_matches_torch,
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
}

UNARY_SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 4), (0,), (2, 0, 3), (1, 1, 1)]


def unary_input(rng, kind, shape, dtype):
    if kind == "pos":
        return uniform(rng, shape, 0.2, 3.0, dtype)
    if kind == "nonzero":
        return away_from_zero(rng, shape, dtype, 0.05, 2.0)
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
