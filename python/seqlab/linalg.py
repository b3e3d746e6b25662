"""seqlab.linalg: torch.linalg's names. The LAPACK factorizations (det, slogdet, inv, solve, cholesky,
solve_triangular, qr, eigh, eigvalsh, svd, svdvals) are C++ ops with hand-written backward
(cpp/src/ops/lapack_linalg.cpp, lapack_decomp.cpp); pinv, matrix_norm, norm, matrix_rank,
matrix_power, multi_dot, vecdot and lstsq are composed from them here, as torch composes them, and
have no backward of their own. vector_norm: cpp/src/ops/reduce.cpp (tests: tests/test_norm.py);
cross: seqlab/_shape.py. Tests: tests/test_linalg_lapack.py. The LU and LDL families and
householder_product (cpp/src/ops/lapack_lu.cpp, with torch's out=): tests/test_linalg_lu.py."""
import collections
import math
import numbers
import re
import warnings

import numpy as np

from . import _core
from ._core import linalg as _linalg
from ._dtypes import scalar_type_name
from ._math import amax as _amax, amin as _amin
from ._shape import diagonal as _diagonal, linalg_cross as cross, movedim as _movedim
from ._through_float32 import through_float32

__all__ = ["vector_norm", "cross", "LinAlgError", "det", "slogdet", "inv", "solve", "cholesky", "solve_triangular",
           "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_norm", "norm", "matrix_rank", "matrix_power",
           "multi_dot", "vecdot", "matmul", "diagonal", "lstsq"]

vector_norm = _linalg.vector_norm
LinAlgError = _linalg.LinAlgError
det = _linalg.det
inv = _linalg.inv
solve = _linalg.solve
solve_triangular = _linalg.solve_triangular
eigvalsh = _linalg.eigvalsh
svdvals = _linalg.svdvals

# torch.return_types.linalg_*: tuples with named fields
_slogdet_result = collections.namedtuple("linalg_slogdet", ["sign", "logabsdet"])
_qr_result = collections.namedtuple("linalg_qr", ["Q", "R"])
_eigh_result = collections.namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
_svd_result = collections.namedtuple("linalg_svd", ["U", "S", "Vh"])
_lstsq_result = collections.namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])

def _zeros(shape, dtype):
    return _core._full(list(shape), 0.0, dtype)


_EPS = {_core.dtype.float32: 1.1920928955078125e-07, _core.dtype.float64: 2.220446049250313e-16,
        _core.dtype.float16: 2.0 ** -10, _core.dtype.bfloat16: 2.0 ** -7}


def slogdet(A):
    """(sign, logabsdet) with det(A) = sign * exp(logabsdet), by LU; sign 0 and logabsdet -inf for a
    singular A (torch.linalg.slogdet)."""
    return _slogdet_result(*_linalg.slogdet(A))


def cholesky(A, *, upper=False):
    """L, lower triangular with A = L L^T, for each symmetric positive-definite matrix of A (*, n, n);
    upper=True: U = L^T. Only A's lower (upper) triangle is read; LinAlgError naming the leading minor
    that is not positive-definite (torch.linalg.cholesky)."""
    return _linalg.cholesky(A, upper=upper)


def qr(A, mode="reduced"):
    """(Q, R) with A = Q R, Q with orthonormal columns, R upper triangular. mode 'reduced': Q (m, k),
    R (k, n), k = min(m, n); 'complete': Q (m, m), R (m, n); 'r': R only, Q empty (torch.linalg.qr)."""
    return _qr_result(*_linalg.qr(A, mode))


def eigh(A, UPLO="L"):
    """(eigenvalues, eigenvectors) of each symmetric matrix of A, read from its UPLO triangle:
    A = V diag(L) V^T, eigenvalues ascending, eigenvectors the columns of V (torch.linalg.eigh)."""
    return _eigh_result(*_linalg.eigh(A, UPLO))


