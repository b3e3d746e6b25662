// Unary pointwise ops: neg, exp, log, sqrt, abs, clamp, the trigonometric and logarithmic family,
// sign and rounding, each with its backward. Tests: tests/test_elementwise.py.
#include <cmath>
#include <limits>
#include <type_traits>

#include "elementwise_impl.hpp"
#include "seqlab/default_dtype.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/creation.hpp"

namespace seqlab {

// ---------------------------------------------------------------- unary
// out = -x.   dx = -g
Tensor neg(const Tensor& x) {
  SEQLAB_CHECK_TYPE(x.dtype() != Dtype::Bool, "Negation, the `-` operator, on a bool tensor is not supported.");
  Tensor out = map1(x, "neg", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return wrap_neg(v); };
  });
  if (any_requires_grad({x})) attach(out, "NegBackward0", {x}, [](const Tensor& g) -> TensorList { return {neg(g)}; });
  return out;
}

// out = e^x.   dx = g*out
Tensor exp(const Tensor& x) {
  Tensor out = vec_map(is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype()), simd::VecOp::Exp, "exp");
  if (any_requires_grad({x}))
    attach(out, "ExpBackward0", {x}, [so = save(out)](const Tensor& g) -> TensorList { return {g * so.unpack()}; });
  return out;
}

// out = ln x.   dx = g/x
Tensor log(const Tensor& x) {
  Tensor out = vec_map(is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype()), simd::VecOp::Log, "log");
  if (any_requires_grad({x}))
    attach(out, "LogBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList { return {g / sx.unpack()}; });
  return out;
}

// out = sqrt(x).   dx = g/(2*out)
Tensor sqrt(const Tensor& x) {
  Tensor out = map1_float(x, "sqrt", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::sqrt(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "SqrtBackward0", {x}, [so = save(out)](const Tensor& g) -> TensorList {
      return {g / (so.unpack() * 2.0)};
    });
  return out;
}

// out = |x|.   dx = g*sign(x)   (sign(0) = 0, as PyTorch)
Tensor abs(const Tensor& x) {
  Tensor out = map1(x, "abs", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return v < T(0) ? wrap_neg(v) : v; };
  });
  if (any_requires_grad({x}))
    attach(out, "AbsBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      Tensor sign = map1<true>(sx.unpack(), "abs", [](auto tag) {
        using T = decltype(tag);
        return [](T v) { return T((v > T(0)) - (v < T(0))); };
      });
      return {g * sign};
    });
  return out;
}

// out = min(max(x, lo), hi).   dx = g where lo <= x <= hi, else 0
// A bound that is not an integer (2.5, NaN) makes an integer tensor's result float32, as torch's
// result type of an integer tensor and a float number.
bool fractional_bound(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  auto frac = [](std::optional<double> v) { return v && !(*v == std::floor(*v)); };  // (NaN: true)
  return !is_floating(x.dtype()) && (frac(lo) || frac(hi));
}

Tensor clamp(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  SEQLAB_CHECK(lo || hi, "torch.clamp: At least one of 'min' or 'max' must not be None");
  if (fractional_bound(x, lo, hi)) return clamp(to_dtype(x, default_float_dtype()), lo, hi);
  const double l = lo.value_or(-INFINITY), h = hi.value_or(INFINITY);
  Tensor out = map1(x, "clamp", [l, h](auto tag) {
    using T = decltype(tag);
    return [l, h](T v) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(v) || std::isnan(l) || std::isnan(h)) return static_cast<T>(NAN);  // NaN propagates, as torch
      }
      // min(max(x, min), max), as torch: when min > max every element becomes max.
      const double dv = static_cast<double>(v), r = std::min(std::max(dv, l), h);
      return r == dv ? v : from_double<T>(r);
    };
  });
  if (any_requires_grad({x}))
    attach(out, "ClampBackward1", {x}, [sx = save(x), l, h](const Tensor& g) -> TensorList {
      Tensor pass = map1<true>(sx.unpack(), "clamp", [l, h](auto tag) {
        using T = decltype(tag);
        return [l, h](T v) { return T(static_cast<double>(v) >= l && static_cast<double>(v) <= h); };
      });
      return {g * pass};
    });
  return out;
}

// ---------------------------------------------------------------- trigonometry, logarithms
// Integer and bool inputs compute in float32, torch's default dtype (map1_float). The kernels are
// the C library's (correctly range-reduced for large arguments, as torch's SLEEF kernels are).

