"""seqlab.nn.positional: how a transformer learns word order, one module per scheme.

Self-attention alone is blind to order: permute the tokens and the outputs permute with them. Each
scheme below gives positions back, and one model definition trains with any of them:

    pos = positional.ALiBi(num_heads=8)             # or RoPE(head_dim), T5RelativeBias(8), ...
    layer = nn.TransformerEncoderLayer(512, 8, pos=pos)   # also nn.MultiheadAttention(..., pos=pos)

Relative schemes go inside the attention (``pos=``); their terms are computed from positions
inside the fused attention kernel, forward and backward, from per-head tables of O(L) rows, never
an L×S bias (cpp/src/ops/positional.cpp, attention_fused.cpp). The absolute ones add to the
embeddings (``x = pe(x)``). Learned tables are ordinary parameters (state dicts, optimizers, init).
With query position i and key position j (d = i − j):

    NoPE                           nothing (Kazemnejad et al. 2023: causal decoders still learn order)
    SinusoidalPositionalEncoding   x + PE, PE(p, 2c) = sin(p / 10000^(2c/d)), PE(p, 2c+1) = cos(...)
    LearnedPositionalEmbedding     x + E[p], a learned table (BERT, GPT-2)
    ShawRelativePosition           q_i·(k_j + a^K_r)/√D, out_i = Σ_j p_ij (v_j + a^V_r), r = clip(j − i, −k, k)
    TransformerXLRelativePosition  ((q_i + u)·k_j + (q_i + v)·W_R R_{i−j})/√D, R the sinusoid
    T5RelativeBias                 q_i·k_j/√D + b_h[bucket(j − i)], log-spaced buckets (T5 itself: scale=1.0)
    DeBERTaRelativePosition        (q_i·k_j + q_i·K^r_δ(i,j) + k_j·Q^r_δ(i,j))/√(3D), δ clipped or log-bucketed
    RoPE                           q, k rotated pairwise by position·θ_c, θ_c = base^(−2c/D)
    ALiBi                          q_i·k_j/√D − m_h·|i − j|, m_h geometric in the head
    DARelativePosition             relu(q_i·k_j)·R̂_h(|i − j|)/√D, R̂_h a learned sigmoid of w_h·|i − j|
    KERPLE                         q_i·k_j/√D − r1_h·log(1 + r2_h·|i − j|), r1, r2 learned (or a power kernel)

Tests: tests/test_positional.py (each against its formula written in torch ops, gradcheck, the
properties the papers state)."""
from .. import _core
from .._core import deberta_log_bucket_position
from .._tensor import arange, float32, float64, tensor
from . import init
from ._helpers import _empty, _factory
from .modules.dropout import Dropout
from .modules.linear import Linear
from .modules.module import Module
from .modules.normalization import LayerNorm
from .modules.sparse import Embedding
from .parameter import Parameter

__all__ = ["NoPE", "SinusoidalPositionalEncoding", "LearnedPositionalEmbedding", "ShawRelativePosition",
           "TransformerXLRelativePosition", "T5RelativeBias", "DeBERTaRelativePosition", "RoPE", "ALiBi",
           "DARelativePosition", "KERPLE", "RelativePositionScheme", "SCHEMES"]


# Every scheme by its short name, in the order defined (the experiments' tables follow it): a class
# joins with `class X(RelativePositionScheme, name="x")` and says, in for_model(), how a causal
# language model of a given size uses it. seqlab.experiments.length_generalization and the tests
# that run every scheme read this table, so a new scheme needs no other list.
SCHEMES = {}


