"""The Python face of the C++ optimizers: torch.optim.Optimizer's interface.

`param_groups` is a list of dicts as in PyTorch; assigning `group['lr'] = ...` (what the
schedulers do) updates the C++ optimizer at once. `step()` is one C++ call that updates
every parameter of every group (cpp/src/optim/)."""
import collections
import contextlib
import collections.abc
import numbers

from .. import _args, _core
from ..autograd import enable_grad


def _to_core(options, core_options):
    """Writes the group options that `core_options` (a _core.optim.*Options) has fields for into
    it, typed as the field is (float, bool, betas as a pair of floats), and returns it.

    Keys the C++ options do not have are kept in the Python group only: the schedulers'
    bookkeeping ('initial_lr', 'max_lr', ...) and torch's implementation switches
    ('foreach', 'fused', 'capturable', 'differentiable', ...)."""
    for key, value in options.items():
        if key not in type(core_options).fields:
            continue
        field = getattr(core_options, key)
        if isinstance(field, bool):
            value = bool(value)
        elif isinstance(field, tuple):  # betas
            if isinstance(value, (str, bytes)) or not isinstance(value, collections.abc.Sequence) or len(value) != 2:
                raise TypeError(f"optimizer option {key!r} must be a pair of numbers, got {value!r}")
            value = tuple(_args.number(b, type(core_options).__name__, key) for b in value)
        elif isinstance(value, numbers.Real):
            value = float(value)
        elif isinstance(value, _core.Tensor) and value.numel() == 1:
            value = float(value.item())
        else:
            raise TypeError(f"optimizer option {key!r} must be a number, got {type(value).__name__}")
        setattr(core_options, key, value)
    return core_options


class _ParamGroup(dict):
    """A parameter group: a dict whose option changes reach the C++ optimizer."""

    def __init__(self, optimizer, index, items):
        super().__init__(items)
        self._optimizer = optimizer
        self._index = index

    def __setitem__(self, key, value):
        if self._optimizer is not None:
            self._optimizer._check_per_optimizer(key, value)
        super().__setitem__(key, value)
        if self._optimizer is None or key not in self._optimizer._known:
            return
        core = self._optimizer._core
        core.set_options(self._index, _to_core({key: value}, core.options(self._index)))

    def __reduce__(self):  # copy/pickle as a plain dict
        return (dict, (dict(self),))


def _param_groups(params):
    """torch's `params` argument (an iterable of tensors, or of group dicts) as a list of group dicts."""
    if isinstance(params, _core.Tensor):
        raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                        "but got a Tensor")
    groups = list(params)
    if len(groups) == 0:
        raise ValueError("optimizer got an empty parameter list")
    return groups if isinstance(groups[0], dict) else [{"params": groups}]


def _group_dict(param_group):
    """A copy of a group dict whose 'params' is a list (a single tensor allowed, as torch does)."""
    group = dict(param_group)
    params = group["params"]
    group["params"] = [params] if isinstance(params, _core.Tensor) else list(params)
    return group


def _is_placeholder(p):
    """A lazy module's parameter before its first call (it has no state yet)."""
    return getattr(type(p), "_uninitialized", False)


@contextlib.contextmanager
def _placeholders_as_tensors(params):
    """A lazy module's placeholder Parameters (nn.UninitializedParameter, which every op refuses)
    are handed to the C++ optimizer as the Tensors they are underneath: it keeps the objects,
    which the module's first call gives their data in place, so an optimizer built before that
    call trains them (as torch's does)."""
    lazy = [(p, type(p)) for p in params if _is_placeholder(p)]
    for p, _ in lazy:
        p.__class__ = _core.Tensor
    try:
        yield
    finally:
        for p, cls in lazy:
            p.__class__ = cls


