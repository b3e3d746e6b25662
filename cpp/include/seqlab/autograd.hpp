// Reverse-mode automatic differentiation, define-by-run as in PyTorch
// (https://pytorch.org/docs/stable/notes/autograd.html).
//
// Every op that may need a gradient records one Node whose backward is written right
// below its forward, in the op's own file. The recipe (DESIGN.md "Writing an op"):
//
//   Tensor tanh(const Tensor& x) {
//     Tensor y = ...forward kernel...;
//     if (any_requires_grad({x}))
//       // d tanh(x)/dx = 1 - tanh(x)^2
//       attach(y, "TanhBackward", {x}, [y_ = save(y)](const Tensor& dy) -> TensorList {
//         Tensor yy = y_.unpack();
//         return {dy * (1 - yy * yy)};
//       });
//     return y;
//   }
//
// The backward closure gets the gradient of the output (or one per output) and returns one
// gradient per input (undefined = zero / not needed). The engine runs the
// nodes in reverse topological order, accumulates into leaves' .grad and then frees each
// node's saved tensors unless retain_graph. The engine: cpp/src/autograd/engine.cpp;
// in-place ops: inplace.cpp. Tests: tests/test_autograd.py.
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <vector>

#include "seqlab/tensor.hpp"

namespace seqlab {

using TensorList = std::vector<Tensor>;

struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
};

// Tensor.register_hook (torch/csrc/autograd/function_hook.h): a hook gets the gradient arriving at
// its tensor and returns a replacement (undefined = keep it). A non-leaf's hooks live on its
// grad_fn at the tensor's output slot, a leaf's on the tensor (LeafHooks); the engine runs them,
// in registration order, before anything reads that gradient (retain_grad, autograd.grad, the
// node's backward, AccumulateGrad). Tests: tests/test_autograd_function.py.
using GradHook = std::function<Tensor(const Tensor&)>;
struct TensorHook {
  uint64_t id = 0;
  uint32_t slot = 0;  // which output of the node the hooked tensor is
  GradHook fn;
};
// Tensor.register_post_accumulate_grad_hook: called with the leaf once its .grad is updated.
using PostAccumulateGradHook = std::function<void(const Tensor&)>;
struct LeafHooks {
  std::vector<TensorHook> pre;
  std::vector<std::pair<uint64_t, PostAccumulateGradHook>> post_accumulate;
};

class Node {
 public:
  // Releases the edges iteratively: a long chain (total = total + loss over 10^5 steps)
  // destroyed recursively would overflow the stack.
  virtual ~Node();
  // Gradients w.r.t. this node's outputs (undefined = zero) -> gradients w.r.t. its inputs.
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual const char* name() const = 0;
  virtual void release_saved() {}
  // The leaf whose .grad this node accumulates into (AccumulateGrad's `variable`); null otherwise.
  virtual std::shared_ptr<TensorImpl> variable() const { return nullptr; }

  std::vector<Edge> next_edges;  // one per input, fn null where the input needs no gradient
  uint64_t sequence_nr = 0;      // creation order: later nodes run first in backward
  uint32_t num_outputs = 1;
  // Non-leaf outputs that asked for retain_grad(): filled in by the engine.
  std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retained;
  // register_hook on non-leaf outputs of this node (their slots), in registration order.
  std::vector<TensorHook> tensor_pre_hooks;
};

// Grad mode: thread-local, as torch.no_grad() is.
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};
struct NoGradGuard {
  NoGradGuard() : prev_(GradMode::is_enabled()) { GradMode::set_enabled(false); }
  ~NoGradGuard() { GradMode::set_enabled(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};

// A tensor kept for backward. It holds the data without the history (no reference cycle
// when an op saves its own output) and the version at save time, so that an in-place
// change before backward is detected, as PyTorch's version counter does.
class SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor& t);
  Tensor unpack() const;  // throws if modified in place since it was saved
  bool defined() const { return data_.defined(); }

 private:
  Tensor data_;
  uint32_t saved_version_ = 0;
  const char* producer_ = nullptr;  // the node that made it, for the error message
};
inline SavedTensor save(const Tensor& t) { return SavedTensor(t); }

