// The Optimizer base: parameter groups, defaults, per-parameter state, zero_grad.
#include "seqlab/optim/optimizer.hpp"

#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"

namespace seqlab::optim {

void Optimizer::override_defaults(const Options& user) {
  for (const auto& [k, v] : user) {
    SEQLAB_CHECK_VALUE(defaults_.count(k), name(), ": unknown option '", k, "'");
    defaults_[k] = v;
  }
}

void Optimizer::add_param_group(std::vector<Tensor> params, const Options& options) {
  SEQLAB_CHECK_VALUE(!params.empty(), name(), ": optimizer got an empty parameter list");
  for (const Tensor& p : params) {
    SEQLAB_CHECK_VALUE(p.defined() && p.is_leaf(), name(), ": can't optimize a non-leaf Tensor");
    SEQLAB_CHECK_VALUE(is_floating(p.dtype()), name(), ": can only optimize floating point tensors, got ",
                       dtype_name(p.dtype()));
    SEQLAB_CHECK_VALUE(p.is_contiguous(), name(), ": parameters must be contiguous (got strides ",
                       shape_str(p.strides()), " for shape ", shape_str(p.shape()), ")");
    for (const ParamGroup& g : groups_)
      for (const Tensor& q : g.params)
        SEQLAB_CHECK_VALUE(q.impl() != p.impl(), name(), ": some parameters appear in more than one parameter group");
  }
  Options full = defaults_;
  for (const auto& [k, v] : options) {
    SEQLAB_CHECK_VALUE(defaults_.count(k), name(), ": unknown option '", k, "'");
    full[k] = v;
  }
  validate(full);
  groups_.push_back({std::move(params), std::move(full)});
}

void Optimizer::set_option(size_t group, const std::string& key, double value) {
  SEQLAB_CHECK_INDEX(group < groups_.size(), name(), ": no parameter group ", group);
  SEQLAB_CHECK_VALUE(defaults_.count(key), name(), ": unknown option '", key, "'");
  Options o = groups_[group].options;
  o[key] = value;
  validate(o);
  groups_[group].options = std::move(o);
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard ng;
  for (ParamGroup& g : groups_)
    for (Tensor& p : g.params) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
      } else {
        zero_(grad);
      }
    }
}

}  // namespace seqlab::optim
