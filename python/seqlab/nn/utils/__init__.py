"""torch.nn.utils: gradient clipping (both run in C++ over all parameters at once) and, in
rnn.py, the variable-length batch utilities (PackedSequence, pack_padded_sequence, ...); and
seqlab's probe of ||∂L/∂h_t|| through time in recurrent layers (nn/hidden_grads.py); skip_init
(init.py)."""
from ... import _core
from . import rnn  # noqa: F401  (seqlab.nn.utils.rnn, as torch.nn.utils.rnn)
from .init import skip_init  # noqa: F401
from ..hidden_grads import hidden_grad_norms, record_hidden_grad_norms  # noqa: F401


def _params(parameters):
    return [parameters] if isinstance(parameters, _core.Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients so that their joint norm is at most max_norm; returns the norm before."""
    return _core.optim.clip_grad_norm_(_params(parameters), float(max_norm), float(norm_type), error_if_nonfinite)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to [-clip_value, clip_value]."""
    _core.optim.clip_grad_value_(_params(parameters), float(clip_value))
