// seqlab.nn's C++ pieces: fused layer_norm, rms_norm and embedding (seqlab.nn.functional) and
// torch.nn.init's initialisers (seqlab.nn.init).
#include "bind_common.hpp"
#include "seqlab/nn/init.hpp"

namespace seqlab::bind {

namespace {
// An nn.init filler f for float16 / bfloat16 tensors too: it fills a float32 tensor, whose values
// are rounded into t without history (no in-place op recorded on a leaf that requires grad).
template <typename... A>
auto fill_through_float32(Tensor (*f)(Tensor&, A...)) {
  return [f](Tensor& t, A... a) -> Tensor {
    if (!is_reduced_float(t.dtype())) return f(t, a...);
    Tensor wide = to_dtype(t.detach(), Dtype::Float32);
    f(wide, a...);
    NoGradGuard no_grad;
    copy_(t, wide);
    return t;
  };
}
}  // namespace

void bind_nn(py::module_& m) {
  def_op(m, "layer_norm", [](const Tensor& x, py::handle normalized_shape, std::optional<Tensor> w, std::optional<Tensor> b,
                         double eps) {
    const Shape ns = size_arg(normalized_shape, "layer_norm", "normalized_shape");
    return released([&] { return layer_norm(x, ns, w ? *w : Tensor(), b ? *b : Tensor(), eps); });
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
        py::arg("eps") = 1e-5,
        "y = (x - mean) / sqrt(var + eps) * weight + bias over the last len(normalized_shape) dims,\n"
        "var biased (Ba et al. 2016; F.layer_norm).");
  // eps=None: the machine epsilon of the dtype computed in, float32's for float16/bfloat16 input (torch
  // 2.13's CPU kernel computes those in float32 with float32's epsilon, not finfo(float16).eps)
  def_op(m, "rms_norm", [](const Tensor& x, py::handle normalized_shape, std::optional<Tensor> w,
                       std::optional<double> eps) {
    const Shape ns = size_arg(normalized_shape, "rms_norm", "normalized_shape");
    return released([&] { return rms_norm(x, ns, w ? *w : Tensor(), eps); });
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("eps") = py::none(),
        "y = x / sqrt(mean(x^2) + eps) * weight over the last len(normalized_shape) dims; eps None: the\n"
        "dtype's machine epsilon (Zhang & Sennrich 2019; F.rms_norm).");
  def_op(m, "batch_norm", [](const Tensor& x, std::optional<Tensor> rm, std::optional<Tensor> rv, std::optional<Tensor> w,
                         std::optional<Tensor> b, bool training, double momentum, double eps) {
    return batch_norm(x, rm ? *rm : Tensor(), rv ? *rv : Tensor(), w ? *w : Tensor(), b ? *b : Tensor(), training,
                      momentum, eps);
  }, py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight") = py::none(),
        py::arg("bias") = py::none(), py::arg("training") = false, py::arg("momentum") = 0.1, py::arg("eps") = 1e-5,
        Release(),
        "y = (x - mean) / sqrt(var + eps) * weight + bias per channel (dim 1): the batch's statistics in\n"
        "training (running_mean/var updated with momentum), the running ones otherwise (Ioffe & Szegedy 2015;\n"
        "F.batch_norm).");
  def_op(m, "batch_norm_module_forward", [](const Tensor& x, std::optional<Tensor> rm, std::optional<Tensor> rv,
                                        std::optional<Tensor> nbt, std::optional<Tensor> w, std::optional<Tensor> b,
                                        bool training, bool track_running_stats, std::optional<double> momentum,
                                        double eps) {
    return batch_norm_module_forward(x, rm.value_or(Tensor()), rv.value_or(Tensor()), nbt.value_or(Tensor()),
                                     w.value_or(Tensor()), b.value_or(Tensor()), training, track_running_stats,
                                     momentum, eps);
  }, py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("num_batches_tracked"),
        py::arg("weight"), py::arg("bias"), py::arg("training"), py::arg("track_running_stats"), py::arg("momentum"),
        py::arg("eps"), Release(),
        "nn.BatchNorm1d's forward: batch_norm plus the num_batches_tracked count and momentum=None's\n"
        "cumulative average.");
  def_op(m, "bilinear", [](const Tensor& x1, const Tensor& x2, const Tensor& w, std::optional<Tensor> b) {
    return bilinear(x1, x2, w, b ? *b : Tensor());
  }, py::arg("input1"), py::arg("input2"), py::arg("weight"), py::arg("bias") = py::none(), Release(),
        "y_k = x1^T W_k x2 + b_k (F.bilinear).");
  def_op(m, "embedding", [](const Tensor& idx, const Tensor& w, std::optional<int64_t> padding_idx) {
    return embedding(idx, w, padding_idx);
  }, py::arg("input"), py::arg("weight"), py::arg("padding_idx") = py::none(), Release(),
        "The rows of weight at the indices in input: out[..., :] = weight[input[...], :]; the row\n"
        "padding_idx gets no gradient (F.embedding).");

  // group_norm, instance_norm (norm.cpp) and rrelu (rrelu.cpp).
  def_op(m, "group_norm", [](const Tensor& x, int64_t num_groups, std::optional<Tensor> w, std::optional<Tensor> b,
                         double eps) {
    return group_norm(x, num_groups, w.value_or(Tensor()), b.value_or(Tensor()), eps);
  }, py::arg("input"), py::arg("num_groups"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
        py::arg("eps") = 1e-5, Release(),
        "y = (x - mean) / sqrt(var + eps) * weight[c] + bias[c], the statistics over each group of\n"
        "C / num_groups channels of each sample (Wu & He 2018; F.group_norm).");
  def_op(m, "instance_norm", [](const Tensor& x, std::optional<Tensor> rm, std::optional<Tensor> rv,
                            std::optional<Tensor> w, std::optional<Tensor> b, bool use_input_stats, double momentum,
                            double eps) {
    return instance_norm(x, rm.value_or(Tensor()), rv.value_or(Tensor()), w.value_or(Tensor()), b.value_or(Tensor()),
                         use_input_stats, momentum, eps);
  }, py::arg("input"), py::arg("running_mean") = py::none(), py::arg("running_var") = py::none(),
        py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("use_input_stats") = true,
        py::arg("momentum") = 0.1, py::arg("eps") = 1e-5, Release(),
        "Each (n, c) plane normalised by its own mean and biased variance (use_input_stats; the running\n"
        "statistics, if given, move towards the batch's average by momentum), or by the running ones\n"
        "(Ulyanov et al. 2016; F.instance_norm).");
  def_op(m, "instance_norm_module_forward", [](const Tensor& x, std::optional<Tensor> rm, std::optional<Tensor> rv,
                                           std::optional<Tensor> w, std::optional<Tensor> b, bool training,
                                           bool track_running_stats, std::optional<double> momentum, double eps,
                                           int64_t num_features, int64_t spatial_dims) {
    return instance_norm_module_forward(x, rm.value_or(Tensor()), rv.value_or(Tensor()), w.value_or(Tensor()),
                                        b.value_or(Tensor()), training, track_running_stats, momentum, eps,
                                        num_features, spatial_dims);
  }, py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight"), py::arg("bias"),
        py::arg("training"), py::arg("track_running_stats"), py::arg("momentum"), py::arg("eps"),
        py::arg("num_features"), py::arg("spatial_dims"), Release(),
        "nn.InstanceNorm1d/2d's forward: the input's checks, unbatched input, and instance_norm with\n"
        "the planes' statistics in training or without tracked running statistics.");
  def_op(m, "rrelu", [](const Tensor& x, double lower, double upper, bool training) {
    return rrelu(x, lower, upper, training);
  }, py::arg("input"), py::arg("lower") = 1.0 / 8.0, py::arg("upper") = 1.0 / 3.0, py::arg("training") = false,
        Release(),
        "The randomized leaky ReLU (Xu et al. 2015): in training x for x > 0, a x otherwise with a ~\n"
        "U(lower, upper) per element; in eval leaky_relu(x, (lower + upper) / 2) (F.rrelu).");
  def_op(m, "rrelu_", [](Tensor& x, double lower, double upper, bool training) -> Tensor {
    return rrelu_(x, lower, upper, training);
  }, py::arg("input"), py::arg("lower") = 1.0 / 8.0, py::arg("upper") = 1.0 / 3.0, py::arg("training") = false,
        Release(), "In-place rrelu: input = rrelu(input, lower, upper, training) (F.rrelu_).");

  def_op(m, "hardshrink", [](const Tensor& x, double lambd) { return hardshrink(x, lambd); }, py::arg("input"),
        py::arg("lambd") = 0.5, Release(), "x where |x| > lambd, else 0 (F.hardshrink).");
  // lambd at most the largest value of the input's dtype (65504 for float16), checked before the
  // float32 copy the kernel sees, as torch's
  auto soft = through_float32("softshrink", [](const Tensor& x, double lambd) { return softshrink(x, lambd); });
  m.def("softshrink", [soft](const Tensor& x, double lambd) {
    if (is_reduced_float(x.dtype())) {
      const double most = x.dtype() == Dtype::Float16 ? 65504.0 : 0x1.fep127;
      SEQLAB_CHECK(lambd >= 0 && lambd <= most, "lambda must be in range [0, ", most, "] for input dtype ",
                   scalar_type_name(x.dtype()), ", but found ", lambd);
    }
    return soft(x, lambd);
  }, py::arg("input"), py::arg("lambd") = 0.5, Release(),
        "x - lambd above lambd, x + lambd below -lambd, 0 between (F.softshrink).");
  def_op(m, "feature_dropout", [](const Tensor& x, double p, bool training) { return feature_dropout(x, p, training); },
        py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true, Release(),
        "Dropout of whole (n, c) channels of (N, C, *): each kept with probability 1 - p and scaled by\n"
        "1 / (1 - p), or zeroed (Tompson et al. 2015; torch.feature_dropout, F.dropout1d / dropout2d).");

  py::module_ init = m.def_submodule("init", "torch.nn.init's initialisers, in C++");
  namespace I = seqlab::nn::init;
  init.def("calculate_gain", &I::calculate_gain, py::arg("nonlinearity"), py::arg("param") = 0.01,
        "The gain recommended for a nonlinearity: 1 (linear, sigmoid), 5/3 (tanh), sqrt(2) (relu),\n"
        "sqrt(2 / (1 + param^2)) (leaky_relu), 3/4 (selu) (nn.init.calculate_gain).");
  init.def("_calculate_fan_in_and_fan_out", &I::calculate_fan_in_and_fan_out, py::arg("tensor"),
        "(fan_in, fan_out) of a weight: its dims 1 and 0 times the receptive field.");
  init.def("uniform_", fill_through_float32(+[](Tensor& t, double a, double b, Generator* g) -> Tensor {
    return I::uniform_(t, a, b, g);
  }), py::arg("tensor"), py::arg("a") = 0.0, py::arg("b") = 1.0, py::arg("generator") = nullptr, Release(),
        "Fill tensor with U(a, b) in place.");
  init.def("normal_", fill_through_float32(+[](Tensor& t, double mean, double std, Generator* g) -> Tensor {
    return I::normal_(t, mean, std, g);
  }), py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("generator") = nullptr, Release(),
        "Fill tensor with N(mean, std^2) in place.");
  init.def("constant_", fill_through_float32(+[](Tensor& t, double v) -> Tensor {
    return I::constant_(t, v);
  }), py::arg("tensor"), py::arg("val"), Release(),
        "Fill tensor with val in place.");
  init.def("zeros_", fill_through_float32(+[](Tensor& t) -> Tensor {
    return I::zeros_(t);
  }), py::arg("tensor"), Release(),
        "Fill tensor with 0 in place.");
  init.def("ones_", fill_through_float32(+[](Tensor& t) -> Tensor {
    return I::ones_(t);
  }), py::arg("tensor"), Release(),
        "Fill tensor with 1 in place.");
  init.def("xavier_uniform_", fill_through_float32(+[](Tensor& t, double g, Generator* gen) -> Tensor {
    return I::xavier_uniform_(t, g, gen);
  }), py::arg("tensor"), py::arg("gain") = 1.0, py::arg("generator") = nullptr, Release(),
        "U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio 2010), in place.");
  init.def("xavier_normal_", fill_through_float32(+[](Tensor& t, double g, Generator* gen) -> Tensor {
    return I::xavier_normal_(t, g, gen);
  }), py::arg("tensor"), py::arg("gain") = 1.0, py::arg("generator") = nullptr, Release(),
        "N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot & Bengio 2010), in place.");
  init.def("kaiming_uniform_", fill_through_float32(+[](Tensor& t, double a, const std::string& mode, const std::string& nl,
                                                     Generator* g) -> Tensor {
    return I::kaiming_uniform_(t, a, mode, nl, g);
  }), py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in", py::arg("nonlinearity") = "leaky_relu",
           py::arg("generator") = nullptr, Release(),
        "U(-b, b) with b = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a), fan = fan_in or\n"
        "fan_out by mode (He et al. 2015), in place.");
  init.def("kaiming_normal_", fill_through_float32(+[](Tensor& t, double a, const std::string& mode, const std::string& nl,
                                                     Generator* g) -> Tensor {
    return I::kaiming_normal_(t, a, mode, nl, g);
  }), py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in", py::arg("nonlinearity") = "leaky_relu",
           py::arg("generator") = nullptr, Release(),
        "N(0, std^2) with std = gain / sqrt(fan) (He et al. 2015), in place.");
  init.def("orthogonal_", fill_through_float32(+[](Tensor& t, double g, Generator* gen) -> Tensor {
    return I::orthogonal_(t, g, gen);
  }), py::arg("tensor"), py::arg("gain") = 1.0, py::arg("generator") = nullptr, Release(),
        "A (semi-)orthogonal matrix times gain, from the QR decomposition of a normal matrix (Saxe et al.\n"
        "2013), in place.");
}

}  // namespace seqlab::bind
