// Lookup of rows by index, fused with a hand-written backward: torch.nn.functional.embedding.
// cpp/src/ops/embedding.cpp.
#pragma once
#include <optional>
#include "seqlab/tensor.hpp"

namespace seqlab {

// out[..., :] = weight[index[...], :]; the row padding_idx gets no gradient.
Tensor embedding(const Tensor& index, const Tensor& weight, std::optional<int64_t> padding_idx = std::nullopt);

}  // namespace seqlab
