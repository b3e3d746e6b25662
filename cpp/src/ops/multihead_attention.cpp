// Multi-head attention (Vaswani et al. 2017, §3.2.2), following
// torch.nn.functional.multi_head_attention_forward step by step: torch's shape checks and
// messages, the in-projection (one GEMM for self-attention), bias_k/bias_v and add_zero_attn,
// the merge of the padding mask into the attention mask, then either the explicit weights
// (need_weights) or the fused scaled_dot_product_attention, and the out-projection.
// Every step is an ordinary differentiable op; the only fused node is SDPA's.
// Tests: tests/test_transformer.py (against torch, gradcheck), tests/test_nn_twins.py.
#include "seqlab/ops/multihead_attention.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>

#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/attention.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

constexpr const char* kName = "MultiheadAttention: ";

// "(2, 3)": how torch prints the tuple it expected.
std::string size_tuple(const Shape& s) {
  std::ostringstream o;
  o << "(";
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << (s.size() == 1 ? ",)" : ")");
  return o.str();
}

bool same(const Tensor& a, const Tensor& b) { return a.impl() == b.impl(); }

// F.pad(mask, (0, 1)): one more key position, not masked (0 for a float mask).
Tensor pad_key(const Tensor& mask) {
  Shape s = mask.shape();
  s.back() = 1;
  return cat({mask, zeros(s, mask.dtype())}, -1);
}

// torch's _mha_shape_check: ranks of query, key, value and the masks. Returns whether batched.
bool check_ranks(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
                 const Tensor& attn_mask, int64_t num_heads) {
  const bool batched = query.dim() == 3;
  SEQLAB_CHECK_ASSERT(batched || query.dim() == 2, kName,
                      "query should be unbatched 2D or batched 3D tensor but received ", query.dim(),
                      "-D query tensor");
  // The same rules for both, one rank apart: key and value as query, key_padding_mask one less.
  const int64_t d = query.dim();
  const char* kind = batched ? "For batched (3-D) `query`, " : "For unbatched (2-D) `query`, ";
  SEQLAB_CHECK_ASSERT(key.dim() == d && value.dim() == d, kName, kind, "expected `key` and `value` to be ", d,
                      "-D but found ", key.dim(), "-D and ", value.dim(), "-D tensors respectively");
  SEQLAB_CHECK_ASSERT(!key_padding_mask.defined() || key_padding_mask.dim() == d - 1, kName, kind,
                      "expected `key_padding_mask` to be `None` or ", d - 1, "-D but found ", key_padding_mask.dim(),
                      "-D tensor instead");
  SEQLAB_CHECK_ASSERT(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3, kName, kind,
                      "expected `attn_mask` to be `None`, 2-D or 3-D but found ", attn_mask.dim(),
                      "-D tensor instead");
  if (!batched && attn_mask.defined() && attn_mask.dim() == 3) {
    const Shape expected = {num_heads, query.shape()[0], key.shape()[0]};
    SEQLAB_CHECK_ASSERT(attn_mask.shape() == expected, kName, "Expected `attn_mask` shape to be ",
                        size_tuple(expected), " but got ", shape_str(attn_mask.shape()));
  }
  return batched;
}

// A float mask is added to scores of the query's dtype. torch's attention accepts float32 masks
// whatever the query's float dtype ("bool or float or ... the query dtype", so the float32 mask of
// generate_square_subsequent_mask works in a model moved to float64) and refuses other mismatches;
// canonical_mask converts the accepted float32 mask to the query's dtype.
void check_float_mask_dtype(const Tensor& mask, const char* name, Dtype dtype) {
  if (!mask.defined() || !is_floating(mask.dtype())) return;
  SEQLAB_CHECK_TYPE(mask.dtype() == dtype || mask.dtype() == Dtype::Float32, kName, "expected ", name,
                    " to be bool, float32 or of the query's dtype (", dtype_name(dtype), "), got ",
                    dtype_name(mask.dtype()));
}

struct Projected {
  Tensor q, k, v;  // (L, N, E), (S, N, E), (S, N, E)
};

