"""torch's shape and indexing functions, composed of seqlab's primitives (reshape, expand, permute,
cat, index_select, gather, mul), so each gets its gradient from its parts: hstack / vstack / dstack /
column_stack, atleast_1d/2d/3d, tensor_split / hsplit / vsplit, movedim / moveaxis / swapdims,
broadcast_to / broadcast_tensors / broadcast_shapes, tile, unflatten, fliplr / flipud / rot90,
diag / diagonal / diag_embed / trace, outer / ger / kron / tensordot / cross, block_diag, meshgrid /
cartesian_prod / combinations, take / take_along_dim / masked_select / argwhere, with torch's
signatures (no out=: seqlab's functions return new tensors). Tests: tests/test_torch_functions.py."""
import builtins
import itertools
import warnings

import numpy as np

from . import _args, _core
from ._composed import _dims, _index, flip

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack", "tensor_split",
           "hsplit", "vsplit", "movedim", "moveaxis", "swapdims", "broadcast_to", "broadcast_shapes",
           "broadcast_tensors", "tile", "unflatten", "fliplr", "flipud", "rot90", "diag", "diagonal", "diag_embed",
           "trace", "outer", "ger", "kron", "tensordot", "cross", "block_diag", "meshgrid", "cartesian_prod",
           "combinations", "take", "take_along_dim", "masked_select", "argwhere"]


def _dim(d, ndim, fn):
    return _dims(d, ndim, fn)[0]


def _tensors(tensors, fn):
    """The tensors of f(*tensors) or f([tensors]) (torch accepts both)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, _core.Tensor):
            raise TypeError(f"{fn}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


def _result_dtype(tensors):
    """The dtype torch's type promotion gives these tensors, as its binary ops do: a 0-d tensor counts
    only where its category (bool < integer < float) is above that of every tensor with dims, so
    (float32 vector, float64 0-d) -> float32. Read off where() of empty slices, the 0-d tensors kept
    0-d (where() promotes as the binary ops)."""
    def probe(t):
        t = t.detach()
        return t if t.dim() == 0 else t.reshape(-1)[:0]

    out = probe(tensors[0])
    for t in tensors[1:]:
        out = _core.where(out != out, out, probe(t))
    return out.dtype


# ---------------------------------------------------------------- at least n dims, stacking


def _atleast(n, tensors, fn):
    single = len(tensors) == 1 and isinstance(tensors[0], _core.Tensor)
    out = []
    for t in _tensors(tensors, fn):
        if t.dim() == 0:
            t = t.reshape([1] * n)
        elif n >= 2 and t.dim() == 1:
            t = t.unsqueeze(0) if n == 2 else t.reshape(1, -1, 1)
        elif n == 3 and t.dim() == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    return out[0] if single else tuple(out)


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim: a 0-d tensor becomes shape (1,) (torch.atleast_1d)."""
    return _atleast(1, tensors, "atleast_1d")


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims: () -> (1, 1), (n,) -> (1, n) (torch.atleast_2d)."""
    return _atleast(2, tensors, "atleast_2d")


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims: () -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)
    (torch.atleast_3d)."""
    return _atleast(3, tensors, "atleast_3d")


def _stack_list(tensors, fn):
    if isinstance(tensors, _core.Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{fn} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors):
    """The tensors joined column-wise: cat along dim 1, or along dim 0 if they are 1-d (torch.hstack)."""
    ts = atleast_1d(_stack_list(tensors, "hstack"))
    return _core.cat(list(ts), 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    """The tensors joined row-wise: cat(atleast_2d(tensors), 0) (torch.vstack)."""
    return _core.cat(list(atleast_2d(_stack_list(tensors, "vstack"))), 0)


def dstack(tensors):
    """The tensors joined depth-wise: cat(atleast_3d(tensors), 2) (torch.dstack)."""
    return _core.cat(list(atleast_3d(_stack_list(tensors, "dstack"))), 2)


def column_stack(tensors):
    """The tensors as columns: 0-d and 1-d tensors become (n, 1), then cat along dim 1 (torch.column_stack)."""
    ts = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in _stack_list(tensors, "column_stack")]
    return _core.cat(ts, 1)


# ---------------------------------------------------------------- splitting


