// Special functions: the gamma family (lgamma, digamma, polygamma, mvlgamma, Hurwitz zeta, the
// incomplete gamma functions) and torch.special's Bessel, error-function and normal-distribution
// kernels, each with its backward. Follows torch.special (pytorch.org/docs/stable/special.html),
// including its values at poles and infinities; the series are DLMF's (dlmf.nist.gov, §5.11 and
// §25.11 for ψ and ζ, §10.25/10.40 for the Bessel functions, §8.7/8.9 for P and Q). Tests:
// tests/test_special.py.
#include <cmath>
#include <functional>
#include <limits>

#include "elementwise_impl.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"
#include "seqlab/ops/special.hpp"

namespace seqlab {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1/√2
constexpr double kTwoOverSqrtPi = 1.1283791670955125739;  // 2/√π
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1/√(2π)

// Bernoulli numbers B_2, B_4, ..., B_24: the coefficients of the asymptotic series below.
constexpr double kBernoulli[] = {1.0 / 6,      -1.0 / 30,          1.0 / 42,       -1.0 / 30,
                                 5.0 / 66,     -691.0 / 2730,      7.0 / 6,        -3617.0 / 510,
                                 43867.0 / 798, -174611.0 / 330,   854513.0 / 138, -236364091.0 / 2730};

// ---------------------------------------------------------------- scalar kernels (double)

double lgamma_value(double x) {
  int sign;  // lgamma_r: std::lgamma writes the sign to a global, a race between threads
  return ::lgamma_r(x, &sign);
}

// ψ(x). Poles: ψ(±0) = ∓inf and NaN at the negative integers, as torch.
double digamma_value(double x) {
  if (x == 0) return std::signbit(x) ? kInf : -kInf;
  if (std::isnan(x)) return x;
  if (x < 0) {
    if (x == std::floor(x)) return kNaN;  // the poles, and −inf
    // reflection: ψ(x) = ψ(1 − x) − π / tan(πx), tan taken of x mod 1 (period 1; fmod is exact)
    return digamma_value(1 - x) - kPi / std::tan(kPi * std::fmod(x, 1.0));
  }
  if (std::isinf(x)) return x;
  double result = 0;
  for (; x < 10; x += 1) result -= 1 / x;  // ψ(x) = ψ(x + 1) − 1/x
  // ψ(x) ~ ln x − 1/(2x) − Σ_k B_2k / (2k x^2k)   (DLMF 5.11.2), 7 terms: < 1e-17 at x >= 10
  const double z = 1 / (x * x);
  double s = 0;
  for (int k = 7; k >= 1; --k) s = z * (kBernoulli[k - 1] / (2 * k) + s);
  return result + std::log(x) - 0.5 / x - s;
}

// ψ'(x). torch's values: the reflection uses sin(πx) itself, so a negative integer gives a large
// finite number (sin(πx) is not 0 there in floating point), ±0 gives inf, −inf NaN.
double trigamma_value(double x) {
  if (x < 0.5) {
    const double s = std::sin(kPi * x);
    return kPi * kPi / (s * s) - trigamma_value(1 - x);  // ψ'(1 − x) + ψ'(x) = π² / sin²(πx)
  }
  double result = 0;
  for (; x < 10; x += 1) result += 1 / (x * x);  // ψ'(x) = ψ'(x + 1) + 1/x²
  // ψ'(x) ~ 1/x + 1/(2x²) + Σ_k B_2k / x^(2k+1)   (DLMF 5.15.8)
  const double z = 1 / (x * x);
  double s = 0;
  for (int k = 8; k >= 1; --k) s = z * (kBernoulli[k - 1] + s);
  return result + 1 / x + 0.5 * z + s / x;
}

// Hurwitz ζ(s, q) = Σ_{k>=0} (q + k)^−s: the first terms summed until a = q + N >= max(10, s),
// then the Euler–Maclaurin tail (DLMF 25.11.5 / 2.10.1):
//   Σ_{k>=N} f(q + k) = a^(1−s)/(s − 1) + f(a)/2 + Σ_j B_2j/(2j)! · s(s+1)…(s+2j−2) · a^(−s−2j+1).
// Values outside the domain are torch's: inf at s = 1 and at the poles q = 0, −1, ...; NaN for
// s < 1, for q < 0 with s not an integer, and for q = +inf.
double zeta_value(double s, double q) {
  if (std::isnan(s) || std::isnan(q)) return kNaN;
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;  // (q + k)^−s is not real
  }
  if (std::isinf(q)) return kNaN;
  if (std::isinf(s)) return q == 1 ? 1 : std::fabs(q) < 1 ? kInf : kNaN;
  double a = q, b = std::pow(a, -s), sum = b;
  for (int n = 0; n < 9 || a < 10 || a < s; ++n) {
    a += 1;
    b = std::pow(a, -s);
    sum += b;
    if (std::fabs(b) <= kEps * std::fabs(sum)) return sum;  // the rest no longer counts
  }
  sum += a * b / (s - 1) - b / 2;  // (b, the term at a, was summed whole)
  double factor = s * b / a, factorial = 2;  // s·a^(−s−1) and (2j)! for j = 1
  for (int j = 1; j <= 12; ++j) {
    const double term = kBernoulli[j - 1] / factorial * factor;
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
    factor *= (s + 2 * j - 1) * (s + 2 * j) / (a * a);
    factorial *= (2 * j + 1) * (2 * j + 2);
  }
  return sum;
}

