// The Optimizer base: parameter groups with typed options, per-parameter state, zero_grad.
// Each algorithm's *Options::validate() lives in its own file (sgd.cpp, adam.cpp, ...).
#include "seqlab/optim/optimizer.hpp"

#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"

namespace seqlab::optim {

void Optimizer::check_new_params(const std::vector<Tensor>& params) const {
  SEQLAB_CHECK_VALUE(!params.empty(), name(), ": optimizer got an empty parameter list");
  for (const Tensor& p : params) {
    SEQLAB_CHECK_VALUE(p.defined() && p.is_leaf(), name(), ": can't optimize a non-leaf Tensor");
    SEQLAB_CHECK_VALUE(is_floating(p.dtype()), name(), ": can only optimize floating point tensors, got ",
                       dtype_name(p.dtype()));
    SEQLAB_CHECK_VALUE(p.is_contiguous(), name(), ": parameters must be contiguous (got strides ",
                       shape_str(p.strides()), " for shape ", shape_str(p.shape()), ")");
    for (size_t g = 0; g < num_param_groups(); ++g)
      for (const Tensor& q : this->params(g))
        SEQLAB_CHECK_VALUE(q.impl() != p.impl(), name(), ": some parameters appear in more than one parameter group");
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard ng;
  for (size_t g = 0; g < num_param_groups(); ++g)
    for (Tensor p : params(g)) {  // a handle: the copy shares the parameter's grad
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
      } else {
        zero_(grad);
      }
    }
}

template <typename Options>
OptimizerWithOptions<Options>::OptimizerWithOptions(Options defaults) : defaults_(std::move(defaults)) {
  defaults_.validate();
}

template <typename Options>
void OptimizerWithOptions<Options>::add_param_group(std::vector<Tensor> params) {
  add_param_group(std::move(params), defaults_);
}

template <typename Options>
void OptimizerWithOptions<Options>::add_param_group(std::vector<Tensor> params, Options options) {
  check_new_params(params);
  options.validate();
  groups_.push_back({std::move(params), std::move(options)});
}

template <typename Options>
const Options& OptimizerWithOptions<Options>::options(size_t group) const {
  SEQLAB_CHECK_INDEX(group < groups_.size(), name(), ": no parameter group ", group);
  return groups_[group].options;
}

template <typename Options>
void OptimizerWithOptions<Options>::set_options(size_t group, Options options) {
  SEQLAB_CHECK_INDEX(group < groups_.size(), name(), ": no parameter group ", group);
  options.validate();
  groups_[group].options = std::move(options);
}

template <typename Options>
const std::vector<Tensor>& OptimizerWithOptions<Options>::params(size_t group) const {
  SEQLAB_CHECK_INDEX(group < groups_.size(), name(), ": no parameter group ", group);
  return groups_[group].params;
}

// The one instantiation of the base per options type (the algorithms' files use it).
template class OptimizerWithOptions<SGDOptions>;
template class OptimizerWithOptions<AdamOptions>;
template class OptimizerWithOptions<AdamWOptions>;
template class OptimizerWithOptions<AdagradOptions>;
template class OptimizerWithOptions<RMSpropOptions>;

}  // namespace seqlab::optim
