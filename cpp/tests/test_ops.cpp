// Kernels against their references: BLAS GEMM against the naive loop (every transpose
// combination), broadcasting, reductions, the fused cross-entropy against log_softmax + NLL.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "../src/blas.hpp"
#include "../src/simd/panel_gemm.hpp"
#include "seqlab/seqlab.hpp"

using namespace seqlab;

TEST(Gemm, BlasMatchesNaiveForAllTransposes) {
  manual_seed(0);
  const int64_t M = 7, N = 5, K = 9;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Tensor A = randn(ta ? Shape{K, M} : Shape{M, K}, Dtype::Float64);
      Tensor B = randn(tb ? Shape{N, K} : Shape{K, N}, Dtype::Float64);
      Tensor C1 = zeros({M, N}, Dtype::Float64), C2 = zeros({M, N}, Dtype::Float64);
      const int64_t lda = ta ? M : K, ldb = tb ? K : N;
      gemm<double>(ta, tb, M, N, K, 1.0, A.data<double>(), lda, B.data<double>(), ldb, 0.0, C1.data<double>(), N);
      gemm_naive<double>(ta, tb, M, N, K, 1.0, A.data<double>(), lda, B.data<double>(), ldb, 0.0, C2.data<double>(), N);
      for (int64_t i = 0; i < M * N; ++i) EXPECT_NEAR(C1.data<double>()[i], C2.data<double>()[i], 1e-12);
    }
}

TEST(Gemm, ProductsSplitOverThePoolMatchNaive) {
  // Above 2^18 multiply-adds a product is split in blocks of rows (M >= N) or of columns over the
  // pool, one single-threaded BLAS call per block; odd sizes, padded leading dimensions, both
  // transposes, alpha and beta, on 1, 2 and 3 threads.
  manual_seed(5);
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{301, 77, 65}, {23, 517, 61}, {97, 97, 129}})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        const int64_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 5, ldc = N + 2;
        Tensor A = randn({ta ? K : M, lda}, Dtype::Float64), B = randn({tb ? N : K, ldb}, Dtype::Float64);
        Tensor ref = randn({M, ldc}, Dtype::Float64);
        Tensor Af = to_dtype(A, Dtype::Float32), Bf = to_dtype(B, Dtype::Float32), Cf0 = to_dtype(ref, Dtype::Float32);
        gemm_naive<double>(ta, tb, M, N, K, 0.5, A.data<double>(), lda, B.data<double>(), ldb, 2.0, ref.data<double>(),
                           ldc);
        for (int threads : {1, 2, 3}) {
          set_num_threads(threads);
          Tensor Cf = clone(Cf0);
          gemm<float>(ta, tb, M, N, K, 0.5f, Af.data<float>(), lda, Bf.data<float>(), ldb, 2.0f, Cf.data<float>(), ldc);
          for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j)
              ASSERT_NEAR(Cf.data<float>()[i * ldc + j], ref.data<double>()[i * ldc + j], 2e-3)
                  << M << "x" << N << "x" << K << " ta " << ta << " tb " << tb << " threads " << threads;
        }
      }
  set_num_threads(2);
}

TEST(Gemm, RowsOfAnEmptyOrSingleRowProductAreRight) {
  // M = 1 goes to gemv (A's row, or A's column when transposed); K = 0 leaves beta C.
  manual_seed(3);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const int64_t N = 6, K = 4;
      Tensor A = randn({K, 1}, Dtype::Float64), B = randn(tb ? Shape{N, K} : Shape{K, N}, Dtype::Float64);
      Tensor C1 = ones({1, N}, Dtype::Float64), C2 = ones({1, N}, Dtype::Float64);
      const int64_t lda = ta ? 1 : K, ldb = tb ? K : N;
      gemm<double>(ta, tb, 1, N, K, 2.0, A.data<double>(), lda, B.data<double>(), ldb, 0.5, C1.data<double>(), N);
      gemm_naive<double>(ta, tb, 1, N, K, 2.0, A.data<double>(), lda, B.data<double>(), ldb, 0.5, C2.data<double>(), N);
      for (int64_t i = 0; i < N; ++i) EXPECT_NEAR(C1.data<double>()[i], C2.data<double>()[i], 1e-12);
    }
  Tensor C = full({2, 3}, 4.0, Dtype::Float64);
  gemm<double>(false, false, 2, 3, 0, 1.0, nullptr, 1, nullptr, 3, 0.5, C.data<double>(), 3);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(C.data<double>()[i], 2.0);
}

