"""A user's own seqlab.nn.Module subclass across: to_torch makes a torch.nn.Module class for it whose
methods are the user's own (forward and whatever it calls), each run with the names it reads from
seqlab bound to torch's (`import seqlab as torch`, `F.relu`, `seqlab.float64`: torch, torch's relu,
torch.float64); its submodules are converted one by one, its parameters, buffers and plain
attributes carried over. Before anything runs, every dotted name a method reads from seqlab
(seqlab.x.y) is looked up in torch, so a function torch does not have is an error naming the method
and the name, not a failure halfway through training. from_torch gives back the user's class.

What it cannot see: methods of the tensors (x.tanh() is torch's on a torch tensor) and objects
reached other than through a module-level name. A subclass of one of seqlab's layers (class
MyLSTM(nn.LSTM)) is refused: its forward would run on torch's layer, whose internals differ.
Tests: tests/test_to_torch_user_modules.py."""
import dis
import importlib
import types

import torch

from .. import _core
from .. import nn as snn

__all__ = ["user_module_to_torch", "user_module_from_torch", "is_user_module", "is_converted_user_module"]

# the state a Module keeps for itself; every other instance attribute is the user's
_MODULE_STATE = set(vars(snn.Module())) | set(vars(torch.nn.Module())) | {"_seqlab_class"}


def is_user_module(m):
    return isinstance(m, snn.Module) and not type(m).__module__.startswith("seqlab.")


def is_converted_user_module(m):
    return isinstance(m, torch.nn.Module) and hasattr(type(m), "_seqlab_class")


# ------------------------------------------------------------------------------ names, seqlab -> torch

def _torch_namespace(module):
    """torch's module for a seqlab module of the same path (seqlab.nn.functional -> torch.nn.functional)."""
    try:
        return importlib.import_module("torch" + module.__name__[len("seqlab"):])
    except ImportError:
        return None


def _seqlab_names():
    """id(object) -> (namespace, name) for every public name of seqlab's torch-shaped namespaces."""
    if not _NAMES:  # (the namespaces a user's code reads, the package itself among them: indexed, not used)
        for path in ("seqlab", "seqlab.nn", "seqlab.nn.functional", "seqlab.nn.init", "seqlab.linalg",
                     "seqlab.autograd", "seqlab.nn.utils", "seqlab.nn.utils.rnn", "seqlab.optim", "seqlab.utils.data"):
            module = importlib.import_module(path)
            for name in dir(module):
                if not name.startswith("_"):
                    _NAMES.setdefault(id(getattr(module, name)), (module, name))
    return _NAMES


def _is_seqlab(value):
    if isinstance(value, types.ModuleType):
        return value.__name__ == "seqlab" or value.__name__.startswith("seqlab.")
    module = getattr(value, "__module__", None) or getattr(type(value), "__module__", "")
    return isinstance(module, str) and (module == "seqlab" or module.startswith("seqlab."))


_NAMES = {}  # filled on first use


def _counterpart(value):
    """torch's object for a seqlab one (a module, a function, a class, a dtype); None if torch has none."""
    if isinstance(value, types.ModuleType):
        return _torch_namespace(value)
    if isinstance(value, _core.dtype):
        return getattr(torch, str(value).split(".")[-1], None)
    where = _seqlab_names().get(id(value))
    if where is None:
        return None
    namespace, name = where
    torch_namespace = _torch_namespace(namespace)
    return None if torch_namespace is None else getattr(torch_namespace, name, None)


def _globals_for(fn, owner):
    """fn's module globals with each seqlab name it reads bound to torch's; an error naming the
    first it reads that torch lacks."""
    env = dict(fn.__globals__)
    names = _global_names(fn.__code__)
    for name in names:
        value = env.get(name)
        if value is not None and _is_seqlab(value):
            twin = _counterpart(value)
            if twin is None:
                raise NotImplementedError(f"to_torch: {owner} reads {name} ({_describe(value)}), which has no torch "
                                          "counterpart; write that part in torch, or convert the submodules with "
                                          "to_torch and write the forward in torch")
            env[name] = twin
    for dotted in _dotted_reads(fn.__code__):  # seqlab.nn.functional.foo: each step present in torch
        head = fn.__globals__.get(dotted[0])
        if head is None or not isinstance(head, types.ModuleType) or not _is_seqlab(head):
            continue
        ours, theirs = head, env[dotted[0]]
        for n, attr in enumerate(dotted[1:], 1):
            if not isinstance(ours, types.ModuleType):
                break  # past seqlab's modules (a tensor's method, a dtype's field): not ours to check
            ours = getattr(ours, attr, None)
            if not hasattr(theirs, attr):
                what = "" if ours is None else f" ({_describe(ours)})"
                raise NotImplementedError(f"to_torch: {owner} calls {'.'.join(dotted[:n + 1])}{what}, which torch "
                                          "does not have; write that part in torch")
            theirs = getattr(theirs, attr)
    return env


