"""Grad mode (no_grad, enable_grad, set_grad_enabled) and gradcheck, as torch.autograd.

The engine itself is C++ (cpp/src/autograd/engine.cpp); see DESIGN.md "Autograd"."""
import functools
import warnings

import numpy as np

from . import _core


class _GradModeContext:
    """Base of the grad-mode context managers: usable as `with` and as a decorator."""

    _mode = True

    def __enter__(self):
        self._prev = _core.is_grad_enabled()
        _core._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _core._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Disable gradient recording: ops inside produce tensors without history."""
    _mode = False


class inference_mode(_GradModeContext):
    """torch.inference_mode: no gradient recording while mode is True (seqlab has no separate
    inference tensors, so this is no_grad); a context manager or a decorator, with or without ()."""

    def __new__(cls, mode=True):
        if callable(mode):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self._mode = not bool(mode)

    def __call__(self, fn):
        enabled = not self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(enabled):
                return fn(*args, **kwargs)
        return wrapper


class enable_grad(_GradModeContext):
    """Enable gradient recording inside a no_grad block."""
    _mode = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode on or off; works as a function call, a context manager or a decorator."""

    def __init__(self, mode):
        self._prev = _core.is_grad_enabled()
        self._mode = bool(mode)
        _core._set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _core._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        mode = self._mode
        _core._set_grad_enabled(self._prev)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


def _seed_grads(tensors, grad_tensors, check_shapes=False):
    """(tensors, the gradients the sweep starts from) as lists: a missing gradient of a
    one-element tensor is 1, as torch's backward and grad."""
    from ._tensor import ones_like
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
            raise RuntimeError(f"Mismatch in shape: grad_output has a shape of {tuple(g.shape)} and output has a "
                               f"shape of {tuple(t.shape)}.")
        grads.append(g)
    return tensors, grads


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Run backward from several tensors at once (torch.autograd.backward)."""
    tensors, grads = _seed_grads(tensors, grad_tensors)
    _core._run_backward(tensors, grads, bool(retain_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """d(Σ_k outputs_k · grad_outputs_k) / d inputs, as torch.autograd.grad: a tuple with one
    gradient per input, and no tensor's .grad is changed. grad_outputs may be left out for
    one-element outputs (then 1). An input the outputs do not depend on is an error unless
    allow_unused (then None, or zeros with materialize_grads). seqlab has no double backward, so
    create_graph=True and is_grads_batched=True raise."""
    from ._tensor import zeros_like
    if create_graph:
        raise NotImplementedError("autograd.grad: create_graph=True needs double backward, which seqlab does not "
                                  "have (the backward computes plain tensors)")
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


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree."""


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Compare the gradients of `func` from backward with central finite differences.

    As torch.autograd.gradcheck: `inputs` is a tensor or a tuple of tensors; those that
    require grad are checked (use float64). For every output element o and input element
    x_j:  d o / d x_j ≈ (o(x_j + eps) - o(x_j - eps)) / (2 eps).  Returns True, or raises
    GradcheckError naming the input and the largest difference."""
    from ._tensor import zeros_like
    if isinstance(inputs, _core.Tensor):
        inputs = (inputs,)
    inputs = tuple(inputs)
    diff_inputs = [i for i, x in enumerate(inputs) if isinstance(x, _core.Tensor) and x.requires_grad]
    for i in diff_inputs:
        if inputs[i].dtype != _core.dtype.float64:
            import warnings
            warnings.warn(f"gradcheck: input {i} is {inputs[i].dtype}, not float64; the check may fail from rounding")

    def outputs_of(args):
        with no_grad():
            out = func(*args)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [o.detach().numpy().astype(np.float64).copy() for o in outs if isinstance(o, _core.Tensor)]

    # Numerical Jacobian, one column per input element.
    numerical = {}
    for i in diff_inputs:
        x = inputs[i]
        arr = x.detach().numpy()  # shares memory with x: perturb in place
        cols = []
        for j in np.ndindex(*arr.shape):
            orig = arr[j].copy()
            arr[j] = orig + eps
            plus = outputs_of(inputs)
            arr[j] = orig - eps
            minus = outputs_of(inputs)
            arr[j] = orig
            cols.append([(p - m).ravel() / (2 * eps) for p, m in zip(plus, minus)])
        numerical[i] = cols
    # Analytical Jacobian: one backward per output element.
    out = func(*inputs)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, _core.Tensor)]
    for k, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for e in range(o.numel()):
            for i in diff_inputs:
                inputs[i].grad = None
            g = zeros_like(o)
            g.view(-1)[e] = 1.0
            o.backward(g, retain_graph=True)
            for i in diff_inputs:
                grad = inputs[i].grad
                ana = np.zeros(inputs[i].shape).ravel() if grad is None else grad.numpy().astype(np.float64).ravel()
                num = np.array([col[k][e] for col in numerical[i]])
                if not np.allclose(ana, num, rtol=rtol, atol=atol):
                    worst = int(np.argmax(np.abs(ana - num)))
                    msg = (f"Jacobian mismatch for output {k} element {e} with respect to input {i}: "
                           f"numerical {num[worst]:.8g} vs analytical {ana[worst]:.8g} at input element {worst} "
                           f"(max abs diff {np.max(np.abs(ana - num)):.3g})")
                    if raise_exception:
                        raise GradcheckError(msg)
                    return False
    for i in diff_inputs:
        inputs[i].grad = None
    return True


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _core.Tensor)


class Variable(metaclass=_VariableMeta):
    """torch.autograd.Variable, PyTorch's deprecated wrapper from before tensors carried gradients
    (0.4): Variable(t, requires_grad=False) is a new leaf sharing t's memory, without its history
    (as PyTorch's), requiring gradients if asked; every tensor is a Variable. Old tutorials still
    write it."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            raise TypeError("Variable(): expected a Tensor as data")
        if not isinstance(data, _core.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with seqlab.no_grad():` instead.",
                          stacklevel=2)
        return data.detach().requires_grad_(bool(requires_grad))
