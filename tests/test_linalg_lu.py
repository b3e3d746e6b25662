"""torch.linalg's LU and LDL families and Householder products (cpp/src/ops/lapack_lu.cpp, seqlab/linalg.py,
seqlab/_linalg_aliases.py) against torch 2.13: lu_factor(_ex), lu, lu_solve, torch.lu, lu_solve, lu_unpack,
ldl_factor(_ex), ldl_solve, householder_product, orgqr, geqrf, ormqr and their Tensor methods: values
(the factors of well-conditioned random matrices, where pivoting has no ties, and the products they
reconstruct), shapes, dtypes, batches and size 0, gradients and float64 gradcheck, out=, and errors."""
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import DTYPE_IDS, FLOAT_DTYPES, assert_gradcheck, assert_matches_torch, sl_leaf, sl_np, tol

SL, TH = seqlab.linalg, torch.linalg


def general(rng, shape, dtype=np.float64):
    """Random matrices kept away from singular: a shifted diagonal (any shape)."""
    m, n = shape[-2], shape[-1]
    return (rng.standard_normal(shape) + 2.0 * np.sqrt(max(m, n, 1)) * np.eye(m, n)).astype(dtype)


def symmetric(rng, shape, dtype=np.float64):
    x = rng.standard_normal(shape)
    return (x + np.swapaxes(x, -1, -2) + np.eye(shape[-1])).astype(dtype)


def lu_data(lib, a):
    """lu_factor of a in lib, no gradient: (LU, pivots)."""
    return lib.linalg.lu_factor(lib.tensor(a))


def raises_as_torch(ours, theirs):
    """Both raise the same builtin type with the same message."""
    with pytest.raises(Exception) as t, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs()
    with pytest.raises(Exception) as s, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours()
    assert str(s.value) == str(t.value)
    builtin = next(c for c in type(t.value).__mro__ if c.__module__ == "builtins")
    assert isinstance(s.value, builtin), f"{type(s.value).__name__} is not {builtin.__name__}"
    assert isinstance(s.value, SL.LinAlgError) == isinstance(t.value, TH.LinAlgError)


def quiet(fn):
    """fn with torch.lu's deprecation warning silenced (it is tested on its own)."""
    def call(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return call


SHAPES = [(3, 3), (1, 1), (2, 4, 4), (5, 3), (3, 5), (2, 1, 4, 2), (2, 2, 5), (0, 3, 3), (2, 0, 0), (0, 2), (3, 0)]
LAYOUTS = ["contig", "T"]


# ---------------------------------------------------------------- lu_factor, lu_factor_ex, lu, torch.lu
LU_OPS = {
    "linalg.lu_factor": (SL.lu_factor, TH.lu_factor),
    "linalg.lu_factor_ex": (SL.lu_factor_ex, TH.lu_factor_ex),
    "linalg.lu": (SL.lu, TH.lu),
    "lu": (quiet(seqlab.lu), quiet(torch.lu)),
    "lu(get_infos)": (quiet(lambda a: seqlab.lu(a, get_infos=True)), quiet(lambda a: torch.lu(a, get_infos=True))),
    "Tensor.lu": (quiet(lambda a: a.lu()), quiet(lambda a: a.lu())),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(LU_OPS))
def test_lu_factors_and_gradients(rng, name, dtype, shape, layout):
    ours, theirs = LU_OPS[name]
    out = assert_matches_torch(ours, theirs, [general(rng, shape, dtype)], *tol(dtype, 20), layout=layout)
    for t in out:
        assert t.dtype in (seqlab.float32, seqlab.float64, seqlab.int32)
    assert out[1].dtype == (seqlab.int32 if name != "linalg.lu" else out[0].dtype)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (5, 3), (3, 5)], ids=str)
def test_lu_reconstructs(rng, shape):
    a = general(rng, shape)
    P, L, U = SL.lu(seqlab.tensor(a))
    np.testing.assert_allclose(sl_np(P @ L @ U), a, atol=1e-12)
    LU, piv = SL.lu_factor(seqlab.tensor(a))
    P2, L2, U2 = seqlab.lu_unpack(LU, piv)
    np.testing.assert_allclose(sl_np(P2 @ L2 @ U2), a, atol=1e-12)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (5, 3), (3, 5), (2, 4, 2), (2, 2, 4)], ids=str)
