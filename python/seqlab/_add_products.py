"""BLAS's "product plus a scaled term" family with torch's signatures: addmm, addmv, addr, baddbmm
and addbmm compute beta·input + alpha·(a product), the product one matmul (so one GEMM and its
gradient). As in BLAS and torch, beta = 0 ignores input altogether: its NaN and inf do not reach
the result. The in-place Tensor methods (x.addmm_(m1, m2)) write the result into x.
Tests: tests/test_add_products.py."""
import numpy as np

from . import _core
from ._math import _in_place

__all__ = ["addmm", "addmv", "addr", "baddbmm", "addbmm"]


def _operands(fn, input, **operands):
    """Each operand, given as name=(tensor, dims), has that many dims, and all share input's dtype
    (torch's errors: "addmm: mat1 must be a matrix, got 1-D tensor", "expected ... the same dtype")."""
    for name, (t, dims) in operands.items():
        if t.dim() != dims:
            kind = {1: "vector", 2: "matrix", 3: "3D tensor"}[dims]
            raise RuntimeError(f"{fn}: {name} must be a {kind}, got {t.dim()}-D tensor")
    tensors = {"input": input, **{name: t for name, (t, _) in operands.items()}}
    if len({t.dtype for t in tensors.values()}) > 1:
        got = ", ".join(f"{name} {str(t.dtype).split('.')[-1]}" for name, t in tensors.items())
        raise RuntimeError(f"{fn}: expected {', '.join(tensors)} to have the same dtype, but got {got}")


def _combine(input, product, beta, alpha, fn):
    """beta·input + alpha·product, input broadcast to the product's shape (not the other way).
    Integer tensors take beta and alpha as integers (torch truncates a float one)."""
    if not input.dtype.is_floating_point:
        beta, alpha = int(beta), int(alpha)
    target = tuple(product.shape)
    try:
        term = input.expand(*target) if tuple(input.shape) != target else input
    except (RuntimeError, ValueError) as e:
        raise RuntimeError(f"{fn}: input of shape {tuple(input.shape)} cannot be broadcast to the product's shape "
                           f"{target}") from e
    out = product if alpha == 1 else product * alpha
    if beta == 0:
        # input's values are not read (so its NaN cannot reach the result), but it stays in the
        # graph with gradient 0, as torch's
        unread = _core.where(_core.from_numpy(np.zeros(target, dtype=bool)), term, 0)
        return out + unread
    return out + (term if beta == 1 else term * beta)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta·input + alpha·(mat1 @ mat2): mat1 (n, m), mat2 (m, p), input broadcast to (n, p)."""
    _operands("addmm", input, mat1=(mat1, 2), mat2=(mat2, 2))
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    return _combine(input, _core.matmul(mat1, mat2), beta, alpha, "addmm")


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta·input + alpha·(mat @ vec): mat (n, m), vec (m,), input broadcast to (n,)."""
    _operands("addmv", input, mat=(mat, 2), vec=(vec, 1))
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({mat.shape[0]}), mat ({mat.shape[0]}x{mat.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    return _combine(input, _core.matmul(mat, vec), beta, alpha, "addmv")


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta·input + alpha·(vec1 ⊗ vec2), the outer product: vec1 (n,), vec2 (m,), input broadcast to (n, m)."""
    _operands("addr", input, vec1=(vec1, 1), vec2=(vec2, 1))
    return _combine(input, _core.matmul(vec1.unsqueeze(1), vec2.unsqueeze(0)), beta, alpha, "addr")


def _batches(input, batch1, batch2, fn):
    _operands(fn, input, batch1=(batch1, 3), batch2=(batch2, 3))
    (b, n, m), (b2, m2, p) = batch1.shape, batch2.shape
    if fn == "addbmm" and b != b2:          # torch's two kernels word it differently
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if fn == "addbmm" and m != m2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and {m2}x{p})")
    if b != b2 or m != m2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{b2}, {m2}].")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta·input + alpha·(batch1 @ batch2) per batch: (b, n, m) @ (b, m, p), input broadcast to (b, n, p)."""
    _batches(input, batch1, batch2, "baddbmm")
    return _combine(input, _core.matmul(batch1, batch2), beta, alpha, "baddbmm")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta·input + alpha·Σ_b batch1[b] @ batch2[b]: the batch's products summed, input broadcast to (n, p)."""
    _batches(input, batch1, batch2, "addbmm")
    return _combine(input, _core.matmul(batch1, batch2).sum(0), beta, alpha, "addbmm")


IN_PLACE = {name + "_": _in_place(globals()[name]) for name in __all__}   # x.addmm_(m1, m2), ...
