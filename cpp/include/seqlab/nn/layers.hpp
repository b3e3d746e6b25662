// The layers of seqlab.nn for C++ users, twins of python/seqlab/nn/modules/*.py and of
// torch::nn's: same constructor arguments (an options struct), parameter names, shapes, initialisation and reprs,
// and a forward that is one call of the C++ functional the Python layer calls too (DESIGN.md,
// "The twin policy"). cpp/src/nn/layers.cpp; tests: cpp/tests/test_nn.cpp and
// tests/test_nn_twins.py (each layer built on both sides and compared).
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "seqlab/arg.hpp"
#include "seqlab/nn/module.hpp"

namespace seqlab::nn {

// torch.nn.Linear's arguments (torch::nn::LinearOptions).
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}

  SEQLAB_ARG(int64_t, in_features);
  SEQLAB_ARG(int64_t, out_features);
  SEQLAB_ARG(bool, bias) = true;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};

// y = x Wᵀ + b, W: (out_features, in_features), initialised as torch.nn.Linear:
// W ~ kaiming_uniform(a=√5) = U(±1/√in), b ~ U(±1/√in).
class Linear : public UnaryModule {
 public:
  explicit Linear(const LinearOptions& options) : Linear("Linear", options) {}
  Linear(int64_t in_features, int64_t out_features) : Linear(LinearOptions(in_features, out_features)) {}
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight, bias;
  const LinearOptions options;

 protected:
  Linear(const char* name, const LinearOptions& options);
};

// torch.nn.modules.linear.NonDynamicallyQuantizableLinear: a Linear under another name (torch's
// quantization tooling skips it), used as MultiheadAttention's out_proj; the name shows in reprs.
class NonDynamicallyQuantizableLinear : public Linear {
 public:
  explicit NonDynamicallyQuantizableLinear(const LinearOptions& options)
      : Linear("NonDynamicallyQuantizableLinear", options) {}
};

// torch.nn.Embedding's arguments (torch::nn::EmbeddingOptions) that the C++ module supports.
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}

  SEQLAB_ARG(int64_t, num_embeddings);
  SEQLAB_ARG(int64_t, embedding_dim);
  SEQLAB_ARG(std::optional<int64_t>, padding_idx);  // negative: from the end; kept as its row
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};

// A lookup table (num_embeddings, embedding_dim) ~ N(0, 1); the padding row is zero and gets
// no gradient.
class Embedding : public UnaryModule {
 public:
  explicit Embedding(const EmbeddingOptions& options);
  Embedding(int64_t num_embeddings, int64_t embedding_dim)
      : Embedding(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  Tensor forward(const Tensor& index) override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight;
  const EmbeddingOptions options;  // padding_idx as a row (>= 0)
};

// torch.nn.LayerNorm's arguments (torch::nn::LayerNormOptions).
struct LayerNormOptions {
  explicit LayerNormOptions(Shape normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}

  SEQLAB_ARG(Shape, normalized_shape);  // the trailing dims normalised over
  SEQLAB_ARG(double, eps) = 1e-5;
  SEQLAB_ARG(bool, elementwise_affine) = true;  // weight (and bias)
  SEQLAB_ARG(bool, bias) = true;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};

// Layer normalisation over the last dims (Ba et al. 2016); weight 1, bias 0.
class LayerNorm : public UnaryModule {
 public:
  explicit LayerNorm(const LayerNormOptions& options);
  explicit LayerNorm(Shape normalized_shape) : LayerNorm(LayerNormOptions(std::move(normalized_shape))) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  const LayerNormOptions options;
};

// torch.nn.RMSNorm's arguments; eps unset: the dtype's machine epsilon (torch's None).
struct RMSNormOptions {
  explicit RMSNormOptions(Shape normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}

