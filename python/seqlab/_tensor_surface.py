"""Tensor methods torch has on every tensor and seqlab lacked: the legacy constructors (new, new_empty,
new_full, new_empty_strided), cuda() (torch's CPU-build error), memory_format= on clone / contiguous
and the *_like functions, resize_ / resize_as_ (a reallocation), unfold (a copy, not a view: see
DESIGN.md "Known differences"), and the Python-callable fills apply_ / map_ / map2_.
Tests: tests/test_torch_aliases.py."""
import builtins
import inspect

import numpy as np

from . import _args, _core, _dtypes
from . import _tensor
from ._switches import check_memory_format, preserve_format, contiguous_format

_CUDA_ERROR = "Torch not compiled with CUDA enabled (seqlab runs on the CPU only)"  # as seqlab.cuda.synchronize


# ------------------------------------------------------------------ constructors
def _new(self, *args, device=None):
    """torch.Tensor.new: a tensor of self's dtype: no arguments is an empty (0,) tensor, ints are
    a size (uninitialised), a sequence is data (copied), a tensor of self's dtype is shared."""
    return _tensor._legacy_new(*args, dtype=self.dtype, device=device)


def _new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """An uninitialised tensor of the given size, self's dtype unless dtype says otherwise
    (torch.Tensor.new_empty)."""
    del layout, pin_memory
    return _tensor.empty(*size, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    """A tensor of the given size filled with fill_value, self's dtype unless dtype says otherwise
    (torch.Tensor.new_full)."""
    del layout, pin_memory
    return _tensor.full(size, fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                       pin_memory=False):
    """new_empty(size): seqlab makes every new tensor C-contiguous, so `stride` is checked (one per
    dim) but not used (torch.Tensor.new_empty_strided)."""
    del layout, pin_memory
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialised tensor of the given size (torch.empty_strided). seqlab's tensors are made
    C-contiguous, so the result has the contiguous strides whatever `stride` asks."""
    del layout, pin_memory
    size, stride = _args.ints(size, "empty_strided"), _args.ints(stride, "empty_strided", "stride")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    return _tensor.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialised tensor of the given size (torch.empty_permuted): physical_layout must be a
    permutation of the dims; seqlab's result is C-contiguous whatever the layout asks."""
    del layout, pin_memory
    size = _args.ints(size, "empty_permuted")
    order = _args.ints(physical_layout, "empty_permuted", "physical_layout")
    if sorted(order) != list(builtins.range(len(size))):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; "
                           "or physical_layout is not a permutation of the dims")
    return _tensor.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


# ------------------------------------------------------------------ device and memory format
def _cuda(self, device=None, non_blocking=False, memory_format=preserve_format):
    """torch's answer on a build without CUDA: AssertionError, as seqlab.cuda.synchronize."""
    raise AssertionError(_CUDA_ERROR)


_plain_clone = _core.Tensor.clone
_plain_contiguous = _core.Tensor.contiguous


def clone(input, *, memory_format=preserve_format):
    """A copy of input with its own memory, recorded for autograd (torch.clone); memory_format
    contiguous_format or preserve_format (the same for seqlab, whose copies are C-contiguous)."""
    check_memory_format(memory_format, "clone")
    return _plain_clone(input)


def _contiguous(self, memory_format=contiguous_format):
    """self if C-contiguous, else a C-contiguous copy (torch.Tensor.contiguous)."""
    check_memory_format(memory_format, "contiguous")
    return _plain_contiguous(self)


def _conversion(name):
    """Tensor.float(), .half(), .bfloat16(), .long() ... with torch's keyword memory_format: the C++
    conversion, C-contiguous, or self when the dtype is already right (whatever memory_format says,
    as torch's)."""
    plain = getattr(_core.Tensor, name)

    def method(self, *, memory_format=preserve_format):
        if memory_format is not preserve_format:
            check_memory_format(memory_format, name)
        return plain(self)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = plain.__doc__.strip().splitlines()[-1] + " memory_format: preserve_format or contiguous_format."
    return method


CONVERSIONS = {name: _conversion(name) for name in ("float", "double", "half", "bfloat16", "long", "int", "short",
                                                    "char", "byte", "bool")}


def _like(fn):
    """fn (empty_like, zeros_like, ...) taking torch's memory_format= keyword too."""
    def like(input, *args, memory_format=preserve_format, **kwargs):
        check_memory_format(memory_format, fn.__name__)
        return fn(input, *args, **kwargs)
    like.__name__ = like.__qualname__ = fn.__name__
    like.__doc__ = fn.__doc__ + " memory_format: contiguous_format or preserve_format (seqlab's are contiguous)."
    signature = inspect.signature(fn)
    keyword = inspect.Parameter("memory_format", inspect.Parameter.KEYWORD_ONLY, default=preserve_format)
    like.__signature__ = signature.replace(parameters=[*signature.parameters.values(), keyword])
    return like


LIKE = {f.__name__: _like(f) for f in (_tensor.empty_like, _tensor.zeros_like, _tensor.ones_like,
                                       _tensor.full_like, _tensor.rand_like, _tensor.randn_like,
                                       _tensor.randint_like)}


# ------------------------------------------------------------------ resize
def _resize_(self, *sizes, memory_format=None):
    """self reshaped to `sizes` in place, keeping its first elements in row-major order; new elements
    are uninitialised (torch.Tensor.resize_). seqlab reallocates: a view of self taken earlier no
    longer shares its memory afterwards (torch keeps the storage when it is large enough)."""
    check_memory_format(memory_format, "resize_")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    size = _args.ints(sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes, "resize_")
    if builtins.any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {builtins.min(size)}: {size}")
    new = _core._empty(size, self.dtype)
    keep = builtins.min(new.numel(), self.numel())
    if keep:
        new.reshape(-1).narrow(0, 0, keep).copy_(self.reshape(-1).narrow(0, 0, keep))
    self._set_data(new)
    return self


