// Run-time dispatch of panel_gemm.hpp's kernel (instantiated in vec_math_<isa>.cpp) to simd::active_isa().
#include "simd/panel_gemm.hpp"

#include "simd/archs.hpp"

namespace seqlab::simd {

#define SEQLAB_EXTERN_PANEL(A)                                                                                       \
  extern template void PanelGemmKernel::operator()<A, float>(A, const float*, int64_t, int64_t, int64_t, const float*, \
                                                             int64_t, int64_t, int64_t, int64_t, int64_t, float*,     \
                                                             int64_t, bool) const noexcept;                          \
  extern template void PanelGemmKernel::operator()<A, double>(A, const double*, int64_t, int64_t, int64_t,           \
                                                              const double*, int64_t, int64_t, int64_t, int64_t,     \
                                                              int64_t, double*, int64_t, bool) const noexcept;       \
  extern template int64_t PanelWidthKernel::operator()<A, float>(A, float) const noexcept;                           \
  extern template int64_t PanelWidthKernel::operator()<A, double>(A, double) const noexcept;                          \
  extern template std::pair<int, int> PanelTileKernel::operator()<A>(A) const noexcept;
SEQLAB_EXTERN_PANEL(ArchAvx512)
SEQLAB_EXTERN_PANEL(ArchAvx2)
SEQLAB_EXTERN_PANEL(ArchSse2)


int64_t panel_width(bool is_double) {
  return is_double ? dispatch(PanelWidthKernel{}, 0.0) : dispatch(PanelWidthKernel{}, 0.0f);
}

std::pair<int, int> panel_tile() { return dispatch(PanelTileKernel{}); }

void panel_gemm(const float* A, int64_t lda, int64_t M, int64_t K, const float* panels, int64_t N, int64_t p0,
                int64_t p1, float* C, int64_t ldc, bool accumulate) {
  // The ISA read once per call (not cached: SEQLAB_ISA's cap can change between calls).
  const Isa isa = active_isa();
  const int64_t w = dispatch_to(isa, PanelWidthKernel{}, 0.0f);
  dispatch_to(isa, PanelGemmKernel{}, A, lda, M, K, panels, K * w, w, N, p0, p1, C, ldc, accumulate);
}
void panel_gemm(const double* A, int64_t lda, int64_t M, int64_t K, const double* panels, int64_t N, int64_t p0,
                int64_t p1, double* C, int64_t ldc, bool accumulate) {
  const Isa isa = active_isa();
  const int64_t w = dispatch_to(isa, PanelWidthKernel{}, 0.0);
  dispatch_to(isa, PanelGemmKernel{}, A, lda, M, K, panels, K * w, w, N, p0, p1, C, ldc, accumulate);
}
void strided_gemm(const float* A, int64_t lda, int64_t M, int64_t K, const float* B, int64_t ldb, int64_t N, float* C,
                  int64_t ldc, bool accumulate) {
  const Isa isa = active_isa();
  const int64_t w = dispatch_to(isa, PanelWidthKernel{}, 0.0f);
  dispatch_to(isa, PanelGemmKernel{}, A, lda, M, K, B, w, ldb, N, 0, N / w, C, ldc, accumulate);
}
void strided_gemm(const double* A, int64_t lda, int64_t M, int64_t K, const double* B, int64_t ldb, int64_t N,
                  double* C, int64_t ldc, bool accumulate) {
  const Isa isa = active_isa();
  const int64_t w = dispatch_to(isa, PanelWidthKernel{}, 0.0);
  dispatch_to(isa, PanelGemmKernel{}, A, lda, M, K, B, w, ldb, N, 0, N / w, C, ldc, accumulate);
}

}  // namespace seqlab::simd
