// MultiheadAttention and the Transformer modules for C++ users, twins of
// python/seqlab/nn/transformer.py and of torch.nn's (https://pytorch.org/docs/stable/nn.html#transformer-layers):
// torch's constructor arguments, submodule and parameter names in torch's order, torch's
// initialisation in torch's order (so that both twins draw the same numbers), reprs; forward
// is one call of a functional of ops/multihead_attention.hpp or ops/transformer.hpp, which the
// Python modules call too (DESIGN.md, "The twin policy"). The stacks loop over their layers.
// `cache` arguments: seqlab's key/value cache for decoding (ops/kv_cache.hpp, DESIGN.md "Generation").
// cpp/src/nn/transformer.cpp; tests: tests/test_nn_twins.py, cpp/tests/test_transformer.cpp.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqlab/nn/layers.hpp"
#include "seqlab/nn/module.hpp"
#include "seqlab/ops/transformer.hpp"

namespace seqlab::nn {

// torch.nn.MultiheadAttention. Parameters: in_proj_weight (3E, E), or q_proj_weight (E, E),
// k_proj_weight (E, kdim), v_proj_weight (E, vdim) when kdim or vdim differ from E; in_proj_bias
// (3E); bias_k, bias_v (1, 1, E) with add_bias_kv; out_proj, a (NonDynamicallyQuantizable)Linear.
// Init: out_proj as a Linear, then xavier_uniform_ on the projections, zeros on the biases,
// xavier_normal_ on bias_k and bias_v.
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0.0, bool bias = true,
                     bool add_bias_kv = false, bool add_zero_attn = false, std::optional<int64_t> kdim = std::nullopt,
                     std::optional<int64_t> vdim = std::nullopt, bool batch_first = false,
                     Dtype dtype = Dtype::Float32);
  // (attn_output, attn_weights); attn_weights is undefined unless need_weights.
  std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& key_padding_mask = Tensor(), bool need_weights = true,
                                    const Tensor& attn_mask = Tensor(), bool average_attn_weights = true,
                                    bool is_causal = false, AttentionCache* cache = nullptr);
  MultiheadAttentionParams params() const;  // what the functionals take
  void reset_parameters();                   // torch's _reset_parameters

  const int64_t embed_dim, kdim, vdim, num_heads, head_dim;
  const double dropout;
  const bool batch_first, add_zero_attn, qkv_same_embed_dim;
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
};

// torch.nn.TransformerEncoderLayer: self_attn, linear1, dropout, linear2, norm1, norm2,
// dropout1, dropout2, in torch's order.
class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048, double dropout = 0.1,
                          TransformerActivation activation = "relu", double layer_norm_eps = 1e-5,
                          bool batch_first = false, bool norm_first = false, bool bias = true,
                          Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& src, const Tensor& src_mask = Tensor(), const Tensor& src_key_padding_mask = Tensor(),
                 bool is_causal = false, AttentionCache* cache = nullptr);
  TransformerEncoderLayerParams params() const;
  // A copy with the same options and values (copy.deepcopy in torch), made without drawing numbers.
  std::shared_ptr<TransformerEncoderLayer> clone() const;

  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2;
  std::shared_ptr<LayerNorm> norm1, norm2;
  const TransformerActivation activation;
  const bool norm_first;

 private:
  const int64_t d_model_, nhead_, dim_feedforward_;
  const double dropout_p_, layer_norm_eps_;
  const bool batch_first_, bias_;
  const Dtype dtype_;
};

