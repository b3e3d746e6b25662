// Conv1d, Conv2d, ConvTranspose1d and ConvTranspose2d for C++ users, the twins of seqlab.nn's
// (python/seqlab/nn/modules/conv.py): torch.nn's constructor arguments as an options struct, parameter
// names, shapes, initialisation and repr; forward is the functional conv1d/conv2d/conv_transpose1d/2d
// (ops/conv.hpp). cpp/src/nn/conv.cpp; tests: tests/test_nn_twins.py.
#pragma once
#include <string>
#include <utility>
#include <variant>

#include "seqlab/arg.hpp"
#include "seqlab/nn/module.hpp"

namespace seqlab::nn {

// torch.nn.Conv1d's and Conv2d's arguments (torch::nn::Conv1dOptions, Conv2dOptions): one struct
// under both names. A size of one value stands for every spatial dim (torch's _single, _pair);
// padding is sizes or "same" / "valid". The C++ layers pad with zeros only (padding_mode "zeros").
using ConvPaddingArg = std::variant<Shape, std::string>;
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, Shape kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}

  SEQLAB_ARG(int64_t, in_channels);
  SEQLAB_ARG(int64_t, out_channels);
  SEQLAB_ARG(Shape, kernel_size);
  SEQLAB_ARG(Shape, stride) = {1};
  SEQLAB_ARG(ConvPaddingArg, padding) = Shape{0};
  SEQLAB_ARG(Shape, dilation) = {1};
  SEQLAB_ARG(int64_t, groups) = 1;
  SEQLAB_ARG(bool, bias) = true;
  SEQLAB_ARG(std::string, padding_mode) = "zeros";
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
using Conv1dOptions = ConvOptions;
using Conv2dOptions = ConvOptions;

// weight (out_channels, in_channels / groups, k...) ~ kaiming_uniform_(a = √5), i.e. U(±1/√fan_in),
// bias (out_channels,) ~ U(±1/√fan_in), fan_in = in_channels / groups · Π k.
class ConvNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight, bias;
  const ConvOptions options;  // every size with one value per spatial dim

 protected:
  ConvNd(const char* name, size_t dims, const ConvOptions& options);
};

class Conv1d : public ConvNd {
 public:
  explicit Conv1d(const Conv1dOptions& options) : ConvNd("Conv1d", 1, options) {}
};

class Conv2d : public ConvNd {
 public:
  explicit Conv2d(const Conv2dOptions& options) : ConvNd("Conv2d", 2, options) {}
};

// torch.nn.ConvTranspose1d's and ConvTranspose2d's arguments, in their order (output_padding after
// padding, groups before bias and dilation); padding is sizes only, padding_mode "zeros" only (as torch's).
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, Shape kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}

  SEQLAB_ARG(int64_t, in_channels);
  SEQLAB_ARG(int64_t, out_channels);
  SEQLAB_ARG(Shape, kernel_size);
  SEQLAB_ARG(Shape, stride) = {1};
  SEQLAB_ARG(Shape, padding) = {0};
  SEQLAB_ARG(Shape, output_padding) = {0};
  SEQLAB_ARG(int64_t, groups) = 1;
  SEQLAB_ARG(bool, bias) = true;
  SEQLAB_ARG(Shape, dilation) = {1};
  SEQLAB_ARG(std::string, padding_mode) = "zeros";
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};
using ConvTranspose1dOptions = ConvTransposeOptions;
using ConvTranspose2dOptions = ConvTransposeOptions;

// weight (in_channels, out_channels / groups, k...) ~ kaiming_uniform_(a = √5), bias (out_channels,)
// ~ U(±1/√fan_in), fan_in from the weight's dim 1 (out_channels / groups · Π k), as torch's.
class ConvTransposeNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight, bias;
  const ConvTransposeOptions options;  // every size with one value per spatial dim

 protected:
  ConvTransposeNd(const char* name, size_t dims, const ConvTransposeOptions& options);
};

class ConvTranspose1d : public ConvTransposeNd {
 public:
  explicit ConvTranspose1d(const ConvTranspose1dOptions& options) : ConvTransposeNd("ConvTranspose1d", 1, options) {}
};

class ConvTranspose2d : public ConvTransposeNd {
 public:
  explicit ConvTranspose2d(const ConvTranspose2dOptions& options) : ConvTransposeNd("ConvTranspose2d", 2, options) {}
};

}  // namespace seqlab::nn
