"""A user's own seqlab.nn.Module subclass across: to_torch makes a torch.nn.Module class for it whose
methods are the user's own (forward and whatever it calls), each run with what it reads from seqlab
bound to torch's (`import seqlab as torch`, `F.relu`, `seqlab.float64`, a `@torch.no_grad()`
decorator: torch, torch's relu, torch.float64, torch's grad mode). Everything the methods reach is
translated the same way, before anything runs: the module globals they read (one translated copy
of a module's globals for all its functions), the user's helper functions and classes found
there (rebound in turn), closures, default values, and the instance's and class's attributes
(`self.act = F.relu`); a seqlab object torch has no counterpart for, a dotted name torch lacks
(`F.seq2seq_attention`), an `import seqlab` inside a method or a write to a module global is an
error naming the method and the name. The submodules are converted one by one, the parameters,
buffers and plain attributes carried over; from_torch gives back the user's class.

What it cannot see: methods of the tensors (x.tanh() is torch's on a torch tensor) and seqlab
objects reached through other objects (an attribute of an attribute). A subclass of one of
seqlab's layers (class MyLSTM(nn.LSTM)) is refused: its forward would run on torch's layer, whose
internals differ; the containers (Sequential, ModuleList, ModuleDict) are torch's. The torch
class lives only in this process: save a converted module's state_dict, as PyTorch recommends.
Tests: tests/test_to_torch_user_modules.py."""
import dis
import functools
import importlib
import sysconfig
import types

import torch

from .. import _core
from ..autograd import grad_mode as _grad_mode
from .. import nn as snn

__all__ = ["user_module_to_torch", "user_module_from_torch", "is_user_module", "is_converted_user_module"]

# the state a Module keeps for itself; every other instance attribute is the user's
_MODULE_STATE = set(vars(snn.Module())) | set(vars(torch.nn.Module()))
# seqlab's bases a user's class may have, and torch's class for each
_BASES = {snn.Module: torch.nn.Module, snn.Sequential: torch.nn.Sequential, snn.ModuleList: torch.nn.ModuleList,
          snn.ModuleDict: torch.nn.ModuleDict, object: object}


def is_user_module(m):
    return isinstance(m, snn.Module) and not type(m).__module__.startswith("seqlab.")


def is_converted_user_module(m):
    return isinstance(m, torch.nn.Module) and "_seqlab_class" in vars(type(m))


# ------------------------------------------------------------------------------ names, seqlab -> torch

def _torch_namespace(module):
    """torch's module for a seqlab module of the same path (seqlab.nn.functional -> torch.nn.functional)."""
    try:
        return importlib.import_module("torch" + module.__name__[len("seqlab"):])
    except ImportError:
        return None


_NAMES = {}  # id(object) -> (namespace, name), filled on first use


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
    module = getattr(value, "__module__", None) if isinstance(value, (type, types.FunctionType,
                                                                      types.BuiltinFunctionType)) \
        else type(value).__module__
    return isinstance(module, str) and (module == "seqlab" or module.startswith("seqlab."))


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


def _describe(value):
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__name__
    module = getattr(value, "__module__", None) or type(value).__module__
    return f"{module}.{name}".replace("seqlab._core.", "seqlab.")


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _dotted_reads(code):
    """Each global read and the attributes read from it in a row: ("F", "relu"), ("seqlab", "nn", "init")."""
    for c in _codes(code):
        chain = None
        for ins in list(dis.get_instructions(c)) + [None]:
            if ins is not None and ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and chain:
                chain.append(ins.argval)
                continue
            if chain and len(chain) > 1:
                yield tuple(chain)
            chain = [ins.argval] if ins is not None and ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") else None


def _grad_mode_of(wrapper):
    """The grad mode a function made by seqlab's grad-mode decorators (@no_grad(), @enable_grad(),
    @inference_mode(), @set_grad_enabled(b)) runs its function in; None for any other function."""
    if not isinstance(wrapper, types.FunctionType) or wrapper.__code__.co_filename != _grad_mode.__file__ or \
            not hasattr(wrapper, "__wrapped__"):
        return None
    cells = dict(zip(wrapper.__code__.co_freevars, (c.cell_contents for c in wrapper.__closure__ or ())))
    if "self" in cells:  # no_grad / enable_grad: the context's class mode
        return cells["self"]._mode
    if "enabled" in cells:  # inference_mode(enabled): no recording while enabled
        return not cells["enabled"]
    return cells.get("mode")


def _in_grad_mode(fn, enabled):
    """fn run under torch's grad mode `enabled` (what a seqlab grad-mode decorator made of it)."""
    @functools.wraps(fn)
    def in_grad_mode(*args, **kwargs):
        with torch.set_grad_enabled(enabled):
            return fn(*args, **kwargs)
    return in_grad_mode


# where installed libraries live: their functions cannot read seqlab (seqlab's own are matched first)
_LIBRARIES = tuple(sorted({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}))


