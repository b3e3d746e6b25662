// Tensor hooks: Tensor.register_hook and register_post_accumulate_grad_hook, and their handles'
// remove(). The engine runs them (engine.cpp, run_tensor_hooks); where they live and in which
// order they run follows torch (https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html).
// Tests: tests/test_autograd_function.py ("hooks").
#include <algorithm>
#include <atomic>

#include "seqlab/autograd.hpp"

namespace seqlab {

namespace {
std::atomic<uint64_t> next_hook_id{0};

template <typename List>
void erase_id(List& hooks, uint64_t id) {
  hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [id](const auto& h) {
    if constexpr (std::is_same_v<std::decay_t<decltype(h)>, TensorHook>) return h.id == id;
    else return h.first == id;
  }), hooks.end());
}

LeafHooks& leaf_hooks(const Tensor& leaf) {
  if (!leaf.impl()->hooks) leaf.impl()->hooks = std::make_shared<LeafHooks>();
  return *leaf.impl()->hooks;
}
}  // namespace

HookHandle register_hook(const Tensor& t, GradHook fn) {
  SEQLAB_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  HookHandle handle;
  handle.id = next_hook_id++;
  if (t.is_leaf()) {  // kept with the tensor: its AccumulateGrad may be made and freed many times
    leaf_hooks(t).pre.push_back(TensorHook{handle.id, 0, std::move(fn)});
    handle.leaf = t.impl_ptr();
  } else {  // on the node that makes the tensor, at its output slot: it outlives the tensor object
    t.grad_fn()->tensor_pre_hooks.push_back(TensorHook{handle.id, t.impl()->output_nr, std::move(fn)});
    handle.node = t.grad_fn();
  }
  return handle;
}

HookHandle register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook fn) {
  SEQLAB_CHECK(leaf.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  SEQLAB_CHECK(leaf.is_leaf(), "post accumulate grad hooks cannot be registered on non-leaf tensors");
  HookHandle handle;
  handle.id = next_hook_id++;
  leaf_hooks(leaf).post_accumulate.emplace_back(handle.id, std::move(fn));
  handle.leaf = leaf.impl_ptr();
  return handle;
}

void HookHandle::remove() const {
  if (auto n = node.lock()) erase_id(n->tensor_pre_hooks, id);
  if (auto l = leaf.lock(); l && l->hooks) {
    erase_id(l->hooks->pre, id);
    erase_id(l->hooks->post_accumulate, id);
  }
}

}  // namespace seqlab
