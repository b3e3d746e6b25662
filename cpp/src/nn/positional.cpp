// The positional schemes for C++ users; the Python twins are in python/seqlab/nn/positional.py.
// Each registers the same parameters in the same order, draws their initial values by the same
// nn::init calls, refuses the same options in the same words, and a relative one hands the
// attention the same PositionalScheme. Tests: tests/test_nn_twins.py,
// cpp/tests/test_positional_modules.cpp.
#include "seqlab/nn/positional.hpp"

#include <algorithm>
#include <sstream>
#include <type_traits>

#include "seqlab/nn/init.hpp"
#include "seqlab/nn/transformer.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::nn {

namespace {

int64_t check_heads(int64_t num_heads, const char* scheme) {
  SEQLAB_CHECK_VALUE(num_heads >= 1, scheme, ": num_heads must be a positive int, got ", num_heads);
  return num_heads;
}

std::string bool_repr(bool b) { return b ? "True" : "False"; }

// Python's repr of a tuple: ('c2p', 'p2c'), ('c2p',), (2, 5, 4), ().
template <class T>
std::string tuple_repr(const std::vector<T>& items) {
  std::ostringstream s;
  s << "(";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) s << ", ";
    if constexpr (std::is_same_v<T, std::string>)
      s << "'" << items[i] << "'";
    else
      s << items[i];
  }
  s << (items.size() == 1 ? ",)" : ")");
  return s.str();
}

}  // namespace

// ------------------------------------------------------------------ the base
RelativePosition::RelativePosition(const char* name, std::string kind_, std::optional<int64_t> num_heads,
                                   std::optional<int64_t> head_dim, std::optional<int64_t> embed_dim)
    : Module(name), kind(std::move(kind_)), num_heads_(num_heads), head_dim_(head_dim), embed_dim_(embed_dim) {}

PositionalScheme RelativePosition::scheme(const MultiheadAttention*) const {
  return PositionalScheme{kind, options_by_name(), params_by_name()};
}

std::map<std::string, Tensor> RelativePosition::params_by_name() const {
  std::map<std::string, Tensor> params;
  for (const auto& [name, t] : named_parameters(false)) params.emplace(name, t);
  return params;
}

Tensor RelativePosition::attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                   const Tensor& attn_mask, double dropout_p, bool is_causal,
                                   std::optional<double> scale, int64_t q_offset) const {
  return positional_attention(query, key, value, scheme(), attn_mask, dropout_p, is_causal, scale, q_offset);
}

Tensor RelativePosition::attention_weights(const Tensor& query, const Tensor& key, const Tensor& attn_mask,
                                           bool is_causal, std::optional<double> scale, int64_t q_offset) const {
  return positional_attention_weights(query, key, scheme(), attn_mask, is_causal, scale, q_offset);
}

void RelativePosition::check_serves(const std::string& owner, int64_t embed_dim, int64_t num_heads,
                                    int64_t head_dim) const {
  SEQLAB_CHECK_VALUE(!head_dim_ || *head_dim_ == head_dim, owner, ": ", name(), " was built for head_dim ", *head_dim_,
                     " but the attention has ", num_heads, " heads of ", head_dim);
  SEQLAB_CHECK_VALUE(!num_heads_ || *num_heads_ == num_heads, owner, ": ", name(), " was built for ", *num_heads_,
                     " heads but the attention has ", num_heads);
  SEQLAB_CHECK_VALUE(!embed_dim_ || *embed_dim_ == embed_dim, owner, ": ", name(), " was built for embed_dim ",
                     *embed_dim_, " but the attention has ", embed_dim);
}

// ------------------------------------------------------------------ NoPE
NoPE::NoPE() : RelativePosition("NoPE", "none") {}
std::shared_ptr<RelativePosition> NoPE::clone() const { return std::make_shared<NoPE>(); }

// ------------------------------------------------------------------ RoPE
RoPE::RoPE(const RoPEOptions& o) : RelativePositionWith("RoPE", "rope", o, std::nullopt, o.head_dim()) {
  SEQLAB_CHECK_VALUE(o.head_dim() >= 2 && o.head_dim() % 2 == 0,
                     "RoPE rotates pairs of features, so head_dim must be even and positive, got ", o.head_dim());
}

std::map<std::string, PositionalOption> RoPE::options_by_name() const {
  return {{"base", options.base()}, {"interleaved", options.interleaved()}, {"head_dim", options.head_dim()}};
}

