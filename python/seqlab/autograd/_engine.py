"""The entry points of the C++ backward engine (cpp/src/autograd/engine.cpp): backward and grad,
as torch.autograd.backward and torch.autograd.grad. Tests: tests/test_autograd.py,
tests/test_autograd_grad.py."""
from .. import _core


def _seed_grads(tensors, grad_tensors, check_shapes=False):
    """(tensors, the gradients the sweep starts from) as lists: a missing gradient of a
    one-element tensor is 1, as torch's backward and grad."""
    from .._tensor import ones_like
    tensors = [tensors] if isinstance(tensors, _core.Tensor) else list(tensors)
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    elif isinstance(grad_tensors, _core.Tensor):
        grad_tensors = [grad_tensors]
    grad_tensors = list(grad_tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients")
    grads = []
    for t, g in zip(tensors, grad_tensors):
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = ones_like(t)
        elif check_shapes and tuple(g.shape) != tuple(t.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{len(grads)}] has a shape of {g.shape} and "
                               f"output[{len(grads)}] has a shape of {t.shape}.")
        grads.append(g)
    return tensors, grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Run backward from several tensors at once (torch.autograd.backward). With inputs, only those
    tensors' .grad accumulate (leaves or not, as torch's); create_graph=True needs the double
    backward seqlab does not have."""
    if grad_variables is not None:  # torch's deprecated name
        grad_tensors = grad_variables if grad_tensors is None else grad_tensors
    _refuse_create_graph(create_graph, "backward")
    if inputs is not None:
        inputs = [inputs] if isinstance(inputs, _core.Tensor) else list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        tensors = [tensors] if isinstance(tensors, _core.Tensor) else list(tensors)
        grads = grad(tensors, inputs, grad_tensors, retain_graph=retain_graph, allow_unused=True)
        for x, g in zip(inputs, grads):
            if g is not None:
                x.grad = g if x.grad is None else x.grad + g
        return
    tensors, grads = _seed_grads(tensors, grad_tensors)
    _core._run_backward(tensors, grads, bool(retain_graph))


def _refuse_create_graph(create_graph, op):
    if create_graph:
        raise NotImplementedError(f"autograd.{op}: create_graph=True needs double backward, which seqlab does not "
                                  "have (the backward computes plain tensors)")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """d(Σ_k outputs_k · grad_outputs_k) / d inputs, as torch.autograd.grad: a tuple with one
    gradient per input, and no tensor's .grad is changed. grad_outputs may be left out for
    one-element outputs (then 1). An input the outputs do not depend on is an error unless
    allow_unused (then None, or zeros with materialize_grads). seqlab has no double backward, so
    create_graph=True and is_grads_batched=True raise."""
    from .._tensor import zeros_like
    _refuse_create_graph(create_graph, "grad")
    if is_grads_batched:
        raise NotImplementedError("autograd.grad: is_grads_batched=True is not supported")
    inputs = [inputs] if isinstance(inputs, _core.Tensor) else list(inputs)
    outputs = [outputs] if isinstance(outputs, _core.Tensor) else list(outputs)
    for i, o in enumerate(outputs):
        if not o.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    outputs, seeds = _seed_grads(outputs, grad_outputs, check_shapes=True)
    result = _core._grad(outputs, seeds, inputs, bool(retain_graph))
    if allow_unused is None:
        allow_unused = materialize_grads
    for i, (g, x) in enumerate(zip(result, inputs)):
        if g is None:
            if not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                                   "Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                result[i] = zeros_like(x)
    return tuple(result)
