"""Seq2seq attention (seqlab.nn.Seq2SeqAttention, seqlab.nn.functional.seq2seq_attention) against
its formulas written with torch's basic ops: every score, one decoder step and all steps, with and
without padding, values given or not; the forward, every gradient (query, keys, values, parameters)
in float32 and float64, and gradcheck in float64. Also: what the weights must be (sum to 1, 0 at
padding; raw scores for 'linear'), rows that are all padding, errors, the names and the repr, and a
GRU encoder + GRUCell decoder with attention equal to the same model in torch, which learns to
reverse a sequence. The C++ side: cpp/tests/test_seq2seq_attention.cpp; the twins: test_nn_twins.py."""
import math

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from seqlab.autograd import gradcheck

SCORES = ["dot", "scaled", "general", "additive", "linear"]
B, T, S, DQ, DV, H = 3, 4, 5, 4, 3, 6
SL = {np.float32: seqlab.float32, np.float64: seqlab.float64}
TH = {np.float32: torch.float32, np.float64: torch.float64}
RTOL = {np.float32: 1e-5, np.float64: 1e-10}
# Padding with some in every row but the first; no row is all padding (those: their own test).
LENGTHS = [5, 2, 4]


def key_size(score):
    return DQ + 2 if score in ("general", "additive") else DQ  # different sizes where the score allows


def padding(lengths, s=S):
    return np.array([[j >= n for j in range(s)] for n in lengths])


def close(ours, theirs, dtype, what):
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape, (what, a.shape, b.shape)
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=RTOL[dtype], atol=RTOL[dtype] * scale, err_msg=what)


class TorchAttention(torch.nn.Module):
    """The formulas with torch's basic ops, and the same parameter names as seqlab's module (so
    that its state dict loads here)."""

    def __init__(self, score, query_size, key_size, hidden_size, bias=True):
        super().__init__()
        self.score = score
        if score == "general":
            self.W = torch.nn.Parameter(torch.empty(query_size, key_size, dtype=torch.float64))
        if score == "additive":
            self.query_proj = torch.nn.Linear(query_size, hidden_size, bias=False, dtype=torch.float64)
            self.key_proj = torch.nn.Linear(key_size, hidden_size, bias=bias, dtype=torch.float64)
            self.v = torch.nn.Linear(hidden_size, 1, bias=False, dtype=torch.float64)

    def forward(self, q, k, v=None, mask=None):
        v = k if v is None else v
        one_step = q.dim() == 2
        if one_step:
            q = q.unsqueeze(1)
        if self.score in ("dot", "linear"):
            scores = torch.einsum("btd,bsd->bts", q, k)                         # qᵀ k_j
        elif self.score == "scaled":
            scores = torch.einsum("btd,bsd->bts", q, k) / math.sqrt(k.shape[-1])  # qᵀ k_j / √d
        elif self.score == "general":
            scores = torch.einsum("btq,qk,bsk->bts", q, self.W, k)              # qᵀ W k_j
        else:                                                                    # vᵀ tanh(W₁ q + W₂ k_j + b)
            w1q = self.query_proj(q)[:, :, None, :]
            w2k = self.key_proj(k)[:, None, :, :]
            scores = self.v(torch.tanh(w1q + w2k)).squeeze(-1)
        if self.score == "linear":
            weights = scores if mask is None else scores.masked_fill(mask[:, None, :], 0.0)
        else:
            if mask is not None:
                scores = scores.masked_fill(mask[:, None, :], float("-inf"))
            weights = torch.softmax(scores, dim=-1)
        context = torch.einsum("bts,bsv->btv", weights, v)                      # Σ_j a_j v_j
        if one_step:
            return context.squeeze(1), weights.squeeze(1)
        return context, weights


def build(score, dtype, bias=True, seed=0):
    seqlab.manual_seed(seed)
    s = nn.Seq2SeqAttention(DQ, key_size(score), score=score, hidden_size=H, bias=bias, dtype=SL[dtype])
    t = TorchAttention(score, DQ, key_size(score), H, bias=bias).to(TH[dtype])
    t.load_state_dict(nn.to_torch_state_dict(s))
    return s, t


