// Tensor: allocation (an xtensor buffer, 64-byte aligned for SIMD), views' metadata, and the
// autograd flags. backward() and retain_grad() live with the engine (cpp/src/autograd/engine.cpp),
// the ops in cpp/src/ops/; this file includes neither.
#include "seqlab/tensor.hpp"
#include "seqlab/default_dtype.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <new>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>
#include <xtensor/xstorage.hpp>


namespace seqlab {

namespace {
std::atomic<Dtype> g_default_float{Dtype::Float32};
}  // namespace

Dtype default_float_dtype() { return g_default_float.load(std::memory_order_relaxed); }
void set_default_float_dtype(Dtype d) { g_default_float.store(d, std::memory_order_relaxed); }

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::Bool: return "bool";
    case Dtype::UInt8: return "uint8";
    case Dtype::Int8: return "int8";
    case Dtype::Int16: return "int16";
    case Dtype::Int32: return "int32";
    case Dtype::Int64: return "int64";
    case Dtype::Float16: return "float16";
    case Dtype::BFloat16: return "bfloat16";
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
    // Overflows only for an empty tensor with huge other dims ([0, 2**62, 2**62]): PyTorch refuses those too.
    SEQLAB_CHECK(i == 0 || !__builtin_mul_overflow(s, std::max<int64_t>(shape[i], 1), &s),
                 "Stride calculation overflowed with sizes=", shape_str(shape));
  }
  return strides;
}

// The one checked size computation: every allocation and every view's numel goes through it,
// so that eye(2**32) or zeros(2**40, 2**40) raise instead of wrapping around to a small number.
int64_t shape_numel(const Shape& shape) {
  bool zero = false;
  for (int64_t s : shape) {
    SEQLAB_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", shape_str(shape));
    zero |= s == 0;
  }
  if (zero) return 0;  // [0, 2**62, 2**62] is empty, not an overflow
  int64_t n = 1;
  for (int64_t s : shape)
    SEQLAB_CHECK(!__builtin_mul_overflow(n, s, &n), "Storage size calculation overflowed with sizes=",
                 shape_str(shape));
  return n;
}

