// Grad mode and the engine entry points (seqlab.no_grad and friends are built on these in
// python/seqlab/autograd/grad_mode.py and _engine.py).
#include "bind_common.hpp"

namespace seqlab::bind {

void bind_autograd(py::module_& m) {
  m.def("is_grad_enabled", &GradMode::is_enabled,
        "True unless inside no_grad() (torch.is_grad_enabled).");
  m.def("_set_grad_enabled", &GradMode::set_enabled, py::arg("mode"));
  m.def("_run_backward", [](const TensorList& roots, const TensorList& grads, bool retain_graph) {
    SEQLAB_CHECK(roots.size() == grads.size(), "backward: got ", roots.size(), " tensors and ", grads.size(),
                 " gradients");
    run_backward(roots, grads, retain_graph);
  }, py::arg("tensors"), py::arg("grad_tensors"), py::arg("retain_graph") = false, Release());
  m.def("_grad", [](const TensorList& outputs, const TensorList& grad_outputs, const TensorList& inputs,
                    bool retain_graph) {
    SEQLAB_CHECK(outputs.size() == grad_outputs.size(), "grad: got ", outputs.size(), " outputs and ",
                 grad_outputs.size(), " grad_outputs");
    TensorList g;
    {
      py::gil_scoped_release release;
      g = grad(outputs, grad_outputs, inputs, retain_graph);
    }
    py::list out;
    for (const Tensor& t : g) out.append(t.defined() ? py::cast(t) : py::none());
    return out;
  }, py::arg("outputs"), py::arg("grad_outputs"), py::arg("inputs"), py::arg("retain_graph") = false);
}

}  // namespace seqlab::bind