CASES = [(score, steps, masked, with_values) for score in SCORES for steps in ("one", "all")
         for masked in (False, True) for with_values in (False, True)]


def case_id(c):
    score, steps, masked, with_values = c
    return f"{score}-{steps}-{'mask' if masked else 'nomask'}-{'values' if with_values else 'keys'}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_every_score_equals_its_formula(case, dtype, rng):
    score, steps, masked, with_values = case
    sm, tm = build(score, dtype)
    q = rng.standard_normal((B, DQ) if steps == "one" else (B, T, DQ)).astype(dtype)
    k = rng.standard_normal((B, S, key_size(score))).astype(dtype)
    v = rng.standard_normal((B, S, DV)).astype(dtype) if with_values else None
    mask = padding(LENGTHS) if masked else None
    qs, ks = seqlab.tensor(q, requires_grad=True), seqlab.tensor(k, requires_grad=True)
    qt, kt = torch.tensor(q, requires_grad=True), torch.tensor(k, requires_grad=True)
    vs = seqlab.tensor(v, requires_grad=True) if with_values else None
    vt = torch.tensor(v, requires_grad=True) if with_values else None
    cs, ws = sm(qs, ks, vs, key_padding_mask=seqlab.tensor(mask) if masked else None)
    ct, wt = tm(qt, kt, vt, torch.tensor(mask) if masked else None)
    assert cs.dtype == SL[dtype] and ws.dtype == SL[dtype]
    close(cs, ct, dtype, "context")
    close(ws, wt, dtype, "weights")

    gc = rng.standard_normal(tuple(ct.shape)).astype(dtype)
    gw = rng.standard_normal(tuple(wt.shape)).astype(dtype)
    ((cs * seqlab.tensor(gc)).sum() + (ws * seqlab.tensor(gw)).sum()).backward()
    ((ct * torch.tensor(gc)).sum() + (wt * torch.tensor(gw)).sum()).backward()
    close(qs.grad, qt.grad, dtype, "query grad")
    close(ks.grad, kt.grad, dtype, "keys grad")
    if with_values:
        close(vs.grad, vt.grad, dtype, "values grad")
    named_t = dict(tm.named_parameters())
    assert [n for n, _ in sm.named_parameters()] == list(named_t)
    for name, p in sm.named_parameters():
        close(p.grad, named_t[name].grad, dtype, f"grad of {name}")


@pytest.mark.parametrize("score", SCORES)
def test_functional_equals_the_module_and_takes_v_as_a_vector(score, rng):
    sm, _ = build(score, np.float64)
    q, k = seqlab.tensor(rng.standard_normal((B, T, DQ))), seqlab.tensor(rng.standard_normal((B, S, key_size(score))))
    mask = seqlab.tensor(padding(LENGTHS))
    params = {}
    if score == "general":
        params = dict(W=sm.W)
    if score == "additive":
        params = dict(query_weight=sm.query_proj.weight, key_weight=sm.key_proj.weight, key_bias=sm.key_proj.bias,
                      v=sm.v.weight.reshape(-1))  # (H,) as well as the Linear's (1, H)
    c1, w1 = F.seq2seq_attention(q, k, score=score, key_padding_mask=mask, **params)
    c2, w2 = sm(q, k, key_padding_mask=mask)
    assert seqlab.equal(c1, c2) and seqlab.equal(w1, w2)
    c3, _ = F.seq2seq_attention(q, k, k, score, **params)  # values=keys given explicitly, positionally
    assert seqlab.equal(c3, sm(q, k)[0])


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("steps", ["one", "all"])
def test_gradcheck(score, steps, rng):
    seqlab.manual_seed(3)
    m = nn.Seq2SeqAttention(3, key_size=3 if score in ("dot", "scaled", "linear") else 2, score=score, hidden_size=3,
                            dtype=seqlab.float64)
    q = seqlab.tensor(rng.standard_normal((2, 3) if steps == "one" else (2, 2, 3)), requires_grad=True)
    k = seqlab.tensor(rng.standard_normal((2, 3, m.key_size)), requires_grad=True)
    v = seqlab.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True)
    mask = seqlab.tensor(padding([3, 2], s=3))
    params = list(m.parameters())
    gw = seqlab.tensor(rng.standard_normal((2, 3) if steps == "one" else (2, 2, 3)))  # softmax's sum is 1: weigh it

    def f(q, k, v, *ps):
        c, w = m(q, k, v, key_padding_mask=mask)
        return (c * c).sum() + (w * gw).sum()
    assert gradcheck(f, (q, k, v, *params))
    assert gradcheck(lambda q, k, *ps: m(q, k)[0].tanh().sum(), (q, k, *params))  # values = keys, no mask


