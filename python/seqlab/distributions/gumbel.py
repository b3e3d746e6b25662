"""Gumbel (torch.distributions.Gumbel): the type-I extreme value distribution, cdf
e^{-e^{-(x - loc)/scale}}. torch builds it as a transformed uniform; here the same draw is written
out: x = loc - scale·log(-log u), u ~ U(tiny, 1 - eps). Tests: tests/test_distributions.py."""
import math

from .._core import Tensor, exp, log
from .._tensor import rand
from .._type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(Distribution):
    """Gumbel(loc, scale); loc and scale are tensors or numbers, broadcast together."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        either = isinstance(loc, Tensor) or isinstance(scale, Tensor)
        super().__init__(tuple(self.loc.shape) if either else (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with loc and scale expanded to batch_shape."""
        new = self._get_checked_instance(Gumbel, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return new._finish_expand(self, batch_shape)

    def rsample(self, sample_shape=()):
        """x = loc - scale·log(-log u), u ~ U(tiny, 1 - eps) (the inverse cdf of u)."""
        shape = self._extended_shape(sample_shape)
        info = finfo(self.loc.dtype)
        u = rand(shape, dtype=self.loc.dtype) * (1 - info.eps - info.tiny) + info.tiny
        return self.loc - self.scale * log(-log(u))

    def log_prob(self, value):
        """z - e^z - log scale with z = (loc - x) / scale."""
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return z - exp(z) - log(self.scale)

    def cdf(self, value):
        """e^{-e^{-(x - loc)/scale}}."""
        if self._validate_args:
            self._validate_sample(value)
        return exp(-exp((self.loc - value) / self.scale))

    def icdf(self, value):
        """loc - scale·log(-log p)."""
        return self.loc - self.scale * log(-log(value))

    @property
    def mean(self):
        """loc + scale·γ (Euler's constant)."""
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        """loc."""
        return self.loc

    @property
    def stddev(self):
        """π scale / √6."""
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self):
        """π² scale² / 6."""
        return self.stddev.pow(2)

    def entropy(self):
        """log scale + 1 + γ."""
        return log(self.scale) + (1 + euler_constant)
