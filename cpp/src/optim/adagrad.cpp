// Adagrad (Duchi et al. 2011), as torch.optim.Adagrad:
//   g = ∇ + wd·p,   clr = lr / (1 + (t-1)·lr_decay),   s += g²,   p -= clr · g / (sqrt(s) + eps)
#include "optim_utils.hpp"

namespace seqlab::optim {

Adagrad::Adagrad(const Options& d)
    : Optimizer({{"lr", 1e-2}, {"lr_decay", 0}, {"weight_decay", 0}, {"initial_accumulator_value", 0}, {"eps", 1e-10},
                 {"maximize", 0}}) {
  override_defaults(d);
  validate(defaults_);
}

void Adagrad::validate(const Options& o) const {
  SEQLAB_CHECK_VALUE(get(o, "lr") >= 0, "Invalid learning rate: ", get(o, "lr"));
  SEQLAB_CHECK_VALUE(get(o, "lr_decay") >= 0, "Invalid lr_decay value: ", get(o, "lr_decay"));
  SEQLAB_CHECK_VALUE(get(o, "weight_decay") >= 0, "Invalid weight_decay value: ", get(o, "weight_decay"));
  SEQLAB_CHECK_VALUE(get(o, "initial_accumulator_value") >= 0, "Invalid initial_accumulator_value value: ",
                     get(o, "initial_accumulator_value"));
  SEQLAB_CHECK_VALUE(get(o, "eps") >= 0, "Invalid epsilon value: ", get(o, "eps"));
}

void Adagrad::step() {
  detail::for_each_param(*this, [](auto tag, const Tensor& p, auto* w, const auto* grad, int64_t n, const Options& o,
                                   std::map<std::string, Tensor>& st) {
    using T = decltype(tag);
    T* s = detail::state_like(st, "sum", p, o.at("initial_accumulator_value")).template data<T>();
    const double t = detail::bump_step(st);
    const T clr = T(o.at("lr") / (1.0 + (t - 1.0) * o.at("lr_decay")));
    const T wd = T(o.at("weight_decay")), eps = T(o.at("eps"));
    const bool maximize = o.at("maximize") != 0;
    for (int64_t i = 0; i < n; ++i) {
      T g = maximize ? -grad[i] : grad[i];
      if (wd != T(0)) g += wd * w[i];
      s[i] += g * g;
      w[i] -= clr * g / (std::sqrt(s[i]) + eps);
    }
  });
}

}  // namespace seqlab::optim