// ψ⁽ⁿ⁾(x) = (−1)^(n+1) n! ζ(n + 1, x) for n >= 2.
double polygamma_value(int64_t n, double x) {
  if (n == 0) return digamma_value(x);
  if (n == 1) return trigamma_value(x);
  const double sign = n % 2 ? 1.0 : -1.0;
  return sign * std::tgamma(static_cast<double>(n) + 1) * zeta_value(static_cast<double>(n) + 1, x);
}

// P(a, x) (upper = false) or Q(a, x) = 1 − P (upper = true). Below x = a + 1 the series
//   P = x^a e^−x / Γ(a + 1) · Σ_n x^n / ((a + 1)…(a + n))      (DLMF 8.7.1)
// converges fast; above it, Q's continued fraction (DLMF 8.9.2), by the modified Lentz method.
// Edge values are torch's: NaN for a < 0 or x < 0 or a = x = 0 or a = x = inf.
double igamma_value(double a, double x, bool upper) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return kNaN;
  if (a == 0) return x > 0 ? (upper ? 0 : 1) : kNaN;
  if (x == 0) return upper ? 1 : 0;
  if (std::isinf(a)) return std::isinf(x) ? kNaN : (upper ? 1 : 0);
  if (std::isinf(x)) return upper ? 0 : 1;
  const double prefactor = std::exp(a * std::log(x) - x - lgamma_value(a));  // x^a e^−x / Γ(a)
  if (x < a + 1) {
    double term = 1, sum = 1;
    for (int n = 1; n < 100000 && term > kEps * sum; ++n) {
      term *= x / (a + n);
      sum += term;
    }
    const double p = prefactor * sum / a;
    return upper ? 1 - p : p;
  }
  // Q = prefactor / (x + 1 − a − 1(1 − a)/(x + 3 − a − 2(2 − a)/(x + 5 − a − …)))
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = std::fabs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = std::fabs(c) < tiny ? tiny : c;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) <= kEps) break;
  }
  const double q = prefactor * h;
  return upper ? q : 1 - q;
}

// Modified Bessel functions I_ν, ν = 0 or 1. For |x| <= 30 the power series (all terms positive,
// so no cancellation): I_ν(x) = (x/2)^ν Σ_k (x²/4)^k / (k! (k + ν)!)   (DLMF 10.25.2).
double bessel_i_series(double x, int nu) {
  const double y = x * x / 4;
  double term = 1, sum = 1;
  for (int k = 1; k < 500 && term > kEps * sum; ++k) {
    term *= y / (k * (k + nu));
    sum += term;
  }
  return nu == 0 ? sum : sum * x / 2;
}

// Beyond, the asymptotic series e^−x √(2πx) I_ν(x) ~ Σ_k t_k, t_0 = 1,
// t_k = t_{k−1} ((2k − 1)² − 4ν²) / (8kx)  (DLMF 10.40.1), cut at its smallest term (~e^−2x).
// sign = −1 gives K's series: e^x √(2x/π) K_ν(x) ~ Σ_k (−1)^k t_k  (DLMF 10.40.2).
double bessel_asymptotic(double x, int nu, double sign = 1) {
  double term = 1, sum = 1;
  for (int k = 1; k < 200; ++k) {
    const double next = term * sign * ((2.0 * k - 1) * (2.0 * k - 1) - 4.0 * nu * nu) / (8.0 * k * x);
    if (std::fabs(next) >= std::fabs(term)) break;  // the series starts to diverge
    term = next;
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
  }
  return sum;
}

