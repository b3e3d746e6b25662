// Adagrad (Duchi et al. 2011), as torch.optim.Adagrad:
//   g = ∇ + wd·p,   clr = lr / (1 + (t-1)·lr_decay),   s += g²,   p -= clr · g / (sqrt(s) + eps)
#include "optim_utils.hpp"

namespace seqlab::optim {

void AdagradOptions::validate() const {
  SEQLAB_CHECK_VALUE(lr() >= 0, "Invalid learning rate: ", lr());
  SEQLAB_CHECK_VALUE(lr_decay() >= 0, "Invalid lr_decay value: ", lr_decay());
  SEQLAB_CHECK_VALUE(weight_decay() >= 0, "Invalid weight_decay value: ", weight_decay());
  SEQLAB_CHECK_VALUE(initial_accumulator_value() >= 0, "Invalid initial_accumulator_value value: ",
                     initial_accumulator_value());
  SEQLAB_CHECK_VALUE(eps() >= 0, "Invalid epsilon value: ", eps());
}

void Adagrad::step() {
  detail::for_each_param(*this, [](auto tag, const Tensor& p, auto* w, const auto* grad, int64_t n,
                                   const AdagradOptions& o, std::map<std::string, Tensor>& st) {
    using T = decltype(tag);
    T* s = detail::state_like(st, "sum", p, o.initial_accumulator_value()).template data<T>();
    const double t = detail::bump_step(st);
    if constexpr (detail::is_reduced_v<T>) {
      // torch's ops, each rounded: g = grad.add(p, alpha=wd); s.addcmul_(g, g, value=1);
      // d = s.sqrt().add_(eps); p.addcdiv_(g, d, value=-clr)
      using detail::R;
      const float clr = float(-(o.lr() / (1.0 + (t - 1.0) * o.lr_decay()))), wd = R<T>(float(o.weight_decay()));
      const float eps = R<T>(float(o.eps()));
      const bool maximize = o.maximize();
      for (int64_t i = 0; i < n; ++i) {
        float g = maximize ? -float(grad[i]) : float(grad[i]);
        if (o.weight_decay() != 0) g = R<T>(g + wd * float(w[i]));
        const float si = R<T>(detail::addcmul(float(s[i]), g, g, 1.0f));
        s[i] = T(si);
        const float d = R<T>(R<T>(std::sqrt(si)) + eps);
        w[i] = T(float(w[i]) + clr * g / d);
      }
    } else {
      const T clr = T(o.lr() / (1.0 + (t - 1.0) * o.lr_decay()));
      const T wd = T(o.weight_decay()), eps = T(o.eps());
      const bool maximize = o.maximize();
      for (int64_t i = 0; i < n; ++i) {
        T g = maximize ? -grad[i] : grad[i];
        if (wd != T(0)) g += wd * w[i];
        s[i] += g * g;
        w[i] -= clr * g / (std::sqrt(s[i]) + eps);
      }
    }
  });
}

}  // namespace seqlab::optim
