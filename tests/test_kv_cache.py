"""The attention key/value cache (seqlab's extension, cpp/src/ops/kv_cache.cpp): a decoding
step that projects only its new tokens and attends to the cached keys gives torch's full causal
computation, for MultiheadAttention (self and cross), the encoder layer used as a causal decoder
block, the decoder layer and the stacks; forward and the parameters' gradients through the
cached steps, float32 and float64; multi-token steps with the explicit (L, P + L) mask; beam
reordering; the layout of the cached keys; bad use raises clear errors."""
import warnings

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn

SL = {np.float32: seqlab.float32, np.float64: seqlab.float64}
TH = {np.float32: torch.float32, np.float64: torch.float64}
RTOL = {np.float32: 1e-5, np.float64: 1e-10}
DTYPES = [np.float32, np.float64]
E, H, N = 8, 2, 3
STEPS = [3, 1, 2, 1]  # tokens per step: a prompt, single tokens and a multi-token step after the cache


def build(name, dtype, **kwargs):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "enable_nested_tensor is True")
        t = getattr(torch.nn, name)(**kwargs, dtype=TH[dtype])
        s = getattr(nn, name)(**kwargs, dtype=SL[dtype])
    s.load_state_dict(t.state_dict())
    return t.eval(), s.eval()


def close(ours, theirs, dtype, what):
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape, f"{what}: shape {a.shape} != torch {b.shape}"
    scale = max(1.0, float(np.abs(b).max()))
    np.testing.assert_allclose(a, b, rtol=RTOL[dtype], atol=RTOL[dtype] * scale, err_msg=what)


def causal(L, P=0):
    """MultiheadAttention's bool mask for L new positions after P cached: True where j > i + P."""
    return seqlab.ones(L, P + L, dtype=seqlab.bool).triu(P + 1)


def steps(x):
    """Yield (P, chunk) over the time dim 1 of a batch-first tensor."""
    P = 0
    for n in STEPS:
        yield P, x[:, P:P + n]
        P += n


