"""Bernoulli (torch.distributions.Bernoulli): 1 with probability probs, 0 otherwise; from probs or
logits. log_prob and entropy are -BCE-with-logits, as torch's. Tests: tests/test_distributions.py."""
import math

from .._core import Tensor, bernoulli, exp, log1p, where
from .._tensor import arange
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """P(X = 1) = probs = sigmoid(logits), P(X = 0) = 1 - probs. Exactly one of probs, logits
    (tensors or numbers); batch_shape is its shape."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        batch_shape = tuple(param.shape) if isinstance(given, Tensor) else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameter expanded to batch_shape."""
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = tuple(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        return new._finish_expand(self, batch_shape)

    @property
    def mean(self):
        """probs."""
        return self.probs

    @property
    def mode(self):
        """1 where probs > 1/2, 0 where below, NaN at exactly 1/2 (as torch)."""
        probs = self.probs
        return where(probs == 0.5, math.nan, (probs >= 0.5).to(probs.dtype))

    @property
    def variance(self):
        """p (1 - p)."""
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        """log p - log(1 - p), p clamped to [eps, 1 - eps]."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """sigmoid(logits)."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return tuple(self._param.shape)

    def sample(self, sample_shape=()):
        """0/1 values of the parameter's dtype, shape sample_shape + batch_shape, outside the graph."""
        shape = self._extended_shape(sample_shape)
        return bernoulli(self.probs.detach().expand(shape).contiguous())

    def log_prob(self, value):
        """log p(value) = value·logits - log(1 + e^logits) = -BCEWithLogits(logits, value)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        """H = -p log p - (1-p) log(1-p) = BCEWithLogits(logits, p)."""
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        """[0, 1] along dim 0, then batch dims: (2,) + batch_shape (expand=False: ones)."""
        values = arange(2, dtype=self._param.dtype).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        # F(θ) = log(1 + e^θ)
        return log1p(exp(x))

