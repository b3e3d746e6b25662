// Views and shape ops (torch.Tensor.view/reshape/permute/...; cat/stack/split). Views share
// storage; their backward maps the gradient back to the base's shape. cpp/src/ops/shape.cpp.
#pragma once
#include <optional>
#include "seqlab/tensor.hpp"
#include "seqlab/autograd.hpp"

namespace seqlab {

Tensor view(const Tensor& x, Shape shape);     // one -1 allowed; error if not viewable
Tensor reshape(const Tensor& x, Shape shape);  // a view when possible, else a copy
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);
Tensor t(const Tensor& x);  // <= 2-D
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, int64_t dim);
Tensor expand(const Tensor& x, const Shape& shape);  // -1 keeps a size
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t stop, int64_t step);  // clamped like Python
Tensor select(const Tensor& x, int64_t dim, int64_t index);
// A view of x's storage with any geometry inside it (torch.as_strided); offset defaults to x's.
Tensor as_strided(const Tensor& x, const Shape& size, const Shape& stride, std::optional<int64_t> storage_offset = {});
Tensor cat(const TensorList& xs, int64_t dim = 0);
Tensor stack(const TensorList& xs, int64_t dim = 0);
TensorList split(const Tensor& x, int64_t split_size, int64_t dim = 0);
TensorList split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim = 0);
TensorList chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);

// Broadcast shape of two shapes (NumPy rules) or throw naming `op`.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace seqlab
