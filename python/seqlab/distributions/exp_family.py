"""ExponentialFamily (torch.distributions.exp_family): the base of the distributions whose density
is p(x; θ) = exp(<t(x), θ> - F(θ) + k(x)); each gives its natural parameters θ and log-normaliser F.
Tests: tests/test_distributions.py."""
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family. Subclasses give `_natural_params` (the tuple θ),
    `_log_normalizer(*θ)` (F) and `_mean_carrier_measure` (E[k(x)]); kl_divergence between two of
    different families is torch's NotImplementedError."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError
