"""seqlab's attention options and language model written with torch ops: the torch twins that
seqlab.to_torch builds where torch.nn has no class for a seqlab module.

MultiheadAttention        torch.nn.MultiheadAttention's parameters and forward, plus seqlab's pos
                          (any relative scheme of .positional: ALiBi, RoPE, T5RelativeBias, KERPLE,
                          Shaw, Transformer-XL, DeBERTa, DA), scale, num_key_value_heads
                          (grouped-query attention) and head_dim; a scheme that is a bias or a
                          rotation runs in F.scaled_dot_product_attention with its bias
                          materialised, the others (and need_weights) by explicit scores from the
                          scheme (its scores() and value_term(): .positional.RelativePositionScheme)
TransformerEncoderLayer   torch's layer with that attention and seqlab's rms_norm and glu options
TransformerLM             seqlab.nn.TransformerLM: embeddings, causal blocks, ln_f, lm_head (tied or
                          not); forward(idx, attention_mask=None, cache=None) with left padding and
                          the KV cache as seqlab's; generate() with Hugging Face's arguments

Parameter names and shapes are seqlab's (which are torch's where torch has the layer), so a state
dict moves either way unchanged. Nothing here assumes the CPU: .to("cuda"), .half() work as for
any torch module. Tests: tests/test_to_torch.py, tests/test_to_torch_schemes.py."""
import copy

import torch
import torch.nn.functional as TF

from . import positional as P_
from .generation import GenerationMixin, as_index

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerLM", "KVCache"]


def _float_mask(mask, dtype):
    """A bool mask (True = not allowed) as −inf / 0 of `dtype`; a float mask as it is."""
    if mask is None or mask.dtype != torch.bool:
        return None if mask is None else mask.to(dtype)
    return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))


def _softmax(s, empty_rows_zero):
    """softmax over the keys; with empty_rows_zero a row whose keys are all masked (−inf) gets zero
    weights and no NaN gradient (torch's _safe_softmax, as seqlab's attention with a scheme and
    torch's F.scaled_dot_product_attention), else NaN (as torch's MultiheadAttention)."""
    if not empty_rows_zero:
        return torch.softmax(s, dim=-1)
    empty = torch.isneginf(s).all(dim=-1, keepdim=True)
    return torch.softmax(s.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)


_PLAIN = P_.RelativePositionScheme()  # pos=None: plain attention


