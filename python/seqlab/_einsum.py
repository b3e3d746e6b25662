"""torch.einsum: Einstein summation over labelled dims, as a sequence of seqlab's primitives (sum,
permute, reshape, expand, diagonal gathers and one batched matmul per pair of operands), so
autograd differentiates it with no backward of its own.

    einsum("bij,bjk->bik", a, b)        # batched matmul
    einsum("bhld,bhsd->bhls", q, k)     # attention scores
    einsum("i,j->ij", u, v)             # outer product;  "ii->i": a diagonal;  "...ij->...ji"

The equation is PyTorch's: letters label dims, "..." the broadcast dims, "->" the output (without
it, the labels that appear once, in alphabetical order, after the broadcast dims). Operands are
contracted left to right, each pair as one bmm over (batch, kept, summed) dims; a label of size 1
broadcasts against the same label elsewhere, as in PyTorch. Tests: tests/test_torch_surface.py."""
import string

import numpy as np

from . import _core

__all__ = ["einsum"]

_LETTERS = set(string.ascii_letters)


def _parse(equation, operands):
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
        if "->" in rhs:
            raise RuntimeError("einsum(): more than one '->' in the equation")
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(f"einsum(): {len(terms)} operand subscripts in the equation for {len(operands)} operands")
    parsed, ellipsis_dims = [], 0
    for term, x in zip(terms, operands):
        labels = _labels(term, equation)
        n_named = sum(1 for l in labels if l != "...")
        if "..." in labels:
            dims = x.dim() - n_named
            if dims < 0:
                raise RuntimeError(f"einsum(): the subscripts '{term}' name more dims than the operand of shape "
                                   f"{tuple(x.shape)} has")
            ellipsis_dims = max(ellipsis_dims, dims)
        elif n_named != x.dim():
            raise RuntimeError(f"einsum(): the subscripts '{term}' name {n_named} dims but the operand has shape "
                               f"{tuple(x.shape)}")
        parsed.append(labels)
    if rhs is None:  # the labels that appear once, alphabetically, after the broadcast dims
        counts = {}
        for labels in parsed:
            for l in labels:
                if l != "...":
                    counts[l] = counts.get(l, 0) + 1
        out = (["..."] if any("..." in labels for labels in parsed) else []) + sorted(
            (l for l, c in counts.items() if c == 1), key=lambda l: (l.islower(), l))
    else:
        out = _labels(rhs, equation)
        named = [l for l in out if l != "..."]
        if len(set(named)) != len(named):
            raise RuntimeError(f"einsum(): the output subscripts '{rhs}' repeat a label")
        known = {l for labels in parsed for l in labels}
        for l in named:
            if l not in known:
                raise RuntimeError(f"einsum(): the output label '{l}' does not appear in the input subscripts")
    return parsed, out, ellipsis_dims


def _labels(term, equation):
    labels, i = [], 0
    while i < len(term):
        if term.startswith("...", i):
            if "..." in labels:
                raise RuntimeError(f"einsum(): '...' appears twice in one operand of '{equation}'")
            labels.append("...")
            i += 3
        elif term[i] in _LETTERS:
            labels.append(term[i])
            i += 1
        else:
            raise RuntimeError(f"einsum(): invalid subscript '{term[i]}' in '{equation}': labels are letters a-z, "
                               "A-Z and '...'")
    return labels


def _expand_ellipsis(labels, x, ellipsis_dims):
    """The operand with every dim labelled: '...' becomes the broadcast labels '.0', '.1', ...
    (right-aligned, missing leading ones added as size-1 dims)."""
    if "..." not in labels:
        return labels, x
    k = labels.index("...")
    present = x.dim() - (len(labels) - 1)
    for _ in range(ellipsis_dims - present):
        x = x.unsqueeze(k)
    names = [f".{i}" for i in range(ellipsis_dims)]
    return labels[:k] + names + labels[k + 1:], x


