// Positional information for attention: the tables and rotations the schemes share, and attention
// that applies a scheme inside the fused kernel (ops/attention.hpp) without an L×S bias.
//
// A scheme is described by a PositionalScheme (kind, options, and its parameters under the names
// of the Python module, python/seqlab/nn/positional.py) and lowered by the function its own file
// registers (cpp/src/ops/positional/<kind>.cpp, which states its formula): to a change of the
// content query and key (RoPE rotates them) and to per-head tables read by the distance
// d = i + q_offset − j of query position i + q_offset and key position j (a bias, a multiplier, a
// key, query or value table). kind "none" is plain softmax(q·k/√D). The absolute schemes
// (sinusoidal, learned) add to the embeddings and need no attention change.
// Tests: tests/test_positional.py (each scheme against its formula in torch ops, gradcheck).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "seqlab/tensor.hpp"

namespace seqlab {

// PE(p, 2c) = sin(p / base^(2c/dim)), PE(p, 2c+1) = cos(p / base^(2c/dim)) for each position p of
// `positions` (any float or integer tensor of shape (P)): (P, dim) in `dtype` (Vaswani et al. §3.5).
Tensor sinusoidal_encoding(const Tensor& positions, int64_t dim, double base = 10000.0, Dtype dtype = Dtype::Float32);

// ALiBi's head slopes (Press et al. 2022, §3): for n a power of two the geometric sequence
// 2^(−8/n), 2^(−16/n), ..., 2^(−8); otherwise the slopes of the largest power of two p < n, then
// every other slope of 2p until there are n. (num_heads) float64.
Tensor alibi_slopes(int64_t num_heads);

// T5's bucket of relative positions j − i (Raffel et al. 2020; the bucketing of the T5 code):
// bidirectional halves the buckets by sign; of each half, the first half of the buckets hold
// distances exactly, the rest distances logarithmically up to max_distance (larger ones share the
// last bucket); unidirectional (causal) buckets count only −min(j − i, 0). int64 like the input.
Tensor t5_relative_position_bucket(const Tensor& relative_position, bool bidirectional = true,
                                   int64_t num_buckets = 32, int64_t max_distance = 128);

// DeBERTa-v2's log bucket of each relative position i − j (He et al. 2021; DeBERTa's code,
// make_log_bucket_position): distances below bucket_size / 2 = m kept, larger ones mapped to
// sign·(m + ⌈log(|d| / m) / log((max_position − 1) / m) · (m − 1)⌉), computed in float32 as that code
// does so that every checkpoint's buckets agree. int64 like the input.
Tensor deberta_log_bucket_position(const Tensor& relative_position, int64_t bucket_size, int64_t max_position);

// RoPE: x (..., L, D) with position offset + l of row l rotated pairwise by angle position·θ_c,
// θ_c = base^(−2c/D): (x_a, x_b) -> (x_a cos − x_b sin, x_a sin + x_b cos) with (a, b) = (2c, 2c+1)
// when interleaved, else (c, c + D/2). Elementwise with cos/sin tables of (L, D/2); one fused op
// whose backward rotates by −angle. D must be even.
Tensor rotary_embedding(const Tensor& x, int64_t offset = 0, double base = 10000.0, bool interleaved = true);

// What a positional module passes to the attention: its kind (a name in the registry of schemes,
// cpp/src/ops/positional/: one file per scheme, each registering its lowering), its options by
// name (num_heads, base, num_buckets, ...: the Python module's _options()) and its parameters by
// name (the module's parameter names: t5 "relative_attention_bias", xl "r_w_bias", ...). Each
// scheme's file says which it reads; a missing option takes the scheme's default.
using PositionalOption = std::variant<bool, int64_t, double, std::string>;
struct PositionalScheme {
  std::string kind = "none";
  std::map<std::string, PositionalOption> options;
  std::map<std::string, Tensor> params;
};

// The kinds the registry holds, sorted ("alibi", "da", ...).
std::vector<std::string> positional_scheme_kinds();

// Attention with a positional scheme: query (B, H, L, D), key (B, H, S, D), value (B, H, S, Dv)
// -> (B, H, L, Dv), in the fused kernel (no L×S bias; tables of O(L + S) rows per head). attn_mask
// and is_causal as scaled_dot_product_attention's (bool true = may attend); the causal mask and
// the positions see query l at position l + q_offset. scale defaults to the scheme's.
Tensor positional_attention(const Tensor& query, const Tensor& key, const Tensor& value, const PositionalScheme& pos,
                            const Tensor& attn_mask = Tensor(), double dropout_p = 0.0, bool is_causal = false,
                            std::optional<double> scale = std::nullopt, int64_t q_offset = 0);

// The same by ordinary ops with the biases materialised (B, H, L, S): the oracle.
Tensor positional_attention_math(const Tensor& query, const Tensor& key, const Tensor& value,
                                 const PositionalScheme& pos, const Tensor& attn_mask = Tensor(),
                                 double dropout_p = 0.0, bool is_causal = false,
                                 std::optional<double> scale = std::nullopt, int64_t q_offset = 0);

// The attention weights (B, H, L, S) with the scheme, differentiable: the maps to plot.
Tensor positional_attention_weights(const Tensor& query, const Tensor& key, const PositionalScheme& pos,
                                    const Tensor& attn_mask = Tensor(), bool is_causal = false,
                                    std::optional<double> scale = std::nullopt, int64_t q_offset = 0);

// MultiheadAttention's need_weights path with a scheme, from one lowering of it: the weights
// (B, H, L, S), dropped out with dropout_p as torch returns them, and out = weights·V plus the
// scheme's value term Σ_j weights_ij · Rv[h, idx(i, j)] (Shaw's a^V), (B, H, L, Dv).
std::pair<Tensor, Tensor> positional_attention_and_weights(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const PositionalScheme& pos,
                                                           const Tensor& attn_mask = Tensor(), double dropout_p = 0.0,
                                                           bool is_causal = false,
                                                           std::optional<double> scale = std::nullopt,
                                                           int64_t q_offset = 0);

}  // namespace seqlab
