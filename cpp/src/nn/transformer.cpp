// MultiheadAttention and the Transformer modules for C++ users; the Python twins are in
// python/seqlab/nn/transformer.py. Both register torch's submodules and parameters in torch's
// order, initialise them in torch's order, and call the functionals of ops/transformer.hpp.
#include "seqlab/nn/transformer.hpp"

#include "seqlab/nn/init.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::nn {

// ------------------------------------------------------------------ MultiheadAttention
MultiheadAttention::MultiheadAttention(int64_t embed_dim_, int64_t num_heads_, double dropout_, bool bias,
                                       bool add_bias_kv, bool add_zero_attn_, std::optional<int64_t> kdim_,
                                       std::optional<int64_t> vdim_, bool batch_first_, Dtype dtype)
    : Module("MultiheadAttention"), embed_dim(embed_dim_), kdim(kdim_.value_or(embed_dim_)),
      vdim(vdim_.value_or(embed_dim_)), num_heads(num_heads_), head_dim(num_heads_ > 0 ? embed_dim_ / num_heads_ : 0),
      dropout(dropout_), batch_first(batch_first_), add_zero_attn(add_zero_attn_),
      qkv_same_embed_dim(kdim == embed_dim && vdim == embed_dim) {
  check_multihead_attention_args(embed_dim, num_heads);
  const int64_t E = embed_dim;
  // Registration order and shapes as torch: the projections, in_proj_bias, out_proj, bias_k, bias_v.
  if (qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", Tensor::empty({3 * E, E}, dtype));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", Tensor::empty({E, E}, dtype));
    k_proj_weight = register_parameter("k_proj_weight", Tensor::empty({E, kdim}, dtype));
    v_proj_weight = register_parameter("v_proj_weight", Tensor::empty({E, vdim}, dtype));
  }
  if (bias) in_proj_bias = register_parameter("in_proj_bias", Tensor::empty({3 * E}, dtype));
  out_proj = register_module("out_proj", std::make_shared<NonDynamicallyQuantizableLinear>(E, E, bias, dtype));
  if (add_bias_kv) {
    bias_k = register_parameter("bias_k", Tensor::empty({1, 1, E}, dtype));
    bias_v = register_parameter("bias_v", Tensor::empty({1, 1, E}, dtype));
  }
  reset_parameters();
}

void MultiheadAttention::reset_parameters() {
  if (qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.0);
    init::constant_(out_proj->bias, 0.0);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

MultiheadAttentionParams MultiheadAttention::params() const {
  MultiheadAttentionParams p;
  p.embed_dim = embed_dim;
  p.num_heads = num_heads;
  p.dropout = dropout;
  p.add_zero_attn = add_zero_attn;
  p.batch_first = batch_first;
  p.in_proj_weight = in_proj_weight;
  p.q_proj_weight = q_proj_weight;
  p.k_proj_weight = k_proj_weight;
  p.v_proj_weight = v_proj_weight;
  p.in_proj_bias = in_proj_bias;
  p.out_proj_weight = out_proj->weight;
  p.out_proj_bias = out_proj->bias;
  p.bias_k = bias_k;
  p.bias_v = bias_v;
  return p;
}

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                      const Tensor& key_padding_mask, bool need_weights,
                                                      const Tensor& attn_mask, bool average_attn_weights,
                                                      bool is_causal, AttentionCache* cache) {
  return multihead_attention_module_forward(query, key, value, params(), is_training(), key_padding_mask,
                                            need_weights, attn_mask, average_attn_weights, is_causal, cache);
}

// ------------------------------------------------------------------ the layers
TransformerActivation::TransformerActivation(const std::string& name)
    : fn(transformer_activation(name)), relu_or_gelu(name == "relu" ? 1 : 2) {}

