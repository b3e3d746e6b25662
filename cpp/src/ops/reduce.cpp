// Reductions: sum, mean, var, vector_norm, max/min (with indices), argmax/argmin, and sum_to
// (the backward of broadcasting). A reduction over a block of adjacent dims of a contiguous tensor runs on
// the (outer, R, inner) view of it; other dim sets are permuted into such a block first.
// Tests: tests/test_reduce.py (vector_norm: tests/test_norm.py).
#include "seqlab/ops/reduce.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/scatter.hpp"
#include "seqlab/ops/creation.hpp"

namespace seqlab {

namespace {

// The dims to reduce, sorted and unique; empty input = all dims.
std::vector<int64_t> normalize_dims(const std::vector<int64_t>& dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  std::vector<bool> seen(std::max<int64_t>(ndim, 1), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim, op);
    SEQLAB_CHECK(!seen[w], op, ": dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (ndim > 0) out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// x laid out as (outer, R, inner) with the reduced dims as the middle block.
struct Blocked {
  Tensor x;  // contiguous
  int64_t outer = 1, R = 1, inner = 1;
  Shape kept_shape;  // keepdim=True output shape (in x's original dim order)
};

Blocked block(const Tensor& x_in, const std::vector<int64_t>& rdims) {
  Blocked b;
  const int64_t nd = x_in.dim();
  b.kept_shape = x_in.shape();
  for (int64_t d : rdims) b.kept_shape[d] = 1;
  const bool adjacent = rdims.empty() || rdims.back() - rdims.front() + 1 == static_cast<int64_t>(rdims.size());
  Tensor x = x_in.detach();
  int64_t first = rdims.empty() ? nd : rdims.front(), last = rdims.empty() ? nd : rdims.back() + 1;
  if (!adjacent) {
    // Move reduced dims to the end: (kept..., reduced...).
    std::vector<int64_t> perm;
    std::vector<bool> red(nd, false);
    for (int64_t d : rdims) red[d] = true;
    for (int64_t d = 0; d < nd; ++d)
      if (!red[d]) perm.push_back(d);
    for (int64_t d : rdims) perm.push_back(d);
    x = permute(x, perm);
    first = nd - static_cast<int64_t>(rdims.size());
    last = nd;
  }
  b.x = contiguous(x);
  for (int64_t d = 0; d < first; ++d) b.outer *= b.x.shape()[d];
  for (int64_t d = first; d < last; ++d) b.R *= b.x.shape()[d];
  for (int64_t d = last; d < nd; ++d) b.inner *= b.x.shape()[d];
  return b;
}

Shape drop_dims(const Shape& kept, const std::vector<int64_t>& rdims, bool keepdim) {
  if (keepdim) return kept;
  Shape s;
  std::vector<bool> red(kept.size(), false);
  for (int64_t d : rdims) red[d] = true;
  for (size_t d = 0; d < kept.size(); ++d)
    if (!red[d]) s.push_back(kept[d]);
  return s;
}

// The gradient of a reduction, broadcast back to the input's shape.
Tensor expand_grad(const Tensor& g, const Shape& kept_shape, const Shape& in_shape) {
  return expand(reshape(g, kept_shape), in_shape);
}

// A long row is reduced in chunks of this many elements (a multiple of the SIMD sum's 4096-element
// blocks), whatever the thread count: the threads share out the chunks, and the partial results
// are joined in chunk order, so a sum has the same bits on 1, 2 or 3 threads.
constexpr int64_t kReduceChunk = 65536;

// Accumulator type: float32 sums accumulate in double (PyTorch's cascade sum is as accurate).
template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;

// out[o, i] = sum_r x[o, r, i]
template <typename T, typename O>
void sum_kernel(const Blocked& b, O* out) {
  const T* x = static_cast<const T*>(b.x.raw_data());
  const int64_t R = b.R, inner = b.inner;
  if (inner == 1) {
    if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, O>) {
      if (b.outer == 1) {  // one long row: partial sums of fixed chunks over the pool, added in order
        // The chunks do not depend on the thread count, so neither do the bits of the result.
        const int64_t per = kReduceChunk, chunks = (R + per - 1) / per;
        std::vector<double> part(static_cast<size_t>(chunks), 0.0);
        parallel_for(chunks, 1, [&](int64_t s, int64_t e) {
          for (int64_t c = s; c < e; ++c) {
            const int64_t lo = c * per, hi = std::min(R, lo + per);
            if (lo < hi) part[c] = simd::sum(x + lo, hi - lo);
          }
        });
        double total = 0;
        for (double p : part) total += p;
        out[0] = static_cast<O>(total);
        return;
      }
      parallel_for(b.outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(R, 1)), [&](int64_t s, int64_t e) {
        for (int64_t o = s; o < e; ++o) out[o] = static_cast<O>(simd::sum(x + o * R, R));
      });
      return;
    }
    parallel_for(b.outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(R, 1)), [&](int64_t s, int64_t e) {
      for (int64_t o = s; o < e; ++o) {
        Acc<O> acc = 0;
        const T* row = x + o * R;
#pragma omp simd reduction(+ : acc)
        for (int64_t r = 0; r < R; ++r) acc += static_cast<Acc<O>>(row[r]);
        out[o] = static_cast<O>(acc);
      }
    });
    return;
  }
  // Reducing an outer dim: add whole rows (vectorised over i); blocks of 64 rows add up in
  // the input type, the block sums in double for float32 (a cascade, like PyTorch's).
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, O>) {
    // The SIMD kernel keeps each block's sums in registers (simd::column_sum); columns are
    // split over the pool, or the outer slices when there are enough of them.
    const int64_t slice = R * inner;
    if (b.outer >= get_num_threads()) {
      parallel_for(b.outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(slice, 1)), [&](int64_t s, int64_t e) {
        std::vector<double> acc(static_cast<size_t>(inner));
        for (int64_t o = s; o < e; ++o) {
          std::fill(acc.begin(), acc.end(), 0.0);
          simd::column_sum(x + o * slice, R, inner, inner, acc.data());
          for (int64_t i = 0; i < inner; ++i) out[o * inner + i] = static_cast<O>(acc[i]);
        }
      });
      return;
    }
    for (int64_t o = 0; o < b.outer; ++o)
      parallel_for(inner, std::max<int64_t>(64, 32768 / std::max<int64_t>(R, 1)), [&](int64_t i0, int64_t i1) {
        std::vector<double> acc(static_cast<size_t>(i1 - i0), 0.0);
        simd::column_sum(x + o * slice + i0, R, inner, i1 - i0, acc.data());
        for (int64_t i = i0; i < i1; ++i) out[o * inner + i] = static_cast<O>(acc[i - i0]);
      });
    return;
  }
  constexpr int64_t kRows = 64;
  parallel_for(inner, std::max<int64_t>(64, 32768 / std::max<int64_t>(R * b.outer, 1)), [&](int64_t i0, int64_t i1) {
    const int64_t w = i1 - i0;
    std::vector<Acc<O>> acc(static_cast<size_t>(w));
    std::vector<O> block(static_cast<size_t>(w));
    for (int64_t o = 0; o < b.outer; ++o) {
      std::fill(acc.begin(), acc.end(), Acc<O>(0));
      for (int64_t r0 = 0; r0 < R; r0 += kRows) {
        std::fill(block.begin(), block.end(), O(0));
        O* pb = block.data();
        for (int64_t r = r0; r < std::min(R, r0 + kRows); ++r) {
          const T* row = x + (o * R + r) * inner + i0;
          for (int64_t i = 0; i < w; ++i) pb[i] += static_cast<O>(row[i]);
        }
        Acc<O>* pa = acc.data();
        for (int64_t i = 0; i < w; ++i) pa[i] += static_cast<Acc<O>>(pb[i]);
      }
      O* orow = out + o * inner + i0;
      for (int64_t i = 0; i < w; ++i) orow[i] = static_cast<O>(acc[i]);
    }
  });
}

}  // namespace

