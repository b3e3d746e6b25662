// Multi-head attention (Vaswani et al. 2017, §3.2.2) as torch.nn.functional.multi_head_attention_forward
// and torch.nn.MultiheadAttention.forward, C++ functionals that the Python module
// (python/seqlab/nn/modules/activation.py) and the C++ module (nn/transformer.hpp) both call:
//
//   MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O + b_O,
//   head_i = Attention(Q W_Q^i + b_Q^i, K W_K^i + b_K^i, V W_V^i + b_V^i),
//   Attention(q, k, v) = softmax(q kᵀ / √d_head + mask) v          (§3.2.1)
//
// Masks keep MultiheadAttention's convention: a bool mask is true where attention is NOT allowed
// (the opposite of scaled_dot_product_attention's), a float mask is added to the scores.
// cpp/src/ops/multihead_attention.cpp; tests: tests/test_transformer.py.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "seqlab/arg.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/positional.hpp"
#include "seqlab/ops/kv_cache.hpp"

namespace seqlab {

using AttentionCachePtr = AttentionCache*;  // SEQLAB_ARG pastes its type after `const`

// Everything torch.nn.functional.multi_head_attention_forward takes besides query, key and value,
// with its names and defaults (torch::nn::functional::MultiheadAttentionForwardFuncOptions).
// Undefined tensors stand for None.
struct MultiheadAttentionForwardOptions {
  MultiheadAttentionForwardOptions(int64_t embed_dim_to_check, int64_t num_heads, Tensor in_proj_weight,
                                   Tensor in_proj_bias, Tensor bias_k, Tensor bias_v, bool add_zero_attn,
                                   double dropout_p, Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check), num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)), in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)), bias_v_(std::move(bias_v)), add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p), out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}

  SEQLAB_ARG(int64_t, embed_dim_to_check);
  SEQLAB_ARG(int64_t, num_heads);
  SEQLAB_ARG(Tensor, in_proj_weight);  // (3E, E): W_Q, W_K, W_V stacked
  SEQLAB_ARG(Tensor, in_proj_bias);    // (3E)
  SEQLAB_ARG(Tensor, bias_k);          // (1, 1, E): one more key (add_bias_kv)
  SEQLAB_ARG(Tensor, bias_v);          // (1, 1, E): its value
  SEQLAB_ARG(bool, add_zero_attn);     // one more key and value of zeros, per head
  SEQLAB_ARG(double, dropout_p);       // on the attention weights, in training
  SEQLAB_ARG(Tensor, out_proj_weight);  // (E, E)
  SEQLAB_ARG(Tensor, out_proj_bias);    // (E)
  SEQLAB_ARG(bool, training) = true;
  SEQLAB_ARG(Tensor, key_padding_mask);  // (N, S) or (S): true / -inf = a padding key
  SEQLAB_ARG(bool, need_weights) = true;  // also return the weights (computed by ordinary ops)
  SEQLAB_ARG(Tensor, attn_mask);          // (L, S) or (N·num_heads, L, S)
  SEQLAB_ARG(bool, use_separate_proj_weight) = false;  // q/k/v_proj_weight instead of in_proj_weight
  SEQLAB_ARG(Tensor, q_proj_weight);                   // (E, E)
  SEQLAB_ARG(Tensor, k_proj_weight);                   // (E, kdim)
  SEQLAB_ARG(Tensor, v_proj_weight);                   // (E, vdim)
  SEQLAB_ARG(Tensor, static_k);  // (N·num_heads, S, E/num_heads): keys used as they are
  SEQLAB_ARG(Tensor, static_v);
  SEQLAB_ARG(bool, average_attn_weights) = true;  // the weights' mean over heads
  SEQLAB_ARG(bool, is_causal) = false;  // a hint that attn_mask is the causal mask (torch's rules)
  // seqlab's: a positional scheme applied inside the attention (ops/positional.hpp; kind "none" is
  // torch's attention), and the position of the first query (keys before it came from a cache)
  SEQLAB_ARG(PositionalScheme, pos);
  SEQLAB_ARG(int64_t, q_offset) = 0;
  // softmax(q kᵀ · scale): unset, the scheme's (1/√head_dim for torch's attention), as
  // F.scaled_dot_product_attention's scale=; T5 uses 1 (its scaling is folded into W_Q)
  SEQLAB_ARG(std::optional<double>, scale);
  // seqlab's extension (ops/kv_cache.hpp): keys and values of earlier steps, updated in place.
  // Then S counts the cached positions too (attn_mask (L, P + L)); the is_causal hint is ignored
  // once the cache holds positions (its mask is aligned top-left), so pass the explicit mask.
  SEQLAB_ARG(AttentionCachePtr, kv_cache) = nullptr;
  // seqlab's: grouped-query attention (Ainslie et al. 2023; Llama 2 70B and later): the keys and
  // values have num_key_value_heads heads (0: num_heads), each shared by num_heads /
  // num_key_value_heads query heads (query head h reads key/value head h / group, Hugging Face's
  // repeat_kv). in_proj_weight is then (E + 2·kv_dim, E), kv_dim = num_key_value_heads · head_dim;
  // k_proj_weight and v_proj_weight (kv_dim, kdim / vdim).
  SEQLAB_ARG(int64_t, num_key_value_heads) = 0;
  // seqlab's: each head's width (0: embed_dim / num_heads), as T5's d_kv and Llama-family configs'
  // head_dim; the heads then span inner = num_heads · head_dim features, which need not be E:
  // W_Q is (inner, E), W_K and W_V (kv_dim, ·) and out_proj_weight (E, inner).
  SEQLAB_ARG(int64_t, head_dim) = 0;
};