class _Translator:
    """Translates what a user's methods reach from seqlab into torch's, memoised per object."""

    def __init__(self):
        self.done = {}     # id(object) -> its translation
        self.envs = {}     # id(a module's globals) -> their translated copy

    def value(self, value, where):
        """torch's counterpart of `value` as read at `where` (for errors); other values as they are."""
        if id(value) not in self.done:  # (the original kept beside its translation: its id stays its own)
            self.done[id(value)] = (value, self._value(value, where))
        return self.done[id(value)][1]

    def _value(self, value, where):
        if isinstance(value, type) and issubclass(value, snn.Module) and not value.__module__.startswith("seqlab."):
            return torch_class(value, where, self)
        if _grad_mode_of(value) is not None:
            return _in_grad_mode(self.value(value.__wrapped__, where), _grad_mode_of(value))
        if isinstance(value, _core.Tensor):  # (a default value, a constant: a copy)
            return _to_torch_tensor(value)
        if _is_seqlab(value):
            twin = _counterpart(value)
            if twin is None:
                raise NotImplementedError(f"to_torch: {where} reads {_describe(value)}, which has no torch "
                                          "counterpart; write that part in torch")
            return twin
        if isinstance(value, types.FunctionType):
            return value if value.__code__.co_filename.startswith(_LIBRARIES) else \
                self.function(value, value.__qualname__)
        if isinstance(value, (list, tuple, dict)):
            pairs = list(value.items() if isinstance(value, dict) else enumerate(value))
            new = [(k, self.value(v, where)) for k, v in pairs]
            if all(n is v for (_, n), (_, v) in zip(new, pairs)):
                return value
            return dict(new) if isinstance(value, dict) else type(value)(n for _, n in new)
        return value

    def env(self, fn, where):
        """fn's module globals with each name fn reads translated (one copy per module's globals),
        and whether any of them changed."""
        env = self.envs.setdefault(id(fn.__globals__), dict(fn.__globals__))
        changed = False
        for c in _codes(fn.__code__):
            for ins in dis.get_instructions(c):
                if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL"):
                    raise NotImplementedError(f"to_torch: {where} writes the module global {ins.argval!r}; the "
                                              "torch twin runs on a translated copy of the globals, where the write "
                                              "would not be seen (keep that state on the module instead)")
                if ins.opname == "IMPORT_NAME" and (ins.argval == "seqlab" or ins.argval.startswith("seqlab.")):
                    raise NotImplementedError(f"to_torch: {where} imports {ins.argval} inside a function; import it "
                                              "at the module's top level, where to_torch can bind it to torch")
                if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval in fn.__globals__:
                    original = fn.__globals__[ins.argval]
                    env[ins.argval] = self.value(original, f"{where} ({ins.argval})")
                    changed |= env[ins.argval] is not original
        for dotted in _dotted_reads(fn.__code__):  # seqlab.nn.functional.foo: each step present in torch
            ours, theirs = fn.__globals__.get(dotted[0]), env.get(dotted[0])
            for n, attr in enumerate(dotted[1:], 1):
                if not isinstance(ours, types.ModuleType) or not _is_seqlab(ours):
                    break  # not a seqlab module (a tensor's method, a dtype's field): not ours to check
                ours = getattr(ours, attr, None)
                if not hasattr(theirs, attr):
                    what = "" if ours is None else f" ({_describe(ours)})"
                    raise NotImplementedError(f"to_torch: {where} calls {'.'.join(dotted[:n + 1])}{what}, which "
                                              "torch does not have; write that part in torch")
                theirs = getattr(theirs, attr)
        return env, changed

    def function(self, fn, where, cls=None):
        """fn over the translated globals, closure and defaults; with cls (a method), its super()
        (the __class__ cell) meaning the torch class cls. A plain function that reaches nothing of
        seqlab's is returned as it is."""
        self.done[id(fn)] = (fn, fn)  # (a recursive function reads itself: itself until it is rebuilt)
        env, changed = self.env(fn, where)
        cells = []
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            if name == "__class__" and cls is not None:
                cells.append(types.CellType(cls))
            elif _filled(cell) and self.value(cell.cell_contents, where) is not cell.cell_contents:
                cells.append(types.CellType(self.value(cell.cell_contents, where)))
            else:
                cells.append(cell)
        defaults = None if fn.__defaults__ is None else tuple(self.value(d, where) for d in fn.__defaults__)
        kwdefaults = None if fn.__kwdefaults__ is None else {k: self.value(v, where)
                                                             for k, v in fn.__kwdefaults__.items()}
        same = not changed and all(a is b for a, b in zip(cells, fn.__closure__ or ())) and \
            all(a is b for a, b in zip(defaults or (), fn.__defaults__ or ())) and \
            all(kwdefaults[k] is v for k, v in (fn.__kwdefaults__ or {}).items())
        if cls is None and same:
            return fn
        out = types.FunctionType(fn.__code__, env, fn.__name__, defaults, tuple(cells) or None)
        out.__kwdefaults__, out.__qualname__, out.__doc__ = kwdefaults, fn.__qualname__, fn.__doc__
        out.__module__ = fn.__module__
        self.done[id(fn)] = (fn, out)
        return out


