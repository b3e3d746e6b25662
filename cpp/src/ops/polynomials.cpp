// The orthogonal polynomials of torch.special (chebyshev_polynomial_t ... legendre_polynomial_p):
// the three-term recurrences of DLMF §18.9, with torch's closed forms at x = ±1 and, for large n
// and |x| < 1, the trigonometric forms of the Chebyshev kinds (DLMF 18.5.1–18.5.4). No gradient,
// as torch. Tests: tests/test_special.py.
#include <cmath>
#include <limits>

#include "elementwise_impl.hpp"
#include "seqlab/ops/polynomials.hpp"

namespace seqlab {

namespace {

// p_{k+1} = a_k(x) p_k − b_k p_{k−1} from (p_0, p_1) up to p_n; stops early once the values are
// NaN (they stay NaN, and an overflowing |x| > 1 gets there in a few hundred steps).
template <typename Step>
double recur(double p0, double p1, int64_t n, Step step) {
  if (n == 0) return p0;
  double p = p0, q = p1;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    const double r = step(k, p, q);
    p = q;
    q = r;
  }
  return q;
}

double even_sign(int64_t n) { return n % 2 == 0 ? 1.0 : -1.0; }

// T_n: T_0 = 1, T_1 = x, T_{k+1} = 2x T_k − T_{k−1}; T_n(cos θ) = cos nθ.
double chebyshev_t(double x, int64_t n) {
  if (std::fabs(x) == 1) return x > 0 ? 1.0 : even_sign(n);
  if (n > 6 && std::fabs(x) < 1) return std::cos(static_cast<double>(n) * std::acos(x));
  return recur(1, x, n, [x](int64_t, double p, double q) { return (x + x) * q - p; });
}

// U_n: U_1 = 2x; U_n(cos θ) = sin((n + 1)θ) / sin θ.
double chebyshev_u(double x, int64_t n) {
  const double m = static_cast<double>(n) + 1;
  if (std::fabs(x) == 1) return x > 0 ? m : even_sign(n) * m;
  if (n > 8 && std::fabs(x) < 1) {
    const double theta = std::acos(x);
    return std::sin(theta) != 0 ? std::sin(m * theta) / std::sin(theta) : m * std::cos(m * theta) / x;
  }
  return recur(1, x + x, n, [x](int64_t, double p, double q) { return (x + x) * q - p; });
}

// V_n: V_1 = 2x − 1; V_n(cos θ) = cos((n + 1/2)θ) / cos(θ/2).
double chebyshev_v(double x, int64_t n) {
  const double odd = 2 * static_cast<double>(n) + 1;
  if (std::fabs(x) == 1) return x > 0 ? 1.0 : even_sign(n) * odd;
  if (n > 8 && std::fabs(x) < 1) {
    const double theta = std::acos(x);
    if (std::sin(theta / 2) != 1) return std::cos((static_cast<double>(n) + 0.5) * theta) / std::cos(theta / 2);
    return even_sign(n) * odd;
  }
  return recur(1, x + x - 1, n, [x](int64_t, double p, double q) { return (x + x) * q - p; });
}

// W_n: W_1 = 2x + 1; W_n(cos θ) = sin((n + 1/2)θ) / sin(θ/2).
double chebyshev_w(double x, int64_t n) {
  const double odd = 2 * static_cast<double>(n) + 1;
  if (std::fabs(x) == 1) return x > 0 ? odd : even_sign(n);
  if (n > 8 && std::fabs(x) < 1) {
    const double theta = std::acos(x);
    if (std::cos(theta / 2) != 1) return std::sin((static_cast<double>(n) + 0.5) * theta) / std::sin(theta / 2);
    return x > 0 ? odd : even_sign(n);
  }
  return recur(1, x + x + 1, n, [x](int64_t, double p, double q) { return (x + x) * q - p; });
}

// H_n (physicists'): H_1 = 2x, H_{k+1} = 2x H_k − 2k H_{k−1}.
double hermite_h(double x, int64_t n) {
  return recur(1, x + x, n, [x](int64_t k, double p, double q) {
    return (x + x) * q - 2.0 * static_cast<double>(k) * p;
  });
}

// He_n (probabilists'): He_1 = x, He_{k+1} = x He_k − k He_{k−1}.
double hermite_he(double x, int64_t n) {
  return recur(1, x, n, [x](int64_t k, double p, double q) { return x * q - static_cast<double>(k) * p; });
}

// L_n: L_1 = 1 − x, (k + 1) L_{k+1} = (2k + 1 − x) L_k − k L_{k−1}; L_n(0) = 1.
double laguerre_l(double x, int64_t n) {
  if (x == 0) return 1;
  return recur(1, 1 - x, n, [x](int64_t k, double p, double q) {
    const double kd = static_cast<double>(k);
    return ((kd + kd + 1 - x) * q - kd * p) / (kd + 1);
  });
}

// P_n: P_1 = x, (k + 1) P_{k+1} = (2k + 1) x P_k − k P_{k−1}; P_n(±1) = (±1)^n.
double legendre_p(double x, int64_t n) {
  if (std::fabs(x) == 1) return x > 0 ? 1.0 : even_sign(n);
  return recur(1, x, n, [x](int64_t k, double p, double q) {
    const double kd = static_cast<double>(k);
    return ((kd + kd + 1) * x * q - kd * p) / (kd + 1);
  });
}

double polynomial_value(double x, double n_, Polynomial kind) {
  if (!(n_ >= 0)) return 0;  // n < 0 (and NaN): 0, as torch
  const int64_t n = n_ >= 9.2e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(n_);
  switch (kind) {
    case Polynomial::ChebyshevT: return chebyshev_t(x, n);
    case Polynomial::ChebyshevU: return chebyshev_u(x, n);
    case Polynomial::ChebyshevV: return chebyshev_v(x, n);
    case Polynomial::ChebyshevW: return chebyshev_w(x, n);
    case Polynomial::ShiftedChebyshevT: return chebyshev_t(x + x - 1, n);  // the same kinds at 2x − 1
    case Polynomial::ShiftedChebyshevU: return chebyshev_u(x + x - 1, n);
    case Polynomial::ShiftedChebyshevV: return chebyshev_v(x + x - 1, n);
    case Polynomial::ShiftedChebyshevW: return chebyshev_w(x + x - 1, n);
    case Polynomial::HermiteH: return hermite_h(x, n);
    case Polynomial::HermiteHe: return hermite_he(x, n);
    case Polynomial::LaguerreL: return laguerre_l(x, n);
    case Polynomial::LegendreP: return legendre_p(x, n);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

const char* polynomial_name(Polynomial kind) {
  static const char* names[] = {"chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                                "laguerre_polynomial_l", "legendre_polynomial_p"};
  return names[static_cast<int>(kind)];
}

Tensor polynomial(const Tensor& x_, const Tensor& n_, Polynomial kind) {
  const char* name = polynomial_name(kind);
  auto [x, n, shape] = prepare_binary(x_.detach(), n_.detach(), name, /*int_to_float=*/true);
  return map2<void, true>(x, n, shape, name, [kind](auto tag) {
    using T = decltype(tag);
    return [kind](T xv, T nv) {
      return static_cast<T>(polynomial_value(static_cast<double>(xv), static_cast<double>(nv), kind));
    };
  });
}

}  // namespace seqlab
