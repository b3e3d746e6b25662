"""Geometric (torch.distributions.Geometric): the number of failures before the first success of
Bernoulli(probs) trials, P(X = k) = (1 - p)^k p, k = 0, 1, ...; from probs or logits.
Tests: tests/test_distributions.py."""
from .._core import Tensor, log, log1p, where
from .._shape import masked_select
from .._tensor import empty, zeros_like
from .._type_info import finfo
from ..autograd import no_grad
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Failures before the first success, success probability probs = sigmoid(logits) (exactly one
    given; probs must be > 0)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        super().__init__(tuple(param.shape) if isinstance(given, Tensor) else (), validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not bool(valid.all()):
                bad = masked_select(self.probs.detach(), ~valid)
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                                 f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                                 f"invalid values:\n{bad}")

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameter expanded to batch_shape."""
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = tuple(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
        return new._finish_expand(self, batch_shape)

    @property
    def mean(self):
        """1/p - 1."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        """0."""
        return zeros_like(self.probs)

    @property
    def variance(self):
        """(1/p - 1) / p."""
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        """log p - log(1 - p), p clamped to [eps, 1 - eps]."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """sigmoid(logits)."""
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=()):
        """floor(log u / log(1 - p)), u ~ U(tiny, 1) (the inverse cdf), in probs' dtype."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            u = empty(shape, dtype=self.probs.dtype).uniform_(finfo(self.probs.dtype).tiny, 1)
            return (log(u) / log1p(-self.probs)).floor()

    def log_prob(self, value):
        """k log(1 - p) + log p (0·log 0 taken as 0 at p = 1, k = 0)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = where((probs == 1) & (value == 0), 0.0, probs)
        return value * log1p(-probs) + log(self.probs)

    def entropy(self):
        """H(Bernoulli(p)) / p."""
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
