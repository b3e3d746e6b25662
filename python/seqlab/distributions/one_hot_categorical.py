"""OneHotCategorical and OneHotCategoricalStraightThrough (torch.distributions.one_hot_categorical):
a Categorical whose samples are one-hot vectors of length K (event_shape (K,)); the straight-through
variant's rsample passes gradients to probs (Bengio et al. 2013). Tests: tests/test_distributions.py."""
from .._tensor import eye
from ..nn.functional import one_hot
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """Categorical(probs, logits) with each class k written as the one-hot vector e_k."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameters expanded to batch_shape + (K,)."""
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = tuple(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        return new._finish_expand(self, batch_shape, self.event_shape)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """The class probabilities."""
        return self._categorical.probs

    @property
    def logits(self):
        """The normalised log probabilities."""
        return self._categorical.logits

    @property
    def mean(self):
        """probs."""
        return self._categorical.probs

    @property
    def mode(self):
        """The one-hot vector of the most probable class (probs' dtype)."""
        probs = self._categorical.probs
        return one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        """p (1 - p) per entry."""
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return self._categorical.param_shape

    def sample(self, sample_shape=()):
        """One-hot rows of probs' dtype, shape sample_shape + batch_shape + (K,)."""
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, self._categorical._num_events).to(self._categorical.probs.dtype)

    def log_prob(self, value):
        """The Categorical's log_prob of the class each one-hot row marks."""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        """The Categorical's entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The K one-hot vectors along dim 0: (K,) + batch_shape + (K,) (expand=False: ones)."""
        n = self.event_shape[0]
        values = eye(n, dtype=self._param.dtype).reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + self.batch_shape + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample is the one-hot sample plus probs - probs.detach(): the value
    is the sample, the gradient is the gradient of probs (straight-through estimator)."""
    has_rsample = True

    def rsample(self, sample_shape=()):
        """sample + (probs - probs.detach())."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