def svd(A, full_matrices=True, *, driver=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending; full_matrices=False gives U (m, k) and Vh (k, n),
    k = min(m, n) (torch.linalg.svd). driver is for CUDA only, as in torch."""
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    return _svd_result(*_linalg.svd(A, full_matrices))


def _check_float_matrix(A, fn):
    if not isinstance(A, _core.Tensor) or A.dim() < 2 or not A.is_floating_point():
        kind = {_core.dtype.float32: "Float", _core.dtype.float64: "Double"}.get(getattr(A, "dtype", None))
        raise RuntimeError(f"linalg.{fn}({kind or _type_name(A)}{{{list(A.shape)}}}): expected a tensor with 2 or more "
                           f"dimensions of float, double, cfloat or cdouble types")


def _type_name(A):
    return scalar_type_name(A.dtype)


def _tolerance(S_max, A, atol, rtol):
    """max(atol, rtol * S_max) per matrix, torch's defaults: rtol = eps * max(m, n) when neither is
    given, and rtol = 0 when only atol > 0 is."""
    default_rtol = _EPS[A.dtype] * max(A.shape[-2], A.shape[-1])
    if rtol is None:
        if atol is None:
            rtol = default_rtol
        elif isinstance(atol, _core.Tensor):
            rtol = _core.where(atol > 0, _zeros((), A.dtype), _core._full([], default_rtol, A.dtype))
        else:
            rtol = 0.0 if atol > 0 else default_rtol
    atol = 0.0 if atol is None else atol
    tol = rtol * S_max
    if isinstance(atol, _core.Tensor):
        return _core.maximum(atol.unsqueeze(-1), tol)
    return tol.clamp(min=atol)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudoinverse, from the reduced SVD (or eigh when hermitian): the singular
    values above max(atol, rtol * largest) are inverted, the others set to 0 (torch.linalg.pinv).
    Composed, so its gradient is the SVD's (eigh's): torch's where no singular value is dropped;
    where some are, torch differentiates pinv as if A had that rank, seqlab the truncated SVD."""
    _check_float_matrix(A, "pinv")
    if A.numel() == 0:  # an empty (..., n, m) result, still in A's graph as torch's is
        return A.transpose(-2, -1).clone()
    if hermitian:
        L, V = eigh(A)
        S = L.abs()
        tol = _tolerance(_amax(S, -1, keepdim=True), A, atol, rtol)
        S_inv = _core.where(S > tol, 1.0 / L, _zeros((), A.dtype))
        return (V * S_inv.unsqueeze(-2)) @ V.transpose(-2, -1)
    U, S, Vh = svd(A, full_matrices=False)
    tol = _tolerance(S[..., :1], A, atol, rtol)
    S_inv = _core.where(S > tol, 1.0 / S, _zeros((), A.dtype))
    return (Vh.transpose(-2, -1) * S_inv.unsqueeze(-2)) @ U.transpose(-2, -1)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values (|eigenvalues| when hermitian) above max(atol, rtol * largest),
    int64 per matrix (torch.linalg.matrix_rank)."""
    if not isinstance(A, _core.Tensor) or A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not A.is_floating_point():
        raise RuntimeError("This function doesn't handle types other than float and double")
    S = eigvalsh(A).abs() if hermitian else svdvals(A)
    if S.shape[-1] == 0:
        return _zeros(A.shape[:-2], _core.dtype.int64)
    tol = _tolerance(_amax(S, -1, keepdim=True), A, atol, rtol)
    return (S > tol).sum(-1)


def _matrix_norm_dims(A, dim):
    if isinstance(dim, numbers.Integral) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in ([dim] if isinstance(dim, numbers.Integral) else dim))}")
    d0, d1 = (d + A.dim() if d < 0 else d for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """A matrix norm over the two dims `dim`: 'fro' (sqrt of the sum of squares), 'nuc' (sum of the
    singular values), 2 / -2 (largest / smallest singular value), 1 / -1 (max / min column sum of |A|),
    inf / -inf (max / min row sum of |A|) (torch.linalg.matrix_norm)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not A.is_floating_point():
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_type_name(A)}")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = _matrix_norm_dims(A, dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        S = svdvals(_movedim(A, (d0, d1), (-2, -1)))
        out = S.sum(-1) if ord == "nuc" else (_amax(S, -1) if ord == 2 else _amin(S, -1))
        if keepdim:
            out = out.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return out
    if ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum (sum over the rows d0, then the max over d1); inf: rows, the other way
        sum_dim, max_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(sum_dim, keepdim=True)
        out = _amax(sums, max_dim, keepdim=True) if ord > 0 else _amin(sums, max_dim, keepdim=True)
        return out if keepdim else out.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector or matrix norm (torch.linalg.norm): dim an int or 1-tuple, or ord None with dim None
    (of the flattened input): vector_norm; dim a 2-tuple, or ord given for a 2-D input: matrix_norm."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.dim()}D.")
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    return vector_norm(A, ord, None, keepdim, dtype=dtype)


