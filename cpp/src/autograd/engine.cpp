// The backward engine: a reverse topological sweep over the recorded nodes (Kahn's algorithm
// on the dependency counts), gradient accumulation into leaves, freeing of saved tensors,
// and the Tensor methods that start or shape it (backward, retain_grad).
// Follows torch/csrc/autograd/engine.cpp in behaviour, not in machinery.
#include <algorithm>
#include <atomic>
#include <unordered_map>

#include "ops_used.hpp"

namespace seqlab {

namespace {
thread_local bool grad_enabled = true;
std::atomic<uint64_t> next_sequence_nr{0};
}  // namespace

Node::~Node() {
  thread_local bool draining = false;
  thread_local std::vector<std::shared_ptr<Node>> pending;
  for (Edge& e : next_edges)
    if (e.fn) pending.push_back(std::move(e.fn));
  next_edges.clear();
  if (draining) return;  // an outer destructor is draining the stack
  draining = true;
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    n.reset();  // if this was the last reference, its destructor pushes its edges and returns
  }
  draining = false;
}

bool GradMode::is_enabled() { return grad_enabled; }
void GradMode::set_enabled(bool enabled) { grad_enabled = enabled; }

SavedTensor::SavedTensor(const Tensor& t) {
  if (!t.defined()) return;
  data_ = t.detach();  // no history: an op may save its own output without a cycle
  saved_version_ = t.version();
  producer_ = t.grad_fn() ? t.grad_fn()->name() : nullptr;
}

Tensor SavedTensor::unpack() const {
  if (data_.defined() && data_.version() != saved_version_) {
    throw std::runtime_error(str_cat(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [",
        dtype_name(data_.dtype()), " ", shape_str(data_.shape()), "]",
        producer_ ? str_cat(", which is output 0 of ", producer_, ",") : std::string(","), " is at version ",
        data_.version(), "; expected version ", saved_version_,
        " instead. Hint: replace the in-place op (x += ..., x.mul_(...), x[...] = ...) by its out-of-place form."));
  }
  return data_;
}

bool any_requires_grad(std::initializer_list<Tensor> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}
bool any_requires_grad(const TensorList& inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

TensorList FunctionNode::apply(TensorList&& grads) {
  SEQLAB_CHECK(!released_, "Trying to backward through the graph a second time (or directly access saved tensors "
                           "after they have already been freed). Saved intermediate values of the graph are freed "
                           "when you call .backward(). Specify retain_graph=True if you need to backward through "
                           "the graph a second time (in ", name_, ").");
  return fn_(grads);
}

// Adds the incoming gradient into a leaf's .grad (in place once it exists, as PyTorch does).
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : leaf_(std::move(leaf)) {}
  const char* name() const override { return "AccumulateGrad"; }
  std::shared_ptr<TensorImpl> variable() const override { return leaf_; }
  TensorList apply(TensorList&& grads) override {
    Tensor g = grads[0];
    if (!g.defined()) return {};
    Tensor leaf(leaf_);
    SEQLAB_CHECK(g.shape() == leaf.shape(), "AccumulateGrad: gradient of shape ", shape_str(g.shape()),
                 " for a leaf of shape ", shape_str(leaf.shape()));
    if (g.dtype() != leaf.dtype()) g = to_dtype(g, leaf.dtype());
    if (!leaf_->grad) {
      // Steal the buffer when nobody else holds it; otherwise keep a private copy.
      const bool steal = g.impl_ptr().use_count() <= 2 && g.is_contiguous() && !g.impl()->is_view &&
                         g.impl()->storage.use_count() == 1;
      leaf_->grad = steal ? g.detach().impl_ptr() : clone(g).impl_ptr();
    } else if (is_reduced_float(g.dtype())) {
      Tensor acc(leaf_->grad);  // float16/bfloat16: summed in float32, rounded once, as torch's kernels
      copy_(acc, add(to_dtype(acc, Dtype::Float32), to_dtype(g, Dtype::Float32), 1.0));
    } else {
      Tensor acc(leaf_->grad);
      add_(acc, g, 1.0);
    }
    return {};
  }

 private:
  std::shared_ptr<TensorImpl> leaf_;
};

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  TensorImpl* impl = leaf.impl();
  if (auto acc = impl->grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(leaf.impl_ptr());
  impl->grad_accumulator = acc;
  return acc;
}

void attach_node(const TensorList& outputs, const std::shared_ptr<Node>& node, const TensorList& inputs) {
  node->sequence_nr = next_sequence_nr++;
  node->next_edges.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    if (x.grad_fn())
      node->next_edges[i] = Edge{x.grad_fn(), x.impl()->output_nr};
    else
      node->next_edges[i] = Edge{grad_accumulator(x), 0};
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    TensorImpl* o = outputs[j].impl();
    o->grad_fn = node;
    o->output_nr = static_cast<uint32_t>(j);
  }
}

