// Convolutions as torch.nn.functional.conv1d / conv2d: input (N, C, L) / (N, C, H, W), or unbatched
// (C, L) / (C, H, W); weight (out_channels, in_channels / groups, k...); bias (out_channels,) or
// undefined. Computed as im2col + one GEMM per group (cpp/src/ops/conv.cpp); tests: tests/test_conv.py.
#pragma once
#include <string>

#include "seqlab/tensor.hpp"

namespace seqlab {

// stride, padding and dilation hold one value per spatial dim, or one value for all of them.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), const Shape& stride = {1},
              const Shape& padding = {0}, const Shape& dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), const Shape& stride = {1},
              const Shape& padding = {0}, const Shape& dilation = {1}, int64_t groups = 1);
// padding='valid' (none) or 'same' (output size = input size, stride 1; for an even dilated kernel
// the extra zero goes on the right, as torch's), as torch::kValid / torch::kSame: an enum, because a
// string overload would make conv2d(x, w, b, {1}, {0}) ambiguous.
enum class ConvPadding { valid, same };
// "valid" / "same" -> ConvPadding; std::runtime_error naming `op` otherwise.
ConvPadding conv_padding(const std::string& padding, const char* op);
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride, ConvPadding padding,
              const Shape& dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride, ConvPadding padding,
              const Shape& dilation = {1}, int64_t groups = 1);

// Transposed convolutions as torch.nn.functional.conv_transpose1d / conv_transpose2d (the adjoint of
// conv1d / conv2d): weight (in_channels, out_channels / groups, k...); output size per dim
// (I - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1. Note torch's argument order:
// groups before dilation.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
                        const Shape& stride = {1}, const Shape& padding = {0}, const Shape& output_padding = {0},
                        int64_t groups = 1, const Shape& dilation = {1});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
                        const Shape& stride = {1}, const Shape& padding = {0}, const Shape& output_padding = {0},
                        int64_t groups = 1, const Shape& dilation = {1});

}  // namespace seqlab
