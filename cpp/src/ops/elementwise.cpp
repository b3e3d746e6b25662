// Pointwise arithmetic with broadcasting and torch's type promotion: + - * / pow maximum minimum
// where, and the Python-number operand (scalar_like). Each forward is followed by its backward
// closure; broadcasting's backward is sum_to (reduce.cpp). Tests: tests/test_elementwise.py.
// The rest of the pointwise family: unary.cpp, division.cpp, bitwise.cpp, compare.cpp, copy.cpp,
// elementwise_inplace.cpp (shared internals: elementwise_impl.hpp).
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/default_dtype.hpp"

#include "autograd/ops_used.hpp"  // declares add, reshape, ... for autograd/

#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>

#include "elementwise_impl.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

// PyTorch's result type of two operands (c10's result_type), in three tiers: tensors with dims,
// 0-d tensors, Python numbers (wrapped numbers). A higher tier decides within its category
// (bool < integer < floating); a lower tier can raise the category but not the width:
// float32[3] + float64 0-d is float32, int64[3] + float64 0-d is float64, int8 0-d + 1000 is int8.
Dtype result_type(const Tensor& a, const Tensor& b) {
  auto category = [](Dtype d) { return d == Dtype::Bool ? 0 : (is_floating(d) ? 2 : 1); };
  std::optional<Dtype> tiers[3];  // with dims, 0-d, wrapped numbers
  for (const Tensor* t : {&a, &b}) {
    std::optional<Dtype>& slot = tiers[t->dim() > 0 ? 0 : (t->impl()->is_wrapped_number ? 2 : 1)];
    slot = slot ? promote(*slot, t->dtype()) : t->dtype();
  }
  auto combine = [&](std::optional<Dtype> higher, std::optional<Dtype> lower) -> std::optional<Dtype> {
    if (!higher || !lower) return higher ? higher : lower;
    return category(*higher) >= category(*lower) ? *higher : promote(*higher, *lower);
  };
  return *combine(tiers[0], combine(tiers[1], tiers[2]));
}