def _resize_as_(self, the_template, *, memory_format=None):
    """self.resize_(the_template.shape) (torch.Tensor.resize_as_)."""
    return _resize_(self, tuple(the_template.shape), memory_format=memory_format)


def resize_as_(input, the_template, *, memory_format=None):
    """input.resize_as_(the_template) as a function (torch.resize_as_)."""
    return _resize_as_(input, the_template, memory_format=memory_format)


# ------------------------------------------------------------------ unfold
def _unfold(self, dimension, size, step):
    """Every window of `size` elements along `dimension`, `step` apart, as a new last dim
    (torch.Tensor.unfold): shape (..., (n - size) // step + 1, ..., size), a view whose windows
    overlap in memory when step < size; the gradient adds each window's back where it came from."""
    d = dimension + builtins.max(self.dim(), 1) if dimension < 0 else dimension
    if not 0 <= d < builtins.max(self.dim(), 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-builtins.max(self.dim(), 1)}, "
                         f"{builtins.max(self.dim(), 1) - 1}], but got {dimension})")
    x = self.reshape(1) if self.dim() == 0 else self
    n = x.shape[d]
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if self.dim() == 0:
        return x  # (torch: a 0-d tensor's one window is a (1,) tensor)
    windows = (n - size) // step + 1
    strides = list(x.stride())
    shape = list(x.shape)
    return x.as_strided(shape[:d] + [windows] + shape[d + 1:] + [size],
                        strides[:d] + [strides[d] * step] + strides[d + 1:] + [strides[d]], x.storage_offset())


# ------------------------------------------------------------------ Python callables, element by element
def _apply_elementwise(self, name, fn, others):
    if self.requires_grad or builtins.any(o.requires_grad for o in others):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    columns = [self.reshape(-1).tolist()] + [o.expand(self.shape).reshape(-1).tolist() for o in others]
    values = [fn(*args) for args in zip(*columns)]
    arr = np.array(values, dtype=self.detach().numpy().dtype).reshape(tuple(self.shape))
    return self.copy_(_core.from_numpy(arr))


def _apply_(self, callable):
    """Replaces each element x with callable(x), a Python function, in place (torch.Tensor.apply_:
    CPU only, slow, no autograd)."""
    return _apply_elementwise(self, "apply_", callable, [])


def _map_(self, tensor, callable):
    """self[i] = callable(self[i], tensor[i]) with tensor broadcast to self (torch.Tensor.map_)."""
    return _apply_elementwise(self, "map_", callable, [tensor])


def _map2_(self, x, y, callable):
    """self[i] = callable(self[i], x[i], y[i]) with x and y broadcast to self (torch.Tensor.map2_)."""
    return _apply_elementwise(self, "map2_", callable, [x, y])


METHODS = {**CONVERSIONS, "new": _new, "new_empty": _new_empty, "new_full": _new_full, "new_empty_strided": _new_empty_strided,
           "cuda": _cuda, "clone": clone, "contiguous": _contiguous, "resize_": _resize_,
           "resize_as_": _resize_as_, "unfold": _unfold, "apply_": _apply_, "map_": _map_, "map2_": _map2_}
for _name, _method in METHODS.items():
    _method.__name__ = _method.__qualname__ = _name
del _name, _method


# ------------------------------------------------------------------ index_put and nonzero_static
def _index_put_args(op, indices, values, self):
    if not isinstance(values, _core.Tensor):
        raise TypeError(f"{op}(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if values.dtype != self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_dtypes.scalar_type_name(self.dtype)} for the destination and "
                           f"{_dtypes.scalar_type_name(values.dtype)} for the source.")
    return list(indices)


def index_put(input, indices, values, accumulate=False):
    """A copy of input with input[indices] = values, or += values when accumulate (torch.index_put:
    indices is a tuple of index tensors, None for a whole dim, as x[i, j] = v)."""
    return _core._index_put(input, _index_put_args("index_put", indices, values, input), values, bool(accumulate))


def _index_put_(self, indices, values, accumulate=False):
    """In place: self[indices] = values, or += values when accumulate (torch.Tensor.index_put_)."""
    return self._index_put_(_index_put_args("index_put_", indices, values, self), values, bool(accumulate))


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero(input) with exactly size rows (torch.nonzero_static): the first size indices of the
    nonzero elements, padded with rows of fill_value."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got size={size}")
    found = _core.nonzero(input)
    if found.shape[0] >= size:
        return found[:size]
    pad = _core._full([size - found.shape[0], input.dim()], float(fill_value), _core.dtype.int64)
    return _core.cat([found, pad], 0)


METHODS.update({"index_put": index_put, "index_put_": _index_put_,
                "nonzero_static": lambda self, *, size, fill_value=-1: nonzero_static(self, size=size,
                                                                                       fill_value=fill_value)})
METHODS["nonzero_static"].__name__ = METHODS["nonzero_static"].__qualname__ = "nonzero_static"
METHODS["nonzero_static"].__doc__ = nonzero_static.__doc__
_index_put_.__name__ = _index_put_.__qualname__ = "index_put_"


def to_dlpack(tensor):
    """A DLPack capsule sharing tensor's memory (torch.to_dlpack), for any DLPack consumer
    (torch.from_dlpack, numpy.from_dlpack with the tensor itself, seqlab.from_dlpack)."""
    return tensor.__dlpack__()
