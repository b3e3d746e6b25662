"""Reductions (sum, mean, max, min, argmax, argmin, var) vs torch, forward and gradient.

Covers dim=None/int/negative/tuple, keepdim, non-contiguous input, size-1 and size-0 dims;
gradchecks in float64 at the bottom. Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_gradcheck, assert_matches_torch,
    randn, shape_id, sl_leaf, sl_np, th_leaf, th_np, tol,
)


def distinct(rng, shape, dtype):
    """Random values without ties (so max/min/argmax and their gradients are unambiguous)."""
    n = int(np.prod(shape)) if len(shape) else 1
    vals = rng.permutation(n).astype(dtype) * 0.25 - n * 0.1
    return vals.reshape(shape)


# (shape, dim, keepdim)
SUM_CASES = [
    ((3, 4), None, False),
    ((3, 4), 0, False),
    ((3, 4), 1, True),
    ((3, 4), -1, False),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (0, 2), True),
    ((2, 3, 4), (-1, -2), False),
    ((2, 3, 4), (0, 1, 2), False),
    ((5,), 0, False),
    ((5,), 0, True),
    ((), None, False),
    ((1, 1), 0, False),
    ((4, 1, 3), 1, False),
    ((0, 3), 0, False),
    ((0, 3), 1, True),
    ((0, 3), None, False),
    ((2, 0, 3), (0, 1), False),
    ((64, 129), 1, False),
]


def case_id(case):
    shape, dim, keepdim = case
    return f"{shape_id(shape)}-dim={dim}" + ("-keepdim" if keepdim else "")


def _red_kwargs(dim, keepdim):
    if dim is None:
        return {}
    return {"dim": dim, "keepdim": keepdim}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", SUM_CASES, ids=[case_id(c) for c in SUM_CASES])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_mean(rng, op, case, dtype):
    shape, dim, keepdim = case
    kw = _red_kwargs(dim, keepdim)
    x = randn(rng, shape, dtype)
    atol, rtol = tol(dtype, 10)
    assert_matches_torch(lambda a: getattr(seqlab, op)(a, **kw), lambda a: getattr(torch, op)(a, **kw), [x],
                         atol=atol, rtol=rtol)
    # method form
    assert_matches_torch(lambda a: getattr(a, op)(**kw), lambda a: getattr(a, op)(**kw), [x], atol=atol, rtol=rtol)


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)], ids=str)
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_mean_noncontiguous(rng, op, dim, layout):
    kw = {} if dim is None else {"dim": dim}
    x = randn(rng, (5, 7), np.float32)
    assert_matches_torch(lambda a: getattr(a, op)(**kw), lambda a: getattr(a, op)(**kw), [x], layout=layout,
                         atol=1e-5, rtol=1e-4)


def test_sum_positional_dim(rng):
    x = randn(rng, (3, 4, 2), np.float64)
    assert_matches_torch(lambda a: a.sum(1), lambda a: a.sum(1), [x])
    assert_matches_torch(lambda a: seqlab.mean(a, 2, True), lambda a: torch.mean(a, 2, True), [x])


def test_sum_int64_and_bool(rng):
    a = rng.integers(-5, 6, size=(3, 4)).astype(np.int64)
    out = assert_matches_torch(lambda t: t.sum(), lambda t: t.sum(), [a], grad=False)
    assert out.dtype == seqlab.int64
    assert_matches_torch(lambda t: t.sum(dim=0), lambda t: t.sum(dim=0), [a], grad=False)
    m = rng.random((4, 5)) < 0.5
    out = assert_matches_torch(lambda t: t.sum(), lambda t: t.sum(), [m], grad=False)
    assert out.dtype == seqlab.int64  # torch sums bools into int64
    assert out.item() == int(m.sum())


def test_sum_of_broadcast_result(rng):
    """Gradient of a reduction of a broadcast op reduces back to each input's shape."""
    a, b = randn(rng, (3, 1), np.float64), randn(rng, (4,), np.float64)
    assert_matches_torch(lambda x, y: (x * y).sum(dim=0), lambda x, y: (x * y).sum(dim=0), [a, b])


