"""Categorical (torch.distributions.Categorical): one of K classes, from probs (normalised by their
sum) or logits (normalised by logsumexp) in the last dim. Samples by seqlab.multinomial.
Tests: tests/test_distributions.py."""
import math

from .._composed import logsumexp
from .._core import multinomial
from .._tensor import arange, full, int64
from .._type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """P(X = k) = probs[..., k], k in 0 .. K-1; batch_shape = param.shape[:-1].

    probs: nonnegative weights, divided by their sum over the last dim; logits: unnormalised log
    probabilities, logits - logsumexp(logits). Exactly one of the two."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            # log p_k = l_k - log Σ_j e^{l_j}
            self.logits = logits - logsumexp(logits, -1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = tuple(self._param.shape[:-1])
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameters expanded to batch_shape + (K,)."""
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = tuple(batch_shape)
        param_shape = batch_shape + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        return new._finish_expand(self, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The integers 0 .. K-1."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """Normalised log probabilities: log(clamp(probs))."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """Probabilities: softmax(logits)."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """The shape of the parameter given: batch_shape + (K,)."""
        return tuple(self._param.shape)

    @property
    def mean(self):
        """NaN (the classes are labels, not numbers), as torch."""
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        """The most probable class (int64)."""
        return self.probs.argmax(-1)

    @property
    def variance(self):
        """NaN, as torch."""
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        """int64 classes of shape sample_shape + batch_shape, drawn with replacement by multinomial."""
        sample_shape = tuple(sample_shape)
        n = math.prod(sample_shape)
        rows = self.probs.detach().reshape(-1, self._num_events)  # (B, K)
        if n == 0 or rows.shape[0] == 0:
            return full(self._extended_shape(sample_shape), 0, dtype=int64)
        drawn = multinomial(rows, n, True)  # (B, n)
        return drawn.t().reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        """logits[..., value]: value (class indices) broadcast against batch_shape."""
        if self._validate_args:
            self._validate_sample(value)
        index = value.long().unsqueeze(-1)
        shape = _broadcast_shape(tuple(index.shape[:-1]), tuple(self.logits.shape[:-1]))
        logits = self.logits.expand(shape + (self._num_events,))
        index = index.expand(shape + (1,))
        return logits.gather(-1, index).squeeze(-1)

    def entropy(self):
        """H = -Σ_k p_k log p_k (log p_k clamped to the dtype's lowest finite value, so 0·log 0 = 0)."""
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """arange(K) along dim 0, then batch dims: (K,) + batch_shape (expand=False: ones)."""
        values = arange(self._num_events, dtype=int64).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values


def _broadcast_shape(a, b):
    """The broadcast of two shapes (both known to broadcast, or torch's error from expand)."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    return tuple(y if x == 1 else x for x, y in zip(a, b))
