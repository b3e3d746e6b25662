"""seqlab.nn.positional's schemes written with torch ops, for the torch twins of seqlab's attention
(seqlab.torch_modules.MultiheadAttention): each holds the seqlab module's parameters under the same
names, so that state dicts move between the two unchanged, and runs wherever torch runs (a GPU).
A scheme whose terms are an additive bias, or a rotation of q and k, hands them to
F.scaled_dot_product_attention, as PyTorch users write them; the others give the attention their
scores (and Shaw's an output term), materialised from per-distance tables gathered by distance.
With query position i and key position j (d = i − j), D the head size, `scale` the attention's:

    ALiBi           bias −m_h·|d|, the slopes of seqlab's alibi_slopes (float64)
    RoPE            q and k rotated by position·base^(−2c/D), interleaved pairs or halves
    T5RelativeBias  bias b[bucket(j − i), h], the buckets of seqlab's t5_relative_position_bucket
    KERPLE          bias −r1_h·log(1 + r2_h·|d|) or −r1_h·|d|^r2_h, r1, r2 clamped as seqlab's
    ShawRelativePosition  scale·(q_i·k_j + q_i·a^K_r), out_i = Σ_j p_ij (v_j + a^V_r), r = clip(j − i, −k, k)
    TransformerXLRelativePosition  scale·((q_i + u)·k_j + (q_i + v)·W_R R_d), R_d = [sin] ++ [cos]
    DeBERTaRelativePosition  scale·(q_i·k_j + q_i·K^r_δ + k_j·Q^r_δ), δ clipped or log-bucketed,
                    scale 1/√((1 + n)·D) for n position terms; share_att_key: the attention's q/k rows
    DARelativePosition  relu(scale·q_i·k_j)·R̂_h(|d|), R̂_h(x) = (1 + e^{v_h})/(1 + e^{v_h − w_h·x})
    SinusoidalPositionalEncoding, LearnedPositionalEmbedding: added to the embeddings

A query at row l sits at position l + offset (offset: the cached length while decoding; keys at
0 … S − 1). The attention's interface to a scheme is RelativePositionScheme's. Tests:
tests/test_to_torch.py, tests/test_to_torch_schemes.py."""
import math

import torch
import torch.nn.functional as TF

from .. import _core
from ..nn import positional as _seqlab
from .._tensor import arange as _sl_arange

__all__ = ["RelativePositionScheme", "ALiBi", "RoPE", "T5RelativeBias", "KERPLE", "ShawRelativePosition",
           "TransformerXLRelativePosition", "DeBERTaRelativePosition", "DARelativePosition",
           "SinusoidalPositionalEncoding", "LearnedPositionalEmbedding"]


class RelativePositionScheme(torch.nn.Module):
    """What the twin attention asks of a scheme, for q (N, H, L, D) at positions offset … offset +
    L − 1 and k (N, H, S, D) at 0 … S − 1 (key/value heads repeated for grouped-query attention, as
    seqlab's). The defaults are plain attention (the attention uses one such for pos=None).

    rotate(x, offset)                  q and k as the scheme changes them, before the KV cache (RoPE)
    bias(L, S, offset, dtype, device)  an additive (H, L, S) bias, or None
    scores(q, k, offset, scale, attention)  the (N, H, L, S) scores before the masks: by default
                                       scale·q kᵀ + bias; `attention`, the MultiheadAttention served
                                       (DeBERTa's share_att_key reads its projections)
    value_term(weights, offset)        a term added to weights @ v (Shaw's value table), or None
    default_scale(head_dim)            the scale when the attention has none: 1/√D

    additive: True when rotate and bias hold all the scheme's terms, so that the attention runs
    F.scaled_dot_product_attention with the bias (unless asked for the weights); False when it
    must materialise scores() and add value_term()."""

    additive = True

    def rotate(self, x, offset=0):
        return x

    def bias(self, L, S, offset, dtype, device):
        return None

    def scores(self, q, k, offset, scale, attention=None):
        s = (q @ k.transpose(-2, -1)) * scale
        b = self.bias(q.shape[-2], k.shape[-2], offset, q.dtype, q.device)
        return s if b is None else s + b

    def value_term(self, weights, offset):
        return None

    def default_scale(self, head_dim):
        return 1.0 / math.sqrt(head_dim)


