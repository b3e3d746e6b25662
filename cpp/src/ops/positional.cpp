// Positional schemes for attention (ops/positional.hpp): the registry of schemes (each in its own
// file under ops/positional/, which builds its tables from its parameters by ordinary ops, so
// their gradients reach the parameters), the sinusoid they share, and attention with a scheme:
// the fused kernel (attention_fused.cpp) reads the tables by distance; the composed oracle
// materialises the same terms. Tests: tests/test_positional.py, cpp/tests/test_attention.cpp.
#include "seqlab/ops/positional.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <variant>
#include <vector>

#include "kernel_utils.hpp"
#include "ops/attention_impl.hpp"
#include "ops/positional/scheme.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/parallel.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

using attention_detail::Prepared;
using attention_detail::Problem;
using attention_detail::Relative;

// ---------------------------------------------------------------------------------------------
// Tables

Tensor sinusoidal_encoding(const Tensor& positions, int64_t dim, double base, Dtype dtype) {
  SEQLAB_CHECK(positions.defined() && positions.dim() == 1, "sinusoidal_encoding: expected positions of shape (P), got ",
               positions.defined() ? shape_str(positions.shape()) : std::string("None"));
  SEQLAB_CHECK(dim > 0 && dim % 2 == 0, "sinusoidal_encoding: dim must be even and positive, got ", dim);
  SEQLAB_CHECK(is_floating(dtype), "sinusoidal_encoding: dtype must be floating point, got ", dtype_name(dtype));
  const Tensor p = contiguous(to_dtype(positions, Dtype::Float64));
  const int64_t P = p.size(0);
  Tensor out = Tensor::empty({P, dim}, Dtype::Float64);
  const double* pp = p.data<double>();
  double* o = out.data<double>();
  for (int64_t c = 0; c < dim / 2; ++c) {
    const double inv_freq = std::pow(base, -2.0 * static_cast<double>(c) / static_cast<double>(dim));
    for (int64_t r = 0; r < P; ++r) {
      o[r * dim + 2 * c] = std::sin(pp[r] * inv_freq);
      o[r * dim + 2 * c + 1] = std::cos(pp[r] * inv_freq);
    }
  }
  return to_dtype(out, dtype);
}

// ---------------------------------------------------------------------------------------------
// The registry of schemes (ops/positional/scheme.hpp)
namespace positional_detail {
namespace {

std::map<std::string, SchemeDescription>& registry() {
  static std::map<std::string, SchemeDescription> schemes;  // built as the scheme files load
  return schemes;
}

std::string kinds_list() {
  std::string out;
  for (const auto& [kind, description] : registry()) out += (out.empty() ? "" : ", ") + kind;
  return out;
}

const PositionalOption* find_option(const PositionalScheme& s, const std::string& name) {
  const auto it = s.options.find(name);
  return it == s.options.end() ? nullptr : &it->second;
}

[[noreturn]] void wrong_option(const PositionalScheme& s, const std::string& name, const char* want) {
  throw std::invalid_argument(str_cat(kOp, ": the ", s.kind, " scheme's option '", name, "' must be ", want));
}

// plain attention: no tables, no change of the query and key
const SchemeRegistration kNone{"none", {}};

}  // namespace

SchemeRegistration::SchemeRegistration(const char* kind, SchemeDescription description) {
  registry().emplace(kind, description);
}

const SchemeDescription& find_scheme(const std::string& kind) {
  const auto it = registry().find(kind);
  SEQLAB_CHECK(it != registry().end(), kOp, ": unknown positional scheme '", kind, "' (expected one of ",
               kinds_list(), ")");
  return it->second;
}

bool SchemeContext::option_bool(const std::string& name, bool fallback) const {
  const PositionalOption* o = find_option(pos, name);
  if (!o) return fallback;
  if (const bool* b = std::get_if<bool>(o)) return *b;
  wrong_option(pos, name, "True or False");
}

int64_t SchemeContext::option_int(const std::string& name, int64_t fallback) const {
  const PositionalOption* o = find_option(pos, name);
  if (!o) return fallback;
  if (const int64_t* i = std::get_if<int64_t>(o)) return *i;
  wrong_option(pos, name, "an integer");
}

double SchemeContext::option_double(const std::string& name, double fallback) const {
  const PositionalOption* o = find_option(pos, name);
  if (!o) return fallback;
  if (const double* d = std::get_if<double>(o)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(o)) return static_cast<double>(*i);
  wrong_option(pos, name, "a number");
}

std::string SchemeContext::option_string(const std::string& name, const std::string& fallback) const {
  const PositionalOption* o = find_option(pos, name);
  if (!o) return fallback;
  if (const std::string* text = std::get_if<std::string>(o)) return *text;
  wrong_option(pos, name, "a string");
}

const Tensor& SchemeContext::param(const std::string& name, const Shape& shape) const {
  const auto it = pos.params.find(name);
  SEQLAB_CHECK(it != pos.params.end() && it->second.defined(), kOp, ": the ", pos.kind,
               " scheme needs its parameter '", name, "'");
  SEQLAB_CHECK(shape.empty() || it->second.shape() == shape, kOp, ": the ", pos.kind, " scheme's '", name,
               "' has shape ", shape_str(it->second.shape()), ", expected ", shape_str(shape));
  return it->second;
}

Tensor SchemeContext::optional_param(const std::string& name, const Shape& shape) const {
  const auto it = pos.params.find(name);
  if (it == pos.params.end() || !it->second.defined()) return Tensor();
  return param(name, shape);
}

void SchemeContext::require_heads() const {
  const int64_t built_for = option_int("num_heads", 1);
  SEQLAB_CHECK(built_for == H, kOp, ": the ", pos.kind, " scheme was built for ", built_for,
               " heads but the attention has ", H);
}

Tensor SchemeContext::distances() const {
  return arange(static_cast<double>(-(S - 1)), static_cast<double>(L + off), 1.0, Dtype::Float64);
}

Tensor by_head(const Tensor& rows, int64_t H) {
  return contiguous(transpose(reshape(rows, {rows.size(0), H, rows.size(1) / H}), 0, 1));
}

}  // namespace positional_detail

