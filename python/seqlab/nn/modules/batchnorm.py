"""seqlab.nn.modules.batchnorm: torch.nn.modules.batchnorm's import path for classes defined in seqlab.nn."""
from ..layers import BatchNorm1d  # noqa: F401
from ..lazy import LazyBatchNorm1d  # noqa: F401

__all__ = ["BatchNorm1d", "LazyBatchNorm1d"]
