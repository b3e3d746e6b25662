// Normalisation layers' functional forms: torch.nn.functional.layer_norm and group_norm (fused, with
// hand-written backwards), batch_norm and instance_norm. cpp/src/ops/norm.cpp.
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

// Group normalisation (Wu & He 2018; F.group_norm) of (N, C, *): each sample's C channels in
// num_groups groups, each group normalised by its own mean and biased variance, then
// y = xhat * weight[c] + bias[c] (weight, bias: (C) or undefined). One node with a hand-written backward.
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);

// Instance normalisation (Ulyanov et al. 2016; F.instance_norm) of (N, C, *): group_norm with one
// group per channel when use_input_stats (the running statistics, if defined, updated in place
// towards the batch's average of the planes' mean and unbiased variance), else batch_norm's eval.
Tensor instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps);

// The InstanceNorm modules' forward (torch's _InstanceNorm.forward), shared by seqlab.nn's and
// nn::InstanceNorm1d/2d: checks the input has spatial_dims + 1 or + 2 dims and, with a weight,
// num_features channels; unbatched input is normalised as a batch of one. The planes' statistics
// in training or without tracked running statistics; momentum unset = 0 (torch reads None so).
Tensor instance_norm_module_forward(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                                    const Tensor& weight, const Tensor& bias, bool training, bool track_running_stats,
                                    std::optional<double> momentum, double eps, int64_t num_features,
                                    int64_t spatial_dims);

}  // namespace seqlab
