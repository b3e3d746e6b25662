"""torch.func.rearrange: einops' `rearrange` (https://einops.rocks/api/rearrange/) on seqlab
tensors. A pattern "left -> right" names each axis; parentheses compose axes into one dim (or
decompose one dim, with the sizes given as keywords), "..." stands for the dims not named, and
"()" or "1" is a size-1 axis. The result is one reshape (decompose), one permute (reorder) and
one reshape (compose): a view whenever reshape gives one. Tests: tests/test_func.py."""
import math

__all__ = ["rearrange"]

_ELLIPSIS = "…"


class _Composed(list):
    """A bracketed group of axes: one dim of the tensor."""


def _parse_side(side, where):
    """[group, ...] for one side of the pattern: a group is a list of axis names (possibly empty,
    for "()" or "1"), and `_ELLIPSIS` stands in a group of its own or inside one; a bracketed
    group is a _Composed list, so "(...)" is told from "..."."""
    groups, current = [], None
    tokens = side.replace("(", " ( ").replace(")", " ) ").replace("...", f" {_ELLIPSIS} ").split()
    for tok in tokens:
        if tok == "(":
            if current is not None:
                raise ValueError(f"Axis composition is one-level (brackets inside brackets not allowed) in {where}")
            current = _Composed()
        elif tok == ")":
            if current is None:
                raise ValueError(f"Brackets are not balanced in {where}")
            groups.append(current)
            current = None
        elif tok == "1":   # a size-1 axis; inside brackets it adds nothing
            if current is None:
                groups.append([])
        elif tok == _ELLIPSIS or tok.isidentifier():
            if tok != _ELLIPSIS and tok.startswith("_"):
                raise ValueError(f"Invalid axis name {tok!r} in {where}: axis names do not start with an underscore")
            if current is not None:
                current.append(tok)
            else:
                groups.append([tok])
        else:
            raise ValueError(f"Invalid axis identifier {tok!r} in {where}")
    if current is not None:
        raise ValueError(f"Brackets are not balanced in {where}")
    names = [a for g in groups for a in g]
    for a in set(names):
        if names.count(a) > 1:
            raise ValueError(f"Indexing expression contains duplicate dimension {a!r}" if a != _ELLIPSIS
                             else f"Expression may contain dots only once: {where}")
    return groups


def rearrange(tensor, pattern, **axes_lengths):
    """einops.rearrange as torch.func.rearrange: `tensor` (or a list/tuple of tensors, stacked along
    a new first dim) reordered by `pattern`, e.g. "b (h w) c -> b c h w" with h=... given."""
    from ._core import Tensor, stack
    if isinstance(tensor, (list, tuple)):
        tensor = stack(list(tensor))
    if not isinstance(tensor, Tensor):
        raise TypeError(f"rearrange(): expected a Tensor or a sequence of Tensors, got {type(tensor).__name__}")
    if pattern.count("->") != 1:
        raise ValueError("Pattern must contain a single '->' separating the left and right sides of the expression.")
    left_text, right_text = (p.strip() for p in pattern.split("->"))
    left, right = _parse_side(left_text, "left side"), _parse_side(right_text, "right side")
    left_names = {a for g in left for a in g}
    right_names = {a for g in right for a in g}
    if _ELLIPSIS in right_names and _ELLIPSIS not in left_names:
        raise ValueError("Ellipsis found in right side, but not left side of a pattern")
    if any(_ELLIPSIS in g and isinstance(g, _Composed) for g in left):
        raise ValueError("Ellipsis inside parenthesis in the left side is not allowed")
    only_one_side = (left_names ^ right_names) - {_ELLIPSIS}
    if only_one_side:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on both): "
                         f"{ {a for a in only_one_side} }")
    unknown = set(axes_lengths) - left_names
    if unknown:
        raise ValueError(f"Identifiers not found in rearrange expression: {unknown}")

    # the left side against the tensor's dims: "..." takes what the named groups leave
    n_named = len(left) - (1 if _ELLIPSIS in left_names else 0)
    n_ellipsis = tensor.dim() - n_named
    if n_ellipsis < 0 or (_ELLIPSIS not in left_names and n_ellipsis != 0):
        raise ValueError(f"Wrong shape: expected {n_named}{' or more' if _ELLIPSIS in left_names else ''} dims. "
                         f"Received {tensor.dim()}-dim tensor.")
    ellipsis_axes = [f"{_ELLIPSIS}{k}" for k in range(n_ellipsis)]
    sizes, elementary = {}, []   # elementary: the left side's axes one by one, in order
    dim = 0
    for group in left:
        if group == [_ELLIPSIS]:
            for name in ellipsis_axes:
                sizes[name] = tensor.shape[dim]
                elementary.append(name)
                dim += 1
            continue
        length = tensor.shape[dim]
        dim += 1
        known = math.prod(axes_lengths[a] for a in group if a in axes_lengths)
        unknowns = [a for a in group if a not in axes_lengths]
        if len(unknowns) > 1:
            raise ValueError(f"Could not infer sizes for {set(unknowns)}")
        if unknowns:
            if known == 0 or length % known:
                raise ValueError(f"Shape mismatch, can't divide axis of length {length} in chunks of {known}")
            sizes[unknowns[0]] = length // known
        elif known != length:
            raise ValueError(f"Shape mismatch, {length} != {known}")
        for a in group:
            sizes.setdefault(a, axes_lengths.get(a))
            elementary.append(a)

    def expand(group):
        return [e for a in group for e in (ellipsis_axes if a == _ELLIPSIS else [a])]

    target = [a for g in right for a in expand(g)]
    x = tensor.reshape([sizes[a] for a in elementary])
    order = [elementary.index(a) for a in target]
    if order != sorted(order):
        x = x.permute(order)
    shape = []
    for g in right:   # "..." alone keeps its dims; inside brackets it is composed with the rest
        alone = g == [_ELLIPSIS] and not isinstance(g, _Composed)
        shape += [sizes[a] for a in ellipsis_axes] if alone else [math.prod(sizes[a] for a in expand(g))]
    return x.reshape(shape)
