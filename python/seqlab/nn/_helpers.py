"""The private helpers of seqlab.nn's modules: the dtype and device check of a layer's factory
arguments, its uninitialised parameter memory, torch's _single/_pair and its legacy reduction
flags. A leaf: it imports nothing of seqlab.nn, so every module of nn/ may import it."""
import warnings

from .. import _args, _core
from .._dtypes import float32, float64, get_default_dtype


def _factory(device, dtype):
    """The dtype for a layer's new parameters (device must be the CPU)."""
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError(f"seqlab runs on the CPU only; got device {device!r}")
    if dtype is None:
        return get_default_dtype()
    if dtype not in (float32, float64, _core.dtype.float16, _core.dtype.bfloat16):
        raise TypeError(f"layers hold floating point parameters (seqlab.float16, seqlab.bfloat16, seqlab.float32 "
                        f"or seqlab.float64), got {dtype}")
    return dtype


def _empty(shape, dtype):
    return _core._empty(_args.ints(shape, "empty"), dtype)  # Linear('a', 3): torch's TypeError from empty()


def _ntuple(value, n):
    """torch's _single/_pair: an int repeated n times; a sequence as a tuple."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _legacy_reduction(size_average, reduce, stacklevel=3):
    """torch's mapping of the deprecated size_average/reduce flags onto reduction (the warning
    points stacklevel frames up: the caller of the function that takes the flags)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                  stacklevel=stacklevel)
    return ret
