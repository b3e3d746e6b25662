"""torch's top-level names for seqlab.linalg's ops (torch.det, logdet, slogdet, inverse, cholesky,
svd, pinverse, matrix_power) with torch's argument names and result types; _tensor.py makes them
Tensor methods too (METHODS). Tests: tests/test_linalg_lapack.py."""
import collections

from . import _core, linalg

__all__ = ["det", "logdet", "slogdet", "inverse", "cholesky", "svd", "pinverse", "matrix_power"]

_slogdet_result = collections.namedtuple("slogdet", ["sign", "logabsdet"])
_svd_result = collections.namedtuple("svd", ["U", "S", "V"])


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


METHODS = {name: globals()[name] for name in __all__}