namespace {

// base^exp for integers by squaring, wrapping as torch's integer pow (exp >= 0: the caller refuses
// negative integer powers, as torch).
template <typename T>
T int_pow(T base, int64_t exp) {
  if (exp < 0) {  // integer semantics, as torch: 1/base truncates to 0 except for base ±1
    if (base == T(1)) return T(1);
    if (std::is_signed_v<T> && base == T(-1)) return (-exp) % 2 ? T(-1) : T(1);
    return T(0);
  }
  T r = 1;
  while (exp > 0) {
    if (exp & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return r;
}

}  // namespace

// Broadcast shape + common dtype (integers become float32 for true division).
Prepared prepare_binary(const Tensor& a, const Tensor& b, const char* op, bool int_to_float) {
  SEQLAB_CHECK(a.defined() && b.defined(), op, ": undefined tensor argument");
  Shape shape = broadcast_shapes(a.shape(), b.shape(), op);
  Dtype d = result_type(a, b);
  if (d == Dtype::Bool) d = Dtype::Int64;
  if (int_to_float && !is_floating(d)) d = default_float_dtype();
  return {a.dtype() == d ? a : to_dtype(a, d), b.dtype() == d ? b : to_dtype(b, d), std::move(shape)};
}

namespace {

// Does contiguous `b` repeat over the leading dims of `shape` (a bias row, say)? Then b has
// `row` elements and the result is shape.numel() / row copies of it.
bool is_trailing_row(const Tensor& b, const Shape& shape, int64_t& row) {
  if (!b.is_contiguous() || b.numel() == 0) return false;
  size_t k = 0;
  while (k < b.shape().size() && b.shape()[k] == 1) ++k;  // leading 1s broadcast anyway
  const size_t nb = b.shape().size() - k;
  if (nb > shape.size() || !std::equal(b.shape().begin() + k, b.shape().end(), shape.end() - nb)) return false;
  row = b.numel();
  return true;
}

// The SIMD path for float arithmetic on contiguous operands: b full, a single number, or a
// row repeated over the leading dims. Returns an undefined tensor when they do not qualify.
Tensor vec_binary(const Tensor& a, const Tensor& b, const Shape& shape, simd::BinOp op, double alpha) {
  if (!is_floating(a.dtype()) || !a.is_contiguous() || a.shape() != shape) {
    // x + bias / bias * x with the full operand second: swap when the op commutes.
    if ((op == simd::BinOp::Mul || (op == simd::BinOp::Add && alpha == 1.0)) && is_floating(b.dtype()) &&
        b.is_contiguous() && b.shape() == shape && a.shape() != shape)
      return vec_binary(b, a, shape, op, alpha);
    return Tensor();
  }
  const bool b_full = b.is_contiguous() && b.shape() == shape;
  int64_t row = 0;
  const bool b_row = !b_full && b.numel() > 1 && is_trailing_row(b, shape, row);
  if (!b_full && !b_row && b.numel() != 1) return Tensor();
  Tensor out = Tensor::empty(shape, a.dtype());
  dispatch_float(a.dtype(), "binary", [&](auto tag) {
    using T = decltype(tag);
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    const T al = static_cast<T>(alpha);
    if (b_row) {
      const int64_t rows = out.numel() / row;
      parallel_for(rows, std::max<int64_t>(1, 32768 / row), [&](int64_t s, int64_t e) {
        simd::binary_rows(op, pa + s * row, pb, al, po + s * row, e - s, row);
      });
      return;
    }
    parallel_for(out.numel(), 32768, [&](int64_t s, int64_t e) {
      simd::binary(op, pa + s, b_full ? pb + s : pb, !b_full, al, po + s, e - s);
    });
  });
  return out;
}

}  // namespace

Tensor scalar_tensor(double value, Dtype dtype) {
  check_value_fits(value, dtype, "scalar_tensor");
  Tensor t = Tensor::empty({}, dtype);
  dispatch_all(dtype, [&](auto tag) {
    using T = decltype(tag);
    *t.data<T>() = from_double<T>(value);
  });
  return t;
}

// A Python number next to a tensor: a wrapped number (the lowest tier of result_type), so it never
// widens the tensor's dtype. A float next to an integer tensor is float32, torch's default dtype;
// an integer is int64, converted to the result's dtype by the op, wrapping as torch's conversion
// does (int8 tensor + 1000 adds 1000 mod 256; uint8 tensor - 2 adds 254).
Tensor scalar_like(double value, const Tensor& other, bool is_integral_value) {
  Dtype d = other.dtype();
  if (!is_floating(d)) d = is_integral_value ? Dtype::Int64 : default_float_dtype();
  Tensor t = scalar_tensor(value, d);
  t.impl()->is_wrapped_number = true;
  return t;
}

// ---------------------------------------------------------------- add / sub
// out = a + alpha*b.   da = g, db = alpha*g (each summed back over broadcast dims)
static Tensor add_impl(const Tensor& a_, const Tensor& b_, double alpha, const char* op, const char* node) {
  auto [a, b, shape] = prepare_binary(a_, b_, op);
  Tensor out = vec_binary(a, b, shape, simd::BinOp::Add, alpha);
  if (!out.defined())
    out = map2(a, b, shape, op, [alpha](auto tag) {
      using T = decltype(tag);
      const T al = static_cast<T>(alpha);
      return [al](T x, T y) { return wrap_add(x, wrap_mul(al, y)); };
    });
  if (any_requires_grad({a, b})) {
    attach(out, node, {a, b}, [sa = a.shape(), sb = b.shape(), alpha](const Tensor& g) -> TensorList {
      return {sum_to(g, sa), alpha == 1.0 ? sum_to(g, sb) : sum_to(g * alpha, sb)};
    });
  }
  return out;
}

// Two bool operands give bool, as in torch: + is or, * is and, max/min are or/and, - is refused.
static bool both_bool(const Tensor& a, const Tensor& b) {
  return a.dtype() == Dtype::Bool && b.dtype() == Dtype::Bool;
}

Tensor add(const Tensor& a, const Tensor& b, double alpha) {
  if (both_bool(a, b)) {
    SEQLAB_CHECK(alpha == 1.0, "add: Boolean alpha only supported for Boolean results (got alpha=", alpha, ")");
    return logical_or(a, b);
  }
  return add_impl(a, b, alpha, "add", "AddBackward0");
}
Tensor sub(const Tensor& a, const Tensor& b, double alpha) {
  SEQLAB_CHECK(!both_bool(a, b), "Subtraction, the `-` operator, with two bool tensors is not supported. "
                                 "Use the `^` or `logical_xor()` operator instead.");
  SEQLAB_CHECK(a.dtype() != Dtype::Bool && b.dtype() != Dtype::Bool,
               "Subtraction, the `-` operator, with a bool tensor is not supported. "
               "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return add_impl(a, b, -alpha, "sub", "SubBackward0");  // torch's node name: the drawn graph says "Sub"
}

// ---------------------------------------------------------------- mul / div
// out = a*b.   da = g*b, db = g*a
Tensor mul(const Tensor& a_, const Tensor& b_) {
  if (both_bool(a_, b_)) return logical_and(a_, b_);
  auto [a, b, shape] = prepare_binary(a_, b_, "mul");
  Tensor out = vec_binary(a, b, shape, simd::BinOp::Mul, 1.0);
  if (!out.defined())
    out = map2(a, b, shape, "mul", [](auto tag) {
      using T = decltype(tag);
      return [](T x, T y) { return wrap_mul(x, y); };
    });
  if (any_requires_grad({a, b})) {
    const bool need_a = a.requires_grad(), need_b = b.requires_grad();
    // Save only what the other gradient needs, as PyTorch does (so x.mul_(2) stays legal).
    attach(out, "MulBackward0", {a, b},
           [sa = need_b ? save(a) : SavedTensor(), sb = need_a ? save(b) : SavedTensor(), shape_a = a.shape(),
            shape_b = b.shape(), need_a, need_b](const Tensor& g) -> TensorList {
             return {need_a ? sum_to(g * sb.unpack(), shape_a) : Tensor(),
                     need_b ? sum_to(g * sa.unpack(), shape_b) : Tensor()};
           });
  }
  return out;
}

// out = a/b.   da = g/b, db = -g*a/b^2 = -g*out/b
Tensor div(const Tensor& a_, const Tensor& b_) {
  auto [a, b, shape] = prepare_binary(a_, b_, "div", /*int_to_float=*/true);
  Tensor out = vec_binary(a, b, shape, simd::BinOp::Div, 1.0);
  if (!out.defined())
    out = map2<void, true>(a, b, shape, "div", [](auto tag) {
      using T = decltype(tag);
      return [](T x, T y) { return x / y; };
    });
  if (any_requires_grad({a, b})) {
    const bool need_b = b.requires_grad();
    attach(out, "DivBackward0", {a, b},
           [sb = save(b), so = need_b ? save(out) : SavedTensor(), shape_a = a.shape(), shape_b = b.shape(),
            need_a = a.requires_grad(), need_b](const Tensor& g) -> TensorList {
             Tensor bb = sb.unpack();
             Tensor ga = need_a || need_b ? g / bb : Tensor();
             return {need_a ? sum_to(ga, shape_a) : Tensor(), need_b ? sum_to(-(ga * so.unpack()), shape_b) : Tensor()};
           });
  }
  return out;
}

// ---------------------------------------------------------------- pow
// out = a^b.   da = g*b*a^(b-1), db = g*out*ln(a) (0 where a == 0 and b >= 0, as PyTorch)
Tensor pow(const Tensor& a_, const Tensor& b_) {
  auto [a, b, shape] = prepare_binary(a_, b_, "pow");
  Tensor out = map2(a, b, shape, "pow", [](auto tag) {
    using T = decltype(tag);
    return [](T x, T y) {
      if constexpr (std::is_integral_v<T>) {
        return int_pow(x, static_cast<int64_t>(y));
      } else {
        return std::pow(x, y);
      }
    };
  });
  if (any_requires_grad({a, b})) {
    attach(out, "PowBackward1", {a, b},
           [sa = save(a), sb = save(b), so = save(out), need_a = a.requires_grad(),
            need_b = b.requires_grad()](const Tensor& g) -> TensorList {
             Tensor aa = sa.unpack(), bb = sb.unpack();
             Tensor da, db;
             if (need_a) {
               Tensor d = map2<void, true>(aa, bb, broadcast_shapes(aa.shape(), bb.shape(), "pow"), "pow", [](auto tag) {
                 using T = decltype(tag);
                 return [](T x, T y) { return y == T(0) ? T(0) : y * std::pow(x, y - T(1)); };
               });
               da = sum_to(g * d, aa.shape());
             }
             if (need_b) {
               Tensor oo = so.unpack();
               Tensor l = map2<void, true>(aa, bb, oo.shape(), "pow", [](auto tag) {
                 using T = decltype(tag);
                 return [](T x, T y) { return (x == T(0) && y >= T(0)) ? T(0) : std::log(x); };
               });
               db = sum_to(g * oo * l, bb.shape());
             }
             return {da, db};
           });
  }
  return out;
}

// out = x^e for a number e.   dx = g*e*x^(e-1)
Tensor pow(const Tensor& x_, double e) {
  SEQLAB_CHECK(is_floating(x_.dtype()) || e >= 0 || e != std::floor(e),
               "pow: Integers to negative integer powers are not allowed (", dtype_name(x_.dtype()), " tensor of shape ",
               shape_str(x_.shape()), " ** ", e, ").");
  const Tensor x = is_floating(x_.dtype()) || e == std::floor(e) ? x_ : to_dtype(x_, default_float_dtype());
  Tensor out = map1(x, "pow", [e](auto tag) {
    using T = decltype(tag);
    return [e](T v) -> T {
      if (e == 2.0) return v * v;
      if (e == 1.0) return v;
      // torch computes x^0.5 and x^-0.5 as sqrt and rsqrt: they differ from pow at -0 (-0 and -inf)
      if constexpr (std::is_floating_point_v<T>) {
        if (e == 0.5) return std::sqrt(v);
        if (e == -0.5) return T(1) / std::sqrt(v);
      }
      if constexpr (std::is_integral_v<T>) return int_pow(v, static_cast<int64_t>(e));  // (e is integral here)
      else return static_cast<T>(std::pow(static_cast<double>(v), e));
    };
  });
  if (any_requires_grad({x})) {
    attach(out, "PowBackward0", {x}, [sx = save(x), e](const Tensor& g) -> TensorList {
      if (e == 0.0) return {mul(g, scalar_tensor(0.0, g.dtype()))};
      Tensor xx = sx.unpack();
      Tensor d = map1<true>(xx, "pow", [e](auto tag) {
        using T = decltype(tag);
        return [e](T v) -> T { return static_cast<T>(e * std::pow(static_cast<double>(v), e - 1.0)); };
      });
      return {g * d};
    });
  }
  return out;
}

// ---------------------------------------------------------------- maximum / minimum
// Ties split the gradient in half between a and b, as PyTorch does.
static Tensor extremum(const Tensor& a_, const Tensor& b_, bool is_max) {
  const char* op = is_max ? "maximum" : "minimum";
  auto [a, b, shape] = prepare_binary(a_, b_, op);
  Tensor out = map2(a, b, shape, op, [is_max](auto tag) {
    using T = decltype(tag);
    return [is_max](T x, T y) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(x) || std::isnan(y)) return x + y;  // NaN propagates
      }
      return is_max ? (x > y ? x : y) : (x < y ? x : y);
    };
  });
  if (any_requires_grad({a, b})) {
    attach(out, is_max ? "MaximumBackward0" : "MinimumBackward0", {a, b},
           [sa = save(a), sb = save(b), is_max](const Tensor& g) -> TensorList {
             Tensor aa = sa.unpack(), bb = sb.unpack();
             // weight of a: 1 where a wins, 1/2 on ties, 0 where b wins
             Tensor wa = map2<void, true>(aa, bb, broadcast_shapes(aa.shape(), bb.shape(), "maximum"), "maximum",
                              [is_max](auto tag) {
                                using T = decltype(tag);
                                return [is_max](T x, T y) {
                                  if (x == y) return T(0.5);
                                  return (is_max ? x > y : x < y) ? T(1) : T(0);
                                };
                              });
             Tensor ga = g * wa;
             return {sum_to(ga, aa.shape()), sum_to(g - ga, bb.shape())};
           });
  }
  return out;
}
Tensor maximum(const Tensor& a, const Tensor& b) { return both_bool(a, b) ? logical_or(a, b) : extremum(a, b, true); }
Tensor minimum(const Tensor& a, const Tensor& b) { return both_bool(a, b) ? logical_and(a, b) : extremum(a, b, false); }

