"""Multi-head attention and the Transformer (Vaswani et al. 2017, "Attention Is All You Need"),
with torch.nn's names, arguments, defaults, submodule and parameter names, initialisation and
reprs: MultiheadAttention, TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder,
TransformerDecoder, Transformer (https://pytorch.org/docs/stable/nn.html#transformer-layers).

A torch state dict loads into them and back unchanged. The modules only hold parameters and
options; each layer's forward is one C++ functional (cpp/src/ops/multihead_attention.cpp,
cpp/src/ops/transformer.cpp), the one the C++ twins in cpp/include/seqlab/nn/transformer.hpp
call too. The stacks call their layers in turn, as torch's do, so hooks and subclasses of the
layers work. Tests: tests/test_transformer.py, tests/test_nn_twins.py."""
import copy
import math
import numbers
import warnings

from .. import _args, _core
from .._device import device as _device
from .._tensor import float32
from . import functional as F
from . import init
from .containers import ModuleList
from .layers import GELU, Dropout, LayerNorm, Linear, NonDynamicallyQuantizableLinear, ReLU, RMSNorm, _empty, _factory
from .module import Module, Parameter
from .positional import _check_pos

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerDecoder", "Transformer"]


class MultiheadAttention(Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O, head_i = softmax(Q W_Q^i (K W_K^i)^T / sqrt(d)) V W_V^i
    (Vaswani et al. 2017, §3.2.2), over num_heads heads of embed_dim // num_heads each.

    Parameters, in torch's order: in_proj_weight (3*embed_dim, embed_dim) — or q_proj_weight,
    k_proj_weight (embed_dim, kdim), v_proj_weight (embed_dim, vdim) when kdim or vdim differ —,
    in_proj_bias (3*embed_dim), out_proj (a Linear), bias_k and bias_v (1, 1, embed_dim) with
    add_bias_kv. forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False) -> (attn_output, attn_weights or None).
    Bool masks are True where attention is not allowed; float masks are added to the scores.

    seqlab's own arguments: pos, a positional scheme of seqlab.nn.positional applied inside the
    attention; scale, the scores' factor softmax(q kᵀ · scale) (default 1/sqrt(head_dim), or the
    scheme's own; F.scaled_dot_product_attention's scale=): T5 uses scale=1.0;
    num_key_value_heads, grouped-query attention (Ainslie et al. 2023; Llama's): keys and values
    of that many heads, each shared by num_heads / num_key_value_heads query heads (default
    num_heads). Then in_proj_weight is (embed_dim + 2·kv_dim, embed_dim), kv_dim =
    num_key_value_heads · head_dim, and k_proj_weight / v_proj_weight (kv_dim, kdim / vdim);
    head_dim, each head's width (default embed_dim // num_heads), as T5's d_kv and the head_dim of
    Llama-family configs: the heads then span inner = num_heads · head_dim features, which need not
    be embed_dim: W_Q has inner rows (in_proj_weight (inner + 2·kv_dim, embed_dim)) and out_proj
    is Linear(inner, embed_dim)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None, pos=None, scale=None,
                 num_key_value_heads=None, head_dim=None):
        embed_dim = _args.index(embed_dim, "MultiheadAttention", "embed_dim")
        num_heads = _args.index(num_heads, "MultiheadAttention", "num_heads")
        if head_dim is None:
            _core.check_multihead_attention_args(embed_dim, num_heads)
            head_dim = embed_dim // num_heads
        else:
            head_dim = _args.index(head_dim, "MultiheadAttention", "head_dim")
            if embed_dim <= 0 or num_heads <= 0 or head_dim <= 0:
                raise ValueError(f"MultiheadAttention: embed_dim, num_heads and head_dim must be greater than 0, got "
                                 f"embed_dim={embed_dim}, num_heads={num_heads} and head_dim={head_dim}")
            if add_bias_kv and head_dim * num_heads != embed_dim:
                raise ValueError(f"MultiheadAttention: add_bias_kv needs num_heads · head_dim = embed_dim, got "
                                 f"{num_heads} · {head_dim} and {embed_dim}")
        kv_heads = num_heads if num_key_value_heads is None else \
            _args.index(num_key_value_heads, "MultiheadAttention", "num_key_value_heads")
        if kv_heads <= 0 or num_heads % kv_heads:
            raise ValueError(f"MultiheadAttention: num_heads ({num_heads}) must be a multiple of num_key_value_heads "
                             f"({kv_heads})")
        if kv_heads != num_heads and add_bias_kv:
            raise ValueError("MultiheadAttention: grouped-query attention (num_key_value_heads < num_heads) cannot be "
                             "combined with add_bias_kv")
        dtype = _factory(device, dtype)
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = head_dim
        self.num_key_value_heads = kv_heads
        kv_dim, inner = kv_heads * head_dim, num_heads * head_dim
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_empty((inner, embed_dim), dtype))
            self.k_proj_weight = Parameter(_empty((kv_dim, self.kdim), dtype))
            self.v_proj_weight = Parameter(_empty((kv_dim, self.vdim), dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_empty((inner + 2 * kv_dim, embed_dim), dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_empty((inner + 2 * kv_dim,), dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(inner, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_empty((1, 1, embed_dim), dtype))
            self.bias_v = Parameter(_empty((1, 1, embed_dim), dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        # seqlab's: a positional scheme applied inside the attention (seqlab.nn.positional)
        self.pos = _check_pos(pos, "MultiheadAttention", embed_dim, num_heads, head_dim)
        # seqlab's: the scores' scale, softmax(q kᵀ · scale) (None: the scheme's, 1/√head_dim), as
        # F.scaled_dot_product_attention's scale=; T5 passes 1.0 (its W_Q absorbs the 1/√d)
        self.scale = _check_scale(scale, "MultiheadAttention")
        self._reset_parameters()

    def _reset_parameters(self):
        # torch's order (out_proj drew its numbers when it was made): Glorot-uniform projections,
        # zero biases, Glorot-normal bias_k and bias_v.
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """torch's MultiheadAttention.merge_masks: (mask, mask_type) for a batch-first (N, L, E)
        query, mask_type 1 for a key padding mask alone, 2 when attn_mask is given (then (N, H, L, L),
        the key padding mask added when there is one), None for neither."""
        mask_type, merged_mask = None, None
        if key_padding_mask is not None:
            mask_type, merged_mask = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged_mask = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                merged_mask = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged_mask = merged_mask + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1)
        return merged_mask, mask_type

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False, cache=None):
        # cache: seqlab's AttentionCache (seqlab.nn.KVCache; DESIGN.md "Generation"), keys and values of earlier steps
        return _core.multihead_attention(query, key, value, _params(self), self.training, key_padding_mask,
                                         need_weights, attn_mask, average_attn_weights, is_causal, cache)


def _params(module):
    """The record a module passes to its C++ functional (_core.MultiheadAttentionParams, ...): every
    field the record declares (record.fields, bound once in cpp/python/bind_transformer.cpp) read
    from the module by the same name; a submodule gives its own record (a Dropout its p), and the
    few fields named otherwise come from _FIELD_SOURCES."""
    values = {}
    record = _record_of(module)
    for field in record.fields:
        source = _FIELD_SOURCES.get(field)
        value = source(module) if source is not None else getattr(module, field)
        if isinstance(value, Dropout):
            value = value.p
        elif _record_of(value) is not None:
            value = _params(value)
        values[field] = value
    # made through _core's name, where the ONNX exporter's tracer records each record's fields
    return getattr(_core, record.__name__)(**values)


def _record_of(module):
    return next((record for cls, record in _RECORDS if isinstance(module, cls)), None)


def _check_scale(scale, owner):
    if scale is None:
        return None
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not math.isfinite(scale):
        raise ValueError(f"{owner}: scale must be a finite number or None (1/sqrt(head_dim)), got {scale!r}")
    return float(scale)


def _get_activation_fn(activation, layer):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation} ({layer})")


def _activation_arg(fn):
    """relu and gelu run as C++ ops; anything else is called back (a module keeps its hooks). relu:
    F.relu or seqlab.relu (the C++ op F.relu calls)."""
    if fn is F.relu or fn is _core.relu:
        return "relu"
    if fn is F.gelu:
        return "gelu"
    return fn


def _norm(d_model, eps, bias, rms_norm, kw):
    """A layer's (or a stack's final) normalisation: RMSNorm with rms_norm (the Llama family, T5),
    else torch's LayerNorm."""
    return RMSNorm(d_model, eps=eps, **kw) if rms_norm else LayerNorm(d_model, eps=eps, bias=bias, **kw)


class _TransformerLayer(Module):
    """What the encoder and decoder layers share: the feed-forward W_2 dropout(act(W_1 x + b_1)) + b_2
    (§3.3), the activation ('relu', 'gelu' or a callable), post-LN (the paper's) or pre-LN
    (norm_first, Xiong et al. 2020).

    seqlab's options for the Llama family: glu=True, the GLU feed-forward (Shazeer 2020)
    W_2 dropout(act(W_1 x + b_1) ⊙ (W_3 x + b_3)) + b_2 with linear3 = W_3 (SwiGLU with
    activation=F.silu); rms_norm=True, nn.RMSNorm(d_model, eps=layer_norm_eps) for every norm;
    num_key_value_heads, grouped-query attention in the attention layers; head_dim, the attention
    heads' width when it is not d_model // nhead (T5's d_kv)."""

    def _glu(self, d_model, dim_feedforward, bias, glu, kw):
        self.linear3 = Linear(d_model, dim_feedforward, bias=bias, **kw) if glu else None

    def _set_activation(self, activation):
        if isinstance(activation, str):
            activation = _get_activation_fn(activation, type(self).__name__)
        if activation is F.relu or activation is _core.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation


class TransformerEncoderLayer(_TransformerLayer):
    """Self-attention then a feed-forward network, each with dropout, a residual connection and
    LayerNorm (§3.1): x = norm1(x + SA(x)); x = norm2(x + FF(x)), or with norm_first
    x = x + SA(norm1(x)); x = x + FF(norm2(x)).
    forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None, pos=None, scale=None,
                 num_key_value_heads=None, rms_norm=False, glu=False, head_dim=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            pos=pos, scale=scale, num_key_value_heads=num_key_value_heads,
                                            head_dim=head_dim, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self._glu(d_model, dim_feedforward, bias, glu, kw)
        self.norm_first = norm_first
        self.norm1 = _norm(d_model, layer_norm_eps, bias, rms_norm, kw)
        self.norm2 = _norm(d_model, layer_norm_eps, bias, rms_norm, kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self._set_activation(activation)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False, cache=None):
        # cache: an AttentionCache for the self-attention (a causal decoder block; DESIGN.md "Generation")
        return _core.transformer_encoder_layer(src, _params(self), self.training, src_mask, src_key_padding_mask,
                                               is_causal, cache)


class TransformerDecoderLayer(_TransformerLayer):
    """Masked self-attention, attention over the encoder's output (memory), then a feed-forward
    network, each with dropout, a residual connection and LayerNorm (§3.1; pre-LN with norm_first).
    forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None, pos=None, scale=None,
                 num_key_value_heads=None, rms_norm=False, glu=False, head_dim=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        # pos (seqlab's): the self-attention's positional scheme; cross-attention has none.
        # scale (seqlab's): both attentions' score scale (None: 1/sqrt(head_dim))
        gqa = dict(scale=scale, num_key_value_heads=num_key_value_heads, head_dim=head_dim, **kw)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            pos=pos, **gqa)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **gqa)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self._glu(d_model, dim_feedforward, bias, glu, kw)
        self.norm_first = norm_first
        self.norm1 = _norm(d_model, layer_norm_eps, bias, rms_norm, kw)
        self.norm2 = _norm(d_model, layer_norm_eps, bias, rms_norm, kw)
        self.norm3 = _norm(d_model, layer_norm_eps, bias, rms_norm, kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self._set_activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False, cache=None,
                memory_cache=None):
        # cache / memory_cache: AttentionCaches of the self- and cross-attention (DESIGN.md "Generation")
        return _core.transformer_decoder_layer(tgt, memory, _params(self), self.training, tgt_mask, memory_mask,
                                               tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal,
                                               memory_is_causal, cache, memory_cache)


# The module each record describes, and the fields a module holds under another name.
_RECORDS = ((MultiheadAttention, _core.MultiheadAttentionParams), (Linear, _core.LinearParams),
            (LayerNorm, _core.LayerNormParams), (RMSNorm, _core.LayerNormParams),
            (TransformerEncoderLayer, _core.TransformerEncoderLayerParams),
            (TransformerDecoderLayer, _core.TransformerDecoderLayerParams))
_FIELD_SOURCES = {
    "out_proj_weight": lambda m: m.out_proj.weight,
    "out_proj_bias": lambda m: m.out_proj.bias,
    "pos": lambda m: m.pos.scheme(m) if getattr(m, "pos", None) is not None else None,
    "scale": lambda m: getattr(m, "scale", None),
    "activation": lambda m: _activation_arg(m.activation),
    "rms": lambda m: isinstance(m, RMSNorm),
    "bias": lambda m: getattr(m, "bias", None),            # an RMSNorm has none
    "eps": lambda m: m.eps if m.eps is not None else _machine_eps(m),  # RMSNorm's None
}


def _machine_eps(norm):
    """RMSNorm's eps=None: its dtype's machine epsilon, as torch's (float32 without a weight)."""
    return 2.0 ** -52 if norm.weight is not None and norm.weight.dtype == _core.dtype.float64 else 2.0 ** -23


def _seq_len(src, batch_first):
    """torch's _get_seq_len: the length of the sequence dim of (S, E), (S, N, E) or (N, S, E)."""
    return src.shape[0] if src.dim() == 2 else src.shape[1 if batch_first else 0]


def _why_not_nested(layer):
    if not isinstance(layer, TransformerEncoderLayer):
        return "encoder_layer was not TransformerEncoderLayer"
    sa = layer.self_attn
    return _core.transformer_encoder_why_not_nested(
        True, layer.norm_first, sa.batch_first, sa._qkv_same_embed_dim, sa.in_proj_bias is not None,
        bool(layer.activation_relu_or_gelu), layer.norm1.eps, layer.norm2.eps, sa.num_heads)


class TransformerEncoder(Module):
    """num_layers copies of encoder_layer (layers.0, layers.1, ...), applied in turn, then norm if
    given. forward(src, mask=None, src_key_padding_mask=None, is_causal=None); is_causal=None
    detects a causal mask. In eval mode, without gradients, torch runs batch_first layers with a
    padding mask on nested tensors and returns zeros at the padded positions (before norm);
    seqlab gives the same values (DESIGN.md, "Transformer")."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None, cache=None):
        # cache: a seqlab.nn.KVCache; layer i uses cache.self_attention(i) (DESIGN.md "Generation")
        src_key_padding_mask = _core.canonical_mask(src_key_padding_mask, "src_key_padding_mask", mask, "mask",
                                                    src.dtype)
        mask = _core.canonical_mask(mask, "mask", None, "", src.dtype)
        first = self.layers[0]
        padded = None
        if self.use_nested_tensor:  # then the layers are TransformerEncoderLayers
            params = [first.self_attn.in_proj_weight, first.self_attn.in_proj_bias, first.self_attn.out_proj.weight,
                      first.self_attn.out_proj.bias, first.norm1.weight, first.norm1.bias, first.norm2.weight,
                      first.norm2.bias, first.linear1.weight, first.linear1.bias, first.linear2.weight,
                      first.linear2.bias]
            padded = _core.transformer_encoder_nested_padding(src, src_key_padding_mask, mask, True, first.training,
                                                              self.mask_check, params)
        is_causal = _core.detect_is_causal_mask(mask, is_causal, _seq_len(src, first.self_attn.batch_first))
        output = src
        for i, mod in enumerate(self.layers):
            kw = {} if cache is None else {"cache": cache.self_attention(i)}
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask, **kw)
        if padded is not None:
            output = output.masked_fill(padded.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """num_layers copies of decoder_layer, applied in turn to (tgt, memory), then norm if given.
    forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False, cache=None):
        # cache: a seqlab.nn.KVCache; layer i uses cache.self_attention(i) and cache.cross_attention(i)
        seq_len = _seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _core.detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for i, mod in enumerate(self.layers):
            kw = {} if cache is None else {"cache": cache.self_attention(i), "memory_cache": cache.cross_attention(i)}
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal, **kw)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """The encoder-decoder model of Vaswani et al. 2017: encoder (a TransformerEncoder of
    num_encoder_layers layers and a final LayerNorm) and decoder (the same for the decoder), or
    custom_encoder / custom_decoder; every matrix then Glorot-uniform, as torch.
    forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None,
    tgt_is_causal=None, memory_is_causal=False) -> the decoder's output."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **kw)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **kw)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        _core.check_transformer_inputs(src, tgt, self.d_model, self.batch_first)
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """(sz, sz) float mask: -inf above the diagonal (position i may not attend to j > i), 0 elsewhere."""
        if device is not None and _device(device).type != "cpu":
            raise RuntimeError(f"seqlab runs on the CPU only; got device {device!r}")
        return _core.generate_square_subsequent_mask(sz, float32 if dtype is None else dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
