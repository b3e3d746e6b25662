// Transformer-XL's relative attention (Dai et al. 2019, §3.3): s_ij = ((q_i + u)·k_j +
// (q_i + v)·W_R R_d)/√D, R_d the sinusoid of the distance d = i − j, W_R its projection (r_net, no
// bias), u and v global content and position biases (r_w_bias, r_r_bias). R_d is laid out as
// Transformer-XL's and XLNet's own code: all the sines, then all the cosines, at the frequencies
// base^(−2c/dim), so their r_net weights compute their attention (the absolute sinusoid
// interleaves them). Options: num_heads, base (10000). Parameters r_w_bias, r_r_bias (H, D),
// r_net (H·D, H·D). Tests: tests/test_positional.py, tests/test_positional_hf.py (XLNet).
#include "ops/positional/scheme.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::positional_detail {
namespace {

std::optional<double> xl_tables(const SchemeContext& ctx, attention_detail::Relative& rel) {
  ctx.require_heads();
  const int64_t H = ctx.H, D = ctx.D, S = ctx.S;
  const Tensor& w = ctx.param("r_net", {H * D, H * D});
  rel.index = ctx.distance_index([S](int64_t d) { return d + S - 1; });
  // W_R R_d for d = −(S − 1) ... L + off − 1, split into heads: (H, R, D); R_d = [sin] ++ [cos].
  const Tensor d = ctx.distances();
  const int64_t P = d.size(0), dim = H * D;
  const Tensor interleaved = sinusoidal_encoding(d, dim, ctx.option_double("base", 10000.0), ctx.dtype);
  const Tensor R = reshape(contiguous(transpose(reshape(interleaved, {P, dim / 2, 2}), 1, 2)), {P, dim});
  rel.rel_key = by_head(linear(R, w), H);
  return std::nullopt;
}

// The content query q + u; the position term's query q + v.
void xl_inputs(const SchemeContext& ctx, SchemeInputs& in) {
  const int64_t H = ctx.H, D = ctx.D;
  const Tensor &u = ctx.param("r_w_bias", {H, D}), &v = ctx.param("r_r_bias", {H, D});
  in.q_pos = add(in.q, reshape(v, {1, H, 1, D}));
  in.q = add(in.q, reshape(u, {1, H, 1, D}));
}

const SchemeRegistration kXl{"xl", {xl_tables, xl_inputs}};

}  // namespace
}  // namespace seqlab::positional_detail