def tensor_split(input, indices_or_sections, dim=0):
    """Views of input along dim: n sections (the first size % n one longer), or cut before each index
    of a list / 1-d tensor (torch.tensor_split)."""
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _dim(dim, input.dim(), "tensor_split")
    size = input.shape[d]
    if isinstance(indices_or_sections, _core.Tensor):
        if indices_or_sections.dtype != _core.dtype.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have integer dtype, but got "
                               f"{indices_or_sections.dtype}")
        if indices_or_sections.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {indices_or_sections.dim()} dims")
        values = indices_or_sections.tolist()
        indices_or_sections = values if isinstance(values, list) else int(values)
    if isinstance(indices_or_sections, (list, tuple)):
        cuts = [_args.index(i, "tensor_split", "indices") for i in indices_or_sections]
        bounds = [0] + [min(max(c + size if c < 0 else c, 0), size) for c in cuts] + [size]
    else:
        n = _args.index(indices_or_sections, "tensor_split", "sections")
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds = [i * q + builtins.min(i, r) for i in range(n + 1)]
    return tuple(input.narrow(d, a, builtins.max(b - a, 0)) for a, b in zip(bounds[:-1], bounds[1:]))


def _split_even(input, indices_or_sections, d, fn):
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        n = indices_or_sections
        if n == 0 or input.shape[d] % n:
            raise RuntimeError(f"torch.{fn} attempted to split along dimension {d}, but the size of the dimension "
                               f"{input.shape[d]} is not divisible by the split_size {n}!")
    return tensor_split(input, indices_or_sections, d)


def hsplit(input, indices_or_sections):
    """tensor_split along dim 1 (dim 0 for a 1-d input); n sections must divide evenly (torch.hsplit)."""
    if input.dim() < 1:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 "
                           "dimensions!")
    return _split_even(input, indices_or_sections, 1 if input.dim() > 1 else 0, "hsplit")


def vsplit(input, indices_or_sections):
    """tensor_split along dim 0 of a tensor of at least 2 dims; n sections must divide evenly (torch.vsplit)."""
    if input.dim() < 2:
        raise RuntimeError(f"torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with "
                           f"{input.dim()} dimensions!")
    return _split_even(input, indices_or_sections, 0, "vsplit")


# ---------------------------------------------------------------- moving dims, broadcasting


def movedim(input, source, destination):
    """A view with dims `source` moved to positions `destination`, the others in their order (torch.movedim)."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
                           f"same number of dims as destination ({dst} dims)")
    n = input.dim()
    src = _dims(src, n, "movedim") if src else []
    dst = _dims(dst, n, "movedim") if dst else []
    if n == 0:
        return input.view(())
    order = [None] * builtins.max(n, 1)
    for s, t in zip(src, dst):
        order[t] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o is None else o for o in order][:n]
    return input.permute(*order) if n else input


moveaxis = movedim


def swapdims(input, dim0, dim1):
    """input with dims dim0 and dim1 exchanged, a view (torch.swapdims, = transpose)."""
    return input.transpose(dim0, dim1)


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, by torch's rules (torch.broadcast_shapes)."""
    out = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for s in shape:
            if _args.index(s, "broadcast_shapes", "shape") < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
        k = builtins.max(len(out), len(shape))
        a, b = [1] * (k - len(out)) + out, [1] * (k - len(shape)) + list(shape)
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                raise RuntimeError(f"broadcast_shapes(): the size {y} of {shape} must match the size {x} at "
                                   f"dim {i - k} of the shapes before it (or one of them must be 1)")
        out = [y if x == 1 else x for x, y in zip(a, b)]
    return tuple(out)


def _expand(t, shape):
    return t.expand(*shape) if len(shape) else t.reshape(())   # (expand() needs one size at least)


def broadcast_to(input, size):
    """input expanded (a view, no copy) to `size`, -1 keeping a size (torch.broadcast_to)."""
    return _expand(input, tuple(size))


def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape, views (torch.broadcast_tensors)."""
    tensors = _tensors(tensors, "broadcast_tensors")
    try:
        shape = broadcast_shapes(*[tuple(t.shape) for t in tensors])
    except RuntimeError:
        raise RuntimeError("broadcast_tensors(): the size of tensor shapes "
                           f"{[tuple(t.shape) for t in tensors]} must match (or be 1) at each dim") from None
    return tuple(_expand(t, shape) for t in tensors)


def tile(input, dims):
    """input repeated dims[i] times along each dim, leading 1s added to whichever is shorter (torch.tile)."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    dims = (1,) * (input.dim() - len(dims)) + dims
    return input.repeat(*dims)


