// The gamma family (lgamma, digamma, polygamma, mvlgamma) and the other special functions of
// torch.special that need a kernel of their own (cpp/src/ops/special.cpp; tests/test_special.py).
// Integer and bool inputs compute in float32, torch's default dtype; float32 computes in double.
#pragma once
#include <cstdint>
#include <optional>

#include "seqlab/tensor.hpp"

namespace seqlab {

// ln|Γ(x)|, ψ(x) = d/dx ln Γ(x), ψ⁽ⁿ⁾(x), and the multivariate log-gamma of dimension p.
Tensor lgamma(const Tensor& x);
Tensor digamma(const Tensor& x);
Tensor polygamma(int64_t n, const Tensor& x);  // n >= 0
Tensor mvlgamma(const Tensor& x, int64_t p);   // p >= 1
// Hurwitz ζ(x, q) = Σ_k (k + q)^−x; gradient for q only (torch has none for x).
Tensor zeta(const Tensor& x, const Tensor& q);
// The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 − P (torch.igamma,
// igammac); gradient for x only, float inputs only.
Tensor igamma(const Tensor& a, const Tensor& x);
Tensor igammac(const Tensor& a, const Tensor& x);
// Modified Bessel functions of the first kind, orders 0 and 1, and their e^−|x| scaled forms.
Tensor i0(const Tensor& x);
Tensor i0e(const Tensor& x);
Tensor i1(const Tensor& x);
Tensor i1e(const Tensor& x);
Tensor erfcx(const Tensor& x);     // e^(x²) erfc(x)
Tensor ndtri(const Tensor& p);     // the inverse of the standard normal CDF
Tensor log_ndtr(const Tensor& x);  // ln Φ(x), without underflow in the lower tail
Tensor entr(const Tensor& x);      // −x ln x (0 at 0, −inf below)
Tensor sinc(const Tensor& x);      // sin(πx)/(πx), 1 at 0
Tensor exp2(const Tensor& x);      // 2^x
Tensor logit(const Tensor& x, std::optional<double> eps = std::nullopt);  // ln(z/(1 − z)), z = x clamped to [eps, 1 − eps]
Tensor xlog1py(const Tensor& x, const Tensor& y);  // x ln(1 + y), 0 where x = 0 (unless y is NaN)

// Without a gradient in torch (their results never require grad): Bessel functions of the first
// and second kind, the modified ones of the first and second kind (and K scaled by e^x), and the
// spherical j0 = sin(x)/x, and the Airy function Ai (through the Bessel functions of order 1/3).
enum class BesselOp { J0, J1, Y0, Y1, I0, I1, K0, K1, K0Scaled, K1Scaled, SphericalJ0, AiryAi };
Tensor bessel(const Tensor& x, BesselOp op);

// In place, self = f(self) (self must be floating point, as torch): x.lgamma_(), x.polygamma_(n), ...
Tensor& lgamma_(Tensor& self);
Tensor& digamma_(Tensor& self);
Tensor& polygamma_(Tensor& self, int64_t n);
Tensor& mvlgamma_(Tensor& self, int64_t p);
Tensor& i0_(Tensor& self);
Tensor& sinc_(Tensor& self);
Tensor& exp2_(Tensor& self);
Tensor& logit_(Tensor& self, std::optional<double> eps = std::nullopt);
Tensor& igamma_(Tensor& self, const Tensor& other);
Tensor& igammac_(Tensor& self, const Tensor& other);

}  // namespace seqlab
