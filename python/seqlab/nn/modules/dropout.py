"""torch.nn.modules.dropout: Dropout, one call of the C++ F.dropout; Dropout1d, Dropout2d (whole
channels: F.dropout1d, F.dropout2d over the C++ feature_dropout); AlphaDropout, FeatureAlphaDropout (the
C++ F.alpha_dropout, F.feature_alpha_dropout: nn/_stochastic.py). Tests: tests/test_nn_layers.py,
tests/test_nn_modules_more.py, tests/test_nn_modules_extra.py."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "AlphaDropout", "FeatureAlphaDropout"]


class Dropout(Module):
    """In training mode, zeroes each element with probability p and scales the rest by
    1/(1-p); in eval mode, the identity. (inplace=True is accepted; the result is a new tensor.)"""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class _DropoutNd(Module):
    """p and inplace, checked and shown as torch's _DropoutNd (the base of the channel and alpha dropouts,
    which, as torch's, are not Dropout subclasses)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """In training mode, zeroes whole channels of (N, C, L) or (C, L) input with probability p and
    scales the others by 1/(1-p) (F.dropout1d); in eval mode, the identity."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """In training mode, zeroes whole (n, c) planes of (N, C, H, W) input with probability p and
    scales the others by 1/(1-p) (F.dropout2d, with torch's reading of 3-D input as (N, C, L))."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks (Klambauer et al. 2017; F.alpha_dropout): keeps zero mean and unit
    variance; the identity in eval mode."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels of (N, C, ...) input (F.feature_alpha_dropout); the identity in
    eval mode."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