def test_lu_gradcheck(rng, shape):
    a = general(rng, shape)
    assert_gradcheck(lambda x: SL.lu(x)[1:], [a])
    assert_gradcheck(lambda x: SL.lu_factor(x)[0], [a])
    assert_gradcheck(lambda x: SL.lu_factor_ex(x).LU, [a])


def test_lu_one_output_gradient(rng):
    a = general(rng, (4, 4))
    for k in (1, 2):
        assert_matches_torch(lambda x: SL.lu(x)[k], lambda x: TH.lu(x)[k], [a])


def test_lu_singular_input(rng):
    """A zero pivot: lu and lu_factor_ex and torch.lu report it in info, lu_factor raises."""
    a = np.stack([general(rng, (3, 3)), np.zeros((3, 3))])
    assert_matches_torch(SL.lu, TH.lu, [a], grad=False)
    assert_matches_torch(SL.lu_factor_ex, TH.lu_factor_ex, [a], grad=False)
    assert SL.lu_factor_ex(seqlab.tensor(a)).info.tolist() == [0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert seqlab.lu(seqlab.tensor(a), get_infos=True)[2].tolist() == [0, 1]
    raises_as_torch(lambda: SL.lu_factor(seqlab.tensor(a)), lambda: TH.lu_factor(torch.tensor(a)))
    raises_as_torch(lambda: SL.lu_factor_ex(seqlab.tensor(a), check_errors=True),
                    lambda: TH.lu_factor_ex(torch.tensor(a), check_errors=True))
    raises_as_torch(lambda: SL.lu_factor(seqlab.tensor(a[1])), lambda: TH.lu_factor(torch.tensor(a[1])))


def test_torch_lu_warns_once_as_torch():
    import seqlab._linalg_aliases as aliases
    aliases._lu_warned.clear()
    with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of torch.linalg.lu_factor"):
        seqlab.lu(seqlab.eye(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seqlab.lu(seqlab.eye(2))


# ---------------------------------------------------------------- lu_unpack
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (5, 3), (3, 5), (0, 3, 3), (2, 0)], ids=str)
@pytest.mark.parametrize("flags", [(True, True), (True, False), (False, True), (False, False)], ids=str)
def test_lu_unpack(rng, shape, flags):
    a = general(rng, shape)
    lu_s, piv_s = lu_data(seqlab, a)
    lu_t, piv_t = lu_data(torch, a)
    s = seqlab.lu_unpack(lu_s.requires_grad_(), piv_s, *flags)
    t = torch.lu_unpack(lu_t.requires_grad_(), piv_t, *flags)
    assert type(s).__name__ == "lu_unpack" and s._fields == ("P", "L", "U")
    for x, y in zip(s, t):
        assert tuple(x.shape) == tuple(y.shape)
        np.testing.assert_allclose(sl_np(x), y.detach().numpy(), atol=1e-12)
    if flags[0] and lu_s.numel():
        g = rng.standard_normal(tuple(t.L.shape)), rng.standard_normal(tuple(t.U.shape))
        (s.L * seqlab.tensor(g[0])).sum().add((s.U * seqlab.tensor(g[1])).sum()).backward()
        ((t.L * torch.tensor(g[0])).sum() + (t.U * torch.tensor(g[1])).sum()).backward()
        np.testing.assert_allclose(sl_np(lu_s.grad), lu_t.grad.numpy(), atol=1e-12)


def test_lu_unpack_integer_data_as_torch():
    lu = np.arange(9).reshape(3, 3)
    piv = np.array([2, 2, 3], np.int32)
    s = seqlab.lu_unpack(seqlab.tensor(lu), seqlab.tensor(piv))
    t = torch.lu_unpack(torch.tensor(lu), torch.tensor(piv))
    for x, y in zip(s, t):
        assert str(x.dtype).split(".")[1] == str(y.dtype).split(".")[1]
        np.testing.assert_array_equal(sl_np(x), y.numpy())


# ---------------------------------------------------------------- lu_solve, torch.lu_solve, Tensor.lu_solve
SOLVE_CASES = [  # (LU shape, B shape, left)
    ((3, 3), (3, 2), True), ((3, 3), (2, 3), False), ((2, 4, 4), (2, 4, 3), True), ((2, 4, 4), (4, 1), True),
    ((4, 4), (2, 4, 3), True), ((2, 1, 3, 3), (4, 3, 1), True), ((2, 3, 3), (5, 3), False), ((0, 3, 3), (3, 2), True),
    ((3, 3), (3, 0), True), ((0, 0), (0, 2), True), ((1, 1), (1, 1), False),
]


@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("case", SOLVE_CASES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_lu_solve(rng, dtype, case, adjoint):
    a_shape, b_shape, left = case
    a, b = general(rng, a_shape, dtype), rng.standard_normal(b_shape).astype(dtype)
    piv_s, piv_t = lu_data(seqlab, a)[1], lu_data(torch, a)[1]
    lu = sl_np(lu_data(seqlab, a)[0])
    assert_matches_torch(lambda x, y: SL.lu_solve(x, piv_s, y, left=left, adjoint=adjoint),
                         lambda x, y: TH.lu_solve(x, piv_t, y, left=left, adjoint=adjoint), [lu, b], *tol(dtype, 50))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_gradcheck_and_solution(rng, left, adjoint):
    a = general(rng, (2, 3, 3))
    b = rng.standard_normal((2, 3, 2) if left else (2, 2, 3))
    lu, piv = lu_data(seqlab, a)
    x = sl_np(SL.lu_solve(lu, piv, seqlab.tensor(b), left=left, adjoint=adjoint))
    op = np.swapaxes(a, -1, -2) if adjoint else a
    np.testing.assert_allclose(op @ x if left else x @ op, b, atol=1e-12)
    assert_gradcheck(lambda m, y: SL.lu_solve(m, piv, y, left=left, adjoint=adjoint), [sl_np(lu), b])
    # through lu_factor: the gradient reaches A
    assert_gradcheck(lambda m, y: SL.lu_solve(*SL.lu_factor(m), y, left=left, adjoint=adjoint), [a, b])


def test_torch_lu_solve_and_method(rng):
    import seqlab._linalg_aliases as aliases
    aliases._lu_warned.clear()
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated in favor of torch.linalg.lu_solve"):
        seqlab.lu_solve(seqlab.ones(2, 1), seqlab.eye(2), seqlab.tensor(np.array([1, 2], np.int32)))
    a, b = general(rng, (2, 3, 3)), rng.standard_normal((2, 3, 4))
    piv_s, piv_t = lu_data(seqlab, a)[1], lu_data(torch, a)[1]
    lu = sl_np(lu_data(seqlab, a)[0])
    assert_matches_torch(quiet(lambda y, x: seqlab.lu_solve(y, x, piv_s)),
                         quiet(lambda y, x: torch.lu_solve(y, x, piv_t)), [b, lu])
    assert_matches_torch(quiet(lambda y, x: y.lu_solve(x, piv_s)), quiet(lambda y, x: y.lu_solve(x, piv_t)), [b, lu])


# ---------------------------------------------------------------- ldl_factor, ldl_factor_ex, ldl_solve
@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (1, 1), (2, 5, 5), (2, 1, 4, 4), (0, 3, 3), (0, 0)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_ldl_factor_and_solve(rng, dtype, shape, hermitian):
    a = symmetric(rng, shape, dtype)
    for ours, theirs in ((SL.ldl_factor, TH.ldl_factor), (SL.ldl_factor_ex, TH.ldl_factor_ex)):
        s = ours(seqlab.tensor(a), hermitian=hermitian)
        t = theirs(torch.tensor(a), hermitian=hermitian)
        assert type(s).__name__ == type(t).__name__ and s._fields == ("LD", "pivots", "info")[:len(t)]
        for x, y in zip(s, t):
            assert tuple(x.shape) == tuple(y.shape) and str(x.dtype).split(".")[1] == str(y.dtype).split(".")[1]
            np.testing.assert_allclose(sl_np(x), y.numpy(), *tol(dtype, 20)[::-1])
    b = rng.standard_normal(shape[:-1] + (2,)).astype(dtype)
    LD, piv = SL.ldl_factor(seqlab.tensor(a))
    x = SL.ldl_solve(LD, piv, seqlab.tensor(b), hermitian=hermitian)
    y = TH.ldl_solve(*TH.ldl_factor(torch.tensor(a)), torch.tensor(b), hermitian=hermitian)
    np.testing.assert_allclose(sl_np(x), y.numpy(), *tol(dtype, 50)[::-1])
    np.testing.assert_allclose(a @ sl_np(x), b, *tol(dtype, 100)[::-1])


def test_ldl_indefinite_two_by_two_pivots(rng):
    """A matrix whose Bunch-Kaufman pivoting takes 2x2 blocks (negative pivots), batch-broadcast solve."""
    a = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
    s, t = SL.ldl_factor(seqlab.tensor(a)), TH.ldl_factor(torch.tensor(a))
    assert sl_np(s.pivots).tolist() == t.pivots.tolist() and (t.pivots < 0).any()
    np.testing.assert_allclose(sl_np(s.LD), t.LD.numpy(), atol=1e-14)
    b = rng.standard_normal((2, 3, 2))
    np.testing.assert_allclose(sl_np(SL.ldl_solve(s.LD, s.pivots, seqlab.tensor(b))),
                               TH.ldl_solve(t.LD, t.pivots, torch.tensor(b)).numpy(), atol=1e-12)


def test_ldl_singular_and_no_gradient(rng):
    a = np.stack([symmetric(rng, (3, 3)), np.zeros((3, 3))])
    s, t = SL.ldl_factor_ex(seqlab.tensor(a)), TH.ldl_factor_ex(torch.tensor(a))
    assert sl_np(s.info).tolist() == t.info.tolist() == [0, 1]
    # torch's check of info > 0 is an internal assertion; seqlab raises a RuntimeError naming the op
    with pytest.raises(RuntimeError, match=r"torch.linalg.ldl_factor: \(Batch element 1\): .*D is exactly singular"):
        SL.ldl_factor(seqlab.tensor(a))
    with pytest.raises(RuntimeError), warnings.catch_warnings():
        TH.ldl_factor(torch.tensor(a))
    x = sl_leaf(a[0])
    LD = SL.ldl_factor(x).LD
    assert LD.requires_grad
    raises_as_torch(lambda: LD.sum().backward(),
                    lambda: TH.ldl_factor(torch.tensor(a[0], requires_grad=True)).LD.sum().backward())
    LD, piv = SL.ldl_factor(seqlab.tensor(a[0]))
    X = SL.ldl_solve(LD, piv, sl_leaf(np.ones((3, 1))))
    LDt, pivt = TH.ldl_factor(torch.tensor(a[0]))
    raises_as_torch(lambda: X.sum().backward(),
                    lambda: TH.ldl_solve(LDt, pivt, torch.ones(3, 1, dtype=torch.float64, requires_grad=True))
                    .sum().backward())


# ---------------------------------------------------------------- householder_product, orgqr, geqrf, ormqr
HH_SHAPES = [((4, 3), 3), ((4, 3), 2), ((3, 3), 3), ((2, 5, 2), 2), ((2, 1, 4, 4), 3), ((3, 0), 0), ((0, 0), 0),
             ((0, 4, 3), 3), ((4, 3), 0)]
HH_OPS = {
    "linalg.householder_product": (SL.householder_product, TH.householder_product),
    "orgqr": (seqlab.orgqr, torch.orgqr),
    "Tensor.orgqr": (lambda a, t: a.orgqr(t), lambda a, t: a.orgqr(t)),
}


@pytest.mark.parametrize("case", HH_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(HH_OPS))
def test_householder_product(rng, name, dtype, case):
    shape, k = case
    ours, theirs = HH_OPS[name]
    a = rng.standard_normal(shape).astype(dtype)
    tau = rng.uniform(0.2, 1.8, shape[:-2] + (k,)).astype(dtype)
    assert_matches_torch(ours, theirs, [a, tau], *tol(dtype, 20))


@pytest.mark.parametrize("case", [((4, 3), 3), ((4, 3), 2), ((2, 3, 3), 3), ((5, 2), 1)], ids=str)
def test_householder_product_gradcheck(rng, case):
    shape, k = case
    assert_gradcheck(SL.householder_product, [rng.standard_normal(shape), rng.uniform(0.2, 1.8, shape[:-2] + (k,))])


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 5, 2), (0, 3), (2, 0, 2)], ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_geqrf_and_q(rng, dtype, shape):
    a = rng.standard_normal(shape).astype(dtype)
    for ours, theirs in ((seqlab.geqrf, torch.geqrf), (lambda x: x.geqrf(), lambda x: x.geqrf())):
        s, t = ours(seqlab.tensor(a)), theirs(torch.tensor(a))
        assert type(s).__name__ == "geqrf" and s._fields == ("a", "tau")
        for x, y in zip(s, t):
            assert tuple(x.shape) == tuple(y.shape)
            np.testing.assert_allclose(sl_np(x), y.numpy(), *tol(dtype, 20)[::-1])
    # Q R = A with Q from householder_product
    if min(shape[-2:]) > 0 and shape[-2] >= shape[-1]:
        s = seqlab.geqrf(seqlab.tensor(a))
        Q = SL.householder_product(s.a, s.tau)
        np.testing.assert_allclose(sl_np(Q @ s.a.triu()[..., :shape[-1], :]), a, *tol(dtype, 20)[::-1])


