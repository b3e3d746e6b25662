"""seqlab.autograd, as torch.autograd: grad mode (grad_mode.py), backward and grad (_engine.py),
user-defined Functions (function.py), Tensor hooks (graph.py), the functional API (functional.py),
anomaly detection (anomaly_mode.py), gradcheck and Variable.

The engine itself is C++ (cpp/src/autograd/engine.cpp); see DESIGN.md "Autograd"."""
import warnings

import numpy as np

from .. import _core
from . import forward_ad, functional, grad_mode, graph  # noqa: F401
from ._engine import _seed_grads, backward, grad  # noqa: F401
from .function import Function, once_differentiable  # noqa: F401
from .grad_mode import enable_grad, inference_mode, is_inference_mode_enabled, no_grad, set_grad_enabled  # noqa: F401,E501
from .anomaly_mode import (  # noqa: F401
    detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled, set_detect_anomaly,
)


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree."""


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Compare the gradients of `func` from backward with central finite differences.

    As torch.autograd.gradcheck: `inputs` is a tensor or a tuple of tensors; those that
    require grad are checked (use float64). For every output element o and input element
    x_j:  d o / d x_j ≈ (o(x_j + eps) - o(x_j - eps)) / (2 eps).  Returns True, or raises
    GradcheckError naming the input and the largest difference."""
    from .._tensor import zeros_like
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


def variable(*args, **kwargs):
    """torch.autograd.variable, the function form of Variable from before 0.4: torch keeps the
    name and raises its deprecation error, which names the replacement."""
    raise RuntimeError("seqlab.autograd.variable(...) is deprecated, use seqlab.tensor(...) instead")
