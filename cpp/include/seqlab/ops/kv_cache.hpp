// A key/value cache for incremental decoding: the projected keys and values of the positions an
// attention layer has already seen, per head, so that a step with new tokens projects only those
// (k_{1..P+L} = cat(cached k_{1..P}, W_K x_{P+1..P+L})). torch.nn.MultiheadAttention has no cache;
// this is seqlab's extension, shaped after Hugging Face's DynamicCache / EncoderDecoderCache
// (keys and values (N, H, P, head_dim), get_seq_length, reorder_cache for beam search).
// Used by multi_head_attention_forward (ops/multihead_attention.hpp) and the Transformer layers.
// cpp/src/ops/kv_cache.cpp; tests: tests/test_kv_cache.py.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "seqlab/tensor.hpp"

namespace seqlab {

// One attention's cache. Self-attention (is_static false) appends the new keys and values at
// every step. Cross-attention (is_static true) holds the memory's keys and values: projected at
// the first step, reused as they are afterwards (the key and value arguments are then not read).
struct AttentionCache {
  explicit AttentionCache(bool is_static = false) : is_static(is_static) {}
  Tensor key, value;  // (N·H, P, head_dim), undefined while empty
  int64_t num_heads = 0;  // H, set by the first update
  bool is_static = false;

  int64_t length() const { return key.defined() ? key.shape()[1] : 0; }  // P
  // Self-attention: k <- cat(k, k_new) along positions, and the same for v; returns the whole.
  // Static: stores k_new, v_new once. k_new, v_new: (N·H, L, head_dim) of H heads.
  void update(const Tensor& k_new, const Tensor& v_new, int64_t heads);
  // Beam search: keep batch rows beam_idx (int64, (N')) of the (N, H, P, d) keys and values.
  void reorder(const Tensor& beam_idx);
  void reset() { key = value = Tensor(); }
};

// A model's cache: one self-attention cache per decoder layer and, for an encoder-decoder, one
// cross-attention cache per layer, made on first use (Hugging Face's EncoderDecoderCache).
class KVCache {
 public:
  std::shared_ptr<AttentionCache> self_attention(int64_t layer);   // grows the list up to `layer`
  std::shared_ptr<AttentionCache> cross_attention(int64_t layer);  // is_static
  // P: the positions the first self-attention layer holds (0 when empty).
  int64_t get_seq_length() const;
  int64_t num_layers() const { return static_cast<int64_t>(self_.size()); }
  // Every layer's keys and values keep batch rows beam_idx (Hugging Face's reorder_cache).
  void reorder_cache(const Tensor& beam_idx);
  void reset();

 private:
  std::vector<std::shared_ptr<AttentionCache>> self_, cross_;
};

}  // namespace seqlab
