"""Exponential (torch.distributions.Exponential): density rate·e^{-rate·x} on x >= 0, with rsample
(E / rate, E ~ Exp(1)), cdf and icdf. Tests: tests/test_distributions.py."""
from .._core import Tensor, exp, log, log1p
from .._tensor import empty, zeros_like
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exp(rate); rate is a tensor or a number (batch_shape is its shape)."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(tuple(self.rate.shape) if isinstance(rate, Tensor) else (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with rate expanded to batch_shape."""
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = tuple(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return new._finish_expand(self, batch_shape)

    @property
    def mean(self):
        """1 / rate."""
        return 1 / self.rate

    @property
    def mode(self):
        """0."""
        return zeros_like(self.rate)

    @property
    def stddev(self):
        """1 / rate."""
        return 1 / self.rate

    @property
    def variance(self):
        """1 / rate²."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        """x = E / rate, E ~ Exp(1): dx/drate = -x / rate."""
        shape = self._extended_shape(sample_shape)
        return empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value):
        """log rate - rate·x."""
        if self._validate_args:
            self._validate_sample(value)
        return log(self.rate) - self.rate * value

    def cdf(self, value):
        """1 - e^{-rate·x}."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - exp(-self.rate * value)

    def icdf(self, value):
        """-log(1 - p) / rate."""
        return -log1p(-value) / self.rate

    def entropy(self):
        """1 - log rate."""
        return 1.0 - log(self.rate)

    @property
    def _natural_params(self):
        # θ = -rate
        return (-self.rate,)

    def _log_normalizer(self, x):
        # F(θ) = -log(-θ)
        return -log(-x)