def _take_diagonals(labels, x):
    """A label repeated within one operand ('ii'): keep only its diagonal, as one dim."""
    while len(set(labels)) != len(labels):
        label = next(l for l in labels if labels.count(l) > 1)
        a = labels.index(label)
        b = labels.index(label, a + 1)
        if x.shape[a] != x.shape[b]:
            raise RuntimeError(f"einsum(): subscript {label} is repeated for the operand but the sizes don't match, "
                               f"{x.shape[a]} != {x.shape[b]}")
        n = x.shape[a]
        # move a and b last, flatten them, and take every (n + 1)-th element: the diagonal
        order = [d for d in range(x.dim()) if d not in (a, b)] + [a, b]
        y = x.permute(*order).reshape(*[x.shape[d] for d in order[:-2]], n * n)
        y = _core.index_select(y, y.dim() - 1, _core.from_numpy(np.arange(0, n * n, n + 1, dtype=np.int64)))
        labels = [labels[d] for d in order[:-2]] + [label]
        x = y
    return labels, x


def _sum_out(labels, x, keep):
    """Sum the dims whose labels are not in keep."""
    gone = [d for d, l in enumerate(labels) if l not in keep]
    if gone:
        x = x.sum(tuple(gone))
        labels = [l for l in labels if l in keep]
    return labels, x


def _sizes(pairs):
    """Each label's size across the operands: sizes must agree or be 1 (broadcast)."""
    size = {}
    for labels, x in pairs:
        for l, n in zip(labels, x.shape):
            if l in size and size[l] != n and 1 not in (size[l], n):
                shown = "..." if l.startswith(".") else l
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original): subscript "
                                   f"{shown} has size {size[l]} for one operand and {n} for another")
            if l not in size or size[l] == 1:
                size[l] = n
    return size


def _contract(a_labels, a, b_labels, b, keep, size):
    """The pair (a, b) contracted into one operand whose labels are the ones in keep: one bmm over
    (batch: in both and kept; kept: in one; summed: in both, not kept)."""
    batch = [l for l in a_labels if l in b_labels and l in keep]
    summed = [l for l in a_labels if l in b_labels and l not in keep]
    a_only = [l for l in a_labels if l not in b_labels]
    b_only = [l for l in b_labels if l not in a_labels]

    def arrange(labels, x, order):
        x = x.permute(*[labels.index(l) for l in order])
        return x.expand(*[size[l] for l in order])

    B = int(np.prod([size[l] for l in batch], dtype=np.int64))
    M = int(np.prod([size[l] for l in a_only], dtype=np.int64))
    K = int(np.prod([size[l] for l in summed], dtype=np.int64))
    N = int(np.prod([size[l] for l in b_only], dtype=np.int64))
    lhs = arrange(a_labels, a, batch + a_only + summed).reshape(B, M, K)
    rhs = arrange(b_labels, b, batch + summed + b_only).reshape(B, K, N)
    out = _core.bmm(lhs, rhs).reshape(tuple(size[l] for l in batch + a_only + b_only))
    return batch + a_only + b_only, out


def einsum(equation, *operands):
    """Einstein summation (torch.einsum): einsum("ij,jk->ik", a, b) is a @ b. operands may also
    be given as one list. Integer operands give integer results; the result's dtype is the
    operands' common one."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    if not operands or not all(isinstance(x, _core.Tensor) for x in operands):
        raise TypeError("einsum(): expected the operands to be Tensors")
    dtypes = {x.dtype for x in operands}
    if len(dtypes) > 1:
        raise RuntimeError(f"einsum(): expected the operands to have the same dtype, got {sorted(map(str, dtypes))}")
    parsed, out, ellipsis_dims = _parse(equation, operands)
    out = [l for part in out for l in ([f".{i}" for i in range(ellipsis_dims)] if part == "..." else [part])]
    pairs = [_take_diagonals(*_expand_ellipsis(labels, x, ellipsis_dims)) for labels, x in zip(parsed, operands)]
    size = _sizes(pairs)
    # Sum out, in each operand, the labels no other operand and not the output need.
    reduced = []
    for i, (labels, x) in enumerate(pairs):
        elsewhere = set(out).union(*(set(l) for j, (l, _) in enumerate(pairs) if j != i))
        reduced.append(_sum_out(labels, x, elsewhere))
    labels, x = reduced[0]
    for i in range(1, len(reduced)):
        later = set(out).union(*(set(l) for l, _ in reduced[i + 1:]))
        b_labels, b = reduced[i]
        labels, x = _contract(labels, x, b_labels, b, later, size)
    labels, x = _sum_out(labels, x, set(out))
    # broadcast a size-1 output label to its size, then the output's order
    x = x.expand(*[size[l] if n == 1 else n for l, n in zip(labels, x.shape)]) if labels else x
    return x.permute(*[labels.index(l) for l in out]) if out else x