class _Registered:
    def __init_subclass__(cls, name=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if name is not None:
            SCHEMES[name] = cls
            cls.name = name

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        """The scheme as a causal decoder of width d_model with nhead heads, trained on sequences of up
        to max_len, uses it in seqlab's experiments."""
        raise NotImplementedError(f"{cls.__name__}.for_model")


class RelativePositionScheme(_Registered, Module):
    """A scheme that acts inside the attention: pass it as ``pos=`` to MultiheadAttention or the
    Transformer layers, or call ``attention(q, k, v)`` on (B, H, L, D) heads yourself.
    scheme() is what the C++ attention reads: kind (the C++ scheme registered under that name,
    cpp/src/ops/positional/<kind>.cpp), options and the parameters by name."""

    kind = "none"

    def scheme(self, attention=None):
        """attention: the MultiheadAttention the scheme serves, when it does (a scheme that shares
        the attention's projections reads them from it: DeBERTa's share_att_key)."""
        return _core.PositionalScheme(kind=self.kind, options=self._options(), params=self._params())

    def _options(self):
        return {}

    def _params(self):
        return {}

    def attention(self, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, q_offset=0):
        """softmax(scores with this scheme's terms) V for query (B, H, L, D), key (B, H, S, D), value
        (B, H, S, Dv): the fused kernel. attn_mask (bool: True = may attend, or float added) and
        is_causal as scaled_dot_product_attention's; query l sits at position l + q_offset."""
        return _core.positional_attention(query, key, value, self.scheme(), attn_mask, dropout_p, is_causal, scale,
                                          q_offset)

    def attention_weights(self, query, key, attn_mask=None, is_causal=False, scale=None, q_offset=0):
        """The (B, H, L, S) weights of attention(), materialised and differentiable: to plot."""
        return _core.positional_attention_weights(query, key, self.scheme(), attn_mask, is_causal, scale, q_offset)

    def attention_math(self, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                       q_offset=0):
        """attention() by ordinary ops with the (B, H, L, S) terms materialised: the composed twin."""
        return _core.positional_attention_math(query, key, value, self.scheme(), attn_mask, dropout_p, is_causal,
                                               scale, q_offset)


class NoPE(RelativePositionScheme, name="nope"):
    """No positional information at all (Kazemnejad et al. 2023): without a causal mask the model
    is permutation-equivariant; a causal decoder still learns some order from the mask."""

    kind = "none"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls()


def _check_heads(num_heads, name):
    if not isinstance(num_heads, int) or isinstance(num_heads, bool) or num_heads < 1:
        raise ValueError(f"{name}: num_heads must be a positive int, got {num_heads!r}")
    return num_heads


class RoPE(RelativePositionScheme, name="rope"):
    """Rotary position embedding (Su et al. 2021, RoFormer): q and k of head_dim D are rotated
    pairwise by position·θ_c, θ_c = base^(−2c/D), so q_m·k_n depends on m − n only. interleaved=True
    pairs features (2c, 2c+1) as the paper does; False pairs (c, c + D/2) as GPT-NeoX and LLaMA.
    Computed elementwise with cos/sin (never a D×D matrix); no parameters."""

    kind = "rope"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(d_model // nhead)

    def __init__(self, head_dim, base=10000.0, interleaved=True):
        super().__init__()
        if not isinstance(head_dim, int) or head_dim < 2 or head_dim % 2:
            raise ValueError(f"RoPE rotates pairs of features, so head_dim must be even and positive, got {head_dim!r}")
        self.head_dim, self.base, self.interleaved = head_dim, float(base), bool(interleaved)

    def _options(self):
        return dict(base=self.base, interleaved=self.interleaved, head_dim=self.head_dim)

    def rotate(self, x, offset=0):
        """x (..., L, head_dim) rotated at positions offset, ..., offset + L − 1."""
        if x.shape[-1] != self.head_dim:
            raise ValueError(f"RoPE: expected head_dim {self.head_dim}, got x of shape {tuple(x.shape)}")
        return _core.rotary_embedding(x, offset, self.base, self.interleaved)

    def extra_repr(self):
        return f"head_dim={self.head_dim}, base={self.base:g}, interleaved={self.interleaved}"


class ALiBi(RelativePositionScheme, name="alibi"):
    """Attention with linear biases (Press et al. 2022): no position embeddings; head h adds
    −m_h·|i − j| to its scores, m_h = 2^(−8h/n) for n heads a power of two (1/2, 1/4, ..., 1/256 for
    8), the paper's interleaving rule otherwise (slopes()). No parameters."""

    kind = "alibi"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(nhead)

    def __init__(self, num_heads):
        super().__init__()
        self.num_heads = _check_heads(num_heads, "ALiBi")

    def _options(self):
        return dict(num_heads=self.num_heads)

    def slopes(self):
        return _core.alibi_slopes(self.num_heads)

    def extra_repr(self):
        return f"num_heads={self.num_heads}"


class T5RelativeBias(RelativePositionScheme, name="t5"):
    """T5's relative attention bias (Raffel et al. 2020): a learned scalar per head and bucket of
    j − i added to the scores; buckets are exact for small distances and log-spaced up to
    max_distance; bidirectional=False (a causal decoder) counts only keys before the query.
    Parameter: relative_attention_bias, an Embedding(num_buckets, num_heads) as in T5.

    T5 does not divide the scores by √D (its initialisation of W_Q absorbs the factor): to
    reproduce T5 (or load its weights), pass scale=1.0 to the attention, e.g.
    nn.TransformerEncoderLayer(d, h, pos=T5RelativeBias(h), scale=1.0) or TransformerLM(...,
    pos=..., scale=1.0). Without it the scores are scaled by 1/√D as in the other schemes."""

    kind = "t5"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(nhead, num_buckets=32, max_distance=128, bidirectional=False, dtype=dtype)

    def __init__(self, num_heads, num_buckets=32, max_distance=128, bidirectional=True, device=None, dtype=None):
        super().__init__()
        self.num_heads = _check_heads(num_heads, "T5RelativeBias")
        self.num_buckets, self.max_distance, self.bidirectional = num_buckets, max_distance, bool(bidirectional)
        self.bucket(tensor([0]))  # refuses bucket counts that leave no log-spaced buckets
        self.relative_attention_bias = Embedding(num_buckets, num_heads, device=device, dtype=dtype)

    def _options(self):
        return dict(num_heads=self.num_heads, num_buckets=self.num_buckets, max_distance=self.max_distance,
                    bidirectional=self.bidirectional)

    def _params(self):
        return dict(relative_attention_bias=self.relative_attention_bias.weight)

    def bucket(self, relative_position):
        """The bucket of each relative position j − i (an int64 tensor)."""
        return _core.t5_relative_position_bucket(relative_position, self.bidirectional, self.num_buckets,
                                                 self.max_distance)


class ShawRelativePosition(RelativePositionScheme, name="shaw"):
    """Self-attention with relative position representations (Shaw et al. 2018): learned key and
    value vectors a^K_r, a^V_r for the clipped distance r = clip(j − i, −k, k), shared by the heads:
    e_ij = q_i·(k_j + a^K_r)/√D, out_i = Σ_j p_ij (v_j + a^V_r). Parameters relative_key and
    relative_value (2k + 1, head_dim); values=False keeps the key term only."""

    kind = "shaw"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(d_model // nhead, 16, dtype=dtype)

    def __init__(self, head_dim, max_relative_position=16, values=True, device=None, dtype=None):
        super().__init__()
        if max_relative_position < 1:
            raise ValueError(f"ShawRelativePosition: max_relative_position must be >= 1, got {max_relative_position}")
        self.head_dim, self.max_relative_position = head_dim, max_relative_position
        dtype = _factory(device, dtype)
        rows = 2 * max_relative_position + 1
        self.relative_key = Parameter(_empty((rows, head_dim), dtype))
        if values:
            self.relative_value = Parameter(_empty((rows, head_dim), dtype))
        else:
            self.register_parameter("relative_value", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.xavier_uniform_(self.relative_key)  # the paper's implementation (tensor2tensor) draws Glorot-uniform
        if self.relative_value is not None:
            init.xavier_uniform_(self.relative_value)

    def _options(self):
        return dict(max_relative_position=self.max_relative_position)

    def _params(self):
        p = dict(relative_key=self.relative_key)
        if self.relative_value is not None:
            p["relative_value"] = self.relative_value
        return p


class TransformerXLRelativePosition(RelativePositionScheme, name="xl"):
    """Transformer-XL's relative attention (Dai et al. 2019, §3.3): the score of query i and key j is
    (a) q_i·k_j + (b) q_i·W_R R_{i−j} + (c) u·k_j + (d) v·W_R R_{i−j}, over √D, with R the sinusoid
    of the distance, W_R (r_net, no bias) its projection and u, v (r_w_bias, r_r_bias: (H, D)) the
    global content and position biases. R is laid out as Transformer-XL's (and XLNet's)
    PositionalEmbedding: all the sines, then all the cosines, R_d = [sin(d·ω_c)]_c ++ [cos(d·ω_c)]_c
    with ω_c = base^(−2c/embed_dim), so their r_net, r_w_bias and r_r_bias load and compute the same
    attention (the absolute SinusoidalPositionalEncoding interleaves them, as torch's tutorial)."""

    kind = "xl"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(d_model, nhead, dtype=dtype)

    def __init__(self, embed_dim, num_heads, base=10000.0, device=None, dtype=None):
        super().__init__()
        self.num_heads = _check_heads(num_heads, "TransformerXLRelativePosition")
        if embed_dim % num_heads:
            raise ValueError(f"TransformerXLRelativePosition: embed_dim {embed_dim} not divisible by num_heads "
                             f"{num_heads}")
        self.embed_dim, self.base = embed_dim, float(base)
        dtype = _factory(device, dtype)
        head_dim = embed_dim // num_heads
        self.r_net = Linear(embed_dim, embed_dim, bias=False, dtype=dtype)
        self.r_w_bias = Parameter(_empty((num_heads, head_dim), dtype))
        self.r_r_bias = Parameter(_empty((num_heads, head_dim), dtype))
        init.normal_(self.r_w_bias, 0.0, 0.02)  # Transformer-XL's init_std
        init.normal_(self.r_r_bias, 0.0, 0.02)

    def _options(self):
        return dict(num_heads=self.num_heads, base=self.base)

    def _params(self):
        return dict(r_w_bias=self.r_w_bias, r_r_bias=self.r_r_bias, r_net=self.r_net.weight)


class DeBERTaRelativePosition(RelativePositionScheme, name="deberta"):
    """DeBERTa's disentangled attention (He et al. 2021, §3.1): content-to-content, content-to-
    position and position-to-content terms, q_i·k_j + q_i·K^r_δ(i,j) + k_j·Q^r_δ(i,j), over √(3D),
    with δ(i, j) = clip(i − j, −k, k − 1) + k (k = max_relative_position), relative embeddings
    rel_embeddings (2k, embed_dim) and their projections pos_key_proj (K^r) and pos_query_proj (Q^r).
    Convention: the position-to-content term reads row δ(i, j), as DeBERTa's released code and
    Hugging Face's DebertaV2 (its DisentangledSelfAttention) compute it, so their weights give
    their attention; eq. 4 of the paper writes δ(j, i) there.

    DeBERTa-v2's options, under its config's names:
    position_buckets > 0: distances log-bucketed (deberta_log_bucket_position) up to
        max_relative_position, with δ = clip(bucket(i − j) + s, 0, 2s − 1), s = position_buckets,
        and rel_embeddings (2s, embed_dim);
    share_att_key: K^r and Q^r are the attention's own key and query projections of the relative
        embeddings (no pos_*_proj of its own); the scheme then works only as pos= of a
        MultiheadAttention, whose projections it reads;
    pos_att_type: the position terms used, a subset of ("c2p", "p2c"); the scores are over
        √((1 + len(pos_att_type))·D);
    norm_rel_ebd="layer_norm": rel_embeddings pass through a LayerNorm (rel_norm, eps
        layer_norm_eps) before they are projected."""

    kind = "deberta"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(d_model, nhead, 32, dtype=dtype)

    def __init__(self, embed_dim, num_heads, max_relative_position=64, device=None, dtype=None, position_buckets=-1,
                 share_att_key=False, pos_att_type=("c2p", "p2c"), norm_rel_ebd=None, layer_norm_eps=1e-7):
        super().__init__()
        self.num_heads = _check_heads(num_heads, "DeBERTaRelativePosition")
        if embed_dim % num_heads:
            raise ValueError(f"DeBERTaRelativePosition: embed_dim {embed_dim} not divisible by num_heads {num_heads}")
        if max_relative_position < 1:
            raise ValueError(f"DeBERTaRelativePosition: max_relative_position must be >= 1, got "
                             f"{max_relative_position}")
        pos_att_type = tuple(pos_att_type)
        if any(t not in ("c2p", "p2c") for t in pos_att_type):
            raise ValueError(f"DeBERTaRelativePosition: pos_att_type holds 'c2p' and/or 'p2c', got {pos_att_type!r}")
        if norm_rel_ebd not in (None, "none", "layer_norm"):
            raise ValueError(f"DeBERTaRelativePosition: norm_rel_ebd must be None or 'layer_norm', got {norm_rel_ebd!r}")
        self.embed_dim, self.max_relative_position = embed_dim, max_relative_position
        self.position_buckets = position_buckets if position_buckets > 0 else -1
        if self.position_buckets > 0:
            try:  # the op checks that the two leave log-spaced buckets
                deberta_log_bucket_position(tensor([0]), self.position_buckets, max_relative_position)
            except RuntimeError as e:
                raise ValueError(f"DeBERTaRelativePosition: {e}") from None
        self.share_att_key, self.pos_att_type = bool(share_att_key), pos_att_type
        span = self.position_buckets if self.position_buckets > 0 else max_relative_position
        self.rel_embeddings = Embedding(2 * span, embed_dim, device=device, dtype=dtype)
        init.normal_(self.rel_embeddings.weight, 0.0, 0.02)  # DeBERTa's initializer_range
        own = not self.share_att_key
        self.pos_key_proj = Linear(embed_dim, embed_dim, device=device, dtype=dtype) \
            if own and "c2p" in pos_att_type else None
        self.pos_query_proj = Linear(embed_dim, embed_dim, device=device, dtype=dtype) \
            if own and "p2c" in pos_att_type else None
        self.rel_norm = LayerNorm(embed_dim, eps=layer_norm_eps, device=device, dtype=dtype) \
            if norm_rel_ebd == "layer_norm" else None

    def _options(self):
        return dict(num_heads=self.num_heads, max_relative_position=self.max_relative_position,
                    position_buckets=self.position_buckets, c2p="c2p" in self.pos_att_type,
                    p2c="p2c" in self.pos_att_type,
                    rel_norm_eps=float(self.rel_norm.eps) if self.rel_norm is not None else 1e-7)

    def scheme(self, attention=None):
        params = dict(rel_embeddings=self.rel_embeddings.weight)
        if self.rel_norm is not None:
            params.update(rel_norm_weight=self.rel_norm.weight, rel_norm_bias=self.rel_norm.bias)
        if self.share_att_key:
            if attention is None:
                raise ValueError("DeBERTaRelativePosition: with share_att_key=True the position terms use the "
                                 "attention's own query and key projections; pass the scheme as pos= to "
                                 "nn.MultiheadAttention (or a transformer layer) rather than calling it alone")
            projections = zip(("pos_query_proj", "pos_key_proj"), _query_key_projections(attention))
        else:
            projections = (("pos_key_proj", self.pos_key_proj), ("pos_query_proj", self.pos_query_proj))
            projections = ((name, (p.weight, p.bias)) for name, p in projections if p is not None)
        for name, (weight, bias) in projections:
            params[name + "_weight"], params[name + "_bias"] = weight, bias
        return _core.PositionalScheme(kind=self.kind, options=self._options(), params=params)

    def extra_repr(self):
        extra = [f"position_buckets={self.position_buckets}"] if self.position_buckets > 0 else []
        extra += ["share_att_key=True"] if self.share_att_key else []
        extra += [f"pos_att_type={self.pos_att_type!r}"] if self.pos_att_type != ("c2p", "p2c") else []
        return ", ".join([f"{self.embed_dim}, num_heads={self.num_heads}, "
                          f"max_relative_position={self.max_relative_position}"] + extra)


def _query_key_projections(attention):
    """((W_q, b_q), (W_k, b_k)) of a MultiheadAttention: rows of its in_proj (views, so gradients
    reach it) or its separate q/k projections; biases None without bias."""
    E = attention.embed_dim
    kv = attention.num_key_value_heads * attention.head_dim
    if kv != E:
        raise ValueError("DeBERTaRelativePosition: share_att_key needs as many key heads as query heads "
                         f"(the attention has num_key_value_heads={attention.num_key_value_heads})")
    b = attention.in_proj_bias
    if attention.in_proj_weight is not None:
        w = attention.in_proj_weight
        return (w[:E], None if b is None else b[:E]), (w[E:2 * E], None if b is None else b[E:2 * E])
    return (attention.q_proj_weight, None if b is None else b[:E]), \
        (attention.k_proj_weight, None if b is None else b[E:2 * E])


class DARelativePosition(RelativePositionScheme, name="da"):
    """Distance-aware attention (DA-Transformer, Wu et al. 2021): softmax(relu(Q Kᵀ) ∘ R̂ / √D) V with,
    per head h, R̂_ij = (1 + e^{v_h}) / (1 + e^{v_h − w_h·|i − j|}): a learnable weight w_h on the
    distance (distance_weight; positive prefers far keys, negative near ones) rescaled by a sigmoid
    with learnable shift v_h (sigmoid_shift). Both start at 0, where R̂ = 1."""

    kind = "da"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(nhead, dtype=dtype)

    def __init__(self, num_heads, device=None, dtype=None):
        super().__init__()
        self.num_heads = _check_heads(num_heads, "DARelativePosition")
        dtype = _factory(device, dtype)
        self.distance_weight = Parameter(_empty((num_heads,), dtype))
        self.sigmoid_shift = Parameter(_empty((num_heads,), dtype))
        init.zeros_(self.distance_weight)
        init.zeros_(self.sigmoid_shift)

    def _options(self):
        return dict(num_heads=self.num_heads)

    def _params(self):
        return dict(distance_weight=self.distance_weight, sigmoid_shift=self.sigmoid_shift)


# ---------------------------------------------------------------------------------------------
# Absolute schemes: added to the embeddings, before the first layer.

class KERPLE(RelativePositionScheme, name="kerple"):
    """KERPLE (Chi et al. 2022, kernelized relative positional embedding for length
    extrapolation): head h adds a learned kernel of the distance to its scores,
    kernel="log":   −r1_h·log(1 + r2_h·|i − j|)    (the paper's best, KERPLE-log)
    kernel="power": −r1_h·|i − j|^r2_h, 0 < r2_h <= 2
    with r1 = bias_p and r2 = bias_a (H), the names of the authors' code, initialised as there
    (bias_p ~ U(0, 2), bias_a ~ U(0, 1)) and used clamped to >= 0.01 (r2 <= 2 for "power"), as
    the authors clamp them before each use. ALiBi is the power kernel with r2 = 1 and a fixed r1.
    The table is built from the parameters by ordinary ops (cpp/src/ops/positional/kerple.cpp),
    so r1 and r2 train with the model."""

    kind = "kerple"

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(nhead, dtype=dtype)

    def __init__(self, num_heads, kernel="log", device=None, dtype=None):
        super().__init__()
        self.num_heads = _check_heads(num_heads, "KERPLE")
        if kernel not in ("log", "power"):
            raise ValueError(f"KERPLE: kernel must be 'log' or 'power', got {kernel!r}")
        self.kernel = kernel
        dtype = _factory(device, dtype)
        self.bias_p = Parameter(_empty((num_heads,), dtype))
        self.bias_a = Parameter(_empty((num_heads,), dtype))
        init.uniform_(self.bias_p, 0.0, 2.0)
        init.uniform_(self.bias_a, 0.0, 1.0)

    def _options(self):
        return dict(num_heads=self.num_heads, kernel=self.kernel)

    def _params(self):
        return dict(bias_p=self.bias_p, bias_a=self.bias_a)

    def extra_repr(self):
        return f"num_heads={self.num_heads}, kernel={self.kernel!r}"


class _Absolute(_Registered, Module):
    def __init__(self, batch_first):
        super().__init__()
        self.batch_first = batch_first

    def _length(self, x):
        if x.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: expected x of shape (N, L, E), (L, N, E) or (L, E), got "
                             f"{tuple(x.shape)}")
        return x.shape[1] if self.batch_first and x.dim() == 3 else x.shape[0]

    def _add(self, x, table):  # table (L, E) broadcast over the batch dim
        if x.dim() == 3 and not self.batch_first:
            table = table.unsqueeze(1)
        return x + table

    def _positions(self, x, position_ids):
        """position_ids, an int64 tensor of x's shape without its last dim (each token's own
        position: left-padded rows of a batch start at 0 at their first token), as a flat tensor."""
        if not isinstance(position_ids, _core.Tensor) or position_ids.dtype != _core.dtype.int64 \
                or tuple(position_ids.shape) != tuple(x.shape[:-1]):
            shape = tuple(position_ids.shape) if isinstance(position_ids, _core.Tensor) else type(position_ids).__name__
            raise ValueError(f"{type(self).__name__}: position_ids must be int64 of shape {tuple(x.shape[:-1])} (x's "
                             f"shape without its last dim), got {shape}")
        return position_ids.reshape(-1)


class SinusoidalPositionalEncoding(_Absolute, name="sinusoidal"):
    """The Transformer's fixed encoding (Vaswani et al. 2017, §3.5), added to the embeddings:
    PE(p, 2c) = sin(p / 10000^(2c/d_model)), PE(p, 2c+1) = cos(p / 10000^(2c/d_model)); then dropout.
    forward(x, offset=0) for x (N, L, E) when batch_first (the default), (L, N, E) otherwise, or (L, E);
    offset is the position of the first token (after a key/value cache). Defined at every position."""

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(d_model)

    def __init__(self, d_model, dropout=0.0, base=10000.0, batch_first=True):
        super().__init__(batch_first)
        if d_model < 2 or d_model % 2:
            raise ValueError(f"SinusoidalPositionalEncoding: d_model must be even and positive, got {d_model}")
        self.d_model, self.base = d_model, float(base)
        self.dropout = Dropout(dropout)

    def encoding(self, length, offset=0, dtype=float32):
        """PE for positions offset, ..., offset + length − 1: (length, d_model)."""
        positions = arange(offset, offset + length, dtype=float64)
        return _core.sinusoidal_encoding(positions, self.d_model, self.base, dtype)

    def forward(self, x, offset=0, position_ids=None):
        """x + PE(positions offset, offset + 1, ...), or with position_ids each token's own position."""
        if x.shape[-1] != self.d_model:
            raise ValueError(f"SinusoidalPositionalEncoding: expected d_model {self.d_model}, got x of shape "
                             f"{tuple(x.shape)}")
        if position_ids is not None:
            positions = self._positions(x, position_ids).to(float64)
            return self.dropout(x + _core.sinusoidal_encoding(positions, self.d_model, self.base, x.dtype).reshape(
                tuple(x.shape)))
        return self.dropout(self._add(x, self.encoding(self._length(x), offset, x.dtype)))

    def extra_repr(self):
        return f"d_model={self.d_model}, batch_first={self.batch_first}"


class LearnedPositionalEmbedding(_Absolute, name="learned"):
    """Learned absolute position embeddings (BERT, GPT-2), added to the embeddings: x + E[p] for
    positions p < max_len (weight (max_len, d_model), normal(0, 0.02) as GPT-2). A position past the
    table raises: a learned table knows nothing beyond what it was trained on."""

    @classmethod
    def for_model(cls, d_model, nhead, max_len, dtype=None):
        return cls(max_len, d_model, dtype=dtype)

    def __init__(self, max_len, d_model, dropout=0.0, batch_first=True, device=None, dtype=None):
        super().__init__(batch_first)
        self.max_len, self.d_model = max_len, d_model
        self.weight = Parameter(_empty((max_len, d_model), _factory(device, dtype)))
        self.dropout = Dropout(dropout)
        init.normal_(self.weight, 0.0, 0.02)

    def forward(self, x, offset=0, position_ids=None):
        """x + E[offset, offset + 1, ...], or with position_ids E[each token's own position]."""
        if position_ids is not None:
            positions = self._positions(x, position_ids)
            first, last = (int(positions.min()), int(positions.max())) if positions.numel() else (0, 0)
        else:
            first, last = offset, offset + self._length(x) - 1
        if first < 0 or last >= self.max_len:
            raise IndexError(f"LearnedPositionalEmbedding: positions {first}..{last} reach past the table of "
                             f"max_len={self.max_len} positions (0..{self.max_len - 1}; a learned table cannot "
                             f"extrapolate: use a relative scheme or a larger max_len)")
        if position_ids is not None:
            return self.dropout(x + self.weight.index_select(0, positions).reshape(tuple(x.shape)))
        return self.dropout(self._add(x, self.weight[offset:last + 1]))

    def extra_repr(self):
        return f"max_len={self.max_len}, d_model={self.d_model}, batch_first={self.batch_first}"


def _check_pos(pos, owner, embed_dim, num_heads, head_dim=None):
    """What MultiheadAttention accepts as pos=: None or a scheme that acts inside the attention,
    built for these heads."""
    if pos is None or isinstance(pos, RelativePositionScheme):
        head_dim = embed_dim // num_heads if head_dim is None else head_dim
        if getattr(pos, "head_dim", head_dim) != head_dim:
            raise ValueError(f"{owner}: {type(pos).__name__} was built for head_dim {pos.head_dim} but the attention "
                             f"has {num_heads} heads of {head_dim}")
        if getattr(pos, "num_heads", num_heads) != num_heads:
            raise ValueError(f"{owner}: {type(pos).__name__} was built for {pos.num_heads} heads but the attention "
                             f"has {num_heads}")
        if getattr(pos, "embed_dim", embed_dim) != embed_dim:
            raise ValueError(f"{owner}: {type(pos).__name__} was built for embed_dim {pos.embed_dim} but the "
                             f"attention has {embed_dim}")
        return pos
    if isinstance(pos, _Absolute):
        raise TypeError(f"{owner}: {type(pos).__name__} adds to the embeddings; apply it to the input "
                        f"(x = pe(x)) rather than passing it as pos=")
    raise TypeError(f"{owner}: pos must be a scheme of seqlab.nn.positional (RoPE, ALiBi, T5RelativeBias, ...), "
                    f"got {type(pos).__name__}")