// out = sum over dims.   dx = g broadcast back
Tensor sum(const Tensor& x, const std::vector<int64_t>& dims_in, bool keepdim) {
  const auto dims = normalize_dims(dims_in, x.dim(), "sum");
  const Blocked b = block(x, dims);
  const Dtype out_dtype = is_floating(x.dtype()) ? x.dtype() : Dtype::Int64;
  Tensor out = Tensor::empty(drop_dims(b.kept_shape, dims, keepdim), out_dtype);
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>)
      sum_kernel<T, T>(b, out.data<T>());
    else
      sum_kernel<T, int64_t>(b, out.data<int64_t>());
  });
  if (any_requires_grad({x}))
    // torch's names: sum() is SumBackward0, sum(dim) SumBackward1 (the graph pictures show them)
    attach(out, dims_in.empty() ? "SumBackward0" : "SumBackward1", {x}, [kept = b.kept_shape, in = x.shape()](const Tensor& g) -> TensorList {
      return {expand_grad(g, kept, in)};
    });
  return out;
}

// out = sum / R.   dx = g/R broadcast back
Tensor mean(const Tensor& x, const std::vector<int64_t>& dims_in, bool keepdim) {
  SEQLAB_CHECK_TYPE(is_floating(x.dtype()), "mean(): could not infer output dtype. Input dtype must be either a "
                                            "floating point or complex dtype. Got: ", dtype_name(x.dtype()));
  const auto dims = normalize_dims(dims_in, x.dim(), "mean");
  int64_t R = 1;
  for (int64_t d : dims) R *= x.shape()[d];
  Tensor s;
  {
    NoGradGuard ng;
    s = sum(x, dims, keepdim);
  }
  Tensor out = Tensor::empty(s.shape(), s.dtype());
  dispatch_float(x.dtype(), "mean", [&](auto tag) {
    using T = decltype(tag);
    const T inv = R > 0 ? T(1) / T(R) : std::numeric_limits<T>::quiet_NaN();
    unary_kernel<T, T>(out, s, [inv](T v) { return v * inv; });
  });
  if (any_requires_grad({x})) {
    Shape kept = x.shape();
    for (int64_t d : dims) kept[d] = 1;
    attach(out, dims_in.empty() ? "MeanBackward0" : "MeanBackward1", {x}, [kept, in = x.shape(), R](const Tensor& g) -> TensorList {
      return {expand_grad(g * (1.0 / static_cast<double>(R)), kept, in)};
    });
  }
  return out;
}

