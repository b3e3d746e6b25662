"""torch.amp as seqlab has it on the CPU: autocast (with torch's state functions: is_autocast_enabled,
get/set_autocast_dtype, the cache switches) and GradScaler. autocast is a documented no-op: seqlab
has float16 and bfloat16 tensors (a model converted with .half() / .bfloat16() computes each op in
float32 and rounds it, as torch's CPU kernels do), but autocast does not lower ops to them. Inside
`with autocast("cpu")` every op runs in its inputs' dtype (torch's CPU autocast would run linear,
matmul, bmm, conv and the like in bfloat16), and the context keeps torch's state, warnings and
nesting, so mixed-precision scripts run unchanged, in float32. GradScaler scales, unscales and skips
steps with inf/NaN gradients exactly as torch's does on a CPU build. Tests:
tests/test_torch_switches.py, tests/test_half_checkpoints.py."""
import functools
import warnings

from . import _core
from ._device import device as _device_type

__all__ = ["autocast", "GradScaler", "is_autocast_available"]


# Per device type: [enabled, dtype]; torch's defaults are bfloat16 on the CPU, float16 on CUDA.
_STATE = {"cpu": [False, _core.dtype.bfloat16], "cuda": [False, _core.dtype.float16]}
_cache = {"enabled": True, "nesting": 0}


def _device(device_type, fn):
    """The device type string ("cpu", "cuda"), with torch's error for an unknown one."""
    kind = _device_type(device_type).type  # torch's RuntimeError for "xyz"
    if kind not in _STATE:
        raise RuntimeError(f"{fn}(): unsupported autocast device_type '{kind}'")
    return kind


def is_autocast_available(device_type):
    """True for the CPU (seqlab's autocast context works there), False for every other device."""
    return _device_type(device_type).type == "cpu"


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for device_type (torch.is_autocast_enabled; no argument means CUDA,
    which is never on in seqlab)."""
    return _STATE[_device("cuda" if device_type is None else device_type, "is_autocast_enabled")][0]


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled(device_type, enabled), or torch's legacy set_autocast_enabled(enabled)
    for CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _STATE[_device(device_type, "set_autocast_enabled")][0] = bool(enabled)


def get_autocast_dtype(device_type):
    """The dtype torch's autocast lowers to on device_type: bfloat16 on the CPU, float16 on CUDA
    (seqlab's autocast reports it and lowers nothing)."""
    return _STATE[_device(device_type, "get_autocast_dtype")][1]


def set_autocast_dtype(device_type, dtype):
    """Sets the dtype get_autocast_dtype reports for device_type."""
    _STATE[_device(device_type, "set_autocast_dtype")][1] = dtype


def _deprecated(old, new):
    warnings.warn(f"seqlab.{old}() is deprecated. Please use seqlab.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    """Deprecated form of is_autocast_enabled("cpu"), with torch's DeprecationWarning."""
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return _STATE["cpu"][0]


def set_autocast_cpu_enabled(enabled):
    """Deprecated form of set_autocast_enabled("cpu", enabled)."""
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    _STATE["cpu"][0] = bool(enabled)


def get_autocast_cpu_dtype():
    """Deprecated form of get_autocast_dtype("cpu")."""
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return _STATE["cpu"][1]


def set_autocast_cpu_dtype(dtype):
    """Deprecated form of set_autocast_dtype("cpu", dtype)."""
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    _STATE["cpu"][1] = dtype


def is_autocast_cache_enabled():
    """Whether autocast caches its casts of weights (torch's flag; seqlab casts nothing)."""
    return _cache["enabled"]


def set_autocast_cache_enabled(enabled):
    """Sets the flag is_autocast_cache_enabled reports."""
    _cache["enabled"] = bool(enabled)


def clear_autocast_cache():
    """Empties autocast's cache of casts: seqlab keeps none, so there is nothing to do."""


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a context manager
    and a decorator that turns autocast's state on for device_type. On the CPU the state is kept
    and reported, but ops compute in their inputs' dtypes (a documented no-op: no op is lowered to
    float16 / bfloat16; convert the model with .bfloat16() for that); a dtype other than float16 /
    bfloat16 disables it with torch's warning.
    "cuda" warns and disables, as torch without CUDA does."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _device(device_type, "autocast")
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._enabled = bool(enabled)
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        if self.device == "cuda" and self._enabled:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning,
                          stacklevel=2)
            self._enabled = False
        supported = (_core.dtype.bfloat16, _core.dtype.float16)
        if self.device == "cpu" and self._enabled and dtype is not None and dtype not in supported:
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of seqlab.bfloat16, seqlab.float16 currently.",
                          UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self):
        self._prev = list(_STATE[self.device])
        self._prev_cache = _cache["enabled"]
        _STATE[self.device][:] = [self._enabled, self.fast_dtype]
        _cache["enabled"] = self._cache_enabled
        _cache["nesting"] += 1
        return self

    def __exit__(self, *exc):
        _cache["nesting"] -= 1
        if _cache["nesting"] == 0:
            clear_autocast_cache()
        _STATE[self.device][:] = self._prev
        _cache["enabled"] = self._prev_cache
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return wrapper