constexpr double kBesselSeriesMax = 30;

// libstdc++'s special functions throw where their iterations do not converge; a kernel must not
// throw inside parallel_for, so such a value is NaN.
template <typename F>
double or_nan(F f) {
  try {
    return f();
  } catch (...) {
    return kNaN;
  }
}

// I_ν(x) (scaled: e^−|x| I_ν(x)); I_1 is odd. At ±inf I_ν is NaN and the scaled one 0, as torch's.
double bessel_i_value(double x, int nu, bool scaled) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  double v;
  if (ax <= kBesselSeriesMax)
    v = bessel_i_series(ax, nu) * (scaled ? std::exp(-ax) : 1.0);
  else if (scaled)
    v = bessel_asymptotic(ax, nu) / std::sqrt(2 * kPi * ax);
  else
    v = std::isinf(ax) ? kNaN : std::exp(ax) * (bessel_asymptotic(ax, nu) / std::sqrt(2 * kPi * ax));
  return nu == 1 && x < 0 ? -v : v;
}

// K_ν(x) for x > 0 (scaled: e^x K_ν(x)); 0 → inf, x < 0 → NaN, +inf → 0.
double bessel_k_value(double x, int nu, bool scaled) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  if (x <= kBesselSeriesMax)
    return or_nan([&] { return std::cyl_bessel_k(static_cast<double>(nu), x); }) * (scaled ? std::exp(x) : 1.0);
  const double v = bessel_asymptotic(x, nu, -1) * std::sqrt(kPi / (2 * x));
  return scaled ? v : v * std::exp(-x);
}

// e^(x²) without the error of rounding x² (which e^ would multiply by x²): x = hi + lo with hi
// of 24 bits, so hi² is exact. For |x| < 27.
double exp_square(double x) {
  const double hi = static_cast<double>(static_cast<float>(x)), lo = x - hi;
  return std::exp(hi * hi) * std::exp(2 * hi * lo + lo * lo);
}

// erfcx(x) = e^(x²) erfc(x). Large x: the asymptotic series 1/(x√π) Σ_k (−1)^k (2k−1)!! / (2x²)^k
// (DLMF 7.12.1); negative x: 2e^(x²) − erfcx(−x), inf below −26.7 where e^(x²) overflows.
double erfcx_value(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return x < -26.7 ? kInf : 2 * exp_square(x) - erfcx_value(-x);
  if (x < 26) return exp_square(x) * std::erfc(x);
  if (x > 1e8) return 1 / (x * 1.7724538509055160273);  // (√π; inf gives 0)
  const double z = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k < 40 && std::fabs(term) > kEps * sum; ++k) {
    term *= -(2 * k - 1) * z;
    sum += term;
  }
  return sum / (x * 1.7724538509055160273);
}

// Φ⁻¹(p). A start good to 4.5e−4 (Abramowitz & Stegun 26.2.23), then Halley's steps: in the
// centre on erf(y) = 2p − 1 with x = √2 y (2p − 1 is exact there), in the tails on
// Φ(x) = erfc(−x/√2)/2 = q (erfc keeps q's relative precision down to 1e−300).
double ndtri_value(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  if (p == 0.5) return 0;
  const double q = p < 0.5 ? p : 1 - p;  // (exact for p >= 1/2)
  const double t = std::sqrt(-2 * std::log(q));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  if (q > 0.1) {
    const double r = 2 * p - 1;
    double y = (p < 0.5 ? x : -x) * kSqrt1_2;
    for (int i = 0; i < 4; ++i) {  // f = erf y − r, f' = 2/√π e^−y², f''/f' = −2y
      const double u = (std::erf(y) - r) / (kTwoOverSqrtPi * std::exp(-y * y));
      y -= u / (1 + y * u);
    }
    return y / kSqrt1_2;
  }
  for (int i = 0; i < 4; ++i) {  // f = Φ(x) − q, f' = φ(x), f''/f' = −x
    const double u = (0.5 * std::erfc(-x * kSqrt1_2) - q) / (kInvSqrt2Pi * std::exp(-x * x / 2));
    x -= u / (1 + x * u / 2);
  }
  return p < 0.5 ? x : -x;
}

