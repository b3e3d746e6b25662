// DeBERTa's disentangled attention (He et al. 2021, §3.1; DeBERTa-v2's code): s_ij = (q_i·k_j +
// q_i·K^r_δ(i,j) + k_j·Q^r_δ(i,j)) / √(n·D), n = 1 + the position terms used (c2p, p2c), with
// δ(i, j) = clip(b(i − j) + s, 0, 2s − 1), K^r = P W_{k,r} + b, Q^r = P W_{q,r} + b for the relative
// embeddings P (2s, H·D). b is the identity and s = k (max_relative_position) by default; with
// position_buckets > 0, b is DeBERTa-v2's log bucket up to max_relative_position and s =
// position_buckets. Both position terms read row δ(i, j), as DeBERTa's released code and Hugging
// Face's DebertaV2 (the paper's eq. 4 writes δ(j, i) for the position-to-content term; read
// literally it gives another attention). P may be layer-normalised first (DeBERTa-v2's
// norm_rel_ebd = "layer_norm"). Options: num_heads, max_relative_position (16), position_buckets
// (-1: none), c2p and p2c (true), rel_norm_eps (1e-7). Parameters rel_embeddings, pos_key_proj_weight
// / _bias (with c2p), pos_query_proj_weight / _bias (with p2c), rel_norm_weight / _bias (optional).
// share_att_key is the Python module's: it passes the attention's own query and key projections
// as pos_query_proj / pos_key_proj. Tests: tests/test_positional.py (against DebertaV2's attention).
#include <cmath>
#include <cstdlib>

#include "ops/positional/scheme.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/norm.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {
namespace {

// make_log_bucket_position of DeBERTa-v2 for one distance, in float32 as there: m = bucket_size / 2;
// |d| <= m kept; else sign(d)·(⌈log(|d| / m) / log((max_position − 1) / m) · (m − 1)⌉ + m).
int64_t log_bucket(int64_t d, int64_t bucket_size, int64_t max_position) {
  const int64_t mid = bucket_size / 2;
  const int64_t a = std::abs(d);
  if (a <= mid) return d;
  const float denom = std::log(static_cast<float>(static_cast<double>(max_position - 1) / static_cast<double>(mid)));
  const float r = std::log(static_cast<float>(a) / static_cast<float>(mid)) / denom * static_cast<float>(mid - 1);
  const auto bucket = static_cast<int64_t>(std::ceil(r) + static_cast<float>(mid));
  return d < 0 ? -bucket : bucket;
}

void check_log_bucket(int64_t bucket_size, int64_t max_position, const char* op) {
  SEQLAB_CHECK(bucket_size >= 2 && max_position - 1 > bucket_size / 2, op, ": position_buckets ", bucket_size,
               " and max_relative_position ", max_position,
               " leave no log-spaced buckets: need position_buckets >= 2 and max_relative_position > "
               "position_buckets / 2 + 1");
}

}  // namespace

Tensor deberta_log_bucket_position(const Tensor& relative_position, int64_t bucket_size, int64_t max_position) {
  SEQLAB_CHECK(relative_position.defined() && relative_position.dtype() == Dtype::Int64,
               "deberta_log_bucket_position: expected an int64 tensor of relative positions, got ",
               relative_position.defined() ? dtype_name(relative_position.dtype()) : "None");
  check_log_bucket(bucket_size, max_position, "deberta_log_bucket_position");
  const Tensor r = contiguous(relative_position);
  Tensor out = Tensor::empty(r.shape(), Dtype::Int64);
  const int64_t* rp = r.data<int64_t>();
  int64_t* o = out.data<int64_t>();
  for (int64_t i = 0; i < r.numel(); ++i) o[i] = log_bucket(rp[i], bucket_size, max_position);
  return out;
}

namespace positional_detail {
namespace {

std::optional<double> deberta_tables(const SchemeContext& ctx, attention_detail::Relative& rel) {
  ctx.require_heads();
  const int64_t H = ctx.H, D = ctx.D, k = ctx.option_int("max_relative_position", 16);
  const int64_t buckets = ctx.option_int("position_buckets", -1);
  const bool c2p = ctx.option_bool("c2p", true), p2c = ctx.option_bool("p2c", true);
  SEQLAB_CHECK(k >= 1, kOp, ": the deberta scheme needs max_relative_position >= 1, got ", k);
  if (buckets > 0) check_log_bucket(buckets, k, kOp);
  const double scale = 1.0 / std::sqrt(static_cast<double>((1 + c2p + p2c) * D));  // n terms: 1/√(nD) (§3.1)
  if (!c2p && !p2c) return scale;
  const int64_t span = buckets > 0 ? buckets : k;
  rel.index = ctx.distance_index([=](int64_t d) {
    const int64_t b = (buckets > 0 ? log_bucket(d, buckets, k) : d) + span;
    return b < 0 ? int64_t(0) : b > 2 * span - 1 ? 2 * span - 1 : b;
  });
  Tensor P = ctx.param("rel_embeddings", {2 * span, H * D});
  if (const Tensor w = ctx.optional_param("rel_norm_weight", {H * D}); w.defined())
    P = layer_norm(P, {H * D}, w, ctx.optional_param("rel_norm_bias", {H * D}), ctx.option_double("rel_norm_eps", 1e-7));
  if (c2p) rel.rel_key = by_head(linear(P, ctx.param("pos_key_proj_weight"), ctx.optional_param("pos_key_proj_bias")), H);
  if (p2c)
    rel.rel_query = by_head(linear(P, ctx.param("pos_query_proj_weight"), ctx.optional_param("pos_query_proj_bias")), H);
  return scale;
}

const SchemeRegistration kDeberta{"deberta", {deberta_tables, nullptr}};

}  // namespace
}  // namespace positional_detail
}  // namespace seqlab
