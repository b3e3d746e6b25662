// Attention for RNN encoder-decoders, every score of the course, composed of ordinary ops (bmm,
// linear, tanh, masked_fill, softmax), so that its graph is the textbook one and every backward is
// one the ops already have. All source positions and all query steps are batched: no loop over
// positions. Equations and citations in ops/seq2seq_attention.hpp; tests:
// tests/test_seq2seq_attention.py (against the formulas written with torch's ops, gradcheck),
// cpp/tests/test_seq2seq_attention.cpp.
#include "seqlab/ops/seq2seq_attention.hpp"

#include <cmath>
#include <limits>

#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

constexpr const char* kFn = "seq2seq_attention";

bool uses_parameters(Seq2SeqScore score) { return score == Seq2SeqScore::General || score == Seq2SeqScore::Additive; }

// A parameter the score needs must be given, one it does not use must not be: passing W with
// score='dot' is a mistake, not something to ignore.
void check_given(const Tensor& t, bool needed, Seq2SeqScore score, const char* name) {
  SEQLAB_CHECK_VALUE(!needed || t.defined(), kFn, ": score '", seq2seq_score_name(score), "' needs ", name);
  SEQLAB_CHECK_VALUE(needed || !t.defined(), kFn, ": score '", seq2seq_score_name(score), "' takes no ", name,
                     ", got a tensor of shape ", shape_str(t.shape()));
}

void check_dtype(const Tensor& t, Dtype dtype, const char* name) {
  SEQLAB_CHECK_TYPE(!t.defined() || t.dtype() == dtype, kFn, ": expected all tensors of dtype ", dtype_name(dtype),
                    " (the query's), got ", dtype_name(t.dtype()), " for ", name);
}

void check_weight(const Tensor& w, int64_t rows, int64_t cols, const char* name, const char* layout) {
  SEQLAB_CHECK(w.dim() == 2 && w.shape()[0] == rows && w.shape()[1] == cols, kFn, ": ", name, " of shape ",
               shape_str(w.shape()), " must be ", layout, " = (", rows, ", ", cols, ")");
}