def _check_square(A, fn):
    if A.dim() < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def matrix_power(A, n):
    """A^n for an integer n by repeated squaring (n < 0: inv(A)^|n|; n = 0: the identity), batched
    (torch.linalg.matrix_power)."""
    _check_square(A, "linalg.matrix_power")
    if n == 0:  # the identity, in A's graph with a zero gradient, as torch's
        eye = _core._eye(A.shape[-1], A.shape[-1], A.dtype).expand(*A.shape).clone()
        return eye + 0 * A if A.requires_grad else eye
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    result, power = None, None
    while n > 0:  # the binary digits of n, low first: power = A^(2^i)
        power = A if power is None else power @ power
        if n & 1:
            result = power if result is None else result @ power
        n >>= 1
    return result


def _chain_order(shapes):
    """The cheapest parenthesisation of a matrix chain (Cormen et al., §15.2): split[i][j] is where
    the product of matrices i..j splits."""
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    k = len(shapes)
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = math.inf
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s
    return split


def multi_dot(tensors):
    """The product of two or more matrices, multiplied in the order with the fewest operations; the
    first may be a row vector (1-D) and the last a column vector (torch.linalg.multi_dot)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0].dim(), tensors[-1].dim()
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    names = {_core.dtype.float32: "float", _core.dtype.float64: "double"}
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{names.get(tensors[0].dtype, tensors[0].dtype)} and tensor {i} "
                               f"{names.get(t.dtype, t.dtype)}")
    mats = [t for t in tensors]
    if first == 1:
        mats[0] = mats[0].unsqueeze(0)
    if last == 1:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                               f"{list(tensors[i + 1].shape)} cannot be multiplied")
    split = _chain_order([tuple(m.shape) for m in mats])

    def product(i, j):
        if i == j:
            return mats[i]
        return _core.mm(product(i, split[i][j]), product(split[i][j] + 1, j))

    out = product(0, len(mats) - 1)
    if first == 1:
        out = out.squeeze(0)
    if last == 1:
        out = out.squeeze(-1)
    return out


def vecdot(x, y, *, dim=-1):
    """Σ x_i y_i along dim, the other dims broadcast (torch.linalg.vecdot, real inputs)."""
    if not x.is_floating_point():
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{_type_name(x)}")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_type_name(x)} and y of type {_type_name(y)} instead")
    return (x * y).sum(dim)


def matmul(input, other):
    """The matrix product with NumPy's rules (torch.linalg.matmul, an alias of torch.matmul)."""
    return _core.matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.diagonal with dim1=-2, dim2=-1: the diagonal `offset` of each matrix, as the last dim
    (torch.linalg.diagonal). A copy, as seqlab.diagonal."""
    return _diagonal(A, offset, dim1, dim2)


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution X of A X = B (min ||A X - B||), batched, from the pseudoinverse of
    A with singular values below rcond * largest dropped (torch.linalg.lstsq; its CPU default
    driver 'gelsy' gives the same X for full-rank A). Returns (solution, residuals, rank,
    singular_values) with torch's shapes for the driver: residuals (squared, per column of B) when
    m > n and A has full rank and the driver is not 'gelsy', rank unless 'gels', singular_values for
    'gelsd' and 'gelss'."""
    driver = "gelsy" if driver is None else driver
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if vector:
        B = B.unsqueeze(-1)
    if A.shape[-2] != B.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2], A.shape[-1]
    rtol = _EPS[A.dtype] * max(m, n) if rcond is None or rcond <= 0 else rcond
    X = pinv(A, rtol=rtol) @ B
    S = svdvals(A.detach())
    rank = (S > rtol * S[..., :1]).sum(-1) if S.shape[-1] else _zeros(A.shape[:-2], _core.dtype.int64)
    empty = _zeros((0,), A.dtype)
    residuals = X.reshape(-1)[:0]  # empty, in X's graph as torch's
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = ((A @ X - B) ** 2).sum(-2)
    if vector:
        X = X.squeeze(-1)
    return _lstsq_result(X, residuals, rank if driver != "gels" else _zeros((0,), _core.dtype.int64),
                         S if driver in ("gelsd", "gelss") else empty)


