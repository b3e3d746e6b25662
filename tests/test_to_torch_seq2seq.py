"""seqlab.to_torch / seqlab.from_torch for the seq2seq pieces (python/seqlab/torch_modules/:
seq2seq_attention.py, recurrent.py's RNNSeq2Seq, generation.py's encoder-decoder path,
_convert_seq2seq.py).

Seq2SeqAttention: every score and alias, one step and all steps, values given or not, padding or
not (a row of padding only too), the outputs equal in float64 (1e-10) and float32 (1e-5), every
gradient equal, the same errors. RNNSeq2Seq, every mode, 1 and 2 layers: forward, encode,
decode, every gradient; the twin's cache steps through the decode; generate() (greedy, beam,
seeded sampling, without the cache) gives seqlab's tokens. An encoder-decoder of the user's own
(a GRU and a Seq2SeqAttention over the encoder's outputs) generates the same tokens in both from
sources padded anywhere: its memory is a tuple holding a (N, S, H) tensor and a recurrent state,
and the padding masks reach its torch decode as torch bool tensors. Every conversion comes back
unchanged (from_torch)."""
import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
from seqlab.generation.utils import GenerationMixin as SeqlabGenerationMixin
from seqlab.generation.utils import RNNState as SeqlabRNNState
from seqlab.torch_modules import RNNSeq2Seq, Seq2SeqAttention
from seqlab.torch_modules.generation import GenerationMixin as TorchGenerationMixin
from seqlab.torch_modules.recurrent import RNNState as TorchRNNState
from test_to_torch import TOL, assert_round_trip, assert_same_function, flat

# the seqlab.nn modules this file converts (test_to_torch's walk over seqlab.nn reads it)
CONVERTS = ("Seq2SeqAttention", "RNNSeq2Seq")

# ---------------------------------------------------------------------------------- attention

Q, K, DV, HID = 4, 6, 3, 5  # query, key (where the score allows another size), value and hidden sizes
# (score as given, canonical name, key size, bias)
ATTENTION = [("dot", "dot", Q, True), ("scaled", "scaled", Q, True), ("linear", "linear", Q, True),
             ("general", "general", K, True), ("bilinear", "general", K, True),
             ("additive", "additive", K, True), ("concat", "additive", K, True), ("additive", "additive", K, False)]
DTYPES = {"f64": seqlab.float64, "f32": seqlab.float32}


def attention_id(case):
    score, _, key_size, bias = case
    return f"{score}-k{key_size}" + ("" if bias else "-nobias")


def make_attention(case, dtype):
    score, _, key_size, bias = case
    seqlab.manual_seed(1)
    return nn.Seq2SeqAttention(Q, key_size, score=score, hidden_size=HID, bias=bias, dtype=dtype)


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("case", ATTENTION, ids=attention_id)
def test_seq2seq_attention_becomes_its_twin_computing_the_same(case, dtype):
    """Context and weights, and the gradients of every parameter, the query, the keys and the
    values; one step (B, q) and all steps (B, T, q); padding with a row that is all padding."""
    score, canonical, key_size, bias = case
    dt = DTYPES[dtype]
    m = make_attention(case, dt)
    tm = seqlab.to_torch(m)
    assert type(tm) is Seq2SeqAttention and tm.score == m.score == canonical and repr(tm) == repr(m)
    assert [n for n, _ in tm.named_parameters()] == [n for n, _ in m.named_parameters()]
    rng = np.random.default_rng(2)
    B, T, S = 3, 4, 5
    pad = np.array([[j >= n for j in range(S)] for n in (5, 2, 0)])  # row 2: all padding
    for steps in ((), (T,)):
        for with_values in (False, True):
            for masked in (False, True):
                xs = [seqlab.tensor(rng.standard_normal((B, *steps, Q)), dtype=dt),
                      seqlab.tensor(rng.standard_normal((B, S, key_size)), dtype=dt),
                      seqlab.tensor(rng.standard_normal((B, S, DV)), dtype=dt) if with_values else None,
                      seqlab.tensor(pad) if masked else None]
                m.zero_grad()
                tm.zero_grad()
                what = f"{attention_id(case)} {dtype} steps={steps} values={with_values} mask={masked}"
                assert_same_function(m, tm, xs, what, TOL[dt])
    back = assert_round_trip(m, attention_id(case))
    assert repr(back) == repr(m)


