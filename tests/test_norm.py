"""Vector norms (Tensor.norm, seqlab.norm, seqlab.linalg.vector_norm: the C++ op vector_norm in
cpp/src/ops/reduce.cpp) vs torch.linalg.vector_norm, forward and gradient.

Covers ord 2, 1, inf, -inf, 0 and other p, dim=None/int/tuple, keepdim, non-contiguous input,
size-0 input where torch defines it (and its errors where it does not), the gradient at zero
(0, as torch: the composed sqrt(sum(x*x)) gave NaN), float32/float64, and gradchecks in float64
at the bottom. Helpers live in tests/conftest.py.
"""

import math

import numpy as np
import pytest
import torch

import seqlab
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_gradcheck, assert_matches_torch, assert_raises_like_torch, randn, shape_id,
    sl_leaf, th_leaf, tol,
)

ORDS = [2, 1, math.inf, -math.inf, 0, 3, 0.5, -1, -2.5]
ORD_IDS = ["2", "1", "inf", "-inf", "0", "3", "0.5", "-1", "-2.5"]


def distinct_abs(rng, shape, dtype):
    """Random values whose magnitudes are distinct and non-zero (so the inf-norms' argmax and
    every |x|^(p-1) are unambiguous), with random signs."""
    n = int(np.prod(shape)) if len(shape) else 1
    mags = (rng.permutation(n) + 1.0) / n * 2.0
    signs = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return (mags * signs).astype(dtype).reshape(shape)


# (shape, dim, keepdim)
NORM_CASES = [
    ((3, 4), None, False),
    ((3, 4), 0, False),
    ((3, 4), 1, True),
    ((3, 4), -1, False),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (0, 2), True),
    ((2, 3, 4), (-1, -2), False),
    ((2, 3, 4), (0, 1, 2), True),
    ((5,), 0, False),
    ((), None, False),
    ((4, 1, 3), 1, False),
    ((64, 129), 1, False),
    ((129, 64), 0, False),
]


def case_id(case):
    shape, dim, keepdim = case
    return f"{shape_id(shape)}-dim={dim}" + ("-keepdim" if keepdim else "")


def kwargs(dim, keepdim):
    return {} if dim is None else {"dim": dim, "keepdim": keepdim}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", NORM_CASES, ids=[case_id(c) for c in NORM_CASES])
@pytest.mark.parametrize("ord", ORDS, ids=ORD_IDS)
def test_vector_norm_matches_torch(rng, ord, case, dtype):
    shape, dim, keepdim = case
    kw = kwargs(dim, keepdim)
    x = distinct_abs(rng, shape, dtype)
    atol, rtol = tol(dtype, 10)
    assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a, ord, **kw),
                         lambda a: torch.linalg.vector_norm(a, ord, **kw), [x], atol=atol, rtol=rtol)


@pytest.mark.parametrize("ord", [2, 1, math.inf, 3, 0], ids=["2", "1", "inf", "3", "0"])
def test_tensor_norm_and_seqlab_norm_match_torch(rng, ord):
    x = distinct_abs(rng, (3, 5), np.float32)
    for dim, keepdim in ((None, False), (1, False), ((0, 1), True)):
        kw = kwargs(dim, keepdim)
        assert_matches_torch(lambda a: a.norm(ord, **kw), lambda a: a.norm(ord, **kw), [x])
        assert_matches_torch(lambda a: seqlab.norm(a, ord, **kw), lambda a: torch.norm(a, ord, **kw), [x])
    # positional dim and keepdim, as torch's signature norm(p, dim, keepdim, dtype)
    assert_matches_torch(lambda a: a.norm(ord, 1, True), lambda a: a.norm(ord, 1, True), [x])


def test_the_default_is_the_frobenius_norm_which_is_the_2_norm(rng):
    x = distinct_abs(rng, (2, 3, 4), np.float64)
    assert_matches_torch(lambda a: a.norm(), lambda a: a.norm(), [x])
    assert_matches_torch(lambda a: a.norm("fro", dim=(1, 2)), lambda a: a.norm("fro", dim=(1, 2)), [x])
    assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a), lambda a: torch.linalg.vector_norm(a), [x])


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)], ids=str)
@pytest.mark.parametrize("ord", [2, 1, math.inf, 0.5], ids=["2", "1", "inf", "0.5"])
def test_vector_norm_noncontiguous(rng, ord, dim, layout):
    kw = {} if dim is None else {"dim": dim}
    x = distinct_abs(rng, (5, 7), np.float32)
    assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a, ord, **kw),
                         lambda a: torch.linalg.vector_norm(a, ord, **kw), [x], layout=layout, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("ord", ORDS, ids=ORD_IDS)
def test_the_gradient_at_zero_is_torchs(ord):
    """Rows that are all zero, and zeros beside non-zeros: torch's subgradient (0 where the norm
    is 0, sgn(x) for p = 1, 0 at x = 0 for p < 1), never NaN."""
    x = np.array([[0.0, 0.0, 0.0], [0.0, -2.0, 0.5], [1.5, -2.0, 0.5]])
    assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a, ord, dim=1),
                         lambda a: torch.linalg.vector_norm(a, ord, dim=1), [x])
    assert_matches_torch(lambda a: a[0].norm(ord), lambda a: a[0].norm(ord), [x])


