"""Laplace (torch.distributions.Laplace): density e^{-|x - loc| / scale} / (2 scale), with rsample
by the inverse cdf of a uniform draw, cdf and icdf. Tests: tests/test_distributions.py."""
from .._core import Tensor, expm1, log, log1p
from .._tensor import empty
from .._type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace(loc, scale); loc and scale are tensors or numbers, broadcast together."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        either = isinstance(loc, Tensor) or isinstance(scale, Tensor)
        super().__init__(tuple(self.loc.shape) if either else (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with loc and scale expanded to batch_shape."""
        new = self._get_checked_instance(Laplace, _instance)
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
    def variance(self):
        """2 scale²."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """√2 scale."""
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape=()):
        """x = loc - scale·sign(u)·log(1 - |u|), u ~ U(eps - 1, 1) (the inverse cdf; u never -1)."""
        shape = self._extended_shape(sample_shape)
        u = empty(shape, dtype=self.loc.dtype).uniform_(finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * log1p(-u.abs())

    def log_prob(self, value):
        """-log(2 scale) - |x - loc| / scale."""
        if self._validate_args:
            self._validate_sample(value)
        return -log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        """1/2 - sign(x - loc)·(e^{-|x - loc| / scale} - 1) / 2."""
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * expm1(-d.abs() / self.scale)

    def icdf(self, value):
        """loc - scale·sign(p - 1/2)·log(1 - 2|p - 1/2|)."""
        t = value - 0.5
        return self.loc - self.scale * t.sign() * log1p(-2 * t.abs())

    def entropy(self):
        """1 + log(2 scale)."""
        return 1 + log(2 * self.scale)