// The integer GEMM against a reference summing in uint64 (exact modulo 2^64, so modulo 2^bits
// after truncation): every transpose, alpha and beta, sizes crossing its 16 x 128 x 512 blocks and
// K not a multiple of its unroll by 4.
template <typename T>
void expect_int_gemm_exact(int64_t M, int64_t N, int64_t K, bool ta, bool tb, T alpha, T beta) {
  std::vector<T> A(M * K), B(K * N), C(M * N), R(M * N);
  uint64_t state = 12345;
  auto next = [&] { state = state * 6364136223846793005ULL + 1442695040888963407ULL; return T(state >> 33); };
  for (auto& x : A) x = next();
  for (auto& x : B) x = next();
  for (int64_t i = 0; i < M * N; ++i) C[i] = R[i] = next();
  const int64_t lda = ta ? M : K, ldb = tb ? K : N;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      uint64_t s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += uint64_t(ta ? A[k * lda + i] : A[i * lda + k]) * uint64_t(tb ? B[j * ldb + k] : B[k * ldb + j]);
      R[i * N + j] = T(uint64_t(alpha) * s + uint64_t(beta) * uint64_t(R[i * N + j]));
    }
  gemm<T>(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), N);
  for (int64_t i = 0; i < M * N; ++i) ASSERT_EQ(C[i], R[i]) << "element " << i << " M=" << M << " N=" << N << " K=" << K;
}

TEST(Gemm, IntegerProductsWrapExactly) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {3, 5, 7}, {17, 530, 131}, {40, 3, 0}}) {
        expect_int_gemm_exact<int8_t>(M, N, K, ta, tb, 1, 0);
        expect_int_gemm_exact<uint8_t>(M, N, K, ta, tb, 3, 2);
        expect_int_gemm_exact<int16_t>(M, N, K, ta, tb, 1, 0);
        expect_int_gemm_exact<int32_t>(M, N, K, ta, tb, -1, 1);
        expect_int_gemm_exact<int64_t>(M, N, K, ta, tb, 1, 0);
      }
}

TEST(Gemm, PanelProductMatchesNaiveForEveryTail) {
  // Rows around every ISA's row block (6 for SSE2/AVX2, 12 for AVX-512) and its split tails, and
  // columns that end inside a panel, at a panel's end and one past it (panels of 4 to 32 columns).
  // main.cpp runs it once per instruction set level the CPU has.
  manual_seed(4);
  for (int64_t M : {1, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 20, 23, 24, 25, 37})
    for (int64_t N : {1, 7, 16, 33, 48, 49, 97}) {
      const int64_t K = 11;
      for (bool dbl : {false, true}) {
        const int64_t w = simd::panel_width(dbl), P = (N + w - 1) / w;
        Tensor A = randn({M, K}, Dtype::Float64), B = randn({N, K}, Dtype::Float64);  // product with Bᵀ
        Tensor ref = zeros({M, N}, Dtype::Float64);
        gemm_naive<double>(false, true, M, N, K, 1.0, A.data<double>(), K, B.data<double>(), K, 0.0,
                           ref.data<double>(), N);
        if (dbl) {
          std::vector<double> panels(P * K * w);
          simd::pack_panels(B.data<double>(), K, N, 1, K, w, panels.data());
          Tensor C = ones({M, N}, Dtype::Float64);
          simd::panel_gemm(A.data<double>(), K, M, K, panels.data(), N, 0, P, C.data<double>(), N, true);
          for (int64_t i = 0; i < M * N; ++i) EXPECT_NEAR(C.data<double>()[i], ref.data<double>()[i] + 1, 1e-12);
        } else {
          Tensor Af = to_dtype(A, Dtype::Float32), Bf = to_dtype(B, Dtype::Float32);
          std::vector<float> panels(P * K * w);
          simd::pack_panels(Bf.data<float>(), K, N, 1, K, w, panels.data());
          Tensor C = zeros({M, N});
          simd::panel_gemm(Af.data<float>(), K, M, K, panels.data(), N, 0, P, C.data<float>(), N, false);
          for (int64_t i = 0; i < M * N; ++i) EXPECT_NEAR(C.data<float>()[i], ref.data<double>()[i], 1e-4);
        }
      }
    }
}

TEST(Ops, MatmulOfTransposedViewNeedsNoCopyAndIsRight) {
  manual_seed(1);
  Tensor a = randn({4, 3}, Dtype::Float64);
  Tensor b = randn({4, 2}, Dtype::Float64);
  Tensor c = matmul(t(a), b);  // (3, 2)
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      double ref = 0;
      for (int64_t k = 0; k < 4; ++k) ref += a.data<double>()[k * 3 + i] * b.data<double>()[k * 2 + j];
      EXPECT_NEAR(c.data<double>()[i * 2 + j], ref, 1e-12);
    }
}

TEST(Ops, BroadcastAddAndShapeErrors) {
  Tensor a = ones({2, 1, 3}), b = full({4, 1}, 2.0);
  Tensor c = add(a, b);
  EXPECT_EQ(c.shape(), (Shape{2, 4, 3}));
  for (int64_t i = 0; i < c.numel(); ++i) EXPECT_EQ(c.data<float>()[i], 3.0f);
  EXPECT_THROW(add(ones({2, 3}), ones({2, 4})), std::runtime_error);
}