def test_ties_of_the_inf_norm_share_the_gradient_as_in_torch():
    x = np.array([[3.0, -3.0, 1.0], [-2.0, 2.0, 2.0]])
    for ord in (math.inf, -math.inf):
        assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a, ord, dim=1),
                             lambda a: torch.linalg.vector_norm(a, ord, dim=1), [x])


def test_nan_and_inf_propagate_as_in_torch():
    x = np.array([[1.0, np.nan, 2.0], [1.0, np.inf, -2.0], [0.0, 1.0, -2.0]])
    for ord in (2, 1, math.inf, -math.inf, 0, 3):
        assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a, ord, dim=1),
                             lambda a: torch.linalg.vector_norm(a, ord, dim=1), [x])


@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5], ids=["2", "1", "0", "3", "0.5"])
@pytest.mark.parametrize("shape, dim", [((0,), None), ((0, 3), None), ((0, 3), 0), ((0, 3), 1), ((2, 0), (0, 1))],
                         ids=["(0)", "(0,3)", "(0,3)-dim0", "(0,3)-dim1", "(2,0)-dims"])
def test_size0_where_torch_defines_it(ord, shape, dim):
    kw = {} if dim is None else {"dim": dim}
    assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a, ord, **kw),
                         lambda a: torch.linalg.vector_norm(a, ord, **kw), [np.zeros(shape, np.float32)])


@pytest.mark.parametrize("ord", [math.inf, -math.inf, -1, -2.5], ids=["inf", "-inf", "-1", "-2.5"])
def test_orders_without_identity_refuse_size0_as_torch(ord):
    for shape, kw, what in (((0,), {}, "on an empty tensor"), ((0, 3), {"dim": 0}, "on the dimension 0"),
                            ((2, 0), {"dim": (0, 1)}, "on the dimension 1")):
        assert_raises_like_torch(lambda: seqlab.linalg.vector_norm(seqlab.zeros(shape), ord, **kw),
                                 lambda: torch.linalg.vector_norm(torch.zeros(shape), ord, **kw),
                                 "cannot compute the .*inf|cannot compute the -", what)
    # reducing another dim of an empty tensor is fine: nothing to reduce over is empty
    assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a, ord, dim=1),
                         lambda a: torch.linalg.vector_norm(a, ord, dim=1), [np.zeros((0, 3), np.float32)])


def test_dtype_argument_as_torch(rng):
    x = distinct_abs(rng, (3, 4), np.float32)
    assert_matches_torch(lambda a: seqlab.linalg.vector_norm(a, 2, dim=1, dtype=seqlab.float64),
                         lambda a: torch.linalg.vector_norm(a, 2, dim=1, dtype=torch.float64), [x])
    assert_matches_torch(lambda a: a.norm(3, dtype=seqlab.float64), lambda a: a.norm(3, dtype=torch.float64), [x])
    f64 = {"dtype": seqlab.float64}, {"dtype": torch.float64}
    assert_raises_like_torch(lambda: seqlab.linalg.vector_norm(seqlab.ones(3, **f64[0]), dtype=seqlab.float32),
                             lambda: torch.linalg.vector_norm(torch.ones(3, **f64[1]), dtype=torch.float32),
                             "convertible without narrowing")
    assert_raises_like_torch(lambda: seqlab.linalg.vector_norm(seqlab.ones(3), dtype=seqlab.int64),
                             lambda: torch.linalg.vector_norm(torch.ones(3), dtype=torch.int64),
                             "dtype should be floating point")


@pytest.mark.parametrize("expr, fragment", [
    (lambda L: L.linalg.vector_norm(L.arange(3)), "Expected a floating point"),
    (lambda L: L.arange(3).norm(), "Expected a floating point"),
    (lambda L: L.ones(2, 3).norm(dim=(0, 0)), "appears multiple times"),
    (lambda L: L.ones(2, 3).norm(dim=2), "out of range"),
    (lambda L: L.ones(2, 2, 2).norm("fro", dim=(0, 1, 2)), "dim must be a 2-tuple"),
    (lambda L: L.ones(2, 2).norm("abc"), "Order abc not supported"),
    (lambda L: L.linalg.vector_norm(L.ones(2), "fro"), "must be Number"),
    (lambda L: L.ones(2).norm(None, dim=None), None),  # p=None is 2, as torch
], ids=["int-input", "int-method", "repeated-dim", "dim-range", "fro-3-dims", "bad-order", "str-ord", "p-none"])
def test_errors_as_torch(expr, fragment):
    if fragment is None:
        assert expr(seqlab).item() == pytest.approx(expr(torch).item())
        return
    assert_raises_like_torch(lambda: expr(seqlab), lambda: expr(torch), fragment)


