// GEMM through OpenBLAS. Chosen in DESIGN.md ("BLAS"): PyPI's scipy-openblas32 (0.3.3x,
// DYNAMIC_ARCH) picks the right kernels on every x86 CPU at run time, where Debian's
// 0.3.21 misdetected a Xeon as "Prescott" and ran 6x slower.
#include "blas.hpp"

#include <cblas.h>

#include "seqlab/parallel.hpp"

#include <algorithm>
#include <vector>

#include "kernel_utils.hpp"

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

// OpenBLAS runs single-threaded (parallel.cpp sets it to 1 thread, once); a product big enough to
// share is split over seqlab's pool instead: C in one block of rows (or of columns when it is wider
// than tall) per thread, one single-threaded BLAS call per block, the blocks claimed by whichever
// thread is free. OpenBLAS's own threads wait for each other at the end of every call (and spin
// while they wait), so on a shared machine, when another process took a core, every GEMM waited for
// the thread it had preempted: with one busy process beside it, a GPT training step ran 4.6x slower
// than on the quiet machine; 1.7x with this split (benchmarks/load.py, DESIGN.md "Threads").
constexpr int64_t kSplitMacs = int64_t(1) << 18;  // smaller products: one call on the caller's thread
constexpr int64_t kBlockMacs = int64_t(1) << 17;  // the least work per block

// Calls call(i0, i1) for `blocks` near-equal ranges of [0, n) over the pool, one range per task.
template <typename F>
void for_blocks(int64_t n, int64_t blocks, F call) {
  parallel_for(blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) call(b * n / blocks, (b + 1) * n / blocks);
  });
}

template <typename T, typename Call>
void split_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb,
                T* C, int64_t ldc, Call call) {
  const int64_t threads = get_num_threads();
  if (M * N * K < kSplitMacs || threads == 1) return call(M, N, A, B, C);
  // One block per thread, no more: every block packs the whole of the other operand (OpenBLAS's
  // threads share one packing), which costs about as much as 30 multiply-adds per element at full
  // speed. Measured on 2 threads (benchmarks/matmul.py, Xeon AVX-512): 2 blocks per thread lost 10%
  // at 1024² and 2048² to the extra packing; one per thread is at OpenBLAS's own threading or above.
  const bool rows = M >= N;
  const int64_t len = rows ? M : N, least = std::max<int64_t>(rows ? 8 : 16, kBlockMacs / ((rows ? N : M) * K));
  const int64_t blocks = std::clamp<int64_t>(len / least, 1, threads);
  if (rows)  // blocks of rows: A's rows [i0, i1) and C's
    for_blocks(M, blocks, [&](int64_t i0, int64_t i1) { call(i1 - i0, N, ta ? A + i0 : A + i0 * lda, B, C + i0 * ldc); });
  else  // blocks of columns: B's columns [j0, j1) and C's
    for_blocks(N, blocks, [&](int64_t j0, int64_t j1) { call(M, j1 - j0, A, tb ? B + j0 * ldb : B + j0, C + j0); });
}

// op(A) op(B) for one block: OpenBLAS's sgemm or dgemm, overloaded as gemv_row is.
static void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                      const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)M,
                    (blasint)N, (blasint)K, alpha, A, (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
}
static void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                      const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)M,
                    (blasint)N, (blasint)K, alpha, A, (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
}

template <typename T>
static void float_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
                       int64_t ldb, T beta, T* C, int64_t ldc) {
  if (trivial(M, N, K, beta, C, ldc)) return;
  if (M == 1) {
    // A matrix-vector product reads each element of B once: it is bound by memory bandwidth, which
    // one core does not saturate, so a large one is split over the pool by C's columns (B's rows,
    // or B's columns when B is not transposed), one single-threaded gemv per block. Measured on 2
    // threads (Xeon AVX-512): GPT-2's LM head, 768 x 50,257, 10.4 ms on one thread, 5.0 split.
    const int64_t threads = get_num_threads();
    const int64_t blocks = N * K < kSplitMacs ? 1 : std::clamp<int64_t>(N / 64, 1, threads);
    if (blocks == 1) return gemv_row(ta, tb, N, K, alpha, A, lda, B, ldb, beta, C);
    return for_blocks(N, blocks, [&](int64_t j0, int64_t j1) {
      gemv_row(ta, tb, j1 - j0, K, alpha, A, lda, tb ? B + j0 * ldb : B + j0, ldb, beta, C + j0);
    });
  }
  split_gemm<T>(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, [&](int64_t m, int64_t n, const T* a, const T* b, T* c) {
    blas_gemm(ta, tb, m, n, K, alpha, a, lda, b, ldb, beta, c, ldc);
  });
}

template <>
void gemm<float>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  float_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

