// Pointwise ops: arithmetic with broadcasting, unary math, comparisons, copies and in-place
// writes. Each forward is followed by its backward closure; broadcasting's backward is
// sum_to (reduce.cpp). Tests: tests/test_elementwise.py.
#include "seqlab/ops/elementwise.hpp"

#include <cmath>
#include <algorithm>
#include <tuple>
#include <type_traits>

#include <emmintrin.h>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/creation.hpp"
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
  T r = 1;
  while (exp > 0) {
    if (exp & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return r;
}

struct Prepared {
  Tensor a, b;
  Shape shape;
};

// Broadcast shape + common dtype (integers become float32 for true division).
Prepared prepare_binary(const Tensor& a, const Tensor& b, const char* op, bool int_to_float = false) {
  SEQLAB_CHECK(a.defined() && b.defined(), op, ": undefined tensor argument");
  Shape shape = broadcast_shapes(a.shape(), b.shape(), op);
  Dtype d = result_type(a, b);
  if (d == Dtype::Bool) d = Dtype::Int64;
  if (int_to_float && !is_floating(d)) d = Dtype::Float32;
  return {a.dtype() == d ? a : to_dtype(a, d), b.dtype() == d ? b : to_dtype(b, d), std::move(shape)};
}

// Does contiguous `b` repeat over the leading dims of `shape` (a bias row, say)? Then b has
// `row` elements and the result is shape.numel() / row copies of it.
static bool is_trailing_row(const Tensor& b, const Shape& shape, int64_t& row) {
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

// out = f(a, b) elementwise (no autograd), a and b already of one dtype T. FloatOnly: a kernel
// only floats reach (backward formulas, true division), instantiated for float32/float64 only.
template <typename R = void, bool FloatOnly = false, typename MakeF>
Tensor map2(const Tensor& a, const Tensor& b, const Shape& shape, const char* op, MakeF make_f) {
  Tensor out;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using Out = std::conditional_t<std::is_void_v<R>, T, R>;
    out = Tensor::empty(shape, dtype_of<Out>());
    binary_kernel<T, Out>(out, a, b, make_f(tag));
  };
  if constexpr (FloatOnly) dispatch_float(a.dtype(), op, run);
  else dispatch_arith(a.dtype(), op, run);
  return out;
}

template <bool FloatOnly = false, typename MakeF>
Tensor map1(const Tensor& x, const char* op, MakeF make_f) {
  Tensor out;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    out = Tensor::empty(x.shape(), x.dtype());
    unary_kernel<T, T>(out, x, make_f(tag));
  };
  if constexpr (FloatOnly) dispatch_float(x.dtype(), op, run);
  else dispatch_arith(x.dtype(), op, run);
  return out;
}

template <typename MakeF>
Tensor map1_float(const Tensor& x, const char* op, MakeF make_f) {
  const Tensor xf = is_floating(x.dtype()) ? x : to_dtype(x, Dtype::Float32);
  Tensor out = Tensor::empty(x.shape(), xf.dtype());
  dispatch_float(xf.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    unary_kernel<T, T>(out, xf, make_f(tag));
  });
  return out;
}

}  // namespace

// An integer value reaches a narrow integer type through int64 (uint8 takes -1 as 255, as torch;
// a double out of an integer type's range does not convert in C++).
template <typename T>
static T from_double(double value) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(static_cast<int64_t>(value));
  else
    return static_cast<T>(value);
}

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
  if (!is_floating(d)) d = is_integral_value ? Dtype::Int64 : Dtype::Float32;
  Tensor t = scalar_tensor(value, d);
  t.impl()->is_wrapped_number = true;
  return t;
}

