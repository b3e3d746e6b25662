// RMSprop (Hinton's lecture 6e), as torch.optim.RMSprop:
//   g = ∇ + wd·p,  v = α·v + (1-α)·g²,  centered: ḡ = α·ḡ + (1-α)·g, d = sqrt(v - ḡ²) + eps, else sqrt(v) + eps
//   momentum: b = μ·b + g/d, p -= lr·b;   else p -= lr·g/d
#include "optim_utils.hpp"

namespace seqlab::optim {

void RMSpropOptions::validate() const {
  SEQLAB_CHECK_VALUE(lr() >= 0, "Invalid learning rate: ", lr());
  SEQLAB_CHECK_VALUE(eps() >= 0, "Invalid epsilon value: ", eps());
  SEQLAB_CHECK_VALUE(momentum() >= 0, "Invalid momentum value: ", momentum());
  SEQLAB_CHECK_VALUE(weight_decay() >= 0, "Invalid weight_decay value: ", weight_decay());
  SEQLAB_CHECK_VALUE(alpha() >= 0, "Invalid alpha value: ", alpha());
}

void RMSprop::step() {
  detail::for_each_param(*this, [](auto tag, const Tensor& p, auto* w, const auto* grad, int64_t n,
                                   const RMSpropOptions& o, std::map<std::string, Tensor>& st) {
    using T = decltype(tag);
    const T lr = T(o.lr()), alpha = T(o.alpha()), eps = T(o.eps()), wd = T(o.weight_decay()), mu = T(o.momentum());
    const bool centered = o.centered(), maximize = o.maximize();
    T* v = detail::state_like(st, "square_avg", p).template data<T>();
    T* gavg = centered ? detail::state_like(st, "grad_avg", p).template data<T>() : nullptr;
    T* buf = mu > T(0) ? detail::state_like(st, "momentum_buffer", p).template data<T>() : nullptr;
    detail::bump_step(st);
    for (int64_t i = 0; i < n; ++i) {
      T g = maximize ? -grad[i] : grad[i];
      if (wd != T(0)) g += wd * w[i];
      v[i] = alpha * v[i] + (T(1) - alpha) * g * g;
      T d;
      if (gavg) {
        gavg[i] += (g - gavg[i]) * (T(1) - alpha);  // PyTorch's lerp
        d = std::sqrt(v[i] - gavg[i] * gavg[i]) + eps;
      } else {
        d = std::sqrt(v[i]) + eps;
      }
      if (buf) {
        buf[i] = mu * buf[i] + g / d;
        w[i] -= lr * buf[i];
      } else {
        w[i] -= lr * g / d;
      }
    }
  });
}

}  // namespace seqlab::optim
