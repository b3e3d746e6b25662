// a // b, a % b, fmod: torch.floor_divide, torch.remainder (Python's sign convention) and torch.fmod
// (C's), with torch's integer ZeroDivisionError and the gradients torch has. Tests:
// tests/test_elementwise.py, tests/test_int_ops.py.
#include <cmath>
#include <type_traits>

#include "elementwise_impl.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

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
T float_floor_div(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T q = std::floor(div);
  if (div - q > T(0.5)) q += T(1);  // div is an integer up to rounding: take the nearest
  return q;
}

// a // b for integers, rounded toward -inf: C++'s quotient (toward 0) less 1 where the division is
// inexact and the signs differ. INT_MIN // -1 wraps to INT_MIN, as torch's (C++'s / would trap).
template <typename T>
T int_floor_div(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrap_neg(a);
    T q = static_cast<T>(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
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
                                         else if constexpr (PythonSign) return float_floor_div(x, y);
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

// out = a // b (torch.floor_divide, torch.div(rounding_mode="floor")). torch records no derivative:
// a result of inputs that require grad requires grad too, and its backward raises.
Tensor floor_divide(const Tensor& a_, const Tensor& b_) {
  SEQLAB_CHECK(a_.defined() && b_.defined(), "floor_divide: undefined tensor argument");
  SEQLAB_CHECK_IMPL(result_type(a_, b_) != Dtype::Bool, "\"div_floor_cpu\" not implemented for 'Bool'");
  auto [a, b, shape] = prepare_binary(a_, b_, "floor_divide");
  check_integer_divisor(b, shape);
  Tensor out = map2(a, b, shape, "floor_divide", [](auto tag) {
    using T = decltype(tag);
    return [](T x, T y) {
      if constexpr (std::is_integral_v<T>) return int_floor_div(x, y);
      else return float_floor_div(x, y);
    };
  });
  if (any_requires_grad({a, b}))
    attach(out, "NotImplemented", {a, b}, [](const Tensor&) -> TensorList {
      throw std::runtime_error("derivative for aten::floor_divide is not implemented");
    });
  return out;
}

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
}  // namespace seqlab
