"""seqlab.nn.parameter (torch.nn.parameter): Parameter, Buffer, and the lazy modules' placeholders
UninitializedParameter and UninitializedBuffer.

Why Parameter is not a subclass of seqlab.Tensor
-----------------------------------------------
seqlab.Tensor is a pybind11 class around a C++ TensorImpl and has no Python-visible
constructor: a Python subclass cannot be instantiated around existing data (pybind11 raises
"No constructor defined!"), and every tensor the C++ core returns is a plain seqlab.Tensor
anyway. So ``Parameter(data, requires_grad=True)`` returns ``data.detach()`` (sharing its
storage, as torch's Parameter does), a leaf with requires_grad set and the instance attribute
``_is_param = True`` (seqlab.Tensor allows instance attributes). A metaclass makes
``isinstance(p, nn.Parameter)`` test that mark, and repr(p) reads "Parameter containing:\\n
tensor(...)". The one visible difference from torch: ``type(p)`` is seqlab.Tensor.

As in torch, a placeholder is a Tensor with no elements that refuses every use but a few
(dtype, requires_grad, to(dtype)); materialize(shape) gives the same object its memory (the
`x.data = t` of seqlab._core, which keeps the object and its autograd state) and makes it a plain
Tensor, so an optimizer built before the first call holds the parameters it trains (the lazy
modules: nn/modules/lazy.py). Tests: tests/test_nn_module.py, tests/test_lazy.py."""
from .. import _core
from .._core import Tensor
from .._device import parse_to
from .._dtypes import float32
from ._helpers import _empty, _factory

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


class _ParameterMeta(type):
    def __instancecheck__(cls, obj):
        if getattr(type(obj), "_uninitialized", False):  # UninitializedParameter, as torch's
            return getattr(type(obj), "_is_param", False) is True
        return isinstance(obj, Tensor) and getattr(obj, "_is_param", False) is True


class Parameter(metaclass=_ParameterMeta):
    """A tensor that is a module parameter: Parameter(data=None, requires_grad=True).

    Returns a seqlab.Tensor (see the module docstring): ``data.detach()`` marked as a
    parameter, a leaf sharing data's storage, with requires_grad set."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _core._empty([0], float32)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a seqlab.Tensor, got {type(data).__name__}")
        p = data.detach()
        if requires_grad:
            p.requires_grad_(True)
        p._is_param = True
        return p


# Parameters are seqlab.Tensors: Tensor's repr (seqlab/_tensor.py) prints
# "Parameter containing:" for them.


class _BufferMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and getattr(obj, "_is_buffer", False) is True


class Buffer(metaclass=_BufferMeta):
    """A tensor that is module state but not a parameter (torch 2.5's nn.Buffer): assigned as a
    module attribute (``self.x = nn.Buffer(t, persistent=False)``) it is registered as a buffer,
    persistent ones in the state dict.

    Returns a seqlab.Tensor, as Parameter does: ``data.detach()`` (sharing its storage, keeping its
    requires_grad) marked ``_is_buffer`` with the attribute ``persistent``."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _core._empty([0], float32)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): data must be a seqlab.Tensor, got {type(data).__name__}")
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


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
