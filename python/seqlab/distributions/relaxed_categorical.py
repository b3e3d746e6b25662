"""ExpRelaxedCategorical and RelaxedOneHotCategorical (torch.distributions.relaxed_categorical):
the Concrete / Gumbel-softmax relaxation of a one-hot Categorical at a temperature (Maddison et al.
2017, Jang et al. 2017). RelaxedOneHotCategorical is an ExpRelaxedCategorical under ExpTransform.
Tests: tests/test_distributions.py."""
import math

from .._composed import logsumexp
from .._core import Tensor, log
from .._tensor import rand
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a relaxed one-hot sample: y = log_softmax((logits + g) / temperature), g Gumbel
    noise; event_shape (K,)."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameters expanded to batch_shape + (K,) (same temperature)."""
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = tuple(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        return new._finish_expand(self, batch_shape, self.event_shape)

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return self._categorical.param_shape

    @property
    def logits(self):
        """The Categorical's normalised logits."""
        return self._categorical.logits

    @property
    def probs(self):
        """The Categorical's probs."""
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        """s = (logits - log(-log u)) / τ, u ~ U(0, 1) clamped to [eps, 1-eps]; y = s - logsumexp(s)."""
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(rand(shape, dtype=self.logits.dtype))
        gumbels = -log(-log(u))
        scores = (self.logits + gumbels) / self.temperature
        return scores - logsumexp(scores, -1, keepdim=True)

    def log_prob(self, value):
        """log Γ(K) + (K-1) log τ + Σ_k (s_k - logsumexp(s)), s = logits - τ·y (Maddison et al. 2017, eq. 5
        in log space)."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        temperature = self.temperature
        log_temperature = log(temperature) if isinstance(temperature, Tensor) else math.log(temperature)
        log_scale = math.lgamma(k) + (k - 1) * log_temperature
        score = logits - value * temperature
        score = (score - logsumexp(score, -1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed one-hot sample on the simplex: exp of an ExpRelaxedCategorical(temperature, probs,
    logits) sample; lower temperatures give rows nearer one-hot."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameters expanded to batch_shape + (K,)."""
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The Categorical's normalised logits."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The Categorical's probs."""
        return self.base_dist.probs