namespace {

LinearParams linear_params(const Linear& l) { return {l.weight, l.bias}; }
LayerNormParams layer_norm_params(const LayerNorm& n) { return {n.normalized_shape, n.weight, n.bias, n.eps}; }

// The values of `from` into `to`, a module of the same structure (a deep copy's second half).
void copy_values(const Module& from, Module& to) {
  to.load_state_dict(from.state_dict());
  to.train(from.is_training());
}

}  // namespace

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward, double p,
                                                 TransformerActivation activation_, double layer_norm_eps,
                                                 bool batch_first, bool norm_first_, bool bias, Dtype dtype)
    : Module("TransformerEncoderLayer"), activation(std::move(activation_)), norm_first(norm_first_),
      d_model_(d_model), nhead_(nhead), dim_feedforward_(dim_feedforward), dropout_p_(p),
      layer_norm_eps_(layer_norm_eps), batch_first_(batch_first), bias_(bias), dtype_(dtype) {
  // Construction order is torch's, and with it the order of the random draws.
  self_attn = register_module("self_attn", std::make_shared<MultiheadAttention>(d_model, nhead, p, bias, false, false,
                                                                                std::nullopt, std::nullopt,
                                                                                batch_first, dtype));
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, dim_feedforward, bias, dtype));
  dropout = register_module("dropout", std::make_shared<Dropout>(p));
  linear2 = register_module("linear2", std::make_shared<Linear>(dim_feedforward, d_model, bias, dtype));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(Shape{d_model}, layer_norm_eps, true, bias, dtype));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(Shape{d_model}, layer_norm_eps, true, bias, dtype));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(p));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(p));
}

TransformerEncoderLayerParams TransformerEncoderLayer::params() const {
  TransformerEncoderLayerParams p;
  p.self_attn = self_attn->params();
  p.linear1 = linear_params(*linear1);
  p.linear2 = linear_params(*linear2);
  p.norm1 = layer_norm_params(*norm1);
  p.norm2 = layer_norm_params(*norm2);
  p.dropout = dropout->p;
  p.dropout1 = dropout1->p;
  p.dropout2 = dropout2->p;
  p.activation = activation.fn;
  p.norm_first = norm_first;
  return p;
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask,
                                        bool is_causal, AttentionCache* cache) {
  return transformer_encoder_layer_forward(src, params(), is_training(), src_mask, src_key_padding_mask, is_causal,
                                           cache);
}

std::shared_ptr<TransformerEncoderLayer> TransformerEncoderLayer::clone() const {
  ForkRng fork;  // the copy's own initialisation is overwritten: draw nothing for it
  auto copy = std::make_shared<TransformerEncoderLayer>(d_model_, nhead_, dim_feedforward_, dropout_p_, activation,
                                                        layer_norm_eps_, batch_first_, norm_first, bias_, dtype_);
  copy_values(*this, *copy);
  return copy;
}

TransformerDecoderLayer::TransformerDecoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward, double p,
                                                 TransformerActivation activation_, double layer_norm_eps,
                                                 bool batch_first, bool norm_first_, bool bias, Dtype dtype)
    : Module("TransformerDecoderLayer"), activation(std::move(activation_)), norm_first(norm_first_),
      d_model_(d_model), nhead_(nhead), dim_feedforward_(dim_feedforward), dropout_p_(p),
      layer_norm_eps_(layer_norm_eps), batch_first_(batch_first), bias_(bias), dtype_(dtype) {
  auto attention = [&] {
    return std::make_shared<MultiheadAttention>(d_model, nhead, p, bias, false, false, std::nullopt, std::nullopt,
                                                batch_first, dtype);
  };
  self_attn = register_module("self_attn", attention());
  multihead_attn = register_module("multihead_attn", attention());
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, dim_feedforward, bias, dtype));
  dropout = register_module("dropout", std::make_shared<Dropout>(p));
  linear2 = register_module("linear2", std::make_shared<Linear>(dim_feedforward, d_model, bias, dtype));
  auto norm = [&] { return std::make_shared<LayerNorm>(Shape{d_model}, layer_norm_eps, true, bias, dtype); };
  norm1 = register_module("norm1", norm());
  norm2 = register_module("norm2", norm());
  norm3 = register_module("norm3", norm());
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(p));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(p));
  dropout3 = register_module("dropout3", std::make_shared<Dropout>(p));
}