// True when grad mode is on and some input requires grad: only then is a node recorded.
bool any_requires_grad(std::initializer_list<Tensor> inputs);
bool any_requires_grad(const TensorList& inputs);

using BackwardFn = std::function<TensorList(const TensorList&)>;

// The node every op records: a name, its backward closure and the closure's saved state.
class FunctionNode final : public Node {
 public:
  FunctionNode(const char* name, BackwardFn fn) : name_(name), fn_(std::move(fn)) {}
  TensorList apply(TensorList&& grads) override;
  const char* name() const override { return name_; }
  void release_saved() override {
    fn_ = nullptr;
    released_ = true;
  }

 private:
  const char* name_;
  BackwardFn fn_;
  bool released_ = false;
};

// Connect outputs to a new node whose inputs are `inputs`.
void attach_node(const TensorList& outputs, const std::shared_ptr<Node>& node, const TensorList& inputs);

// Record a single-output op: backward(dy) -> one gradient per input.
template <typename F>
void attach(Tensor& out, const char* name, const TensorList& inputs, F&& backward) {
  static_assert(std::is_invocable_r_v<TensorList, F, const Tensor&>, "backward(const Tensor& dy)");
  auto node = std::make_shared<FunctionNode>(
      name, [bw = std::forward<F>(backward)](const TensorList& g) mutable { return bw(g[0]); });
  attach_node({out}, node, inputs);
}

// Record a multi-output op: backward(grads per output, undefined where none flowed).
template <typename F>
void attach_multi(TensorList& outs, const char* name, const TensorList& inputs, F&& backward) {
  auto node = std::make_shared<FunctionNode>(name, std::forward<F>(backward));
  node->num_outputs = static_cast<uint32_t>(outs.size());
  attach_node(outs, node, inputs);
}

// The engine: reverse-mode sweep from `roots` seeded with `grads`.
void run_backward(const TensorList& roots, const TensorList& grads, bool retain_graph);
// The same sweep that, instead of accumulating into leaves' .grad, returns in (*captured)[i] the
// gradient arriving at (*capture)[i] (undefined where none flows): torch.autograd.grad's engine.
void run_backward(const TensorList& roots, const TensorList& grads, bool retain_graph, const TensorList* capture,
                  TensorList* captured);
// torch.autograd.grad: d(Σ outputs·grad_outputs)/d inputs, one tensor per input (undefined where an
// input is not reached); no .grad is changed. Every input must require grad.
TensorList grad(const TensorList& outputs, const TensorList& grad_outputs, const TensorList& inputs,
                bool retain_graph = false);

// A leaf's AccumulateGrad node (created on first use, shared afterwards).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

// Where a registered hook lives, so that remove() finds it even after the tensor is gone or
// has a new grad_fn (torch's RemovableHandle). Removing twice is harmless.
struct HookHandle {
  std::weak_ptr<Node> node;        // a non-leaf's grad_fn
  std::weak_ptr<TensorImpl> leaf;  // or the leaf
  uint64_t id = 0;
  void remove() const;
};
// Tensor.register_hook (the tensor must require grad) and, on leaves only,
// Tensor.register_post_accumulate_grad_hook; torch's errors otherwise.
HookHandle register_hook(const Tensor& t, GradHook fn);
HookHandle register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook fn);

// --- in-place ops under autograd (cpp/src/autograd/inplace.cpp)
// Raise PyTorch's error for an in-place write to a leaf that requires grad (grad mode on), and
// refuse any write to read-only memory (check_writable, tensor.hpp).
void check_inplace(const Tensor& t, const char* op);
// Record an in-place op: write `result` (same shape) into self's storage and give self
// result's history (PyTorch's rebase_history). On a view of a contiguous base, the base is
// rewritten as index_put(base, positions of the view, result) and the view re-reads its
// values from it (PyTorch's CopySlices).
void rebase_history(Tensor& self, const Tensor& result, const char* op);

}  // namespace seqlab