def test_the_attention_twin_rejects_what_seqlabs_rejects():
    """The same kind of error (seqlab's message) for wrong ranks, sizes, dtypes and masks."""
    seqlab.manual_seed(0)
    m = nn.Seq2SeqAttention(Q, K, score="general")
    tm = seqlab.to_torch(m)
    q, k = np.zeros((2, Q), np.float32), np.zeros((2, 5, K), np.float32)
    cases = {"4-D query": (np.zeros((2, 1, 3, Q), np.float32), k, None, None),
             "2-D keys": (q, np.zeros((2, K), np.float32), None, None),
             "batch": (np.zeros((3, Q), np.float32), k, None, None),
             "values' source length": (q, k, np.zeros((2, 4, 3), np.float32), None),
             "keys' dtype": (q, k.astype(np.float64), None, None),
             "integer query": (q.astype(np.int64), k, None, None),
             "float mask": (q, k, None, np.zeros((2, 5), np.float32)),
             "mask shape": (q, k, None, np.zeros((2, 4), bool)),
             "key size for W": (q, np.zeros((2, 5, Q), np.float32), None, None)}
    for what, args in cases.items():
        with pytest.raises(Exception) as ours:
            m(*(None if a is None else seqlab.tensor(a) for a in args))
        with pytest.raises(Exception) as theirs:
            tm(*(None if a is None else torch.from_numpy(a) for a in args))
        assert type(theirs.value) is type(ours.value), what
        assert str(theirs.value).split(":")[0] == str(ours.value).split(":")[0] == "seq2seq_attention", what
    for kwargs in (dict(query_size=4, key_size=6), dict(query_size=4, score="cosine"), dict(query_size=0),
                   dict(query_size=4.0), dict(query_size=4, score=None), dict(query_size=4, score="concat",
                                                                               hidden_size=0)):
        with pytest.raises(Exception) as ours:
            nn.Seq2SeqAttention(**kwargs)
        with pytest.raises(type(ours.value)):
            Seq2SeqAttention(**kwargs)


def test_the_attention_twin_builds_as_seqlabs():
    """The constructor's defaults and aliases, the parameters' shapes and initialisation."""
    a = Seq2SeqAttention(4, 6, score="bilinear", dtype=torch.float64)
    assert a.score == "general" and a.W.shape == (4, 6) and a.W.dtype == torch.float64
    assert 0.7 / 6 ** 0.5 < float(a.W.detach().abs().max()) <= 1 / 6 ** 0.5  # as the weight of Linear(6, 4)
    assert Seq2SeqAttention(4, score="concat").hidden_size == 4 and Seq2SeqAttention(4, score="dot").hidden_size == 0
    assert repr(Seq2SeqAttention(4)) == repr(nn.Seq2SeqAttention(4))
    assert list(Seq2SeqAttention(4, score="linear", hidden_size=7).parameters()) == []
    m = seqlab.from_torch(Seq2SeqAttention(4, 6, score="concat", hidden_size=3, bias=False))
    assert type(m) is nn.Seq2SeqAttention and (m.score, m.hidden_size, m.bias) == ("additive", 3, False)


def test_a_model_holding_seq2seq_attention_converts_its_children():
    seqlab.manual_seed(3)
    d = nn.ModuleDict({"attn": nn.Seq2SeqAttention(Q, K, score="additive", hidden_size=HID),
                       "heads": nn.Sequential(nn.Seq2SeqAttention(Q, score="scaled"), nn.Linear(Q, 2))}).double()
    td = seqlab.to_torch(d)
    assert type(td) is torch.nn.ModuleDict and type(td["attn"]) is Seq2SeqAttention
    assert [type(c) for c in td["heads"]] == [Seq2SeqAttention, torch.nn.Linear]
    assert_same_function(d["attn"], td["attn"], [seqlab.randn(2, 3, Q, dtype=seqlab.float64),
                                                 seqlab.randn(2, 5, K, dtype=seqlab.float64)], "in a dict", 1e-10)
    assert_round_trip(d, "ModuleDict with Seq2SeqAttention")


# ---------------------------------------------------------------------------------- RNNSeq2Seq

