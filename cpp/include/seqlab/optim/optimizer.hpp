// Optimizers as torch.optim, with typed options as torch::optim's C++ frontend:
//   optim::SGD opt(model.parameters(), optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
// Each *Options field is named as the Python kwarg, with torch.optim's default; options are
// validated (std::invalid_argument, torch's wording) whenever an optimizer or a group gets them.
// Each parameter group holds its own complete options; per-parameter state uses PyTorch's names
// ("momentum_buffer", "exp_avg", ...); step() updates every parameter of every group in one C++
// call, following torch/optim/*.py's single-tensor code. cpp/src/optim/; tests:
// cpp/tests/test_optim.cpp, tests/test_optim.py.
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "seqlab/arg.hpp"
#include "seqlab/tensor.hpp"

namespace seqlab::optim {

// ---------------------------------------------------------------------------------- options
// One struct per algorithm, as torch::optim::SGDOptions etc. Setters chain; validate() throws
// std::invalid_argument with torch.optim's message ("Invalid learning rate: -1").

// torch.optim.SGD. (torch::optim::SGDOptions has no default lr; torch.optim.SGD's is 1e-3.)
struct SGDOptions {
  /* implicit */ SGDOptions(double lr = 1e-3) : lr_(lr) {}
  void validate() const;

  SEQLAB_ARG(double, lr) = 1e-3;
  SEQLAB_ARG(double, momentum) = 0;
  SEQLAB_ARG(double, dampening) = 0;
  SEQLAB_ARG(double, weight_decay) = 0;  // L2 penalty, added to the gradient
  SEQLAB_ARG(bool, nesterov) = false;    // needs momentum > 0 and dampening == 0
  SEQLAB_ARG(bool, maximize) = false;
};

using betas_t = std::pair<double, double>;  // (β1, β2) of Adam and AdamW

// torch.optim.Adam: L2 weight decay, added to the gradient.
struct AdamOptions {
  /* implicit */ AdamOptions(double lr = 1e-3) : lr_(lr) {}
  void validate() const;

  SEQLAB_ARG(double, lr) = 1e-3;
  SEQLAB_ARG(betas_t, betas) = {0.9, 0.999};
  SEQLAB_ARG(double, eps) = 1e-8;
  SEQLAB_ARG(double, weight_decay) = 0;
  SEQLAB_ARG(bool, amsgrad) = false;
  SEQLAB_ARG(bool, maximize) = false;
};

// torch.optim.AdamW: Adam's fields, but the decay is decoupled and defaults to 1e-2.
struct AdamWOptions {
  /* implicit */ AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  void validate() const;

  SEQLAB_ARG(double, lr) = 1e-3;
  SEQLAB_ARG(betas_t, betas) = {0.9, 0.999};
  SEQLAB_ARG(double, eps) = 1e-8;
  SEQLAB_ARG(double, weight_decay) = 1e-2;  // p *= 1 - lr·weight_decay before the Adam step
  SEQLAB_ARG(bool, amsgrad) = false;
  SEQLAB_ARG(bool, maximize) = false;
};

// torch.optim.Adagrad
struct AdagradOptions {
  /* implicit */ AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  void validate() const;

  SEQLAB_ARG(double, lr) = 1e-2;
  SEQLAB_ARG(double, lr_decay) = 0;
  SEQLAB_ARG(double, weight_decay) = 0;
  SEQLAB_ARG(double, initial_accumulator_value) = 0;
  SEQLAB_ARG(double, eps) = 1e-10;
  SEQLAB_ARG(bool, maximize) = false;
};

// torch.optim.RMSprop
struct RMSpropOptions {
  /* implicit */ RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  void validate() const;

  SEQLAB_ARG(double, lr) = 1e-2;
  SEQLAB_ARG(double, alpha) = 0.99;
  SEQLAB_ARG(double, eps) = 1e-8;
  SEQLAB_ARG(double, weight_decay) = 0;
  SEQLAB_ARG(double, momentum) = 0;
  SEQLAB_ARG(bool, centered) = false;
  SEQLAB_ARG(bool, maximize) = false;
};

// ---------------------------------------------------------------------------------- optimizers

// What every optimizer has, whatever its options: groups of parameters, their state, zero_grad
// and step. The Python seqlab.optim.Optimizer drives one through this interface.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual const char* name() const = 0;
  // One update of every parameter that has a gradient.
  virtual void step() = 0;
  virtual size_t num_param_groups() const = 0;
  virtual const std::vector<Tensor>& params(size_t group) const = 0;
  void zero_grad(bool set_to_none = true);

