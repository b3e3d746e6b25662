"""Generation (python/seqlab/generation/) and the language models it decodes (seqlab/nn/lm.py):
each model's logits and gradients equal the same model written with torch.nn (float32 and
float64); greedy decoding with the key/value cache (or the recurrent state) equals torch's full
recomputation token for token, for the decoder-only and encoder-decoder transformers and RNNs;
beam search with one beam is greedy and with enough beams finds the best sequence of an
exhaustive search under Hugging Face's length penalty; sampling is reproducible by seed; the
top-k / top-p / temperature filters equal Hugging Face's steps written in torch; bad arguments
raise clear errors."""
import itertools
import math

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
from seqlab.generation import beam_search, generate, temperature_scale, top_k_filter, top_p_filter

SL = {np.float32: seqlab.float32, np.float64: seqlab.float64}
TH = {np.float32: torch.float32, np.float64: torch.float64}
RTOL = {np.float32: 1e-5, np.float64: 1e-10}
DTYPES = [np.float32, np.float64]
V, D = 13, 16  # vocabulary, model width


# --- the same models written with torch.nn (the names match, so state dicts load both ways)

class TorchLM(torch.nn.Module):
    def __init__(self, dtype, num_layers=2, max_len=64):
        super().__init__()
        kw = dict(dtype=dtype)
        self.tok_emb = torch.nn.Embedding(V, D, **kw)
        self.positional = torch.nn.Embedding(max_len, D, **kw)
        self.layers = torch.nn.ModuleList([
            torch.nn.TransformerEncoderLayer(D, 2, 32, 0.0, "gelu", batch_first=True, norm_first=True, **kw)
            for _ in range(num_layers)])
        self.ln_f = torch.nn.LayerNorm(D, **kw)
        self.lm_head = torch.nn.Linear(D, V, bias=False, **kw)

    def forward(self, idx):
        L = idx.shape[1]
        x = self.tok_emb(idx) + self.positional(torch.arange(L))
        mask = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=x.dtype)
        for layer in self.layers:
            x = layer(x, src_mask=mask, is_causal=True)
        return self.lm_head(self.ln_f(x))


class TorchSeq2Seq(torch.nn.Module):
    def __init__(self, dtype):
        super().__init__()
        kw = dict(dtype=dtype)
        self.src_emb = torch.nn.Embedding(V - 2, D, **kw)
        self.tgt_emb = torch.nn.Embedding(V, D, **kw)
        layer = dict(dim_feedforward=32, dropout=0.0, activation="gelu", batch_first=True, norm_first=True, **kw)
        self.encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(D, 2, **layer), 2,
                                                   torch.nn.LayerNorm(D, **kw), enable_nested_tensor=False)
        self.decoder = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(D, 2, **layer), 2,
                                                   torch.nn.LayerNorm(D, **kw))
        self.lm_head = torch.nn.Linear(D, V, bias=False, **kw)

    def encode(self, src):
        return self.encoder(self.src_emb(src))

    def decode(self, tgt, memory):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(tgt.shape[1], dtype=memory.dtype)
        return self.lm_head(self.decoder(self.tgt_emb(tgt), memory, tgt_mask=mask, tgt_is_causal=True))

    def forward(self, src, tgt):
        return self.decode(tgt, self.encode(src))


class TorchRNNLM(torch.nn.Module):
    def __init__(self, dtype, mode):
        super().__init__()
        self.embedding = torch.nn.Embedding(V, 8, dtype=dtype)
        self.rnn = getattr(torch.nn, mode)(8, D, 2, batch_first=True, dtype=dtype)
        self.decoder = torch.nn.Linear(D, V, dtype=dtype)

    def forward(self, idx):
        return self.decoder(self.rnn(self.embedding(idx))[0])


