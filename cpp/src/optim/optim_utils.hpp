// Shared by the optimizer files: the loop over parameters that have gradients, with raw
// typed pointers to the parameter, its gradient and a state tensor created on demand.
#pragma once
#include <cmath>
#include <type_traits>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/optim/optimizer.hpp"

namespace seqlab::optim::detail {

// The named state tensor of p, zero-filled (or `init`-filled) like p on first use. The kernels
// index it as p's elements, so one that no longer matches p (p.data = t of another shape after a
// step, or a loaded state) is an error, not a read past its end.
inline Tensor& state_like(std::map<std::string, Tensor>& st, const char* key, const Tensor& p, double init = 0.0) {
  auto it = st.find(key);
  if (it == st.end()) {
    const Dtype d = p.dtype();  // (full has no 16-bit kernel: filled in float32, then rounded)
    it = st.emplace(key, is_reduced_float(d) ? to_dtype(full(p.shape(), init, Dtype::Float32), d)
                                             : full(p.shape(), init, d)).first;
  }
  // model.double() after some steps converts p in place (p.data = ...); the state follows it,
  // as Optimizer.load_state_dict casts state to its parameter's dtype.
  if (it->second.dtype() != p.dtype()) it->second = contiguous(to_dtype(it->second, p.dtype()));
  SEQLAB_CHECK(it->second.shape() == p.shape() && it->second.is_contiguous(), "optimizer state '", key, "' of shape ",
               shape_str(it->second.shape()), " does not match its parameter of shape ", shape_str(p.shape()));
  return it->second;
}

// state["step"] += 1 (a float32 0-d tensor, as PyTorch keeps it); returns the new count.
inline double bump_step(std::map<std::string, Tensor>& st) {
  auto it = st.find("step");
  if (it == st.end()) it = st.emplace("step", zeros({}, Dtype::Float32)).first;
  float* s = it->second.data<float>();
  *s += 1.0f;
  return *s;
}

// float16 / bfloat16 parameters (T = Half, BFloat16) step as torch's single-tensor (foreach=False)
// CPU path does: each torch op of the update loads its 16-bit operands to float32, computes, and
// rounds its result to 16 bits (R below), so the kernels spell torch's op sequence out; the state
// is kept in the parameter's dtype, the step count in float32. The scalars as torch's kernels take
// them: mul_, div, lerp_'s weight and addcmul_/addcdiv_'s value in float32; add(x, y, alpha=a)'s
// alpha and add_(scalar)'s scalar rounded to T first (Adam's eps = 1e-8 is 0 in float16); lerp_
// and addcmul_ with one rounding of a·b + c (fused multiply-add, as torch's vectorised kernels).
template <typename T>
inline constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// One op's float32 result rounded to the storage type T, read back as float32.
template <typename T>
inline float R(float x) { return static_cast<float>(T(x)); }
// torch's lerp(a, b, w) in float32: a + w·(b - a) for |w| < 0.5, else b - (b - a)·(1 - w).
inline float lerp(float a, float b, float w) {
  return std::abs(w) < 0.5f ? std::fma(w, b - a, a) : std::fma(-(b - a), 1.0f - w, b);
}
// addcmul(x, t1, t2, value) = x + value·t1·t2
inline float addcmul(float x, float t1, float t2, float value) { return std::fma(value * t1, t2, x); }

// Calls f(tag, p, T* w, const T* grad, n, options, state) for every parameter with a gradient,
// `options` being its group's typed options, under no-grad, and bumps each parameter's version
// (the update is an in-place write).
template <typename Options, typename F>
void for_each_param(OptimizerWithOptions<Options>& opt, F&& f) {
  NoGradGuard ng;
  for (ParamGroup<Options>& group : opt.param_groups()) {
    const Options& o = group.options;
    for (Tensor& p : group.params) {
      Tensor g = p.grad();
      if (!g.defined()) continue;
      check_writable(p, opt.name());
      // add_param_group checked this, but p.data = t can since have made p a strided view
      SEQLAB_CHECK_VALUE(p.is_contiguous(), opt.name(), ": parameters must be contiguous (got strides ",
                         shape_str(p.strides()), " for shape ", shape_str(p.shape()), ")");
      SEQLAB_CHECK(g.shape() == p.shape(), opt.name(), ": gradient of shape ", shape_str(g.shape()),
                   " for a parameter of shape ", shape_str(p.shape()));
      if (g.dtype() != p.dtype()) g = to_dtype(g, p.dtype());
      g = contiguous(g);
      auto& st = opt.state(p);
      auto call = [&](auto tag) {
        using T = decltype(tag);
        f(tag, p, static_cast<T*>(p.raw_data()), static_cast<const T*>(g.raw_data()), p.numel(), o, st);
      };
      if (p.dtype() == Dtype::Float16)
        call(Half{});
      else if (p.dtype() == Dtype::BFloat16)
        call(BFloat16{});
      else
        dispatch_float(p.dtype(), opt.name(), call);
      p.bump_version();
    }
  }
}

}  // namespace seqlab::optim::detail
