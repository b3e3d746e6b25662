// cumsum, cumprod and prod (a product is a cumprod's last element): one pass along `dim` per
// (outer, inner) position of a contiguous copy, accumulating floats in double as torch's CPU kernels
// do for the scans (so float32 results are torch's rounding of the exact running sum, not of
// float32 partial sums). Tests: tests/test_scan.py, tests/test_int_ops.py (prod).
#include "seqlab/ops/scan.hpp"

#include <type_traits>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"

namespace seqlab {

namespace {

// x as (outer, n, inner) around dim: element (o, i, k) is at (o * n + i) * inner + k.
struct Lanes {
  int64_t outer = 1, n = 1, inner = 1;
};

Lanes lanes(const Shape& shape, int64_t dim) {
  Lanes l;
  if (shape.empty()) return l;  // a 0-d tensor is one lane of one element
  for (int64_t d = 0; d < dim; ++d) l.outer *= shape[d];
  l.n = shape[dim];
  for (size_t d = dim + 1; d < shape.size(); ++d) l.inner *= shape[d];
  return l;
}

// out_i = combine(acc, x_i) running forward (reverse = false) or backward along each lane.
template <typename T, typename Acc, typename Combine>
void scan_kernel(const T* x, T* out, const Lanes& l, bool reverse, Acc init, Combine combine) {
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t k = 0; k < l.inner; ++k) {
      Acc acc = init;
      for (int64_t j = 0; j < l.n; ++j) {
        const int64_t i = reverse ? l.n - 1 - j : j;
        const int64_t at = (o * l.n + i) * l.inner + k;
        acc = combine(acc, x[at]);
        out[at] = static_cast<T>(acc);
      }
    }
}

Dtype scan_dtype(const Tensor& x, std::optional<Dtype> dtype, const char* kernel) {
  SEQLAB_CHECK_IMPL(dtype != Dtype::Bool, "\"", kernel, "\" not implemented for 'Bool'");
  if (dtype) return *dtype;
  return is_floating(x.dtype()) ? x.dtype() : Dtype::Int64;  // torch: integral inputs sum in int64
}

template <typename T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

// out_i = fold(out_{i-1}, x_i) along each lane (from the end with reverse), from `identity`, in
// acc_t (double for floats: torch's CPU scans accumulate in double too).
template <typename Fold>
Tensor running_fold(const Tensor& xc, const Lanes& l, bool reverse, int identity, const char* name, Fold fold) {
  Tensor out = Tensor::empty(xc.shape(), xc.dtype());
  dispatch_arith(xc.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    scan_kernel<T>(xc.data<T>(), out.data<T>(), l, reverse, acc_t<T>(identity),
                   [&](acc_t<T> a, T v) { return fold(a, static_cast<acc_t<T>>(v)); });
  });
  return out;
}

// The running sum in either direction. Its backward is the running sum the other way:
// y_i = Σ_{j<=i} x_j  =>  dx_j = Σ_{i>=j} g_i.
Tensor cumsum_dir(const Tensor& x, int64_t dim, bool reverse) {
  Tensor out = running_fold(contiguous(x), lanes(x.shape(), dim), reverse, 0, "cumsum",
                            [](auto a, auto v) { return wrap_add(a, v); });
  if (any_requires_grad({x}))
    attach(out, "CumsumBackward0", {x}, [dim, reverse](const Tensor& g) -> TensorList {
      return {cumsum_dir(g, dim, !reverse)};
    });
  return out;
}

// dL/dx of y = cumprod(x) along each lane (torch's cumprod_backward, first order):
//   y_i = Π_{m<=i} x_m.  Before the first zero z of the lane, dx_j = Σ_{i>=j} g_i y_i / x_j;
//   at z, dx_z = Σ_{i>=z} g_i Π_{m<=i, m!=z} x_m = y_{z-1} · Σ_{i>=z} g_i Π_{z<m<=i} x_m;
//   after z every product holds x_z = 0, so dx_j = 0.
template <typename T>
void cumprod_backward_kernel(const T* x, const T* y, const T* g, T* dx, const Lanes& l) {
  using A = acc_t<T>;
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t k = 0; k < l.inner; ++k) {
      auto at = [&](int64_t i) { return (o * l.n + i) * l.inner + k; };
      int64_t z = l.n;
      for (int64_t i = 0; i < l.n; ++i)
        if (x[at(i)] == T(0)) {
          z = i;
          break;
        }
      A tail = 0;  // Σ_{i>=j} g_i y_i, built from the end; terms with i >= z are 0 (y_i = 0)
      for (int64_t j = l.n - 1; j >= 0; --j) {
        if (j > z) {
          dx[at(j)] = T(0);
        } else if (j == z) {
          A sum = 0, prod = 1;  // Σ_{i>=z} g_i Π_{z<m<=i} x_m
          for (int64_t i = z; i < l.n; ++i) {
            if (i > z) prod *= x[at(i)];
            sum += A(g[at(i)]) * prod;
          }
          dx[at(j)] = static_cast<T>((z > 0 ? A(y[at(z - 1)]) : A(1)) * sum);
        } else {
          tail += A(g[at(j)]) * A(y[at(j)]);
          dx[at(j)] = static_cast<T>(tail / A(x[at(j)]));
        }
      }
    }
}

