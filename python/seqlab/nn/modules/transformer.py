"""torch.nn.modules.transformer: the Transformer (Vaswani et al. 2017, "Attention Is All You Need"),
with torch.nn's names, arguments, defaults, submodule and parameter names, initialisation and
reprs: TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder,
Transformer (https://pytorch.org/docs/stable/nn.html#transformer-layers); their attention is
activation.py's MultiheadAttention, where torch defines it.

A torch state dict loads into them and back unchanged. The modules only hold parameters and
options; each layer's forward is one C++ functional (cpp/src/ops/multihead_attention.cpp,
cpp/src/ops/transformer.cpp), the one the C++ twins in cpp/include/seqlab/nn/transformer.hpp
call too. The stacks call their layers in turn, as torch's do, so hooks and subclasses of the
layers work. Tests: tests/test_transformer.py, tests/test_nn_twins.py."""
import copy
import warnings

from ... import _core
from ..._device import device as _device
from ..._dtypes import float32
from .. import functional as F
from .. import init
from .activation import GELU, MultiheadAttention, ReLU, _params
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm, RMSNorm

__all__ = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
           "Transformer"]


def _get_activation_fn(activation, layer):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation} ({layer})")


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

    def _feed_forward_and_norms(self, sublayers, d_model, dim_feedforward, dropout, activation, layer_norm_eps,
                                norm_first, bias, rms_norm, glu, kw):
        """The feed-forward (linear1, dropout, linear2; linear3 with glu) and a norm and a dropout per
        sublayer (the encoder layer has 2, the decoder layer 3), registered in torch's order."""
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.linear3 = Linear(d_model, dim_feedforward, bias=bias, **kw) if glu else None
        self.norm_first = norm_first
        for i in range(1, sublayers + 1):
            setattr(self, f"norm{i}", _norm(d_model, layer_norm_eps, bias, rms_norm, kw))
        for i in range(1, sublayers + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self._set_activation(activation)

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

    _record = _core.TransformerEncoderLayerParams  # the record its C++ functional takes (_params)

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None, pos=None, scale=None,
                 num_key_value_heads=None, rms_norm=False, glu=False, head_dim=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            pos=pos, scale=scale, num_key_value_heads=num_key_value_heads,
                                            head_dim=head_dim, **kw)
        self._feed_forward_and_norms(2, d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first, bias,
                                     rms_norm, glu, kw)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False, cache=None):
        # cache: an AttentionCache for the self-attention (a causal decoder block; DESIGN.md "Generation")
        return _core.transformer_encoder_layer(src, _params(self), self.training, src_mask, src_key_padding_mask,
                                               is_causal, cache)


class TransformerDecoderLayer(_TransformerLayer):
    """Masked self-attention, attention over the encoder's output (memory), then a feed-forward
    network, each with dropout, a residual connection and LayerNorm (§3.1; pre-LN with norm_first).
    forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)."""

    _record = _core.TransformerDecoderLayerParams  # the record its C++ functional takes (_params)

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
        self._feed_forward_and_norms(3, d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first, bias,
                                     rms_norm, glu, kw)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False, cache=None,
                memory_cache=None):
        # cache / memory_cache: AttentionCaches of the self- and cross-attention (DESIGN.md "Generation")
        return _core.transformer_decoder_layer(tgt, memory, _params(self), self.training, tgt_mask, memory_mask,
                                               tgt_key_padding_mask, memory_key_padding_mask, tgt_is_causal,
                                               memory_is_causal, cache, memory_cache)


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