// out = sum((x - mean)^2) / (R - correction).   dx = g * 2 (x - mean) / (R - correction)
Tensor var(const Tensor& x, const std::vector<int64_t>& dims_in, double correction, bool keepdim) {
  SEQLAB_CHECK_TYPE(is_floating(x.dtype()), "var: expected a floating point tensor, got ", dtype_name(x.dtype()));
  const auto dims = normalize_dims(dims_in, x.dim(), "var");
  const Blocked b = block(x, dims);
  Tensor out = Tensor::empty(drop_dims(b.kept_shape, dims, keepdim), x.dtype());
  Tensor mu = Tensor::empty(b.kept_shape, x.dtype());
  const double denom = std::max(0.0, static_cast<double>(b.R) - correction);
  dispatch_float(x.dtype(), "var", [&](auto tag) {
    using T = decltype(tag);
    const T* px = b.x.data<T>();
    T* po = out.data<T>();
    T* pm = mu.data<T>();
    for (int64_t o = 0; o < b.outer; ++o)
      for (int64_t i = 0; i < b.inner; ++i) {
        double m = 0;
        for (int64_t r = 0; r < b.R; ++r) m += px[(o * b.R + r) * b.inner + i];
        m /= static_cast<double>(b.R);
        double ss = 0;
        for (int64_t r = 0; r < b.R; ++r) {
          const double dlt = px[(o * b.R + r) * b.inner + i] - m;
          ss += dlt * dlt;
        }
        pm[o * b.inner + i] = static_cast<T>(m);
        // no elements: NaN whatever the correction (the mean of nothing), as torch
        po[o * b.inner + i] = b.R == 0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(ss / denom);
      }
  });
  if (any_requires_grad({x})) {
    // mu is laid out in (outer, inner) order = kept_shape order only when dims are adjacent;
    // recompute it in the backward from x instead, which is always right.
    attach(out, "VarBackward0", {x},
           [sx = save(x), dims, kept = b.kept_shape, denom](const Tensor& g) -> TensorList {
             Tensor xx = sx.unpack();
             Tensor m = mean(xx, dims, true);
             return {expand_grad(g, kept, xx.shape()) * (xx - m) * (2.0 / denom)};
           });
  }
  return out;
}

