// y = x Wᵀ + b (torch.nn.functional.linear) as one node, as torch's addmm: the bias is the
// GEMM's C operand (beta = 1), and the backward is two GEMMs and a column sum,
//   dx = dy W,   dW = dyᵀ x,   db = Σ_rows dy,
// with x's leading dims folded into the rows. The composed form (matmul, then add) made a
// transposed view of W, a second pass for the bias and a reduction through sum_to, and its
// weight gradient came back transposed; it remains for what the fused case does not cover
// (integer tensors, mixed dtypes, a bias that only broadcasts), and for shape errors.

#include "blas.hpp"
#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

Tensor linear_composed(const Tensor& x, const Tensor& weight, const Tensor& bias);  // linalg.cpp

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const bool fused = x.dim() >= 1 && weight.dim() == 2 && is_floating(x.dtype()) && weight.dtype() == x.dtype() &&
                     x.shape().back() == weight.shape()[1] &&
                     (!bias.defined() || (bias.dim() == 1 && bias.shape()[0] == weight.shape()[0] &&
                                          bias.dtype() == x.dtype()));
  if (!fused) return linear_composed(x, weight, bias);
  const int64_t K = weight.shape()[1], N = weight.shape()[0];
  const int64_t M = K > 0 ? x.numel() / K : shape_numel(Shape(x.shape().begin(), x.shape().end() - 1));
  Shape out_shape(x.shape().begin(), x.shape().end() - 1);
  out_shape.push_back(N);
  const Tensor x2 = contiguous_copy_if_needed(x), w = contiguous_copy_if_needed(weight);
  Tensor out = Tensor::empty(out_shape, x.dtype());
  dispatch_float(x.dtype(), "linear", [&](auto tag) {
    using T = decltype(tag);
    T* y = out.data<T>();
    if (bias.defined()) {
      const Tensor b = contiguous_copy_if_needed(bias);
      const T* pb = b.data<T>();
      parallel_for(M, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, N)), [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) std::copy(pb, pb + N, y + i * N);
      });
    }
    gemm<T>(false, true, M, N, K, T(1), x2.data<T>(), K, w.data<T>(), K, bias.defined() ? T(1) : T(0), y, N);
  });
  if (any_requires_grad({x, weight, bias})) {
    const bool need_x = x.requires_grad(), need_w = weight.requires_grad();
    const bool need_b = bias.defined() && bias.requires_grad();
    attach(out, "AddmmBackward0", {x, weight, bias},
           [sx = need_w ? save(x2) : SavedTensor(), sw = need_x ? save(w) : SavedTensor(), x_shape = x.shape(), M, N,
            K, need_x, need_w, need_b](const Tensor& g_) -> TensorList {
             const Tensor g = contiguous_copy_if_needed(g_);
             Tensor dx = need_x ? Tensor::empty(x_shape, g.dtype()) : Tensor();
             Tensor dw = need_w ? Tensor::empty({N, K}, g.dtype()) : Tensor();
             // db: column sums of dy (rows accumulated in double for float32)
             const Tensor db = need_b ? sum(reshape(g, {M, N}), {0}) : Tensor();
             dispatch_float(g.dtype(), "linear_backward", [&](auto tag) {
               using T = decltype(tag);
               const T* pg = g.data<T>();
               if (need_x) gemm<T>(false, false, M, K, N, T(1), pg, N, sw.unpack().data<T>(), K, T(0), dx.data<T>(), K);
               if (need_w) gemm<T>(true, false, N, K, M, T(1), pg, N, sx.unpack().data<T>(), K, T(0), dw.data<T>(), K);
             });
             return {dx, dw, db};
           });
  }
  return out;
}

}  // namespace seqlab
