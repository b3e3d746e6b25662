"""torch.linalg's LAPACK ops (cpp/src/ops/lapack_linalg.cpp, lapack_decomp.cpp) and what
seqlab/linalg.py composes from them, against torch 2.13: values in float32 and float64, batched,
size 0, non-contiguous, every gradient, float64 gradcheck, and errors (type and torch's message).
Decompositions unique only up to signs (eigh, svd) are compared through sign-free functions of
their factors."""
import math
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import DTYPE_IDS, FLOAT_DTYPES, assert_gradcheck, assert_matches_torch, tol

SL, TH = seqlab.linalg, torch.linalg


def general(rng, shape, dtype=np.float64):
    """Random square matrices kept well away from singular (a shifted diagonal)."""
    n = shape[-1]
    return (rng.standard_normal(shape) + 2.0 * np.sqrt(n) * np.eye(n)).astype(dtype)


def spd(rng, shape, dtype=np.float64):
    """Random symmetric positive-definite matrices: X X^T + n I."""
    x = rng.standard_normal(shape)
    return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def symmetric(rng, shape, dtype=np.float64):
    x = rng.standard_normal(shape)
    return ((x + np.swapaxes(x, -1, -2)) / 2).astype(dtype)


def triangular(rng, shape, upper, dtype=np.float64):
    x = rng.standard_normal(shape) + 3.0 * np.eye(shape[-1])
    return (np.triu(x) if upper else np.tril(x)).astype(dtype)


def rect(rng, shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


SQUARE_SHAPES = [(3, 3), (1, 1), (2, 4, 4), (2, 1, 3, 3), (0, 3, 3), (2, 0, 0)]
LAYOUTS = ["contig", "T"]


# ---------------------------------------------------------------- det, slogdet, logdet
DET_OPS = {
    "linalg.det": (SL.det, TH.det),
    "det": (seqlab.det, torch.det),
    "Tensor.det": (lambda a: a.det(), lambda a: a.det()),
    "linalg.slogdet": (SL.slogdet, TH.slogdet),
    "slogdet": (seqlab.slogdet, torch.slogdet),
    "Tensor.slogdet": (lambda a: a.slogdet(), lambda a: a.slogdet()),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(DET_OPS))
def test_det_slogdet(rng, name, dtype, shape, layout):
    ours, theirs = DET_OPS[name]
    a = general(rng, shape, dtype)
    assert_matches_torch(ours, theirs, [a], *tol(dtype, 20), layout=layout)


def test_det_negative_and_singular(rng):
    a = general(rng, (3, 3))
    a[[0, 1]] = a[[1, 0]]  # one row swap: det < 0
    # (a matrix singular only in exact arithmetic may leave a tiny pivot in one LAPACK and 0 in another)
    for x in (a, np.zeros((3, 3))):
        assert_matches_torch(SL.det, TH.det, [x], 1e-10, 1e-8)
        s, t = SL.slogdet(seqlab.tensor(x)), TH.slogdet(torch.tensor(x))
        assert s.sign.item() == t.sign.item() and (s.logabsdet.item() == t.logabsdet.item() or
                                                   math.isclose(s.logabsdet.item(), t.logabsdet.item()))


def test_det_gradient_at_singular_matrices(rng):
    """torch's gradient of det at a singular matrix is the cofactor matrix (from the SVD)."""
    rank2 = rng.standard_normal((3, 2)) @ rng.standard_normal((2, 3))
    rank1 = np.outer(rng.standard_normal(4), rng.standard_normal(4))
    for x in (rank2, rank1, np.zeros((3, 3)), np.stack([rank2, general(rng, (3, 3))])):
        assert_matches_torch(SL.det, TH.det, [x], 1e-9, 1e-7)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("which", ["torch", "Tensor"])
def test_logdet(rng, which, dtype, shape):
    ours = seqlab.logdet if which == "torch" else (lambda a: a.logdet())
    theirs = torch.logdet if which == "torch" else (lambda a: a.logdet())
    assert_matches_torch(ours, theirs, [spd(rng, shape, dtype)], *tol(dtype, 20))


def test_logdet_negative_and_zero_determinants():
    for x in (-np.eye(3), np.diag([1.0, 1.0, 0.0])):
        assert_matches_torch(seqlab.logdet, torch.logdet, [x], grad=False)


def test_det_family_results_are_torch_named_tuples(rng):
    a = seqlab.tensor(general(rng, (3, 3)))
    assert type(SL.slogdet(a)).__name__ == "linalg_slogdet" and SL.slogdet(a)._fields == ("sign", "logabsdet")
    assert type(seqlab.slogdet(a)).__name__ == "slogdet" and a.slogdet()._fields == ("sign", "logabsdet")


# ---------------------------------------------------------------- inv, solve
INV_OPS = {"linalg.inv": (SL.inv, TH.inv), "inverse": (seqlab.inverse, torch.inverse),
           "Tensor.inverse": (lambda a: a.inverse(), lambda a: a.inverse())}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(INV_OPS))