  SEQLAB_ARG(Shape, normalized_shape);
  SEQLAB_ARG(std::optional<double>, eps);
  SEQLAB_ARG(bool, elementwise_affine) = true;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};

// y = x / RMS(x) * weight over the trailing normalized_shape dims. weight = 1 at init.
class RMSNorm : public UnaryModule {
 public:
  explicit RMSNorm(const RMSNormOptions& options);
  explicit RMSNorm(Shape normalized_shape) : RMSNorm(RMSNormOptions(std::move(normalized_shape))) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight;
  const RMSNormOptions options;
};

// torch.nn.Dropout's arguments (torch::nn::DropoutOptions); a probability converts to them.
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT: implicit, Dropout(0.1) as torch's

  SEQLAB_ARG(double, p);
  SEQLAB_ARG(bool, inplace) = false;
};

// Inverted dropout in training mode, identity in eval mode. inplace is accepted (and shown)
// as torch's; the result is a new tensor, as in seqlab.nn.Dropout.
class Dropout : public UnaryModule {
 public:
  explicit Dropout(const DropoutOptions& options = {}) : Dropout(options, "Dropout") {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const DropoutOptions options;

 protected:
  Dropout(const DropoutOptions& options, const char* name);  // Dropout1d, Dropout2d, the alpha dropouts
};

// Alpha dropout for SELU networks, of each element or of whole channels (ops/random.hpp).
class AlphaDropout : public Dropout {
 public:
  explicit AlphaDropout(const DropoutOptions& options = {}) : Dropout(options, "AlphaDropout") {}
  Tensor forward(const Tensor& x) override;
};
class FeatureAlphaDropout : public Dropout {
 public:
  explicit FeatureAlphaDropout(const DropoutOptions& options = {}) : Dropout(options, "FeatureAlphaDropout") {}
  Tensor forward(const Tensor& x) override;
};

// torch.nn.Bilinear's arguments (torch::nn::BilinearOptions).
struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}

  SEQLAB_ARG(int64_t, in1_features);
  SEQLAB_ARG(int64_t, in2_features);
  SEQLAB_ARG(int64_t, out_features);
  SEQLAB_ARG(bool, bias) = true;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};

// y_k = x1ᵀ A_k x2 + b_k, A: (out_features, in1_features, in2_features), all ~ U(±1/√in1).
class Bilinear : public Module {
 public:
  explicit Bilinear(const BilinearOptions& options);
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : Bilinear(BilinearOptions(in1_features, in2_features, out_features)) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  std::string extra_repr() const override;
  Tensor weight, bias;
  const BilinearOptions options;
};

// torch.nn.BatchNorm1d's arguments (torch::nn::BatchNormOptions); momentum unset = a cumulative
// average (Python's None).
struct BatchNormOptions {
  explicit BatchNormOptions(int64_t num_features) : num_features_(num_features) {}

  SEQLAB_ARG(int64_t, num_features);
  SEQLAB_ARG(double, eps) = 1e-5;
  SEQLAB_ARG(std::optional<double>, momentum) = 0.1;
  SEQLAB_ARG(bool, affine) = true;  // weight and bias
  SEQLAB_ARG(bool, track_running_stats) = true;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
  SEQLAB_ARG(bool, bias) = true;  // with affine
};

// Batch normalisation of (N, C) or (N, C, L) over N (and L), with running statistics
// (buffers running_mean, running_var, num_batches_tracked).
class BatchNorm1d : public UnaryModule {
 public:
  explicit BatchNorm1d(const BatchNormOptions& options);
  explicit BatchNorm1d(int64_t num_features) : BatchNorm1d(BatchNormOptions(num_features)) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
  const BatchNormOptions options;

 protected:
  BatchNorm1d(const BatchNormOptions& options, const char* name);  // the same layer under another name
};

