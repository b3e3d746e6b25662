"""seqlab.nn.positional's schemes written with torch ops, for the torch twins of seqlab's attention
(seqlab.torch_modules.MultiheadAttention): each holds the seqlab module's parameters under the same
names, so that state dicts move between the two unchanged, and runs wherever torch runs (a GPU:
the terms are materialised as an additive bias, or a rotation of q and k, for
F.scaled_dot_product_attention, as PyTorch users write them).

    ALiBi           bias −m_h·|i − j|, the slopes of seqlab's alibi_slopes (a buffer)
    RoPE            q and k rotated by position·base^(−2c/D), interleaved pairs or halves
    T5RelativeBias  bias b[bucket(j − i), h], the buckets of seqlab's t5_relative_position_bucket
    SinusoidalPositionalEncoding, LearnedPositionalEmbedding: added to the embeddings

A query at row l sits at position l + offset (keys at 0 … S − 1). Tests: tests/test_to_torch.py."""
import torch

from .. import _core
from .._tensor import arange as _sl_arange

__all__ = ["ALiBi", "RoPE", "T5RelativeBias", "SinusoidalPositionalEncoding", "LearnedPositionalEmbedding"]


def _distances(L, S, offset, device):
    """(L, S) int64: i − j for query rows at offset … offset + L − 1 and keys at 0 … S − 1."""
    i = torch.arange(offset, offset + L, device=device)[:, None]
    return i - torch.arange(S, device=device)[None, :]


class ALiBi(torch.nn.Module):
    """Press et al. 2022: head h adds −m_h·|i − j| to its scores."""

    def __init__(self, num_heads):
        super().__init__()
        self.num_heads = num_heads
        slopes = torch.from_numpy(_core.alibi_slopes(num_heads).numpy().copy())
        self.register_buffer("slopes", slopes, persistent=False)  # float64; cast to the scores' dtype

    def bias(self, L, S, offset, dtype, device):
        d = _distances(L, S, offset, device).abs().to(torch.float64)
        return (-self.slopes.to(device)[:, None, None] * d).to(dtype)  # (H, L, S)

    def extra_repr(self):
        return f"num_heads={self.num_heads}"


class T5RelativeBias(torch.nn.Module):
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


class RoPE(torch.nn.Module):
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
        if position_ids is not None:
            return self.dropout(self._add(x, self.weight[position_ids]))
        return self.dropout(self._add(x, self.weight[offset:offset + L]))
