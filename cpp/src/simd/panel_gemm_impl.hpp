// The kernel behind panel_gemm.hpp, written once for any xsimd architecture; included only by
// the per-ISA translation units (vec_math_<isa>.cpp), compiled with that ISA's flags.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <xsimd/xsimd.hpp>

#include "simd/panel_gemm.hpp"

namespace seqlab::simd {

namespace panel_detail {

// The register tile per instruction set: MR rows of C by NR registers of columns stay in
// registers while a panel (NR registers wide) streams through them. Sized to the register file:
//   SSE2 / AVX2, 16 registers: 6 × 2 = 12 accumulators + 2 panel registers + 1 broadcast;
//   AVX-512, 32 registers:    12 × 2 = 24 accumulators + 2 panel registers + 1 broadcast. A batch
//   of 20 rows is two blocks of 10 (four at 6 × 2: each panel streamed twice, not four times), and
//   panels stay 32 floats wide, a divisor of the usual head dims (64, 128), so the attention
//   kernel reads V in place. 8 × 3 (48 columns) measured the same on the LSTM layer.
template <class Arch>
struct Tile {
  static constexpr int MR = 6, NR = 2;
};
template <>
struct Tile<xsimd::avx512f> {
  static constexpr int MR = 12, NR = 2;
};

// MR rows of C against one panel (NR registers wide): the MR × NR accumulators stay in registers.
template <int MR, int NR, class Arch, class T>
void block(const T* A, int64_t lda, int64_t K, const T* panel, int64_t kstride, T* C, int64_t ldc, int64_t cols,
           bool accumulate) {
  using B = xsimd::batch<T, Arch>;
  constexpr int64_t L = static_cast<int64_t>(B::size);
  B acc[MR][NR];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < NR; ++c) acc[r][c] = B(T(0));
  for (int64_t k = 0; k < K; ++k) {
    B b[NR];
#pragma GCC unroll 4
    for (int c = 0; c < NR; ++c) b[c] = B::load_unaligned(panel + k * kstride + c * L);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const B a(A[r * lda + k]);
#pragma GCC unroll 4
      for (int c = 0; c < NR; ++c) acc[r][c] = xsimd::fma(a, b[c], acc[r][c]);
    }
  }
  // The branches sit outside fully unrolled row loops, so the accumulators never leave the
  // registers (a loop with the branch inside made the compiler keep them in memory).
  if (cols == NR * L) {
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      T* c = C + r * ldc;
#pragma GCC unroll 4
      for (int j = 0; j < NR; ++j) {
        B v = acc[r][j];
        if (accumulate) v += B::load_unaligned(c + j * L);
        v.store_unaligned(c + j * L);
      }
    }
    return;
  }
  alignas(64) T tmp[MR][NR * L];  // the last panel's columns beyond N are padding
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < NR; ++j) acc[r][j].store_aligned(tmp[r] + j * L);
  for (int r = 0; r < MR; ++r) {
    T* c = C + r * ldc;
    for (int64_t j = 0; j < cols; ++j) c[j] = accumulate ? c[j] + tmp[r][j] : tmp[r][j];
  }
}

// f(std::integral_constant<int, rows>{}) for rows in [1, MAX]: the block sizes as constants.
template <int MAX, class F>
void with_rows(int64_t rows, F&& f) {
  if constexpr (MAX > 1) {
    if (rows < MAX) return with_rows<MAX - 1>(rows, f);
  }
  f(std::integral_constant<int, MAX>{});
}

}  // namespace panel_detail

template <class Arch, class T>
void PanelGemmKernel::operator()(Arch, const T* A, int64_t lda, int64_t M, int64_t K, const T* panels, int64_t pstride,
                                 int64_t kstride, int64_t N, int64_t p0, int64_t p1, T* C, int64_t ldc,
                                 bool accumulate) const noexcept {
  constexpr int MR = panel_detail::Tile<Arch>::MR, NR = panel_detail::Tile<Arch>::NR;
  constexpr int64_t W = NR * static_cast<int64_t>(xsimd::batch<T, Arch>::size);
  for (int64_t p = p0; p < p1; ++p) {
    const T* panel = panels + p * pstride;
    const int64_t n0 = p * W, cols = std::min(W, N - n0);
    // Rows in blocks of MR, the last MR+1 .. 2·MR−1 split in two near-equal blocks (20 rows at
    // MR = 6: 6 6 4 4, not 6 6 6 2: a 2-row block does a third of the FMAs per panel load).
    int64_t r = 0;
    while (r < M) {
      const int64_t rest = M - r, rows = rest >= 2 * MR || rest <= MR ? std::min<int64_t>(MR, rest) : (rest + 1) / 2;
      panel_detail::with_rows<MR>(rows, [&](auto mr) {
        panel_detail::block<decltype(mr)::value, NR, Arch>(A + r * lda, lda, K, panel, kstride, C + r * ldc + n0, ldc,
                                                          cols, accumulate);
      });
      r += rows;
    }
  }
}

template <class Arch, class T>
int64_t PanelWidthKernel::operator()(Arch, T) const noexcept {
  return panel_detail::Tile<Arch>::NR * static_cast<int64_t>(xsimd::batch<T, Arch>::size);
}

template <class Arch>
std::pair<int, int> PanelTileKernel::operator()(Arch) const noexcept {
  return {panel_detail::Tile<Arch>::MR, panel_detail::Tile<Arch>::NR};
}

}  // namespace seqlab::simd
