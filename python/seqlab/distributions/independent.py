"""Independent (torch.distributions.Independent): a distribution with its rightmost
reinterpreted_batch_ndims batch dims read as event dims, so log_prob and entropy sum over them
(a diagonal Normal over vectors: Independent(Normal(loc, scale), 1)). Tests: tests/test_distributions.py."""
from . import constraints
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """base_distribution with reinterpreted_batch_ndims of its batch dims moved into the event."""
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n_batch = len(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > n_batch:
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {reinterpreted_batch_ndims} vs {n_batch}")
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """The distribution with the base's batch dims expanded to batch_shape (+ the reinterpreted dims)."""
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = tuple(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape + self.event_shape[:self.reinterpreted_batch_ndims])
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        return new._finish_expand(self, batch_shape, self.event_shape)

    @property
    def has_rsample(self):
        """Whether the base distribution has rsample."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        """The base's, when no dim is reinterpreted."""
        return False if self.reinterpreted_batch_ndims > 0 else self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        """The base's support, checked over whole events."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        """The base's mean."""
        return self.base_dist.mean

    @property
    def mode(self):
        """The base's mode."""
        return self.base_dist.mode

    @property
    def variance(self):
        """The base's variance."""
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        """The base's sample."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        """The base's rsample."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """The base's log_prob summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """The base's entropy summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        """The base's enumerate_support (NotImplementedError over a cartesian product, as torch)."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
