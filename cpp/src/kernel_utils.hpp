// Internal helpers shared by the op files: dtype dispatch and strided loops over one output
// and any number of broadcast inputs. Not part of the public headers.
#pragma once
#include <array>
#include <cstring>
#include <type_traits>
#include <vector>

#include "seqlab/parallel.hpp"
#include "simd/vec_math.hpp"
#include "seqlab/tensor.hpp"

namespace seqlab {

// The copy kernels, no autograd (tensor_copy.cpp, the one file with the dtype x dtype conversion
// table). copy_kernel: dst[...] = src[...] converted, src broadcast to dst's shape.
void copy_kernel(const Tensor& dst, const Tensor& src);
Tensor contiguous_copy(const Tensor& x);
inline Tensor contiguous_copy_if_needed(const Tensor& x) { return x.is_contiguous() ? x : contiguous_copy(x); }

// The dtype dispatch. Each dtype a dispatcher admits instantiates the kernel once more, so heavy
// kernels (float math, GEMMs, activations) take dispatch_float or dispatch_numeric, and the small
// integer types (uint8, int8, int16, int32) go only through copies and conversions, elementwise
// arithmetic and comparisons, indexing and reductions (dispatch_all, dispatch_arith). float16 and
// bfloat16 reach kernels only through dispatch_copy (copies, conversions, data movement): every
// other op computes them in float32 (ops/reduced_float.cpp), so the other dispatchers refuse them
// in torch's words rather than read 2-byte elements as float.

// torch's NotImplementedError for a dtype without a kernel: "\"op\" not implemented for 'Half'".
[[noreturn]] void throw_not_implemented(const char* op, Dtype d);

// Call f(T{}) with T the C++ type of `d`, for every dtype but bool (which is not instantiated).
template <typename F>
decltype(auto) dispatch_but_bool(Dtype d, F&& f, const char* op = "kernel") {
  switch (d) {
    case Dtype::Float32: break;
    case Dtype::Float64: return f(double{});
    case Dtype::Int64: return f(int64_t{});
    case Dtype::Int32: return f(int32_t{});
    case Dtype::Int16: return f(int16_t{});
    case Dtype::Int8: return f(int8_t{});
    case Dtype::UInt8: return f(uint8_t{});
    case Dtype::Bool: case Dtype::Float16: case Dtype::BFloat16: throw_not_implemented(op, d);
  }
  return f(float{});
}
// Every dtype but float16 and bfloat16.
template <typename F>
decltype(auto) dispatch_all(Dtype d, F&& f) {
  if (d == Dtype::Bool) return f(bool{});
  return dispatch_but_bool(d, f);
}
// Every dtype, float16 and bfloat16 as seqlab::Half and seqlab::BFloat16: copies and conversions.
template <typename F>
decltype(auto) dispatch_copy(Dtype d, F&& f) {
  if (d == Dtype::Float16) return f(Half{});
  if (d == Dtype::BFloat16) return f(BFloat16{});
  return dispatch_all(d, f);
}
template <typename F>
decltype(auto) dispatch_float(Dtype d, const char* op, F&& f) {
  SEQLAB_CHECK_TYPE(is_floating(d), op, ": expected a floating point tensor (float32 or float64), got ",
                    dtype_name(d));
  if (d == Dtype::Float64) return f(double{});
  if (d != Dtype::Float32) throw_not_implemented(op, d);
  return f(float{});
}
// float32, float64, int64. An op with no kernel for the other integer types says so in torch's
// words: NotImplementedError "\"op\" not implemented for 'Int'".
template <typename F>
decltype(auto) dispatch_numeric(Dtype d, const char* op, F&& f) {
  SEQLAB_CHECK_TYPE(d != Dtype::Bool, op, ": not implemented for dtype bool");
  switch (d) {
    case Dtype::Float32: break;
    case Dtype::Float64: return f(double{});
    case Dtype::Int64: return f(int64_t{});
    default: throw_not_implemented(op, d);
  }
  return f(float{});
}
// Every dtype but bool: elementwise arithmetic and reductions.
template <typename F>
decltype(auto) dispatch_arith(Dtype d, const char* op, F&& f) {
  SEQLAB_CHECK_TYPE(d != Dtype::Bool, op, ": not implemented for dtype bool");
  return dispatch_but_bool(d, f, op);
}

// Integer arithmetic wraps modulo 2^bits, as torch's does (int8 127 + 1 = -128). Signed overflow
// is undefined in C++, so integers add and multiply in an unsigned type at least as wide as
// unsigned int (uint16 * uint16 would promote to a signed int and could overflow it).
template <typename T>
using wrap_unsigned_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <typename T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = wrap_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <typename T>
inline T wrap_neg(T a) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(wrap_unsigned_t<T>(0) - static_cast<wrap_unsigned_t<T>>(a));
  } else {
    return -a;
  }
}

