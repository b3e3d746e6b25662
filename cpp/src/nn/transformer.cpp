// MultiheadAttention and the Transformer modules for C++ users; the Python twins are in
// python/seqlab/nn/modules/activation.py (MultiheadAttention) and transformer.py. Both register
// torch's submodules and parameters in torch's order, initialise them in torch's order, and call
// the functionals of ops/transformer.hpp.
#include "seqlab/nn/transformer.hpp"

#include <cmath>

#include "seqlab/nn/init.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::nn {

// ------------------------------------------------------------------ MultiheadAttention
namespace {

// The options' checks, in the Python module's order and words (python/seqlab/nn/modules/activation.py).
const MultiheadAttentionOptions& checked(const MultiheadAttentionOptions& o) {
  const int64_t E = o.embed_dim(), H = o.num_heads();
  if (!o.head_dim()) {
    check_multihead_attention_args(E, H);
  } else {
    const int64_t d = *o.head_dim();
    SEQLAB_CHECK_VALUE(E > 0 && H > 0 && d > 0, "MultiheadAttention: embed_dim, num_heads and head_dim must be "
                       "greater than 0, got embed_dim=", E, ", num_heads=", H, " and head_dim=", d);
    SEQLAB_CHECK_VALUE(!o.add_bias_kv() || d * H == E, "MultiheadAttention: add_bias_kv needs num_heads · head_dim = "
                       "embed_dim, got ", H, " · ", d, " and ", E);
  }
  const int64_t kv = o.num_key_value_heads().value_or(H);
  SEQLAB_CHECK_VALUE(kv > 0 && H % kv == 0, "MultiheadAttention: num_heads (", H,
                     ") must be a multiple of num_key_value_heads (", kv, ")");
  SEQLAB_CHECK_VALUE(kv == H || !o.add_bias_kv(), "MultiheadAttention: grouped-query attention "
                     "(num_key_value_heads < num_heads) cannot be combined with add_bias_kv");
  return o;
}

}  // namespace

MultiheadAttention::MultiheadAttention(const MultiheadAttentionOptions& options_)
    : Module("MultiheadAttention"), options(checked(options_)),
      kdim(options.kdim().value_or(options.embed_dim())), vdim(options.vdim().value_or(options.embed_dim())),
      head_dim(options.head_dim().value_or(options.embed_dim() / options.num_heads())),
      num_key_value_heads(options.num_key_value_heads().value_or(options.num_heads())),
      qkv_same_embed_dim(kdim == options.embed_dim() && vdim == options.embed_dim()) {
  const int64_t E = options.embed_dim();
  const int64_t inner = options.num_heads() * head_dim, kv_dim = num_key_value_heads * head_dim;
  const Dtype dtype = options.dtype();
  // Registration order and shapes as torch: the projections, in_proj_bias, out_proj, bias_k, bias_v.
  if (qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", Tensor::empty({inner + 2 * kv_dim, E}, dtype));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", Tensor::empty({inner, E}, dtype));
    k_proj_weight = register_parameter("k_proj_weight", Tensor::empty({kv_dim, kdim}, dtype));
    v_proj_weight = register_parameter("v_proj_weight", Tensor::empty({kv_dim, vdim}, dtype));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", Tensor::empty({inner + 2 * kv_dim}, dtype));
  out_proj = register_module("out_proj",
                             std::make_shared<NonDynamicallyQuantizableLinear>(
                                             LinearOptions(inner, E).bias(options.bias()).dtype(dtype)));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", Tensor::empty({1, 1, E}, dtype));
    bias_v = register_parameter("bias_v", Tensor::empty({1, 1, E}, dtype));
  }
  // seqlab's, checked where Python checks them: the scheme, a submodule (pos.*), and the scale
  if (options.pos()) {
    options.pos()->check_serves("MultiheadAttention", E, options.num_heads(), head_dim);
    register_module("pos", options.pos());
  }
  SEQLAB_CHECK_VALUE(!options.scale() || std::isfinite(*options.scale()),
                     "MultiheadAttention: scale must be a finite number or None (1/sqrt(head_dim)), got ",
                     options.scale().value_or(0.0));
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
  p.embed_dim = options.embed_dim();
  p.num_heads = options.num_heads();
  p.dropout = options.dropout();
  p.add_zero_attn = options.add_zero_attn();
  p.batch_first = options.batch_first();
  p.num_key_value_heads = num_key_value_heads;
  p.head_dim = head_dim;
  p.in_proj_weight = in_proj_weight;
  p.q_proj_weight = q_proj_weight;
  p.k_proj_weight = k_proj_weight;
  p.v_proj_weight = v_proj_weight;
  p.in_proj_bias = in_proj_bias;
  p.out_proj_weight = out_proj->weight;
  p.out_proj_bias = out_proj->bias;
  p.bias_k = bias_k;
  p.bias_v = bias_v;
  if (options.pos()) p.pos = options.pos()->scheme(this);
  p.scale = options.scale();
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
TransformerActivation::TransformerActivation(const std::string& name_)
    : fn(transformer_activation(name_)), relu_or_gelu(name_ == "relu" ? 1 : 2), name(name_) {}