SRC_V, TGT_V, EMB, H = 11, 13, 6, 7
RNN_CASES = [(mode, layers) for mode in ("GRU", "LSTM", "RNN_TANH", "RNN_RELU") for layers in (1, 2)]


def rnn_id(case):
    return f"{case[0]}-{case[1]}"


def spread(m, seed, scale=0.8):
    """Parameters drawn N(0, scale²), so that the greedy and beam choices are not all one token."""
    rng = np.random.default_rng(seed)
    with seqlab.no_grad():
        for p in m.parameters():
            p.copy_(seqlab.tensor(rng.standard_normal(tuple(p.shape)) * scale, dtype=p.dtype))
    return m


def make_rnn_seq2seq(case, dtype):
    mode, layers = case
    seqlab.manual_seed(4)
    m = nn.RNNSeq2Seq(SRC_V, TGT_V, EMB, H, num_layers=layers, mode=mode, dropout=0.1 if layers > 1 else 0.0,
                      dtype=dtype)
    return spread(m, 5, 0.5 if mode == "RNN_RELU" else 0.8).eval()


def tokens(rng, vocab, shape):
    return rng.integers(0, vocab, shape)


@pytest.mark.parametrize("dtype", list(DTYPES), ids=list(DTYPES))
@pytest.mark.parametrize("case", RNN_CASES, ids=rnn_id)
def test_an_rnn_seq2seq_becomes_its_twin_computing_the_same(case, dtype):
    """forward(src, tgt) and every gradient; encode (the memory: h or (h, c)) and decode; the
    round trip; the twin's cache stepping through the target equals its whole decode."""
    mode, layers = case
    dt = DTYPES[dtype]
    m = make_rnn_seq2seq(case, dt)
    tm = seqlab.to_torch(m)
    assert type(tm) is RNNSeq2Seq and tm.is_encoder_decoder and not tm.training
    assert type(tm.encoder) is type(tm.decoder) is getattr(torch.nn, mode.split("_")[0])
    assert tm.encoder.batch_first and tm.encoder.num_layers == layers and tm.decoder.dropout == m.decoder.dropout
    assert [n for n, _ in tm.named_parameters()] == [n for n, _ in m.named_parameters()]
    assert repr(tm) == repr(m)
    rng = np.random.default_rng(6)
    src, tgt = tokens(rng, SRC_V, (3, 5)), tokens(rng, TGT_V, (3, 6))
    tol = TOL[dt]
    assert_same_function(m, tm, [seqlab.tensor(src), seqlab.tensor(tgt)], rnn_id(case), tol)
    with seqlab.no_grad(), torch.no_grad():
        memory, tmemory = m.encode(seqlab.tensor(src)), tm.encode(torch.from_numpy(src))
        assert isinstance(tmemory, tuple) == (mode == "LSTM") == isinstance(memory, tuple)
        for a, b in zip(flat(memory), flat(tmemory)):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol, err_msg="memory")
        logits = m.decode(seqlab.tensor(tgt), memory).numpy()
        whole = tm.decode(torch.from_numpy(tgt), tmemory)
        np.testing.assert_allclose(logits, whole.numpy(), rtol=tol, atol=tol, err_msg="decode")
        cache = tm.new_cache()
        steps = [tm.decode(torch.from_numpy(tgt[:, :2]), tmemory, cache=cache)]
        steps += [tm.decode(torch.from_numpy(tgt[:, t:t + 1]), tmemory, cache=cache) for t in range(2, 6)]
        assert type(cache) is TorchRNNState and cache.get_seq_length() == 6
    np.testing.assert_allclose(torch.cat(steps, 1).numpy(), whole.numpy(), rtol=tol, atol=tol, err_msg="cache steps")
    back = assert_round_trip(m, rnn_id(case))
    with seqlab.no_grad():
        np.testing.assert_array_equal(back.eval()(seqlab.tensor(src), seqlab.tensor(tgt)).numpy(),
                                      m(seqlab.tensor(src), seqlab.tensor(tgt)).numpy())


GENERATE = [dict(), dict(num_beams=3), dict(num_beams=3, eos_token_id=4, length_penalty=0.7),
            dict(do_sample=True, top_k=5, seed=3), dict(do_sample=True, top_k=8, seed=11, num_return_sequences=2),
            dict(use_cache=False), dict(num_beams=3, use_cache=False)]


