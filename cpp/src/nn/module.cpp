// nn::Module and the basic layers for C++ users; the Python twins are in python/seqlab/nn/.
#include "seqlab/nn/module.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include "seqlab/autograd.hpp"
#include "seqlab/nn/init.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/norm.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/shape.hpp"
#include "seqlab/ops/activation.hpp"

namespace seqlab::nn {

Tensor& Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  if (t.defined()) t.set_requires_grad(requires_grad);
  params_.emplace_back(name, std::move(t));
  return params_.back().second;
}

Tensor& Module::register_buffer(const std::string& name, Tensor t) {
  buffers_.emplace_back(name, std::move(t));
  return buffers_.back().second;
}

void Module::collect(const std::string& prefix, bool recurse, bool buffers,
                     std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const auto& [n, t] : buffers ? buffers_ : params_)
    if (t.defined()) out.emplace_back(prefix + n, t);
  if (!recurse) return;
  for (const auto& [n, m] : children_) m->collect(prefix + n + ".", true, buffers, out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect("", recurse, false, out);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_parameters(recurse)) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect("", recurse, true, out);
  return out;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [n, m] : children_) m->train(on);
}

void Module::zero_grad(bool set_to_none) {
  NoGradGuard ng;
  for (Tensor& p : parameters()) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
    } else {
      Tensor g = p.grad();
      zero_(g);
    }
  }
}

std::map<std::string, Tensor> Module::state_dict() const {
  std::map<std::string, Tensor> out;
  for (auto& [n, t] : named_parameters()) out[n] = t.detach();
  for (auto& [n, t] : named_buffers()) out[n] = t.detach();
  return out;
}

void Module::load_state_dict(const std::map<std::string, Tensor>& state, bool strict) {
  auto own = named_parameters();
  for (auto& b : named_buffers()) own.push_back(b);
  std::vector<std::string> missing, unexpected, mismatched;
  std::set<std::string> names;
  for (auto& [n, t] : own) {
    names.insert(n);
    auto it = state.find(n);
    if (it == state.end()) {
      missing.push_back(n);
    } else if (it->second.shape() != t.shape()) {
      mismatched.push_back(str_cat("size mismatch for ", n, ": copying a param with shape ",
                                   shape_str(it->second.shape()), " from checkpoint, the shape in current model is ",
                                   shape_str(t.shape()), "."));
    }
  }
  for (auto& [n, t] : state)
    if (!names.count(n)) unexpected.push_back(n);
  std::string err;
  auto quoted = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
    return s;
  };
  if (strict && !unexpected.empty()) err += "\n\tUnexpected key(s) in state_dict: " + quoted(unexpected) + ". ";
  if (strict && !missing.empty()) err += "\n\tMissing key(s) in state_dict: " + quoted(missing) + ". ";
  for (auto& m : mismatched) err += "\n\t" + m;
  SEQLAB_CHECK(err.empty(), "Error(s) in loading state_dict for ", name_, ":", err);
  NoGradGuard ng;
  for (auto& [n, t] : own) {
    auto it = state.find(n);
    if (it != state.end()) {
      Tensor dst = t;
      copy_(dst, it->second);
    }
  }
}

std::string Module::repr() const {
  std::string head = name_ + "(" + extra_repr();
  if (children_.empty()) return head + ")";
  std::ostringstream os;
  os << head << "\n";
  for (auto& [n, m] : children_) {
    std::string child = m->repr();
    // indent continuation lines by two spaces, as torch's _addindent
    std::string indented;
    for (char c : child) {
      indented += c;
      if (c == '\n') indented += "  ";
    }
    os << "  (" << n << "): " << indented << "\n";
  }
  os << ")";
  return os.str();
}

// ------------------------------------------------------------------ Linear
Linear::Linear(int64_t in, int64_t out, bool with_bias, Dtype dtype)
    : Module("Linear"), in_features(in), out_features(out) {
  SEQLAB_CHECK_VALUE(in >= 0 && out >= 0, "Linear: in_features and out_features must be non-negative, got ", in,
                     " and ", out);
  weight = register_parameter("weight", Tensor::empty({out, in}, dtype));
  if (with_bias) bias = register_parameter("bias", Tensor::empty({out}, dtype));
  reset_parameters();
}

void Linear::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& x) const { return linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return str_cat("in_features=", in_features, ", out_features=", out_features, ", bias=", bias.defined() ? "True" : "False");
}

// ------------------------------------------------------------------ Embedding
Embedding::Embedding(int64_t n, int64_t d, std::optional<int64_t> pad, Dtype dtype)
    : Module("Embedding"), num_embeddings(n), embedding_dim(d),
      padding_idx(pad ? std::optional<int64_t>(*pad < 0 ? *pad + n : *pad) : std::nullopt) {
  SEQLAB_CHECK_VALUE(!padding_idx || (*padding_idx >= 0 && *padding_idx < n),
                     "Embedding: padding_idx must be within num_embeddings");
  weight = register_parameter("weight", Tensor::empty({n, d}, dtype));
  reset_parameters();
}

void Embedding::reset_parameters() {
  init::normal_(weight);
  if (padding_idx) {
    NoGradGuard ng;
    Tensor row = seqlab::select(weight, 0, *padding_idx);
    fill_(row, 0.0);
  }
}

Tensor Embedding::forward(const Tensor& index) const { return embedding(index, weight, padding_idx); }

std::string Embedding::extra_repr() const {
  return str_cat(num_embeddings, ", ", embedding_dim, padding_idx ? str_cat(", padding_idx=", *padding_idx) : "");
}

// ------------------------------------------------------------------ LayerNorm
LayerNorm::LayerNorm(Shape shape, double eps_, bool affine, bool with_bias, Dtype dtype)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(eps_) {
  if (affine) {
    weight = register_parameter("weight", ones(normalized_shape, dtype));
    if (with_bias) bias = register_parameter("bias", zeros(normalized_shape, dtype));
  }
}

Tensor LayerNorm::forward(const Tensor& x) const { return layer_norm(x, normalized_shape, weight, bias, eps); }

std::string LayerNorm::extra_repr() const {
  std::string shape = "(";
  for (size_t i = 0; i < normalized_shape.size(); ++i) shape += std::to_string(normalized_shape[i]) + (normalized_shape.size() == 1 ? "," : (i + 1 < normalized_shape.size() ? ", " : ""));
  shape += ")";
  std::ostringstream e;
  e << eps;
  return str_cat(shape, ", eps=", e.str(), ", elementwise_affine=", weight.defined() ? "True" : "False");
}

// ------------------------------------------------------------------ Dropout
Dropout::Dropout(double p_) : Module("Dropout"), p(p_) {
  SEQLAB_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

Tensor Dropout::forward(const Tensor& x) const { return dropout(x, p, training_); }

std::string Dropout::extra_repr() const {
  std::ostringstream e;
  e << "p=" << p << ", inplace=False";
  return e.str();
}

}  // namespace seqlab::nn
