// Private to cpp/src/ops/attention*.cpp: the attention problem once its checks have passed and its
// batch dims are folded, and the dropout mask that the fused forward, its backward and the composed
// oracle all regenerate from one seed.
#pragma once
#include <cstdint>
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

// q (N, L, E), k (N, S, E), v (N, S, Ev), contiguous; scores scaled by `scale`; j > i masked when
// `causal`; attention weights dropped with probability dropout_p by the mask of `seed`.
struct Problem {
  Tensor q, k, v;
  MaskView mask;
  bool causal = false;
  double scale = 1.0;
  double dropout_p = 0.0;
  uint64_t seed = 0;
};

// The fused forward + backward (attention_fused.cpp): returns (N, L, Ev).
Tensor sdpa_fused(const Problem& p);

// Dropout of attention weight (n, i, j): kept iff the counter-based stream of `seed`
// (ops/counter_rng.hpp) at index (n·L + i)·S + j says so, so that any pass can regenerate any
// element without storing the L×S mask.
using counter_rng::dropout_keep;
using counter_rng::dropout_threshold;

}  // namespace seqlab::attention_detail
