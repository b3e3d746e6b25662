// Pooling as torch.nn.functional's max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d and
// adaptive_max_pool1d/2d: input (N, C, L) / (N, C, H, W) or unbatched (C, L) / (C, H, W), each (n, c)
// plane pooled on its own.
// cpp/src/ops/pool.cpp; tests: tests/test_conv.py.
#pragma once
#include <optional>
#include <utility>

#include "seqlab/tensor.hpp"

namespace seqlab {

// kernel_size, stride, padding and dilation hold one value per spatial dim or one for all; an
// empty stride means stride = kernel_size (torch's stride=None).
// (output, indices): indices (int64) locate each maximum in its plane, flattened (h * W + w), as torch's.
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const Shape& kernel_size,
                                                  const Shape& stride = {}, const Shape& padding = {0},
                                                  const Shape& dilation = {1}, bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Shape& kernel_size,
                                                  const Shape& stride = {}, const Shape& padding = {0},
                                                  const Shape& dilation = {1}, bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& input, const Shape& kernel_size, const Shape& stride = {}, const Shape& padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& input, const Shape& kernel_size, const Shape& stride = {}, const Shape& padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
// Windows [floor(o*I/O), ceil((o+1)*I/O)) for output o of O (torch's adaptive pooling).
Tensor adaptive_avg_pool1d(const Tensor& input, const Shape& output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, const Shape& output_size);
// (output, indices) over the same windows; indices as max_pool's (h * W + w in each plane).
std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, const Shape& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, const Shape& output_size);

}  // namespace seqlab