// ln Φ(x): ln(erfcx(−x/√2)/2) − x²/2 below 0 (Φ underflows long before its log does), else
// log1p(−erfc(x/√2)/2).
double log_ndtr_value(double x) {
  if (x < 0) return std::log(0.5 * erfcx_value(-x * kSqrt1_2)) - x * x / 2;
  return std::log1p(-0.5 * std::erfc(x * kSqrt1_2));
}

double entr_value(double x) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  return x == 0 ? 0 : -kInf;
}

double sinc_value(double x) {
  if (x == 0) return 1;
  const double px = kPi * x;
  return std::sin(px) / px;
}

// Ai(x) by the Bessel functions of order 1/3 at ζ = (2/3)|x|^(3/2) (DLMF 9.6.1, 9.6.6 with
// J_−1/3 = cos(π/3) J_1/3 − sin(π/3) Y_1/3):  Ai(x) = √(x/3) K_1/3(ζ)/π,
// Ai(−x) = √x/3 · (J_1/3(ζ) + J_−1/3(ζ)) for x > 0; Ai(0) = 3^(−2/3)/Γ(2/3); NaN at ±inf, as torch.
double airy_ai_value(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  const double ax = std::fabs(x);
  if (ax < 1e-20) return 0.35502805388781723926;
  const double zeta = 2.0 / 3.0 * ax * std::sqrt(ax), third = 1.0 / 3.0;
  if (x > 0) {
    if (zeta > 745) return 0;  // (K underflows)
    return std::sqrt(x / 3) * or_nan([&] { return std::cyl_bessel_k(third, zeta); }) / kPi;
  }
  const double j = or_nan([&] { return std::cyl_bessel_j(third, zeta); });
  const double y = or_nan([&] { return std::cyl_neumann(third, zeta); });
  return std::sqrt(ax) / 3 * (1.5 * j - 0.86602540378443864676 * y);  // J_1/3 + J_−1/3, √3/2 = sin(π/3)
}

// The Bessel functions torch has without a gradient. torch's edge values: J and Y are NaN at ±inf,
// Y is −inf at 0 and NaN below.
double bessel_value(double x, BesselOp op) {
  if (std::isnan(x)) return x;
  switch (op) {
    case BesselOp::J0:
      return std::isinf(x) ? kNaN : or_nan([&] { return std::cyl_bessel_j(0.0, std::fabs(x)); });
    case BesselOp::J1: {
      if (std::isinf(x)) return kNaN;
      const double v = or_nan([&] { return std::cyl_bessel_j(1.0, std::fabs(x)); });
      return x < 0 ? -v : x == 0 ? x : v;  // odd (J1(−0) = −0)
    }
    case BesselOp::Y0:
    case BesselOp::Y1:
      if (x < 0 || std::isinf(x)) return kNaN;
      if (x == 0) return -kInf;
      return or_nan([&] { return std::cyl_neumann(op == BesselOp::Y0 ? 0.0 : 1.0, x); });
    case BesselOp::I0: return bessel_i_value(x, 0, false);
    case BesselOp::I1: return bessel_i_value(x, 1, false);
    case BesselOp::K0: return bessel_k_value(x, 0, false);
    case BesselOp::K1: return bessel_k_value(x, 1, false);
    case BesselOp::K0Scaled: return bessel_k_value(x, 0, true);
    case BesselOp::K1Scaled: return bessel_k_value(x, 1, true);
    case BesselOp::AiryAi: return airy_ai_value(x);
    case BesselOp::SphericalJ0:
      if (std::isinf(x)) return 0;
      return x == 0 ? 1 : std::sin(x) / x;
  }
  return kNaN;
}

// ---------------------------------------------------------------- tensor helpers

// out = f(x) in x's float dtype (integers and bool: float32), each element computed in double.
template <typename F>
Tensor map_double(const Tensor& x, const char* op, F f) {
  return map1_float(x, op, [f](auto tag) {
    using T = decltype(tag);
    return [f](T v) { return static_cast<T>(f(static_cast<double>(v))); };
  });
}

// out = f(a, b) for a, b of one float dtype broadcast to `shape`, computed in double.
template <typename F>
Tensor map_double2(const Tensor& a, const Tensor& b, const Shape& shape, const char* op, F f) {
  return map2<void, true>(a, b, shape, op, [f](auto tag) {
    using T = decltype(tag);
    return [f](T u, T v) { return static_cast<T>(f(static_cast<double>(u), static_cast<double>(v))); };
  });
}