// One element converted as torch's copy converts it: a float reaches an integer type narrower
// than int64 through int64 (uint8 from -1.0 is 255, as torch; in C++ a double outside the target's
// range does not convert).
// float16 and bfloat16 convert through float32 both ways, as c10::Half and c10::BFloat16 do.
template <typename D, typename S>
inline D convert(S x) {
  if constexpr (std::is_same_v<D, S>)
    return x;
  else if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>)
    return convert<D>(static_cast<float>(x));
  else if constexpr ((std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>) && !std::is_same_v<S, float>)
    return D(convert<float>(x));
  else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D> && !std::is_same_v<D, bool> && sizeof(D) < 8)
    return static_cast<D>(static_cast<int64_t>(x));
  else
    return static_cast<D>(x);
}

// Strides (in elements) of `t` seen with shape `out_shape` (t broadcast to it): 0 where
// t has size 1 or is missing. Assumes broadcast compatibility was checked.
inline Shape broadcast_strides(const Tensor& t, const Shape& out_shape) {
  const int64_t nd = static_cast<int64_t>(out_shape.size());
  const int64_t td = t.dim();
  Shape s(nd, 0);
  for (int64_t i = 0; i < td; ++i) {
    const int64_t o = nd - td + i;
    s[o] = (t.shape()[i] == 1 && out_shape[o] != 1) ? 0 : t.strides()[i];
  }
  return s;
}

// Iterate over `shape` with N operands whose element strides are given; dims are coalesced
// so that contiguous data become one long inner loop. inner(ptrs, strides_bytes, n).
template <size_t N, typename Inner>
void strided_loop(const Shape& shape, std::array<char*, N> ptrs, const std::array<Shape, N>& strides,
                  const std::array<int64_t, N>& itemsizes, Inner&& inner) {
  // Collect dims (size, byte strides) dropping size-1 dims, innermost last.
  struct Dim {
    int64_t size;
    std::array<int64_t, N> st;
  };
  std::vector<Dim> dims;
  dims.reserve(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return;
    if (shape[d] == 1) continue;
    Dim dim{shape[d], {}};
    for (size_t k = 0; k < N; ++k) dim.st[k] = strides[k][d] * itemsizes[k];
    // Merge with the previous (outer) dim when it continues it for every operand.
    if (!dims.empty()) {
      Dim& prev = dims.back();
      bool mergeable = true;
      for (size_t k = 0; k < N; ++k) mergeable &= prev.st[k] == dim.st[k] * dim.size;
      if (mergeable) {
        prev.size *= dim.size;
        prev.st = dim.st;
        continue;
      }
    }
    dims.push_back(dim);
  }
  if (dims.empty()) {  // a single element
    std::array<int64_t, N> st{};
    inner(ptrs, st, int64_t{1});
    return;
  }
  const Dim in = dims.back();
  dims.pop_back();
  const size_t outer = dims.size();
  if (outer == 0) {
    inner(ptrs, in.st, in.size);
    return;
  }
  std::vector<int64_t> counter(outer, 0);
  while (true) {
    inner(ptrs, in.st, in.size);
    // Advance the odometer over the outer dims, innermost first.
    size_t d = outer;
    while (d > 0) {
      --d;
      for (size_t k = 0; k < N; ++k) ptrs[k] += dims[d].st[k];
      if (++counter[d] < dims[d].size) break;
      for (size_t k = 0; k < N; ++k) ptrs[k] -= dims[d].st[k] * dims[d].size;
      counter[d] = 0;
      if (d == 0) return;
    }
  }
}