def _tile_method(self, *dims):
    """input repeated dims[i] times along each dim (x.tile(2, 3) or x.tile((2, 3)), torch's Tensor.tile)."""
    return tile(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)


def unflatten(input, dim, sizes):
    """dim of input split into dims of `sizes` (one may be -1), a view (torch.unflatten)."""
    d = _dim(dim, input.dim(), "unflatten")
    sizes = [_args.index(s, "unflatten", "sizes") for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d]
    known = int(np.prod([s for s in sizes if s != -1]))
    if sizes.count(-1) > 1 or (-1 not in sizes and known != n) or (-1 in sizes and (known == 0 or n % known)):
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} ({n}) in "
                           "the input tensor")
    sizes = [n // known if s == -1 else s for s in sizes]
    return input.reshape(list(input.shape[:d]) + sizes + list(input.shape[d + 1:]))


def fliplr(input):
    """input with its columns (dim 1) in reverse order (torch.fliplr); needs 2 dims or more."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input):
    """input with its rows (dim 0) in reverse order (torch.flipud); needs 1 dim or more."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


def rot90(input, k=1, dims=(0, 1)):
    """input rotated by k·90° in the plane of dims, from the first dim towards the second (torch.rot90)."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    a, b = _dims(dims[0], input.dim(), "rot90")[0], _dims(dims[1], input.dim(), "rot90")[0]
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    k = _args.index(k, "rot90", "k") % 4
    if k == 1:
        return flip(input, b).transpose(a, b)
    if k == 2:
        return flip(input, a, b)
    if k == 3:
        return flip(input, a).transpose(a, b)
    return input.clone()


# ---------------------------------------------------------------- diagonals


def _diagonal_positions(rows, cols, offset):
    """Flat positions i·cols + (i + offset) of the diagonal `offset` of a rows × cols matrix."""
    start_row, start_col = (0, offset) if offset >= 0 else (-offset, 0)
    n = builtins.max(builtins.min(rows - start_row, cols - start_col), 0)
    i = np.arange(n)
    return (start_row + i) * cols + start_col + i


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The elements input[..., i, i + offset, ...] of dims dim1 and dim2, as a new last dim
    (torch.diagonal): a view, whose stride is the sum of the two dims' strides, so writing into it
    (x.diagonal().fill_(1)) writes into input."""
    if input.dim() < 2:
        raise RuntimeError(f"diagonal(): expected a tensor of at least 2 dims, got {input.dim()}")
    a, b = _dim(dim1, input.dim(), "diagonal"), _dim(dim2, input.dim(), "diagonal")
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = _args.index(offset, "diagonal", "offset")
    rows, cols = input.shape[a], input.shape[b]
    strides = input.stride()
    start_row, start_col = (0, offset) if offset >= 0 else (-offset, 0)
    length = builtins.max(builtins.min(rows - start_row, cols - start_col), 0)
    keep = [d for d in range(input.dim()) if d not in (a, b)]
    start = input.storage_offset() + (start_row * strides[a] + start_col * strides[b] if length else 0)
    return input.as_strided([input.shape[d] for d in keep] + [length], [strides[d] for d in keep] +
                            [strides[a] + strides[b]], start)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonal `offset` in dims (dim1, dim2) holds input's last dim, zeros elsewhere
    (torch.diag_embed)."""
    n_out = input.dim() + 1
    a, b = _dim(dim1, n_out, "diag_embed"), _dim(dim2, n_out, "diag_embed")
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = _args.index(offset, "diag_embed", "offset")
    length = input.shape[-1] if input.dim() else 1
    x = input.reshape(1) if input.dim() == 0 else input
    n = length + abs(offset)
    # (..., L) -> (..., L + 1) with a zero at L; position p of the n·n matrix reads element i on the
    # diagonal, the zero elsewhere: one index_select, whose backward is the gradient.
    padded = _core.cat([x, x.new_zeros(*x.shape[:-1], 1)], -1)
    source = np.full(n * n, length, dtype=np.int64)
    source[_diagonal_positions(n, n, offset)] = np.arange(length)
    out = _core.index_select(padded, -1, _index(source)).reshape(list(x.shape[:-1]) + [n, n])
    return movedim(out, (-2, -1), (a, b))


def diag(input, diagonal=0):
    """Of a 1-d input, the square matrix with input on diagonal `diagonal`; of a 2-d input, that diagonal
    as a 1-d tensor (torch.diag)."""
    if input.dim() == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.dim() == 2:
        return globals()["diagonal"](input, diagonal, 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def trace(input):
    """Σ_i input[i, i] of a 2-d tensor; integers sum to int64, as torch.trace."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    if input.dtype == _core.dtype.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return diagonal(input).sum()


# ---------------------------------------------------------------- products


def outer(input, vec2):
    """The outer product out[i, j] = input[i]·vec2[j] of two 1-d tensors (torch.outer)."""
    if input.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument {'self' if input.dim() != 1 else 'vec2'}, but got "
                           f"{(input if input.dim() != 1 else vec2).dim()}-D")
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