// q = query W_Qᵀ + b_Q, k = key W_Kᵀ + b_K, v = value W_Vᵀ + b_V with W_Q, W_K, W_V stacked in
// in_proj_weight (torch's _in_projection_packed): self-attention is one GEMM for all three,
// encoder-decoder attention (key is value) one for q and one for k and v together. W_Q has q rows
// (E, or num_heads · head_dim), W_K and W_V kv rows each (fewer with grouped-query attention).
Projected in_projection_packed(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& w,
                               const Tensor& b, int64_t q_rows, int64_t kv) {
  const int64_t E = query.shape().back(), rows = q_rows + 2 * kv;
  SEQLAB_CHECK(w.dim() == 2 && w.shape()[0] == rows && w.shape()[1] == E, kName, "in_proj_weight must have shape (",
               rows, ", ", E, "), got ", shape_str(w.shape()));
  SEQLAB_CHECK(!b.defined() || b.shape() == Shape{rows}, kName, "in_proj_bias must have shape (", rows, ",), got ",
               shape_str(b.shape()));
  const std::vector<int64_t> qkv_rows{q_rows, kv, kv};
  if (same(key, value)) {
    if (same(query, key)) {
      const TensorList qkv = split(linear(query, w, b), qkv_rows, -1);
      return {qkv[0], qkv[1], qkv[2]};
    }
    const TensorList ws = split(w, std::vector<int64_t>{q_rows, 2 * kv}, 0);
    const TensorList bs = b.defined() ? split(b, std::vector<int64_t>{q_rows, 2 * kv}, 0) : TensorList{Tensor(), Tensor()};
    const TensorList k_v = chunk(linear(key, ws[1], bs[1]), 2, -1);
    return {linear(query, ws[0], bs[0]), k_v[0], k_v[1]};
  }
  const TensorList ws = split(w, qkv_rows, 0);
  const TensorList bs = b.defined() ? split(b, qkv_rows, 0) : TensorList{Tensor(), Tensor(), Tensor()};
  return {linear(query, ws[0], bs[0]), linear(key, ws[1], bs[1]), linear(value, ws[2], bs[2])};
}

// The same with separate weights, when key and value have their own sizes (torch's _in_projection).
Projected in_projection(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& w_q,
                        const Tensor& w_k, const Tensor& w_v, const Tensor& b, int64_t q_rows, int64_t kv) {
  const int64_t Eq = query.shape().back(), Ek = key.shape().back(), Ev = value.shape().back();
  auto check = [](const Tensor& t, const Shape& expected, const char* what) {
    SEQLAB_CHECK_ASSERT(t.shape() == expected, kName, "expecting ", what, " shape of ", size_tuple(expected),
                        ", but got ", shape_str(t.shape()));
  };
  check(w_q, {q_rows, Eq}, "query weights");
  check(w_k, {kv, Ek}, "key weights");
  check(w_v, {kv, Ev}, "value weights");
  TensorList bs = {Tensor(), Tensor(), Tensor()};
  if (b.defined()) {
    SEQLAB_CHECK(b.shape() == Shape{q_rows + 2 * kv}, kName, "in_proj_bias must have shape (", q_rows + 2 * kv,
                 ",), got ", shape_str(b.shape()));
    bs = split(b, std::vector<int64_t>{q_rows, kv, kv}, 0);
  }
  return {linear(query, w_q, bs[0]), linear(key, w_k, bs[1]), linear(value, w_v, bs[2])};
}

// Grouped-query attention: (N·G, S, d) keys or values of G heads -> (N·H, S, d), each head repeated
// H / G times in a row (query head h reads head h / (H / G): Hugging Face's repeat_kv). The
// backward of expand sums each group's gradients back into its head.
Tensor repeat_kv(const Tensor& x, int64_t N, int64_t G, int64_t H) {
  if (G == H) return x;
  const int64_t S = x.shape()[1], d = x.shape()[2];
  return reshape(expand(view(contiguous(x), {N, G, 1, S, d}), {N, G, H / G, S, d}), {N * H, S, d});
}

