// Tensor: allocation (an xtensor buffer, 64-byte aligned for SIMD), views' metadata, and the
// autograd flags. backward() and retain_grad() live with the engine (cpp/src/autograd/engine.cpp),
// the ops in cpp/src/ops/; this file includes neither.
#include "seqlab/tensor.hpp"

#include <algorithm>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>
#include <xtensor/xstorage.hpp>


namespace seqlab {

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::Bool: return "bool";
    case Dtype::Int64: return "int64";
    case Dtype::Float32: return "float32";
    case Dtype::Float64: return "float64";
  }
  return "?";
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(shape[i], 1);
  }
  return strides;
}

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  SEQLAB_CHECK_INDEX(dim >= lo && dim <= hi, op ? op : "", op ? ": " : "",
                     "Dimension out of range (expected to be in range of [", lo, ", ", hi, "], but got ", dim, ")");
  return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
}

// The buffer type: xtensor's uninitialised vector with an aligned allocator.
using Buffer = xt::uvector<unsigned char, xsimd::aligned_allocator<unsigned char, 64>>;

Tensor Tensor::empty(const Shape& shape, Dtype dtype) {
  for (int64_t s : shape)
    SEQLAB_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", shape_str(shape));
  auto impl = std::make_shared<TensorImpl>();
  impl->numel = shape_numel(shape);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  auto storage = std::make_shared<Storage>();
  const size_t nbytes = static_cast<size_t>(impl->numel) * itemsize(dtype);
  auto buffer = std::make_shared<Buffer>(std::max<size_t>(nbytes, 1));
  storage->data = buffer->data();
  storage->nbytes = nbytes;
  storage->owner = std::move(buffer);
  impl->storage = std::move(storage);
  return Tensor(std::move(impl));
}

Tensor Tensor::from_blob(void* data, const Shape& shape, const Shape& strides, Dtype dtype,
                         std::shared_ptr<void> owner, size_t nbytes) {
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = shape;
  impl->strides = strides;
  impl->numel = shape_numel(shape);
  impl->dtype = dtype;
  auto storage = std::make_shared<Storage>();
  storage->data = data;
  storage->nbytes = nbytes;
  storage->owner = std::move(owner);
  impl->storage = std::move(storage);
  return Tensor(std::move(impl));
}

int64_t Tensor::size(int64_t d) const { return impl_->shape[wrap_dim(d, dim(), "size")]; }

bool Tensor::is_contiguous() const {
  if (impl_->numel == 0) return true;  // as PyTorch: no element is out of place
  int64_t expected = 1;
  const auto& sh = impl_->shape;
  const auto& st = impl_->strides;
  for (size_t i = sh.size(); i-- > 0;) {
    if (sh[i] == 1) continue;
    if (st[i] != expected) return false;
    expected *= sh[i];
  }
  return true;
}

template <typename T>
T Tensor::item() const {
  SEQLAB_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  return dispatch_value<T>();
}

template <typename T>
T Tensor::dispatch_value() const {
  switch (dtype()) {
    case Dtype::Float32: return static_cast<T>(*static_cast<const float*>(raw_data()));
    case Dtype::Float64: return static_cast<T>(*static_cast<const double*>(raw_data()));
    case Dtype::Int64: return static_cast<T>(*static_cast<const int64_t*>(raw_data()));
    case Dtype::Bool: return static_cast<T>(*static_cast<const bool*>(raw_data()));
  }
  return T{};
}
template double Tensor::item<double>() const;
template float Tensor::item<float>() const;
template int64_t Tensor::item<int64_t>() const;
template bool Tensor::item<bool>() const;

Tensor& Tensor::set_requires_grad(bool value) {
  SEQLAB_CHECK(is_leaf() || value,
               "you can only change requires_grad flags of leaf variables. If you want to use a computed "
               "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  SEQLAB_CHECK(!value || is_floating(dtype()),
               "only Tensors of floating point dtype can require gradients (got ", dtype_name(dtype()), ")");
  impl_->requires_grad = value;
  return *this;
}

Tensor Tensor::detach() const {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = impl_->storage;
  impl->offset = impl_->offset;
  impl->shape = impl_->shape;
  impl->strides = impl_->strides;
  impl->numel = impl_->numel;
  impl->dtype = impl_->dtype;
  impl->is_view = impl_->is_view;
  return Tensor(std::move(impl));
}

std::string Tensor::repr() const {
  if (!defined()) return "Tensor(undefined)";
  return str_cat("Tensor(shape=", shape_str(shape()), ", dtype=", dtype_name(dtype()), ")");
}

}  // namespace seqlab
