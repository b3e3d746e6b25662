"""LogNormal (torch.distributions.LogNormal): e^X for X ~ N(loc, scale²), a Normal under ExpTransform
(log_prob, cdf, icdf and sampling from TransformedDistribution). Tests: tests/test_distributions.py."""
from .._core import exp, expm1
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """e^N(loc, scale²); loc and scale are tensors or numbers, broadcast together."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with loc and scale expanded to batch_shape."""
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The Normal's loc (the mean of log x)."""
        return self.base_dist.loc

    @property
    def scale(self):
        """The Normal's scale."""
        return self.base_dist.scale

    @property
    def mean(self):
        """e^{loc + scale²/2}."""
        return exp(self.loc + self.scale.pow(2) / 2)

    @property
    def mode(self):
        """e^{loc - scale²}."""
        return exp(self.loc - self.scale.pow(2))

    @property
    def variance(self):
        """(e^{scale²} - 1) e^{2 loc + scale²}."""
        scale_sq = self.scale.pow(2)
        return expm1(scale_sq) * exp(2 * self.loc + scale_sq)

    def entropy(self):
        """The Normal's entropy + loc."""
        return self.base_dist.entropy() + self.loc