class MultiheadAttention(torch.nn.Module):
    """Self- or cross-attention with seqlab's options (see the module docstring). forward as
    torch.nn.MultiheadAttention's: (query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False) -> (out, weights or None)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, batch_first=False, device=None, dtype=None,
                 pos=None, scale=None, num_key_value_heads=None, head_dim=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads if head_dim is None else head_dim
        self.num_key_value_heads = num_heads if num_key_value_heads is None else num_key_value_heads
        inner, kv = num_heads * self.head_dim, self.num_key_value_heads * self.head_dim
        self.in_proj_weight = torch.nn.Parameter(torch.empty(inner + 2 * kv, embed_dim, **kw))
        self.in_proj_bias = torch.nn.Parameter(torch.zeros(inner + 2 * kv, **kw)) if bias else None
        self.out_proj = torch.nn.Linear(inner, embed_dim, bias=bias, **kw)
        torch.nn.init.xavier_uniform_(self.in_proj_weight)
        self.pos, self.scale = pos, scale

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False, cache=None):
        # cache (seqlab's): a KVCache layer entry; the new keys and values are appended to it and the
        # queries sit after the cached positions (self-attention while decoding)
        unbatched = query.dim() == 2
        if unbatched:
            query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
            key_padding_mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(0)
        elif not self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        N, L, _ = query.shape
        S = key.shape[1]
        H, G, D = self.num_heads, self.num_key_value_heads, self.head_dim
        w_q, w_k, w_v = self.in_proj_weight.split([H * D, G * D, G * D])
        b_q, b_k, b_v = (None,) * 3 if self.in_proj_bias is None else self.in_proj_bias.split([H * D, G * D, G * D])
        q = TF.linear(query, w_q, b_q).view(N, L, H, D).transpose(1, 2)
        k = TF.linear(key, w_k, b_k).view(N, S, G, D).transpose(1, 2)
        v = TF.linear(value, w_v, b_v).view(N, S, G, D).transpose(1, 2)
        P = 0 if cache is None else cache.length
        pos = _PLAIN if self.pos is None else self.pos  # the scheme's interface: P_.RelativePositionScheme
        q, k = pos.rotate(q, P), pos.rotate(k, P)  # RoPE: by the index in the batch, padded or not (as seqlab's)
        if cache is not None:
            k, v = cache.append(k, v)
            S = k.shape[2]
        mask = _float_mask(attn_mask, q.dtype)
        if mask is None and is_causal:  # query l (at position P + l) sees the keys j <= P + l
            mask = _float_mask(torch.ones(L, S, dtype=torch.bool, device=q.device).triu(P + 1), q.dtype)
        if mask is not None and mask.dim() == 3:  # (N·H, L, S), torch's layout
            mask = mask.view(N, H, L, S)
        if key_padding_mask is not None:
            pad = _float_mask(key_padding_mask, q.dtype)[:, None, None, :]
            mask = pad if mask is None else mask + pad
        scale = self.scale if self.scale is not None else pos.default_scale(D)
        p = self.dropout if self.training else 0.0
        if need_weights or not pos.additive:
            # weights = dropout(softmax(s + mask)), s the scheme's scores (key/value heads repeated, as
            # seqlab's); out = weights v + the scheme's value term (Shaw's Σ_j p_ij a^V_r)
            kk, vv = (t.repeat_interleave(H // G, dim=1) for t in (k, v))
            scores = pos.scores(q, kk, P, scale, self)
            weights = TF.dropout(_softmax(scores if mask is None else scores + mask, self.pos is not None), p)
            out, extra = weights @ vv, pos.value_term(weights, P)
            out = out if extra is None else out + extra
        else:  # softmax(scale·q kᵀ + mask + bias) v in torch's fused kernel, the scheme's bias materialised
            bias = pos.bias(L, S, P, q.dtype, q.device)
            if bias is not None:
                mask = bias if mask is None else mask + bias
            out = TF.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p, scale=scale,
                                                  enable_gqa=G != H)
        out = self.out_proj(out.transpose(1, 2).reshape(N, L, H * D))
        if unbatched:
            out = out.squeeze(0)
        elif not self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        weights = weights.mean(1) if average_attn_weights else weights
        return out, weights.squeeze(0) if unbatched else weights


class TransformerEncoderLayer(torch.nn.Module):
    """torch.nn.TransformerEncoderLayer with seqlab's options: pos, scale, num_key_value_heads and
    head_dim for the attention; rms_norm (torch.nn.RMSNorm for both norms); glu (the GLU
    feed-forward W_2 dropout(act(W_1 x) ⊙ W_3 x), linear3 = W_3). forward(src, src_mask=None,
    src_key_padding_mask=None, is_causal=False)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=TF.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None, pos=None, scale=None,
                 num_key_value_heads=None, rms_norm=False, glu=False, head_dim=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout, bias, batch_first, pos=pos, scale=scale,
                                            num_key_value_heads=num_key_value_heads, head_dim=head_dim, **kw)
        self.linear1 = torch.nn.Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = torch.nn.Dropout(dropout)
        self.linear2 = torch.nn.Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.linear3 = torch.nn.Linear(d_model, dim_feedforward, bias=bias, **kw) if glu else None
        self.norm_first = norm_first

        def norm():
            return torch.nn.RMSNorm(d_model, eps=layer_norm_eps, **kw) if rms_norm else \
                torch.nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)

        self.norm1, self.norm2 = norm(), norm()
        self.dropout1, self.dropout2 = torch.nn.Dropout(dropout), torch.nn.Dropout(dropout)
        self.activation = {"relu": TF.relu, "gelu": TF.gelu}.get(activation, activation)

    def _sa(self, x, mask, padding, is_causal, cache):
        x = self.self_attn(x, x, x, key_padding_mask=padding, attn_mask=mask, need_weights=False,
                           is_causal=is_causal, cache=cache)[0]
        return self.dropout1(x)

    def _ff(self, x):  # W_2 dropout(act(W_1 x) [⊙ W_3 x]), then the block's dropout
        h = self.activation(self.linear1(x))
        if self.linear3 is not None:
            h = h * self.linear3(x)
        return self._ff_dropout()(self.linear2(self.dropout(h)))

    def _ff_dropout(self):
        return self.dropout2

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False, cache=None):
        x = src
        if self.norm_first:
            x = x + self._sa(self.norm1(x), src_mask, src_key_padding_mask, is_causal, cache)
            return x + self._ff(self.norm2(x))
        x = self.norm1(x + self._sa(x, src_mask, src_key_padding_mask, is_causal, cache))
        return self.norm2(x + self._ff(x))


