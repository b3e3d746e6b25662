// MultiheadAttention and the Transformer modules for C++ users, twins of
// python/seqlab/nn/modules/activation.py and transformer.py, and of torch.nn's
// (https://pytorch.org/docs/stable/nn.html#transformer-layers):
// each module takes an options struct whose fields are the Python constructor's keywords
// (torch::nn::MultiheadAttentionOptions ...), keeps it as `options`, and registers torch's
// submodules and parameters in torch's order, initialised in torch's order (so that both twins
// draw the same numbers), with torch's reprs; forward is one call of a functional of
// ops/multihead_attention.hpp or ops/transformer.hpp, which the Python modules call too (DESIGN.md,
// "The twin policy"). The stacks loop over their layers.
// `cache` arguments: seqlab's key/value cache for decoding (ops/kv_cache.hpp, DESIGN.md "Generation").
// cpp/src/nn/transformer.cpp; tests: tests/test_nn_twins.py, cpp/tests/test_transformer.cpp.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqlab/arg.hpp"
#include "seqlab/nn/layers.hpp"
#include "seqlab/nn/module.hpp"
#include "seqlab/nn/positional.hpp"
#include "seqlab/ops/transformer.hpp"

namespace seqlab::nn {

// torch.nn.MultiheadAttention's arguments (torch::nn::MultiheadAttentionOptions), checked when
// the module is made. kdim, vdim unset: embed_dim (Python's None).
struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads) : embed_dim_(embed_dim), num_heads_(num_heads) {}

  SEQLAB_ARG(int64_t, embed_dim);
  SEQLAB_ARG(int64_t, num_heads);
  SEQLAB_ARG(double, dropout) = 0.0;       // on the attention weights, in training
  SEQLAB_ARG(bool, bias) = true;           // in_proj_bias and out_proj.bias
  SEQLAB_ARG(bool, add_bias_kv) = false;   // bias_k, bias_v: one more key and value
  SEQLAB_ARG(bool, add_zero_attn) = false;  // one more key and value of zeros, per head
  SEQLAB_ARG(std::optional<int64_t>, kdim);
  SEQLAB_ARG(std::optional<int64_t>, vdim);
  SEQLAB_ARG(bool, batch_first) = false;   // (N, L, E) input and output instead of (L, N, E)
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
  // seqlab's: grouped-query attention, keys and values of this many heads (unset: num_heads)
  SEQLAB_ARG(std::optional<int64_t>, num_key_value_heads);
  // seqlab's: each head's width (unset: embed_dim / num_heads), T5's d_kv
  SEQLAB_ARG(std::optional<int64_t>, head_dim);
  // seqlab's: a positional scheme applied inside the attention (nn/positional.hpp), the submodule
  // "pos" (null: torch's attention); the scores' scale, softmax(q kᵀ · scale) (unset: the
  // scheme's, 1/√head_dim; T5 uses 1)
  SEQLAB_ARG(std::shared_ptr<RelativePosition>, pos);
  SEQLAB_ARG(std::optional<double>, scale);
};

// torch.nn.MultiheadAttention. Parameters: in_proj_weight (3E, E), or q_proj_weight (E, E),
// k_proj_weight (E, kdim), v_proj_weight (E, vdim) when kdim or vdim differ from E; in_proj_bias
// (3E); bias_k, bias_v (1, 1, E) with add_bias_kv; out_proj, a (NonDynamicallyQuantizable)Linear.
// With num_key_value_heads or head_dim the projections have inner = num_heads·head_dim rows for
// the queries and kv_dim = num_key_value_heads·head_dim for the keys and values (ops/multihead_attention.hpp).
// Init: out_proj as a Linear, then xavier_uniform_ on the projections, zeros on the biases,
// xavier_normal_ on bias_k and bias_v.
class MultiheadAttention : public Module {
 public:
  explicit MultiheadAttention(const MultiheadAttentionOptions& options);
  MultiheadAttention(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttention(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  // (attn_output, attn_weights); attn_weights is undefined unless need_weights.
  std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& key_padding_mask = Tensor(), bool need_weights = true,
                                    const Tensor& attn_mask = Tensor(), bool average_attn_weights = true,
                                    bool is_causal = false, AttentionCache* cache = nullptr);
  MultiheadAttentionParams params() const;  // what the functionals take
  void reset_parameters();                   // torch's _reset_parameters

  const MultiheadAttentionOptions options;
  // Derived from the options, as torch's module keeps them.
  const int64_t kdim, vdim, head_dim, num_key_value_heads;
  const bool qkv_same_embed_dim;
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, bias_k, bias_v;
  std::shared_ptr<NonDynamicallyQuantizableLinear> out_proj;
};

// The feed-forward activation: "relu", "gelu" or a callable (torch's str | Callable).
struct TransformerActivation {
  TransformerActivation(const char* name) : TransformerActivation(std::string(name)) {}  // NOLINT: implicit
  TransformerActivation(const std::string& name);                                      // NOLINT: implicit
  TransformerActivation(Activation fn) : fn(std::move(fn)) {}                           // NOLINT: implicit
  Activation fn;
  int relu_or_gelu = 0;  // torch's activation_relu_or_gelu: 1 relu, 2 gelu, 0 a callable
  std::string name;      // "relu" or "gelu"; empty for a callable
};

// torch.nn.TransformerEncoderLayer's and TransformerDecoderLayer's arguments: the same fields in
// both, so one struct under torch's two names (torch::nn::TransformerEncoderLayerOptions,
// TransformerDecoderLayerOptions).
struct TransformerLayerOptions {
  TransformerLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}