// ---------------------------------------------------------------- add / sub
// out = a + alpha*b.   da = g, db = alpha*g (each summed back over broadcast dims)
static Tensor add_impl(const Tensor& a_, const Tensor& b_, double alpha, const char* op) {
  auto [a, b, shape] = prepare_binary(a_, b_, op);
  Tensor out = vec_binary(a, b, shape, simd::BinOp::Add, alpha);
  if (!out.defined())
    out = map2(a, b, shape, op, [alpha](auto tag) {
      using T = decltype(tag);
      const T al = static_cast<T>(alpha);
      return [al](T x, T y) { return wrap_add(x, wrap_mul(al, y)); };
    });
  if (any_requires_grad({a, b})) {
    attach(out, "AddBackward0", {a, b}, [sa = a.shape(), sb = b.shape(), alpha](const Tensor& g) -> TensorList {
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
  return add_impl(a, b, alpha, "add");
}
Tensor sub(const Tensor& a, const Tensor& b, double alpha) {
  SEQLAB_CHECK(!both_bool(a, b), "Subtraction, the `-` operator, with two bool tensors is not supported. "
                                 "Use the `^` or `logical_xor()` operator instead.");
  SEQLAB_CHECK(a.dtype() != Dtype::Bool && b.dtype() != Dtype::Bool,
               "Subtraction, the `-` operator, with a bool tensor is not supported. "
               "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return add_impl(a, b, -alpha, "sub");
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
  const Tensor x = is_floating(x_.dtype()) || e == std::floor(e) ? x_ : to_dtype(x_, Dtype::Float32);
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

// ---------------------------------------------------------------- remainder / fmod
// fmod(a, b) = a - trunc(a/b)*b has the sign of a (C's fmod); remainder(a, b) = a - floor(a/b)*b
// has the sign of b (Python's %), computed from fmod: add b where the two signs differ.
//   da = g,   db = -g * floor(a/b) (remainder),   db = -g * trunc(a/b) (fmod)
// (torch's derivatives: -grad * self.div(other, rounding_mode="floor" / "trunc")).
namespace {

template <bool PythonSign, typename T>
T modulo(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1)) return 0;  // INT64_MIN % -1 overflows (a trap on x86); the remainder is 0
    T r = static_cast<T>(a % b);
    if (PythonSign && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    T r = std::fmod(a, b);
    if (PythonSign && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}

// a // b as Python (and torch.div(rounding_mode="floor")) computes it for floats: from fmod, so
// that the quotient is the integer q with a = q*b + remainder(a, b) even where floor(a/b) rounds
// the other way (a/b just below an integer rounds up to it).
template <typename T>
T floor_divide(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T q = std::floor(div);
  if (div - q > T(0.5)) q += T(1);  // div is an integer up to rounding: take the nearest
  return q;
}

// Integer division by zero: torch's RuntimeError "ZeroDivisionError", raised before any write.
// Every element of b is used when the result is not empty.
void check_integer_divisor(const Tensor& b, const Shape& out_shape) {
  if (!is_integral(b.dtype()) || shape_numel(out_shape) == 0) return;
  bool zero = false;
  dispatch_arith(b.dtype(), "remainder", [&](auto tag) {
    using T = decltype(tag);
    strided_loop<1>(b.shape(), {static_cast<char*>(b.raw_data())}, {b.strides()}, {int64_t(sizeof(T))},
                    [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
                      for (int64_t i = 0; i < n; ++i) zero |= *reinterpret_cast<const T*>(p[0] + i * s[0]) == T(0);
                    });
  });
  SEQLAB_CHECK(!zero, "ZeroDivisionError");
}

template <bool PythonSign>
Tensor modulo_op(const Tensor& a_, const Tensor& b_) {
  const char* op = PythonSign ? "remainder" : "fmod";
  SEQLAB_CHECK(a_.defined() && b_.defined(), op, ": undefined tensor argument");
  SEQLAB_CHECK_IMPL(result_type(a_, b_) != Dtype::Bool, "\"", op, "_cpu\" not implemented for 'Bool'");
  auto [a, b, shape] = prepare_binary(a_, b_, op);
  check_integer_divisor(b, shape);
  Tensor out = map2(a, b, shape, op, [](auto tag) {
    using T = decltype(tag);
    return [](T x, T y) { return modulo<PythonSign>(x, y); };
  });
  if (any_requires_grad({a, b})) {
    const bool need_a = a.requires_grad(), need_b = b.requires_grad();
    // (torch names the Tensor-Tensor form ...Backward1 and the Tensor-number form ...Backward0;
    // here a number is a 0-d tensor that needs no gradient)
    const char* name = PythonSign ? (need_b ? "RemainderBackward1" : "RemainderBackward0")
                                  : (need_b ? "FmodBackward1" : "FmodBackward0");
    attach(out, name, {a, b},
           [sa = need_b ? save(a) : SavedTensor(), sb = need_b ? save(b) : SavedTensor(), shape_a = a.shape(),
            shape_b = b.shape(), need_a, need_b](const Tensor& g) -> TensorList {
             Tensor db;
             if (need_b) {
               const Tensor aa = sa.unpack(), bb = sb.unpack();
               const Tensor q = map2<void, true>(aa, bb, broadcast_shapes(aa.shape(), bb.shape(), "remainder"), "remainder",
                                     [](auto tag) {
                                       using T = decltype(tag);
                                       return [](T x, T y) -> T {
                                         if constexpr (!std::is_floating_point_v<T>) return T(0);  // (no gradient)
                                         else if constexpr (PythonSign) return floor_divide(x, y);
                                         else return std::trunc(x / y);
                                       };
                                     });
               db = sum_to(neg(g * q), shape_b);
             }
             return {need_a ? sum_to(g, shape_a) : Tensor(), db};
           });
  }
  return out;
}

}  // namespace

Tensor remainder(const Tensor& a, const Tensor& b) { return modulo_op<true>(a, b); }
Tensor fmod(const Tensor& a, const Tensor& b) { return modulo_op<false>(a, b); }

Tensor remainder_scalar_tensor(const Tensor& a, const Tensor& b) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = remainder(a, b);
  }
  if (any_requires_grad({b}))
    attach(out, "NotImplemented", {b}, [](const Tensor&) -> TensorList {
      throw std::runtime_error("derivative for aten::remainder is not implemented");
    });
  return out;
}

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
  Tensor out = vec_map(is_floating(x.dtype()) ? x : to_dtype(x, Dtype::Float32), simd::VecOp::Exp, "exp");
  if (any_requires_grad({x}))
    attach(out, "ExpBackward0", {x}, [so = save(out)](const Tensor& g) -> TensorList { return {g * so.unpack()}; });
  return out;
}

// out = ln x.   dx = g/x
Tensor log(const Tensor& x) {
  Tensor out = vec_map(is_floating(x.dtype()) ? x : to_dtype(x, Dtype::Float32), simd::VecOp::Log, "log");
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
static bool fractional_bound(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  auto frac = [](std::optional<double> v) { return v && !(*v == std::floor(*v)); };  // (NaN: true)
  return !is_floating(x.dtype()) && (frac(lo) || frac(hi));
}

Tensor clamp(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  SEQLAB_CHECK(lo || hi, "torch.clamp: At least one of 'min' or 'max' must not be None");
  if (fractional_bound(x, lo, hi)) return clamp(to_dtype(x, Dtype::Float32), lo, hi);
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

// ---------------------------------------------------------------- comparisons, logic
Tensor compare(const Tensor& a_, const Tensor& b_, CompareOp op) {
  static const char* names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const char* name = names[static_cast<int>(op)];
  Shape shape = broadcast_shapes(a_.shape(), b_.shape(), name);
  const Dtype d = result_type(a_, b_);
  const Tensor a = a_.dtype() == d ? a_ : to_dtype(a_, d), b = b_.dtype() == d ? b_ : to_dtype(b_, d);
  Tensor out = Tensor::empty(shape, Dtype::Bool);
  dispatch_all(d, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case CompareOp::Eq: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x == y; }); break;
      case CompareOp::Ne: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x != y; }); break;
      case CompareOp::Lt: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x < y; }); break;
      case CompareOp::Le: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x <= y; }); break;
      case CompareOp::Gt: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x > y; }); break;
      case CompareOp::Ge: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x >= y; }); break;
    }
  });
  return out;
}

