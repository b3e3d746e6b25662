// The positional schemes for C++ users, twins of python/seqlab/nn/positional.py: each registers
// its parameters under the Python module's names and shapes, initialised by the same nn::init
// calls in the same order. A relative scheme hands the attention a PositionalScheme (its kind,
// options and parameters by name), which the scheme's lowering reads
// (cpp/src/ops/positional/<kind>.cpp): pass one as MultiheadAttentionOptions::pos or a transformer
// layer's pos. An absolute scheme adds to the embeddings. cpp/src/nn/positional.cpp;
// tests: tests/test_nn_twins.py, cpp/tests/test_positional_modules.cpp.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seqlab/arg.hpp"
#include "seqlab/nn/layers.hpp"
#include "seqlab/nn/module.hpp"
#include "seqlab/ops/positional.hpp"
#include "seqlab/ops/random.hpp"

namespace seqlab::nn {

class MultiheadAttention;

// A scheme that acts inside the attention (Python's RelativePositionScheme).
class RelativePosition : public Module {
 public:
  // What the attention functionals take. attention: the MultiheadAttention the scheme serves, for
  // a scheme that reads its projections (DeBERTa's share_att_key); null when called alone.
  virtual PositionalScheme scheme(const MultiheadAttention* attention = nullptr) const;
  // softmax(scores with the scheme's terms)·V for (B, H, L, D) heads: positional_attention.
  Tensor attention(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask = Tensor(),
                   double dropout_p = 0.0, bool is_causal = false, std::optional<double> scale = std::nullopt,
                   int64_t q_offset = 0) const;
  // The (B, H, L, S) weights of attention(), materialised: positional_attention_weights.
  Tensor attention_weights(const Tensor& query, const Tensor& key, const Tensor& attn_mask = Tensor(),
                           bool is_causal = false, std::optional<double> scale = std::nullopt,
                           int64_t q_offset = 0) const;
  // Refuses an attention of other sizes than the scheme was built for, in the words of Python's
  // MultiheadAttention (`owner` names the module).
  void check_serves(const std::string& owner, int64_t embed_dim, int64_t num_heads, int64_t head_dim) const;
  // A copy with the same options and values (copy.deepcopy), drawing no numbers: each layer of a
  // stack gets its own, as in Python.
  virtual std::shared_ptr<RelativePosition> clone() const = 0;

  const std::string kind;  // the registered lowering, cpp/src/ops/positional/<kind>.cpp

 protected:
  // name: the Python class; the sizes the scheme was built for (unset: any).
  RelativePosition(const char* name, std::string kind, std::optional<int64_t> num_heads = std::nullopt,
                   std::optional<int64_t> head_dim = std::nullopt, std::optional<int64_t> embed_dim = std::nullopt);
  // The scheme's options and parameters by the names its lowering reads (Python's _options and
  // _params); the parameters default to the module's own, under their names.
  virtual std::map<std::string, PositionalOption> options_by_name() const { return {}; }
  virtual std::map<std::string, Tensor> params_by_name() const;

 private:
  const std::optional<int64_t> num_heads_, head_dim_, embed_dim_;
};

// What each scheme's module has besides its parameters: its options, kept as `options`, and
// clone(), which makes a Scheme from them under ForkRng (its own initialisation, which the values
// copied in replace, draws nothing) and gives it these values.
template <class Scheme, class Options>
class RelativePositionWith : public RelativePosition {
 public:
  const Options options;

  std::shared_ptr<RelativePosition> clone() const override {
    std::shared_ptr<Scheme> copy;
    {
      ForkRng fork;
      copy = std::make_shared<Scheme>(options);
    }
    copy->load_state_dict(state_dict());
    copy->train(is_training());
    return copy;
  }