def test_geqrf_refuses_gradient_as_torch(rng):
    a = rng.standard_normal((3, 3))
    s = seqlab.geqrf(sl_leaf(a))
    assert s.a.requires_grad and s.tau.requires_grad
    raises_as_torch(lambda: s.a.sum().backward(),
                    lambda: torch.geqrf(torch.tensor(a, requires_grad=True)).a.sum().backward())


ORMQR_CASES = [  # (input shape, other shape, left)
    ((4, 3), (4, 2), True), ((4, 3), (2, 4), False), ((3, 4), (3, 2), True), ((4, 5), (3, 4), False),
    ((2, 4, 2), (2, 4, 3), True), ((2, 4, 4), (2, 1, 4), False), ((4, 3), (4, 0), True), ((0, 4, 3), (0, 4, 2), True),
]


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("case", ORMQR_CASES, ids=str)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_ormqr(rng, dtype, case, transpose):
    a_shape, c_shape, left = case
    a, c = rng.standard_normal(a_shape).astype(dtype), rng.standard_normal(c_shape).astype(dtype)
    k = min(a_shape[-2], a_shape[-1])
    tau = rng.uniform(0.2, 1.8, a_shape[:-2] + (k,)).astype(dtype)
    for grad in (False, True):  # LAPACK's ormqr without a gradient, the composed product with one
        assert_matches_torch(lambda x, t, y: seqlab.ormqr(x, t, y, left, transpose),
                             lambda x, t, y: torch.ormqr(x, t, y, left, transpose), [a, tau, c], *tol(dtype, 20),
                             grad=grad)
    assert_matches_torch(lambda x, t, y: x.ormqr(t, y, left=left, transpose=transpose),
                         lambda x, t, y: x.ormqr(t, y, left=left, transpose=transpose), [a, tau, c], *tol(dtype, 20),
                         grad=False)


