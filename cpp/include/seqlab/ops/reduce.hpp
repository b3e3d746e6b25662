// Reductions over dims with keepdim, as torch.sum/mean/max/min/argmax/var and
// torch.linalg.vector_norm. cpp/src/ops/reduce.cpp.
#pragma once
#include <optional>
#include <utility>
#include "seqlab/tensor.hpp"

namespace seqlab {

// dims empty = all dims.
Tensor sum(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const std::vector<int64_t>& dims = {}, bool keepdim = false);
Tensor var(const Tensor& x, const std::vector<int64_t>& dims = {}, double correction = 1.0,
           bool keepdim = false);
// The vector norm over dims, torch.linalg.vector_norm: (Σ|x|^ord)^(1/ord); ord = ±inf gives
// max/min |x| and ord = 0 the number of non-zeros. `dtype` (a float dtype no narrower than x's)
// converts x first, as torch's does.
Tensor vector_norm(const Tensor& x, double ord = 2.0, const std::vector<int64_t>& dims = {}, bool keepdim = false,
                   std::optional<Dtype> dtype = std::nullopt);
// Reduce to `shape` by summing broadcast dims: the backward of broadcasting.
Tensor sum_to(const Tensor& x, const Shape& shape);

// Full reductions (0-d); the gradient is shared evenly among ties, as in PyTorch.
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
// Along a dim: (values, indices).
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

}  // namespace seqlab