std::vector<std::string> positional_scheme_kinds() {
  std::vector<std::string> kinds;
  for (const auto& [kind, description] : positional_detail::registry()) kinds.push_back(kind);
  return kinds;
}

// ---------------------------------------------------------------------------------------------
// A scheme turned into the fused kernel's problem
namespace {

using positional_detail::kOp;
using positional_detail::SchemeContext;
using positional_detail::SchemeInputs;

void check_params_dtype(const PositionalScheme& s, Dtype want) {
  for (const auto& [name, t] : s.params)
    SEQLAB_CHECK(!t.defined() || t.dtype() == want, kOp, ": the ", s.kind, " scheme's '", name, "' is ",
                 dtype_name(t.dtype()), " but the attention is ", dtype_name(want),
                 " (make the scheme in the model's dtype, or call .to() on the model)");
}

struct Built {
  Tensor q, k;   // the content query and key (RoPE rotates them; Transformer-XL adds u to q)
  Tensor q_pos;  // the query of the position term when it differs (Transformer-XL's q + v)
  Relative rel;
  double scale = 1.0;
};

// The scheme's registered description applied to this attention: its tables, its query and key,
// and the scale (the caller's, else the scheme's, else 1/√D).
Built build(const Tensor& query, const Tensor& key, const PositionalScheme& pos, std::optional<double> scale,
            int64_t off) {
  const positional_detail::SchemeDescription& scheme = positional_detail::find_scheme(pos.kind);
  check_params_dtype(pos, query.dtype());
  const SchemeContext ctx{pos, query.size(1), query.size(2), key.size(2), query.size(3), off, query.dtype()};
  Built b;
  b.rel.heads = ctx.H;
  std::optional<double> scheme_scale;
  if (scheme.tables) scheme_scale = scheme.tables(ctx, b.rel);
  SchemeInputs in{query, key, Tensor()};
  if (scheme.inputs) scheme.inputs(ctx, in);
  b.q = in.q;
  b.k = in.k;
  b.q_pos = in.q_pos;
  b.scale = scale ? *scale : scheme_scale ? *scheme_scale : 1.0 / std::sqrt(static_cast<double>(ctx.D));
  return b;
}

void check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, int64_t q_offset) {
  SEQLAB_CHECK(q.defined() && k.defined() && v.defined() && q.dim() == 4 && k.dim() == 4 && v.dim() == 4, kOp,
               ": expected query (B, H, L, D), key (B, H, S, D) and value (B, H, S, Dv), got ",
               q.defined() ? shape_str(q.shape()) : "None", ", ", k.defined() ? shape_str(k.shape()) : "None", ", ",
               v.defined() ? shape_str(v.shape()) : "None");
  SEQLAB_CHECK(q.size(0) == k.size(0) && q.size(0) == v.size(0) && q.size(1) == k.size(1) && q.size(1) == v.size(1),
               kOp, ": query ", shape_str(q.shape()), ", key ", shape_str(k.shape()), " and value ",
               shape_str(v.shape()), " must have the same batch size B and heads H");
  SEQLAB_CHECK(q_offset >= 0, kOp, ": q_offset must be >= 0, got ", q_offset);
}

