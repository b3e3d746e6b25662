"""The pure-Python parts of seqlab.Tensor (repr, indexing, tolist) and the creation
functions, with PyTorch's signatures. Everything numeric happens in seqlab._core."""
import builtins
import collections
import collections.abc
import math
import numbers
import warnings

import numpy as np

from . import _args, _core
from ._core import Tensor
from ._device import CPU, parse_to
from ._tensor_str import tensor_repr
from ._dtypes import float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool  # noqa: A004
from . import _reduced_float
from ._dtypes import _check_device, _finish, get_default_dtype, scalar_type_name  # noqa: F401

float = float32
double = float64
half = float16
long = int64
short = int16  # (torch.int is int32: seqlab/__init__.py names it, since `int` here is Python's)

_NP = {float32: np.float32, float64: np.float64, float16: np.float16, int64: np.int64, int32: np.int32,
       int16: np.int16, int8: np.int8, uint8: np.uint8, bool: np.bool_}  # (NumPy has no bfloat16)
_INTEGRAL = (int64, int32, int16, int8, uint8)
_REDUCED = (float16, bfloat16)
_numpy = _reduced_float.numpy_values  # (bfloat16 as float32 values)

# torch.return_types.max and friends: a named (values, indices) pair.
values_indices = collections.namedtuple("values_indices", ["values", "indices"])
_core._values_indices = values_indices


def _size(size, fn):
    """*size (ints, or one sequence of ints) as a list; torch's TypeError names `fn` otherwise."""
    if len(size) == 0:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
    one = len(size) == 1 and not isinstance(size[0], numbers.Number)  # zeros((2, 3)), not zeros(2.5)
    return _args.ints(size[0] if one else size, fn)


