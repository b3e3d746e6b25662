// The copies that record a graph: to_dtype, clone, contiguous, copy_, fill_. Their kernels, which
// record nothing, are in the base layer (cpp/src/tensor_copy.cpp: copy_kernel, contiguous_copy).
// Tests: tests/test_elementwise.py, tests/test_int_dtypes.py, tests/test_vector_kernels.py.
#include "autograd/ops_used.hpp"  // declares clone, copy_, ... for autograd/
#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

// dx = g converted back to x's dtype
Tensor to_dtype(const Tensor& x, Dtype dtype) {
  if (x.dtype() == dtype) return x;
  Tensor out = Tensor::empty(x.shape(), dtype);
  copy_kernel(out, x);
  if (is_floating(dtype) && any_requires_grad({x}))
    attach(out, "ToCopyBackward0", {x}, [d = x.dtype()](const Tensor& g) -> TensorList { return {to_dtype(g, d)}; });
  return out;
}

// dx = g
Tensor clone(const Tensor& x) {
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  copy_kernel(out, x);
  if (any_requires_grad({x})) attach(out, "CloneBackward0", {x}, [](const Tensor& g) -> TensorList { return {g}; });
  return out;
}

Tensor contiguous(const Tensor& x) { return x.is_contiguous() ? x : clone(x); }

// ---------------------------------------------------------------- copy_, fill_ (in place)
// (check_inplace and rebase_history, which record an in-place op under autograd: cpp/src/autograd/inplace.cpp)
Tensor& copy_(Tensor& dst, const Tensor& src) {
  check_inplace(dst, "copy_");
  assert_no_internal_overlap(dst, "copy_");
  broadcast_shapes(dst.shape(), src.shape(), "copy_");
  SEQLAB_CHECK(broadcast_shapes(dst.shape(), src.shape(), "copy_") == dst.shape(), "copy_: source of shape ",
               shape_str(src.shape()), " cannot be broadcast to destination of shape ", shape_str(dst.shape()));
  if (any_requires_grad({src}) || (GradMode::is_enabled() && dst.requires_grad())) {
    // dsrc = g summed to src's shape (expand's backward); dst's old value gets no gradient
    Tensor result = expand(to_dtype(src, dst.dtype()), dst.shape());
    rebase_history(dst, result, "copy_");
    return dst;
  }
  copy_kernel(dst, src);
  dst.bump_version();
  return dst;
}

Tensor& fill_(Tensor& dst, double value) {
  check_inplace(dst, "fill_");
  check_value_fits(value, dst.dtype(), "fill_");
  if (GradMode::is_enabled() && dst.requires_grad()) {
    // A constant now: no gradient flows to the old values (nor, for a view, to that region of the base).
    rebase_history(dst, expand(scalar_tensor(value, dst.dtype()), dst.shape()), "fill_");
    return dst;
  }
  copy_kernel(dst, scalar_tensor(value, dst.dtype()));
  dst.bump_version();
  return dst;
}

Tensor& zero_(Tensor& dst) { return fill_(dst, 0.0); }
}  // namespace seqlab
