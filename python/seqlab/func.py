"""seqlab.func, as torch.func (https://pytorch.org/docs/stable/func.api.html): grad,
grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, vmap, functional_call, stack_module_state and
rearrange (einops', in _einops.py), with torch's arguments, pytrees (tuples, lists and dicts of
tensors) and errors. Tests: tests/test_func.py.

How seqlab computes them, and where that differs from torch:
- The transforms differentiate with seqlab's reverse-mode engine (autograd.grad) on fresh leaves.
  jacfwd, jvp and linearize give torch's values by reverse mode (a pass per output element); there
  is no forward-mode AD.
- There is no double backward, so a differentiating transform cannot differentiate another:
  grad(grad(f)), jacrev(grad(f)), hessian raise NotImplementedError. vmap composes freely.
- vmap has no batching rules: it calls func once per batch element (its slice along in_dims) and
  stacks the results along out_dims. randomness='error' raises if func draws from the default
  generator; 'same' replays its state for every element; 'different' lets it run on.
"""
import functools

from . import _core
from .autograd._engine import grad as _autograd_grad
from .autograd.functional import _differentiating, jacobian_rows
from ._einops import rearrange  # noqa: F401  (torch.func.rearrange)
from ._switches import Size as _Size
from .autograd.grad_mode import enable_grad, no_grad
from .nn.modules.batchnorm import BatchNorm1d as _BatchNorm  # (every BatchNorm derives from it)

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "rearrange"]

Tensor = _core.Tensor


# ------------------------------------------------------------------ pytrees
def _flatten(tree):
    """(leaves, spec): tuples, lists and dicts are walked, anything else is a leaf."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub_leaves, sub_spec = _flatten(item)
            leaves += sub_leaves
            specs.append(sub_spec)
        return leaves, (type(tree), specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for key in tree:
            sub_leaves, sub_spec = _flatten(tree[key])
            leaves += sub_leaves
            specs.append(sub_spec)
        return leaves, (dict, list(tree), specs)
    return [tree], None


def _unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        if s[0] is dict:
            return {key: build(sub) for key, sub in zip(s[1], s[2])}
        items = [build(sub) for sub in s[1]]
        return tuple(items) if s[0] is tuple else items

    return build(spec)


def _spec_str(spec):
    """A spec as torch prints a structure: * for a leaf, (…) / […] / {…} around the rest."""
    if spec is None:
        return "*"
    if spec[0] is dict:
        return "{" + ", ".join(f"{k!r}: {_spec_str(s)}" for k, s in zip(spec[1], spec[2])) + "}"
    inner = ", ".join(_spec_str(s) for s in spec[1])
    return f"({inner})" if spec[0] is tuple else f"[{inner}]"


# ------------------------------------------------------------------ arguments
def _argnums_tuple(argnums, num_args):
    """argnums as a tuple of positions, checked as torch.func does."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and all(isinstance(a, int) and not isinstance(a, bool) for a in argnums):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        nums = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in nums:
        if not -num_args <= a < num_args:
            raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")
    return tuple(a % num_args for a in nums)


def _fresh_args(args, argnums):
    """args with the pytrees at argnums replaced by fresh leaves that require grad; returns
    (new args, [(leaves, spec) per argnum])."""
    args = list(args)
    diff = []
    for n in _argnums_tuple(argnums, len(args)):
        leaves, spec = _flatten(args[n])
        for leaf in leaves:
            if not isinstance(leaf, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(leaf)}")
        fresh = [leaf.detach().requires_grad_(True) for leaf in leaves]
        args[n] = _unflatten(fresh, spec)
        diff.append((fresh, spec))
    return args, diff


def _grads_of(outputs, seeds, diff, argnums):
    """d(Σ outputs·seeds)/d(the leaves in diff), zeros where unused, in argnums' structure."""
    flat = [leaf for leaves, _ in diff for leaf in leaves]
    pairs = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
    grads = _autograd_grad([o for o, _ in pairs], flat, grad_outputs=[s for _, s in pairs], retain_graph=True,
                           allow_unused=True) if pairs else [None] * len(flat)
    from ._tensor import zeros_like
    grads = [zeros_like(x) if g is None else g for g, x in zip(grads, flat)]
    per_arg, start = [], 0
    for leaves, spec in diff:
        per_arg.append(_unflatten(grads[start:start + len(leaves)], spec))
        start += len(leaves)
    return per_arg[0] if isinstance(argnums, int) else tuple(per_arg)