def _describe(value):
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or repr(value)
    module = getattr(value, "__module__", None)
    return f"seqlab's {name}" if not module else f"{module}.{name}".replace("seqlab._core.", "seqlab.")


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _global_names(code):
    return {ins.argval for c in _codes(code) for ins in dis.get_instructions(c)
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")}


def _dotted_reads(code):
    """Each global read and the attributes read from it in a row: ("F", "relu"), ("seqlab", "nn", "init")."""
    for c in _codes(code):
        chain = None
        for ins in dis.get_instructions(c):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                if chain and len(chain) > 1:
                    yield tuple(chain)
                chain = [ins.argval]
            elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and chain:
                chain.append(ins.argval)
            else:
                if chain and len(chain) > 1:
                    yield tuple(chain)
                chain = None
        if chain and len(chain) > 1:
            yield tuple(chain)


# ------------------------------------------------------------------------------------- the classes

def _rebind(fn, owner, cls):
    """fn as a function of the torch class: torch's names in its globals; super() (its __class__
    cell) meaning the torch class."""
    closure = fn.__closure__
    if closure and "__class__" in fn.__code__.co_freevars:
        cells = list(closure)
        cells[fn.__code__.co_freevars.index("__class__")] = types.CellType(cls)
        closure = tuple(cells)
    out = types.FunctionType(fn.__code__, _globals_for(fn, owner), fn.__name__, fn.__defaults__, closure)
    out.__kwdefaults__, out.__qualname__, out.__doc__ = fn.__kwdefaults__, fn.__qualname__, fn.__doc__
    return out


_TORCH_CLASSES = {}  # the user's class -> its torch class (one per class, so isinstance works across modules)


def _torch_class(cls, owner, user_cls=None):
    """The torch class of the user's class: its bases' torch classes (seqlab.nn.Module's is
    torch.nn.Module) and its own methods rebound; an error for a subclass of one of seqlab's layers."""
    if cls is snn.Module:
        return torch.nn.Module
    if cls is object:
        return object
    if cls.__module__.startswith("seqlab."):
        raise NotImplementedError(f"to_torch: {owner} is a {user_cls.__name__}, a subclass of seqlab's "
                                  f"{cls.__name__}; to_torch converts seqlab's layers and subclasses of nn.Module "
                                  "(hold the layer as a submodule instead)")
    if cls in _TORCH_CLASSES:
        return _TORCH_CLASSES[cls]
    bases = tuple(_torch_class(base, owner, user_cls or cls) for base in cls.__bases__)
    namespace = {"_seqlab_class": cls, "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                 "__doc__": cls.__doc__}
    torch_cls = type(cls.__name__, bases, namespace)
    for name, value in vars(cls).items():
        if name in ("__init__", "__dict__", "__weakref__", "__module__", "__qualname__", "__doc__"):
            continue
        where = f"{cls.__name__}.{name}"
        if isinstance(value, types.FunctionType):
            value = _rebind(value, where, torch_cls)
        elif isinstance(value, (staticmethod, classmethod)):
            value = type(value)(_rebind(value.__func__, where, torch_cls))
        elif isinstance(value, property):
            value = property(*(None if f is None else _rebind(f, where, torch_cls)
                               for f in (value.fget, value.fset, value.fdel)), value.__doc__)
        setattr(torch_cls, name, value)
    _TORCH_CLASSES[cls] = torch_cls
    return torch_cls


def _carry(value, to_torch):
    """A plain attribute's value on the other side: tensors converted (a copy), the rest as it is."""
    if to_torch and isinstance(value, _core.Tensor):
        return torch.from_dlpack(value.detach()).clone()
    if not to_torch and isinstance(value, torch.Tensor):
        return _core.from_dlpack(value.detach().cpu().clone())
    return value


def user_module_to_torch(m, owner, convert):
    """The torch module of the user's seqlab module m; convert(child, owner) converts its children."""
    cls = _torch_class(type(m), owner)
    out = cls.__new__(cls)
    torch.nn.Module.__init__(out)
    for name, child in m._modules.items():
        out.add_module(name, None if child is None else convert(child, f"{owner}.{name}"))
    for name, p in m._parameters.items():
        out.register_parameter(name, None if p is None else torch.nn.Parameter(
            torch.from_dlpack(p.detach()).clone(), requires_grad=p.requires_grad))
    for name, b in m._buffers.items():
        out.register_buffer(name, None if b is None else torch.from_dlpack(b.detach()).clone(),
                            persistent=name not in m._non_persistent_buffers_set)
    for name, value in vars(m).items():
        if name not in _MODULE_STATE:
            setattr(out, name, _carry(value, True))
    return out


def user_module_from_torch(m, owner, convert):
    """The user's seqlab module back from its torch module m (from to_torch)."""
    cls = type(m)._seqlab_class
    out = cls.__new__(cls)
    snn.Module.__init__(out)
    for name, child in m._modules.items():
        setattr(out, name, None if child is None else convert(child, f"{owner}.{name}"))
    for name, p in m._parameters.items():
        out.register_parameter(name, None if p is None else snn.Parameter(
            _core.from_dlpack(p.detach().cpu().clone()), requires_grad=p.requires_grad))
    for name, b in m._buffers.items():
        out.register_buffer(name, None if b is None else _core.from_dlpack(b.detach().cpu().clone()),
                            persistent=name not in m._non_persistent_buffers_set)
    for name, value in vars(m).items():
        if name not in _MODULE_STATE:
            setattr(out, name, _carry(value, False))
    return out

