"""Distribution, the base of seqlab.distributions, with torch.distributions.Distribution's
interface: batch_shape, event_shape, sample/rsample, log_prob, entropy, mean, mode, variance,
cdf/icdf, expand, support/arg_constraints, validate_args with torch's ValueErrors, torch's repr.
Shapes are tuples (seqlab's Tensor.shape). Tests: tests/test_distributions.py."""
import warnings

from .._core import Tensor
from ..autograd import no_grad
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """A family of probability distributions, batched: parameters of shape batch_shape (+ more),
    samples of shape sample_shape + batch_shape + event_shape.

    validate_args: check the parameters against arg_constraints when made, and values against the
    support in log_prob/cdf (ValueError as torch's); None takes the default, True unless
    set_default_validate_args(False) or `python -O`."""
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for every distribution made without validate_args=."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self):
        """Every parameter present satisfies its constraint (dependent ones and lazy ones not
        yet computed are skipped)."""
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` "
                          "or initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=3)
        for name, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property):
                continue
            value = getattr(self, name)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                    f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid "
                    f"values:\n{value}")

    def expand(self, batch_shape, _instance=None):
        """A distribution with the parameters expanded (views) to batch_shape; no new checks."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one sample, without batching."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """{parameter name: Constraint} the parameters must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint the values lie in."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean, of shape batch_shape + event_shape."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode, of shape batch_shape + event_shape."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance, of shape batch_shape + event_shape."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation: sqrt(variance)."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A sample of shape sample_shape + batch_shape + event_shape, outside the graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterised sample (a differentiable function of the parameters and independent
        noise), of shape sample_shape + batch_shape + event_shape; only where has_rsample."""
        raise NotImplementedError

    def sample_n(self, n):
        """n samples (deprecated, as in torch: sample((n,)))."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample((n,))

    def log_prob(self, value):
        """log p(value) (density or mass), of shape broadcast(value.shape[:-len(event_shape)], batch_shape)."""
        raise NotImplementedError

    def cdf(self, value):
        """P(X <= value)."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of cdf: the x with P(X <= x) = value."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete distribution along dim 0: (cardinality,) + batch_shape +
        event_shape (expand=False: batch dims of size 1)."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, of shape batch_shape."""
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy)."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()):
        """sample_shape + batch_shape + event_shape."""
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _validate_sample(self, value):
        """value's rightmost dims match event_shape, the rest broadcasts with batch_shape, and every
        entry lies in the support: torch's ValueErrors otherwise."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape = tuple(value.shape)
        start = len(shape) - len(self._event_shape)
        if shape[start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {shape} vs {self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {shape} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=3)
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {shape}) to be within the support "
                f"({support!r}) of the distribution {self!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """The instance expand() fills: _instance, or a bare one of this class; a subclass with its own
        __init__ must bring its own expand()."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _finish_expand(self, source, batch_shape, event_shape=()):
        """The end of every expand(): this new instance takes the shapes, skips validation (its
        parameters are views of checked ones) and keeps source's validate_args."""
        Distribution.__init__(self, batch_shape, event_shape, validate_args=False)
        self._validate_args = source._validate_args
        return self

    def __repr__(self):
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                value = self.__dict__[name]
                shown.append(f"{name}: {value if value.numel() == 1 else tuple(value.shape)}")
        return f"{type(self).__name__}({', '.join(shown)})"