def test_sum_mean_large_float32_accurate():
    """Naive float32 accumulation of 4M values drifts by ~1%; torch (pairwise/cascade) does not."""
    x = np.full(4_000_000, 0.1, dtype=np.float32)
    exact = float(x.astype(np.float64).sum())
    s = seqlab.from_numpy(x)
    assert s.sum().item() == pytest.approx(exact, rel=1e-5)
    assert s.mean().item() == pytest.approx(0.1, rel=1e-5)
    # reducing over an outer (strided) dim must be as accurate as over the innermost one
    x2 = np.full((20000, 50), 0.1, dtype=np.float32)
    exact2 = 20000 * float(np.float32(0.1))
    np.testing.assert_allclose(sl_np(seqlab.from_numpy(x2).sum(dim=0)), np.full(50, exact2), rtol=1e-5)
    np.testing.assert_allclose(sl_np(seqlab.from_numpy(x2).mean(dim=0)), np.full(50, exact2 / 20000), rtol=1e-5)
    np.testing.assert_allclose(sl_np(seqlab.from_numpy(x2.T.copy()).sum(dim=1)), np.full(50, exact2), rtol=1e-5)


def test_var_numerically_stable_float32(rng):
    """Large mean, small spread: E[x^2] - E[x]^2 cancels catastrophically in float32; torch is stable."""
    x = (10_000.0 + rng.standard_normal((4, 5000))).astype(np.float32)
    expected = x.astype(np.float64).var(axis=1, ddof=1)
    got = sl_np(seqlab.from_numpy(x).var(dim=1))
    np.testing.assert_allclose(got, expected, rtol=1e-3)
    got_all = seqlab.from_numpy(x).var().item()
    assert got_all == pytest.approx(x.astype(np.float64).var(ddof=1), rel=1e-3)


def test_reduce_expanded_input(rng):
    x = randn(rng, (3, 1), np.float64)
    assert_matches_torch(lambda a: a.expand(3, 5).sum(0), lambda a: a.expand(3, 5).sum(0), [x])
    assert_matches_torch(lambda a: a.expand(3, 5).var(1), lambda a: a.expand(3, 5).var(1), [x])
    assert_matches_torch(lambda a: tuple(a.expand(2, 3, 4).max(dim=2)), lambda a: tuple(a.expand(2, 3, 4).max(dim=2)),
                         [x], grad=False)


def test_mean_value_matches_formula(rng):
    x = randn(rng, (6, 5), np.float64)
    t = sl_leaf(x)
    np.testing.assert_allclose(t.mean().item(), x.mean(), rtol=1e-12)
    t.mean().backward()
    np.testing.assert_allclose(sl_np(t.grad), np.full((6, 5), 1 / 30))


# ----------------------------------------------------------------------------------------
# max / min
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (), (1, 1)], ids=shape_id)
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_full(rng, op, shape, dtype):
    x = distinct(rng, shape, dtype)
    out = assert_matches_torch(lambda a: getattr(seqlab, op)(a), lambda a: getattr(torch, op)(a), [x])
    assert tuple(out.shape) == ()
    assert_matches_torch(lambda a: getattr(a, op)(), lambda a: getattr(a, op)(), [x])


def test_max_full_ties_gradient_distributed():
    """torch's full max() splits the gradient evenly among tied maxima."""
    x = np.array([[1.0, 3.0], [3.0, 0.0]], dtype=np.float64)
    assert_matches_torch(lambda a: a.max(), lambda a: a.max(), [x])
    assert_matches_torch(lambda a: a.min(), lambda a: a.min(), [np.array([2.0, -1.0, -1.0, -1.0])])