// self = f(self) for the in-place forms: the result keeps self's dtype, so self must be floating
// point (torch: "result type Float can't be cast to the desired output type Long").
Tensor& inplace(Tensor& self, const char* name, const std::function<Tensor(const Tensor&)>& f,
                const Tensor& other = Tensor()) {
  check_inplace(self, name);
  assert_no_internal_overlap(self, name);
  SEQLAB_CHECK_TYPE(is_floating(self.dtype()), "result type Float can't be cast to the desired output type ",
                    scalar_type_name(self.dtype()));
  if (other.defined()) {
    const Shape shape = broadcast_shapes(self.shape(), other.shape(), name);
    SEQLAB_CHECK(shape == self.shape(), name, ": output with shape ", shape_str(self.shape()),
                 " doesn't match the broadcast shape ", shape_str(shape));
  }
  if (GradMode::is_enabled() && (self.requires_grad() || (other.defined() && other.requires_grad()))) {
    rebase_history(self, f(clone(self)), name);  // (a copy: the backward may need the old self)
    return self;
  }
  copy_kernel(self, f(self));
  self.bump_version();
  return self;
}

}  // namespace

// ---------------------------------------------------------------- the gamma family
// out = ln|Γ(x)| (inf at 0 and the negative integers).   dx = g·ψ(x)
Tensor lgamma(const Tensor& x) {
  Tensor out = map_double(x, "lgamma", lgamma_value);
  if (any_requires_grad({x}))
    attach(out, "LgammaBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * digamma(sx.unpack())};
    });
  return out;
}

// out = ψ(x) = Γ'(x)/Γ(x).   dx = g·ψ'(x)
Tensor digamma(const Tensor& x) {
  Tensor out = map_double(x, "digamma", digamma_value);
  if (any_requires_grad({x}))
    attach(out, "DigammaBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * polygamma(1, sx.unpack())};
    });
  return out;
}

// out = ψ⁽ⁿ⁾(x) = dⁿ/dxⁿ ψ(x).   dx = g·ψ⁽ⁿ⁺¹⁾(x)
Tensor polygamma(int64_t n, const Tensor& x) {
  SEQLAB_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  Tensor out = map_double(x, "polygamma", [n](double v) { return polygamma_value(n, v); });
  if (any_requires_grad({x}))
    attach(out, "PolygammaBackward0", {x}, [sx = save(x), n](const Tensor& g) -> TensorList {
      return {g * polygamma(n + 1, sx.unpack())};
    });
  return out;
}

// out = ln Γ_p(x) = p(p − 1)/4 · ln π + Σ_{j<p} ln Γ(x − j/2).   dx = g·Σ_{j<p} ψ(x − j/2)
// (x + (0 − j/2): for j = 0 that adds +0, which turns x = −0 into +0, as torch's x + offsets does;
// ψ(+0) = −inf)
Tensor mvlgamma(const Tensor& x, int64_t p) {
  SEQLAB_CHECK(x.dtype() != Dtype::Bool, "The input tensor may not be a boolean tensor.");
  SEQLAB_CHECK(p >= 1, "p has to be greater than or equal to 1");
  const double c = static_cast<double>(p) * static_cast<double>(p - 1) / 4 * std::log(kPi);
  Tensor out = map_double(x, "mvlgamma", [p, c](double v) {
    double s = c;
    for (int64_t j = 0; j < p; ++j) s += lgamma_value(v + (0.0 - 0.5 * static_cast<double>(j)));
    return s;
  });
  if (any_requires_grad({x}))
    attach(out, "MvlgammaBackward0", {x}, [sx = save(x), p](const Tensor& g) -> TensorList {
      return {g * map_double(sx.unpack(), "mvlgamma_backward", [p](double v) {
                double s = 0;
                for (int64_t j = 0; j < p; ++j) s += digamma_value(v + (0.0 - 0.5 * static_cast<double>(j)));
                return s;
              })};
    });
  return out;
}

