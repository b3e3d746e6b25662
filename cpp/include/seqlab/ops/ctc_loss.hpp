// Connectionist temporal classification loss (torch.nn.functional.ctc_loss; Graves et al. 2006):
// the α and β recursions in log space, one op with its backward. cpp/src/ops/ctc_loss.cpp.
#pragma once
#include <cstdint>
#include <vector>

#include "seqlab/ops/loss.hpp"
#include "seqlab/tensor.hpp"

namespace seqlab {

// log_probs (T, N, C) or unbatched (T, C); targets padded (N, S) or concatenated (Σ target_lengths)
// (unbatched: (S)); one input and one target length per batch element. reduction None gives the
// per-sample loss (N) (unbatched: a scalar); Mean divides each loss by its target length (at least 1)
// and averages, as torch. zero_infinity zeroes infinite losses and their gradients.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const std::vector<int64_t>& input_lengths,
                const std::vector<int64_t>& target_lengths, int64_t blank = 0, Reduction reduction = Reduction::Mean,
                bool zero_infinity = false);

}  // namespace seqlab