// ---------------------------------------------------------------- vector_norm
// torch.linalg.vector_norm (https://pytorch.org/docs/stable/generated/torch.linalg.vector_norm.html):
//   ord = p:     ||x||_p = (Σ_r |x_r|^p)^(1/p)      p = 2: sqrt(Σ x²),  p = 1: Σ |x|
//   ord = ±inf:  max_r |x_r|, min_r |x_r|   (a NaN wins, as amax)
//   ord = 0:     #{r : x_r != 0}
// float32 accumulates in double, as sum does. Where Σ|x|^p overflows or underflows the
// accumulator although the norm itself is representable (float64 [1e200, 1e200], where torch
// returns inf), the group is summed again scaled by s = max |x| (min |x| for p < 0), as LAPACK's
// dnrm2 scales: ||x||_p = s (Σ_r (|x_r|/s)^p)^(1/p).
namespace {

enum class NormKind { Zero, One, Two, Inf, NegInf, P };
template <NormKind K>
using NormTag = std::integral_constant<NormKind, K>;

NormKind norm_kind(double p) {
  if (p == 0) return NormKind::Zero;
  if (p == 1) return NormKind::One;
  if (p == 2) return NormKind::Two;
  if (std::isinf(p)) return p > 0 ? NormKind::Inf : NormKind::NegInf;
  return NormKind::P;
}

template <typename F>
decltype(auto) dispatch_norm(NormKind k, F&& f) {
  switch (k) {
    case NormKind::Zero: return f(NormTag<NormKind::Zero>{});
    case NormKind::One: return f(NormTag<NormKind::One>{});
    case NormKind::Two: return f(NormTag<NormKind::Two>{});
    case NormKind::Inf: return f(NormTag<NormKind::Inf>{});
    case NormKind::NegInf: return f(NormTag<NormKind::NegInf>{});
    case NormKind::P: break;
  }
  return f(NormTag<NormKind::P>{});
}

// The accumulator: its start, one element a = |x| added to it, two partial ones joined, its norm.
template <NormKind K, typename A>
A norm_init() {
  return K == NormKind::NegInf ? std::numeric_limits<A>::infinity() : A(0);
}
template <NormKind K, typename A>
A norm_step(A acc, A a, A p) {
  if constexpr (K == NormKind::Zero) return acc + A(a != 0);
  else if constexpr (K == NormKind::One) return acc + a;
  else if constexpr (K == NormKind::Two) return acc + a * a;
  else if constexpr (K == NormKind::Inf) return (a > acc || a != a) ? a : acc;  // once NaN, stays NaN
  else if constexpr (K == NormKind::NegInf) return (a < acc || a != a) ? a : acc;
  else return acc + std::pow(a, p);
}
template <NormKind K, typename A>
A norm_join(A acc, A part) {
  if constexpr (K == NormKind::Inf || K == NormKind::NegInf) return norm_step<K>(acc, part, A(0));
  else return acc + part;
}
template <NormKind K, typename A>
A norm_finish(A acc, A p) {
  if constexpr (K == NormKind::Two) return std::sqrt(acc);
  else if constexpr (K == NormKind::P) return std::pow(acc, A(1) / p);
  else return acc;
}

// The accumulator over n elements of x, `stride` apart.
template <NormKind K, typename T, typename A = Acc<T>>
A norm_run(const T* x, int64_t n, int64_t stride, A p) {
  A acc = norm_init<K, A>();
  if constexpr (K == NormKind::One || K == NormKind::Two) {
    if (stride == 1) {
#pragma omp simd reduction(+ : acc)
      for (int64_t r = 0; r < n; ++r) acc = norm_step<K>(acc, std::abs(static_cast<A>(x[r])), p);
      return acc;
    }
  }
  for (int64_t r = 0; r < n; ++r) acc = norm_step<K>(acc, std::abs(static_cast<A>(x[r * stride])), p);
  return acc;
}

// The p-norm of one group summed again, scaled: s (Σ (|x|/s)^p)^(1/p). `naive` is returned where
// scaling cannot help (s is 0 or inf: all zeros, a zero with p < 0, or an infinite element).
template <typename T, typename A>
A norm_rescaled(const T* x, int64_t n, int64_t stride, A p, A naive) {
  A s = p > 0 ? A(0) : std::numeric_limits<A>::infinity();
  for (int64_t r = 0; r < n; ++r) {
    const A a = std::abs(static_cast<A>(x[r * stride]));
    s = p > 0 ? std::max(s, a) : std::min(s, a);
  }
  if (!(s > 0) || std::isinf(s)) return naive;
  A acc = 0;
  for (int64_t r = 0; r < n; ++r) acc += std::pow(std::abs(static_cast<A>(x[r * stride])) / s, p);
  return s * std::pow(acc, A(1) / p);
}

// out[o, i] = ||x[o, :, i]||
template <NormKind K, typename T>
void norm_kernel(const Blocked& b, double p_in, T* out) {
  using A = Acc<T>;
  const A p = static_cast<A>(p_in);
  const T* x = b.x.data<T>();
  const int64_t R = b.R, inner = b.inner;
  // The norm of the group starting at `group` from its accumulator.
  auto finish = [R, p](A acc, const T* group, int64_t stride) -> T {
    const A naive = norm_finish<K>(acc, p);
    if constexpr (K == NormKind::Two || K == NormKind::P)
      if (std::isinf(acc) || acc < std::numeric_limits<A>::min())
        return static_cast<T>(norm_rescaled(group, R, stride, p, naive));
    return static_cast<T>(naive);
  };
  if (inner == 1 && b.outer == 1) {  // one long row: partial accumulators of fixed chunks, joined in order
    const int64_t per = kReduceChunk, chunks = (R + per - 1) / per;
    std::vector<A> part(static_cast<size_t>(chunks), norm_init<K, A>());
    parallel_for(chunks, 1, [&](int64_t s, int64_t e) {
      for (int64_t c = s; c < e; ++c) {
        const int64_t lo = c * per, hi = std::min(R, lo + per);
        if (lo < hi) part[c] = norm_run<K>(x + lo, hi - lo, 1, p);
      }
    });
    A acc = norm_init<K, A>();
    for (A v : part) acc = norm_join<K>(acc, v);
    out[0] = finish(acc, x, 1);
    return;
  }
  if (inner == 1) {
    parallel_for(b.outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(R, 1)), [&](int64_t s, int64_t e) {
      for (int64_t o = s; o < e; ++o) out[o] = finish(norm_run<K>(x + o * R, R, 1, p), x + o * R, 1);
    });
    return;
  }
  // Reducing an outer dim: accumulate whole rows (vectorised over i).
  parallel_for(inner, std::max<int64_t>(64, 32768 / std::max<int64_t>(R * b.outer, 1)), [&](int64_t i0, int64_t i1) {
    std::vector<A> acc(static_cast<size_t>(i1 - i0));
    for (int64_t o = 0; o < b.outer; ++o) {
      std::fill(acc.begin(), acc.end(), norm_init<K, A>());
      for (int64_t r = 0; r < R; ++r) {
        const T* row = x + (o * R + r) * inner + i0;
        for (int64_t i = 0; i < i1 - i0; ++i) acc[i] = norm_step<K>(acc[i], std::abs(static_cast<A>(row[i])), p);
      }
      for (int64_t i = 0; i < i1 - i0; ++i)
        out[o * inner + i0 + i] = finish(acc[i], x + o * R * inner + i0 + i, inner);
    }
  });
}

