// Tensor: a handle to a TensorImpl = storage + shape + strides + dtype + autograd metadata.
// Follows torch.Tensor (https://pytorch.org/docs/stable/tensors.html): views share storage
// (and its version counter), copies do not. xtensor owns the memory but never appears here:
// ops see raw pointers and strides (cpp/src/ops/*.cpp). Tests: cpp/tests/test_tensor.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "seqlab/check.hpp"
#include "seqlab/dtype.hpp"

namespace seqlab {

using Shape = std::vector<int64_t>;
class Node;
struct LeafHooks;  // a leaf's Tensor.register_hook hooks (autograd.hpp)

// A flat buffer. `owner` keeps the memory alive: an xtensor buffer for tensors seqlab
// allocates, a NumPy array or a DLPack capsule for tensors that borrow memory.
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  std::shared_ptr<void> owner;
  // Bumped by every in-place write through any view; saved tensors compare it at backward.
  uint32_t version = 0;
  // Borrowed memory its owner does not let us write (a non-writable NumPy array, which may be a
  // read-only memory map: writing would crash the process). check_writable refuses writes.
  bool read_only = false;
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  int64_t offset = 0;  // in elements
  Shape shape;
  Shape strides;       // in elements
  int64_t numel = 0;
  Dtype dtype = Dtype::Float32;
  // A Python number made a 0-d tensor for an op (torch's wrapped number): the lowest tier of the
  // result type, so `int8 0-d tensor + 1000` stays int8 (see result_type in ops/elementwise.cpp).
  bool is_wrapped_number = false;

  // --- autograd metadata (see autograd.hpp) ---
  bool requires_grad = false;  // the user's flag on a leaf; non-leaves have grad_fn instead
  bool retains_grad = false;
  bool is_view = false;
  std::shared_ptr<TensorImpl> view_base;  // the tensor a view was taken from (for in-place autograd)
  std::shared_ptr<Node> grad_fn;  // the node that produced this tensor (null for leaves)
  uint32_t output_nr = 0;         // which output of grad_fn this is
  std::shared_ptr<TensorImpl> grad;
  std::weak_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad node, shared by all uses
  std::shared_ptr<LeafHooks> hooks;      // a leaf's register_hook hooks (a non-leaf's live on its grad_fn)
};

Shape contiguous_strides(const Shape& shape);
int64_t shape_numel(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A new, uninitialised, contiguous tensor.
  static Tensor empty(const Shape& shape, Dtype dtype = Dtype::Float32);
  // A tensor over memory someone else owns (NumPy, DLPack); strides in elements.
  static Tensor from_blob(void* data, const Shape& shape, const Shape& strides, Dtype dtype,
                          std::shared_ptr<void> owner, size_t nbytes);

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  const Shape& shape() const { return impl_->shape; }
  const Shape& strides() const { return impl_->strides; }
  int64_t dim() const { return static_cast<int64_t>(impl_->shape.size()); }
  int64_t numel() const { return impl_->numel; }
  int64_t size(int64_t d) const;  // negative d counts from the end
  Dtype dtype() const { return impl_->dtype; }
  int64_t offset() const { return impl_->offset; }
  bool is_contiguous() const;

  void* raw_data() const {
    return static_cast<char*>(impl_->storage->data) + impl_->offset * itemsize(impl_->dtype);
  }
  template <typename T>
  T* data() const {
    SEQLAB_CHECK_TYPE(dtype_of<T>() == impl_->dtype, "expected dtype ", dtype_name(dtype_of<T>()),
                      " but tensor has dtype ", dtype_name(impl_->dtype));
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  T item() const;  // the value of a one-element tensor, converted to T

  // --- autograd ---
  bool requires_grad() const { return impl_->requires_grad || impl_->grad_fn != nullptr; }
  Tensor& set_requires_grad(bool value);  // leaves only, floating dtypes only
  bool is_leaf() const { return impl_->grad_fn == nullptr; }
  const std::shared_ptr<Node>& grad_fn() const { return impl_->grad_fn; }
  Tensor grad() const { return Tensor(impl_->grad); }
  void set_grad(const Tensor& g) { impl_->grad = g.impl_; }
  void retain_grad();
  // Reverse-mode sweep from this tensor; `gradient` may be omitted for a one-element tensor.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false) const;
  // Same data, no history (shares storage and its version counter).
  Tensor detach() const;
  uint32_t version() const { return impl_->storage->version; }
  void bump_version() const { ++impl_->storage->version; }

  std::string repr() const;  // a short description: "Tensor(shape=[2, 3], dtype=float32)"

 private:
  template <typename T>
  T dispatch_value() const;
  std::shared_ptr<TensorImpl> impl_;
};

// A Python number stored into a tensor of `dtype` must fit, as PyTorch requires ("value
// cannot be converted to type int64_t without overflow"): integers take finite values in
// range, float32 takes finite values up to FLT_MAX (inf and nan stay inf and nan).
void check_value_fits(double value, Dtype dtype, const char* op);

// In-place writes to a tensor in which two elements share memory (an expanded tensor: a
// stride 0 over a dim of size > 1) would give an order-dependent result; PyTorch refuses them
// (at::assert_no_internal_overlap) in every in-place op that computes its output elementwise.
void assert_no_internal_overlap(const Tensor& t, const char* op);

// Every in-place write checks first that its target's memory may be written (Storage::read_only):
// check_inplace (autograd.hpp) does it for the in-place ops, and writers that do not pass through
// it (scatter_add_, index_put_, the optimizers' updates, clip_grad_norm_) call it themselves.
void check_writable(const Tensor& t, const char* op);

// Normalise a dim in [-ndim, ndim) to [0, ndim), or throw IndexError as PyTorch does
// (c10::maybe_wrap_dim). A 0-d tensor takes dim 0 or -1 only in ops that treat it as one
// element along that dim (sum, softmax, index_select, ...: wrap_scalar); ops that read the
// dim's size or stride (size, stride, unbind) pass wrap_scalar = false and raise PyTorch's
// "Dimension specified as 0 but tensor has no dimensions". Ops that need a real dim
// (narrow, chunk, split) refuse 0-d input before wrapping.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op = nullptr, bool wrap_scalar = true);

}  // namespace seqlab
