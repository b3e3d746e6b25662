"""User-defined autograd operations, as torch.autograd.Function
(https://pytorch.org/docs/stable/autograd.html#function): a subclass writes a static forward and
backward; Function.apply runs forward under no_grad and records one C++ node whose backward calls
the subclass's backward (cpp/python/bind_py_function.cpp). Tests: tests/test_autograd_function.py.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):            # or forward(x) plus setup_context(ctx, inputs, output)
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):          # one gradient per forward output
            y, = ctx.saved_tensors
            return dy * y               # one gradient per forward input (None for non-tensors)
"""
import functools
import inspect
import warnings

from .. import _core
from .grad_mode import no_grad

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]

Tensor = _core.Tensor


class FunctionCtx:
    """What forward (or setup_context) is given as ctx: it keeps what backward needs."""

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for backward, read back as ctx.saved_tensors. A tensor changed
        in place before backward makes saved_tensors raise torch's "modified by an inplace
        operation" error."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self.to_save = tensors

    def mark_dirty(self, *args):
        """Declare the inputs forward modified in place; each must be returned as an output. They
        keep their identity and take this Function as their history."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Declare outputs that get no gradient (indices, masks): they do not require grad, and
        backward still receives a gradient for each (zeros, or None without materialized grads)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """With True (the default) backward gets zeros for outputs no gradient reached; with
        False it gets None for them."""
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx):
    """The ctx of one Function.apply, which is also the output's grad_fn (torch's
    <Name>Backward class, made for each Function subclass)."""

    _forward_cls = None
    _node = None

    def name(self):
        """The node's name: the Function's name followed by Backward."""
        return type(self).__name__

    @property
    def saved_tensors(self):
        """The tensors save_for_backward kept (torch's error once backward has freed them, or if
        one was changed in place since)."""
        if self._node is not None:
            return self._node.saved_tensors()
        return tuple(getattr(self, "to_save", ()))

    @property
    def next_functions(self):
        """((node, input_nr), ...): where the gradient goes next, one pair per tensor input."""
        return self._node.next_functions() if self._node is not None else ()

    @property
    def metadata(self):
        """A dict for the user's own notes about this node (torch's Node.metadata)."""
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    def apply(self, *grads):
        """Call the Function's backward with this ctx (torch's grad_fn.apply)."""
        return self._forward_cls.backward(self, *grads)

    def _backward_from_engine(self, grads):
        """Called by the engine with one gradient per tensor output (None where none flowed);
        returns one gradient per tensor input, checked as torch's engine checks them."""
        full = [None] * len(self._output_meta)
        for k, j in enumerate(self._tensor_outputs):
            full[j] = grads[k]
        if getattr(self, "materialize_grads", True):
            from .._tensor import zeros
            for j, meta in enumerate(self._output_meta):
                if meta is not None and full[j] is None:
                    full[j] = zeros(meta[0], dtype=meta[1])
        return self._checked_input_grads(self._forward_cls.backward(self, *full))

    def _checked_input_grads(self, result):
        name = self.name()
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._input_meta)
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]
        if len(result) != n:
            raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected {n}, got "
                               f"{len(result)})")
        grads, index = [], 0
        for position, (g, meta) in enumerate(zip(result, self._input_meta)):
            if meta is None:  # not a tensor
                if g is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than None at position "
                                       f"{position + 1}, but the corresponding forward input was not a Variable")
                continue
            shape, dtype, needed = meta
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if g is not None and needed:
                g = _reduce_to(g, shape, name, index)
                if g.dtype != dtype:
                    g = g.to(dtype)
            grads.append(g if needed else None)
            index += 1
        return grads