// Every check before any arithmetic: shapes, dtypes, the mask, and the score's parameters.
void check_inputs(const Tensor& query, const Tensor& keys, const Tensor& values, Seq2SeqScore score,
                  const Seq2SeqAttentionParams& p, const Tensor& mask) {
  SEQLAB_CHECK_VALUE(query.dim() == 2 || query.dim() == 3, kFn,
                     ": Expected query to be 2D (batch, query_size) for one step or 3D (batch, steps, query_size), "
                     "got ", query.dim(), "D of shape ", shape_str(query.shape()));
  SEQLAB_CHECK_VALUE(keys.dim() == 3, kFn, ": Expected keys to be 3D (batch, source_len, key_size), got ", keys.dim(),
                     "D of shape ", shape_str(keys.shape()));
  SEQLAB_CHECK_VALUE(!values.defined() || values.dim() == 3, kFn,
                     ": Expected values to be 3D (batch, source_len, value_size), got ", values.dim(), "D of shape ",
                     shape_str(values.shape()));
  SEQLAB_CHECK_TYPE(is_floating(query.dtype()), kFn, ": expected a floating point query, got ",
                    dtype_name(query.dtype()));
  const Dtype dtype = query.dtype();
  check_dtype(keys, dtype, "keys");
  check_dtype(values, dtype, "values");
  check_dtype(p.W, dtype, "W");
  check_dtype(p.query_weight, dtype, "query_weight");
  check_dtype(p.key_weight, dtype, "key_weight");
  check_dtype(p.key_bias, dtype, "key_bias");
  check_dtype(p.v, dtype, "v");

  const int64_t B = query.shape()[0], Dq = query.shape().back();
  const int64_t S = keys.shape()[1], Dk = keys.shape()[2];
  SEQLAB_CHECK(keys.shape()[0] == B, kFn, ": query batch size ", B, " doesn't match keys batch size ",
               keys.shape()[0], " (query ", shape_str(query.shape()), ", keys ", shape_str(keys.shape()), ")");
  SEQLAB_CHECK(!values.defined() || (values.shape()[0] == B && values.shape()[1] == S), kFn, ": values of shape ",
               shape_str(values.shape()), " must be (batch, source_len, value_size) with (batch, source_len) = (", B,
               ", ", S, ") as keys ", shape_str(keys.shape()));
  if (mask.defined()) {
    SEQLAB_CHECK_TYPE(mask.dtype() == Dtype::Bool, kFn, ": key_padding_mask must be a bool tensor (True = padding), got ",
                      dtype_name(mask.dtype()));
    SEQLAB_CHECK(mask.shape() == Shape({B, S}), kFn, ": expected key_padding_mask of shape (batch, source_len) = ",
                 shape_str({B, S}), ", got ", shape_str(mask.shape()));
  }

  const bool general = score == Seq2SeqScore::General, additive = score == Seq2SeqScore::Additive;
  check_given(p.W, general, score, "W");
  check_given(p.query_weight, additive, score, "query_weight");
  check_given(p.key_weight, additive, score, "key_weight");
  check_given(p.v, additive, score, "v");
  if (!additive) check_given(p.key_bias, false, score, "key_bias");
  if (!uses_parameters(score))
    SEQLAB_CHECK(Dq == Dk, kFn, ": score '", seq2seq_score_name(score),
                 "' needs query and keys of the same size, got query ", shape_str(query.shape()), " and keys ",
                 shape_str(keys.shape()));
  if (general) check_weight(p.W, Dq, Dk, "W", "(query_size, key_size)");
  if (additive) {
    SEQLAB_CHECK(p.query_weight.dim() == 2 && p.query_weight.shape()[1] == Dq, kFn, ": query_weight of shape ",
                 shape_str(p.query_weight.shape()), " must be (hidden_size, query_size) with query_size = ", Dq);
    const int64_t H = p.query_weight.shape()[0];
    check_weight(p.key_weight, H, Dk, "key_weight", "(hidden_size, key_size)");
    SEQLAB_CHECK(!p.key_bias.defined() || p.key_bias.shape() == Shape({H}), kFn, ": key_bias of shape ",
                 shape_str(p.key_bias.shape()), " must be (hidden_size,) = (", H, ",)");
    SEQLAB_CHECK(p.v.shape() == Shape({H}) || p.v.shape() == Shape({1, H}), kFn, ": v of shape ",
                 shape_str(p.v.shape()), " must be (hidden_size,) or (1, hidden_size) with hidden_size = ", H);
  }
}

}  // namespace

Seq2SeqScore seq2seq_score(const std::string& name) {
  if (name == "dot") return Seq2SeqScore::Dot;
  if (name == "scaled") return Seq2SeqScore::Scaled;
  if (name == "general" || name == "bilinear") return Seq2SeqScore::General;
  if (name == "additive" || name == "concat") return Seq2SeqScore::Additive;
  if (name == "linear") return Seq2SeqScore::Linear;
  throw std::invalid_argument(str_cat(kFn, ": unknown score '", name,
                                      "'; expected 'dot', 'scaled', 'general' (or 'bilinear'), 'additive' (or "
                                      "'concat') or 'linear'"));
}

const char* seq2seq_score_name(Seq2SeqScore score) {
  switch (score) {
    case Seq2SeqScore::Dot: return "dot";
    case Seq2SeqScore::Scaled: return "scaled";
    case Seq2SeqScore::General: return "general";
    case Seq2SeqScore::Additive: return "additive";
    case Seq2SeqScore::Linear: return "linear";
  }
  return "?";
}

void check_seq2seq_attention_args(int64_t query_size, int64_t key_size, Seq2SeqScore score, int64_t hidden_size) {
  SEQLAB_CHECK_VALUE(query_size > 0 && key_size > 0, "Seq2SeqAttention: query_size and key_size must be positive, got ",
                     query_size, " and ", key_size);
  SEQLAB_CHECK_VALUE(uses_parameters(score) || key_size == query_size, "Seq2SeqAttention: score '",
                     seq2seq_score_name(score), "' compares query and key directly, so key_size must equal "
                     "query_size, got ", key_size, " and ", query_size, " (use score='general' or 'additive' for "
                     "different sizes)");
  SEQLAB_CHECK_VALUE(score != Seq2SeqScore::Additive || hidden_size > 0,
                     "Seq2SeqAttention: hidden_size must be positive, got ", hidden_size);
}

