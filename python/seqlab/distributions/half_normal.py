"""HalfNormal (torch.distributions.HalfNormal): |X| for X ~ N(0, scale²), a Normal under AbsTransform
(sampling from TransformedDistribution; the density, cdf and icdf written out, as AbsTransform is
not injective). Tests: tests/test_distributions.py."""
import math

from .._core import where
from .._tensor import zeros_like
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """|N(0, scale²)|; scale is a tensor or a number."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with scale expanded to batch_shape."""
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The Normal's scale."""
        return self.base_dist.scale

    @property
    def mean(self):
        """scale √(2/π)."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        """0."""
        return zeros_like(self.scale)

    @property
    def variance(self):
        """scale² (1 - 2/π)."""
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        """log 2 + the Normal's log density for x >= 0, -inf below."""
        if self._validate_args:
            self._validate_sample(value)
        return where(value >= 0, self.base_dist.log_prob(value) + math.log(2), -math.inf)

    def cdf(self, value):
        """2 Φ(x / scale) - 1."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The Normal's icdf at (p + 1) / 2."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The Normal's entropy - log 2."""
        return self.base_dist.entropy() - math.log(2)
