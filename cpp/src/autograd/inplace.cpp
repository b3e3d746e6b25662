// In-place ops under autograd: PyTorch's checks for in-place writes, and how an in-place
// op on a tensor in the graph is recorded (rebase_history; CopySlices for views).
// Follows torch/csrc/autograd/VariableTypeUtils.h (check_inplace) and variable.cpp
// (rebase_history). Tests: tests/test_autograd.py ("in place").
#include "ops_used.hpp"

namespace seqlab {

void check_inplace(const Tensor& t, const char* op) {
  check_writable(t, op);
  if (!GradMode::is_enabled()) return;
  SEQLAB_CHECK(!(t.is_leaf() && t.requires_grad()),
               "a leaf Variable that requires grad is being used in an in-place operation (", op, ").");
}

namespace {

// Flat positions, in a contiguous base, of the elements of a view of it.
Tensor view_positions(const Tensor& view, const Tensor& base) {
  Tensor pos = Tensor::empty(view.shape(), Dtype::Int64);
  int64_t* p = pos.data<int64_t>();
  const int64_t nd = view.dim();
  std::vector<int64_t> idx(nd, 0);
  for (int64_t e = 0; e < view.numel(); ++e) {
    int64_t off = view.offset() - base.offset();
    for (int64_t d = 0; d < nd; ++d) off += idx[d] * view.strides()[d];
    p[e] = off;
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < view.shape()[d]) break;
      idx[d] = 0;
    }
  }
  return pos;
}

}  // namespace

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
    const Tensor flat_pos = reshape(view_positions(self, base), {-1});
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
