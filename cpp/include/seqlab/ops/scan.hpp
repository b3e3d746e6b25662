// Cumulative sums and products along one dim (torch.cumsum, torch.cumprod) and the product over a
// dim or all (torch.prod), with backward.
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
// Π x along dim, or over every element without dim (keepdim keeps the reduced dims as size 1);
// the same dtype rule. The gradient is exact with zeros in x, as torch's.
Tensor prod(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
            std::optional<Dtype> dtype = std::nullopt);

}  // namespace seqlab
