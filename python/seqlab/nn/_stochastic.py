"""seqlab.nn.functional's stochastic functions beside dropout and channel dropout (dropout1d/2d are
functional.py's): alpha dropout and its channel form (Klambauer et al. 2017, with SELU), each one C++
functional (cpp/src/ops/random.cpp: torch.alpha_dropout, feature_alpha_dropout, shared with the C++
twins), and the Gumbel-softmax (Jang et al. 2017; Maddison et al. 2017), composed.
torch.nn.functional's signatures, checks and warnings. Tests: tests/test_nn_modules_extra.py."""
import warnings

import numpy as np

from .. import _core


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _inplace(input, out, inplace):
    """out, or with inplace out written into input (which is returned, as torch's in-place forms)."""
    if not inplace or out is input:
        return out
    return input.copy_(out)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout (Klambauer et al. 2017; F.alpha_dropout): each element is set to SELU's negative
    saturation with probability p, then all are scaled and shifted so that zero-mean unit-variance
    inputs keep their mean and variance. The identity unless training."""
    _check_p(p)
    return _inplace(input, _core.alpha_dropout(input, p, training), inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels of (N, C, ...) input (F.feature_alpha_dropout); the identity unless
    training."""
    _check_p(p)
    return _inplace(input, _core.feature_alpha_dropout(input, p, training), inplace)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax (concrete) distribution (Jang et al. 2017; F.gumbel_softmax):
        y = softmax((logits + g) / tau) along dim,   g = -log(E), E ~ Exp(1) (standard Gumbel noise)
    hard=True returns the one-hot of argmax y with the gradient of y (straight-through:
    y_hard - y.detach() + y). eps is unused (deprecated in torch too)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_core._empty(list(logits.shape), logits.dtype).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    d = dim % logits.dim() if logits.dim() else 0
    index = y_soft.argmax(d, keepdim=True)
    positions = np.arange(logits.shape[d] if logits.dim() else 1).reshape(
        [-1 if i == d else 1 for i in range(max(logits.dim(), 1))])
    y_hard = (_core.from_numpy(positions) == index).to(logits.dtype)
    return y_hard - y_soft.detach() + y_soft
