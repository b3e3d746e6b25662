// Creation ops without randomness (torch.zeros, ones, full, arange, eye, *_like): new,
// contiguous tensors that require no grad. cpp/src/ops/creation.cpp; random ones: random.hpp.
#pragma once
#include "seqlab/tensor.hpp"

namespace seqlab {

Tensor zeros(const Shape& shape, Dtype dtype = Dtype::Float32);
Tensor ones(const Shape& shape, Dtype dtype = Dtype::Float32);
Tensor full(const Shape& shape, double value, Dtype dtype = Dtype::Float32);
// start, start + step, ... while < end (> end for a negative step).
Tensor arange(double start, double end, double step, Dtype dtype);
// (n, m) with ones on the diagonal.
Tensor eye(int64_t n, int64_t m, Dtype dtype = Dtype::Float32);
// Same shape and dtype as x.
Tensor empty_like(const Tensor& x);
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
Tensor full_like(const Tensor& x, double value);

}  // namespace seqlab
