"""seqlab's encoder-decoder transformer written with torch ops: the torch twins that seqlab.to_torch
builds for a TransformerDecoderLayer with seqlab's options, for the stacks of twin layers, and for
nn.TransformerSeq2Seq.

TransformerDecoderLayer   torch.nn.TransformerDecoderLayer with seqlab's options: pos (the self-
                          attention's scheme; the cross-attention has none), scale, num_key_value_heads,
                          head_dim (both attentions), rms_norm and glu; a KV cache for the self-attention
TransformerEncoder,       num_layers layers, then the final norm, under torch's names (layers.i, norm);
TransformerDecoder        the encoder zeroes the padded positions where torch's nested-tensor path does
TransformerSeq2Seq        seqlab.nn.TransformerSeq2Seq: encode / decode / forward, new_cache() and
                          generate() (encoder-decoder: decoder_start_token_id)

Parameter names and shapes are seqlab's, so state dicts move either way unchanged. Nothing here
assumes the CPU. Tests: tests/test_to_torch_encoder_decoder.py."""
import copy

import torch

from .. import _core
from ..nn._twin_steps import TransformerSeq2SeqSteps
from .generation import GenerationMixin
from .positional import _Absolute
from .transformer import KVCache, TransformerEncoderLayer

__all__ = ["TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder", "TransformerSeq2Seq"]


class TransformerDecoderLayer(TransformerEncoderLayer):
    """The encoder layer's self-attention (self_attn, causal under tgt_mask) and feed-forward, with
    attention over the encoder's output between them (multihead_attn, norm2, dropout2 as torch's;
    the feed-forward's norm and dropout are then norm3 and dropout3). forward(tgt, memory,
    tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    tgt_is_causal=False, memory_is_causal=False, cache=None); cache: the self-attention's entry of
    a KVCache (the memory's keys and values are projected at every call)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=torch.nn.functional.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None, dtype=None,
                 pos=None, scale=None, num_key_value_heads=None, rms_norm=False, glu=False, head_dim=None):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                         bias, device, dtype, pos, scale, num_key_value_heads, rms_norm, glu, head_dim)
        cross = copy.deepcopy(self.self_attn)  # the same options, without positions; its own parameters
        cross.pos = None
        for p in cross.parameters():
            torch.nn.init.xavier_uniform_(p) if p.dim() > 1 else torch.nn.init.zeros_(p)
        self.multihead_attn = cross
        self.norm3, self.dropout3 = copy.deepcopy(self.norm2), torch.nn.Dropout(dropout)

    def _ca(self, x, memory, mask, padding, is_causal):
        x = self.multihead_attn(x, memory, memory, key_padding_mask=padding, attn_mask=mask, need_weights=False,
                                is_causal=is_causal)[0]
        return self.dropout2(x)

    def _ff_dropout(self):  # (torch's name for the feed-forward's dropout here)
        return self.dropout3

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False, cache=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal, cache)
            x = x + self._ca(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff(self.norm3(x))
        x = self.norm1(x + self._sa(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal, cache))
        x = self.norm2(x + self._ca(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff(x))


def _why_not_nested(layer):
    """Why torch (and seqlab) would not run a stack of `layer` on nested tensors ("" if they would):
    seqlab's rule, the one torch.nn.TransformerEncoder applies to its first layer."""
    attn = layer.self_attn
    return _core.transformer_encoder_why_not_nested(
        type(layer) is TransformerEncoderLayer, layer.norm_first, attn.batch_first, True, attn.in_proj_bias is not None,
        layer.activation in (torch.nn.functional.relu, torch.nn.functional.gelu), layer.norm1.eps, layer.norm2.eps,
        attn.num_heads)


