"""torch.dist and torch.cdist: p-norm distances, composed of broadcasting and vector_norm, so the
gradient is vector_norm's (0 where a distance is 0, as torch's). Tests: tests/test_add_products.py."""
from . import _core
from ._dtypes import scalar_type_name
from ._through_float32 import refuse


def _name(dtype):
    return scalar_type_name(dtype)

__all__ = ["dist", "cdist"]


def dist(input, other, p=2):
    """‖input − other‖_p over all elements, the two broadcast together (p = 0 counts the nonzero
    differences, p = inf is the largest)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_name(input.dtype)} instead.")
    return _core.linalg.vector_norm(input - other, float(p))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between every row of x1 (..., P, M) and every row of x2 (..., R, M):
    (..., P, R), the batch dims broadcast. compute_mode is accepted for torch's signature; the
    distances are always the direct ‖x1_i − x2_j‖_p (torch may use a matmul for p = 2, which
    differs in the last digits)."""
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {_name(x.dtype)}")
        refuse("cdist", x)   # torch has no 16-bit cdist on CPU
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return _core.linalg.vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), float(p), -1)