// out = Π_i x_i along each lane (integers wrap as torch's).
template <typename T, typename O>
void prod_kernel(const T* x, O* out, const Lanes& l) {
  using A = std::conditional_t<std::is_floating_point_v<O>, double, O>;
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t k = 0; k < l.inner; ++k) {
      A acc = 1;
      for (int64_t i = 0; i < l.n; ++i) acc = wrap_mul(acc, static_cast<A>(x[(o * l.n + i) * l.inner + k]));
      out[o * l.inner + k] = static_cast<O>(acc);
    }
}

// y = Π_i x_i   =>   dx_j = g Π_{i != j} x_i = g (Π_{i<j} x_i)(Π_{i>j} x_i)
// The products left and right of j, not y / x_j: exact where x has zeros (one zero: only its own
// gradient is non-zero; two: every gradient is 0), as torch's prod_backward.
template <typename T>
void prod_backward_kernel(const T* x, const T* g, T* dx, const Lanes& l) {
  using A = acc_t<T>;
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t k = 0; k < l.inner; ++k) {
      auto at = [&](int64_t i) { return (o * l.n + i) * l.inner + k; };
      const A gk = A(g[o * l.inner + k]);
      A left = 1;
      for (int64_t i = 0; i < l.n; ++i) {  // dx_i = Π_{m<i} x_m, then times the right products
        dx[at(i)] = static_cast<T>(left);
        left *= A(x[at(i)]);
      }
      A right = 1;
      for (int64_t i = l.n - 1; i >= 0; --i) {
        dx[at(i)] = static_cast<T>(gk * A(dx[at(i)]) * right);
        right *= A(x[at(i)]);
      }
    }
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim_in, std::optional<Dtype> dtype) {
  const int64_t dim = wrap_dim(dim_in, x.dim(), "cumsum");
  const Dtype out = scan_dtype(x, dtype, "cumsum_out_cpu");
  return cumsum_dir(x.dtype() == out ? x : to_dtype(x, out), dim, false);
}

Tensor cumprod(const Tensor& x_in, int64_t dim_in, std::optional<Dtype> dtype) {
  const int64_t dim = wrap_dim(dim_in, x_in.dim(), "cumprod");
  const Dtype out_dtype = scan_dtype(x_in, dtype, "cumprod_out_cpu");
  const Tensor x = x_in.dtype() == out_dtype ? x_in : to_dtype(x_in, out_dtype);
  const Tensor xc = contiguous(x);
  const Lanes l = lanes(x.shape(), dim);
  Tensor out = running_fold(xc, l, false, 1, "cumprod", [](auto a, auto v) { return wrap_mul(a, v); });
  if (any_requires_grad({x}))
    attach(out, "CumprodBackward0", {x}, [x_ = save(xc), y_ = save(out), l](const Tensor& g) -> TensorList {
      const Tensor xs = x_.unpack(), ys = y_.unpack(), gc = contiguous(g);
      Tensor dx = Tensor::empty(xs.shape(), xs.dtype());
      dispatch_float(xs.dtype(), "cumprod_backward", [&](auto tag) {
        using T = decltype(tag);
        cumprod_backward_kernel<T>(xs.data<T>(), ys.data<T>(), gc.data<T>(), dx.data<T>(), l);
      });
      return {dx};
    });
  return out;
}

// out = Π x over dim (all elements when dim is absent). dtype: cast x first; without it integers
// and bools give int64 (torch's rule, as sum's), floats keep theirs.
Tensor prod(const Tensor& x_in, std::optional<int64_t> dim_in, bool keepdim, std::optional<Dtype> dtype) {
  SEQLAB_CHECK(x_in.defined(), "prod: undefined tensor argument");
  const Dtype out_dtype = scan_dtype(x_in, dtype, "prod_cpu");
  const Tensor x = x_in.dtype() == out_dtype ? x_in : to_dtype(x_in, out_dtype);
  const Tensor xc = contiguous(x);
  Lanes l;
  Shape out_shape;
  if (dim_in) {
    const int64_t dim = wrap_dim(*dim_in, x.dim(), "prod");
    l = lanes(x.shape(), dim);
    out_shape = x.shape();
    if (x.dim() > 0) {
      if (keepdim) out_shape[dim] = 1;
      else out_shape.erase(out_shape.begin() + dim);
    }
  } else {
    l.n = x.numel();  // one lane over every element
    if (keepdim) out_shape.assign(x.shape().size(), 1);
  }
  Tensor out = Tensor::empty(out_shape, out_dtype);
  dispatch_arith(out_dtype, "prod", [&](auto tag) {
    using T = decltype(tag);
    prod_kernel<T, T>(xc.data<T>(), out.data<T>(), l);
  });
  if (any_requires_grad({x}))
    attach(out, dim_in ? "ProdBackward1" : "ProdBackward0", {x}, [x_ = save(xc), l](const Tensor& g) -> TensorList {
      const Tensor xs = x_.unpack(), gc = contiguous(g);
      Tensor dx = Tensor::empty(xs.shape(), xs.dtype());
      dispatch_float(xs.dtype(), "prod_backward", [&](auto tag) {
        using T = decltype(tag);
        prod_backward_kernel<T>(xs.data<T>(), gc.data<T>(), dx.data<T>(), l);
      });
      return {dx};
    });
  return out;
}

}  // namespace seqlab