TransformerDecoderLayerParams TransformerDecoderLayer::params() const {
  TransformerDecoderLayerParams p;
  p.self_attn = self_attn->params();
  p.multihead_attn = multihead_attn->params();
  p.linear1 = linear_params(*linear1);
  p.linear2 = linear_params(*linear2);
  p.norm1 = layer_norm_params(*norm1);
  p.norm2 = layer_norm_params(*norm2);
  p.norm3 = layer_norm_params(*norm3);
  p.dropout = dropout->p;
  p.dropout1 = dropout1->p;
  p.dropout2 = dropout2->p;
  p.dropout3 = dropout3->p;
  p.activation = activation.fn;
  p.norm_first = norm_first;
  return p;
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                        const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                        const Tensor& memory_key_padding_mask, bool tgt_is_causal,
                                        bool memory_is_causal, AttentionCache* cache, AttentionCache* memory_cache) {
  return transformer_decoder_layer_forward(tgt, memory, params(), is_training(), tgt_mask, memory_mask,
                                           tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal,
                                           memory_is_causal, cache, memory_cache);
}

std::shared_ptr<TransformerDecoderLayer> TransformerDecoderLayer::clone() const {
  ForkRng fork;
  auto copy = std::make_shared<TransformerDecoderLayer>(d_model_, nhead_, dim_feedforward_, dropout_p_, activation,
                                                        layer_norm_eps_, batch_first_, norm_first, bias_, dtype_);
  copy_values(*this, *copy);
  return copy;
}

// ------------------------------------------------------------------ the stacks
namespace {

// torch's _get_seq_len: the sequence dim of src.
int64_t seq_len(const Tensor& src, bool batch_first) {
  if (src.dim() == 2) return src.shape()[0];
  SEQLAB_CHECK(src.dim() == 3, "Transformer: expected src to be 2-D (unbatched) or 3-D, got ",
               shape_str(src.shape()));
  return src.shape()[batch_first ? 1 : 0];
}

}  // namespace

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& encoder_layer, int64_t num_layers_,
                                       std::shared_ptr<UnaryModule> norm_, bool enable_nested_tensor_,
                                       bool mask_check_)
    : Module("TransformerEncoder"), norm(std::move(norm_)), num_layers(num_layers_),
      enable_nested_tensor(enable_nested_tensor_), mask_check(mask_check_) {
  auto list = register_module("layers", std::make_shared<ModuleList>());
  for (int64_t i = 0; i < num_layers; ++i) {
    layers.push_back(encoder_layer.clone());
    list->push_back(layers.back());
  }
  if (norm) register_module("norm", norm);
  const auto& sa = *encoder_layer.self_attn;
  why_not_sparsity_fast_path = transformer_encoder_why_not_nested(
      true, encoder_layer.norm_first, sa.batch_first, sa.qkv_same_embed_dim, sa.in_proj_bias.defined(),
      encoder_layer.activation.relu_or_gelu != 0, encoder_layer.norm1->eps, encoder_layer.norm2->eps, sa.num_heads);
  use_nested_tensor = enable_nested_tensor && why_not_sparsity_fast_path.empty();
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask_in, const Tensor& src_key_padding_mask_in,
                                   std::optional<bool> is_causal, KVCache* cache) {
  const Tensor src_key_padding_mask = canonical_mask(src_key_padding_mask_in, "src_key_padding_mask", src.dtype());
  const Tensor mask = canonical_mask(mask_in, "mask", src.dtype());
  SEQLAB_CHECK_INDEX(!layers.empty(), "TransformerEncoder: index 0 is out of range (no layers)");
  const TransformerEncoderLayer& first = *layers.front();
  const TensorList first_params = {first.self_attn->in_proj_weight, first.self_attn->in_proj_bias,
                                   first.self_attn->out_proj->weight, first.self_attn->out_proj->bias,
                                   first.norm1->weight, first.norm1->bias, first.norm2->weight, first.norm2->bias,
                                   first.linear1->weight, first.linear1->bias, first.linear2->weight,
                                   first.linear2->bias};
  const Tensor padded = transformer_encoder_nested_padding(src, src_key_padding_mask, mask, use_nested_tensor,
                                                           first.is_training(), mask_check, first_params);
  const bool causal = detect_is_causal_mask(mask, is_causal, seq_len(src, first.self_attn->batch_first));
  Tensor output = src;
  for (size_t i = 0; i < layers.size(); ++i)
    output = layers[i]->forward(output, mask, src_key_padding_mask, causal,
                                cache ? cache->self_attention(static_cast<int64_t>(i)).get() : nullptr);
  if (padded.defined()) output = masked_fill(output, unsqueeze(padded, -1), 0.0);
  return norm ? norm->forward(output) : output;
}

