// nn::Module for C++ users, the twin of seqlab.nn.Module (python/seqlab/nn/module.py) and of
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
  std::string repr() const;
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

// y = x Wᵀ + b, W: (out_features, in_features), initialised as torch.nn.Linear:
// W ~ kaiming_uniform(a=√5) = U(±1/√in), b ~ U(±1/√in).
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true, Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& x) const;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight, bias;
  const int64_t in_features, out_features;
};

// A lookup table (num_embeddings, embedding_dim) ~ N(0, 1); the padding row is zero and gets
// no gradient.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt,
            Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& index) const;
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor weight;
  const int64_t num_embeddings, embedding_dim;
  const std::optional<int64_t> padding_idx;
};

// Layer normalisation over the last dims (Ba et al. 2016); weight 1, bias 0.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true, bool bias = true,
                     Dtype dtype = Dtype::Float32);
  Tensor forward(const Tensor& x) const;
  std::string extra_repr() const override;
  Tensor weight, bias;
  const Shape normalized_shape;
  const double eps;
};

// Inverted dropout in training mode, identity in eval mode.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& x) const;
  std::string extra_repr() const override;
  const double p;
};

}  // namespace seqlab::nn
