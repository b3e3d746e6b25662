"""Prompts of unequal length in one batch (generate(..., attention_mask=...), padded on the left
as Hugging Face's decoder-only batches are): every row generates what the prompt generates alone,
token for token, for nn.TransformerLM with every positional scheme (relative ones in the
attention, absolute ones added to the embeddings: their positions count from each row's first
token) and nn.RNNLM in each mode, with and without the cache, greedy and beam search; the logits at
the tokens equal the lone prompt's (to float32 rounding); a padded source of nn.TransformerSeq2Seq equals the unpadded
one. python/seqlab/nn/lm.py, python/seqlab/generation/utils.py."""
import numpy as np
import pytest

import seqlab
from seqlab import nn
from seqlab.generation import generate
from seqlab.nn import positional as P

V, E, H = 13, 16, 2
PAD = 0
PROMPTS = [[3, 4, 5, 6, 7], [8, 9], [10, 11, 12], [5]]


def lm(name):
    seqlab.manual_seed(1)
    relative = {"nope": lambda: None, "alibi": lambda: P.ALiBi(H), "rope": lambda: P.RoPE(E // H),
                "t5": lambda: P.T5RelativeBias(H), "shaw": lambda: P.ShawRelativePosition(E // H, 4),
                "transformer-xl": lambda: P.TransformerXLRelativePosition(E, H),
                "deberta": lambda: P.DeBERTaRelativePosition(E, H, 4), "da": lambda: P.DARelativePosition(H)}
    absolute = {"sinusoidal": lambda: P.SinusoidalPositionalEncoding(E),
                "learned": lambda: P.LearnedPositionalEmbedding(32, E), "embedding": lambda: nn.Embedding(32, E)}
    if name in relative:
        return nn.TransformerLM(V, E, H, 2, dropout=0.0, pos=relative[name]()).eval()
    if name in absolute:
        return nn.TransformerLM(V, E, H, 2, dropout=0.0, positional=absolute[name]()).eval()
    return nn.RNNLM(V, 8, 12, 2, mode=name).eval()


MODELS = ["nope", "alibi", "rope", "t5", "shaw", "transformer-xl", "deberta", "da", "sinusoidal", "learned",
          "embedding", "LSTM", "GRU", "RNN_TANH"]


def left_padded(prompts):
    L = max(map(len, prompts))
    ids = np.array([[PAD] * (L - len(p)) + p for p in prompts])
    mask = np.array([[0] * (L - len(p)) + [1] * len(p) for p in prompts])
    return seqlab.tensor(ids), seqlab.tensor(mask), L


@pytest.mark.parametrize("name", MODELS)
def test_a_padded_batch_generates_what_each_prompt_generates_alone(name):
    model = lm(name)
    ids, mask, L = left_padded(PROMPTS)
    for use_cache in (True, False):
        for kw in (dict(), dict(num_beams=3)):
            out = generate(model, ids, attention_mask=mask, max_new_tokens=6, use_cache=use_cache, **kw).numpy()
            for r, p in enumerate(PROMPTS):
                alone = generate(model, seqlab.tensor([p]), max_new_tokens=6, use_cache=use_cache, **kw).numpy()[0]
                np.testing.assert_array_equal(out[r, L - len(p):], alone, err_msg=f"row {r}, {kw}, cache {use_cache}")
                assert (out[r, :L - len(p)] == PAD).all()


@pytest.mark.parametrize("name", MODELS)
def test_the_logits_of_a_padded_batch_are_each_prompts_own(name):
    """Equal to float32 rounding: a batch of other shapes takes other GEMM blockings, and RoPE
    rotates by the padded position, which leaves q·k equal up to rounding."""
    model = lm(name)
    ids, mask, L = left_padded(PROMPTS)
    with seqlab.no_grad():
        batch = model(ids, attention_mask=mask).numpy()
        for r, p in enumerate(PROMPTS):
            alone = model(seqlab.tensor([p])).numpy()[0]
            np.testing.assert_allclose(batch[r, L - len(p):], alone, rtol=1e-5, atol=1e-6)
        # the cache's route: the padded prompt, then one token per row, against the rows alone
        cache = model.new_cache()
        model(ids, cache=cache, attention_mask=mask)
        nxt = seqlab.tensor([[1], [2], [3], [4]])
        full = np.concatenate([mask.numpy(), np.ones((4, 1), dtype=np.int64)], axis=1)
        step = model(nxt, cache=cache, attention_mask=seqlab.tensor(full)).numpy()[:, -1]
        for r, p in enumerate(PROMPTS):
            alone = model(seqlab.tensor([p + [r + 1]])).numpy()[0, -1]
            np.testing.assert_allclose(step[r], alone, rtol=1e-5, atol=1e-6)


def test_sampling_and_processors_with_a_padded_batch():
    """Sampling draws differ by row position, so the check is structural: every row keeps its
    padding and prompt, and a ban by no_repeat_ngram_size=1 holds per row (padding counts as a
    token for the processors, as in Hugging Face)."""
    model = lm("alibi")
    ids, mask, L = left_padded(PROMPTS)
    out = generate(model, ids, attention_mask=mask, max_new_tokens=5, do_sample=True, seed=3,
                   no_repeat_ngram_size=1).numpy()
    np.testing.assert_array_equal(out[:, :L], ids.numpy())
    for row in out:
        assert len(set(row[L:].tolist())) == 5 and not set(row[L:].tolist()) & set(row[:L].tolist())


def test_an_encoder_decoder_source_padded_on_the_right():
    seqlab.manual_seed(2)
    model = nn.TransformerSeq2Seq(V, V, E, H, 2, 2, dropout=0.0, positional=P.SinusoidalPositionalEncoding(E)).eval()
    sources = [[3, 4, 5, 6], [7, 8]]
    ids = seqlab.tensor([s + [PAD] * (4 - len(s)) for s in sources])
    mask = seqlab.tensor([[1] * len(s) + [0] * (4 - len(s)) for s in sources])
    for kw in (dict(), dict(num_beams=2)):
        out = generate(model, ids, attention_mask=mask, max_new_tokens=5, decoder_start_token_id=1, **kw).numpy()
        for r, s in enumerate(sources):
            alone = generate(model, seqlab.tensor([s]), max_new_tokens=5, decoder_start_token_id=1, **kw).numpy()[0]
            np.testing.assert_array_equal(out[r], alone)


def test_attention_mask_errors():
    model = lm("nope")
    ids, mask, L = left_padded(PROMPTS)
    right = seqlab.tensor(np.ascontiguousarray(mask.numpy()[:, ::-1]))
    cases = [
        (dict(attention_mask=seqlab.tensor([[1, 1]])), r"attention_mask must be 0/1 \(1 = token, 0 = padding\) of "
                                                       r"shape \(4, 5\), got int64 \(1, 2\)"),
        (dict(attention_mask=seqlab.tensor(mask.numpy() * 2)), r"got int64 \(4, 5\) with values \[0, 2\]"),
        (dict(attention_mask=right), r"attention_mask row 1 has padding after a token; a decoder-only batch is "
                                     r"padded on the left"),
        (dict(attention_mask=seqlab.zeros(4, 5, dtype=seqlab.int64)), "attention_mask row 0 is all padding"),
    ]
    for kw, msg in cases:
        with pytest.raises(ValueError, match=msg):
            generate(model, ids, max_new_tokens=2, **kw)
    with pytest.raises(ValueError, match=r"TransformerLM: attention_mask must be 0/1 .* of shape \(4, 5\)"):
        model(ids, attention_mask=seqlab.ones(4, 3, dtype=seqlab.int64))

    class NoMask(seqlab.nn.Module):
        def forward(self, idx):
            return seqlab.zeros(idx.shape[0], idx.shape[1], V)
    with pytest.raises(TypeError, match=r"attention_mask has padding but NoMask.forward takes no attention_mask"):
        generate(NoMask(), ids, attention_mask=mask, use_cache=False)
    generate(NoMask(), ids, attention_mask=seqlab.ones(4, 5, dtype=seqlab.int64), use_cache=False, max_new_tokens=1)
    rnn = lm("GRU")
    cache = rnn.new_cache()
    rnn(seqlab.tensor([[1, 2]]), cache=cache)
    with pytest.raises(ValueError, match="RNNLM: attention_mask has padding among the 2 new positions after 2 cached"):
        rnn(seqlab.tensor([[0, 3]]), cache=cache, attention_mask=seqlab.tensor([[0, 0, 0, 1]]))
