"""Normal (torch.distributions.Normal): N(loc, scale²), with rsample (loc + scale·ε, so gradients
reach loc and scale), cdf by erf, icdf by erfinv. Tests: tests/test_distributions.py."""
import math

from .._core import Tensor, erf, erfinv, log
from .._tensor import randn
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Normal"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


class Normal(ExponentialFamily):
    """The normal distribution N(loc, scale²); loc and scale are tensors or numbers, broadcast
    together (batch_shape is their shape)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        either = isinstance(loc, Tensor) or isinstance(scale, Tensor)
        super().__init__(tuple(self.loc.shape) if either else (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with loc and scale expanded to batch_shape."""
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return new._finish_expand(self, batch_shape)

    @property
    def mean(self):
        """loc."""
        return self.loc

    @property
    def mode(self):
        """loc."""
        return self.loc

    @property
    def stddev(self):
        """scale."""
        return self.scale

    @property
    def variance(self):
        """scale²."""
        return self.scale.pow(2)

    def rsample(self, sample_shape=()):
        """x = loc + ε·scale, ε ~ N(0, 1): dx/dloc = 1, dx/dscale = ε."""
        shape = self._extended_shape(sample_shape)
        eps = randn(shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """log p(x) = -(x - loc)² / (2 scale²) - log scale - log √(2π)."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - log(self.scale) - _LOG_SQRT_2PI

    def cdf(self, value):
        """Φ((x - loc) / scale) = (1 + erf((x - loc) / (scale √2))) / 2."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + erf((value - self.loc) * (1 / self.scale) / math.sqrt(2)))

    def icdf(self, value):
        """loc + scale·√2·erfinv(2p - 1)."""
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """H = 1/2 + log √(2π) + log scale."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + log(self.scale)

    @property
    def _natural_params(self):
        # θ = (loc / scale², -1 / (2 scale²))
        return (self.loc / self.scale.pow(2), -0.5 / self.scale.pow(2))

    def _log_normalizer(self, x, y):
        # F(θ) = -θ1² / (4 θ2) + log(-π / θ2) / 2
        return -0.25 * x.pow(2) / y + 0.5 * log(-math.pi / y)