// Batch normalisation of (N, C, H, W) over N, H and W: BatchNorm1d's parameters, buffers and
// functional, with torch.nn.BatchNorm2d's 4-D input check.
class BatchNorm2d : public BatchNorm1d {
 public:
  explicit BatchNorm2d(const BatchNormOptions& options);
  explicit BatchNorm2d(int64_t num_features) : BatchNorm2d(BatchNormOptions(num_features)) {}
  Tensor forward(const Tensor& x) override;
};

// Activations and reshaping as modules.
class Identity : public UnaryModule {
 public:
  Identity() : UnaryModule("Identity") {}
  Tensor forward(const Tensor& x) override { return x; }
};
class Tanh : public UnaryModule {
 public:
  Tanh() : UnaryModule("Tanh") {}
  Tensor forward(const Tensor& x) override;
};
class Sigmoid : public UnaryModule {
 public:
  Sigmoid() : UnaryModule("Sigmoid") {}
  Tensor forward(const Tensor& x) override;
};
// x σ(x); inplace overwrites the input with the result, as torch's.
class SiLU : public UnaryModule {
 public:
  explicit SiLU(bool inplace = false) : UnaryModule("SiLU"), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  const bool inplace;
};
// max(0, x); inplace overwrites the input (relu_), as torch's.
class ReLU : public UnaryModule {
 public:
  explicit ReLU(bool inplace = false) : UnaryModule("ReLU"), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  const bool inplace;
};
class GELU : public UnaryModule {
 public:
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return "approximate='" + approximate + "'"; }
  const std::string approximate;
};
// torch.nn's other pointwise activations (each calls its functional in ops/activation.hpp; inplace
// calls the in-place form). extra_repr as torch's. Those with more than one argument take an
// options struct (torch::nn::ELUOptions, ...).
struct ELUOptions {
  SEQLAB_ARG(double, alpha) = 1.0;
  SEQLAB_ARG(bool, inplace) = false;
};
class ELU : public UnaryModule {
 public:
  explicit ELU(const ELUOptions& options = {}) : UnaryModule("ELU"), options(options) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const ELUOptions options;
};
class SELU : public UnaryModule {
 public:
  explicit SELU(bool inplace = false) : UnaryModule("SELU"), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  const bool inplace;
};
using CELUOptions = ELUOptions;  // the same fields
class CELU : public UnaryModule {
 public:
  explicit CELU(const CELUOptions& options = {}) : UnaryModule("CELU"), options(options) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const CELUOptions options;
};
struct LeakyReLUOptions {
  SEQLAB_ARG(double, negative_slope) = 0.01;
  SEQLAB_ARG(bool, inplace) = false;
};
class LeakyReLU : public UnaryModule {
 public:
  explicit LeakyReLU(const LeakyReLUOptions& options = {}) : UnaryModule("LeakyReLU"), options(options) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const LeakyReLUOptions options;
};
struct SoftplusOptions {
  SEQLAB_ARG(double, beta) = 1.0;
  SEQLAB_ARG(double, threshold) = 20.0;  // linear above beta·x > threshold
};
class Softplus : public UnaryModule {
 public:
  explicit Softplus(const SoftplusOptions& options = {}) : UnaryModule("Softplus"), options(options) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const SoftplusOptions options;
};
// Hardtanh(min_val, max_val); ReLU6 is Hardtanh(0, 6) with its own name and repr, as torch's.
struct HardtanhOptions {
  SEQLAB_ARG(double, min_val) = -1.0;
  SEQLAB_ARG(double, max_val) = 1.0;
  SEQLAB_ARG(bool, inplace) = false;
};
class Hardtanh : public UnaryModule {
 public:
  explicit Hardtanh(const HardtanhOptions& options = {}) : Hardtanh("Hardtanh", options) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const HardtanhOptions options;