// static_k / static_v replace the projected keys / values: (N·num_heads, S, head_dim).
Tensor check_static(const Tensor& t, const char* name, int64_t rows, int64_t head_dim) {
  SEQLAB_CHECK(t.dim() == 3, kName, name, " must be 3-D (N*num_heads, S, head_dim), got ", shape_str(t.shape()));
  SEQLAB_CHECK_ASSERT(t.shape()[0] == rows, kName, "expecting ", name, ".size(0) of ", rows, ", but got ",
                      t.shape()[0]);
  SEQLAB_CHECK_ASSERT(t.shape()[2] == head_dim, kName, "expecting ", name, ".size(2) of ", head_dim, ", but got ",
                      t.shape()[2]);
  return t;
}

}  // namespace

void check_multihead_attention_args(int64_t embed_dim, int64_t num_heads) {
  SEQLAB_CHECK_VALUE(embed_dim > 0 && num_heads > 0, "embed_dim and num_heads must be greater than 0, got embed_dim=",
                     embed_dim, " and num_heads=", num_heads, " instead");
  SEQLAB_CHECK_ASSERT(embed_dim % num_heads == 0, "embed_dim must be divisible by num_heads (", kName,
                      "embed_dim=", embed_dim, ", num_heads=", num_heads, ")");
}

Tensor canonical_mask(const Tensor& mask, const std::string& mask_name, Dtype dtype) {
  if (!mask.defined()) return mask;
  if (is_floating(mask.dtype())) {
    check_float_mask_dtype(mask, mask_name.c_str(), dtype);
    return mask.dtype() == dtype ? mask : to_dtype(mask, dtype);
  }
  SEQLAB_CHECK_ASSERT(mask.dtype() == Dtype::Bool, "only bool and floating types of ", mask_name,
                      " are supported (got ", dtype_name(mask.dtype()), ")");
  return masked_fill(zeros(mask.shape(), dtype), mask, -std::numeric_limits<double>::infinity());
}

