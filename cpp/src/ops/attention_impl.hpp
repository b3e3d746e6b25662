// Private to cpp/src/ops/attention*.cpp: the attention problem once its checks have passed and its
// batch dims are folded, and the dropout mask that the fused forward, its backward and the composed
// oracle all regenerate from one seed.
#pragma once
#include <cstdint>
#include <vector>

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

// Dropout of attention weight (n, i, j): kept iff a 64-bit hash of (seed, (n·L + i)·S + j) is at
// least p·2⁶⁴ (SplitMix64's finaliser, Steele et al. 2014), so any pass can regenerate any element
// without storing the L×S mask.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline uint64_t dropout_threshold(double p) {  // p < 1 (p = 1 drops everything and is handled apart)
  return static_cast<uint64_t>(p * 18446744073709551616.0);
}
inline bool dropout_keep(uint64_t seed, uint64_t index, uint64_t threshold) {
  return mix64(seed + (index + 1) * 0x9e3779b97f4a7c15ULL) >= threshold;
}

}  // namespace seqlab::attention_detail
