// Bitwise ops on integer and bool tensors: & | ^ ~ << >> (torch.bitwise_and, bitwise_or,
// bitwise_xor, bitwise_not, bitwise_left_shift, bitwise_right_shift), with torch's type promotion.
// Floats have no kernel (NotImplementedError in torch's words); nothing here is differentiable.
// Tests: tests/test_int_ops.py.
#include <type_traits>

#include "elementwise_impl.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

const char* kernel_name(BitwiseOp op) {
  static const char* names[] = {"bitwise_and_cpu", "bitwise_or_cpu", "bitwise_xor_cpu", "lshift_cpu", "rshift_cpu"};
  return names[static_cast<int>(op)];
}

// The integer types only (int64, int32, int16, int8, uint8); anything else has no kernel.
template <typename F>
decltype(auto) dispatch_integral(Dtype d, const char* kernel, F&& f) {
  SEQLAB_CHECK_IMPL(is_integral(d), "\"", kernel, "\" not implemented for '", scalar_type_name(d), "'");
  switch (d) {
    case Dtype::Int32: return f(int32_t{});
    case Dtype::Int16: return f(int16_t{});
    case Dtype::Int8: return f(int8_t{});
    case Dtype::UInt8: return f(uint8_t{});
    default: break;
  }
  return f(int64_t{});
}

// a << b and a >> b as torch computes them: a shift by a negative amount or by at least the
// type's width (undefined in C++) gives 0, or for >> of a signed type the sign (0 or -1), as if
// shifted one bit at a time. << shifts in the unsigned type, so that it wraps (int8 1 << 7 = -128).
template <typename T>
T shift_left(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr U bits = sizeof(T) * 8;
  if (static_cast<U>(b) >= bits) return T(0);
  return static_cast<T>(static_cast<wrap_unsigned_t<T>>(a) << b);
}
template <typename T>
T shift_right(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr U bits = sizeof(T) * 8;
  if (static_cast<U>(b) >= bits) return std::is_signed_v<T> && a < 0 ? T(-1) : T(0);
  return static_cast<T>(a >> b);  // arithmetic for signed types (g++, and C++20 everywhere)
}

}  // namespace

Tensor bitwise(const Tensor& a_, const Tensor& b_, BitwiseOp op) {
  const char* kernel = kernel_name(op);
  SEQLAB_CHECK(a_.defined() && b_.defined(), kernel, ": undefined tensor argument");
  const Dtype d = result_type(a_, b_);
  const bool shift = op == BitwiseOp::LeftShift || op == BitwiseOp::RightShift;
  if (d == Dtype::Bool && !shift) {  // & | ^ of bools are the logical ops
    if (op == BitwiseOp::And) return logical_and(a_, b_);
    if (op == BitwiseOp::Or) return logical_or(a_, b_);
    return logical_xor(a_, b_);
  }
  SEQLAB_CHECK_IMPL(is_integral(d), "\"", kernel, "\" not implemented for '", scalar_type_name(d), "'");
  const Shape shape = broadcast_shapes(a_.shape(), b_.shape(), kernel);
  const Tensor a = a_.dtype() == d ? a_ : to_dtype(a_, d), b = b_.dtype() == d ? b_ : to_dtype(b_, d);
  Tensor out = Tensor::empty(shape, d);
  dispatch_integral(d, kernel, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case BitwiseOp::And: binary_kernel<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x & y); }); break;
      case BitwiseOp::Or: binary_kernel<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x | y); }); break;
      case BitwiseOp::Xor: binary_kernel<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x ^ y); }); break;
      case BitwiseOp::LeftShift: binary_kernel<T, T>(out, a, b, [](T x, T y) { return shift_left(x, y); }); break;
      case BitwiseOp::RightShift: binary_kernel<T, T>(out, a, b, [](T x, T y) { return shift_right(x, y); }); break;
    }
  });
  return out;
}

Tensor bitwise_and(const Tensor& a, const Tensor& b) { return bitwise(a, b, BitwiseOp::And); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return bitwise(a, b, BitwiseOp::Or); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return bitwise(a, b, BitwiseOp::Xor); }
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) { return bitwise(a, b, BitwiseOp::LeftShift); }
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) { return bitwise(a, b, BitwiseOp::RightShift); }

// ~x: every bit flipped (~x = -x - 1 for signed types); a bool's logical not.
Tensor bitwise_not(const Tensor& x) {
  SEQLAB_CHECK(x.defined(), "bitwise_not: undefined tensor argument");
  if (x.dtype() == Dtype::Bool) return logical_not(x);
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  dispatch_integral(x.dtype(), "bitwise_not_cpu", [&](auto tag) {
    using T = decltype(tag);
    unary_kernel<T, T>(out, x, [](T v) { return static_cast<T>(~v); });
  });
  return out;
}

}  // namespace seqlab