// dx = f(x, n, g) with n (the norm) and g (its gradient) broadcast from the keepdim shape to x's.
template <typename F>
Tensor norm_grad_map(const Tensor& x, const Tensor& n, const Tensor& g, F f) {
  Tensor dx = Tensor::empty(x.shape(), x.dtype());
  dispatch_float(x.dtype(), "vector_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = Acc<T>;
    const Shape& shape = x.shape();
    std::array<Shape, 4> st{contiguous_strides(shape), x.strides(), broadcast_strides(n, shape),
                            broadcast_strides(g, shape)};
    const int64_t sz = sizeof(T);
    strided_loop<4>(shape, {static_cast<char*>(dx.raw_data()), static_cast<char*>(x.raw_data()),
                            static_cast<char*>(n.raw_data()), static_cast<char*>(g.raw_data())},
                    st, {sz, sz, sz, sz}, [&](std::array<char*, 4> ptr, std::array<int64_t, 4> s, int64_t len) {
                      for (int64_t k = 0; k < len; ++k) {
                        auto at = [&](int j) { return static_cast<A>(*reinterpret_cast<const T*>(ptr[j] + k * s[j])); };
                        *reinterpret_cast<T*>(ptr[0] + k * s[0]) = static_cast<T>(f(at(1), at(2), at(3)));
                      }
                    });
  });
  return dx;
}