def test_inv(rng, name, dtype, shape, layout):
    ours, theirs = INV_OPS[name]
    assert_matches_torch(ours, theirs, [general(rng, shape, dtype)], *tol(dtype, 20), layout=layout)


SOLVE_CASES = [  # A, B, left
    ((3, 3), (3,), True),
    ((3, 3), (3, 2), True),
    ((2, 3, 3), (2, 3), True),      # B a batch of vectors: A's shape without its last dim
    ((2, 3, 3), (3, 3), True),      # B a matrix, broadcast over A's batch
    ((2, 1, 3, 3), (4, 3, 2), True),  # both broadcast
    ((3, 3), (2, 3), False),
    ((2, 3, 3), (2, 5, 3), False),
    ((0, 3, 3), (0, 3, 2), True),
    ((2, 3, 3), (2, 3, 0), True),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("a_shape,b_shape,left", SOLVE_CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_solve(rng, dtype, a_shape, b_shape, left, layout):
    assert_matches_torch(lambda a, b: SL.solve(a, b, left=left), lambda a, b: TH.solve(a, b, left=left),
                         [general(rng, a_shape, dtype), rect(rng, b_shape, dtype)], *tol(dtype, 20), layout=layout)


# ---------------------------------------------------------------- cholesky, solve_triangular
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(rng, upper, dtype, shape, layout):
    assert_matches_torch(lambda a: SL.cholesky(a, upper=upper), lambda a: TH.cholesky(a, upper=upper),
                         [spd(rng, shape, dtype)], *tol(dtype, 20), layout=layout)


@pytest.mark.parametrize("upper", [False, True])
def test_torch_cholesky_and_method(rng, upper):
    a = spd(rng, (2, 3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.cholesky is deprecated in torch
        assert_matches_torch(lambda x: seqlab.cholesky(x, upper), lambda x: torch.cholesky(x, upper), [a])
        assert_matches_torch(lambda x: x.cholesky(upper=upper), lambda x: x.cholesky(upper=upper), [a])


def test_cholesky_reads_one_triangle(rng):
    a = spd(rng, (4, 4))
    junk = a + np.triu(rng.standard_normal((4, 4)), 1)  # the upper triangle is not read
    assert_matches_torch(SL.cholesky, TH.cholesky, [junk])


TRI_CASES = [  # A, B, left
    ((3, 3), (3, 2), True), ((3, 3), (2, 3), False), ((2, 4, 4), (2, 4, 1), True), ((2, 1, 3, 3), (4, 3, 2), True),
    ((3, 3), (4, 3), False), ((0, 3, 3), (0, 3, 2), True), ((2, 3, 3), (3, 0), True),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("a_shape,b_shape,left", TRI_CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_solve_triangular(rng, dtype, a_shape, b_shape, left, upper, unit, layout):
    # a full A: only its triangle (without the diagonal when unitriangular) may be read or get a gradient
    a = rng.standard_normal(a_shape).astype(dtype) + 3 * np.eye(a_shape[-1], dtype=dtype)

    def call(lib):
        return lambda A, B: lib.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit)

    assert_matches_torch(call(seqlab), call(torch), [a, rect(rng, b_shape, dtype)], *tol(dtype, 20), layout=layout)


# ---------------------------------------------------------------- qr
QR_CASES = [((4, 3), "reduced"), ((3, 4), "reduced"), ((3, 3), "reduced"), ((2, 5, 3), "reduced"),
            ((3, 4), "complete"), ((3, 3), "complete"), ((0, 4, 3), "reduced"), ((0, 3), "reduced"), ((3, 0), "reduced")]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape,mode", QR_CASES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_qr(rng, dtype, shape, mode, layout):
    """Householder QR is deterministic (LAPACK's sign convention), so Q and R match torch's."""
    assert_matches_torch(lambda a: SL.qr(a, mode), lambda a: TH.qr(a, mode), [rect(rng, shape, dtype)],
                         *tol(dtype, 20), layout=layout)


@pytest.mark.parametrize("shape", [(4, 3), (3, 0), (0, 3)], ids=str)
def test_qr_complete_and_r_without_gradient(rng, shape):
    a = rect(rng, shape)
    assert_matches_torch(lambda x: SL.qr(x, "complete"), lambda x: TH.qr(x, "complete"), [a], grad=False)
    r = SL.qr(seqlab.tensor(a), mode="r")
    assert type(r).__name__ == "linalg_qr" and tuple(r.Q.shape) == (0,)
    np.testing.assert_allclose(r.R.numpy(), TH.qr(torch.tensor(a), mode="r").R.numpy(), atol=1e-12)


def test_qr_backward_errors_as_torch(rng):
    for shape, mode in (((4, 3), "r"), ((4, 3), "complete")):
        a, t = seqlab.tensor(rect(rng, shape), requires_grad=True), torch.tensor(rect(rng, shape), requires_grad=True)
        with pytest.raises(RuntimeError) as theirs:
            sum(x.sum() for x in TH.qr(t, mode) if x.numel()).backward()
        with pytest.raises(RuntimeError) as ours:
            sum(x.sum() for x in SL.qr(a, mode) if x.numel()).backward()
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- eigh, eigvalsh
def eigh_signless(lib, uplo="L"):
    """(eigenvalues, V∘V, V diag(c) V^T): functions of the factors that no sign choice changes."""
    def f(a):
        L, V = lib.linalg.eigh(a, UPLO=uplo)
        c = lib.arange(1, a.shape[-1] + 1, dtype=a.dtype)
        return L, V * V, (V * c) @ V.transpose(-2, -1)
    return f


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("shape", [(3, 3), (1, 1), (2, 4, 4), (0, 3, 3), (2, 0, 0)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_eigh(rng, dtype, shape, uplo, layout):
    assert_matches_torch(eigh_signless(seqlab, uplo), eigh_signless(torch, uplo), [symmetric(rng, shape, dtype)],
                         *tol(dtype, 50), layout=layout)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_eigvalsh(rng, dtype, shape):
    for uplo in "LU":
        assert_matches_torch(lambda a: SL.eigvalsh(a, UPLO=uplo), lambda a: TH.eigvalsh(a, UPLO=uplo),
                             [symmetric(rng, shape, dtype)], *tol(dtype, 50))


def test_eigh_reads_one_triangle_and_names_its_fields(rng):
    a = symmetric(rng, (4, 4))
    junk = a + np.triu(rng.standard_normal((4, 4)), 1)
    assert_matches_torch(eigh_signless(seqlab), eigh_signless(torch), [junk])
    r = SL.eigh(seqlab.tensor(a))
    assert type(r).__name__ == "linalg_eigh" and r._fields == ("eigenvalues", "eigenvectors")


def test_eigh_gradient_at_repeated_eigenvalues_is_torch_s():
    """Repeated eigenvalues: the eigenvalues' gradient is finite, the eigenvectors' is not (torch's rule)."""
    a = np.diag([1.0, 1.0, 2.0])
    assert_matches_torch(lambda x: SL.eigh(x).eigenvalues, lambda x: TH.eigh(x).eigenvalues, [a])
    x = seqlab.tensor(a, requires_grad=True)
    SL.eigh(x).eigenvectors.sum().backward()
    assert not np.isfinite(x.grad.numpy()).all()


# ---------------------------------------------------------------- svd, svdvals, torch.svd
def svd_signless(lib, full_matrices):
    """(S, U_k∘U_k, Vh_k∘Vh_k, U_k diag(c) Vh_k): free of the singular vectors' signs; U's and Vh's
    columns beyond k = min(m, n) are any basis of a complement, so they are left out."""
    def f(a):
        U, S, Vh = lib.linalg.svd(a, full_matrices=full_matrices)
        k = S.shape[-1]
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        c = lib.arange(1, k + 1, dtype=a.dtype)
        return S, U * U, Vh * Vh, (U * c) @ Vh
    return f


SVD_SHAPES = [(4, 3), (3, 4), (3, 3), (2, 5, 2), (1, 1), (0, 3, 2), (3, 0), (2, 0, 3)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape", SVD_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_svd(rng, dtype, shape, full_matrices, layout):
    assert_matches_torch(svd_signless(seqlab, full_matrices), svd_signless(torch, full_matrices),
                         [rect(rng, shape, dtype)], *tol(dtype, 50), layout=layout)


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (3, 0)], ids=str)
def test_svd_factors(rng, shape, full_matrices):
    """Shapes, orthonormality and the reconstruction; full U and Vh are square."""
    a = rect(rng, shape)
    U, S, Vh = SL.svd(seqlab.tensor(a), full_matrices=full_matrices)
    tU, tS, tVh = TH.svd(torch.tensor(a), full_matrices=full_matrices)
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == (tuple(tU.shape), tuple(tS.shape), tuple(tVh.shape))
    k = S.shape[-1]
    np.testing.assert_allclose((U[..., :, :k] * S.unsqueeze(-2) @ Vh[..., :k, :]).numpy(), a, atol=1e-12)
    eye_u, eye_v = np.eye(U.shape[-1]), np.eye(Vh.shape[-2])
    np.testing.assert_allclose((U.transpose(-2, -1) @ U).numpy(), np.broadcast_to(eye_u, U.shape[:-2] + eye_u.shape),
                               atol=1e-12)
    np.testing.assert_allclose((Vh @ Vh.transpose(-2, -1)).numpy(),
                               np.broadcast_to(eye_v, Vh.shape[:-2] + eye_v.shape), atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 2, 2)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_svdvals(rng, dtype, shape):
    assert_matches_torch(SL.svdvals, TH.svdvals, [rect(rng, shape, dtype)], *tol(dtype, 50))


@pytest.mark.parametrize("some", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)], ids=str)
def test_torch_svd_returns_v(rng, shape, some):
    def signless(lib):
        def f(a):
            U, S, V = lib.svd(a, some=some)
            k = S.shape[-1]
            U, V = U[..., :, :k], V[..., :, :k]
            return S, U * U, V * V, (U * lib.arange(1, k + 1, dtype=a.dtype)) @ V.transpose(-2, -1)
        return f
    assert_matches_torch(signless(seqlab), signless(torch), [rect(rng, shape)])
    r = seqlab.tensor(rect(rng, shape)).svd()
    assert type(r).__name__ == "svd" and r._fields == ("U", "S", "V")


def test_torch_svd_without_uv(rng):
    assert_matches_torch(lambda a: seqlab.svd(a, compute_uv=False), lambda a: torch.svd(a, compute_uv=False),
                         [rect(rng, (2, 4, 3))])


# ---------------------------------------------------------------- compositions
@pytest.mark.parametrize("kwargs", [{}, {"hermitian": True}, {"atol": 1e-3}, {"rtol": 1e-3}, {"atol": 0.5},
                                    {"rtol": 0.3}, {"atol": 0.1, "rtol": 0.2}], ids=str)
@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 3, 3), (0, 3, 3)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_pinv(rng, dtype, shape, kwargs):
    """Gradients where no singular value is dropped (with some dropped, torch differentiates pinv at a
    fixed rank, seqlab the truncated SVD: DESIGN.md, a known difference)."""
    hermitian = kwargs.get("hermitian", False)
    if hermitian and shape[-1] != shape[-2]:
        return
    a = symmetric(rng, shape, dtype) if hermitian else general(rng, shape, dtype) if shape[-1] == shape[-2] \
        else rect(rng, shape, dtype) + 2 * np.eye(*shape[-2:], dtype=dtype)
    drops = kwargs.get("atol", 0) > 0.01 or kwargs.get("rtol", 0) > 0.01
    # hermitian: torch's gradient is not symmetric, seqlab's (eigh's) is its symmetric part; the
    # gradient through A + A^T (a symmetric perturbation) is the same for both
    prep = (lambda x: (x + x.transpose(-2, -1)) / 2) if hermitian else (lambda x: x)
    assert_matches_torch(lambda x: SL.pinv(prep(x), **kwargs), lambda x: TH.pinv(prep(x), **kwargs), [a],
                         *tol(dtype, 100), grad=not drops)


def test_pinv_of_a_rank_deficient_matrix_and_pinverse(rng):
    a = rng.standard_normal((4, 2)) @ rng.standard_normal((2, 3))
    assert_matches_torch(lambda x: SL.pinv(x), lambda x: TH.pinv(x), [a], grad=False)
    assert_matches_torch(seqlab.pinverse, torch.pinverse, [rect(rng, (3, 4))])
    assert_matches_torch(lambda x: x.pinverse(), lambda x: x.pinverse(), [rect(rng, (2, 3, 2))])


@pytest.mark.parametrize("kwargs", [{}, {"hermitian": True}, {"atol": 1.0}, {"rtol": 0.5}], ids=str)
def test_matrix_rank(rng, kwargs):
    low = rng.standard_normal((2, 5, 2)) @ rng.standard_normal((2, 2, 5))
    full = symmetric(rng, (5, 5))
    for a in (low, full, rect(rng, (3, 6)), np.zeros((0, 3, 3)), np.zeros((3, 0))):
        if kwargs.get("hermitian") and a.shape[-1] != a.shape[-2]:
            continue
        if kwargs.get("hermitian"):
            a = (a + np.swapaxes(a, -1, -2)) / 2
        assert_matches_torch(lambda x: SL.matrix_rank(x, **kwargs), lambda x: TH.matrix_rank(x, **kwargs), [a],
                             grad=False)


MATRIX_ORDS = ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (2, 0)], ids=str)
@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_matrix_norm(rng, dtype, ord, dim, keepdim):
    a = rect(rng, (3, 2, 4), dtype)
    assert_matches_torch(lambda x: SL.matrix_norm(x, ord, dim, keepdim), lambda x: TH.matrix_norm(x, ord, dim, keepdim),
                         [a], *tol(dtype, 20))


@pytest.mark.parametrize("shape,case", [
    ((3, 4), {}), ((2, 3, 4), {}), ((5,), {"ord": 3}), ((5,), {"ord": math.inf}), ((3, 4), {"ord": math.inf}),
    ((3, 4), {"ord": "nuc"}), ((3, 4), {"dim": 1}), ((2, 3, 4), {"dim": (0,), "ord": 1}), ((2, 3, 4), {"dim": (0, 2)}),
    ((2, 3, 4), {"ord": "nuc", "dim": (2, 0)}), ((3, 4), {"ord": -1, "dim": (0, 1), "keepdim": True}),
    ((3, 4), {"dtype": "float64"}),
], ids=str)
def test_norm(rng, shape, case):
    kw_torch = dict(case, dtype=torch.float64) if "dtype" in case else case
    kw_ours = dict(case, dtype=seqlab.float64) if "dtype" in case else case
    assert_matches_torch(lambda x: SL.norm(x, **kw_ours), lambda x: TH.norm(x, **kw_torch),
                         [rect(rng, shape, np.float32)], *tol(np.float32, 10))


@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 3, 6])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2)], ids=str)
def test_matrix_power(rng, shape, n):
    a = general(rng, shape) / 3
    assert_matches_torch(lambda x: SL.matrix_power(x, n), lambda x: TH.matrix_power(x, n), [a])
    assert_matches_torch(lambda x: x.matrix_power(n), lambda x: x.matrix_power(n), [a])
    assert_matches_torch(lambda x: seqlab.matrix_power(x, n), lambda x: torch.matrix_power(x, n), [a])