def test_ormqr_gradcheck(rng):
    a, tau, c = rng.standard_normal((4, 3)), rng.uniform(0.2, 1.8, 3), rng.standard_normal((4, 2))
    assert_gradcheck(lambda x, t, y: seqlab.ormqr(x, t, y, True, True), [a, tau, c])
    assert_gradcheck(lambda x, t, y: seqlab.ormqr(x, t, y.mT, False, False), [a, tau, c])


# ---------------------------------------------------------------- out=
def test_out_arguments_as_torch(rng):
    a = general(rng, (3, 3))
    LU, piv = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int32)
    LU_s, piv_s = seqlab.empty(0, dtype=seqlab.float64), seqlab.empty(0, dtype=seqlab.int32)
    r = SL.lu_factor(seqlab.tensor(a), out=(LU_s, piv_s))
    TH.lu_factor(torch.tensor(a), out=(LU, piv))
    assert r.LU is LU_s and r.pivots is piv_s
    np.testing.assert_allclose(sl_np(LU_s), LU.numpy(), atol=1e-12)
    assert sl_np(piv_s).tolist() == piv.tolist()
    out = seqlab.empty(5, 5, dtype=seqlab.float64)
    with pytest.warns(UserWarning, match=r"An output with one or more elements was resized since it had shape \[5, 5\]"):
        got = SL.lu_solve(LU_s, piv_s, seqlab.ones(3, 2, dtype=seqlab.float64), out=out)
    assert got is out and tuple(out.shape) == (3, 2)
    np.testing.assert_allclose(a @ sl_np(out), np.ones((3, 2)), atol=1e-12)
    outs = [seqlab.empty(0, dtype=seqlab.float64) for _ in range(3)]
    SL.lu(seqlab.tensor(a), out=outs)
    np.testing.assert_allclose(sl_np(outs[0] @ outs[1] @ outs[2]), a, atol=1e-12)
    raises_as_torch(lambda: SL.lu_factor(seqlab.tensor(a), out=(seqlab.empty(0), piv_s)),
                    lambda: TH.lu_factor(torch.tensor(a), out=(torch.empty(0), piv)))
    raises_as_torch(lambda: SL.lu_factor(seqlab.tensor(a), out=(LU_s, seqlab.empty(0, dtype=seqlab.int64))),
                    lambda: TH.lu_factor(torch.tensor(a), out=(LU, torch.empty(0, dtype=torch.int64))))
    raises_as_torch(lambda: SL.lu_factor(sl_leaf(a), out=(LU_s, piv_s)),
                    lambda: TH.lu_factor(torch.tensor(a, requires_grad=True), out=(LU, piv)))
    tau = seqlab.empty(0, dtype=seqlab.float64)
    g = seqlab.geqrf(seqlab.tensor(a), out=(seqlab.empty(0, dtype=seqlab.float64), tau))
    assert g.tau is tau and tuple(tau.shape) == (3,)
    q = seqlab.empty(0, dtype=seqlab.float64)
    assert SL.householder_product(g.a, g.tau, out=q) is q
    np.testing.assert_allclose(sl_np(q), TH.householder_product(*torch.geqrf(torch.tensor(a))).numpy(), atol=1e-12)