  // optimizer.state[p]: named state tensors of one parameter (created on first step).
  std::map<std::string, Tensor>& state(const Tensor& p) { return state_[p.impl()]; }
  bool has_state(const Tensor& p) const { return state_.count(p.impl()) > 0; }
  void clear_state() { state_.clear(); }

 protected:
  // Throws std::invalid_argument unless `params` is non-empty, each is a floating-point
  // contiguous leaf, and none is in a group already.
  void check_new_params(const std::vector<Tensor>& params) const;

  std::unordered_map<TensorImpl*, std::map<std::string, Tensor>> state_;
};

// A group of parameters and its options (torch::optim::OptimizerParamGroup): a complete set,
// a copy of the optimizer's defaults unless the group was given its own.
template <typename Options>
struct ParamGroup {
  std::vector<Tensor> params;
  Options options;
};

// The part of an optimizer that knows its options type: the defaults and the typed groups.
// Defined in optimizer.cpp and instantiated there for each *Options above.
template <typename Options>
class OptimizerWithOptions : public Optimizer {
 public:
  // Adds a group with the optimizer's defaults, or with options of its own, e.g.
  // opt.add_param_group(head, AdamOptions(opt.defaults()).lr(1e-4)).
  void add_param_group(std::vector<Tensor> params);
  void add_param_group(std::vector<Tensor> params, Options options);
  // The options of one group, and their replacement after validation (what a scheduler does).
  const Options& options(size_t group) const;
  void set_options(size_t group, Options options);

  const Options& defaults() const { return defaults_; }
  // The groups; an options field changed here directly is not validated.
  std::vector<ParamGroup<Options>>& param_groups() { return groups_; }
  size_t num_param_groups() const override { return groups_.size(); }
  const std::vector<Tensor>& params(size_t group) const override;

 protected:
  explicit OptimizerWithOptions(Options defaults);  // validates them

  Options defaults_;
  std::vector<ParamGroup<Options>> groups_;
};

// SGD with momentum, dampening, Nesterov and weight decay (cpp/src/optim/sgd.cpp).
class SGD final : public OptimizerWithOptions<SGDOptions> {
 public:
  explicit SGD(SGDOptions defaults = {}) : OptimizerWithOptions(std::move(defaults)) {}
  SGD(std::vector<Tensor> params, SGDOptions defaults = {}) : SGD(std::move(defaults)) {
    add_param_group(std::move(params));
  }
  const char* name() const override { return "SGD"; }
  void step() override;
};

// Adam (Kingma & Ba 2015), amsgrad as Reddi et al. 2018 (cpp/src/optim/adam.cpp).
class Adam final : public OptimizerWithOptions<AdamOptions> {
 public:
  explicit Adam(AdamOptions defaults = {}) : OptimizerWithOptions(std::move(defaults)) {}
  Adam(std::vector<Tensor> params, AdamOptions defaults = {}) : Adam(std::move(defaults)) {
    add_param_group(std::move(params));
  }
  const char* name() const override { return "Adam"; }
  void step() override;
};

// AdamW: Adam with decoupled weight decay (Loshchilov & Hutter 2019; cpp/src/optim/adam.cpp).
class AdamW final : public OptimizerWithOptions<AdamWOptions> {
 public:
  explicit AdamW(AdamWOptions defaults = {}) : OptimizerWithOptions(std::move(defaults)) {}
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {}) : AdamW(std::move(defaults)) {
    add_param_group(std::move(params));
  }
  const char* name() const override { return "AdamW"; }
  void step() override;
};

// Adagrad (Duchi et al. 2011; cpp/src/optim/adagrad.cpp).
class Adagrad final : public OptimizerWithOptions<AdagradOptions> {
 public:
  explicit Adagrad(AdagradOptions defaults = {}) : OptimizerWithOptions(std::move(defaults)) {}
  Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {}) : Adagrad(std::move(defaults)) {
    add_param_group(std::move(params));
  }
  const char* name() const override { return "Adagrad"; }
  void step() override;
};

// RMSprop (Hinton's lecture 6e), optionally centered and with momentum (cpp/src/optim/rmsprop.cpp).
class RMSprop final : public OptimizerWithOptions<RMSpropOptions> {
 public:
  explicit RMSprop(RMSpropOptions defaults = {}) : OptimizerWithOptions(std::move(defaults)) {}
  RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {}) : RMSprop(std::move(defaults)) {
    add_param_group(std::move(params));
  }
  const char* name() const override { return "RMSprop"; }
  void step() override;
};

// torch.nn.utils.clip_grad_norm_: scales all gradients by min(1, max_norm / (total + 1e-6));
// returns the total norm (norm_type = inf for the max-norm) as a 0-d tensor.
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// torch.nn.utils.clip_grad_value_: clamps every gradient to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

}  // namespace seqlab::optim
