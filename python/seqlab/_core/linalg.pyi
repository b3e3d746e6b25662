"""
torch.linalg's names (python/seqlab/linalg.py re-exports them)
"""
from __future__ import annotations
import seqlab._core
import typing
from seqlab._core import Tensor, dtype
__all__: list[str] = ['LinAlgError', 'cholesky', 'det', 'eigh', 'eigvalsh', 'geqrf', 'householder_product', 'inv', 'ldl_factor_ex', 'ldl_solve', 'logdet', 'lu', 'lu_factor_ex', 'lu_solve', 'lu_unpack', 'ormqr', 'qr', 'slogdet', 'solve', 'solve_triangular', 'svd', 'svdvals', 'vector_norm']
class LinAlgError(RuntimeError):
    """
    A factorization could not be completed: a singular or non-positive-definite matrix, or no convergence
    (torch.linalg.LinAlgError, a RuntimeError).
    """
def _cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """
    torch.cholesky(input, upper=False): linalg.cholesky under the old name, which its errors carry.
    """
def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """
    cholesky(A, *, upper=False): L with A = L L^T (U with A = U^T U) for symmetric positive-definite A
    (torch.linalg.cholesky).
    """
def det(A: Tensor) -> Tensor:
    """
    det(A): the determinant of each square matrix of A (*, n, n), by LU (torch.linalg.det).
    """
def eigh(A: Tensor, UPLO: str = 'L') -> tuple[Tensor, Tensor]:
    """
    eigh(A, UPLO='L') -> (eigenvalues, eigenvectors) of symmetric A, eigenvalues ascending
    (torch.linalg.eigh).
    """
def eigvalsh(A: Tensor, UPLO: str = 'L') -> Tensor:
    """
    eigvalsh(A, UPLO='L'): the eigenvalues of symmetric A, ascending (torch.linalg.eigvalsh).
    """
def geqrf(input: Tensor) -> tuple[Tensor, Tensor]:
    """
    geqrf(input) -> (a, tau): LAPACK's geqrf (torch.geqrf).
    """
def householder_product(A: Tensor, tau: Tensor, _op: str = 'torch.linalg.householder_product') -> Tensor:
    """
    householder_product(A, tau): the first n columns of H_1 ... H_k (torch.linalg.householder_product).
    """
def inv(A: Tensor) -> Tensor:
    """
    inv(A): the inverse of each square matrix; LinAlgError if one is singular (torch.linalg.inv).
    """
def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, _op: str = 'torch.linalg.ldl_factor_ex') -> tuple[Tensor, Tensor, Tensor]:
    """
    ldl_factor_ex(A, *, hermitian=False, check_errors=False) -> (LD, pivots, info): A = L D L^T
    (torch.linalg.ldl_factor_ex).
    """
def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """
    ldl_solve(LD, pivots, B, *, hermitian=False): X with A X = B from A's ldl_factor (torch.linalg.ldl_solve).
    """
def logdet(input: Tensor) -> Tensor:
    """
    logdet(input): log det, nan where det < 0 and -inf where det = 0 (torch.logdet).
    """
def lu(A: Tensor, *, pivot: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """
    lu(A, *, pivot=True) -> (P, L, U): A = P L U (torch.linalg.lu).
    """
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, _op: str = 'torch.linalg.lu_factor_ex') -> tuple[Tensor, Tensor, Tensor]:
    """
    lu_factor_ex(A, *, pivot=True, check_errors=False) -> (LU, pivots, info): P A = L U packed
    (torch.linalg.lu_factor_ex; _op names the caller in errors).
    """
def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """
    lu_solve(LU, pivots, B, *, left=True, adjoint=False): X with A X = B from A's lu_factor
    (torch.linalg.lu_solve).
    """
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """
    lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True) -> (P, L, U) (torch.lu_unpack).
    """
def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    """
    ormqr(input, tau, other, left=True, transpose=False): op(Q) other or other op(Q) (torch.ormqr).
    """
def qr(A: Tensor, mode: str = 'reduced') -> tuple[Tensor, Tensor]:
    """
    qr(A, mode='reduced') -> (Q, R): A = Q R, Q orthonormal columns, R upper triangular (torch.linalg.qr).
    """
def slogdet(A: Tensor) -> tuple[Tensor, Tensor]:
    """
    slogdet(A) -> (sign, logabsdet): det(A) = sign * exp(logabsdet) (torch.linalg.slogdet).
    """
def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """
    solve(A, B, *, left=True): X with A X = B (or X A = B); B a vector or a matrix, batch dims
    broadcast (torch.linalg.solve).
    """
def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """
    solve_triangular(A, B, *, upper, left=True, unitriangular=False): X with A X = B (or X A = B) for
    triangular A (torch.linalg.solve_triangular).
    """
def svd(A: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """
    svd(A, full_matrices=True) -> (U, S, Vh): A = U diag(S) Vh, S descending (torch.linalg.svd).
    """
def svdvals(A: Tensor) -> Tensor:
    """
    svdvals(A): the singular values of A, descending (torch.linalg.svdvals).
    """
def vector_norm(x: Tensor, ord: typing.Any = 2, dim: typing.Any = None, keepdim: bool = False, *, dtype: seqlab._core.dtype | None = None) -> Tensor:
    """
    (sum |x|^ord)^(1/ord) over dim; ord inf/-inf is max/min |x|, ord 0 counts non-zeros
    (torch.linalg.vector_norm). The gradient at a zero norm is 0.
    """
