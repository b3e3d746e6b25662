// Storage positions of a strided geometry, in row-major order of its elements: what CopySlices
// (an in-place op on a view, inplace.cpp) and as_strided's backward (ops/shape.cpp) index by.
// Defined in cpp/src/autograd/inplace.cpp.
#pragma once
#include "seqlab/tensor.hpp"

namespace seqlab {

// A flat int64 tensor of offset + Σ_k i_k · strides[k] for every index i of `shape`.
Tensor strided_positions(const Shape& shape, const Shape& strides, int64_t offset);

}  // namespace seqlab
