// Normalisation layers' functional forms: torch.nn.functional.layer_norm (fused, with a
// hand-written backward) and batch_norm. cpp/src/ops/norm.cpp.
#pragma once
#include <optional>
#include "seqlab/tensor.hpp"

namespace seqlab {

// Normalise over the last len(normalized_shape) dims: y = (x - mean) / sqrt(var + eps) * w + b
// (biased variance, as PyTorch). weight and bias may be undefined.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// RMSNorm (Zhang & Sennrich 2019; torch.nn.functional.rms_norm): y = x / sqrt(mean(x²) + eps) * w
// over the last len(normalized_shape) dims, no centring and no bias. eps: the dtype's machine
// epsilon when not given, as torch's.
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                std::optional<double> eps = std::nullopt);

// Batch normalisation over channel dim 1 of (N, C, *) (Ioffe & Szegedy 2015, Algorithm 1),
// composed from ops: y = (x - mean) / sqrt(var + eps) * weight + bias. training: batch mean and
// biased var over every dim but 1, and running stats (if defined) updated in place,
// r = (1 - momentum) r + momentum s, with the unbiased var for running_var; else the running stats.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps);

// The BatchNorm modules' forward (torch.nn.modules.batchnorm._BatchNorm.forward), shared by
// seqlab.nn.BatchNorm1d and nn::BatchNorm1d. In training with track_running_stats, counts
// the batch in num_batches_tracked (in place) and uses momentum, or the cumulative average
// 1/num_batches_tracked when momentum is nullopt. Batch statistics in training, and in eval
// when there are no running statistics; the running ones are updated only when tracked.
Tensor batch_norm_module_forward(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                                 const Tensor& num_batches_tracked, const Tensor& weight, const Tensor& bias,
                                 bool training, bool track_running_stats, std::optional<double> momentum, double eps);

}  // namespace seqlab
