// Cumulative sums and products along one dim (torch.cumsum, torch.cumprod), with backward.
// cpp/src/ops/scan.cpp; tests: tests/test_scan.py.
#pragma once
#include <cstdint>
#include <optional>

#include "seqlab/tensor.hpp"

namespace seqlab {

// y_i = x_0 + ... + x_i along dim. dtype: cast x first (torch's dtype=); without it integers
// and bools give int64, floats keep their dtype.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
// y_i = x_0 · ... · x_i along dim; the same dtype rule.
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = std::nullopt);

}  // namespace seqlab