def test_nuclear_norm_is_refused_clearly():
    with pytest.raises(RuntimeError, match="nuc.*not supported by seqlab"):
        seqlab.ones(2, 2).norm("nuc")


def test_no_overflow_or_underflow_where_the_norm_is_representable():
    """Σ|x|^p is accumulated in double for float32, and rescaled by max |x| where it overflows or
    underflows the accumulator (torch returns inf and 0 here: a silently wrong answer)."""
    big32 = seqlab.tensor([1e20, 1e20]).norm()
    assert big32.item() == pytest.approx(math.sqrt(2) * 1e20, rel=1e-6)
    for value, ord in ((1e200, 2), (1e-200, 2), (1e120, 3), (1e-120, 3), (1e200, 0.5), (1e-200, -1)):
        x = seqlab.tensor([value, value, 2 * value], dtype=seqlab.float64)
        exact = value * (1 + 1 + 2 ** ord) ** (1 / ord)
        assert x.norm(ord).item() == pytest.approx(exact, rel=1e-12), (value, ord)
    # p < 0: a zero makes the norm 0; an infinite element makes p > 0 norms inf
    assert seqlab.tensor([0.0, 1e-200], dtype=seqlab.float64).norm(-2).item() == 0.0
    assert seqlab.tensor([math.inf, 1e-200], dtype=seqlab.float64).norm(3).item() == math.inf


def test_a_long_reduction_over_the_pool_matches_numpy(rng):
    x = rng.standard_normal(300_001).astype(np.float32)
    for ord in (2, 1, math.inf, 3):
        got = seqlab.from_numpy(x).norm(ord).item()
        expected = np.linalg.norm(x.astype(np.float64), ord)
        assert got == pytest.approx(expected, rel=1e-6), ord


def test_backward_refuses_an_input_modified_in_place():
    x = seqlab.ones(3, requires_grad=True)
    y = x * 2
    n = y.norm()
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        n.backward()


# ----------------------------------------------------------------------------------------
# Gradchecks
# ----------------------------------------------------------------------------------------

GRADCHECK_NORMS = {
    "2": lambda a: a.norm(),
    "2-dim": lambda a: a.norm(dim=1),
    "1-dim-keepdim": lambda a: a.norm(1, dim=-1, keepdim=True),
    "inf-dims": lambda a: seqlab.linalg.vector_norm(a, math.inf, dim=(0, 2)),
    "-inf-dim": lambda a: seqlab.linalg.vector_norm(a, -math.inf, dim=0),
    "3": lambda a: a.norm(3),
    "0.5-dim": lambda a: a.norm(0.5, dim=2),
    "-1-dim": lambda a: seqlab.norm(a, -1, dim=1),
    "2-noncontiguous": lambda a: a.transpose(0, 2).norm(dim=(0, 1)),
}


@pytest.mark.parametrize("name", list(GRADCHECK_NORMS))
def test_gradcheck_norms(rng, name):
    x = distinct_abs(rng, (2, 3, 4), np.float64)
    assert_gradcheck(GRADCHECK_NORMS[name], [x])


def test_gradcheck_at_zero_is_not_nan():
    x = sl_leaf(np.zeros((2, 3)), requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [[0.0] * 3] * 2
    t = th_leaf(np.zeros((2, 3)), requires_grad=True)
    t.norm().backward()
    assert t.grad.tolist() == x.grad.tolist()


# ---------------------------------------------- F.rms_norm (the fused layer-norm kernels, uncentred)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,normalized", [((3, 8), (8,)), ((2, 3, 4), (3, 4)), ((5, 1), (1,)), ((0, 4), (4,))],
                         ids=["row", "two-dims", "one-element", "empty"])
@pytest.mark.parametrize("eps", [None, 1e-6])
def test_rms_norm_matches_torch(rng, dtype, shape, normalized, eps):
    x, w = randn(rng, shape, dtype) * 3, randn(rng, normalized, dtype)
    f = lambda lib: lambda a, b: lib.nn.functional.rms_norm(a, list(normalized), b, eps)  # noqa: E731
    assert_matches_torch(f(seqlab), f(torch), [x, w])
    assert_matches_torch(lambda a: seqlab.nn.functional.rms_norm(a, normalized, eps=eps),
                         lambda a: torch.nn.functional.rms_norm(a, list(normalized), eps=eps), [x])


def test_rms_norm_gradcheck(rng):
    x, w = randn(rng, (3, 5), np.float64), randn(rng, (5,), np.float64)
    assert_gradcheck(lambda a, b: seqlab.nn.functional.rms_norm(a, (5,), b, 1e-3), [x, w])


def test_rms_norm_errors_name_the_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"rms_norm: Given normalized_shape=\[4\], expected input with shape "
                                           r"\[\*, 4\], but got input of size \[2, 3\]"):
        seqlab.nn.functional.rms_norm(seqlab.ones(2, 3), (4,))
    with pytest.raises(RuntimeError, match=r"rms_norm: weight of shape \[2\] does not match normalized_shape \[3\]"):
        seqlab.nn.functional.rms_norm(seqlab.ones(2, 3), (3,), seqlab.ones(2))
