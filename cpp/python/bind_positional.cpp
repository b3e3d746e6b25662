// Positional information for attention (ops/positional.hpp) for seqlab.nn.positional and
// seqlab.nn.functional: the scheme description, attention with a scheme (fused, and its composed
// oracle), and the tables: sinusoids, ALiBi slopes, T5 buckets, RoPE.
#include "bind_common.hpp"

namespace seqlab::bind {

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

  m.def("positional_attention",
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
  m.def("positional_attention_math",
        [](const Tensor& q, const Tensor& k, const Tensor& v, const PositionalScheme& pos, std::optional<Tensor> mask,
           double dropout_p, bool is_causal, std::optional<double> scale, int64_t q_offset) {
          return positional_attention_math(q, k, v, pos, opt(mask), dropout_p, is_causal, scale, q_offset);
        },
        py::arg("query"), py::arg("key"), py::arg("value"), py::arg("pos"), py::arg("attn_mask") = py::none(),
        py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none(),
        py::arg("q_offset") = 0, Release(),
        "positional_attention by ordinary ops with the (B, H, L, S) terms materialised: the oracle.");
  m.def("positional_attention_weights",
        [](const Tensor& q, const Tensor& k, const PositionalScheme& pos, std::optional<Tensor> mask, bool is_causal,
           std::optional<double> scale, int64_t q_offset) {
          return positional_attention_weights(q, k, pos, opt(mask), is_causal, scale, q_offset);
        },
        py::arg("query"), py::arg("key"), py::arg("pos"), py::arg("attn_mask") = py::none(),
        py::arg("is_causal") = false, py::arg("scale") = py::none(), py::arg("q_offset") = 0, Release(),
        "The attention weights (B, H, L, S) of positional_attention, differentiable: the maps to plot.");
  m.def("sinusoidal_encoding", &sinusoidal_encoding, py::arg("positions"), py::arg("dim"), py::arg("base") = 10000.0,
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
  m.def("rotary_embedding", &rotary_embedding, py::arg("x"), py::arg("offset") = 0, py::arg("base") = 10000.0,
        py::arg("interleaved") = true, Release(),
        "RoPE (Su et al. 2021): rotate feature pairs of x (..., L, D) at position offset + l by\n"
        "(offset + l)·base^(-2c/D): pairs (2c, 2c+1) when interleaved (the paper), else (c, c + D/2)\n"
        "(GPT-NeoX, LLaMA). Elementwise cos/sin, not a D×D matrix.");
}

}  // namespace seqlab::bind
