// The basic layers for C++ users; the Python twins are in python/seqlab/nn/modules/ (linear.py,
// sparse.py, normalization.py, ...).
#include "seqlab/nn/layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "seqlab/autograd.hpp"
#include "seqlab/nn/init.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/norm.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/embedding.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::nn {

// ------------------------------------------------------------------ Linear
Linear::Linear(const char* name, const LinearOptions& options_) : UnaryModule(name), options(options_) {
  const int64_t in = options.in_features(), out = options.out_features();
  SEQLAB_CHECK_VALUE(in >= 0 && out >= 0, "Linear: in_features and out_features must be non-negative, got ", in,
                     " and ", out);
  weight = register_parameter("weight", Tensor::empty({out, in}, options.dtype()));
  if (options.bias()) bias = register_parameter("bias", Tensor::empty({out}, options.dtype()));
  reset_parameters();
}

void Linear::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t in = options.in_features();
    const double bound = in > 0 ? 1.0 / std::sqrt(static_cast<double>(in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return str_cat("in_features=", options.in_features(), ", out_features=", options.out_features(),
                 ", bias=", bias.defined() ? "True" : "False");
}

// ------------------------------------------------------------------ Embedding
namespace {

// torch's check, and a negative padding_idx counted from the end.
EmbeddingOptions with_padding_row(EmbeddingOptions o) {
  const std::optional<int64_t> pad = o.padding_idx();
  const int64_t n = o.num_embeddings();
  SEQLAB_CHECK_VALUE(!pad || (*pad >= -n && *pad < n), "Embedding: padding_idx must be within num_embeddings");
  if (pad && *pad < 0) o.padding_idx(*pad + n);
  return o;
}

}  // namespace

Embedding::Embedding(const EmbeddingOptions& options_) : UnaryModule("Embedding"), options(with_padding_row(options_)) {
  weight = register_parameter("weight",
                              Tensor::empty({options.num_embeddings(), options.embedding_dim()}, options.dtype()));
  reset_parameters();
}

void Embedding::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard ng;
    Tensor row = seqlab::select(weight, 0, *options.padding_idx());
    fill_(row, 0.0);
  }
}

Tensor Embedding::forward(const Tensor& index) { return embedding(index, weight, options.padding_idx()); }

std::string Embedding::extra_repr() const {
  const auto& pad = options.padding_idx();
  return str_cat(options.num_embeddings(), ", ", options.embedding_dim(), pad ? str_cat(", padding_idx=", *pad) : "");
}

// ------------------------------------------------------------------ LayerNorm
LayerNorm::LayerNorm(const LayerNormOptions& options_) : UnaryModule("LayerNorm"), options(options_) {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ones(options.normalized_shape(), options.dtype()));
    if (options.bias()) bias = register_parameter("bias", zeros(options.normalized_shape(), options.dtype()));
  }
}

Tensor LayerNorm::forward(const Tensor& x) {
  return layer_norm(x, options.normalized_shape(), weight, bias, options.eps());
}

namespace {
// A shape as Python prints a tuple: (4,) or (2, 3).
std::string tuple_repr(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  return s + ")";
}
}  // namespace

namespace {
std::string py_float(double v);  // below: floats in reprs as Python writes them (eps=1.0, not eps=1)
}  // namespace

std::string LayerNorm::extra_repr() const {
  return str_cat(tuple_repr(options.normalized_shape()), ", eps=", py_float(options.eps()),
                 ", elementwise_affine=", weight.defined() ? "True" : "False",
                 ", bias=", bias.defined() ? "True" : "False");
}

RMSNorm::RMSNorm(const RMSNormOptions& options_) : UnaryModule("RMSNorm"), options(options_) {
  if (options.elementwise_affine())
    weight = register_parameter("weight", ones(options.normalized_shape(), options.dtype()));
}

Tensor RMSNorm::forward(const Tensor& x) { return rms_norm(x, options.normalized_shape(), weight, options.eps()); }

std::string RMSNorm::extra_repr() const {
  return str_cat(tuple_repr(options.normalized_shape()), ", eps=", options.eps() ? py_float(*options.eps()) : "None",
                 ", elementwise_affine=", weight.defined() ? "True" : "False");
}

