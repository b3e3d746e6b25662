"""Linear algebra (matmul, mm, bmm, t, @) vs torch, forward and gradient.

Covers torch.matmul's 1-D/2-D/batched/broadcast rules, transposed (non-contiguous) operands,
size-0 dims and BLAS-sized problems; gradchecks in float64. Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_gradcheck, assert_matches_torch, randn, shape_id, sl_leaf, sl_np, tol,
)

MATMUL_SHAPES = [
    ((4,), (4,)),            # dot -> 0-d
    ((3, 4), (4,)),          # matrix-vector
    ((4,), (4, 5)),          # vector-matrix
    ((3, 4), (4, 5)),        # matrix-matrix
    ((1, 1), (1, 1)),
    ((1, 4), (4, 1)),
    ((2, 3, 4), (2, 4, 5)),  # batched
    ((2, 3, 4), (4, 5)),     # batched @ matrix (broadcast)
    ((3, 4), (2, 4, 5)),     # matrix @ batched
    ((2, 1, 3, 4), (5, 4, 2)),  # broadcast batch dims
    ((2, 3, 4), (4,)),       # batched @ vector
    ((4,), (2, 4, 5)),       # vector @ batched
    ((0, 4), (4, 5)),        # size-0 rows
    ((3, 0), (0, 5)),        # size-0 inner dim: result is zeros
    ((3, 4), (4, 0)),
    ((2, 0, 3), (3, 1)),
    ((0,), (0,)),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=[shape_id(a, b) for a, b in MATMUL_SHAPES])
@pytest.mark.parametrize("form", ["fn", "op@", "method"])
def test_matmul(rng, form, sa, sb, dtype):
    a, b = randn(rng, sa, dtype), randn(rng, sb, dtype)
    fns = {
        "fn": lambda lib: (lambda x, y: lib.matmul(x, y)),
        "op@": lambda lib: (lambda x, y: x @ y),
        "method": lambda lib: (lambda x, y: x.matmul(y)),
    }
    assert_matches_torch(fns[form](seqlab), fns[form](torch), [a, b], *tol(dtype, 5))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 6))],
                         ids=["2d", "batched", "bcast"])
def test_matmul_noncontiguous(rng, sa, sb, layout, dtype):
    a, b = randn(rng, sa, dtype), randn(rng, sb, dtype)
    assert_matches_torch(lambda x, y: x @ y, lambda x, y: x @ y, [a, b], *tol(dtype, 5), layout=layout)


@pytest.mark.parametrize("combo", ["tN", "Nt", "tt"])
def test_matmul_transposed_operands(rng, combo):
    """x.t() @ y, x @ y.t(), x.t() @ y.t(): the BLAS transpose flags must be right."""
    a, b = randn(rng, (6, 4), np.float64), randn(rng, (5, 6), np.float64)
    if combo == "tN":
        b = randn(rng, (6, 5), np.float64)
        f = lambda x, y: x.t() @ y  # noqa: E731
    elif combo == "Nt":
        a = randn(rng, (4, 6), np.float64)
        f = lambda x, y: x @ y.t()  # noqa: E731
    else:
        f = lambda x, y: x.t() @ y.t()  # noqa: E731
    assert_matches_torch(f, f, [a, b])


def test_matmul_batched_transposed_last_two(rng):
    """attention-style q @ k.transpose(-2, -1) with batched, permuted operands."""
    q, k = randn(rng, (2, 5, 3, 4), np.float32), randn(rng, (2, 5, 3, 4), np.float32)
    f = lambda x, y: x.permute(0, 2, 1, 3) @ y.permute(0, 2, 3, 1)  # noqa: E731
    assert_matches_torch(f, f, [q, k], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("m,k,n", [(64, 128, 32), (33, 65, 17), (200, 100, 300)], ids=["64x128x32", "33x65x17", "200x100x300"])
def test_matmul_blas_sized(rng, m, k, n, dtype):
    a, b = randn(rng, (m, k), dtype), randn(rng, (k, n), dtype)
    atol, rtol = (1e-4, 1e-4) if dtype == np.float32 else (1e-10, 1e-9)
    assert_matches_torch(lambda x, y: x @ y, lambda x, y: x @ y, [a, b], atol=atol, rtol=rtol)


def test_matmul_expanded_operands(rng):
    """Stride-0 (expanded) operands must be handled (BLAS needs real strides)."""
    a, b = randn(rng, (3, 1), np.float64), randn(rng, (4, 2), np.float64)
    f = lambda x, y: x.expand(3, 4) @ y  # noqa: E731
    assert_matches_torch(f, f, [a, b])
    w, xs = randn(rng, (4, 3), np.float64), randn(rng, (5, 2, 4), np.float64)
    g = lambda ww, xx: seqlab.bmm(xx, ww.unsqueeze(0).expand(5, 4, 3)) if isinstance(ww, seqlab.Tensor) \
        else torch.bmm(xx, ww.unsqueeze(0).expand(5, 4, 3))  # noqa: E731
    assert_matches_torch(g, g, [w, xs])


def test_matmul_value_matches_numpy(rng):
    a, b = randn(rng, (3, 4), np.float64), randn(rng, (4, 2), np.float64)
    np.testing.assert_allclose(sl_np(sl_leaf(a, False) @ sl_leaf(b, False)), a @ b, rtol=1e-12)
    out = sl_leaf(np.zeros((3, 0))) @ sl_leaf(np.zeros((0, 2)))
    np.testing.assert_array_equal(sl_np(out), np.zeros((3, 2)))


def test_matmul_same_tensor(rng):
    """x @ x.t(): both gradient paths accumulate into x."""
    a = randn(rng, (3, 4), np.float64)
    f = lambda x: x @ x.t()  # noqa: E731
    assert_matches_torch(f, f, [a])


# ----------------------------------------------------------------------------------------
# mm, bmm, t
# ----------------------------------------------------------------------------------------

MM_SHAPES = [((3, 4), (4, 5)), ((1, 7), (7, 1)), ((0, 2), (2, 3)), ((2, 0), (0, 3))]
BMM_SHAPES = [((2, 3, 4), (2, 4, 5)), ((1, 1, 1), (1, 1, 1)), ((0, 3, 4), (0, 4, 2)), ((3, 2, 0), (3, 0, 2))]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("sa,sb", MM_SHAPES, ids=[shape_id(*s) for s in MM_SHAPES])
def test_mm(rng, sa, sb, dtype):
    a, b = randn(rng, sa, dtype), randn(rng, sb, dtype)
    assert_matches_torch(lambda x, y: seqlab.mm(x, y), lambda x, y: torch.mm(x, y), [a, b], *tol(dtype, 5))
    assert_matches_torch(lambda x, y: x.mm(y), lambda x, y: x.mm(y), [a, b], *tol(dtype, 5))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("sa,sb", BMM_SHAPES, ids=[shape_id(*s) for s in BMM_SHAPES])
def test_bmm(rng, sa, sb, dtype):
    a, b = randn(rng, sa, dtype), randn(rng, sb, dtype)
    assert_matches_torch(lambda x, y: seqlab.bmm(x, y), lambda x, y: torch.bmm(x, y), [a, b], *tol(dtype, 5))
    assert_matches_torch(lambda x, y: x.bmm(y), lambda x, y: x.bmm(y), [a, b], *tol(dtype, 5))


def test_bmm_noncontiguous(rng):
    a, b = randn(rng, (3, 5, 4), np.float32), randn(rng, (5, 3, 6), np.float32)
    f = lambda x, y: x.transpose(1, 2).bmm(y.permute(1, 0, 2))  # noqa: E731
    assert_matches_torch(f, f, [a, b], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("shape", [(3, 4), (1, 5), (5,), (), (0, 3)], ids=shape_id)
def test_t(rng, shape):
    a = randn(rng, shape, np.float64)
    out = assert_matches_torch(lambda x: x.t(), lambda x: x.t(), [a])
    out2 = assert_matches_torch(lambda x: seqlab.t(x), lambda x: torch.t(x), [a])
    if len(shape) == 2:
        assert tuple(out.shape) == (shape[1], shape[0])
        if 0 not in shape:
            assert tuple(out2.stride()) == (1, shape[1])


def test_t_is_a_view(rng):
    a = randn(rng, (3, 4))
    s = sl_leaf(a, False)
    st = s.t()
    st.zero_()
    assert not np.any(sl_np(s)), "t() must return a view sharing storage"


# ----------------------------------------------------------------------------------------
# Gradchecks
# ----------------------------------------------------------------------------------------

GRADCHECK_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)), ((2, 3, 4), (4, 2)),
                    ((2, 1, 3, 4), (3, 4, 2))]


@pytest.mark.parametrize("sa,sb", GRADCHECK_SHAPES, ids=[shape_id(a, b) for a, b in GRADCHECK_SHAPES])
def test_gradcheck_matmul(rng, sa, sb):
    assert_gradcheck(lambda x, y: seqlab.matmul(x, y), [randn(rng, sa, np.float64), randn(rng, sb, np.float64)])


def test_gradcheck_mm_bmm_t(rng):
    assert_gradcheck(lambda x, y: seqlab.mm(x.t(), y), [randn(rng, (4, 3), np.float64), randn(rng, (4, 2), np.float64)])
    assert_gradcheck(lambda x, y: seqlab.bmm(x, y), [randn(rng, (2, 3, 4), np.float64),
                                                     randn(rng, (2, 4, 2), np.float64)])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("n,k", [(5000, 300), (1031, 771)], ids=["5000x300", "1031x771"])
def test_one_row_products_split_over_threads(rng, dtype, n, k):
    """A single-row product (batch-1 inference: x (1, K) times W) is a gemv, split over the pool
    by output columns when it is large: on 1, 2 and 3 threads it equals float64 NumPy, for W
    transposed (linear, x Wᵀ) and not (x @ W)."""
    x, w, v = randn(rng, (1, k), dtype), randn(rng, (n, k), dtype), randn(rng, (k, n), dtype)
    want_t, want = x.astype(np.float64) @ w.astype(np.float64).T, x.astype(np.float64) @ v.astype(np.float64)
    tol = dict(rtol=1e-4, atol=1e-3) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-10)
    threads = seqlab.get_num_threads()
    try:
        for t in (1, 2, 3):
            seqlab.set_num_threads(t)
            np.testing.assert_allclose(seqlab.nn.functional.linear(seqlab.tensor(x), seqlab.tensor(w)).numpy(),
                                       want_t, **tol)
            np.testing.assert_allclose((seqlab.tensor(x) @ seqlab.tensor(v)).numpy(), want, **tol)
    finally:
        seqlab.set_num_threads(threads)
