"""seqlab.to_torch / seqlab.from_torch for the relative schemes whose terms are not a bias alone
(Shaw's key and value tables, Transformer-XL, DeBERTa with every option, DA's multiplier) and
KERPLE's learned bias: the torch twin of nn.MultiheadAttention, of a post-LN encoder layer and of
nn.TransformerLM with each scheme computes seqlab's function (outputs and attention weights,
with padding and causal masks, float64 to 1e-10 and float32 to 1e-5, the gradients of every
parameter: the scheme's, and the attention's in_proj where DeBERTa shares its projections), the
LM's left-padded logits, KV-cache steps and greedy / beam tokens, and comes back unchanged."""
import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
from seqlab import torch_modules as TM
from seqlab.nn import positional as P
from seqlab.torch_modules import positional as TP
from test_to_torch import (TOL, assert_cache_steps_give_the_whole, assert_lm_twin_computes_the_same, assert_round_trip,
                           assert_same_function)

E, H, K = 24, 4, 3  # K: Shaw's and DeBERTa's clipping distance, small so that the sequences below pass it
F64, F32 = seqlab.float64, seqlab.float32

SCHEMES = {
    "shaw": lambda dt: P.ShawRelativePosition(E // H, K, dtype=dt),
    "shaw-keys-only": lambda dt: P.ShawRelativePosition(E // H, K, values=False, dtype=dt),
    "xl": lambda dt: P.TransformerXLRelativePosition(E, H, base=500.0, dtype=dt),
    "deberta": lambda dt: P.DeBERTaRelativePosition(E, H, K, dtype=dt),
    # 4 buckets up to 10: distances past ±2 are log-bucketed, past ±10 share the last bucket
    "deberta-buckets": lambda dt: P.DeBERTaRelativePosition(E, H, 10, position_buckets=4, dtype=dt),
    "deberta-share_att_key": lambda dt: P.DeBERTaRelativePosition(E, H, K, share_att_key=True, dtype=dt),
    "deberta-c2p": lambda dt: P.DeBERTaRelativePosition(E, H, K, pos_att_type=("c2p",), dtype=dt),
    "deberta-p2c": lambda dt: P.DeBERTaRelativePosition(E, H, K, pos_att_type=("p2c",), dtype=dt),
    "deberta-content-only": lambda dt: P.DeBERTaRelativePosition(E, H, K, pos_att_type=(), dtype=dt),
    "deberta-norm_rel_ebd": lambda dt: P.DeBERTaRelativePosition(E, H, K, norm_rel_ebd="layer_norm",
                                                                 layer_norm_eps=1e-5, dtype=dt),
    "deberta-v3": lambda dt: P.DeBERTaRelativePosition(E, H, 10, position_buckets=4, share_att_key=True,
                                                       pos_att_type=("p2c", "c2p"), norm_rel_ebd="layer_norm",
                                                       dtype=dt),
    "da": lambda dt: P.DARelativePosition(H, dtype=dt),
    "kerple-log": lambda dt: P.KERPLE(H, dtype=dt),
    "kerple-power": lambda dt: P.KERPLE(H, kernel="power", dtype=dt),
}
# grouped-query attention and head_dim where seqlab takes them with the scheme (Transformer-XL's
# r_net and DeBERTa's table are embed_dim wide, and DeBERTa's shared keys need every key head)
GQA = ["shaw", "xl", "deberta", "deberta-buckets", "da", "kerple-power"]
HEAD_DIM = {"shaw": lambda dt: P.ShawRelativePosition(8, K, dtype=dt), "da": SCHEMES["da"],
            "kerple-log": SCHEMES["kerple-log"]}


def randomize(m, seed=0):
    """Every parameter moved off its initial value (DA's start at 0, where R̂ = 1; the biases at
    0); KERPLE's r1, r2 set across its clamps (below 0.01; above 2 for the power kernel)."""
    rng = np.random.default_rng(seed)
    with seqlab.no_grad():
        for p in m.parameters():
            p.add_(seqlab.tensor(rng.normal(0.0, 0.3, tuple(p.shape)), dtype=p.dtype))
        for s in m.modules():
            if isinstance(s, P.KERPLE):
                s.bias_p.copy_(seqlab.tensor([0.005, 0.4, 1.2, 2.0], dtype=s.bias_p.dtype))
                s.bias_a.copy_(seqlab.tensor([1.3, 0.002, 0.6, 2.7], dtype=s.bias_a.dtype))
    return m


def padding(N, S):
    pad = np.zeros((N, S), dtype=bool)
    pad[1, -3:] = True
    return pad


class Attend(nn.Module):
    """Self-attention x -> mha(x, x, x, ...) with the masks as inputs (for assert_same_function)."""

    def __init__(self, mha, **kw):
        super().__init__()
        self.mha, self.kw = mha, kw

    def forward(self, x, pad, mask):
        return self.mha(x, x, x, key_padding_mask=pad, attn_mask=mask, **self.kw)


class TorchAttend(torch.nn.Module):
    def __init__(self, mha, **kw):
        super().__init__()
        self.mha, self.kw = mha, kw

    def forward(self, x, pad, mask):
        return self.mha(x, x, x, key_padding_mask=pad, attn_mask=mask, **self.kw)


def check_attention(m, what, dtype, L=9):
    """m and its twin with need_weights (averaged or per head) or not, a padded key, with and
    without the causal mask: outputs, weights and every gradient."""
    tm = seqlab.to_torch(m)
    assert type(tm) is TM.MultiheadAttention and type(tm.pos) is getattr(TP, type(m.pos).__name__)
    causal = seqlab.tensor(np.triu(np.ones((L, L), dtype=bool), 1))
    for n, kw in enumerate([dict(need_weights=False), dict(need_weights=True),
                            dict(need_weights=True, average_attn_weights=False)]):
        for mask in (None, causal):
            seqlab.manual_seed(n)
            xs = [seqlab.randn(2, L, E, dtype=dtype), seqlab.tensor(padding(2, L)), mask]
            assert_same_function(Attend(m, **kw), TorchAttend(tm, **kw), xs,
                                 f"{what} {kw} causal={mask is not None}", TOL[dtype])
    return tm


@pytest.mark.parametrize("dtype", [F64, F32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", list(SCHEMES))
def test_multihead_attention_with_the_scheme_becomes_its_twin(name, dtype):
    seqlab.manual_seed(1)
    m = randomize(nn.MultiheadAttention(E, H, batch_first=True, pos=SCHEMES[name](dtype), dtype=dtype).eval())
    check_attention(m, name, dtype)
    assert_round_trip(m, name)


@pytest.mark.parametrize("name,kv,head_dim", [(n, 2, None) for n in GQA] + [(n, None, 8) for n in HEAD_DIM]
                         + [("shaw", 1, 8)], ids=lambda v: str(v))
def test_grouped_query_attention_and_head_dim_with_the_scheme(name, kv, head_dim):
    seqlab.manual_seed(2)
    pos = (HEAD_DIM if head_dim else SCHEMES)[name](F64)
    m = randomize(nn.MultiheadAttention(E, H, batch_first=True, pos=pos, num_key_value_heads=kv, head_dim=head_dim,
                                        dtype=F64).eval())
    check_attention(m, f"{name} kv={kv} head_dim={head_dim}", F64)
    assert_round_trip(m, name)


@pytest.mark.parametrize("name", ["shaw", "xl", "deberta-v3", "da", "kerple-log"])
def test_a_query_whose_keys_are_all_masked_gets_zero_weights_as_in_seqlab(name):
    """With a scheme, seqlab's attention gives a query that may see no key zero weights (torch's
    safe softmax; no NaN, no NaN gradient), with need_weights too: so does the twin."""
    seqlab.manual_seed(6)
    m = randomize(nn.MultiheadAttention(E, H, batch_first=True, pos=SCHEMES[name](F64), dtype=F64).eval())
    tm = seqlab.to_torch(m)
    mask = np.triu(np.ones((6, 6), dtype=bool), 1)
    mask[2] = True  # query 2 sees nothing
    for kw in (dict(need_weights=False), dict(need_weights=True, average_attn_weights=False)):
        xs = [seqlab.randn(2, 6, E, dtype=F64), None, seqlab.tensor(mask)]
        assert_same_function(Attend(m, **kw), TorchAttend(tm, **kw), xs, f"{name} {kw}", 1e-10)
        with torch.no_grad():
            out = tm(*[torch.from_numpy(xs[0].detach().numpy())] * 3, attn_mask=torch.from_numpy(mask), **kw)
        assert torch.isfinite(out[0]).all() and (out[1] is None or (out[1][:, :, 2] == 0).all())


@pytest.mark.parametrize("name", list(SCHEMES))
def test_a_post_ln_encoder_layer_with_the_scheme_becomes_its_twin(name):
    seqlab.manual_seed(3)
    layer = randomize(nn.TransformerEncoderLayer(E, H, 40, dropout=0.0, batch_first=True, norm_first=False,
                                                 pos=SCHEMES[name](F64), dtype=F64).eval())
    tl = seqlab.to_torch(layer)
    assert type(tl) is TM.TransformerEncoderLayer
    L = 8
    xs = [seqlab.randn(2, L, E, dtype=F64), seqlab.tensor(np.triu(np.ones((L, L), dtype=bool), 1)),
          seqlab.tensor(padding(2, L))]
    assert_same_function(layer, tl, xs, name, 1e-10)
    assert_round_trip(layer, name)


def make_lm(name, dtype):
    seqlab.manual_seed(4)
    return randomize(nn.TransformerLM(50, E, H, 2, 40, dropout=0.1, pos=SCHEMES[name](dtype), dtype=dtype).eval())


@pytest.mark.parametrize("dtype", [F64, F32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", list(SCHEMES))
def test_a_transformer_lm_with_the_scheme_becomes_its_twin(name, dtype):
    """Logits and every gradient, left-padded logits at the kept positions, the round trip."""
    m = make_lm(name, dtype)
    tm = seqlab.to_torch(m)
    assert type(tm) is TM.TransformerLM and not tm.training
    assert_lm_twin_computes_the_same(m, tm, np.random.default_rng(5).integers(0, 50, (3, 11)), name, TOL[dtype])


@pytest.mark.parametrize("name", list(SCHEMES))
def test_the_twin_lm_caches_and_generates_seqlabs_tokens(name):
    """The twin's KV cache step by step gives the whole sequence's logits (queries after the
    cache at their true positions); greedy and beam generate(), from left-padded prompts too,
    give seqlab's tokens."""
    m = make_lm(name, F64)
    tm = seqlab.to_torch(m)
    x, whole = assert_cache_steps_give_the_whole(tm)
    with seqlab.no_grad():
        np.testing.assert_allclose(whole.numpy(), m(seqlab.tensor(x.numpy())).numpy(), rtol=1e-10, atol=1e-10)
    ids = np.random.default_rng(7).integers(1, 50, (2, 5))
    mask = np.ones_like(ids)
    mask[1, :2] = 0
    for kw in (dict(), dict(num_beams=3, length_penalty=0.7), dict(attention_mask=mask)):
        ours = m.generate(seqlab.tensor(ids), max_new_tokens=6,
                          **{k: seqlab.tensor(v) if k == "attention_mask" else v for k, v in kw.items()}).numpy()
        theirs = tm.generate(torch.from_numpy(ids), max_new_tokens=6,
                             **{k: torch.from_numpy(v) if k == "attention_mask" else v for k, v in kw.items()})
        np.testing.assert_array_equal(theirs.numpy(), ours, err_msg=f"{name} {kw}")


def test_shaw_value_term_reads_the_dropped_weights_on_both_sides():
    """In training, out_i = Σ_j p̃_ij (v_j + a^V_r) with p̃ the weights after dropout (the ones
    need_weights returns), in seqlab and in the twin: the value term sees the same weights as v."""
    seqlab.manual_seed(8)
    m = randomize(nn.MultiheadAttention(E, H, dropout=0.5, batch_first=True, pos=SCHEMES["shaw"](F64),
                                        dtype=F64)).train()
    tm = seqlab.to_torch(m)
    assert tm.training and tm.dropout == 0.5
    x = np.random.default_rng(9).standard_normal((2, 7, E))
    D, k = E // H, K
    r = np.clip(np.arange(7)[None, :] - np.arange(7)[:, None], -k, k) + k  # r(i, j) = clip(j − i, −k, k) + k
    for side, out, w, params in [
            ("seqlab", *[t.detach().numpy() for t in m(*[seqlab.tensor(x)] * 3, average_attn_weights=False)],
             {n: p.detach().numpy() for n, p in m.named_parameters()}),
            ("torch", *[t.detach().numpy() for t in tm(*[torch.from_numpy(x)] * 3, average_attn_weights=False)],
             {n: p.detach().numpy() for n, p in tm.named_parameters()})]:
        assert (w == 0).any(), side  # some weights were dropped
        v = (x @ params["in_proj_weight"][2 * E:].T + params["in_proj_bias"][2 * E:]).reshape(2, 7, H, D)
        heads = np.einsum("nhls,nshd->nlhd", w, v) + np.einsum("nhls,lsd->nlhd", w, params["pos.relative_value"][r])
        want = heads.reshape(2, 7, E) @ params["out_proj.weight"].T + params["out_proj.bias"]
        np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-10, err_msg=side)


def test_bias_schemes_keep_torchs_fused_attention_and_the_others_materialise_their_scores(monkeypatch):
    """KERPLE (a bias) runs in F.scaled_dot_product_attention like ALiBi and T5; DA (a multiplier)
    and Shaw (an output term) cannot, and compute their scores explicitly."""
    calls = []
    sdpa = torch.nn.functional.scaled_dot_product_attention
    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention",
                        lambda *a, **kw: calls.append(1) or sdpa(*a, **kw))
    x = torch.randn(2, 5, E, dtype=torch.float64)
    for name, fused in [("kerple-log", True), ("da", False), ("shaw", False), ("deberta", False)]:
        tm = seqlab.to_torch(nn.MultiheadAttention(E, H, batch_first=True, pos=SCHEMES[name](F64), dtype=F64))
        calls.clear()
        tm(x, x, x, need_weights=False)
        assert bool(calls) == fused, name


def test_shared_keys_need_the_attention():
    pos = TP.DeBERTaRelativePosition(E, H, K, share_att_key=True)
    q = torch.randn(1, H, 3, E // H)
    with pytest.raises(ValueError, match="share_att_key=True.*pos= of a MultiheadAttention"):
        pos.scores(q, q, 0, 1.0)