// torch.nn.TransformerDecoderLayer: self_attn, multihead_attn, linear1, dropout, linear2,
// norm1, norm2, norm3, dropout1, dropout2, dropout3.
class TransformerDecoderLayer : public Module {
 public:
  TransformerDecoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048, double dropout = 0.1,
                          TransformerActivation activation = "relu", double layer_norm_eps = 1e-5,
                          bool batch_first = false, bool norm_first = false, bool bias = true,
                          Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = Tensor(),
                 const Tensor& memory_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                 const Tensor& memory_key_padding_mask = Tensor(), bool tgt_is_causal = false,
                 bool memory_is_causal = false, AttentionCache* cache = nullptr,
                 AttentionCache* memory_cache = nullptr);
  TransformerDecoderLayerParams params() const;
  std::shared_ptr<TransformerDecoderLayer> clone() const;

  std::shared_ptr<MultiheadAttention> self_attn, multihead_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2, dropout3;
  std::shared_ptr<LayerNorm> norm1, norm2, norm3;
  const TransformerActivation activation;
  const bool norm_first;

 private:
  const int64_t d_model_, nhead_, dim_feedforward_;
  const double dropout_p_, layer_norm_eps_;
  const bool batch_first_, bias_;
  const Dtype dtype_;
};

// torch.nn.TransformerEncoder: num_layers copies of encoder_layer (layers.0, layers.1, ...), then
// norm if given. With enable_nested_tensor, torch's eval-mode nested-tensor path: see
// transformer_encoder_nested_padding (ops/transformer.hpp); why_not_sparsity_fast_path says why
// that path is off for these layers ("" when it is on).
class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, int64_t num_layers,
                     std::shared_ptr<UnaryModule> norm = nullptr, bool enable_nested_tensor = true,
                     bool mask_check = true);
  Tensor forward(const Tensor& src, const Tensor& mask = Tensor(), const Tensor& src_key_padding_mask = Tensor(),
                 std::optional<bool> is_causal = std::nullopt, KVCache* cache = nullptr);

  std::vector<std::shared_ptr<TransformerEncoderLayer>> layers;
  std::shared_ptr<UnaryModule> norm;
  const int64_t num_layers;
  const bool enable_nested_tensor, mask_check;
  bool use_nested_tensor;
  std::string why_not_sparsity_fast_path;
};

// torch.nn.TransformerDecoder: num_layers copies of decoder_layer, then norm if given.
class TransformerDecoder : public Module {
 public:
  TransformerDecoder(const TransformerDecoderLayer& decoder_layer, int64_t num_layers,
                     std::shared_ptr<UnaryModule> norm = nullptr);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = Tensor(),
                 const Tensor& memory_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                 const Tensor& memory_key_padding_mask = Tensor(), std::optional<bool> tgt_is_causal = std::nullopt,
                 bool memory_is_causal = false, KVCache* cache = nullptr);

  std::vector<std::shared_ptr<TransformerDecoderLayer>> layers;
  std::shared_ptr<UnaryModule> norm;
  const int64_t num_layers;
};

// torch.nn.Transformer: encoder (TransformerEncoder with a final LayerNorm) and decoder, or the
// custom ones given; then xavier_uniform_ on every parameter of more than one dim.
class Transformer : public Module {
 public:
  Transformer(int64_t d_model = 512, int64_t nhead = 8, int64_t num_encoder_layers = 6,
              int64_t num_decoder_layers = 6, int64_t dim_feedforward = 2048, double dropout = 0.1,
              TransformerActivation activation = "relu", std::shared_ptr<TransformerEncoder> custom_encoder = nullptr,
              std::shared_ptr<TransformerDecoder> custom_decoder = nullptr, double layer_norm_eps = 1e-5,
              bool batch_first = false, bool norm_first = false, bool bias = true, Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = Tensor(),
                 const Tensor& tgt_mask = Tensor(), const Tensor& memory_mask = Tensor(),
                 const Tensor& src_key_padding_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                 const Tensor& memory_key_padding_mask = Tensor(), std::optional<bool> src_is_causal = std::nullopt,
                 std::optional<bool> tgt_is_causal = std::nullopt, bool memory_is_causal = false);
  static Tensor generate_square_subsequent_mask(int64_t sz, Dtype dtype = Dtype::Float32) {
    return seqlab::generate_square_subsequent_mask(sz, dtype);
  }

  std::shared_ptr<TransformerEncoder> encoder;
  std::shared_ptr<TransformerDecoder> decoder;
  const int64_t d_model, nhead;
  const bool batch_first;
};

}  // namespace seqlab::nn