class TransformerLM(GenerationMixin, torch.nn.Module):
    """seqlab.nn.TransformerLM in torch: logits = lm_head(ln_f(blocks(E[idx] + positions))), its
    blocks pre-LN TransformerEncoderLayers (batch_first) under a causal mask. forward(idx,
    attention_mask=None): idx (N, L) int64 -> logits (N, L, vocab_size); attention_mask (N, L)
    (1 = token, 0 = padding on the left), as seqlab's: no token attends to padding, and each row's
    absolute positions count from its first token (RoPE rotates by the index, as seqlab's)."""

    def __init__(self, vocab_size, d_model=128, nhead=4, num_layers=2, dim_feedforward=None, dropout=0.1,
                 activation="gelu", positional=None, tie_weights=False, layer_norm_eps=1e-5, bias=True, device=None,
                 dtype=None, pos=None, scale=None, embedding_norm=False, num_key_value_heads=None, rms_norm=False,
                 glu=False, head_dim=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.vocab_size, self.d_model, self.nhead, self.num_layers = vocab_size, d_model, nhead, num_layers
        self.dim_feedforward = 4 * d_model if dim_feedforward is None else dim_feedforward
        self.tok_emb = torch.nn.Embedding(vocab_size, d_model, **kw)
        self.embedding_norm = torch.nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw) \
            if embedding_norm else None
        self.positional = positional
        self.drop = torch.nn.Dropout(dropout)
        self.layers = torch.nn.ModuleList([
            TransformerEncoderLayer(d_model, nhead, self.dim_feedforward, dropout, activation, layer_norm_eps,
                                    batch_first=True, norm_first=True, bias=bias, pos=copy.deepcopy(pos), scale=scale,
                                    num_key_value_heads=num_key_value_heads, rms_norm=rms_norm, glu=glu,
                                    head_dim=head_dim, **kw) for _ in range(num_layers)])
        self.ln_f = torch.nn.RMSNorm(d_model, eps=layer_norm_eps, **kw) if rms_norm else \
            torch.nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.lm_head = torch.nn.Linear(d_model, vocab_size, bias=False, **kw)
        if tie_weights:
            self.lm_head.weight = self.tok_emb.weight

    def new_cache(self):
        """An empty KVCache: each block's keys and values, as seqlab's model.new_cache()."""
        return KVCache(self.num_layers)

    def forward(self, idx, attention_mask=None, cache=None):
        """idx (N, L) -> logits (N, L, V); with a KVCache idx holds only the new tokens and
        attention_mask (N, P + L) covers the cached ones too."""
        N, L = idx.shape
        P = 0 if cache is None else cache.get_seq_length()
        i = torch.arange(P, P + L, device=idx.device)[:, None]
        j = torch.arange(P + L, device=idx.device)[None, :]
        positions = None
        if attention_mask is None:
            mask = j > i  # (L, P + L), True = not allowed
        else:  # a padding query sees only itself (its softmax row is not empty); no token sees padding
            keep = attention_mask.to(device=idx.device, dtype=torch.bool)
            mask = ((j > i) | ~keep[:, None, :]) & (j != i)  # (N, L, P + L)
            mask = mask[:, None].expand(N, self.nhead, L, P + L).reshape(N * self.nhead, L, P + L)
            positions = (keep.long().cumsum(1) - 1).clamp(min=0)[:, P:]
        x = self.tok_emb(idx)
        if self.embedding_norm is not None:
            x = self.embedding_norm(x)
        x = self.drop(self._add_positions(x, positions, P))
        for n, block in enumerate(self.layers):
            x = block(x, src_mask=mask, cache=None if cache is None else cache.layers[n])
        return self.lm_head(self.ln_f(x))

    def _add_positions(self, x, positions, start):
        if self.positional is None:
            return x
        if isinstance(self.positional, P_._Absolute):
            return self.positional(x, offset=start, position_ids=positions)
        L = x.shape[1]
        return x + self.positional(torch.arange(start, start + L, device=x.device) if positions is None else positions)


class _LayerCache:
    """One block's cached keys and values, (N, G, P, D) each."""

    def __init__(self):
        self.k = self.v = None

    @property
    def length(self):
        return 0 if self.k is None else self.k.shape[2]

    def append(self, k, v):
        self.k = k if self.k is None else torch.cat([self.k, k], dim=2)
        self.v = v if self.v is None else torch.cat([self.v, v], dim=2)
        return self.k, self.v


class KVCache:
    """The keys and values of the positions decoded so far, one entry per block (seqlab's KVCache's
    methods: get_seq_length, reorder_cache for beam search)."""

    def __init__(self, num_layers):
        self.layers = [_LayerCache() for _ in range(num_layers)]

    def get_seq_length(self):
        return self.layers[0].length

    def reorder_cache(self, beam_idx):
        idx = as_index(beam_idx)
        for layer in self.layers:
            if layer.k is not None:
                layer.k = layer.k.index_select(0, idx.to(layer.k.device))
                layer.v = layer.v.index_select(0, idx.to(layer.v.device))
