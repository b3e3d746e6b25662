"""torch.svd_lowrank and torch.pca_lowrank: a randomized SVD of a (batch of) matrix of low rank,
after Halko, Martinsson and Tropp (2009, "Finding structure with randomness"), as torch computes
it: a random (n, q) test matrix, niter rounds of subspace (power) iteration re-orthonormalized by QR
(their Algorithm 4.4), then the SVD of the small projection B = Qᴴ A (Algorithm 5.1). Built of
differentiable ops, so gradients flow as through torch's. Tests: tests/test_lowrank.py."""
from . import _core
from . import linalg as _linalg

__all__ = ["svd_lowrank", "pca_lowrank"]


def _floating(dtype):
    return dtype if dtype.is_floating_point else _core.dtype.float32


def _approximate_basis(A, q, niter, M=None):
    """Q (m, q) with orthonormal columns whose span approximates A's range (A − M's, with M)."""
    from ._tensor import randn
    R = randn(A.shape[-1], q, dtype=_floating(A.dtype))
    X = A @ R if M is None else A @ R - M @ R
    Q = _linalg.qr(X).Q
    for _ in range(niter):   # power iteration: (A Aᴴ)^niter A R, orthonormalized at each half step
        X = A.mH @ Q if M is None else A.mH @ Q - M.mH @ Q
        Q = _linalg.qr(X).Q
        X = A @ Q if M is None else A @ Q - M @ Q
        Q = _linalg.qr(X).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A − M ≈ U diag(S) Vᴴ, U (m, q), S (q,), V (n, q) (torch.svd_lowrank): a
    randomized SVD for a matrix whose rank is at most q; draws its test matrix from the default
    generator (seed it for repeatable results)."""
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(tuple(A.shape))
    tall = m >= n
    if not tall:   # work on the tall one: Aᴴ
        A = A.mH
        M = None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = _linalg.svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (U, S, V) if tall else (V, S, U)


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of the PCA of A's rows (torch.pca_lowrank): svd_lowrank of A with its column means
    subtracted (center=True); V's columns are the principal directions, S² / (m − 1) the variances
    along them. q defaults to min(6, m, n)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter)