  SEQLAB_ARG(int64_t, d_model);
  SEQLAB_ARG(int64_t, nhead);
  SEQLAB_ARG(int64_t, dim_feedforward) = 2048;
  SEQLAB_ARG(double, dropout) = 0.1;  // every Dropout of the layer and its attentions' weights
  SEQLAB_ARG(TransformerActivation, activation) = "relu";
  SEQLAB_ARG(double, layer_norm_eps) = 1e-5;
  SEQLAB_ARG(bool, batch_first) = false;
  SEQLAB_ARG(bool, norm_first) = false;  // pre-LN (Xiong et al. 2020)
  SEQLAB_ARG(bool, bias) = true;         // of the Linear layers, the attentions and the LayerNorms
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
  // seqlab's, for the Llama family: the attentions' num_key_value_heads, RMSNorm for every norm,
  // the GLU feed-forward (linear3), and the attentions' head_dim
  SEQLAB_ARG(std::optional<int64_t>, num_key_value_heads);
  SEQLAB_ARG(bool, rms_norm) = false;
  SEQLAB_ARG(bool, glu) = false;
  SEQLAB_ARG(std::optional<int64_t>, head_dim);
  // seqlab's: the self-attention's positional scheme (each copy of the layer has its own) and
  // every attention's scale (MultiheadAttentionOptions)
  SEQLAB_ARG(std::shared_ptr<RelativePosition>, pos);
  SEQLAB_ARG(std::optional<double>, scale);
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

// What the encoder and decoder layers share: their options, the feed-forward
// linear2(dropout(act(linear1(x)) [⊙ linear3(x)])), the norms (LayerNorm, or RMSNorm with
// rms_norm) and the dropouts after each block. Each layer registers them in torch's order with
// the add_* helpers.
class TransformerLayer : public Module {
 public:
  const TransformerLayerOptions options;
  std::shared_ptr<Linear> linear1, linear2, linear3;  // linear3: with glu only
  std::shared_ptr<Dropout> dropout, dropout1, dropout2;
  std::shared_ptr<UnaryModule> norm1, norm2;  // LayerNorm, or RMSNorm with rms_norm

 protected:
  TransformerLayer(const char* name, const TransformerLayerOptions& options);
  std::shared_ptr<MultiheadAttention> add_attention(const char* name, std::shared_ptr<RelativePosition> pos = nullptr);
  void add_feed_forward();  // linear1, dropout, linear2, linear3
  std::shared_ptr<UnaryModule> add_norm(const char* name);
  std::shared_ptr<Dropout> add_dropout(const char* name);
  // The fields of the layers' records that both share.
  template <class Params>
  void fill_params(Params& p) const;
};

// torch.nn.TransformerEncoderLayer: self_attn, linear1, dropout, linear2, norm1, norm2,
// dropout1, dropout2, in torch's order.
class TransformerEncoderLayer : public TransformerLayer {
 public:
  explicit TransformerEncoderLayer(const TransformerEncoderLayerOptions& options);
  TransformerEncoderLayer(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayer(TransformerEncoderLayerOptions(d_model, nhead)) {}
  Tensor forward(const Tensor& src, const Tensor& src_mask = Tensor(), const Tensor& src_key_padding_mask = Tensor(),
                 bool is_causal = false, AttentionCache* cache = nullptr);
  TransformerEncoderLayerParams params() const;
  // A copy with the same options and values (copy.deepcopy in torch), made without drawing numbers.
  std::shared_ptr<TransformerEncoderLayer> clone() const;

  std::shared_ptr<MultiheadAttention> self_attn;
};

// torch.nn.TransformerDecoderLayer: self_attn, multihead_attn, linear1, dropout, linear2,
// norm1, norm2, norm3, dropout1, dropout2, dropout3.
class TransformerDecoderLayer : public TransformerLayer {
 public:
  explicit TransformerDecoderLayer(const TransformerDecoderLayerOptions& options);
  TransformerDecoderLayer(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayer(TransformerDecoderLayerOptions(d_model, nhead)) {}
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = Tensor(),
                 const Tensor& memory_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                 const Tensor& memory_key_padding_mask = Tensor(), bool tgt_is_causal = false,
                 bool memory_is_causal = false, AttentionCache* cache = nullptr,
                 AttentionCache* memory_cache = nullptr);
  TransformerDecoderLayerParams params() const;
  std::shared_ptr<TransformerDecoderLayer> clone() const;