Tensor RoPE::rotate(const Tensor& x, int64_t offset) const {
  SEQLAB_CHECK_VALUE(x.dim() >= 1 && x.shape().back() == options.head_dim(), "RoPE: expected head_dim ",
                     options.head_dim(), ", got x of shape ", tuple_repr(x.shape()));
  return rotary_embedding(x, offset, options.base(), options.interleaved());
}

// "head_dim=64, base=10000, interleaved=True" (base as Python's :g)
std::string RoPE::extra_repr() const {
  std::ostringstream base;
  base << options.base();
  return str_cat("head_dim=", options.head_dim(), ", base=", base.str(), ", interleaved=",
                 bool_repr(options.interleaved()));
}

// ------------------------------------------------------------------ ALiBi
ALiBi::ALiBi(const ALiBiOptions& o)
    : RelativePositionWith("ALiBi", "alibi", o, check_heads(o.num_heads(), "ALiBi")) {}

std::map<std::string, PositionalOption> ALiBi::options_by_name() const { return {{"num_heads", options.num_heads()}}; }
Tensor ALiBi::slopes() const { return alibi_slopes(options.num_heads()); }
std::string ALiBi::extra_repr() const { return str_cat("num_heads=", options.num_heads()); }
// ------------------------------------------------------------------ T5
T5RelativeBias::T5RelativeBias(const T5RelativeBiasOptions& o)
    : RelativePositionWith("T5RelativeBias", "t5", o, check_heads(o.num_heads(), "T5RelativeBias")) {
  bucket(zeros({1}, Dtype::Int64));  // refuses bucket counts that leave no log-spaced buckets
  relative_attention_bias = register_module(
      "relative_attention_bias", std::make_shared<Embedding>(EmbeddingOptions(o.num_buckets(), o.num_heads()).dtype(o.dtype())));
}

std::map<std::string, PositionalOption> T5RelativeBias::options_by_name() const {
  return {{"num_heads", options.num_heads()}, {"num_buckets", options.num_buckets()},
          {"max_distance", options.max_distance()}, {"bidirectional", options.bidirectional()}};
}

std::map<std::string, Tensor> T5RelativeBias::params_by_name() const {
  return {{"relative_attention_bias", relative_attention_bias->weight}};
}

Tensor T5RelativeBias::bucket(const Tensor& relative_position) const {
  return t5_relative_position_bucket(relative_position, options.bidirectional(), options.num_buckets(),
                                     options.max_distance());
}

// ------------------------------------------------------------------ Shaw
ShawRelativePosition::ShawRelativePosition(const ShawRelativePositionOptions& o)
    : RelativePositionWith("ShawRelativePosition", "shaw", o, std::nullopt, o.head_dim()) {
  SEQLAB_CHECK_VALUE(o.max_relative_position() >= 1,
                     "ShawRelativePosition: max_relative_position must be >= 1, got ", o.max_relative_position());
  const int64_t rows = 2 * o.max_relative_position() + 1;
  relative_key = register_parameter("relative_key", Tensor::empty({rows, o.head_dim()}, o.dtype()));
  if (o.values()) relative_value = register_parameter("relative_value", Tensor::empty({rows, o.head_dim()}, o.dtype()));
  reset_parameters();
}

// Glorot-uniform, as the paper's implementation (tensor2tensor) draws them.
void ShawRelativePosition::reset_parameters() {
  init::xavier_uniform_(relative_key);
  if (relative_value.defined()) init::xavier_uniform_(relative_value);
}

std::map<std::string, PositionalOption> ShawRelativePosition::options_by_name() const {
  return {{"max_relative_position", options.max_relative_position()}};
}

// ------------------------------------------------------------------ Transformer-XL
TransformerXLRelativePosition::TransformerXLRelativePosition(const TransformerXLRelativePositionOptions& o)
    : RelativePositionWith("TransformerXLRelativePosition", "xl", o,
                           check_heads(o.num_heads(), "TransformerXLRelativePosition"), std::nullopt, o.embed_dim()) {
  SEQLAB_CHECK_VALUE(o.embed_dim() % o.num_heads() == 0, "TransformerXLRelativePosition: embed_dim ", o.embed_dim(),
                     " not divisible by num_heads ", o.num_heads());
  const int64_t head_dim = o.embed_dim() / o.num_heads();
  const auto r_net_options = LinearOptions(o.embed_dim(), o.embed_dim()).bias(false).dtype(o.dtype());
  r_net = register_module("r_net", std::make_shared<Linear>(r_net_options));
  r_w_bias = register_parameter("r_w_bias", Tensor::empty({o.num_heads(), head_dim}, o.dtype()));
  r_r_bias = register_parameter("r_r_bias", Tensor::empty({o.num_heads(), head_dim}, o.dtype()));
  init::normal_(r_w_bias, 0.0, 0.02);  // Transformer-XL's init_std
  init::normal_(r_r_bias, 0.0, 0.02);
}