# ------------------------------------------------------------------ vander, tensorinv, tensorsolve and the _ex forms
# (torch.linalg's pages; composed from the ops above. Tests: tests/test_torch_compositions.py)
def vander(x, N=None):
    """The Vandermonde matrix of the last dim of x: [..., i, j] = x[..., i] ** j for j < N (N
    defaults to x.shape[-1]), increasing powers as a running product (torch.linalg.vander)."""
    n = x.shape[-1] if x.dim() else 0
    N = n if N is None else N
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = _core._full(list(x.shape) + [1], 1.0, x.dtype)
    powers = x.unsqueeze(-1).expand(list(x.shape) + [N - 1])
    return _core.cumprod(_core.cat([ones, powers], -1), -1)


def _prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


def tensorinv(A, ind=2):
    """X with tensordot(X, A, ind) the identity (torch.linalg.tensorinv): inv of A seen as a
    prod(A.shape[:ind]) x prod(A.shape[ind:]) matrix, shaped A.shape[ind:] + A.shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = list(A.shape[:ind]), list(A.shape[ind:])
    if _prod(rows) != _prod(cols):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {_prod(cols)} != {_prod(rows)}")
    return inv(A.reshape([_prod(rows), _prod(cols)])).reshape(cols + rows)


def tensorsolve(A, B, dims=None):
    """X with tensordot(A, X, X.ndim) = B (torch.linalg.tensorsolve): A's dims in `dims` are first
    moved to the end, then A is solved as a prod(B.shape) x prod(A.shape[B.ndim:]) matrix."""
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = _movedim(A, dims, list(range(A.dim() - len(dims), A.dim())))
    cols = list(A.shape[B.dim():])
    if _prod(cols) != B.numel():  # (torch's message, whose right side is B.numel())
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {_prod(cols)} != {B.numel()}")
    return solve(A.reshape([-1, _prod(cols)]), B.reshape([-1])).reshape(cols)


_inv_ex_result = collections.namedtuple("linalg_inv_ex", ["inverse", "info"])
_cholesky_ex_result = collections.namedtuple("linalg_cholesky_ex", ["L", "info"])
_solve_ex_result = collections.namedtuple("linalg_solve_ex", ["result", "info"])


def _info_of(error):
    """LAPACK's info from a LinAlgError's message: the zero pivot's or the failing minor's order."""
    found = re.search(r"(?:diagonal element|order) (\d+)", str(error))
    return int(found.group(1)) if found else 1


def _each_matrix(A, op):
    """(op(A), info): the whole batch at once when no matrix fails, else matrix by matrix, a failing
    one giving NaNs and its LAPACK info (> 0) instead of raising."""
    batch = list(A.shape[:-2])
    try:
        return op(A), _core.from_numpy(np.zeros(batch, np.int32))
    except LinAlgError:
        pass
    flat = A.reshape([-1] + list(A.shape[-2:]))
    outs, infos = [], []
    for k in range(flat.shape[0]):
        try:
            outs.append(op(flat[k]))
            infos.append(0)
        except LinAlgError as error:
            outs.append(_core._full(list(A.shape[-2:]), math.nan, A.dtype))
            infos.append(_info_of(error))
    return _core.stack(outs).reshape(list(A.shape)), _core.from_numpy(np.array(infos, np.int32).reshape(batch))


def inv_ex(A, *, check_errors=False):
    """(inverse, info) (torch.linalg.inv_ex): info 0 where A is invertible, else the 1-based index
    of the zero pivot, that matrix's inverse NaN (torch's holds LAPACK's partial result) instead of
    an error; check_errors=True raises linalg.inv's LinAlgError."""
    if check_errors:
        return _inv_ex_result(*_with_zero_info(inv(A), A))
    return _inv_ex_result(*_each_matrix(A, inv))