def ger(input, vec2):
    """outer(input, vec2), torch's older name (torch.ger)."""
    return outer(input, vec2)


def kron(input, other):
    """The Kronecker product: out[i·m + k, ...] = input[i, ...]·other[k, ...] for every dim (torch.kron)."""
    n = builtins.max(input.dim(), other.dim())
    a = [1] * (n - input.dim()) + list(input.shape)
    b = [1] * (n - other.dim()) + list(other.shape)
    x = input.reshape([v for s in a for v in (s, 1)])
    y = other.reshape([v for s in b for v in (1, s)])
    return (x * y).reshape([s * t for s, t in zip(a, b)])


def tensordot(a, b, dims=2):
    """Σ over the last `dims` dims of a and the first of b (or the listed dims of each), as one matrix
    product of the reshaped tensors (torch.tensordot)."""
    if isinstance(dims, _core.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > builtins.min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists or an int")
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(da) != len(db):
            raise RuntimeError("tensordot: both dimension lists should have same length")
        da = _dims(da, a.dim(), "tensordot") if da else []
        db = _dims(db, b.dim(), "tensordot") if db else []
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j] and b.shape[j] == 1:   # a size-1 dim broadcasts: sum the other side's
            a = a.sum(i, keepdim=True)
        elif a.shape[i] != b.shape[j] and a.shape[i] == 1:
            b = b.sum(j, keepdim=True)
        elif a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[i]} in dim {i} "
                               f"and second has size {b.shape[j]} in dim {j}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"tensordot: both inputs should have same dtype, got {a.dtype} and {b.dtype}")
    free_a = [d for d in range(a.dim()) if d not in da]
    free_b = [d for d in range(b.dim()) if d not in db]
    k = int(np.prod([a.shape[d] for d in da]))
    m, n = int(np.prod([a.shape[d] for d in free_a])), int(np.prod([b.shape[d] for d in free_b]))
    x = a.permute(*free_a, *da).reshape(m, k) if a.dim() else a.reshape(1, 1)
    y = b.permute(*db, *free_b).reshape(k, n) if b.dim() else b.reshape(1, 1)
    return (x @ y).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def cross(input, other, dim=None):
    """The cross product of 3-vectors along dim (input and other broadcast): a × b = (a₁b₂ − a₂b₁,
    a₂b₀ − a₀b₂, a₀b₁ − a₁b₀) (torch.cross). Without dim, the first dim of size 3, with torch's
    deprecation warning."""
    return _cross(input, other, dim, "cross")


