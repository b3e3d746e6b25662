// DA-Transformer (Wu et al. 2021, "DA-Transformer: Distance-aware Transformer"): softmax(relu(q·k)·
// R̂_h(|d|)/√D), R̂_h(x) = (1 + e^{v_h})/(1 + e^{v_h − w_h·x}), a learned sigmoid of the distance per
// head. A multiplier table (H, R) read at row |d|. Options: num_heads. Parameters distance_weight
// (w, H) and sigmoid_shift (v, H). Tests: tests/test_positional.py.
#include <algorithm>
#include <cstdlib>

#include "ops/positional/scheme.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::positional_detail {
namespace {

std::optional<double> da_tables(const SchemeContext& ctx, attention_detail::Relative& rel) {
  ctx.require_heads();
  const int64_t H = ctx.H;
  const Tensor &w = ctx.param("distance_weight", {H}), &v = ctx.param("sigmoid_shift", {H});
  rel.index = ctx.distance_index([](int64_t d) { return std::abs(d); });
  const int64_t R = std::max<int64_t>(1, std::max(ctx.L + ctx.off, ctx.S));
  // R̂_h(x) = (1 + e^{v_h}) / (1 + e^{v_h − w_h x}) for x = 0 ... R − 1
  const Tensor x = reshape(arange(0.0, static_cast<double>(R), 1.0, ctx.dtype), {1, R});
  const Tensor vh = reshape(v, {H, 1}), wh = reshape(w, {H, 1});
  const Tensor one = scalar_tensor(1.0, ctx.dtype);
  rel.mult = contiguous(div(add(one, exp(vh)), add(one, exp(sub(vh, mul(wh, x))))));
  return std::nullopt;
}

const SchemeRegistration kDa{"da", {da_tables, nullptr}};

}  // namespace
}  // namespace seqlab::positional_detail