std::pair<Tensor, Tensor> multi_head_attention_forward(const Tensor& query_in, const Tensor& key_in,
                                                       const Tensor& value_in,
                                                       const MultiheadAttentionForwardOptions& o) {
  const int64_t H = o.num_heads();
  const bool batched = check_ranks(query_in, key_in, value_in, o.key_padding_mask(), o.attn_mask(), H);

  // Unbatched input is a batch of one (N = 1 at dim 1), squeezed again at the end; the
  // identities query is key is value survive, so that self-attention stays one GEMM.
  Tensor query = query_in, key = key_in, value = value_in, key_padding_mask = o.key_padding_mask();
  if (!batched) {
    query = unsqueeze(query_in, 1);
    key = same(key_in, query_in) ? query : unsqueeze(key_in, 1);
    value = same(value_in, key_in) ? key : unsqueeze(value_in, 1);
    if (key_padding_mask.defined()) key_padding_mask = unsqueeze(key_padding_mask, 0);
  }
  const int64_t L = query.shape()[0], N = query.shape()[1], E = query.shape()[2];
  int64_t S = key.shape()[0];
  const Dtype dtype = query.dtype();

  // KV cache: the keys are the P cached positions then the new ones; a filled cross-attention
  // cache replaces the keys altogether (ops/kv_cache.hpp).
  AttentionCache* cache = o.kv_cache();
  const bool reuse_kv = cache && cache->is_static && cache->key.defined();
  bool is_causal = o.is_causal();
  if (cache) {
    SEQLAB_CHECK(!o.bias_k().defined() && !o.add_zero_attn() && !o.static_k().defined() && !o.static_v().defined(),
                 kName, "a kv_cache cannot be combined with add_bias_kv, add_zero_attn, static_k or static_v");
    SEQLAB_CHECK(!cache->key.defined() || cache->key.dtype() == dtype, kName, "the kv_cache holds ",
                 dtype_name(cache->key.dtype()), " keys but the query is ", dtype_name(dtype));
    S = reuse_kv ? cache->length() : cache->length() + S;
  }
  // The queries' first position: after P cached ones, query i sits at P + i, so the causal hint
  // means j <= i + P (the fused kernel's q_offset) and positional schemes see the true distances.
  const int64_t q_offset = cache && !cache->is_static ? cache->length() : o.q_offset();

  // Bool masks (true = masked out) become -inf / 0; with the is_causal hint and nothing else to
  // merge, the fused kernel applies the causal mask itself and attn_mask is dropped (torch's rule:
  // the hint must be right).
  check_float_mask_dtype(key_padding_mask, "key_padding_mask", dtype);
  check_float_mask_dtype(o.attn_mask(), "attn_mask", dtype);
  key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", dtype);
  SEQLAB_CHECK(!o.is_causal() || o.attn_mask().defined(), kName,
               "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
               "`generate_square_subsequent_mask` to create this mask.");
  Tensor attn_mask;
  if (!(is_causal && !key_padding_mask.defined() && !o.need_weights())) {
    attn_mask = canonical_mask(o.attn_mask(), "attn_mask", dtype);
    if (key_padding_mask.defined()) is_causal = false;  // the merged mask is no longer causal
  }

  SEQLAB_CHECK_ASSERT(E == o.embed_dim_to_check(), kName, "was expecting embedding dimension of ",
                      o.embed_dim_to_check(), ", but got ", E);
  SEQLAB_CHECK_VALUE(H > 0, kName, "num_heads must be greater than 0, got ", H);
  SEQLAB_CHECK_ASSERT(o.head_dim() > 0 || E % H == 0, kName, "embed_dim ", E, " not divisible by num_heads ", H);
  SEQLAB_CHECK_VALUE(o.head_dim() >= 0, kName, "head_dim must be positive, got ", o.head_dim());
  const int64_t head_dim = o.head_dim() > 0 ? o.head_dim() : E / H, inner = H * head_dim;
  const int64_t G = o.num_key_value_heads() == 0 ? H : o.num_key_value_heads(), kv_dim = G * head_dim;
  SEQLAB_CHECK(inner == E || (!o.bias_k().defined() && !o.static_k().defined() && !o.static_v().defined()), kName,
               "heads of head_dim ", head_dim, " spanning ", inner, " features, not embed_dim ", E,
               ", cannot be combined with add_bias_kv, static_k or static_v");
  SEQLAB_CHECK_VALUE(G > 0 && H % G == 0, kName, "num_heads ", H, " must be a multiple of num_key_value_heads ", G);
  SEQLAB_CHECK(G == H || (!o.bias_k().defined() && !o.static_k().defined() && !o.static_v().defined()), kName,
               "grouped-query attention (num_key_value_heads ", G, " < num_heads ", H,
               ") cannot be combined with add_bias_kv, static_k or static_v");
  if (o.use_separate_proj_weight()) {
    SEQLAB_CHECK_ASSERT(key.shape()[0] == value.shape()[0] && key.shape()[1] == value.shape()[1], kName,
                        "key's sequence and batch dims ", shape_str({key.shape()[0], key.shape()[1]}),
                        " do not match value's ", shape_str({value.shape()[0], value.shape()[1]}));
  } else {
    SEQLAB_CHECK_ASSERT(key.shape() == value.shape(), kName, "key shape ", shape_str(key.shape()),
                        " does not match value shape ", shape_str(value.shape()));
  }
  SEQLAB_CHECK(key.shape()[1] == N, kName, "query and key must have the same batch size, got query ",
                      shape_str(query.shape()), " and key ", shape_str(key.shape()));

  // In-projection: q (L, N, E), k (S, N, E), v (S, N, E).
  Projected p;
  if (reuse_kv) {
    // Only the queries are new: q = query W_Qᵀ + b_Q (W_Q the first third of in_proj_weight).
    const Tensor w_q = o.use_separate_proj_weight() ? o.q_proj_weight() : o.in_proj_weight();
    SEQLAB_CHECK(w_q.defined() && w_q.dim() == 2 && w_q.shape()[1] == E &&
                     w_q.shape()[0] == (o.use_separate_proj_weight() ? inner : inner + 2 * kv_dim),
                 kName, "the query projection must be (", inner, ", ", E, ") or in_proj_weight (", inner + 2 * kv_dim,
                 ", ", E, "), got ", w_q.defined() ? shape_str(w_q.shape()) : "None");
    const Tensor b = o.in_proj_bias();
    const std::vector<int64_t> q_rest{inner, 2 * kv_dim};
    p.q = linear(query, o.use_separate_proj_weight() ? w_q : split(w_q, q_rest, 0)[0],
                 b.defined() ? split(b, q_rest, 0)[0] : Tensor());
  } else if (!o.use_separate_proj_weight()) {
    SEQLAB_CHECK_ASSERT(o.in_proj_weight().defined(), kName,
                        "use_separate_proj_weight is False but in_proj_weight is None");
    p = in_projection_packed(query, key, value, o.in_proj_weight(), o.in_proj_bias(), inner, kv_dim);
  } else {
    SEQLAB_CHECK_ASSERT(o.q_proj_weight().defined(), kName, "use_separate_proj_weight is True but q_proj_weight is None");
    SEQLAB_CHECK_ASSERT(o.k_proj_weight().defined(), kName, "use_separate_proj_weight is True but k_proj_weight is None");
    SEQLAB_CHECK_ASSERT(o.v_proj_weight().defined(), kName, "use_separate_proj_weight is True but v_proj_weight is None");
    p = in_projection(query, key, value, o.q_proj_weight(), o.k_proj_weight(), o.v_proj_weight(), o.in_proj_bias(),
                      inner, kv_dim);
  }

  // attn_mask as (1 or N·H, L, S).
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      SEQLAB_CHECK(attn_mask.shape() == Shape({L, S}), kName, "The shape of the 2D attn_mask is ",
                   shape_str(attn_mask.shape()), ", but should be ", size_tuple({L, S}), ".");
      attn_mask = unsqueeze(attn_mask, 0);
    } else {
      SEQLAB_CHECK(attn_mask.shape() == Shape({N * H, L, S}), kName, "The shape of the 3D attn_mask is ",
                   shape_str(attn_mask.shape()), ", but should be ", size_tuple({N * H, L, S}), ".");
    }
  }

  // add_bias_kv: one more key bias_k and value bias_v for every sequence, never masked.
  if (o.bias_k().defined() && o.bias_v().defined()) {
    SEQLAB_CHECK_ASSERT(!o.static_k().defined(), kName, "bias cannot be added to static key.");
    SEQLAB_CHECK_ASSERT(!o.static_v().defined(), kName, "bias cannot be added to static value.");
    SEQLAB_CHECK(o.bias_k().numel() == E && o.bias_v().numel() == E, kName,
                 "bias_k and bias_v must have shape (1, 1, ", E, "), got ", shape_str(o.bias_k().shape()), " and ",
                 shape_str(o.bias_v().shape()));
    p.k = cat({p.k, expand(reshape(o.bias_k(), {1, 1, E}), {1, N, E})}, 0);
    p.v = cat({p.v, expand(reshape(o.bias_v(), {1, 1, E}), {1, N, E})}, 0);
    if (attn_mask.defined()) attn_mask = pad_key(attn_mask);
    if (key_padding_mask.defined()) key_padding_mask = pad_key(key_padding_mask);
  } else {
    SEQLAB_CHECK_ASSERT(!o.bias_k().defined(), kName, "bias_k is set but bias_v is None");
    SEQLAB_CHECK_ASSERT(!o.bias_v().defined(), kName, "bias_v is set but bias_k is None");
  }

  // Heads: (L, N, E) -> (N·H, L, head_dim), batch first (a copy where the projection is a
  // slice of the packed one); keys and values (N·G, S, head_dim) of their G heads.
  Tensor q = transpose(reshape(p.q, {L, N * H, head_dim}), 0, 1);
  Tensor k, v;
  if (!reuse_kv) {
    k = o.static_k().defined() ? check_static(o.static_k(), "static_k", N * H, head_dim)
                               : transpose(reshape(p.k, {p.k.shape()[0], N * G, head_dim}), 0, 1);
    v = o.static_v().defined() ? check_static(o.static_v(), "static_v", N * H, head_dim)
                               : transpose(reshape(p.v, {p.v.shape()[0], N * G, head_dim}), 0, 1);
  }
  if (cache) {
    // k_{1..P+L} = cat(cached k_{1..P}, k_{P+1..P+L}), the same for v; a filled static cache as it is.
    // With grouped-query attention the cache holds the G key/value heads, as Hugging Face's does.
    if (!reuse_kv) cache->update(k, v, G);
    SEQLAB_CHECK(cache->key.shape()[0] == N * G && cache->key.shape()[2] == head_dim, kName,
                 "the kv_cache holds keys ", shape_str(cache->key.shape()),
                 " (N*num_key_value_heads, P, head_dim), but the query ", shape_str(query.shape()), " has batch ", N,
                 " and ", G, " key/value heads of ", head_dim, " (after beam search, call reorder_cache)");
    k = cache->key;
    v = cache->value;
  }
  k = repeat_kv(k, N, G, H);  // each key/value head for its H / G query heads
  v = repeat_kv(v, N, G, H);
  SEQLAB_CHECK(k.shape()[1] == v.shape()[1], kName, "keys and values must be as many, got ", k.shape()[1], " and ",
               v.shape()[1]);

  // add_zero_attn: one more key and value of zeros per head, never masked.
  if (o.add_zero_attn()) {
    k = cat({k, zeros({N * H, 1, head_dim}, k.dtype())}, 1);
    v = cat({v, zeros({N * H, 1, head_dim}, v.dtype())}, 1);
    if (attn_mask.defined()) attn_mask = pad_key(attn_mask);
    if (key_padding_mask.defined()) key_padding_mask = pad_key(key_padding_mask);
  }
  S = k.shape()[1];

  // The padding mask (N, S), the same for every head and query, is added to attn_mask.
  if (key_padding_mask.defined()) {
    SEQLAB_CHECK_ASSERT(key_padding_mask.shape()[0] == N, kName, "Expected key_padded_mask.shape[0] to be ", N,
                        ", but got ", key_padding_mask.shape()[0]);
    SEQLAB_CHECK_ASSERT(key_padding_mask.shape()[1] == S, kName, "Expected key_padded_mask.shape[1] to be ", S,
                        ", but got ", key_padding_mask.shape()[1]);
    Tensor kpm = reshape(expand(view(key_padding_mask, {N, 1, 1, S}), {N, H, 1, S}), {N * H, 1, S});
    attn_mask = attn_mask.defined() ? attn_mask + kpm : kpm;
  }
  const double dropout_p = o.training() ? o.dropout_p() : 0.0;

  const bool positional = o.pos().kind != "none";
  SEQLAB_CHECK(!positional || (!o.add_zero_attn() && !o.bias_k().defined()), kName, "a positional scheme (",
               o.pos().kind, ") gives keys positions, which add_zero_attn and add_bias_kv's extra key do not have");
  auto heads4 = [&](const Tensor& x) { return view(x, {N, H, x.shape()[1], head_dim}); };
  // the mask as (1, 1, L, S) or (N, H, L, S) for the 4-D attention
  auto mask4 = [&](const Tensor& m) {
    if (!m.defined()) return m;
    return m.shape()[0] == 1 ? unsqueeze(m, 0) : view(m, {N, H, -1, S});
  };

  Tensor out, weights;
  if (o.need_weights() && positional) {
    // The weights with the scheme's terms, explicitly; out = A v (+ the scheme's value term).
    std::tie(out, weights) = positional_attention_and_weights(heads4(q), heads4(k), heads4(v), o.pos(),
                                                              mask4(attn_mask), dropout_p, is_causal, o.scale(),
                                                              q_offset);
    out = reshape(out, {N * H, L, head_dim});
    if (o.average_attn_weights()) weights = mean(weights, {1});
  } else if (o.need_weights()) {
    // The weights, explicitly: A = dropout(softmax(q kᵀ / √d_head + mask)), out = A v (§3.2.1).
    const double scale = o.scale().value_or(std::sqrt(1.0 / static_cast<double>(head_dim)));
    Tensor scores = bmm(q * scale, transpose(k, 1, 2));
    if (attn_mask.defined()) scores = scores + attn_mask;
    weights = softmax(scores, -1);
    if (dropout_p > 0.0) weights = dropout(weights, dropout_p, true);
    out = bmm(weights, v);  // (N·H, L, head_dim)
    weights = view(weights, {N, H, L, S});
    if (o.average_attn_weights()) weights = mean(weights, {1});
  } else {
    // The fused kernel on (N, H, L, head_dim); the mask as (1, 1, L, S) or (N, H, L, S).
    // with a scheme or after a cache (kind "none": plain attention with the causal mask shifted)
    out = positional || q_offset > 0
              ? positional_attention(heads4(q), heads4(k), heads4(v), o.pos(), mask4(attn_mask), dropout_p, is_causal,
                                     o.scale(), q_offset)
                     : scaled_dot_product_attention(heads4(q), heads4(k), heads4(v), mask4(attn_mask), dropout_p,
                                                    is_causal, o.scale());
    out = reshape(out, {N * H, L, head_dim});
  }
  // Concat(head_1, ..., head_H) W_O + b_O: (N·H, L, d) -> (L, N, E).
  out = reshape(transpose(out, 0, 1), {L * N, inner});
  out = linear(out, o.out_proj_weight(), o.out_proj_bias());
  out = view(out, {L, N, out.shape().back()});
  if (!batched) {
    out = squeeze(out, 1);
    if (weights.defined()) weights = squeeze(weights, 0);
  }
  return {out, weights};
}