# ---------------------------------------------------------------- errors
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
I3 = np.eye(3)
PIV3 = np.array([1, 2, 3], np.int32)
ERRORS = [  # (call with lib, arrays)
    (lambda L, a: L.linalg.lu_factor(a), [np.ones(3)]),
    (lambda L, a: L.linalg.lu_factor_ex(a), [np.ones(3)]),
    (lambda L, a: L.linalg.lu(a), [np.ones(3)]),
    (lambda L, a: L.linalg.lu_factor(a), [np.ones((3, 3), np.int64)]),
    (lambda L, a: L.linalg.lu(a), [np.ones((3, 3), np.int64)]),
    (lambda L, a: L.linalg.lu_factor(a, pivot=False), [I3]),
    (lambda L, a: L.linalg.lu(a, pivot=False), [I3]),
    (lambda L, a: L.linalg.lu_factor(a), [SINGULAR]),
    (lambda L, a: L.linalg.lu_factor(a), [np.stack([I3, np.zeros((3, 3))])]),
    (lambda L, a: L.linalg.lu_factor_ex(a, check_errors=True), [np.stack([I3, np.zeros((3, 3))])]),
    (lambda L, a: L.lu(a), [np.ones(3)]),
    (lambda L, a: L.lu(a), [np.ones((3, 3), np.int64)]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [I3, PIV3, np.ones(3)]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [I3, PIV3, np.ones((4, 2))]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b, left=False), [I3, PIV3, np.ones((4, 2))]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [I3, PIV3, np.ones((3, 2), np.float32)]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [I3, PIV3.astype(np.int64), np.ones((3, 2))]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [I3, PIV3[:2], np.ones((3, 2))]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [np.ones((3, 4)), PIV3, np.ones((3, 2))]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [np.ones(3), PIV3, np.ones((3, 2))]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [np.stack([I3, I3]), PIV3, np.ones((3, 2))]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [np.ones((3, 3), np.int64), PIV3, np.ones((3, 2), np.int64)]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [I3, np.array([5, 1, 1], np.int32), np.ones((3, 2))]),
    (lambda L, a, p, b: L.linalg.lu_solve(a, p, b), [I3, np.array([0, 1, 1], np.int32), np.ones((3, 2))]),
    (quiet(lambda L, b, a, p: L.lu_solve(b, a, p)), [np.ones(3), I3, PIV3]),
    (lambda L, a, p: L.lu_unpack(a, p), [np.ones(3), PIV3]),
    (lambda L, a, p: L.lu_unpack(a, p), [I3, PIV3.astype(np.int64)]),
    (lambda L, a, p: L.lu_unpack(a, p), [I3, np.array([5, 1, 1], np.int32)]),
    (lambda L, a: L.linalg.ldl_factor(a), [np.ones((3, 3), np.int64)]),
    (lambda L, a: L.linalg.ldl_factor(a), [np.ones((3, 4))]),
    (lambda L, a: L.linalg.ldl_factor(a), [np.ones(3)]),
    (lambda L, a: L.linalg.ldl_factor_ex(a), [np.ones(3)]),
    (lambda L, a, p, b: L.linalg.ldl_solve(a, p, b), [I3, PIV3, np.ones((3, 2), np.float32)]),
    (lambda L, a, p, b: L.linalg.ldl_solve(a, p, b), [I3, PIV3, np.ones((4, 2))]),
    (lambda L, a, p, b: L.linalg.ldl_solve(a, p, b), [I3, PIV3[:2], np.ones((3, 2))]),
    (lambda L, a, t: L.linalg.householder_product(a, t), [np.ones((3, 4)), np.ones(3)]),
    (lambda L, a, t: L.linalg.householder_product(a, t), [np.ones((4, 3)), np.ones(4)]),
    (lambda L, a, t: L.linalg.householder_product(a, t), [np.ones((4, 3)), np.ones(3, np.float32)]),
    (lambda L, a, t: L.linalg.householder_product(a, t), [np.ones(3), np.ones(3)]),
    (lambda L, a, t: L.linalg.householder_product(a, t), [np.ones((2, 4, 3)), np.ones(3)]),
    (lambda L, a, t: L.linalg.householder_product(a, t), [np.ones((4, 3)), np.ones((2, 3))]),
    (lambda L, a, t: L.linalg.householder_product(a, t), [np.ones((1, 4, 3)), np.ones((2, 3))]),
    (lambda L, a, t: L.linalg.householder_product(a, t), [np.ones((4, 3), np.int64), np.ones(3, np.int64)]),
    (lambda L, a, t: L.orgqr(a, t), [np.ones((3, 4)), np.ones(3)]),
    (lambda L, a: L.geqrf(a), [np.ones(3)]),
    (lambda L, a: L.geqrf(a), [np.ones((3, 3), np.int64)]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((4, 3)), np.ones(3), np.ones((3, 2))]),
    (lambda L, a, t, c: L.ormqr(a, t, c, False), [np.ones((4, 3)), np.ones(3), np.ones((2, 3))]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((4, 3)), np.ones(2), np.ones((4, 2))]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((4, 3)), np.ones(3), np.ones(4)]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((4, 3)), np.ones(3), np.ones((1, 4, 2))]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((4, 3)), np.ones(3), np.ones((4, 2), np.float32)]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((4, 3)), np.ones(3, np.float32), np.ones((4, 2))]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((2, 4, 3)), np.ones(3), np.ones((2, 4, 2))]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((2, 4, 3)), np.ones((3, 3)), np.ones((2, 4, 2))]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((2, 4, 3)), np.ones((2, 3)), np.ones((3, 4, 2))]),
    (lambda L, a, t, c: L.ormqr(a, t, c, False, True), [np.ones((4, 5)), np.ones(3), np.ones((3, 4))]),
    (lambda L, a, t, c: L.ormqr(a, t, c), [np.ones((4, 3), np.int64), np.ones(3, np.int64), np.ones((4, 2), np.int64)]),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    call, arrays = ERRORS[i]
    raises_as_torch(lambda: call(seqlab, *[seqlab.tensor(a) for a in arrays]),
                    lambda: call(torch, *[torch.tensor(a) for a in arrays]))


def test_ldl_solve_vector_b_refused():
    """torch fails on a 1-D B with an IndexError from inside; seqlab's IndexError says what is wrong."""
    with pytest.raises(IndexError):
        TH.ldl_solve(torch.eye(3), torch.tensor([1, 2, 3], dtype=torch.int32), torch.ones(3))
    with pytest.raises(IndexError, match=r"torch.linalg.ldl_solve: The input tensor B must have at least 2 dimensions"):
        SL.ldl_solve(seqlab.eye(3), seqlab.tensor(PIV3), seqlab.ones(3))