static Tensor as_bool(const Tensor& t) { return t.dtype() == Dtype::Bool ? t : compare(t, scalar_tensor(0, t.dtype()), CompareOp::Ne); }

template <typename F>
static Tensor logical(const Tensor& a_, const Tensor& b_, const char* name, F f) {
  const Tensor a = as_bool(a_), b = as_bool(b_);
  Tensor out = Tensor::empty(broadcast_shapes(a.shape(), b.shape(), name), Dtype::Bool);
  binary_kernel<bool, bool>(out, a, b, f);
  return out;
}
Tensor logical_and(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_and", [](bool x, bool y) { return x && y; }); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_or", [](bool x, bool y) { return x || y; }); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_xor", [](bool x, bool y) { return x != y; }); }
Tensor logical_not(const Tensor& a_) {
  const Tensor a = as_bool(a_);
  Tensor out = Tensor::empty(a.shape(), Dtype::Bool);
  unary_kernel<bool, bool>(out, a, [](bool x) { return !x; });
  return out;
}

// ---------------------------------------------------------------- copies
// A copy whose innermost dst dim (stride 1) walks src with a stride while another dim is
// contiguous in src is a transpose (x.t().contiguous(), permute(...).contiguous()): a walk
// element by element touches a new cache line per element on one side. It goes by 16×16 tiles
// instead, whose 16 source lines stay in L1 while the tile is written, and the tiles are split
// over the pool. Returns false (nothing done) for any other layout.
// One full 16×16 tile, dst[k·ldd + i] = src[i·lds + k], by 4×4 (4-byte types) or 2×2 (8-byte
// types) blocks in SSE2 registers (x86-64's baseline): a block's rows are loaded, transposed by
// unpacks and stored, a third of the instructions of element-by-element moves. Bit copies, so
// only for same-type copies; false when the type has no such path.
template <typename D, typename S>
static bool transpose_tile(D* dst, int64_t ldd, const S* src, int64_t lds) {
  if constexpr (std::is_same_v<D, S> && sizeof(D) == 4) {
    for (int64_t k = 0; k < 16; k += 4)
      for (int64_t i = 0; i < 16; i += 4) {
        const float* s0 = reinterpret_cast<const float*>(src + i * lds + k);
        __m128 r0 = _mm_loadu_ps(s0), r1 = _mm_loadu_ps(s0 + lds), r2 = _mm_loadu_ps(s0 + 2 * lds),
               r3 = _mm_loadu_ps(s0 + 3 * lds);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        float* d0 = reinterpret_cast<float*>(dst + k * ldd + i);
        _mm_storeu_ps(d0, r0);
        _mm_storeu_ps(d0 + ldd, r1);
        _mm_storeu_ps(d0 + 2 * ldd, r2);
        _mm_storeu_ps(d0 + 3 * ldd, r3);
      }
    return true;
  } else if constexpr (std::is_same_v<D, S> && sizeof(D) == 8) {
    for (int64_t k = 0; k < 16; k += 2)
      for (int64_t i = 0; i < 16; i += 2) {
        const double* s0 = reinterpret_cast<const double*>(src + i * lds + k);
        const __m128d a = _mm_loadu_pd(s0), b = _mm_loadu_pd(s0 + lds);
        double* d0 = reinterpret_cast<double*>(dst + k * ldd + i);
        _mm_storeu_pd(d0, _mm_unpacklo_pd(a, b));
        _mm_storeu_pd(d0 + ldd, _mm_unpackhi_pd(a, b));
      }
    return true;
  }
  return false;
}

