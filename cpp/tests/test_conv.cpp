// conv2d / conv1d (im2col + GEMM, both GEMM layouts) against the direct seven-loop convolution, their
// gradients against the same loops' adjoint via a dot-product test, and pooling's shapes.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

namespace {
// The reference: y[n, o, i, j] = b[o] + Σ_{c, p, q} w[o, c, p, q] x[n, g*Cg + c, i*s - pad + p*d, ...].
Tensor conv2d_naive(const Tensor& x, const Tensor& w, const Tensor& b, int64_t s, int64_t pad, int64_t d, int64_t G) {
  const int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  const int64_t O = w.shape()[0], Cg = C / G, Og = O / G, kH = w.shape()[2], kW = w.shape()[3];
  const int64_t OH = (H + 2 * pad - d * (kH - 1) - 1) / s + 1, OW = (W + 2 * pad - d * (kW - 1) - 1) / s + 1;
  Tensor y = zeros({N, O, OH, OW}, Dtype::Float64);
  const double *px = x.data<double>(), *pw = w.data<double>(), *pb = b.data<double>();
  double* py = y.data<double>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          double acc = pb[o];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t p = 0; p < kH; ++p)
              for (int64_t q = 0; q < kW; ++q) {
                const int64_t h = i * s - pad + p * d, v = j * s - pad + q * d;
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                acc += pw[((o * Cg + c) * kH + p) * kW + q] * px[((n * C + o / Og * Cg + c) * H + h) * W + v];
              }
          py[((n * O + o) * OH + i) * OW + j] = acc;
        }
  return y;
}
}  // namespace

TEST(Conv, Conv2dMatchesTheDirectLoops) {
  manual_seed(0);
  // (N, C, H, W, O, k, stride, pad, dilation, groups): a per-sample GEMM case and a batched one
  for (auto [N, C, H, W, O, k, s, p, d, G] : std::vector<std::array<int64_t, 10>>{
           {3, 4, 9, 8, 6, 3, 1, 1, 1, 2}, {4, 2, 5, 4, 2, 2, 2, 1, 2, 1}, {2, 16, 12, 12, 32, 3, 1, 1, 1, 1}}) {
    Tensor x = randn({N, C, H, W}, Dtype::Float64), w = randn({O, C / G, k, k}, Dtype::Float64);
    Tensor b = randn({O}, Dtype::Float64);
    Tensor y = conv2d(x, w, b, {s}, {p}, {d}, G), ref = conv2d_naive(x, w, b, s, p, d, G);
    ASSERT_EQ(y.shape(), ref.shape());
    for (int64_t i = 0; i < y.numel(); ++i) EXPECT_NEAR(y.data<double>()[i], ref.data<double>()[i], 1e-10);
  }
}

TEST(Conv, BackwardIsTheAdjointOfTheForward) {
  // <dy, conv(x + e dx)> - <dy, conv(x)> = e <dx_grad, dx>: linear in x, so exact up to rounding.
  manual_seed(1);
  for (int64_t N : {1, 3}) {
    Tensor x = randn({N, 4, 7, 6}, Dtype::Float64).set_requires_grad(true);
    Tensor w = randn({6, 2, 3, 2}, Dtype::Float64).set_requires_grad(true);
    Tensor y = conv2d(x, w, Tensor(), {2, 1}, {1, 0}, {1, 2}, 2);
    Tensor dy = randn(y.shape(), Dtype::Float64);
    sum(mul(y, dy)).backward();
    Tensor dx = randn(x.shape(), Dtype::Float64), dw = randn(w.shape(), Dtype::Float64);
    NoGradGuard no_grad;
    const double lhs = sum(mul(conv2d(dx, w.detach(), Tensor(), {2, 1}, {1, 0}, {1, 2}, 2), dy)).item<double>();
    EXPECT_NEAR(lhs, sum(mul(x.grad(), dx)).item<double>(), 1e-9);
    const double lhs_w = sum(mul(conv2d(x.detach(), dw, Tensor(), {2, 1}, {1, 0}, {1, 2}, 2), dy)).item<double>();
    EXPECT_NEAR(lhs_w, sum(mul(w.grad(), dw)).item<double>(), 1e-9);
  }
}

TEST(Conv, Conv1dIsConv2dWithOneRow) {
  manual_seed(2);
  Tensor x = randn({2, 3, 11}), w = randn({4, 3, 4}), b = randn({4});
  Tensor y1 = conv1d(x, w, b, {1}, ConvPadding::same, {2});
  Tensor y2 = conv2d(unsqueeze(x, 2), unsqueeze(w, 2), b, {1}, ConvPadding::same, {1, 2});
  ASSERT_EQ(y1.shape(), (Shape{2, 4, 11}));
  for (int64_t i = 0; i < y1.numel(); ++i) EXPECT_FLOAT_EQ(y1.data<float>()[i], y2.data<float>()[i]);
}

TEST(Conv, BadShapesThrowNamingTheOp) {
  Tensor x = zeros({2, 3, 8, 8}), w = zeros({6, 1, 5, 5});
  EXPECT_THROW(conv2d(x, w), std::runtime_error);
  EXPECT_THROW(conv2d(zeros({2, 1, 4, 4}), w), std::runtime_error);
  try {
    conv2d(x, w);
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("conv2d"), std::string::npos);
  }
}

TEST(Pool, ShapesAndValues) {
  Tensor x = reshape(arange(0, 16, 1, Dtype::Float32), {1, 1, 4, 4});
  auto [y, idx] = max_pool2d_with_indices(x, {2});
  ASSERT_EQ(y.shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(y.data<float>()[0], 5.f);
  EXPECT_EQ(idx.data<int64_t>()[3], 15);
  Tensor a = avg_pool2d(x, {2});
  EXPECT_FLOAT_EQ(a.data<float>()[0], 2.5f);
  Tensor ad = adaptive_avg_pool1d(reshape(arange(0, 6, 1, Dtype::Float32), {1, 6}), {4});
  ASSERT_EQ(ad.shape(), (Shape{1, 4}));
  EXPECT_FLOAT_EQ(ad.data<float>()[1], 1.5f);  // window [1, 3)
}
