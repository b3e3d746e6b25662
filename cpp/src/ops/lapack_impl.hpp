// What the LAPACK-backed ops share (lapack_linalg.cpp, lapack_decomp.cpp): torch's input checks
// and the column-major (F-contiguous) working copies LAPACK reads and writes in place.
#pragma once
#include <algorithm>
#include <climits>

#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/lapack_linalg.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::lapack_ops {

// torch's checks, in its words: "linalg.det: The input tensor A must have at least 2 dimensions."
inline void check_matrix(const Tensor& A, const char* op, const char* name = "A") {
  SEQLAB_CHECK(A.dim() >= 2, op, ": The input tensor ", name, " must have at least 2 dimensions.");
  SEQLAB_CHECK(is_floating(A.dtype()), op, ": Expected a floating point or complex tensor as input. Got ",
               scalar_type_name(A.dtype()));
}
inline void check_square(const Tensor& A, const char* op) {
  check_matrix(A, op);
  SEQLAB_CHECK(A.size(-1) == A.size(-2), op, ": A must be batches of square matrices, but they are ", A.size(-2),
               " by ", A.size(-1), " matrices");
}
// LAPACK counts in 32-bit ints (the "32" of scipy-openblas32).
inline int lapack_int(int64_t v, const char* op) {
  SEQLAB_CHECK(v <= INT_MAX, op, ": a matrix dimension of ", v, " is more than LAPACK's 32-bit indices hold");
  return static_cast<int>(v);
}

inline Shape batch_shape(const Tensor& A) { return Shape(A.shape().begin(), A.shape().end() - 2); }
inline Shape with_matrix(Shape batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}
inline Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }

// torch prefixes a batched input's error with the failing matrix's index.
inline std::string batch_prefix(bool batched, int64_t b) {
  return batched ? str_cat("(Batch element ", b, "): ") : std::string();
}

// A new (..., rows, cols) tensor whose matrices are column-major (strides (1, rows)), one after
// another: what LAPACK works on, and what torch returns from its factorizations. Not a view.
inline Tensor empty_fortran(const Shape& shape, Dtype dtype) {
  const size_t nd = shape.size();
  Shape swapped = shape;
  std::swap(swapped[nd - 1], swapped[nd - 2]);
  Tensor buf = Tensor::empty(swapped, dtype);
  auto impl = std::make_shared<TensorImpl>(*buf.impl());
  std::swap(impl->shape[nd - 1], impl->shape[nd - 2]);
  std::swap(impl->strides[nd - 1], impl->strides[nd - 2]);
  return Tensor(impl);
}
// A's values in an empty_fortran tensor, without history.
inline Tensor fortran_copy(const Tensor& A) {
  Tensor out = empty_fortran(A.shape(), A.dtype());
  NoGradGuard no_grad;
  copy_(out, A.detach());
  return out;
}

}  // namespace seqlab::lapack_ops
