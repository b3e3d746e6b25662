// softmax and log_softmax forward and backward, written once for any xsimd architecture and
// compiled per ISA (vec_math_<isa>.cpp), as vec_math_impl.hpp. Two layouts: contiguous rows (the
// last dim: attention, the losses) and columns x[d·ld + j] (any other dim), vectorised along j.
// Follows torch.softmax / torch.log_softmax; tests: tests/test_activation_loss.py, test_softmax_kernels.py.
#pragma once
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>

#include <xsimd/xsimd.hpp>

#include "simd/vec_math_impl.hpp"  // MaxKernel

namespace seqlab::simd {

namespace softmax_detail {

// Float lanes add up blocks of this many elements; the block sums add in double (as SumKernel).
constexpr int64_t kBlock = 4096;

// The shift m of a row: its max, or 0 when the row is all −∞ (then every e^(x − m) is 0 and the
// row comes out 0/0 = NaN, as torch gives it, not from −∞ − (−∞)).
template <class T>
T shift_of(T m) {
  return m == -std::numeric_limits<T>::infinity() ? T(0) : m;
}

// Σ e^(x_d − m), storing e^(x_d − m) in y when y is not null. Two vector chains; the tail goes
// through the same vector exp on a buffer padded with −∞ (e^−∞ = 0), so every element of a row
// is computed alike whatever the row length.
template <class Arch, class T>
double exp_sum_row(const T* x, T m, T* y, int64_t D) {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  const B s(m);
  double total = 0;
  alignas(64) T lanes[W];
  int64_t i = 0;
  for (int64_t start = 0; start < D; start = i) {
    const int64_t end = std::min(D, start + kBlock);
    B a0(T(0)), a1(T(0));
    for (; i + 2 * W <= end; i += 2 * W) {
      const B e0 = exp_nonpositive(B::load_unaligned(x + i) - s);
      const B e1 = exp_nonpositive(B::load_unaligned(x + i + W) - s);
      if (y) {
        e0.store_unaligned(y + i);
        e1.store_unaligned(y + i + W);
      }
      a0 += e0;
      a1 += e1;
    }
    for (; i < end; i += W) {  // one vector or a padded tail
      const int64_t n = std::min(W, end - i);
      std::fill(lanes, lanes + W, -std::numeric_limits<T>::infinity());
      std::copy(x + i, x + i + n, lanes);
      const B e = exp_nonpositive(B::load_aligned(lanes) - s);
      e.store_aligned(lanes);
      if (y) std::copy(lanes, lanes + n, y + i);
      a0 += e;
    }
    (a0 + a1).store_aligned(lanes);
    for (int64_t k = 0; k < W; ++k) total += lanes[k];
  }
  return total;
}

}  // namespace softmax_detail

// m = max_d x,  s = Σ_d e^(x − m),  softmax = e^(x − m) / s,  log_softmax = (x − m) − ln s
// (in that order: m + ln s would lose ln s next to a large m). Three passes over a row that
// stays in L1 for the sizes attention and the losses use: max, exp-and-sum, scale.
template <class Arch, class T>
void SoftmaxKernel::operator()(Arch, const T* x, T* y, int64_t rows, int64_t D, bool log) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * D;
    T* yr = y + r * D;
    const T m = softmax_detail::shift_of(MaxKernel{}(Arch{}, xr, D));
    const double s = softmax_detail::exp_sum_row<Arch, T>(xr, m, log ? nullptr : yr, D);
    int64_t i = 0;
    if (log) {
      const T ls = static_cast<T>(std::log(s));
      const B mv(m), lv(ls);
      for (; i + W <= D; i += W) ((B::load_unaligned(xr + i) - mv) - lv).store_unaligned(yr + i);
      for (; i < D; ++i) yr[i] = (xr[i] - m) - ls;
    } else {
      const T inv = static_cast<T>(1.0 / s);
      const B iv(inv);
      for (; i + W <= D; i += W) (B::load_unaligned(yr + i) * iv).store_unaligned(yr + i);
      for (; i < D; ++i) yr[i] *= inv;
    }
  }
}

// softmax:      dx = y ⊙ (g − Σ_d g⊙y)
// log_softmax:  dx = g − e^y ⊙ Σ_d g      (y = log p, so e^y = p)
template <class Arch, class T>
void SoftmaxBackwardKernel::operator()(Arch, const T* g, const T* y, T* dx, int64_t rows, int64_t D,
                                       bool log) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  alignas(64) T lanes[W];
  for (int64_t r = 0; r < rows; ++r) {
    const T* gr = g + r * D;
    const T* yr = y + r * D;
    T* dr = dx + r * D;
    double acc = 0;  // Σ g⊙y or Σ g: float lanes per block, blocks in double
    int64_t i = 0;
    for (int64_t start = 0; start < D; start = i) {
      const int64_t end = std::min(D, start + softmax_detail::kBlock);
      B a0(T(0)), a1(T(0));
      if (log) {
        for (; i + 2 * W <= end; i += 2 * W) {
          a0 += B::load_unaligned(gr + i);
          a1 += B::load_unaligned(gr + i + W);
        }
      } else {
        for (; i + 2 * W <= end; i += 2 * W) {
          a0 = xsimd::fma(B::load_unaligned(gr + i), B::load_unaligned(yr + i), a0);
          a1 = xsimd::fma(B::load_unaligned(gr + i + W), B::load_unaligned(yr + i + W), a1);
        }
      }
      (a0 + a1).store_aligned(lanes);
      for (int64_t k = 0; k < W; ++k) acc += lanes[k];
      for (; i < end; ++i) acc += log ? gr[i] : gr[i] * yr[i];
    }
    const T a = static_cast<T>(acc);
    const B av(a);
    i = 0;
    if (log) {
      for (; i + W <= D; i += W)
        xsimd::fnma(exp_nonpositive(B::load_unaligned(yr + i)), av, B::load_unaligned(gr + i)).store_unaligned(dr + i);
      for (; i < D; ++i) dr[i] = gr[i] - std::exp(yr[i]) * a;
    } else {
      for (; i + W <= D; i += W)
        (B::load_unaligned(yr + i) * (B::load_unaligned(gr + i) - av)).store_unaligned(dr + i);
      for (; i < D; ++i) dr[i] = yr[i] * (gr[i] - a);
    }
  }
}