// out = sin x.   dx = g*cos x
Tensor sin(const Tensor& x) {
  Tensor out = map1_float(x, "sin", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::sin(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "SinBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList { return {g * cos(sx.unpack())}; });
  return out;
}

// out = cos x.   dx = -g*sin x
Tensor cos(const Tensor& x) {
  Tensor out = map1_float(x, "cos", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::cos(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "CosBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g * neg(sin(sx.unpack()))};
    });
  return out;
}

// out = tan x.   dx = g*(1 + out^2)
Tensor tan(const Tensor& x) {
  Tensor out = map1_float(x, "tan", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::tan(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "TanBackward0", {x}, [so = save(out)](const Tensor& g) -> TensorList {
      const Tensor y = so.unpack();
      return {g * (y * y + 1.0)};
    });
  return out;
}

// out = log2 x.   dx = g/(x ln 2)
Tensor log2(const Tensor& x) {
  Tensor out = map1_float(x, "log2", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::log2(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "Log2Backward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g / (sx.unpack() * 0.6931471805599453)};
    });
  return out;
}

// out = log10 x.   dx = g/(x ln 10)
Tensor log10(const Tensor& x) {
  Tensor out = map1_float(x, "log10", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::log10(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "Log10Backward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g / (sx.unpack() * 2.302585092994046)};
    });
  return out;
}

// out = ln(1 + x), without the rounding of 1 + x for small x.   dx = g/(1 + x)
Tensor log1p(const Tensor& x) {
  Tensor out = map1_float(x, "log1p", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::log1p(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "Log1PBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {g / (sx.unpack() + 1.0)};
    });
  return out;
}

// out = e^x - 1, without the cancellation for small x.   dx = g*(out + 1)
Tensor expm1(const Tensor& x) {
  Tensor out = map1_float(x, "expm1", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::expm1(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "Expm1Backward0", {x}, [so = save(out)](const Tensor& g) -> TensorList {
      return {g * (so.unpack() + 1.0)};
    });
  return out;
}

// out = erf x = 2/√π ∫_0^x e^{−t²} dt.   dx = g·2/√π·e^{−x²}
Tensor erf(const Tensor& x) {
  Tensor out = map1_float(x, "erf", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::erf(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "ErfBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      const Tensor v = sx.unpack();
      return {g * exp(neg(v * v)) * 1.1283791670955126};  // 2/√π
    });
  return out;
}

// out = erfc x = 1 − erf x, without the cancellation for large x.   dx = −g·2/√π·e^{−x²}
Tensor erfc(const Tensor& x) {
  Tensor out = map1_float(x, "erfc", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return std::erfc(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "ErfcBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      const Tensor v = sx.unpack();
      return {g * exp(neg(v * v)) * -1.1283791670955126};
    });
  return out;
}

namespace {

// erf⁻¹(x) for x in [−1, 1] (±inf at ±1, NaN outside): Giles' approximation ("Approximating the
// erfinv function", GPU Computing Gems, 2011) as a start, then two Newton steps on erf(y) = x,
// which bring it to double precision.
double erfinv_value(double x) {
  if (std::isnan(x) || x < -1.0 || x > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 1.0) return std::numeric_limits<double>::infinity();
  if (x == -1.0) return -std::numeric_limits<double>::infinity();
  double w = -std::log((1.0 - x) * (1.0 + x)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
  }
  double y = p * x;
  for (int step = 0; step < 2; ++step)  // Newton: y -= (erf y − x) / (2/√π e^{−y²})
    y -= (std::erf(y) - x) / (1.1283791670955126 * std::exp(-y * y));
  return y;
}

}  // namespace

// out = erf⁻¹ x, defined on [−1, 1].   dx = g·√π/2·e^{out²}
Tensor erfinv(const Tensor& x) {
  Tensor out = map1_float(x, "erfinv", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return static_cast<T>(erfinv_value(static_cast<double>(v))); };
  });
  if (any_requires_grad({x}))
    attach(out, "ErfinvBackward0", {x}, [so = save(out)](const Tensor& g) -> TensorList {
      const Tensor y = so.unpack();
      return {g * exp(y * y) * 0.88622692545275801};  // √π/2
    });
  return out;
}

// out = 1/√x.   dx = −g·out³/2
Tensor rsqrt(const Tensor& x) {
  Tensor out = map1_float(x, "rsqrt", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return T(1) / std::sqrt(v); };
  });
  if (any_requires_grad({x}))
    attach(out, "RsqrtBackward0", {x}, [so = save(out)](const Tensor& g) -> TensorList {
      const Tensor y = so.unpack();
      return {g * (y * y * y) * -0.5};
    });
  return out;
}

