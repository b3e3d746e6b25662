"""torch's global switches, flags and constants as seqlab has them on one CPU: e / pi / inf / nan /
newaxis, Size, the layout and memory-format objects, the default device, the deterministic and
warn-always flags, float32 matmul precision, inter-op threads, compile (the model unchanged) and
typename. A leaf (imports only the core and _dtypes). Tests: tests/test_torch_switches.py."""
import math
import operator
import warnings

from . import _core
from ._device import device as _device_type
from . import _dtypes

# ------------------------------------------------------------------ constants
e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None  # x[:, seqlab.newaxis] is x[:, None]


class Size(tuple):
    """torch.Size: a tuple of ints naming a shape, with numel() and torch's repr. (seqlab's
    x.shape and x.size() return a plain tuple, which compares equal to a Size.)"""

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for i, s in enumerate(sizes):
            try:
                operator.index(s)
            except TypeError:
                raise TypeError(f"seqlab.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(s).__name__}')") from None
        return super().__new__(cls, (operator.index(s) for s in sizes))

    def numel(self):
        """The number of elements a tensor of this shape holds (1 for the empty Size)."""
        return math.prod(self)

    def __getitem__(self, key):
        out = super().__getitem__(key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __repr__(self):
        return f"seqlab.Size({list(self)})"


class layout:
    """torch.layout: how a tensor's elements are stored. seqlab has one, seqlab.strided."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"seqlab.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")


class memory_format:
    """torch.memory_format: the order a new tensor's elements take in memory. seqlab makes every
    new tensor C-contiguous, so it accepts contiguous_format and preserve_format (and torch's
    legacy_contiguous_format) wherever torch takes memory_format=; it has no channels_last (image
    layouts are out of its scope)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"seqlab.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
legacy_contiguous_format = contiguous_format  # (one object in torch too)


def check_memory_format(value, fn):
    """memory_format= of clone / contiguous / empty_like: None or one seqlab keeps."""
    if value is None or value in (contiguous_format, preserve_format):
        return
    if isinstance(value, memory_format):
        raise RuntimeError(f"{fn}(): seqlab stores tensors in C-contiguous order only; got memory_format={value}")
    raise TypeError(f"{fn}(): argument 'memory_format' must be seqlab.memory_format, not {type(value).__name__}")


# ------------------------------------------------------------------ default device and tensor type
def get_default_device():
    """The device tensors are made on (torch.get_default_device): always the CPU."""
    return _device_type("cpu")


def set_default_device(device):
    """torch.set_default_device: the CPU (or None, which restores it) is accepted; another device
    is torch's CPU-build AssertionError, since seqlab runs on the CPU only."""
    if device is None:
        return
    if _device_type(device).type != "cpu":
        raise AssertionError("Torch not compiled with CUDA enabled (seqlab runs on the CPU only)")


_TYPE_DTYPES = {"FloatTensor": _dtypes.float32, "DoubleTensor": _dtypes.float64, "HalfTensor": _dtypes.float16,
                "BFloat16Tensor": _dtypes.bfloat16}


def set_default_tensor_type(t):
    """Deprecated in torch 2.1 for set_default_dtype: FloatTensor, DoubleTensor, HalfTensor or
    BFloat16Tensor (the class or its name, "torch.FloatTensor" or "seqlab.DoubleTensor") sets the
    default dtype, with torch's UserWarning."""
    warnings.warn("seqlab.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "set_default_dtype() and set_default_device() as alternatives.", UserWarning, stacklevel=2)
    name = t if isinstance(t, str) else getattr(t, "__name__", repr(t))
    prefix, _, short = name.rpartition(".")
    if "cuda" in prefix:
        raise TypeError(f"type {name} not available. Torch not compiled with CUDA enabled.")
    dtype = getattr(t, "dtype", None) if not isinstance(t, str) else None
    if short in _TYPE_DTYPES and prefix in ("", "torch", "seqlab"):
        dtype = _TYPE_DTYPES[short]
    if dtype is None and not isinstance(t, str):
        raise TypeError(f"invalid type object: {name}")
    if dtype not in _TYPE_DTYPES.values():
        raise TypeError("only floating-point types are supported as the default type")
    _dtypes.set_default_dtype(dtype)


# ------------------------------------------------------------------ matmul precision, threads
_matmul_precision = "highest"


def get_float32_matmul_precision():
    """torch.get_float32_matmul_precision: "highest" unless set_float32_matmul_precision said
    otherwise. seqlab's float32 GEMM is always full float32, whatever this says."""
    return _matmul_precision


def set_float32_matmul_precision(precision):
    """Records "highest", "high" or "medium" (torch.set_float32_matmul_precision); another value
    is torch's UserWarning and no change. seqlab has no TF32 path and does not lower float32
    matmuls to bfloat16 ("medium" in torch), so every value computes in full float32."""
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", UserWarning, stacklevel=2)
        return
    _matmul_precision = precision


_interop_threads = 1


def get_num_interop_threads():
    """torch.get_num_interop_threads: the threads that run independent ops side by side. seqlab
    runs ops one after another (its intra-op threads are get_num_threads), so this reports what
    set_num_interop_threads recorded, 1 by default."""
    return _interop_threads


def set_num_interop_threads(num):
    """Records the inter-op thread count (a positive int), as torch.set_num_interop_threads; seqlab
    has no inter-op pool, so it changes nothing else."""
    global _interop_threads
    num = operator.index(num)
    if num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _interop_threads = num


# ------------------------------------------------------------------ determinism, warnings
_deterministic = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """torch.use_deterministic_algorithms: records the flag. Every seqlab kernel is deterministic
    on the CPU already (reductions have a fixed order for a given thread count), so nothing else
    changes."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    _deterministic["mode"], _deterministic["warn_only"] = mode, bool(warn_only) and mode


def are_deterministic_algorithms_enabled():
    """True after use_deterministic_algorithms(True) (torch's flag)."""
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    """True after use_deterministic_algorithms(True, warn_only=True)."""
    return _deterministic["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """torch.set_deterministic_debug_mode: 0 / "default" (off), 1 / "warn" (warn_only), 2 / "error"."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode).__name__}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0 (off), 1 (warn only) or 2 (error), from use_deterministic_algorithms."""
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


_warn_always = [False]


def set_warn_always(b, /):
    """torch.set_warn_always: records whether warnings that torch gives once should repeat.
    seqlab's warnings go through Python's warnings module, whose filters decide."""
    _warn_always[0] = bool(b)


def is_warn_always_enabled():
    """What set_warn_always recorded (False by default)."""
    return _warn_always[0]


# ------------------------------------------------------------------ compile, typename
_COMPILE_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False, **kwargs):
    """torch.compile's signature, returning `model` itself: seqlab has no graph compiler, so the
    model or function runs as written (torch returns an OptimizedModule wrapper instead). Called
    without a model it is a decorator. torch's checks of mode and options are kept."""
    del fullgraph, dynamic, backend, disable, kwargs
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _COMPILE_MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_COMPILE_MODES)}")
    if model is None:
        return lambda fn: compile(fn, mode=mode, options=options)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model


def typename(obj, /):
    """The type's name (torch.typename): "seqlab.FloatTensor" for a tensor, else the class's
    module-qualified name."""
    if isinstance(obj, _core.Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "")
    qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
