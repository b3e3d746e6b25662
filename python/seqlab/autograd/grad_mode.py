"""Grad mode, as torch.autograd.grad_mode: no_grad, enable_grad, set_grad_enabled and
inference_mode, each a context manager and a decorator over the C++ thread-local flag
(cpp/include/seqlab/autograd.hpp, GradMode). Tests: tests/test_autograd.py."""
import functools
import threading

from .. import _core

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]


# The modes of the inference_mode blocks this thread entered, innermost last: per thread, as torch's
# (and as grad mode is in the C++ core).
_local = threading.local()


def _inference_modes():
    modes = getattr(_local, "modes", None)
    if modes is None:
        modes = _local.modes = []
    return modes


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

    def __enter__(self):
        _inference_modes().append(not self._mode)  # read by is_inference_mode_enabled
        return super().__enter__()

    def __exit__(self, *exc):
        _inference_modes().pop()
        return super().__exit__(*exc)

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


def is_inference_mode_enabled():
    """True inside `with inference_mode()` (torch.is_inference_mode_enabled); False outside and in
    inference_mode(False)."""
    modes = _inference_modes()
    return bool(modes and modes[-1])