// Raised (as Python's MemoryError) when the allocator refuses a tensor's bytes.
class TensorAllocationError final : public std::bad_alloc {
 public:
  explicit TensorAllocationError(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op, bool wrap_scalar) {
  SEQLAB_CHECK_INDEX(ndim > 0 || wrap_scalar, op ? op : "", op ? ": " : "", "Dimension specified as ", dim,
                     " but tensor has no dimensions");
  const int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  SEQLAB_CHECK_INDEX(dim >= lo && dim <= hi, op ? op : "", op ? ": " : "",
                     "Dimension out of range (expected to be in range of [", lo, ", ", hi, "], but got ", dim, ")");
  return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
}

// c10's checked_convert: a number stored into an integer type must lie in its range (NaN never
// does); uint8 also takes [-255, 0), which wraps as two's complement (torch lets `a - b` become
// `a + 255 * b` that way). The type names are the ones torch's message prints.
void check_value_fits(double value, Dtype dtype, const char* op) {
  double lo = 0, hi = 0;
  const char* name = "float";
  switch (dtype) {
    case Dtype::UInt8: lo = -255, hi = 255, name = "uint8_t"; break;
    case Dtype::Int8: lo = -128, hi = 127, name = "int8_t"; break;
    case Dtype::Int16: lo = -32768, hi = 32767, name = "int16_t"; break;
    case Dtype::Int32: lo = -2147483648.0, hi = 2147483647.0, name = "int"; break;
    case Dtype::Int64: break;
    case Dtype::Float32: {
      const bool fits = !std::isfinite(value) || std::fabs(value) <= static_cast<double>(std::numeric_limits<float>::max());
      SEQLAB_CHECK(fits, op, ": value cannot be converted to type float without overflow (got ", value, ")");
      return;
    }
    case Dtype::Float16:
    case Dtype::BFloat16: {
      // the largest finite values: 65504 = (2 - 2^-10)·2^15, (2 - 2^-7)·2^127
      const double max = dtype == Dtype::Float16 ? 65504.0 : 3.3895313892515355e38;
      const bool fits = !std::isfinite(value) || std::fabs(value) <= max;
      SEQLAB_CHECK(fits, op, ": value cannot be converted to type c10::", scalar_type_name(dtype),
                   " without overflow (got ", value, ")");
      return;
    }
    case Dtype::Bool:
    case Dtype::Float64: return;
  }
  const bool fits = dtype == Dtype::Int64 ? value >= -9223372036854775808.0 && value < 9223372036854775808.0  // exact in double
                                          : value >= lo && value <= hi;
  SEQLAB_CHECK(fits, op, ": value cannot be converted to type ", dtype == Dtype::Int64 ? "int64_t" : name,
               " without overflow (got ", value, ")");
}

void assert_no_internal_overlap(const Tensor& t, const char* op) {
  for (int64_t d = 0; d < t.dim(); ++d)
    SEQLAB_CHECK(!(t.strides()[d] == 0 && t.shape()[d] > 1), op,
                 ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
                 "location. Please clone() the tensor before performing the operation.");
}

void check_writable(const Tensor& t, const char* op) {
  SEQLAB_CHECK(!t.impl()->storage->read_only, op,
               ": this tensor shares the memory of a read-only (non-writable) NumPy array, which seqlab does not "
               "write to; clone() the tensor, or pass a writable array (array.copy()) to from_numpy");
}

// The buffer type: xtensor's uninitialised vector with an aligned allocator.
using Buffer = xt::uvector<unsigned char, xsimd::aligned_allocator<unsigned char, 64>>;

Tensor Tensor::empty(const Shape& shape, Dtype dtype) {
  auto impl = std::make_shared<TensorImpl>();
  impl->numel = shape_numel(shape);
  int64_t signed_nbytes = 0;
  SEQLAB_CHECK(!__builtin_mul_overflow(impl->numel, static_cast<int64_t>(itemsize(dtype)), &signed_nbytes),
               "Storage size calculation overflowed with sizes=", shape_str(shape));
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  auto storage = std::make_shared<Storage>();
  const size_t nbytes = static_cast<size_t>(signed_nbytes);
  std::shared_ptr<Buffer> buffer;
  try {
    buffer = std::make_shared<Buffer>(std::max<size_t>(nbytes, 1));
  } catch (const std::bad_alloc&) {
    throw TensorAllocationError(str_cat("seqlab: failed to allocate ", nbytes, " bytes for a ", dtype_name(dtype),
                                        " tensor of shape ", shape_str(shape), " (out of memory)"));
  }
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
  impl->numel = shape_numel(shape);
  // An empty array's strides address nothing; NumPy reports 0 for them, torch contiguous ones.
  impl->strides = impl->numel == 0 ? contiguous_strides(shape) : strides;
  impl->dtype = dtype;
  auto storage = std::make_shared<Storage>();
  storage->data = data;
  storage->nbytes = nbytes;
  storage->owner = std::move(owner);
  impl->storage = std::move(storage);
  return Tensor(std::move(impl));
}

int64_t Tensor::size(int64_t d) const { return impl_->shape[wrap_dim(d, dim(), "size", false)]; }

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
    case Dtype::Float16: return static_cast<T>(static_cast<float>(*static_cast<const Half*>(raw_data())));
    case Dtype::BFloat16: return static_cast<T>(static_cast<float>(*static_cast<const BFloat16*>(raw_data())));
    case Dtype::Int64: return static_cast<T>(*static_cast<const int64_t*>(raw_data()));
    case Dtype::Int32: return static_cast<T>(*static_cast<const int32_t*>(raw_data()));
    case Dtype::Int16: return static_cast<T>(*static_cast<const int16_t*>(raw_data()));
    case Dtype::Int8: return static_cast<T>(*static_cast<const int8_t*>(raw_data()));
    case Dtype::UInt8: return static_cast<T>(*static_cast<const uint8_t*>(raw_data()));
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