// Tensor.register_hook (hooks.cpp): the hooks of the tensors whose gradients `in` holds, in
// registration order: a leaf's at its AccumulateGrad, a non-leaf's at its slot of grad_fn. They
// run on a copy of the list, since a hook may remove itself.
static void run_tensor_hooks(Node* n, TensorList& in) {
  std::vector<TensorHook> hooks;
  if (auto leaf = n->variable()) {
    if (leaf->hooks) hooks = leaf->hooks->pre;
  } else {
    hooks = n->tensor_pre_hooks;
  }
  for (const TensorHook& h : hooks)
    if (h.slot < in.size() && in[h.slot].defined())
      if (Tensor r = h.fn(in[h.slot]); r.defined()) in[h.slot] = std::move(r);
}

// Tensor.register_post_accumulate_grad_hook: once a leaf's .grad holds this backward's gradient.
static void run_post_accumulate_hooks(Node* n) {
  auto leaf = n->variable();
  if (!leaf || !leaf->hooks || leaf->hooks->post_accumulate.empty()) return;
  const auto hooks = leaf->hooks->post_accumulate;
  for (const auto& h : hooks) h.second(Tensor(leaf));
}

static void accumulate(TensorList& buffer, uint32_t slot, const Tensor& g) {
  if (buffer.size() <= slot) buffer.resize(slot + 1);
  if (!buffer[slot].defined())
    buffer[slot] = g;
  else if (is_reduced_float(g.dtype()) && buffer[slot].dtype() == g.dtype())  // summed in float32, rounded once
    buffer[slot] = to_dtype(add(to_dtype(buffer[slot], Dtype::Float32), to_dtype(g, Dtype::Float32), 1.0), g.dtype());
  else
    buffer[slot] = add(buffer[slot], g, 1.0);
}

void run_backward(const TensorList& roots, const TensorList& grads, bool retain_graph) {
  run_backward(roots, grads, retain_graph, nullptr, nullptr);
}

TensorList grad(const TensorList& outputs, const TensorList& grad_outputs, const TensorList& inputs,
                bool retain_graph) {
  for (size_t i = 0; i < inputs.size(); ++i)
    SEQLAB_CHECK(inputs[i].defined() && inputs[i].requires_grad(), "One of the differentiated Tensors (input ", i,
                 ") does not require grad");
  TensorList result(inputs.size());
  run_backward(outputs, grad_outputs, retain_graph, &inputs, &result);
  return result;
}

