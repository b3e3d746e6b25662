// Run-time dispatch of panel_gemm.hpp's kernel (instantiated in vec_math_<isa>.cpp).
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
  extern template int64_t PanelWidthKernel::operator()<A, double>(A, double) const noexcept;
SEQLAB_EXTERN_PANEL(xsimd::avx512f)
SEQLAB_EXTERN_PANEL(xsimd::fma3<xsimd::avx2>)
SEQLAB_EXTERN_PANEL(xsimd::sse2)

namespace {
auto& gemm_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(PanelGemmKernel{});
  return d;
}
auto& width_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(PanelWidthKernel{});
  return d;
}
}  // namespace

int64_t panel_width(bool is_double) { return is_double ? width_dispatcher()(0.0) : width_dispatcher()(0.0f); }

void panel_gemm(const float* A, int64_t lda, int64_t M, int64_t K, const float* panels, int64_t N, int64_t p0,
                int64_t p1, float* C, int64_t ldc, bool accumulate) {
  static const int64_t w = panel_width(false);
  gemm_dispatcher()(A, lda, M, K, panels, K * w, w, N, p0, p1, C, ldc, accumulate);
}
void panel_gemm(const double* A, int64_t lda, int64_t M, int64_t K, const double* panels, int64_t N, int64_t p0,
                int64_t p1, double* C, int64_t ldc, bool accumulate) {
  static const int64_t w = panel_width(true);
  gemm_dispatcher()(A, lda, M, K, panels, K * w, w, N, p0, p1, C, ldc, accumulate);
}
void strided_gemm(const float* A, int64_t lda, int64_t M, int64_t K, const float* B, int64_t ldb, int64_t N, float* C,
                  int64_t ldc, bool accumulate) {
  static const int64_t w = panel_width(false);
  gemm_dispatcher()(A, lda, M, K, B, w, ldb, N, 0, N / w, C, ldc, accumulate);
}
void strided_gemm(const double* A, int64_t lda, int64_t M, int64_t K, const double* B, int64_t ldb, int64_t N,
                  double* C, int64_t ldc, bool accumulate) {
  static const int64_t w = panel_width(true);
  gemm_dispatcher()(A, lda, M, K, B, w, ldb, N, 0, N / w, C, ldc, accumulate);
}

}  // namespace seqlab::simd