class Optimizer:
    """Base class: `params` is an iterable of tensors or of dicts (parameter groups)."""

    _core_factory = None  # the C++ optimizer class, set by subclasses (or per instance: Adam's decoupled_weight_decay)
    _core_options = None  # its options class (_core.optim.SGDOptions, ...)
    # Options that choose the C++ optimizer itself, so one value for every group (Adam's
    # decoupled_weight_decay): a group that asks for another is refused, not silently ignored.
    _per_optimizer = ()

    def _check_per_optimizer(self, key, value):
        if key in self._per_optimizer and bool(value) != bool(self.defaults[key]):
            raise ValueError(f"{type(self).__name__}: {key}={value!r} in one parameter group, but the optimizer "
                             f"was made with {key}={self.defaults[key]!r}; seqlab runs one update rule for all "
                             "groups (pass it to the constructor)")

    def __init__(self, params, defaults):
        groups = _param_groups(params)
        self.defaults = dict(defaults)
        self._known = frozenset(self._core_options.fields)
        self._core = self._core_factory(_to_core(self.defaults, self._core_options()))
        self.param_groups = []
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        group = _group_dict(param_group)
        for key in self._per_optimizer:
            if key in group:
                self._check_per_optimizer(key, group[key])
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        with _placeholders_as_tensors(group["params"]):
            self._core.add_param_group(group["params"], _to_core(group, self._core_options()))
        self.param_groups.append(_ParamGroup(self, len(self.param_groups), group))

    @property
    def state(self):
        """optimizer.state[p]: the named state tensors of each parameter that has any."""
        out = collections.defaultdict(dict)
        for group in self.param_groups:
            for p in group["params"]:
                st = None if _is_placeholder(p) else self._core.get_state(p)
                if st is not None:
                    out[p] = dict(st)
        return out

    def zero_grad(self, set_to_none=True):
        self._core.zero_grad(set_to_none)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._core.step()
        return loss

    def state_dict(self):
        """{'state': {index: {name: tensor}}, 'param_groups': [{options..., 'params': [indices]}]}
        with parameters numbered across groups in order, as torch.optim does."""
        state, groups, index = {}, [], 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = list(range(index, index + len(group["params"])))
            for p in group["params"]:
                st = None if _is_placeholder(p) else self._core.get_state(p)
                if st is not None:
                    state[index] = {k: v.clone() for k, v in st.items()}
                index += 1
            groups.append(packed)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for ours, theirs in zip(self.param_groups, groups):
            if len(ours["params"]) != len(theirs["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
        from .._tensor import as_tensor
        by_index = {}
        for ours, theirs in zip(self.param_groups, groups):
            for p, i in zip(ours["params"], theirs["params"]):
                by_index[i] = p
        for theirs in groups:  # before anything changes
            for key in self._per_optimizer:
                if key in theirs:
                    self._check_per_optimizer(key, theirs[key])
        self._core.clear_state()
        for i, st in state_dict["state"].items():
            p = by_index[int(i)]
            tensors = {}
            for k, v in st.items():
                t = _as_seqlab(v, as_tensor)
                tensors[k] = t.clone() if k == "step" else t.to(p.dtype).clone()
                if k != "step" and tuple(t.shape) != tuple(p.shape):
                    raise ValueError(f"state {k!r} of parameter {i} has shape {list(t.shape)}, the parameter "
                                     f"{list(p.shape)}")
            self._core.set_state(p, tensors)
        for gi, (ours, theirs) in enumerate(zip(self.param_groups, groups)):
            for key, value in theirs.items():
                if key != "params":
                    ours[key] = value

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _as_seqlab(value, as_tensor):
    if isinstance(value, _core.Tensor):
        return value
    if hasattr(value, "__dlpack__") and not hasattr(value, "__array_interface__"):  # a torch tensor
        value = value.detach().cpu().numpy()
    t = as_tensor(value)
    if t.dtype not in (_core.dtype.float32, _core.dtype.float64):
        t = t.to(_core.dtype.float32)
    return t
