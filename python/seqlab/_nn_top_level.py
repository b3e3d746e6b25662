"""torch's top-level forms of nn.functional's functions (torch.dropout, torch.layer_norm, torch.kl_div,
torch.max_pool1d...), with the argument names, order and defaults of torch's own (ATen's) signatures,
which differ from F's: train= not training=, embedding(weight, indices), batch_norm's nine required
arguments, and reduction as an int (0 none, 1 mean, 2 sum; the losses default to 0 in torch 2.13).
Each calls seqlab.nn.functional, or for the recurrent functions (torch.lstm, torch.gru_cell, ...)
the fused recurrent op nn.LSTM and friends call. Tests: tests/test_torch_compositions.py."""
import operator
import warnings

from . import _core
from ._math import _in_place
from .nn import functional as F

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(value, fn):
    """torch's int reduction as F's name, with torch's TypeError for a string."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{fn}(): argument 'reduction' must be int, not {type(value).__name__}")
    if value not in _REDUCTIONS:
        raise ValueError(f"{value} is not a valid value for reduction")
    return _REDUCTIONS[value]


# ------------------------------------------------------------------ same signature as F
conv1d = F.conv1d
conv_tbc = F.conv_tbc
conv2d = F.conv2d
rms_norm = F.rms_norm
bilinear = F.bilinear
prelu = F.prelu
cosine_similarity = F.cosine_similarity
pdist = F.pdist
adaptive_avg_pool1d = F.adaptive_avg_pool1d


def pairwise_distance(x1, x2, p=2, eps=1e-06, keepdim=False):
    """F.pairwise_distance (torch.pairwise_distance)."""
    return F.pairwise_distance(x1, x2, p, eps, keepdim)


# ------------------------------------------------------------------ normalisation and embedding
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """F.batch_norm with torch.batch_norm's nine required arguments, in its order (cudnn_enabled
    is ignored: seqlab has no cuDNN)."""
    del cudnn_enabled
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """F.layer_norm (torch.layer_norm; cudnn_enable is ignored)."""
    del cudnn_enable
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """The rows of weight at indices (torch.embedding: weight first, padding_idx=-1 for none);
    the row at padding_idx gets no gradient."""
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: seqlab has no scale_grad_by_freq or sparse gradients")
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx)


# ------------------------------------------------------------------ dropout family
def _check_p(p):
    """torch's top-level dropouts refuse p outside [0, 1] with a RuntimeError (F's with ValueError)."""
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p, train):
    """F.dropout(input, p, training=train) (torch.dropout: p and train are required)."""
    _check_p(p)
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    """F.alpha_dropout(input, p, training=train) (torch.alpha_dropout)."""
    _check_p(p)
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input, p, train):
    """F.feature_alpha_dropout(input, p, training=train) (torch.feature_alpha_dropout)."""
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train)


def feature_dropout(input, p, train):
    """Dropout of whole channels (torch.feature_dropout): in training each (batch, channel) slice
    is zeroed with probability p and the rest scaled by 1 / (1 - p)."""
    _check_p(p)
    return _core.feature_dropout(input, p, train)  # F.dropout1d/2d's op (shrink.cpp)


def celu(input, alpha=1.0):
    """F.celu (torch.celu)."""
    return F.celu(input, alpha)


def selu(input):
    """F.selu (torch.selu)."""
    return F.selu(input)


def threshold(input, threshold, value):
    """value where input <= threshold, else input (torch.threshold)."""
    return F.threshold(input, threshold, value)


def _forms(fn, name):
    """torch.name_(input, ...): fn written into input (through _math._in_place's checks)."""
    method = _in_place(fn, name)
    method.__doc__ = f"In place: input = {fn.__name__}(input, ...), written into input (torch.{name})."
    return method


dropout_ = _forms(dropout, "dropout_")
alpha_dropout_ = _forms(alpha_dropout, "alpha_dropout_")
feature_dropout_ = _forms(feature_dropout, "feature_dropout_")
feature_alpha_dropout_ = _forms(feature_alpha_dropout, "feature_alpha_dropout_")
celu_ = _forms(celu, "celu_")
selu_ = _forms(selu, "selu_")
threshold_ = _forms(threshold, "threshold_")


# ------------------------------------------------------------------ losses (reduction is an int)
def kl_div(input, target, reduction=0, *, log_target=False):
    """F.kl_div with torch.kl_div's int reduction (0 none, 1 mean over all elements, 2 sum; without
    F's warning about 'mean', which torch's top-level form does not give)."""
    name = _reduction(reduction, "kl_div")
    pointwise = F.kl_div(input, target, reduction="none", log_target=log_target)
    return pointwise if name == "none" else pointwise.mean() if name == "mean" else pointwise.sum()


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """F.binary_cross_entropy_with_logits with torch's order (pos_weight before reduction, an int)."""
    name = _reduction(reduction, "binary_cross_entropy_with_logits")
    return F.binary_cross_entropy_with_logits(input, target, weight, name, pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.cosine_embedding_loss with an int reduction (torch.cosine_embedding_loss)."""
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction, "cosine_embedding_loss"))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """F.hinge_embedding_loss with an int reduction (torch.hinge_embedding_loss)."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction, "hinge_embedding_loss"))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.margin_ranking_loss with an int reduction (torch.margin_ranking_loss)."""
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction(reduction, "margin_ranking_loss"))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0):
    """F.triplet_margin_loss with an int reduction (torch.triplet_margin_loss)."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction, "triplet_margin_loss"))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """F.poisson_nll_loss with torch.poisson_nll_loss's six required arguments (reduction an int)."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction, "poisson_nll_loss"))


