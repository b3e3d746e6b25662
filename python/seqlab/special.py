"""seqlab.special: torch.special's names (pytorch.org/docs/stable/special.html). The gamma family,
zeta, the incomplete gamma functions, the Bessel functions and the normal-law kernels are C++ ops
with their backward (cpp/src/ops/special.cpp), the orthogonal polynomials C++ kernels without one, as
torch's (cpp/src/ops/polynomials.cpp); the rest are seqlab's ops under torch.special's names
(gammaln is lgamma, expit is sigmoid, ...) or one-line compositions of them. Tests:
tests/test_special.py."""
import math

from . import _core
from ._composed import logsumexp
from ._core import special as _special
from ._core import digamma, erf, erfc, erfinv, exp2, expm1, i0, log1p, polygamma, round, sinc  # noqa: F401
from ._core import igamma as gammainc, igammac as gammaincc, lgamma as gammaln, sigmoid as expit  # noqa: F401
from ._math import xlogy  # noqa: F401
from ._through_float32 import through_float32

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
           "chebyshev_polynomial_v", "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
           "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p",
           "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0",
           "xlog1py", "xlogy", "zeta"]

psi = digamma

i0e, i1, i1e = _special.i0e, _special.i1, _special.i1e
erfcx, ndtri, log_ndtr, entr = _special.erfcx, _special.ndtri, _special.log_ndtr, _special.entr
zeta, xlog1py = _special.zeta, _special.xlog1py
bessel_j0, bessel_j1 = _special.bessel_j0, _special.bessel_j1
bessel_y0, bessel_y1 = _special.bessel_y0, _special.bessel_y1
airy_ai = _special.airy_ai
modified_bessel_i0, modified_bessel_i1 = _special.modified_bessel_i0, _special.modified_bessel_i1
modified_bessel_k0, modified_bessel_k1 = _special.modified_bessel_k0, _special.modified_bessel_k1
scaled_modified_bessel_k0 = _special.scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _special.scaled_modified_bessel_k1
spherical_bessel_j0 = _special.spherical_bessel_j0
chebyshev_polynomial_t, chebyshev_polynomial_u = _special.chebyshev_polynomial_t, _special.chebyshev_polynomial_u
chebyshev_polynomial_v, chebyshev_polynomial_w = _special.chebyshev_polynomial_v, _special.chebyshev_polynomial_w
shifted_chebyshev_polynomial_t = _special.shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _special.shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _special.shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _special.shifted_chebyshev_polynomial_w
hermite_polynomial_h, hermite_polynomial_he = _special.hermite_polynomial_h, _special.hermite_polynomial_he
laguerre_polynomial_l, legendre_polynomial_p = _special.laguerre_polynomial_l, _special.legendre_polynomial_p


@through_float32
def logit(input, eps=None):
    """ln(z / (1 − z)) with z = input clamped to [eps, 1 − eps] when eps is given; NaN outside [0, 1]
    without it (torch.special.logit)."""
    return _core.logit(input, eps)


def multigammaln(input, p):
    """The multivariate log-gamma of dimension p: p(p − 1)/4 · ln π + Σ_{j<p} lgamma(input − j/2)
    (torch.special.multigammaln, torch.mvlgamma)."""
    return _core.mvlgamma(input, p)


def ndtr(input):
    """Φ(input), the standard normal CDF, as torch computes it: (1 + erf(input/√2)) / 2, so it is 0
    below about −8.3 (torch.special.ndtr; log_ndtr keeps the lower tail)."""
    return (erf(input * math.sqrt(0.5)) + 1) * 0.5


def softmax(input, dim, *, dtype=None):
    """exp(input) / Σ exp(input) along dim, after converting input to dtype if given
    (torch.special.softmax)."""
    return _core.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim, *, dtype=None):
    """input − log Σ exp(input) along dim, after converting input to dtype if given
    (torch.special.log_softmax)."""
    return _core.log_softmax(input if dtype is None else input.to(dtype), dim)
