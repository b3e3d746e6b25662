// RMSprop (Hinton's lecture 6e), as torch.optim.RMSprop:
//   g = ∇ + wd·p,  v = α·v + (1-α)·g²,  centered: ḡ = α·ḡ + (1-α)·g, d = sqrt(v - ḡ²) + eps, else sqrt(v) + eps
//   momentum: b = μ·b + g/d, p -= lr·b;   else p -= lr·g/d
#include "optim_utils.hpp"

namespace seqlab::optim {

RMSprop::RMSprop(const Options& d)
    : Optimizer({{"lr", 1e-2}, {"alpha", 0.99}, {"eps", 1e-8}, {"weight_decay", 0}, {"momentum", 0}, {"centered", 0},
                 {"maximize", 0}}) {
  override_defaults(d);
  validate(defaults_);
}

void RMSprop::validate(const Options& o) const {
  SEQLAB_CHECK_VALUE(get(o, "lr") >= 0, "Invalid learning rate: ", get(o, "lr"));
  SEQLAB_CHECK_VALUE(get(o, "eps") >= 0, "Invalid epsilon value: ", get(o, "eps"));
  SEQLAB_CHECK_VALUE(get(o, "momentum") >= 0, "Invalid momentum value: ", get(o, "momentum"));
  SEQLAB_CHECK_VALUE(get(o, "weight_decay") >= 0, "Invalid weight_decay value: ", get(o, "weight_decay"));
  SEQLAB_CHECK_VALUE(get(o, "alpha") >= 0, "Invalid alpha value: ", get(o, "alpha"));
}

void RMSprop::step() {
  detail::for_each_param(*this, [](auto tag, const Tensor& p, auto* w, const auto* grad, int64_t n, const Options& o,
                                   std::map<std::string, Tensor>& st) {
    using T = decltype(tag);
    const T lr = T(o.at("lr")), alpha = T(o.at("alpha")), eps = T(o.at("eps")), wd = T(o.at("weight_decay")),
            mu = T(o.at("momentum"));
    const bool centered = o.at("centered") != 0, maximize = o.at("maximize") != 0;
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
