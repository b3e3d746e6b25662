// Activations and softmax, each a fused kernel with its backward beside it.
// softmax/log_softmax subtract the row max first (log-sum-exp), so they never overflow.
// Tests: tests/test_activation_loss.py.
#include "seqlab/ops/activation.hpp"
#include "seqlab/default_dtype.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"

namespace seqlab {

namespace {

// Elementwise backward kernel: dx = f(g, saved) with g and saved of x's shape.
template <typename MakeF>
Tensor float_map2(const Tensor& g, const Tensor& s, const char* op, MakeF make_f) {
  Tensor out = Tensor::empty(s.shape(), s.dtype());
  dispatch_float(s.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    binary_kernel<T, T>(out, g, s, make_f(tag));
  });
  return out;
}

Tensor as_float(const Tensor& x) { return is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype()); }

}  // namespace

// y = tanh(x).   dx = g * (1 - y^2)
Tensor tanh(const Tensor& x_) {
  const Tensor x = as_float(x_);
  Tensor y = vec_map(x, simd::VecOp::Tanh, "tanh");
  if (any_requires_grad({x}))
    attach(y, "TanhBackward0", {x}, [sy = save(y)](const Tensor& g) -> TensorList {
      return {float_map2(g, sy.unpack(), "tanh_backward", [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T yv) { return gv * (T(1) - yv * yv); };
      })};
    });
  return y;
}

// y = 1 / (1 + e^-x).   dx = g * y * (1 - y)
Tensor sigmoid(const Tensor& x_) {
  const Tensor x = as_float(x_);
  Tensor y = vec_map(x, simd::VecOp::Sigmoid, "sigmoid");
  if (any_requires_grad({x}))
    attach(y, "SigmoidBackward0", {x}, [sy = save(y)](const Tensor& g) -> TensorList {
      return {float_map2(g, sy.unpack(), "sigmoid_backward", [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T yv) { return gv * yv * (T(1) - yv); };
      })};
    });
  return y;
}

// y = x σ(x) = x / (1 + e^-x).   dy/dx = σ(x) + x σ(x)(1 - σ(x)) = σ(x)(1 + x(1 - σ(x)))
Tensor silu(const Tensor& x_) {
  const Tensor x = as_float(x_);
  Tensor y = vec_map(x, simd::VecOp::Silu, "silu");
  if (any_requires_grad({x}))
    attach(y, "SiluBackward0", {x}, [sx = save(x)](const Tensor& g) -> TensorList {
      return {float_map2(g, sx.unpack(), "silu_backward", [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T v) {
          const T s = T(1) / (T(1) + std::exp(-v));
          return gv * s * (T(1) + v * (T(1) - s));
        };
      })};
    });
  return y;
}

// y = max(x, 0).   dx = g where y > 0. Trap: using x >= 0 would pass gradient at x = 0,
// where PyTorch (and the subgradient convention) gives 0. At NaN (y NaN) the gradient is g, as torch's
// threshold_backward (y <= 0 ? 0 : g).
Tensor relu(const Tensor& x) {
  Tensor y;
  if (is_floating(x.dtype())) {
    y = vec_map(x, simd::VecOp::Relu, "relu");
  } else {
    y = Tensor::empty(x.shape(), x.dtype());
    dispatch_arith(x.dtype(), "relu", [&](auto tag) {
      using T = decltype(tag);
      unary_kernel<T, T>(y, x, [](T v) { return v < T(0) ? T(0) : v; });
    });
  }
  if (any_requires_grad({x}))
    attach(y, "ReluBackward0", {x}, [sy = save(y)](const Tensor& g) -> TensorList {
      return {float_map2(g, sy.unpack(), "relu_backward", [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T yv) { return yv <= T(0) ? T(0) : gv; };  // torch's order: NaN passes g
      })};
    });
  return y;
}

// Exact:  y = x Φ(x) = x/2 (1 + erf(x/√2)),      dy/dx = Φ(x) + x φ(x)
// Tanh:   y = x/2 (1 + tanh(u)), u = √(2/π)(x + 0.044715 x³)
//         dy/dx = (1 + tanh u)/2 + x/2 (1 - tanh² u) √(2/π)(1 + 3·0.044715 x²)
// (Hendrycks & Gimpel 2016; torch.nn.functional.gelu)
Tensor gelu(const Tensor& x_, bool approx) {
  const Tensor x = as_float(x_);
  Tensor y = vec_map(x, approx ? simd::VecOp::GeluTanh : simd::VecOp::GeluErf, "gelu");
  if (any_requires_grad({x}))
    attach(y, "GeluBackward0", {x}, [sx = save(x), approx](const Tensor& g_) -> TensorList {
      const Tensor xs = sx.unpack();
      if (g_.shape() == xs.shape()) {  // the SIMD kernel (simd::gelu_backward), split over the pool
        const Tensor g = contiguous(g_), xc = contiguous(xs);
        Tensor dx = Tensor::empty(xs.shape(), xs.dtype());
        dispatch_float(xs.dtype(), "gelu_backward", [&](auto tag) {
          using T = decltype(tag);
          const T* pg = g.data<T>();
          const T* px = xc.data<T>();
          T* pd = dx.data<T>();
          parallel_for(dx.numel(), 16384, [&](int64_t b, int64_t e) { simd::gelu_backward(pg + b, px + b, pd + b, e - b, approx); });
        });
        return {dx};
      }
      const Tensor& g = g_;
      return {float_map2(g, xs, "gelu_backward", [approx](auto tag) {
        using T = decltype(tag);
        return [approx](T gv, T v) {
          if (approx) {
            const T k = T(0.7978845608028654);
            const T u = k * (v + T(0.044715) * v * v * v);
            const T th = std::tanh(u);
            return gv * (T(0.5) * (T(1) + th) + T(0.5) * v * (T(1) - th * th) * k * (T(1) + T(3 * 0.044715) * v * v));
          }
          const T cdf = T(0.5) * (T(1) + std::erf(v * T(0.7071067811865476)));
          const T pdf = std::exp(T(-0.5) * v * v) * T(0.3989422804014327);
          return gv * (cdf + v * pdf);
        };
      })};
    });
  return y;
}

