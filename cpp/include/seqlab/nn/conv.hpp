// Conv1d and Conv2d for C++ users, the twins of seqlab.nn.Conv1d/Conv2d (python/seqlab/nn/conv.py):
// torch.nn's constructor arguments, parameter names, shapes, initialisation and repr; forward is the
// functional conv1d/conv2d (ops/conv.hpp). cpp/src/nn/conv.cpp; tests: tests/test_nn_twins.py.
#pragma once
#include <string>

#include "seqlab/nn/module.hpp"

namespace seqlab::nn {

// weight (out_channels, in_channels / groups, k...) ~ kaiming_uniform_(a = √5), i.e. U(±1/√fan_in),
// bias (out_channels,) ~ U(±1/√fan_in), fan_in = in_channels / groups · Π k. Padding with zeros
// (padding_mode 'zeros'); `padding_string` is "same" or "valid" when given instead of numbers.
class ConvNd : public UnaryModule {
 public:
  Tensor forward(const Tensor& x) override;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight, bias;
  const int64_t in_channels, out_channels;
  const Shape kernel_size, stride, padding, dilation;
  const std::string padding_string;
  const int64_t groups;

 protected:
  ConvNd(const char* name, size_t dims, int64_t in_channels, int64_t out_channels, const Shape& kernel_size,
         const Shape& stride, const Shape& padding, const std::string& padding_string, const Shape& dilation,
         int64_t groups, bool bias, Dtype dtype);
};

class Conv1d : public ConvNd {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, const Shape& kernel_size, const Shape& stride = {1},
         const Shape& padding = {0}, const Shape& dilation = {1}, int64_t groups = 1, bool bias = true,
         Dtype dtype = Dtype::Float32)
      : ConvNd("Conv1d", 1, in_channels, out_channels, kernel_size, stride, padding, "", dilation, groups, bias,
               dtype) {}
  Conv1d(int64_t in_channels, int64_t out_channels, const Shape& kernel_size, const Shape& stride,
         const std::string& padding, const Shape& dilation = {1}, int64_t groups = 1, bool bias = true,
         Dtype dtype = Dtype::Float32)
      : ConvNd("Conv1d", 1, in_channels, out_channels, kernel_size, stride, {0}, padding, dilation, groups, bias,
               dtype) {}
};

class Conv2d : public ConvNd {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, const Shape& kernel_size, const Shape& stride = {1},
         const Shape& padding = {0}, const Shape& dilation = {1}, int64_t groups = 1, bool bias = true,
         Dtype dtype = Dtype::Float32)
      : ConvNd("Conv2d", 2, in_channels, out_channels, kernel_size, stride, padding, "", dilation, groups, bias,
               dtype) {}
  Conv2d(int64_t in_channels, int64_t out_channels, const Shape& kernel_size, const Shape& stride,
         const std::string& padding, const Shape& dilation = {1}, int64_t groups = 1, bool bias = true,
         Dtype dtype = Dtype::Float32)
      : ConvNd("Conv2d", 2, in_channels, out_channels, kernel_size, stride, {0}, padding, dilation, groups, bias,
               dtype) {}
};

}  // namespace seqlab::nn
