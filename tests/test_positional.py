"""Positional information: every scheme of seqlab.nn.positional inside the
fused attention against its formula written with torch ops (forward and the gradients of q, k, v
and every parameter), against its composed twin, by finite differences; the properties the papers
state (sinusoid dot products depend on distance only, RoPE's shift invariance and long-term decay,
ALiBi's slopes, T5's buckets, Shaw's clipping, NoPE's permutation equivariance); the modules in
MultiheadAttention and the Transformer layers; clear errors."""
import math

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from seqlab import _core
from seqlab.nn import positional as P
from conftest import assert_close, assert_gradcheck, assert_matches_torch, tol

K = 3  # Shaw's and DeBERTa's clipping distance in these tests


# ---------------------------------------------------------------------------------------------
# Each scheme's formula in torch ops, materialised: the independent oracle.

def distances(L, S, off):
    """d[i, j] = (i + off) − j."""
    return (torch.arange(L)[:, None] + off) - torch.arange(S)[None, :]


def torch_sinusoid(pos, dim, base=10000.0):
    c = torch.arange(dim // 2, dtype=torch.float64)
    ang = pos.to(torch.float64)[..., None] * base ** (-2 * c / dim)
    return torch.stack([torch.sin(ang), torch.cos(ang)], -1).flatten(-2)  # (…, dim): sin, cos interleaved


def torch_xl_sinusoid(pos, dim, base=10000.0):
    """Transformer-XL's PositionalEmbedding (kimiyoung/transformer-xl, pytorch/mem_transformer.py):
    inv_freq = 1 / base^(arange(0, dim, 2) / dim), then all the sines, then all the cosines."""
    inv_freq = 1 / (base ** (torch.arange(0.0, dim, 2.0, dtype=torch.float64) / dim))
    ang = pos.to(torch.float64)[..., None] * inv_freq
    return torch.cat([torch.sin(ang), torch.cos(ang)], -1)


def torch_rope(x, offset, interleaved, base=10000.0):
    L, D = x.shape[-2], x.shape[-1]
    ang = (torch.arange(L, dtype=torch.float64)[:, None] + offset) * base ** (
        -2 * torch.arange(D // 2, dtype=torch.float64) / D)
    cos, sin = torch.cos(ang).to(x.dtype), torch.sin(ang).to(x.dtype)
    if interleaved:
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)
    a, b = x[..., :D // 2], x[..., D // 2:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)


def torch_t5_bucket(rel, bidirectional, num_buckets, max_distance):
    """The T5 bucketing, written from its description (Raffel et al. 2020, §2.1)."""
    out = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        out += (rel > 0).long() * num_buckets
        rel = rel.abs()
    else:
        rel = -torch.clamp(rel, max=0)
    exact = num_buckets // 2
    large = exact + (torch.log(rel.double().clamp(min=1) / exact) / math.log(max_distance / exact)
                     * (num_buckets - exact)).long()
    large = torch.clamp(large, max=num_buckets - 1)
    return out + torch.where(rel < exact, rel, large)


def alibi_paper_slopes(n):
    def geo(m):
        return [2 ** (-8 * (i + 1) / m) for i in range(m)]
    p = 2 ** int(math.floor(math.log2(n)))
    return geo(p) + geo(2 * p)[0::2][:n - p]


def torch_attention(kind, q, k, v, prm, off=0, causal=False, interleaved=True):
    """softmax(scores) V (+ Shaw's value term) for (B, H, L, D) heads, each scheme's formula."""
    B, H, L, D = q.shape
    S = k.shape[2]
    d = distances(L, S, off)
    scale = 1 / math.sqrt(D)
    extra_v = None
    if kind == "rope":
        q, k = torch_rope(q, off, interleaved), torch_rope(k, 0, interleaved)
    s = q @ k.transpose(-1, -2) * scale
    if kind == "alibi":
        m = torch.tensor(alibi_paper_slopes(H), dtype=q.dtype)
        s = s - m[:, None, None] * d.abs().to(q.dtype)
    elif kind == "t5":
        b = prm["relative_attention_bias"][torch_t5_bucket(-d, True, 32, 128)]  # (L, S, H)
        s = s + b.permute(2, 0, 1)
    elif kind == "shaw":
        r = torch.clamp(-d, -K, K) + K
        ak, av = prm["relative_key"][r], prm["relative_value"][r]  # (L, S, D)
        s = s + torch.einsum("bhld,lsd->bhls", q, ak) * scale
        extra_v = av
    elif kind == "xl":
        u, vb, w = prm["r_w_bias"], prm["r_r_bias"], prm["r_net"]
        R = torch_xl_sinusoid(d, H * D).to(q.dtype) @ w.T  # (L, S, H·D)
        R = R.view(L, S, H, D)
        s = ((q + u[None, :, None]) @ k.transpose(-1, -2)
             + torch.einsum("bhld,lshd->bhls", q + vb[None, :, None], R)) * scale
    elif kind == "deberta":
        P_ = prm["rel_embeddings"]
        kr = (P_ @ prm["pos_key_proj_weight"].T + prm["pos_key_proj_bias"]).view(2 * K, H, D)
        qr = (P_ @ prm["pos_query_proj_weight"].T + prm["pos_query_proj_bias"]).view(2 * K, H, D)
        delta = torch.clamp(d, -K, K - 1) + K      # δ(i, j) from i − j, for both terms (DeBERTa's code)
        c2p = torch.einsum("bhld,lshd->bhls", q, kr[delta])
        p2c = torch.einsum("bhsd,lshd->bhls", k, qr[delta])
        s = (q @ k.transpose(-1, -2) + c2p + p2c) / math.sqrt(3 * D)
    elif kind == "kerple":  # the log kernel, r1 and r2 clamped to >= 0.01 (Chi et al. 2022; the authors' eps)
        r1, r2 = prm["bias_p"].clamp(min=0.01), prm["bias_a"].clamp(min=0.01)
        s = s - r1[:, None, None] * torch.log(1 + r2[:, None, None] * d.abs().to(q.dtype))
    elif kind == "da":
        w, sh = prm["distance_weight"], prm["sigmoid_shift"]
        x = d.abs().to(q.dtype)
        rhat = (1 + torch.exp(sh))[:, None, None] / (1 + torch.exp(sh[:, None, None] - w[:, None, None] * x))
        s = torch.relu(s) * rhat
    if causal:
        s = s.masked_fill(d < 0, float("-inf"))
    p = torch.softmax(s, -1)
    out = p @ v
    if extra_v is not None:
        out = out + torch.einsum("bhls,lsd->bhld", p, extra_v)
    return out


def param_shapes(kind, H, D):
    return {
        "t5": {"relative_attention_bias": (32, H)},
        "shaw": {"relative_key": (2 * K + 1, D), "relative_value": (2 * K + 1, D)},
        "xl": {"r_w_bias": (H, D), "r_r_bias": (H, D), "r_net": (H * D, H * D)},
        "deberta": {"rel_embeddings": (2 * K, H * D), "pos_key_proj_weight": (H * D, H * D),
                    "pos_key_proj_bias": (H * D,), "pos_query_proj_weight": (H * D, H * D),
                    "pos_query_proj_bias": (H * D,)},
        "da": {"distance_weight": (H,), "sigmoid_shift": (H,)},
        "kerple": {"bias_p": (H,), "bias_a": (H,)},
    }.get(kind, {})


KINDS = ["none", "rope", "alibi", "t5", "shaw", "xl", "deberta", "da", "kerple"]
# (B, H, L, S, D, q_offset, causal): one block and several (96-row blocks), L < S with an offset as a
# key/value cache makes, head sizes that are not multiples of the SIMD width.
SHAPES = [(2, 2, 5, 7, 4, 0, False), (1, 3, 100, 130, 8, 0, True), (2, 2, 40, 140, 6, 100, True),
          (1, 2, 97, 97, 16, 0, False)]


def make_inputs(rng, kind, B, H, L, S, D, dtype):
    arrays = [rng.standard_normal(s).astype(dtype) for s in ((B, H, L, D), (B, H, S, D), (B, H, S, D))]
    names = list(param_shapes(kind, H, D))
    for n, shp in param_shapes(kind, H, D).items():
        if kind == "kerple":  # KERPLE's r1, r2 are positive (clamped to >= 0.01)
            arrays.append(rng.uniform(0.1, 2.0, shp).astype(dtype))
            continue
        scale = 0.3 if len(shp) == 2 and shp[0] == shp[1] else (0.2 if kind == "da" else 1.0)
        arrays.append((rng.standard_normal(shp) * scale).astype(dtype))
    return arrays, names


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fused_scheme_matches_its_formula_in_torch(rng, kind, shape, dtype):
    B, H, L, S, D, off, causal = shape
    arrays, names = make_inputs(rng, kind, B, H, L, S, D, dtype)

    def sl(q, k, v, *params):
        scheme = _core.PositionalScheme(kind=kind, options=dict(num_heads=H, max_relative_position=K),
                                        params=dict(zip(names, params)))
        return F.positional_attention(q, k, v, scheme, is_causal=causal, q_offset=off)

    def th(q, k, v, *params):
        return torch_attention(kind, q, k, v, dict(zip(names, params)), off=off, causal=causal)

    atol, rtol = tol(dtype, 10.0)
    assert_matches_torch(sl, th, arrays, atol=atol, rtol=rtol)


@pytest.mark.parametrize("kind", KINDS)
def test_composed_twin_equals_the_fused_kernel_with_masks_and_dropout(rng, kind):
    B, H, L, S, D = 2, 2, 50, 110, 8
    arrays, names = make_inputs(rng, kind, B, H, L, S, D, np.float64)
    mask = rng.random((L, S)) > 0.2
    mask[3] = False  # a row with every key masked gives zeros
    seed = int(rng.integers(1 << 30))

    def run(fn, q, k, v, *params):
        scheme = _core.PositionalScheme(kind=kind, options=dict(num_heads=H, max_relative_position=K),
                                        params=dict(zip(names, params)))
        seqlab.manual_seed(seed)
        return fn(q, k, v, scheme, attn_mask=seqlab.tensor(mask), dropout_p=0.25, q_offset=5)

    assert_matches_torch(lambda *a: run(F.positional_attention, *a),
                         lambda *a: torch.from_numpy(run(F.positional_attention_math,
                                                         *[seqlab.tensor(x.detach().numpy()) for x in a]).numpy()),
                         arrays, grad=False)
    # the gradients, the two paths on the same seqlab leaves
    leaves = [seqlab.tensor(a, requires_grad=True) for a in arrays]
    out1 = run(F.positional_attention, *leaves)
    g = seqlab.randn(*out1.shape, dtype=seqlab.float64)
    out1.backward(g)
    g1 = [x.grad.numpy().copy() for x in leaves]
    for x in leaves:
        x.grad = None
    out2 = run(F.positional_attention_math, *leaves)
    out2.backward(g)
    assert np.abs(out1.detach().numpy()[:, :, 3]).max() == 0.0
    for a, b, what in zip(g1, [x.grad.numpy() for x in leaves], ["q", "k", "v"] + names):
        assert_close(a, b, 1e-10, 1e-9, what=f"{kind} gradient of {what}")


@pytest.mark.parametrize("kind", KINDS)
def test_gradcheck(rng, kind):
    B, H, L, S, D = 1, 2, 4, 5, 4
    arrays, names = make_inputs(rng, kind, B, H, L, S, D, np.float64)

    def fn(q, k, v, *params):
        scheme = _core.PositionalScheme(kind=kind, options=dict(num_heads=H, max_relative_position=K),
                                        params=dict(zip(names, params)))
        return F.positional_attention(q, k, v, scheme, is_causal=True, q_offset=1)

    assert_gradcheck(fn, arrays)


# ---------------------------------------------------------------------------------------------
# The tables and their properties

def test_sinusoidal_table_is_vaswani_and_dot_products_depend_on_distance_only():
    pe = P.SinusoidalPositionalEncoding(64).encoding(200, dtype=seqlab.float64).numpy()
    ref = torch_sinusoid(torch.arange(200), 64).numpy()
    assert_close(pe, ref, 1e-12, 1e-12, "PE table")
    gram = pe @ pe.T
    for delta in (1, 7, 50):
        diag = np.diagonal(gram, delta)
        assert np.ptp(diag) < 1e-9, f"p_i·p_(i+{delta}) varies with i by {np.ptp(diag)}"
    # and it falls off with distance on average (what makes it a notion of nearness)
    assert np.mean(np.diagonal(gram, 1)) > np.mean(np.diagonal(gram, 40))


@pytest.mark.parametrize("interleaved", [True, False])
def test_rope_matches_its_formula_and_depends_on_relative_position_only(rng, interleaved):
    x = rng.standard_normal((2, 3, 10, 8))
    assert_matches_torch(lambda t: F.rotary_embedding(t, 4, interleaved=interleaved),
                         lambda t: torch_rope(t, 4, interleaved), [x])
    q, k = rng.standard_normal((1, 8)), rng.standard_normal((1, 8))

    def dot(m, n):
        qm = F.rotary_embedding(seqlab.tensor(q).view(1, 8), m, interleaved=interleaved).numpy()
        kn = F.rotary_embedding(seqlab.tensor(k).view(1, 8), n, interleaved=interleaved).numpy()
        return (qm @ kn.T).item()

    for m, n in [(3, 1), (10, 30), (0, 0)]:
        assert abs(dot(m, n) - dot(m + 57, n + 57)) < 1e-10
    # a rotation keeps norms
    y = F.rotary_embedding(seqlab.tensor(x), 3, interleaved=interleaved).numpy()
    assert_close(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), 1e-12, 1e-12, "norms")


def test_rope_long_term_decay_bound(rng):
    """RoFormer §3.4.3: with h_c = q_c·conj(k_c) over the d/2 complex pairs, Abel summation bounds
    |q_m·k_n| by |h_last|·|S_(d/2)| + max_c |h_(c+1) − h_c| · Σ_j |S_j|, S_j = Σ_(c<j) e^(i(m−n)θ_c);
    the relative bound (1/(d/2)) Σ_j |S_j| decays with the distance m − n."""
    d = 128
    theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    qc, kc = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]
    h = qc * np.conj(kc)
    for r in (0, 5, 100, 2000):
        rot = F.rotary_embedding(seqlab.tensor(np.stack([q, k])).view(2, 1, d), 0).numpy()  # position 0: identity
        qm = F.rotary_embedding(seqlab.tensor(q).view(1, d), r).numpy()[0]
        kn = rot[1, 0]
        Sj = np.cumsum(np.exp(1j * r * theta))
        assert abs(float(qm @ kn) - np.real(np.sum(h * np.exp(1j * r * theta)))) < 1e-9
        bound = abs(h[-1]) * abs(Sj[-1]) + np.max(np.abs(np.diff(h))) * np.sum(np.abs(Sj[:-1]))
        assert abs(float(qm @ kn)) <= bound + 1e-9
    rel = [np.mean(np.abs(np.cumsum(np.exp(1j * r * theta)))) for r in range(0, 4097)]
    bands = [np.mean(rel[a:b]) for a, b in [(1, 16), (16, 64), (64, 256), (256, 1024), (1024, 4096)]]
    assert all(x > y for x, y in zip(bands, bands[1:])), bands  # it decays, band after band
    assert bands[0] > 3.5 * bands[-1], bands


def test_kerple_power_kernel_and_clamps_follow_the_paper(rng):
    """The power kernel −r1·|i − j|^r2 against its formula in torch, with r2 above 2 used as 2 and a
    negative r1 used as 0.01 (the authors' clamps), forward and gradients; r1, r2 are ordinary
    parameters of the module."""
    H, L, D = 3, 9, 4
    scheme = P.KERPLE(H, kernel="power", dtype=seqlab.float64)
    with seqlab.no_grad():
        scheme.bias_p.copy_(seqlab.tensor([0.7, -1.0, 1.5], dtype=seqlab.float64))
        scheme.bias_a.copy_(seqlab.tensor([0.5, 1.2, 3.0], dtype=seqlab.float64))
    assert [n for n, _ in scheme.named_parameters()] == ["bias_p", "bias_a"]
    q, k = rng.standard_normal((1, H, L, D)), rng.standard_normal((1, H, L, D))
    got = scheme.attention_weights(seqlab.tensor(q), seqlab.tensor(k), is_causal=True)
    got.sum().backward()
    r1 = torch.tensor([0.7, -1.0, 1.5], dtype=torch.float64, requires_grad=True)
    r2 = torch.tensor([0.5, 1.2, 3.0], dtype=torch.float64, requires_grad=True)
    d = distances(L, L, 0)
    s = torch.tensor(q) @ torch.tensor(k).transpose(-1, -2) / math.sqrt(D)
    s = s - r1.clamp(min=0.01)[:, None, None] * d.abs().to(torch.float64) ** r2.clamp(0.01, 2.0)[:, None, None]
    want = torch.softmax(s.masked_fill(d < 0, float("-inf")), -1)
    want.sum().backward()
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(scheme.bias_p.grad.numpy(), r1.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(scheme.bias_a.grad.numpy(), r2.grad.numpy(), atol=1e-12)
    with pytest.raises(ValueError, match="KERPLE: kernel must be 'log' or 'power', got 'cubic'"):
        P.KERPLE(2, kernel="cubic")
    with pytest.raises(ValueError, match="the kerple scheme's option 'kernel' must be a string"):
        F.positional_attention(seqlab.randn(1, 2, 3, 4), seqlab.randn(1, 2, 3, 4), seqlab.randn(1, 2, 3, 4),
                               _core.PositionalScheme(kind="kerple", options=dict(num_heads=2, kernel=3),
                                                      params=P.KERPLE(2)._params()))


def test_alibi_slopes_follow_the_paper():
    assert_close(F.alibi_slopes(8).numpy(), np.array([2.0 ** -i for i in range(1, 9)]), 0, 1e-15, "8 heads")
    twelve = F.alibi_slopes(12).numpy()
    expected = [2.0 ** -i for i in range(1, 9)] + [2.0 ** -(i + 0.5) for i in range(0, 4)]
    assert_close(twelve, np.array(expected), 0, 1e-15, "12 heads")
    for n in (1, 3, 5, 16, 24):
        assert_close(F.alibi_slopes(n).numpy(), np.array(alibi_paper_slopes(n)), 0, 1e-15, f"{n} heads")


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", [(32, 128), (16, 40), (8, 20)])
def test_t5_buckets_match_the_bucketing_for_a_table_of_distances(bidirectional, num_buckets, max_distance):
    rel = torch.arange(-300, 301)
    got = F.t5_relative_position_bucket(seqlab.tensor(rel.numpy()), bidirectional, num_buckets, max_distance)
    assert (got.numpy() == torch_t5_bucket(rel, bidirectional, num_buckets, max_distance).numpy()).all()
    if bidirectional and num_buckets == 32:  # a few by hand: exact below 8, log-spaced, then saturated
        table = {0: 0, 1: 17, -1: 1, 7: 23, 8: 24, -8: 8, 127: 31, 1000: 31, -1000: 15}
        for r, b in table.items():
            assert int(F.t5_relative_position_bucket(seqlab.tensor([r]), True, 32, 128)[0]) == b, r


def test_shaw_clips_at_k():
    """With zero keys the score of (i, j) is q_i·a^K_r, so every key at j − i ≥ k (or ≤ −k) scores the same."""
    H, L, D, k = 1, 12, 4, 3
    shaw = P.ShawRelativePosition(D, max_relative_position=k, values=False, dtype=seqlab.float64)
    q = seqlab.randn(1, H, L, D, dtype=seqlab.float64)
    zeros = seqlab.zeros(1, H, L, D, dtype=seqlab.float64)
    w = shaw.attention_weights(q, zeros).detach().numpy()[0, 0]
    for i in range(L):
        far_right = w[i, i + k:]
        far_left = w[i, :max(0, i - k + 1)]
        assert np.ptp(far_right) < 1e-15 if far_right.size else True
        assert np.ptp(far_left) < 1e-15 if far_left.size else True
        if i + k < L and i - k >= 0:  # the clipped ends differ from the nearer ones
            assert abs(w[i, i + k - 1] - w[i, i + k]) > 1e-6


def test_nope_encoder_is_permutation_equivariant():
    seqlab.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True, pos=P.NoPE(),
                                       dtype=seqlab.float64)
    x = seqlab.randn(1, 9, 16, dtype=seqlab.float64)
    perm = np.random.default_rng(0).permutation(9)
    idx = seqlab.tensor(perm)
    y = layer(x).detach().numpy()[0]
    y_perm = layer(x[:, idx]).detach().numpy()[0]
    assert_close(y_perm, y[perm], 1e-12, 1e-12, "f(Px) = P f(x)")
    # a positional scheme breaks it
    layer_rope = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True, pos=P.RoPE(8),
                                            dtype=seqlab.float64)
    y = layer_rope(x).detach().numpy()[0]
    assert np.abs(layer_rope(x[:, idx]).detach().numpy()[0] - y[perm]).max() > 1e-3


