"""Tracing: run the model once while every seqlab op it calls is recorded into a Graph.

While a Tracer is active, seqlab's entry points are replaced by wrappers: the functions of
seqlab._core (wherever a module of seqlab, or of the model's classes, holds them: seqlab.tanh,
nn.functional.relu, _core.rnn, ...), the creation functions zeros, ones, full and arange, and
the methods, operators and view properties of Tensor.
A wrapper calls the original and, for the outermost call only (the ops a fused op or a Python
method calls inside are its own business), hands the call and its result to the op's
translation (_symbolic.py), which appends ONNX nodes and names the result. An op with no
translation that reads a traced tensor and returns a tensor stops the export with an error
naming it; one that returns no tensor (size(), dim(), a mask check) runs as usual, so Python
control flow is traced away: the path the example input takes is the one exported, as torch's
tracer does. Everything is put back on exit, also after an error.

x.shape and x.size() of a traced tensor are SymInts (_sizes.py), so that sizes read in Python
follow dynamic axes into views, expands and creation functions.

Tensors are known by identity. A tensor the trace has not seen is a parameter or buffer (an
initializer under its state-dict name), or a constant made during the forward (a Constant
node), unless it has a grad_fn: then an op outside the trace computed it from traced values
(e.g. a function imported under another name), and the export stops rather than freeze it."""
import sys

import numpy as np

from .. import _core, _tensor
from ._sizes import SymInt, sizes_of

Tensor = _core.Tensor

# Methods that never read a traced tensor's values into a new tensor and are not ops.
_PASS_THROUGH = {"requires_grad_", "retain_grad", "register_hook", "backward", "__repr__", "__str__",
                 "__format__", "__init__", "__new__", "__getattribute__", "__setattr__", "__delattr__",
                 "__reduce__", "__reduce_ex__", "__deepcopy__", "__copy__", "__hash__", "__iter__",
                 "__init_subclass__", "__subclasshook__", "__dir__", "__sizeof__", "__class__",
                 "__array__", "__dlpack__", "__dlpack_device__", "__len__", "__bool__", "__float__", "__int__",
                 "__index__", "__getstate__", "__setstate__", "_set_data"}

# The view properties of Tensor that are ops.
_PROPERTIES = ("T", "mT", "data")

# The parameter records the layer functionals take (the _core classes that declare `fields`): each one
# made during the trace is recorded with the arguments it was made from (the activation as the module
# gave it, "relu", "gelu" or a callable).


# Creation functions of seqlab._tensor that take sizes: given SymInts, their shape is computed at run time.
_PYTHON_CREATION = ("zeros", "ones", "full", "arange")


def instances_in(obj, cls=Tensor):
    """The objects of type `cls` in obj and the lists, tuples and dict values nested in it, in order."""
    if isinstance(obj, cls):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from instances_in(o, cls)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from instances_in(o, cls)


