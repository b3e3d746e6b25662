// seqlab._core.cpp_nn: the C++ twins of seqlab.nn's layers (cpp/include/seqlab/nn/layers.hpp),
// bound with the Python layers' constructor arguments so that tests/test_nn_twins.py can build
// each layer on both sides and compare names, shapes, initial values, reprs and outputs.
// Users build models with seqlab.nn; this module shows the C++ API, it does not replace it.
#include "bind_common.hpp"

namespace seqlab::bind {

namespace {

using nn::Module;
using nn::UnaryModule;
template <typename M, typename Base = UnaryModule>
using Class = py::class_<M, Base, std::shared_ptr<M>>;

std::optional<double> optional_number(const py::handle& o, const char* fn, const char* arg) {
  if (o.is_none()) return std::nullopt;
  return number_arg(o, fn, arg);
}

}  // namespace

void bind_nn_modules(py::module_& m) {
  py::module_ c = m.def_submodule("cpp_nn", "The C++ twins of seqlab.nn's layers (nn/layers.hpp)");

  py::class_<Module, std::shared_ptr<Module>>(c, "Module")
      .def("named_parameters", [](const Module& mod) { return mod.named_parameters(); })
      .def("named_buffers", [](const Module& mod) { return mod.named_buffers(); })
      .def("state_dict", &Module::state_dict)
      .def("load_state_dict", &Module::load_state_dict, py::arg("state_dict"), py::arg("strict") = true)
      .def("train", &Module::train, py::arg("mode") = true)
      .def("eval", &Module::eval)
      .def_property_readonly("training", &Module::is_training)
      .def("__repr__", &Module::repr);
  py::class_<UnaryModule, Module, std::shared_ptr<UnaryModule>>(c, "UnaryModule")
      .def("forward", &UnaryModule::forward, py::arg("input"), Release())
      .def("__call__", &UnaryModule::forward, py::arg("input"), Release());

  Class<nn::Linear>(c, "Linear")
      .def(py::init<int64_t, int64_t, bool, Dtype>(), py::arg("in_features"), py::arg("out_features"),
           py::arg("bias") = true, py::kw_only(), py::arg("dtype") = Dtype::Float32);
  Class<nn::Bilinear, Module>(c, "Bilinear")
      .def(py::init<int64_t, int64_t, int64_t, bool, Dtype>(), py::arg("in1_features"), py::arg("in2_features"),
           py::arg("out_features"), py::arg("bias") = true, py::kw_only(), py::arg("dtype") = Dtype::Float32)
      .def("forward", &nn::Bilinear::forward, py::arg("input1"), py::arg("input2"), Release())
      .def("__call__", &nn::Bilinear::forward, py::arg("input1"), py::arg("input2"), Release());
  Class<nn::Embedding>(c, "Embedding")
      .def(py::init<int64_t, int64_t, std::optional<int64_t>, Dtype>(), py::arg("num_embeddings"),
           py::arg("embedding_dim"), py::arg("padding_idx") = py::none(), py::kw_only(),
           py::arg("dtype") = Dtype::Float32);
  Class<nn::LayerNorm>(c, "LayerNorm")
      .def(py::init([](py::handle shape, double eps, bool affine, bool bias, Dtype dtype) {
             const Shape ns = size_arg(shape, "LayerNorm", "normalized_shape");
             return std::make_shared<nn::LayerNorm>(ns, eps, affine, bias, dtype);
           }), py::arg("normalized_shape"), py::arg("eps") = 1e-5, py::arg("elementwise_affine") = true,
           py::arg("bias") = true, py::kw_only(), py::arg("dtype") = Dtype::Float32);
  Class<nn::RMSNorm>(c, "RMSNorm")
      .def(py::init([](py::handle shape, std::optional<double> eps, bool affine, Dtype dtype) {
             const Shape ns = size_arg(shape, "RMSNorm", "normalized_shape");
             return std::make_shared<nn::RMSNorm>(ns, eps, affine, dtype);
           }), py::arg("normalized_shape"), py::arg("eps") = py::none(), py::arg("elementwise_affine") = true,
           py::kw_only(), py::arg("dtype") = Dtype::Float32);
  Class<nn::BatchNorm1d>(c, "BatchNorm1d")
      .def(py::init([](int64_t n, double eps, py::handle momentum, bool affine, bool track, Dtype dtype, bool bias) {
             const auto mom = optional_number(momentum, "BatchNorm1d", "momentum");
             return std::make_shared<nn::BatchNorm1d>(n, eps, mom, affine, track, dtype, bias);
           }), py::arg("num_features"), py::arg("eps") = 1e-5, py::arg("momentum") = 0.1, py::arg("affine") = true,
           py::arg("track_running_stats") = true, py::kw_only(), py::arg("dtype") = Dtype::Float32,
           py::arg("bias") = true);
  Class<nn::Dropout>(c, "Dropout")
      .def(py::init<double, bool>(), py::arg("p") = 0.5, py::arg("inplace") = false);
  Class<nn::Identity>(c, "Identity").def(py::init<>());
  Class<nn::Tanh>(c, "Tanh").def(py::init<>());
  Class<nn::Sigmoid>(c, "Sigmoid").def(py::init<>());
  Class<nn::SiLU>(c, "SiLU").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::ReLU>(c, "ReLU").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::GELU>(c, "GELU").def(py::init<std::string>(), py::arg("approximate") = "none");
  Class<nn::ELU>(c, "ELU").def(py::init<double, bool>(), py::arg("alpha") = 1.0, py::arg("inplace") = false);
  Class<nn::SELU>(c, "SELU").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::CELU>(c, "CELU").def(py::init<double, bool>(), py::arg("alpha") = 1.0, py::arg("inplace") = false);
  Class<nn::LeakyReLU>(c, "LeakyReLU")
      .def(py::init<double, bool>(), py::arg("negative_slope") = 0.01, py::arg("inplace") = false);
  Class<nn::Softplus>(c, "Softplus").def(py::init<double, double>(), py::arg("beta") = 1.0, py::arg("threshold") = 20.0);
  Class<nn::Hardtanh>(c, "Hardtanh")
      .def(py::init<double, double, bool>(), py::arg("min_val") = -1.0, py::arg("max_val") = 1.0,
           py::arg("inplace") = false);
  Class<nn::ReLU6, nn::Hardtanh>(c, "ReLU6").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::LogSigmoid>(c, "LogSigmoid").def(py::init<>());
  Class<nn::Mish>(c, "Mish").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::Softsign>(c, "Softsign").def(py::init<>());
  Class<nn::Tanhshrink>(c, "Tanhshrink").def(py::init<>());
  Class<nn::Hardsigmoid>(c, "Hardsigmoid").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::Hardswish>(c, "Hardswish").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::Threshold>(c, "Threshold")
      .def(py::init<double, double, bool>(), py::arg("threshold"), py::arg("value"), py::arg("inplace") = false);
  Class<nn::PReLU>(c, "PReLU")
      .def(py::init<int64_t, double, Dtype>(), py::arg("num_parameters") = 1, py::arg("init") = 0.25, py::kw_only(),
           py::arg("dtype") = Dtype::Float32);
  Class<nn::Softmin>(c, "Softmin").def(py::init<int64_t>(), py::arg("dim"));
  Class<nn::GLU>(c, "GLU").def(py::init<int64_t>(), py::arg("dim") = -1);
  Class<nn::Softmax>(c, "Softmax").def(py::init<int64_t>(), py::arg("dim"));
  Class<nn::LogSoftmax>(c, "LogSoftmax").def(py::init<int64_t>(), py::arg("dim"));
  Class<nn::Flatten>(c, "Flatten")
      .def(py::init<int64_t, int64_t>(), py::arg("start_dim") = 1, py::arg("end_dim") = -1);
}

}  // namespace seqlab::bind