 protected:
  Hardtanh(std::string name, const HardtanhOptions& options);
};
class ReLU6 : public Hardtanh {
 public:
  explicit ReLU6(bool inplace = false)
      : Hardtanh("ReLU6", HardtanhOptions().min_val(0.0).max_val(6.0).inplace(inplace)) {}
  std::string extra_repr() const override { return options.inplace() ? "inplace=True" : ""; }
};
class LogSigmoid : public UnaryModule {
 public:
  LogSigmoid() : UnaryModule("LogSigmoid") {}
  Tensor forward(const Tensor& x) override;
};
class Softsign : public UnaryModule {
 public:
  Softsign() : UnaryModule("Softsign") {}
  Tensor forward(const Tensor& x) override;
};
class Tanhshrink : public UnaryModule {
 public:
  Tanhshrink() : UnaryModule("Tanhshrink") {}
  Tensor forward(const Tensor& x) override;
};
class Mish : public UnaryModule {
 public:
  explicit Mish(bool inplace = false) : UnaryModule("Mish"), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  const bool inplace;
};
// Hardsigmoid, Hardswish: torch's repr does not show inplace.
class Hardsigmoid : public UnaryModule {
 public:
  explicit Hardsigmoid(bool inplace = false) : UnaryModule("Hardsigmoid"), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  const bool inplace;
};
class Hardswish : public UnaryModule {
 public:
  explicit Hardswish(bool inplace = false) : UnaryModule("Hardswish"), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  const bool inplace;
};
// y = x where x > threshold, value elsewhere.
struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}

  SEQLAB_ARG(double, threshold);
  SEQLAB_ARG(double, value);
  SEQLAB_ARG(bool, inplace) = false;
};
class Threshold : public UnaryModule {
 public:
  explicit Threshold(const ThresholdOptions& options) : UnaryModule("Threshold"), options(options) {}
  Threshold(double threshold, double value) : Threshold(ThresholdOptions(threshold, value)) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const ThresholdOptions options;
};
// PReLU: x for x > 0, weight·x otherwise; weight (num_parameters,) filled with init, one per channel.
struct PReLUOptions {
  SEQLAB_ARG(int64_t, num_parameters) = 1;
  SEQLAB_ARG(double, init) = 0.25;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
class PReLU : public UnaryModule {
 public:
  explicit PReLU(const PReLUOptions& options = {});
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  std::string extra_repr() const override { return "num_parameters=" + std::to_string(options.num_parameters()); }
  Tensor weight;
  const PReLUOptions options;
};
// softmax(-x) over dim.
class Softmin : public UnaryModule {
 public:
  explicit Softmin(int64_t dim) : UnaryModule("Softmin"), dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  const int64_t dim;
};
class GLU : public UnaryModule {
 public:
  explicit GLU(int64_t dim = -1) : UnaryModule("GLU"), dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  const int64_t dim;
};
class Softmax : public UnaryModule {
 public:
  explicit Softmax(int64_t dim) : UnaryModule("Softmax"), dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  const int64_t dim;
};
class LogSoftmax : public UnaryModule {
 public:
  explicit LogSoftmax(int64_t dim) : UnaryModule("LogSoftmax"), dim(dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  const int64_t dim;
};
struct FlattenOptions {
  SEQLAB_ARG(int64_t, start_dim) = 1;
  SEQLAB_ARG(int64_t, end_dim) = -1;
};
class Flatten : public UnaryModule {
 public:
  explicit Flatten(const FlattenOptions& options = {}) : UnaryModule("Flatten"), options(options) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override {
    return str_cat("start_dim=", options.start_dim(), ", end_dim=", options.end_dim());
  }
  const FlattenOptions options;
};

// torch.nn.GroupNorm's arguments (torch::nn::GroupNormOptions).
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}

  SEQLAB_ARG(int64_t, num_groups);
  SEQLAB_ARG(int64_t, num_channels);
  SEQLAB_ARG(double, eps) = 1e-5;
  SEQLAB_ARG(bool, affine) = true;  // weight (and bias)
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
  SEQLAB_ARG(bool, bias) = true;  // with affine
};