// ------------------------------------------------------------------ Dropout
Dropout::Dropout(const DropoutOptions& options_, const char* name) : UnaryModule(name), options(options_) {
  const double p = options.p();
  SEQLAB_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

Tensor Dropout::forward(const Tensor& x) { return dropout(x, options.p(), training_); }

Tensor AlphaDropout::forward(const Tensor& x) { return alpha_dropout(x, options.p(), training_); }
Tensor FeatureAlphaDropout::forward(const Tensor& x) { return feature_alpha_dropout(x, options.p(), training_); }

std::string Dropout::extra_repr() const {
  return str_cat("p=", py_float(options.p()), ", inplace=", options.inplace() ? "True" : "False");  // p=0.0 as Python
}

// ------------------------------------------------------------------ Bilinear
Bilinear::Bilinear(const BilinearOptions& options_) : Module("Bilinear"), options(options_) {
  const int64_t in1 = options.in1_features(), out = options.out_features();
  weight = register_parameter("weight", Tensor::empty({out, in1, options.in2_features()}, options.dtype()));
  if (options.bias()) bias = register_parameter("bias", Tensor::empty({out}, options.dtype()));
  const double bound = in1 > 0 ? 1.0 / std::sqrt(static_cast<double>(in1)) : 0.0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor Bilinear::forward(const Tensor& x1, const Tensor& x2) { return bilinear(x1, x2, weight, bias); }

std::string Bilinear::extra_repr() const {
  return str_cat("in1_features=", options.in1_features(), ", in2_features=", options.in2_features(),
                 ", out_features=", options.out_features(), ", bias=", bias.defined() ? "True" : "False");
}

// ------------------------------------------------------------------ BatchNorm1d
BatchNorm1d::BatchNorm1d(const BatchNormOptions& options_) : BatchNorm1d(options_, "BatchNorm1d") {}

BatchNorm1d::BatchNorm1d(const BatchNormOptions& options_, const char* name) : UnaryModule(name), options(options_) {
  const int64_t n = options.num_features();
  const Dtype dtype = options.dtype();
  if (options.affine()) {
    weight = register_parameter("weight", ones({n}, dtype));
    if (options.bias()) bias = register_parameter("bias", zeros({n}, dtype));
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", zeros({n}, dtype));
    running_var = register_buffer("running_var", ones({n}, dtype));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, Dtype::Int64));
  }
}

Tensor BatchNorm1d::forward(const Tensor& x) {
  SEQLAB_CHECK_VALUE(x.dim() == 2 || x.dim() == 3, "expected 2D or 3D input (got ", x.dim(), "D input)");
  return batch_norm_module_forward(x, running_mean, running_var, num_batches_tracked, weight, bias, training_,
                                   options.track_running_stats(), options.momentum(), options.eps());
}

BatchNorm2d::BatchNorm2d(const BatchNormOptions& options_) : BatchNorm1d(options_, "BatchNorm2d") {}

Tensor BatchNorm2d::forward(const Tensor& x) {
  SEQLAB_CHECK_VALUE(x.dim() == 4, "expected 4D input (got ", x.dim(), "D input)");
  return batch_norm_module_forward(x, running_mean, running_var, num_batches_tracked, weight, bias, training_,
                                   options.track_running_stats(), options.momentum(), options.eps());
}

std::string BatchNorm1d::extra_repr() const {
  const BatchNormOptions& o = options;
  std::ostringstream e;
  e << o.num_features() << ", eps=" << py_float(o.eps()) << ", momentum="
    << (o.momentum() ? py_float(*o.momentum()) : "None");
  e << ", affine=" << (o.affine() ? "True" : "False") << ", bias=" << (bias.defined() ? "True" : "False")
    << ", track_running_stats=" << (o.track_running_stats() ? "True" : "False");
  return e.str();
}

// ------------------------------------------------------------------ activations
Tensor Tanh::forward(const Tensor& x) { return tanh(x); }
Tensor Sigmoid::forward(const Tensor& x) { return sigmoid(x); }
Tensor SiLU::forward(const Tensor& x) {
  if (!inplace) return silu(x);
  Tensor self = x;  // the same tensor: silu_ writes through it
  return silu_(self);
}
Tensor ReLU::forward(const Tensor& x) {
  if (!inplace) return relu(x);
  Tensor self = x;  // the same tensor: relu_ writes through it
  return relu_(self);
}
GELU::GELU(std::string a) : UnaryModule("GELU"), approximate(std::move(a)) {
  SEQLAB_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                     "GELU: approximate argument must be either none or tanh, got '", approximate, "'");
}
Tensor GELU::forward(const Tensor& x) { return gelu(x, approximate == "tanh"); }