// The problem folded to (B·H, L, D) with the scheme's terms attached.
Prepared prepare_positional(const Tensor& query, const Tensor& key, const Tensor& value, const PositionalScheme& pos,
                            const Tensor& attn_mask, double dropout_p, bool is_causal, std::optional<double> scale,
                            int64_t q_offset) {
  check_inputs(query, key, value, q_offset);
  Built b = build(query, key, pos, scale, q_offset);
  Prepared r = attention_detail::prepare(b.q, b.k, value, attn_mask, dropout_p, is_causal, b.scale, false);
  r.p.q_offset = q_offset;
  r.p.rel = std::move(b.rel);
  if (b.q_pos.defined()) r.p.rel.query_pos = contiguous(reshape(b.q_pos, {r.p.q.size(0), r.L, r.E}));
  SEQLAB_CHECK(!r.p.rel.rel_value.defined() || r.p.rel.rel_value.size(2) == r.Ev, kOp, ": the ", pos.kind,
               " scheme's value table has width ", r.p.rel.rel_value.defined() ? r.p.rel.rel_value.size(2) : 0,
               " but value ", shape_str(value.shape()), " has Dv = ", r.Ev);
  return r;
}

// idx[i, j] = index[i + off − j + S − 1]: (L, S) int64.
Tensor distance_matrix(const Tensor& index, int64_t L, int64_t S, int64_t off) {
  Tensor m = Tensor::empty({L, S}, Dtype::Int64);
  const int64_t* src = index.data<int64_t>();
  int64_t* d = m.data<int64_t>();
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < S; ++j) d[i * S + j] = src[i + off - j + S - 1];
  return m;
}

// table (Ht, R) read at idx (L, S): (N, L, S) for N = B·H.
Tensor per_pair(const Tensor& table, const Tensor& idx, int64_t N, int64_t H) {
  const int64_t L = idx.size(0), S = idx.size(1);
  const Tensor t = reshape(index_select(table, 1, reshape(idx, {L * S})), {1, table.size(0), L, S});
  return reshape(expand(t, {N / H, H, L, S}), {N, L, S});
}

// Σ_j w_ij Rv[h, idx(i, j)] for w (B, H, L, S) and a table Rv (1 or H, R, Dv): (B, H, L, Dv).
Tensor value_term(const Tensor& w, const Tensor& rel_value, const Tensor& idx) {
  const int64_t L = idx.size(0), S = idx.size(1);
  const Tensor rv = reshape(index_select(rel_value, 1, reshape(idx, {L * S})),
                            {1, rel_value.size(0), L, S, rel_value.size(2)});
  const Tensor wv = matmul(unsqueeze(w, -2), rv);  // (B, H, L, 1, Dv)
  return squeeze(wv, -2);
}

// The scores with every term of the scheme, composed: (N, L, S) before the masks.
Tensor composed_scores(const Prepared& r) {
  const Problem& p = r.p;
  const Relative& rel = p.rel;
  const int64_t N = p.q.size(0), H = rel.heads, L = r.L, S = r.S;
  Tensor s = attention_detail::composed_content_scores(r);
  if (!rel.any()) return s;
  const Tensor sc = scalar_tensor(p.scale, p.q.dtype());
  const Tensor idx = distance_matrix(rel.index, L, S, p.q_offset);
  if (rel.rel_key.defined()) {  // scale · qp_i · Rk[h, idx(i, j)]
    const Tensor qp = reshape(rel.query_pos.defined() ? rel.query_pos : p.q, {N / H, H, L, r.E});
    const Tensor qr = reshape(matmul(qp, transpose(rel.rel_key, -1, -2)), {N, L, rel.rel_key.size(1)});
    s = add(s, mul(gather(qr, 2, contiguous(expand(unsqueeze(idx, 0), {N, L, S}))), sc));
  }
  if (rel.rel_query.defined()) {  // scale · k_j · Rq[h, idx(i, j)]
    const Tensor k4 = reshape(p.k, {N / H, H, S, r.E});
    const Tensor kr = reshape(matmul(k4, transpose(rel.rel_query, -1, -2)), {N, S, rel.rel_query.size(1)});
    const Tensor g = gather(kr, 2, contiguous(expand(unsqueeze(t(idx), 0), {N, S, L})));
    s = add(s, mul(transpose(g, 1, 2), sc));
  }
  if (rel.mult.defined()) s = mul(relu(s), per_pair(rel.mult, idx, N, H));
  if (rel.bias.defined()) s = add(s, per_pair(rel.bias, idx, N, H));
  return s;
}