def _detached(tree):
    leaves, spec = _flatten(tree)
    return _unflatten([x.detach() if isinstance(x, Tensor) else x for x in leaves], spec)


def _detached_aux(aux):
    """has_aux's aux, detached: tensors only, as torch.func requires."""
    for leaf in _flatten(aux)[0]:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return _detached(aux)


# ------------------------------------------------------------------ grad, vjp, jvp, jacobians
def grad_and_value(func, argnums=0, has_aux=False):
    """torch.func.grad_and_value: a function returning (gradient, value) of func, which must
    return a 0-d tensor (or (tensor, aux) with has_aux, giving (gradient, (value, aux))). The
    gradient is taken with respect to the arguments at argnums (tensors or pytrees of them)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with enable_grad(), _differentiating("seqlab.func.grad"):
            args, diff = _fresh_args(args, argnums)
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: (output, "
                                       "aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            from ._tensor import ones_like
            grads = _grads_of([output], [ones_like(output)], diff, argnums)
        value = output.detach()
        return (grads, (value, _detached_aux(aux))) if has_aux else (grads, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """torch.func.grad: a function returning the gradient of func (which returns a 0-d tensor)
    with respect to the arguments at argnums; with has_aux, (gradient, aux)."""
    g_and_v = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = g_and_v(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def vjp(func, *primals, has_aux=False):
    """torch.func.vjp: (func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) returns the
    vector-Jacobian product, one gradient per primal (a tuple), for cotangents shaped as the
    output. vjp_fn may be called several times."""
    with enable_grad(), _differentiating("seqlab.func.vjp"):
        args, diff = _fresh_args(primals, tuple(range(len(primals))))
        output = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                                   "has_aux is True")
            output, aux = output
    out_leaves, out_spec = _flatten(output)
    for leaf in out_leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type "
                               f"{type(leaf)}")

    def vjp_fn(cotangents):
        """The vector-Jacobian product for cotangents shaped as func's output."""
        leaves, spec = _flatten(cotangents)
        if spec != out_spec:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {_spec_str(spec)}, primal output: "
                               f"{_spec_str(out_spec)}")
        with enable_grad():
            return _grads_of(out_leaves, leaves, diff, tuple(range(len(primals))))

    result = (_detached(output), vjp_fn)
    return result + (_detached_aux(aux),) if has_aux else result


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp: (func(*primals), J·tangents[, aux]). seqlab has no forward mode: J·v is
    summed from Jacobian rows found by reverse passes, one per output element."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    p_leaves, p_spec = _flatten(primals)
    t_leaves, t_spec = _flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {_spec_str(p_spec)} and tangents with structure "
                           f"{_spec_str(t_spec)}")
    for p, t in zip(p_leaves, t_leaves):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")
    with enable_grad(), _differentiating("seqlab.func.jvp"):
        output, aux, jacobians, out_spec = _linear_map(func, primals, has_aux)
    result = (_detached(output), _unflatten(_apply_jacobians(jacobians, t_leaves), out_spec))
    return result + (_detached_aux(aux),) if has_aux else result


def _linear_map(func, primals, has_aux=False):
    """func(*primals) on fresh leaves, and its Jacobians: for each output leaf, (output, [J_j per
    input leaf, or None where it does not depend on it]), found by one reverse pass per output
    element."""
    args, diff = _fresh_args(primals, tuple(range(len(primals))))
    output = func(*args)
    aux = None
    if has_aux:
        output, aux = output
    flat_in = [leaf for leaves, _ in diff for leaf in leaves]
    out_leaves, out_spec = _flatten(output)
    jacobians = [(out, flat_in, jacobian_rows(out, flat_in)) for out in out_leaves]
    return output, aux, jacobians, out_spec


