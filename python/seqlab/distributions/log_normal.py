"""LogNormal (torch.distributions.LogNormal): e^X for X ~ N(loc, scale²). torch builds it as a
Normal under an exp transform; here base_dist is that Normal and log_prob subtracts log x, the
exp's log-Jacobian. Tests: tests/test_distributions.py."""
from .._core import exp, expm1, log
from ..autograd import no_grad
from . import constraints
from .distribution import Distribution
from .normal import Normal

__all__ = ["LogNormal"]


class LogNormal(Distribution):
    """e^N(loc, scale²); loc and scale are tensors or numbers, broadcast together."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with loc and scale expanded to batch_shape."""
        new = self._get_checked_instance(LogNormal, _instance)
        batch_shape = tuple(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape)
        return new._finish_expand(self, batch_shape)

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

    def rsample(self, sample_shape=()):
        """e^x, x a Normal rsample."""
        return exp(self.base_dist.rsample(sample_shape))

    def sample(self, sample_shape=()):
        """rsample outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def log_prob(self, value):
        """The Normal's log density at log x, minus log x."""
        if self._validate_args:
            self._validate_sample(value)
        y = log(value)
        return self.base_dist.log_prob(y) - y

    def cdf(self, value):
        """Φ((log x - loc) / scale)."""
        if self._validate_args:
            self._validate_sample(value)
        return self.base_dist.cdf(log(value))

    def icdf(self, value):
        """e^{the Normal's icdf}."""
        return exp(self.base_dist.icdf(value))

    def entropy(self):
        """The Normal's entropy + loc."""
        return self.base_dist.entropy() + self.loc