@pytest.mark.parametrize("shapes", [[(3, 4), (4, 5)], [(4,), (4, 5), (5, 2)], [(2, 10), (10, 3), (3, 8), (8,)],
                                    [(5, 1), (1, 6), (6, 2), (2, 7)], [(3,), (3,)]], ids=str)
def test_multi_dot(rng, shapes):
    arrays = [rect(rng, s) for s in shapes]
    assert_matches_torch(lambda *xs: SL.multi_dot(xs), lambda *xs: TH.multi_dot(xs), arrays)


def test_vecdot_matmul_diagonal(rng):
    x, y = rect(rng, (2, 3, 4)), rect(rng, (3, 4))
    assert_matches_torch(SL.vecdot, TH.vecdot, [x, y])
    assert_matches_torch(lambda a, b: SL.vecdot(a, b, dim=-2), lambda a, b: TH.vecdot(a, b, dim=-2), [x, y])
    assert_matches_torch(SL.matmul, TH.matmul, [x, rect(rng, (4, 2))])
    for kw in ({}, {"offset": 1}, {"offset": -1, "dim1": 0, "dim2": 2}):
        assert_matches_torch(lambda a: SL.diagonal(a, **kw), lambda a: TH.diagonal(a, **kw), [x])


@pytest.mark.parametrize("driver", [None, "gels", "gelsd", "gelss"])
@pytest.mark.parametrize("a_shape,b_shape", [((5, 3), (5, 2)), ((5, 3), (5,)), ((2, 6, 4), (2, 6, 3)), ((3, 3), (3, 1))],
                         ids=str)
