"""Helpers the distributions share (torch.distributions.utils): broadcast_all, the probs <-> logits
conversions, lazy_property, euler_constant. Tests: tests/test_distributions.py."""
import numbers

from .._core import Tensor, log, log1p, sigmoid, softmax
from .._dtypes import get_default_dtype
from .._shape import broadcast_tensors
from .._tensor import tensor
from .._type_info import finfo
from ..autograd import enable_grad

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property", "euler_constant"]

euler_constant = 0.57721566490153286061  # Euler–Mascheroni constant γ


def broadcast_all(*values):
    """The values as tensors broadcast to one shape (views). Numbers become tensors of the first
    tensor's dtype (the default dtype when all are numbers)."""
    for v in values:
        if not isinstance(v, (Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of Number or seqlab.Tensor.")
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), get_default_dtype())
    as_tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    return broadcast_tensors(*as_tensors)


def _sum_rightmost(value, dim):
    """value summed over its `dim` rightmost dims (dim = 0: value itself)."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """sigmoid(logits) for a binary variable, softmax over the last dim otherwise."""
    return sigmoid(logits) if is_binary else softmax(logits, -1)


def clamp_probs(probs):
    """probs clamped to [eps, 1 - eps] of their dtype, so their logs are finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """log p - log(1 - p) for a binary variable, log p otherwise (p clamped by clamp_probs)."""
    p = clamp_probs(probs)
    return log(p) - log1p(-p) if is_binary else log(p)


class lazy_property:
    """A parameter computed from another on first use and then stored on the instance (Categorical's
    probs from its logits); computed with grad enabled, so it stays differentiable."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
