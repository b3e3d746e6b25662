"""torch's top-level names for seqlab.linalg's ops (torch.det, logdet, slogdet, inverse, cholesky,
svd, pinverse, matrix_power, qr, cholesky_solve, cholesky_inverse, triangular_solve,
matrix_exp; lu, lu_solve, lu_unpack, geqrf, orgqr, ormqr) with torch's argument names and result
types; _tensor.py makes them Tensor methods too (METHODS). Tests: tests/test_linalg_lapack.py,
tests/test_linalg_lu.py (the LU family and the Householder names)."""
import collections
import warnings

import numpy as np

from . import _core, linalg

__all__ = ["det", "logdet", "slogdet", "inverse", "cholesky", "svd", "pinverse", "matrix_power", "qr", "cholesky_solve",
           "cholesky_inverse", "triangular_solve", "matrix_exp", "lu", "lu_solve", "lu_unpack", "geqrf", "orgqr", "ormqr"]

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



_lu_unpack_result = collections.namedtuple("lu_unpack", ["P", "L", "U"])
_geqrf_result = collections.namedtuple("geqrf", ["a", "tau"])
_lu_warned = []


def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu (deprecated in torch for linalg.lu_factor(_ex), with its one-time warning): (LU,
    pivots), or (LU, pivots, infos) when get_infos; a zero pivot is not an error here."""
    if "lu" not in _lu_warned:
        _lu_warned.append("lu")
        warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
                      "be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be "
                      "replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = "
                      "torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                      "torch.linalg.lu_factor_ex(A, compute_pivots)", UserWarning, stacklevel=2)
    LU, pivots, infos = _core.linalg.lu_factor_ex(A, pivot=pivot, _op="torch.lu")
    result = (LU, pivots, infos) if get_infos else (LU, pivots)
    return linalg._write_out("lu", result, out)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """X with A X = b from A's lu_factor (LU_data, LU_pivots) (torch.lu_solve =
    linalg.lu_solve(LU_data, LU_pivots, b); deprecated in torch, with its one-time warning)."""
    if "lu_solve" not in _lu_warned:
        _lu_warned.append("lu_solve")
        warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                      "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
                      "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
                      UserWarning, stacklevel=2)
    return linalg.lu_solve(LU_data, LU_pivots, b, out=out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from lu_factor's packed (LU_data, LU_pivots); the parts not asked for are empty
    tensors (torch.lu_unpack). L and U carry LU_data's gradient."""
    result = _lu_unpack_result(*_core.linalg.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots))
    return linalg._write_out("lu_unpack", result, out)


def geqrf(input, *, out=None):
    """(a, tau) as LAPACK's geqrf leaves them: R in a's upper triangle, the Householder vectors below
    it, their scales in tau (torch.geqrf). Not differentiable, as torch's."""
    return linalg._write_out("geqrf", _geqrf_result(*_core.linalg.geqrf(input)), out)


def orgqr(input, tau):
    """torch.orgqr = torch.linalg.householder_product (its errors name the latter, as torch's)."""
    return linalg.householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """op(Q) other (left) or other op(Q), Q = H_1 ... H_k the Householder product of geqrf's (input,
    tau), op(Q) = Q^T when transpose (LAPACK's ormqr; torch.ormqr)."""
    return linalg._write_out("ormqr", _core.linalg.ormqr(input, tau, other, left, transpose), out)


def _lu_method(self, pivot=True, get_infos=False):
    """torch.Tensor.lu: torch.lu(self, pivot, get_infos)."""
    return lu(self, pivot, get_infos)


def _lu_solve_method(self, LU_data, LU_pivots):
    """torch.Tensor.lu_solve: torch.lu_solve(self, LU_data, LU_pivots)."""
    return lu_solve(self, LU_data, LU_pivots)


def _orgqr_method(self, input2):
    """torch.Tensor.orgqr: torch.orgqr(self, input2)."""
    return orgqr(self, input2)


def _geqrf_method(self):
    """torch.Tensor.geqrf: torch.geqrf(self)."""
    return geqrf(self)


def _ormqr_method(self, input2, input3, left=True, transpose=False):
    """torch.Tensor.ormqr: torch.ormqr(self, input2, input3, left, transpose)."""
    return ormqr(self, input2, input3, left, transpose)


METHODS = {name: globals()[name] for name in __all__ if name != "lu_unpack"}
METHODS.update(triangular_solve=_triangular_solve_method, matrix_exp=_matrix_exp_method, lu=_lu_method,
               lu_solve=_lu_solve_method, orgqr=_orgqr_method, geqrf=_geqrf_method, ormqr=_ormqr_method)
for _name in ("triangular_solve", "matrix_exp", "lu", "lu_solve", "orgqr", "geqrf", "ormqr"):
    METHODS[_name].__name__ = METHODS[_name].__qualname__ = _name