  std::shared_ptr<MultiheadAttention> self_attn, multihead_attn;
  std::shared_ptr<UnaryModule> norm3;
  std::shared_ptr<Dropout> dropout3;
};

// torch.nn.TransformerEncoder's and TransformerDecoder's arguments: num_layers copies of the
// layer, then norm (none when null). The encoder's enable_nested_tensor and mask_check are torch's.
struct TransformerEncoderOptions {
  TransformerEncoderOptions(std::shared_ptr<TransformerEncoderLayer> encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer, int64_t num_layers)
      : TransformerEncoderOptions(std::make_shared<TransformerEncoderLayer>(encoder_layer), num_layers) {}

  SEQLAB_ARG(std::shared_ptr<TransformerEncoderLayer>, encoder_layer);
  SEQLAB_ARG(int64_t, num_layers);
  SEQLAB_ARG(std::shared_ptr<UnaryModule>, norm);
  SEQLAB_ARG(bool, enable_nested_tensor) = true;
  SEQLAB_ARG(bool, mask_check) = true;
};
struct TransformerDecoderOptions {
  TransformerDecoderOptions(std::shared_ptr<TransformerDecoderLayer> decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer, int64_t num_layers)
      : TransformerDecoderOptions(std::make_shared<TransformerDecoderLayer>(decoder_layer), num_layers) {}

  SEQLAB_ARG(std::shared_ptr<TransformerDecoderLayer>, decoder_layer);
  SEQLAB_ARG(int64_t, num_layers);
  SEQLAB_ARG(std::shared_ptr<UnaryModule>, norm);
};

// torch.nn.TransformerEncoder: num_layers copies of encoder_layer (layers.0, layers.1, ...), then
// norm if given. With enable_nested_tensor, torch's eval-mode nested-tensor path: see
// transformer_encoder_nested_padding (ops/transformer.hpp); why_not_sparsity_fast_path says why
// that path is off for these layers ("" when it is on).
class TransformerEncoder : public Module {
 public:
  explicit TransformerEncoder(const TransformerEncoderOptions& options);
  Tensor forward(const Tensor& src, const Tensor& mask = Tensor(), const Tensor& src_key_padding_mask = Tensor(),
                 std::optional<bool> is_causal = std::nullopt, KVCache* cache = nullptr);

  const TransformerEncoderOptions options;
  std::vector<std::shared_ptr<TransformerEncoderLayer>> layers;
  std::shared_ptr<UnaryModule> norm;
  bool use_nested_tensor;
  std::string why_not_sparsity_fast_path;
};

// torch.nn.TransformerDecoder: num_layers copies of decoder_layer, then norm if given.
class TransformerDecoder : public Module {
 public:
  explicit TransformerDecoder(const TransformerDecoderOptions& options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = Tensor(),
                 const Tensor& memory_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                 const Tensor& memory_key_padding_mask = Tensor(), std::optional<bool> tgt_is_causal = std::nullopt,
                 bool memory_is_causal = false, KVCache* cache = nullptr);

  const TransformerDecoderOptions options;
  std::vector<std::shared_ptr<TransformerDecoderLayer>> layers;
  std::shared_ptr<UnaryModule> norm;
};

// torch.nn.Transformer's arguments (torch::nn::TransformerOptions): every default as torch's.
// Without custom_encoder / custom_decoder, each is a stack of layers made of these options with
// a final LayerNorm.
struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}

  SEQLAB_ARG(int64_t, d_model) = 512;
  SEQLAB_ARG(int64_t, nhead) = 8;
  SEQLAB_ARG(int64_t, num_encoder_layers) = 6;
  SEQLAB_ARG(int64_t, num_decoder_layers) = 6;
  SEQLAB_ARG(int64_t, dim_feedforward) = 2048;
  SEQLAB_ARG(double, dropout) = 0.1;
  SEQLAB_ARG(TransformerActivation, activation) = "relu";
  SEQLAB_ARG(std::shared_ptr<TransformerEncoder>, custom_encoder);
  SEQLAB_ARG(std::shared_ptr<TransformerDecoder>, custom_decoder);
  SEQLAB_ARG(double, layer_norm_eps) = 1e-5;
  SEQLAB_ARG(bool, batch_first) = false;
  SEQLAB_ARG(bool, norm_first) = false;
  SEQLAB_ARG(bool, bias) = true;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};

// torch.nn.Transformer: encoder (TransformerEncoder with a final LayerNorm) and decoder, or the
// custom ones given; then xavier_uniform_ on every parameter of more than one dim.
class Transformer : public Module {
 public:
  explicit Transformer(const TransformerOptions& options = TransformerOptions());
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = Tensor(),
                 const Tensor& tgt_mask = Tensor(), const Tensor& memory_mask = Tensor(),
                 const Tensor& src_key_padding_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                 const Tensor& memory_key_padding_mask = Tensor(), std::optional<bool> src_is_causal = std::nullopt,
                 std::optional<bool> tgt_is_causal = std::nullopt, bool memory_is_causal = false);
  static Tensor generate_square_subsequent_mask(int64_t sz, Dtype dtype = Dtype::Float32) {
    return seqlab::generate_square_subsequent_mask(sz, dtype);
  }

  const TransformerOptions options;
  std::shared_ptr<TransformerEncoder> encoder;
  std::shared_ptr<TransformerDecoder> decoder;
};

}  // namespace seqlab::nn