// Group normalisation (Wu & He 2018) of (N, C, *) over each group of C / num_groups channels;
// weight 1, bias 0 (one per channel). forward: group_norm.
class GroupNorm : public UnaryModule {
 public:
  explicit GroupNorm(const GroupNormOptions& options);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  const GroupNormOptions options;
};

// torch.nn.InstanceNorm1d/2d's arguments (torch::nn::InstanceNormOptions); momentum unset: no
// update of the running statistics (torch's None, which instance norm reads as 0).
struct InstanceNormOptions {
  explicit InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}

  SEQLAB_ARG(int64_t, num_features);
  SEQLAB_ARG(double, eps) = 1e-5;
  SEQLAB_ARG(std::optional<double>, momentum) = 0.1;
  SEQLAB_ARG(bool, affine) = false;  // weight and bias
  SEQLAB_ARG(bool, track_running_stats) = false;
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
  SEQLAB_ARG(bool, bias) = true;  // with affine
};

// Instance normalisation (Ulyanov et al. 2016): each (n, c) plane of (N, C, *spatial), or of
// unbatched (C, *spatial), by its own statistics; with track_running_stats the buffers
// running_mean, running_var, num_batches_tracked (which, as torch's, never counts) and, in eval,
// those statistics. forward: instance_norm_module_forward.
class InstanceNorm : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
  const InstanceNormOptions options;
  const int64_t spatial_dims;

 protected:
  InstanceNorm(const char* name, int64_t spatial_dims, const InstanceNormOptions& options);
};
class InstanceNorm1d : public InstanceNorm {
 public:
  explicit InstanceNorm1d(const InstanceNormOptions& options) : InstanceNorm("InstanceNorm1d", 1, options) {}
};
class InstanceNorm2d : public InstanceNorm {
 public:
  explicit InstanceNorm2d(const InstanceNormOptions& options) : InstanceNorm("InstanceNorm2d", 2, options) {}
};

// torch.nn.RReLU's arguments (torch::nn::RReLUOptions).
struct RReLUOptions {
  SEQLAB_ARG(double, lower) = 1.0 / 8.0;
  SEQLAB_ARG(double, upper) = 1.0 / 3.0;
  SEQLAB_ARG(bool, inplace) = false;
};

// The randomized leaky ReLU (Xu et al. 2015): slopes ~ U(lower, upper) for x <= 0 in training,
// (lower + upper) / 2 in eval. forward: rrelu.
class RReLU : public UnaryModule {
 public:
  explicit RReLU(const RReLUOptions& options = {}) : UnaryModule("RReLU"), options(options) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const RReLUOptions options;
};

// Hardshrink, Softshrink (lambd, torch's keyword), Softmax2d (softmax over the channels of (C, H, W)
// or (N, C, H, W)), and channel dropout Dropout1d ((N, C, L) or (C, L)) and Dropout2d ((N, C, H, W);
// a 3-D input is read as (N, C, L), as torch's).
class Hardshrink : public UnaryModule {
 public:
  explicit Hardshrink(double lambd = 0.5) : UnaryModule("Hardshrink"), lambd(lambd) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double lambd;
};
class Softshrink : public UnaryModule {
 public:
  explicit Softshrink(double lambd = 0.5) : UnaryModule("Softshrink"), lambd(lambd) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double lambd;
};
class Softmax2d : public UnaryModule {
 public:
  Softmax2d() : UnaryModule("Softmax2d") {}
  Tensor forward(const Tensor& x) override;
};
class Dropout1d : public Dropout {
 public:
  explicit Dropout1d(const DropoutOptions& options = {}) : Dropout(options, "Dropout1d") {}
  Tensor forward(const Tensor& x) override;
};
class Dropout2d : public Dropout {
 public:
  explicit Dropout2d(const DropoutOptions& options = {}) : Dropout(options, "Dropout2d") {}
  Tensor forward(const Tensor& x) override;
};

}  // namespace seqlab::nn