template <typename D, typename S>
static bool transpose_copy(const Tensor& dst, const Tensor& src, const std::array<Shape, 2>& st) {
  struct Dim {
    int64_t size, d, s;  // size, dst and src strides in elements
  };
  std::vector<Dim> dims;
  for (size_t k = 0; k < dst.shape().size(); ++k)
    if (dst.shape()[k] != 1) dims.push_back({dst.shape()[k], st[0][k], st[1][k]});
  if (dims.size() < 2 || dims.back().d != 1 || dims.back().s == 1 || dims.back().s == 0) return false;
  const int64_t numel = dst.numel();
  if (numel < 4096) return false;
  const Dim in = dims.back();  // i: contiguous in dst
  dims.pop_back();
  size_t kk = dims.size();  // k: contiguous in src
  for (size_t q = 0; q < dims.size(); ++q)
    if (dims[q].s == 1) kk = q;
  if (kk == dims.size()) return false;
  const Dim kd = dims[kk];
  dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(kk));
  constexpr int64_t kTile = 16;
  const int64_t k_tiles = (kd.size + kTile - 1) / kTile;
  int64_t outer = 1;
  for (const Dim& q : dims) outer *= q.size;
  D* const pd = static_cast<D*>(dst.raw_data());
  const S* const ps = static_cast<const S*>(src.raw_data());
  const int64_t per_task = kTile * in.size;
  parallel_for(outer * k_tiles, std::max<int64_t>(1, 32768 / per_task), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      // task t = (index over the other dims, k tile)
      int64_t rest = t / k_tiles, od = 0, os = 0;
      for (size_t q = dims.size(); q-- > 0;) {
        const int64_t c = rest % dims[q].size;
        rest /= dims[q].size;
        od += c * dims[q].d;
        os += c * dims[q].s;
      }
      const int64_t k0 = (t % k_tiles) * kTile, k1 = std::min(kd.size, k0 + kTile);
      for (int64_t i0 = 0; i0 < in.size; i0 += kTile) {
        const int64_t i1 = std::min(in.size, i0 + kTile);
        if (k1 - k0 == kTile && i1 - i0 == kTile && transpose_tile(pd + od + k0 * kd.d + i0, kd.d, ps + os + k0 + i0 * in.s, in.s))
          continue;
        for (int64_t k = k0; k < k1; ++k) {
          D* drow = pd + od + k * kd.d;
          const S* scol = ps + os + k;
          for (int64_t i = i0; i < i1; ++i) drow[i] = static_cast<D>(scol[i * in.s]);
        }
      }
    }
  });
  return true;
}

