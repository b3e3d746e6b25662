// Optimizers as torch.optim: parameter groups with per-group hyperparameters under
// PyTorch's names ("lr", "momentum", "weight_decay", "beta1"/"beta2" for betas, booleans as
// 0/1), per-parameter state under PyTorch's names ("momentum_buffer", "exp_avg", ...), and a
// step() that updates every parameter of every group in one C++ call (no Python loop per
// parameter). The update rules follow torch/optim/*.py's single-tensor implementations.
// cpp/src/optim/; tests: tests/test_optim.py.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "seqlab/tensor.hpp"

namespace seqlab::optim {

using Options = std::map<std::string, double>;

struct ParamGroup {
  std::vector<Tensor> params;
  Options options;  // complete: the optimizer's defaults fill what the group does not set
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual const char* name() const = 0;
  // One update of every parameter that has a gradient.
  virtual void step() = 0;

  // Adds a group; missing options come from the defaults; options are validated.
  void add_param_group(std::vector<Tensor> params, const Options& options = {});
  void zero_grad(bool set_to_none = true);
  std::vector<ParamGroup>& param_groups() { return groups_; }
  const Options& defaults() const { return defaults_; }
  void set_option(size_t group, const std::string& key, double value);

  // optimizer.state[p]: named state tensors of one parameter (created on first step).
  std::map<std::string, Tensor>& state(const Tensor& p) { return state_[p.impl()]; }
  bool has_state(const Tensor& p) const { return state_.count(p.impl()) > 0; }
  void clear_state() { state_.clear(); }

 protected:
  explicit Optimizer(Options defaults) : defaults_(std::move(defaults)) {}
  // Overrides the built-in defaults with the user's (unknown keys throw); subclasses call it,
  // then validate(defaults_), from their constructors.
  void override_defaults(const Options& user);
  // Throws std::invalid_argument naming the option, as PyTorch's "Invalid learning rate: -1".
  virtual void validate(const Options& o) const = 0;
  static double get(const Options& o, const char* key) { return o.at(key); }

  std::vector<ParamGroup> groups_;
  Options defaults_;
  std::unordered_map<TensorImpl*, std::map<std::string, Tensor>> state_;
};

// momentum=0, dampening=0, weight_decay=0, nesterov=false, maximize=false (lr required)
class SGD final : public Optimizer {
 public:
  explicit SGD(const Options& defaults);
  const char* name() const override { return "SGD"; }
  void step() override;

 protected:
  void validate(const Options& o) const override;
};

// lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0 (1e-2 for AdamW), amsgrad=false,
// maximize=false. AdamW decays the weights directly (Loshchilov & Hutter 2019).
class Adam final : public Optimizer {
 public:
  Adam(const Options& defaults, bool decoupled_weight_decay);
  const char* name() const override { return decoupled_ ? "AdamW" : "Adam"; }
  void step() override;

 protected:
  void validate(const Options& o) const override;

 private:
  bool decoupled_;
};

// lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, maximize=false
class Adagrad final : public Optimizer {
 public:
  explicit Adagrad(const Options& defaults);
  const char* name() const override { return "Adagrad"; }
  void step() override;

 protected:
  void validate(const Options& o) const override;
};

// lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=false, maximize=false
class RMSprop final : public Optimizer {
 public:
  explicit RMSprop(const Options& defaults);
  const char* name() const override { return "RMSprop"; }
  void step() override;

 protected:
  void validate(const Options& o) const override;
};

// torch.nn.utils.clip_grad_norm_: scales all gradients by min(1, max_norm / (total + 1e-6));
// returns the total norm (norm_type = inf for the max-norm) as a 0-d tensor.
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// torch.nn.utils.clip_grad_value_: clamps every gradient to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

}  // namespace seqlab::optim
