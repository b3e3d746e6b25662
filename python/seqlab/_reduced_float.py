"""float16 and bfloat16 ranges as torch's CPU kernels compute them (aten RangeFactoriesKernel.cpp,
RangeFactories.cpp): each step of arange, linspace and logspace rounded to 16 bits where torch's
does, so the values are torch's bit for bit. NumPy stands in for the 16-bit arithmetic: each
operation in float32, rounded to nearest even once (c10::Half and c10::BFloat16 do the same).
Tests: tests/test_half_tensors.py."""
import warnings

import numpy as np

from . import _core

float16 = _core.dtype.float16
bfloat16 = _core.dtype.bfloat16
REDUCED = (float16, bfloat16)
# c10's names of the types, as its overflow errors print them
_C10_NAMES = {float16: "c10::Half", bfloat16: "c10::BFloat16"}
_MAX = {float16: 65504.0, bfloat16: 3.3895313892515355e38}  # (2 - 2^-10)·2^15, (2 - 2^-7)·2^127
# the random bits torch's uniform draws for a dtype (numeric_limits<T>::digits)
DIGITS = {float16: 11, bfloat16: 8}

_f32 = np.float32


def rounder(dtype):
    """x (float32 values) rounded to dtype, returned as float32 values."""
    return _round_half if dtype == float16 else _round_bfloat16


def _round_half(x):
    with np.errstate(over="ignore"):  # beyond 65504 rounds to inf, as c10::Half
        return np.asarray(x, _f32).astype(np.float16).astype(_f32)


def _round_bfloat16(x):
    # the upper 16 bits of the float32, rounded to nearest even: add 0x7FFF plus the lowest kept bit
    x = np.asarray(x, _f32)
    bits = x.reshape(-1).view(np.uint32).astype(np.uint64)
    kept = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(_f32)
    return np.where(np.isnan(x.reshape(-1)), x.reshape(-1), kept).reshape(x.shape)


def numpy_values(t):
    """t's values as a NumPy array: t.numpy() (memory shared), bfloat16 (which NumPy lacks) as its
    float32 values (a copy)."""
    t = t.detach()
    return t.float().numpy() if t.dtype == bfloat16 else t.numpy()


def to_tensor(values, dtype):
    """float32 values already rounded to dtype, as a tensor of dtype (the conversion is exact)."""
    return _core.from_numpy(np.ascontiguousarray(values, dtype=_f32)).to(dtype)


def check_fits(value, dtype, fn):
    """Scalar.to<Half>() as torch's checked_convert: a finite value beyond the largest finite one
    is refused (inf and nan pass)."""
    if np.isfinite(value) and abs(value) > _MAX[dtype]:
        raise RuntimeError(f"{fn}(): value cannot be converted to type {_C10_NAMES[dtype]} without overflow "
                           f"(got {value:g})")


def check_random_bounds(low, high_inclusive, dtype):
    """randint's bounds as torch checks them for a 16-bit dtype: each must convert (a
    RuntimeError), and beyond ±2^digits (where not every integer is held) torch warns."""
    name, digits = _C10_NAMES[dtype], DIGITS[dtype]
    for value, what in ((low, "from"), (high_inclusive, "to - 1")):
        if abs(value) > _MAX[dtype]:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    for value, what in ((low, "from"), (high_inclusive, "to - 1")):
        if abs(value) > 2 ** digits:
            warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations {name} "
                          f"can support discrete uniform distribution only within this range. This warning will "
                          f"become an error in version 1.7 release, please fix the code in advance", UserWarning,
                          stacklevel=3)


def arange(start, step, n, dtype):
    """torch's arange kernel for a 16-bit dtype: start and step in float32 (its accumulation type);
    runs of 2·16 elements are written as vectors, each from a base rounded to 16 bits plus k·step
    (Vectorized::arange), the tail one element at a time from start + i·step."""
    r = rounder(dtype)
    start, step = _f32(start), _f32(step)
    out = np.empty(n, _f32)
    lanes, i = 16, 0
    k = np.arange(lanes, dtype=_f32)
    while i + 2 * lanes <= n:
        for _ in range(2):
            base = r(start + step * _f32(i))
            out[i:i + lanes] = r(base + k * step)
            i += lanes
    out[i:] = r(start + step * np.arange(i, n, dtype=_f32))
    return to_tensor(out, dtype)


def linspace(start, end, steps, dtype):
    """torch's linspace kernel in the dtype's arithmetic: step = (end - start) / (steps - 1), then
    start + step·i in the first half and end - step·(steps - 1 - i) in the second, each operation
    (and each integer operand) rounded to 16 bits."""
    r = rounder(dtype)
    if steps <= 1:  # torch fills start, unchecked, and leaves end unread
        with np.errstate(over="ignore"):
            return to_tensor(r(np.full(steps, start, _f32)), dtype)
    check_fits(start, dtype, "linspace")
    check_fits(end, dtype, "linspace")
    s, e = r(_f32(start)), r(_f32(end))
    step = r(r(e - s) / r(_f32(steps - 1)))
    i = np.arange(steps)
    low = r(s + r(step * r(i.astype(_f32))))
    high = r(e - r(step * r((steps - 1 - i).astype(_f32))))
    return to_tensor(np.where(i < steps // 2, low, high), dtype)


def logspace(start, end, steps, base, dtype):
    """torch's logspace for a 16-bit dtype: start and end rounded to it, the exponents in double
    (step = (end - start) / (steps - 1), end - start rounded to 16 bits), base ** exponent in
    double, rounded through float32."""
    r = rounder(dtype)
    if steps <= 1:  # torch fills base ** start, start unrounded and unchecked, and leaves end unread
        with np.errstate(over="ignore"):
            value = float(np.power(float(base), float(start))) if steps else 0.0
            return to_tensor(r(np.full(steps, value, _f32)), dtype)
    check_fits(start, dtype, "logspace")
    check_fits(end, dtype, "logspace")
    s, e = float(r(_f32(start))), float(r(_f32(end)))
    step = float(r(_f32(e - s))) / (steps - 1)
    i = np.arange(steps)
    exponents = np.where(i < steps // 2, s + step * i, e - step * (steps - 1 - i))
    with np.errstate(over="ignore"):
        return to_tensor(r(np.power(float(base), exponents).astype(_f32)), dtype)
