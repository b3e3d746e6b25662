// seqlab.optim's C++ optimizers, their typed options, and gradient clipping.
// python/seqlab/optim/ gives them torch.optim's interface (param_groups as dicts, state_dict,
// schedulers); tests/test_optim.py.
#include "bind_common.hpp"
#include "seqlab/optim/optimizer.hpp"

namespace seqlab::bind {

namespace {

// An options struct as a Python class with one property per field, named as the kwarg. This is
// the one place where a name meets a field: Python's group['momentum'] = 0.9 ends up as
// options.momentum(0.9). `fields` lists the names, so Python can tell the C++ options from keys
// it keeps for itself ('initial_lr', 'foreach', ...).
template <typename Options>
struct OptionsClass {
  OptionsClass(py::module_& m, const char* name) : cls(m, name) {
    cls.def(py::init<>());
    cls.attr("fields") = py::tuple();
    cls.def("__repr__", &options_repr);
  }
  // field("lr", &SGDOptions::lr, &SGDOptions::lr): the getter and the setter of one option.
  template <typename T>
  OptionsClass& field(const char* name, const T& (Options::*get)() const, Options& (Options::*set)(T)) {
    cls.def_property(name, [get](const Options& o) { return (o.*get)(); }, [set](Options& o, T v) { (o.*set)(v); });
    names.push_back(name);
    cls.attr("fields") = py::tuple(py::cast(names));
    return *this;
  }
  py::class_<Options> cls;
  std::vector<std::string> names;
};

// One algorithm: constructed from its default options; each group holds options of the same type.
template <typename Opt, typename Options>
void bind_algorithm(py::module_& m, const char* name) {
  py::class_<Opt, optim::Optimizer, std::shared_ptr<Opt>>(m, name)
      .def(py::init<Options>(), py::arg("defaults"))
      .def("add_param_group", [](Opt& opt, std::vector<Tensor> params, Options options) {
        opt.add_param_group(std::move(params), std::move(options));
      }, py::arg("params"), py::arg("options"))
      .def("options", &Opt::options, py::arg("group"))
      .def("set_options", &Opt::set_options, py::arg("group"), py::arg("options"))
      .def("defaults", &Opt::defaults);
}

}  // namespace

void bind_optim(py::module_& m) {
  using namespace seqlab::optim;
  py::module_ o = m.def_submodule("optim", "C++ optimizers (torch.optim's update rules)");
  py::class_<Optimizer, std::shared_ptr<Optimizer>>(o, "Optimizer")
      .def_property_readonly("name", [](const Optimizer& opt) { return std::string(opt.name()); })
      .def("step", &Optimizer::step, Release())
      .def("zero_grad", &Optimizer::zero_grad, py::arg("set_to_none") = true, Release())
      .def("params", &Optimizer::params, py::arg("group"))
      .def("num_groups", &Optimizer::num_param_groups)
      .def("get_state", [](Optimizer& opt, const Tensor& p) -> py::object {
        if (!opt.has_state(p)) return py::none();
        return py::cast(opt.state(p));
      }, py::arg("param"))
      .def("set_state", [](Optimizer& opt, const Tensor& p, std::map<std::string, Tensor> st) { opt.state(p) = std::move(st); },
           py::arg("param"), py::arg("state"))
      .def("clear_state", &Optimizer::clear_state);

  OptionsClass<SGDOptions>(o, "SGDOptions")
      .field("lr", &SGDOptions::lr, &SGDOptions::lr)
      .field("momentum", &SGDOptions::momentum, &SGDOptions::momentum)
      .field("dampening", &SGDOptions::dampening, &SGDOptions::dampening)
      .field("weight_decay", &SGDOptions::weight_decay, &SGDOptions::weight_decay)
      .field("nesterov", &SGDOptions::nesterov, &SGDOptions::nesterov)
      .field("maximize", &SGDOptions::maximize, &SGDOptions::maximize);
  OptionsClass<AdamOptions>(o, "AdamOptions")
      .field("lr", &AdamOptions::lr, &AdamOptions::lr)
      .field("betas", &AdamOptions::betas, &AdamOptions::betas)
      .field("eps", &AdamOptions::eps, &AdamOptions::eps)
      .field("weight_decay", &AdamOptions::weight_decay, &AdamOptions::weight_decay)
      .field("amsgrad", &AdamOptions::amsgrad, &AdamOptions::amsgrad)
      .field("maximize", &AdamOptions::maximize, &AdamOptions::maximize);
  OptionsClass<AdamWOptions>(o, "AdamWOptions")
      .field("lr", &AdamWOptions::lr, &AdamWOptions::lr)
      .field("betas", &AdamWOptions::betas, &AdamWOptions::betas)
      .field("eps", &AdamWOptions::eps, &AdamWOptions::eps)
      .field("weight_decay", &AdamWOptions::weight_decay, &AdamWOptions::weight_decay)
      .field("amsgrad", &AdamWOptions::amsgrad, &AdamWOptions::amsgrad)
      .field("maximize", &AdamWOptions::maximize, &AdamWOptions::maximize);
  OptionsClass<AdagradOptions>(o, "AdagradOptions")
      .field("lr", &AdagradOptions::lr, &AdagradOptions::lr)
      .field("lr_decay", &AdagradOptions::lr_decay, &AdagradOptions::lr_decay)
      .field("weight_decay", &AdagradOptions::weight_decay, &AdagradOptions::weight_decay)
      .field("initial_accumulator_value", &AdagradOptions::initial_accumulator_value,
             &AdagradOptions::initial_accumulator_value)
      .field("eps", &AdagradOptions::eps, &AdagradOptions::eps)
      .field("maximize", &AdagradOptions::maximize, &AdagradOptions::maximize);
  OptionsClass<RMSpropOptions>(o, "RMSpropOptions")
      .field("lr", &RMSpropOptions::lr, &RMSpropOptions::lr)
      .field("alpha", &RMSpropOptions::alpha, &RMSpropOptions::alpha)
      .field("eps", &RMSpropOptions::eps, &RMSpropOptions::eps)
      .field("weight_decay", &RMSpropOptions::weight_decay, &RMSpropOptions::weight_decay)
      .field("momentum", &RMSpropOptions::momentum, &RMSpropOptions::momentum)
      .field("centered", &RMSpropOptions::centered, &RMSpropOptions::centered)
      .field("maximize", &RMSpropOptions::maximize, &RMSpropOptions::maximize);

  bind_algorithm<SGD, SGDOptions>(o, "SGD");
  bind_algorithm<Adam, AdamOptions>(o, "Adam");
  bind_algorithm<AdamW, AdamWOptions>(o, "AdamW");
  bind_algorithm<Adagrad, AdagradOptions>(o, "Adagrad");
  bind_algorithm<RMSprop, RMSpropOptions>(o, "RMSprop");

  o.def("clip_grad_norm_", &clip_grad_norm_, py::arg("parameters"), py::arg("max_norm"), py::arg("norm_type") = 2.0,
        py::arg("error_if_nonfinite") = false, Release());
  o.def("clip_grad_value_", &clip_grad_value_, py::arg("parameters"), py::arg("clip_value"), Release());
}

}  // namespace seqlab::bind