def test_lstsq(rng, a_shape, b_shape, driver):
    """Full-rank A: every driver's solution is the pseudoinverse's; the other results follow the driver."""
    assert_matches_torch(lambda a, b: SL.lstsq(a, b, driver=driver), lambda a, b: TH.lstsq(a, b, driver=driver),
                         [rect(rng, a_shape), rect(rng, b_shape)], 1e-9, 1e-7)


# ---------------------------------------------------------------- gradcheck (float64)
def sym_input(f):
    """eigh-like ops read one triangle: check them on A + A^T, whose both triangles move together."""
    return lambda a: f(a + a.transpose(-2, -1))


GRADCHECKS = {
    "det": (lambda a: SL.det(a), lambda r: general(r, (2, 3, 3))),
    "slogdet": (lambda a: SL.slogdet(a).logabsdet, lambda r: general(r, (2, 3, 3))),
    "logdet": (seqlab.logdet, lambda r: spd(r, (3, 3))),
    "inv": (SL.inv, lambda r: general(r, (2, 3, 3))),
    "cholesky": (sym_input(SL.cholesky), lambda r: spd(r, (2, 3, 3)) / 2),
    "cholesky_upper": (sym_input(lambda a: SL.cholesky(a, upper=True)), lambda r: spd(r, (3, 3)) / 2),
    "qr_tall": (lambda a: tuple(SL.qr(a)), lambda r: rect(r, (4, 3))),
    "qr_wide": (lambda a: tuple(SL.qr(a)), lambda r: rect(r, (2, 3, 5))),
    "eigh": (sym_input(lambda a: eigh_signless(seqlab)(a)), lambda r: symmetric(r, (2, 3, 3))),
    "eigvalsh": (sym_input(SL.eigvalsh), lambda r: symmetric(r, (4, 4))),
    "svd_tall": (lambda a: svd_signless(seqlab, False)(a), lambda r: rect(r, (4, 3))),
    "svd_wide": (lambda a: svd_signless(seqlab, True)(a), lambda r: rect(r, (2, 3, 4))),
    "svdvals": (SL.svdvals, lambda r: rect(r, (3, 5))),
    "pinv": (SL.pinv, lambda r: rect(r, (4, 3))),
    "matrix_norm_nuc": (lambda a: SL.matrix_norm(a, "nuc"), lambda r: rect(r, (3, 4))),
    "matrix_power": (lambda a: SL.matrix_power(a, -2), lambda r: general(r, (3, 3))),
}