// torch.nn.functional.multi_head_attention_forward. query (L, N, E) or unbatched (L, E); key
// (S, N, kdim), value (S, N, vdim). Returns (attn_output (L, N, E) or (L, E), attn_weights) where
// attn_weights is undefined unless need_weights: then (N, L, S) averaged over heads or
// (N, num_heads, L, S), without N for unbatched input; they are the weights after dropout, as
// torch's. need_weights computes the weights with ordinary ops (bmm, softmax, dropout, bmm);
// otherwise the heads go to the fused scaled_dot_product_attention (ops/attention.hpp).
std::pair<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       const MultiheadAttentionForwardOptions& options);

// A MultiheadAttention module: its constructor options and its parameters under torch's names
// (undefined where the module has none: in_proj_weight or q/k/v_proj_weight, biases, bias_k/v).
struct MultiheadAttentionParams {
  int64_t embed_dim = 0;
  int64_t num_heads = 1;
  double dropout = 0.0;
  bool add_zero_attn = false;
  bool batch_first = false;
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias;
  Tensor out_proj_weight, out_proj_bias, bias_k, bias_v;
  PositionalScheme pos;  // seqlab's positional scheme (kind "none": torch's module)
  std::optional<double> scale;  // seqlab's: the scores' scale (unset: the scheme's, 1/√head_dim)
  int64_t num_key_value_heads = 0;  // seqlab's: grouped-query attention (0: num_heads)
  int64_t head_dim = 0;             // seqlab's: each head's width (0: embed_dim / num_heads)
};

// torch.nn.MultiheadAttention.forward: batch_first input (N, L, E) is read as (L, N, E) and the
// output returned as (N, L, E); then multi_head_attention_forward with the module's parameters
// (separate projections when the module has them).
std::pair<Tensor, Tensor> multihead_attention_module_forward(const Tensor& query, const Tensor& key,
                                                             const Tensor& value, const MultiheadAttentionParams& mha,
                                                             bool training, const Tensor& key_padding_mask = Tensor(),
                                                             bool need_weights = true,
                                                             const Tensor& attn_mask = Tensor(),
                                                             bool average_attn_weights = true, bool is_causal = false,
                                                             AttentionCache* kv_cache = nullptr);

// torch.nn.MultiheadAttention's constructor checks: ValueError for embed_dim or num_heads <= 0,
// AssertionError "embed_dim must be divisible by num_heads".
void check_multihead_attention_args(int64_t embed_dim, int64_t num_heads);

// F._canonical_mask: a bool mask (true = masked out) becomes a float mask of `dtype`, -inf where
// true and 0 elsewhere; a float mask is returned as it is; any other dtype is torch's
// AssertionError "only bool and floating types of <mask_name> are supported". Undefined stays so.
Tensor canonical_mask(const Tensor& mask, const std::string& mask_name, Dtype dtype);

}  // namespace seqlab