// Strided copy with conversion: dst[...] = src[...] (src broadcast to dst's shape).
static void copy_kernel(const Tensor& dst, const Tensor& src) {
  std::array<Shape, 2> st{dst.strides(), broadcast_strides(src, dst.shape())};
  const bool done = dispatch_all(dst.dtype(), [&](auto dtag) {
    return dispatch_all(src.dtype(), [&](auto stag) { return transpose_copy<decltype(dtag), decltype(stag)>(dst, src, st); });
  });
  if (done) return;
  dispatch_all(dst.dtype(), [&](auto dtag) {
    using D = decltype(dtag);
    dispatch_all(src.dtype(), [&](auto stag) {
      using S = decltype(stag);
      strided_loop<2>(dst.shape(), {static_cast<char*>(dst.raw_data()), static_cast<char*>(src.raw_data())}, st,
                      {int64_t(sizeof(D)), int64_t(sizeof(S))},
                      [](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
                        if (s[0] == int64_t(sizeof(D)) && s[1] == int64_t(sizeof(S))) {
                          D* d = reinterpret_cast<D*>(p[0]);
                          const S* x = reinterpret_cast<const S*>(p[1]);
                          for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(x[i]);
                        } else {
                          for (int64_t i = 0; i < n; ++i)
                            *reinterpret_cast<D*>(p[0] + i * s[0]) = convert<D>(*reinterpret_cast<const S*>(p[1] + i * s[1]));
                        }
                      });
    });
  });
}

