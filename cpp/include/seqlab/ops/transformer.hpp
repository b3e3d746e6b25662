// The Transformer's layers (Vaswani et al. 2017, §3.1) as torch.nn.TransformerEncoderLayer and
// TransformerDecoderLayer compute them, one C++ functional each, called by the Python modules
// (python/seqlab/nn/modules/transformer.py) and the C++ modules (nn/transformer.hpp); and the helpers of
// the stacks (TransformerEncoder, TransformerDecoder, Transformer) that both twins share.
//
//   post-LN (norm_first=false, the paper's):  x = LN1(x + SA(x)),  x = LN2(x + FF(x))
//   pre-LN  (norm_first=true, Xiong et al. 2020):  x = x + SA(LN1(x)),  x = x + FF(LN2(x))
//   FF(x) = dropout2(W_2 dropout(act(W_1 x + b_1)) + b_2),  SA(x) = dropout1(MultiHead(x, x, x))
// seqlab's options: the GLU feed-forward W_2 dropout(act(W_1 x + b_1) ⊙ (W_3 x + b_3)) + b_2 (linear3;
// Shazeer 2020: SwiGLU with SiLU, Llama's), RMSNorm in place of LayerNorm (LayerNormParams::rms),
// grouped-query attention (MultiheadAttentionParams::num_key_value_heads).
// The decoder layer adds cross-attention on the encoder's output between the two (norm2, dropout2;
// its feed-forward then uses norm3, dropout3).
// cpp/src/ops/transformer.cpp; tests: tests/test_transformer.py, tests/test_nn_twins.py.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "seqlab/ops/multihead_attention.hpp"

namespace seqlab {

// The feed-forward activation: torch takes "relu", "gelu" or any callable.
using Activation = std::function<Tensor(const Tensor&)>;
// "relu" / "gelu" as the ops; anything else is torch's RuntimeError "activation should be relu/gelu, not ...".
Activation transformer_activation(const std::string& name);

struct LinearParams {
  Tensor weight, bias;  // (out, in), (out) or undefined
};
struct LayerNormParams {
  Shape normalized_shape;
  Tensor weight, bias;  // undefined without elementwise_affine / bias
  double eps = 1e-5;
  bool rms = false;  // an RMSNorm's (no centring, no bias; ops/norm.hpp)
};

// A TransformerEncoderLayer's submodules as the functional needs them. The dropout fields are
// the p of its Dropout modules dropout (inside the feed-forward), dropout1 (after self-attention)
// and dropout2 (after the feed-forward); self_attn.dropout is on the attention weights.
struct TransformerEncoderLayerParams {
  MultiheadAttentionParams self_attn;
  LinearParams linear1, linear2;
  LinearParams linear3;  // seqlab's: the GLU feed-forward's second input projection (undefined: none)
  LayerNormParams norm1, norm2;
  double dropout = 0.1, dropout1 = 0.1, dropout2 = 0.1;
  Activation activation;  // undefined = relu
  bool norm_first = false;
};

// A TransformerDecoderLayer's: self_attn, then multihead_attn over the memory; dropout1/2/3
// follow self-attention, cross-attention and the feed-forward.
struct TransformerDecoderLayerParams {
  MultiheadAttentionParams self_attn, multihead_attn;
  LinearParams linear1, linear2;
  LinearParams linear3;  // seqlab's: the GLU feed-forward's second input projection (undefined: none)
  LayerNormParams norm1, norm2, norm3;
  double dropout = 0.1, dropout1 = 0.1, dropout2 = 0.1, dropout3 = 0.1;
  Activation activation;  // undefined = relu
  bool norm_first = false;
};

// TransformerEncoderLayer.forward: src (S, N, E), (N, S, E) with batch_first, or (S, E).
// Masks as MultiheadAttention's (bool true = masked out, or float added). `cache` (seqlab's
// extension, ops/kv_cache.hpp) holds the self-attention's keys and values of earlier steps, for
// a causal decoder block (then src holds only the new positions and src_mask is (L, P + L)).
Tensor transformer_encoder_layer_forward(const Tensor& src, const TransformerEncoderLayerParams& layer, bool training,
                                         const Tensor& src_mask = Tensor(),
                                         const Tensor& src_key_padding_mask = Tensor(), bool is_causal = false,
                                         AttentionCache* cache = nullptr);

// TransformerDecoderLayer.forward: tgt (T, N, E), memory (S, N, E) (or batch first, or unbatched).
// `cache`: the self-attention's keys and values of earlier target steps; `memory_cache` (static):
// the cross-attention's keys and values of the memory, projected at the first step only.
Tensor transformer_decoder_layer_forward(const Tensor& tgt, const Tensor& memory,
                                         const TransformerDecoderLayerParams& layer, bool training,
                                         const Tensor& tgt_mask = Tensor(), const Tensor& memory_mask = Tensor(),
                                         const Tensor& tgt_key_padding_mask = Tensor(),
                                         const Tensor& memory_key_padding_mask = Tensor(),
                                         bool tgt_is_causal = false, bool memory_is_causal = false,
                                         AttentionCache* cache = nullptr, AttentionCache* memory_cache = nullptr);

// --- the stacks' helpers

// Transformer.generate_square_subsequent_mask: (sz, sz), -inf above the diagonal, 0 elsewhere.
Tensor generate_square_subsequent_mask(int64_t sz, Dtype dtype = Dtype::Float32);

// torch's _detect_is_causal_mask: is_causal if given; else, with a mask, whether it equals
// generate_square_subsequent_mask(size or the mask's size(-2)) in its own dtype (for a bool
// mask: true above the diagonal); else false.
bool detect_is_causal_mask(const Tensor& mask, std::optional<bool> is_causal = std::nullopt,
                           std::optional<int64_t> size = std::nullopt);

// Why torch's TransformerEncoder cannot take its nested-tensor path with this encoder layer (its
// "why_not_sparsity_fast_path"), or "" when it can. The caller warns with it when
// enable_nested_tensor was asked for.
std::string transformer_encoder_why_not_nested(bool is_encoder_layer, bool norm_first, bool batch_first,
                                               bool qkv_same_embed_dim, bool has_in_proj_bias,
                                               bool activation_relu_or_gelu, double norm1_eps, double norm2_eps,
                                               int64_t num_heads);

// torch's TransformerEncoder in eval mode, when no gradient is needed, the input is batched and
// only a padding mask is given, runs its layers on nested tensors holding each sequence's tokens
// and pads the result with zeros. The tokens come out as with the padding mask; the padded
// positions are zeros (before the final norm). Given the canonical (float) padding mask, returns
// the (N, S) bool mask of positions to zero when torch takes that path, else undefined.
// first_layer_params: the tensors torch looks at for requires_grad (undefined ones are skipped).
Tensor transformer_encoder_nested_padding(const Tensor& src, const Tensor& src_key_padding_mask, const Tensor& mask,
                                          bool use_nested_tensor, bool first_layer_training, bool mask_check,
                                          const TensorList& first_layer_params);

// Transformer.forward's checks: src and tgt of one batch size and d_model features.
void check_transformer_inputs(const Tensor& src, const Tensor& tgt, int64_t d_model, bool batch_first);

}  // namespace seqlab
