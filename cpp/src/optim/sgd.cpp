// SGD with momentum, dampening, Nesterov and weight decay (torch.optim.SGD):
//   g = ∇ + wd·p;   b = g (first step) or μ·b + (1-τ)·g;   g = g + μ·b (Nesterov) or b;   p -= lr·g
#include "optim_utils.hpp"

namespace seqlab::optim {

void SGDOptions::validate() const {
  SEQLAB_CHECK_VALUE(lr() >= 0, "Invalid learning rate: ", lr());
  SEQLAB_CHECK_VALUE(momentum() >= 0, "Invalid momentum value: ", momentum());
  SEQLAB_CHECK_VALUE(weight_decay() >= 0, "Invalid weight_decay value: ", weight_decay());
  SEQLAB_CHECK_VALUE(!nesterov() || (momentum() > 0 && dampening() == 0),
                     "Nesterov momentum requires a momentum and zero dampening");
}

void SGD::step() {
  detail::for_each_param(*this, [](auto tag, const Tensor& p, auto* w, const auto* grad, int64_t n,
                                   const SGDOptions& o, std::map<std::string, Tensor>& st) {
    using T = decltype(tag);
    const bool nesterov = o.nesterov(), maximize = o.maximize();
    const bool first = !st.count("momentum_buffer");
    T* buf = o.momentum() != 0 ? detail::state_like(st, "momentum_buffer", p).template data<T>() : nullptr;
    if constexpr (detail::is_reduced_v<T>) {
      // torch's ops, each rounded: g = grad.add(p, alpha=wd); buf.mul_(μ).add_(g, alpha=1-τ);
      // g = g.add(buf, alpha=μ) (Nesterov); p.add_(g, alpha=-lr) (alphas rounded to T)
      using detail::R;
      const float lr = R<T>(float(-o.lr())), mu = float(o.momentum()), mu_t = R<T>(mu);
      const float keep = R<T>(float(1 - o.dampening())), wd = R<T>(float(o.weight_decay()));
      for (int64_t i = 0; i < n; ++i) {
        float g = maximize ? -float(grad[i]) : float(grad[i]);
        if (o.weight_decay() != 0) g = R<T>(g + wd * float(w[i]));
        if (buf) {
          const float b = first ? g : R<T>(R<T>(float(buf[i]) * mu) + keep * g);
          buf[i] = T(b);
          g = nesterov ? R<T>(g + mu_t * b) : b;
        }
        w[i] = T(float(w[i]) + lr * g);
      }
    } else {
      const T lr = T(o.lr()), mu = T(o.momentum()), damp = T(o.dampening()), wd = T(o.weight_decay());
      for (int64_t i = 0; i < n; ++i) {
        T g = maximize ? -grad[i] : grad[i];
        if (wd != T(0)) g += wd * w[i];
        if (buf) {
          buf[i] = first ? g : mu * buf[i] + (T(1) - damp) * g;
          g = nesterov ? g + mu * buf[i] : buf[i];
        }
        w[i] -= lr * g;
      }
    }
  });
}

}  // namespace seqlab::optim