namespace {

LinearParams linear_params(const std::shared_ptr<Linear>& l) {
  return l ? LinearParams{l->weight, l->bias} : LinearParams{};
}

// A LayerNorm's or an RMSNorm's record; RMSNorm's unset eps is its dtype's machine epsilon (torch's).
LayerNormParams norm_params(const UnaryModule& norm) {
  if (const auto* n = dynamic_cast<const LayerNorm*>(&norm))
    return {n->options.normalized_shape(), n->weight, n->bias, n->options.eps()};
  const auto& n = dynamic_cast<const RMSNorm&>(norm);
  const bool f64 = n.weight.defined() && n.weight.dtype() == Dtype::Float64;
  const double eps = n.options.eps().value_or(f64 ? 0x1p-52 : 0x1p-23);
  return {n.options.normalized_shape(), n.weight, Tensor(), eps, /*rms=*/true};
}

// The values of `from` into `to`, a module of the same structure (a deep copy's second half).
// The copy has its own positional scheme, as after copy.deepcopy.
template <class M>
std::shared_ptr<M> copy_of(const M& from) {
  ForkRng fork;  // the copy's own initialisation is overwritten: draw nothing for it
  auto options = from.options;
  if (options.pos()) options.pos(options.pos()->clone());
  auto to = std::make_shared<M>(options);
  to->load_state_dict(from.state_dict());
  to->train(from.is_training());
  return to;
}

}  // namespace

TransformerLayer::TransformerLayer(const char* name, const TransformerLayerOptions& options_)
    : Module(name), options(options_) {}

std::shared_ptr<MultiheadAttention> TransformerLayer::add_attention(const char* name,
                                                                   std::shared_ptr<RelativePosition> pos) {
  const TransformerLayerOptions& o = options;
  return register_module(name, std::make_shared<MultiheadAttention>(MultiheadAttentionOptions(o.d_model(), o.nhead())
                                                                        .dropout(o.dropout())
                                                                        .bias(o.bias())
                                                                        .batch_first(o.batch_first())
                                                                        .dtype(o.dtype())
                                                                        .num_key_value_heads(o.num_key_value_heads())
                                                                        .head_dim(o.head_dim())
                                                                        .pos(std::move(pos))
                                                                        .scale(o.scale())));
}

void TransformerLayer::add_feed_forward() {
  const TransformerLayerOptions& o = options;
  const auto linear = [&](int64_t in, int64_t out) {
    return std::make_shared<Linear>(LinearOptions(in, out).bias(o.bias()).dtype(o.dtype()));
  };
  linear1 = register_module("linear1", linear(o.d_model(), o.dim_feedforward()));
  dropout = add_dropout("dropout");
  linear2 = register_module("linear2", linear(o.dim_feedforward(), o.d_model()));
  if (o.glu()) linear3 = register_module("linear3", linear(o.d_model(), o.dim_feedforward()));
}

std::shared_ptr<UnaryModule> TransformerLayer::add_norm(const char* name) {
  const TransformerLayerOptions& o = options;
  const Shape shape{o.d_model()};
  if (o.rms_norm()) {
    const auto norm = RMSNormOptions(shape).eps(o.layer_norm_eps()).dtype(o.dtype());
    return register_module(name, std::make_shared<RMSNorm>(norm));
  }
  const auto norm = LayerNormOptions(shape).eps(o.layer_norm_eps()).bias(o.bias()).dtype(o.dtype());
  return register_module(name, std::make_shared<LayerNorm>(norm));
}

std::shared_ptr<Dropout> TransformerLayer::add_dropout(const char* name) {
  return register_module(name, std::make_shared<Dropout>(options.dropout()));
}

