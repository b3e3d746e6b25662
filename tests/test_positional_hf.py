"""Positional schemes against Hugging Face transformers' own modules (5.24) on the same weights and
inputs: T5's attention (T5Attention: relative bias, no 1/√d, so scale=1.0), Llama's rotary
embedding (LlamaRotaryEmbedding + apply_rotary_pos_emb: RoPE with interleaved=False), and
Bloom's ALiBi (build_alibi_tensor: a bias m_h·j on the keys, which under the causal mask gives
the same softmax as −m_h·(i − j)), and Transformer-XL's relative attention (XLNet's rel_attn_core,
its sinusoid and rel_shift). DeBERTa's disentangled attention is in tests/test_positional.py.
python/seqlab/nn/positional.py, cpp/src/ops/positional.cpp."""
import numpy as np
import pytest
import torch
import transformers

import seqlab
from seqlab import nn
from seqlab.nn import positional as P

transformers.logging.set_verbosity_error()


@pytest.mark.parametrize("decoder", [False, True], ids=["encoder", "causal-decoder"])
@pytest.mark.parametrize("need_weights", [False, True], ids=["fused", "weights"])
def test_t5_attention_equals_hugging_face_with_scale_1(decoder, need_weights):
    from transformers.models.t5.modeling_t5 import T5Attention, T5Config
    torch.manual_seed(0)
    E, H, L, N = 16, 4, 40, 2
    cfg = T5Config(d_model=E, d_kv=E // H, num_heads=H, relative_attention_num_buckets=8,
                   relative_attention_max_distance=20, dropout_rate=0.0, is_decoder=decoder)
    cfg._attn_implementation = "eager"
    hf = T5Attention(cfg, has_relative_attention_bias=True, layer_idx=0, is_causal=decoder).double().eval()
    with torch.no_grad():
        hf.relative_attention_bias.weight.normal_()
    x = torch.randn(N, L, E, dtype=torch.float64)
    causal = torch.triu(torch.full((L, L), float("-inf"), dtype=torch.float64), 1)
    with torch.no_grad():
        want = hf(x, mask=causal[None, None] if decoder else None)[0].numpy()
    pos = P.T5RelativeBias(H, num_buckets=8, max_distance=20, bidirectional=not decoder, dtype=seqlab.float64)
    ours = nn.MultiheadAttention(E, H, bias=False, batch_first=True, pos=pos, scale=1.0, dtype=seqlab.float64)
    ours.load_state_dict({"in_proj_weight": seqlab.tensor(torch.cat([hf.q.weight, hf.k.weight, hf.v.weight]).detach()
                                                          .numpy()),
                          "out_proj.weight": seqlab.tensor(hf.o.weight.detach().numpy()),
                          "pos.relative_attention_bias.weight": seqlab.tensor(
                              hf.relative_attention_bias.weight.detach().numpy())})
    xs = seqlab.tensor(x.numpy())
    mask = dict(attn_mask=seqlab.tensor(causal.numpy()), is_causal=True) if decoder else {}
    got = ours(xs, xs, xs, need_weights=need_weights, **mask)[0].detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    ours.scale = None  # the default 1/sqrt(head_dim) is another attention: T5 needs scale=1.0
    assert np.abs(ours(xs, xs, xs, need_weights=need_weights, **mask)[0].detach().numpy() - want).max() > 1e-2


def test_t5_scale_reaches_the_layers_and_the_language_model():
    seqlab.manual_seed(0)
    lm = nn.TransformerLM(11, 16, 4, 2, dropout=0.0, pos=P.T5RelativeBias(4, bidirectional=False), scale=1.0)
    assert all(block.self_attn.scale == 1.0 for block in lm.layers)
    s2s = nn.TransformerSeq2Seq(11, 11, 16, 4, 1, 1, dropout=0.0, scale=0.5)
    assert s2s.decoder.layers[0].multihead_attn.scale == 0.5 and s2s.encoder.layers[0].self_attn.scale == 0.5
    idx = seqlab.tensor([[1, 2, 3, 4]])
    scaled = lm(idx).detach().numpy()
    for block in lm.layers:
        block.self_attn.scale = None
    assert np.abs(lm(idx).detach().numpy() - scaled).max() > 1e-4
    with pytest.raises(ValueError, match=r"MultiheadAttention: scale must be a finite number or None .*got nan"):
        nn.MultiheadAttention(8, 2, scale=float("nan"))