# ------------------------------------------------------------------ padding and pooling
def constant_pad_nd(input, pad, value=0):
    """F.pad(input, pad, "constant", value) (torch.constant_pad_nd)."""
    return F.pad(input, list(pad), "constant", value)


def _stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    """F.avg_pool1d (torch.avg_pool1d: an empty stride means the kernel size)."""
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """F.max_pool1d (torch.max_pool1d)."""
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """F.max_pool2d (torch.max_pool2d)."""
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """(values, indices) of max_pool1d (torch.max_pool1d_with_indices)."""
    return F.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """(values, indices) of F.adaptive_max_pool1d (torch.adaptive_max_pool1d returns both)."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def frobenius_norm(input, dim, keepdim=False):
    """sqrt(sum(input², dim)) (torch.frobenius_norm, deprecated there for linalg.vector_norm, with
    its UserWarning)."""
    warnings.warn("frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in "
                  "a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    dims = [operator.index(d) for d in dim] if isinstance(dim, (list, tuple)) else [operator.index(dim)]
    return input.norm(2, dims, keepdim)


__all__ = ["conv1d", "conv2d", "rms_norm", "bilinear", "prelu", "cosine_similarity", "pdist", "adaptive_avg_pool1d",
           "pairwise_distance", "batch_norm", "layer_norm", "embedding", "dropout", "alpha_dropout",
           "feature_alpha_dropout", "feature_dropout", "celu", "selu", "threshold", "dropout_", "alpha_dropout_",
           "feature_dropout_", "feature_alpha_dropout_", "celu_", "selu_", "threshold_", "kl_div",
           "binary_cross_entropy_with_logits", "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "triplet_margin_loss", "poisson_nll_loss", "constant_pad_nd", "avg_pool1d", "max_pool1d", "max_pool2d",
           "max_pool1d_with_indices", "adaptive_max_pool1d", "frobenius_norm", "lstm", "gru", "rnn_tanh", "rnn_relu",
           "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "convolution", "conv_tbc", "norm_except_dim",
           "embedding_renorm_"]


# ------------------------------------------------------------------ ATen's recurrent functions
# What nn.LSTM / GRU / RNN call (torch's _VF.lstm ...): params is the flat list of weights in
# nn.LSTM's _flat_weights order (per layer and direction w_ih, w_hh, then b_ih, b_hh when
# has_biases, then w_hr for an LSTM with projections). Two overloads each, told apart as ATen's
# parser does by the argument types:
#   input form  (input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
#   packed form (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional),
# the packed form on a PackedSequence's data with hx in its sorted order. hx is [h_0, c_0] for lstm.
def _recurrent(mode, fn, args):
    packed = (len(args) > 2 and isinstance(args[1], _core.Tensor)
              and not (mode != "LSTM" and isinstance(args[2], (list, tuple))))
    if len(args) != 9:
        raise TypeError(f"{fn}() takes 9 positional arguments ({'data, batch_sizes, hx, params' if packed else 'input, hx, params'}, "
                        f"has_biases, num_layers, dropout, train, bidirectional{'' if packed else ', batch_first'}) "
                        f"but {len(args)} were given")
    if packed:
        data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
    else:
        data, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
    if mode == "LSTM":
        if not isinstance(hx, (list, tuple)) or len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        h0, c0 = hx
    else:
        h0, c0 = hx, None
    params = list(params)
    per = (4 if has_biases else 2)
    directions = 2 if bidirectional else 1
    proj_size = 0
    if mode == "LSTM" and len(params) == (per + 1) * num_layers * directions:
        proj_size = params[per].shape[0]   # w_hr_l0: (proj_size, hidden_size)
    if packed:
        out, h_n, c_n = _core.rnn_packed(mode, data, batch_sizes, None, None, h0, c0, params, has_biases, num_layers,
                                         dropout, train, bidirectional, proj_size)
    else:
        out, h_n, c_n = _core.rnn(mode, data, h0, c0, params, has_biases, num_layers, dropout, train, bidirectional,
                                  batch_first, proj_size)
    return (out, h_n, c_n) if mode == "LSTM" else (out, h_n)


def lstm(*args):
    """torch.lstm: (output, h_n, c_n) of a multi-layer LSTM over a sequence, as nn.LSTM computes it."""
    return _recurrent("LSTM", "lstm", args)


def gru(*args):
    """torch.gru: (output, h_n) of a multi-layer GRU over a sequence, as nn.GRU computes it."""
    return _recurrent("GRU", "gru", args)


def rnn_tanh(*args):
    """torch.rnn_tanh: (output, h_n) of a multi-layer Elman RNN with tanh, as nn.RNN computes it."""
    return _recurrent("RNN_TANH", "rnn_tanh", args)


def rnn_relu(*args):
    """torch.rnn_relu: (output, h_n) of a multi-layer Elman RNN with ReLU, as nn.RNN computes it."""
    return _recurrent("RNN_RELU", "rnn_relu", args)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.lstm_cell: one LSTM step, hx = [h, c] -> (h', c'), as nn.LSTMCell computes it."""
    if not isinstance(hx, (list, tuple)) or len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return tuple(_core.lstm_cell(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh))


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.gru_cell: one GRU step, as nn.GRUCell computes it."""
    return _core.gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.rnn_tanh_cell: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh), as nn.RNNCell computes it."""
    return _core.rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """torch.rnn_relu_cell: h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh), as nn.RNNCell(nonlinearity='relu')."""
    return _core.rnn_relu_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