Seq2SeqAttentionResult seq2seq_attention(const Tensor& query, const Tensor& keys, const Tensor& values_,
                                         Seq2SeqScore score, const Seq2SeqAttentionParams& p, const Tensor& mask) {
  check_inputs(query, keys, values_, score, p, mask);
  // B batch, T query steps, S source positions, Dq/Dk/Dv the sizes of a query/key/value, H hidden.
  const bool one_step = query.dim() == 2;
  const Tensor q = one_step ? unsqueeze(query, 1) : query;  // (B, T, Dq)
  const Tensor& k = keys;                                   // (B, S, Dk)
  const Tensor& values = values_.defined() ? values_ : keys;  // (B, S, Dv)
  const Tensor kT = transpose(k, 1, 2);                     // (B, Dk, S)

  // scores (B, T, S): every step's query against every key, one batched product per score.
  Tensor scores;
  switch (score) {
    case Seq2SeqScore::Dot:
    case Seq2SeqScore::Linear:
      // score(q, k_j) = qᵀ k_j
      scores = bmm(q, kT);
      break;
    case Seq2SeqScore::Scaled:
      // score(q, k_j) = qᵀ k_j / √d: keeps the scores' variance near 1 when q and k have unit-variance entries
      scores = bmm(q, kT) / std::sqrt(static_cast<double>(k.shape()[2]));
      break;
    case Seq2SeqScore::General:
      // score(q, k_j) = qᵀ (W k_j): the keys are projected once, (B, S, Dq), then as 'dot'
      scores = bmm(q, transpose(linear(k, p.W), 1, 2));
      break;
    case Seq2SeqScore::Additive: {
      // score(q, k_j) = vᵀ tanh(W₁ q + W₂ k_j + b): W₂ k_j + b once per key, W₁ q once per step,
      // their sum broadcast to (B, T, S, H), then the product with v sums over H.
      const Tensor pq = unsqueeze(linear(q, p.query_weight), 2);           // (B, T, 1, H)
      const Tensor pk = unsqueeze(linear(k, p.key_weight, p.key_bias), 1);  // (B, 1, S, H)
      scores = matmul(tanh(add(pq, pk)), reshape(p.v, {-1}));             // (B, T, S)
      break;
    }
  }

  // weights (B, T, S).
  Tensor weights;
  if (score == Seq2SeqScore::Linear) {
    // Linear attention: no softmax, a_j = qᵀ k_j, and padding weighs 0.
    weights = mask.defined() ? masked_fill(scores, unsqueeze(mask, 1), 0.0) : scores;
  } else if (!mask.defined()) {
    // a_j = exp(score_j) / Σ_i exp(score_i)
    weights = softmax(scores, -1);
  } else {
    // Padding gets score -inf, so exp gives it weight 0 exactly. A row that is all padding would be
    // all -inf (softmax NaN, and NaN gradients): it is left unmasked for the softmax and its
    // weights are then multiplied by keep = 0, which also stops its gradient.
    const Tensor keep = to_dtype(logical_not(mask), query.dtype());                         // (B, S), 1 = a key
    const Tensor has_key = compare(sum(keep, {1}, true), scalar_tensor(0, query.dtype()), CompareOp::Gt);  // (B, 1)
    const Tensor fill = unsqueeze(logical_and(mask, has_key), 1);                           // (B, 1, S)
    const double minus_inf = -std::numeric_limits<double>::infinity();
    weights = mul(softmax(masked_fill(scores, fill, minus_inf), -1), unsqueeze(keep, 1));
  }

  // context = Σ_j a_j v_j   (B, T, Dv)
  Tensor context = bmm(weights, values);
  if (one_step) return {squeeze(context, 1), squeeze(weights, 1)};
  return {context, weights};
}

}  // namespace seqlab