@pytest.mark.parametrize("offset", [0, 5])
def test_rope_equals_llama_rotary_embedding(offset):
    from transformers.models.llama.modeling_llama import LlamaConfig, LlamaRotaryEmbedding, apply_rotary_pos_emb
    torch.manual_seed(1)
    N, H, L, D = 2, 3, 9, 8
    cfg = LlamaConfig(hidden_size=H * D, num_attention_heads=H, head_dim=D, rope_theta=500.0,
                      max_position_embeddings=64)
    rotary = LlamaRotaryEmbedding(cfg)
    q, k = torch.randn(N, H, L, D, dtype=torch.float64), torch.randn(N, H, L, D, dtype=torch.float64)
    position_ids = torch.arange(offset, offset + L)[None].expand(N, -1)
    cos, sin = rotary(q, position_ids)
    want_q, want_k = apply_rotary_pos_emb(q, k, cos.double(), sin.double())
    rope = P.RoPE(D, base=500.0, interleaved=False)
    for x, want in ((q, want_q), (k, want_k)):
        got = rope.rotate(seqlab.tensor(x.numpy()), offset=offset).numpy()
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-6)  # Llama's tables are float32


@pytest.mark.parametrize("num_heads", [1, 3, 8, 12])
def test_alibi_equals_bloom_under_the_causal_mask(num_heads):
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor
    torch.manual_seed(2)
    N, L, D = 2, 10, 4
    q, k = torch.randn(N, num_heads, L, D, dtype=torch.float64), torch.randn(N, num_heads, L, D, dtype=torch.float64)
    alibi = build_alibi_tensor(torch.ones(N, L), num_heads, torch.float64).view(N, num_heads, 1, L)
    causal = torch.triu(torch.full((L, L), float("-inf"), dtype=torch.float64), 1)
    want = torch.softmax(q @ k.transpose(-1, -2) / D ** 0.5 + alibi + causal, dim=-1).numpy()
    got = P.ALiBi(num_heads).attention_weights(seqlab.tensor(q.numpy()), seqlab.tensor(k.numpy()),
                                               is_causal=True).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12)  # Bloom's slopes are float32


@pytest.mark.parametrize("attn_type", ["bi", "uni"])
def test_transformer_xl_attention_equals_xlnet_relative_attention(attn_type):
    """XLNet's rel_attn_core (Transformer-XL's attention: content + r_w_bias, position + r_r_bias
    over its sinusoid of i − j, rel_shift) on the same heads and weights as the scheme's fused
    attention: r (d_model, n_head, d_head) is r_net's weight transposed. 'bi': every distance,
    no mask; 'uni': the causal mask."""
    from transformers.models.xlnet.modeling_xlnet import XLNetConfig, XLNetModel, XLNetRelativeAttention
    torch.manual_seed(3)
    E, H, L, N = 16, 4, 11, 2
    D = E // H
    cfg = XLNetConfig(d_model=E, n_head=H, d_inner=32, n_layer=1, dropout=0.0, attn_type=attn_type)
    hf = XLNetRelativeAttention(cfg).double().eval()
    with torch.no_grad():
        for p in hf.parameters():
            p.normal_()
    xlnet = XLNetModel(cfg)
    pos_emb = xlnet.relative_positional_encoding(L, L, bsz=N).double()          # (qlen + klen or klen + 1, N, E)
    x = torch.randn(L, N, E, dtype=torch.float64)
    q, k, v = (torch.einsum("ibh,hnd->ibnd", x, w) for w in (hf.q, hf.k, hf.v))
    k_r = torch.einsum("ibh,hnd->ibnd", pos_emb, hf.r)
    mask = torch.triu(torch.ones(L, L, dtype=torch.float64), 1)[:, :, None, None] if attn_type == "uni" else None
    with torch.no_grad():
        want = hf.rel_attn_core(q, k, v, k_r, attn_mask=mask).permute(1, 2, 0, 3).numpy()   # (N, H, L, D)
    scheme = P.TransformerXLRelativePosition(E, H, dtype=seqlab.float64)
    scheme.load_state_dict({"r_net.weight": seqlab.tensor(hf.r.detach().reshape(E, E).T.contiguous().numpy()),
                            "r_w_bias": seqlab.tensor(hf.r_w_bias.detach().numpy()),
                            "r_r_bias": seqlab.tensor(hf.r_r_bias.detach().numpy())})

    def heads(t):  # (L, N, H, D) -> (N, H, L, D)
        return seqlab.tensor(t.detach().permute(1, 2, 0, 3).contiguous().numpy())
    got = scheme.attention(heads(q), heads(k), heads(v), is_causal=attn_type == "uni").detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)  # XLNet's sinusoid is float32