def assert_generates_the_same(m, tm, src, what, mask=None):
    extra = {} if mask is None else dict(attention_mask=mask)
    for kw in GENERATE:
        want = m.generate(seqlab.tensor(src), max_new_tokens=7, decoder_start_token_id=1, **kw,
                          **{k: seqlab.tensor(v) for k, v in extra.items()}).numpy()
        got = tm.generate(torch.from_numpy(src), max_new_tokens=7, decoder_start_token_id=1, **kw,
                          **{k: torch.from_numpy(v) for k, v in extra.items()})
        assert isinstance(got, torch.Tensor)
        np.testing.assert_array_equal(got.numpy(), want, err_msg=f"{what} {kw}")
        if not kw:  # (the parameters are spread so that the greedy tokens are not one token everywhere)
            assert len(np.unique(want[:, 1:])) > 1, f"{what}: a degenerate test"


@pytest.mark.parametrize("case", RNN_CASES, ids=rnn_id)
def test_the_rnn_seq2seq_twin_generates_seqlabs_tokens(case):
    """generate() through seqlab's loop: greedy, beam (the decoder state reordered, the memory
    of each input's beams its own copy), seeded sampling, without the cache; the output dict."""
    m = make_rnn_seq2seq(case, seqlab.float64)
    tm = seqlab.to_torch(m)
    src = tokens(np.random.default_rng(7), SRC_V, (3, 5))
    assert_generates_the_same(m, tm, src, rnn_id(case))
    out = tm.generate(torch.from_numpy(src), max_new_tokens=3, decoder_start_token_id=1, num_beams=2,
                      return_dict_in_generate=True, output_scores=True)
    want = m.generate(seqlab.tensor(src), max_new_tokens=3, decoder_start_token_id=1, num_beams=2,
                      return_dict_in_generate=True, output_scores=True)
    assert isinstance(out.sequences_scores, torch.Tensor)
    np.testing.assert_allclose(out.sequences_scores.numpy(), want.sequences_scores.numpy(), rtol=1e-10)


def test_the_rnn_seq2seq_twin_refuses_what_seqlabs_refuses():
    m = make_rnn_seq2seq(("GRU", 1), seqlab.float64)
    tm = seqlab.to_torch(m)
    src = np.array([[3, 4, 5], [6, 7, 0]])
    pad = src == 0
    with pytest.raises(ValueError, match="RNNSeq2Seq: src_key_padding_mask is not supported"):
        m.encode(seqlab.tensor(src), src_key_padding_mask=seqlab.tensor(pad))
    with pytest.raises(ValueError, match="RNNSeq2Seq: src_key_padding_mask is not supported"):
        tm.encode(torch.from_numpy(src), src_key_padding_mask=torch.from_numpy(pad))
    mask = (~pad).astype(np.int64)
    with pytest.raises(ValueError, match="src_key_padding_mask is not supported"):
        m.generate(seqlab.tensor(src), decoder_start_token_id=1, attention_mask=seqlab.tensor(mask))
    with pytest.raises(ValueError, match="src_key_padding_mask is not supported"):
        tm.generate(torch.from_numpy(src), decoder_start_token_id=1, attention_mask=torch.from_numpy(mask))
    with pytest.raises(ValueError, match="decoder_start_token_id"):
        tm.generate(torch.from_numpy(src))


def test_from_torch_refuses_an_rnn_seq2seq_seqlab_cannot_hold():
    tm = RNNSeq2Seq(torch.nn.Embedding(5, 4), torch.nn.Embedding(6, 4), torch.nn.GRU(4, 3, batch_first=True),
                    torch.nn.LSTM(4, 3, batch_first=True), torch.nn.Linear(3, 6))
    with pytest.raises(NotImplementedError, match="from_torch: RNNSeq2Seq is an RNNSeq2Seq whose parts"):
        seqlab.from_torch(tm)


# --------------------------------------- an encoder-decoder of one's own: tensor memory and masks

