"""The private helpers of seqlab.nn's modules: the dtype and device check of a layer's factory
arguments, its uninitialised parameter memory, torch's _single/_pair and its legacy reduction
flags. A leaf: it imports nothing of seqlab.nn, so every module of nn/ may import it."""
import math
import warnings

from .. import _args, _core
from .._core.init import _calculate_fan_in_and_fan_out, kaiming_uniform_, uniform_
from .._dtypes import float32, float64


def _factory(device, dtype):
    """The dtype for a layer's new parameters (device must be the CPU)."""
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError(f"seqlab runs on the CPU only; got device {device!r}")
    if dtype is None:
        return float32
    if dtype not in (float32, float64):
        raise TypeError(f"layers hold floating point parameters (seqlab.float32 or seqlab.float64), got {dtype}")
    return dtype


def _empty(shape, dtype):
    return _core._empty(_args.ints(shape, "empty"), dtype)  # Linear('a', 3): torch's TypeError from empty()


def _reset_kaiming_uniform(weight, bias):
    """torch's default init of Linear and the convolutions: weight kaiming_uniform_(a=sqrt(5)), which is
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and bias (if any) from the same range (0 when fan_in is 0)."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)


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