@pytest.mark.parametrize("score", SCORES)
def test_weights_sum_to_one_and_padding_weighs_zero(score, rng):
    m = nn.Seq2SeqAttention(DQ, key_size(score), score=score, dtype=seqlab.float64)
    q = seqlab.tensor(rng.standard_normal((B, T, DQ)))
    k = seqlab.tensor(rng.standard_normal((B, S, key_size(score))))
    mask = padding(LENGTHS)
    _, w = m(q, k, key_padding_mask=seqlab.tensor(mask))
    w = w.detach().numpy()
    assert np.all(w[np.broadcast_to(mask[:, None, :], w.shape)] == 0.0)
    if score == "linear":
        # No softmax: the weights are the raw scores qᵀ k_j where there is a key.
        raw = np.einsum("btd,bsd->bts", q.numpy(), k.numpy())
        np.testing.assert_allclose(w, np.where(mask[:, None, :], 0.0, raw), rtol=1e-12, atol=1e-12)
    else:
        assert np.all(w >= 0)
        np.testing.assert_allclose(w.sum(-1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("score", SCORES)
def test_a_row_of_padding_only_attends_to_nothing(score, rng):
    # Rows 0 and 2 are all padding: context 0, weights 0, no NaN anywhere, and no gradient reaches
    # their query, keys or values. Row 1 is as if it were alone, against torch's formula.
    sm, tm = build(score, np.float64)
    q = rng.standard_normal((B, T, DQ))
    k = rng.standard_normal((B, S, key_size(score)))
    v = rng.standard_normal((B, S, DV))
    mask = padding([0, 3, 0])
    qs, ks, vs = (seqlab.tensor(a, requires_grad=True) for a in (q, k, v))
    c, w = sm(qs, ks, vs, key_padding_mask=seqlab.tensor(mask))
    assert np.all(c.detach().numpy()[[0, 2]] == 0) and np.all(w.detach().numpy()[[0, 2]] == 0)
    (c.sum() + (w * w).sum()).backward()
    for t in (qs, ks, vs):
        g = t.grad.numpy()
        assert np.all(np.isfinite(g)) and np.all(g[[0, 2]] == 0)
    qt, kt, vt = (torch.tensor(a[1:2], requires_grad=True) for a in (q, k, v))
    ct, wt = tm(qt, kt, vt, torch.tensor(mask[1:2]))
    close(c[1:2], ct, np.float64, "context of the row with keys")
    close(w[1:2], wt, np.float64, "weights of the row with keys")
    (ct.sum() + (wt * wt).sum()).backward()
    for ours, theirs, what in ((qs, qt, "query"), (ks, kt, "keys"), (vs, vt, "values")):
        close(ours.grad[1:2], theirs.grad, np.float64, f"{what} grad")


@pytest.mark.parametrize("score", SCORES)
def test_empty_source_and_empty_batch(score):
    m = nn.Seq2SeqAttention(DQ, key_size(score), score=score)
    c, w = m(seqlab.randn(B, T, DQ), seqlab.randn(B, 0, key_size(score)), seqlab.randn(B, 0, DV))
    assert tuple(c.shape) == (B, T, DV) and tuple(w.shape) == (B, T, 0) and not c.detach().numpy().any()
    c, w = m(seqlab.randn(0, DQ), seqlab.randn(0, S, key_size(score)))
    assert tuple(c.shape) == (0, key_size(score)) and tuple(w.shape) == (0, S)


def test_aliases_names_repr_and_init():
    assert nn.Seq2SeqAttention(4, 6, score="bilinear").score == "general"
    assert nn.Seq2SeqAttention(4, 6, score="concat").score == "additive"
    assert repr(nn.Seq2SeqAttention(4)) == "Seq2SeqAttention(query_size=4, key_size=4, score='dot')"
    m = nn.Seq2SeqAttention(4, 6, score="general", dtype=seqlab.float64)
    assert repr(m) == "Seq2SeqAttention(query_size=4, key_size=6, score='general')"
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [("W", (4, 6))]
    assert m.W.dtype == seqlab.float64
    bound = 1 / math.sqrt(6)  # as the weight of nn.Linear(6, 4)
    assert bound * 0.7 < float(m.W.abs().max()) <= bound
    m = nn.Seq2SeqAttention(4, 6, score="additive", hidden_size=5, bias=False)
    assert repr(m) == (
        "Seq2SeqAttention(\n"
        "  query_size=4, key_size=6, score='additive', hidden_size=5, bias=False\n"
        "  (query_proj): Linear(in_features=4, out_features=5, bias=False)\n"
        "  (key_proj): Linear(in_features=6, out_features=5, bias=False)\n"
        "  (v): Linear(in_features=5, out_features=1, bias=False)\n"
        ")")
    assert [(n, tuple(p.shape)) for n, p in nn.Seq2SeqAttention(4, 6, score="additive", hidden_size=5)
            .named_parameters()] == [("query_proj.weight", (5, 4)), ("key_proj.weight", (5, 6)),
                                     ("key_proj.bias", (5,)), ("v.weight", (1, 5))]
    assert nn.Seq2SeqAttention(4, score="additive").hidden_size == 4  # defaults to query_size
    for score in ("dot", "scaled", "linear"):
        assert list(nn.Seq2SeqAttention(4, score=score, hidden_size=7).parameters()) == []
    seqlab.manual_seed(0)
    a = nn.Seq2SeqAttention(4, 6, score="general")
    seqlab.manual_seed(0)
    b = nn.Seq2SeqAttention(4, 6, score="general")
    b.reset_parameters()
    assert not seqlab.equal(a.W, b.W)  # reset_parameters draws again


def raises(exc, fn, *fragments):
    with pytest.raises(exc) as info:
        fn()
    for f in fragments:
        assert f in str(info.value), (str(info.value), f)


def test_errors_name_the_function_and_the_shapes():
    q, k = seqlab.randn(2, 4), seqlab.randn(2, 5, 4)
    att = F.seq2seq_attention
    raises(ValueError, lambda: att(q, k, score="cosine"), "seq2seq_attention: unknown score 'cosine'", "'bilinear'")
    raises(ValueError, lambda: att(seqlab.randn(2, 1, 3, 4), k), "seq2seq_attention", "query", "4D", "[2, 1, 3, 4]")
    raises(ValueError, lambda: att(q, seqlab.randn(2, 4)), "seq2seq_attention", "keys to be 3D", "[2, 4]")
    raises(ValueError, lambda: att(q, k, seqlab.randn(2, 5)), "seq2seq_attention", "values to be 3D", "[2, 5]")
    raises(RuntimeError, lambda: att(seqlab.randn(3, 4), k), "seq2seq_attention", "batch size 3", "[3, 4]",
           "[2, 5, 4]")
    raises(RuntimeError, lambda: att(q, k, seqlab.randn(2, 6, 3)), "seq2seq_attention", "[2, 6, 3]", "(2, 5)")
    raises(RuntimeError, lambda: att(q, seqlab.randn(2, 5, 3)), "seq2seq_attention", "'dot'", "same size", "[2, 4]",
           "[2, 5, 3]")
    raises(RuntimeError, lambda: att(q, k, key_padding_mask=seqlab.zeros(2, 5, dtype=seqlab.bool)[:, :4]),
           "seq2seq_attention", "key_padding_mask", "[2, 5]", "[2, 4]")
    raises(RuntimeError, lambda: att(q, k, key_padding_mask=seqlab.zeros(2, 5)), "seq2seq_attention",
           "key_padding_mask must be a bool tensor", "float")
    raises(RuntimeError, lambda: att(q, k.double()), "seq2seq_attention", "dtype float32", "float64 for keys")
    raises(RuntimeError, lambda: att(seqlab.zeros(2, 4, dtype=seqlab.int64), k), "seq2seq_attention",
           "floating point")
    raises(ValueError, lambda: att(q, k, W=seqlab.randn(4, 4)), "seq2seq_attention", "'dot' takes no W", "[4, 4]")
    raises(ValueError, lambda: att(q, k, score="general"), "seq2seq_attention", "'general' needs W")
    raises(RuntimeError, lambda: att(q, k, score="bilinear", W=seqlab.randn(4, 3)), "seq2seq_attention",
           "W of shape [4, 3]", "(4, 4)")
    w = dict(query_weight=seqlab.randn(6, 4), key_weight=seqlab.randn(6, 4), v=seqlab.randn(6))
    raises(ValueError, lambda: att(q, k, score="additive", **{**w, "v": None}), "'additive' needs v")
    raises(RuntimeError, lambda: att(q, k, score="concat", **{**w, "key_weight": seqlab.randn(5, 4)}),
           "key_weight of shape [5, 4]", "(6, 4)")
    raises(RuntimeError, lambda: att(q, k, score="additive", **{**w, "key_bias": seqlab.randn(5)}),
           "key_bias of shape [5]")
    raises(RuntimeError, lambda: att(q, k, score="additive", **{**w, "v": seqlab.randn(2, 6)}), "v of shape [2, 6]")
    raises(RuntimeError, lambda: att(q, k, score="additive", **{**w, "query_weight": seqlab.randn(6, 3)}),
           "query_weight of shape [6, 3]")

    raises(TypeError, lambda: att(q, k, score=3), "seq2seq_attention(): argument 'score'", "must be str, not int")
    raises(TypeError, lambda: att(q, [[1.0]]), "seq2seq_attention(): argument 'keys'", "must be Tensor, not list")

    raises(ValueError, lambda: nn.Seq2SeqAttention(4, 6), "Seq2SeqAttention", "score 'dot'", "6 and 4")
    raises(ValueError, lambda: nn.Seq2SeqAttention(4, score="attention"), "unknown score 'attention'")
    raises(ValueError, lambda: nn.Seq2SeqAttention(0), "Seq2SeqAttention: query_size and key_size must be positive")
    raises(ValueError, lambda: nn.Seq2SeqAttention(4, score="additive", hidden_size=0), "hidden_size must be positive")
    raises(TypeError, lambda: nn.Seq2SeqAttention(4.0), "Seq2SeqAttention: query_size should be of type int")
    raises(TypeError, lambda: nn.Seq2SeqAttention(4, score=None), "score should be a str")
    m = nn.Seq2SeqAttention(4, 6, score="general")
    raises(RuntimeError, lambda: m(q, k), "seq2seq_attention", "W of shape [4, 6]", "(4, 4)")


# ------------------------------------------------------------------ an encoder-decoder end to end
V, E, HID = 7, 5, 8  # vocabulary (0 = padding, 1 = start of target), embedding, hidden size


class SeqlabSeq2Seq(nn.Module):
    """Encoder: a GRU over the source. Decoder: a GRUCell, one step at a time (teacher forcing),
    whose state attends over the encoder's outputs (Luong et al. 2015: attend with the new state,
    predict from [h_t; context])."""

    def __init__(self, score, dtype):
        super().__init__()
        self.embed = nn.Embedding(V, E, dtype=dtype)
        self.encoder = nn.GRU(E, HID, batch_first=True, dtype=dtype)
        self.decoder = nn.GRUCell(E, HID, dtype=dtype)
        self.attention = nn.Seq2SeqAttention(HID, score=score, hidden_size=HID, dtype=dtype)
        self.out = nn.Linear(2 * HID, V, dtype=dtype)

    def forward(self, src, tgt_in, mask):
        keys, h = self.encoder(self.embed(src))
        h = h[0]
        logits = []
        for t in range(tgt_in.shape[1]):
            h = self.decoder(self.embed(tgt_in[:, t]), h)
            context, _ = self.attention(h, keys, key_padding_mask=mask)
            logits.append(self.out(seqlab.cat([h, context], dim=1)))
        return seqlab.stack(logits, dim=1)


class TorchSeq2Seq(torch.nn.Module):
    def __init__(self, score):
        super().__init__()
        self.embed = torch.nn.Embedding(V, E, dtype=torch.float64)
        self.encoder = torch.nn.GRU(E, HID, batch_first=True, dtype=torch.float64)
        self.decoder = torch.nn.GRUCell(E, HID, dtype=torch.float64)
        self.attention = TorchAttention(score, HID, HID, HID)
        self.out = torch.nn.Linear(2 * HID, V, dtype=torch.float64)

    def forward(self, src, tgt_in, mask):
        keys, h = self.encoder(self.embed(src))
        h = h[0]
        logits = []
        for t in range(tgt_in.shape[1]):
            h = self.decoder(self.embed(tgt_in[:, t]), h)
            context, _ = self.attention(h, keys, None, mask)
            logits.append(self.out(torch.cat([h, context], dim=1)))
        return torch.stack(logits, dim=1)


def reversal_batch(rng, batch, lengths):
    """Sources of tokens 2..V-1 padded with 0 after their length; targets: the source reversed
    (then padding), the decoder's input: 1 then the target shifted right."""
    s_max = max(lengths)
    src = np.zeros((batch, s_max), dtype=np.int64)
    tgt = np.zeros((batch, s_max), dtype=np.int64)
    for b, n in enumerate(lengths):
        src[b, :n] = rng.integers(2, V, n)
        tgt[b, :n] = src[b, :n][::-1]
    tgt_in = np.concatenate([np.ones((batch, 1), dtype=np.int64), tgt[:, :-1]], axis=1)
    return src, tgt_in, tgt, src == 0


@pytest.mark.parametrize("score", SCORES)
def test_a_gru_encoder_decoder_with_attention_equals_torch(score, rng):
    seqlab.manual_seed(5)
    sm = SeqlabSeq2Seq(score, seqlab.float64)
    tm = TorchSeq2Seq(score)
    tm.load_state_dict(nn.to_torch_state_dict(sm))
    src, tgt_in, tgt, mask = reversal_batch(rng, 4, [5, 3, 4, 2])
    loss_s = F.cross_entropy(sm(seqlab.tensor(src), seqlab.tensor(tgt_in), seqlab.tensor(mask)).reshape(-1, V),
                             seqlab.tensor(tgt).reshape(-1), ignore_index=0)
    loss_t = torch.nn.functional.cross_entropy(tm(torch.tensor(src), torch.tensor(tgt_in), torch.tensor(mask))
                                               .reshape(-1, V), torch.tensor(tgt).reshape(-1), ignore_index=0)
    close(loss_s, loss_t, np.float64, "loss")
    loss_s.backward()
    loss_t.backward()
    named_t = dict(tm.named_parameters())
    assert [n for n, _ in sm.named_parameters()] == list(named_t)
    for name, p in sm.named_parameters():
        close(p.grad, named_t[name].grad, np.float64, f"grad of {name}")


def test_a_gru_encoder_decoder_with_attention_learns_to_reverse(rng):
    seqlab.manual_seed(0)
    model = SeqlabSeq2Seq("additive", seqlab.float32)
    opt = seqlab.optim.Adam(model.parameters(), lr=0.03)
    lengths = rng.integers(2, 6, 32)  # padded: the mask is in play while it learns
    src, tgt_in, tgt, mask = (seqlab.tensor(a) for a in reversal_batch(rng, 32, lengths))
    losses = []
    for _ in range(40):
        opt.zero_grad()
        loss = F.cross_entropy(model(src, tgt_in, mask).reshape(-1, V), tgt.reshape(-1), ignore_index=0)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < 0.4 * losses[0], losses
