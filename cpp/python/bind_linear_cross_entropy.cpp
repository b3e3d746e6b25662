// The chunked path of torch.nn.functional.linear_cross_entropy (cpp/src/ops/linear_cross_entropy.cpp),
// called by seqlab.nn.functional.linear_cross_entropy once the options are resolved, and the chunk-size
// probe its tests read. Tests: tests/test_linear_cross_entropy.py.
#include "bind_common.hpp"
#include "seqlab/ops/linear_cross_entropy.hpp"

namespace seqlab::bind {

void bind_linear_cross_entropy(py::module_& m) {
  def_op(m, "_linear_cross_entropy_chunked", [](const Tensor& input, const Tensor& linear_weight, const Tensor& target,
                                                const OptTensor& linear_bias, const OptTensor& weight,
                                                const std::string& reduction, int64_t ignore_index,
                                                int64_t batch_chunk_size, bool allow_retain_graph) {
    const Reduction red = parse_reduction(reduction);
    return released([&] {
      return linear_cross_entropy_chunked(input, linear_weight, target, opt(linear_bias), opt(weight), red,
                                          ignore_index, batch_chunk_size, allow_retain_graph);
    });
  }, py::arg("input"), py::arg("linear_weight"), py::arg("target"), py::arg("linear_bias") = py::none(),
        py::arg("weight") = py::none(), py::arg("reduction") = "mean", py::arg("ignore_index") = -100,
        py::arg("batch_chunk_size") = 1, py::arg("allow_retain_graph") = false,
        "cross_entropy(input @ linear_weight.T + linear_bias, target) over batch_chunk_size rows at a time: input\n"
        "(N, d), linear_weight (C, d), target (N) int64; the (N, C) logits are never made. 'mean' and 'sum' make\n"
        "the gradients with the loss (a second backward raises unless allow_retain_graph); 'none' recomputes each\n"
        "chunk's logits in its backward.");
  m.def("_linear_cross_entropy_max_chunk_rows", &linear_cross_entropy_max_chunk_rows,
        "The rows of the largest logits buffer the chunked linear_cross_entropy made since the last call (then 0).");
}

}  // namespace seqlab::bind
