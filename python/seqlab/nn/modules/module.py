"""seqlab.nn.Module (torch.nn.modules.module), with torch.nn.Module's semantics.

A model is a tree of Modules. Assigning a Parameter, a Module or (through register_buffer) a
tensor as an attribute registers it, exactly as in PyTorch, so that parameters(),
state_dict(), train()/eval() and to(dtype) reach every part of the tree in PyTorch's order
(pre-order over modules, insertion order within a module). Parameter and buffer names are
PyTorch's, so a torch state dict loads into the matching seqlab model and back.

Parameter is nn/parameter.py (why it is not a subclass of seqlab.Tensor is explained there).

Conversions (to(dtype), float(), double(), half(), bfloat16()) convert each floating-point
parameter and buffer, as torch's do: ``param.data = converted`` (and ``param.grad.data = ...``) keeps the Parameter object, so
tied weights stay tied and an optimizer built before the conversion steps the converted
parameters. Buffers are replaced by their converted copies.
"""
import collections
import collections.abc
import copy
import itertools
import weakref

import numpy as np

from ... import _core
from ..._core import Tensor
from ..._tensor import float32, float64, tensor as _tensor
from ...autograd import no_grad
from .._helpers import _empty
from ..parameter import Buffer, Parameter

__all__ = ["Module", "RemovableHandle"]


def _is_buffer(value):
    """A tensor, or a lazy module's placeholder for one (nn.parameter.UninitializedBuffer)."""
    return isinstance(value, Tensor) or getattr(type(value), "_uninitialized", False) is True