template <>
void gemm<double>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                  const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  float_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// Integer GEMM (torch computes integer products exactly, wrapping modulo 2^bits): no BLAS has
// one, so a blocked loop. Products and sums run in an unsigned type (signed overflow is undefined
// in C++): 16 bits for the 8- and 16-bit types (eight lanes of SSE2's pmullw), else the type's own
// width; arithmetic modulo 2^16, 2^32 or 2^64 truncates to the same bits as modulo 2^bits.
// B is packed once into a contiguous K x N block of that type; C's row blocks are split over the
// pool, and each walks B by KB x NB tiles that stay in cache while its rows reuse them:
//   C[i, j0:j1] += A[i,k] B[k, j0:j1] + ... + A[i,k+3] B[k+3, j0:j1]
// four rows of B per pass over C's row, so C is loaded and stored a quarter as often (3x faster
// than one row per pass for int8). The inner loops vectorise at the x86-64 baseline; measured
// against torch in benchmarks/matmul.py --dtype.
template <typename T>
using int_gemm_acc_t = std::conditional_t<(sizeof(T) <= 2), uint16_t, std::make_unsigned_t<T>>;

template <typename U>
static inline U mul_wrap(U a, U b) {  // a*b mod 2^bits, with no promotion to a signed int
  if constexpr (sizeof(U) < sizeof(unsigned)) return static_cast<U>(static_cast<unsigned>(a) * static_cast<unsigned>(b));
  else return a * b;
}

template <typename T>
static void int_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
                     int64_t ldb, T beta, T* C, int64_t ldc) {
  using U = int_gemm_acc_t<T>;
  if (M == 0 || N == 0) return;
  std::vector<U> Bp(static_cast<size_t>(K * N));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) Bp[k * N + j] = static_cast<U>(tb ? B[j * ldb + k] : B[k * ldb + j]);
  constexpr int64_t KB = 128, NB = 512, MB = 16;
  parallel_for((M + MB - 1) / MB, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, N * K)), [&](int64_t b0, int64_t b1) {
    std::vector<U> acc(static_cast<size_t>(MB * std::min(N, NB)));
    for (int64_t i0 = b0 * MB; i0 < std::min(M, b1 * MB); i0 += MB) {
      const int64_t i1 = std::min(M, i0 + MB);
      for (int64_t j0 = 0; j0 < N; j0 += NB) {
        const int64_t nj = std::min(N, j0 + NB) - j0;
        std::fill(acc.begin(), acc.end(), U(0));
        for (int64_t k0 = 0; k0 < K; k0 += KB) {
          const int64_t k1 = std::min(K, k0 + KB);
          for (int64_t i = i0; i < i1; ++i) {
            U* __restrict c = acc.data() + (i - i0) * nj;
            auto a_at = [&](int64_t k) { return static_cast<U>(ta ? A[k * lda + i] : A[i * lda + k]); };
            int64_t k = k0;
            for (; k + 4 <= k1; k += 4) {
              const U a0 = a_at(k), a1 = a_at(k + 1), a2 = a_at(k + 2), a3 = a_at(k + 3);
              const U* __restrict r0 = Bp.data() + k * N + j0;
              const U* __restrict r1 = r0 + N;
              const U* __restrict r2 = r1 + N;
              const U* __restrict r3 = r2 + N;
              for (int64_t j = 0; j < nj; ++j)
                c[j] = static_cast<U>(c[j] + mul_wrap(a0, r0[j]) + mul_wrap(a1, r1[j]) + mul_wrap(a2, r2[j]) +
                                      mul_wrap(a3, r3[j]));
            }
            for (; k < k1; ++k) {
              const U a = a_at(k);
              const U* __restrict r = Bp.data() + k * N + j0;
              for (int64_t j = 0; j < nj; ++j) c[j] = static_cast<U>(c[j] + mul_wrap(a, r[j]));
            }
          }
        }
        // C = alpha * acc + beta * C   (beta = 0 ignores C, which may be uninitialised)
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t j = 0; j < nj; ++j) {
            T& out = C[i * ldc + j0 + j];
            U v = mul_wrap(static_cast<U>(alpha), acc[(i - i0) * nj + j]);
            if (beta != T(0)) v = static_cast<U>(v + mul_wrap(static_cast<U>(beta), static_cast<U>(out)));
            out = static_cast<T>(v);
          }
      }
    }
  });
}

#define SEQLAB_INT_GEMM(T)                                                                                      \
  template <>                                                                                                   \
  void gemm<T>(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B, \
               int64_t ldb, T beta, T* C, int64_t ldc) {                                                        \
    int_gemm<T>(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);                                          \
  }
SEQLAB_INT_GEMM(int64_t)
SEQLAB_INT_GEMM(int32_t)
SEQLAB_INT_GEMM(int16_t)
SEQLAB_INT_GEMM(int8_t)
SEQLAB_INT_GEMM(uint8_t)
#undef SEQLAB_INT_GEMM

}  // namespace seqlab