// torch's sgn: -1, 0 or 1, and 0 for NaN.
template <typename A>
A sgn(A v) {
  return A(v > 0) - A(v < 0);
}

std::string ord_str(double p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

}  // namespace

Tensor vector_norm(const Tensor& x_in, double ord, const std::vector<int64_t>& dims_in, bool keepdim,
                   std::optional<Dtype> dtype) {
  SEQLAB_CHECK_TYPE(is_floating(x_in.dtype()), "linalg.vector_norm: Expected a floating point tensor as input. Got ",
                    dtype_name(x_in.dtype()));
  if (dtype) {
    SEQLAB_CHECK_TYPE(is_floating(*dtype), "linalg.vector_norm: dtype should be floating point, but got ",
                      dtype_name(*dtype));
    SEQLAB_CHECK_TYPE(*dtype >= x_in.dtype(), "linalg.vector_norm: the dtype of the input (", dtype_name(x_in.dtype()),
                      ") should be convertible without narrowing to the specified dtype (", dtype_name(*dtype), ")");
  }
  const Tensor x = dtype ? to_dtype(x_in, *dtype) : x_in;
  const auto dims = normalize_dims(dims_in, x.dim(), "linalg.vector_norm");
  // Orders without an identity (max, min, and negative powers) cannot reduce nothing.
  if (ord < 0 || std::isinf(ord)) {
    if (dims_in.empty())
      SEQLAB_CHECK(x.numel() > 0, "linalg.vector_norm cannot compute the ", ord_str(ord), " norm on an empty tensor "
                                  "because the operation does not have an identity");
    for (int64_t d : dims)
      SEQLAB_CHECK(x.shape()[d] > 0, "linalg.vector_norm cannot compute the ", ord_str(ord), " norm on the dimension ",
                   d, " because this dimension is empty and the operation does not have an identity");
  }
  const NormKind kind = norm_kind(ord);
  const Blocked b = block(x, dims);
  Tensor out = Tensor::empty(drop_dims(b.kept_shape, dims, keepdim), x.dtype());
  dispatch_float(x.dtype(), "linalg.vector_norm", [&](auto tag) {
    using T = decltype(tag);
    dispatch_norm(kind, [&](auto k) { norm_kernel<decltype(k)::value, T>(b, ord, out.data<T>()); });
  });
  if (any_requires_grad({x}))
    // torch's norm_backward (torch/csrc/autograd/FunctionsManual.cpp), with n = ||x|| and g broadcast back:
    //   ord = 0:     dx = 0 (no gradient flows)
    //   ord = ±inf:  dx = sgn(x) g / k where |x| = n (or x is NaN), k such entries; 0 elsewhere
    //   otherwise:   dx = sgn(x) (|x| / n)^(p-1) g      (p = 2: x/n g,  p = 1: sgn(x) g)
    // and dx = 0 where n = 0 or x = 0: at 0 no derivative exists, and torch takes 0. (The
    // composed sqrt(sum(x*x)) gives 0 * 1/(2 sqrt 0) = 0 * inf = NaN there: the trap this op removes.)
    attach(out, "LinalgVectorNormBackward0", {x},
           [sx = save(x), sn = save(out), dims, kept = b.kept_shape, ord, kind](const Tensor& g) -> TensorList {
             const Tensor xx = sx.unpack();
             if (kind == NormKind::Zero) return {Tensor()};  // none, as torch (x.grad stays None)
             const Tensor n = reshape(sn.unpack(), kept);
             Tensor gk = reshape(g, kept);
             if (kind == NormKind::Inf || kind == NormKind::NegInf) {
               const Tensor ties = norm_grad_map(xx, n, n, [](auto v, auto nv, auto) {
                 return decltype(v)(std::abs(v) == nv || v != v);
               });
               gk = gk / sum(ties, dims, true);
               return {norm_grad_map(xx, n, gk, [](auto v, auto nv, auto gv) {
                 return (std::abs(v) == nv || v != v) ? sgn(v) * gv : decltype(v)(0);
               })};
             }
             return {norm_grad_map(xx, n, gk, [kind, ord](auto v, auto nv, auto gv) {
               using A = decltype(v);
               if (nv == 0) return A(0);
               if (kind == NormKind::One) return sgn(v) * gv;
               if (v == 0) return nv == nv ? A(0) : nv;  // a NaN norm still spreads NaN, as in torch
               if (kind == NormKind::Two) return v / nv * gv;
               return sgn(v) * std::pow(std::abs(v) / nv, static_cast<A>(ord) - 1) * gv;
             })};
           });
  return out;
}

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g.shape() == shape) return g;
  const int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  SEQLAB_CHECK(lead >= 0, "sum_to: cannot reduce a gradient of shape ", shape_str(g.shape()), " to ",
               shape_str(shape));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && g.shape()[lead + i] != 1) dims.push_back(lead + static_cast<int64_t>(i));
  // a float16/bfloat16 gradient (a broadcast or expanded 16-bit tensor's) is summed in float32 and
  // rounded once, as torch's reduction kernels do
  Tensor s = dims.empty()                    ? g
             : is_reduced_float(g.dtype())   ? to_dtype(sum(to_dtype(g, Dtype::Float32), dims, true), g.dtype())
                                             : sum(g, dims, true);
  return reshape(s, shape);
}