// out = ζ(x, q) = Σ_k (k + q)^−x.   dq = −g·x·ζ(x + 1, q); dx: torch has none (it raises)
Tensor zeta(const Tensor& x_, const Tensor& q_) {
  auto [x, q, shape] = prepare_binary(x_, q_, "zeta", /*int_to_float=*/true);
  Tensor out = map_double2(x, q, shape, "zeta", zeta_value);
  if (any_requires_grad({x, q}))
    attach(out, "SpecialZetaBackward0", {x, q},
           [sx = save(x), sq = save(q), need_x = x.requires_grad(), need_q = q.requires_grad(),
            shape_q = q.shape()](const Tensor& g) -> TensorList {
             SEQLAB_CHECK_IMPL(!need_x, "the derivative for 'zeta' is not implemented.");
             const Tensor xv = sx.unpack();
             return {Tensor(), need_q ? sum_to(g * neg(xv) * zeta(xv + 1.0, sq.unpack()), shape_q) : Tensor()};
           });
  return out;
}

namespace {

// P or Q.   dx = ±g·x^(a−1) e^−x / Γ(a); da: torch has none (it raises)
Tensor incomplete_gamma(const Tensor& a_, const Tensor& x_, bool upper) {
  const char* name = upper ? "igammac" : "igamma";
  auto [a, x, shape] = prepare_binary(a_, x_, name);
  SEQLAB_CHECK_IMPL(is_floating(a.dtype()), "\"", name, "_cpu\" not implemented for '", scalar_type_name(a.dtype()),
                    "'");
  Tensor out = map_double2(a, x, shape, name, [upper](double av, double xv) { return igamma_value(av, xv, upper); });
  if (any_requires_grad({a, x}))
    attach(out, upper ? "IgammacBackward0" : "IgammaBackward0", {a, x},
           [sa = save(a), sx = save(x), need_a = a.requires_grad(), shape_x = x.shape(), upper,
            name](const Tensor& g) -> TensorList {
             SEQLAB_CHECK_IMPL(!need_a, "the derivative for '", name, ": input' is not implemented.");
             const Tensor av = sa.unpack(), xv = sx.unpack();
             const Tensor d = map_double2(av, xv, broadcast_shapes(av.shape(), xv.shape(), name), name,
                                          [upper](double a, double x) {
                                            const double v = std::exp((a - 1) * std::log(x) - x - lgamma_value(a));
                                            return upper ? -v : v;
                                          });
             return {Tensor(), sum_to(g * d, shape_x)};
           });
  return out;
}

}  // namespace

Tensor igamma(const Tensor& a, const Tensor& x) { return incomplete_gamma(a, x, false); }
Tensor igammac(const Tensor& a, const Tensor& x) { return incomplete_gamma(a, x, true); }

// ---------------------------------------------------------------- modified Bessel I0, I1
// out = I0(x).   dx = g·I1(x)
Tensor i0(const Tensor& x) {
  Tensor out = map_double(x, "i0", [](double v) { return bessel_i_value(v, 0, false); });
  if (any_requires_grad({x}))
    attach(out, "I0Backward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList { return {g * i1(sx.unpack())}; });
  return out;
}

// out = e^−|x| I0(x).   dx = g·(i1e(x) − sign(x)·i0e(x))
Tensor i0e(const Tensor& x) {
  Tensor out = map_double(x, "special_i0e", [](double v) { return bessel_i_value(v, 0, true); });
  if (any_requires_grad({x}))
    attach(out, "SpecialI0EBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * map_double(sx.unpack(), "i0e_backward", [](double v) {
                const double sign = v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
                return bessel_i_value(v, 1, true) - sign * bessel_i_value(v, 0, true);
              })};
    });
  return out;
}

// out = I1(x).   dx = g·(I0(x) − I1(x)/x), 1/2 where |x| <= eps (and at NaN, as torch)
Tensor i1(const Tensor& x) {
  Tensor out = map_double(x, "special_i1", [](double v) { return bessel_i_value(v, 1, false); });
  if (any_requires_grad({x}))
    attach(out, "SpecialI1Backward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * map1_float(sx.unpack(), "i1_backward", [](auto tag) {
                using T = decltype(tag);
                return [](T v) {
                  const double d = static_cast<double>(v);
                  return std::fabs(v) > std::numeric_limits<T>::epsilon()
                             ? static_cast<T>(bessel_i_value(d, 0, false) - bessel_i_value(d, 1, false) / d)
                             : T(0.5);
                };
              })};
    });
  return out;
}

