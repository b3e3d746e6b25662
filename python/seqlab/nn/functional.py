"""seqlab.nn.functional: the layers' computations, activations and losses with PyTorch's
signatures. Each is one C++ functional (cpp/src/ops/), the same one the C++ modules call:
linear (linalg.cpp), layer_norm, rms_norm and batch_norm (norm.cpp), embedding (embedding.cpp),
bilinear (linalg.cpp), dropout (random.cpp), seq2seq_attention (seq2seq_attention.cpp), the
fused softmax, log_softmax and losses with hand-written backward (activation.cpp, loss.cpp; silu too),
scaled_dot_product_attention (attention.cpp, attention_fused.cpp) with attention_weights, the
weights it never materialises, and multi_head_attention_forward (multihead_attention.cpp,
torch's signature), the convolutions and pooling (conv.cpp, pool.cpp), pad (composed: one
index_select per padded dim), kl_div and glu (composed of elementwise ops), and the losses and
distances composed in _losses.py (l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy,
cosine_similarity, pairwise_distance, normalize, the margin, embedding and ranking losses, and
the Poisson and Gaussian negative log-likelihoods)."""
import warnings

import numpy as np

from .. import _core
from .._core import (  # noqa: F401
    tanh, sigmoid, gelu, cross_entropy, nll_loss, mse_loss, binary_cross_entropy_with_logits,
    layer_norm, rms_norm, embedding, batch_norm, bilinear, batch_norm_module_forward,
    scaled_dot_product_attention, attention_weights, multi_head_attention_forward,
)
from .._core import (  # noqa: F401  positional information (positional.cpp): seqlab.nn.positional's schemes
    positional_attention, positional_attention_math, positional_attention_weights, rotary_embedding,
    alibi_slopes, t5_relative_position_bucket, deberta_log_bucket_position, sinusoidal_encoding,
)
from .._core import seq2seq_attention as _seq2seq_attention
from .._core import (  # noqa: F401  convolutions and pooling (conv.cpp, pool.cpp)
    conv1d, conv2d, avg_pool1d, avg_pool2d, max_pool1d_with_indices, max_pool2d_with_indices,
)
from ._helpers import _legacy_reduction
from ._losses import (  # noqa: F401  losses and distances composed of elementwise ops (_losses.py)
    l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy, cosine_similarity, pairwise_distance, normalize,
    margin_ranking_loss, hinge_embedding_loss, soft_margin_loss, multilabel_soft_margin_loss, cosine_embedding_loss,
    triplet_margin_loss, poisson_nll_loss, gaussian_nll_loss, multi_margin_loss,
)
from .._through_float32 import through_float32


def silu(input, inplace=False):
    """x * sigmoid(x) (Swish-1; F.silu), one C++ op (activation.cpp); inplace writes the result
    into input (silu_, which autograd records as torch's)."""
    return _core.silu_(input) if inplace else _core.silu(input)


def relu(input, inplace=False):
    """max(x, 0) (F.relu), one C++ op (activation.cpp); inplace writes the result into input (relu_).
    seqlab.relu is the C++ op itself (torch.relu takes no inplace): code that recognises relu by
    identity (the Transformer's fast path, to_torch) accepts both."""
    return _core.relu_(input) if inplace else _core.relu(input)


def relu_(input):
    """In-place relu: input = max(input, 0); the gradient at 0 is 0, as torch's (F.relu_)."""
    return _core.relu_(input)


# torch.nn's other pointwise activations: one C++ op each with its backward (activation_pointwise.cpp);
# inplace=True calls the in-place form (elu_, ...), which writes into input as torch's does.
def elu(input, alpha=1.0, inplace=False):
    """ELU (Clevert et al. 2016): x for x > 0, alpha (e^x - 1) otherwise (F.elu)."""
    return _core.elu_(input, alpha) if inplace else _core.elu(input, alpha)


def elu_(input, alpha=1.0):
    """In-place elu: input = elu(input, alpha) (F.elu_)."""
    return _core.elu_(input, alpha)


def selu(input, inplace=False):
    """SELU (Klambauer et al. 2017): scale * elu(x, alpha), alpha = 1.6733, scale = 1.0507 (F.selu)."""
    return _core.selu_(input) if inplace else _core.selu(input)


def selu_(input):
    """In-place selu: input = selu(input) (F.selu_)."""
    return _core.selu_(input)