def check_grads(tm, sm, t_out, s_outs, dtype):
    """The same random cotangent on torch's full output and on the concatenated cached steps;
    every parameter's gradient must agree (the cache keeps each step's history)."""
    g = np.random.default_rng(5).standard_normal(tuple(t_out.shape)).astype(dtype)
    (t_out * torch.tensor(g)).sum().backward()
    (seqlab.cat(s_outs, 1) * seqlab.tensor(g)).sum().backward()
    tp = dict(tm.named_parameters())
    for name, p in sm.named_parameters():
        close(p.grad, tp[name].grad, dtype, f"grad of {name}")


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_self_attention_steps_equal_full_causal_attention(dtype):
    tm, sm = build("MultiheadAttention", dtype, embed_dim=E, num_heads=H, batch_first=True)
    x = np.random.default_rng(0).standard_normal((N, sum(STEPS), E)).astype(dtype)
    tx = torch.tensor(x)
    t_out, _ = tm(tx, tx, tx, attn_mask=torch.triu(torch.ones(7, 7, dtype=torch.bool), 1), need_weights=False)
    cache = nn.AttentionCache()
    outs = []
    for P, chunk in steps(seqlab.tensor(x)):
        L = chunk.shape[1]
        mask = causal(L, P) if L > 1 else None
        out, _ = sm(chunk, chunk, chunk, attn_mask=mask, need_weights=False, cache=cache)
        outs.append(out)
        assert len(cache) == P + L
    close(seqlab.cat(outs, 1), t_out, dtype, "cached steps")
    check_grads(tm, sm, t_out, outs, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_cached_keys_are_the_projected_keys_per_head(dtype):
    tm, sm = build("MultiheadAttention", dtype, embed_dim=E, num_heads=H, batch_first=True)
    x = np.random.default_rng(1).standard_normal((N, 4, E)).astype(dtype)
    cache = nn.AttentionCache()
    s = seqlab.tensor(x)
    sm(s, s, s, attn_mask=causal(4), need_weights=False, cache=cache)
    w_k, b_k = tm.in_proj_weight[E:2 * E], tm.in_proj_bias[E:2 * E]
    w_v, b_v = tm.in_proj_weight[2 * E:], tm.in_proj_bias[2 * E:]
    # (N, S, E) -> (N, H, S, head_dim), Hugging Face's layout
    k = (torch.tensor(x) @ w_k.T + b_k).view(N, 4, H, E // H).transpose(1, 2)
    v = (torch.tensor(x) @ w_v.T + b_v).view(N, 4, H, E // H).transpose(1, 2)
    close(cache.key, k, dtype, "cached keys")
    close(cache.value, v, dtype, "cached values")


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_cross_attention_projects_the_memory_once(dtype):
    tm, sm = build("MultiheadAttention", dtype, embed_dim=E, num_heads=H, batch_first=True)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((N, sum(STEPS), E)).astype(dtype)
    mem = rng.standard_normal((N, 5, E)).astype(dtype)
    t_out, _ = tm(torch.tensor(x), torch.tensor(mem), torch.tensor(mem), need_weights=False)
    cache = nn.AttentionCache(is_static=True)
    smem = seqlab.tensor(mem)
    outs = []
    for P, chunk in steps(seqlab.tensor(x)):
        # after the first step the memory is not read: zeros in its place give the same result
        memory = smem if P == 0 else seqlab.zeros(N, 5, E, dtype=SL[dtype])
        outs.append(sm(chunk, memory, memory, need_weights=False, cache=cache)[0])
        assert len(cache) == 5
    close(seqlab.cat(outs, 1), t_out, dtype, "cross-attention steps")
    check_grads(tm, sm, t_out, outs, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("norm_first", [True, False], ids=["pre-LN", "post-LN"])
def test_encoder_layer_as_causal_decoder_block(dtype, norm_first):
    kw = dict(d_model=E, nhead=H, dim_feedforward=16, dropout=0.0, batch_first=True, norm_first=norm_first)
    tm, sm = build("TransformerEncoderLayer", dtype, **kw)
    x = np.random.default_rng(3).standard_normal((N, sum(STEPS), E)).astype(dtype)
    t_out = tm(torch.tensor(x), src_mask=torch.nn.Transformer.generate_square_subsequent_mask(7, dtype=TH[dtype]),
               is_causal=True)
    cache = nn.AttentionCache()
    outs = [sm(chunk, src_mask=causal(chunk.shape[1], P) if chunk.shape[1] > 1 else None, cache=cache)
            for P, chunk in steps(seqlab.tensor(x))]
    close(seqlab.cat(outs, 1), t_out, dtype, "encoder layer steps")
    check_grads(tm, sm, t_out, outs, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_decoder_layer_with_self_and_memory_cache(dtype):
    kw = dict(d_model=E, nhead=H, dim_feedforward=16, dropout=0.0, batch_first=True, norm_first=True)
    tm, sm = build("TransformerDecoderLayer", dtype, **kw)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((N, sum(STEPS), E)).astype(dtype)
    mem = rng.standard_normal((N, 5, E)).astype(dtype)
    t_out = tm(torch.tensor(x), torch.tensor(mem), tgt_mask=torch.triu(torch.ones(7, 7, dtype=torch.bool), 1))
    self_cache, memory_cache = nn.AttentionCache(), nn.AttentionCache(is_static=True)
    smem = seqlab.tensor(mem)
    outs = [sm(chunk, smem, tgt_mask=causal(chunk.shape[1], P) if chunk.shape[1] > 1 else None, cache=self_cache,
               memory_cache=memory_cache) for P, chunk in steps(seqlab.tensor(x))]
    close(seqlab.cat(outs, 1), t_out, dtype, "decoder layer steps")
    check_grads(tm, sm, t_out, outs, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_stacks_take_a_kv_cache(dtype):
    layer = dict(d_model=E, nhead=H, dim_feedforward=16, dropout=0.0, batch_first=True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "enable_nested_tensor is True")
        t = torch.nn.Transformer(num_encoder_layers=2, num_decoder_layers=2, **layer, dtype=TH[dtype]).eval()
        s = nn.Transformer(num_encoder_layers=2, num_decoder_layers=2, **layer, dtype=SL[dtype]).eval()
    s.load_state_dict(t.state_dict())
    rng = np.random.default_rng(6)
    src = rng.standard_normal((N, 5, E)).astype(dtype)
    tgt = rng.standard_normal((N, sum(STEPS), E)).astype(dtype)
    t_out = t(torch.tensor(src), torch.tensor(tgt), tgt_mask=t.generate_square_subsequent_mask(7, dtype=TH[dtype]))
    memory = s.encoder(seqlab.tensor(src))
    cache = nn.KVCache()
    outs = []
    for P, chunk in steps(seqlab.tensor(tgt)):
        L = chunk.shape[1]
        outs.append(s.decoder(chunk, memory, tgt_mask=causal(L, P) if L > 1 else None, cache=cache))
        assert cache.get_seq_length() == P + L and len(cache) == 2
    close(seqlab.cat(outs, 1), t_out, dtype, "nn.Transformer's decoder with a KVCache")
    assert len(cache.cross_attention(1)) == 5 and cache.cross_attention(0).is_static


def test_reorder_cache_moves_whole_sequences():
    # After reorder_cache(idx) the cache holds the rows idx of the batch, so the next step
    # equals the full computation of the reordered batch.
    tm, sm = build("TransformerEncoderLayer", np.float64, d_model=E, nhead=H, dim_feedforward=16, dropout=0.0,
                   batch_first=True, norm_first=True)
    x = np.random.default_rng(8).standard_normal((N, 4, E))
    idx = [2, 2, 0]
    cache = nn.KVCache()
    sm(seqlab.tensor(x[:, :3]), src_mask=causal(3), cache=cache.self_attention(0))
    cache.reorder_cache(seqlab.tensor(idx))
    step = sm(seqlab.tensor(x[idx, 3:4]), cache=cache.self_attention(0))
    t_out = tm(torch.tensor(x[idx]), src_mask=torch.triu(torch.ones(4, 4, dtype=torch.bool), 1))
    close(step, t_out[:, 3:4], np.float64, "step after reorder_cache")


def test_cache_grows_only_by_the_new_positions():
    _, sm = build("MultiheadAttention", np.float32, embed_dim=E, num_heads=H, batch_first=True)
    cache = nn.AttentionCache()
    for P in range(5):
        x = seqlab.randn(N, 1, E)
        sm(x, x, x, need_weights=False, cache=cache)
        assert tuple(cache.key.shape) == (N, H, P + 1, E // H) == tuple(cache.value.shape)
    cache.reset()
    assert len(cache) == 0 and cache.key is None


def test_errors():
    _, sm = build("MultiheadAttention", np.float32, embed_dim=E, num_heads=H, batch_first=True)
    cache = nn.AttentionCache()
    x = seqlab.randn(N, 2, E)
    sm(x, x, x, attn_mask=causal(2), cache=cache)
    y = seqlab.randn(N + 1, 1, E)
    with pytest.raises(RuntimeError, match=r"KVCache: the new keys \[8, 1, 4\].*do not continue the cached keys "
                                           r"\[6, 2, 4\]"):
        sm(y, y, y, cache=cache)
    z = seqlab.randn(N, 2, E)
    with pytest.raises(RuntimeError, match=r"MultiheadAttention: The shape of the 2D attn_mask is \[2, 2\], but "
                                           r"should be \(2, 4\)"):
        sm(z, z, z, attn_mask=causal(2), cache=cache)  # the mask must cover the cached keys
    d = seqlab.randn(N, 1, E, dtype=seqlab.float64)
    _, s64 = build("MultiheadAttention", np.float64, embed_dim=E, num_heads=H, batch_first=True)
    with pytest.raises(RuntimeError, match="the kv_cache holds float32 keys but the query is float64"):
        s64(d, d, d, cache=cache)
    _, bias_kv = build("MultiheadAttention", np.float32, embed_dim=E, num_heads=H, add_bias_kv=True)
    with pytest.raises(RuntimeError, match="a kv_cache cannot be combined with add_bias_kv"):
        bias_kv(x, x, x, cache=nn.AttentionCache())
    static = nn.AttentionCache(is_static=True)
    static_full = nn.AttentionCache(is_static=True)
    sm(x, x, x, cache=static_full)
    # a filled static cache used where keys are to be appended: a batch mismatch is named
    with pytest.raises(RuntimeError, match=r"the kv_cache holds keys \[6, 2, 4\].*has batch 4"):
        sm(y, y, y, cache=static_full)
    _, dec = build("TransformerDecoderLayer", np.float32, d_model=E, nhead=H, dim_feedforward=16, batch_first=True)
    with pytest.raises(RuntimeError, match="memory_cache must be a cross-attention cache"):
        dec(x, x, cache=nn.AttentionCache(), memory_cache=nn.AttentionCache())
    with pytest.raises(RuntimeError, match="cache must be a self-attention cache"):
        dec(x, x, cache=static, memory_cache=nn.AttentionCache(is_static=True))
    with pytest.raises(RuntimeError, match="beam_idx must be a 1-D int64 tensor"):
        nn.KVCache().reorder_cache(seqlab.tensor([0.5]))
    with pytest.raises(IndexError, match="layer index must be >= 0"):
        nn.KVCache().self_attention(-1)