void run_backward(const TensorList& roots, const TensorList& grads, bool retain_graph, const TensorList* capture,
                  TensorList* captured) {
  NoGradGuard no_grad;  // backward computes plain tensors (no double backward)
  // autograd.grad: the gradient arriving at each captured input's node (its grad_fn at its
  // output slot, or a leaf's AccumulateGrad), and no leaf's .grad is touched.
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> wanted;
  if (capture)
    for (size_t i = 0; i < capture->size(); ++i) {
      const Tensor& x = (*capture)[i];
      if (x.grad_fn()) wanted[x.grad_fn().get()].emplace_back(x.impl()->output_nr, i);
      else wanted[grad_accumulator(x).get()].emplace_back(0, i);
    }

  // The node each root starts from.
  std::vector<std::pair<std::shared_ptr<Node>, uint32_t>> starts;
  for (const Tensor& r : roots)
    starts.emplace_back(r.grad_fn() ? r.grad_fn() : grad_accumulator(r), r.grad_fn() ? r.impl()->output_nr : 0);

  // 1. Dependency counts: how many edges point at each node reachable from the roots.
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> stack;
  for (auto& s : starts) {
    if (deps.emplace(s.first.get(), 0).second) stack.push_back(s.first.get());
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.fn) continue;
      auto it = deps.find(e.fn.get());
      if (it == deps.end()) {
        deps.emplace(e.fn.get(), 1);
        stack.push_back(e.fn.get());
      } else {
        ++it->second;
      }
    }
  }

  // 2. Seed the roots' input buffers, then run every node once all its inputs arrived.
  std::unordered_map<Node*, TensorList> buffers;
  for (size_t i = 0; i < starts.size(); ++i) accumulate(buffers[starts[i].first.get()], starts[i].second, grads[i]);
  std::vector<Node*> ready;
  for (auto& s : starts)
    if (deps[s.first.get()] == 0 && std::find(ready.begin(), ready.end(), s.first.get()) == ready.end())
      ready.push_back(s.first.get());

  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    TensorList in;
    if (auto it = buffers.find(n); it != buffers.end()) {
      in = std::move(it->second);
      buffers.erase(it);
    }
    in.resize(n->num_outputs);
    run_tensor_hooks(n, in);  // before anything reads the gradients, as torch's tensor pre-hooks
    if (capture) {
      if (auto w = wanted.find(n); w != wanted.end())
        for (auto [slot, i] : w->second)
          if (slot < in.size() && in[slot].defined()) (*captured)[i] = in[slot];
      if (dynamic_cast<AccumulateGrad*>(n)) {  // grad() leaves every .grad alone
        if (!retain_graph) n->release_saved();
        continue;
      }
    }
    for (auto& [slot, weak] : n->retained) {
      if (capture) break;
      if (auto impl = weak.lock(); impl && slot < in.size() && in[slot].defined())
        impl->grad = clone(in[slot]).impl_ptr();
    }
    bool any = false;
    for (const Tensor& g : in) any |= g.defined();
    TensorList out;
    if (any) out = n->apply(std::move(in));
    if (any && !capture) run_post_accumulate_hooks(n);
    if (!retain_graph) n->release_saved();
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.fn) continue;
      if (i < out.size() && out[i].defined()) accumulate(buffers[e.fn.get()], e.input_nr, out[i]);
      if (--deps[e.fn.get()] == 0) ready.push_back(e.fn.get());
    }
  }
}

// ---------------------------------------------------------------- Tensor's autograd methods
void Tensor::retain_grad() {
  SEQLAB_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // leaves keep their grad anyway
  if (impl_->retains_grad) return;
  impl_->retains_grad = true;
  impl_->grad_fn->retained.emplace_back(impl_->output_nr, impl_);
}

// A one-element tensor equal to 1: the implicit gradient of a scalar output.
static Tensor one_like(const Tensor& t) {
  Tensor one = Tensor::empty(t.shape(), t.dtype());
  switch (t.dtype()) {  // (only floating tensors require grad; the rest cannot reach here)
    case Dtype::Float32: *one.data<float>() = 1.0f; break;
    case Dtype::Float64: *one.data<double>() = 1.0; break;
    case Dtype::Float16: *one.data<Half>() = Half(1.0f); break;
    case Dtype::BFloat16: *one.data<BFloat16>() = BFloat16(1.0f); break;
    default: SEQLAB_CHECK(false, "grad can be implicitly created only for real scalar outputs, got ", dtype_name(t.dtype()));
  }
  return one;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  SEQLAB_CHECK(requires_grad(), "element 0 of tensors does not require grad and does not have a grad_fn");
  Tensor g = gradient;
  if (!g.defined()) {
    SEQLAB_CHECK(numel() == 1, "grad can be implicitly created only for scalar outputs (got a tensor of shape ",
                 shape_str(shape()), ")");
    g = one_like(*this);
  } else {
    SEQLAB_CHECK(g.shape() == shape(), "backward: Mismatch in shape: grad_output[0] has a shape of ",
                 shape_str(g.shape()), " and output[0] has a shape of ", shape_str(shape()), ".");
    if (g.dtype() != dtype()) g = to_dtype(g, dtype());
  }
  run_backward({*this}, {g}, retain_graph);
}

}  // namespace seqlab
