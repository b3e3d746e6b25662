// scaled_dot_product_attention's front door: torch's checks, grouped-query heads, batch dims folded
// into one (N, L, E) problem; then the fused kernel (attention_fused.cpp) or the composed oracle
// below, and the weights for plots. Semantics: torch.nn.functional.scaled_dot_product_attention.
// Tests: tests/test_attention.py, cpp/tests/test_attention.cpp.
#include "seqlab/ops/attention.hpp"

#include <cmath>
#include <limits>

#include "ops/attention_impl.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

using attention_detail::MaskView;
using attention_detail::Problem;

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

const char* c10_name(Dtype d) {  // torch's dtype words in its attention messages
  switch (d) {
    case Dtype::Float32: return "float";
    case Dtype::Float64: return "double";
    case Dtype::Int64: return "long int";
    case Dtype::Int32: return "int";
    case Dtype::Int16: return "short int";
    case Dtype::Int8: return "signed char";
    case Dtype::UInt8: return "unsigned char";
    case Dtype::Float16: return "c10::Half";
    case Dtype::BFloat16: return "c10::BFloat16";
    default: return "bool";
  }
}

// (..., Hk, S, E) -> (..., Hq, S, E): key/value head h/g serves query heads h (torch's repeat_interleave).
Tensor repeat_heads(const Tensor& x, int64_t hq) {
  const int64_t hk = x.size(-3);
  if (hk == hq) return x;
  SEQLAB_CHECK(hk > 0 && hq % hk == 0,
               "Number of heads in key and value must divide the number of heads in query, but got query heads ",
               hq, " and key/value heads ", hk);
  Shape expanded(x.shape().begin(), x.shape().end() - 2);
  expanded.push_back(hq / hk);
  expanded.push_back(x.size(-2));
  expanded.push_back(x.size(-1));
  Shape merged(x.shape().begin(), x.shape().end() - 3);
  merged.push_back(hq);
  merged.push_back(x.size(-2));
  merged.push_back(x.size(-1));
  return reshape(expand(unsqueeze(x, -3), expanded), merged);
}

Shape batch_of(const Tensor& x) { return Shape(x.shape().begin(), x.shape().end() - 2); }

// x (batch', R, C) broadcast to (batch, R, C) and folded to a contiguous (N, R, C).
Tensor fold(const Tensor& x, const Shape& batch, int64_t n) {
  Shape full = batch;
  full.push_back(x.size(-2));
  full.push_back(x.size(-1));
  return contiguous(reshape(expand(x, full), {n, x.size(-2), x.size(-1)}));
}

}  // namespace

namespace attention_detail {

Prepared prepare(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask,
                 double dropout_p, bool is_causal, std::optional<double> scale, bool enable_gqa) {
  SEQLAB_CHECK(query.defined() && key.defined() && value.defined(), kOp, ": query, key and value must be tensors");
  SEQLAB_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
               "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: ", query.dim(),
               " key.dim: ", key.dim(), " and value.dim: ", value.dim(), " instead.");
  SEQLAB_CHECK(query.dtype() == key.dtype() && query.dtype() == value.dtype(),
               "Expected query, key, and value to have the same dtype, but got query.dtype: ", c10_name(query.dtype()),
               " key.dtype: ", c10_name(key.dtype()), " and value.dtype: ", c10_name(value.dtype()), " instead.");
  SEQLAB_CHECK(is_floating(query.dtype()), kOp, ": expected query, key and value of a floating point dtype, got ",
               dtype_name(query.dtype()));
  SEQLAB_CHECK(dropout_p >= 0.0 && dropout_p <= 1.0, "dropout probability has to be between 0 and 1, but got ",
               dropout_p);
  SEQLAB_CHECK(query.size(-1) == key.size(-1), kOp, ": query and key must have the same embedding size E, got query ",
               shape_str(query.shape()), " and key ", shape_str(key.shape()));
  SEQLAB_CHECK(key.size(-2) == value.size(-2), kOp,
               ": key and value must have the same sequence length S, got key ", shape_str(key.shape()),
               " and value ", shape_str(value.shape()));
  Tensor k = key, v = value;
  if (enable_gqa && query.dim() >= 3 && key.dim() >= 3 && value.dim() >= 3) {
    k = repeat_heads(key, query.size(-3));
    v = repeat_heads(value, query.size(-3));
  }
  Prepared r;
  r.L = query.size(-2);
  r.S = k.size(-2);
  r.E = query.size(-1);
  r.Ev = v.size(-1);
  try {
    r.batch = broadcast_shapes(broadcast_shapes(batch_of(query), batch_of(k), kOp), batch_of(v), kOp);
  } catch (const std::exception&) {
    SEQLAB_CHECK(false, kOp, ": the batch dims of query ", shape_str(query.shape()), ", key ", shape_str(key.shape()),
                 " and value ", shape_str(value.shape()), " do not broadcast");
  }
  const int64_t n = shape_numel(r.batch);
  r.p.q = fold(query, r.batch, n);
  r.p.k = fold(k, r.batch, n);
  r.p.v = fold(v, r.batch, n);
  r.p.causal = is_causal;
  r.p.scale = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(r.E));
  r.p.dropout_p = dropout_p;
  if (dropout_p > 0.0 && dropout_p < 1.0) r.p.seed = random_u64();

  if (attn_mask.defined()) {
    const Dtype md = attn_mask.dtype();
    // torch accepts bool, float32 (whatever the query's float dtype) or the query's dtype
    SEQLAB_CHECK(md == Dtype::Bool || md == Dtype::Float32 || md == query.dtype(),
                 "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: ",
                 c10_name(md), " and  query.dtype: ", c10_name(query.dtype()), " instead.");
    Shape scores = r.batch;
    scores.push_back(r.L);
    scores.push_back(r.S);
    bool fits = attn_mask.dim() <= static_cast<int64_t>(scores.size());
    for (int64_t d = 1; fits && d <= attn_mask.dim(); ++d) {
      const int64_t m = attn_mask.size(-d), s = scores[scores.size() - d];
      fits = m == s || m == 1;
    }
    SEQLAB_CHECK(fits, kOp, ": attn_mask of shape ", shape_str(attn_mask.shape()),
                 " does not broadcast to the attention scores' shape ", shape_str(scores));
    MaskView& mv = r.p.mask;
    mv.mask = expand(md == Dtype::Bool || md == query.dtype() ? attn_mask : to_dtype(attn_mask, query.dtype()), scores);
    const Shape& st = mv.mask.strides();
    const int64_t nb = static_cast<int64_t>(r.batch.size());
    mv.stride_i = st[nb];
    mv.stride_j = st[nb + 1];
    mv.offset.assign(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i) {  // unravel i over the batch dims
      int64_t rest = i, off = 0;
      for (int64_t d = nb - 1; d >= 0; --d) {
        off += (rest % r.batch[d]) * st[d];
        rest /= r.batch[d];
      }
      mv.offset[i] = off;
    }
  }
  return r;
}

