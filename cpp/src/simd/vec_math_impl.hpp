// The kernels behind vec_math.hpp, written once for any xsimd architecture. Included only by
// the per-ISA translation units, which are compiled with that ISA's flags.
#pragma once
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "simd/vec_math.hpp"

namespace seqlab::simd {

// The helpers below are called from 2-vector unrolled loops, where GCC would otherwise make
// them out-of-line calls that pass batches through memory (measured: 56% more instructions).
#define SEQLAB_SIMD_INLINE inline __attribute__((always_inline))
#define SEQLAB_SIMD_LAMBDA __attribute__((always_inline))  // the same for a lambda: [](B v) SEQLAB_SIMD_LAMBDA {...}

// e^x for x ≤ 0 (or NaN): the arguments of softmax's e^(x − max) and GELU's e^(−z²), which need
// no overflow branch. x = n ln 2 + r, |r| ≤ ln 2 / 2 (ln 2 split in two for an exact n ln 2),
// e^r = 1 + r + r² P(r) with P of degree 4 fitted for seqlab (least squares, Lawson's weights,
// relative error 3e-9 on [−ln 2/2, ln 2/2]; under 1 ulp in float), and 2^n built in the
// exponent bits. Below −87.33 the result would be subnormal: 0 (torch gives a subnormal < 1.2e-38).
// double: the same reduction with fdlibm's split of ln 2 and e^r by its Taylor series to r¹³
// (remainder < 5e-18 relative for |r| ≤ ln 2 / 2), without xsimd::exp's division; below −708.396
// 2^n would be subnormal: 0.
template <class B>
SEQLAB_SIMD_INLINE B exp_nonpositive(B x) {
  if constexpr (std::is_same_v<typename B::value_type, double>) {
    using I = xsimd::batch<int64_t, typename B::arch_type>;
    const B n = xsimd::nearbyint(x * B(1.4426950408889634));  // round(x / ln 2)
    B r = xsimd::fnma(n, B(6.93147180369123816490e-01), x);    // x − n ln 2, ln 2 = hi + lo, n·hi exact
    r = xsimd::fnma(n, B(1.90821492927058770002e-10), r);
    B p(1.0 / 6227020800.0);                                    // 1/13!
    for (double f : {479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0, 5040.0, 720.0, 120.0, 24.0, 6.0, 2.0, 1.0, 1.0})
      p = xsimd::fma(p, r, B(1.0 / f));                         // Horner: Σ r^k / k!
    // 2^n from n's bits: adding 1.5·2^52 leaves the integer n in the low mantissa bits
    const B magic(6755399441055744.0);
    const I k = xsimd::bitwise_cast<I>(n + magic) - xsimd::bitwise_cast<I>(magic) + I(1023);
    const B y = p * xsimd::bitwise_cast<B>(k << 52);
    return xsimd::select(x < B(-708.39641853226408), B(0.0), y);  // −1022 ln 2
  } else {
    using I = xsimd::batch<int32_t, typename B::arch_type>;
    const B n = xsimd::nearbyint(x * B(1.44269504088896341f));  // round(x / ln 2)
    B r = xsimd::fnma(n, B(0.693359375f), x);                    // x − n ln 2, ln 2 = 0.693359375
    r = xsimd::fnma(n, B(-2.12194440e-4f), r);                   //               − 2.12194440e-4
    B p(0.0013814608f);
    for (float c : {0.0083687101f, 0.041668389f, 0.16666521f, 0.49999994f}) p = xsimd::fma(p, r, B(c));
    const B er = xsimd::fma(p, r * r, r) + B(1.f);
    I k = xsimd::to_int(n) + I(127);  // the biased exponent of 2^n
    k <<= 23;
    const B y = er * xsimd::bitwise_cast<B>(k);
    return xsimd::select(x < B(-87.33f), B(0.f), y);
  }
}

// Φ(x) = ½ erfc(−x/√2), the normal CDF in GELU's exact form x·Φ(x), in float. With z = |x|/√2:
//   erfc(z) = e^(−z²) · t·P(t),  t = 1/(1 + 0.4 z)   (Abramowitz & Stegun 7.1.26's form)
// where t·P(t) fits erfcx(z) = e^(z²) erfc(z) on all of z ≥ 0 (t in (0, 1]) to 1.3e-7 relative
// error (P of degree 8, least squares with Lawson's weights, fitted for seqlab with scipy's
// erfcx); Φ(x) = ½ erfc(z) for x < 0 and 1 − ½ erfc(z) for x ≥ 0. One exp and one division
// instead of xsimd::erf's two branches, and the tail x < 0 keeps its relative accuracy.
// Sets e = e^(−x²/2) and q = ½ t·P(t), so that ½ erfc(z) = e·q (GELU's backward needs φ(x) =
// e/√(2π) too).
template <class B>
SEQLAB_SIMD_INLINE void gelu_erfc_parts(B x, B& e, B& q) {
  const B a = xsimd::abs(x);
  const B t = B(1.f) / xsimd::fma(B(0.28284271247461901f), a, B(1.f));  // 1/(1 + 0.4 z), z = |x|/√2
  // ½P(t) = Σ_k (c_k/2) t^k by Horner's scheme: the kernels run many independent elements, so
  // they are bound by the FMA units' throughput, not by one element's latency, and Horner's
  // needs no t², t⁴ (Estrin's did: 14% slower on Zen 3, measured).
  B p(0.025134342f);
  for (float c : {-0.091463886f, 0.08456430f, -0.0028224029f, 0.070724785f, 0.08426852f, 0.10392171f, 0.11283478f,
                  0.11283794f})
    p = xsimd::fma(p, t, B(c));
  q = t * p;
  e = exp_nonpositive((x * x) * B(-0.5f));
}
// x·Φ(x) = (x·e)·q for x < 0: x·e first, since Φ itself is subnormal below x ≈ −13.0 while
// x·Φ(x) is still normal, and the pool's threads flush subnormals to zero. x·(1 − e·q) for x ≥ 0,
// which keeps gelu(−0.0) = −0.0 and gelu(∞) = ∞.
template <class B>
SEQLAB_SIMD_INLINE B gelu_erf_float(B x) {
  B e, q;
  gelu_erfc_parts(x, e, q);
  return xsimd::select(x < B(0.f), (x * e) * q, x * (B(1.f) - e * q));
}
// Φ(x), setting e = e^(−x²/2).
template <class B>
SEQLAB_SIMD_INLINE B gelu_cdf(B x, B& e) {
  B q;
  gelu_erfc_parts(x, e, q);
  const B half_erfc = e * q;
  return xsimd::select(x < B(0.f), half_erfc, B(1.f) - half_erfc);
}

// erf(x/√2) in double with xsimd::erf, whose rational tail gives inf/inf = NaN once |x| is so
// large that x² overflows (DBL_MAX). erf(±6) is ±1 in double (erfc 6 ≈ 2e-17 < ulp(1)/2), so
// clamping to [−6, 6] changes nothing else; a NaN x still gives NaN through the factor x.
template <class B>
SEQLAB_SIMD_INLINE B erf_of_x_over_sqrt2(B x) {
  using T = typename B::value_type;
  return xsimd::erf(xsimd::clip(x * B(T(0.7071067811865476)), B(T(-6)), B(T(6))));
}

// y[i] = f(x[i]) (Unary) or dx[i] = g[i] · f(x[i]) (GELU's backward) over n elements, every one
// through the vector code f: the last partial vector goes through a zero-padded buffer instead of
// a scalar loop, so an element's result never depends on where a chunk of the pool's split ends
// (a scalar tail of float GELU, ½x(1 + erf), cancelled near x = −3.6 and was 1e-4 off there, only
// at the elements that happened to end a chunk). Chains = 2: two vectors per iteration.
template <class B, int Chains, class F>
SEQLAB_SIMD_INLINE void map_padded(F f, const typename B::value_type* x, typename B::value_type* y, int64_t n,
                                   const typename B::value_type* g = nullptr) {
  using T = typename B::value_type;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  auto out = [&](B v, int64_t j) SEQLAB_SIMD_LAMBDA { return g ? B::load_unaligned(g + j) * v : v; };
  int64_t j = 0;
  if constexpr (Chains == 2)
    for (; j + 2 * W <= n; j += 2 * W) {
      const B v0 = f(B::load_unaligned(x + j)), v1 = f(B::load_unaligned(x + j + W));
      out(v0, j).store_unaligned(y + j);
      out(v1, j + W).store_unaligned(y + j + W);
    }
  for (; j + W <= n; j += W) out(f(B::load_unaligned(x + j)), j).store_unaligned(y + j);
  if (j < n) {
    alignas(64) T xb[W] = {}, gb[W] = {};
    std::copy(x + j, x + n, xb);
    B v = f(B::load_aligned(xb));
    if (g) {
      std::copy(g + j, g + n, gb);
      v = v * B::load_aligned(gb);
    }
    v.store_aligned(xb);
    std::copy(xb, xb + (n - j), y + j);
  }
}

// GELU's backward, dx = g · dy/dx (formulas in cpp/src/ops/activation.cpp).
template <class Arch, class T>
void GeluBackwardKernel::operator()(Arch, const T* g, const T* x, T* dx, int64_t n, bool approx) const noexcept {
  using B = xsimd::batch<T, Arch>;
  const T k = T(0.7978845608028654), c = T(0.044715);  // √(2/π), the cubic term
  const T inv_sqrt_2pi = T(0.3989422804014327);
  if (approx) {
    map_padded<B, 1>([&](B v) SEQLAB_SIMD_LAMBDA {
      const B v2 = v * v;
      const B th = xsimd::tanh(B(k) * xsimd::fma(B(c) * v2, v, v));
      return B(T(0.5)) * ((B(T(1)) + th) + v * (B(T(1)) - th * th) * B(k) * xsimd::fma(B(T(3) * c), v2, B(T(1))));
    }, x, dx, n, g);
  } else if constexpr (std::is_same_v<T, float>) {
    // dy/dx = Φ(x) + x φ(x), φ(x) = e^(−x²/2)/√(2π): the e^(−x²/2) that Φ's erfc computed;
    // two independent chains per iteration, as UnaryKernel
    map_padded<B, 2>([&](B v) SEQLAB_SIMD_LAMBDA {
      B e;
      const B cdf = gelu_cdf(v, e);
      return xsimd::fma(v * e, B(inv_sqrt_2pi), cdf);
    }, x, dx, n, g);
  } else {
    map_padded<B, 1>([&](B v) SEQLAB_SIMD_LAMBDA {
      const B cdf = B(T(0.5)) * (B(T(1)) + erf_of_x_over_sqrt2(v));
      return xsimd::fma(v * exp_nonpositive(B(T(-0.5)) * v * v), B(inv_sqrt_2pi), cdf);
    }, x, dx, n, g);
  }
}

template <class Arch, class T>
void UnaryKernel::operator()(Arch, VecOp op, const T* x, T* y, int64_t n) const noexcept {
  using B = xsimd::batch<T, Arch>;
  // The switch is outside the loops: one tight loop per op. (map_padded's loops work on local
  // copies of x, y and the index: through a lambda's captured references GCC reloaded all three
  // from the stack on every iteration, which made relu twice torch's time; perf annotate.)
  // Two vectors per iteration (Chains = 2): two independent chains for the out-of-order core, 3%
  // faster for the float erf GELU on Zen 3, 13% slower for the tanh GELU (measured), so per op.
  const B one(T(1)), half(T(0.5)), zero(T(0));
  const T k_tanh = T(0.7978845608028654), c = T(0.044715);      // √(2/π), GELU's cubic term
  switch (op) {
    case VecOp::Exp: map_padded<B, 1>([](B v) { return xsimd::exp(v); }, x, y, n); break;
    case VecOp::Log: map_padded<B, 1>([](B v) { return xsimd::log(v); }, x, y, n); break;
    case VecOp::Tanh: map_padded<B, 1>([](B v) { return xsimd::tanh(v); }, x, y, n); break;
    case VecOp::Sigmoid: map_padded<B, 1>([&](B v) { return one / (one + xsimd::exp(-v)); }, x, y, n); break;
    case VecOp::Relu:
      // v < 0 ? 0 : v, not v > 0 ? v : 0: NaN must come out as NaN, as in PyTorch
      map_padded<B, 1>([&](B v) { return xsimd::select(v < zero, zero, v); }, x, y, n);
      break;
    case VecOp::GeluErf:
      if constexpr (std::is_same_v<T, float>)
        map_padded<B, 2>([](B v) SEQLAB_SIMD_LAMBDA { return gelu_erf_float(v); }, x, y, n);
      else
        map_padded<B, 1>([&](B v) { return half * v * (one + erf_of_x_over_sqrt2(v)); }, x, y, n);
      break;
    case VecOp::Silu: map_padded<B, 1>([&](B v) { return v / (one + xsimd::exp(-v)); }, x, y, n); break;
    case VecOp::GeluTanh:
      map_padded<B, 1>([&](B v) { return half * v * (one + xsimd::tanh(B(k_tanh) * (v + B(c) * v * v * v))); }, x, y,
                       n);
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

// acc[j] += Σ_{r<R} x[r·ld + j] for j < width: a sum over a dim that is not the last, as a
// vectorised accumulation of whole rows (not a strided walk per column). Blocks of 64 rows add
// up in registers in T, strips of 4 vectors wide; the block sums add into acc in double.
template <class Arch, class T>
void ColumnSumKernel::operator()(Arch, const T* x, int64_t R, int64_t ld, int64_t width, double* acc) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  constexpr int64_t kRows = 64;
  alignas(64) T lanes[4 * W];
  for (int64_t r0 = 0; r0 < R; r0 += kRows) {
    const int64_t r1 = std::min(R, r0 + kRows);
    int64_t j = 0;
    for (; j + 4 * W <= width; j += 4 * W) {
      B a0(T(0)), a1(T(0)), a2(T(0)), a3(T(0));
      for (int64_t r = r0; r < r1; ++r) {
        const T* row = x + r * ld + j;
        a0 += B::load_unaligned(row);
        a1 += B::load_unaligned(row + W);
        a2 += B::load_unaligned(row + 2 * W);
        a3 += B::load_unaligned(row + 3 * W);
      }
      a0.store_aligned(lanes);
      a1.store_aligned(lanes + W);
      a2.store_aligned(lanes + 2 * W);
      a3.store_aligned(lanes + 3 * W);
      for (int64_t k = 0; k < 4 * W; ++k) acc[j + k] += lanes[k];
    }
    for (; j + W <= width; j += W) {
      B a0(T(0));
      for (int64_t r = r0; r < r1; ++r) a0 += B::load_unaligned(x + r * ld + j);
      a0.store_aligned(lanes);
      for (int64_t k = 0; k < W; ++k) acc[j + k] += lanes[k];
    }
    for (; j < width; ++j) {
      T a = 0;
      for (int64_t r = r0; r < r1; ++r) a += x[r * ld + j];
      acc[j] += a;
    }
  }
}

template <class Arch, class T>
void BinaryKernel::operator()(Arch, BinOp op, const T* a, const T* b, bool b_is_scalar, T alpha, T* y, int64_t n,
                              int64_t rows) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  const B al(alpha);
  // One loop per case keeps each inner loop free of branches. rows > 1: b is one row of n,
  // repeated over the rows of a and y.
  // Local copies of the pointers and n, as in UnaryKernel: no reloads through the captures.
  auto run = [&](auto f_vec, auto f_scalar) {
    const T* as = a;
    const T* bs = b;
    T* ys = y;
    const int64_t len = n;
    if (b_is_scalar) {
      const T b0 = bs[0];
      const B bv(b0);
      int64_t i = 0;
      for (; i + W <= len; i += W) f_vec(B::load_unaligned(as + i), bv).store_unaligned(ys + i);
      for (; i < len; ++i) ys[i] = f_scalar(as[i], b0);
      return;
    }
    for (int64_t r = 0; r < rows; ++r) {
      const T* ar = as + r * len;
      T* yr = ys + r * len;
      int64_t i = 0;
      for (; i + W <= len; i += W) f_vec(B::load_unaligned(ar + i), B::load_unaligned(bs + i)).store_unaligned(yr + i);
      for (; i < len; ++i) yr[i] = f_scalar(ar[i], bs[i]);
    }
  };
  switch (op) {
    case BinOp::Add: run([&](B x, B z) { return xsimd::fma(al, z, x); }, [&](T x, T z) { return x + alpha * z; }); break;
    case BinOp::Mul: run([](B x, B z) { return x * z; }, [](T x, T z) { return x * z; }); break;
    case BinOp::Div: run([](B x, B z) { return x / z; }, [](T x, T z) { return x / z; }); break;
  }
}

}  // namespace seqlab::simd