 protected:
  RelativePositionWith(const char* name, std::string kind, const Options& options,
                       std::optional<int64_t> num_heads = std::nullopt, std::optional<int64_t> head_dim = std::nullopt,
                       std::optional<int64_t> embed_dim = std::nullopt)
      : RelativePosition(name, std::move(kind), num_heads, head_dim, embed_dim), options(options) {}
};

// Each scheme: its options (the Python keywords, the required ones in the constructor), then the
// module.

// Kazemnejad et al. 2023: no positional information (kind "none").
class NoPE : public RelativePosition {
 public:
  NoPE();
  std::shared_ptr<RelativePosition> clone() const override;
};

struct RoPEOptions {
  explicit RoPEOptions(int64_t head_dim) : head_dim_(head_dim) {}
  SEQLAB_ARG(int64_t, head_dim);  // even
  SEQLAB_ARG(double, base) = 10000.0;
  SEQLAB_ARG(bool, interleaved) = true;  // pairs (2c, 2c+1) as the paper; false: (c, c + D/2) as GPT-NeoX
};
// Su et al. 2021: q and k rotated pairwise by position·base^(−2c/D). No parameters.
class RoPE : public RelativePositionWith<RoPE, RoPEOptions> {
 public:
  explicit RoPE(const RoPEOptions& options);
  Tensor rotate(const Tensor& x, int64_t offset = 0) const;  // x (..., L, head_dim) at offset, offset + 1, ...
  std::string extra_repr() const override;

 protected:
  std::map<std::string, PositionalOption> options_by_name() const override;
};

struct ALiBiOptions {
  explicit ALiBiOptions(int64_t num_heads) : num_heads_(num_heads) {}
  SEQLAB_ARG(int64_t, num_heads);
};
// Press et al. 2022: head h adds −m_h·|i − j|, m_h geometric in h (alibi_slopes). No parameters.
class ALiBi : public RelativePositionWith<ALiBi, ALiBiOptions> {
 public:
  explicit ALiBi(const ALiBiOptions& options);
  Tensor slopes() const;  // (num_heads) float64
  std::string extra_repr() const override;

 protected:
  std::map<std::string, PositionalOption> options_by_name() const override;
};

struct T5RelativeBiasOptions {
  explicit T5RelativeBiasOptions(int64_t num_heads) : num_heads_(num_heads) {}
  SEQLAB_ARG(int64_t, num_heads);
  SEQLAB_ARG(int64_t, num_buckets) = 32;
  SEQLAB_ARG(int64_t, max_distance) = 128;
  SEQLAB_ARG(bool, bidirectional) = true;  // false: a causal decoder's buckets
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
// Raffel et al. 2020: a learned bias per head and bucket of j − i. relative_attention_bias, an
// Embedding(num_buckets, num_heads) ~ N(0, 1).
class T5RelativeBias : public RelativePositionWith<T5RelativeBias, T5RelativeBiasOptions> {
 public:
  explicit T5RelativeBias(const T5RelativeBiasOptions& options);
  Tensor bucket(const Tensor& relative_position) const;  // t5_relative_position_bucket with these options
  std::shared_ptr<Embedding> relative_attention_bias;

 protected:
  std::map<std::string, PositionalOption> options_by_name() const override;
  std::map<std::string, Tensor> params_by_name() const override;
};

struct ShawRelativePositionOptions {
  explicit ShawRelativePositionOptions(int64_t head_dim) : head_dim_(head_dim) {}
  SEQLAB_ARG(int64_t, head_dim);
  SEQLAB_ARG(int64_t, max_relative_position) = 16;  // k: distances clipped to [−k, k]
  SEQLAB_ARG(bool, values) = true;                  // false: the key term only
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
// Shaw et al. 2018: relative_key a^K and relative_value a^V, (2k + 1, head_dim), Glorot-uniform.
class ShawRelativePosition : public RelativePositionWith<ShawRelativePosition, ShawRelativePositionOptions> {
 public:
  explicit ShawRelativePosition(const ShawRelativePositionOptions& options);
  void reset_parameters();
  Tensor relative_key, relative_value;  // relative_value undefined without values

