"""More of torch's names against torch: matrix_exp (linalg, torch and Tensor), the deprecated
torch.qr and torch.triangular_solve with their one-time warnings, cholesky_solve and
cholesky_inverse, index_put / index_put_ and nonzero_static; values, gradients and errors."""
import re
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_gradcheck, assert_matches_torch, assert_raises_like_torch


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scale", [0.0, 0.1, 1.0, 6.0])
def test_matrix_exp_matches_torch(rng, dtype, scale):
    a = (rng.standard_normal((3, 4, 4)) * scale).astype(dtype)
    tol = dict(atol=1e-5 * max(1.0, np.exp(4 * scale)), rtol=1e-4) if dtype == np.float32 else {}
    assert_matches_torch(seqlab.linalg.matrix_exp, torch.linalg.matrix_exp, [a], **tol)
    assert_matches_torch(lambda x: x.matrix_exp(), lambda x: x.matrix_exp(), [a[0]], **tol)
    assert_matches_torch(seqlab.matrix_exp, torch.matrix_exp, [a[:, :1, :1]], **tol)


def test_matrix_exp_gradcheck_empty_and_errors(rng):
    assert_gradcheck(seqlab.linalg.matrix_exp, [rng.standard_normal((2, 3, 3))])
    assert seqlab.linalg.matrix_exp(seqlab.zeros(0, 2, 2)).shape == (0, 2, 2)
    assert_raises_like_torch(lambda: seqlab.linalg.matrix_exp(seqlab.ones(2, 3)),
                             lambda: torch.linalg.matrix_exp(torch.ones(2, 3)), "must be batches of square matrices")
    assert_raises_like_torch(lambda: seqlab.linalg.matrix_exp(seqlab.ones(2, 2, dtype=seqlab.int64)),
                             lambda: torch.linalg.matrix_exp(torch.ones(2, 2, dtype=torch.int64)),
                             "Expected a floating point")


