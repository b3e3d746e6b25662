// Autograd nodes and hooks written in Python: the node a torch.autograd.Function records (its
// backward calls back into Python, python/seqlab/autograd/function.py) and Tensor.register_hook.
// Follows torch/csrc/autograd/python_function.cpp in behaviour. They hold Python objects, so they
// live here and not in the core. Tests: tests/test_autograd_function.py.
#include <set>

#include "bind_common.hpp"

namespace seqlab::bind {

namespace {

// A Python object the core holds (a hook, a Function's ctx). The core may drop the last
// reference on any thread, with or without the GIL (e.g. inside a released backward): the
// deleter takes the GIL first.
std::shared_ptr<py::object> hold(py::object o) {
  return std::shared_ptr<py::object>(new py::object(std::move(o)), [](py::object* p) {
    if (!Py_IsInitialized()) {  // the interpreter is gone: leak rather than touch it
      p->release();
      delete p;
      return;
    }
    py::gil_scoped_acquire gil;
    delete p;
  });
}

// Node names outlive their nodes (a SavedTensor keeps its producer's name for the error
// message), so each Function's "<Name>Backward" is kept once for the process.
const char* intern(const std::string& name) {
  static std::set<std::string> names;  // (called with the GIL held)
  return names.insert(name).first->c_str();
}

const char* const kFreed =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.";

// The node of one Function.apply: its backward is ctx._backward_from_engine(grads), which calls
// the user's backward and checks what it returns (one gradient per tensor input, or None).
class PyFunctionNode final : public Node {
 public:
  PyFunctionNode(std::shared_ptr<py::object> ctx, const char* name) : ctx_(std::move(ctx)), name_(name) {}
  const char* name() const override { return name_; }

  TensorList apply(TensorList&& grads) override {
    SEQLAB_CHECK(!released_, kFreed);
    py::gil_scoped_acquire gil;  // the engine runs without it
    py::list g;
    for (const Tensor& t : grads) g.append(py::cast(t));  // undefined: None
    // A Python exception leaves here as error_already_set and reaches the caller unchanged.
    py::object result = ctx_->attr("_backward_from_engine")(g);
    TensorList out;
    for (py::handle x : result) out.push_back(x.is_none() ? Tensor() : x.cast<Tensor>());
    return out;
  }
  void release_saved() override {
    saved.clear();
    released_ = true;
  }

  py::object ctx() const { return *ctx_; }
  bool released() const { return released_; }
  std::vector<SavedTensor> saved;  // ctx.save_for_backward (undefined for None)

 private:
  std::shared_ptr<py::object> ctx_;
  const char* name_;
  bool released_ = false;
};

// What a ctx knows of its node: a weak reference (the node holds the ctx; the other way
// round would be a cycle no collector sees).
struct FunctionNodeRef {
  std::weak_ptr<PyFunctionNode> node;

