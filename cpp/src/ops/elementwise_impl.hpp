// Internals shared by the pointwise files (elementwise.cpp: arithmetic; unary.cpp; division.cpp;
// bitwise.cpp; compare.cpp; elementwise_inplace.cpp): a binary op's operand
// preparation and the map helpers that run one kernel over the dtypes a dispatcher admits. Each
// file instantiates only its own kernels, so an edit to one op recompiles one file.
#pragma once
#include <cmath>
#include <optional>
#include <type_traits>

#include "kernel_utils.hpp"
#include "seqlab/default_dtype.hpp"
#include "seqlab/ops/elementwise.hpp"

namespace seqlab {

struct Prepared {
  Tensor a, b;
  Shape shape;
};

// Broadcast shape + common dtype (integers become float32 for true division). elementwise.cpp.
Prepared prepare_binary(const Tensor& a, const Tensor& b, const char* op, bool int_to_float = false);

// Does an integer tensor's clamp by these bounds compute in float32 (a bound that is not an
// integer)? unary.cpp.
bool fractional_bound(const Tensor& x, std::optional<double> lo, std::optional<double> hi);

// An integer value reaches a narrow integer type through int64 (uint8 takes -1 as 255, as torch;
// a double out of an integer type's range does not convert in C++).
template <typename T>
T from_double(double value) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(static_cast<int64_t>(value));
  else
    return static_cast<T>(value);
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
  const Tensor xf = is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype());
  Tensor out = Tensor::empty(x.shape(), xf.dtype());
  dispatch_float(xf.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    unary_kernel<T, T>(out, xf, make_f(tag));
  });
  return out;
}

}  // namespace seqlab