// ---------------------------------------------------------------- sign, rounding
// Piecewise constant: the gradient is 0 everywhere (torch's zeros_like(grad), also at the jumps).
// Integer tensors are already integers: floor, ceil, trunc and round return a copy, as torch does;
// bool has no kernel, as in torch ("\"floor_vml_cpu\" not implemented for 'Bool'").
static void attach_zero_grad(Tensor& out, const char* name, const Tensor& x) {
  if (any_requires_grad({x}))
    attach(out, name, {x}, [](const Tensor& g) -> TensorList { return {zeros_like(g)}; });
}

template <typename F>
static Tensor rounding(const Tensor& x, const char* name, const char* kernel, const char* backward, F f) {
  SEQLAB_CHECK(x.defined(), name, ": undefined tensor argument");
  SEQLAB_CHECK_IMPL(x.dtype() != Dtype::Bool, "\"", kernel, "\" not implemented for 'Bool'");
  if (is_integral(x.dtype())) return contiguous_copy(x);
  Tensor out = map1_float(x, name, [f](auto tag) {
    using T = decltype(tag);
    return [f](T v) { return static_cast<T>(f(v)); };
  });
  attach_zero_grad(out, backward, x);
  return out;
}

Tensor floor(const Tensor& x) {
  return rounding(x, "floor", "floor_vml_cpu", "FloorBackward0", [](auto v) { return std::floor(v); });
}
Tensor ceil(const Tensor& x) {
  return rounding(x, "ceil", "ceil_vml_cpu", "CeilBackward0", [](auto v) { return std::ceil(v); });
}
Tensor trunc(const Tensor& x) {
  return rounding(x, "trunc", "trunc_vml_cpu", "TruncBackward0", [](auto v) { return std::trunc(v); });
}

// Half to even: nearbyint in the default rounding mode (0.5 -> 0, 1.5 -> 2, 2.5 -> 2), as torch.
// With decimals d >= 0: nearbyint(x * p) / p with p = 10^d; d < 0: nearbyint(x / p) * p with
// p = 10^-d; p is rounded to x's dtype, as torch computes it, so float32 results equal torch's bit
// for bit, inf and NaN where p or x * p overflows included. An explicit decimals (even 0) selects
// torch's round.decimals, which has no integer kernel.
Tensor round(const Tensor& x, std::optional<int64_t> decimals) {
  if (!decimals)
    return rounding(x, "round", "round_vml_cpu", "RoundBackward0", [](auto v) { return std::nearbyint(v); });
  const int64_t d = *decimals;
  SEQLAB_CHECK_IMPL(is_floating(x.dtype()), "\"", d == 0 ? "round_vml_cpu" : "round_cpu", "\" not implemented for '",
                    scalar_type_name(x.dtype()), "'");
  const double ten_pow = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));  // inf beyond 10^308
  Tensor out = map1_float(x, "round", [d, ten_pow](auto tag) {
    using T = decltype(tag);
    const T p = static_cast<T>(ten_pow);
    return [d, p](T v) -> T {
      if (d == 0) return std::nearbyint(v);
      return d > 0 ? std::nearbyint(v * p) / p : std::nearbyint(v / p) * p;
    };
  });
  attach_zero_grad(out, "RoundBackward1", x);
  return out;
}

// sign x = (x > 0) - (x < 0): -1, 0 or 1, and 0 for NaN, as torch. A bool is its own sign.
Tensor sign(const Tensor& x) {
  SEQLAB_CHECK(x.defined(), "sign: undefined tensor argument");
  if (x.dtype() == Dtype::Bool) return contiguous_copy(x);
  Tensor out = map1(x, "sign", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return static_cast<T>((T(0) < v) - (v < T(0))); };
  });
  attach_zero_grad(out, "SignBackward0", x);
  return out;
}

// frac x = x - trunc(x), with x's sign (frac(-2.5) = -0.5); frac(±inf) is NaN.   dx = g
Tensor frac(const Tensor& x) {
  SEQLAB_CHECK(x.defined(), "frac: undefined tensor argument");
  SEQLAB_CHECK_IMPL(is_floating(x.dtype()), "\"frac_cpu\" not implemented for '", scalar_type_name(x.dtype()), "'");
  Tensor out = map1_float(x, "frac", [](auto tag) {
    using T = decltype(tag);
    return [](T v) { return v - std::trunc(v); };
  });
  if (any_requires_grad({x})) attach(out, "FracBackward0", {x}, [](const Tensor& g) -> TensorList { return {g}; });
  return out;
}
}  // namespace seqlab
