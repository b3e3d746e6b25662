"""seqlab.nn.functional: the layers' computations, activations and losses with PyTorch's
signatures. Each is one C++ functional (cpp/src/ops/), the same one the C++ modules call:
linear (linalg.cpp), layer_norm and batch_norm (norm.cpp), embedding (embedding.cpp),
bilinear (linalg.cpp), dropout (random.cpp), seq2seq_attention (seq2seq_attention.cpp), the
fused softmax, log_softmax and losses with hand-written backward (activation.cpp, loss.cpp),
scaled_dot_product_attention (attention.cpp, attention_fused.cpp) with attention_weights, the
weights it never materialises, and multi_head_attention_forward (multihead_attention.cpp,
torch's signature)."""
from .. import _core
from .._core import (  # noqa: F401
    relu, tanh, sigmoid, gelu, cross_entropy, nll_loss, mse_loss, binary_cross_entropy_with_logits,
    layer_norm, embedding, batch_norm, bilinear, batch_norm_module_forward,
    scaled_dot_product_attention, attention_weights, multi_head_attention_forward,
)
from .._core import (  # noqa: F401  positional information (positional.cpp): seqlab.nn.positional's schemes
    positional_attention, positional_attention_math, positional_attention_weights, rotary_embedding,
    alibi_slopes, t5_relative_position_bucket, sinusoidal_encoding,
)
from .._core import seq2seq_attention as _seq2seq_attention


def softmax(input, dim=None, dtype=None):
    """softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x) along dim, after converting to dtype
    if given (F.softmax)."""
    if dim is None:
        raise TypeError("softmax(): dim must be given (implicit dim is deprecated in PyTorch)")
    x = input if dtype is None else input.to(dtype)
    return _core.softmax(x, dim)


def log_softmax(input, dim=None, dtype=None):
    """x_i - log sum_j exp(x_j) along dim, computed stably (F.log_softmax)."""
    if dim is None:
        raise TypeError("log_softmax(): dim must be given (implicit dim is deprecated in PyTorch)")
    x = input if dtype is None else input.to(dtype)
    return _core.log_softmax(x, dim)


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