TransformerDecoder::TransformerDecoder(const TransformerDecoderLayer& decoder_layer, int64_t num_layers_,
                                       std::shared_ptr<UnaryModule> norm_)
    : Module("TransformerDecoder"), norm(std::move(norm_)), num_layers(num_layers_) {
  auto list = register_module("layers", std::make_shared<ModuleList>());
  for (int64_t i = 0; i < num_layers; ++i) {
    layers.push_back(decoder_layer.clone());
    list->push_back(layers.back());
  }
  if (norm) register_module("norm", norm);
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                   const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                   const Tensor& memory_key_padding_mask, std::optional<bool> tgt_is_causal,
                                   bool memory_is_causal, KVCache* cache) {
  SEQLAB_CHECK_INDEX(!layers.empty(), "TransformerDecoder: index 0 is out of range (no layers)");
  const bool causal = detect_is_causal_mask(tgt_mask, tgt_is_causal,
                                            seq_len(tgt, layers.front()->self_attn->batch_first));
  Tensor output = tgt;
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto layer_idx = static_cast<int64_t>(i);
    output = layers[i]->forward(output, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                                causal, memory_is_causal, cache ? cache->self_attention(layer_idx).get() : nullptr,
                                cache ? cache->cross_attention(layer_idx).get() : nullptr);
  }
  return norm ? norm->forward(output) : output;
}

Transformer::Transformer(int64_t d_model_, int64_t nhead_, int64_t num_encoder_layers, int64_t num_decoder_layers,
                         int64_t dim_feedforward, double dropout, TransformerActivation activation,
                         std::shared_ptr<TransformerEncoder> custom_encoder,
                         std::shared_ptr<TransformerDecoder> custom_decoder, double layer_norm_eps, bool batch_first_,
                         bool norm_first, bool bias, Dtype dtype)
    : Module("Transformer"), d_model(d_model_), nhead(nhead_), batch_first(batch_first_) {
  if (custom_encoder) {
    encoder = custom_encoder;
  } else {
    TransformerEncoderLayer layer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                                  norm_first, bias, dtype);
    auto encoder_norm = std::make_shared<LayerNorm>(Shape{d_model}, layer_norm_eps, true, bias, dtype);
    encoder = std::make_shared<TransformerEncoder>(layer, num_encoder_layers, encoder_norm);
  }
  register_module("encoder", encoder);
  if (custom_decoder) {
    decoder = custom_decoder;
  } else {
    TransformerDecoderLayer layer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                                  norm_first, bias, dtype);
    auto decoder_norm = std::make_shared<LayerNorm>(Shape{d_model}, layer_norm_eps, true, bias, dtype);
    decoder = std::make_shared<TransformerDecoder>(layer, num_decoder_layers, decoder_norm);
  }
  register_module("decoder", decoder);
  // torch's _reset_parameters: Glorot-uniform for every matrix (Vaswani et al. do not say; torch does this).
  for (Tensor p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                            const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                            const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask,
                            std::optional<bool> src_is_causal, std::optional<bool> tgt_is_causal,
                            bool memory_is_causal) {
  check_transformer_inputs(src, tgt, d_model, batch_first);
  const Tensor memory = encoder->forward(src, src_mask, src_key_padding_mask, src_is_causal);
  return decoder->forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                          tgt_is_causal, memory_is_causal);
}

}  // namespace seqlab::nn
