// Adam (Kingma & Ba 2015) and AdamW (Loshchilov & Hutter 2019), as torch.optim.Adam/AdamW:
//   AdamW: p *= 1 - lr·wd          Adam: g = ∇ + wd·p
//   m = β1·m + (1-β1)·g,  v = β2·v + (1-β2)·g²,  v̂max = max(v̂max, v) (amsgrad)
//   p -= (lr / (1-β1^t)) · m / (sqrt(v) / sqrt(1-β2^t) + eps)
#include "optim_utils.hpp"
#include "seqlab/parallel.hpp"

namespace seqlab::optim {

namespace {
// AdamOptions and AdamWOptions have the same fields and the same checks.
template <typename Options>
void check_adam_options(const Options& o) {
  const auto [b1, b2] = o.betas();
  SEQLAB_CHECK_VALUE(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  SEQLAB_CHECK_VALUE(o.eps() >= 0, "Invalid epsilon value: ", o.eps());
  SEQLAB_CHECK_VALUE(b1 >= 0 && b1 < 1, "Invalid beta parameter at index 0: ", b1);
  SEQLAB_CHECK_VALUE(b2 >= 0 && b2 < 1, "Invalid beta parameter at index 1: ", b2);
  SEQLAB_CHECK_VALUE(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
}

// One Adam step of every parameter; `decoupled` makes it AdamW.
template <typename Options>
void adam_step(OptimizerWithOptions<Options>& opt, bool decoupled) {
  detail::for_each_param(opt, [decoupled](auto tag, const Tensor& p, auto* w, const auto* grad, int64_t n,
                                          const Options& o, std::map<std::string, Tensor>& st) {
    using T = decltype(tag);
    const double lr = o.lr(), eps = o.eps(), wd = o.weight_decay();
    const auto [b1, b2] = o.betas();
    const bool amsgrad = o.amsgrad(), maximize = o.maximize();
    T* m = detail::state_like(st, "exp_avg", p).template data<T>();
    T* v = detail::state_like(st, "exp_avg_sq", p).template data<T>();
    T* vmax = amsgrad ? detail::state_like(st, "max_exp_avg_sq", p).template data<T>() : nullptr;
    const double t = detail::bump_step(st);
    if constexpr (detail::is_reduced_v<T>) {
      // torch's ops, each rounded: p.mul_(1 - lr·wd) (AdamW) or g = grad.add(p, alpha=wd);
      // m.lerp_(g, 1-β1); v.mul_(β2).addcmul_(g, g, value=1-β2); vmax = maximum(vmax, v);
      // d = (sqrt(v) / sqrt(1-β2^t)).add_(eps); p.addcdiv_(m, d, value=-lr/(1-β1^t))
      using detail::R;
      const float decay = float(1.0 - lr * wd), l2 = R<T>(float(decoupled ? 0.0 : wd)), w1 = float(1 - b1);
      const float fb2 = float(b2), w2 = float(1 - b2), teps = R<T>(float(eps));
      const float bc2 = float(std::sqrt(1.0 - std::pow(b2, t))), step = float(-(lr / (1.0 - std::pow(b1, t))));
      parallel_for(n, 32768, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) {
          if (decoupled && wd != 0) w[i] = T(float(w[i]) * decay);
          float g = maximize ? -float(grad[i]) : float(grad[i]);
          if (!decoupled && wd != 0) g = R<T>(g + l2 * float(w[i]));
          const float mi = R<T>(detail::lerp(float(m[i]), g, w1));
          const float vi = R<T>(detail::addcmul(R<T>(float(v[i]) * fb2), g, g, w2));
          m[i] = T(mi);
          v[i] = T(vi);
          float vv = vi;
          if (vmax) vmax[i] = T(vv = std::max(float(vmax[i]), vi));
          const float d = R<T>(R<T>(R<T>(std::sqrt(vv)) / bc2) + teps);
          w[i] = T(float(w[i]) + step * mi / d);
        }
      });
    } else {
      const T step_size = T(lr / (1.0 - std::pow(b1, t)));
      const T bc2_sqrt = T(std::sqrt(1.0 - std::pow(b2, t)));
      const T decay = T(1.0 - lr * wd), l2 = T(decoupled ? 0.0 : wd), tb1 = T(b1), tb2 = T(b2), teps = T(eps);
      // Elementwise, so the pool may split it: the same values as one loop, in a quarter of the time
      // on two threads for a transformer's millions of parameters.
      parallel_for(n, 32768, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) {
          if (decoupled && wd != 0) w[i] *= decay;  // as torch: skipped at 0 (lr = inf would give inf·0)
          T g = maximize ? -grad[i] : grad[i];
          if (l2 != T(0)) g += l2 * w[i];
          m[i] += (g - m[i]) * (T(1) - tb1);  // = β1·m + (1-β1)·g, written as PyTorch's lerp
          v[i] = tb2 * v[i] + (T(1) - tb2) * g * g;
          T vv = v[i];
          if (vmax) vv = vmax[i] = std::max(vmax[i], v[i]);
          w[i] -= step_size * m[i] / (std::sqrt(vv) / bc2_sqrt + teps);
        }
      });
    }
  });
}
}  // namespace

void AdamOptions::validate() const { check_adam_options(*this); }
void AdamWOptions::validate() const { check_adam_options(*this); }

void Adam::step() { adam_step(*this, /*decoupled=*/false); }
void AdamW::step() { adam_step(*this, /*decoupled=*/true); }

}  // namespace seqlab::optim
