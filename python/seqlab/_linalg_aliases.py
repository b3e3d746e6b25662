"""torch's top-level names for seqlab.linalg's ops (torch.det, logdet, slogdet, inverse, cholesky,
svd, pinverse, matrix_power, qr, cholesky_solve, cholesky_inverse, triangular_solve,
matrix_exp) with torch's argument names and result types; _tensor.py makes them
Tensor methods too (METHODS). Tests: tests/test_linalg_lapack.py."""
import collections
import warnings

import numpy as np

from . import _core, linalg

__all__ = ["det", "logdet", "slogdet", "inverse", "cholesky", "svd", "pinverse", "matrix_power", "qr", "cholesky_solve",
           "cholesky_inverse", "triangular_solve", "matrix_exp"]

_slogdet_result = collections.namedtuple("slogdet", ["sign", "logabsdet"])
_svd_result = collections.namedtuple("svd", ["U", "S", "V"])
_qr_result = collections.namedtuple("qr", ["Q", "R"])
_triangular_solve_result = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


def det(input):
    """The determinant of each square matrix of input (torch.det = torch.linalg.det)."""
    return linalg.det(input)


def logdet(input):
    """log det of each square matrix: nan where det < 0, -inf where det = 0 (torch.logdet)."""
    return _core.linalg.logdet(input)


def slogdet(input):
    """(sign, logabsdet) with det = sign * exp(logabsdet) (torch.slogdet)."""
    return _slogdet_result(*linalg.slogdet(input))


def inverse(input):
    """The inverse of each square matrix (torch.inverse = torch.linalg.inv)."""
    return linalg.inv(input)


def cholesky(input, upper=False):
    """torch.cholesky (deprecated in torch for linalg.cholesky): L with A = L L^T, or U = L^T when
    upper; errors name 'cholesky'. seqlab does not repeat torch's deprecation warning."""
    return _core.linalg._cholesky(input, upper)


def svd(input, some=True, compute_uv=True):
    """torch.svd, the old API: (U, S, V) with input = U diag(S) V^T (V, not Vh); some=True: the
    reduced U and V. compute_uv=False: S only, and zero-filled U (m, m) and V (n, n), as torch."""
    if not compute_uv:
        S = linalg.svdvals(input)
        batch = list(input.shape[:-2])
        m, n = input.shape[-2], input.shape[-1]
        return _svd_result(_core._full(batch + [m, m], 0.0, input.dtype), S,
                           _core._full(batch + [n, n], 0.0, input.dtype))
    U, S, Vh = linalg.svd(input, full_matrices=not some)
    return _svd_result(U, S, Vh.transpose(-2, -1))


def pinverse(input, rcond=1e-15):
    """The pseudoinverse with singular values below rcond * largest dropped (torch.pinverse =
    torch.linalg.pinv(input, rtol=rcond))."""
    return linalg.pinv(input, rtol=rcond)


def matrix_power(input, n):
    """input^n for an integer n (torch.matrix_power = torch.linalg.matrix_power)."""
    return linalg.matrix_power(input, n)


_warned = set()


def _deprecated(name, replacement):
    """torch's one-time deprecation warning (TORCH_WARN_ONCE) for name."""
    if name not in _warned:
        _warned.add(name)
        warnings.warn(f"torch.{name} is deprecated in favor of torch.{replacement} and will be removed in a future "
                      "PyTorch release.", UserWarning, stacklevel=3)


def qr(input, some=True):
    """(Q, R) with input = Q R (torch.qr, deprecated in torch for linalg.qr): reduced when some,
    else complete."""
    _deprecated("qr", "linalg.qr")
    return _qr_result(*linalg.qr(input, "reduced" if some else "complete"))


def cholesky_solve(input, input2, upper=False):
    """X with A X = input, where input2 is A's Cholesky factor L (A = L L^T), or U (A = U^T U) when
    upper (torch.cholesky_solve): two triangular solves, L Y = input then L^T X = Y."""
    lower = input2.mT if upper else input2
    y = linalg.solve_triangular(lower, input, upper=False)
    return linalg.solve_triangular(lower.mT, y, upper=True)


def cholesky_inverse(input, upper=False):
    """A⁻¹ from A's Cholesky factor input (L, or U when upper) (torch.cholesky_inverse):
    cholesky_solve of the identity."""
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.dim() >= 2 else 1} by {input.shape[-1] if input.dim() else 1} "
                           f"matrices")
    n = input.shape[-1]
    eye = _core.from_numpy(np.eye(n, dtype=np.float64 if input.dtype == _core.dtype.float64 else np.float32))
    return cholesky_solve(eye.expand(*input.shape), input, upper)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, A.clone()) with op(A) X = b, op(A) = A or A^T, A triangular (torch.triangular_solve,
    deprecated in torch for linalg.solve_triangular, which it calls)."""
    _deprecated("triangular_solve", "linalg.solve_triangular")
    coefficient = A.mT if transpose else A
    x = linalg.solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    return _triangular_solve_result(x, A.clone())


matrix_exp = linalg.matrix_exp

def _triangular_solve_method(self, A, upper=True, transpose=False, unitriangular=False):
    """triangular_solve(self, A, ...) as a Tensor method (torch.Tensor.triangular_solve)."""
    return triangular_solve(self, A, upper, transpose, unitriangular)


def _matrix_exp_method(self):
    """e^self for each square matrix (torch.Tensor.matrix_exp)."""
    return matrix_exp(self)


METHODS = {name: globals()[name] for name in __all__}
METHODS.update(triangular_solve=_triangular_solve_method, matrix_exp=_matrix_exp_method)
_triangular_solve_method.__name__ = "triangular_solve"
_matrix_exp_method.__name__ = "matrix_exp"