 protected:
  std::map<std::string, PositionalOption> options_by_name() const override;
};

struct TransformerXLRelativePositionOptions {
  TransformerXLRelativePositionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads) {}
  SEQLAB_ARG(int64_t, embed_dim);
  SEQLAB_ARG(int64_t, num_heads);
  SEQLAB_ARG(double, base) = 10000.0;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
// Dai et al. 2019, §3.3: r_net = W_R, a Linear(embed_dim, embed_dim, bias=false); r_w_bias (u) and
// r_r_bias (v), (num_heads, head_dim) ~ N(0, 0.02²), Transformer-XL's init_std.
class TransformerXLRelativePosition : public RelativePositionWith<TransformerXLRelativePosition, TransformerXLRelativePositionOptions> {
 public:
  explicit TransformerXLRelativePosition(const TransformerXLRelativePositionOptions& options);
  std::shared_ptr<Linear> r_net;
  Tensor r_w_bias, r_r_bias;

 protected:
  std::map<std::string, PositionalOption> options_by_name() const override;
  std::map<std::string, Tensor> params_by_name() const override;
};

struct DeBERTaRelativePositionOptions {
  DeBERTaRelativePositionOptions(int64_t embed_dim, int64_t num_heads) : embed_dim_(embed_dim), num_heads_(num_heads) {}
  SEQLAB_ARG(int64_t, embed_dim);
  SEQLAB_ARG(int64_t, num_heads);
  SEQLAB_ARG(int64_t, max_relative_position) = 64;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
  SEQLAB_ARG(int64_t, position_buckets) = -1;  // > 0: log-bucketed distances (DeBERTa-v2)
  SEQLAB_ARG(bool, share_att_key) = false;     // the attention's own q/k projections of the embeddings
  SEQLAB_ARG(std::vector<std::string>, pos_att_type) = {"c2p", "p2c"};
  SEQLAB_ARG(std::optional<std::string>, norm_rel_ebd);  // "layer_norm": rel_norm before the projections
  SEQLAB_ARG(double, layer_norm_eps) = 1e-7;
};
// He et al. 2021, §3.1: rel_embeddings, an Embedding(2·span, embed_dim) ~ N(0, 0.02²) (span the
// position_buckets when set, else max_relative_position); pos_key_proj (with c2p) and
// pos_query_proj (with p2c), Linears of their own unless share_att_key; rel_norm, a LayerNorm,
// with norm_rel_ebd "layer_norm".
class DeBERTaRelativePosition : public RelativePositionWith<DeBERTaRelativePosition, DeBERTaRelativePositionOptions> {
 public:
  explicit DeBERTaRelativePosition(const DeBERTaRelativePositionOptions& options);
  PositionalScheme scheme(const MultiheadAttention* attention = nullptr) const override;
  std::string extra_repr() const override;
  std::shared_ptr<Embedding> rel_embeddings;
  std::shared_ptr<Linear> pos_key_proj, pos_query_proj;  // null when shared or not used
  std::shared_ptr<LayerNorm> rel_norm;                   // null without norm_rel_ebd

 protected:
  std::map<std::string, PositionalOption> options_by_name() const override;

 private:
  bool uses(const char* term) const;  // "c2p" or "p2c" in pos_att_type
};

struct DARelativePositionOptions {
  explicit DARelativePositionOptions(int64_t num_heads) : num_heads_(num_heads) {}
  SEQLAB_ARG(int64_t, num_heads);
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
// Wu et al. 2021: distance_weight w_h and sigmoid_shift v_h, (num_heads), both 0 (R̂ = 1).
class DARelativePosition : public RelativePositionWith<DARelativePosition, DARelativePositionOptions> {
 public:
  explicit DARelativePosition(const DARelativePositionOptions& options);
  Tensor distance_weight, sigmoid_shift;

