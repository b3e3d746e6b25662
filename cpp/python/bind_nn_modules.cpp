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

// A module of options O with the two constructors module_init gives (Module(options), Module(*args,
// **kwargs)): the options class bound first under `options_name`, its fields added by `fields`.
template <typename M, typename O, typename Base = UnaryModule, typename Fields>
Class<M, Base> module_with_options(py::module_& c, const char* name, const char* options_name, Fields fields,
                                   std::function<O()> make = [] { return O(); }) {
  ModuleOptions<O> options(c, options_name, std::move(make));
  fields(options);
  Class<M, Base> cls(c, name);
  options.template module_init<M>(cls, name);
  return cls;
}

// The fields LayerNorm and RMSNorm share, first in both.
template <typename O>
ModuleOptions<O>& norm_args(ModuleOptions<O>& o) {
  return o.shape_arg("normalized_shape", &O::normalized_shape, &O::normalized_shape)
      .arg("eps", &O::eps, &O::eps)
      .arg("elementwise_affine", &O::elementwise_affine, &O::elementwise_affine)
      .required({"normalized_shape"});
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

  using LO = nn::LinearOptions;
  ModuleOptions<LO> linear_options(c, "LinearOptions", [] { return LO(0, 0); });
  linear_options.arg("in_features", &LO::in_features, &LO::in_features)
      .arg("out_features", &LO::out_features, &LO::out_features)
      .arg("bias", &LO::bias, &LO::bias)
      .arg("dtype", &LO::dtype, &LO::dtype)
      .required({"in_features", "out_features"});
  Class<nn::Linear> linear(c, "Linear");
  linear_options.module_init<nn::Linear>(linear, "Linear");
  Class<nn::NonDynamicallyQuantizableLinear, nn::Linear> quantizable(c, "NonDynamicallyQuantizableLinear");
  linear_options.module_init<nn::NonDynamicallyQuantizableLinear>(quantizable, "NonDynamicallyQuantizableLinear");
  using BO = nn::BilinearOptions;
  module_with_options<nn::Bilinear, BO, Module>(c, "Bilinear", "BilinearOptions", [](ModuleOptions<BO>& o) {
    o.arg("in1_features", &BO::in1_features, &BO::in1_features)
        .arg("in2_features", &BO::in2_features, &BO::in2_features)
        .arg("out_features", &BO::out_features, &BO::out_features)
        .arg("bias", &BO::bias, &BO::bias)
        .arg("dtype", &BO::dtype, &BO::dtype)
        .required({"in1_features", "in2_features", "out_features"});
  }, [] { return BO(0, 0, 0); })
      .def("forward", &nn::Bilinear::forward, py::arg("input1"), py::arg("input2"), Release())
      .def("__call__", &nn::Bilinear::forward, py::arg("input1"), py::arg("input2"), Release());
  using EO = nn::EmbeddingOptions;
  module_with_options<nn::Embedding, EO>(c, "Embedding", "EmbeddingOptions", [](ModuleOptions<EO>& o) {
    o.arg("num_embeddings", &EO::num_embeddings, &EO::num_embeddings)
        .arg("embedding_dim", &EO::embedding_dim, &EO::embedding_dim)
        .arg("padding_idx", &EO::padding_idx, &EO::padding_idx)
        .arg("dtype", &EO::dtype, &EO::dtype)
        .required({"num_embeddings", "embedding_dim"});
  }, [] { return EO(0, 0); });
  using LNO = nn::LayerNormOptions;
  module_with_options<nn::LayerNorm, LNO>(c, "LayerNorm", "LayerNormOptions", [](ModuleOptions<LNO>& o) {
    norm_args(o).arg("bias", &LNO::bias, &LNO::bias).arg("dtype", &LNO::dtype, &LNO::dtype);
  }, [] { return LNO({}); });
  using RNO = nn::RMSNormOptions;
  module_with_options<nn::RMSNorm, RNO>(c, "RMSNorm", "RMSNormOptions", [](ModuleOptions<RNO>& o) {
    norm_args(o).arg("dtype", &RNO::dtype, &RNO::dtype);
  }, [] { return RNO({}); });
  using BNO = nn::BatchNormOptions;
  ModuleOptions<BNO> bn_options(c, "BatchNormOptions", [] { return BNO(0); });
  bn_options.arg("num_features", &BNO::num_features, &BNO::num_features)
      .arg("eps", &BNO::eps, &BNO::eps)
      .arg("momentum", &BNO::momentum, &BNO::momentum)
      .arg("affine", &BNO::affine, &BNO::affine)
      .arg("track_running_stats", &BNO::track_running_stats, &BNO::track_running_stats)
      .arg("dtype", &BNO::dtype, &BNO::dtype)
      .arg("bias", &BNO::bias, &BNO::bias)
      .required({"num_features"});
  Class<nn::BatchNorm1d> batch_norm1d(c, "BatchNorm1d");
  bn_options.module_init<nn::BatchNorm1d>(batch_norm1d, "BatchNorm1d");
  py::class_<nn::BatchNorm2d, nn::BatchNorm1d, std::shared_ptr<nn::BatchNorm2d>> batch_norm2d(c, "BatchNorm2d");
  bn_options.module_init<nn::BatchNorm2d>(batch_norm2d, "BatchNorm2d");
  c.attr("BatchNorm1dOptions") = c.attr("BatchNormOptions");
  c.attr("BatchNorm2dOptions") = c.attr("BatchNormOptions");
  using DO = nn::DropoutOptions;  // also Dropout1d's, Dropout2d's and the alpha dropouts'
  ModuleOptions<DO> dropout_options(c, "DropoutOptions");
  dropout_options.arg("p", &DO::p, &DO::p).arg("inplace", &DO::inplace, &DO::inplace);
  Class<nn::Dropout> dropout(c, "Dropout");
  dropout_options.module_init<nn::Dropout>(dropout, "Dropout");
  // the alpha dropouts: Dropout's options (DropoutOptions, under each name too); Dropout1d/2d are below
  Class<nn::AlphaDropout, nn::Dropout> alpha_dropout(c, "AlphaDropout");
  dropout_options.module_init<nn::AlphaDropout>(alpha_dropout, "AlphaDropout");
  Class<nn::FeatureAlphaDropout, nn::Dropout> feature_alpha_dropout(c, "FeatureAlphaDropout");
  dropout_options.module_init<nn::FeatureAlphaDropout>(feature_alpha_dropout, "FeatureAlphaDropout");
  for (const char* name : {"AlphaDropoutOptions", "FeatureAlphaDropoutOptions"}) c.attr(name) = c.attr("DropoutOptions");
  Class<nn::Identity>(c, "Identity").def(py::init<>());
  Class<nn::Tanh>(c, "Tanh").def(py::init<>());
  Class<nn::Sigmoid>(c, "Sigmoid").def(py::init<>());
  Class<nn::SiLU>(c, "SiLU").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::ReLU>(c, "ReLU").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::GELU>(c, "GELU").def(py::init<std::string>(), py::arg("approximate") = "none");
  using ELUO = nn::ELUOptions;  // also CELU's
  ModuleOptions<ELUO> elu_options(c, "ELUOptions");
  elu_options.arg("alpha", &ELUO::alpha, &ELUO::alpha).arg("inplace", &ELUO::inplace, &ELUO::inplace);
  Class<nn::ELU> elu(c, "ELU");
  elu_options.module_init<nn::ELU>(elu, "ELU");
  Class<nn::SELU>(c, "SELU").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::CELU> celu(c, "CELU");  // CELUOptions: ELU's (the same fields)
  elu_options.module_init<nn::CELU>(celu, "CELU");
  c.attr("CELUOptions") = elu_options.cls();
  using LRO = nn::LeakyReLUOptions;
  module_with_options<nn::LeakyReLU, LRO>(c, "LeakyReLU", "LeakyReLUOptions", [](ModuleOptions<LRO>& o) {
    o.arg("negative_slope", &LRO::negative_slope, &LRO::negative_slope).arg("inplace", &LRO::inplace, &LRO::inplace);
  });
  using SPO = nn::SoftplusOptions;
  module_with_options<nn::Softplus, SPO>(c, "Softplus", "SoftplusOptions", [](ModuleOptions<SPO>& o) {
    o.arg("beta", &SPO::beta, &SPO::beta).arg("threshold", &SPO::threshold, &SPO::threshold);
  });
  using HTO = nn::HardtanhOptions;
  module_with_options<nn::Hardtanh, HTO>(c, "Hardtanh", "HardtanhOptions", [](ModuleOptions<HTO>& o) {
    o.arg("min_val", &HTO::min_val, &HTO::min_val)
        .arg("max_val", &HTO::max_val, &HTO::max_val)
        .arg("inplace", &HTO::inplace, &HTO::inplace);
  });
  Class<nn::ReLU6, nn::Hardtanh>(c, "ReLU6").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::LogSigmoid>(c, "LogSigmoid").def(py::init<>());
  Class<nn::Mish>(c, "Mish").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::Softsign>(c, "Softsign").def(py::init<>());
  Class<nn::Tanhshrink>(c, "Tanhshrink").def(py::init<>());
  Class<nn::Hardsigmoid>(c, "Hardsigmoid").def(py::init<bool>(), py::arg("inplace") = false);
  Class<nn::Hardswish>(c, "Hardswish").def(py::init<bool>(), py::arg("inplace") = false);
  using TO = nn::ThresholdOptions;
  module_with_options<nn::Threshold, TO>(c, "Threshold", "ThresholdOptions", [](ModuleOptions<TO>& o) {
    o.arg("threshold", &TO::threshold, &TO::threshold)
        .arg("value", &TO::value, &TO::value)
        .arg("inplace", &TO::inplace, &TO::inplace)
        .required({"threshold", "value"});
  }, [] { return TO(0.0, 0.0); });
  using PO = nn::PReLUOptions;
  module_with_options<nn::PReLU, PO>(c, "PReLU", "PReLUOptions", [](ModuleOptions<PO>& o) {
    o.arg("num_parameters", &PO::num_parameters, &PO::num_parameters)
        .arg("init", &PO::init, &PO::init)
        .arg("dtype", &PO::dtype, &PO::dtype);
  });
  Class<nn::Softmin>(c, "Softmin").def(py::init<int64_t>(), py::arg("dim"));
  Class<nn::GLU>(c, "GLU").def(py::init<int64_t>(), py::arg("dim") = -1);
  Class<nn::Softmax>(c, "Softmax").def(py::init<int64_t>(), py::arg("dim"));
  Class<nn::LogSoftmax>(c, "LogSoftmax").def(py::init<int64_t>(), py::arg("dim"));
  using FO = nn::FlattenOptions;
  module_with_options<nn::Flatten, FO>(c, "Flatten", "FlattenOptions", [](ModuleOptions<FO>& o) {
    o.arg("start_dim", &FO::start_dim, &FO::start_dim).arg("end_dim", &FO::end_dim, &FO::end_dim);
  });
  // GroupNorm, InstanceNorm1d/2d (one options struct, as torch's InstanceNormOptions), RReLU.
  using GNO = nn::GroupNormOptions;
  module_with_options<nn::GroupNorm, GNO>(c, "GroupNorm", "GroupNormOptions", [](ModuleOptions<GNO>& o) {
    o.arg("num_groups", &GNO::num_groups, &GNO::num_groups)
        .arg("num_channels", &GNO::num_channels, &GNO::num_channels)
        .arg("eps", &GNO::eps, &GNO::eps)
        .arg("affine", &GNO::affine, &GNO::affine)
        .arg("dtype", &GNO::dtype, &GNO::dtype)
        .arg("bias", &GNO::bias, &GNO::bias)
        .required({"num_groups", "num_channels"});
  }, [] { return GNO(1, 0); });
  using INO = nn::InstanceNormOptions;
  ModuleOptions<INO> instance_norm_options(c, "InstanceNormOptions", [] { return INO(0); });
  instance_norm_options.arg("num_features", &INO::num_features, &INO::num_features)
      .arg("eps", &INO::eps, &INO::eps)
      .arg("momentum", &INO::momentum, &INO::momentum)
      .arg("affine", &INO::affine, &INO::affine)
      .arg("track_running_stats", &INO::track_running_stats, &INO::track_running_stats)
      .arg("dtype", &INO::dtype, &INO::dtype)
      .arg("bias", &INO::bias, &INO::bias)
      .required({"num_features"});
  Class<nn::InstanceNorm>(c, "InstanceNorm");
  Class<nn::InstanceNorm1d, nn::InstanceNorm> instance_norm1d(c, "InstanceNorm1d");
  instance_norm_options.module_init<nn::InstanceNorm1d>(instance_norm1d, "InstanceNorm1d");
  Class<nn::InstanceNorm2d, nn::InstanceNorm> instance_norm2d(c, "InstanceNorm2d");
  instance_norm_options.module_init<nn::InstanceNorm2d>(instance_norm2d, "InstanceNorm2d");
  for (const char* name : {"InstanceNorm1dOptions", "InstanceNorm2dOptions"})
    c.attr(name) = instance_norm_options.cls();
  using RRO = nn::RReLUOptions;
  module_with_options<nn::RReLU, RRO>(c, "RReLU", "RReLUOptions", [](ModuleOptions<RRO>& o) {
    o.arg("lower", &RRO::lower, &RRO::lower).arg("upper", &RRO::upper, &RRO::upper)
        .arg("inplace", &RRO::inplace, &RRO::inplace);
  });
  Class<nn::Hardshrink>(c, "Hardshrink").def(py::init<double>(), py::arg("lambd") = 0.5);
  Class<nn::Softshrink>(c, "Softshrink").def(py::init<double>(), py::arg("lambd") = 0.5);
  Class<nn::Softmax2d>(c, "Softmax2d").def(py::init<>());
  Class<nn::Dropout1d, nn::Dropout> dropout1d(c, "Dropout1d");
  dropout_options.module_init<nn::Dropout1d>(dropout1d, "Dropout1d");
  Class<nn::Dropout2d, nn::Dropout> dropout2d(c, "Dropout2d");
  dropout_options.module_init<nn::Dropout2d>(dropout2d, "Dropout2d");
  c.attr("Dropout1dOptions") = dropout_options.cls();
  c.attr("Dropout2dOptions") = dropout_options.cls();
}

}  // namespace seqlab::bind