// A vector of n <= W values from p, the other lanes `fill`, and back: the last, partial vector of
// a column range goes through the same vector code as the others, so that a column's result does
// not depend on where the pool split the columns.
template <class B, class T>
B load_part(const T* p, int64_t n, T fill) {
  if (n == static_cast<int64_t>(B::size)) return B::load_unaligned(p);
  alignas(64) T buf[B::size];
  std::fill(buf, buf + B::size, fill);
  std::copy(p, p + n, buf);
  return B::load_aligned(buf);
}
template <class B, class T>
void store_part(const B& v, T* p, int64_t n) {
  if (n == static_cast<int64_t>(B::size)) return v.store_unaligned(p);
  alignas(64) T buf[B::size];
  v.store_aligned(buf);
  std::copy(buf, buf + n, p);
}

// The same along a dim that is not the last: the columns x[d·ld + j] (j < width) are
// vectorised along j, and each pass walks the D rows in memory order. scratch: m and s, 2·width.
template <class Arch, class T>
void SoftmaxColumnsKernel::operator()(Arch, const T* x, T* y, int64_t D, int64_t ld, int64_t width, bool log,
                                      T* scratch) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  T* m = scratch;
  T* s = scratch + width;
  // m_j = max_d x_dj
  std::copy(x, x + width, m);
  for (int64_t d = 1; d < D; ++d) {
    const T* xr = x + d * ld;
    for (int64_t j = 0; j < width; j += W) {
      const int64_t n = std::min(W, width - j);
      store_part(xsimd::max(load_part<B>(m + j, n, T(0)), load_part<B>(xr + j, n, T(0))), m + j, n);
    }
  }
  for (int64_t j = 0; j < width; ++j) m[j] = softmax_detail::shift_of(m[j]);
  // s_j = Σ_d e^(x_dj − m_j), e stored in y for softmax
  std::fill(s, s + width, T(0));
  for (int64_t d = 0; d < D; ++d) {
    const T* xr = x + d * ld;
    T* yr = y + d * ld;
    for (int64_t j = 0; j < width; j += W) {
      const int64_t n = std::min(W, width - j);
      const B e = exp_nonpositive(load_part<B>(xr + j, n, T(0)) - load_part<B>(m + j, n, T(0)));
      if (!log) store_part(e, yr + j, n);
      store_part(load_part<B>(s + j, n, T(0)) + e, s + j, n);
    }
  }
  // softmax: y = e / s;  log_softmax: y = (x − m) − ln s
  for (int64_t j = 0; j < width; ++j) s[j] = log ? std::log(s[j]) : T(1) / s[j];
  for (int64_t d = 0; d < D; ++d) {
    const T* xr = x + d * ld;
    T* yr = y + d * ld;
    if (log) {
      for (int64_t j = 0; j < width; ++j) yr[j] = (xr[j] - m[j]) - s[j];
    } else {
      for (int64_t j = 0; j < width; ++j) yr[j] *= s[j];
    }
  }
}

// The backward along columns, as SoftmaxBackwardKernel. scratch: the column sums, width.
template <class Arch, class T>
void SoftmaxColumnsBackwardKernel::operator()(Arch, const T* g, const T* y, T* dx, int64_t D, int64_t ld,
                                              int64_t width, bool log, T* scratch) const noexcept {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t W = static_cast<int64_t>(B::size);
  T* a = scratch;
  // a_j = Σ_d g_dj y_dj (softmax) or Σ_d g_dj (log_softmax)
  std::fill(a, a + width, T(0));
  for (int64_t d = 0; d < D; ++d) {
    const T* gr = g + d * ld;
    const T* yr = y + d * ld;
    for (int64_t j = 0; j < width; j += W) {
      const int64_t n = std::min(W, width - j);
      const B gv = load_part<B>(gr + j, n, T(0)), av = load_part<B>(a + j, n, T(0));
      store_part(log ? gv + av : xsimd::fma(gv, load_part<B>(yr + j, n, T(0)), av), a + j, n);
    }
  }
  for (int64_t d = 0; d < D; ++d) {
    const T* gr = g + d * ld;
    const T* yr = y + d * ld;
    T* dr = dx + d * ld;
    for (int64_t j = 0; j < width; j += W) {
      const int64_t n = std::min(W, width - j);
      const B gv = load_part<B>(gr + j, n, T(0)), yv = load_part<B>(yr + j, n, T(0));
      const B av = load_part<B>(a + j, n, T(0));
      store_part(log ? xsimd::fnma(exp_nonpositive(yv), av, gv) : yv * (gv - av), dr + j, n);
    }
  }
}

}  // namespace seqlab::simd