namespace {
// A double as Python's repr writes it (torch's reprs format floats with Python): the shortest
// digits that read back, fixed notation between 1e-4 and 1e16, with ".0" for whole numbers.
std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  const double a = std::fabs(v);
  if (a == 0 || (a >= 1e-4 && a < 1e16)) {
    const int exp10 = a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a)));
    std::snprintf(buf, sizeof buf, "%.*f", std::max(1, digits - 1 - exp10), v);
    std::string s = buf;  // trim the zeros the fixed precision added, keeping one after the point
    while (s.size() > 2 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
    return s;
  }
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);  // 1e-05, 1.5e+20 as Python
  std::string s = buf;
  const auto e = s.find('e');
  std::string mant = s.substr(0, e), ex = s.substr(e + 1);
  const char sign = ex[0];
  ex = ex.substr(1);
  while (ex.size() > 2 && ex[0] == '0') ex.erase(0, 1);
  return mant + "e" + sign + ex;
}
std::string with_inplace(std::string e, bool inplace) { return inplace ? e + ", inplace=True" : e; }
}  // namespace

Tensor ELU::forward(const Tensor& x) {
  Tensor self = x;
  return options.inplace() ? elu_(self, options.alpha()) : elu(x, options.alpha());
}
std::string ELU::extra_repr() const { return with_inplace("alpha=" + py_float(options.alpha()), options.inplace()); }
Tensor SELU::forward(const Tensor& x) {
  Tensor self = x;
  return inplace ? selu_(self) : selu(x);
}
Tensor CELU::forward(const Tensor& x) {
  Tensor self = x;
  return options.inplace() ? celu_(self, options.alpha()) : celu(x, options.alpha());
}
std::string CELU::extra_repr() const { return with_inplace("alpha=" + py_float(options.alpha()), options.inplace()); }
Tensor LeakyReLU::forward(const Tensor& x) {
  Tensor self = x;
  const double slope = options.negative_slope();
  return options.inplace() ? leaky_relu_(self, slope) : leaky_relu(x, slope);
}
std::string LeakyReLU::extra_repr() const {
  return with_inplace("negative_slope=" + py_float(options.negative_slope()), options.inplace());
}
Tensor Softplus::forward(const Tensor& x) { return softplus(x, options.beta(), options.threshold()); }
std::string Softplus::extra_repr() const {
  return "beta=" + py_float(options.beta()) + ", threshold=" + py_float(options.threshold());
}
Hardtanh::Hardtanh(std::string name, const HardtanhOptions& options_)
    : UnaryModule(std::move(name)), options(options_) {
  SEQLAB_CHECK_VALUE(options.max_val() > options.min_val(), "max_val must be greater than min_val");
}
Tensor Hardtanh::forward(const Tensor& x) {
  Tensor self = x;
  const double lo = options.min_val(), hi = options.max_val();
  return options.inplace() ? hardtanh_(self, lo, hi) : hardtanh(x, lo, hi);
}
std::string Hardtanh::extra_repr() const {
  return with_inplace("min_val=" + py_float(options.min_val()) + ", max_val=" + py_float(options.max_val()),
                      options.inplace());
}
PReLU::PReLU(const PReLUOptions& options_) : UnaryModule("PReLU"), options(options_) {
  const int64_t n = options.num_parameters();
  SEQLAB_CHECK_VALUE(n >= 0, "PReLU: num_parameters must be non-negative, got ", n);
  weight = register_parameter("weight", Tensor::empty({n}, options.dtype()));
  reset_parameters();
}
void PReLU::reset_parameters() { init::constant_(weight, options.init()); }
Tensor PReLU::forward(const Tensor& x) { return prelu(x, weight); }
Tensor LogSigmoid::forward(const Tensor& x) { return log_sigmoid(x); }
Tensor Softsign::forward(const Tensor& x) { return softsign(x); }
Tensor Tanhshrink::forward(const Tensor& x) { return tanhshrink(x); }
Tensor Softmin::forward(const Tensor& x) { return softmin(x, dim); }
Tensor GLU::forward(const Tensor& x) { return glu(x, dim); }
Tensor Mish::forward(const Tensor& x) {
  Tensor self = x;
  return inplace ? mish_(self) : mish(x);
}
Tensor Hardsigmoid::forward(const Tensor& x) {
  Tensor self = x;
  return inplace ? hardsigmoid_(self) : hardsigmoid(x);
}
Tensor Hardswish::forward(const Tensor& x) {
  Tensor self = x;
  return inplace ? hardswish_(self) : hardswish(x);
}
Tensor Threshold::forward(const Tensor& x) {
  Tensor self = x;
  const double t = options.threshold(), v = options.value();
  return options.inplace() ? threshold_(self, t, v) : seqlab::threshold(x, t, v);
}
std::string Threshold::extra_repr() const {
  return with_inplace("threshold=" + py_float(options.threshold()) + ", value=" + py_float(options.value()),
                      options.inplace());
}
Tensor Softmax::forward(const Tensor& x) { return softmax(x, dim); }
Tensor LogSoftmax::forward(const Tensor& x) { return log_softmax(x, dim); }
Tensor Flatten::forward(const Tensor& x) { return flatten(x, options.start_dim(), options.end_dim()); }

