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
    const bool centered = o.centered(), maximize = o.maximize();
    T* v = detail::state_like(st, "square_avg", p).template data<T>();
    T* gavg = centered ? detail::state_like(st, "grad_avg", p).template data<T>() : nullptr;
    T* buf = o.momentum() > 0 ? detail::state_like(st, "momentum_buffer", p).template data<T>() : nullptr;
    detail::bump_step(st);
    if constexpr (detail::is_reduced_v<T>) {
      // torch's ops, each rounded: g = grad.add(p, alpha=wd); v.mul_(α).addcmul_(g, g, value=1-α);
      // centered: ḡ.lerp_(g, 1-α), d = v.addcmul(ḡ, ḡ, value=-1).sqrt_(), else d = v.sqrt();
      // d.add_(eps); momentum: b.mul_(μ).addcdiv_(g, d), p.add_(b, alpha=-lr); else p.addcdiv_(g, d, value=-lr)
      using detail::R;
      const float lr = float(-o.lr()), lr_t = R<T>(lr), alpha = float(o.alpha()), keep = float(1 - o.alpha());
      const float eps = R<T>(float(o.eps())), wd = R<T>(float(o.weight_decay())), mu = float(o.momentum());
      for (int64_t i = 0; i < n; ++i) {
        float g = maximize ? -float(grad[i]) : float(grad[i]);
        if (o.weight_decay() != 0) g = R<T>(g + wd * float(w[i]));
        const float vi = R<T>(detail::addcmul(R<T>(float(v[i]) * alpha), g, g, keep));
        v[i] = T(vi);
        float d;
        if (gavg) {
          const float ga = R<T>(detail::lerp(float(gavg[i]), g, keep));
          gavg[i] = T(ga);
          d = R<T>(std::sqrt(R<T>(detail::addcmul(vi, ga, ga, -1.0f))));
        } else {
          d = R<T>(std::sqrt(vi));
        }
        d = R<T>(d + eps);
        if (buf) {
          const float b = R<T>(R<T>(float(buf[i]) * mu) + g / d);
          buf[i] = T(b);
          w[i] = T(float(w[i]) + lr_t * b);
        } else {
          w[i] = T(float(w[i]) + lr * g / d);
        }
      }
    } else {
      const T lr = T(o.lr()), alpha = T(o.alpha()), eps = T(o.eps()), wd = T(o.weight_decay()), mu = T(o.momentum());
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
    }
  });
}

}  // namespace seqlab::optim