TEST(Ops, SumMeanVarOverDims) {
  Tensor x = view(arange(0, 24, 1, Dtype::Float64), {2, 3, 4});
  Tensor s = sum(x, {0, 2});
  EXPECT_EQ(s.shape(), (Shape{3}));
  // sum over i, k of 12 i + 4 j + k = 24*... : j=0 -> (0+12)*4 + 2*(0+1+2+3) = 48 + 12 = 60
  EXPECT_DOUBLE_EQ(s.data<double>()[0], 60.0);
  EXPECT_DOUBLE_EQ(mean(x).item<double>(), 11.5);
  Tensor v = var(x, {2}, 1.0, true);
  EXPECT_EQ(v.shape(), (Shape{2, 3, 1}));
  EXPECT_NEAR(v.data<double>()[0], 5.0 / 3.0, 1e-12);
}

TEST(Ops, CrossEntropyEqualsLogSoftmaxPlusNll) {
  manual_seed(2);
  Tensor z = randn({5, 7}, Dtype::Float64);
  Tensor target = randint(0, 7, {5});
  const double fused = cross_entropy(z, target).item<double>();
  const double composed = nll_loss(log_softmax(z, 1), target).item<double>();
  EXPECT_NEAR(fused, composed, 1e-12);
}

TEST(Ops, SoftmaxIsStableForLargeLogits) {
  Tensor z = full({1, 3}, 1000.0);
  Tensor p = softmax(z, 1);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(p.data<float>()[i], 1.0f / 3.0f, 1e-6);
}

TEST(Ops, RemainderAndFmodAgainstTheirDefinitions) {
  // remainder(a, b) = a - floor(a/b)*b has b's sign, fmod(a, b) = a - trunc(a/b)*b has a's
  manual_seed(4);
  Tensor a = randn({50}, Dtype::Float64) * 10.0, b = randn({50}, Dtype::Float64) + 0.0;
  Tensor r = remainder(a, b), f = fmod(a, b);
  for (int64_t i = 0; i < 50; ++i) {
    const double x = a.data<double>()[i], y = b.data<double>()[i];
    EXPECT_NEAR(r.data<double>()[i], x - std::floor(x / y) * y, 1e-9 * std::abs(x) + 1e-12);
    EXPECT_NEAR(f.data<double>()[i], x - std::trunc(x / y) * y, 1e-9 * std::abs(x) + 1e-12);
  }
  Tensor i = arange(-7, 8, 1, Dtype::Int64), three = scalar_tensor(-3, Dtype::Int64);
  for (int64_t k = 0; k < i.numel(); ++k) {
    const int64_t x = i.data<int64_t>()[k], m = ((x % -3) + -3) % -3;  // Python's x % -3
    EXPECT_EQ(remainder(i, three).data<int64_t>()[k], m);
    EXPECT_EQ(fmod(i, three).data<int64_t>()[k], x % -3);
  }
  EXPECT_THROW(remainder(i, scalar_tensor(0, Dtype::Int64)), std::runtime_error);  // "ZeroDivisionError"
  EXPECT_THROW(fmod(ones({2}, Dtype::Bool), ones({2}, Dtype::Bool)), NotImplementedError);
  EXPECT_EQ(remainder(full({1}, -9.2233720368547758e18, Dtype::Int64), scalar_tensor(-1, Dtype::Int64))
                .data<int64_t>()[0], 0);  // INT64_MIN % -1, which would trap in C++
}

TEST(Ops, RoundingAndInPlaceUnaryKeepTorchsDtypes) {
  Tensor x = arange(-2.5, 3.0, 1.0, Dtype::Float64);  // -2.5 -1.5 -0.5 0.5 1.5 2.5
  const double even[] = {-2, -2, -0, 0, 2, 2};
  for (int64_t k = 0; k < 6; ++k) EXPECT_EQ(round(x).data<double>()[k], even[k]);
  // torch's decimals: nearbyint(x * 100) / 100, and 2.675 * 100 rounds to 267.5, then to even: 2.68
  // (Python's round(2.675, 2), exact in decimal, gives 2.67)
  EXPECT_EQ(round(full({1}, 2.675, Dtype::Float64), 2).item<double>(), 2.68);
  Tensor n = arange(0, 3, 1, Dtype::Int64);
  EXPECT_EQ(floor(n).dtype(), Dtype::Int64);
  EXPECT_EQ(sin(n).dtype(), Dtype::Float32);
  EXPECT_THROW(inplace_unary(n, UnaryOp::Sin), std::runtime_error);
  EXPECT_THROW(frac(n), NotImplementedError);
  inplace_unary(x, UnaryOp::Floor);
  EXPECT_EQ(x.data<double>()[0], -3.0);
}
