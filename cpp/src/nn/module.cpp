// nn::Module and Sequential for C++ users; the Python twins are in python/seqlab/nn/modules/module.py
// and containers.py.
#include "seqlab/nn/module.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"

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

// torch's Module.__repr__: "Name(extra)" on one line when there is one line of extra_repr and no
// child; otherwise each line of extra_repr, then "(child): repr" per child, on lines of their own
// indented by two spaces (a child's own continuation lines too, as torch's _addindent).
std::string Module::repr() const {
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  if (!extra.empty()) {
    std::istringstream in(extra);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  if (children_.empty() && lines.size() <= 1) return name_ + "(" + extra + ")";
  for (auto& [n, m] : children_) lines.push_back("(" + n + "): " + m->repr());
  std::string body;
  for (const std::string& line : lines) {
    body += "\n  ";
    for (char c : line) {
      body += c;
      if (c == '\n') body += "  ";
    }
  }
  return name_ + "(" + body + "\n)";
}

namespace {
// torch's _addindent: every line but the first indented by two spaces.
std::string add_indent(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}
}  // namespace

std::string ModuleList::repr() const {
  const auto children = named_children();
  if (children.empty()) return name() + "()";
  std::ostringstream os;
  os << name() << "(";
  for (size_t start = 0; start < children.size();) {
    const std::string r = children[start].second->repr();
    size_t end = start;
    while (end + 1 < children.size() && children[end + 1].second->repr() == r) ++end;
    if (start == end)
      os << "\n  (" << start << "): " << add_indent(r);
    else
      os << "\n  (" << start << "-" << end << "): " << (end - start + 1) << " x " << add_indent(r);
    start = end + 1;
  }
  os << "\n)";
  return os.str();
}

// ------------------------------------------------------------------ Sequential
Sequential::Sequential(std::vector<std::shared_ptr<UnaryModule>> modules) : UnaryModule("Sequential") {
  for (auto& m : modules) push_back(std::move(m));
}

void Sequential::push_back(std::shared_ptr<UnaryModule> m) {
  register_module(std::to_string(layers_.size()), m);
  layers_.push_back(std::move(m));
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (auto& m : layers_) y = m->forward(y);
  return y;
}

}  // namespace seqlab::nn
