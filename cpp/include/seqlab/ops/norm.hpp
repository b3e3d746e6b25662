// Normalisation layers' functional forms: torch.nn.functional.layer_norm (fused, with a
// hand-written backward) and batch_norm. cpp/src/ops/norm.cpp.
#pragma once
#include "seqlab/tensor.hpp"

namespace seqlab {

// Normalise over the last len(normalized_shape) dims: y = (x - mean) / sqrt(var + eps) * w + b
// (biased variance, as PyTorch). weight and bias may be undefined.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// Batch normalisation over channel dim 1 of (N, C, *) (Ioffe & Szegedy 2015, Algorithm 1),
// composed from ops: y = (x - mean) / sqrt(var + eps) * weight + bias. training: batch mean and
// biased var over every dim but 1, and running stats (if defined) updated in place,
// r = (1 - momentum) r + momentum s, with the unbiased var for running_var; else the running stats.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps);

}  // namespace seqlab