// ---------------------------------------------------------------- max / min
namespace {

// Full reduction: the extreme value; backward shares g evenly among the tied positions.
Tensor extreme_all(const Tensor& x, bool is_max) {
  const char* op = is_max ? "max" : "min";
  SEQLAB_CHECK(x.numel() > 0, op, "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                              "reduction dim with the 'dim' argument.");
  Tensor xc = contiguous(x.detach());
  Tensor out = Tensor::empty({}, x.dtype());
  dispatch_arith(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* p = xc.data<T>();
    T best = p[0];
    for (int64_t i = 1; i < xc.numel(); ++i) {
      const T v = p[i];
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(best)) break;
        if (std::isnan(v)) { best = v; break; }
      }
      if (is_max ? v > best : v < best) best = v;
    }
    *out.data<T>() = best;
  });
  if (any_requires_grad({x}))
    attach(out, is_max ? "MaxBackward1" : "MinBackward1", {x}, [sx = save(x), so = save(out)](const Tensor& g) -> TensorList {
      Tensor xx = sx.unpack();
      Tensor mask = to_dtype(compare(xx, so.unpack(), CompareOp::Eq), xx.dtype());
      Tensor count = sum(mask);
      return {mask * (g / count)};
    });
  return out;
}

std::pair<Tensor, Tensor> extreme_dim(const Tensor& x, int64_t dim_in, bool keepdim, bool is_max,
                                      const char* name = nullptr) {
  const char* op = is_max ? "max" : "min";
  const int64_t dim = wrap_dim(dim_in, x.dim(), name ? name : op);
  std::vector<int64_t> dims;
  if (x.dim() > 0) dims.push_back(dim);
  const Blocked b = block(x, dims);
  // a reduced dim of size 0 has no extreme, even when the result is empty too (torch's rule)
  SEQLAB_CHECK_INDEX(b.R > 0, name ? name : op, "(): Expected reduction dim ", dim, " to have non-zero size.");
  const Shape out_shape = drop_dims(b.kept_shape, dims, keepdim);
  Tensor values = Tensor::empty(out_shape, x.dtype());
  Tensor indices = Tensor::empty(out_shape, Dtype::Int64);
  dispatch_arith(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* p = b.x.data<T>();
    T* pv = values.data<T>();
    int64_t* pi = indices.data<int64_t>();
    if (b.inner == 1 && b.R > 0) {
      // Contiguous rows: a vectorised pass for the extreme value (and any NaN), then the
      // first index holding it (the first NaN if there is one, as PyTorch).
      parallel_for(b.outer, std::max<int64_t>(1, 16384 / b.R), [&](int64_t s, int64_t e) {
        for (int64_t o = s; o < e; ++o) {
          const T* row = p + o * b.R;
          T best = row[0];
          bool nan = false;
          if (is_max) {
#pragma omp simd reduction(max : best) reduction(|| : nan)
            for (int64_t r = 0; r < b.R; ++r) {
              best = row[r] > best ? row[r] : best;
              nan = nan || (row[r] != row[r]);
            }
          } else {
#pragma omp simd reduction(min : best) reduction(|| : nan)
            for (int64_t r = 0; r < b.R; ++r) {
              best = row[r] < best ? row[r] : best;
              nan = nan || (row[r] != row[r]);
            }
          }
          int64_t bi = 0;
          if (nan) {
            while (row[bi] == row[bi]) ++bi;
          } else {
            while (row[bi] != best) ++bi;
          }
          pv[o] = row[bi];
          pi[o] = bi;
        }
      });
      return;
    }
    for (int64_t o = 0; o < b.outer; ++o)
      for (int64_t i = 0; i < b.inner; ++i) {
        int64_t bi = 0;
        T best = p[o * b.R * b.inner + i];
        for (int64_t r = 1; r < b.R; ++r) {
          const T v = p[(o * b.R + r) * b.inner + i];
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(best)) break;
            if (std::isnan(v)) { best = v; bi = r; break; }
          }
          if (is_max ? v > best : v < best) { best = v; bi = r; }
        }
        pv[o * b.inner + i] = best;
        pi[o * b.inner + i] = bi;
      }
  });
  if (any_requires_grad({x})) {
    // dx = g scattered to the chosen index along dim
    attach(values, is_max ? "MaxBackward0" : "MinBackward0", {x},
           [idx = indices, dim, keepdim, in = x.shape(), has_dim = x.dim() > 0](const Tensor& g) -> TensorList {
             Tensor gk = (keepdim || !has_dim) ? g : unsqueeze(g, dim);
             Tensor ik = (keepdim || !has_dim) ? idx : unsqueeze(idx, dim);
             Tensor dx = zeros(in, g.dtype());
             if (!has_dim) return {reshape(g, in)};
             scatter_add_(dx, dim, ik, gk);
             return {dx};
           });
  }
  return {values, indices};
}

}  // namespace

Tensor max(const Tensor& x) { return extreme_all(x, true); }
Tensor min(const Tensor& x) { return extreme_all(x, false); }
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) { return extreme_dim(x, dim, keepdim, true); }
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) { return extreme_dim(x, dim, keepdim, false); }

namespace {

// argmax / argmin: over dim, or over all elements (dim unset; keepdim then keeps every dim as 1, as torch)
Tensor arg_extreme(const Tensor& x, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  NoGradGuard ng;
  const char* name = is_max ? "argmax" : "argmin";
  if (dim) return extreme_dim(x, *dim, keepdim, is_max, name).second;
  Tensor flat = extreme_dim(reshape(x, {-1}), 0, false, is_max, name).second;
  return keepdim ? reshape(flat, Shape(static_cast<size_t>(x.dim()), 1)) : flat;
}

}  // namespace

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return arg_extreme(x, dim, keepdim, true); }
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return arg_extreme(x, dim, keepdim, false); }

}  // namespace seqlab