std::pair<Tensor, Tensor> multihead_attention_module_forward(const Tensor& query, const Tensor& key,
                                                             const Tensor& value, const MultiheadAttentionParams& m,
                                                             bool training, const Tensor& key_padding_mask,
                                                             bool need_weights, const Tensor& attn_mask,
                                                             bool average_attn_weights, bool is_causal,
                                                             AttentionCache* kv_cache) {
  // batch_first: (N, L, E) is read as (L, N, E), keeping query is key is value.
  const bool transposed = m.batch_first && query.dim() == 3;
  Tensor q = query, k = key, v = value;
  if (transposed) {
    q = transpose(query, 0, 1);
    k = same(key, query) ? q : transpose(key, 0, 1);
    v = same(value, key) ? k : transpose(value, 0, 1);
  }
  // The module turns bool masks into float ones before the functional does (so a wrong mask
  // dtype is refused even where the functional would drop attn_mask for the is_causal hint).
  const Dtype dtype = query.dtype();
  const bool separate = !m.in_proj_weight.defined();
  auto o = MultiheadAttentionForwardOptions(m.embed_dim, m.num_heads, m.in_proj_weight, m.in_proj_bias, m.bias_k,
                                            m.bias_v, m.add_zero_attn, m.dropout, m.out_proj_weight, m.out_proj_bias)
               .training(training)
               .key_padding_mask(canonical_mask(key_padding_mask, "key_padding_mask", dtype))
               .need_weights(need_weights)
               .attn_mask(canonical_mask(attn_mask, "attn_mask", dtype))
               .use_separate_proj_weight(separate)
               .q_proj_weight(m.q_proj_weight)
               .k_proj_weight(m.k_proj_weight)
               .v_proj_weight(m.v_proj_weight)
               .average_attn_weights(average_attn_weights)
               .is_causal(is_causal)
               .pos(m.pos)
               .scale(m.scale)
               .kv_cache(kv_cache)
               .num_key_value_heads(m.num_key_value_heads)
               .head_dim(m.head_dim);
  auto [out, weights] = multi_head_attention_forward(q, k, v, o);
  return {transposed ? transpose(out, 0, 1) : out, weights};
}

}  // namespace seqlab