std::map<std::string, PositionalOption> TransformerXLRelativePosition::options_by_name() const {
  return {{"num_heads", options.num_heads()}, {"base", options.base()}};
}

std::map<std::string, Tensor> TransformerXLRelativePosition::params_by_name() const {
  return {{"r_w_bias", r_w_bias}, {"r_r_bias", r_r_bias}, {"r_net", r_net->weight}};
}

// ------------------------------------------------------------------ DeBERTa
DeBERTaRelativePosition::DeBERTaRelativePosition(const DeBERTaRelativePositionOptions& o_)
    : RelativePositionWith("DeBERTaRelativePosition", "deberta",
                           // position_buckets <= 0: none, kept as -1 (as Python keeps it)
                           DeBERTaRelativePositionOptions(o_).position_buckets(o_.position_buckets() > 0 ? o_.position_buckets() : -1),
                           check_heads(o_.num_heads(), "DeBERTaRelativePosition"), std::nullopt, o_.embed_dim()) {
  const auto& o = options;
  const int64_t E = o.embed_dim(), k = o.max_relative_position();
  SEQLAB_CHECK_VALUE(E % o.num_heads() == 0, "DeBERTaRelativePosition: embed_dim ", E, " not divisible by num_heads ",
                     o.num_heads());
  SEQLAB_CHECK_VALUE(k >= 1, "DeBERTaRelativePosition: max_relative_position must be >= 1, got ", k);
  const auto& types = o.pos_att_type();
  SEQLAB_CHECK_VALUE(std::all_of(types.begin(), types.end(), [](const std::string& t) { return t == "c2p" || t == "p2c"; }),
                     "DeBERTaRelativePosition: pos_att_type holds 'c2p' and/or 'p2c', got ", tuple_repr(types));
  const std::string norm = o.norm_rel_ebd().value_or("none");
  SEQLAB_CHECK_VALUE(norm == "none" || norm == "layer_norm",
                     "DeBERTaRelativePosition: norm_rel_ebd must be None or 'layer_norm', got '", norm, "'");
  if (o.position_buckets() > 0) {
    try {  // the op checks that the two leave log-spaced buckets
      deberta_log_bucket_position(zeros({1}, Dtype::Int64), o.position_buckets(), k);
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(str_cat("DeBERTaRelativePosition: ", e.what()));
    }
  }
  const int64_t span = o.position_buckets() > 0 ? o.position_buckets() : k;
  rel_embeddings = register_module("rel_embeddings", std::make_shared<Embedding>(EmbeddingOptions(2 * span, E).dtype(o.dtype())));
  init::normal_(rel_embeddings->weight, 0.0, 0.02);  // DeBERTa's initializer_range
  const bool own = !o.share_att_key();
  const auto proj = LinearOptions(E, E).dtype(o.dtype());
  if (own && uses("c2p")) pos_key_proj = register_module("pos_key_proj", std::make_shared<Linear>(proj));
  if (own && uses("p2c"))
    pos_query_proj = register_module("pos_query_proj", std::make_shared<Linear>(proj));
  if (norm == "layer_norm")
    rel_norm = register_module("rel_norm",
                               std::make_shared<LayerNorm>(LayerNormOptions({E}).eps(o.layer_norm_eps()).dtype(o.dtype())));
}

bool DeBERTaRelativePosition::uses(const char* term) const {
  const auto& types = options.pos_att_type();
  return std::find(types.begin(), types.end(), term) != types.end();
}

std::map<std::string, PositionalOption> DeBERTaRelativePosition::options_by_name() const {
  return {{"num_heads", options.num_heads()},
          {"max_relative_position", options.max_relative_position()},
          {"position_buckets", options.position_buckets()},
          {"c2p", uses("c2p")},
          {"p2c", uses("p2c")},
          {"rel_norm_eps", rel_norm ? rel_norm->options.eps() : 1e-7}};
}

