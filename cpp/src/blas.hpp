// The one GEMM entry point: C = alpha * op(A) op(B) + beta * C, row-major, op = transpose or
// not. float/double go to OpenBLAS (scipy-openblas32), single-threaded, large products split in
// blocks over seqlab's pool; the integer types (int64, int32, int16,
// int8, uint8) to a blocked loop that wraps as torch's; the test reference is the naive loop beside it.
#pragma once
#include <cstdint>

namespace seqlab {

template <typename T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc);

// The reference: three loops, no blocking. Used by the C++ tests.
template <typename T>
void gemm_naive(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
                const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      T acc = 0;
      for (int64_t k = 0; k < K; ++k) {
        const T a = trans_a ? A[k * lda + i] : A[i * lda + k];
        const T b = trans_b ? B[j * ldb + k] : B[k * ldb + j];
        acc += a * b;
      }
      C[i * ldc + j] = alpha * acc + (beta == T(0) ? T(0) : beta * C[i * ldc + j]);
    }
}

}  // namespace seqlab