_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """torch.amp.GradScaler(device="cuda", init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True). Loss scaling: scale(loss) multiplies by the scale,
    unscale_(optimizer) divides the gradients by it and records whether any is inf or NaN, step
    skips the optimizer's step when one was, and update() halves the scale after an overflow or
    doubles it after growth_interval clean steps. device="cuda" (the default) warns and disables
    it, as torch without CUDA does; device="cpu" scales as torch's does."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = _device_type(device).type
        if enabled and self._device == "cuda":
            warnings.warn("seqlab.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", UserWarning,
                          stacklevel=2)
            enabled = False
        self._enabled = bool(enabled)
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = float(init_scale)
        self._scale = None  # made by the first scale(), as torch's lazily made tensor
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._per_optimizer = {}  # id(optimizer) -> {"stage": ..., "found_inf": bool}

    def is_enabled(self):
        """False when made with enabled=False or for CUDA."""
        return self._enabled

    def scale(self, outputs):
        """outputs (a tensor, or nested lists / tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = self._init_scale
        if isinstance(outputs, _core.Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": False})

    def unscale_(self, optimizer):
        """Divides the gradients of optimizer's parameters by the scale, in place, and records whether
        any is inf or NaN (then step() skips this optimizer's step)."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = 1.0 / self._scale
        found_inf = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not bool(p.grad.isfinite().all()):
                    found_inf = True
                p.grad.mul_(inv_scale)
        state["stage"], state["found_inf"] = _UNSCALED, found_inf

    def step(self, optimizer, *args, **kwargs):
        """unscale_ (unless done already), then optimizer.step(*args, **kwargs) unless a gradient was
        inf or NaN; returns what step returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if self._scale is None:
            raise AssertionError("Attempted step but _scale is None.  This may indicate your script did not use "
                                 "scaler.scale(loss or outputs) earlier in the iteration.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        out = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return out

    def update(self, new_scale=None):
        """The next scale: new_scale if given (a float or a one-element tensor), else the current one
        times backoff_factor after an inf/NaN gradient, times growth_factor after growth_interval
        steps without one."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError("Attempted update but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, _core.Tensor) else new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values() if s["stage"] != _READY]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self):
        """The current scale as a float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def get_growth_factor(self):
        """The factor the scale grows by after growth_interval clean steps."""
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Sets the growth factor."""
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        """The factor the scale shrinks by after an inf/NaN gradient."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Sets the backoff factor."""
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        """The number of clean steps before the scale grows."""
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Sets the growth interval."""
        self._growth_interval = int(new_interval)

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker ({} when disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        """Restores what state_dict() returned."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale = self._init_scale
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])