def celu(input, alpha=1.0, inplace=False):
    """CELU (Barron 2017): max(0, x) + min(0, alpha (e^(x/alpha) - 1)) (F.celu)."""
    return _core.celu_(input, alpha) if inplace else _core.celu(input, alpha)


def celu_(input, alpha=1.0):
    """In-place celu: input = celu(input, alpha) (F.celu_)."""
    return _core.celu_(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x for x > 0, negative_slope * x otherwise (F.leaky_relu)."""
    return _core.leaky_relu_(input, negative_slope) if inplace else _core.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place leaky_relu: input = leaky_relu(input, negative_slope) (F.leaky_relu_)."""
    return _core.leaky_relu_(input, negative_slope)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + e^(beta x)) / beta, and x itself where beta x > threshold (F.softplus)."""
    return _core.softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """min(max(x, min_val), max_val) (F.hardtanh); integer tensors keep their dtype. min_val > max_val
    is a ValueError (also with inplace; F.hardtanh_, as torch's, does not check)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _core.hardtanh_(input, min_val, max_val) if inplace else _core.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place hardtanh: input = hardtanh(input, min_val, max_val) (F.hardtanh_)."""
    return _core.hardtanh_(input, min_val, max_val)


def relu6(input, inplace=False):
    """min(max(x, 0), 6) = hardtanh(x, 0, 6) (F.relu6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def logsigmoid(input):
    """log(sigmoid(x)) = min(x, 0) - log(1 + e^-|x|) (F.logsigmoid)."""
    return _core.log_sigmoid(input)


def mish(input, inplace=False):
    """Mish (Misra 2019): x tanh(softplus(x)) (F.mish)."""
    return _core.mish_(input) if inplace else _core.mish(input)


@through_float32
def softsign(input):
    """x / (1 + |x|) (F.softsign)."""
    return _core.softsign(input)


def tanhshrink(input):
    """x - tanh(x) (F.tanhshrink)."""
    return _core.tanhshrink(input)


def hardsigmoid(input, inplace=False):
    """min(max(x + 3, 0), 6) / 6 (F.hardsigmoid)."""
    return _core.hardsigmoid_(input) if inplace else _core.hardsigmoid(input)


def hardswish(input, inplace=False):
    """Hardswish (Howard et al. 2019): x min(max(x + 3, 0), 6) / 6 (F.hardswish)."""
    return _core.hardswish_(input) if inplace else _core.hardswish(input)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, value elsewhere (F.threshold)."""
    return _core.threshold_(input, threshold, value) if inplace else _core.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """In-place threshold: input = threshold(input, threshold, value) (F.threshold_)."""
    return _core.threshold_(input, threshold, value)


def prelu(input, weight):
    """PReLU (He et al. 2015): x for x > 0, weight * x otherwise, weight one per channel (dim 1) or a
    single one for all (F.prelu)."""
    return _core.prelu(input, weight)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmin(x) = softmax(-x) along dim, after converting to dtype if given (F.softmin). Without dim:
    PyTorch's implicit dim and deprecation warning."""
    if dim is None:
        dim = _implicit_dim("softmin", input.dim())
    x = input if dtype is None else input.to(dtype)
    return _core.softmin(x, dim)


def _implicit_dim(name, ndim):
    """PyTorch's choice when dim is not given (deprecated, with its warning): dim 0 for 0-, 1- and
    3-dimensional input (unbatched; or (L, N, C) as old RNN code), else dim 1."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
                  "argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x) along dim, after converting to dtype
    if given (F.softmax). Without dim: PyTorch's implicit dim and deprecation warning."""
    if dim is None:
        dim = _implicit_dim("softmax", input.dim())
    x = input if dtype is None else input.to(dtype)
    return _core.softmax(x, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x_i - log sum_j exp(x_j) along dim, computed stably (F.log_softmax). Without dim: PyTorch's
    implicit dim and deprecation warning."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim())
    x = input if dtype is None else input.to(dtype)
    return _core.log_softmax(x, dim)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence of target from the model, input holding log-probabilities:
    target·(log target − input) pointwise (0 where target = 0), or exp(target)·(target − input)
    with log_target. reduction "batchmean" (the KL divergence: sum / batch size), "sum", "none",
    or "mean" (over every element, with PyTorch's warning that this is not the KL divergence).
    Where target is 0 the term is 0 (x log x -> 0); its gradient with respect to target has no
    value there (PyTorch's is NaN; here the product rule with 0·log 0 = 0 gives −input)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        pointwise = target.exp() * (target - input)
    else:  # xlogy(t, t): 0 at t = 0 (log of 1 there, so no 0·(−inf) reaches the gradient), NaN for t < 0
        safe = _core.where(target != 0, target, target.new_ones(()))
        pointwise = target * safe.log() - target * input
    if reduction == "none":
        return pointwise
    total = pointwise.sum()
    if reduction == "sum":
        return total
    if reduction == "batchmean":
        return total / input.shape[0] if input.dim() else total
    return total / pointwise.numel()


def glu(input, dim=-1):
    """The gated linear unit (Dauphin et al. 2017; F.glu): input split in halves a, b along dim,
    a ⊙ σ(b). One C++ functional (activation_pointwise.cpp), composed of chunk, sigmoid and a product."""
    return _core.glu(input, dim)


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, zero each element with probability p and scale the rest by 1 / (1 - p)
    (Srivastava et al. 2014; F.dropout); the input itself otherwise."""
    return _core.dropout(input, p, training)


def linear(input, weight, bias=None):
    """y = x W^T + b"""
    return _core._linear(input, weight, bias)


def one_hot(tensor, num_classes=-1):
    """(…) int64 class indices -> (…, num_classes) int64 one-hot rows, as torch's one_hot."""
    if tensor.dtype != _core.dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type int64 (Long).")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() else 0
    if tensor.numel() and (tensor.min().item() < 0 or tensor.max().item() >= num_classes):
        raise RuntimeError(f"one_hot: class values must be in [0, {num_classes}), got "
                           f"[{tensor.min().item()}, {tensor.max().item()}]")
    return _core._eye(num_classes, num_classes, _core.dtype.int64)[tensor]


def seq2seq_attention(query, keys, values=None, score="dot", W=None, query_weight=None, key_weight=None,
                      key_bias=None, v=None, key_padding_mask=None):
    """Attention of an RNN encoder-decoder -> (context, weights); the layer: nn.Seq2SeqAttention.

    query (B, Dq) for one decoder step or (B, T, Dq) for T steps; keys (B, S, Dk); values
    (B, S, Dv), default the keys; key_padding_mask (B, S) bool, True = padding (ignored).
    Returns context (B[, T], Dv) and weights (B[, T], S):
        a_j = softmax_j(score(q, k_j)) over the positions that are not padding,  context = Σ_j a_j v_j
    score and the parameters it takes (None for the others):
        'dot'                   qᵀ k_j                     (Luong et al. 2015)
        'scaled'                qᵀ k_j / √d                (d = Dq = Dk)
        'general', 'bilinear'   qᵀ W k_j                   W (Dq, Dk)   (Luong et al. 2015)
        'additive', 'concat'    vᵀ tanh(W₁ q + W₂ k_j + b)  query_weight W₁ (H, Dq), key_weight W₂ (H, Dk),
                                                           key_bias b (H) or None, v (H) or (1, H)
                                                           (Bahdanau et al. 2015)
        'linear'                no softmax: a_j = qᵀ k_j (0 at padding), context = Σ_j (qᵀ k_j) v_j
                                (kernelised, normalised: Katharopoulos et al. 2020, not implemented)
    A row whose keys are all padding gets weights 0 and context 0 (not NaN)."""
    return _seq2seq_attention(query, keys, values, score, W, query_weight, key_weight, key_bias, v, key_padding_mask)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """y[n, c, l] = max_j x[n, c, l*stride - padding + j*dilation], j < kernel_size; stride defaults to
    kernel_size. With return_indices, (y, the argmax positions along L) (F.max_pool1d)."""
    out, indices = _core.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """y[n, c, i, j] = max over the (dilated) kH x kW window at (i*sH - pH, j*sW - pW); stride defaults to
    kernel_size. With return_indices, (y, the argmax positions h*W + w in each plane) (F.max_pool2d)."""
    out, indices = _core.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def adaptive_avg_pool1d(input, output_size):
    """The mean over windows [floor(i*L/O), ceil((i+1)*L/O)), i < O = output_size (F.adaptive_avg_pool1d)."""
    return _core._adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    """The mean over windows [floor(i*H/OH), ceil((i+1)*H/OH)) x [floor(j*W/OW), ceil((j+1)*W/OW));
    None in output_size keeps that input size (F.adaptive_avg_pool2d)."""
    if isinstance(output_size, (list, tuple)) and len(output_size) == 2:
        output_size = tuple(input.shape[input.dim() - 2 + i] if o is None else o for i, o in enumerate(output_size))
    return _core._adaptive_avg_pool2d(input, output_size)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad) // 2 dims: pad = (before, after) for the last dim, then the one before it, ...
    (negative values crop). mode 'constant' fills with value (0); 'reflect' mirrors without repeating the
    edge; 'replicate' repeats the edge; 'circular' wraps around (F.pad). Composed: one index_select per
    padded dim, whose backward sums the gradient of each copy into its source."""
    pad = [int(p) for p in pad]
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"pad(): mode must be one of {_PAD_MODES}, got {mode!r}")
    if len(pad) % 2 != 0:
        raise RuntimeError(f"pad(): padding length must be divisible by 2, got pad={tuple(pad)}")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"pad(): padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {input.dim()}")
    if mode != "constant":
        if value not in (None, 0):
            raise RuntimeError(f"pad(): padding mode \"{mode}\" doesn't take in value argument")
        k = len(pad) // 2
        if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
            raise NotImplementedError(f"pad(): mode {mode!r} pads the last 1, 2 or 3 dims of a (batch of) "
                                      f"(C, ...) tensor: got pad={tuple(pad)} for input of size {list(input.shape)}")
    # torch's checks, every padded dim before any work (the messages of its kernels)
    out_shape, overcropped = list(input.shape), None
    for i in range(len(pad) // 2):
        dim, before, after = input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1]
        n = input.shape[dim]
        out_shape[dim] = n + before + after
        where = f"(pad(): padding ({before}, {after}) at dimension {dim} of input {list(input.shape)})"
        if mode == "constant" and n + min(before, 0) + min(after, 0) < 0:
            # torch crops (narrow) before it pads: a crop longer than the dim fails, whatever the padding
            raise RuntimeError(f"narrow(): length must be non-negative. {where}")
        if mode == "circular":
            if before > n or after > n:
                raise RuntimeError(f"pad(): Padding value causes wrapping around more than once. {where}")
            if n + before + after < 0:
                raise RuntimeError(f"Negative padding value is resulting in an empty dimension {where}")
            if n + min(before, 0) + min(after, 0) < 0 < n + before + after:  # torch reads memory it never wrote
                overcropped = f"narrow(): length must be non-negative. (circular padding crops more than the " \
                              f"dimension) {where}"
    if mode in ("reflect", "replicate"):
        k = len(pad) // 2
        if 0 in input.shape[input.dim() - k - 1 if input.dim() == k + 2 else 0:]:
            raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
                               f"other non-zero dimensions for input, but got: {list(input.shape)}")
        padded = range(input.dim() - k, input.dim())
        if all(out_shape[d] < 1 for d in padded) or any(out_shape[d] < 0 for d in padded):
            names = "DHW"[3 - k:]
            raise RuntimeError("input (" + ", ".join(f"{c}: {input.shape[d]}" for c, d in zip(names, padded))
                               + ") is too small. Calculated output "
                               + " ".join(f"{c}: {out_shape[d]}" for c, d in zip(names, padded)))
    if overcropped:
        raise RuntimeError(overcropped)
    if mode == "circular" and 0 in out_shape:  # nothing to wrap: torch copies nothing either
        return _core._full(out_shape, 0.0, input.dtype)
    out = input
    for i in range(len(pad) // 2):
        dim, before, after = input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1]
        if before == 0 and after == 0:
            continue
        n = out.shape[dim]
        if mode == "circular" and min(before, after) < 0:
            # torch crops first and wraps what is left: (−1, 1) on [1, 2, 3] is [2, 3, 2]
            out = out.narrow(dim, max(-before, 0), n + min(before, 0) + min(after, 0))
            before, after, n = max(before, 0), max(after, 0), out.shape[dim]
        # reflect, replicate and constant map each output position to an input position without
        # cropping first: (−3, 1) reflected on [1, 2, 3, 4] reads positions 3, 4 -> 4, 3
        pos = np.arange(-before, n + after)
        if mode == "constant":
            # positions outside [0, n) read one slice of `value` appended at index n
            fill_shape = list(out.shape)
            fill_shape[dim] = 1
            fill = _core._full(fill_shape, 0.0 if value is None else float(value), out.dtype)
            out = _core.cat([out, fill], dim)
            idx = np.where((pos >= 0) & (pos < n), pos, n)
        elif mode == "reflect":
            if before >= n or after >= n:
                raise RuntimeError(f"pad(): padding size should be less than the corresponding input dimension, "
                                   f"but got padding ({before}, {after}) at dimension {dim} of input "
                                   f"{list(input.shape)}")
            idx = np.abs(pos)
            idx = np.where(idx >= n, 2 * (n - 1) - idx, idx)
        elif mode == "replicate":
            if n == 0:
                raise RuntimeError(f"pad(): cannot replicate the edge of dimension {dim} of size 0")
            idx = np.clip(pos, 0, n - 1)
        else:  # circular
            if before > n or after > n:  # more than what is left after the crop (torch: an overlap error)
                raise RuntimeError("pad(): Padding value causes wrapping around more than once (padding "
                                   f"({before}, {after}) at dimension {dim} after cropping, of input "
                                   f"{list(input.shape)})")
            idx = np.mod(pos, n)
        out = out.index_select(dim, _core.from_numpy(np.ascontiguousarray(idx, dtype=np.int64)))
    return out


# The connectionist temporal classification loss: one C++ op (ctc_loss.cpp), torch.ctc_loss's core.
_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss (Graves et al. 2006; F.ctc_loss): -log Σ over the alignments of each target to its
    input of Π_t y_t(alignment_t), an alignment being the target with blanks inserted and labels repeated.

    log_probs (T, N, C) or unbatched (T, C), log-probabilities over C classes (log_softmax's output);
    targets (N, S) padded or (sum(target_lengths)) concatenated, class indices never equal to blank;
    input_lengths and target_lengths (N) as integer tensors or tuples of ints. reduction 'mean' divides
    each loss by its target length (at least 1) and averages, 'sum' adds, 'none' gives (N).
    zero_infinity=True makes infinite losses (a target too long for its input) and their gradients 0.
    The gradient is torch's, y - γ (γ the class occupation), exact through the log_softmax that made
    log_probs."""
    if reduction not in _REDUCTION_ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _core.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _REDUCTION_ENUM[reduction],
                          zero_infinity)


from ._stochastic import (  # noqa: E402,F401  alpha dropout (random.cpp), Gumbel-softmax (composed)
    alpha_dropout, feature_alpha_dropout, gumbel_softmax,
)
from ._pooling import (  # noqa: E402,F401  adaptive max pooling (pool.cpp), power-average pooling (composed)
    adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices,
    lp_pool1d, lp_pool2d,
)
from .._core import conv_transpose1d, conv_transpose2d  # noqa: E402,F401  transposed convolutions (conv.cpp)


def conv_tbc(input, weight, bias, pad=0):
    """torch.conv_tbc: a 1-D convolution in time-batch-channel layout (fairseq's): input (T, B, C_in),
    weight (K, C_in, C_out), bias (C_out), `pad` zeros at both ends of time; out (T + 2·pad − K + 1, B, C_out).
    It is conv1d on (B, C_in, T) with weight (C_out, C_in, K)."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)

from ._losses import multilabel_margin_loss, triplet_margin_with_distance_loss  # noqa: E402,F401  (composed)
from ._functional_extra import pdist, hardshrink, softshrink  # noqa: E402,F401  (_functional_extra.py)


# group_norm and instance_norm (fused / composed in C++, norm.cpp), rrelu (rrelu.cpp),
# local_response_norm and embedding_bag (composed here).
from .._core import group_norm, instance_norm, instance_norm_module_forward  # noqa: E402,F401
from ..autograd import no_grad as _no_grad  # noqa: E402


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """The randomized leaky ReLU (Xu et al. 2015; F.rrelu): in training x for x > 0, a x otherwise with
    a ~ U(lower, upper) per element (the gradient is the slope used); in eval leaky_relu with slope
    (lower + upper) / 2. One C++ op (rrelu.cpp); inplace writes into input (rrelu_)."""
    return _core.rrelu_(input, lower, upper, training) if inplace else _core.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place rrelu: input = rrelu(input, lower, upper, training) (F.rrelu_)."""
    return _core.rrelu_(input, lower, upper, training)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Local response normalisation across channels (Krizhevsky et al. 2012; F.local_response_norm):
    y_c = x_c / (k + alpha * mean_{c' in window(c)} x_{c'}²)^beta, the window `size` channels from
    c - size // 2, zeros beyond the edges. Composed: x² padded along C, an average pool over C."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    shape = list(input.shape)
    div = (input * input).reshape(shape[0], 1, shape[1], -1)  # (N, 1, C, spatial)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).reshape(shape)
    return input / (div * alpha + k) ** beta


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings (F.embedding_bag), without the (B, L, D) rows of
    embedding(): input (B, L) is B bags of L indices; 1-D input with offsets is bags
    input[offsets[i]:offsets[i + 1]] (the last to the end, or, with include_last_offset, offsets[-1]
    ends the last). per_sample_weights (input's shape, mode 'sum') scale each row first; indices equal
    to padding_idx are left out (of the count too); an empty bag is zeros. max_norm renormalises the
    rows used, in place, as F.embedding does. Composed: one gather of the rows into a (bags, longest
    bag, D) block, then its sum, mean or max over the bag (the index bookkeeping in NumPy)."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({_size_str(per_sample_weights)}) is not None, then "
                         f"it must have the same shape as the input ({_size_str(input)})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {_type_str(offsets)}")
        offsets_np = np.arange(0, input.numel(), input.shape[1]) if input.shape[1] else np.zeros(input.shape[0])
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offsets_np = offsets.numpy()
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("seqlab.nn.functional.embedding_bag: scale_grad_by_freq and sparse are not "
                                  "supported")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "the Pytorch GitHub.")
    if input.dtype not in (_core.dtype.int64, _core.dtype.int32):
        raise RuntimeError(f"embedding_bag: expected input of dtype int64 or int32, got {input.dtype}")
    idx = input.numpy().astype(np.int64)
    n, rows = len(idx), weight.shape[0]
    bad = np.flatnonzero((idx < 0) | (idx >= rows))
    if len(bad):
        raise RuntimeError(f"Index {bad[0]} of input takes value {idx[bad[0]]} which is not in the valid range "
                           f"[0, {rows}) (embedding_bag)")
    offsets_np = np.asarray(offsets_np, dtype=np.int64)
    if len(offsets_np) and offsets_np[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offsets_np[0]}")
    if len(offsets_np) and offsets_np[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n}, but got {offsets_np[-1]}")
    if np.any(np.diff(offsets_np) < 0):
        raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, got {offsets_np.tolist()}")
    if max_norm is not None:
        _renorm_rows(weight, np.unique(idx), max_norm, norm_type)
    starts = offsets_np[:-1] if include_last_offset else offsets_np
    ends = np.append(offsets_np[1:], n)[:len(starts)] if not include_last_offset else offsets_np[1:]
    bags = len(starts)
    keep = idx != padding_idx if padding_idx is not None else np.ones(n, dtype=bool)
    members = [np.flatnonzero(keep[s:e]) + s for s, e in zip(starts, ends)]
    counts = np.array([len(m) for m in members], dtype=np.int64)
    longest = int(counts.max()) if bags else 0
    table = np.full((bags, longest), n, dtype=np.int64)  # position n: the filler row
    for b, m in enumerate(members):
        table[b, :len(m)] = m
    dim = weight.shape[1]
    emb = weight.index_select(0, _core.from_numpy(idx))  # (n, D)
    if per_sample_weights is not None:
        emb = emb * per_sample_weights.unsqueeze(1)
    filler = _core._full([1, dim], float("-inf") if mode == "max" else 0.0, weight.dtype)
    block = _core.cat([emb, filler], 0).index_select(0, _core.from_numpy(table.reshape(-1)))
    block = block.reshape(bags, longest, dim)
    if mode == "max":
        if longest == 0:
            return block.sum(1)  # zeros (bags, D), connected to weight
        out = block.max(1).values
        empty = _core.from_numpy((counts == 0).reshape(bags, 1))
        return _core.where(empty, out.new_zeros(()), out)
    out = block.sum(1)
    if mode == "mean":
        out = out / _core.from_numpy(np.maximum(counts, 1).reshape(bags, 1)).to(weight.dtype)
    return out


def _size_str(t):
    return str(list(t.shape))


def _type_str(x):
    return f"{type(x).__module__}.{type(x).__name__}"


def _renorm_rows(weight, rows, max_norm, norm_type):
    """F.embedding's max_norm: the given rows of weight whose norm exceeds max_norm are scaled in place
    to max_norm (times max_norm / (norm + 1e-7), as torch's embedding_renorm_), without history."""
    if len(rows) == 0:
        return
    index = _core.from_numpy(rows)
    with _no_grad():
        selected = weight.index_select(0, index)
        norms = selected.norm(p=norm_type, dim=1, keepdim=True)
        scale = _core.where(norms > max_norm, max_norm / (norms + 1e-7), norms.new_ones(()))
        weight[index] = selected * scale


# channel dropout: C++ ops composed of elementwise ones (shrink.cpp); hardshrink and softshrink
# (shrink.cpp too) come with the other composed functions from _functional_extra.
def _check_dropout_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel dropout of (N, C, L) or unbatched (C, L) input (F.dropout1d; Tompson et al. 2015): each
    channel zeroed whole with probability p, the others scaled by 1 / (1 - p). (inplace is accepted;
    the result is a new tensor, as F.dropout's.)"""
    _check_dropout_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.dim() == 2:
        return _core.feature_dropout(input.unsqueeze(0), p, training).squeeze(0)
    return _core.feature_dropout(input, p, training)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel dropout of (N, C, H, W) input (F.dropout2d): each (n, c) plane zeroed whole with
    probability p, the others scaled by 1 / (1 - p). As torch's, other ranks warn, and a 3-D input is
    read as (N, C, L) (channel-wise 1-D dropout). (inplace is accepted; the result is a new tensor.)"""
    _check_dropout_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will result in "
                      "an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    if inp_dim != 4:
        return _core.feature_dropout(input.unsqueeze(0), p, training).squeeze(0)
    return _core.feature_dropout(input, p, training)


# linear_cross_entropy: the language-model head's loss, cross_entropy(linear(x, W, b), target). Without
# options the reference path (those two ops); with options the chunked C++ op
# (cpp/src/ops/linear_cross_entropy.cpp), which never makes the (N, num_classes) logits.
# Tests: tests/test_linear_cross_entropy.py.
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(input @ linear_weight.T + linear_bias, target, weight=, reduction=, ignore_index=,
    label_smoothing=) (F.linear_cross_entropy). input (in_features) or (N, in_features); linear_weight
    (C, in_features) or (C, d_1, ..., d_K, in_features) for a K-dimensional loss (batched input only);
    target class indices () / (N) / (N, d_1, ...) or class probabilities of the logits' shape.
    ignore_index None means -100, and may not be given with probabilities. With options
    (nn.LinearCrossEntropyOptions) the rows go through in chunks of options' size: for 'mean', 'sum'
    and 'none', int64 targets, no smoothing and a 2-D linear_weight; anything else warns and takes
    the reference path, as torch's."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    batch = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {in_features} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batch, num_classes, *out_features)
    # a target of the logits' shape holds probabilities (cross_entropy's own test)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        chunked = (not out_features and reduction in ("mean", "sum", "none") and label_smoothing == 0.0
                   and target.dtype == _core.dtype.int64)
        if not chunked:
            warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                          "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). "
                          f"Got reduction={reduction!r}, label_smoothing={label_smoothing}, "
                          f"target.dtype={target.dtype}, out_features={out_features}, tracing=False, linear_bias.shape="
                          f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
        else:
            return _linear_cross_entropy_chunked(input, linear_weight, target, linear_bias, weight, reduction,
                                                 ignore_index, options)
    if out_features:  # one (C * d_1 * ... * d_K, in_features) linear, its logits then (N, C, d_1, ..., d_K)
        rows = num_classes
        for d in out_features:
            rows *= d
        linear_weight = linear_weight.reshape(rows, in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


def _linear_cross_entropy_chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                                  options):
    batched = input.dim() == 2
    if not batched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    options = options._adjust(num_batches=input.shape[0], in_features=input.shape[1],
                              num_classes=linear_weight.shape[0], dtype=input.dtype)
    dtype, acc = input.dtype, options.acc_dtype
    if acc != dtype and not (dtype in (_core.dtype.float16, _core.dtype.bfloat16) and acc == _core.dtype.float32):
        raise RuntimeError(f"linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got "
                           f"{acc} acc_dtype and {dtype} inputs.")
    loss = _core._linear_cross_entropy_chunked(input, linear_weight, target, linear_bias, weight, reduction,
                                               ignore_index, options.batch_chunk_size, options.allow_retain_graph)
    return loss if batched else loss.squeeze(0)
