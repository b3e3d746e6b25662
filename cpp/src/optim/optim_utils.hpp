// Shared by the optimizer files: the loop over parameters that have gradients, with raw
// typed pointers to the parameter, its gradient and a state tensor created on demand.
#pragma once
#include <cmath>

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
  if (it == st.end()) it = st.emplace(key, full(p.shape(), init, p.dtype())).first;
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
      dispatch_float(p.dtype(), opt.name(), [&](auto tag) {
        using T = decltype(tag);
        f(tag, p, static_cast<T*>(p.raw_data()), static_cast<const T*>(g.raw_data()), p.numel(), o, st);
      });
      p.bump_version();
    }
  }
}

}  // namespace seqlab::optim::detail