def _apply_jacobians(jacobians, t_leaves):
    """J·v for each output leaf: Σ_j J_j (flattened to output.numel() × input.numel()) · v_j."""
    from ._tensor import zeros_like
    products = []
    for out, flat_in, rows in jacobians:
        total = None
        for J, x, v in zip(rows, flat_in, t_leaves):
            if J is not None:
                term = (J.reshape(out.numel(), x.numel()) @ v.reshape(-1).to(J.dtype)).reshape(tuple(out.shape))
                total = term if total is None else total + term
        products.append(zeros_like(out).detach() if total is None else total.detach())
    return products


def linearize(func, *primals):
    """torch.func.linearize: (func(*primals), jvp_fn), where jvp_fn(*tangents) is J·tangents at
    primals, with tangents in the primals' structure and the result in the output's. The Jacobians
    are found once, here (a reverse pass per output element, as jvp), so each jvp_fn call is one
    matrix product per (output, input) pair and func does not run again."""
    p_leaves, p_spec = _flatten(primals)
    with enable_grad(), _differentiating("seqlab.func.linearize"):
        output, _, jacobians, out_spec = _linear_map(func, primals)

    def jvp_fn(*tangents):
        t_leaves, t_spec = _flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {_spec_str(t_spec)} to have the same argspec as the primals "
                               f"{_spec_str(p_spec)}")
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(f"tangent:{i} with shape {_Size(t.shape)!r} in flattened pytree doesn't match the "
                                   f"shape {_Size(p.shape)!r} of the corresponding primal.")
            if t.dtype != p.dtype:
                raise RuntimeError(f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't match the dtype "
                                   f"{p.dtype} of the corresponding primal.")
        return _unflatten(_apply_jacobians(jacobians, t_leaves), out_spec)

    return _detached(output), jvp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """torch.func.jacrev: a function returning the Jacobian of func with respect to the
    arguments at argnums: for each output tensor, J of shape output.shape + input.shape (a tuple
    over argnums when argnums is a tuple), in the output's structure."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian_transform(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """torch.func.jacfwd: the same Jacobian as jacrev (seqlab computes it by reverse mode)."""
    return _jacobian_transform(func, argnums, has_aux, "jacfwd")


def _jacobian_transform(func, argnums, has_aux, name):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with enable_grad(), _differentiating(f"seqlab.func.{name}"):
            args, diff = _fresh_args(args, argnums)
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(f"{name}(f, ...)(*args): output of function f should be a tuple: (output, aux) "
                                       "if has_aux is True")
                output, aux = output
            out_leaves, out_spec = _flatten(output)
            flat_in = [leaf for leaves, _ in diff for leaf in leaves]
            from ._tensor import zeros
            per_output = []
            for out in out_leaves:
                if not isinstance(out, Tensor):
                    raise RuntimeError(f"Expected tensors, got unsupported type {type(out)}")
                Js = [zeros(tuple(out.shape) + tuple(x.shape), dtype=x.dtype) if J is None else J
                      for J, x in zip(jacobian_rows(out, flat_in), flat_in)]
                per_arg, start = [], 0
                for leaves, spec in diff:
                    per_arg.append(_unflatten(Js[start:start + len(leaves)], spec))
                    start += len(leaves)
                per_output.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
        result = _unflatten(per_output, out_spec)
        return (result, _detached_aux(aux)) if has_aux else result
    return wrapper


def hessian(func, argnums=0):
    """torch.func.hessian: not available in seqlab (NotImplementedError), since the Hessian is the
    Jacobian of a gradient and seqlab has no double backward."""
    raise NotImplementedError("seqlab.func.hessian needs the gradient of a gradient (double backward), which seqlab "
                              "does not have")


# ------------------------------------------------------------------ vmap
_RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """torch.func.vmap: func mapped over a dim of its inputs. in_dims gives, per positional
    argument (an int for all, or a tuple matching the arguments, nested for pytrees), the dim to
    map over or None; out_dims where the mapped dim goes in each output (None: the output is
    the same for every element). Keyword arguments are not mapped. seqlab calls func once per
    element and stacks the results (no batching rules; chunk_size has no effect)."""
    name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if randomness not in _RANDOMNESS:
            raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                               f"{randomness}")
        if chunk_size is not None and chunk_size <= 0:
            raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                             "trying to vmap over a function with no inputs. The latter is unsupported.")
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        leaves, spec = _flatten(tuple(args))
        dims = _broadcast_dims(in_dims, tuple(args), where)
        sizes = []
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(x, Tensor):
                raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type {type(x)}. We cannot "
                                 "vmap over non-Tensor arguments, please use None as the respective in_dim")
            if not -max(x.dim(), 1) <= d < max(x.dim(), 1) or x.dim() == 0:
                raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a Tensor of "
                                 f"dimensionality {x.dim()} so expected in_dim to satisfy -{x.dim()} <= in_dim < "
                                 f"{x.dim()}.")
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if len(set(sizes)) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        batch = sizes[0]

        def element(b):
            sliced = [x if d is None else x.select(d, b) if b is not None else x.new_zeros(
                tuple(x.shape[:d % x.dim()]) + tuple(x.shape[d % x.dim() + 1:])) for x, d in zip(leaves, dims)]
            return func(*_unflatten(sliced, spec), **kwargs)

        generator = _core.default_generator
        start_state = generator.get_state()
        results = []
        for b in range(batch):
            if randomness == "same":
                generator.set_state(start_state)
            before = generator.get_state() if randomness == "error" else None
            results.append(element(b))
            if before is not None and not bool((generator.get_state() == before).all()):
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        if batch == 0:  # no element to call func on: one call on zeros gives the outputs' shapes
            with no_grad():
                sample = element(None)
            return _stack_outputs([sample], out_dims, name, empty=True)
        return _stack_outputs(results, out_dims, name)
    return wrapper


def _broadcast_dims(in_dims, args, where):
    """One in_dim per leaf of args: an int (or None) applies to a whole subtree."""
    def bad():
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")

    if not (isinstance(in_dims, int) or isinstance(in_dims, tuple)):
        bad()
    out = []

    def walk(dims, tree):
        if dims is None or isinstance(dims, int):
            out.extend([dims] * len(_flatten(tree)[0]))
        elif isinstance(dims, (tuple, list)) and isinstance(tree, (tuple, list)) and len(dims) == len(tree):
            for d, t in zip(dims, tree):
                walk(d, t)
        elif isinstance(dims, dict) and isinstance(tree, dict) and set(dims) == set(tree):
            for key in tree:
                walk(dims[key], tree[key])
        else:
            raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has "
                             f"structure {_spec_str(_flatten(in_dims)[1])} but inputs has structure "
                             f"{_spec_str(_flatten(args)[1])}.")

    walk(in_dims, args)
    return out


def _stack_outputs(results, out_dims, name, empty=False):
    spec = _flatten(results[0])[1]
    per_element = [_flatten(r)[0] for r in results]
    n = len(per_element[0])
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * n
    else:
        dims = _broadcast_out_dims(out_dims, results[0], name)
    stacked = []
    for k in range(n):
        column = [leaves[k] for leaves in per_element]
        d = dims[k]
        if d is None:
            first = column[0]
            if isinstance(first, Tensor) and not empty and any(
                    tuple(c.shape) != tuple(first.shape) or not bool((c == first).all()) for c in column[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            stacked.append(first)
            continue
        for c in column:
            if not isinstance(c, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(c)}. Did you "
                                 "mean to set out_dims= to None for output?")
        if empty:
            sample = column[0]
            s = _core.stack([sample], dim=d)
            shape = list(s.shape)
            shape[d % s.dim()] = 0
            stacked.append(sample.new_zeros(tuple(shape)))
        else:
            stacked.append(_core.stack(column, dim=d))
    return _unflatten(stacked, spec)


def _broadcast_out_dims(out_dims, output, name):
    out = []

    def walk(dims, tree):
        if dims is None or isinstance(dims, int):
            out.extend([dims] * len(_flatten(tree)[0]))
        elif isinstance(dims, (tuple, list)) and isinstance(tree, (tuple, list)) and len(dims) == len(tree):
            for d, t in zip(dims, tree):
                walk(d, t)
        else:
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                             f"structure of `outputs`. out_dims has structure {_spec_str(_flatten(out_dims)[1])} but "
                             f"outputs has structure {_spec_str(_flatten(output)[1])}.")

    walk(out_dims, output)
    return out


# ------------------------------------------------------------------ modules as functions
def _owner(module, name):
    """(the submodule holding `name`, the attribute's own name); torch's AttributeError for a
    missing submodule."""
    *path, attr = name.split(".")
    owner = module
    for part in path:
        sub = owner._modules.get(part) if hasattr(owner, "_modules") else None
        if sub is None:
            raise AttributeError(f"{type(owner).__name__} has no attribute `{part}`")
        owner = sub
    return owner, attr


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """torch.func.functional_call: module(*args, **kwargs) with its parameters and buffers
    replaced by the tensors in parameter_and_buffer_dicts (a dict name -> tensor, or several),
    put back afterwards even if the call raises. Names not given keep the module's own values;
    with strict=True every parameter and buffer must be given and no other name. With tie_weights,
    a value given for one of several names sharing a tensor replaces it under all of them."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        seen, repeated = set(), []
        for d in parameter_and_buffer_dicts:
            for key in d:
                if key in seen and key not in repeated:
                    repeated.append(key)
                seen.add(key)
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = {} if kwargs is None else kwargs

    own = list(module.named_parameters(remove_duplicate=False)) + list(module.named_buffers(remove_duplicate=False))
    if tie_weights:
        groups = {}
        for key, t in own:
            groups.setdefault(id(t), []).append(key)
        for names in groups.values():
            given = [k for k in names if k in values]
            if len(names) < 2 or not given:
                continue
            if any(values[k] is not values[given[0]] for k in given[1:]):
                raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                                 "Consider using tie_weights=False")
            for k in names:
                values[k] = values[given[0]]
    if strict:
        names = [k for k, _ in own]
        unexpected = [k for k in values if k not in names]
        missing = [k for k in names if k not in values]
        errors = []
        if unexpected:
            errors.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
        if missing:
            errors.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(errors))

    restore = []  # (owner, attr, where it was: "_parameters", "_buffers" or None for a plain attribute, old value)
    try:
        for key, value in values.items():
            owner, attr = _owner(module, key)
            for table in ("_parameters", "_buffers"):
                if attr in owner.__dict__.get(table, {}):
                    restore.append((owner, attr, table, owner.__dict__[table][attr]))
                    owner.__dict__[table][attr] = value
                    break
            else:
                restore.append((owner, attr, None, owner.__dict__.get(attr, _MISSING)))
                object.__setattr__(owner, attr, value)
        return module(*args, **kwargs)
    finally:
        for owner, attr, table, old in reversed(restore):
            if table is not None:
                owner.__dict__[table][attr] = old
            elif old is _MISSING:
                object.__delattr__(owner, attr)
            else:
                object.__setattr__(owner, attr, old)


_MISSING = object()


def stack_module_state(models):
    """torch.func.stack_module_state: (params, buffers), each name mapped to the models' tensors
    stacked along a new dim 0 (parameters as new leaves requiring grad), for vmap over
    functional_call."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if any(m.training != models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    params = {k: _core.stack([dict(m.named_parameters())[k] for m in models]).detach().requires_grad_(True)
              for k, _ in models[0].named_parameters()}
    buffers = {k: _core.stack([dict(m.named_buffers())[k] for m in models]) for k, _ in models[0].named_buffers()}
    return params, buffers


# ------------------------------------------------------------------ batch norm without running statistics
def replace_all_batch_norm_modules_(root):
    """In place, every BatchNorm module in root (root included) that tracks running statistics
    stops: running_mean, running_var and num_batches_tracked become None and track_running_stats
    False, so it always normalises with the batch's statistics, as vmap needs
    (torch.func.replace_all_batch_norm_modules_). Returns root."""
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


__all__ += ["replace_all_batch_norm_modules_"]
