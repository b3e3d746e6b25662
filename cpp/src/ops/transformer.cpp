// The Transformer's encoder and decoder layers (Vaswani et al. 2017, §3.1; pre-LN: Xiong et al.
// 2020) as torch.nn.TransformerEncoderLayer / TransformerDecoderLayer.forward compute them
// (torch's ordinary path: the eval-mode fused kernels of torch give the same values), and the
// helpers of the stacks. Every step is an ordinary op; attention goes through
// multihead_attention_module_forward with need_weights=false, i.e. the fused SDPA.
// Tests: tests/test_transformer.py, tests/test_nn_twins.py.
#include "seqlab/ops/transformer.hpp"

#include <limits>

#include "seqlab/autograd.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/norm.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

Tensor layer_norm(const Tensor& x, const LayerNormParams& n) {
  if (n.rms) return rms_norm(x, n.normalized_shape, n.weight, n.eps);
  return seqlab::layer_norm(x, n.normalized_shape, n.weight, n.bias, n.eps);
}

// FF(x) = W_2 dropout(act(W_1 x + b_1)) + b_2      (§3.3), then the sub-layer's own dropout
// GLU variant (Shazeer 2020), when linear3 is given:
//   FF(x) = W_2 dropout(act(W_1 x + b_1) ⊙ (W_3 x + b_3)) + b_2   (SwiGLU with act = SiLU: Llama's)
// P: an encoder or a decoder layer's parameters (the same feed-forward fields).
template <typename P>
Tensor feed_forward(const Tensor& x, const P& p, double dropout_out, bool training) {
  Tensor h = linear(x, p.linear1.weight, p.linear1.bias);
  h = p.activation ? p.activation(h) : relu(h);
  if (p.linear3.weight.defined()) h = h * linear(x, p.linear3.weight, p.linear3.bias);
  return dropout(linear(dropout(h, p.dropout, training), p.linear2.weight, p.linear2.bias), dropout_out, training);
}

// Self- or cross-attention as the layers call it (the module's forward without weights), then the
// sub-layer's dropout.
Tensor attend(const Tensor& q, const Tensor& kv, const MultiheadAttentionParams& mha, bool training,
              const Tensor& attn_mask, const Tensor& key_padding_mask, bool is_causal, AttentionCache* cache,
              double dropout_out) {
  Tensor out = multihead_attention_module_forward(q, kv, kv, mha, training, key_padding_mask, /*need_weights=*/false,
                                                  attn_mask, /*average_attn_weights=*/true, is_causal, cache)
                   .first;
  return dropout(out, dropout_out, training);
}

// One residual sub-layer around f: LN(x + f(x)) (post-LN, §3.1), or x + f(LN(x)) (pre-LN,
// norm_first: Xiong et al. 2020).
template <typename F>
Tensor residual(const Tensor& x, const LayerNormParams& norm, bool norm_first, const F& f) {
  return norm_first ? x + f(layer_norm(x, norm)) : layer_norm(x + f(x), norm);
}

}  // namespace

Activation transformer_activation(const std::string& name) {
  if (name == "relu") return [](const Tensor& x) { return relu(x); };
  if (name == "gelu") return [](const Tensor& x) { return gelu(x); };
  throw std::runtime_error("activation should be relu/gelu, not " + name);
}

Tensor transformer_encoder_layer_forward(const Tensor& src, const TransformerEncoderLayerParams& p, bool training,
                                         const Tensor& src_mask, const Tensor& src_key_padding_mask, bool is_causal,
                                         AttentionCache* cache) {
  const Tensor x = residual(src, p.norm1, p.norm_first, [&](const Tensor& h) {
    return attend(h, h, p.self_attn, training, src_mask, src_key_padding_mask, is_causal, cache, p.dropout1);
  });
  return residual(x, p.norm2, p.norm_first, [&](const Tensor& h) { return feed_forward(h, p, p.dropout2, training); });
}

Tensor transformer_decoder_layer_forward(const Tensor& tgt, const Tensor& memory,
                                         const TransformerDecoderLayerParams& p, bool training, const Tensor& tgt_mask,
                                         const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                         const Tensor& memory_key_padding_mask, bool tgt_is_causal,
                                         bool memory_is_causal, AttentionCache* cache, AttentionCache* memory_cache) {
  SEQLAB_CHECK(!cache || !cache->is_static, "TransformerDecoderLayer: cache must be a self-attention cache "
               "(KVCache.self_attention), not the static cross-attention one");
  SEQLAB_CHECK(!memory_cache || memory_cache->is_static, "TransformerDecoderLayer: memory_cache must be a "
               "cross-attention cache (KVCache.cross_attention), which holds the memory's keys once");
  Tensor x = residual(tgt, p.norm1, p.norm_first, [&](const Tensor& h) {
    return attend(h, h, p.self_attn, training, tgt_mask, tgt_key_padding_mask, tgt_is_causal, cache, p.dropout1);
  });
  // Cross-attention: queries from the decoder, keys and values from the encoder's output (§3.2.3).
  x = residual(x, p.norm2, p.norm_first, [&](const Tensor& h) {
    return attend(h, memory, p.multihead_attn, training, memory_mask, memory_key_padding_mask, memory_is_causal,
                  memory_cache, p.dropout2);
  });
  return residual(x, p.norm3, p.norm_first, [&](const Tensor& h) { return feed_forward(h, p, p.dropout3, training); });
}