// out[i] = f(x[i]) for x broadcast/strided, out contiguous (a new tensor of dtype R).
template <typename T, typename R, typename F>
void unary_kernel(const Tensor& out, const Tensor& x, F f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  R* po = static_cast<R*>(out.raw_data());
  if (x.is_contiguous() && x.shape() == out.shape()) {
    const T* px = static_cast<const T*>(x.raw_data());
    parallel_for(n, 32768, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) po[i] = f(px[i]);
    });
    return;
  }
  std::array<Shape, 2> st{contiguous_strides(out.shape()), broadcast_strides(x, out.shape())};
  strided_loop<2>(out.shape(), {reinterpret_cast<char*>(po), static_cast<char*>(x.raw_data())}, st,
                  {int64_t(sizeof(R)), int64_t(sizeof(T))}, [&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t len) {
                    R* o = reinterpret_cast<R*>(p[0]);
                    const char* xp = p[1];
                    for (int64_t i = 0; i < len; ++i) o[i] = f(*reinterpret_cast<const T*>(xp + i * s[1]));
                  });
}

// out[i] = f(a[i], b[i]) with a, b broadcast to out's shape; out contiguous of dtype R.
template <typename T, typename R, typename F>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  R* po = static_cast<R*>(out.raw_data());
  const bool a_full = a.is_contiguous() && a.shape() == out.shape();
  const bool b_full = b.is_contiguous() && b.shape() == out.shape();
  if (a_full && (b_full || b.numel() == 1)) {
    const T* pa = static_cast<const T*>(a.raw_data());
    const T* pb = static_cast<const T*>(b.raw_data());
    if (b_full) {
      parallel_for(n, 32768, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) po[i] = f(pa[i], pb[i]);
      });
    } else {
      const T bv = *pb;
      parallel_for(n, 32768, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) po[i] = f(pa[i], bv);
      });
    }
    return;
  }
  std::array<Shape, 3> st{contiguous_strides(out.shape()), broadcast_strides(a, out.shape()),
                          broadcast_strides(b, out.shape())};
  strided_loop<3>(out.shape(),
                  {reinterpret_cast<char*>(po), static_cast<char*>(a.raw_data()), static_cast<char*>(b.raw_data())},
                  st, {int64_t(sizeof(R)), int64_t(sizeof(T)), int64_t(sizeof(T))},
                  [&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t len) {
                    R* o = reinterpret_cast<R*>(p[0]);
                    const char* ap = p[1];
                    const char* bp = p[2];
                    if (s[1] == int64_t(sizeof(T)) && s[2] == 0) {
                      const T bv = *reinterpret_cast<const T*>(bp);
                      const T* av = reinterpret_cast<const T*>(ap);
                      for (int64_t i = 0; i < len; ++i) o[i] = f(av[i], bv);
                    } else if (s[1] == 0 && s[2] == int64_t(sizeof(T))) {
                      const T avv = *reinterpret_cast<const T*>(ap);
                      const T* bv = reinterpret_cast<const T*>(bp);
                      for (int64_t i = 0; i < len; ++i) o[i] = f(avv, bv[i]);
                    } else {
                      for (int64_t i = 0; i < len; ++i)
                        o[i] = f(*reinterpret_cast<const T*>(ap + i * s[1]), *reinterpret_cast<const T*>(bp + i * s[2]));
                    }
                  });
}

// y = op(x) through the run-time dispatched SIMD kernels (x made contiguous first).
inline Tensor vec_map(const Tensor& x_in, simd::VecOp op, const char* name) {
  const Tensor x = x_in.is_contiguous() ? x_in : contiguous_copy(x_in);
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch_float(x.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.raw_data());
    T* py = static_cast<T*>(y.raw_data());
    parallel_for(x.numel(), 16384, [&](int64_t b, int64_t e) { simd::unary(op, px + b, py + b, e - b); });
  });
  return y;
}

}  // namespace seqlab
