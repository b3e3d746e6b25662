"""MixtureSameFamily (torch.distributions.MixtureSameFamily): a mixture whose K components are one
batched distribution (the rightmost batch dim indexes the component), weighted by a Categorical.
log p(x) = logsumexp_k(log w_k + log p_k(x)). Tests: tests/test_distributions.py."""
from .._composed import logsumexp
from .._core import log_softmax
from ..autograd import no_grad
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Σ_k w_k p_k(x): mixture_distribution a Categorical over K (its batch_shape broadcasting with
    the components'), component_distribution with batch_shape (..., K)."""
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of seqlab.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "seqlab.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mdbs), reversed(cdbs)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                                 f"`component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The mixture with both distributions expanded to batch_shape (+ (K,) for the components)."""
        batch_shape = tuple(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        return new._finish_expand(self, batch_shape, new._component_distribution.event_shape)

    @constraints.dependent_property
    def support(self):
        """The components' support."""
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The Categorical over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The batched components."""
        return self._component_distribution

    @property
    def mean(self):
        """Σ_k w_k mean_k."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        """Σ_k w_k var_k + Σ_k w_k (mean_k - mean)² (the law of total variance)."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        within = (probs * self.component_distribution.variance).sum(-1 - self._event_ndims)
        between = (probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)).sum(
            -1 - self._event_ndims)
        return within + between

    def cdf(self, x):
        """Σ_k w_k cdf_k(x)."""
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        """logsumexp_k(log p_k(x) + log w_k)."""
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))  # (S, B, K)
        log_mix_prob = log_softmax(self.mixture_distribution.logits, -1)  # (B, K)
        return logsumexp(log_prob_x + log_mix_prob, -1)

    def sample(self, sample_shape=()):
        """Draw a component index per sample, a sample of every component, and keep the drawn one.
        (A mixture batch_shape smaller than the components' broadcasts; torch's gather refuses it.)"""
        with no_grad():
            sample_shape = tuple(sample_shape)
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = self.event_shape
            mix = self.mixture_distribution.sample(sample_shape)  # S + B', B' broadcasting to B
            mix_batch = tuple(mix.shape[len(sample_shape):])
            mix = mix.reshape(sample_shape + (1,) * (len(self.batch_shape) - len(mix_batch)) + mix_batch)
            comp_samples = self.component_distribution.sample(sample_shape)  # S + B + (K,) + E
            index = mix.reshape(tuple(mix.shape) + (1,) * (len(es) + 1))
            index = index.expand(sample_shape + self.batch_shape + (1,) + es)
            return comp_samples.gather(gather_dim, index).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        """The mixture's probs (B', K) reshaped to broadcast against the components' (B, K, E)."""
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