def _distances(L, S, offset, device):
    """(L, S) int64: i − j for query rows at offset … offset + L − 1 and keys at 0 … S − 1."""
    d, idx = _distance_rows(L, S, offset, device)
    return d[idx]


class ALiBi(RelativePositionScheme):
    """Press et al. 2022: head h adds −m_h·|i − j| to its scores."""

    def __init__(self, num_heads):
        super().__init__()
        self.num_heads = num_heads
        # float64, as seqlab's, whatever the module is cast to (an attribute, not a buffer: .half() leaves
        # it), so that a long distance's bias is exact before the one rounding to the scores' dtype
        self.slopes = torch.from_numpy(_core.alibi_slopes(num_heads).numpy().copy())

    def bias(self, L, S, offset, dtype, device):
        d = _distances(L, S, offset, device).abs().to(torch.float64)
        return (-self.slopes.to(device)[:, None, None] * d).to(dtype)  # (H, L, S)

    def extra_repr(self):
        return f"num_heads={self.num_heads}"


class T5RelativeBias(RelativePositionScheme):
    """Raffel et al. 2020: a learned scalar per head and bucket of j − i (relative_attention_bias,
    an Embedding(num_buckets, num_heads) as T5's)."""

    def __init__(self, num_heads, num_buckets=32, max_distance=128, bidirectional=True, device=None, dtype=None):
        super().__init__()
        self.num_heads, self.num_buckets, self.max_distance = num_heads, num_buckets, max_distance
        self.bidirectional = bidirectional
        self.relative_attention_bias = torch.nn.Embedding(num_buckets, num_heads, device=device, dtype=dtype)
        self._buckets = (None, None)  # the last (L, S, offset, device) and its bucket table: training repeats one shape

    def bucket_table(self, L, S, offset, device):
        key = (L, S, offset, str(device))
        if self._buckets[0] != key:
            rel = -_sl_arange(offset, offset + L).reshape(L, 1) + _sl_arange(S).reshape(1, S)  # j − i
            table = _core.t5_relative_position_bucket(rel, self.bidirectional, self.num_buckets, self.max_distance)
            self._buckets = (key, torch.from_numpy(table.numpy().copy()).to(device))
        return self._buckets[1]

    def bias(self, L, S, offset, dtype, device):
        table = self.bucket_table(L, S, offset, device)  # (L, S) bucket ids
        return self.relative_attention_bias(table).permute(2, 0, 1).to(dtype)  # (H, L, S)

    def extra_repr(self):
        return (f"num_heads={self.num_heads}, num_buckets={self.num_buckets}, max_distance={self.max_distance}, "
                f"bidirectional={self.bidirectional}")