// out = e^−|x| I1(x).   dx = g·(i0e(x) − i1e(x)·(sign(x) + 1/x)), 1/2 where |x| <= eps
Tensor i1e(const Tensor& x) {
  Tensor out = map_double(x, "special_i1e", [](double v) { return bessel_i_value(v, 1, true); });
  if (any_requires_grad({x}))
    attach(out, "SpecialI1EBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * map1_float(sx.unpack(), "i1e_backward", [](auto tag) {
                using T = decltype(tag);
                return [](T v) {
                  const double d = static_cast<double>(v), sign = d > 0 ? 1.0 : -1.0;
                  return std::fabs(v) > std::numeric_limits<T>::epsilon()
                             ? static_cast<T>(bessel_i_value(d, 0, true) - bessel_i_value(d, 1, true) * (sign + 1 / d))
                             : T(0.5);
                };
              })};
    });
  return out;
}

// ---------------------------------------------------------------- error function, normal law
// out = e^(x²) erfc(x).   dx = g·(2x·out − 2/√π)
Tensor erfcx(const Tensor& x) {
  Tensor out = map_double(x, "erfcx", erfcx_value);
  if (any_requires_grad({x}))
    attach(out, "SpecialErfcxBackward0", {x}, [sx = save(x), so = save(out)](const Tensor& g) -> TensorList {
      return {g * (sx.unpack() * so.unpack() * 2.0 - kTwoOverSqrtPi)};
    });
  return out;
}

// out = Φ⁻¹(p).   dp = g·√(2π)·e^(out²/2)
Tensor ndtri(const Tensor& p) {
  Tensor out = map_double(p, "ndtri", ndtri_value);
  if (any_requires_grad({p}))
    attach(out, "SpecialNdtriBackward0", {p}, [so = save(out)](const Tensor& g) -> TensorList {
      const Tensor y = so.unpack();
      return {g * exp(y * y * 0.5) * 2.5066282746310002};  // √(2π)
    });
  return out;
}

// out = ln Φ(x).   dx = g·φ(x)/Φ(x), below 0 as √(2/π)/erfcx(−x/√2) (e^(−x²/2) cancels); NaN at
// −inf, as torch
Tensor log_ndtr(const Tensor& x) {
  Tensor out = map_double(x, "log_ndtr", log_ndtr_value);
  if (any_requires_grad({x}))
    attach(out, "SpecialLogNdtrBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * map_double(sx.unpack(), "log_ndtr_backward", [](double v) {
                if (v == -kInf) return kNaN;
                if (v < 0) return 2 * kInvSqrt2Pi / erfcx_value(-v * kSqrt1_2);
                return kInvSqrt2Pi * std::exp(-v * v / 2) / (0.5 * std::erfc(-v * kSqrt1_2));
              })};
    });
  return out;
}

// ---------------------------------------------------------------- elementary
// out = −x ln x (0 at 0, −inf below).   dx = −g·(1 + ln x)
Tensor entr(const Tensor& x) {
  Tensor out = map_double(x, "entr", entr_value);
  if (any_requires_grad({x}))
    attach(out, "SpecialEntrBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * neg(log(sx.unpack()) + 1.0)};
    });
  return out;
}

// out = sin(πx)/(πx), 1 at 0.   dx = g·(πx cos(πx) − sin(πx))/(πx²), 0 at 0; −π²x/3 where πx² underflows
Tensor sinc(const Tensor& x) {
  Tensor out = map_double(x, "sinc", sinc_value);
  if (any_requires_grad({x}))
    attach(out, "SincBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * map_double(sx.unpack(), "sinc_backward", [](double v) {
                if (std::fabs(v) < 1e-100) return -kPi * kPi * v / 3;  // (the series' first term)
                const double px = kPi * v;
                return (px * std::cos(px) - std::sin(px)) / (px * v);
              })};
    });
  return out;
}

// out = 2^x.   dx = g·out·ln 2
Tensor exp2(const Tensor& x) {
  Tensor out = map_double(x, "exp2", [](double v) { return std::exp2(v); });
  if (any_requires_grad({x}))
    attach(out, "Exp2Backward0", {x}, [so = save(out)](const Tensor& g) -> TensorList {
      return {g * so.unpack() * 0.69314718055994530942};
    });
  return out;
}