// ------------------------------------------------------------------ GroupNorm, InstanceNorm
GroupNorm::GroupNorm(const GroupNormOptions& options_) : UnaryModule("GroupNorm"), options(options_) {
  const int64_t G = options.num_groups(), C = options.num_channels();
  SEQLAB_CHECK_VALUE(G != 0 && C % G == 0, "num_channels (", C, ") must be divisible by num_groups (", G, ")");
  if (options.affine()) {
    weight = register_parameter("weight", ones({C}, options.dtype()));
    if (options.bias()) bias = register_parameter("bias", zeros({C}, options.dtype()));
  }
}

Tensor GroupNorm::forward(const Tensor& x) { return group_norm(x, options.num_groups(), weight, bias, options.eps()); }

std::string GroupNorm::extra_repr() const {
  return str_cat(options.num_groups(), ", ", options.num_channels(), ", eps=", py_float(options.eps()),
                 ", affine=", options.affine() ? "True" : "False", ", bias=", bias.defined() ? "True" : "False");
}

InstanceNorm::InstanceNorm(const char* name, int64_t spatial_dims_, const InstanceNormOptions& options_)
    : UnaryModule(name), options(options_), spatial_dims(spatial_dims_) {
  const int64_t n = options.num_features();
  const Dtype dtype = options.dtype();
  if (options.affine()) {
    weight = register_parameter("weight", ones({n}, dtype));
    if (options.bias()) bias = register_parameter("bias", zeros({n}, dtype));
  }
  if (options.track_running_stats()) {
    running_mean = register_buffer("running_mean", zeros({n}, dtype));
    running_var = register_buffer("running_var", ones({n}, dtype));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, Dtype::Int64));
  }
}

Tensor InstanceNorm::forward(const Tensor& x) {
  return instance_norm_module_forward(x, running_mean, running_var, weight, bias, training_,
                                      options.track_running_stats(), options.momentum(), options.eps(),
                                      options.num_features(), spatial_dims);
}

std::string InstanceNorm::extra_repr() const {
  const InstanceNormOptions& o = options;
  return str_cat(o.num_features(), ", eps=", py_float(o.eps()),
                 ", momentum=", o.momentum() ? py_float(*o.momentum()) : "None",
                 ", affine=", o.affine() ? "True" : "False", ", bias=", bias.defined() ? "True" : "False",
                 ", track_running_stats=", o.track_running_stats() ? "True" : "False");
}

// ------------------------------------------------------------------ RReLU
Tensor RReLU::forward(const Tensor& x) {
  if (!options.inplace()) return rrelu(x, options.lower(), options.upper(), training_);
  Tensor self = x;  // the same tensor: rrelu_ writes through it
  return rrelu_(self, options.lower(), options.upper(), training_);
}

std::string RReLU::extra_repr() const {
  return with_inplace("lower=" + py_float(options.lower()) + ", upper=" + py_float(options.upper()),
                      options.inplace());
}

// ------------------------------------------------------------------ Hardshrink, Softshrink, Softmax2d, Dropout1d/2d
Tensor Hardshrink::forward(const Tensor& x) { return hardshrink(x, lambd); }
std::string Hardshrink::extra_repr() const { return py_float(lambd); }
Tensor Softshrink::forward(const Tensor& x) { return softshrink(x, lambd); }
std::string Softshrink::extra_repr() const { return py_float(lambd); }
Tensor Softmax2d::forward(const Tensor& x) {
  SEQLAB_CHECK_VALUE(x.dim() == 3 || x.dim() == 4, "Softmax2d: expected input to be 3D or 4D, got ", x.dim(),
                     "D instead");
  return softmax(x, -3);
}
Tensor Dropout1d::forward(const Tensor& x) {
  SEQLAB_CHECK_VALUE(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
                     options.p());
  SEQLAB_CHECK(x.dim() == 2 || x.dim() == 3, "dropout1d: Expected 2D or 3D input, but received a ", x.dim(),
               "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
               "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  if (x.dim() == 2) return squeeze(feature_dropout(unsqueeze(x, 0), options.p(), training_), 0);
  return feature_dropout(x, options.p(), training_);
}
Tensor Dropout2d::forward(const Tensor& x) {
  SEQLAB_CHECK_VALUE(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
                     options.p());
  // torch's dropout2d: 4-D input is (N, C, H, W); any other is given a batch dim of 1 (a 3-D input is
  // then read as (N, C, L), with torch's warning in Python)
  if (x.dim() == 4) return feature_dropout(x, options.p(), training_);
  return squeeze(feature_dropout(unsqueeze(x, 0), options.p(), training_), 0);
}

}  // namespace seqlab::nn
