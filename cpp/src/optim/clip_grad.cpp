// Gradient clipping over all parameters at once (torch.nn.utils.clip_grad_norm_ / _value_).
//   total = (Σ_p ||∇p||_q^q)^(1/q)  (max |∇| for q = inf; for q = 0 the number of gradients with a non-zero);  ∇ *= min(1, max_norm / (total + 1e-6))
#include <limits>

#include "optim_utils.hpp"

namespace seqlab::optim {

Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double q, bool error_if_nonfinite) {
  NoGradGuard ng;
  const bool inf = std::isinf(q);
  double acc = 0;
  std::vector<Tensor> grads;
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    SEQLAB_CHECK(g.is_contiguous(), "clip_grad_norm_: gradients must be contiguous");
    check_writable(g, "clip_grad_norm_");
    grads.push_back(g);
    dispatch_float(g.dtype(), "clip_grad_norm_", [&](auto tag) {
      using T = decltype(tag);
      const T* pg = g.data<T>();
      bool any_nonzero = false;
      for (int64_t i = 0; i < g.numel(); ++i) {
        const double a = std::abs(static_cast<double>(pg[i]));
        any_nonzero |= a != 0;
        if (q != 0) acc = inf ? std::max(acc, a) : acc + (q == 2.0 ? a * a : std::pow(a, q));
      }
      // q = 0 counts non-zeros; torch takes the 0-"norm" of the per-tensor 0-norms, so the
      // total counts the gradients that have any non-zero element.
      if (q == 0) acc += any_nonzero;
    });
  }
  const double total = inf || q == 0 ? acc : (q == 2.0 ? std::sqrt(acc) : std::pow(acc, 1.0 / q));
  SEQLAB_CHECK(!error_if_nonfinite || std::isfinite(total), "The total norm of order ", q,
               " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
               "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  const double coef = std::min(1.0, max_norm / (total + 1e-6));
  for (Tensor& g : grads) {
    dispatch_float(g.dtype(), "clip_grad_norm_", [&](auto tag) {
      using T = decltype(tag);
      T* pg = g.data<T>();
      for (int64_t i = 0; i < g.numel(); ++i) pg[i] *= T(coef);
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
