// The language-model head's loss in chunks of rows: cross_entropy(x Wᵀ + b, target), never holding
// the (N, C) logits (torch.nn.functional.linear_cross_entropy with options, its chunked path).
// cpp/src/ops/linear_cross_entropy.cpp; tests: tests/test_linear_cross_entropy.py.
#pragma once
#include <cstdint>

#include "seqlab/ops/loss.hpp"
#include "seqlab/tensor.hpp"

namespace seqlab {

// input (N, d), weight (C, d), target (N) int64 class indices, bias (C) or undefined, class_weight
// (C) or undefined. The loss of each row is w_t (logsumexp_c z_c − z_t), z = x Wᵀ + b, 0 where
// target == ignore_index; Mean divides the sum by Σ w_t over the rows kept. The rows go through
// chunk_size at a time: one (chunk_size, C) buffer is the only class-sized memory. For 'mean' and
// 'sum' the gradients are made with the loss; without allow_retain_graph the backward hands them
// over (scaled in place), so a second backward through the loss raises, as torch's.
Tensor linear_cross_entropy_chunked(const Tensor& input, const Tensor& weight, const Tensor& target,
                                    const Tensor& bias, const Tensor& class_weight, Reduction reduction,
                                    int64_t ignore_index, int64_t chunk_size, bool allow_retain_graph = false);

// The rows of the largest logits buffer the chunked loss allocated since the last call of this
// function (0 if none): what tests read to see that no (N, C) buffer was made.
int64_t linear_cross_entropy_max_chunk_rows();

}  // namespace seqlab
