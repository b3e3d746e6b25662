// Creation ops without randomness: zeros, ones, full, arange, eye and the *_like forms, as
// torch.zeros/... (https://pytorch.org/docs/stable/torch.html#creation-ops).
// Tests: tests/test_creation.py.
#include "seqlab/ops/creation.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernel_utils.hpp"

namespace seqlab {

Tensor zeros(const Shape& shape, Dtype dtype) { return full(shape, 0.0, dtype); }
Tensor ones(const Shape& shape, Dtype dtype) { return full(shape, 1.0, dtype); }

Tensor full(const Shape& shape, double value, Dtype dtype) {
  check_value_fits(value, dtype, "full");
  Tensor t = Tensor::empty(shape, dtype);
  if (t.numel() == 0) return t;
  if (value == 0.0 && !std::signbit(value)) {  // (-0.0 keeps its sign, as torch's fill)
    std::memset(t.raw_data(), 0, static_cast<size_t>(t.numel()) * itemsize(dtype));
    return t;
  }
  dispatch_copy(dtype, [&](auto tag) {  // one converted value, copied: no arithmetic in T
    using T = decltype(tag);
    std::fill(t.data<T>(), t.data<T>() + t.numel(), convert<T>(value));
  });
  return t;
}

Tensor arange(double start, double end, double step, Dtype dtype) {
  SEQLAB_CHECK(step != 0, "arange: step must be nonzero");
  SEQLAB_CHECK((step > 0 && end >= start) || (step < 0 && end <= start),
                     "arange: upper bound and larger bound inconsistent with step sign");
  const int64_t n = static_cast<int64_t>(std::ceil((end - start) / step));
  Tensor t = Tensor::empty({n}, dtype);
  dispatch_copy(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(start + static_cast<double>(i) * step);  // (wraps, as torch)
  });
  return t;
}

Tensor eye(int64_t n, int64_t m, Dtype dtype) {
  SEQLAB_CHECK(n >= 0 && m >= 0, "eye: n and m must be non-negative, got ", n, " and ", m);
  Tensor t = zeros({n, m}, dtype);
  dispatch_copy(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < std::min(n, m); ++i) t.data<T>()[i * m + i] = T(1);
  });
  return t;
}

Tensor empty_like(const Tensor& x) { return Tensor::empty(x.shape(), x.dtype()); }
Tensor zeros_like(const Tensor& x) { return zeros(x.shape(), x.dtype()); }
Tensor ones_like(const Tensor& x) { return ones(x.shape(), x.dtype()); }
Tensor full_like(const Tensor& x, double value) { return full(x.shape(), value, x.dtype()); }

}  // namespace seqlab