def _spd(rng, batch, n):
    a = rng.standard_normal((batch, n, n))
    return a @ a.transpose(0, 2, 1) + n * np.eye(n)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_match_torch(rng, upper):
    A, b = _spd(rng, 2, 4), rng.standard_normal((2, 4, 3))
    factor = np.linalg.cholesky(A)
    factor = factor.transpose(0, 2, 1) if upper else factor
    sf, tf = seqlab.tensor(factor), torch.tensor(factor)
    assert_matches_torch(lambda x: seqlab.cholesky_solve(x, sf, upper), lambda x: torch.cholesky_solve(x, tf, upper),
                         [b])
    assert_matches_torch(lambda x: x.cholesky_solve(sf[0], upper=upper), lambda x: x.cholesky_solve(tf[0], upper=upper),
                         [b[0]])
    assert_matches_torch(lambda f: seqlab.cholesky_inverse(f, upper), lambda f: torch.cholesky_inverse(f, upper),
                         [factor[0]], grad=False)
    assert_matches_torch(lambda f: f.cholesky_inverse(upper=upper), lambda f: f.cholesky_inverse(upper=upper),
                         [factor[1]], grad=False)
    # the factor's gradient: seqlab reads only its triangle, so the other one gets 0 (torch's formula
    # differentiates L L^T as if L were full); on the triangle the two agree
    triangle = np.triu(np.ones((4, 4))) if upper else np.tril(np.ones((4, 4)))
    g = rng.standard_normal((2, 4, 3))
    sfg, tfg = seqlab.tensor(factor, requires_grad=True), torch.tensor(factor, requires_grad=True)
    (seqlab.cholesky_solve(seqlab.tensor(b), sfg, upper) * seqlab.tensor(g)).sum().backward()
    (torch.cholesky_solve(torch.tensor(b), tfg, upper) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(sfg.grad.numpy() * triangle, tfg.grad.numpy() * triangle, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(sfg.grad.numpy() * (1 - triangle), 0)
    assert_gradcheck(lambda x, f: seqlab.cholesky_solve(x, f, upper), [b[0], factor[0]])
    assert_raises_like_torch(lambda: seqlab.cholesky_inverse(seqlab.ones(2, 3)),
                             lambda: torch.cholesky_inverse(torch.ones(2, 3)), "")


@pytest.mark.parametrize("upper,transpose,unitriangular", [(True, False, False), (True, True, False),
                                                           (False, False, True), (False, True, True)])
def test_triangular_solve_matches_torch(rng, upper, transpose, unitriangular):
    t = np.triu(rng.standard_normal((2, 4, 4))) + 3 * np.eye(4)
    t = t if upper else t.transpose(0, 2, 1)
    b = rng.standard_normal((2, 4, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_matches_torch(lambda x, a: tuple(seqlab.triangular_solve(x, a, upper, transpose, unitriangular)),
                             lambda x, a: tuple(torch.triangular_solve(x, a, upper, transpose, unitriangular)), [b, t])
        assert_matches_torch(lambda x, a: x.triangular_solve(a, upper=upper).solution,
                             lambda x, a: x.triangular_solve(a, upper=upper).solution, [b[0], t[0]])


@pytest.mark.parametrize("some", [True, False])
def test_qr_matches_torch(rng, some):
    a = rng.standard_normal((5, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_matches_torch(lambda x: tuple(seqlab.qr(x, some)), lambda x: tuple(torch.qr(x, some)), [a], grad=some)
        assert_matches_torch(lambda x: x.qr(some=some).R, lambda x: x.qr(some=some).R, [a], grad=some)
    assert type(seqlab.qr(seqlab.ones(2, 2))).__name__ == "qr"


def test_deprecated_forms_warn_once_as_torch():
    import seqlab._linalg_aliases as aliases
    aliases._warned.clear()
    for call in (lambda: seqlab.qr(seqlab.eye(2)), lambda: seqlab.triangular_solve(seqlab.ones(2, 1), seqlab.eye(2))):
        with pytest.warns(UserWarning, match="is deprecated in favor of torch.linalg"):
            call()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            call()  # once per process, as TORCH_WARN_ONCE


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_matches_torch(rng, accumulate):
    x = rng.standard_normal((4, 3))
    v = rng.standard_normal(3)

    def ours(a, b):
        return seqlab.index_put(a, (seqlab.tensor([0, 2, 0]),), b, accumulate)

    def theirs(a, b):
        return torch.index_put(a, (torch.tensor([0, 2, 0]),), b, accumulate)
    if accumulate:
        assert_matches_torch(ours, theirs, [x, v])
    idx = (seqlab.tensor([1, 3]), seqlab.tensor([2, 0]))
    tidx = (torch.tensor([1, 3]), torch.tensor([2, 0]))
    assert_matches_torch(lambda a: a.index_put(idx, seqlab.tensor(5.0, dtype=a.dtype), accumulate),
                         lambda a: a.index_put(tidx, torch.tensor(5.0, dtype=a.dtype), accumulate), [x])
    s, t = seqlab.tensor(x), torch.tensor(x)
    assert s.index_put_(idx, seqlab.tensor([1.0, 2.0], dtype=seqlab.float64), accumulate) is s
    t.index_put_(tidx, torch.tensor([1.0, 2.0], dtype=torch.float64), accumulate)
    np.testing.assert_array_equal(s.numpy(), t.numpy())
    seqlab.index_put_(s, idx, seqlab.tensor(1.0, dtype=seqlab.float64))
    torch.index_put_(t, tidx, torch.tensor(1.0, dtype=torch.float64))
    np.testing.assert_array_equal(s.numpy(), t.numpy())


def test_index_put_errors_match_torch():
    assert_raises_like_torch(lambda: seqlab.zeros(3).index_put_((seqlab.tensor([0]),), 1.0),
                             lambda: torch.zeros(3).index_put_((torch.tensor([0]),), 1.0),
                             re.escape("argument 'values' (position 2) must be Tensor, not float"))
    assert_raises_like_torch(lambda: seqlab.zeros(3).index_put_((seqlab.tensor([0]),), seqlab.tensor(1)),
                             lambda: torch.zeros(3).index_put_((torch.tensor([0]),), torch.tensor(1)),
                             re.escape("Index put requires the source and destination dtypes match, got Float for "
                                       "the destination and Long for the source."))


def test_nonzero_static_matches_torch():
    for data, size, fill in [([[0, 1], [2, 0]], 1, -1), ([0.0, 1.0], 3, 7), ([0, 0], 2, -1), ([1, 2, 3], 0, -1)]:
        got = seqlab.nonzero_static(seqlab.tensor(data), size=size, fill_value=fill)
        want = torch.nonzero_static(torch.tensor(data), size=size, fill_value=fill)
        assert got.tolist() == want.tolist() and got.dtype == seqlab.int64
        assert seqlab.tensor(data).nonzero_static(size=size, fill_value=fill).tolist() == want.tolist()