Tensor composed_output(const Prepared& r) {
  const Problem& p = r.p;
  Tensor w = attention_detail::composed_softmax(r, composed_scores(r));
  if (p.dropout_p > 0.0) w = mul(w, attention_detail::composed_dropout_mask(p, r.L, r.S));
  Tensor out = bmm(w, p.v);
  const Relative& rel = p.rel;
  if (rel.rel_value.defined()) {  // + Σ_j w_ij Rv[h, idx(i, j)]
    const int64_t N = p.q.size(0), H = rel.heads, L = r.L, S = r.S;
    const Tensor idx = distance_matrix(rel.index, L, S, p.q_offset);
    out = add(out, reshape(value_term(reshape(w, {N / H, H, L, S}), rel.rel_value, idx), {N, L, r.Ev}));
  }
  return out;
}

}  // namespace

Tensor positional_attention(const Tensor& query, const Tensor& key, const Tensor& value, const PositionalScheme& pos,
                            const Tensor& attn_mask, double dropout_p, bool is_causal, std::optional<double> scale,
                            int64_t q_offset) {
  const Prepared r = prepare_positional(query, key, value, pos, attn_mask, dropout_p, is_causal, scale, q_offset);
  if (attn_mask.defined() && attn_mask.requires_grad()) return attention_detail::unfold(composed_output(r), r, r.Ev);
  return attention_detail::unfold(attention_detail::sdpa_fused(r.p), r, r.Ev);
}

Tensor positional_attention_math(const Tensor& query, const Tensor& key, const Tensor& value,
                                 const PositionalScheme& pos, const Tensor& attn_mask, double dropout_p, bool is_causal,
                                 std::optional<double> scale, int64_t q_offset) {
  const Prepared r = prepare_positional(query, key, value, pos, attn_mask, dropout_p, is_causal, scale, q_offset);
  return attention_detail::unfold(composed_output(r), r, r.Ev);
}

Tensor positional_attention_weights(const Tensor& query, const Tensor& key, const PositionalScheme& pos,
                                    const Tensor& attn_mask, bool is_causal, std::optional<double> scale,
                                    int64_t q_offset) {
  PositionalScheme scores_only = pos;  // the weights do not need Shaw's value table
  scores_only.params.erase("relative_value");
  const Prepared r =
      prepare_positional(query, key, narrow(key, -1, 0, 0), scores_only, attn_mask, 0.0, is_causal, scale, q_offset);
  return attention_detail::unfold(attention_detail::composed_softmax(r, composed_scores(r)), r, r.S);
}

std::pair<Tensor, Tensor> positional_attention_and_weights(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const PositionalScheme& pos, const Tensor& attn_mask,
                                                           double dropout_p, bool is_causal,
                                                           std::optional<double> scale, int64_t q_offset) {
  const Prepared r = prepare_positional(query, key, value, pos, attn_mask, 0.0, is_causal, scale, q_offset);
  Tensor weights = attention_detail::unfold(attention_detail::composed_softmax(r, composed_scores(r)), r, r.S);
  if (dropout_p > 0.0) weights = dropout(weights, dropout_p, true);
  Tensor out = matmul(weights, value);
  const Relative& rel = r.p.rel;
  if (rel.rel_value.defined())  // + Σ_j w_ij Rv[h, idx(i, j)], from the tables the weights were made with
    out = add(out, value_term(weights, rel.rel_value, distance_matrix(rel.index, r.L, r.S, q_offset)));
  return {out, weights};
}

}  // namespace seqlab
