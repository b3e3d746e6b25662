// DeBERTa's disentangled attention (He et al. 2021, §3.1): s_ij = (q_i·k_j + q_i·K^r_δ(i,j) +
// k_j·Q^r_δ(i,j))/√(3D), δ(i, j) = clip(i − j, −k, k − 1) + k, K^r = P W_{k,r} + b, Q^r = P W_{q,r} + b
// for the relative embeddings P (2k, H·D). Both position terms read row δ(i, j), as DeBERTa's
// released code and Hugging Face's DebertaV2 (the paper's eq. 4 writes δ(j, i) for the
// position-to-content term; read literally it gives another attention). Options: num_heads,
// max_relative_position (k, 16). Parameters rel_embeddings, pos_key_proj_weight / _bias,
// pos_query_proj_weight / _bias. Tests: tests/test_positional.py (and against DebertaV2).
#include <cmath>

#include "ops/positional/scheme.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/linalg.hpp"

namespace seqlab::positional_detail {
namespace {

std::optional<double> deberta_tables(const SchemeContext& ctx, attention_detail::Relative& rel) {
  ctx.require_heads();
  const int64_t H = ctx.H, D = ctx.D, k = ctx.option_int("max_relative_position", 16);
  SEQLAB_CHECK(k >= 1, kOp, ": the deberta scheme needs max_relative_position >= 1, got ", k);
  rel.index = ctx.distance_index([k](int64_t d) { return d <= -k ? int64_t(0) : d >= k ? 2 * k - 1 : d + k; });
  const Tensor& P = ctx.param("rel_embeddings", {2 * k, H * D});
  rel.rel_key = by_head(linear(P, ctx.param("pos_key_proj_weight"), ctx.optional_param("pos_key_proj_bias")), H);
  rel.rel_query = by_head(linear(P, ctx.param("pos_query_proj_weight"), ctx.optional_param("pos_query_proj_bias")), H);
  return 1.0 / std::sqrt(3.0 * static_cast<double>(D));  // three terms: 1/√(3D) (§3.1)
}

const SchemeRegistration kDeberta{"deberta", {deberta_tables, nullptr}};

}  // namespace
}  // namespace seqlab::positional_detail