  std::shared_ptr<PyFunctionNode> get() const {
    auto n = node.lock();
    SEQLAB_CHECK(n && !n->released(), kFreed);
    return n;
  }
};

// Function.apply's outputs get the node: differentiable ones as its outputs j (an input returned
// as it is becomes a new alias, as torch's view_as), dirty ones (ctx.mark_dirty) keep their
// identity and take the node as their history (on a view of a tensor requiring grad, through the
// base, as CopySlices).
Tensor attach_output(const std::shared_ptr<PyFunctionNode>& node, const TensorList& inputs, Tensor o, uint32_t j,
                     bool dirty, bool differentiable) {
  if (dirty) {
    SEQLAB_CHECK(!(o.is_leaf() && o.requires_grad()),
                 "a leaf Variable that requires grad has been used in an in-place operation.");
    TensorImpl* impl = o.impl();
    o.bump_version();  // as torch's mark_dirty
    if (!differentiable) return o;
    if (impl->is_view && impl->view_base && Tensor(impl->view_base).requires_grad()) {
      Tensor fresh;
      {
        NoGradGuard no_grad;
        fresh = clone(o);
      }
      fresh.impl()->grad_fn = node;
      fresh.impl()->output_nr = j;
      rebase_history(o, fresh, node->name());
      return o;
    }
    impl->grad_fn = node;
    impl->output_nr = j;
    impl->requires_grad = false;
    return o;
  }
  bool is_input = false;
  for (const Tensor& x : inputs) is_input = is_input || x.impl() == o.impl();
  if (is_input || o.requires_grad()) o = o.detach();  // an input, or a tensor with a history of its own
  if (differentiable) {
    o.impl()->grad_fn = node;
    o.impl()->output_nr = j;
  }
  return o;
}

}  // namespace

py::object node_object(const std::shared_ptr<Node>& n) {
  if (!n) return py::none();
  if (auto* f = dynamic_cast<PyFunctionNode*>(n.get())) return f->ctx();
  return py::cast(n);
}

void bind_py_function(py::module_& m) {
  // --- Tensor.register_hook (python/seqlab/autograd/graph.py checks what the hook returns)
  py::class_<HookHandle>(m, "_HookHandle", "Where a tensor hook is registered; remove() unregisters it.")
      .def("remove", &HookHandle::remove, "Unregister the hook (harmless if already removed).")
      .def_readonly("id", &HookHandle::id);
  m.def("_register_hook", [](const Tensor& t, py::object hook) {
    auto fn = hold(std::move(hook));
    return register_hook(t, [fn](const Tensor& grad) -> Tensor {
      py::gil_scoped_acquire gil;
      py::object r = (*fn)(grad);
      return r.is_none() ? Tensor() : r.cast<Tensor>();
    });
  }, py::arg("tensor"), py::arg("hook"),
        "_register_hook(tensor, hook): hook(grad) -> replacement or None, run when the gradient of tensor is "
        "computed.");
  m.def("_register_post_accumulate_grad_hook", [](const Tensor& t, py::object hook) {
    auto fn = hold(std::move(hook));
    return register_post_accumulate_grad_hook(t, [fn](const Tensor& leaf) {
      py::gil_scoped_acquire gil;
      (*fn)(leaf);
    });
  }, py::arg("tensor"), py::arg("hook"),
        "_register_post_accumulate_grad_hook(tensor, hook): hook(tensor) after backward updated tensor.grad.");

  // --- torch.autograd.Function
  py::class_<FunctionNodeRef>(m, "_FunctionNodeRef", "A Function ctx's link to the node it recorded.")
      .def("saved_tensors", [](const FunctionNodeRef& r) {
        auto n = r.get();
        py::tuple out(n->saved.size());
        for (size_t i = 0; i < n->saved.size(); ++i) out[i] = py::cast(n->saved[i].unpack());
        return out;
      }, "ctx.saved_tensors: what save_for_backward kept, checked against in-place changes since.")
      .def("next_functions", [](const FunctionNodeRef& r) {
        auto n = r.node.lock();
        py::list out;
        if (n)
          for (const Edge& e : n->next_edges) out.append(py::make_tuple(node_object(e.fn), e.fn ? e.input_nr : 0));
        return py::tuple(out);
      }, "((node, input_nr), ...) for the tensor inputs, as Node.next_functions.");
  m.def("_function_record", [](py::object ctx, const std::string& name, const TensorList& inputs,
                               const TensorList& outputs, const std::vector<bool>& dirty,
                               const std::vector<bool>& differentiable, const std::vector<OptTensor>& to_save) {
    SEQLAB_CHECK(dirty.size() == outputs.size() && differentiable.size() == outputs.size(),
                 "_function_record: one flag per output");
    auto node = std::make_shared<PyFunctionNode>(hold(std::move(ctx)), intern(name));
    node->num_outputs = static_cast<uint32_t>(outputs.size());
    attach_node({}, node, inputs);  // one edge per tensor input
    py::list result;
    for (size_t j = 0; j < outputs.size(); ++j)
      result.append(attach_output(node, inputs, outputs[j], static_cast<uint32_t>(j), dirty[j], differentiable[j]));
    for (const OptTensor& t : to_save) node->saved.push_back(t ? SavedTensor(*t) : SavedTensor());  // after dirty
    return py::make_tuple(result, FunctionNodeRef{node});
  }, py::arg("ctx"), py::arg("name"), py::arg("inputs"), py::arg("outputs"), py::arg("dirty"),
        py::arg("differentiable"), py::arg("to_save"),
        "_function_record(ctx, name, inputs, outputs, dirty, differentiable, to_save) -> (outputs, node): record "
        "one Function.apply whose backward is ctx._backward_from_engine.");
}

}  // namespace seqlab::bind
