// The kernels behind vec_math.hpp, written once for any xsimd architecture. Included only by
// the per-ISA translation units, which are compiled with that ISA's flags.
#pragma once
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "simd/vec_math.hpp"

namespace seqlab::simd {

template <class Arch, class T>
void UnaryKernel::operator()(Arch, VecOp op, const T* x, T* y, int64_t n) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  int64_t i = 0;
  // The switch is outside the loops: one tight loop per op.
  auto run = [&](auto f_vec, auto f_scalar) {
    for (; i + W <= n; i += W) f_vec(B::load_unaligned(x + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = f_scalar(x[i]);
  };
  const B one(T(1)), half(T(0.5)), zero(T(0));
  const T k_erf = T(0.7071067811865476);                        // 1/√2
  const T k_tanh = T(0.7978845608028654), c = T(0.044715);      // √(2/π), GELU's cubic term
  switch (op) {
    case VecOp::Exp: run([](B v) { return xsimd::exp(v); }, [](T v) { return std::exp(v); }); break;
    case VecOp::Log: run([](B v) { return xsimd::log(v); }, [](T v) { return std::log(v); }); break;
    case VecOp::Tanh: run([](B v) { return xsimd::tanh(v); }, [](T v) { return std::tanh(v); }); break;
    case VecOp::Sigmoid:
      run([&](B v) { return one / (one + xsimd::exp(-v)); }, [](T v) { return T(1) / (T(1) + std::exp(-v)); });
      break;
    case VecOp::Relu:
      // v < 0 ? 0 : v, not v > 0 ? v : 0: NaN must come out as NaN, as in PyTorch
      run([&](B v) { return xsimd::select(v < zero, zero, v); }, [](T v) { return v < T(0) ? T(0) : v; });
      break;
    case VecOp::GeluErf:
      run([&](B v) { return half * v * (one + xsimd::erf(v * B(k_erf))); },
          [&](T v) { return T(0.5) * v * (T(1) + std::erf(v * k_erf)); });
      break;
    case VecOp::GeluTanh:
      run([&](B v) { return half * v * (one + xsimd::tanh(B(k_tanh) * (v + B(c) * v * v * v))); },
          [&](T v) { return T(0.5) * v * (T(1) + std::tanh(k_tanh * (v + c * v * v * v))); });
      break;
  }
}

template <class Arch, class T>
T MaxKernel::operator()(Arch, const T* x, int64_t n) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  const T ninf = -std::numeric_limits<T>::infinity();
  B a0(ninf), a1(ninf);
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    a0 = xsimd::max(a0, B::load_unaligned(x + i));
    a1 = xsimd::max(a1, B::load_unaligned(x + i + W));
  }
  alignas(64) T lanes[W];
  xsimd::max(a0, a1).store_aligned(lanes);
  T m = ninf;
  for (int64_t k = 0; k < W; ++k) m = std::max(m, lanes[k]);
  for (; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

template <class Arch, class T>
double ExpSumKernel::operator()(Arch, const T* x, T shift, T* y, int64_t n) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  const B s(shift);
  B acc(T(0));
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const B e = xsimd::exp(B::load_unaligned(x + i) - s);
    e.store_unaligned(y + i);
    acc += e;
  }
  alignas(64) T lanes[W];
  acc.store_aligned(lanes);
  double total = 0;
  for (int64_t k = 0; k < W; ++k) total += lanes[k];
  for (; i < n; ++i) total += (y[i] = std::exp(x[i] - shift));
  return total;
}

template <class Arch, class T>
double SumKernel::operator()(Arch, const T* x, int64_t n) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  constexpr int64_t kBlock = 4096;
  double total = 0;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    B a0(T(0)), a1(T(0)), a2(T(0)), a3(T(0));  // four chains hide the add latency
    int64_t i = start;
    for (; i + 4 * W <= end; i += 4 * W) {
      a0 += B::load_unaligned(x + i);
      a1 += B::load_unaligned(x + i + W);
      a2 += B::load_unaligned(x + i + 2 * W);
      a3 += B::load_unaligned(x + i + 3 * W);
    }
    alignas(64) T lanes[W];  // horizontal sum by hand: xsimd 8.1's AVX-512 hadd needs AVX512DQ
    ((a0 + a1) + (a2 + a3)).store_aligned(lanes);
    double block = 0;
    for (int64_t k = 0; k < W; ++k) block += lanes[k];
    for (; i < end; ++i) block += x[i];
    total += block;
  }
  return total;
}

template <class Arch, class T>
void BinaryKernel::operator()(Arch, BinOp op, const T* a, const T* b, bool b_is_scalar, T alpha, T* y,
                              int64_t n) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  const B al(alpha);
  int64_t i = 0;
  // One loop per case keeps each inner loop free of branches.
  auto run = [&](auto f_vec, auto f_scalar) {
    if (b_is_scalar) {
      const B bv(b[0]);
      for (; i + W <= n; i += W) f_vec(B::load_unaligned(a + i), bv).store_unaligned(y + i);
      for (; i < n; ++i) y[i] = f_scalar(a[i], b[0]);
    } else {
      for (; i + W <= n; i += W) f_vec(B::load_unaligned(a + i), B::load_unaligned(b + i)).store_unaligned(y + i);
      for (; i < n; ++i) y[i] = f_scalar(a[i], b[i]);
    }
  };
  switch (op) {
    case BinOp::Add: run([&](B x, B z) { return xsimd::fma(al, z, x); }, [&](T x, T z) { return x + alpha * z; }); break;
    case BinOp::Mul: run([](B x, B z) { return x * z; }, [](T x, T z) { return x * z; }); break;
    case BinOp::Div: run([](B x, B z) { return x / z; }, [](T x, T z) { return x / z; }); break;
  }
}

}  // namespace seqlab::simd