// dx = g converted back to x's dtype
Tensor to_dtype(const Tensor& x, Dtype dtype) {
  if (x.dtype() == dtype) return x;
  Tensor out = Tensor::empty(x.shape(), dtype);
  copy_kernel(out, x);
  if (is_floating(dtype) && any_requires_grad({x}))
    attach(out, "ToCopyBackward0", {x}, [d = x.dtype()](const Tensor& g) -> TensorList { return {to_dtype(g, d)}; });
  return out;
}

// dx = g
Tensor clone(const Tensor& x) {
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  copy_kernel(out, x);
  if (any_requires_grad({x})) attach(out, "CloneBackward0", {x}, [](const Tensor& g) -> TensorList { return {g}; });
  return out;
}

Tensor contiguous(const Tensor& x) { return x.is_contiguous() ? x : clone(x); }

Tensor contiguous_copy(const Tensor& x) {
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  copy_kernel(out, x);
  return out;
}

// ---------------------------------------------------------------- in place
// (check_inplace and rebase_history, which record an in-place op under autograd: cpp/src/autograd/inplace.cpp)
Tensor& copy_(Tensor& dst, const Tensor& src) {
  check_inplace(dst, "copy_");
  assert_no_internal_overlap(dst, "copy_");
  broadcast_shapes(dst.shape(), src.shape(), "copy_");
  SEQLAB_CHECK(broadcast_shapes(dst.shape(), src.shape(), "copy_") == dst.shape(), "copy_: source of shape ",
               shape_str(src.shape()), " cannot be broadcast to destination of shape ", shape_str(dst.shape()));
  if (any_requires_grad({src}) || (GradMode::is_enabled() && dst.requires_grad())) {
    // dsrc = g summed to src's shape (expand's backward); dst's old value gets no gradient
    Tensor result = expand(to_dtype(src, dst.dtype()), dst.shape());
    rebase_history(dst, result, "copy_");
    return dst;
  }
  copy_kernel(dst, src);
  dst.bump_version();
  return dst;
}

Tensor& fill_(Tensor& dst, double value) {
  check_inplace(dst, "fill_");
  check_value_fits(value, dst.dtype(), "fill_");
  if (GradMode::is_enabled() && dst.requires_grad()) {
    // A constant now: no gradient flows to the old values (nor, for a view, to that region of the base).
    rebase_history(dst, expand(scalar_tensor(value, dst.dtype()), dst.shape()), "fill_");
    return dst;
  }
  copy_kernel(dst, scalar_tensor(value, dst.dtype()));
  dst.bump_version();
  return dst;
}

Tensor& zero_(Tensor& dst) { return fill_(dst, 0.0); }

Tensor& inplace_binary(Tensor& self, const Tensor& other, InplaceOp op, double alpha) {
  static const char* names[] = {"add_", "sub_", "mul_", "div_", "remainder_", "fmod_"};
  const char* name = names[static_cast<int>(op)];
  check_inplace(self, name);
  assert_no_internal_overlap(self, name);
  auto compute = [&](const Tensor& a) {
    switch (op) {
      case InplaceOp::Add: return add(a, other, alpha);
      case InplaceOp::Sub: return sub(a, other, alpha);
      case InplaceOp::Mul: return mul(a, other);
      case InplaceOp::Div: return div(a, other);
      case InplaceOp::Remainder: return remainder(a, other);
      case InplaceOp::Fmod: return fmod(a, other);
    }
    return Tensor();
  };
  const bool track = GradMode::is_enabled() && (self.requires_grad() || other.requires_grad());
  if (track) {
    // Compute from a copy: the backward may need self's old value, which this op overwrites
    // (PyTorch's "original_self").
    rebase_history(self, compute(clone(self)), name);
    return self;
  }
  const Dtype result = op == InplaceOp::Div && !is_floating(self.dtype()) ? Dtype::Float32
                                                                          : promote(self.dtype(), other.dtype());
  SEQLAB_CHECK(result == self.dtype() || (self.dtype() != Dtype::Bool && !is_floating(result)) ||
                   is_floating(self.dtype()),
               "result type ", scalar_type_name(result), " can't be cast to the desired output type ",
               scalar_type_name(self.dtype()), " (", name, ")");
  const Shape shape = broadcast_shapes(self.shape(), other.shape(), name);
  SEQLAB_CHECK(shape == self.shape(), name, ": output with shape ", shape_str(self.shape()),
               " doesn't match the broadcast shape ", shape_str(shape));
  const bool direct = op == InplaceOp::Add || op == InplaceOp::Sub || op == InplaceOp::Mul;
  if (direct && self.is_contiguous() && other.dtype() == self.dtype()) {
    // Write straight into self: out[i] depends on self[i] only, so aliasing is safe.
    dispatch_arith(self.dtype(), name, [&](auto tag) {
      using T = decltype(tag);
      const T al = static_cast<T>(alpha);
      switch (op) {
        case InplaceOp::Add: binary_kernel<T, T>(self, self, other, [al](T x, T y) { return wrap_add(x, wrap_mul(al, y)); }); break;
        case InplaceOp::Sub: binary_kernel<T, T>(self, self, other, [al](T x, T y) { return wrap_add(x, wrap_neg(wrap_mul(al, y))); }); break;
        default: binary_kernel<T, T>(self, self, other, [](T x, T y) { return wrap_mul(x, y); }); break;
      }
    });
  } else {
    copy_kernel(self, compute(self));
  }
  self.bump_version();
  return self;
}