def _reduce_to(g, shape, name, index):
    """g summed to `shape` where shape broadcasts to g's shape (torch's validate_outputs); else
    torch's error."""
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    fits = lead >= 0 and all(s == gs or s == 1 for s, gs in zip(shape, tuple(g.shape)[lead:]))
    if not fits:
        raise RuntimeError(f"Function {name} returned an invalid gradient at index {index} - got {list(g.shape)} "
                           f"but expected shape compatible with {list(shape)}")
    if lead:
        g = g.sum(dim=tuple(range(lead)))
    ones = tuple(d for d, (s, gs) in enumerate(zip(shape, tuple(g.shape))) if s == 1 and gs != 1)
    return g.sum(dim=ones, keepdim=True) if ones else g


class FunctionMeta(type):
    """Gives each Function subclass its backward class, <Name>Backward (the type of its outputs'
    grad_fn)."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of user-defined autograd operations: write static forward and backward and call
    MyFunction.apply(*args). See the module docstring. Keep tensors for backward with
    ctx.save_for_backward, not as ctx attributes: the node holds ctx, so an output stored on ctx
    is a reference cycle through C++ that is never freed (torch asks the same)."""

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so "
                      "you should invoke them on the class itself. Instantiating an autograd function will raise an "
                      "error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        """forward(ctx, *args, **kwargs) -> output(s), or forward(*args, **kwargs) with setup_context."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """setup_context(ctx, inputs, output): save for backward when forward takes no ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """backward(ctx, *grad_outputs) -> one gradient per forward input (None for non-tensors)."""
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward under no_grad; if grad mode is on and a tensor argument requires grad, the
        tensor outputs get a <Name>Backward node as grad_fn. The inputs, which backward returns
        one gradient each for, are the positional arguments followed by the keyword arguments
        given (in their order), as torch 2.13 counts them."""
        setup_style = _overrides(cls, "setup_context")
        if setup_style:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = cls._backward_cls()
        inputs = tuple(args) + tuple(kwargs.values())
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in inputs)
        with no_grad():
            if setup_style:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        return _record(ctx, inputs, output)


def _overrides(cls, method):
    return getattr(cls, method) is not getattr(Function, method)


def _record(ctx, inputs, output):
    """Give the outputs of one apply their grad_fn (the C++ node calling back into ctx)."""
    outputs = output if isinstance(output, tuple) else (output,)
    dirty = {id(t) for t in getattr(ctx, "dirty_tensors", ())}
    if dirty - {id(o) for o in outputs}:
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                           "The inputs that are modified inplace must all be outputs of the Function.")
    tensor_inputs = [a for a in inputs if isinstance(a, Tensor)]
    if not (_core.is_grad_enabled() and any(a.requires_grad for a in tensor_inputs)):
        return output
    non_differentiable = {id(t) for t in getattr(ctx, "non_differentiable", ())}
    ctx._tensor_outputs = [j for j, o in enumerate(outputs) if isinstance(o, Tensor)]
    tensor_outputs = [outputs[j] for j in ctx._tensor_outputs]
    ctx._output_meta = [(tuple(o.shape), o.dtype) if isinstance(o, Tensor) else None for o in outputs]
    ctx._input_meta = [(tuple(a.shape), a.dtype, a.requires_grad) if isinstance(a, Tensor) else None
                       for a in inputs]
    new_outputs, ctx._node = _core._function_record(
        ctx, type(ctx).__name__, tensor_inputs, tensor_outputs,
        [id(o) in dirty for o in tensor_outputs],
        [id(o) not in non_differentiable and o.dtype.is_floating_point for o in tensor_outputs],
        list(getattr(ctx, "to_save", ())))
    # The node holds ctx: ctx must not hold the outputs (a cycle through C++ that no collector sees).
    for name in ("to_save", "dirty_tensors", "non_differentiable"):
        ctx.__dict__.pop(name, None)
    outputs = list(outputs)
    for j, o in zip(ctx._tensor_outputs, new_outputs):
        outputs[j] = o
    return tuple(outputs) if isinstance(output, tuple) else outputs[0]


def once_differentiable(fn):
    """Decorate a Function's backward that is not itself differentiable: it runs under no_grad.
    (seqlab's backward always does: there is no double backward.)"""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