// out = ln(z/(1 − z)), z = x clamped to [eps, 1 − eps] when eps is given (a negative eps is none).
// dx = g/(x(1 − x)) inside [eps, 1 − eps] and 0 elsewhere (NaN too) with eps; without, NaN outside
// [0, 1] (torch's)
Tensor logit(const Tensor& x, std::optional<double> eps_) {
  const double eps = eps_.value_or(-1.0);
  Tensor out = map_double(x, "logit", [eps](double v) {
    const double z = eps < 0 || std::isnan(v) ? v : std::min(std::max(v, eps), 1 - eps);
    return std::log(z / (1 - z));
  });
  if (any_requires_grad({x}))
    attach(out, "LogitBackward0", {x}, [sx = save(x), eps](const Tensor& g) -> TensorList {
      return {g * map_double(sx.unpack(), "logit_backward", [eps](double v) {
                if (eps < 0) return v < 0 || v > 1 ? kNaN : 1 / (v * (1 - v));
                return v >= eps && v <= 1 - eps ? 1 / (v * (1 - v)) : 0.0;
              })};
    });
  return out;
}

// out = x·ln(1 + y), 0 where x = 0 and y is not NaN.
// dx = xlog1py(g, y), 0 where x = 0 and y <= −1 (torch's; ln(1 + y) is not finite there), dy = g·x/(1 + y)
Tensor xlog1py(const Tensor& x_, const Tensor& y_) {
  auto [x, y, shape] = prepare_binary(x_, y_, "xlog1py", /*int_to_float=*/true);
  auto f = [](double a, double b) { return a == 0 && !std::isnan(b) ? 0.0 : a * std::log1p(b); };
  Tensor out = map_double2(x, y, shape, "xlog1py", f);
  if (any_requires_grad({x, y}))
    attach(out, "SpecialXlog1PyBackward0", {x, y},
           [sx = save(x), sy = save(y), need_x = x.requires_grad(), need_y = y.requires_grad(), shape_x = x.shape(),
            shape_y = y.shape()](const Tensor& g) -> TensorList {
             const Tensor xv = sx.unpack(), yv = sy.unpack();
             Tensor dx, dy;
             if (need_x) {
               const Tensor zero = scalar_tensor(0.0, xv.dtype());
               const Tensor kill = logical_and(compare(xv, zero, CompareOp::Eq),
                                               compare(yv, scalar_tensor(-1.0, yv.dtype()), CompareOp::Le));
               dx = sum_to(where(kill, zero, xlog1py(g, yv)), shape_x);
             }
             if (need_y) dy = sum_to(g * xv / (yv + 1.0), shape_y);
             return {dx, dy};
           });
  return out;
}

// ---------------------------------------------------------------- without a gradient
Tensor bessel(const Tensor& x, BesselOp op) {
  static const char* names[] = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
                                "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
                                "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
                                "spherical_bessel_j0", "airy_ai"};
  return map_double(x.detach(), names[static_cast<int>(op)], [op](double v) { return bessel_value(v, op); });
}

// ---------------------------------------------------------------- in place
Tensor& lgamma_(Tensor& self) { return inplace(self, "lgamma_", [](const Tensor& x) { return lgamma(x); }); }
Tensor& digamma_(Tensor& self) { return inplace(self, "digamma_", [](const Tensor& x) { return digamma(x); }); }
Tensor& polygamma_(Tensor& self, int64_t n) {
  SEQLAB_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  return inplace(self, "polygamma_", [n](const Tensor& x) { return polygamma(n, x); });
}
Tensor& mvlgamma_(Tensor& self, int64_t p) {
  SEQLAB_CHECK(p >= 1, "p has to be greater than or equal to 1");
  return inplace(self, "mvlgamma_", [p](const Tensor& x) { return mvlgamma(x, p); });
}
Tensor& i0_(Tensor& self) { return inplace(self, "i0_", [](const Tensor& x) { return i0(x); }); }
Tensor& sinc_(Tensor& self) { return inplace(self, "sinc_", [](const Tensor& x) { return sinc(x); }); }
Tensor& exp2_(Tensor& self) { return inplace(self, "exp2_", [](const Tensor& x) { return exp2(x); }); }
Tensor& logit_(Tensor& self, std::optional<double> eps) {
  return inplace(self, "logit_", [eps](const Tensor& x) { return logit(x, eps); });
}
Tensor& igamma_(Tensor& self, const Tensor& other) {
  return inplace(self, "igamma_", [&other](const Tensor& x) { return igamma(x, other); }, other);
}
Tensor& igammac_(Tensor& self, const Tensor& other) {
  return inplace(self, "igammac_", [&other](const Tensor& x) { return igammac(x, other); }, other);
}

}  // namespace seqlab
