// Positional information for attention (ops/positional.hpp) for seqlab.nn.positional and
// seqlab.nn.functional: the scheme description, attention with a scheme (fused, and its composed
// oracle), and the tables: sinusoids, ALiBi slopes, T5 buckets, RoPE. Then the C++ twins of the
// schemes (nn/positional.hpp) in seqlab._core.cpp_nn, with the Python modules' arguments.
#include "bind_common.hpp"
#include "seqlab/nn/positional.hpp"

namespace seqlab::bind {

namespace {

template <typename M>
using Scheme = py::class_<M, nn::RelativePosition, std::shared_ptr<M>>;

void bind_positional_modules(py::module_& m) {
  py::module_ c = m.attr("cpp_nn").cast<py::module_>();
  using nn::RelativePosition;
  py::class_<RelativePosition, nn::Module, std::shared_ptr<RelativePosition>>(c, "RelativePosition")
      .def("scheme", [](const RelativePosition& p) { return p.scheme(); },
           "The PositionalScheme the attention reads (kind, options and parameters by name).")
      .def_readonly("kind", &RelativePosition::kind)
      .def("attention",
           [](const RelativePosition& p, const Tensor& q, const Tensor& k, const Tensor& v, OptTensor mask,
              double dropout_p, bool is_causal, std::optional<double> scale, int64_t q_offset) {
             return released([&] { return p.attention(q, k, v, opt(mask), dropout_p, is_causal, scale, q_offset); });
           },
           py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
           py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none(),
           py::arg("q_offset") = 0)
      .def("attention_weights",
           [](const RelativePosition& p, const Tensor& q, const Tensor& k, OptTensor mask, bool is_causal,
              std::optional<double> scale, int64_t q_offset) {
             return released([&] { return p.attention_weights(q, k, opt(mask), is_causal, scale, q_offset); });
           },
           py::arg("query"), py::arg("key"), py::arg("attn_mask") = py::none(), py::arg("is_causal") = false,
           py::arg("scale") = py::none(), py::arg("q_offset") = 0);

  Scheme<nn::NoPE>(c, "NoPE").def(py::init<>());

  using RoO = nn::RoPEOptions;
  Scheme<nn::RoPE> rope(c, "RoPE");
  ModuleOptions<RoO>(c, "RoPEOptions", [] { return RoO(0); })
      .arg("head_dim", &RoO::head_dim, &RoO::head_dim)
      .arg("base", &RoO::base, &RoO::base)
      .arg("interleaved", &RoO::interleaved, &RoO::interleaved)
      .required({"head_dim"})
      .module_init<nn::RoPE>(rope, "RoPE");
  rope.def("rotate", &nn::RoPE::rotate, py::arg("x"), py::arg("offset") = 0, Release());

  using AO = nn::ALiBiOptions;
  Scheme<nn::ALiBi> alibi(c, "ALiBi");
  ModuleOptions<AO>(c, "ALiBiOptions", [] { return AO(0); })
      .arg("num_heads", &AO::num_heads, &AO::num_heads)
      .required({"num_heads"})
      .module_init<nn::ALiBi>(alibi, "ALiBi");
  alibi.def("slopes", &nn::ALiBi::slopes);

  using TO = nn::T5RelativeBiasOptions;
  Scheme<nn::T5RelativeBias> t5(c, "T5RelativeBias");
  ModuleOptions<TO>(c, "T5RelativeBiasOptions", [] { return TO(0); })
      .arg("num_heads", &TO::num_heads, &TO::num_heads)
      .arg("num_buckets", &TO::num_buckets, &TO::num_buckets)
      .arg("max_distance", &TO::max_distance, &TO::max_distance)
      .arg("bidirectional", &TO::bidirectional, &TO::bidirectional)
      .arg("dtype", &TO::dtype, &TO::dtype)
      .required({"num_heads"})
      .module_init<nn::T5RelativeBias>(t5, "T5RelativeBias");
  t5.def("bucket", &nn::T5RelativeBias::bucket, py::arg("relative_position"), Release());

  using SO = nn::ShawRelativePositionOptions;
  Scheme<nn::ShawRelativePosition> shaw(c, "ShawRelativePosition");
  ModuleOptions<SO>(c, "ShawRelativePositionOptions", [] { return SO(0); })
      .arg("head_dim", &SO::head_dim, &SO::head_dim)
      .arg("max_relative_position", &SO::max_relative_position, &SO::max_relative_position)
      .arg("values", &SO::values, &SO::values)
      .arg("dtype", &SO::dtype, &SO::dtype)
      .required({"head_dim"})
      .module_init<nn::ShawRelativePosition>(shaw, "ShawRelativePosition");

  using XO = nn::TransformerXLRelativePositionOptions;
  Scheme<nn::TransformerXLRelativePosition> xl(c, "TransformerXLRelativePosition");
  ModuleOptions<XO>(c, "TransformerXLRelativePositionOptions", [] { return XO(0, 0); })
      .arg("embed_dim", &XO::embed_dim, &XO::embed_dim)
      .arg("num_heads", &XO::num_heads, &XO::num_heads)
      .arg("base", &XO::base, &XO::base)
      .arg("dtype", &XO::dtype, &XO::dtype)
      .required({"embed_dim", "num_heads"})
      .module_init<nn::TransformerXLRelativePosition>(xl, "TransformerXLRelativePosition");

  using DO = nn::DeBERTaRelativePositionOptions;
  Scheme<nn::DeBERTaRelativePosition> deberta(c, "DeBERTaRelativePosition");
  ModuleOptions<DO>(c, "DeBERTaRelativePositionOptions", [] { return DO(0, 0); })
      .arg("embed_dim", &DO::embed_dim, &DO::embed_dim)
      .arg("num_heads", &DO::num_heads, &DO::num_heads)
      .arg("max_relative_position", &DO::max_relative_position, &DO::max_relative_position)
      .arg("dtype", &DO::dtype, &DO::dtype)
      .arg("position_buckets", &DO::position_buckets, &DO::position_buckets)
      .arg("share_att_key", &DO::share_att_key, &DO::share_att_key)
      .arg("pos_att_type", &DO::pos_att_type, &DO::pos_att_type)
      .arg("norm_rel_ebd", &DO::norm_rel_ebd, &DO::norm_rel_ebd)
      .arg("layer_norm_eps", &DO::layer_norm_eps, &DO::layer_norm_eps)
      .required({"embed_dim", "num_heads"})
      .module_init<nn::DeBERTaRelativePosition>(deberta, "DeBERTaRelativePosition");

  using DAO = nn::DARelativePositionOptions;
  Scheme<nn::DARelativePosition> da(c, "DARelativePosition");
  ModuleOptions<DAO>(c, "DARelativePositionOptions", [] { return DAO(0); })
      .arg("num_heads", &DAO::num_heads, &DAO::num_heads)
      .arg("dtype", &DAO::dtype, &DAO::dtype)
      .required({"num_heads"})
      .module_init<nn::DARelativePosition>(da, "DARelativePosition");

  using KO = nn::KERPLEOptions;
  Scheme<nn::KERPLE> kerple(c, "KERPLE");
  ModuleOptions<KO>(c, "KERPLEOptions", [] { return KO(0); })
      .arg("num_heads", &KO::num_heads, &KO::num_heads)
      .arg("kernel", &KO::kernel, &KO::kernel)
      .arg("dtype", &KO::dtype, &KO::dtype)
      .required({"num_heads"})
      .module_init<nn::KERPLE>(kerple, "KERPLE");

  using nn::AbsolutePosition;
  auto forward = [](AbsolutePosition& pe, const Tensor& x, int64_t offset, OptTensor position_ids) {
    return released([&] { return pe.forward(x, offset, opt(position_ids)); });
  };
  py::class_<AbsolutePosition, nn::Module, std::shared_ptr<AbsolutePosition>>(c, "AbsolutePosition")
      .def("forward", forward, py::arg("x"), py::arg("offset") = 0, py::arg("position_ids") = py::none())
      .def("__call__", forward, py::arg("x"), py::arg("offset") = 0, py::arg("position_ids") = py::none());

  using SPO = nn::SinusoidalPositionalEncodingOptions;
  py::class_<nn::SinusoidalPositionalEncoding, AbsolutePosition, std::shared_ptr<nn::SinusoidalPositionalEncoding>>
      sinusoidal(c, "SinusoidalPositionalEncoding");
  ModuleOptions<SPO>(c, "SinusoidalPositionalEncodingOptions", [] { return SPO(0); })
      .arg("d_model", &SPO::d_model, &SPO::d_model)
      .arg("dropout", &SPO::dropout, &SPO::dropout)
      .arg("base", &SPO::base, &SPO::base)
      .arg("batch_first", &SPO::batch_first, &SPO::batch_first)
      .required({"d_model"})
      .module_init<nn::SinusoidalPositionalEncoding>(sinusoidal, "SinusoidalPositionalEncoding");
  sinusoidal.def("encoding", &nn::SinusoidalPositionalEncoding::encoding, py::arg("length"), py::arg("offset") = 0,
                 py::arg("dtype") = Dtype::Float32, Release());

  using LPO = nn::LearnedPositionalEmbeddingOptions;
  py::class_<nn::LearnedPositionalEmbedding, AbsolutePosition, std::shared_ptr<nn::LearnedPositionalEmbedding>>
      learned(c, "LearnedPositionalEmbedding");
  ModuleOptions<LPO>(c, "LearnedPositionalEmbeddingOptions", [] { return LPO(0, 0); })
      .arg("max_len", &LPO::max_len, &LPO::max_len)
      .arg("d_model", &LPO::d_model, &LPO::d_model)
      .arg("dropout", &LPO::dropout, &LPO::dropout)
      .arg("batch_first", &LPO::batch_first, &LPO::batch_first)
      .arg("dtype", &LPO::dtype, &LPO::dtype)
      .required({"max_len", "d_model"})
      .module_init<nn::LearnedPositionalEmbedding>(learned, "LearnedPositionalEmbedding");
}

}  // namespace

void bind_positional(py::module_& m) {
  py::class_<PositionalScheme>(m, "PositionalScheme",
                               "What a positional module passes to the attention: its kind (a registered scheme),\n"
                               "its options and its parameters by name.")
      .def(py::init([](const std::string& kind, std::map<std::string, PositionalOption> options,
                       std::map<std::string, Tensor> params) {
             return PositionalScheme{kind, std::move(options), std::move(params)};
           }),
           py::arg("kind") = "none", py::arg("options") = std::map<std::string, PositionalOption>{},
           py::arg("params") = std::map<std::string, Tensor>{})
      .def_readonly("kind", &PositionalScheme::kind)
      .def_readonly("options", &PositionalScheme::options)
      .def_readonly("params", &PositionalScheme::params);
  m.def("positional_scheme_kinds", &positional_scheme_kinds, "The kinds of positional scheme the library registers.");

  def_op(m, "positional_attention",
        [](const Tensor& q, const Tensor& k, const Tensor& v, const PositionalScheme& pos, std::optional<Tensor> mask,
           double dropout_p, bool is_causal, std::optional<double> scale, int64_t q_offset) {
          return positional_attention(q, k, v, pos, opt(mask), dropout_p, is_causal, scale, q_offset);
        },
        py::arg("query"), py::arg("key"), py::arg("value"), py::arg("pos"), py::arg("attn_mask") = py::none(),
        py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none(),
        py::arg("q_offset") = 0, Release(),
        "Attention with a positional scheme, fused: query (B, H, L, D), key (B, H, S, D), value (B, H, S, Dv)\n"
        "-> (B, H, L, Dv). The scheme's relative terms are read from per-head tables by distance inside\n"
        "the kernel (no L×S bias). attn_mask and is_causal as scaled_dot_product_attention's; query l\n"
        "sits at position l + q_offset (after a key/value cache).");
  def_op(m, "positional_attention_math",
        [](const Tensor& q, const Tensor& k, const Tensor& v, const PositionalScheme& pos, std::optional<Tensor> mask,
           double dropout_p, bool is_causal, std::optional<double> scale, int64_t q_offset) {
          return positional_attention_math(q, k, v, pos, opt(mask), dropout_p, is_causal, scale, q_offset);
        },
        py::arg("query"), py::arg("key"), py::arg("value"), py::arg("pos"), py::arg("attn_mask") = py::none(),
        py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none(),
        py::arg("q_offset") = 0, Release(),
        "positional_attention by ordinary ops with the (B, H, L, S) terms materialised: the oracle.");
  def_op(m, "positional_attention_weights",
        [](const Tensor& q, const Tensor& k, const PositionalScheme& pos, std::optional<Tensor> mask, bool is_causal,
           std::optional<double> scale, int64_t q_offset) {
          return positional_attention_weights(q, k, pos, opt(mask), is_causal, scale, q_offset);
        },
        py::arg("query"), py::arg("key"), py::arg("pos"), py::arg("attn_mask") = py::none(),
        py::arg("is_causal") = false, py::arg("scale") = py::none(), py::arg("q_offset") = 0, Release(),
        "The attention weights (B, H, L, S) of positional_attention, differentiable: the maps to plot.");
  def_op(m, "sinusoidal_encoding", &sinusoidal_encoding, py::arg("positions"), py::arg("dim"), py::arg("base") = 10000.0,
        py::arg("dtype") = Dtype::Float32,
        "PE(p, 2i) = sin(p / base^(2i/dim)), PE(p, 2i+1) = cos(p / base^(2i/dim)) for positions (P): (P, dim).");
  m.def("alibi_slopes", &alibi_slopes, py::arg("num_heads"),
        "ALiBi's head slopes (Press et al. 2022): 2^(-8/n), 2^(-16/n), ..., 2^(-8) for n a power of two;\n"
        "otherwise those of the largest power of two p < n, then every other slope of 2p. float64 (n).");
  m.def("t5_relative_position_bucket", &t5_relative_position_bucket, py::arg("relative_position"),
        py::arg("bidirectional") = true, py::arg("num_buckets") = 32, py::arg("max_distance") = 128,
        "T5's bucket (Raffel et al. 2020) of each relative position j - i: exact for small distances,\n"
        "log-spaced up to max_distance; bidirectional buckets split by sign.");
  m.def("deberta_log_bucket_position", &deberta_log_bucket_position, py::arg("relative_position"),
        py::arg("bucket_size"), py::arg("max_position"),
        "DeBERTa-v2's log bucket (make_log_bucket_position) of each relative position i - j: distances\n"
        "below bucket_size / 2 kept, larger ones log-spaced up to max_position, in float32 as DeBERTa's code.");
  def_op(m, "rotary_embedding", &rotary_embedding, py::arg("x"), py::arg("offset") = 0, py::arg("base") = 10000.0,
        py::arg("interleaved") = true, Release(),
        "RoPE (Su et al. 2021): rotate feature pairs of x (..., L, D) at position offset + l by\n"
        "(offset + l)·base^(-2c/D): pairs (2c, 2c+1) when interleaved (the paper), else (c, c + D/2)\n"
        "(GPT-NeoX, LLaMA). Elementwise cos/sin, not a D×D matrix.");

  bind_positional_modules(m);
}

}  // namespace seqlab::bind
