// Seq2seq attention (ops/seq2seq_attention.hpp) for seqlab.nn.functional.seq2seq_attention and
// seqlab.nn.Seq2SeqAttention, and its C++ twin (nn/seq2seq_attention.hpp) in seqlab._core.cpp_nn.
// Tests: tests/test_seq2seq_attention.py, tests/test_nn_twins.py.
#include "bind_common.hpp"

namespace seqlab::bind {

namespace {

// (a py::object, not a py::tuple: through_float32 rounds the tensors of an object for 16-bit inputs)
py::object result(const Seq2SeqAttentionResult& r) { return py::make_tuple(r.context, r.weights); }

}  // namespace

void bind_seq2seq_attention(py::module_& m) {
  def_op(m, "seq2seq_score", [](const std::string& name) { return seq2seq_score_name(seq2seq_score(name)); },
        py::arg("score"), "The canonical name of a score ('general' for 'bilinear', 'additive' for 'concat').");
  m.def("check_seq2seq_attention_args", [](int64_t query_size, int64_t key_size, const std::string& score,
                                           int64_t hidden_size) {
    check_seq2seq_attention_args(query_size, key_size, seq2seq_score(score), hidden_size);
  }, py::arg("query_size"), py::arg("key_size"), py::arg("score"), py::arg("hidden_size"));
  def_op(m, "seq2seq_attention", [](const Tensor& query, const Tensor& keys, std::optional<Tensor> values,
                                const std::string& score, std::optional<Tensor> W, std::optional<Tensor> query_weight,
                                std::optional<Tensor> key_weight, std::optional<Tensor> key_bias,
                                std::optional<Tensor> v, std::optional<Tensor> key_padding_mask) {
    Seq2SeqAttentionParams p;
    p.W = opt(W);
    p.query_weight = opt(query_weight);
    p.key_weight = opt(key_weight);
    p.key_bias = opt(key_bias);
    p.v = opt(v);
    const Seq2SeqScore s = seq2seq_score(score);
    Seq2SeqAttentionResult r =
        released([&] { return seq2seq_attention(query, keys, opt(values), s, p, opt(key_padding_mask)); });
    return result(r);
  }, py::arg("query"), py::arg("keys"), py::arg("values") = py::none(), py::arg("score") = "dot",
        py::arg("W") = py::none(), py::arg("query_weight") = py::none(), py::arg("key_weight") = py::none(),
        py::arg("key_bias") = py::none(), py::arg("v") = py::none(), py::arg("key_padding_mask") = py::none());

  py::module_ c = m.attr("cpp_nn").cast<py::module_>();
  auto forward = [](nn::Seq2SeqAttention& mod, const Tensor& query, const Tensor& keys, std::optional<Tensor> values,
                    std::optional<Tensor> mask) {
    Seq2SeqAttentionResult r = released([&] { return mod.forward(query, keys, opt(values), opt(mask)); });
    return result(r);
  };
  using O = nn::Seq2SeqAttentionOptions;
  py::class_<nn::Seq2SeqAttention, nn::Module, std::shared_ptr<nn::Seq2SeqAttention>> cls(c, "Seq2SeqAttention");
  ModuleOptions<O>(c, "Seq2SeqAttentionOptions", [] { return O(0); })
      .arg("query_size", &O::query_size, &O::query_size)
      .arg("key_size", &O::key_size, &O::key_size)
      .arg("score", &O::score, &O::score)
      .arg("hidden_size", &O::hidden_size, &O::hidden_size)
      .arg("bias", &O::bias, &O::bias)
      .arg("dtype", &O::dtype, &O::dtype)
      .required({"query_size"})
      .module_init<nn::Seq2SeqAttention>(cls, "Seq2SeqAttention");
  cls.def("forward", forward, py::arg("query"), py::arg("keys"), py::arg("values") = py::none(),
           py::arg("key_padding_mask") = py::none())
      .def("__call__", forward, py::arg("query"), py::arg("keys"), py::arg("values") = py::none(),
           py::arg("key_padding_mask") = py::none())
      .def("reset_parameters", &nn::Seq2SeqAttention::reset_parameters);
}

}  // namespace seqlab::bind