# ------------------------------------------------------------------ ATen's convolution entry points
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """torch.convolution: the one entry point every convolution module reaches, picked by weight's
    dims (3: 1-D, 4: 2-D) and `transposed`; all arguments required, as ATen's."""
    nd = weight.dim() - 2
    if nd not in (1, 2):
        raise NotImplementedError(f"convolution: seqlab has 1-D and 2-D convolutions (a weight of 3 or 4 dims), "
                                  f"got a weight of {weight.dim()} dims (3-D convolutions are out of scope)")
    if transposed:
        fn = F.conv_transpose1d if nd == 1 else F.conv_transpose2d
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = F.conv1d if nd == 1 else F.conv2d
    return fn(input, weight, bias, stride, padding, dilation, groups)


def norm_except_dim(v, pow=2, dim=0):
    """torch.norm_except_dim (weight_norm's g): the p-norm of v over every dim but `dim`, kept as
    size-1 dims; dim=-1 is the norm of all of v (a 0-dim tensor), as torch's."""
    if dim == -1:
        return v.norm(pow)
    if v.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = dim + v.dim() if dim < 0 else dim
    others = [k for k in range(v.dim()) if k != d]
    return v.norm(pow, dim=others, keepdim=True) if others else v.abs()


def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_: the rows of input (an embedding table) that indices name and whose
    norm_type-norm exceeds max_norm, scaled in place to max_norm (by max_norm / (norm + 1e-7)), without
    history, as F.embedding(max_norm=) does; returns input."""
    import numpy as np
    rows = np.unique(np.asarray(indices.detach().reshape(-1).numpy(), dtype=np.int64))
    F._renorm_rows(input, rows, max_norm, norm_type)
    return input
