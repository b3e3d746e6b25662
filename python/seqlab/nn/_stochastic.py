"""seqlab.nn.functional's stochastic functions beside dropout: channel dropout (dropout1d, dropout2d;
Tompson et al. 2015) and alpha dropout and its channel form (Klambauer et al. 2017, with SELU), each one
C++ functional (cpp/src/ops/random.cpp: torch.feature_dropout, alpha_dropout, feature_alpha_dropout,
shared with the C++ twins), and the Gumbel-softmax (Jang et al. 2017; Maddison et al. 2017), composed.
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


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, L) or (C, L) input: each channel is zeroed as a whole with probability p,
    the rest scaled by 1 / (1 - p) (F.dropout1d)."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.dim() == 3:
        out = _core.feature_dropout(input, p, training)
    else:  # unbatched (C, L): a batch of one
        out = _core.feature_dropout(input.unsqueeze(0), p, training).squeeze(0)
        if not training or p == 0:
            out = input
    return _inplace(input, out, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel dropout for (N, C, H, W) input: each channel zeroed with probability p, the rest scaled by
    1 / (1 - p) (F.dropout2d). A 3-D input is taken as (N, C, L), with torch's warning; other ranks warn
    and are taken as (N, C, ...)."""
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
                      "inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      "3D or 4D inputs).", stacklevel=2)
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _inplace(input, _core.feature_dropout(input, p, training), inplace)


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