# ------------------------------------------------------------------ creation
def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of `data` (a number, nested lists, a NumPy array or a tensor)."""
    _check_device(device, "tensor")
    if isinstance(data, Tensor):
        arr = _numpy(data)
        dtype = data.dtype if _args.dtype(dtype, "tensor") is None else dtype
    elif isinstance(data, (str, bytes)):
        raise TypeError(f"tensor(): new(): invalid data type '{type(data).__name__}'")
    else:
        if isinstance(data, (list, tuple)) and isinstance(_first_leaf(data), Tensor):
            data = _scalars(data)  # torch reads tensors inside a list as numbers: [tensor([1.]), ...] is (n,)
        try:
            arr = np.asarray(data)
        except ValueError as e:
            raise ValueError(f"tensor(): expected a sequence of equal-length sequences (a ragged list has no shape): {e}")
    _check_elements(arr, dtype)
    if _args.dtype(dtype, "tensor") is None:
        if isinstance(data, (np.ndarray, np.generic, Tensor)) and _seqlab_dtype(arr.dtype) is not None:
            dtype = _seqlab_dtype(arr.dtype)  # arrays keep their dtype (in either byte order), as in torch
        elif arr.dtype.kind == "f":
            dtype = get_default_dtype()
        elif arr.dtype.kind in "iu":
            dtype = int64
        elif arr.dtype.kind == "b":
            dtype = bool
        else:  # an object array of numbers: Python ints beyond int64 (refused by _check_fits), or with floats
            dtype = int64 if builtins.all(isinstance(e, int) for e in arr.flat) else get_default_dtype()
    if not isinstance(data, (np.ndarray, np.generic, Tensor)) or arr.dtype.kind in "fO":
        _check_fits(arr, dtype)  # (an integer array converts modulo 2^bits, as torch.tensor converts it)
    if dtype in _INTEGRAL and dtype != int64 and arr.dtype.kind in "fO":
        arr = np.asarray(arr, dtype=np.int64)  # floats truncate, then wrap (uint8 takes -1 as 255, as torch)
    # A fresh C-contiguous array in native byte order, aligned: NumPy converts whatever the source
    # was (big-endian, misaligned, negative strides), and from_numpy borrows the copy.
    if dtype in _REDUCED:
        # float32 first, then rounded to nearest even: torch converts a double to c10::Half or
        # c10::BFloat16 through float (NumPy's float64 -> float16 rounds once, sometimes otherwise)
        with np.errstate(over="ignore", invalid="ignore"):
            arr = np.array(arr, dtype=np.float32, order="C", copy=True)
        return _finish(_core.from_numpy(arr).to(dtype), requires_grad)
    with np.errstate(over="ignore"):  # float64 -> float32 overflows to inf, silently as in torch
        arr = np.array(arr, dtype=_NP[dtype], order="C", copy=True)  # (ascontiguousarray would make 0-d 1-d)
    return _finish(_core.from_numpy(arr), requires_grad)


def _first_leaf(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return data


def _scalars(data):
    """Nested lists with every tensor in them read as its one number (torch.tensor's rule)."""
    if isinstance(data, (list, tuple)):
        return [_scalars(e) for e in data]
    if isinstance(data, Tensor):
        if data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data.item()
    return data


def _seqlab_dtype(np_dtype):
    """The seqlab dtype of a NumPy dtype in either byte order, or None."""
    kind, size = np_dtype.kind, np_dtype.itemsize
    return {("f", 4): float32, ("f", 8): float64, ("f", 2): float16, ("i", 8): int64, ("i", 4): int32,
            ("i", 2): int16, ("i", 1): int8, ("u", 1): uint8, ("b", 1): bool}.get((kind, size))


# Python's and NumPy's real numbers (bool is an int; NumPy's complex scalars are not here).
_REAL = (int, builtins.float, np.integer, np.floating, np.bool_)


def _check_elements(arr, dtype):
    """Only bools and real numbers become elements. Asked for a float array, NumPy turns None into
    nan, '1.5' into 1.5 and 1+2j into 1 (a warning at most); torch raises, and so does seqlab,
    with torch's exception type: TypeError, or RuntimeError when no dtype was given."""
    kind = arr.dtype.kind
    if kind in "biuf":
        return
    if kind == "O":  # a list holding None, a str, a Fraction... or Python ints beyond int64
        for e in arr.flat:
            if not isinstance(e, _REAL):
                if dtype is None:
                    raise RuntimeError(f"tensor(): could not infer dtype of {type(e).__name__}")
                raise TypeError(f"tensor(): must be real number, not {type(e).__name__}")
        return
    if kind in "US":
        raise TypeError("tensor(): new(): invalid data type 'str'")
    if kind == "c":
        raise TypeError("tensor(): seqlab has no complex dtype; got complex data")
    raise TypeError(f"tensor(): can't convert data of type {arr.dtype} to a tensor")


# The values tensor() stores into an integer type (c10's checked_convert): the type's range, and
# for uint8 also [-255, 0), which wraps (torch.tensor([-1], dtype=torch.uint8) is 255).
_RANGE = {int64: (-2**63, 2**63 - 1), int32: (-2**31, 2**31 - 1), int16: (-2**15, 2**15 - 1),
          int8: (-2**7, 2**7 - 1), uint8: (-255, 255)}


def _check_fits(arr, dtype):
    """NumPy converts out-of-range values silently (2**63, 1e400 or nan to int64 become
    INT64_MIN, 300 to uint8 becomes 44); PyTorch raises, and so does seqlab."""
    if arr.size == 0 or dtype not in _RANGE:
        return  # (a float64 value too large for float32 becomes inf, as in torch.tensor)
    lo, hi = _RANGE[dtype]
    if arr.dtype.kind in "iu":
        fits = lo <= arr.min() and arr.max() <= hi
    elif arr.dtype.kind == "O":
        fits = builtins.all(lo <= e <= hi for e in arr.flat)
    elif arr.dtype.kind == "f":  # (False for nan and inf too)
        if dtype == int64:  # 2**63 - 1 is not a double: the bound is 2**63, exclusive
            fits = builtins.bool(np.all((arr >= -2.0**63) & (arr < 2.0**63)))
        else:  # a float has no two's complement to wrap through: uint8 takes [0, 255]
            fits = builtins.bool(np.all((arr >= builtins.max(lo, 0 if dtype == uint8 else lo)) & (arr <= hi)))
    else:
        return
    if not fits:
        raise RuntimeError(f"tensor(): value cannot be converted to type {dtype_name(dtype)} without overflow")


def dtype_name(dtype):
    """torch's short name of a dtype: "int64", "uint8", "float32"."""
    return str(dtype).rpartition(".")[2]


def as_tensor(data, dtype=None, device=None):
    """`data` as a tensor, sharing its memory when it can (torch.as_tensor): a NumPy array of a
    seqlab dtype is borrowed by from_numpy, unless its layout cannot be (non-native byte order,
    misaligned, negative strides: from_numpy's ValueError), and then copied as tensor() does."""
    _check_device(device, "as_tensor")
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype == dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and _seqlab_dtype(data.dtype) is not None \
            and (dtype is None or dtype == _seqlab_dtype(data.dtype)):
        try:
            return _core.from_numpy(data)
        except ValueError:
            pass
    return tensor(data, dtype=dtype)


def empty(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of the given size with uninitialised values (torch.empty)."""
    _check_device(device, "empty")
    dtype = _args.dtype(dtype, "empty") or get_default_dtype()
    return _finish(_core._empty(_size(size, "empty"), dtype), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of the given size filled with 0 (torch.zeros); float32 unless dtype says otherwise."""
    _check_device(device, "zeros")
    dtype = _args.dtype(dtype, "zeros") or get_default_dtype()
    return _finish(_core._full(_size(size, "zeros"), 0.0, dtype), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A tensor of the given size filled with 1 (torch.ones)."""
    _check_device(device, "ones")
    dtype = _args.dtype(dtype, "ones") or get_default_dtype()
    return _finish(_core._full(_size(size, "ones"), 1.0, dtype), requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """A tensor of the given size filled with fill_value; the dtype follows fill_value (bool, int64 or
    float32) unless dtype says otherwise (torch.full)."""
    _check_device(device, "full")
    if _args.dtype(dtype, "full") is None:
        dtype = bool if isinstance(fill_value, builtins.bool) else \
            int64 if isinstance(fill_value, int) else get_default_dtype()
    value = _args.number(fill_value, "full", "fill_value")
    return _finish(_core._full(_size((size,), "full"), value, dtype), requires_grad)


_NO_END = object()  # arange(5) is arange(0, 5); arange(0, None) is torch's TypeError, not arange(0, 0)


def arange(start, end=_NO_END, step=1, dtype=None, device=None, requires_grad=False):
    """The values start, start + step, ... below end (arange(end) starts at 0); int64 when all
    arguments are ints, else the default float dtype (torch.arange)."""
    _check_device(device, "arange")
    if end is _NO_END:
        start, end = 0, start
    if _args.dtype(dtype, "arange") is None:
        dtype = int64 if all(isinstance(v, int) for v in (start, end, step)) else get_default_dtype()
    start, end, step = (_args.number(v, "arange", a) for v, a in ((start, "start"), (end, "end"), (step, "step")))
    if not (math.isfinite(start) and math.isfinite(end)):  # torch's words
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if dtype in _REDUCED:  # the length and the checks are float32's; the values torch's 16-bit kernel's
        n = _core._arange(start, end, step, float32).numel()
        return _finish(_reduced_float.arange(start, step, n, dtype), requires_grad)
    return _finish(_core._arange(start, end, step, dtype), requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    """An n x m matrix (m = n by default) with ones on the diagonal and zeros elsewhere (torch.eye)."""
    _check_device(device, "eye")
    n = _args.index(n, "eye", "n")
    m = n if m is None else _args.index(m, "eye", "m")
    return _finish(_core._eye(n, m, _args.dtype(dtype, "eye") or get_default_dtype()), requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform random values in [0, 1) of the given size, from generator or the default one (torch.rand)."""
    _check_device(device, "rand")
    d = _args.dtype(dtype, "rand") or get_default_dtype()
    if d in _REDUCED:  # as torch: k / 2^digits from the dtype's digits (11 or 8) random bits, never 1
        scale = 2.0 ** _reduced_float.DIGITS[d]
        u = _core._rand(_size(size, "rand"), float32, _args.generator(generator, "rand"))
        return _finish((u * scale).floor().div(scale).to(d), requires_grad)
    return _finish(_core._rand(_size(size, "rand"), d, _args.generator(generator, "rand")), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal random values N(0, 1) of the given size (torch.randn)."""
    _check_device(device, "randn")
    d = _args.dtype(dtype, "randn") or get_default_dtype()
    return _finish(_core._randn(_size(size, "randn"), d, _args.generator(generator, "randn")), requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Random integers uniform in [low, high) of the given size; randint(high, size) starts at 0
    (torch.randint)."""
    _check_device(device, "randint")
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    low, high = _args.int64(low, "randint", "low"), _args.int64(high, "randint", "high")
    if _args.dtype(dtype, "randint") in _REDUCED:
        _reduced_float.check_random_bounds(low, high - 1, dtype)
    return _core._randint(low, high, _size((size,), "randint"), _args.dtype(dtype, "randint") or int64, _args.generator(generator, "randint"))


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0 .. n-1 (Fisher-Yates), int64 unless dtype says otherwise."""
    _check_device(device, "randperm")
    n = _args.int64(n, "randperm", "n")
    if dtype == float16 and n > 2049:  # torch's limit: 2^11 + 1, the integers float16 holds exactly
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    return _finish(_core._randperm(n, _args.dtype(dtype, "randperm") or int64, _args.generator(generator, "randperm")), requires_grad)


def _random_(self, *args, generator=None, **kwargs):
    """Fill with integers uniform in [from, to), in place: torch's random_(from=0, to=None, *,
    generator=None), where random_(to) alone means [0, to) and no bounds every integer the dtype
    holds exactly, from 0."""
    if len(args) == 1 and not kwargs:
        low, high = 0, args[0]
    else:
        bound = dict(zip(("from", "to"), args), **kwargs)
        unknown = set(bound) - {"from", "to"}
        if len(args) > 2 or unknown:
            raise TypeError(f"random_() got unexpected arguments {sorted(unknown) or args[2:]}")
        low, high = bound.get("from", 0), bound.get("to")
    low = _args.index(low, "random_", "from")
    high = None if high is None else _args.index(high, "random_", "to")
    if not builtins.all(-2**63 <= v < 2**63 for v in (low, 0 if high is None else high)):
        raise ValueError("Overflow when unpacking long long")  # torch's words for a bound past int64
    return _core._random_(self, low, high, _args.generator(generator, "random_"))


def zeros_like(x, dtype=None, device=None, requires_grad=False):
    """zeros with x's shape (and dtype, unless dtype says otherwise) (torch.zeros_like)."""
    _check_device(device, "zeros_like")
    return zeros(x.shape, dtype=dtype or x.dtype, requires_grad=requires_grad)


def ones_like(x, dtype=None, device=None, requires_grad=False):
    """ones with x's shape and dtype (torch.ones_like)."""
    _check_device(device, "ones_like")
    return ones(x.shape, dtype=dtype or x.dtype, requires_grad=requires_grad)


def empty_like(x, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor with x's shape and dtype (torch.empty_like)."""
    _check_device(device, "empty_like")
    return empty(x.shape, dtype=dtype or x.dtype, requires_grad=requires_grad)


def full_like(x, fill_value, dtype=None, device=None, requires_grad=False):
    """A tensor with x's shape and dtype filled with fill_value (torch.full_like)."""
    _check_device(device, "full_like")
    return full(x.shape, fill_value, dtype=dtype or x.dtype, requires_grad=requires_grad)


def rand_like(x, *, generator=None, dtype=None, device=None, requires_grad=False):
    """U[0, 1) random values with x's shape and dtype (torch.rand_like)."""
    _check_device(device, "rand_like")
    return rand(x.shape, generator=generator, dtype=dtype or x.dtype, requires_grad=requires_grad)


def randn_like(x, *, generator=None, dtype=None, device=None, requires_grad=False):
    """N(0, 1) random values with x's shape and dtype (torch.randn_like)."""
    _check_device(device, "randn_like")
    return randn(x.shape, generator=generator, dtype=dtype or x.dtype, requires_grad=requires_grad)


def randint_like(x, low=0, high=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Random integers in [low, high) with x's shape and dtype (torch.randint_like)."""
    _check_device(device, "randint_like")
    if high is None:
        low, high = 0, low
    return randint(low, high, x.shape, generator=generator, dtype=dtype or x.dtype, requires_grad=requires_grad)


# ------------------------------------------------------------------ composed helpers
@_args.numpy_names
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation sqrt(var) over dim, correction 1 (Bessel's) unless unbiased=False or
    correction says otherwise (torch.std)."""
    return input.var(dim, unbiased, keepdim, correction=correction).sqrt()


def equal(input, other):
    """True if the two tensors have the same shape and the same elements (torch.equal)."""
    return builtins.bool(tuple(input.shape) == tuple(other.shape) and np.array_equal(_numpy(input), _numpy(other)))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if |a - b| <= atol + rtol * |b| everywhere (torch.allclose); NaNs equal only with equal_nan."""
    return builtins.bool(np.allclose(_numpy(a), _numpy(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


def numel(x):
    """The number of elements of x (torch.numel)."""
    return x.numel()


def is_tensor(x):
    """True if x is a seqlab.Tensor (torch.is_tensor)."""
    return isinstance(x, Tensor)


@_args.numpy_names
def unbind(input, dim=0):
    """The slices of input along dim (views, that dim removed), as a tuple (torch.unbind)."""
    return tuple(input.select(dim, i) for i in range(input.size(dim)))


# ------------------------------------------------------------------ indexing
def _as_index_tensor(obj):
    if isinstance(obj, Tensor):
        return obj
    t = tensor(obj)
    return t.to(int64) if t.numel() == 0 and t.dtype.is_floating_point else t  # x[[]]: no rows, as torch


_NEVER_A_TUPLE = (int, slice, type(None), type(Ellipsis), bool)


def _sequence_as_tuple(key):
    """torch's legacy rule (NumPy's before 1.23) for a non-tuple sequence index: x[[[0, 1]]] is
    x[[0, 1]], i.e. the list is read as a tuple of indices, when it is shorter than 32 and one of
    its elements is a tensor, a sequence (a list, an array, even a str), a slice, Ellipsis or
    None; any other list ([0, 1]) is one index tensor. A tensor or array index is never a tuple."""
    kind = type(key)
    if kind is tuple:
        return True
    if kind in _NEVER_A_TUPLE:  # the common keys, before the slower ABC check below
        return False
    if isinstance(key, tuple):
        return True
    if isinstance(key, (Tensor, np.ndarray)) or not isinstance(key, collections.abc.Sequence):
        return False
    try:
        if len(key) >= 32:
            return False
        return builtins.any(isinstance(k, (Tensor, np.ndarray, collections.abc.Sequence, slice)) or k is Ellipsis
                            or k is None for k in key)
    except Exception:  # a sequence that cannot be read is one index (as torch clears the error)
        return False


def _parse_index(x, key):
    """Split a Python index into basic steps (applied as views) and advanced index tensors.

    Returns (view, advanced) where `view` is x after ints, slices, None and Ellipsis, and
    `advanced` is a list (one entry per dim of `view`) of index tensors or None."""
    if isinstance(key, tuple):
        pass
    elif _sequence_as_tuple(key):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated: write x[tuple(seq)] "
                      "instead of x[seq] (torch 2.9 and later are to read it as one index tensor, x[tensor(seq)])",
                      UserWarning, stacklevel=3)
        key = tuple(key)
    else:
        key = (key,)
    # Bool masks become integer index tensors (one per masked dim), as NumPy does.
    expanded = []
    for k in key:
        if isinstance(k, (list, np.ndarray)) and np.asarray(k).dtype == np.bool_:
            k = tensor(k)
        if isinstance(k, Tensor) and k.dtype == uint8:  # torch still reads a uint8 index as a mask
            warnings.warn("indexing with dtype seqlab.uint8 is now deprecated, please use a dtype seqlab.bool "
                          "instead.", UserWarning, stacklevel=3)
            k = k.to(bool)
        if isinstance(k, Tensor) and k.dtype == bool:
            if k.dim() == 0:
                raise IndexError("seqlab does not support indexing with a 0-d boolean tensor")
            at = builtins.sum(1 for e in expanded if e is not None and e is not Ellipsis)
            for j in range(k.dim()):
                if at + j >= x.dim() or k.shape[j] != x.shape[at + j]:
                    raise IndexError(f"The shape of the mask {list(k.shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {list(x.shape)} at index {at + j}")
            nz = k.nonzero()
            expanded.extend(nz.select(1, i) for i in range(k.dim()))
            continue
        expanded.append(k)
    key = expanded
    n_ellipsis = builtins.sum(1 for k in key if k is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > x.dim():
        raise IndexError(f"too many indices for tensor of dimension {x.dim()} (got {consumed})")
    out = x
    dim = 0
    advanced = []
    for k in key:
        if k is Ellipsis:
            skip = x.dim() - consumed
            advanced.extend([None] * skip)
            dim += skip
        elif k is None:
            out = out.unsqueeze(dim)
            advanced.append(None)
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, builtins.bool):
            size = out.shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = out.select(dim, int(k))
        elif isinstance(k, slice):
            start, stop, step = k.start, k.stop, k.step
            step = 1 if step is None else int(step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            size = out.shape[dim]
            start = 0 if start is None else int(start)
            stop = size if stop is None else int(stop)
            if not (start == 0 and stop >= size and step == 1):
                out = out._slice(dim, start, stop, step)
            advanced.append(None)
            dim += 1
        elif isinstance(k, (Tensor, list, tuple, np.ndarray)):
            t = _as_index_tensor(k)
            if t.dtype not in (int64, int32):
                raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, got {t.dtype}")
            advanced.append(t)
            dim += 1
        else:
            raise TypeError(f"invalid index of type {type(k).__name__}: only integers, slices (`:`), ellipsis (`...`), "
                            "None and long or bool tensors are valid indices")
    return out, advanced


def _getitem(self, key):
    view, advanced = _parse_index(self, key)
    if any(a is not None for a in advanced):
        return view._index(advanced)
    return view


def _setitem(self, key, value):
    if value is None or isinstance(value, (str, bytes)):  # torch's words; tensor() would refuse it too
        raise TypeError(f"can't assign a {type(value).__name__} to a {self.dtype} tensor")
    if not isinstance(value, Tensor):
        value = tensor(value, dtype=self.dtype)
    elif value.dtype != self.dtype and not (value.dim() == 0 and isinstance(key, Tensor) and key.dtype == bool):
        _check_put_dtype(self, key, value)
    while value.dim() and value.shape[0] == 1:  # torch drops a value's leading size-1 dims (t[i] = row (1, n))
        value = value.squeeze(0)
    if _core.is_grad_enabled() and (self.requires_grad or value.requires_grad):
        # Recorded as out = index_put(self, positions, value): the flat positions of the
        # target region come from indexing an arange the same way.
        if self.is_leaf and self.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation "
                               "(setitem).")
        where_ = arange(self.numel()).view(self.shape)[key]
        value = value.to(self.dtype).expand(where_.shape).reshape(-1)
        new = _core._index_put(self.reshape(-1), [where_.reshape(-1)], value, False).view(self.shape)
        self._rebase(new)
        return
    view, advanced = _parse_index(self, key)
    if any(a is not None for a in advanced):
        view._index_put_(advanced, value, False)
        return
    if view.dim() == self.dim() and view.shape == self.shape and view.data_ptr() == self.data_ptr() \
            and view.stride() == self.stride():
        self.copy_(value)
    else:
        view.copy_(value)


def _check_put_dtype(self, key, value):
    """torch's index_put_ takes values of self's dtype only (a basic index copies any dtype, and a
    0-d value under one bool mask is a masked_fill)."""
    _, advanced = _parse_index(self, key)
    if any(a is not None for a in advanced):
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{scalar_type_name(self.dtype)} for the destination and "
                           f"{scalar_type_name(value.dtype)} for the source.")


def _repr(self):
    """torch's repr: see _tensor_str.py."""
    grad_fn = self.grad_fn
    text = tensor_repr(_numpy(self), self.dtype, str(self.dtype), (get_default_dtype(), int64, bool),
                       None if grad_fn is None else grad_fn.name(), self.requires_grad)
    if getattr(self, "_is_param", False) is True:  # an nn.Parameter (seqlab/nn/parameter.py)
        return "Parameter containing:\n" + text
    return text


def _deepcopy(self, memo):
    """A copy with its own storage; keeps requires_grad and the Parameter mark, drops history."""
    out = self.detach().clone()
    if self.is_leaf and self.requires_grad:
        out.requires_grad_(True)
    if getattr(self, "_is_param", False) is True:
        out._is_param = True
    memo[id(self)] = out
    return out


def _rebuild(array, requires_grad, is_param, dtype=None):
    t = _core.from_numpy(array)
    if dtype is not None:  # bfloat16, pickled as its float32 values
        t = t.to(dtype)
    if requires_grad:
        t.requires_grad_(True)
    if is_param:
        t._is_param = True
    return t


def _reduce(self):
    """Pickling: the data as a NumPy array, plus requires_grad and the Parameter mark."""
    state = (self.is_leaf and self.requires_grad, getattr(self, "_is_param", False) is True)
    if self.dtype == bfloat16:
        return (_rebuild, (_numpy(self), *state, bfloat16))
    return (_rebuild, (self.detach().numpy().copy(), *state))


def _get_data(self):
    """x.data: the same storage without history (as torch's), e.g. `p.data -= lr * p.grad`."""
    return self.detach()


def _assign_data(self, value):
    """x.data = t: x now shares t's storage, shape and dtype, keeping its identity and its
    autograd state (requires_grad, .grad), as torch's; a Parameter stays the Parameter an
    optimizer holds."""
    if not isinstance(value, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    self._set_data(value)


def _tolist(self):
    """The values as nested Python lists (a number for a 0-d tensor) (torch.Tensor.tolist)."""
    return _numpy(self).tolist()


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(unbind(self, 0))


def _array(self, dtype=None, copy=None):
    arr = self.numpy()
    return arr if dtype is None else arr.astype(dtype)


def _expand_as(self, other):
    """self expanded to other's shape, without copying (torch.Tensor.expand_as)."""
    return self.expand(other.shape)


def _view_as(self, other):
    """self viewed with other's shape (torch.Tensor.view_as)."""
    return self.view(other.shape)


def _type_as(self, other):
    """self converted to other's dtype (torch.Tensor.type_as)."""
    return self.to(other.dtype)


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    """zeros of the given size with self's dtype unless dtype says otherwise (torch.Tensor.new_zeros)."""
    _check_device(device, "new_zeros")
    return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    """ones of the given size with self's dtype unless dtype says otherwise (torch.Tensor.new_ones)."""
    _check_device(device, "new_ones")
    return ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    """A copy of data as a tensor with self's dtype unless dtype says otherwise (torch.Tensor.new_tensor)."""
    _check_device(device, "new_tensor")
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


_to_dtype = Tensor.to  # the C++ binding: to(dtype), self when the dtype is already right


def _to(self, *args, **kwargs):
    """x.to(dtype), x.to(device, dtype=None), x.to(other), with non_blocking and copy, as torch's
    (`data.to(device)` in scripts); the device must be the CPU. Returns x itself when nothing
    changes, unless copy=True."""
    if len(args) == 1 and not kwargs and isinstance(args[0], _core.dtype):
        return _to_dtype(self, args[0])  # the common case, without parsing
    _, dtype, copy = parse_to(args, kwargs)
    out = self if dtype is None else _to_dtype(self, dtype)
    return out.clone() if copy and out is self else out


_TYPE_NAMES = {float32: "FloatTensor", float64: "DoubleTensor", float16: "HalfTensor", bfloat16: "BFloat16Tensor", int64: "LongTensor", int32: "IntTensor",
               int16: "ShortTensor", int8: "CharTensor", uint8: "ByteTensor", bool: "BoolTensor"}


def _legacy_new(*args, dtype=None, device=None):
    """torch.Tensor(...) and the typed constructors (FloatTensor, ...): no arguments is an empty
    tensor, ints are a size (uninitialised values), anything else is data, copied. dtype is the
    type's (float32, torch's default, for Tensor)."""
    _check_device(device, "Tensor")
    dtype = dtype or get_default_dtype()
    name = "Tensor" if dtype == get_default_dtype() else _TYPE_NAMES[dtype]
    if not args:
        return _core._empty([0], dtype)
    if builtins.all(isinstance(a, numbers.Integral) and not isinstance(a, builtins.bool) for a in args):
        return _core._empty(_size(args, name), dtype)
    if len(args) > 1:
        raise TypeError(f"{name}(): takes data (one sequence) or sizes (ints), got {len(args)} arguments")
    data = args[0]
    if isinstance(data, Tensor):
        if data.dtype != dtype:
            raise TypeError(f"expected {scalar_type_name(dtype)} (got {scalar_type_name(data.dtype)})")
        return data.detach()
    if isinstance(data, numbers.Number) or data is None:
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return tensor(data, dtype=dtype)


class _TensorType(type):
    """torch.FloatTensor & co.: called, they make a tensor of their dtype as torch.Tensor(...)
    does; isinstance(x, seqlab.LongTensor) tests the dtype; x.type(seqlab.LongTensor) converts."""

    def __call__(cls, *args, device=None):
        return _legacy_new(*args, dtype=cls.dtype, device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __repr__(cls):
        return f"<class 'seqlab.{cls.__name__}'>"


def _typed_tensor(dtype):
    """torch.FloatTensor & co. for one dtype (named in _TYPE_NAMES)."""
    name = _TYPE_NAMES[dtype]
    doc = (f"torch.{name}: {name}(data) copies data as {str(dtype).rsplit('.', 1)[-1]}, {name}(*sizes) is "
           f"uninitialised, and isinstance(x, {name}) is x.dtype == {dtype}.")
    return _TensorType(name, (), {"dtype": dtype, "__doc__": doc, "__module__": __name__})


FloatTensor = _typed_tensor(float32)
DoubleTensor = _typed_tensor(float64)
LongTensor = _typed_tensor(int64)
IntTensor = _typed_tensor(int32)
ShortTensor = _typed_tensor(int16)
CharTensor = _typed_tensor(int8)
ByteTensor = _typed_tensor(uint8)
BoolTensor = _typed_tensor(bool)
HalfTensor = _typed_tensor(float16)
BFloat16Tensor = _typed_tensor(bfloat16)


def _type(self, dtype=None, non_blocking=False):
    """x.type(): the type's name ("seqlab.FloatTensor"); x.type(dtype) converts, as x.to(dtype).
    A name ("torch.LongTensor" or "seqlab.LongTensor") converts to that type."""
    if dtype is None:
        return "seqlab." + _TYPE_NAMES[self.dtype]
    if isinstance(dtype, _TensorType):
        dtype = dtype.dtype
    if isinstance(dtype, str):
        prefix, _, name = dtype.rpartition(".")
        by_name = {v: k for k, v in _TYPE_NAMES.items()}
        if prefix not in ("torch", "seqlab") or name not in by_name:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = by_name[name]
    return _to_dtype(self, dtype)


Tensor.to = _to
Tensor.random_ = _random_
_random_.__name__ = _random_.__qualname__ = "random_"
Tensor.type = _type
Tensor.device = property(lambda self: CPU, doc="Where the data live: always seqlab.device('cpu').")
Tensor.is_cuda = property(lambda self: False)
Tensor.is_cpu = property(lambda self: True)
Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
Tensor.__repr__ = _repr
Tensor.__str__ = _repr
Tensor.__iter__ = _iter
Tensor.__array__ = _array
Tensor.tolist = _tolist
Tensor.data = property(_get_data, _assign_data, doc="The same memory without history (torch's .data); assigning swaps the memory in.")
Tensor.__deepcopy__ = _deepcopy
Tensor.__reduce__ = _reduce
Tensor.std = std
Tensor.expand_as = _expand_as
Tensor.view_as = _view_as
Tensor.type_as = _type_as
Tensor.new_zeros = _new_zeros
Tensor.new_ones = _new_ones
Tensor.new_tensor = _new_tensor
Tensor.unbind = unbind
Tensor.__array_priority__ = 1000  # ndarray + tensor defers to Tensor.__radd__

from ._sorting import argsort as _argsort, sort as _sort, topk as _topk  # noqa: E402
from ._sorting import unique as _unique, unique_consecutive as _unique_consecutive  # noqa: E402

Tensor.sort = _sort
Tensor.argsort = _argsort
Tensor.topk = _topk
Tensor.unique = _unique
Tensor.unique_consecutive = _unique_consecutive

from . import _order_statistics  # noqa: E402

for _name in _order_statistics.__all__:
    setattr(Tensor, _name, getattr(_order_statistics, _name))

from . import _add_products, _distances  # noqa: E402

for _name in _add_products.__all__:
    setattr(Tensor, _name, getattr(_add_products, _name))
for _name, _method in _add_products.IN_PLACE.items():
    setattr(Tensor, _name, _method)
Tensor.dist = _distances.dist

from ._composed import (  # noqa: E402
    all as _all, any as _any, dot as _dot, flip as _flip, format_tensor as _format, index_fill as _index_fill,
    index_fill_ as _index_fill_, isfinite as _isfinite, isinf as _isinf, isnan as _isnan, logsumexp as _logsumexp,
    mv as _mv, repeat as _repeat, repeat_interleave as _repeat_interleave, roll as _roll,
)

Tensor.flip = _flip
Tensor.roll = _roll
Tensor.repeat = _repeat
Tensor.repeat_interleave = _repeat_interleave
Tensor.all = _all
Tensor.any = _any
Tensor.mv = _mv
Tensor.dot = _dot
Tensor.logsumexp = _logsumexp
Tensor.isnan = _isnan
Tensor.isinf = _isinf
Tensor.isfinite = _isfinite
Tensor.index_fill = _index_fill
Tensor.index_fill_ = _index_fill_

from . import _shape  # noqa: E402

# torch's Tensor methods for its shape functions (tests/test_torch_functions.py)
for _name in ("tensor_split", "hsplit", "vsplit", "movedim", "moveaxis", "swapdims", "broadcast_to", "unflatten",
              "fliplr", "flipud", "rot90", "diag", "diagonal", "diag_embed", "trace", "outer", "ger", "kron", "cross",
              "take", "take_along_dim", "masked_select", "argwhere"):
    setattr(Tensor, _name, getattr(_shape, _name))
Tensor.tile = _shape._tile_method

from . import _math  # noqa: E402

# and for its math functions, with their in-place forms (x.sinh_(), ...)
for _name in ("amax", "amin", "aminmax", "nansum", "nanmean", "count_nonzero", "diff", "lerp", "xlogy", "logaddexp",
              "logaddexp2", "hypot", "sgn", "signbit", "copysign", "nan_to_num", "isclose", "sinh", "cosh", "asinh",
              "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "atan", "atan2", "asin", "acos", "arctan", "arctan2",
              "arcsin", "arccos", "cummax", "cummin", "logcumsumexp"):
    setattr(Tensor, _name, getattr(_math, _name))
for _name, _method in _math.IN_PLACE.items():
    setattr(Tensor, _name, _method)


def _view_in_place(name, view):
    """x.unsqueeze_(d), x.squeeze_(), x.t_(), x.transpose_(a, b): self becomes the view, keeping its
    identity (torch's in-place shape methods). On a tensor in an autograd graph torch records the
    op; seqlab refuses rather than lose the history (write x = x.unsqueeze(d))."""
    def method(self, *args, **kwargs):
        if _core.is_grad_enabled() and self.requires_grad:
            if self.is_leaf:
                raise RuntimeError(f"a leaf Variable that requires grad is being used in an in-place operation "
                                   f"({name}).")
            raise RuntimeError(f"{name}(): seqlab changes a tensor's shape in place only outside autograd; on a "
                               f"tensor with history write x = x.{name[:-1]}(...)")
        self._set_data(view(self, *args, **kwargs))
        return self
    method.__name__ = name
    method.__doc__ = f"In place: self = self.{name[:-1]}(...), the same tensor object with the new shape."
    return method


Tensor.unsqueeze_ = _view_in_place("unsqueeze_", lambda x, dim: x.unsqueeze(dim))
Tensor.squeeze_ = _view_in_place("squeeze_", lambda x, *dim: x.squeeze(*dim))
Tensor.t_ = _view_in_place("t_", lambda x: x.t())
Tensor.transpose_ = _view_in_place("transpose_", lambda x, dim0, dim1: x.transpose(dim0, dim1))
Tensor.swapdims_ = _view_in_place("swapdims_", lambda x, dim0, dim1: x.transpose(dim0, dim1))
Tensor.swapaxes_ = _view_in_place("swapaxes_", lambda x, axis0, axis1: x.transpose(axis0, axis1))


def _cpu(self, memory_format=None):
    """self: every seqlab tensor is on the CPU (torch's cpu() returns self there too)."""
    return self


_copy_tensor = Tensor.copy_


def _copy_(self, src, non_blocking=False):
    """Copy src's values into self (broadcast, converted to self's dtype). src may also be another
    library's tensor: any DLPack producer (a torch tensor, a NumPy array) is read through DLPack,
    without a copy of its own where its dtype is one of seqlab's. That is how nanoGPT-style code
    fills a seqlab model from Hugging Face's torch state dict: sd[k].copy_(sd_hf[k].t()).
    non_blocking: torch's, for device copies; seqlab's are on the CPU and always complete."""
    del non_blocking
    if not isinstance(src, Tensor) and hasattr(src, "__dlpack__"):
        if getattr(src, "requires_grad", False):
            src = src.detach()  # torch will not export a tensor with a graph; seqlab's copy has none
        try:
            src = _core.from_dlpack(src)
        except TypeError as e:
            raise TypeError(f"copy_: src {type(src).__name__}: {e} (convert it first, e.g. with .float())") from None
    return _copy_tensor(self, src)


Tensor.copy_ = _copy_
Tensor.cpu = _cpu
Tensor.__format__ = _format

from ._histogram import bincount as _bincount, histc as _histc, histogram as _histogram  # noqa: E402

Tensor.histc = _histc
Tensor.histogram = _histogram
Tensor.bincount = _bincount

from . import _aliases, _inplace_forms  # noqa: E402

# torch's aliases, the in-place forms and the small facts a tensor reports (tests/test_torch_aliases.py)
for _name, _method in {**_aliases.METHODS, **_inplace_forms.METHODS, **_inplace_forms.IN_PLACE}.items():
    setattr(Tensor, _name, _method)
for _name, _property in _aliases.PROPERTIES.items():
    setattr(Tensor, _name, _property)
Tensor.equal = equal


def _allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if |self - other| <= atol + rtol * |other| everywhere (torch.Tensor.allclose)."""
    return allclose(self, other, rtol, atol, equal_nan)


Tensor.allclose = _allclose


from .autograd.graph import register_hook as _register_hook  # noqa: E402
from .autograd.graph import register_post_accumulate_grad_hook as _register_post_accumulate_grad_hook  # noqa: E402

Tensor.register_hook = _register_hook
Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook


from . import _linalg_aliases  # noqa: E402

# torch's Tensor methods for torch.linalg's ops (x.det(), x.slogdet(), x.inverse(), x.svd(), ...)
for _name, _method in _linalg_aliases.METHODS.items():
    setattr(Tensor, _name, _method)