# ------------------------------------------------------------------ hooks
class RemovableHandle:
    """Returned by register_forward_hook & co.: handle.remove() unregisters the hook; also a
    context manager that removes it on exit."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_refs = [weakref.ref(d) for d in ([] if extra_dict is None else
                                                        extra_dict if isinstance(extra_dict, list) else [extra_dict])]

    def remove(self):
        for ref in [self.hooks_dict_ref] + self.extra_dict_refs:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: (missing_keys, unexpected_keys)."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# ------------------------------------------------------------------ helpers
def _member(module, name, cls, what):
    """module.name, which must be a `cls` (get_submodule, get_parameter: torch's errors)."""
    if not hasattr(module, name):
        raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
    value = getattr(module, name)
    if not isinstance(value, cls):
        raise AttributeError("`" + name + "` is not an " + what)
    return value


def _add_hook(hooks, hook, prepend, flags):
    """Add hook to the ordered dict `hooks` (first with prepend) and mark it in each dict of the
    (marks, flag) pairs whose flag is set; the handle removes it from all of them."""
    handle = RemovableHandle(hooks, extra_dict=[marks for marks, _ in flags])
    hooks[handle.id] = hook
    for marks, flag in flags:
        if flag:
            marks[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _typename(obj):
    if isinstance(obj, Tensor):
        return "seqlab.Tensor"
    t = type(obj)
    return t.__qualname__ if t.__module__ in ("builtins", "__main__") else f"{t.__module__}.{t.__qualname__}"


def _addindent(s, num_spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


_NP_TO_SEQLAB = {np.dtype(np.float32): float32, np.dtype(np.float64): float64,
                 np.dtype(np.float16): _core.dtype.float16, np.dtype(np.int64): _core.dtype.int64,
                 np.dtype(np.int32): _core.dtype.int32,
                 np.dtype(np.int16): _core.dtype.int16, np.dtype(np.int8): _core.dtype.int8,
                 np.dtype(np.uint8): _core.dtype.uint8, np.dtype(np.bool_): _core.dtype.bool}


def _is_tensor_like(value):
    return isinstance(value, (Tensor, np.ndarray, np.generic)) or hasattr(value, "__dlpack__")


def _to_seqlab(value):
    """A seqlab tensor with the values of a seqlab tensor, NumPy array or torch tensor
    (anything with __dlpack__ or the array protocol). Not necessarily a copy."""
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "__dlpack__") and not isinstance(value, np.ndarray):
        if hasattr(value, "detach"):  # torch: a tensor requiring grad refuses to export
            value = value.detach()
        try:
            return _core.from_dlpack(value)
        except Exception:  # a dtype seqlab lacks (uint16, complex64, ...): go through NumPy
            value = value.cpu().numpy() if hasattr(value, "cpu") else np.asarray(value)
    arr = np.asarray(value)
    if arr.dtype.name == "bfloat16":  # ml_dtypes' (Hugging Face's NumPy bfloat16): its bits as seqlab's
        return _core._from_numpy_as(np.ascontiguousarray(arr), _core.dtype.bfloat16)
    if arr.dtype not in _NP_TO_SEQLAB:
        arr = arr.astype(np.float64 if arr.dtype.kind in "fc" else np.int64 if arr.dtype.kind in "iu" else arr.dtype)
    return _tensor(arr)


def _parse_to(*args, **kwargs):
    """(device, dtype) from Module.to's overloads: to(dtype), to(device), to(device, dtype),
    to(tensor), and the keywords device=, dtype=, non_blocking=."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _core.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, bool):
            continue  # non_blocking passed positionally
        else:
            device = a
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError(f"seqlab runs on the CPU only; got device {device!r}")
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")
    return device, dtype


# ------------------------------------------------------------------ Module
class Module:
    """Base class for all neural network modules (torch.nn.Module).

    Subclasses assign their layers and Parameters in __init__ (after super().__init__()) and
    define forward(); call the module, not forward, so that hooks run."""

    _version = 1  # stored in state_dict()._metadata, as torch does
    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            bad = f"keyword argument '{next(iter(kwargs))}'" if kwargs else "positional arguments"
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected {bad}")
        s = super().__setattr__
        s("training", True)
        s("_parameters", {})
        s("_buffers", {})
        s("_non_persistent_buffers_set", set())
        s("_modules", {})
        s("_forward_hooks", collections.OrderedDict())
        s("_forward_hooks_with_kwargs", collections.OrderedDict())
        s("_forward_hooks_always_called", collections.OrderedDict())
        s("_forward_pre_hooks", collections.OrderedDict())
        s("_forward_pre_hooks_with_kwargs", collections.OrderedDict())

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -------------------------------------------------------------- registration
    def _check_new_name(self, kind, name):
        """torch's checks of the name given to register_buffer ('buffer') or register_parameter ('parameter')."""
        registry = self.__dict__.get(f"_{kind}s")
        if registry is None:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (BatchNorm's running_mean).
        Non-persistent buffers are left out of state_dict()."""
        self._check_new_name("buffer", name)
        if tensor is not None and not _is_buffer(tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(seqlab Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def _new_parameter(self, name, shape, dtype, present=True):
        """Register `name` as a Parameter of `shape` whose values reset_parameters() sets, or as None
        when not `present` (a disabled bias), as torch's layers register their optional parameters."""
        self.register_parameter(name, Parameter(_empty(shape, dtype)) if present else None)

    def register_parameter(self, name, param):
        """Add a Parameter (or None, for an optional one such as a disabled bias)."""
        self._check_new_name("parameter", name)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(seqlab.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                             "the value in the forward() method.")
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module, reachable as an attribute `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):
        d = self.__dict__
        for where in ("_parameters", "_buffers", "_modules"):
            if where in d and name in d[where]:
                return d[where][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(seqlab.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(seqlab.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer):  # nn.Buffer registers itself, with its persistence
                    self.register_buffer(name, value, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not _is_buffer(value):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(seqlab.Tensor or None expected)")
                    buffers[name] = value
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = list(super().__dir__()) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def get_submodule(self, target):
        """The submodule at a dotted path ("encoder.layers.0")."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            mod = _member(mod, item, Module, "nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at a dotted path ("encoder.layers.0.linear1.weight"), torch's."""
        module_path, _, name = target.rpartition(".")
        return _member(self.get_submodule(module_path), name, Parameter, "nn.Parameter")

    # -------------------------------------------------------------- traversal
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()  # ids: a tensor's == is elementwise, so tensors cannot go in a set
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, Parameter) pairs: this module's first, then each child's, pre-order; a
        Parameter shared by two modules is listed once (unless remove_duplicate=False)."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) pairs over the whole tree, pre-order, this module first as ""."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # Modules hash and compare by identity (as torch's), whatever a subclass defines.
    __hash__ = object.__hash__

    # -------------------------------------------------------------- modes and state
    def train(self, mode=True):
        """Set training mode (Dropout drops, BatchNorm uses batch statistics) on the tree."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's .grad: to None (the default) or to zeros."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def apply(self, fn):
        """Call fn on every submodule (children first) and on self; e.g. custom init."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, memo=None):
        """Convert each parameter and buffer t to fn(t) (fn returns t itself for no change).
        As torch's: a parameter keeps its identity and takes the converted tensor through
        ``p.data = fn(p)`` (its .grad likewise), so optimizers and ties that hold it see the
        new dtype; a buffer is replaced by fn(b). memo keeps buffers shared across modules
        shared and converts a shared parameter once."""
        if memo is None:
            memo = {}
        for module in self.children():
            module._apply(fn, memo)
        for p in self._parameters.values():
            if p is None or id(p) in memo:
                continue
            memo[id(p)] = (p, p)  # keep p alive so that its id is not reused
            with no_grad():
                new = fn(p)
                if new is not p:
                    p.data = new
                    if p.grad is not None:
                        p.grad.data = fn(p.grad)
        for key, b in self._buffers.items():
            if b is None:
                continue
            if id(b) not in memo:
                with no_grad():
                    memo[id(b)] = (b, fn(b))
            self._buffers[key] = memo[id(b)][1]
        return self

    def to(self, *args, **kwargs):
        """to(dtype), to(device), to(device, dtype), to(tensor): converts floating-point
        parameters and buffers (device must be "cpu"). See the module docstring."""
        _, dtype = _parse_to(*args, **kwargs)
        if dtype is None:
            return self
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() and t.dtype != dtype else t)

    def float(self):
        return self.to(float32)

    def double(self):
        return self.to(float64)

    def half(self):
        return self.to(_core.dtype.float16)

    def bfloat16(self):
        return self.to(_core.dtype.bfloat16)

    def cpu(self):
        return self

    # -------------------------------------------------------------- state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by dotted name, in
        named_parameters() order per module. Values are detached and share storage with
        the module (keep_vars=True gives the Parameters themselves)."""
        if destination is None:
            destination = collections.OrderedDict()
            destination._metadata = collections.OrderedDict()
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = dict(version=self._version)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
                       if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not _is_tensor_like(input_param):
                    error_msgs.append(f'While copying the parameter named "{key}", expected a tensor (seqlab, NumPy '
                                      f'or torch) from checkpoint but received {type(input_param)}')
                    continue
                input_param = _to_seqlab(input_param)
                if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
                    input_param = input_param[0]  # torch's 0.3 -> 0.4 compatibility rule
                if list(input_param.shape) != list(param.shape):
                    error_msgs.append(f"size mismatch for {key}: copying a param with shape {list(input_param.shape)} "
                                      f"from checkpoint, the shape in current model is {list(param.shape)}.")
                    continue
                try:
                    with no_grad():
                        param.copy_(input_param)
                except Exception as ex:
                    error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                      f"{list(param.shape)} and whose dimensions in the checkpoint are "
                                      f"{list(input_param.shape)}, an exception occurred : {ex.args}.")
            elif strict:
                missing_keys.append(key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        """Copy values into this module's parameters and buffers, in place (the Parameter
        objects, and so an optimizer holding them, are kept). Values may be seqlab tensors,
        NumPy arrays or torch tensors. With strict=True, missing or unexpected keys raise;
        a shape mismatch always raises. Returns (missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = collections.OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}, child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # -------------------------------------------------------------- hooks and call
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args; with_kwargs: hook(module, args, kwargs)
        -> None or (new_args, new_kwargs). Runs before forward."""
        return _add_hook(self._forward_pre_hooks, hook, prepend, [(self._forward_pre_hooks_with_kwargs, with_kwargs)])

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) -> None or a replacement output; with_kwargs:
        hook(module, args, kwargs, output). Runs after forward (always_call: even if it raised)."""
        return _add_hook(self._forward_hooks, hook, prepend, [(self._forward_hooks_with_kwargs, with_kwargs),
                                                             (self._forward_hooks_always_called, always_call)])

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks):
            return self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if isinstance(res, tuple) and len(res) == 2:
                        args, kwargs = res
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {res}.")
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        called = set()
        result = None
        try:
            result = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                called.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
            return result
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called and hook_id not in called:
                    try:
                        hook(self, args, result)
                    except Exception:
                        pass
            raise

    __call__ = _call_impl

    # -------------------------------------------------------------- copying
    def __deepcopy__(self, memo):
        """copy.deepcopy(model): new Parameters and buffers holding copies of the data (and
        .grad), ties between them kept; everything else deep-copied as usual. (Written here
        because seqlab.Tensor itself does not support copy.deepcopy.)"""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key in ("_parameters", "_buffers"):
                copied = {}
                for name, t in value.items():
                    if t is not None and id(t) not in memo:
                        c = t.detach().clone()
                        if isinstance(t, Parameter):
                            c = Parameter(c, t.requires_grad)
                            if t.grad is not None:
                                c.grad = t.grad.detach().clone()
                        memo[id(t)] = c
                    copied[name] = None if t is None else memo[id(t)]
                object.__setattr__(new, key, copied)
            else:
                object.__setattr__(new, key, copy.deepcopy(value, memo))
        return new

    # -------------------------------------------------------------- repr
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside the parentheses of this module's repr line; override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
