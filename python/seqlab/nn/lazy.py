"""Lazy modules, as torch.nn's: LazyLinear and LazyBatchNorm1d infer in_features / num_features
from their first input. Until then their parameters are UninitializedParameter (buffers
UninitializedBuffer); the first call materialises them in place, initialises them as the full
module would (reset_parameters), and turns the module into that module (LazyLinear -> Linear).
Loading a state dict into a lazy module materialises it with the loaded shapes.

As in torch, a placeholder is a Tensor with no elements that refuses every use but a few
(dtype, requires_grad, to(dtype)); materialize(shape) gives the same object its memory (the
`x.data = t` of seqlab._core, which keeps the object and its autograd state) and makes it a plain
Tensor, so an optimizer built before the first call holds the parameters it trains.
Tests: tests/test_lazy.py."""
from .. import _core
from .._core import Tensor
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


# What a placeholder allows (torch's UninitializedTensorMixin._allowed_methods, in part); private
# names and dunders are looked up as usual, and every op given a placeholder refuses it
# (cpp/python/bind_common.hpp, the Tensor caster).
_ALLOWED = frozenset({"shape", "dtype", "requires_grad", "requires_grad_", "grad", "grad_fn", "is_leaf",
                      "is_floating_point", "to", "detach", "materialize", "cls_to_become"})


class _Uninitialized(Tensor):
    """A Tensor subclass with a dtype and no data yet. Its dtype and requires_grad live here, in
    Python, because the C++ side refuses the object until materialize() turns it into a Tensor."""

    __slots__ = ()  # the layout of Tensor itself, so that materialize() can make the object a Tensor
    _uninitialized = True

    def __init__(self, requires_grad, dtype):
        Tensor.__init__(self)  # an empty tensor underneath: the object that gets the data later
        self._dtype = dtype
        self._requires_grad = requires_grad

    def __getattribute__(self, name):
        if name.startswith("_") or name in _ALLOWED:
            return object.__getattribute__(self, name)
        raise uninitialized_error(f"<method '{name}' of 'Tensor' objects>")

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    @property
    def dtype(self):
        return self._dtype

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._requires_grad = bool(value)

    grad = None
    grad_fn = None
    is_leaf = True

    def is_floating_point(self):
        return self._dtype in (_core.dtype.float32, _core.dtype.float64)

    def to(self, *args, **kwargs):
        """to(dtype) changes the dtype the tensor will have; the device can only be the CPU."""
        from .._device import parse_to
        _, dtype, _ = parse_to(args, kwargs)
        if dtype is not None:
            self._dtype = dtype
        return self

    def detach(self):
        return self

    def requires_grad_(self, requires_grad=True):
        self._requires_grad = requires_grad
        return self

    def __deepcopy__(self, memo):
        out = type(self)(self._requires_grad, dtype=self._dtype)
        memo[id(self)] = out
        return out

    def materialize(self, shape, device=None, dtype=None):
        """Give this object memory of `shape` (uninitialised values) in place; it becomes a Tensor
        (a Parameter stays one), so whoever holds it (an optimizer) holds the real parameter."""
        if dtype is not None:
            self._dtype = dtype
        data, requires_grad = _empty(tuple(shape), self._dtype), self._requires_grad
        self.__class__ = Tensor  # from here on the C++ ops accept it
        del self._dtype, self._requires_grad
        self._set_data(data)
        self.requires_grad_(requires_grad)
        return self


def _refuse(name):
    def method(self, *args, **kwargs):
        raise uninitialized_error(f"<method '{name}' of 'Tensor' objects>")
    return method


# Operators are looked up on the type, not through __getattribute__: each raises torch's error.
for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__matmul__", "__rmatmul__",
              "__truediv__", "__rtruediv__", "__pow__", "__neg__", "__getitem__", "__setitem__", "__len__",
              "__iter__", "__float__", "__int__", "__bool__", "__array__", "__iadd__", "__isub__", "__imul__",
              "__format__", "__index__"):
    setattr(_Uninitialized, _name, _refuse(_name.strip("_")))


class UninitializedParameter(_Uninitialized):
    """A parameter whose shape is not known yet; materialize(shape) makes it the Parameter."""

    __slots__ = ()
    _is_param = True
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(requires_grad, _factory(device, dtype))
        self._is_param = True  # stays on the object when it becomes a Tensor

    def __repr__(self):
        return "<UninitializedParameter>"


class UninitializedBuffer(_Uninitialized):
    """A buffer whose shape is not known yet; materialize(shape) makes it the tensor."""

    __slots__ = ()

    def __init__(self, requires_grad=False, device=None, dtype=None):
        super().__init__(requires_grad, _factory(device, dtype))

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
        """Give the placeholder `name` memory of `shape`, in place (the same object stays registered)."""
        (self._parameters if name in self._parameters else self._buffers)[name].materialize(shape)

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