# ---------------------------------------------------------------------------------------------
# The modules

def all_schemes(E=32, H=4, dtype=None):
    """Every registered relative scheme as a model of width E with H heads uses it, and RoPE's other
    pairing, and the power kernel of KERPLE."""
    registered = [cls.for_model(E, H, 64, dtype=dtype) for cls in P.SCHEMES.values()
                  if issubclass(cls, P.RelativePositionScheme)]
    return registered + [P.RoPE(E // H, interleaved=False), P.KERPLE(H, kernel="power", dtype=dtype)]


@pytest.mark.parametrize("pos", all_schemes(dtype=seqlab.float64), ids=lambda p: type(p).__name__)
def test_multihead_attention_with_a_scheme_weights_and_fused_agree(pos):
    seqlab.manual_seed(1)
    mha = nn.MultiheadAttention(32, 4, batch_first=True, pos=pos, dtype=seqlab.float64)
    with seqlab.no_grad():  # away from DA's start (w = 0), where R̂ = 1 whatever the shift
        for p in pos.parameters():
            p.add_(0.1 * seqlab.randn(*p.shape, dtype=p.dtype))
    x = seqlab.randn(2, 11, 32, dtype=seqlab.float64)
    mask = nn.Transformer.generate_square_subsequent_mask(11, dtype=seqlab.float64)
    out_w, w = mha(x, x, x, attn_mask=mask, average_attn_weights=False)
    out_f, none = mha(x, x, x, attn_mask=mask, need_weights=False)
    assert none is None and tuple(w.shape) == (2, 4, 11, 11)
    assert_close(out_w.detach().numpy(), out_f.detach().numpy(), 1e-12, 1e-12, "need_weights vs fused")
    assert np.abs(np.triu(w.detach().numpy(), 1)).max() == 0.0
    # the layer's output equals the scheme's own attention on the projected heads
    q, k, v = (x @ mha.in_proj_weight.T + mha.in_proj_bias).view(2, 11, 3, 4, 8).permute(2, 0, 3, 1, 4).unbind(0)
    heads = pos.attention(q, k, v, is_causal=True)
    ref = mha.out_proj(heads.transpose(1, 2).reshape(2, 11, 32))
    assert_close(out_f.detach().numpy(), ref.detach().numpy(), 1e-12, 1e-12, "MHA = scheme.attention")
    # learned schemes get gradients and are in the state dict
    out_f.sum().backward()
    for name, p in pos.named_parameters():
        assert p.grad is not None and np.abs(p.grad.numpy()).max() > 0, name
        assert f"pos.{name}" in mha.state_dict()


def test_one_model_definition_trains_with_each_scheme():
    """The issue's promise: change one argument, the rest of the model stays."""
    for pos in all_schemes():
        seqlab.manual_seed(0)
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, pos=pos)
        opt = seqlab.optim.Adam(layer.parameters(), lr=1e-2)
        x = seqlab.randn(4, 12, 32)
        target = x.roll(1, 1)
        mask = nn.Transformer.generate_square_subsequent_mask(12)
        losses = []
        for _ in range(15):
            loss = ((layer(x, src_mask=mask, is_causal=True) - target) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[-1] < 0.8 * losses[0], (type(pos).__name__, losses[0], losses[-1])
        sd = layer.state_dict()
        assert all(k in sd for k in (f"self_attn.pos.{n}" for n, _ in pos.named_parameters()))


def test_absolute_encodings_add_to_the_embeddings():
    x = seqlab.zeros(2, 6, 8, dtype=seqlab.float64)
    pe = P.SinusoidalPositionalEncoding(8)
    assert_close(pe(x).numpy()[1], torch_sinusoid(torch.arange(6), 8).numpy(), 1e-6, 1e-6, "batch_first")
    assert_close(pe(x, offset=3).numpy()[0, 0], torch_sinusoid(torch.arange(3, 4), 8).numpy()[0], 1e-6, 1e-6,
                 "offset")
    seq_first = P.SinusoidalPositionalEncoding(8, batch_first=False)
    assert_close(seq_first(x.transpose(0, 1)).numpy()[:, 1], torch_sinusoid(torch.arange(6), 8).numpy(), 1e-6, 1e-6,
                 "(L, N, E)")
    learned = P.LearnedPositionalEmbedding(10, 8, dtype=seqlab.float64)
    assert_close(learned(x).detach().numpy()[0], learned.weight.detach().numpy()[:6], 0, 0, "learned")
    assert "weight" in learned.state_dict()


# ---------------------------------------------------------------------------------------------
# Bad input

def test_errors_are_clear():
    with pytest.raises(IndexError, match="past the table of max_len=10"):
        P.LearnedPositionalEmbedding(10, 8)(seqlab.zeros(1, 11, 8))
    with pytest.raises(ValueError, match="head_dim must be even"):
        P.RoPE(7)
    with pytest.raises(RuntimeError, match="head dim must be even"):
        F.rotary_embedding(seqlab.zeros(3, 5), 0)
    with pytest.raises(ValueError, match="built for 8 heads but the attention has 4"):
        nn.MultiheadAttention(32, 4, pos=P.ALiBi(8))
    with pytest.raises(ValueError, match="head_dim 16 but the attention has 4 heads of 8"):
        nn.MultiheadAttention(32, 4, pos=P.RoPE(16))
    with pytest.raises(TypeError, match="adds to the embeddings"):
        nn.MultiheadAttention(32, 4, pos=P.SinusoidalPositionalEncoding(32))
    with pytest.raises(RuntimeError, match="leave no log-spaced buckets"):
        P.T5RelativeBias(4, num_buckets=2)
    with pytest.raises(ValueError, match="num_heads must be a positive int"):
        P.ALiBi(0)
    q = seqlab.zeros(2, 5, 8)
    with pytest.raises(RuntimeError, match=r"positional_attention: expected query \(B, H, L, D\)"):
        F.positional_attention(q, q, q, P.ALiBi(2).scheme())
    q4 = seqlab.zeros(1, 2, 5, 8)
    # a RoPE built for one head_dim refuses heads of another (it used to run as RoPE(6))
    q6 = seqlab.zeros(1, 2, 5, 6)
    for call in (P.RoPE(8).attention, P.RoPE(8).attention_math):
        with pytest.raises(RuntimeError, match=r"rope scheme rotates head_dim 8 but the attention's heads have "
                                               r"dimension 6 \(query \[1, 2, 5, 6\]\)"):
            call(q6, q6, q6)
    with pytest.raises(RuntimeError, match="rotates head_dim 8 but the attention's heads have dimension 6"):
        P.RoPE(8).attention_weights(q6, q6)
    with pytest.raises(RuntimeError, match="built for 3 heads but the attention has 2"):
        F.positional_attention(q4, q4, q4, P.ALiBi(3).scheme())
    with pytest.raises(RuntimeError, match="unknown positional scheme 'sinus'"):
        F.positional_attention(q4, q4, q4, _core.PositionalScheme(kind="sinus"))
    with pytest.raises(RuntimeError, match="needs its parameter 'relative_attention_bias'"):
        F.positional_attention(q4, q4, q4, _core.PositionalScheme(kind="t5", options=dict(num_heads=2)))
    with pytest.raises(RuntimeError, match="'relative_attention_bias' is float32 but the attention is float64"):
        F.positional_attention(q4.double(), q4.double(), q4.double(), P.T5RelativeBias(2).scheme())
    with pytest.raises(RuntimeError, match="add_zero_attn"):
        mha = nn.MultiheadAttention(8, 2, add_zero_attn=True, pos=P.ALiBi(2))
        mha(seqlab.zeros(3, 1, 8), seqlab.zeros(3, 1, 8), seqlab.zeros(3, 1, 8))


# ---------------------------------------------------------------------------------------------
# Generation with a key/value cache (item 3): every scheme sees the true positions after the cache

def lm_with(pos_name, dtype=seqlab.float64, seed=0):
    from seqlab.experiments.length_generalization import make_positions
    seqlab.manual_seed(seed)
    absolute, pos = make_positions(pos_name, 16, 2, max_len=64, dtype=dtype)
    model = nn.TransformerLM(23, d_model=16, nhead=2, num_layers=2, dim_feedforward=32, dropout=0.0,
                             positional=absolute, pos=pos, dtype=dtype)
    with seqlab.no_grad():  # away from DA's start (w = 0), where distances do not matter
        for name, p in model.named_parameters():
            if "distance_weight" in name or "sigmoid_shift" in name:
                p.add_(0.3 * seqlab.randn(*p.shape, dtype=p.dtype))
    return model.eval()


SCHEME_NAMES = list(P.SCHEMES)  # every registered scheme


@pytest.mark.parametrize("name", SCHEME_NAMES)
def test_kv_cache_generation_equals_full_recomputation_for_every_scheme(name):
    model = lm_with(name)
    prompt = seqlab.tensor(np.random.default_rng(0).integers(0, 23, size=(2, 5)))
    cached = model.generate(prompt, max_new_tokens=12, use_cache=True).numpy()
    full = model.generate(prompt, max_new_tokens=12, use_cache=False).numpy()
    np.testing.assert_array_equal(cached, full)
    # and the logits of a cached multi-token step equal the full forward's
    ids = seqlab.tensor(np.random.default_rng(1).integers(0, 23, size=(2, 9)))
    cache = model.new_cache()
    first = model(ids[:, :4], cache=cache)
    second = model(ids[:, 4:], cache=cache)
    whole = model(ids)
    assert_close(seqlab.cat([first, second], 1).detach().numpy(), whole.detach().numpy(), 1e-11, 1e-11,
                 f"{name}: cached steps vs the whole sequence")


@pytest.mark.parametrize("name", ["alibi", "rope", "t5"])
def test_beam_one_is_greedy_and_sampling_is_seeded_with_a_scheme(name):
    model = lm_with(name)
    prompt = seqlab.tensor([[1, 2, 3]])
    greedy = model.generate(prompt, max_new_tokens=8).numpy()
    np.testing.assert_array_equal(model.generate(prompt, max_new_tokens=8, num_beams=1).numpy(), greedy)
    a = model.generate(prompt, max_new_tokens=8, do_sample=True, top_k=5, seed=7).numpy()
    b = model.generate(prompt, max_new_tokens=8, do_sample=True, top_k=5, seed=7).numpy()
    np.testing.assert_array_equal(a, b)


def test_generation_past_a_learned_table_is_a_clear_error():
    model = lm_with("learned")  # a table of 64 positions
    with pytest.raises(IndexError, match="past the table of max_len=64"):
        model.generate(seqlab.tensor([[1, 2, 3]]), max_new_tokens=70)
    # the relative schemes have no table: they generate past any length they saw
    assert lm_with("alibi").generate(seqlab.tensor([[1, 2, 3]]), max_new_tokens=70).shape == (1, 73)


# ---------------------------------------------------------------------------------------------
# Against the reference implementations

def test_deberta_equals_hugging_face_debertav2_attention():
    """DeBERTaRelativePosition's attention equals Hugging Face's DebertaV2 DisentangledSelfAttention
    (c2p and p2c, position_buckets=-1, share_att_key=False) on the same weights: its q/k/v
    projections set to the identity, so both attend over the same heads. The paper's eq. 4 read
    literally (p2c at δ(j, i)) was 0.28-0.36 away."""
    from transformers import DebertaV2Config
    from transformers.models.deberta_v2.modeling_deberta_v2 import DisentangledSelfAttention

    torch.manual_seed(0)
    E, H, K, B, L = 32, 4, 6, 2, 11  # L > K: distances beyond the window are clipped
    cfg = DebertaV2Config(hidden_size=E, num_attention_heads=H, max_relative_positions=K, position_buckets=-1,
                          relative_attention=True, pos_att_type=["c2p", "p2c"], share_att_key=False,
                          attention_probs_dropout_prob=0.0, hidden_dropout_prob=0.0)
    hf = DisentangledSelfAttention(cfg).double().eval()
    ours = P.DeBERTaRelativePosition(E, H, max_relative_position=K, dtype=seqlab.float64)
    with torch.no_grad():
        for proj in (hf.query_proj, hf.key_proj, hf.value_proj):
            proj.weight.copy_(torch.eye(E, dtype=torch.float64))
            proj.bias.zero_()
        for name in ("pos_key_proj", "pos_query_proj"):
            getattr(hf, name).weight.copy_(torch.from_numpy(getattr(ours, name).weight.detach().numpy()))
            getattr(hf, name).bias.copy_(torch.from_numpy(getattr(ours, name).bias.detach().numpy()))
    rel = torch.from_numpy(ours.rel_embeddings.weight.detach().numpy())
    x = torch.randn(B, L, E, dtype=torch.float64)
    with torch.no_grad():
        want = hf(x, torch.ones(B, 1, L, L, dtype=torch.bool), rel_embeddings=rel)[0]  # (B, L, E)
    heads = seqlab.from_numpy(x.view(B, L, H, E // H).transpose(1, 2).contiguous().numpy())
    got = ours.attention(heads, heads, heads).detach().numpy().transpose(0, 2, 1, 3).reshape(B, L, E)
    # transformers rounds its scale √(3D) to float32 (scaled_size_sqrt), hence 1e-7 and not 1e-12
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-7)


def test_deberta_log_buckets_equal_debertav2s_for_every_distance():
    """deberta_log_bucket_position equals DeBERTa-v2's make_log_bucket_position (float32 logs and
    ceil) at every distance up to ±5000, for the released configurations (256 buckets up to 512)
    and others; too few buckets for a log range is a clear error."""
    from transformers.models.deberta_v2.modeling_deberta_v2 import make_log_bucket_position

    d = torch.arange(-5000, 5001)
    for buckets, max_position in [(256, 512), (128, 512), (256, 1024), (64, 128), (8, 16), (4, 6)]:
        want = make_log_bucket_position(d, buckets, max_position).long().numpy()
        got = F.deberta_log_bucket_position(seqlab.tensor(d.numpy()), buckets, max_position).numpy()
        np.testing.assert_array_equal(got, want, err_msg=f"{buckets} buckets up to {max_position}")
    with pytest.raises(RuntimeError, match="leave no log-spaced buckets"):
        F.deberta_log_bucket_position(seqlab.tensor([1]), 256, 128)
    with pytest.raises(ValueError, match="leave no log-spaced buckets"):
        P.DeBERTaRelativePosition(16, 2, max_relative_position=4, position_buckets=8)


DEBERTA_OPTIONS = {  # name: (position_buckets, share_att_key, pos_att_type, norm_rel_ebd)
    "v2-clipped": (-1, False, ("c2p", "p2c"), None),
    "log-buckets": (8, False, ("c2p", "p2c"), None),
    "v3 (buckets, shared keys, normed table)": (8, True, ("c2p", "p2c"), "layer_norm"),
    "c2p only": (-1, False, ("c2p",), None),
    "p2c only, shared keys": (-1, True, ("p2c",), None),
    "no position terms": (-1, False, (), None),
}


@pytest.mark.parametrize("option", list(DEBERTA_OPTIONS))
def test_deberta_options_equal_hugging_face_debertav2_attention(option):
    """nn.MultiheadAttention with a DeBERTaRelativePosition equals DebertaV2's
    DisentangledSelfAttention (its context, out_proj set to the identity) on the same weights,
    for each of DeBERTa-v2's options: log buckets (L = 40 reaches past 2 x 8 buckets and the 16
    positions), share_att_key (the attention's own q/k projections), c2p / p2c alone, the
    layer-normalised relative table; with a padded key. float64; transformers rounds its scale
    √(n·D) to float32, and given that same scale the two agree to 1e-10."""
    from transformers import DebertaV2Config
    from transformers.models.deberta_v2.modeling_deberta_v2 import DisentangledSelfAttention

    buckets, shared, types, norm = DEBERTA_OPTIONS[option]
    torch.manual_seed(0)
    E, H, K, B, L = 32, 4, 16, 2, 40
    cfg = DebertaV2Config(hidden_size=E, num_attention_heads=H, max_relative_positions=K, position_buckets=buckets,
                          relative_attention=True, pos_att_type=list(types), share_att_key=shared,
                          attention_probs_dropout_prob=0.0, hidden_dropout_prob=0.0)
    hf = DisentangledSelfAttention(cfg).double().eval()
    pos = P.DeBERTaRelativePosition(E, H, max_relative_position=K, position_buckets=buckets, share_att_key=shared,
                                    pos_att_type=types, norm_rel_ebd=norm, dtype=seqlab.float64)
    scale = 1.0 / float(np.sqrt(np.float32(E // H) * np.float32(1 + len(types))))  # transformers' float32 √(n·D)
    ours = nn.MultiheadAttention(E, H, batch_first=True, pos=pos, scale=scale, dtype=seqlab.float64).eval()
    w = lambda t: t.detach().numpy()  # noqa: E731
    with torch.no_grad(), seqlab.no_grad():
        for p in hf.parameters():
            p.normal_(0.0, 0.3)
        ours.in_proj_weight.copy_(torch.cat([hf.query_proj.weight, hf.key_proj.weight, hf.value_proj.weight]))
        ours.in_proj_bias.copy_(torch.cat([hf.query_proj.bias, hf.key_proj.bias, hf.value_proj.bias]))
        ours.out_proj.weight.copy_(np.eye(E))
        ours.out_proj.bias.copy_(np.zeros(E))
        for name in ("pos_key_proj", "pos_query_proj"):
            if getattr(pos, name) is not None:
                getattr(pos, name).weight.copy_(getattr(hf, name).weight)
                getattr(pos, name).bias.copy_(getattr(hf, name).bias)
        if norm:
            pos.rel_norm.weight.copy_(np.random.default_rng(1).normal(1.0, 0.2, E))
            pos.rel_norm.bias.copy_(np.random.default_rng(2).normal(0.0, 0.2, E))
    rel = torch.from_numpy(w(pos.rel_embeddings.weight))
    if norm:  # DebertaV2Encoder.get_rel_embedding normalises the table before the layers see it
        rel = torch.nn.functional.layer_norm(rel, (E,), torch.from_numpy(w(pos.rel_norm.weight)),
                                             torch.from_numpy(w(pos.rel_norm.bias)), 1e-7)
    x = torch.randn(B, L, E, dtype=torch.float64)
    keep = torch.ones(B, L, dtype=torch.bool)
    keep[1, -5:] = False  # row 1 is padded at the end
    with torch.no_grad():
        want = hf(x, keep[:, None, None, :] & keep[:, None, :, None], rel_embeddings=rel)[0]
    got = ours(seqlab.from_numpy(x.numpy()), seqlab.from_numpy(x.numpy()), seqlab.from_numpy(x.numpy()),
               key_padding_mask=seqlab.from_numpy((~keep).numpy()), need_weights=False)[0].detach().numpy()
    np.testing.assert_allclose(got[0], want[0].numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[1, :-5], want[1, :-5].numpy(), rtol=1e-10, atol=1e-10)


def test_deberta_v3_scheme_gradcheck_and_shared_keys_train_the_attention(rng):
    """Finite differences through every DeBERTa-v3 option at once (log buckets, the normalised
    table, shared keys); with shared keys the position terms' gradient reaches in_proj_weight's
    query and key rows, and the scheme alone (no attention to share) is a clear error."""
    E, H = 8, 2
    pos = P.DeBERTaRelativePosition(E, H, max_relative_position=6, position_buckets=4, share_att_key=True,
                                    norm_rel_ebd="layer_norm", dtype=seqlab.float64)
    mha = nn.MultiheadAttention(E, H, batch_first=True, pos=pos, dtype=seqlab.float64)
    x = rng.standard_normal((1, 9, E))

    def fn(x, w_in, table, g):  # the module run on gradcheck's leaves in place of its parameters
        owners = [(mha, "in_proj_weight", w_in), (pos.rel_embeddings, "weight", table), (pos.rel_norm, "weight", g)]
        saved = [m._parameters[n] for m, n, _ in owners]
        for m, n, t in owners:
            m._parameters[n] = t
        try:
            return mha(x, x, x, need_weights=False)[0]
        finally:
            for (m, n, _), p in zip(owners, saved):
                m._parameters[n] = p

    assert_gradcheck(fn, [x, mha.in_proj_weight.detach().numpy(), pos.rel_embeddings.weight.detach().numpy(),
                          pos.rel_norm.weight.detach().numpy()])
    with pytest.raises(ValueError, match="share_att_key=True.*pass the scheme as pos="):
        pos.attention(*[seqlab.randn(1, H, 3, E // H, dtype=seqlab.float64)] * 3)
