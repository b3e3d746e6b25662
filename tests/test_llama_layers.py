"""The Llama family's layer options, against torch written out by hand: grouped-query attention in
nn.MultiheadAttention (num_key_value_heads; torch's F.scaled_dot_product_attention with
enable_gqa=True as the oracle), and TransformerEncoderLayer with rms_norm, glu and
num_key_value_heads (F.rms_norm, F.silu, the gated feed-forward). Forward, every gradient, the
need_weights path, and decoding with a KV cache equal to the whole sequence at once.
python/seqlab/nn/modules/activation.py and transformer.py, cpp/src/ops/multihead_attention.cpp, cpp/src/ops/transformer.cpp."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn.functional as F

E, N, L = 24, 2, 7


def torch_gqa(x, w_in, b_in, w_o, b_o, H, G, causal, d=None):
    """Grouped-query self-attention written with torch's ops: q of H heads, k and v of G, each
    head d wide (default E // H)."""
    d = E // H if d is None else d
    kv = G * d
    q, k, v = TF.linear(x, w_in, b_in).split([H * d, kv, kv], -1)
    q, k, v = (t.view(N, L, -1, d).transpose(1, 2) for t in (q, k, v))
    y = TF.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
    return TF.linear(y.transpose(1, 2).reshape(N, L, H * d), w_o, b_o)


def as_torch(t):
    return torch.tensor(t.detach().numpy(), requires_grad=True)


@pytest.mark.parametrize("H,G,D", [(4, 2, None), (6, 1, None), (4, 4, None), (6, 3, None), (3, 3, 4), (4, 2, 10)],
                         ids=["gqa-4-2", "mqa-6-1", "mha-4-4", "gqa-6-3", "narrow-heads-3x4", "wide-heads-gqa-4x10"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_grouped_query_attention_matches_torch(H, G, D, causal):
    """With head_dim D (T5's d_kv) the H heads span H·D features, fewer or more than E."""
    seqlab.manual_seed(H * 10 + G)
    mha = seqlab.nn.MultiheadAttention(E, H, batch_first=True, num_key_value_heads=G, head_dim=D, dtype=seqlab.float64)
    d = E // H if D is None else D
    assert tuple(mha.in_proj_weight.shape) == (H * d + 2 * G * d, E) and tuple(mha.out_proj.weight.shape) == (E, H * d)
    with seqlab.no_grad():
        mha.in_proj_bias.normal_()
        mha.out_proj.bias.normal_()
    x = seqlab.randn(N, L, E, dtype=seqlab.float64, requires_grad=True)
    mask = seqlab.nn.Transformer.generate_square_subsequent_mask(L, dtype=seqlab.float64) if causal else None
    out, weights = mha(x, x, x, attn_mask=mask, is_causal=causal, need_weights=False)
    assert weights is None
    params = [mha.in_proj_weight, mha.in_proj_bias, mha.out_proj.weight, mha.out_proj.bias]
    tx, tparams = as_torch(x), [as_torch(p) for p in params]
    want = torch_gqa(tx, *tparams, H, G, causal, D)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(0).standard_normal((N, L, E))
    out.backward(seqlab.tensor(g))
    want.backward(torch.tensor(g))
    for ours, theirs, name in zip([x] + params, [tx] + tparams, ["x", "in_proj_weight", "in_proj_bias", "out_w",
                                                                   "out_b"]):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-11, err_msg=name)
    # need_weights: the same output through the composed path, and each head's weights
    out2, w = mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
    np.testing.assert_allclose(out2.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert tuple(w.shape) == (N, H, L, L)
    np.testing.assert_allclose(w.sum(-1).detach().numpy(), 1.0, rtol=1e-12)


def test_grouped_query_attention_with_separate_projections_and_kdim():
    mha = seqlab.nn.MultiheadAttention(E, 4, kdim=10, vdim=6, num_key_value_heads=2, dtype=seqlab.float64)
    assert tuple(mha.k_proj_weight.shape) == (12, 10) and tuple(mha.v_proj_weight.shape) == (12, 6)
    q, k, v = seqlab.randn(5, 2, E, dtype=seqlab.float64), seqlab.randn(3, 2, 10, dtype=seqlab.float64), \
        seqlab.randn(3, 2, 6, dtype=seqlab.float64)
    out, w = mha(q, k, v, average_attn_weights=False)
    assert tuple(out.shape) == (5, 2, E) and tuple(w.shape) == (2, 4, 5, 3)
    # heads 0, 1 read key/value head 0 and heads 2, 3 head 1: with W_Q's rows of heads 0 and 1 equal,
    # their weights are equal too
    with seqlab.no_grad():
        mha.q_proj_weight[6:12] = mha.q_proj_weight[0:6]
        mha.in_proj_bias[6:12] = mha.in_proj_bias[0:6]
    _, w = mha(q, k, v, average_attn_weights=False)
    np.testing.assert_allclose(w[:, 0].detach().numpy(), w[:, 1].detach().numpy(), rtol=1e-12)
    assert not np.allclose(w[:, 1].detach().numpy(), w[:, 2].detach().numpy())


@pytest.mark.parametrize("args,message", [
    (dict(num_heads=4, num_key_value_heads=3), r"num_heads \(4\) must be a multiple of num_key_value_heads \(3\)"),
    (dict(num_heads=4, num_key_value_heads=0), r"num_key_value_heads"),
    (dict(num_heads=4, num_key_value_heads=2, add_bias_kv=True), "cannot be combined with add_bias_kv"),
    (dict(num_heads=4, head_dim=0), "head_dim must be greater than 0"),
    (dict(num_heads=5, head_dim=4, add_bias_kv=True), r"add_bias_kv needs num_heads · head_dim = embed_dim"),
])
def test_grouped_query_attention_errors(args, message):
    with pytest.raises(ValueError, match=message):
        seqlab.nn.MultiheadAttention(E, **args)


def torch_llama_block(x, layer, H, G):
    """A pre-norm block with RMSNorm, grouped-query attention and the SwiGLU feed-forward, in torch."""
    p = {n: as_torch(t) for n, t in layer.named_parameters()}
    eps = layer.norm1.eps
    h = TF.rms_norm(x, (E,), p["norm1.weight"], eps)
    mask = torch.triu(torch.full((L, L), float("-inf"), dtype=torch.float64), 1)
    d = E // H
    q, k, v = TF.linear(h, p["self_attn.in_proj_weight"]).split([E, G * d, G * d], -1)
    q, k, v = (t.view(N, L, -1, d).transpose(1, 2) for t in (q, k, v))
    a = TF.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    x = x + TF.linear(a.transpose(1, 2).reshape(N, L, E), p["self_attn.out_proj.weight"])
    h = TF.rms_norm(x, (E,), p["norm2.weight"], eps)
    ff = TF.linear(TF.silu(TF.linear(h, p["linear1.weight"])) * TF.linear(h, p["linear3.weight"]), p["linear2.weight"])
    return x + ff, p


@pytest.mark.parametrize("H,G", [(4, 2), (4, 1), (3, 3)], ids=["gqa", "mqa", "mha"])
def test_llama_block_matches_torch(H, G):
    seqlab.manual_seed(7)
    layer = seqlab.nn.TransformerEncoderLayer(E, H, 40, dropout=0.0, activation=F.silu, batch_first=True,
                                              norm_first=True, bias=False, rms_norm=True, glu=True,
                                              num_key_value_heads=G, layer_norm_eps=1e-6, dtype=seqlab.float64)
    assert type(layer.norm1).__name__ == "RMSNorm" and tuple(layer.linear3.weight.shape) == (40, E)
    with seqlab.no_grad():
        for norm in (layer.norm1, layer.norm2):
            norm.weight.normal_(1.0, 0.3)
    x = seqlab.randn(N, L, E, dtype=seqlab.float64, requires_grad=True)
    mask = seqlab.nn.Transformer.generate_square_subsequent_mask(L, dtype=seqlab.float64)
    out = layer(x, src_mask=mask, is_causal=True)
    tx = as_torch(x)
    want, tp = torch_llama_block(tx, layer, H, G)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-11, atol=1e-11)
    g = np.random.default_rng(1).standard_normal((N, L, E))
    out.backward(seqlab.tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-10)
    for name, param in layer.named_parameters():
        np.testing.assert_allclose(param.grad.numpy(), tp[name].grad.numpy(), rtol=1e-9, atol=1e-10, err_msg=name)


@pytest.mark.parametrize("head_dim", [E // 4, 10], ids=["head_dim-E/H", "head_dim-10"])
def test_a_llama_style_lm_decodes_with_the_cache_as_without(head_dim):
    """nn.TransformerLM with RoPE, RMSNorm, SwiGLU and grouped-query attention: the logits of each
    step with the KV cache equal those of the whole sequence, and the cache holds the 2 key/value
    heads (N, G, P, head_dim), as Hugging Face's does, not the 4 query heads' repeats; also with
    heads wider than d_model / nhead."""
    seqlab.manual_seed(3)
    model = seqlab.nn.TransformerLM(50, E, 4, 2, 40, dropout=0.0, activation=F.silu, bias=False,
                                    pos=seqlab.nn.positional.RoPE(head_dim, interleaved=False), num_key_value_heads=2,
                                    rms_norm=True, glu=True, dtype=seqlab.float64, head_dim=head_dim).eval()
    assert type(model.ln_f).__name__ == "RMSNorm"
    ids = seqlab.randint(0, 50, (2, 9))
    with seqlab.no_grad():
        whole = model(ids).numpy()
        cache = model.new_cache()
        steps = [model(ids[:, :4], cache=cache).numpy()] + [model(ids[:, t:t + 1], cache=cache).numpy()
                                                             for t in range(4, 9)]
    np.testing.assert_allclose(np.concatenate(steps, axis=1), whole, rtol=1e-10, atol=1e-12)
    assert tuple(cache.self_attention(0).key.shape) == (2, 2, 9, head_dim)
    with seqlab.no_grad():  # beam search reorders the grouped cache by batch rows
        cache.reorder_cache(seqlab.tensor([1, 1]))
        again = model(ids[1:2].expand(2, 9)[:, 8:9], cache=cache).numpy()
    np.testing.assert_allclose(again[0], again[1], rtol=1e-12)
