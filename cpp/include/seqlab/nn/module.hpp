// nn::Module for C++ users, the twin of seqlab.nn.Module (python/seqlab/nn/modules/module.py) and of
// torch::nn::Module (torch/csrc/api/include/torch/nn/module.h): named parameters, buffers and
// submodules in registration order, train/eval, zero_grad, state_dict/load_state_dict with
// PyTorch's dotted names, and a pretty_print that mirrors the Python repr.
// cpp/src/nn/module.cpp; tests: cpp/tests/test_nn.cpp.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqlab/tensor.hpp"

namespace seqlab::nn {

class Module {
 public:
  explicit Module(std::string name) : name_(std::move(name)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return name_; }

  // Recursive, in registration order: "weight", "fc1.bias", ...
  std::vector<std::pair<std::string, Tensor>> named_parameters(bool recurse = true) const;
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const { return children_; }

  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  void zero_grad(bool set_to_none = true);

  // Parameters and (persistent) buffers by dotted name.
  std::map<std::string, Tensor> state_dict() const;
  // Copies values in place; strict: missing or unexpected keys throw, as PyTorch's message.
  void load_state_dict(const std::map<std::string, Tensor>& state, bool strict = true);

  // "Linear(in_features=4, out_features=8, bias=True)" and the indented tree for containers.
  virtual std::string repr() const;
  virtual std::string extra_repr() const { return ""; }

 protected:
  Tensor& register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  Tensor& register_buffer(const std::string& name, Tensor t);
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    children_.emplace_back(name, m);
    return m;
  }

  bool training_ = true;

 private:
  void collect(const std::string& prefix, bool recurse, bool buffers,
               std::vector<std::pair<std::string, Tensor>>& out) const;
  std::string name_;
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, Tensor>> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

// A module with one tensor in and one out: what Sequential chains.
class UnaryModule : public Module {
 public:
  using Module::Module;
  virtual Tensor forward(const Tensor& x) = 0;
  Tensor operator()(const Tensor& x) { return forward(x); }
};

// Modules applied in order (torch.nn.Sequential); children are named "0", "1", ...
class Sequential : public UnaryModule {
 public:
  Sequential() : UnaryModule("Sequential") {}
  explicit Sequential(std::vector<std::shared_ptr<UnaryModule>> modules);
  void push_back(std::shared_ptr<UnaryModule> m);
  Tensor forward(const Tensor& x) override;
  size_t size() const { return layers_.size(); }
  std::shared_ptr<UnaryModule> operator[](size_t i) const { return layers_.at(i); }

 private:
  std::vector<std::shared_ptr<UnaryModule>> layers_;
};

// Modules held in a list (torch.nn.ModuleList), named "0", "1", ...; no forward of its own. Its
// repr folds runs of equal children as torch's does: "(0-1): 2 x TransformerEncoderLayer(...)".
class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  void push_back(std::shared_ptr<Module> m) { register_module(std::to_string(size_++), std::move(m)); }
  size_t size() const { return size_; }
  std::shared_ptr<Module> operator[](size_t i) const { return named_children().at(i).second; }
  std::string repr() const override;

 private:
  size_t size_ = 0;
};

}  // namespace seqlab::nn
