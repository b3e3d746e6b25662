"""Anomaly detection, as torch.autograd.anomaly_mode: detect_anomaly / set_detect_anomaly and the
flags torch.is_anomaly_enabled reads. seqlab's engine is C++, so the check runs once the backward is
done: a leaf's .grad holding NaN raises. Tests: tests/test_torch_switches.py."""
import functools
import warnings

from .. import _core


_anomaly = {"enabled": False, "check_nan": True}


def is_anomaly_enabled():
    """Whether anomaly detection is on (torch.is_anomaly_enabled)."""
    return _anomaly["enabled"]


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection checks the backward for NaN (torch.is_anomaly_check_nan_enabled)."""
    return _anomaly["check_nan"]


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns anomaly detection on or off (torch.set_anomaly_enabled)."""
    _anomaly["enabled"], _anomaly["check_nan"] = bool(enabled), bool(check_nan)


class detect_anomaly:
    """torch.autograd.detect_anomaly(check_nan=True): a context manager and a decorator under which
    x.backward() raises a RuntimeError when it leaves NaN in a leaf's .grad. (torch names the
    backward function that first returned NaN and prints the forward's traceback; seqlab's engine is
    C++ and checks the leaves' gradients once the backward is done.)"""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self._prev = dict(_anomaly)
        set_anomaly_enabled(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _anomaly.update(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """torch.autograd.set_detect_anomaly(mode, check_nan=True): anomaly detection on or off, from
    the call until the end of the `with` block it opens (or for good, called alone)."""

    def __init__(self, mode, check_nan=True):
        self._prev = dict(_anomaly)
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _anomaly.update(self._prev)
        return False


def _leaves(root):
    """The leaf tensors the graph of `root` accumulates into, from the next_functions of its nodes."""
    out, seen, kept, stack = [], set(), [], [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        kept.append(node)  # (a wrapper freed early would give its id to the next one)
        leaf = node.variable if node.name() == "AccumulateGrad" else None
        if leaf is not None:
            out.append(leaf)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return out


_plain_backward = _core.Tensor.backward


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """The engine's backward (torch.Tensor.backward's arguments: inputs limits which .grad
    accumulate; create_graph=True needs the double backward seqlab does not have), then under
    detect_anomaly a check that no leaf's gradient holds NaN."""
    if create_graph or inputs is not None:
        from ._engine import backward
        return backward(self, gradient, retain_graph, create_graph, inputs=inputs)
    if not (_anomaly["enabled"] and _anomaly["check_nan"]) or self.grad_fn is None:
        return _plain_backward(self, gradient, retain_graph)
    leaves = _leaves(self)
    _plain_backward(self, gradient, retain_graph)
    for leaf in leaves:
        if leaf.grad is not None and bool(leaf.grad.isnan().any()):
            raise RuntimeError(f"Function 'AccumulateGrad' received nan values: the backward of "
                               f"{self.grad_fn.name()} left NaN in the gradient of a leaf of shape "
                               f"{list(leaf.shape)} (detect_anomaly)")


_backward.__doc__ = (_plain_backward.__doc__ or "") + "\n" + _backward.__doc__
_core.Tensor.backward = _backward