class TorchRNNSeq2Seq(torch.nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.src_emb = torch.nn.Embedding(V - 2, 8, dtype=dtype)
        self.tgt_emb = torch.nn.Embedding(V, 8, dtype=dtype)
        self.encoder = torch.nn.GRU(8, D, batch_first=True, dtype=dtype)
        self.decoder = torch.nn.GRU(8, D, batch_first=True, dtype=dtype)
        self.out = torch.nn.Linear(D, V, dtype=dtype)

    def encode(self, src):
        return self.encoder(self.src_emb(src))[1]

    def decode(self, tgt, memory):
        return self.out(self.decoder(self.tgt_emb(tgt), memory)[0])

    def forward(self, src, tgt):
        return self.decode(tgt, self.encode(src))


def make(kind, dtype=np.float64, seed=0):
    """(torch model, seqlab model) with the same weights, in eval mode."""
    torch.manual_seed(seed)
    t, s = {
        "transformer": lambda: (TorchLM(TH[dtype]), nn.TransformerLM(
            V, D, 2, 2, 32, dropout=0.0, positional=nn.Embedding(64, D, dtype=SL[dtype]), dtype=SL[dtype])),
        "transformer-seq2seq": lambda: (TorchSeq2Seq(TH[dtype]), nn.TransformerSeq2Seq(
            V - 2, V, D, 2, 2, 2, 32, dropout=0.0, dtype=SL[dtype])),
        "lstm": lambda: (TorchRNNLM(TH[dtype], "LSTM"), nn.RNNLM(V, 8, D, 2, "LSTM", dtype=SL[dtype])),
        "gru": lambda: (TorchRNNLM(TH[dtype], "GRU"), nn.RNNLM(V, 8, D, 2, "GRU", dtype=SL[dtype])),
        "rnn-seq2seq": lambda: (TorchRNNSeq2Seq(TH[dtype]), nn.RNNSeq2Seq(V - 2, V, 8, D, 1, "GRU",
                                                                           dtype=SL[dtype])),
    }[kind]()
    with torch.no_grad():  # spread the logits a little, so that greedy choices are clear-cut
        for p in t.parameters():
            p.mul_(2.0)
    s.load_state_dict(t.state_dict())
    return t.eval(), s.eval()


KINDS = ["transformer", "transformer-seq2seq", "lstm", "gru", "rnn-seq2seq"]
SEQ2SEQ = {"transformer-seq2seq", "rnn-seq2seq"}
BOS = 1


def inputs(kind, rng, n=3, length=4):
    return rng.integers(0, V - 2 if kind in SEQ2SEQ else V, (n, length))


def torch_greedy(t, kind, ids, max_new_tokens):
    """Greedy decoding in torch, recomputing the whole sequence at every step."""
    with torch.no_grad():
        ids = torch.tensor(ids)
        if kind in SEQ2SEQ:
            memory = t.encode(ids)
            seq = torch.full((ids.shape[0], 1), BOS)
            step = lambda s: t.decode(s, memory)  # noqa: E731
        else:
            seq, step = ids, t
        for _ in range(max_new_tokens):
            seq = torch.cat([seq, step(seq)[:, -1].argmax(-1, keepdim=True)], 1)
    return seq.numpy()


def close(ours, theirs, dtype, what):
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape, f"{what}: shape {a.shape} != torch {b.shape}"
    finite = np.isfinite(b)
    scale = max(1.0, float(np.abs(b[finite]).max())) if finite.any() else 1.0
    np.testing.assert_allclose(a, b, rtol=RTOL[dtype], atol=RTOL[dtype] * scale, err_msg=what)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("kind", KINDS)
def test_logits_and_gradients_equal_torch(kind, dtype):
    t, s = make(kind, dtype)
    rng = np.random.default_rng(1)
    ids = inputs(kind, rng)
    tgt = rng.integers(0, V, (3, 5))
    if kind in SEQ2SEQ:
        t_out, s_out = t(torch.tensor(ids), torch.tensor(tgt)), s(seqlab.tensor(ids), seqlab.tensor(tgt))
    else:
        t_out, s_out = t(torch.tensor(ids)), s(seqlab.tensor(ids))
    close(s_out, t_out, dtype, "logits")
    g = rng.standard_normal(tuple(t_out.shape)).astype(dtype)
    (t_out * torch.tensor(g)).sum().backward()
    (s_out * seqlab.tensor(g)).sum().backward()
    tp = dict(t.named_parameters())
    for name, p in s.named_parameters():
        close(p.grad, tp[name].grad, dtype, f"grad of {name}")


@pytest.mark.parametrize("kind", KINDS)
def test_greedy_with_cache_equals_full_recomputation(kind):
    t, s = make(kind)
    ids = inputs(kind, np.random.default_rng(2))
    kw = dict(max_new_tokens=12, decoder_start_token_id=BOS if kind in SEQ2SEQ else None)
    cached = generate(s, seqlab.tensor(ids), **kw).numpy()
    full = generate(s, seqlab.tensor(ids), use_cache=False, **kw).numpy()
    np.testing.assert_array_equal(cached, torch_greedy(t, kind, ids, 12))
    np.testing.assert_array_equal(full, cached)


def test_cache_after_a_multi_token_prompt_holds_every_position():
    _, s = make("transformer")
    cache = s.new_cache()
    s(seqlab.tensor([[1, 2, 3, 4]]), cache=cache)
    s(seqlab.tensor([[5]]), cache=cache)
    assert cache.get_seq_length() == 5 and len(cache) == 2
    assert tuple(cache.self_attention(1).key.shape) == (1, 2, 5, D // 2)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("eos", [None, 4])
def test_beam_search_with_one_beam_is_greedy(kind, eos):
    _, s = make(kind)
    ids = seqlab.tensor(inputs(kind, np.random.default_rng(3)))
    kw = dict(max_new_tokens=10, eos_token_id=eos, decoder_start_token_id=BOS if kind in SEQ2SEQ else None)
    np.testing.assert_array_equal(beam_search(s, ids, num_beams=1, early_stopping=True, **kw).numpy(),
                                  generate(s, ids, **kw).numpy())


@pytest.mark.parametrize("kind", ["transformer", "rnn-seq2seq"])
def test_beam_search_cache_equals_no_cache(kind):
    _, s = make(kind)
    ids = seqlab.tensor(inputs(kind, np.random.default_rng(4)))
    kw = dict(num_beams=3, max_new_tokens=8, eos_token_id=5, length_penalty=0.5,
              decoder_start_token_id=BOS if kind in SEQ2SEQ else None)
    np.testing.assert_array_equal(generate(s, ids, **kw).numpy(), generate(s, ids, use_cache=False, **kw).numpy())


def sequence_logprob(t, prompt, tokens):
    with torch.no_grad():
        seq = torch.tensor([list(prompt) + list(tokens)])
        logp = torch.log_softmax(t(seq)[0].double(), -1)
    return sum(float(logp[len(prompt) - 1 + i, tok]) for i, tok in enumerate(tokens))


@pytest.mark.parametrize("length_penalty", [0.0, 1.0, 2.0, -1.0])
def test_beam_search_finds_the_exhaustive_best(length_penalty):
    # Vocabulary 4, eos 0, 3 new tokens: the candidates are every sequence ending at its first eos
    # or running to 3 tokens, scored sum log p / len ** length_penalty (HF). 16 beams hold every
    # prefix, and early_stopping='never' stops only when nothing can do better, so beam search
    # must return the exhaustive maximum.
    global V
    old, V = V, 4
    try:
        t, s = make("transformer", seed=5)
    finally:
        V = old
    prompt = [2, 3]
    best, best_score = None, -math.inf
    for n in (1, 2, 3):
        for toks in itertools.product(range(4), repeat=n):
            if 0 in toks[:-1] or (n < 3 and toks[-1] != 0):
                continue
            score = sequence_logprob(t, prompt, toks) / n ** length_penalty
            if score > best_score:
                best, best_score = list(toks), score
    out = beam_search(s, seqlab.tensor([prompt]), num_beams=16, max_new_tokens=3, length_penalty=length_penalty,
                      early_stopping="never", eos_token_id=0).numpy()[0].tolist()
    got = out[2:]
    if 0 in got:
        got = got[:got.index(0) + 1]
    assert got == best, f"beam search {got}, exhaustive best {best} ({best_score})"


def test_sampling_is_reproducible_by_seed():
    _, s = make("transformer")
    ids = seqlab.tensor(inputs("transformer", np.random.default_rng(6)))
    kw = dict(do_sample=True, max_new_tokens=20, temperature=1.5)
    a = generate(s, ids, seed=11, **kw).numpy()
    np.testing.assert_array_equal(a, generate(s, ids, seed=11, **kw).numpy())
    assert not np.array_equal(a, generate(s, ids, seed=12, **kw).numpy())
    seqlab.manual_seed(11)  # seed= is seqlab.manual_seed
    np.testing.assert_array_equal(a, generate(s, ids, **kw).numpy())


def test_sampling_from_a_generator_object():
    """generator= as torch's random functions take it: its own stream, the global one untouched."""
    _, s = make("transformer")
    ids = seqlab.tensor(inputs("transformer", np.random.default_rng(6)))
    kw = dict(do_sample=True, max_new_tokens=20, temperature=1.5)
    g = seqlab.Generator()
    g.manual_seed(5)
    seqlab.manual_seed(0)
    before = seqlab.rand(3).numpy()
    seqlab.manual_seed(0)
    a = generate(s, ids, generator=g, **kw).numpy()
    np.testing.assert_array_equal(seqlab.rand(3).numpy(), before)  # the global generator did not move
    g.manual_seed(5)
    np.testing.assert_array_equal(a, generate(s, ids, generator=g, **kw).numpy())
    np.testing.assert_array_equal(a, generate(s, ids, generator=seqlab.Generator(), seed=5, **kw).numpy())
    assert not np.array_equal(a, generate(s, ids, generator=g, **kw).numpy())  # the stream moved on


def test_sampling_with_top_k_1_is_greedy():
    _, s = make("gru")
    ids = seqlab.tensor(inputs("gru", np.random.default_rng(7)))
    np.testing.assert_array_equal(generate(s, ids, do_sample=True, top_k=1, seed=0).numpy(),
                                  generate(s, ids).numpy())


class ConstantLM:
    """Next-token logits that never change: sampled frequencies must follow them."""

    def __init__(self, logits):
        self.logits = seqlab.tensor(logits)

    def __call__(self, idx):
        return self.logits.expand(idx.shape[0], idx.shape[1], self.logits.shape[0])


@pytest.mark.parametrize("temperature,top_k,top_p", [(1.0, None, None), (0.5, None, None), (1.0, 3, None),
                                                     (2.0, None, 0.7), (0.8, 4, 0.9)])
def test_sampled_frequencies_follow_the_filtered_distribution(temperature, top_k, top_p):
    logits = np.array([2.0, 1.5, 1.0, 0.5, 0.0, -0.5, -1.0])
    x = torch.tensor(logits) / temperature
    if top_k is not None:
        x = x.masked_fill(x < torch.topk(x, top_k).values[-1], -math.inf)
    if top_p is not None:
        x = hf_top_p(x[None], top_p)[0]
    expected = torch.softmax(x, -1).numpy()
    n = 20000
    out = generate(ConstantLM(logits), seqlab.zeros(n, 1, dtype=seqlab.int64), max_new_tokens=1, do_sample=True,
                   temperature=temperature, top_k=top_k, top_p=top_p, use_cache=False, seed=1).numpy()[:, 1]
    freq = np.bincount(out, minlength=len(logits)) / n
    assert np.all(freq[expected == 0] == 0)
    np.testing.assert_allclose(freq, expected, atol=4 * np.sqrt(0.25 / n))


# --- the filters against Hugging Face's steps written in torch

def hf_top_k(x, k):
    k = min(k, x.shape[-1])
    return x.masked_fill(x < torch.topk(x, k)[0][..., -1, None], -math.inf)


def hf_top_p(x, p):
    sorted_logits, sorted_idx = torch.sort(x, descending=False, stable=True)
    cumulative = sorted_logits.softmax(-1).cumsum(-1)
    sorted_remove = cumulative <= (1 - p)
    sorted_remove[..., -1:] = False
    remove = sorted_remove.scatter(-1, sorted_idx, sorted_remove)
    return x.masked_fill(remove, -math.inf)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("shape", [(7,), (4, 9), (2, 3, 11)])
def test_filters_equal_torch(dtype, shape):
    rng = np.random.default_rng(8)
    a = rng.standard_normal(shape).astype(dtype)
    a.reshape(-1)[:2] = a.reshape(-1)[2]  # ties
    for name, ours, theirs in [
        *[(f"top_k={k}", lambda x, k=k: top_k_filter(x, k), lambda x, k=k: hf_top_k(x, k)) for k in (1, 2, 5, 50)],
        *[(f"top_p={p}", lambda x, p=p: top_p_filter(x, p), lambda x, p=p: hf_top_p(x, p))
          for p in (0.05, 0.3, 0.9, 1.0)],
        *[(f"temperature={T}", lambda x, T=T: temperature_scale(x, T), lambda x, T=T: x / T) for T in (0.3, 2.0)],
    ]:
        tx, sx = torch.tensor(a, requires_grad=True), seqlab.tensor(a, requires_grad=True)
        t_out, s_out = theirs(tx), ours(sx)
        np.testing.assert_array_equal(np.isinf(s_out.detach().numpy()), np.isinf(t_out.detach().numpy()), name)
        close(s_out, t_out, dtype, name)
        g = rng.standard_normal(shape).astype(dtype)
        t_out.backward(torch.tensor(g))
        s_out.backward(seqlab.tensor(g))
        close(sx.grad, tx.grad, dtype, f"gradient of {name}")


def test_eos_stops_and_pads():
    _, s = make("transformer")
    ids = seqlab.tensor(inputs("transformer", np.random.default_rng(9)))
    free = generate(s, ids, max_new_tokens=8).numpy()
    eos = int(free[0, 4 + 2])  # the third token greedy makes for the first prompt
    pad = (eos + 1) % V  # a finished sequence is fed its padding, so the pad id must be a token
    out = generate(s, ids, max_new_tokens=8, eos_token_id=eos, pad_token_id=pad).numpy()
    for row, ref in zip(out, free):
        new, ref_new = row[4:], ref[4:]
        stop = list(ref_new).index(eos) if eos in ref_new else len(ref_new)
        np.testing.assert_array_equal(new[:stop + 1], ref_new[:stop + 1])   # the same tokens up to eos
        assert np.all(new[stop + 1:] == pad)                                 # then padding
    assert out.shape[1] <= free.shape[1]


def test_weight_tying():
    m = nn.TransformerLM(V, D, 2, 1, tie_weights=True)
    assert m.lm_head.weight is m.tok_emb.weight
    r = nn.RNNLM(V, D, D, tie_weights=True)
    assert r.decoder.weight is r.embedding.weight
    with pytest.raises(ValueError, match=r"tie_weights: the output layer's weight \(13, 8\) and the embedding "
                                         r"\(13, 4\) must have the same shape"):
        nn.RNNLM(V, 4, 8, tie_weights=True)


def test_sampling_arguments_are_ignored_when_not_sampling():
    """As Hugging Face: temperature, top_k and top_p shape sampling only; with do_sample=False they
    are neither used nor checked (temperature=0 used to raise, hinting 'use do_sample=False')."""
    _, s = make("transformer")
    ids = seqlab.tensor([[1, 2], [3, 4]])
    want = generate(s, ids, max_new_tokens=5).numpy()
    for kw in (dict(temperature=0.0), dict(temperature=0.0, top_k=0, top_p=0.0), dict(temperature=1e-308)):
        np.testing.assert_array_equal(generate(s, ids, max_new_tokens=5, **kw).numpy(), want)


def test_a_temperature_too_small_is_named():
    _, s = make("transformer")
    with pytest.raises(ValueError, match=r"temperature_scale: temperature=1e-308 is too small for these logits: "
                                         r"logit / temperature overflows"):
        generate(s, seqlab.tensor([[1, 2]]), do_sample=True, temperature=1e-308, seed=0)


def test_top_p_ties_keep_the_highest_index_first():
    """The stated rule for equal logits: a stable ascending sort, so the highest index counts as the
    more probable and is kept first (torch.sort's order on small rows, which Hugging Face uses)."""
    logits = seqlab.tensor([[1.0, 2.0, 2.0, 2.0, 0.5], [3.0, 3.0, 3.0, 3.0, 3.0]], dtype=seqlab.float64)
    kept = np.isfinite(top_p_filter(logits, 0.3).numpy())
    np.testing.assert_array_equal(kept, [[False, False, True, True, False], [False, False, False, True, True]])


def test_num_return_sequences_and_the_beam_output():
    _, s = make("transformer")
    ids = seqlab.tensor([[1, 2], [3, 4]])
    samples = generate(s, ids, max_new_tokens=6, do_sample=True, num_return_sequences=3, seed=5).numpy()
    assert samples.shape[0] == 6  # rows n·3 + r, each input's prompt first
    np.testing.assert_array_equal(samples[:, :2], np.repeat(ids.numpy(), 3, axis=0))
    assert len({tuple(r) for r in samples[:3]}) > 1  # three samples of the first prompt, not one three times
    out = generate(s, ids, max_new_tokens=5, num_beams=3, num_return_sequences=2, return_dict_in_generate=True,
                   output_scores=True)
    assert out.sequences.shape[0] == 4 and out["sequences"] is out.sequences
    scores = out.sequences_scores.numpy()
    assert scores.shape == (4,) and scores[0] >= scores[1] and scores[2] >= scores[3]  # best first per input
    assert len(out.scores) >= 1 and tuple(out.scores[0].shape) == (2 * 3, V)
    np.testing.assert_array_equal(out.sequences.numpy()[::2], generate(s, ids, max_new_tokens=5, num_beams=3).numpy())
    assert generate(s, ids, max_new_tokens=5, num_beams=3, return_dict_in_generate=True).sequences_scores is None
    with pytest.raises(ValueError, match=r"num_return_sequences must be an integer from 1 to num_beams \(3\), got 4"):
        generate(s, ids, num_beams=3, num_return_sequences=4)
    with pytest.raises(ValueError, match="greedy decoding returns one sequence per input"):
        generate(s, ids, num_return_sequences=2)
    greedy = generate(s, ids, max_new_tokens=4, return_dict_in_generate=True, output_scores=True, output_logits=True)
    np.testing.assert_array_equal(greedy.sequences.numpy(), generate(s, ids, max_new_tokens=4).numpy())
    assert len(greedy.scores) == len(greedy.logits) == 4 and tuple(greedy.scores[0].shape) == (2, V)
    for step, scores in enumerate(greedy.scores):  # no processor: the scores are the logits, argmax the token
        np.testing.assert_array_equal(scores.numpy(), greedy.logits[step].numpy())
        np.testing.assert_array_equal(scores.numpy().argmax(-1), greedy.sequences.numpy()[:, 2 + step])
    assert generate(s, ids, max_new_tokens=2, return_dict_in_generate=True).scores is None


def test_errors():
    _, s = make("transformer")
    ids = seqlab.tensor([[1, 2]])
    cases = [
        (dict(do_sample=True, temperature=0.0), ValueError, r"temperature must be a finite number > 0, got 0.0"),
        (dict(do_sample=True, temperature=float("nan")), ValueError, "temperature must be a finite number > 0"),
        (dict(do_sample=True, top_k=0), ValueError, r"top_k must be an integer >= 1, got 0"),
        (dict(do_sample=True, top_k=2.5), ValueError, r"top_k must be an integer >= 1, got 2.5"),
        (dict(do_sample=True, top_p=0.0), ValueError, r"top_p must be a number in \(0, 1\], got 0.0"),
        (dict(do_sample=True, top_p=1.5), ValueError, r"top_p must be a number in \(0, 1\], got 1.5"),
        (dict(num_beams=0), ValueError, r"num_beams must be an integer >= 1, got 0"),
        (dict(num_beams=2, do_sample=True), ValueError, "beam sampling"),
        (dict(max_new_tokens=-1), ValueError, r"max_new_tokens must be an integer >= 0, got -1"),
        (dict(eos_token_id=-3), ValueError, "eos_token_id must be a token id >= 0"),
        (dict(do_sample=True, generator=object()), TypeError, "generator must be a seqlab.Generator"),
        (dict(num_beams=2, early_stopping="sometimes"), ValueError, "early_stopping must be True, False or 'never'"),
    ]
    for kwargs, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            generate(s, ids, **kwargs)
    with pytest.raises(ValueError, match=r"generate\(\): input_ids must be an int64 tensor \(N, L\)"):
        generate(s, seqlab.tensor([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="a decoder-only model needs a prompt of at least one token"):
        generate(s, seqlab.zeros(2, 0, dtype=seqlab.int64))
    _, s2s = make("transformer-seq2seq")
    with pytest.raises(ValueError, match="an encoder-decoder model needs decoder_start_token_id"):
        generate(s2s, ids)
    with pytest.raises(TypeError, match=r"use_cache=True needs a model with new_cache\(\)"):
        generate(ConstantLM(np.zeros(3)), ids)
    with pytest.raises(ValueError, match=r"top_k_filter: top_k must be an integer >= 1, got -1"):
        top_k_filter(seqlab.randn(3), -1)
    with pytest.raises(ValueError, match=r"top_p_filter: logits must be a floating-point tensor \(\.\.\., V\)"):
        top_p_filter(seqlab.tensor([1, 2]), 0.5)
    with pytest.raises(ValueError, match=r"TransformerLM: idx must be \(N, L\) token ids, got shape \(3,\)"):
        s(seqlab.tensor([1, 2, 3]))
    short = nn.TransformerLM(V, 8, 2, 1, positional=nn.Embedding(4, 8)).eval()
    with pytest.raises(IndexError, match=r"TransformerLM: positions 4\.\.4 are beyond the positional table's 4 "
                                         r"positions"):
        generate(short, ids, max_new_tokens=5)  # the prompt's 2 positions, then 2, 3, then 4
    with pytest.raises(ValueError, match="unknown rnn mode 'LSTMX'"):
        nn.RNNLM(V, mode="LSTMX")


class Recorder(seqlab.generation.BaseStreamer):
    def __init__(self):
        self.puts, self.ended = [], 0

    def put(self, value):
        self.puts.append(value.numpy().copy())

    def end(self):
        self.ended += 1


@pytest.mark.parametrize("kind", ["transformer", "lstm", "transformer-seq2seq"])
def test_a_streamer_gets_the_prompt_then_each_token(kind):
    _, s = make(kind)
    ids = seqlab.tensor([[1, 2, 3]])
    rec = Recorder()
    kw = dict(decoder_start_token_id=BOS) if kind in SEQ2SEQ else {}
    out = generate(s, ids, max_new_tokens=5, streamer=rec, **kw).numpy()
    start = [[BOS]] if kind in SEQ2SEQ else [[1, 2, 3]]
    assert rec.ended == 1 and rec.puts[0].tolist() == start and len(rec.puts) == 6
    np.testing.assert_array_equal(np.concatenate([rec.puts[0][0]] + rec.puts[1:]), out[0])


def test_text_streamer_prints_as_tokens_come(capsys):
    _, s = make("transformer")
    vocab = [chr(ord("a") + i) for i in range(V)]
    out = generate(s, seqlab.tensor([[1, 2]]), max_new_tokens=6, streamer=seqlab.generation.TextStreamer(vocab))
    assert capsys.readouterr().out == "".join(vocab[i] for i in out.numpy()[0]) + "\n"
    generate(s, seqlab.tensor([[1, 2]]), max_new_tokens=6, streamer=seqlab.generation.TextStreamer(vocab, True))
    assert capsys.readouterr().out == "".join(vocab[i] for i in out.numpy()[0, 2:]) + "\n"

    class Tokenizer:  # a decode() tokenizer: text is printed up to its last space, the rest at the end
        def decode(self, ids):
            return " ".join(f"w{i}" for i in ids)
    printed = []
    streamer = seqlab.generation.TextStreamer(Tokenizer())
    streamer.on_finalized_text = lambda text, stream_end=False: printed.append((text, stream_end))
    streamer.put(seqlab.tensor([[4, 5]]))
    streamer.put(seqlab.tensor([6]))
    streamer.end()
    assert printed == [("w4 ", False), ("w5 ", False), ("w6", True)]


def test_min_new_tokens_repetition_and_own_processors():
    _, s = make("transformer")
    ids = seqlab.tensor([[1, 2], [3, 4]])
    free = generate(s, ids, max_new_tokens=8).numpy()
    eos = int(free[0, 3])  # the second new token of row 0: make it the eos
    early = generate(s, ids, max_new_tokens=8, eos_token_id=eos).numpy()
    assert early[0, 3] == eos
    late = generate(s, ids, max_new_tokens=8, eos_token_id=eos, min_new_tokens=4).numpy()
    assert eos not in late[:, 2:6]  # banned for the first 4 new tokens of every row
    banned = generate(s, ids, max_new_tokens=8, no_repeat_ngram_size=1).numpy()
    for row in banned:
        assert len(set(row.tolist())) == len(row)

    def ban_seven(input_ids, scores):  # a logits_processor of your own: (input_ids, scores) -> scores
        assert tuple(input_ids.shape)[0] == tuple(scores.shape)[0] == 2
        scores = scores.clone()
        scores[:, 7] = float("-inf")
        return scores
    assert 7 not in generate(s, ids, max_new_tokens=8, logits_processor=[ban_seven]).numpy()[:, 2:]
    sampled = generate(s, ids, max_new_tokens=8, do_sample=True, seed=0, logits_processor=[ban_seven],
                       return_dict_in_generate=True, output_scores=True)
    assert 7 not in sampled.sequences.numpy()[:, 2:] and all(np.isneginf(x.numpy()[:, 7]).all() for x in sampled.scores)


def test_streamer_and_processor_errors():
    _, s = make("transformer")
    ids = seqlab.tensor([[1, 2]])
    with pytest.raises(ValueError, match=r"a streamer cannot be used with beam search \(num_beams=2\)"):
        generate(s, ids, num_beams=2, streamer=Recorder())
    with pytest.raises(TypeError, match=r"streamer must have put\(token_ids\) and end\(\)"):
        generate(s, ids, streamer=object())
    with pytest.raises(ValueError, match="TextStreamer: streams one sequence at a time, got a batch of 2"):
        generate(s, seqlab.tensor([[1, 2], [3, 4]]), streamer=seqlab.generation.TextStreamer("abcdefghijklm"))
    with pytest.raises(TypeError, match="TextStreamer: tokenizer must have decode"):
        seqlab.generation.TextStreamer(3)
    with pytest.raises(IndexError, match="TextStreamer: token id 5 is outside the vocabulary of 2 tokens"):
        seqlab.generation.TextStreamer(["a", "b"]).put(seqlab.tensor([5]))
    cases = [(dict(repetition_penalty=0.0), ValueError, "penalty must be a finite number > 0, got 0.0"),
             (dict(no_repeat_ngram_size=-1), ValueError, "ngram_size must be an integer >= 1, got -1"),
             (dict(min_new_tokens=1.5), ValueError, r"generate\(\): min_new_tokens must be an integer >= 0, got 1.5"),
             (dict(logits_processor=[3]), TypeError, "logits_processor must hold callables"),
             (dict(greedy=True), TypeError, "unexpected keyword argument 'greedy'")]
    for kw, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            (seqlab.generation.greedy_search if "greedy" in kw else generate)(s, ids, **kw)
    with pytest.raises(ValueError, match=r"RepetitionPenaltyLogitsProcessor: scores must be \(rows, V\) with one row "):
        seqlab.generation.RepetitionPenaltyLogitsProcessor(1.2)(seqlab.tensor([[1, 2]]), seqlab.zeros(3, 5))
