// In-place ops under autograd: PyTorch's checks for in-place writes, and how an in-place
// op on a tensor in the graph is recorded (rebase_history; CopySlices for views).
// Follows torch/csrc/autograd/VariableTypeUtils.h (check_inplace) and variable.cpp
// (rebase_history). Tests: tests/test_autograd.py ("in place").
#include "ops_used.hpp"
#include "positions.hpp"

namespace seqlab {

void check_inplace(const Tensor& t, const char* op) {
  check_writable(t, op);
  if (!GradMode::is_enabled()) return;
  SEQLAB_CHECK(!(t.is_leaf() && t.requires_grad()),
               "a leaf Variable that requires grad is being used in an in-place operation (", op, ").");
}

Tensor strided_positions(const Shape& shape, const Shape& strides, int64_t offset) {
  Tensor pos = Tensor::empty({shape_numel(shape)}, Dtype::Int64);
  int64_t* p = pos.data<int64_t>();
  const int64_t nd = static_cast<int64_t>(shape.size()), n = pos.numel();
  std::vector<int64_t> idx(nd, 0);
  int64_t at = offset;
  for (int64_t e = 0; e < n; ++e) {
    p[e] = at;
    for (int64_t d = nd - 1; d >= 0; --d) {  // odometer: next index, keeping `at` in step
      at += strides[d];
      if (++idx[d] < shape[d]) break;
      at -= idx[d] * strides[d];
      idx[d] = 0;
    }
  }
  return pos;
}

// Give `self` the history of `result` (same shape), writing result's values into self's
// storage: how an in-place op on a tensor in the graph is recorded.
void rebase_history(Tensor& self, const Tensor& result, const char* op) {
  SEQLAB_CHECK(result.shape() == self.shape(), op, ": output with shape ", shape_str(self.shape()),
               " doesn't match the broadcast shape ", shape_str(result.shape()));
  if (self.impl()->is_view && self.impl()->view_base) {
    // An in-place op on a view (PyTorch's CopySlices): the base becomes
    // index_put(base, positions of the view, result), and the view is re-read from it.
    Tensor base(self.impl()->view_base);
    SEQLAB_CHECK(!(base.is_leaf() && base.requires_grad()),
                 "a view of a leaf Variable that requires grad is being used in an in-place operation (", op, ").");
    SEQLAB_CHECK(base.is_contiguous() && !base.impl()->is_view, op,
                 ": in-place operation on a view of a non-contiguous tensor that requires grad is not supported by "
                 "seqlab; use the out-of-place form");
    // flat positions, in the contiguous base, of the view's elements
    const Tensor flat_pos = strided_positions(self.shape(), self.strides(), self.offset() - base.offset());
    Tensor base_new =
        reshape(index_put(reshape(base, {-1}), {flat_pos}, reshape(result, {-1}), false), base.shape());
    rebase_history(base, base_new, op);
    Tensor reread = reshape(index(reshape(base, {-1}), {flat_pos}), self.shape());
    self.impl()->grad_fn = reread.grad_fn();
    self.impl()->output_nr = reread.impl()->output_nr;
    self.impl()->requires_grad = false;
    return;
  }
  {
    NoGradGuard no_grad;  // a plain copy of the values (it bumps the version)
    copy_(self, result);
  }
  self.impl()->grad_fn = result.grad_fn();
  self.impl()->output_nr = result.impl()->output_nr;
  self.impl()->requires_grad = false;
}

}  // namespace seqlab