class SeqlabAttentive(nn.Module, SeqlabGenerationMixin):
    """A GRU encoder; a GRU decoder whose outputs attend over the encoder's outputs (Luong et al.
    2015). memory = (encoder outputs (N, S, H), final state (1, N, H)); padding masked by the
    attention (and zeroed in the encoder's outputs)."""

    is_encoder_decoder = True
    names = ("src_emb", "tgt_emb", "encoder", "decoder", "attention", "out")

    def __init__(self):
        super().__init__()
        self.src_emb, self.tgt_emb = nn.Embedding(SRC_V, EMB), nn.Embedding(TGT_V, EMB)
        self.encoder = nn.GRU(EMB, H, batch_first=True)
        self.decoder = nn.GRU(EMB, H, batch_first=True)
        self.attention = nn.Seq2SeqAttention(H, H, score="additive", hidden_size=HID)
        self.out = nn.Linear(2 * H, TGT_V)

    def new_cache(self):
        return SeqlabRNNState()

    def encode(self, src, src_key_padding_mask=None):
        keys, h = self.encoder(self.src_emb(src))
        if src_key_padding_mask is not None:
            keys = keys * (~src_key_padding_mask).to(keys.dtype).unsqueeze(-1)
        return keys, h

    def decode(self, tgt, memory, cache=None, memory_key_padding_mask=None):
        keys, h = memory
        h0 = h if cache is None or cache.hidden is None else cache.hidden
        out, hidden = self.decoder(self.tgt_emb(tgt), h0)
        if cache is not None:
            cache.update(hidden, tgt.shape[1])
        context, _ = self.attention(out, keys, key_padding_mask=memory_key_padding_mask)
        return self.out(seqlab.cat([out, context], dim=-1))


class TorchAttentive(TorchGenerationMixin, torch.nn.Module):
    """SeqlabAttentive in torch, from its children converted by to_torch; it records the masks it
    is given (to check that they arrive as torch bool tensors)."""

    is_encoder_decoder = True

    def __init__(self, children):
        super().__init__()
        for name, child in children.items():
            setattr(self, name, child)
        self.masks = []

    def new_cache(self):
        return TorchRNNState()

    def encode(self, src, src_key_padding_mask=None):
        keys, h = self.encoder(self.src_emb(src))
        if src_key_padding_mask is not None:
            self.masks.append(src_key_padding_mask)
            keys = keys * (~src_key_padding_mask).to(keys.dtype).unsqueeze(-1)
        return keys, h

    def decode(self, tgt, memory, cache=None, memory_key_padding_mask=None):
        keys, h = memory
        assert isinstance(keys, torch.Tensor) and isinstance(h, torch.Tensor)  # the memory stayed torch's
        h0 = h if cache is None or cache.hidden is None else cache.hidden
        out, hidden = self.decoder(self.tgt_emb(tgt), h0)
        if cache is not None:
            cache.update(hidden, tgt.shape[1])
        if memory_key_padding_mask is not None:
            self.masks.append(memory_key_padding_mask)
        context, _ = self.attention(out, keys, key_padding_mask=memory_key_padding_mask)
        return self.out(torch.cat([out, context], dim=-1))


def test_an_encoder_decoder_of_ones_own_generates_the_same_from_padded_sources():
    seqlab.manual_seed(9)
    m = spread(SeqlabAttentive().double(), 10).eval()
    tm = TorchAttentive({name: seqlab.to_torch(getattr(m, name)) for name in SeqlabAttentive.names}).eval()
    assert type(tm.attention) is Seq2SeqAttention
    rng = np.random.default_rng(11)
    src = tokens(rng, SRC_V, (3, 6))
    mask = np.ones_like(src)
    mask[0, 4:] = mask[2, :2] = 0  # padding at the end and at the start: an encoder-decoder's source may have either
    src[mask == 0] = 0
    assert_generates_the_same(m, tm, src, "no mask")
    assert not tm.masks
    assert_generates_the_same(m, tm, src, "padded", mask)
    assert tm.masks and all(t.dtype == torch.bool and t.device == torch.device("cpu") for t in tm.masks)
    np.testing.assert_array_equal(tm.masks[0].numpy(), mask == 0)
    differs = m.generate(seqlab.tensor(src), max_new_tokens=7, decoder_start_token_id=1).numpy()
    padded = m.generate(seqlab.tensor(src), max_new_tokens=7, decoder_start_token_id=1,
                        attention_mask=seqlab.tensor(mask)).numpy()
    assert (differs != padded).any()  # the mask is in play
