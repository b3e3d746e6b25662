// Private to cpp/src/ops/attention*.cpp: the attention problem once its checks have passed and its
// batch dims are folded, and the dropout mask that the fused forward, its backward and the composed
// oracle all regenerate from one seed.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ops/counter_rng.hpp"
#include "seqlab/tensor.hpp"

namespace seqlab::attention_detail {

// Where mask element (n, i, j) lives: data + offset[n] + i·stride_i + j·stride_j (broadcast dims
// have stride 0, so a (L, S) mask is never copied N times).
struct MaskView {
  Tensor mask;                  // bool or the query's dtype; undefined when there is none
  std::vector<int64_t> offset;  // per flattened batch index n, in elements
  int64_t stride_i = 0, stride_j = 0;
};

// Relative-position terms (ops/positional.hpp) read from small per-head tables through a
// lookup from the distance d = (i + q_offset) − j, so that no L×S bias ever exists. With
// h = n mod heads (a table of one head serves all) and idx = index[d + S − 1]:
//   u_ij = scale · (q_i·k_j + qp_i·rel_key[h, idx] + k_j·rel_query[h, idx])
//   s_ij = (mult ? relu(u_ij) · mult[h, idx] : u_ij) + bias[h, idx] + mask_ij
//   o_i  = Σ_j p_ij (v_j + rel_value[h, idx])
// Every table is optional and contiguous in the query's dtype; qp (the query of the position term,
// Transformer-XL's q + v) is q when undefined. The index tensors are int64 of length L + q_offset + S − 1.
struct Relative {
  int64_t heads = 1;
  Tensor index;
  Tensor bias, mult;                   // (1 or heads, R)
  Tensor rel_key, rel_query;           // (1 or heads, R, E)
  Tensor rel_value;                    // (1 or heads, R, Ev)
  Tensor query_pos;                    // (N, L, E)
  bool any() const { return bias.defined() || mult.defined() || rel_key.defined() || rel_query.defined() || rel_value.defined(); }
};

// q (N, L, E), k (N, S, E), v (N, S, Ev), contiguous; scores scaled by `scale`; j > i + q_offset
// masked when `causal` (query i sits at position i + q_offset: the keys before it came from a cache);
// attention weights dropped with probability dropout_p by the mask of `seed`.
struct Problem {
  Tensor q, k, v;
  MaskView mask;
  Relative rel;
  int64_t q_offset = 0;
  bool causal = false;
  double scale = 1.0;
  double dropout_p = 0.0;
  uint64_t seed = 0;
};

// The fused forward + backward (attention_fused.cpp): returns (N, L, Ev).
Tensor sdpa_fused(const Problem& p);

// A folded problem plus what is needed to unfold the result.
struct Prepared {
  Problem p;
  Shape batch;  // the output's leading dims: (..., Hq)
  int64_t L = 0, S = 0, E = 0, Ev = 0;
};

// scaled_dot_product_attention's checks and torch's messages, grouped-query heads, batch dims
// broadcast and folded into one (N, L, E) problem (attention.cpp).
Prepared prepare(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask,
                 double dropout_p, bool is_causal, std::optional<double> scale, bool enable_gqa);
// out (N, L, cols) back to (..., Hq, L, cols).
Tensor unfold(const Tensor& out, const Prepared& r, int64_t cols);

// The composed oracle's pieces, ordinary ops with ordinary autograd: scale · Q Kᵀ (N, L, S); the
// softmax of scores after the mask and the causal mask, with torch's zero rows where all is masked;
// the dropout mask regenerated and scaled by 1/(1 − p).
Tensor composed_content_scores(const Prepared& r);
Tensor composed_softmax(const Prepared& r, Tensor scores);
Tensor composed_dropout_mask(const Problem& p, int64_t L, int64_t S);

// Dropout of attention weight (n, i, j): kept iff the counter-based stream of `seed`
// (ops/counter_rng.hpp) at index (n·L + i)·S + j says so, so that any pass can regenerate any
// element without storing the L×S mask.
using counter_rng::dropout_keep;
using counter_rng::dropout_threshold;

}  // namespace seqlab::attention_detail