// With share_att_key, K^r and Q^r are the attention's own key and query projections: rows of its
// in_proj (views, so gradients reach it) or its separate q/k weights.
PositionalScheme DeBERTaRelativePosition::scheme(const MultiheadAttention* attention) const {
  PositionalScheme s{kind, options_by_name(), {{"rel_embeddings", rel_embeddings->weight}}};
  if (rel_norm) {
    s.params["rel_norm_weight"] = rel_norm->weight;
    s.params["rel_norm_bias"] = rel_norm->bias;
  }
  auto add = [&s](const std::string& name, const Tensor& weight, const Tensor& bias) {
    s.params[name + "_weight"] = weight;
    s.params[name + "_bias"] = bias;
  };
  if (!options.share_att_key()) {
    if (pos_key_proj) add("pos_key_proj", pos_key_proj->weight, pos_key_proj->bias);
    if (pos_query_proj) add("pos_query_proj", pos_query_proj->weight, pos_query_proj->bias);
    return s;
  }
  SEQLAB_CHECK_VALUE(attention != nullptr,
                     "DeBERTaRelativePosition: with share_att_key=True the position terms use the attention's own "
                     "query and key projections; pass the scheme as pos= to nn.MultiheadAttention (or a transformer "
                     "layer) rather than calling it alone");
  const int64_t E = attention->options.embed_dim();
  SEQLAB_CHECK_VALUE(attention->num_key_value_heads * attention->head_dim == E,
                     "DeBERTaRelativePosition: share_att_key needs as many key heads as query heads (the attention "
                     "has num_key_value_heads=", attention->num_key_value_heads, ")");
  const Tensor& b = attention->in_proj_bias;
  auto rows = [E](const Tensor& t, int64_t first) { return t.defined() ? narrow(t, 0, first, E) : Tensor(); };
  const bool packed = attention->in_proj_weight.defined();
  add("pos_query_proj", packed ? rows(attention->in_proj_weight, 0) : attention->q_proj_weight, rows(b, 0));
  add("pos_key_proj", packed ? rows(attention->in_proj_weight, E) : attention->k_proj_weight, rows(b, E));
  return s;
}

// "768, num_heads=12, max_relative_position=256, position_buckets=256, share_att_key=True"
std::string DeBERTaRelativePosition::extra_repr() const {
  std::string s = str_cat(options.embed_dim(), ", num_heads=", options.num_heads(),
                          ", max_relative_position=", options.max_relative_position());
  if (options.position_buckets() > 0) s += str_cat(", position_buckets=", options.position_buckets());
  if (options.share_att_key()) s += ", share_att_key=True";
  if (options.pos_att_type() != std::vector<std::string>{"c2p", "p2c"})
    s += ", pos_att_type=" + tuple_repr(options.pos_att_type());
  return s;
}

// ------------------------------------------------------------------ DA
DARelativePosition::DARelativePosition(const DARelativePositionOptions& o)
    : RelativePositionWith("DARelativePosition", "da", o, check_heads(o.num_heads(), "DARelativePosition")) {
  distance_weight = register_parameter("distance_weight", Tensor::empty({o.num_heads()}, o.dtype()));
  sigmoid_shift = register_parameter("sigmoid_shift", Tensor::empty({o.num_heads()}, o.dtype()));
  init::zeros_(distance_weight);  // R̂ = 1 at the start
  init::zeros_(sigmoid_shift);
}

std::map<std::string, PositionalOption> DARelativePosition::options_by_name() const {
  return {{"num_heads", options.num_heads()}};
}

// ------------------------------------------------------------------ KERPLE
KERPLE::KERPLE(const KERPLEOptions& o)
    : RelativePositionWith("KERPLE", "kerple", o, check_heads(o.num_heads(), "KERPLE")) {
  SEQLAB_CHECK_VALUE(o.kernel() == "log" || o.kernel() == "power", "KERPLE: kernel must be 'log' or 'power', got '",
                     o.kernel(), "'");
  bias_p = register_parameter("bias_p", Tensor::empty({o.num_heads()}, o.dtype()));
  bias_a = register_parameter("bias_a", Tensor::empty({o.num_heads()}, o.dtype()));
  init::uniform_(bias_p, 0.0, 2.0);  // as the authors' code
  init::uniform_(bias_a, 0.0, 1.0);
}

std::map<std::string, PositionalOption> KERPLE::options_by_name() const {
  return {{"num_heads", options.num_heads()}, {"kernel", options.kernel()}};
}

std::string KERPLE::extra_repr() const { return str_cat("num_heads=", options.num_heads(), ", kernel='", options.kernel(), "'"); }

// ------------------------------------------------------------------ absolute schemes
AbsolutePosition::AbsolutePosition(const char* name, double p, bool batch_first_)
    : Module(name), batch_first(batch_first_) {
  dropout = register_module("dropout", std::make_shared<Dropout>(p));
}

