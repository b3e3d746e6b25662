"""Lazy modules, as torch.nn's: LazyLinear and LazyBatchNorm1d infer in_features / num_features
from their first input. Until then their parameters are UninitializedParameter (buffers
UninitializedBuffer); the first call materialises them, initialises them as the full module
would (reset_parameters), and turns the module into that module (LazyLinear -> Linear).
Loading a state dict into a lazy module materialises it with the loaded shapes.

One difference from torch, loud rather than silent: torch materialises a parameter in place,
keeping the object, so an optimizer built before the first call works; seqlab cannot change
a tensor's shape in place, so the first call registers new Parameters, and an optimizer
given uninitialized parameters refuses them with torch's "Attempted to use an uninitialized
parameter" error. Build the optimizer after a dry run, as torch's documentation advises.
Tests: tests/test_lazy.py."""
from .. import _core
from ..autograd import no_grad
from .layers import BatchNorm1d, Linear, _empty, _factory
from .module import Parameter

__all__ = ["UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin", "LazyLinear", "LazyBatchNorm1d"]

_HELP = ("This error happens when you are using a `LazyModule` or explicitly manipulating "
         "`torch.nn.parameter.UninitializedParameter` objects. When using LazyModules Call `forward` with a "
         "dummy batch to initialize the parameters before calling torch functions")


def uninitialized_error(where):
    """torch's ValueError for any use of an uninitialized parameter or buffer."""
    return ValueError(f"Attempted to use an uninitialized parameter in {where}. {_HELP}")


class _Uninitialized:
    """A placeholder with a dtype and nothing else: every tensor method raises torch's error."""

    _uninitialized = True
    grad = None
    grad_fn = None

    def __init__(self, requires_grad, dtype):
        self.requires_grad = requires_grad
        self.dtype = dtype

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    # What torch allows on them (UninitializedTensorMixin._allowed_methods, in part).
    def is_floating_point(self):
        return self.dtype in (_core.dtype.float32, _core.dtype.float64)

    def to(self, *args, **kwargs):
        """to(dtype) changes the dtype the tensor will have; the device can only be the CPU."""
        from .._device import parse_to
        _, dtype, _ = parse_to(args, kwargs)
        if dtype is not None:
            self.dtype = dtype
        return self

    def detach(self):
        return self

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    def __getattr__(self, name):
        raise uninitialized_error(f"<method '{name}' of 'Tensor' objects>")

    def _tensor(self, shape):
        return _empty(tuple(shape), self.dtype)


def _refuse(name):
    def method(self, *args, **kwargs):
        raise uninitialized_error(f"<method '{name}' of 'Tensor' objects>")
    return method


# Operators are looked up on the type, not through __getattr__: each raises torch's error too.
for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__matmul__", "__rmatmul__",
              "__truediv__", "__rtruediv__", "__pow__", "__neg__", "__getitem__", "__setitem__", "__len__",
              "__iter__", "__float__", "__int__", "__bool__", "__array__", "__iadd__", "__isub__", "__imul__"):
    setattr(_Uninitialized, _name, _refuse(_name.strip("_")))


class UninitializedParameter(_Uninitialized):
    """A parameter whose shape is not known yet; materialize(shape) returns the Parameter."""

    _is_param = True
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(requires_grad, _factory(device, dtype))

    def materialize(self, shape, device=None, dtype=None):
        if dtype is not None:
            self.dtype = dtype
        return Parameter(self._tensor(shape), self.requires_grad)

    def __repr__(self):
        return "<UninitializedParameter>"


class UninitializedBuffer(_Uninitialized):
    """A buffer whose shape is not known yet; materialize(shape) returns the tensor."""

    def __init__(self, requires_grad=False, device=None, dtype=None):
        super().__init__(requires_grad, _factory(device, dtype))

    def materialize(self, shape, device=None, dtype=None):
        if dtype is not None:
            self.dtype = dtype
        return self._tensor(shape)

    def __repr__(self):
        return "<UninitializedBuffer>"


def is_lazy(value):
    return getattr(value, "_uninitialized", False) is True


class LazyModuleMixin:
    """Runs initialize_parameters(*input) before the first forward; once nothing is left
    uninitialized, the module becomes cls_to_become (torch.nn.modules.lazy.LazyModuleMixin)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

    def has_uninitialized_params(self):
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def _materialize(self, name, shape):
        """Replace the placeholder `name` by a tensor of `shape` (registered under the same name)."""
        if name in self._parameters:
            self._parameters[name] = self._parameters[name].materialize(shape)
        else:
            self._buffers[name] = self._buffers[name].materialize(shape)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # A loaded tensor gives a placeholder its shape (torch's _lazy_load_hook).
        for name, value in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if is_lazy(value) and key in state_dict and not is_lazy(state_dict[key]):
                self._materialize(name, tuple(state_dict[key].shape))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


def _infer_parameters(module, args):
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is input.shape[-1] of the first call."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        dtype = _factory(device, dtype)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self._materialize("weight", (self.out_features, self.in_features))
                if self.bias is not None:
                    self._materialize("bias", (self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # weights loaded from a state dict: check the input against them
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class LazyBatchNorm1d(LazyModuleMixin, BatchNorm1d):
    """A BatchNorm1d whose num_features is input.shape[1] of the first call."""

    cls_to_become = BatchNorm1d

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(0, eps, momentum, False, False)
        dtype = _factory(device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = _core._full([], 0.0, _core.dtype.int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self._materialize("weight", (self.num_features,))
                if self.bias is not None:
                    self._materialize("bias", (self.num_features,))
            if self.track_running_stats:
                self._materialize("running_mean", (self.num_features,))
                self._materialize("running_var", (self.num_features,))
            self.reset_parameters()