def cholesky_ex(A, *, upper=False, check_errors=False):
    """(L, info) (torch.linalg.cholesky_ex): info 0 where A is positive-definite, else the order of
    the first leading minor that is not, that L NaN (torch's holds LAPACK's partial result) instead
    of an error; check_errors=True raises linalg.cholesky's LinAlgError."""
    if check_errors:
        return _cholesky_ex_result(*_with_zero_info(cholesky(A, upper=upper), A))
    return _cholesky_ex_result(*_each_matrix(A, lambda M: cholesky(M, upper=upper)))


def _with_zero_info(out, A):
    return out, _core.from_numpy(np.zeros(list(A.shape[:-2]), np.int32))


def solve_ex(A, B, *, left=True, check_errors=False):
    """(result, info) (torch.linalg.solve_ex): info (over A's batch) 0 where A is invertible, else
    the index of the zero pivot, those solutions NaN instead of an error; check_errors=True raises
    linalg.solve's LinAlgError."""
    if check_errors:
        return _solve_ex_result(*_with_zero_info(solve(A, B, left=left), A))
    try:
        return _solve_ex_result(*_with_zero_info(solve(A, B, left=left), A))
    except LinAlgError:
        pass
    info = _each_matrix(A, inv)[1]
    bad = (info != 0).reshape(list(info.shape) + [1, 1])
    eye = _core._eye(A.shape[-1], A.shape[-1], A.dtype)
    result = solve(_core.where(bad, eye, A), B, left=left)
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and list(B.shape) == list(A.shape[:-1]))
    bad = bad.reshape(list(info.shape) + [1]) if vector else bad
    return _solve_ex_result(_core.where(bad, _core._full([], math.nan, result.dtype), result), info)


__all__ += ["vander", "tensorinv", "tensorsolve", "inv_ex", "cholesky_ex", "solve_ex"]


@through_float32
def matrix_exp(A):
    """e^A = Σ_k A^k / k! for each square matrix of A (torch.linalg.matrix_exp), by scaling and
    squaring (Moler & Van Loan 2003, method 3): A / 2^s has 1-norm at most 1/2, its series to 18
    terms (a relative error below 2^-53 · 10⁻⁵), then s squarings. Composed of matmuls, so the
    gradient is the composition's (torch's is Najfeld & Havel's block-matrix form: equal to rounding)."""
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1] if A.dim() else 1} matrices")
    if not A.is_floating_point():
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(A.dtype)}")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    norm = float(A.detach().abs().sum(-2).amax())  # the largest 1-norm of the batch
    s = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 and math.isfinite(norm) else 0
    X = A / float(2 ** s)
    eye = _core.from_numpy(np.eye(n, dtype=np.float64 if A.dtype == _core.dtype.float64 else np.float32))
    E = eye
    for k in range(18, 0, -1):  # Horner: I + X/1 (I + X/2 (I + ... (I + X/18)))
        E = eye + (X @ E) / float(k)
    for _ in range(s):
        E = E @ E
    return E


__all__ += ["matrix_exp"]


# ------------------------------------------------------------------ the LU and LDL families, householder_product
# (C++ ops in cpp/src/ops/lapack_lu.cpp; tests: tests/test_linalg_lu.py)
_lu_factor_result = collections.namedtuple("linalg_lu_factor", ["LU", "pivots"])
_lu_factor_ex_result = collections.namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_lu_result = collections.namedtuple("linalg_lu", ["P", "L", "U"])
_ldl_factor_result = collections.namedtuple("linalg_ldl_factor", ["LD", "pivots"])
_ldl_factor_ex_result = collections.namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])

_OUT_TYPE_NAMES = {_core.dtype.float32: "float", _core.dtype.float64: "double", _core.dtype.int32: "int",
                   _core.dtype.int64: "long int"}