@pytest.mark.parametrize("name", list(GRADCHECKS))
def test_gradcheck(rng, name):
    f, make = GRADCHECKS[name]
    assert_gradcheck(f, [make(rng)])


def test_gradcheck_two_inputs(rng):
    assert_gradcheck(lambda a, b: SL.solve(a, b), [general(rng, (2, 3, 3)), rect(rng, (3, 2))])
    assert_gradcheck(lambda a, b: SL.solve(a, b, left=False), [general(rng, (3, 3)), rect(rng, (2, 2, 3))])
    assert_gradcheck(lambda a, b: SL.solve(a, b), [general(rng, (2, 3, 3)), rect(rng, (2, 3))])
    for upper, left, unit in ((True, True, False), (False, False, True), (False, True, False)):
        assert_gradcheck(lambda a, b: SL.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit),
                         [triangular(rng, (2, 3, 3), upper), rect(rng, (3, 2) if left else (2, 3))])
    assert_gradcheck(lambda a, b: SL.lstsq(a, b).solution, [rect(rng, (5, 3)), rect(rng, (5, 2))])


# ---------------------------------------------------------------- errors
def raises_as_torch(ours, theirs, linalg_error=False):
    """Both raise the same type with the same message; torch's LinAlgError is seqlab.linalg.LinAlgError."""
    with pytest.raises(Exception) as t, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs()
    with pytest.raises(Exception) as s:
        ours()
    assert str(s.value) == str(t.value)
    builtin = next(c for c in type(t.value).__mro__ if c.__module__ == "builtins")
    assert isinstance(s.value, builtin)
    assert isinstance(s.value, SL.LinAlgError) == isinstance(t.value, TH.LinAlgError) == linalg_error