class RoPE(RelativePositionScheme):
    """Su et al. 2021: q and k of head_dim D rotated pairwise by position·θ_c, θ_c = base^(−2c/D);
    interleaved pairs (2c, 2c + 1) as the paper, else (c, c + D/2) as GPT-NeoX and LLaMA."""

    def __init__(self, head_dim, base=10000.0, interleaved=True):
        super().__init__()
        self.head_dim, self.base, self.interleaved = head_dim, float(base), bool(interleaved)

    def rotate(self, x, offset=0):
        """x (..., L, D) rotated at positions offset … offset + L − 1."""
        L, D = x.shape[-2], self.head_dim
        positions = torch.arange(offset, offset + L, device=x.device)
        theta = self.base ** (-2.0 * torch.arange(D // 2, device=x.device, dtype=torch.float64) / D)
        angle = positions.to(torch.float64)[..., None] * theta  # (..., L, D/2)
        cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
        if self.interleaved:
            a, b = x[..., 0::2], x[..., 1::2]
            return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)
        a, b = x[..., :D // 2], x[..., D // 2:]
        return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)

    def extra_repr(self):
        return f"head_dim={self.head_dim}, base={self.base:g}, interleaved={self.interleaved}"


def _distance_rows(L, S, offset, device):
    """The distances a block of queries meets, and where each pair reads them: d (L + S − 1,) int64,
    offset − S + 1 … offset + L − 1, and idx (L, S), the entry of d holding (l + offset) − j. A
    scheme builds its per-distance tables over d (O(L + S) rows) and reads them at idx."""
    d = torch.arange(offset - S + 1, offset + L, device=device)
    idx = torch.arange(L, device=device)[:, None] - torch.arange(S, device=device)[None, :] + (S - 1)
    return d, idx


def _by_query(t, rows):
    """t (N, H, L, R) read at rows (L, S): out[n, h, l, s] = t[n, h, l, rows[l, s]]."""
    return t.gather(-1, rows.expand(*t.shape[:-2], *rows.shape))


def _by_key(t, rows):
    """t (N, H, S, R) read at rows (L, S): out[n, h, l, s] = t[n, h, s, rows[l, s]]."""
    return t.transpose(-2, -1).gather(-2, rows.expand(*t.shape[:-2], *rows.shape))


class KERPLE(RelativePositionScheme):
    """Chi et al. 2022: head h adds b_h(|d|), b_h(x) = −r1_h·log(1 + r2_h·x) (kernel "log") or
    −r1_h·x^r2_h ("power"), r1 = bias_p and r2 = bias_a clamped to >= 0.01 (r2 <= 2 for "power")."""

    def __init__(self, num_heads, kernel="log", device=None, dtype=None):
        super().__init__()
        if kernel not in ("log", "power"):
            raise ValueError(f"KERPLE: kernel must be 'log' or 'power', got {kernel!r}")
        self.num_heads, self.kernel = num_heads, kernel
        self.bias_p = torch.nn.Parameter(torch.empty(num_heads, device=device, dtype=dtype).uniform_(0.0, 2.0))
        self.bias_a = torch.nn.Parameter(torch.empty(num_heads, device=device, dtype=dtype).uniform_(0.0, 1.0))

    def bias(self, L, S, offset, dtype, device):
        d, idx = _distance_rows(L, S, offset, device)
        x = d.abs().to(dtype)
        r1 = self.bias_p.clamp(min=0.01)[:, None]
        r2 = self.bias_a.clamp(min=0.01, max=2.0 if self.kernel == "power" else None)[:, None]
        far = x.clamp(min=1.0)  # b_h(0) = 0; x^r2 = exp(r2·log x) from x = 1 on (log 0 would make NaN gradients)
        kernel = torch.exp(r2 * torch.log(far)) if self.kernel == "power" else torch.log(1.0 + r2 * far)
        table = torch.where(x == 0, torch.zeros((), dtype=dtype, device=device), -(r1 * kernel))  # (H, L + S − 1)
        return table[:, idx].to(dtype)  # (H, L, S)

    def extra_repr(self):
        return f"num_heads={self.num_heads}, kernel={self.kernel!r}"


class ShawRelativePosition(RelativePositionScheme):
    """Shaw et al. 2018: key and value vectors a^K_r, a^V_r shared by the heads (relative_key,
    relative_value: (2k + 1, head_dim), row r + k) for r = clip(j − i, −k, k):
    s_ij = scale·(q_i·k_j + q_i·a^K_r), out_i = Σ_j p_ij (v_j + a^V_r); values=False: no a^V."""

    additive = False

    def __init__(self, head_dim, max_relative_position=16, values=True, device=None, dtype=None):
        super().__init__()
        self.head_dim, self.max_relative_position = head_dim, max_relative_position
        rows, kw = 2 * max_relative_position + 1, dict(device=device, dtype=dtype)
        self.relative_key = torch.nn.Parameter(torch.nn.init.xavier_uniform_(torch.empty(rows, head_dim, **kw)))
        self.relative_value = torch.nn.Parameter(torch.nn.init.xavier_uniform_(torch.empty(rows, head_dim, **kw))) \
            if values else None

    def _rows(self, L, S, offset, device):
        k = self.max_relative_position
        d, idx = _distance_rows(L, S, offset, device)
        return ((-d).clamp(-k, k) + k)[idx]  # (L, S): the table row of r = clip(j − i, −k, k)

    def scores(self, q, k, offset, scale, attention=None):
        rows = self._rows(q.shape[-2], k.shape[-2], offset, q.device)
        position = _by_query(q @ self.relative_key.t(), rows)  # q_i·a^K_r
        return (q @ k.transpose(-2, -1)) * scale + position * scale

    def value_term(self, weights, offset):
        if self.relative_value is None:
            return None
        L, S = weights.shape[-2:]
        rows = self._rows(L, S, offset, weights.device).expand_as(weights)
        # Σ_j p_ij a^V_r = Σ_r (Σ_{j: r(i, j) = r} p_ij) a^V_r: the weights summed by table row, then one product
        per_row = weights.new_zeros(*weights.shape[:-1], self.relative_value.shape[0]).scatter_add(-1, rows, weights)
        return per_row @ self.relative_value

    def extra_repr(self):
        return (f"head_dim={self.head_dim}, max_relative_position={self.max_relative_position}, "
                f"values={self.relative_value is not None}")


class TransformerXLRelativePosition(RelativePositionScheme):
    """Dai et al. 2019, §3.3: s_ij = scale·((q_i + u)·k_j + (q_i + v)·W_R R_d) with u, v = r_w_bias,
    r_r_bias (H, D), W_R = r_net (no bias) and R_d = [sin(d·ω_c)]_c ++ [cos(d·ω_c)]_c, ω_c =
    base^(−2c/embed_dim) (all the sines, then all the cosines, as Transformer-XL's code)."""

    additive = False

    def __init__(self, embed_dim, num_heads, base=10000.0, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embed_dim, self.num_heads, self.base = embed_dim, num_heads, float(base)
        self.r_net = torch.nn.Linear(embed_dim, embed_dim, bias=False, **kw)
        self.r_w_bias = torch.nn.Parameter(torch.empty(num_heads, embed_dim // num_heads, **kw).normal_(0.0, 0.02))
        self.r_r_bias = torch.nn.Parameter(torch.empty(num_heads, embed_dim // num_heads, **kw).normal_(0.0, 0.02))

    def sinusoid(self, d, dtype):
        """R_d for the distances d: (len(d), embed_dim), computed in float64."""
        omega = self.base ** (-2.0 * torch.arange(self.embed_dim // 2, device=d.device, dtype=torch.float64)
                              / self.embed_dim)
        angle = d.to(torch.float64)[:, None] * omega
        return torch.cat((angle.sin(), angle.cos()), dim=-1).to(dtype)

    def scores(self, q, k, offset, scale, attention=None):
        H, L, D = q.shape[-3:]
        d, idx = _distance_rows(L, k.shape[-2], offset, q.device)
        R = self.r_net(self.sinusoid(d, q.dtype)).view(-1, H, D).transpose(0, 1)  # W_R R_d by head: (H, L + S − 1, D)
        content = (q + self.r_w_bias[:, None]) @ k.transpose(-2, -1)  # (q_i + u)·k_j
        position = _by_query((q + self.r_r_bias[:, None]) @ R.transpose(-2, -1), idx)  # (q_i + v)·W_R R_{i−j}
        return content * scale + position * scale

    def extra_repr(self):
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, base={self.base:g}"


class DeBERTaRelativePosition(RelativePositionScheme):
    """He et al. 2021, §3.1 (DeBERTa-v2's code): s_ij = scale·(q_i·k_j + q_i·K^r_δ + k_j·Q^r_δ), the
    c2p and p2c terms as pos_att_type holds them, scale 1/√((1 + n)·D) by default for n terms, δ =
    clip(b(i − j) + s, 0, 2s − 1) for both terms, b the identity and s = max_relative_position, or
    with position_buckets > 0 DeBERTa-v2's log bucket (seqlab's deberta_log_bucket_position) and s =
    position_buckets. K^r, Q^r: the relative embeddings P = rel_embeddings (after rel_norm with
    norm_rel_ebd="layer_norm") through pos_key_proj, pos_query_proj, or with share_att_key through
    the attention's own key and query rows of in_proj_weight / in_proj_bias."""

    additive = False

    def __init__(self, embed_dim, num_heads, max_relative_position=64, device=None, dtype=None, position_buckets=-1,
                 share_att_key=False, pos_att_type=("c2p", "p2c"), norm_rel_ebd=None, layer_norm_eps=1e-7):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embed_dim, self.num_heads, self.max_relative_position = embed_dim, num_heads, max_relative_position
        self.position_buckets = position_buckets if position_buckets > 0 else -1
        self.share_att_key, self.pos_att_type = bool(share_att_key), tuple(pos_att_type)
        self.span = self.position_buckets if self.position_buckets > 0 else max_relative_position
        self.rel_embeddings = torch.nn.Embedding(2 * self.span, embed_dim, **kw)
        torch.nn.init.normal_(self.rel_embeddings.weight, 0.0, 0.02)
        own = not self.share_att_key
        self.pos_key_proj = torch.nn.Linear(embed_dim, embed_dim, **kw) if own and "c2p" in self.pos_att_type else None
        self.pos_query_proj = torch.nn.Linear(embed_dim, embed_dim, **kw) if own and "p2c" in self.pos_att_type \
            else None
        self.rel_norm = torch.nn.LayerNorm(embed_dim, eps=layer_norm_eps, **kw) if norm_rel_ebd == "layer_norm" \
            else None
        self._buckets = (None, None)  # the last (first, last distance) and their log buckets

    def default_scale(self, head_dim):
        n = ("c2p" in self.pos_att_type) + ("p2c" in self.pos_att_type)
        return 1.0 / math.sqrt((1 + n) * head_dim)

    def _log_buckets(self, first, last, device):
        """b(d) for d = first … last: seqlab's op (DeBERTa-v2's float32 logs), moved to torch."""
        if self._buckets[0] != (first, last, str(device)):
            b = _core.deberta_log_bucket_position(_sl_arange(first, last + 1), self.position_buckets,
                                                  self.max_relative_position)
            self._buckets = ((first, last, str(device)), torch.from_numpy(b.numpy().copy()).to(device))
        return self._buckets[1]

    def _rows(self, L, S, offset, device):
        d, idx = _distance_rows(L, S, offset, device)
        if self.position_buckets > 0:
            d = self._log_buckets(offset - S + 1, offset + L - 1, device)
        return (d + self.span).clamp(0, 2 * self.span - 1)[idx]  # (L, S): δ(i, j)

    def _projections(self, attention):
        """((W, b) of K^r or None, (W, b) of Q^r or None)."""
        if not self.share_att_key:
            return tuple(None if p is None else (p.weight, p.bias) for p in (self.pos_key_proj, self.pos_query_proj))
        if attention is None:
            raise ValueError("DeBERTaRelativePosition: with share_att_key=True the position terms use the attention's "
                             "own query and key projections; use the scheme as pos= of a MultiheadAttention")
        E = self.embed_dim
        if attention.num_key_value_heads * attention.head_dim != E:
            raise ValueError("DeBERTaRelativePosition: share_att_key needs as many key heads as query heads of "
                             f"embed_dim // num_heads (the attention has num_key_value_heads="
                             f"{attention.num_key_value_heads}, head_dim={attention.head_dim})")
        w, b = attention.in_proj_weight, attention.in_proj_bias  # rows [W_Q; W_K; W_V]: views, gradients reach them
        return (w[E:2 * E], None if b is None else b[E:2 * E]), (w[:E], None if b is None else b[:E])

    def scores(self, q, k, offset, scale, attention=None):
        H, L, D = q.shape[-3:]
        s = (q @ k.transpose(-2, -1)) * scale  # q_i·k_j
        if not self.pos_att_type:
            return s
        delta = self._rows(L, k.shape[-2], offset, q.device)
        P = self.rel_embeddings.weight if self.rel_norm is None else self.rel_norm(self.rel_embeddings.weight)
        key_proj, query_proj = self._projections(attention)

        def by_head(weight, bias):  # P W + b split into heads: (H, 2s, D)
            return TF.linear(P, weight, bias).view(-1, H, D).transpose(0, 1)

        if "c2p" in self.pos_att_type:  # q_i·K^r_δ(i,j)
            s = s + _by_query(q @ by_head(*key_proj).transpose(-2, -1), delta) * scale
        if "p2c" in self.pos_att_type:  # k_j·Q^r_δ(i,j)
            s = s + _by_key(k @ by_head(*query_proj).transpose(-2, -1), delta) * scale
        return s

    extra_repr = _seqlab.DeBERTaRelativePosition.extra_repr  # (the same attributes: seqlab's repr, written once)


class DARelativePosition(RelativePositionScheme):
    """Wu et al. 2021 (DA-Transformer): s_ij = relu(scale·q_i·k_j)·R̂_h(|d|), R̂_h(x) = (1 + e^{v_h}) /
    (1 + e^{v_h − w_h·x}), w = distance_weight and v = sigmoid_shift (H): multiplicative, not a bias."""

    additive = False

    def __init__(self, num_heads, device=None, dtype=None):
        super().__init__()
        self.num_heads = num_heads
        self.distance_weight = torch.nn.Parameter(torch.zeros(num_heads, device=device, dtype=dtype))
        self.sigmoid_shift = torch.nn.Parameter(torch.zeros(num_heads, device=device, dtype=dtype))

    def multiplier(self, L, S, offset, dtype, device):
        """R̂_h(|i − j|): (H, L, S)."""
        d, idx = _distance_rows(L, S, offset, device)
        x = d.abs().to(dtype)
        v, w = self.sigmoid_shift[:, None], self.distance_weight[:, None]
        return ((1.0 + torch.exp(v)) / (1.0 + torch.exp(v - w * x)))[:, idx]

    def scores(self, q, k, offset, scale, attention=None):
        s = (q @ k.transpose(-2, -1)) * scale
        return torch.relu(s) * self.multiplier(q.shape[-2], k.shape[-2], offset, q.dtype, q.device)

    def extra_repr(self):
        return f"num_heads={self.num_heads}"


class _Absolute(torch.nn.Module):
    def __init__(self, batch_first):
        super().__init__()
        self.batch_first = batch_first

    def _add(self, x, table):  # table (L, E), or (N, L, E) per token
        if table.dim() == 2 and x.dim() == 3 and not self.batch_first:
            table = table.unsqueeze(1)
        return x + table


class SinusoidalPositionalEncoding(_Absolute):
    """Vaswani et al. 2017, §3.5: x + PE(p), then dropout."""

    def __init__(self, d_model, dropout=0.0, base=10000.0, batch_first=True):
        super().__init__(batch_first)
        self.d_model, self.base = d_model, float(base)
        self.dropout = torch.nn.Dropout(dropout)

    def encoding(self, positions, dtype):
        c = torch.arange(self.d_model // 2, device=positions.device, dtype=torch.float64)
        angle = positions.to(torch.float64)[..., None] / self.base ** (2.0 * c / self.d_model)
        return torch.stack((angle.sin(), angle.cos()), dim=-1).flatten(-2).to(dtype)

    def forward(self, x, offset=0, position_ids=None):
        L = x.shape[1] if self.batch_first and x.dim() == 3 else x.shape[0]
        positions = torch.arange(offset, offset + L, device=x.device) if position_ids is None else position_ids
        return self.dropout(self._add(x, self.encoding(positions, x.dtype)))


class LearnedPositionalEmbedding(_Absolute):
    """x + E[p] (BERT, GPT-2), then dropout."""

    def __init__(self, max_len, d_model, dropout=0.0, batch_first=True, device=None, dtype=None):
        super().__init__(batch_first)
        self.max_len, self.d_model = max_len, d_model
        self.weight = torch.nn.Parameter(torch.empty(max_len, d_model, device=device, dtype=dtype))
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x, offset=0, position_ids=None):
        L = x.shape[1] if self.batch_first and x.dim() == 3 else x.shape[0]
        first, last = (offset, offset + L - 1) if position_ids is None else \
            (int(position_ids.min()), int(position_ids.max()))
        if last >= self.max_len:  # (seqlab's error: a learned table cannot extrapolate)
            raise IndexError(f"LearnedPositionalEmbedding: positions {first}..{last} reach past the table of "
                             f"max_len={self.max_len} positions (0..{self.max_len - 1}; a learned table cannot "
                             f"extrapolate: use a relative scheme or a larger max_len)")
        if position_ids is not None:
            return self.dropout(self._add(x, self.weight[position_ids]))
        return self.dropout(self._add(x, self.weight[offset:offset + L]))