def _filled(cell):
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


# ------------------------------------------------------------------------------------- the classes

_TORCH_CLASSES = {}  # the user's class -> its torch class (one per class, so isinstance works across modules)


def torch_class(cls, owner, translator, user_cls=None):
    """The torch class of the user's class: its bases' torch classes (seqlab.nn.Module's is
    torch.nn.Module, the containers torch's) and its own attributes translated; an error for a
    subclass of one of seqlab's layers."""
    if cls in _BASES:
        return _BASES[cls]
    if cls.__module__.startswith("seqlab."):
        raise NotImplementedError(f"to_torch: {owner} is a {(user_cls or cls).__name__}, a subclass of seqlab's "
                                  f"{cls.__name__}; to_torch converts seqlab's layers and subclasses of nn.Module "
                                  "(hold the layer as a submodule instead)")
    if cls in _TORCH_CLASSES:
        return _TORCH_CLASSES[cls]
    bases = tuple(torch_class(base, owner, translator, user_cls or cls) for base in cls.__bases__)
    namespace = {"_seqlab_class": cls, "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                 "__doc__": cls.__doc__}
    torch_cls = type(cls.__name__, bases, namespace)
    _TORCH_CLASSES[cls] = torch_cls  # (before its methods: a method may name its own class)
    translator.done[id(cls)] = (cls, torch_cls)
    try:
        for name, value in vars(cls).items():
            if name not in ("__init__", "__dict__", "__weakref__", "__module__", "__qualname__", "__doc__"):
                setattr(torch_cls, name, _class_attribute(value, f"{cls.__name__}.{name}", translator, torch_cls))
    except BaseException:
        del _TORCH_CLASSES[cls]  # half-translated: never reused
        raise
    return torch_cls


def _class_attribute(value, where, translator, torch_cls):
    if _grad_mode_of(value) is not None:  # a method under @no_grad() and the like
        return _in_grad_mode(translator.function(value.__wrapped__, where, torch_cls), _grad_mode_of(value))
    if isinstance(value, types.FunctionType):
        return translator.function(value, where, torch_cls)
    if isinstance(value, (staticmethod, classmethod)):
        return type(value)(translator.function(value.__func__, where, torch_cls))
    if isinstance(value, property):
        return property(*(None if f is None else translator.function(f, where, torch_cls)
                          for f in (value.fget, value.fset, value.fdel)), value.__doc__)
    return translator.value(value, where)


def _to_torch_tensor(t):
    return torch.from_dlpack(t.detach()).clone()


def _to_seqlab_tensor(t):
    return _core.from_dlpack(t.detach().cpu().clone())


def user_module_to_torch(m, owner, convert):
    """The torch module of the user's seqlab module m; convert(child, owner) converts its children."""
    translator = _Translator()
    cls = torch_class(type(m), owner, translator)
    out = cls.__new__(cls)
    torch.nn.Module.__init__(out)
    for name, child in m._modules.items():
        out.add_module(name, None if child is None else convert(child, f"{owner}.{name}"))
    for name, p in m._parameters.items():
        out.register_parameter(name, None if p is None else torch.nn.Parameter(_to_torch_tensor(p),
                                                                               requires_grad=p.requires_grad))
    for name, b in m._buffers.items():
        out.register_buffer(name, None if b is None else _to_torch_tensor(b),
                            persistent=name not in m._non_persistent_buffers_set)
    for name, value in vars(m).items():
        if name not in _MODULE_STATE:
            setattr(out, name, translator.value(value, f"{owner}.{name}"))
    return out


def user_module_from_torch(m, owner, convert):
    """The user's seqlab module back from its torch module m (from to_torch). Its attributes were
    the user's before conversion: torch's objects in them go back by the same table, reversed."""
    cls = type(m)._seqlab_class
    out = cls.__new__(cls)
    snn.Module.__init__(out)
    for name, child in m._modules.items():
        setattr(out, name, None if child is None else convert(child, f"{owner}.{name}"))
    for name, p in m._parameters.items():
        out.register_parameter(name, None if p is None else snn.Parameter(_to_seqlab_tensor(p),
                                                                          requires_grad=p.requires_grad))
    for name, b in m._buffers.items():
        out.register_buffer(name, None if b is None else _to_seqlab_tensor(b),
                            persistent=name not in m._non_persistent_buffers_set)
    back = _seqlab_of_torch()
    for name, value in vars(m).items():
        if name not in _MODULE_STATE:
            setattr(out, name, _to_seqlab_tensor(value) if isinstance(value, torch.Tensor) else
                    back.get(id(value), value))
    return out


@functools.lru_cache(maxsize=1)
def _seqlab_of_torch():
    """id(torch's object) -> seqlab's, for every public name of seqlab's namespaces that torch has."""
    back = {}
    for namespace, name in _seqlab_names().values():
        torch_namespace = _torch_namespace(namespace)
        if torch_namespace is not None and hasattr(torch_namespace, name):
            back.setdefault(id(getattr(torch_namespace, name)), getattr(namespace, name))
    return back