int64_t AbsolutePosition::length(const Tensor& x) const {
  SEQLAB_CHECK_VALUE(x.dim() == 2 || x.dim() == 3, name(), ": expected x of shape (N, L, E), (L, N, E) or (L, E), got ",
                     tuple_repr(x.shape()));
  return x.shape()[batch_first && x.dim() == 3 ? 1 : 0];
}

Tensor AbsolutePosition::add_table(const Tensor& x, const Tensor& table) const {
  return add(x, x.dim() == 3 && !batch_first ? unsqueeze(table, 1) : table);
}

Tensor AbsolutePosition::positions(const Tensor& x, const Tensor& position_ids) const {
  const Shape tokens(x.shape().begin(), x.shape().end() - 1);
  SEQLAB_CHECK_VALUE(position_ids.dtype() == Dtype::Int64 && position_ids.shape() == tokens, name(),
                     ": position_ids must be int64 of shape ", tuple_repr(tokens),
                     " (x's shape without its last dim), got ", tuple_repr(position_ids.shape()));
  return reshape(position_ids, {-1});
}

SinusoidalPositionalEncoding::SinusoidalPositionalEncoding(const SinusoidalPositionalEncodingOptions& o)
    : AbsolutePosition("SinusoidalPositionalEncoding", o.dropout(), o.batch_first()), options(o) {
  SEQLAB_CHECK_VALUE(o.d_model() >= 2 && o.d_model() % 2 == 0,
                     "SinusoidalPositionalEncoding: d_model must be even and positive, got ", o.d_model());
}

Tensor SinusoidalPositionalEncoding::encoding(int64_t length, int64_t offset, Dtype dtype) const {
  const Tensor p = arange(static_cast<double>(offset), static_cast<double>(offset + length), 1.0, Dtype::Float64);
  return sinusoidal_encoding(p, options.d_model(), options.base(), dtype);
}

Tensor SinusoidalPositionalEncoding::forward(const Tensor& x, int64_t offset, const Tensor& position_ids) {
  SEQLAB_CHECK_VALUE(x.dim() >= 1 && x.shape().back() == options.d_model(), "SinusoidalPositionalEncoding: expected d_model ",
                     options.d_model(), ", got x of shape ", tuple_repr(x.shape()));
  if (position_ids.defined()) {
    const Tensor p = to_dtype(positions(x, position_ids), Dtype::Float64);
    return dropout->forward(add(x, reshape(sinusoidal_encoding(p, options.d_model(), options.base(), x.dtype()), x.shape())));
  }
  return dropout->forward(add_table(x, encoding(length(x), offset, x.dtype())));
}

std::string SinusoidalPositionalEncoding::extra_repr() const {
  return str_cat("d_model=", options.d_model(), ", batch_first=", bool_repr(batch_first));
}

LearnedPositionalEmbedding::LearnedPositionalEmbedding(const LearnedPositionalEmbeddingOptions& o)
    : AbsolutePosition("LearnedPositionalEmbedding", o.dropout(), o.batch_first()), options(o) {
  weight = register_parameter("weight", Tensor::empty({o.max_len(), o.d_model()}, o.dtype()));
  init::normal_(weight, 0.0, 0.02);  // GPT-2's
}

Tensor LearnedPositionalEmbedding::forward(const Tensor& x, int64_t offset, const Tensor& position_ids) {
  Tensor p;
  int64_t first = offset, last = 0;
  if (position_ids.defined()) {
    p = positions(x, position_ids);
    first = p.numel() ? min(p).item<int64_t>() : 0;
    last = p.numel() ? max(p).item<int64_t>() : 0;
  } else {
    last = offset + length(x) - 1;
  }
  const int64_t n = options.max_len();
  SEQLAB_CHECK_INDEX(first >= 0 && last < n, "LearnedPositionalEmbedding: positions ", first, "..", last,
                     " reach past the table of max_len=", n, " positions (0..", n - 1,
                     "; a learned table cannot extrapolate: use a relative scheme or a larger max_len)");
  if (p.defined()) return dropout->forward(add(x, reshape(index_select(weight, 0, p), x.shape())));
  return dropout->forward(add_table(x, narrow(weight, 0, offset, last + 1 - offset)));
}

std::string LearnedPositionalEmbedding::extra_repr() const {
  return str_cat("max_len=", options.max_len(), ", d_model=", options.d_model(), ", batch_first=",
                 bool_repr(batch_first));
}

}  // namespace seqlab::nn