Tensor unfold(const Tensor& out, const Prepared& r, int64_t cols) {
  Shape full = r.batch;
  full.push_back(r.L);
  full.push_back(cols);
  return reshape(out, full);
}

Tensor composed_content_scores(const Prepared& r) {
  return mul(bmm(r.p.q, transpose(r.p.k, 1, 2)), scalar_tensor(r.p.scale, r.p.q.dtype()));
}

Tensor composed_softmax(const Prepared& r, Tensor s) {
  const Problem& p = r.p;
  const int64_t n = p.q.size(0);
  const double inf = std::numeric_limits<double>::infinity();
  if (p.mask.mask.defined()) {
    const Tensor m = reshape(p.mask.mask, {n, r.L, r.S});
    s = m.dtype() == Dtype::Bool ? masked_fill(s, logical_not(m), -inf) : add(s, m);
  }
  if (p.causal) s = masked_fill(s, triu(ones({r.L, r.S}, Dtype::Bool), 1 + p.q_offset), -inf);
  if (r.S == 0) return s;
  // torch's _safe_softmax: a row of -inf gives zero weights, not NaN (and no NaN gradient).
  const Tensor dead = compare(max(s, -1, true).first, scalar_tensor(-inf, s.dtype()), CompareOp::Eq);
  return masked_fill(softmax(masked_fill(s, dead, 0.0), -1), dead, 0.0);
}

// The dropout mask of attention_impl.hpp materialised, scaled by 1/(1-p): (N, L, S).
Tensor composed_dropout_mask(const Problem& p, int64_t L, int64_t S) {
  const int64_t n = p.q.size(0);
  Tensor m = Tensor::empty({n, L, S}, p.q.dtype());
  const bool all = p.dropout_p >= 1.0;
  const uint64_t threshold = all ? 0 : attention_detail::dropout_threshold(p.dropout_p);
  const double keep = all ? 0.0 : 1.0 / (1.0 - p.dropout_p);
  auto fill = [&](auto* d) {
    for (int64_t i = 0; i < m.numel(); ++i)
      d[i] = (!all && attention_detail::dropout_keep(p.seed, static_cast<uint64_t>(i), threshold)) ? keep : 0.0;
  };
  if (m.dtype() == Dtype::Float32) fill(m.data<float>()); else fill(m.data<double>());
  return m;
}

}  // namespace attention_detail

using attention_detail::composed_content_scores;
using attention_detail::composed_dropout_mask;
using attention_detail::composed_softmax;
using attention_detail::prepare;
using attention_detail::Prepared;
using attention_detail::unfold;

Tensor scaled_dot_product_attention_math(const Tensor& query, const Tensor& key, const Tensor& value,
                                         const Tensor& attn_mask, double dropout_p, bool is_causal,
                                         std::optional<double> scale, bool enable_gqa) {
  const Prepared r = prepare(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
  Tensor w = composed_softmax(r, composed_content_scores(r));
  if (r.p.dropout_p > 0.0) w = mul(w, composed_dropout_mask(r.p, r.L, r.S));
  return unfold(bmm(w, r.p.v), r, r.Ev);
}

Tensor attention_weights(const Tensor& query, const Tensor& key, const Tensor& attn_mask, bool is_causal,
                         std::optional<double> scale, bool enable_gqa) {
  // The value only fixes shapes: a (…, S, 0) view of the key.
  const Prepared r = prepare(query, key, narrow(key, -1, 0, 0), attn_mask, 0.0, is_causal, scale, enable_gqa);
  return unfold(composed_softmax(r, composed_content_scores(r)), r, r.S);
}

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  // A float mask that needs a gradient (a learned bias) takes the composed path, which has one.
  if (attn_mask.defined() && attn_mask.requires_grad())
    return scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
  const Prepared r = prepare(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
  return unfold(attention_detail::sdpa_fused(r.p), r, r.Ev);
}

}  // namespace seqlab