MAXDIM_CASES = [
    ((3, 4), 0, False),
    ((3, 4), 1, False),
    ((3, 4), -1, True),
    ((2, 3, 4), 1, False),
    ((2, 3, 4), -3, True),
    ((5,), 0, False),
    ((1, 4), 0, False),
    ((4, 1), 1, True),
    ((2, 0), 0, False),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", MAXDIM_CASES, ids=[case_id(c) for c in MAXDIM_CASES])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_dim(rng, op, case, dtype):
    shape, dim, keepdim = case
    x = distinct(rng, shape, dtype)
    assert_matches_torch(lambda a: tuple(getattr(seqlab, op)(a, dim, keepdim)),
                         lambda a: tuple(getattr(torch, op)(a, dim, keepdim)), [x])
    assert_matches_torch(lambda a: tuple(getattr(a, op)(dim=dim, keepdim=keepdim)),
                         lambda a: tuple(getattr(a, op)(dim=dim, keepdim=keepdim)), [x])


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_dim_namedtuple(rng, op):
    x = distinct(rng, (3, 5), np.float32)
    s, t = sl_leaf(x), th_leaf(x)
    rs, rt = getattr(s, op)(dim=1), getattr(t, op)(dim=1)
    assert_close(sl_np(rs.values), th_np(rt.values), 0, 0)
    assert_close(sl_np(rs.indices), th_np(rt.indices), 0, 0)
    values, indices = rs
    assert_close(sl_np(values), th_np(rt[0]), 0, 0)
    assert indices.dtype == seqlab.int64
    assert rs[1].dtype == seqlab.int64
    assert values.requires_grad and not indices.requires_grad


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_noncontiguous(rng, op, layout):
    x = distinct(rng, (4, 6), np.float32)
    assert_matches_torch(lambda a: tuple(getattr(a, op)(dim=0)), lambda a: tuple(getattr(a, op)(dim=0)), [x],
                         layout=layout)
    assert_matches_torch(lambda a: getattr(a, op)(), lambda a: getattr(a, op)(), [x], layout=layout)


def test_max_with_infinities():
    x = np.array([[-np.inf, 1.0, np.inf], [-np.inf, -np.inf, -2.0]], dtype=np.float32)
    assert_matches_torch(lambda a: tuple(a.max(dim=1)), lambda a: tuple(a.max(dim=1)), [x], grad=False)
    assert_matches_torch(lambda a: tuple(a.min(dim=0)), lambda a: tuple(a.min(dim=0)), [x], grad=False)


def test_max_int64(rng):
    a = rng.permutation(12).astype(np.int64).reshape(3, 4)
    assert_matches_torch(lambda t: t.max(), lambda t: t.max(), [a], grad=False)
    assert_matches_torch(lambda t: tuple(t.min(dim=1)), lambda t: tuple(t.min(dim=1)), [a], grad=False)


# ----------------------------------------------------------------------------------------
# argmax / argmin
# ----------------------------------------------------------------------------------------

ARG_CASES = [
    ((3, 4), None, False),
    ((3, 4), 0, False),
    ((3, 4), 1, True),
    ((2, 3, 4), -1, False),
    ((2, 3, 4), 1, True),
    ((6,), None, False),
    ((6,), 0, False),
    ((1, 1), None, False),
    ((0, 4), 1, False),
]


@pytest.mark.parametrize("case", ARG_CASES, ids=[case_id(c) for c in ARG_CASES])
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_argmin(rng, op, case):
    shape, dim, keepdim = case
    x = distinct(rng, shape, np.float32)
    kw = {"dim": dim, "keepdim": keepdim} if dim is not None else {}
    out = assert_matches_torch(lambda a: getattr(seqlab, op)(a, **kw), lambda a: getattr(torch, op)(a, **kw),
                               [x], grad=False)
    assert out.dtype == seqlab.int64
    assert_matches_torch(lambda a: getattr(a, op)(**kw), lambda a: getattr(a, op)(**kw), [x], grad=False)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_noncontiguous_and_ties(rng, op):
    x = distinct(rng, (5, 4), np.float64)
    assert_matches_torch(lambda a: getattr(a, op)(dim=1), lambda a: getattr(a, op)(dim=1), [x], layout="T",
                         grad=False)
    assert_matches_torch(lambda a: getattr(a, op)(), lambda a: getattr(a, op)(), [x], layout="slice", grad=False)
    # ties: torch returns the first occurrence
    ties = np.array([[1.0, 3.0, 3.0, 0.0], [0.0, 0.0, -1.0, -1.0]], dtype=np.float32)
    assert_matches_torch(lambda a: getattr(a, op)(dim=1), lambda a: getattr(a, op)(dim=1), [ties], grad=False)


# ----------------------------------------------------------------------------------------
# var
# ----------------------------------------------------------------------------------------

VAR_CASES = [
    ("all", lambda lib, a: a.var()),
    ("all-unbiased=False", lambda lib, a: a.var(unbiased=False)),
    ("dim=0", lambda lib, a: a.var(dim=0)),
    ("dim=1-keepdim", lambda lib, a: a.var(1, keepdim=True)),
    ("dim=-1-unbiased=False", lambda lib, a: a.var(dim=-1, unbiased=False)),
    ("dim=1-positional-unbiased", lambda lib, a: a.var(1, True)),
    ("dim=(0,1)", lambda lib, a: a.var(dim=(0, 1))),
    ("dim=1-correction=0", lambda lib, a: a.var(dim=1, correction=0)),
    ("dim=1-correction=2", lambda lib, a: a.var(dim=1, correction=2)),
    ("fn-dim=0-keepdim", lambda lib, a: lib.var(a, dim=0, keepdim=True)),
    ("fn-all-correction=0", lambda lib, a: lib.var(a, correction=0)),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name,fn", VAR_CASES, ids=[c[0] for c in VAR_CASES])
def test_var(rng, name, fn, dtype):
    x = randn(rng, (4, 5), dtype)
    atol, rtol = tol(dtype, 10)
    assert_matches_torch(lambda a: fn(seqlab, a), lambda a: fn(torch, a), [x], atol=atol, rtol=rtol)


@pytest.mark.parametrize("layout", ["T", "slice"])
def test_var_noncontiguous_3d(rng, layout):
    x = randn(rng, (2, 3, 6), np.float64)
    assert_matches_torch(lambda a: a.var(dim=(0, 2), keepdim=True), lambda a: a.var(dim=(0, 2), keepdim=True),
                         [x], layout=layout)


def test_var_value_matches_numpy(rng):
    x = randn(rng, (7, 3), np.float64)
    t = sl_leaf(x, False)
    np.testing.assert_allclose(sl_np(t.var(dim=0)), x.var(axis=0, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(sl_np(t.var(dim=0, unbiased=False)), x.var(axis=0), rtol=1e-12)


# ----------------------------------------------------------------------------------------
# Gradchecks
# ----------------------------------------------------------------------------------------

GRADCHECK_REDUCTIONS = {
    "sum": lambda a: a.sum(),
    "sum-dim": lambda a: a.sum(dim=1),
    "sum-tuple-keepdim": lambda a: a.sum(dim=(0, 2), keepdim=True),
    "mean": lambda a: a.mean(),
    "mean-dim": lambda a: a.mean(dim=-1, keepdim=True),
    "max": lambda a: a.max(),
    "max-dim": lambda a: a.max(dim=1).values,
    "min": lambda a: a.min(),
    "min-dim": lambda a: a.min(dim=0)[0],
    "var": lambda a: a.var(),
    "var-dim": lambda a: a.var(dim=1),
    "var-dim-correction0": lambda a: a.var(dim=(0, 1), correction=0, keepdim=True),
}


@pytest.mark.parametrize("name", list(GRADCHECK_REDUCTIONS))
def test_gradcheck_reductions(rng, name):
    x = distinct(rng, (2, 3, 4), np.float64)
    assert_gradcheck(GRADCHECK_REDUCTIONS[name], [x])


@pytest.mark.parametrize("op", ["sum", "mean", "var", "max", "min"])
def test_keepdims_spelling_is_accepted_like_torch(op):
    """Course code (makemore) writes keepdims=True; torch accepts it as keepdim."""
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    ours = getattr(seqlab.tensor(x), op)(1, keepdims=True)
    theirs = getattr(torch.tensor(x), op)(1, keepdims=True)
    if op in ("max", "min"):
        ours, theirs = ours.values, theirs.values
    assert tuple(ours.shape) == tuple(theirs.shape) == (3, 1)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduction_grad_fn_names_are_torchs(op):
    # autograd graph pictures (seqlab.viz.autograd_graph) print these names
    x, tx = seqlab.ones(2, 3, requires_grad=True), torch.ones(2, 3, requires_grad=True)
    assert getattr(x, op)().grad_fn.name() == getattr(tx, op)().grad_fn.name()             # ...Backward0
    assert getattr(x, op)(1).grad_fn.name() == getattr(tx, op)(1).grad_fn.name()           # ...Backward1