def _write_out(op, result, out):
    """torch's out= for an op: the result written into out (a tensor, or a tuple of them for a tuple
    result), resized as torch resizes (with its warning when out had elements), refused when a result
    requires grad or a dtype differs; returns out (as the result's named tuple)."""
    if out is None:
        return result
    results = result if isinstance(result, tuple) else (result,)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(outs) != len(results):
        raise TypeError(f"{op}(): argument 'out' must be a tuple of {len(results)} Tensors")
    if _core.is_grad_enabled() and any(r.requires_grad for r in results):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, but "
                           f"one of the arguments requires grad.")
    for r, o in zip(results, outs):
        if o.dtype != r.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {_OUT_TYPE_NAMES.get(r.dtype, r.dtype)}, but got "
                               f"{_OUT_TYPE_NAMES.get(o.dtype, o.dtype)} instead")
    for r, o in zip(results, outs):
        if list(o.shape) != list(r.shape):
            if o.numel() != 0:
                warnings.warn(f"An output with one or more elements was resized since it had shape {list(o.shape)}, "
                              f"which does not match the required output shape {list(r.shape)}. This behavior is "
                              "deprecated, and in a future PyTorch release outputs will not be resized unless they "
                              "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, "
                              "to zero elements with t.resize_(0).", UserWarning, stacklevel=3)
            o.resize_(*r.shape)
        o.copy_(r)
    return type(result)(*outs) if isinstance(result, tuple) else outs[0]


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """(LU, pivots, info): P A = L U by partial pivoting (LAPACK getrf), L's strict lower part and U
    packed in LU, pivots the 1-based row swaps (int32), info 0 or the index of the first zero pivot
    of U (int32 per matrix); check_errors=True raises on one (torch.linalg.lu_factor_ex)."""
    return _write_out("linalg_lu_factor_ex", _lu_factor_ex_result(
        *_linalg.lu_factor_ex(A, pivot=pivot, check_errors=check_errors)), out)


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots): lu_factor_ex that raises when U has a zero pivot (torch.linalg.lu_factor)."""
    LU, pivots, _ = _linalg.lu_factor_ex(A, pivot=pivot, check_errors=True, _op="torch.linalg.lu_factor")
    return _write_out("linalg_lu_factor_ex", _lu_factor_result(LU, pivots), out)


def lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U: P a permutation matrix, L (m, k) unit lower triangular, U (k, n)
    upper triangular, k = min(m, n); singular A is fine (torch.linalg.lu)."""
    return _write_out("linalg_lu", _lu_result(*_linalg.lu(A, pivot=pivot)), out)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (left=False: X A = B; adjoint=True: A^T in place of A) from A's
    lu_factor (LU, pivots), batch dims broadcast (torch.linalg.lu_solve)."""
    return _write_out("linalg_lu_solve", _linalg.lu_solve(LU, pivots, B, left=left, adjoint=adjoint), out)


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """(LD, pivots, info): A = L D L^T for symmetric A read from its lower triangle, by LAPACK's
    sytrf (Bunch-Kaufman pivoting, D with 1x1 and 2x2 blocks; pivots as sytrf's ipiv, int32); info
    > 0 where D is exactly singular, which check_errors=True raises (torch.linalg.ldl_factor_ex).
    Not differentiable, as torch's."""
    return _write_out("linalg_ldl_factor_ex", _ldl_factor_ex_result(
        *_linalg.ldl_factor_ex(A, hermitian=hermitian, check_errors=check_errors)), out)


def ldl_factor(A, *, hermitian=False, out=None):
    """(LD, pivots): ldl_factor_ex that raises where D is exactly singular (torch.linalg.ldl_factor)."""
    LD, pivots, _ = _linalg.ldl_factor_ex(A, hermitian=hermitian, check_errors=True, _op="torch.linalg.ldl_factor")
    return _write_out("linalg_ldl_factor_ex", _ldl_factor_result(LD, pivots), out)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with A X = B from A's ldl_factor (LD, pivots), batch dims broadcast (torch.linalg.ldl_solve).
    Not differentiable, as torch's."""
    return _write_out("linalg_ldl_solve", _linalg.ldl_solve(LD, pivots, B, hermitian=hermitian), out)


def householder_product(A, tau, *, out=None):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i the i-th column of A
    below its diagonal and a leading 1 (LAPACK's orgqr; A (*, m, n), tau (*, k), k <= n <= m)
    (torch.linalg.householder_product)."""
    return _write_out("linalg_householder_product", _linalg.householder_product(A, tau), out)


__all__ += ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "ldl_factor", "ldl_factor_ex", "ldl_solve",
            "householder_product"]