def _cross(input, other, dim, fn):
    if input.dim() != other.dim():
        raise RuntimeError(f"{fn}: inputs must have the same number of dimensions.")
    if input.dtype != other.dtype:
        raise RuntimeError(f"{fn}: expected scalar type {input.dtype} but found {other.dtype}")
    x, y = broadcast_tensors(input, other)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=3)
        dim = next((i for i, s in enumerate(x.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("cross: no dimension of size 3 in input")
    d = _dim(dim, x.dim(), fn)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"{fn}: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")

    def at(t, order):
        return _core.index_select(t, d, _index(order))

    return at(x, [1, 2, 0]) * at(y, [2, 0, 1]) - at(x, [2, 0, 1]) * at(y, [1, 2, 0])


def linalg_cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along dim (default the last), input and other broadcast
    (torch.linalg.cross)."""
    return _cross(input, other, dim, "linalg.cross")


def block_diag(*tensors):
    """The tensors (0-d: 1×1, 1-d: 1×n) placed along the diagonal of one matrix, zeros elsewhere
    (torch.block_diag)."""
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() == 1 else t.reshape(1, 1) if t.dim() == 0 else t)
    if not mats:
        return _core.from_numpy(np.zeros((1, 0), dtype=np.float32))
    dtype = _result_dtype(tensors)   # of the tensors as given: a 0-d one promotes as 0-d
    width = builtins.sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        m = m if m.dtype == dtype else m.to(dtype)
        right = width - left - m.shape[1]
        rows.append(_core.cat([m.new_zeros(m.shape[0], left), m, m.new_zeros(m.shape[0], right)], 1))
        left += m.shape[1]
    return _core.cat(rows, 0)


# ---------------------------------------------------------------- grids and combinations


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-d tensors: out[i] varies along dim i ('ij') or, for the first two,
    along dims 1 and 0 ('xy', as NumPy); without indexing, 'ij' and torch's warning (torch.meshgrid)."""
    tensors = _tensors(tensors, "meshgrid")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}D")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    flat = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = [t.shape[0] for t in flat]
    grids = []
    for i, t in enumerate(flat):
        view = [1] * len(flat)
        view[i] = -1
        grids.append(t.reshape(view).expand(*shape))
    if swap:  # 'xy': the grid of (y, x, ...) in 'ij', its first two outputs exchanged
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every tuple (a, b, ...) of elements of the 1-d tensors, one row each, in lexicographic order
    (torch.cartesian_prod); one tensor is returned as it is."""
    tensors = _tensors(tensors, "cartesian_prod")
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return _core.stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of the 1-d input, one row each, as itertools.combinations (with
    repetition: combinations_with_replacement) (torch.combinations)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    r = _args.index(r, "combinations", "r")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_zeros(0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return _core.index_select(input, 0, _index(rows.reshape(-1))).reshape(-1, r)


# ---------------------------------------------------------------- taking elements


def _check_long(index, fn, what="index"):
    if not isinstance(index, _core.Tensor):
        raise TypeError(f"{fn}(): argument '{what}' (position 2) must be Tensor, not {type(index).__name__}")
    if index.dtype != _core.dtype.int64:
        raise RuntimeError(f"{fn}(): Expected a long tensor for {what}, but got {index.dtype}")


def take(input, index):
    """input seen as 1-d, read at `index` (negative counts from the end); the result has index's shape
    (torch.take)."""
    _check_long(index, "take")
    n = input.numel()
    positions = index.reshape(-1).numpy()
    if positions.size and (positions.min() < -n or positions.max() >= n):
        bad = int(positions.max() if positions.max() >= n else positions.min())
        raise IndexError(f"take(): out of range: tried to access index {bad} on a tensor of {n} elements.")
    flat = input.reshape(-1)
    return _core.index_select(flat, 0, _index(positions % builtins.max(n, 1))).reshape(index.shape)


def take_along_dim(input, indices, dim=None):
    """input read at `indices` along dim (−n ≤ i < 0 counts from the end), the other dims broadcast
    (torch.take_along_dim); without dim, of the flattened input (indices 0 ≤ i < numel, as torch's)."""
    _check_long(indices, "take_along_dim", "indices")
    flat = dim is None
    if flat:
        input, indices, dim = input.reshape(-1), indices.reshape(-1), 0
    elif input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    d = _dim(dim, input.dim(), "take_along_dim")
    shape_x, shape_i = list(input.shape), list(indices.shape)
    shape_x[d] = shape_i[d] = 1
    common = list(broadcast_shapes(shape_x, shape_i))
    x = input.expand(*(common[:d] + [input.shape[d]] + common[d + 1:]))
    idx = indices.expand(*(common[:d] + [indices.shape[d]] + common[d + 1:]))
    n = input.shape[d]
    if idx.numel():
        positions = idx.numpy()
        low = 0 if flat else -n   # (torch's flattened form refuses negative indices)
        if positions.min() < low or positions.max() >= n:
            bad = int(positions.max() if positions.max() >= n else positions.min())
            raise IndexError(f"take_along_dim(): index {bad} is out of bounds for dimension {d} with size {n}")
        if positions.min() < 0:   # −n ≤ i < 0 counts from the end, as torch's
            idx = _core.where(idx < 0, idx + n, idx)
    return x.gather(d, idx)


def masked_select(input, mask):
    """The elements of input where the bool mask is True (the two broadcast), as a 1-d tensor
    (torch.masked_select)."""
    if not isinstance(mask, _core.Tensor) or mask.dtype != _core.dtype.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    x, m = broadcast_tensors(input, mask)
    positions = np.flatnonzero(m.numpy())
    return _core.index_select(x.reshape(-1), 0, _index(positions))


def argwhere(input):
    """The indices of the nonzero elements of input, one row per element: shape (n, input.dim())
    (torch.argwhere, = nonzero)."""
    return _core.nonzero(input)