Tensor& add_(Tensor& self, const Tensor& other, double alpha) {
  return inplace_binary(self, other, InplaceOp::Add, alpha);
}

Tensor& clamp_(Tensor& self, std::optional<double> lo, std::optional<double> hi) {
  check_inplace(self, "clamp_");
  SEQLAB_CHECK_TYPE(!fractional_bound(self, lo, hi), "result type Float can't be cast to the desired output type ",
                    scalar_type_name(self.dtype()));
  assert_no_internal_overlap(self, "clamp_");
  const bool track = GradMode::is_enabled() && self.requires_grad();
  Tensor r = clamp(track ? clone(self) : self, lo, hi);
  if (track) {
    rebase_history(self, r, "clamp_");
  } else {
    copy_kernel(self, r);
    self.bump_version();
  }
  return self;
}

// x.sin_(), x.floor_(), ...: self = op(self). torch refuses a result of another dtype (the float
// ops on an integer tensor) before writing anything.
Tensor& inplace_unary(Tensor& self, UnaryOp op, std::optional<int64_t> decimals) {
  static const char* names[] = {"sin_",  "cos_",   "tan_",  "log2_",  "log10_", "log1p_", "expm1_",
                                "sign_", "floor_", "ceil_", "trunc_", "round_", "frac_"};
  const char* name = names[static_cast<int>(op)];
  check_inplace(self, name);
  assert_no_internal_overlap(self, name);
  const bool to_float = op <= UnaryOp::Expm1;  // sin .. expm1 compute integers in float32
  SEQLAB_CHECK_TYPE(!to_float || is_floating(self.dtype()),
                    "result type Float can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  auto compute = [&](const Tensor& x) {
    switch (op) {
      case UnaryOp::Sin: return sin(x);
      case UnaryOp::Cos: return cos(x);
      case UnaryOp::Tan: return tan(x);
      case UnaryOp::Log2: return log2(x);
      case UnaryOp::Log10: return log10(x);
      case UnaryOp::Log1p: return log1p(x);
      case UnaryOp::Expm1: return expm1(x);
      case UnaryOp::Sign: return sign(x);
      case UnaryOp::Floor: return floor(x);
      case UnaryOp::Ceil: return ceil(x);
      case UnaryOp::Trunc: return trunc(x);
      case UnaryOp::Round: return round(x, decimals);
      case UnaryOp::Frac: return frac(x);
    }
    return Tensor();
  };
  const bool track = GradMode::is_enabled() && self.requires_grad();
  if (track) {
    rebase_history(self, compute(clone(self)), name);  // (a copy: the backward may need the old self)
    return self;
  }
  copy_kernel(self, compute(self));
  self.bump_version();
  return self;
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