class TransformerEncoder(torch.nn.Module):
    """num_layers copies of encoder_layer, then norm if given; forward(src, mask=None,
    src_key_padding_mask=None, is_causal=None). use_nested_tensor, as torch's and seqlab's (false
    unless the layer qualifies: post-LN, batch_first, in_proj bias, relu or gelu, equal eps, even
    heads): then in eval mode, with a padding mask (each row's padding at its end), no mask and no
    gradient wanted, the padded positions come out 0 (before norm), as torch's nested-tensor path
    leaves them."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = torch.nn.ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        self.use_nested_tensor = enable_nested_tensor and not _why_not_nested(encoder_layer)

    def _padded(self, src, mask, padding):
        first = self.layers[0]
        if not self.use_nested_tensor or first.training or src.dim() != 3 or padding is None or mask is not None:
            return None
        if torch.is_grad_enabled() and (src.requires_grad or any(p.requires_grad for p in first.parameters())):
            return None
        padded = padding != 0
        if self.mask_check and bool((padded[:, :-1] & ~padded[:, 1:]).any()):  # padding before a token
            return None
        return padded

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None, cache=None):
        # (is_causal is a hint: the twin attention reads it only without a mask, as torch's layers)
        padded = self._padded(src, mask, src_key_padding_mask)
        x = src
        for n, layer in enumerate(self.layers):  # (a layer may be torch's own, which takes no cache)
            kw = {} if cache is None else {"cache": cache.layers[n]}
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal), **kw)
        if padded is not None:
            x = x.masked_fill(padded.unsqueeze(-1), 0.0)
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(torch.nn.Module):
    """num_layers copies of decoder_layer applied to (tgt, memory), then norm if given; forward as
    torch's, plus cache (a KVCache: one self-attention entry per layer)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = torch.nn.ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False, cache=None):
        x = tgt
        for n, layer in enumerate(self.layers):
            kw = {} if cache is None else {"cache": cache.layers[n]}
            x = layer(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                      bool(tgt_is_causal), memory_is_causal, **kw)
        return x if self.norm is None else self.norm(x)


def add_positions(positional, x, start):
    """x (N, L, E) plus the absolute positions start … start + L − 1: a scheme of .positional adds
    itself; a table (torch.nn.Embedding(max_len, E)) is looked up."""
    if positional is None:
        return x
    if isinstance(positional, _Absolute):
        return positional(x, offset=start)
    return x + positional(torch.arange(start, start + x.shape[1], device=x.device))


class TransformerSeq2Seq(TransformerSeq2SeqSteps, GenerationMixin, torch.nn.Module):
    """seqlab.nn.TransformerSeq2Seq in torch: src_emb and tgt_emb (one module with shared
    embeddings), an absolute `positional` added to both, an encoder and a decoder of pre-LN twin
    layers (batch_first) with final norms, lm_head (tied to tgt_emb or not). encode(src,
    src_key_padding_mask=None) -> memory; decode(tgt, memory, cache=None,
    memory_key_padding_mask=None) -> logits; forward(src, tgt, src_key_padding_mask=None) teacher-
    forced. With a KVCache (new_cache()) decode reads only the new target tokens."""

    is_encoder_decoder = True

    def __init__(self, src_emb, tgt_emb, positional, dropout, encoder, decoder, lm_head, scale_decoder_outputs=False):
        super().__init__()
        self.src_emb, self.tgt_emb, self.positional = src_emb, tgt_emb, positional
        self.drop = torch.nn.Dropout(dropout)
        self.encoder, self.decoder, self.lm_head = encoder, decoder, lm_head
        self.d_model = src_emb.embedding_dim
        self.scale_decoder_outputs = scale_decoder_outputs

    def new_cache(self):
        return KVCache(self.decoder.num_layers)

    def encode(self, src, src_key_padding_mask=None):
        x = self.drop(add_positions(self.positional, self.src_emb(src), 0))
        return self.encoder(x, src_key_padding_mask=src_key_padding_mask)

    def decode(self, tgt, memory, cache=None, memory_key_padding_mask=None):
        T = tgt.shape[1]
        P = 0 if cache is None else cache.get_seq_length()
        # row i sees the keys j <= P + i; one new token sees every cached key
        mask = None if T == 1 else torch.ones(T, P + T, dtype=torch.bool, device=tgt.device).triu(P + 1)
        x = self.drop(add_positions(self.positional, self.tgt_emb(tgt), P))
        return self._decode_embedded(x, memory, mask, T > 1, memory_key_padding_mask, cache)
