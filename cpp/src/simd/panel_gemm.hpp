// Small products against a matrix packed once: C (M × N) = or += A (M × K) · B (K × N), with B
// stored as column panels of `panel_width()` columns (K × w each, zero-padded), so that a
// recurrent layer packs W_hh once per call instead of once per time step (OpenBLAS packs both
// operands of every call), and splits each step's product over seqlab's pool by panels
// (OpenBLAS's own split of a 20-row product scales poorly). The micro-kernel keeps a block of C
// in registers (MR rows × NR registers, sized per instruction set: 6 × 2 for the 16 registers of
// SSE2/AVX2, 12 × 2 for AVX-512's 32) and streams the panel through them.
// Dispatched at run time like vec_math.hpp (the kernel in panel_gemm_impl.hpp is compiled per ISA).
#pragma once
#include <cstdint>
#include <utility>

namespace seqlab::simd {

int64_t panel_width(bool is_double);  // columns per panel: NR registers of the dispatched ISA
std::pair<int, int> panel_tile();     // (MR, NR) of the dispatched ISA's micro-kernel

// Pack B, element (k, n) at B[k·stride_k + n·stride_n], into ceil(N / w) panels of K × w.
template <typename T>
void pack_panels(const T* B, int64_t K, int64_t N, int64_t stride_k, int64_t stride_n, int64_t w, T* out) {
  const int64_t P = (N + w - 1) / w;
  for (int64_t p = 0; p < P; ++p)
    for (int64_t k = 0; k < K; ++k) {
      T* row = out + (p * K + k) * w;
      for (int64_t c = 0; c < w; ++c) {
        const int64_t n = p * w + c;
        row[c] = n < N ? B[k * stride_k + n * stride_n] : T(0);
      }
    }
}

// C[r, n] (accumulate ? += : =) Σ_k A[r·lda + k] · B(k, n) for r < M and the columns of panels
// [p0, p1) (n < N).
void panel_gemm(const float* A, int64_t lda, int64_t M, int64_t K, const float* panels, int64_t N, int64_t p0,
                int64_t p1, float* C, int64_t ldc, bool accumulate);
void panel_gemm(const double* A, int64_t lda, int64_t M, int64_t K, const double* panels, int64_t N, int64_t p0,
                int64_t p1, double* C, int64_t ldc, bool accumulate);

// C (M × N) (accumulate ? += : =) A (M × K) · B (K × N) for B row-major (element (k, n) at
// B[k·ldb + n]) with N a multiple of panel_width(): the panels are read in place, unpacked (the
// attention kernel's operands that are already row-major blocks: no copy, no memory).
void strided_gemm(const float* A, int64_t lda, int64_t M, int64_t K, const float* B, int64_t ldb, int64_t N, float* C,
                  int64_t ldc, bool accumulate);
void strided_gemm(const double* A, int64_t lda, int64_t M, int64_t K, const double* B, int64_t ldb, int64_t N,
                  double* C, int64_t ldc, bool accumulate);

// Panel p starts at panels + p·pstride and its row k at + k·kstride (packed: K·w and w;
// a row-major B: w and ldb).
struct PanelGemmKernel {
  template <class Arch, class T>
  void operator()(Arch, const T* A, int64_t lda, int64_t M, int64_t K, const T* panels, int64_t pstride,
                  int64_t kstride, int64_t N, int64_t p0, int64_t p1, T* C, int64_t ldc, bool accumulate) const noexcept;
};
struct PanelWidthKernel {
  template <class Arch, class T>
  int64_t operator()(Arch, T) const noexcept;
};
struct PanelTileKernel {
  template <class Arch>
  std::pair<int, int> operator()(Arch) const noexcept;
};

}  // namespace seqlab::simd
