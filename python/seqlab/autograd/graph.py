"""Tensor hooks, as torch's Tensor.register_hook and Tensor.register_post_accumulate_grad_hook
(https://pytorch.org/docs/stable/generated/torch.Tensor.register_hook.html), and the graph's Node.
The engine runs the hooks (cpp/src/autograd/engine.cpp, run_tensor_hooks); this module checks what
a hook returns, in torch's words. Tests: tests/test_autograd_function.py."""
import itertools

from .. import _core

__all__ = ["Node", "RemovableHandle", "register_hook", "register_post_accumulate_grad_hook"]

Node = _core.Node


class RemovableHandle:
    """What register_hook returns (torch.utils.hooks.RemovableHandle): handle.remove() unregisters
    the hook; a context manager that removes it on exit."""

    _ids = itertools.count()

    def __init__(self, core_handle):
        self._core_handle = core_handle
        self.id = next(RemovableHandle._ids)

    def remove(self):
        """Unregister the hook (harmless if already removed)."""
        self._core_handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _checked(hook):
    """hook wrapped so that what it returns is None or a tensor of the gradient's size and type,
    else torch's error (python_hook.cpp's check_single_result). It holds no reference to the tensor:
    a non-leaf's hook lives on the tensor's grad_fn, which the tensor holds."""
    name = getattr(hook, "__name__", type(hook).__name__)

    def run(grad):
        result = hook(grad)
        if result is None:
            return None
        if not isinstance(result, _core.Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
        if result.dtype != grad.dtype:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was {grad.type()} got {result.type()})")
        if tuple(result.shape) != tuple(grad.shape):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        return result

    return run


def register_hook(self, hook):
    """Tensor.register_hook(hook): hook(grad) is called each time the gradient of this tensor is
    computed, before it is used (accumulated into a leaf's .grad, passed further back, kept by
    retain_grad, returned by autograd.grad); it may return a tensor to use instead, or None.
    Hooks run in the order they were registered. Returns a handle whose remove() unregisters it."""
    if not callable(hook):
        raise TypeError(f"register_hook(): hook must be callable, got {type(hook).__name__}")
    return RemovableHandle(_core._register_hook(self, _checked(hook)))


def register_post_accumulate_grad_hook(self, hook):
    """Tensor.register_post_accumulate_grad_hook(hook) on a leaf: hook(tensor) is called after
    backward has accumulated this tensor's gradient into .grad (not by autograd.grad). Its return
    value is ignored. Returns a handle whose remove() unregisters it."""
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook(): hook must be callable, got {type(hook).__name__}")
    return RemovableHandle(_core._register_post_accumulate_grad_hook(self, hook))
