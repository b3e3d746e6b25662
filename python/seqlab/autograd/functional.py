"""The functional autograd API, as torch.autograd.functional
(https://pytorch.org/docs/stable/autograd.html#functional-higher-level-api): jacobian, vjp, jvp,
with torch's arguments, tuple conventions and errors. Tests: tests/test_func.py.

seqlab has reverse mode only and no double backward, so:
- jacobian runs one reverse pass per output element (row i of J is the gradient of output
  element i); vectorize and strategy="forward-mode" give the same values the same way.
- jvp (J·v, torch's "double backward trick") is computed from those rows: out_i = Σ_j J_ij v_j.
- hessian, hvp, vhp and create_graph=True need the gradient of a gradient and raise
  NotImplementedError.
"""
import contextlib
import threading

from .. import _core
from ._engine import grad as _grad
from .grad_mode import enable_grad

__all__ = ["jacobian", "vjp", "jvp", "hessian", "hvp", "vhp"]

Tensor = _core.Tensor

_NO_DOUBLE_BACKWARD = ("needs the gradient of a gradient (double backward, create_graph=True), which seqlab does not "
                       "have: its backward computes plain tensors")


# How many differentiating transforms (these functions, seqlab.func's) are running their
# function in this thread: one inside another would need double backward.
_running = threading.local()


@contextlib.contextmanager
def _differentiating(name):
    depth = getattr(_running, "depth", 0)
    if depth:
        raise NotImplementedError(f"{name} inside another differentiating transform (grad, vjp, jvp, jacrev, jacfwd, "
                                  "jacobian) would need the gradient of a gradient (double backward), which seqlab "
                                  "does not have; vmap composes with every transform")
    _running.depth = depth + 1
    try:
        yield
    finally:
        _running.depth = depth


def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tensors as a tuple), with torch's TypeError for anything else."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"{where} has type {type(el)}.")
    return is_tuple, items


def _unpack(res, is_outputs_tuple, is_inputs_tuple=None):
    """Undo _as_tuple: a single tensor where the user gave one (res is per output, then per input)."""
    if is_inputs_tuple is not None and not is_inputs_tuple:
        res = tuple(r[0] for r in res)
    return res if is_outputs_tuple else res[0]


def _fresh_inputs(inputs):
    """Leaves of their own for the function to run on: the caller's tensors keep no history."""
    return tuple(x.detach().requires_grad_(True) for x in inputs)


def _check_outputs_require_grad(outputs, strict):
    if strict:
        for i, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                                   "must be computed in a differentiable manner from the input when running in strict "
                                   "mode.")


def _validate_v(v, refs, is_refs_tuple):
    if len(v) != len(refs):
        if is_refs_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el, ref) in enumerate(zip(v, refs)):
        if tuple(el.shape) != tuple(ref.shape):
            where = f"Entry {i} in " if is_refs_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {ref.shape} but got {el.shape}.")


def _check_no_double_backward(fn_name, create_graph):
    if create_graph:
        raise NotImplementedError(f"{fn_name} with create_graph=True {_NO_DOUBLE_BACKWARD}")


