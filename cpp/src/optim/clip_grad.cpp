// Gradient clipping over all parameters at once (torch.nn.utils.clip_grad_norm_ / _value_).
//   total = (Σ_p ||∇p||_q^q)^(1/q)  (max |∇| for q = inf; for q = 0 the number of gradients with a non-zero);  ∇ *= min(1, max_norm / (total + 1e-6))
#include <limits>

#include "optim_utils.hpp"
#include "seqlab/ops/reduce.hpp"

namespace seqlab::optim {

Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double q, bool error_if_nonfinite) {
  NoGradGuard ng;
  // As torch: the norm of each gradient (vector_norm: vectorised, on the pool, accumulated in
  // double for float32), then the same norm of those norms. For q = 0 that counts the gradients
  // with a non-zero element.
  std::vector<Tensor> grads;
  std::vector<double> norms;
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    SEQLAB_CHECK(g.is_contiguous(), "clip_grad_norm_: gradients must be contiguous");
    check_writable(g, "clip_grad_norm_");
    grads.push_back(g);
    norms.push_back(g.numel() ? vector_norm(g, q).item<double>() : 0.0);
  }
  const Tensor all = Tensor::empty({static_cast<int64_t>(norms.size())}, Dtype::Float64);
  std::copy(norms.begin(), norms.end(), all.data<double>());
  const double total = norms.empty() ? 0.0 : vector_norm(all, q).item<double>();
  SEQLAB_CHECK(!error_if_nonfinite || std::isfinite(total), "The total norm of order ", q,
               " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
               "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  const double coef = std::min(1.0, max_norm / (total + 1e-6));
  for (Tensor& g : grads) {
    dispatch_float(g.dtype(), "clip_grad_norm_", [&](auto tag) {
      using T = decltype(tag);
      T* pg = g.data<T>();
      const T c = static_cast<T>(coef);
      parallel_for(g.numel(), 65536, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) pg[i] *= c;
      });
    });
    g.bump_version();
  }
  Tensor out = Tensor::empty({}, grads.empty() ? Dtype::Float32 : grads[0].dtype());
  dispatch_float(out.dtype(), "clip_grad_norm_", [&](auto tag) { *out.data<decltype(tag)>() = decltype(tag)(total); });
  return out;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  NoGradGuard ng;
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    clamp_(g, -clip_value, clip_value);
  }
}

}  // namespace seqlab::optim
