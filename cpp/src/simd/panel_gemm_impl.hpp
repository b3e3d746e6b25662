// The kernel behind panel_gemm.hpp, written once for any xsimd architecture; included only by
// the per-ISA translation units (vec_math_<isa>.cpp), compiled with that ISA's flags.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "simd/panel_gemm.hpp"

namespace seqlab::simd {

namespace panel_detail {

// MR rows of C against one panel (2 registers wide): the MR × 2 accumulators stay in registers
// (MR = 6: 12 accumulators + 2 panel registers + 1 broadcast fit the 16 registers of SSE2/AVX2).
template <int MR, class Arch, class T>
void block(const T* A, int64_t lda, int64_t K, const T* panel, int64_t kstride, T* C, int64_t ldc, int64_t cols,
           bool accumulate) {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t L = static_cast<int64_t>(B::size);
  B acc[MR][2];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = B(T(0));
  for (int64_t k = 0; k < K; ++k) {
    const B b0 = B::load_unaligned(panel + k * kstride), b1 = B::load_unaligned(panel + k * kstride + L);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const B a(A[r * lda + k]);
      acc[r][0] = xsimd::fma(a, b0, acc[r][0]);
      acc[r][1] = xsimd::fma(a, b1, acc[r][1]);
    }
  }
  // The branches sit outside fully unrolled row loops, so the accumulators never leave the
  // registers (a loop with the branch inside made the compiler keep them in memory).
  if (cols == 2 * L) {
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      T* c = C + r * ldc;
      B lo = acc[r][0], hi = acc[r][1];
      if (accumulate) lo += B::load_unaligned(c), hi += B::load_unaligned(c + L);
      lo.store_unaligned(c);
      hi.store_unaligned(c + L);
    }
    return;
  }
  alignas(64) T tmp[MR][2 * L];  // the last panel's columns beyond N are padding
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    acc[r][0].store_aligned(tmp[r]);
    acc[r][1].store_aligned(tmp[r] + L);
  }
  for (int r = 0; r < MR; ++r) {
    T* c = C + r * ldc;
    for (int64_t j = 0; j < cols; ++j) c[j] = accumulate ? c[j] + tmp[r][j] : tmp[r][j];
  }
}

}  // namespace panel_detail

template <class Arch, class T>
void PanelGemmKernel::operator()(Arch, const T* A, int64_t lda, int64_t M, int64_t K, const T* panels, int64_t pstride,
                                 int64_t kstride, int64_t N, int64_t p0, int64_t p1, T* C, int64_t ldc,
                                 bool accumulate) const noexcept {
  constexpr int64_t W = 2 * static_cast<int64_t>(xsimd::batch<T, Arch>::size);
  for (int64_t p = p0; p < p1; ++p) {
    const T* panel = panels + p * pstride;
    const int64_t n0 = p * W, cols = std::min(W, N - n0);
    // Rows in blocks of 6, the last 7–11 split in two near-equal blocks (20 rows: 6 6 4 4, not
    // 6 6 6 2: a 2-row block does half the FMAs per panel load).
    int64_t r = 0;
    auto block = [&](auto mr) {  // mr: std::integral_constant<int, rows>
      panel_detail::block<decltype(mr)::value, Arch>(A + r * lda, lda, K, panel, kstride, C + r * ldc + n0, ldc,
                                                     cols, accumulate);
      r += mr;
    };
    while (r < M) {
      const int64_t rest = M - r, rows = rest >= 12 || rest <= 6 ? std::min<int64_t>(6, rest) : (rest + 1) / 2;
      switch (rows) {
        case 6: block(std::integral_constant<int, 6>{}); break;
        case 5: block(std::integral_constant<int, 5>{}); break;
        case 4: block(std::integral_constant<int, 4>{}); break;
        case 3: block(std::integral_constant<int, 3>{}); break;
        case 2: block(std::integral_constant<int, 2>{}); break;
        default: block(std::integral_constant<int, 1>{}); break;
      }
    }
  }
}

template <class Arch, class T>
int64_t PanelWidthKernel::operator()(Arch, T) const noexcept {
  return 2 * static_cast<int64_t>(xsimd::batch<T, Arch>::size);
}

}  // namespace seqlab::simd
