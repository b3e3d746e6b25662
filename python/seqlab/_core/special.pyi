"""
torch.special's kernels (python/seqlab/special.py re-exports them)
"""
from __future__ import annotations
import typing
from seqlab._core import Tensor, dtype
__all__: list[str] = ['airy_ai', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1', 'chebyshev_polynomial_t', 'chebyshev_polynomial_u', 'chebyshev_polynomial_v', 'chebyshev_polynomial_w', 'entr', 'erfcx', 'hermite_polynomial_h', 'hermite_polynomial_he', 'i0e', 'i1', 'i1e', 'laguerre_polynomial_l', 'legendre_polynomial_p', 'log_ndtr', 'modified_bessel_i0', 'modified_bessel_i1', 'modified_bessel_k0', 'modified_bessel_k1', 'ndtri', 'scaled_modified_bessel_k0', 'scaled_modified_bessel_k1', 'shifted_chebyshev_polynomial_t', 'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v', 'shifted_chebyshev_polynomial_w', 'spherical_bessel_j0', 'xlog1py', 'zeta']
def airy_ai(input: Tensor) -> Tensor:
    """
    out = Ai(input), the Airy function of the first kind. No gradient, as torch.special.airy_ai.
    """
def bessel_j0(input: Tensor) -> Tensor:
    """
    out = J0(input), the Bessel function of the first kind of order 0. No gradient, as torch.special.bessel_j0.
    """
def bessel_j1(input: Tensor) -> Tensor:
    """
    out = J1(input), the Bessel function of the first kind of order 1. No gradient, as torch.special.bessel_j1.
    """
def bessel_y0(input: Tensor) -> Tensor:
    """
    out = Y0(input), the Bessel function of the second kind of order 0. No gradient, as torch.special.bessel_y0.
    """
def bessel_y1(input: Tensor) -> Tensor:
    """
    out = Y1(input), the Bessel function of the second kind of order 1. No gradient, as torch.special.bessel_y1.
    """
def chebyshev_polynomial_t(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = T_n(input), the Chebyshev polynomial of the first kind of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.chebyshev_polynomial_t.
    """
def chebyshev_polynomial_u(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = U_n(input), the Chebyshev polynomial of the second kind of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.chebyshev_polynomial_u.
    """
def chebyshev_polynomial_v(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = V_n(input), the Chebyshev polynomial of the third kind of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.chebyshev_polynomial_v.
    """
def chebyshev_polynomial_w(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = W_n(input), the Chebyshev polynomial of the fourth kind of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.chebyshev_polynomial_w.
    """
def entr(input: Tensor) -> Tensor:
    """
    out = -input ln(input) for input > 0, 0 at 0, -inf below (torch.special.entr).
    """
def erfcx(input: Tensor) -> Tensor:
    """
    out = exp(input^2) erfc(input), the scaled complementary error function (torch.special.erfcx).
    """
def hermite_polynomial_h(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = H_n(input), the physicists' Hermite polynomial of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.hermite_polynomial_h.
    """
def hermite_polynomial_he(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = He_n(input), the probabilists' Hermite polynomial of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.hermite_polynomial_he.
    """
def i0e(input: Tensor) -> Tensor:
    """
    out = exp(-|input|) I0(input) (torch.special.i0e).
    """
def i1(input: Tensor) -> Tensor:
    """
    out = I1(input), the modified Bessel function of the first kind of order 1 (torch.special.i1).
    """
def i1e(input: Tensor) -> Tensor:
    """
    out = exp(-|input|) I1(input) (torch.special.i1e).
    """
def laguerre_polynomial_l(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = L_n(input), the Laguerre polynomial of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.laguerre_polynomial_l.
    """
def legendre_polynomial_p(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = P_n(input), the Legendre polynomial of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.legendre_polynomial_p.
    """
def log_ndtr(input: Tensor) -> Tensor:
    """
    out = ln Phi(input), the log of the standard normal CDF, exact far into the lower tail (torch.special.log_ndtr).
    """
def modified_bessel_i0(input: Tensor) -> Tensor:
    """
    out = I0(input), the modified Bessel function of the first kind. No gradient, as torch.special.modified_bessel_i0.
    """
def modified_bessel_i1(input: Tensor) -> Tensor:
    """
    out = I1(input), the modified Bessel function of the first kind. No gradient, as torch.special.modified_bessel_i1.
    """
def modified_bessel_k0(input: Tensor) -> Tensor:
    """
    out = K0(input), the modified Bessel function of the second kind. No gradient, as torch.special.modified_bessel_k0.
    """
def modified_bessel_k1(input: Tensor) -> Tensor:
    """
    out = K1(input), the modified Bessel function of the second kind. No gradient, as torch.special.modified_bessel_k1.
    """
def ndtri(input: Tensor) -> Tensor:
    """
    out = the x with Phi(x) = input, the inverse of the standard normal CDF; -inf at 0, inf at 1, NaN outside [0, 1] (torch.special.ndtri).
    """
def scaled_modified_bessel_k0(input: Tensor) -> Tensor:
    """
    out = exp(input) K0(input). No gradient, as torch.special.scaled_modified_bessel_k0.
    """
def scaled_modified_bessel_k1(input: Tensor) -> Tensor:
    """
    out = exp(input) K1(input). No gradient, as torch.special.scaled_modified_bessel_k1.
    """
def shifted_chebyshev_polynomial_t(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = T_n(2 input - 1), the shifted Chebyshev polynomial of the first kind of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.shifted_chebyshev_polynomial_t.
    """
def shifted_chebyshev_polynomial_u(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = U_n(2 input - 1), the shifted Chebyshev polynomial of the second kind of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.shifted_chebyshev_polynomial_u.
    """
def shifted_chebyshev_polynomial_v(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = V_n(2 input - 1), the shifted Chebyshev polynomial of the third kind of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.shifted_chebyshev_polynomial_v.
    """
def shifted_chebyshev_polynomial_w(input: typing.Any, n: typing.Any) -> Tensor:
    """
    out = W_n(2 input - 1), the shifted Chebyshev polynomial of the fourth kind of degree n (truncated to an integer; 0 for n < 0). No gradient, as torch.special.shifted_chebyshev_polynomial_w.
    """
def spherical_bessel_j0(input: Tensor) -> Tensor:
    """
    out = j0(input) = sin(input)/input, the spherical Bessel function of the first kind of order 0. No gradient, as torch.special.spherical_bessel_j0.
    """
def xlog1py(input: typing.Any, other: typing.Any) -> Tensor:
    """
    out = input * log1p(other), 0 where input is 0 unless other is NaN (torch.special.xlog1py).
    """
def zeta(input: typing.Any, other: typing.Any) -> Tensor:
    """
    out = the Hurwitz zeta function sum_k (k + other)^-input; gradient for other only (torch.special.zeta).
    """
