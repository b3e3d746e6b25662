// The layers of seqlab.nn for C++ users, twins of python/seqlab/nn/layers.py and of
// torch::nn's: same constructor arguments, parameter names, shapes, initialisation and reprs,
// and a forward that is one call of the C++ functional the Python layer calls too (DESIGN.md,
// "The twin policy"). cpp/src/nn/layers.cpp; tests: cpp/tests/test_nn.cpp and
// tests/test_nn_twins.py (each layer built on both sides and compared).
#pragma once
#include <optional>
#include <string>

#include "seqlab/nn/module.hpp"

namespace seqlab::nn {

// y = x Wᵀ + b, W: (out_features, in_features), initialised as torch.nn.Linear:
// W ~ kaiming_uniform(a=√5) = U(±1/√in), b ~ U(±1/√in).
class Linear : public UnaryModule {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true, Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight, bias;
  const int64_t in_features, out_features;

 protected:
  Linear(const char* name, int64_t in_features, int64_t out_features, bool bias, Dtype dtype);
};

// torch.nn.modules.linear.NonDynamicallyQuantizableLinear: a Linear under another name (torch's
// quantization tooling skips it), used as MultiheadAttention's out_proj; the name shows in reprs.
class NonDynamicallyQuantizableLinear : public Linear {
 public:
  NonDynamicallyQuantizableLinear(int64_t in_features, int64_t out_features, bool bias = true,
                                  Dtype dtype = Dtype::Float32)
      : Linear("NonDynamicallyQuantizableLinear", in_features, out_features, bias, dtype) {}
};

// A lookup table (num_embeddings, embedding_dim) ~ N(0, 1); the padding row is zero and gets
// no gradient.
class Embedding : public UnaryModule {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt,
            Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& index) override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight;
  const int64_t num_embeddings, embedding_dim;
  const std::optional<int64_t> padding_idx;
};

// Layer normalisation over the last dims (Ba et al. 2016); weight 1, bias 0.
class LayerNorm : public UnaryModule {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true, bool bias = true,
                     Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias;
  const Shape normalized_shape;
  const double eps;
};

// y = x / RMS(x) * weight over the trailing normalized_shape dims; eps nullopt: the dtype's
// machine epsilon (torch.nn.RMSNorm's None). weight = 1 at init.
class RMSNorm : public UnaryModule {
 public:
  explicit RMSNorm(Shape normalized_shape, std::optional<double> eps = std::nullopt, bool elementwise_affine = true,
                   Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight;
  const Shape normalized_shape;
  const std::optional<double> eps;
};

// Inverted dropout in training mode, identity in eval mode. inplace is accepted (and shown)
// as torch's; the result is a new tensor, as in seqlab.nn.Dropout.
class Dropout : public UnaryModule {
 public:
  explicit Dropout(double p = 0.5, bool inplace = false);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double p;
  const bool inplace;
};

// y_k = x1ᵀ A_k x2 + b_k, A: (out_features, in1_features, in2_features), all ~ U(±1/√in1).
class Bilinear : public Module {
 public:
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias = true,
           Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& x1, const Tensor& x2);
  std::string extra_repr() const override;
  Tensor weight, bias;
  const int64_t in1_features, in2_features, out_features;
};

// Batch normalisation of (N, C) or (N, C, L) over N (and L), with running statistics
// (buffers running_mean, running_var, num_batches_tracked); momentum nullopt = cumulative average.
class BatchNorm1d : public UnaryModule {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true, Dtype dtype = Dtype::Float32,
                       bool bias = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
  const int64_t num_features;
  const double eps;
  const std::optional<double> momentum;
  const bool affine, track_running_stats;
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
// calls the in-place form). extra_repr as torch's.
class ELU : public UnaryModule {
 public:
  explicit ELU(double alpha = 1.0, bool inplace = false) : UnaryModule("ELU"), alpha(alpha), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double alpha;
  const bool inplace;
};
class SELU : public UnaryModule {
 public:
  explicit SELU(bool inplace = false) : UnaryModule("SELU"), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  const bool inplace;
};
class CELU : public UnaryModule {
 public:
  explicit CELU(double alpha = 1.0, bool inplace = false) : UnaryModule("CELU"), alpha(alpha), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double alpha;
  const bool inplace;
};
class LeakyReLU : public UnaryModule {
 public:
  explicit LeakyReLU(double negative_slope = 0.01, bool inplace = false)
      : UnaryModule("LeakyReLU"), negative_slope(negative_slope), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double negative_slope;
  const bool inplace;
};
class Softplus : public UnaryModule {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0)
      : UnaryModule("Softplus"), beta(beta), threshold(threshold) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double beta, threshold;
};
// Hardtanh(min_val, max_val); ReLU6 is Hardtanh(0, 6) with its own name and repr, as torch's.
class Hardtanh : public UnaryModule {
 public:
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0, bool inplace = false);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double min_val, max_val;
  const bool inplace;

 protected:
  Hardtanh(std::string name, double min_val, double max_val, bool inplace);
};
class ReLU6 : public Hardtanh {
 public:
  explicit ReLU6(bool inplace = false) : Hardtanh("ReLU6", 0.0, 6.0, inplace) {}
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
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
class Threshold : public UnaryModule {
 public:
  Threshold(double threshold, double value, bool inplace = false)
      : UnaryModule("Threshold"), threshold(threshold), value(value), inplace(inplace) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  const double threshold, value;
  const bool inplace;
};
// PReLU: x for x > 0, weight·x otherwise; weight (num_parameters,) filled with init, one per channel.
class PReLU : public UnaryModule {
 public:
  explicit PReLU(int64_t num_parameters = 1, double init = 0.25, Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  std::string extra_repr() const override { return "num_parameters=" + std::to_string(num_parameters); }
  Tensor weight;
  const int64_t num_parameters;
  const double init;
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
class Flatten : public UnaryModule {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : UnaryModule("Flatten"), start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override {
    return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
  }
  const int64_t start_dim, end_dim;
};

}  // namespace seqlab::nn
