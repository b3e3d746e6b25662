// Gradient clipping over all parameters at once (torch.nn.utils.clip_grad_norm_ / _value_).
//   total = (Σ_p ||∇p||_q^q)^(1/q)  (max |∇| for q = inf; for q = 0 the number of gradients with a non-zero);  ∇ *= min(1, max_norm / (total + 1e-6))
#include <limits>

#include "optim_utils.hpp"
#include "seqlab/ops/reduce.hpp"

namespace seqlab::optim {

namespace {
// x rounded to the 16-bit dtype d, read back
double round_to(double x, Dtype d) {
  const float f = static_cast<float>(x);
  return d == Dtype::Float16 ? static_cast<float>(Half(f)) : static_cast<float>(BFloat16(f));
}
}  // namespace

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
    // a float16 / bfloat16 gradient's norm: computed in float32 and rounded to its dtype, as torch's
    const bool low = is_reduced_float(g.dtype());
    const double norm = g.numel() ? vector_norm(low ? to_dtype(g, Dtype::Float32) : g, q).item<double>() : 0.0;
    norms.push_back(low ? round_to(norm, g.dtype()) : norm);
  }
  const Tensor all = Tensor::empty({static_cast<int64_t>(norms.size())}, Dtype::Float64);
  std::copy(norms.begin(), norms.end(), all.data<double>());
  const double total = norms.empty() ? 0.0 : vector_norm(all, q).item<double>();
  SEQLAB_CHECK(!error_if_nonfinite || std::isfinite(total), "The total norm of order ", q,
               " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
               "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  const Dtype dtype = grads.empty() ? Dtype::Float32 : grads[0].dtype();
  if (is_reduced_float(dtype)) {
    // torch's ops on the 16-bit total, each rounded: c = (max_norm · reciprocal(total + 1e-6)).clamp(max=1)
    // (1e-6 rounded to the dtype first, as add's scalar), then g.mul_(c)
    const double t = round_to(total, dtype);
    const float c = static_cast<float>(
        std::min(1.0, round_to(round_to(1.0 / round_to(t + round_to(1e-6, dtype), dtype), dtype) * max_norm, dtype)));
    for (Tensor& g : grads) {
      copy_(g, to_dtype(mul(to_dtype(g, Dtype::Float32), full({}, c, Dtype::Float32)), dtype));
      g.bump_version();
    }
    return to_dtype(full({}, t, Dtype::Float32), dtype);
  }
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