class Tracer:
    """The state of one export: the graph, the names of the values seen so far, the
    parameters and buffers (by identity), and the wrappers in place."""

    active = None

    def __init__(self, graph, named_tensors, functions, methods, user_modules=()):
        self.graph = graph
        self._values = {}                 # id(tensor) -> value name
        self._alive = []                  # the traced tensors, kept so that no id is reused
        self._named = named_tensors       # id(parameter or buffer) -> (state-dict name, tensor)
        self._functions = functions       # _core function name -> translation
        self._methods = methods           # Tensor method name -> translation
        self.depth = 0
        self.records = {}                 # id(params record) -> (record, its constructor's arguments)
        self._user_modules = [m for m in user_modules if m is not None]   # the model's classes' modules
        self._undo = []

    # ------------------------------------------------------------------ values
    def bind(self, tensor, name):
        """The value `name` is `tensor` from now on."""
        self._values[id(tensor)] = name
        self._alive.append(tensor)
        return name

    def traced(self, obj):
        """Whether obj (arguments) holds a tensor of the graph: a traced value or a parameter."""
        return any(id(t) in self._values or id(t) in self._named for t in instances_in(obj))

    def involved(self, obj):
        """Whether a translation has work to do: a tensor of the graph or a SymInt in obj."""
        return self.traced(obj) or any(True for _ in instances_in(obj, SymInt))

    def name(self, t):
        """The value name of tensor t: traced so far, an initializer, or a new Constant."""
        name = self._values.get(id(t))
        if name is not None:
            return name
        self.depth += 1
        try:
            return self._new_name(t)
        finally:
            self.depth -= 1

    def _new_name(self, t):
        if id(t) in self._named:
            key, tensor = self._named[id(t)]
            self.graph.initializers[self.graph.reserve(key)] = _numpy(tensor)
            return self.bind(t, key)
        if t.grad_fn is not None:
            raise RuntimeError(
                f"seqlab.onnx.export: a tensor of shape {tuple(t.shape)} was computed from the model's inputs or "
                f"parameters by an op the exporter did not see ({t.grad_fn.name()}); call seqlab's ops through "
                f"their usual names (seqlab.x, Tensor.x, seqlab.nn.functional.x) inside forward")
        return self.bind(t, self.graph.op("Constant", value=_numpy(t)))

    def record(self, params):
        """The constructor arguments of a params record the layer functionals take."""
        return self.records[id(params)][1]

    # ------------------------------------------------------------------ patching
    def _wrap(self, name, original, kind):
        table = self._functions if kind == "function" else self._methods
        translate = table.get(name)
        tracer = self

        def traced(*args, **kwargs):
            if tracer.depth:
                return original(*args, **kwargs)
            tracer.depth += 1          # the op's own calls, and its translation's, are not recorded
            try:
                out = original(*args, **kwargs)
                if translate is not None:
                    if tracer.involved((args, kwargs)):
                        translate(tracer, out, *args, **kwargs)
                elif any(True for _ in instances_in(out)) and tracer.traced((args, kwargs)):
                    raise NotImplementedError(_unsupported(name, kind, table))
            finally:
                tracer.depth -= 1
            return out

        traced.__wrapped__ = original
        traced.__name__ = getattr(original, "__name__", name)
        traced.__doc__ = getattr(original, "__doc__", None)
        return traced

    def _sizes(self, t, shape):
        """x.shape (given) of a traced value as SymInts, or None when t is not one (or an op is running)."""
        name = self._values.get(id(t))
        if self.depth or name is None or name in self.graph.initializers:
            return None
        return sizes_of(self, name, shape)

    def _wrap_sizes(self):
        tracer = self
        shape, size = vars(Tensor)["shape"], vars(Tensor)["size"]

        def get_shape(t):
            plain = shape.fget(t)
            return tracer._sizes(t, plain) or plain

        def traced_size(t, *args, **kwargs):
            out = size(t, *args, **kwargs)
            sizes = tracer._sizes(t, shape.fget(t))
            if sizes is None:
                return out
            if isinstance(out, int):
                dim = args[0] if args else kwargs["dim"]
                return sizes[dim]
            return sizes
        traced_size.__doc__ = size.__doc__
        self._set(Tensor, "shape", property(get_shape, doc=shape.__doc__))
        self._set(Tensor, "size", traced_size)

    def _record_params(self, cls):
        tracer = self

        def make(*args, **kwargs):
            obj = cls(*args, **kwargs)
            tracer.records[id(obj)] = (obj, (args, kwargs))
            return obj
        return make

    def _set(self, owner, name, value):
        self._undo.append((owner, name, vars(owner)[name]))
        setattr(owner, name, value)

    def __enter__(self):
        if Tracer.active is not None:
            raise RuntimeError("seqlab.onnx.export: an export is already running (export is not reentrant)")
        Tracer.active = self
        try:
            self._patch()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _patch(self):
        replaced = {}        # id(original function) -> its wrapper
        for name in _PYTHON_CREATION:                 # seqlab's creation functions, written in Python
            value = getattr(_tensor, name)
            replaced[id(value)] = self._wrap(name, value, "function")
        for name, value in vars(_core).items():
            if isinstance(value, type) and hasattr(value, "fields"):
                replaced[id(value)] = self._record_params(value)
            elif callable(value) and type(value).__name__ in ("builtin_function_or_method", "function") \
                    and not isinstance(value, type):
                replaced[id(value)] = self._wrap(name, value, "function")
        modules = [m for k, m in list(sys.modules.items()) if k == "seqlab" or k.startswith("seqlab.")]
        modules += self._user_modules
        for module in dict.fromkeys(modules):
            for attr, value in list(vars(module).items()):
                wrapper = replaced.get(id(value))
                if wrapper is not None:
                    self._set(module, attr, wrapper)
        self._wrap_sizes()
        for name, value in list(vars(Tensor).items()):
            if name in ("shape", "size"):
                continue
            if name in _PROPERTIES and isinstance(value, property):
                fget = self._wrap(name, value.fget, "method")
                self._set(Tensor, name, property(fget, value.fset, value.fdel, value.__doc__))
            elif callable(value) and name not in _PASS_THROUGH and not isinstance(value, (type, property)) \
                    and (not name.startswith("_") or name.startswith("__")):
                self._set(Tensor, name, self._wrap(name, value, "method"))

    def __exit__(self, *exc):
        while self._undo:
            owner, name, value = self._undo.pop()
            setattr(owner, name, value)
        Tracer.active = None
        return False


def _numpy(t):
    return np.array(t.detach().numpy(), copy=True)


def _unsupported(name, kind, table):
    shown = f"Tensor.{name}" if kind == "method" else name
    supported = ", ".join(sorted(table))
    return (f"seqlab.onnx.export: the op {shown} has no ONNX translation (it was called on a traced tensor); "
            f"the exporter supports these {kind}s: {supported}")