template <class Params>
void TransformerLayer::fill_params(Params& p) const {
  p.linear1 = linear_params(linear1);
  p.linear2 = linear_params(linear2);
  p.linear3 = linear_params(linear3);
  p.norm1 = norm_params(*norm1);
  p.norm2 = norm_params(*norm2);
  p.dropout = dropout->options.p();
  p.dropout1 = dropout1->options.p();
  p.dropout2 = dropout2->options.p();
  p.activation = options.activation().fn;
  p.norm_first = options.norm_first();
}

// Construction order is torch's, and with it the order of the random draws.
TransformerEncoderLayer::TransformerEncoderLayer(const TransformerEncoderLayerOptions& options_)
    : TransformerLayer("TransformerEncoderLayer", options_) {
  self_attn = add_attention("self_attn", options.pos());
  add_feed_forward();
  norm1 = add_norm("norm1");
  norm2 = add_norm("norm2");
  dropout1 = add_dropout("dropout1");
  dropout2 = add_dropout("dropout2");
}

TransformerEncoderLayerParams TransformerEncoderLayer::params() const {
  TransformerEncoderLayerParams p;
  p.self_attn = self_attn->params();
  fill_params(p);
  return p;
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask,
                                        bool is_causal, AttentionCache* cache) {
  return transformer_encoder_layer_forward(src, params(), is_training(), src_mask, src_key_padding_mask, is_causal,
                                           cache);
}

std::shared_ptr<TransformerEncoderLayer> TransformerEncoderLayer::clone() const { return copy_of(*this); }

TransformerDecoderLayer::TransformerDecoderLayer(const TransformerDecoderLayerOptions& options_)
    : TransformerLayer("TransformerDecoderLayer", options_) {
  self_attn = add_attention("self_attn", options.pos());  // cross-attention has no scheme
  multihead_attn = add_attention("multihead_attn");
  add_feed_forward();
  norm1 = add_norm("norm1");
  norm2 = add_norm("norm2");
  norm3 = add_norm("norm3");
  dropout1 = add_dropout("dropout1");
  dropout2 = add_dropout("dropout2");
  dropout3 = add_dropout("dropout3");
}