// ---------------------------------------------------------------- where
// out = cond ? a : b.   da = cond ? g : 0, db = cond ? 0 : g
Tensor where(const Tensor& cond, const Tensor& a_, const Tensor& b_) {
  SEQLAB_CHECK_TYPE(cond.dtype() == Dtype::Bool,
                    "where expected condition to be a boolean tensor, but got a tensor with dtype ",
                    dtype_name(cond.dtype()));
  // (not prepare_binary: where keeps bool operands bool, as torch's)
  const Dtype d = result_type(a_, b_);
  const Tensor a = a_.dtype() == d ? a_ : to_dtype(a_, d), b = b_.dtype() == d ? b_ : to_dtype(b_, d);
  const Shape shape_ab = broadcast_shapes(a.shape(), b.shape(), "where");
  const Shape shape = broadcast_shapes(cond.shape(), shape_ab, "where");
  Tensor out;
  dispatch_all(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    out = Tensor::empty(shape, a.dtype());
    std::array<Shape, 4> st{contiguous_strides(shape), broadcast_strides(cond, shape), broadcast_strides(a, shape),
                            broadcast_strides(b, shape)};
    strided_loop<4>(shape,
                    {static_cast<char*>(out.raw_data()), static_cast<char*>(cond.raw_data()),
                     static_cast<char*>(a.raw_data()), static_cast<char*>(b.raw_data())},
                    st, {int64_t(sizeof(T)), 1, int64_t(sizeof(T)), int64_t(sizeof(T))},
                    [](std::array<char*, 4> p, std::array<int64_t, 4> s, int64_t n) {
                      for (int64_t i = 0; i < n; ++i)
                        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const bool*>(p[1] + i * s[1])
                                                                     ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                                                     : *reinterpret_cast<const T*>(p[3] + i * s[3]);
                    });
  });
  if (any_requires_grad({a, b})) {
    attach(out, "WhereBackward0", {a, b}, [c = cond, sa = a.shape(), sb = b.shape()](const Tensor& g) -> TensorList {
      Tensor zero = scalar_tensor(0.0, g.dtype());
      return {sum_to(where(c, g, zero), sa), sum_to(where(c, zero, g), sb)};
    });
  }
  return out;
}
// ---------------------------------------------------------------- C++ sugar
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, double b) { return add(a, scalar_like(b, a, false)); }
Tensor operator-(const Tensor& a, double b) { return sub(a, scalar_like(b, a, false)); }
Tensor operator*(const Tensor& a, double b) { return mul(a, scalar_like(b, a, false)); }
Tensor operator/(const Tensor& a, double b) { return div(a, scalar_like(b, a, false)); }
Tensor operator+(double a, const Tensor& b) { return add(scalar_like(a, b, false), b); }
Tensor operator-(double a, const Tensor& b) { return sub(scalar_like(a, b, false), b); }
Tensor operator*(double a, const Tensor& b) { return mul(scalar_like(a, b, false), b); }

}  // namespace seqlab
