// GEMM through OpenBLAS. Chosen in DESIGN.md ("BLAS"): PyPI's scipy-openblas32 (0.3.3x,
// DYNAMIC_ARCH) picks the right kernels on every x86 CPU at run time, where Debian's
// 0.3.21 misdetected a Xeon as "Prescott" and ran 6x slower.
#include "blas.hpp"

#include <cblas.h>

namespace seqlab {

namespace {
// BLAS refuses the leading dimensions of empty operands: an empty product is no work, and
// K = 0 leaves beta C.
template <typename T>
bool trivial(int64_t M, int64_t N, int64_t K, T beta, T* C, int64_t ldc) {
  if (M == 0 || N == 0) return true;
  if (K != 0) return false;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == T(0) ? T(0) : beta * C[i * ldc + j];
  return true;
}
}  // namespace

// A single row of C (M = 1, as an RNN step at batch 1) is a matrix-vector product, c = op(B)ᵀ a:
// OpenBLAS's gemv is several times faster there than its gemm, which still packs both operands.
// The row a is A's only row, or A's only column when A is transposed (stride lda).
static void gemv_row(bool ta, bool tb, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
              int64_t ldb, float beta, float* C) {
  scipy_cblas_sgemv(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, (blasint)(tb ? N : K), (blasint)(tb ? K : N), alpha,
                    B, (blasint)ldb, A, (blasint)(ta ? lda : 1), beta, C, 1);
}
static void gemv_row(bool ta, bool tb, int64_t N, int64_t K, double alpha, const double* A, int64_t lda, const double* B,
              int64_t ldb, double beta, double* C) {
  scipy_cblas_dgemv(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, (blasint)(tb ? N : K), (blasint)(tb ? K : N), alpha,
                    B, (blasint)ldb, A, (blasint)(ta ? lda : 1), beta, C, 1);
}

template <>
void gemm<float>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (trivial(M, N, K, beta, C, ldc)) return;
  if (M == 1) return gemv_row(ta, tb, N, K, alpha, A, lda, B, ldb, beta, C);
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)M,
                    (blasint)N, (blasint)K, alpha, A, (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
}

template <>
void gemm<double>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                  const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  if (trivial(M, N, K, beta, C, ldc)) return;
  if (M == 1) return gemv_row(ta, tb, N, K, alpha, A, lda, B, ldb, beta, C);
  scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)M,
                    (blasint)N, (blasint)K, alpha, A, (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
}

template <>
void gemm<int64_t>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, int64_t alpha, const int64_t* A, int64_t lda,
                   const int64_t* B, int64_t ldb, int64_t beta, int64_t* C, int64_t ldc) {
  gemm_naive(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace seqlab
