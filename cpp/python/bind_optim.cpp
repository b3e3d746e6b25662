// seqlab.optim's C++ optimizers and gradient clipping. python/seqlab/optim/ gives them
// torch.optim's interface (param_groups as dicts, state_dict, schedulers).
#include "bind_common.hpp"
#include "seqlab/optim/optimizer.hpp"

namespace seqlab::bind {

void bind_optim(py::module_& m) {
  using namespace seqlab::optim;
  py::module_ o = m.def_submodule("optim", "C++ optimizers (torch.optim's update rules)");
  using Release = py::call_guard<py::gil_scoped_release>;
  py::class_<Optimizer, std::shared_ptr<Optimizer>>(o, "Optimizer")
      .def_property_readonly("name", [](const Optimizer& opt) { return std::string(opt.name()); })
      .def("step", &Optimizer::step, Release())
      .def("zero_grad", &Optimizer::zero_grad, py::arg("set_to_none") = true, Release())
      .def("add_param_group", &Optimizer::add_param_group, py::arg("params"), py::arg("options"))
      .def("set_option", &Optimizer::set_option, py::arg("group"), py::arg("key"), py::arg("value"))
      .def("options", [](Optimizer& opt, size_t g) {
        SEQLAB_CHECK_INDEX(g < opt.param_groups().size(), "no parameter group ", g);
        return opt.param_groups()[g].options;
      })
      .def("defaults", &Optimizer::defaults)
      .def("params", [](Optimizer& opt, size_t g) {
        SEQLAB_CHECK_INDEX(g < opt.param_groups().size(), "no parameter group ", g);
        return opt.param_groups()[g].params;
      })
      .def("num_groups", [](Optimizer& opt) { return opt.param_groups().size(); })
      .def("get_state", [](Optimizer& opt, const Tensor& p) -> py::object {
        if (!opt.has_state(p)) return py::none();
        return py::cast(opt.state(p));
      })
      .def("set_state", [](Optimizer& opt, const Tensor& p, std::map<std::string, Tensor> st) { opt.state(p) = std::move(st); })
      .def("clear_state", &Optimizer::clear_state);
  o.def("SGD", [](const Options& d) -> std::shared_ptr<Optimizer> { return std::make_shared<SGD>(d); });
  o.def("Adam", [](const Options& d) -> std::shared_ptr<Optimizer> { return std::make_shared<Adam>(d, false); });
  o.def("AdamW", [](const Options& d) -> std::shared_ptr<Optimizer> { return std::make_shared<Adam>(d, true); });
  o.def("Adagrad", [](const Options& d) -> std::shared_ptr<Optimizer> { return std::make_shared<Adagrad>(d); });
  o.def("RMSprop", [](const Options& d) -> std::shared_ptr<Optimizer> { return std::make_shared<RMSprop>(d); });
  o.def("clip_grad_norm_", &clip_grad_norm_, py::arg("parameters"), py::arg("max_norm"), py::arg("norm_type") = 2.0,
        py::arg("error_if_nonfinite") = false, Release());
  o.def("clip_grad_value_", &clip_grad_value_, py::arg("parameters"), py::arg("clip_value"), Release());
}

}  // namespace seqlab::bind
