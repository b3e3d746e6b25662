"""
torch.linalg's names (python/seqlab/linalg.py re-exports them)
"""
from __future__ import annotations
import seqlab._core
import typing
from seqlab._core import Tensor, dtype
__all__: list[str] = ['vector_norm']
def vector_norm(x: Tensor, ord: typing.Any = 2, dim: typing.Any = None, keepdim: bool = False, *, dtype: seqlab._core.dtype | None = None) -> Tensor:
    """
    (sum |x|^ord)^(1/ord) over dim; ord inf/-inf is max/min |x|, ord 0 counts non-zeros
    (torch.linalg.vector_norm). The gradient at a zero norm is 0.
    """
