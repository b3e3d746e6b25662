"""LogitRelaxedBernoulli and RelaxedBernoulli (torch.distributions.relaxed_bernoulli): the binary
Concrete / Gumbel-softmax relaxation of Bernoulli at a temperature (Maddison et al. 2017, Jang et
al. 2017). RelaxedBernoulli is a LogitRelaxedBernoulli under SigmoidTransform.
Tests: tests/test_distributions.py."""
import math

from .._core import Tensor, log, log1p
from .._tensor import rand
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _log(x):
    """log of a tensor or a number (a temperature may be either)."""
    return log(x) if isinstance(x, Tensor) else math.log(x)


class LogitRelaxedBernoulli(Distribution):
    """The logit of a relaxed Bernoulli sample: y = (logit(u) + logits) / temperature, u ~ U(0, 1)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(tuple(param.shape) if isinstance(given, Tensor) else (), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameter expanded to batch_shape (same temperature)."""
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = tuple(batch_shape)
        new.temperature = self.temperature
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        return new._finish_expand(self, batch_shape)

    @lazy_property
    def logits(self):
        """log p - log(1 - p)."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """sigmoid(logits)."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return tuple(self._param.shape)

    def rsample(self, sample_shape=()):
        """y = (log u - log(1-u) + log p - log(1-p)) / temperature, u and p clamped to [eps, 1-eps]."""
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(rand(shape, dtype=probs.dtype))
        return (log(u) - log1p(-u) + log(probs) - log1p(-probs)) / self.temperature

    def log_prob(self, value):
        """log τ + d - 2 log(1 + e^d), d = logits - τ·y (the logistic density of τ·y around logits)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return _log(self.temperature) + diff - 2 * log1p(diff.exp())


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed Bernoulli sample in (0, 1): sigmoid of a LogitRelaxedBernoulli(temperature, probs,
    logits) sample; lower temperatures give values nearer 0 and 1."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameter expanded to batch_shape."""
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The Bernoulli's logits."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The Bernoulli's probs."""
        return self.base_dist.probs
