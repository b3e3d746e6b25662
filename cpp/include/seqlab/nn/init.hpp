// Parameter initialisation as torch.nn.init (https://pytorch.org/docs/stable/nn.init.html):
// same names, arguments, defaults and formulas, so that every layer starts where PyTorch's
// does (in distribution; the random streams differ). All write in place, without history;
// the random ones draw from `generator` (nullptr: the default one).
// cpp/src/nn/init.cpp; tests: tests/test_nn_init.py.
#pragma once
#include <string>
#include <utility>

#include "seqlab/ops/generator.hpp"
#include "seqlab/tensor.hpp"

namespace seqlab::nn::init {

// The recommended gain for a nonlinearity: linear/sigmoid 1, tanh 5/3, relu √2,
// leaky_relu √(2/(1+slope²)), selu 3/4.
double calculate_gain(const std::string& nonlinearity, double param = 0.01);
// fan_in = size(1) · receptive field, fan_out = size(0) · receptive field.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t);

Tensor& uniform_(Tensor& t, double a = 0.0, double b = 1.0, Generator* generator = nullptr);
Tensor& normal_(Tensor& t, double mean = 0.0, double std = 1.0, Generator* generator = nullptr);
Tensor& constant_(Tensor& t, double value);
Tensor& zeros_(Tensor& t);
Tensor& ones_(Tensor& t);
// U(-a, a), a = gain · √(6 / (fan_in + fan_out))        (Glorot & Bengio 2010)
Tensor& xavier_uniform_(Tensor& t, double gain = 1.0, Generator* generator = nullptr);
// N(0, std²), std = gain · √(2 / (fan_in + fan_out))
Tensor& xavier_normal_(Tensor& t, double gain = 1.0, Generator* generator = nullptr);
// U(-b, b), b = gain · √(3 / fan), gain = calculate_gain(nonlinearity, a)   (He et al. 2015)
Tensor& kaiming_uniform_(Tensor& t, double a = 0.0, const std::string& mode = "fan_in",
                         const std::string& nonlinearity = "leaky_relu", Generator* generator = nullptr);
Tensor& kaiming_normal_(Tensor& t, double a = 0.0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu", Generator* generator = nullptr);
// A (semi-)orthogonal matrix from the QR decomposition of a Gaussian one (Saxe et al. 2013).
Tensor& orthogonal_(Tensor& t, double gain = 1.0, Generator* generator = nullptr);

}  // namespace seqlab::nn::init