TransformerDecoderLayerParams TransformerDecoderLayer::params() const {
  TransformerDecoderLayerParams p;
  p.self_attn = self_attn->params();
  p.multihead_attn = multihead_attn->params();
  fill_params(p);
  p.norm3 = norm_params(*norm3);
  p.dropout3 = dropout3->options.p();
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

std::shared_ptr<TransformerDecoderLayer> TransformerDecoderLayer::clone() const { return copy_of(*this); }

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

namespace {

// A stack's "layers": num_layers copies of `layer`, also kept in `copies`.
template <class Layer>
std::shared_ptr<ModuleList> copies_of(const std::shared_ptr<Layer>& layer, int64_t num_layers, const char* stack,
                                      std::vector<std::shared_ptr<Layer>>& copies) {
  SEQLAB_CHECK_VALUE(layer != nullptr, stack, ": the layer to copy is required");
  auto list = std::make_shared<ModuleList>();
  for (int64_t i = 0; i < num_layers; ++i) {
    copies.push_back(layer->clone());
    list->push_back(copies.back());
  }
  return list;
}

}  // namespace

TransformerEncoder::TransformerEncoder(const TransformerEncoderOptions& options_)
    : Module("TransformerEncoder"), options(options_), norm(options.norm()) {
  const auto& layer = options.encoder_layer();
  register_module("layers", copies_of(layer, options.num_layers(), "TransformerEncoder", layers));
  if (norm) register_module("norm", norm);
  const auto& sa = *layer->self_attn;
  why_not_sparsity_fast_path = transformer_encoder_why_not_nested(
      true, layer->options.norm_first(), sa.options.batch_first(), sa.qkv_same_embed_dim, sa.in_proj_bias.defined(),
      layer->options.activation().relu_or_gelu != 0, norm_params(*layer->norm1).eps, norm_params(*layer->norm2).eps,
      sa.options.num_heads());
  use_nested_tensor = options.enable_nested_tensor() && why_not_sparsity_fast_path.empty();
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask_in, const Tensor& src_key_padding_mask_in,
                                   std::optional<bool> is_causal, KVCache* cache) {
  const Tensor src_key_padding_mask = canonical_mask(src_key_padding_mask_in, "src_key_padding_mask", src.dtype());
  const Tensor mask = canonical_mask(mask_in, "mask", src.dtype());
  SEQLAB_CHECK_INDEX(!layers.empty(), "TransformerEncoder: index 0 is out of range (no layers)");
  const TransformerEncoderLayer& first = *layers.front();
  const LayerNormParams norm1 = norm_params(*first.norm1), norm2 = norm_params(*first.norm2);
  const TensorList first_params = {first.self_attn->in_proj_weight, first.self_attn->in_proj_bias,
                                   first.self_attn->out_proj->weight, first.self_attn->out_proj->bias,
                                   norm1.weight, norm1.bias, norm2.weight, norm2.bias,
                                   first.linear1->weight, first.linear1->bias, first.linear2->weight,
                                   first.linear2->bias};
  const Tensor padded = transformer_encoder_nested_padding(src, src_key_padding_mask, mask, use_nested_tensor,
                                                           first.is_training(), options.mask_check(), first_params);
  const bool causal = detect_is_causal_mask(mask, is_causal, seq_len(src, first.options.batch_first()));
  Tensor output = src;
  for (size_t i = 0; i < layers.size(); ++i)
    output = layers[i]->forward(output, mask, src_key_padding_mask, causal,
                                cache ? cache->self_attention(static_cast<int64_t>(i)).get() : nullptr);
  if (padded.defined()) output = masked_fill(output, unsqueeze(padded, -1), 0.0);
  return norm ? norm->forward(output) : output;
}

TransformerDecoder::TransformerDecoder(const TransformerDecoderOptions& options_)
    : Module("TransformerDecoder"), options(options_), norm(options.norm()) {
  register_module("layers", copies_of(options.decoder_layer(), options.num_layers(), "TransformerDecoder", layers));
  if (norm) register_module("norm", norm);
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                   const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                   const Tensor& memory_key_padding_mask, std::optional<bool> tgt_is_causal,
                                   bool memory_is_causal, KVCache* cache) {
  SEQLAB_CHECK_INDEX(!layers.empty(), "TransformerDecoder: index 0 is out of range (no layers)");
  const bool causal = detect_is_causal_mask(tgt_mask, tgt_is_causal,
                                            seq_len(tgt, layers.front()->options.batch_first()));
  Tensor output = tgt;
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto layer_idx = static_cast<int64_t>(i);
    output = layers[i]->forward(output, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                                causal, memory_is_causal, cache ? cache->self_attention(layer_idx).get() : nullptr,
                                cache ? cache->cross_attention(layer_idx).get() : nullptr);
  }
  return norm ? norm->forward(output) : output;
}

namespace {

// The layer options a Transformer without a custom encoder or decoder builds its stacks from.
template <class LayerOptions>
LayerOptions layer_options(const TransformerOptions& o) {
  return LayerOptions(o.d_model(), o.nhead())
      .dim_feedforward(o.dim_feedforward())
      .dropout(o.dropout())
      .activation(o.activation())
      .layer_norm_eps(o.layer_norm_eps())
      .batch_first(o.batch_first())
      .norm_first(o.norm_first())
      .bias(o.bias())
      .dtype(o.dtype());
}

std::shared_ptr<LayerNorm> final_norm(const TransformerOptions& o) {
  return std::make_shared<LayerNorm>(
      LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()).bias(o.bias()).dtype(o.dtype()));
}

}  // namespace

Transformer::Transformer(const TransformerOptions& options_) : Module("Transformer"), options(options_) {
  encoder = options.custom_encoder();
  if (!encoder)
    encoder = std::make_shared<TransformerEncoder>(
        TransformerEncoderOptions(layer_options<TransformerEncoderLayerOptions>(options), options.num_encoder_layers())
            .norm(final_norm(options)));
  register_module("encoder", encoder);
  decoder = options.custom_decoder();
  if (!decoder)
    decoder = std::make_shared<TransformerDecoder>(
        TransformerDecoderOptions(layer_options<TransformerDecoderLayerOptions>(options), options.num_decoder_layers())
            .norm(final_norm(options)));
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
  check_transformer_inputs(src, tgt, options.d_model(), options.batch_first());
  const Tensor memory = encoder->forward(src, src_mask, src_key_padding_mask, src_is_causal);
  return decoder->forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                          tgt_is_causal, memory_is_causal);
}

}  // namespace seqlab::nn