Tensor generate_square_subsequent_mask(int64_t sz, Dtype dtype) {
  SEQLAB_CHECK(sz >= 0, "generate_square_subsequent_mask: sz must be non-negative, got ", sz);
  SEQLAB_CHECK_TYPE(is_floating(dtype) || dtype == Dtype::Bool,
                    "generate_square_subsequent_mask: dtype must be floating point or bool, got ", dtype_name(dtype));
  // triu(full(-inf), 1): -inf (true for bool) where j > i.
  if (dtype == Dtype::Bool) return triu(ones({sz, sz}, Dtype::Bool), 1);
  return triu(full({sz, sz}, -std::numeric_limits<double>::infinity(), dtype), 1);
}

bool detect_is_causal_mask(const Tensor& mask, std::optional<bool> is_causal, std::optional<int64_t> size) {
  if (is_causal) return *is_causal;
  if (!mask.defined() || mask.dim() < 2) return false;
  if (!is_floating(mask.dtype()) && mask.dtype() != Dtype::Bool) return false;
  const int64_t sz = size ? *size : mask.shape()[mask.dim() - 2];
  if (mask.shape() != Shape({sz, sz})) return false;
  NoGradGuard no_grad;
  const Tensor causal = generate_square_subsequent_mask(sz, mask.dtype());
  return sum(to_dtype(compare(mask, causal, CompareOp::Ne), Dtype::Int64)).item<int64_t>() == 0;
}

std::string transformer_encoder_why_not_nested(bool is_encoder_layer, bool norm_first, bool batch_first,
                                               bool qkv_same_embed_dim, bool has_in_proj_bias,
                                               bool activation_relu_or_gelu, double norm1_eps, double norm2_eps,
                                               int64_t num_heads) {
  const std::string layer = "encoder_layer";
  if (!is_encoder_layer) return layer + " was not TransformerEncoderLayer";
  if (norm_first) return layer + ".norm_first was True";
  if (!batch_first)
    return layer + ".self_attn.batch_first was not True(use batch_first for better inference performance)";
  if (!qkv_same_embed_dim) return layer + ".self_attn._qkv_same_embed_dim was not True";
  if (!has_in_proj_bias) return layer + ".self_attn was passed bias=False";
  if (!activation_relu_or_gelu) return layer + ".activation_relu_or_gelu was not True";
  if (norm1_eps != norm2_eps) return layer + ".norm1.eps was not equal to " + layer + ".norm2.eps";
  if (num_heads % 2 == 1) return layer + ".self_attn.num_heads is odd";
  return "";
}

Tensor transformer_encoder_nested_padding(const Tensor& src, const Tensor& src_key_padding_mask, const Tensor& mask,
                                          bool use_nested_tensor, bool first_layer_training, bool mask_check,
                                          const TensorList& first_layer_params) {
  if (!use_nested_tensor || first_layer_training || src.dim() != 3 || !src_key_padding_mask.defined() ||
      mask.defined())
    return Tensor();
  TensorList grads_wanted = {src};
  for (const Tensor& t : first_layer_params)
    if (t.defined()) grads_wanted.push_back(t);
  if (any_requires_grad(grads_wanted)) return Tensor();
  SEQLAB_CHECK(src_key_padding_mask.dim() == 2 && src_key_padding_mask.shape()[0] == src.shape()[0] &&
                   src_key_padding_mask.shape()[1] == src.shape()[1],
               "TransformerEncoder: src_key_padding_mask must have shape (N, S) = ",
               shape_str({src.shape()[0], src.shape()[1]}), " for src ", shape_str(src.shape()), ", got ",
               shape_str(src_key_padding_mask.shape()));
  // padded = not logical_not(mask): true where the (float) mask is not 0.
  const Tensor padded = compare(src_key_padding_mask, zeros({}, src_key_padding_mask.dtype()), CompareOp::Ne);
  if (mask_check) {
    // torch's path needs each row left-aligned (tokens first, then padding): no padding before a token.
    const Tensor p = contiguous(padded);
    const bool* d = p.data<bool>();
    const int64_t N = p.shape()[0], S = p.shape()[1];
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 1; s < S; ++s)
        if (d[n * S + s - 1] && !d[n * S + s]) return Tensor();
  }
  return padded;
}

void check_transformer_inputs(const Tensor& src, const Tensor& tgt, int64_t d_model, bool batch_first) {
  if (src.dim() == 3) {
    const int64_t batch_dim = batch_first ? 0 : 1;
    SEQLAB_CHECK(tgt.dim() > batch_dim && src.shape()[batch_dim] == tgt.shape()[batch_dim],
                 "the batch number of src and tgt must be equal (Transformer: src ", shape_str(src.shape()), ", tgt ",
                 shape_str(tgt.shape()), ", batch_first=", batch_first ? "True" : "False", ")");
  }
  SEQLAB_CHECK(src.dim() > 0 && tgt.dim() > 0 && src.shape().back() == d_model && tgt.shape().back() == d_model,
               "the feature number of src and tgt must be equal to d_model (Transformer: d_model=", d_model, ", src ",
               shape_str(src.shape()), ", tgt ", shape_str(tgt.shape()), ")");
}

}  // namespace seqlab
