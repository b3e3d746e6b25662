// Positional schemes for attention (ops/positional.hpp): each scheme's tables built from its
// parameters by ordinary ops (so their gradients reach the parameters), then the fused kernel
// (attention_fused.cpp) reads them by distance; the composed oracle materialises the same terms.
// Tests: tests/test_positional.py, cpp/tests/test_attention.cpp.
#include "seqlab/ops/positional.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "kernel_utils.hpp"
#include "ops/attention_impl.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/linalg.hpp"
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

Tensor alibi_slopes(int64_t num_heads) {
  SEQLAB_CHECK(num_heads >= 1, "alibi_slopes: num_heads must be positive, got ", num_heads);
  auto geometric = [](int64_t n) {  // 2^(−8/n), 2^(−16/n), ..., 2^(−8)
    std::vector<double> s(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) s[i] = std::pow(2.0, -8.0 * static_cast<double>(i + 1) / static_cast<double>(n));
    return s;
  };
  int64_t p = 1;
  while (p * 2 <= num_heads) p *= 2;
  std::vector<double> s = geometric(p);
  if (p < num_heads) {
    const std::vector<double> twice = geometric(2 * p);
    for (int64_t i = 0; static_cast<int64_t>(s.size()) < num_heads; i += 2) s.push_back(twice[i]);
  }
  Tensor out = Tensor::empty({num_heads}, Dtype::Float64);
  std::copy(s.begin(), s.end(), out.data<double>());
  return out;
}

namespace {

int64_t t5_bucket(int64_t rel, bool bidirectional, int64_t num_buckets, int64_t max_distance) {
  int64_t bucket = 0;
  if (bidirectional) {
    num_buckets /= 2;
    if (rel > 0) bucket += num_buckets;
    rel = std::abs(rel);
  } else {
    rel = -std::min<int64_t>(rel, 0);
  }
  const int64_t max_exact = num_buckets / 2;
  if (rel < max_exact) return bucket + rel;
  // log-spaced: max_exact + log(rel / max_exact) / log(max_distance / max_exact) · (buckets − max_exact)
  const double f = std::log(static_cast<double>(rel) / static_cast<double>(max_exact)) /
                   std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact)) *
                   static_cast<double>(num_buckets - max_exact);
  return bucket + std::min<int64_t>(max_exact + static_cast<int64_t>(f), num_buckets - 1);
}

void check_t5(bool bidirectional, int64_t num_buckets, int64_t max_distance, const char* op) {
  const int64_t half = bidirectional ? num_buckets / 2 : num_buckets;
  SEQLAB_CHECK(half >= 2 && max_distance > half / 2, op, ": num_buckets ", num_buckets, " (",
               bidirectional ? "bidirectional" : "unidirectional", ") and max_distance ", max_distance,
               " leave no log-spaced buckets: need num_buckets >= ", bidirectional ? 4 : 2,
               " and max_distance > num_buckets / ", bidirectional ? 4 : 2);
}

}  // namespace

Tensor t5_relative_position_bucket(const Tensor& relative_position, bool bidirectional, int64_t num_buckets,
                                   int64_t max_distance) {
  SEQLAB_CHECK(relative_position.defined() && relative_position.dtype() == Dtype::Int64,
               "t5_relative_position_bucket: expected an int64 tensor of relative positions, got ",
               relative_position.defined() ? dtype_name(relative_position.dtype()) : "None");
  check_t5(bidirectional, num_buckets, max_distance, "t5_relative_position_bucket");
  const Tensor r = contiguous(relative_position);
  Tensor out = Tensor::empty(r.shape(), Dtype::Int64);
  const int64_t* rp = r.data<int64_t>();
  int64_t* o = out.data<int64_t>();
  for (int64_t i = 0; i < r.numel(); ++i) o[i] = t5_bucket(rp[i], bidirectional, num_buckets, max_distance);
  return out;
}

// ---------------------------------------------------------------------------------------------
// RoPE: one elementwise pass, y_a = x_a cos − x_b sin, y_b = x_a sin + x_b cos; the backward is the
// same pass with sin negated (a rotation's inverse is its transpose).
namespace {

template <typename T>
void rotate(const T* x, T* y, int64_t rows, int64_t L, int64_t D, const double* cos_t, const double* sin_t,
            double sign, bool interleaved) {
  const int64_t half = D / 2;
  parallel_for(rows, std::max<int64_t>(1, 8192 / D), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const double* cs = cos_t + (r % L) * half;
      const double* sn = sin_t + (r % L) * half;
      const T* xr = x + r * D;
      T* yr = y + r * D;
      for (int64_t c = 0; c < half; ++c) {
        const int64_t a = interleaved ? 2 * c : c, b = interleaved ? 2 * c + 1 : c + half;
        const double xa = xr[a], xb = xr[b], s = sign * sn[c];
        yr[a] = static_cast<T>(xa * cs[c] - xb * s);
        yr[b] = static_cast<T>(xa * s + xb * cs[c]);
      }
    }
  });
}

}  // namespace

