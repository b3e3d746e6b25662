// KERPLE (Chi et al. 2022, "KERPLE: Kernelized Relative Positional Embedding for Length
// Extrapolation", §4): a conditionally positive definite kernel of the distance, shifted into a
// bias per head, s_ij += b_h(|i − j|) with
//   log kernel:    b_h(x) = −r1_h · log(1 + r2_h · x)
//   power kernel:  b_h(x) = −r1_h · x^{r2_h},  0 < r2_h ≤ 2
// r1 = bias_p and r2 = bias_a learned per head (the names of the authors' code), used clamped to
// ≥ 0.01 (and r2 ≤ 2 for the power kernel), as the authors clamp them before each use. A bias table
// (H, R) read at row |d|, built by ordinary ops so the gradients reach r1 and r2.
// Options: num_heads, kernel ("log" or "power"). Parameters bias_p, bias_a (H).
// Tests: tests/test_positional.py (the formula in torch ops, gradcheck, KV-cache generation).
#include <algorithm>
#include <cstdlib>

#include "ops/positional/scheme.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::positional_detail {
namespace {

constexpr double kMinParameter = 0.01;  // the authors' eps

std::optional<double> kerple_tables(const SchemeContext& ctx, attention_detail::Relative& rel) {
  ctx.require_heads();
  const int64_t H = ctx.H;
  const std::string kernel = ctx.option_string("kernel", "log");
  SEQLAB_CHECK(kernel == "log" || kernel == "power", kOp, ": the kerple scheme's kernel must be 'log' or 'power', got '",
               kernel, "'");
  const bool power = kernel == "power";
  const Tensor r1 = reshape(clamp(ctx.param("bias_p", {H}), kMinParameter, std::nullopt), {H, 1});
  const Tensor r2 = reshape(clamp(ctx.param("bias_a", {H}), kMinParameter, power ? std::optional<double>(2.0)
                                                                                 : std::nullopt), {H, 1});
  rel.index = ctx.distance_index([](int64_t d) { return std::abs(d); });
  const int64_t R = std::max<int64_t>(1, std::max(ctx.L + ctx.off, ctx.S));
  // b_h(0) = 0 for both kernels; x^{r2} is computed from x = 1 on as exp(r2 · log x), whose
  // gradient in r2 at x = 0 would be 0 · log 0 = NaN.
  const Tensor x = reshape(arange(1.0, static_cast<double>(R), 1.0, ctx.dtype), {1, R - 1});
  const Tensor kernel_x = power ? exp(mul(r2, log(x))) : log(add(scalar_tensor(1.0, ctx.dtype), mul(r2, x)));
  const Tensor far = neg(mul(r1, kernel_x));  // (H, R − 1)
  rel.bias = contiguous(cat({zeros({H, 1}, ctx.dtype), far}, 1));
  return std::nullopt;
}

const SchemeRegistration kKerple{"kerple", {kerple_tables, nullptr}};

}  // namespace
}  // namespace seqlab::positional_detail
