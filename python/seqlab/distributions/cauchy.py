"""Cauchy (torch.distributions.Cauchy): density 1 / (π scale (1 + ((x - loc)/scale)²)), with rsample
by the inverse cdf (loc + scale·tan(π(u - 1/2))); no mean or variance (NaN, inf as torch).
Tests: tests/test_distributions.py."""
import math

from .._core import Tensor, log, log1p, tan
from .._math import atan
from .._tensor import full, rand
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Cauchy(loc, scale); loc and scale are tensors or numbers, broadcast together."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        either = isinstance(loc, Tensor) or isinstance(scale, Tensor)
        super().__init__(tuple(self.loc.shape) if either else (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with loc and scale expanded to batch_shape."""
        new = self._get_checked_instance(Cauchy, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return new._finish_expand(self, batch_shape)

    @property
    def mean(self):
        """NaN: the mean does not exist."""
        return full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def mode(self):
        """loc."""
        return self.loc

    @property
    def variance(self):
        """inf."""
        return full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=()):
        """x = loc + scale·tan(π(u - 1/2)), u ~ U[0, 1)."""
        shape = self._extended_shape(sample_shape)
        eps = tan(math.pi * (rand(shape, dtype=self.loc.dtype) - 0.5))
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """-log π - log scale - log(1 + ((x - loc)/scale)²)."""
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - log(self.scale) - log1p(((value - self.loc) / self.scale) ** 2)

    def cdf(self, value):
        """atan((x - loc)/scale) / π + 1/2."""
        if self._validate_args:
            self._validate_sample(value)
        return atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        """loc + scale·tan(π(p - 1/2))."""
        return tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        """log(4π scale)."""
        return math.log(4 * math.pi) + log(self.scale)
