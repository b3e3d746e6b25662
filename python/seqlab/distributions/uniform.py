"""Uniform (torch.distributions.Uniform): the continuous uniform distribution on [low, high), with
rsample (low + u·(high - low)), cdf and icdf. Tests: tests/test_distributions.py."""
import math

from .._core import Tensor, log
from .._tensor import rand
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """U[low, high); low and high are tensors or numbers, broadcast together (batch_shape is their
    shape); validation asks low < high."""
    has_rsample = True

    @property
    def arg_constraints(self):
        """low below high, high above low."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        either = isinstance(low, Tensor) or isinstance(high, Tensor)
        super().__init__(tuple(self.low.shape) if either else (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with low and high expanded to batch_shape."""
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = tuple(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        return new._finish_expand(self, batch_shape)

    @property
    def mean(self):
        """(low + high) / 2."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN (every point is a mode), as torch."""
        return math.nan * self.high

    @property
    def stddev(self):
        """(high - low) / √12."""
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        """(high - low)² / 12."""
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """interval(low, high)."""
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=()):
        """x = low + u·(high - low), u ~ U[0, 1)."""
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        """-log(high - low) inside [low, high), -inf outside."""
        if self._validate_args:
            self._validate_sample(value)
        inside = (value >= self.low).to(self.low.dtype) * (value < self.high).to(self.low.dtype)
        return log(inside) - log(self.high - self.low)

    def cdf(self, value):
        """(x - low) / (high - low), clamped to [0, 1]."""
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        """low + p·(high - low)."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """log(high - low)."""
        return log(self.high - self.low)