 protected:
  std::map<std::string, PositionalOption> options_by_name() const override;
};

struct KERPLEOptions {
  explicit KERPLEOptions(int64_t num_heads) : num_heads_(num_heads) {}
  SEQLAB_ARG(int64_t, num_heads);
  SEQLAB_ARG(std::string, kernel) = "log";  // or "power"
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
// Chi et al. 2022: bias_p (r1) ~ U(0, 2) and bias_a (r2) ~ U(0, 1), (num_heads), the authors' names.
class KERPLE : public RelativePositionWith<KERPLE, KERPLEOptions> {
 public:
  explicit KERPLE(const KERPLEOptions& options);
  std::string extra_repr() const override;
  Tensor bias_p, bias_a;

 protected:
  std::map<std::string, PositionalOption> options_by_name() const override;
};

// ------------------------------------------------------------------ absolute schemes
// Added to the embeddings before the first layer (Python's _Absolute): forward(x, offset,
// position_ids) for x (N, L, E) when batch_first, (L, N, E) otherwise, or (L, E): x plus the table
// at positions offset, offset + 1, ... (offset: the first token's position, after a key/value
// cache), or at each token's own position (position_ids, int64 of x's shape without its last dim),
// then dropout.
class AbsolutePosition : public Module {
 public:
  virtual Tensor forward(const Tensor& x, int64_t offset = 0, const Tensor& position_ids = Tensor()) = 0;
  std::shared_ptr<Dropout> dropout;
  const bool batch_first;

 protected:
  AbsolutePosition(const char* name, double dropout, bool batch_first);
  int64_t length(const Tensor& x) const;                          // L
  Tensor add_table(const Tensor& x, const Tensor& table) const;   // x + table (L, E), over the batch
  Tensor positions(const Tensor& x, const Tensor& position_ids) const;  // checked, flat
};

struct SinusoidalPositionalEncodingOptions {
  explicit SinusoidalPositionalEncodingOptions(int64_t d_model) : d_model_(d_model) {}
  SEQLAB_ARG(int64_t, d_model);  // even
  SEQLAB_ARG(double, dropout) = 0.0;
  SEQLAB_ARG(double, base) = 10000.0;
  SEQLAB_ARG(bool, batch_first) = true;
};
// Vaswani et al. 2017, §3.5: PE(p, 2c) = sin(p / base^(2c/d_model)), PE(p, 2c+1) = cos(...). No
// parameters.
class SinusoidalPositionalEncoding : public AbsolutePosition {
 public:
  explicit SinusoidalPositionalEncoding(const SinusoidalPositionalEncodingOptions& options);
  Tensor encoding(int64_t length, int64_t offset = 0, Dtype dtype = Dtype::Float32) const;  // (length, d_model)
  Tensor forward(const Tensor& x, int64_t offset = 0, const Tensor& position_ids = Tensor()) override;
  std::string extra_repr() const override;
  const SinusoidalPositionalEncodingOptions options;
};

struct LearnedPositionalEmbeddingOptions {
  LearnedPositionalEmbeddingOptions(int64_t max_len, int64_t d_model) : max_len_(max_len), d_model_(d_model) {}
  SEQLAB_ARG(int64_t, max_len);
  SEQLAB_ARG(int64_t, d_model);
  SEQLAB_ARG(double, dropout) = 0.0;
  SEQLAB_ARG(bool, batch_first) = true;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
// BERT, GPT-2: weight (max_len, d_model) ~ N(0, 0.02²); a position past the table throws
// (std::out_of_range, IndexError in Python).
class LearnedPositionalEmbedding : public AbsolutePosition {
 public:
  explicit LearnedPositionalEmbedding(const LearnedPositionalEmbeddingOptions& options);
  Tensor forward(const Tensor& x, int64_t offset = 0, const Tensor& position_ids = Tensor()) override;
  std::string extra_repr() const override;
  const LearnedPositionalEmbeddingOptions options;
  Tensor weight;
};

}  // namespace seqlab::nn