Tensor rotary_embedding(const Tensor& x, int64_t offset, double base, bool interleaved) {
  SEQLAB_CHECK(x.defined() && x.dim() >= 2 && is_floating(x.dtype()),
               "rotary_embedding: expected a floating point tensor (..., L, D), got ",
               x.defined() ? shape_str(x.shape()) + " " + dtype_name(x.dtype()) : std::string("None"));
  const int64_t L = x.size(-2), D = x.size(-1);
  SEQLAB_CHECK(D % 2 == 0, "rotary_embedding: RoPE rotates pairs of features, so the head dim must be even, got ",
               shape_str(x.shape()));
  SEQLAB_CHECK(offset >= 0, "rotary_embedding: offset must be >= 0, got ", offset);
  auto tables = std::make_shared<std::vector<double>>(static_cast<size_t>(L * D));  // cos then sin, (L, D/2) each
  double* cos_t = tables->data();
  double* sin_t = cos_t + L * (D / 2);
  for (int64_t l = 0; l < L; ++l)
    for (int64_t c = 0; c < D / 2; ++c) {
      const double angle = static_cast<double>(offset + l) * std::pow(base, -2.0 * c / static_cast<double>(D));
      cos_t[l * (D / 2) + c] = std::cos(angle);
      sin_t[l * (D / 2) + c] = std::sin(angle);
    }
  const Tensor xc = contiguous(x);
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  const int64_t rows = L == 0 ? 0 : x.numel() / D;
  dispatch_float(x.dtype(), "rotary_embedding", [&](auto tag) {
    using T = decltype(tag);
    rotate(xc.data<T>(), y.data<T>(), rows, L, D, cos_t, sin_t, 1.0, interleaved);
  });
  if (any_requires_grad({x}))
    attach(y, "RotaryEmbeddingBackward", {x}, [tables, L, D, interleaved](const Tensor& g_) -> TensorList {
      const Tensor g = contiguous(g_);
      Tensor dx = Tensor::empty(g.shape(), g.dtype());
      const double* c = tables->data();
      dispatch_float(g.dtype(), "rotary_embedding_backward", [&](auto tag) {
        using T = decltype(tag);
        rotate(g.data<T>(), dx.data<T>(), g.numel() / D, L, D, c, c + L * (D / 2), -1.0, interleaved);
      });
      return {dx};
    });
  return y;
}

// ---------------------------------------------------------------------------------------------
// A scheme turned into the fused kernel's problem
namespace {

constexpr const char* kOp = "positional_attention";

struct Built {
  Tensor q, k;      // the content query and key (RoPE rotates them; Transformer-XL adds u to q)
  Tensor q_pos;     // the query of the position term when it differs (Transformer-XL's q + v)
  Relative rel;
  double scale = 1.0;
};

const Tensor& param(const PositionalScheme& s, const std::string& name) {
  const auto it = s.params.find(name);
  SEQLAB_CHECK(it != s.params.end() && it->second.defined(), kOp, ": the ", s.kind, " scheme needs its parameter '",
               name, "'");
  return it->second;
}

void check_params_dtype(const PositionalScheme& s, Dtype want) {
  for (const auto& [name, t] : s.params)
    SEQLAB_CHECK(!t.defined() || t.dtype() == want, kOp, ": the ", s.kind, " scheme's '", name, "' is ",
                 dtype_name(t.dtype()), " but the attention is ", dtype_name(want),
                 " (make the scheme in the model's dtype, or call .to() on the model)");
}

void check_param_shape(const PositionalScheme& s, const std::string& name, const Tensor& t, const Shape& want) {
  SEQLAB_CHECK(t.shape() == want, kOp, ": the ", s.kind, " scheme's '", name, "' has shape ", shape_str(t.shape()),
               ", expected ", shape_str(want));
}

// int64 (L + off + S − 1): entry t holds map(d) for the distance d = t − (S − 1).
template <typename F>
Tensor distance_index(int64_t L, int64_t S, int64_t off, F map) {
  const int64_t n = std::max<int64_t>(1, L + off + S - 1);
  Tensor t = Tensor::empty({n}, Dtype::Int64);
  int64_t* p = t.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) p[i] = map(i - (S - 1));
  return t;
}