// ---------------------------------------------------------------- softmax family
namespace {

// A contiguous tensor seen as (outer, D, inner) around `dim`.
struct Around {
  int64_t outer = 1, D = 1, inner = 1;
};
Around around(const Tensor& x, int64_t dim) {
  Around a;
  for (int64_t d = 0; d < dim; ++d) a.outer *= x.shape()[d];
  a.D = x.dim() == 0 ? 1 : x.shape()[dim];
  for (int64_t d = dim + 1; d < x.dim(); ++d) a.inner *= x.shape()[d];
  return a;
}

// Calls f(o, j0, j1, scratch) over every outer slice o and its columns [j0, j1) of an
// (outer, D, inner) tensor, split over the pool: by slices when there are enough, else by
// columns. scratch holds 2·(j1 - j0) values.
template <typename T, typename F>
void for_columns(Around a, F f) {
  const int64_t slice = a.D * a.inner;
  if (a.outer >= get_num_threads()) {
    parallel_for(a.outer, std::max<int64_t>(1, 16384 / slice), [&](int64_t s, int64_t e) {
      std::vector<T> scratch(static_cast<size_t>(2 * a.inner));
      for (int64_t o = s; o < e; ++o) f(o, 0, a.inner, scratch.data());
    });
    return;
  }
  for (int64_t o = 0; o < a.outer; ++o)
    parallel_for(a.inner, std::max<int64_t>(16, 16384 / a.D), [&](int64_t j0, int64_t j1) {
      std::vector<T> scratch(static_cast<size_t>(2 * (j1 - j0)));
      f(o, j0, j1, scratch.data());
    });
}

// y = softmax(x) or log_softmax(x) along D:  m = max_d x,  s = Σ_d e^(x-m),
// softmax = e^(x-m)/s,  log_softmax = (x - m) - ln s  (in that order: m + ln s would lose
// ln s next to a large m, e.g. log_softmax([1e30, 1e30]) = -ln 2, not 0). The SIMD kernels
// (cpp/src/simd/softmax_impl.hpp) take contiguous rows (inner = 1) or columns vectorised along
// inner; rows, or column ranges, are split over the pool above ~16k elements.
template <typename T>
void softmax_kernel(const T* x, T* y, Around a, bool log) {
  if (a.outer * a.D * a.inner == 0) return;
  const int64_t D = a.D, inner = a.inner;
  if (inner == 1) {
    parallel_for(a.outer, std::max<int64_t>(1, 16384 / D), [&](int64_t s, int64_t e) {
      simd::softmax_rows(x + s * D, y + s * D, e - s, D, log);
    });
    return;
  }
  for_columns<T>(a, [&](int64_t o, int64_t j0, int64_t j1, T* scratch) {
    const int64_t off = o * D * inner + j0;
    simd::softmax_columns(x + off, y + off, D, inner, j1 - j0, log, scratch);
  });
}

// softmax:      dx = y ⊙ (g - Σ_d g⊙y)
// log_softmax:  dx = g - e^y ⊙ Σ_d g
template <typename T>
void softmax_backward_kernel(const T* g, const T* y, T* dx, Around a, bool log) {
  if (a.outer * a.D * a.inner == 0) return;
  const int64_t D = a.D, inner = a.inner;
  if (inner == 1) {
    parallel_for(a.outer, std::max<int64_t>(1, 16384 / D), [&](int64_t s, int64_t e) {
      simd::softmax_backward_rows(g + s * D, y + s * D, dx + s * D, e - s, D, log);
    });
    return;
  }
  for_columns<T>(a, [&](int64_t o, int64_t j0, int64_t j1, T* scratch) {
    const int64_t off = o * D * inner + j0;
    simd::softmax_backward_columns(g + off, y + off, dx + off, D, inner, j1 - j0, log, scratch);
  });
}

Tensor softmax_impl(const Tensor& x_, int64_t dim_in, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  const Tensor x = as_float(x_);
  const int64_t dim = wrap_dim(dim_in, x.dim(), name);
  const Tensor xc = contiguous(x.detach());
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  const Around a = around(xc, dim);
  dispatch_float(x.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    softmax_kernel<T>(xc.data<T>(), y.data<T>(), a, log);
  });
  if (any_requires_grad({x}))
    attach(y, log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", {x}, [sy = save(y), a, log](const Tensor& g_) -> TensorList {
      const Tensor g = contiguous(g_);
      const Tensor yy = sy.unpack();
      Tensor dx = Tensor::empty(yy.shape(), yy.dtype());
      dispatch_float(yy.dtype(), "softmax_backward", [&](auto tag) {
        using T = decltype(tag);
        softmax_backward_kernel<T>(g.data<T>(), yy.data<T>(), dx.data<T>(), a, log);
      });
      return {dx};
    });
  return y;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return softmax_impl(x, dim, false); }
Tensor log_softmax(const Tensor& x, int64_t dim) { return softmax_impl(x, dim, true); }

}  // namespace seqlab