def both(lib, arrays):
    return [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
NOT_PD = np.array([[1.0, 2.0], [2.0, 1.0]])
ERRORS = [  # (call with lib, arrays, is a LinAlgError)
    (lambda L, a: L.linalg.det(a), [np.ones(3)], False),
    (lambda L, a: L.linalg.det(a), [np.ones((2, 3))], False),
    (lambda L, a: L.linalg.det(a), [np.ones((3, 3), dtype=np.int64)], False),
    (lambda L, a: L.det(a), [np.ones((2, 3))], False),
    (lambda L, a: L.logdet(a), [np.ones((2, 3))], False),
    (lambda L, a: L.linalg.slogdet(a), [np.ones((2, 3))], False),
    (lambda L, a: L.linalg.inv(a), [SINGULAR], True),
    (lambda L, a: L.linalg.inv(a), [np.stack([np.eye(3), SINGULAR])], True),
    (lambda L, a: L.inverse(a), [SINGULAR], True),
    (lambda L, a: L.linalg.inv(a), [np.ones((2, 3))], False),
    (lambda L, a: L.linalg.inv(a), [np.ones((3, 3), dtype=np.int64)], False),
    (lambda L, a, b: L.linalg.solve(a, b), [SINGULAR, np.ones(3)], True),
    (lambda L, a, b: L.linalg.solve(a, b), [np.stack([np.eye(3), SINGULAR]), np.ones(3)], True),
    (lambda L, a, b: L.linalg.solve(a, b), [np.eye(3), np.ones((4, 2))], False),
    (lambda L, a, b: L.linalg.solve(a, b), [np.eye(3), np.ones(4)], False),
    (lambda L, a, b: L.linalg.solve(a, b, left=False), [np.eye(3), np.ones(3)], False),
    (lambda L, a, b: L.linalg.solve(a, b), [np.eye(3), np.ones((3, 2), dtype=np.float32)], False),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones(3), np.ones(3)], False),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((2, 3)), np.ones(2)], False),
    (lambda L, a: L.linalg.cholesky(a), [NOT_PD], True),
    (lambda L, a: L.linalg.cholesky(a, upper=True), [np.stack([np.eye(2), NOT_PD])], True),
    (lambda L, a: L.cholesky(a), [-np.eye(3)], True),
    (lambda L, a: L.linalg.cholesky(a), [np.ones((2, 3))], False),
    (lambda L, a: L.linalg.cholesky(a), [np.ones(3)], False),
    (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), [np.ones((2, 3)), np.ones((3, 3))], False),
    (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), [np.eye(3), np.ones((4, 2))], False),
    (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True, left=False), [np.eye(3), np.ones((4, 2))], False),
    (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), [np.eye(3), np.ones(3)], False),
    (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
     [np.eye(3, dtype=np.int64), np.ones((3, 2), dtype=np.int64)], False),
    (lambda L, a: L.linalg.qr(a, mode="x"), [np.ones((3, 3))], False),
    (lambda L, a: L.linalg.qr(a), [np.ones(3)], False),
    (lambda L, a: L.linalg.qr(a), [np.ones((3, 3), dtype=np.int64)], False),
    (lambda L, a: L.linalg.eigh(a, UPLO="X"), [np.eye(3)], False),
    (lambda L, a: L.linalg.eigh(a), [np.ones((4, 3))], False),
    (lambda L, a: L.linalg.eigh(a), [np.ones((3, 3), dtype=np.int64)], False),
    (lambda L, a: L.linalg.eigvalsh(a), [np.ones(3)], False),
    (lambda L, a: L.linalg.svd(a), [np.ones(3)], False),
    (lambda L, a: L.linalg.svd(a), [np.ones((3, 3), dtype=np.int64)], False),
    (lambda L, a: L.linalg.svd(a), [np.full((3, 3), np.nan)], True),
    (lambda L, a: L.linalg.svd(a), [np.full((2, 3, 3), np.nan)], True),
    (lambda L, a: L.linalg.svd(a, driver="gesvd"), [np.eye(3)], False),
    (lambda L, a: L.linalg.svdvals(a), [np.ones(3)], False),
    (lambda L, a: L.linalg.pinv(a), [np.ones(3)], False),
    (lambda L, a: L.linalg.matrix_rank(a), [np.ones(3)], False),
    (lambda L, a: L.linalg.matrix_norm(a), [np.ones(3)], False),
    (lambda L, a: L.linalg.matrix_norm(a, 3), [np.ones((3, 3))], False),
    (lambda L, a: L.linalg.matrix_norm(a, "abc"), [np.ones((3, 3))], False),
    (lambda L, a: L.linalg.matrix_norm(a, dim=(0, 0)), [np.ones((3, 3))], False),
    (lambda L, a: L.linalg.matrix_norm(a), [np.ones((3, 3), dtype=np.int64)], False),
    (lambda L, a: L.linalg.norm(a, 2), [np.ones((2, 3, 3))], False),
    (lambda L, a: L.linalg.norm(a, dim=(0, 1, 2)), [np.ones((2, 3, 3))], False),
    (lambda L, a: L.linalg.matrix_power(a, 2), [np.ones((2, 3))], False),
    (lambda L, a: L.linalg.matrix_power(a, 2), [np.ones(3)], False),
    (lambda L, a: L.linalg.multi_dot([a]), [np.eye(3)], False),
    (lambda L, a, b: L.linalg.multi_dot([a, b]), [np.ones((2, 3, 3)), np.eye(3)], False),
    (lambda L, a, b: L.linalg.multi_dot([a, b, a]), [np.eye(3), np.ones(3)], False),
    (lambda L, a, b: L.linalg.multi_dot([a, b]), [np.eye(3), np.ones((4, 3))], False),
    (lambda L, a, b: L.linalg.vecdot(a, b), [np.ones(3, dtype=np.float32), np.ones(3)], False),
    (lambda L, a, b: L.linalg.lstsq(a, b), [np.ones((5, 3)), np.ones((4, 2))], False),
    (lambda L, a, b: L.linalg.lstsq(a, b, driver="x"), [np.ones((5, 3)), np.ones((5, 2))], False),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    call, arrays, linalg_error = ERRORS[i]
    raises_as_torch(lambda: call(seqlab, *both(seqlab, arrays)), lambda: call(torch, *both(torch, arrays)),
                    linalg_error)


def test_broadcast_error_names_both_sizes():
    with pytest.raises(RuntimeError, match=r"size of tensor a \(4\) must match the size of tensor b \(2\)"):
        SL.solve(seqlab.ones(2, 3, 3), seqlab.ones(4, 3, 2))
