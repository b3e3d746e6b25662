// The attention functionals (ops/attention.hpp) for seqlab.nn.functional: torch's
// scaled_dot_product_attention, its composed oracle and the weights for plots.
#include "bind_common.hpp"

namespace seqlab::bind {

void bind_attention(py::module_& m) {
  def_op(m, "scaled_dot_product_attention",
        [](const Tensor& q, const Tensor& k, const Tensor& v, std::optional<Tensor> attn_mask, double dropout_p,
           bool is_causal, std::optional<double> scale, bool enable_gqa) {
          return scaled_dot_product_attention(q, k, v, opt(attn_mask), dropout_p, is_causal, scale, enable_gqa);
        },
        py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
        py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none(),
        py::arg("enable_gqa") = false, Release(),
        "softmax(Q Kᵀ · scale + attn_mask) V (torch.nn.functional.scaled_dot_product_attention).\n"
        "query (..., Hq, L, E), key (..., Hk, S, E), value (..., Hk, S, Ev) -> (..., Hq, L, Ev).\n"
        "attn_mask: bool (True = may attend) or float (added); is_causal masks j > i; scale defaults to\n"
        "1/sqrt(E). Fused: online softmax forward, recomputing backward, O(L·E) memory. The weights it\n"
        "never materialises: seqlab.nn.functional.attention_weights.");
  def_op(m, "scaled_dot_product_attention_math",
        [](const Tensor& q, const Tensor& k, const Tensor& v, std::optional<Tensor> attn_mask, double dropout_p,
           bool is_causal, std::optional<double> scale, bool enable_gqa) {
          return scaled_dot_product_attention_math(q, k, v, opt(attn_mask), dropout_p, is_causal, scale, enable_gqa);
        },
        py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
        py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::arg("scale") = py::none(),
        py::arg("enable_gqa") = false, Release(),
        "scaled_dot_product_attention computed by ordinary ops (bmm, softmax, dropout, bmm): the oracle.");
  def_op(m, "attention_weights",
        [](const Tensor& q, const Tensor& k, std::optional<Tensor> attn_mask, bool is_causal,
           std::optional<double> scale, bool enable_gqa) {
          return attention_weights(q, k, opt(attn_mask), is_causal, scale, enable_gqa);
        },
        py::arg("query"), py::arg("key"), py::arg("attn_mask") = py::none(), py::arg("is_causal") = false,
        py::arg("scale") = py::none(), py::arg("enable_gqa") = false, Release(),
        "softmax(Q Kᵀ · scale + attn_mask) as a (..., Hq, L, S) tensor, differentiable: the attention\n"
        "weights of scaled_dot_product_attention, to plot (rows with every key masked are zeros).");
}

}  // namespace seqlab::bind
