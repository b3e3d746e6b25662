"""float16 and bfloat16 through the ops composed in Python, as cpp/python/bind_reduced_float.hpp does
for the bound ones: torch computes an op on 16-bit floats in float32 and rounds its result once, so
fn runs on float32 copies of its 16-bit tensor arguments and its float32 results are rounded once
to torch's result dtype. Tests: tests/test_half_dtypes.py."""
import functools

from . import _core

_REDUCED = (_core.dtype.float16, _core.dtype.bfloat16)
_F32 = _core.dtype.float32


def _tensors(args):
    for a in args:
        if isinstance(a, _core.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (t for t in a if isinstance(t, _core.Tensor))


def _up(a, to):
    """a as fn receives it: a 16-bit tensor or dtype as float32; a 0-dim float32/float64 tensor rounded
    to the 16-bit result dtype `to` first, as torch casts an operand to the result dtype."""
    if isinstance(a, _core.Tensor):
        if a.dtype in _REDUCED:
            return a.to(_F32)
        if to in _REDUCED and a.dim() == 0 and a.is_floating_point():
            return a.to(to).to(_F32)
        return a
    if isinstance(a, _core.dtype):
        return _F32 if a in _REDUCED else a
    if isinstance(a, (list, tuple)) and not hasattr(a, "_fields"):
        return type(a)(_up(x, to) for x in a)
    return a


def _down(r, to):
    if isinstance(r, _core.Tensor):
        return r.to(to) if r.dtype == _F32 else r
    if isinstance(r, tuple) and hasattr(r, "_fields"):  # a named tuple (values, indices) keeps its type
        return type(r)(*(_down(x, to) for x in r))
    if isinstance(r, (list, tuple)):
        return type(r)(_down(x, to) for x in r)
    return r


def _result_dtype(tensors):
    """torch's result_type of tensors: those with dims, unless only the 0-d ones are floating."""
    from ._promotion import promote_types
    dims = zero = None
    for t in tensors:
        if t.dim() > 0:
            dims = t.dtype if dims is None else promote_types(dims, t.dtype)
        else:
            zero = t.dtype if zero is None else promote_types(zero, t.dtype)
    if dims is not None and (dims.is_floating_point or zero is None or not zero.is_floating_point):
        return dims
    return zero


def through_float32(fn):
    """fn with float16/bfloat16 tensor (and dtype) arguments computed in float32, its float32 results
    rounded once to the dtype torch's type promotion gives the tensor arguments (or to dtype=)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        found = False
        for a in (*args, *kwargs.values()):
            if isinstance(a, _core.Tensor):
                found = found or a.dtype in _REDUCED
            elif isinstance(a, (list, tuple)):
                found = found or any(isinstance(t, _core.Tensor) and t.dtype in _REDUCED for t in a)
            elif isinstance(a, _core.dtype):
                found = found or a in _REDUCED
        if not found:
            return fn(*args, **kwargs)
        dtype = kwargs.get("dtype")
        to = dtype if isinstance(dtype, _core.dtype) else _result_dtype(list(_tensors((*args, *kwargs.values()))))
        out = fn(*(_up(a, to) for a in args), **{k: _up(v, to) for k, v in kwargs.items()})
        return _down(out, to) if to in _REDUCED else out
    return wrapper


def refuse(kernel, *tensors):
    """torch's NotImplementedError for an op it has no float16/bfloat16 CPU kernel for
    ("\\"cdist\\" not implemented for 'Half'"), if any of the tensors is 16-bit."""
    for t in tensors:
        if isinstance(t, _core.Tensor) and t.dtype in _REDUCED:
            name = "Half" if t.dtype == _core.dtype.float16 else "BFloat16"
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
