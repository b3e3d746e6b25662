// Gathering and masking: advanced indexing (x[idx], x[i, j]), index_put, gather,
// index_select, masked_fill, triu/tril. cpp/src/ops/index.cpp. Scattering: ops/scatter.hpp.
#pragma once
#include <optional>
#include "seqlab/tensor.hpp"
#include "seqlab/autograd.hpp"

namespace seqlab {

// x[indices...] with int64 index tensors in some dims (undefined = whole dim), NumPy's
// advanced-indexing rules: adjacent indexed dims stay in place, otherwise they go first.
Tensor index(const Tensor& x, const TensorList& indices);
// x[indices...] = values (accumulate adds instead), in place.
Tensor& index_put_(Tensor& x, const TensorList& indices, const Tensor& values, bool accumulate = false);
// The out-of-place, differentiable twin (what x[idx] = v records under autograd).
Tensor index_put(const Tensor& x, const TensorList& indices, const Tensor& values, bool accumulate = false);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);
Tensor& masked_fill_(Tensor& x, const Tensor& mask, double value);
Tensor nonzero(const Tensor& x);  // (n, ndim) int64
Tensor triu(const Tensor& x, int64_t diagonal = 0);
Tensor tril(const Tensor& x, int64_t diagonal = 0);

}  // namespace seqlab