def jacobian_rows(output, inputs):
    """The Jacobian of one output with respect to each input, by one reverse pass per output
    element: [J_j] with J_j of shape output.shape + inputs[j].shape, or None where the output does
    not depend on input j. (Shared with seqlab.func.jacrev.)"""
    from .._tensor import zeros
    n = output.numel()
    if not output.requires_grad:
        return [None] * len(inputs)
    rows = [[] for _ in inputs]
    used = [False] * len(inputs)
    flat = output.reshape(-1)
    for e in range(n):
        seed = zeros(n, dtype=output.dtype)
        seed[e] = 1.0
        grads = _grad(flat, inputs, grad_outputs=seed, retain_graph=True, allow_unused=True)
        for j, g in enumerate(grads):
            used[j] = used[j] or g is not None
            rows[j].append(g)
    result = []
    for j, x in enumerate(inputs):
        if not used[j] and n:
            result.append(None)
            continue
        full = [zeros(tuple(x.shape), dtype=x.dtype) if g is None else g for g in rows[j]]
        shape = tuple(output.shape) + tuple(x.shape)
        result.append(_core.stack(full).reshape(shape) if full else zeros(shape, dtype=x.dtype))
    return result


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs (torch.autograd.functional.jacobian): for a tensor input and
    output, a tensor of shape output.shape + input.shape; for tuples, J[i][j] for output i and input
    j (a tuple per output, or per input when only one side is a tuple). Outputs that do not depend
    on an input give zeros (an error with strict=True). Computed by reverse passes, one per output
    element, whatever vectorize and strategy say."""
    _check_no_double_backward("jacobian", create_graph)
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    if strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                           "supported together. Please either set `strict=False` or `vectorize=False`.")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh_inputs(inputs)
        with _differentiating("autograd.functional.jacobian"):
            outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_outputs_require_grad(outputs, strict)
        result = []
        for i, out in enumerate(outputs):
            row = []
            for j, (J, x) in enumerate(zip(jacobian_rows(out, inputs), inputs)):
                if J is None:
                    if strict:
                        raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                           "This is not allowed in strict mode.")
                    from .._tensor import zeros
                    J = zeros(tuple(out.shape) + tuple(x.shape), dtype=x.dtype)
                row.append(J)
            result.append(tuple(row))
    return _unpack(tuple(result), is_outputs_tuple, is_inputs_tuple)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), vᵀ·J) (torch.autograd.functional.vjp): v has the outputs' shapes (it may be
    left out for a one-element output); one gradient per input, zeros where the output does not
    depend on it (an error with strict=True). The outputs are returned detached."""
    _check_no_double_backward("vjp", create_graph)
    from .._tensor import zeros_like
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh_inputs(inputs)
        with _differentiating("autograd.functional.vjp"):
            outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_outputs_require_grad(outputs, strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
        pairs = [(o, None if v is None else v[i]) for i, o in enumerate(outputs) if o.requires_grad]
        if pairs:
            grads = _grad([o for o, _ in pairs], inputs, grad_outputs=None if v is None else [g for _, g in pairs],
                          allow_unused=True)
        else:
            grads = (None,) * len(inputs)
        result = []
        for i, (g, x) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This "
                                       "is not allowed in strict mode.")
                g = zeros_like(x)
            result.append(g)
    outputs = tuple(o.detach() for o in outputs)
    return _unpack(outputs, is_outputs_tuple), _unpack(tuple(result), is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J·v) (torch.autograd.functional.jvp): v has the inputs' shapes (it may be
    left out for a one-element input). seqlab has no forward mode: each output's J·v is summed
    from its Jacobian rows (one reverse pass per output element), out_i = Σ_j Σ_k J_ijk v_jk."""
    _check_no_double_backward("jvp", create_graph)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh_inputs(inputs)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        else:
            from .._tensor import ones_like
            v = (ones_like(inputs[0]),)
        with _differentiating("autograd.functional.jvp"):
            outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_outputs_require_grad(outputs, strict)
        result = []
        for i, out in enumerate(outputs):
            total = None
            for J, x, vj in zip(jacobian_rows(out, inputs), inputs, v):
                if J is None:
                    continue
                # J: out.shape + x.shape; contract the input dims with v
                term = (J.reshape(out.numel(), x.numel()) @ vj.reshape(-1).to(J.dtype)).reshape(tuple(out.shape))
                total = term if total is None else total + term
            if total is None:
                if strict:
                    raise RuntimeError(f"The gradient with respect to the input is independent of entry {i} in the "
                                       "grad_outputs when using the double backward trick to compute forward mode "
                                       "gradients. This is not allowed in strict mode.")
                from .._tensor import zeros_like
                total = zeros_like(out)
            result.append(total.to(out.dtype))
    outputs = tuple(o.detach() for o in outputs)
    return _unpack(outputs, is_outputs_tuple), _unpack(tuple(result), is_outputs_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """torch.autograd.functional.hessian: not available in seqlab (NotImplementedError), since the
    Hessian is the Jacobian of a gradient and seqlab has no double backward."""
    raise NotImplementedError(f"hessian {_NO_DOUBLE_BACKWARD}")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """torch.autograd.functional.hvp: not available in seqlab (NotImplementedError): it needs
    double backward."""
    raise NotImplementedError(f"hvp {_NO_DOUBLE_BACKWARD}")


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """torch.autograd.functional.vhp: not available in seqlab (NotImplementedError): it needs
    double backward."""
    raise NotImplementedError(f"vhp {_NO_DOUBLE_BACKWARD}")