// Shaw's r = clip(j − i, −k, k) + k as a table row, j − i = −d.
Tensor shaw_index(int64_t L, int64_t S, int64_t off, int64_t k) {
  return distance_index(L, S, off, [k](int64_t d) { return std::clamp<int64_t>(-d, -k, k) + k; });
}

// (H, R, D) from rows (R, H·D): a projected table split into heads.
Tensor by_head(const Tensor& rows, int64_t H) {
  return contiguous(transpose(reshape(rows, {rows.size(0), H, rows.size(1) / H}), 0, 1));
}

Built build(const Tensor& query, const Tensor& key, const PositionalScheme& pos, std::optional<double> scale,
            int64_t off) {
  const int64_t H = query.size(1), L = query.size(2), S = key.size(2), D = query.size(3);
  const Dtype dt = query.dtype();
  check_params_dtype(pos, dt);
  Built b;
  b.q = query;
  b.k = key;
  b.scale = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(D));
  b.rel.heads = H;
  const std::string& kind = pos.kind;
  auto heads_must_match = [&] {
    SEQLAB_CHECK(pos.num_heads == H, kOp, ": the ", kind, " scheme was built for ", pos.num_heads,
                 " heads but the attention has ", H, " (query ", shape_str(query.shape()), ")");
  };
  if (kind == "none") {
  } else if (kind == "rope") {
    SEQLAB_CHECK(pos.head_dim == 0 || pos.head_dim == D, kOp, ": the rope scheme rotates head_dim ", pos.head_dim,
                 " but the attention's heads have dimension ", D, " (query ", shape_str(query.shape()), ")");
    b.q = rotary_embedding(query, off, pos.base, pos.interleaved);
    b.k = rotary_embedding(key, 0, pos.base, pos.interleaved);
  } else if (kind == "alibi") {
    heads_must_match();
    b.rel.index = distance_index(L, S, off, [S](int64_t d) { return d + S - 1; });
    const int64_t R = b.rel.index.size(0);
    const Tensor slopes = alibi_slopes(H);
    Tensor bias = Tensor::empty({H, R}, Dtype::Float64);
    for (int64_t h = 0; h < H; ++h)  // −m_h · |d|, d = t − (S − 1)
      for (int64_t t = 0; t < R; ++t)
        bias.data<double>()[h * R + t] = -slopes.data<double>()[h] * static_cast<double>(std::abs(t - (S - 1)));
    b.rel.bias = to_dtype(bias, dt);
  } else if (kind == "t5") {
    heads_must_match();
    check_t5(pos.bidirectional, pos.num_buckets, pos.max_distance, kOp);
    const Tensor& w = param(pos, "relative_attention_bias");
    check_param_shape(pos, "relative_attention_bias", w, {pos.num_buckets, H});
    b.rel.index = distance_index(L, S, off, [&](int64_t d) {  // T5 buckets j − i = −d
      return t5_bucket(-d, pos.bidirectional, pos.num_buckets, pos.max_distance);
    });
    b.rel.bias = contiguous(transpose(w, 0, 1));
  } else if (kind == "shaw") {
    const int64_t k = pos.max_relative_position;
    SEQLAB_CHECK(k >= 1, kOp, ": the shaw scheme needs max_relative_position >= 1, got ", k);
    b.rel.index = shaw_index(L, S, off, k);
    const Tensor& ak = param(pos, "relative_key");
    check_param_shape(pos, "relative_key", ak, {2 * k + 1, D});
    b.rel.rel_key = unsqueeze(contiguous(ak), 0);
    const auto it = pos.params.find("relative_value");
    if (it != pos.params.end() && it->second.defined()) {
      check_param_shape(pos, "relative_value", it->second, {2 * k + 1, D});
      b.rel.rel_value = unsqueeze(contiguous(it->second), 0);
    }
  } else if (kind == "xl") {
    heads_must_match();
    const Tensor &u = param(pos, "r_w_bias"), &v = param(pos, "r_r_bias"), &w = param(pos, "r_net");
    check_param_shape(pos, "r_w_bias", u, {H, D});
    check_param_shape(pos, "r_r_bias", v, {H, D});
    check_param_shape(pos, "r_net", w, {H * D, H * D});
    b.rel.index = distance_index(L, S, off, [S](int64_t d) { return d + S - 1; });
    // W_R R_d for d = −(S − 1) ... L + off − 1, split into heads: (H, R, D). R_d in Transformer-XL's
    // layout: all the sines, then all the cosines (its PositionalEmbedding concatenates them; the
    // interleaved table of sinusoidal_encoding made a Transformer-XL r_net weight compute another
    // attention), at the same frequencies base^(−2c/dim).
    const Tensor d = arange(static_cast<double>(-(S - 1)), static_cast<double>(L + off), 1.0, Dtype::Float64);
    const int64_t P = d.size(0), dim = H * D;
    const Tensor R = reshape(contiguous(transpose(reshape(sinusoidal_encoding(d, dim, pos.base, dt), {P, dim / 2, 2}),
                                                  1, 2)),
                             {P, dim});
    b.rel.rel_key = by_head(linear(R, w), H);
    b.q = add(query, reshape(u, {1, H, 1, D}));
    b.q_pos = add(query, reshape(v, {1, H, 1, D}));
  } else if (kind == "deberta") {
    heads_must_match();
    const int64_t k = pos.max_relative_position;
    SEQLAB_CHECK(k >= 1, kOp, ": the deberta scheme needs max_relative_position >= 1, got ", k);
    auto delta = [k](int64_t x) { return x <= -k ? int64_t(0) : x >= k ? 2 * k - 1 : x + k; };
    // Both terms read row δ(i, j), as DeBERTa's released code and Hugging Face's DebertaV2 do (the
    // paper's eq. 4 writes δ(j, i) for p2c; read literally it gave another attention, 0.3 apart).
    b.rel.index = distance_index(L, S, off, [&](int64_t d) { return delta(d); });  // δ(i, j)
    const Tensor& P = param(pos, "rel_embeddings");
    check_param_shape(pos, "rel_embeddings", P, {2 * k, H * D});
    auto opt = [&](const char* n) {
      const auto it = pos.params.find(n);
      return it == pos.params.end() ? Tensor() : it->second;
    };
    b.rel.rel_key = by_head(linear(P, param(pos, "pos_key_proj_weight"), opt("pos_key_proj_bias")), H);
    b.rel.rel_query = by_head(linear(P, param(pos, "pos_query_proj_weight"), opt("pos_query_proj_bias")), H);
    if (!scale) b.scale = 1.0 / std::sqrt(3.0 * static_cast<double>(D));
  } else if (kind == "da") {
    heads_must_match();
    const Tensor &w = param(pos, "distance_weight"), &v = param(pos, "sigmoid_shift");
    check_param_shape(pos, "distance_weight", w, {H});
    check_param_shape(pos, "sigmoid_shift", v, {H});
    b.rel.index = distance_index(L, S, off, [](int64_t d) { return std::abs(d); });
    const int64_t R = std::max<int64_t>(1, std::max(L + off, S));
    // R̂_h(x) = (1 + e^{v_h}) / (1 + e^{v_h − w_h x}) for x = 0 ... R − 1
    const Tensor x = reshape(arange(0.0, static_cast<double>(R), 1.0, dt), {1, R});
    const Tensor vh = reshape(v, {H, 1}), wh = reshape(w, {H, 1});
    const Tensor one = scalar_tensor(1.0, dt);
    b.rel.mult = contiguous(div(add(one, exp(vh)), add(one, exp(sub(vh, mul(wh, x))))));
  } else {
    SEQLAB_CHECK(false, kOp, ": unknown positional scheme '", kind,
                 "' (expected none, rope, alibi, t5, shaw, xl, deberta or da)");
  }
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

Tensor positional_values(const Tensor& weights, const PositionalScheme& pos, int64_t q_offset) {
  if (pos.kind != "shaw") return Tensor();
  const auto it = pos.params.find("relative_value");
  if (it == pos.params.end() || !it->second.defined()) return Tensor();
  SEQLAB_CHECK(weights.dim() == 4, "positional_values: expected weights (B, H, L, S), got ", shape_str(weights.shape()));
  const int64_t L = weights.size(2), S = weights.size(3);
  const Tensor idx = distance_matrix(shaw_index(L, S, q_offset, pos.max_relative_position), L, S, q_offset);
  return value_term(weights, unsqueeze(it->second, 0), idx);
}

}  // namespace seqlab
