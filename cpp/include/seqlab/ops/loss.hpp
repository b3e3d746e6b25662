// Losses as torch.nn.functional: cross_entropy is one fused node (log-softmax + NLL +
// label smoothing), as are nll_loss and binary_cross_entropy_with_logits. cpp/src/ops/loss.cpp.
#pragma once
#include <string>
#include "seqlab/tensor.hpp"

namespace seqlab {

enum class Reduction { None, Mean, Sum };
Reduction parse_reduction(const std::string& name);

// input (N, C) or (N, C, d1, ...) or (C,); target class indices (N) / (N, d1, ...) / ().
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                     int64_t ignore_index = -100, Reduction reduction = Reduction::Mean,
                     double label_smoothing = 0.0);
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                int64_t ignore_index = -100, Reduction reduction = Reduction::Mean);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& weight = Tensor(),
                                        Reduction reduction = Reduction::Mean,
                                        const Tensor& pos_weight = Tensor());

}  // namespace seqlab
