"""Beam search against Hugging Face transformers' own (5.24; the rules of its 4.50 rewrite), run on
the same model: a random table of next-token logits given the last two tokens, wrapped once as a
seqlab Module and once as a transformers PreTrainedModel with GenerationMixin. Every combination
of num_beams 2-4, length_penalty {0.6, 1.0, 2.0}, early_stopping {True, False, 'never'}, one or
two eos tokens and 1-6 new tokens, over random tables (some with eos made likely, so hypotheses
finish at every step), a batch of two prompts: the sequences equal Hugging Face's, and with
num_return_sequences = num_beams, return_dict_in_generate and output_scores, every returned beam
and its sequences_scores too. python/seqlab/generation/utils.py."""
import itertools

import numpy as np
import pytest
import torch
import transformers
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput

import seqlab
from seqlab.generation import generate

transformers.logging.set_verbosity_error()
V = 7  # tokens 0 and 1 serve as eos, V - 1 as pad


class TableConfig(PretrainedConfig):
    model_type = "seqlab_test_table"

    def __init__(self, vocab_size=V, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size


class HFTableLM(PreTrainedModel, GenerationMixin):
    """logits[b, t] = table[ids[b, t - 1], ids[b, t]] (the first position reads itself twice)."""
    config_class = TableConfig

    def __init__(self, config, table):
        super().__init__(config)
        self.register_buffer("table", torch.from_numpy(table))
        self.anchor = torch.nn.Parameter(torch.zeros(1))  # transformers wants a parameter

    def forward(self, input_ids, attention_mask=None, **kwargs):
        prev = torch.cat([input_ids[:, :1], input_ids[:, :-1]], dim=1)
        return CausalLMOutput(logits=self.table[prev, input_ids])


class TableLM(seqlab.nn.Module):
    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, ids):
        a = ids.numpy()
        prev = np.concatenate([a[:, :1], a[:, :-1]], axis=1)
        return seqlab.tensor(self.table[prev, a].astype(np.float64))


def tables(count):
    for seed in range(count):
        rng = np.random.default_rng(seed)
        table = (rng.standard_normal((V, V, V)) * 2).astype(np.float32)
        if seed % 2:  # eos likely: hypotheses finish early and at every step
            table[..., :2] += 2.0
        yield seed, table, rng.integers(2, V - 1, size=(2, 3))


CONFIGS = list(itertools.product([2, 3, 4], [0.6, 1.0, 2.0], [True, False, "never"], [0, [0, 1]], [1, 3, 6]))


@pytest.mark.parametrize("seed,table,prompts", list(tables(8)), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_beam_search_equals_hugging_face(seed, table, prompts):
    hf, ours = HFTableLM(TableConfig(), table).eval(), TableLM(table)
    differ = []
    for num_beams, length_penalty, early_stopping, eos, new in CONFIGS:
        kw = dict(num_beams=num_beams, max_new_tokens=new, length_penalty=length_penalty,
                  early_stopping=early_stopping, eos_token_id=eos, pad_token_id=V - 1)
        with torch.no_grad():
            want = hf.generate(torch.from_numpy(prompts), do_sample=False, use_cache=False, **kw).numpy()
        got = generate(ours, seqlab.tensor(prompts), use_cache=False, **kw).numpy()
        if got.shape != want.shape or (got != want).any():
            differ.append((kw, want.tolist(), got.tolist()))
        # every beam returned, with its score (transformers scores in float32)
        kw.update(num_return_sequences=num_beams, return_dict_in_generate=True, output_scores=True)
        with torch.no_grad():
            want = hf.generate(torch.from_numpy(prompts), do_sample=False, use_cache=False, **kw)
        got = generate(ours, seqlab.tensor(prompts), use_cache=False, **kw)
        seqs, scores = got.sequences.numpy(), got.sequences_scores.numpy()
        if (seqs.shape != want.sequences.shape or (seqs != want.sequences.numpy()).any()
                or not np.allclose(scores, want.sequences_scores.numpy(), rtol=1e-5, atol=1e-5)):
            differ.append((kw, want.sequences.tolist(), seqs.tolist(), want.sequences_scores.tolist(), scores.tolist()))
        assert len(got.scores) == len(want.scores) and got.scores[0].shape == tuple(want.scores[0].shape)
    assert not differ, f"{len(differ)} of {2 * len(CONFIGS)} comparisons differ, first: {differ[0]}"


def test_issue_28_reproducer():
    """early_stopping=True, eos candidates fill the hypotheses at the last step: the running beam
    [9, 1, 3] (score -0.399) still counts and wins over [9, 2, 0] (-0.857), as in Hugging Face."""
    P = np.full((10, 10), 1e-9)
    P[9, [0, 1, 2]] = .3, .5, .2
    P[1, [0, 3]] = .1, .9
    P[2, [0, 3]] = .9, .1
    logp = np.log(P)

    class Model(seqlab.nn.Module):
        def forward(self, ids):
            return seqlab.tensor(logp[ids.numpy()])

    out = generate(Model(), seqlab.tensor([[9]]), num_beams=2, max_new_tokens=2, early_stopping=True,
                   length_penalty=1.0, eos_token_id=0, pad_token_id=8, use_cache=False)
    assert out.tolist() == [[9, 1, 3]]


def test_logits_processors_equal_hugging_face():
    """Each processor against transformers' own class on the same ids and scores (float64): random
    rows, lengths and vocabularies, repeated tokens and n-grams, prompts shorter than n."""
    from transformers.generation import logits_process as hf
    from seqlab.generation import logits_process as ours
    rng = np.random.default_rng(0)
    for _ in range(60):
        rows, length, vocab = rng.integers(1, 5), rng.integers(1, 9), rng.integers(2, 12)
        ids, scores = rng.integers(0, vocab, size=(rows, length)), rng.standard_normal((rows, vocab))
        pairs = [(hf.RepetitionPenaltyLogitsProcessor(1.3), ours.RepetitionPenaltyLogitsProcessor(1.3)),
                 (hf.RepetitionPenaltyLogitsProcessor(0.7), ours.RepetitionPenaltyLogitsProcessor(0.7)),
                 (hf.MinLengthLogitsProcessor(5, torch.tensor([0, 1])), ours.MinLengthLogitsProcessor(5, [0, 1])),
                 (hf.MinNewTokensLengthLogitsProcessor(2, 3, torch.tensor([1])),
                  ours.MinNewTokensLengthLogitsProcessor(2, 3, 1))]
        pairs += [(hf.NoRepeatNGramLogitsProcessor(n), ours.NoRepeatNGramLogitsProcessor(n)) for n in (1, 2, 3)]
        for theirs, mine in pairs:
            want = theirs(torch.from_numpy(ids), torch.from_numpy(scores.copy())).numpy()
            got = mine(seqlab.tensor(ids), seqlab.tensor(scores)).numpy()
            np.testing.assert_array_equal(got, want, err_msg=f"{type(mine).__name__} on ids {ids.tolist()}")


PROCESSING = [dict(repetition_penalty=1.5), dict(repetition_penalty=0.8), dict(no_repeat_ngram_size=1),
              dict(no_repeat_ngram_size=2), dict(min_new_tokens=3), dict(min_length=6),
              dict(repetition_penalty=1.3, no_repeat_ngram_size=2, min_new_tokens=2)]


@pytest.mark.parametrize("processing", PROCESSING, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_generate_with_logits_processing_equals_hugging_face(processing):
    """Greedy decoding (its per-step scores too) and beam search with the processors, on the same
    table models as the beam-search test, with one eos or a list of two: Hugging Face's tokens."""
    differ, count = [], 0
    for seed, table, prompts in tables(4):
        hf, ours = HFTableLM(TableConfig(), table).eval(), TableLM(table)
        for eos, num_beams in itertools.product([0, [0, 1]], [1, 3]):
            kw = dict(num_beams=num_beams, max_new_tokens=6, eos_token_id=eos, pad_token_id=V - 1, **processing)
            with torch.no_grad():
                want = hf.generate(torch.from_numpy(prompts), do_sample=False, use_cache=False,
                                   return_dict_in_generate=True, output_scores=True, **kw)
            got = generate(ours, seqlab.tensor(prompts), use_cache=False, return_dict_in_generate=True,
                           output_scores=True, **kw)
            count += 1
            if got.sequences.shape != want.sequences.shape or (got.sequences.numpy() != want.sequences.numpy()).any():
                differ.append((seed, kw, want.sequences.tolist(), got.sequences.tolist()))
                continue
            if num_beams > 1:  # the hypotheses' scores (the per-step scores of dead beams differ: -inf here)
                np.testing.assert_allclose(got.sequences_scores.numpy(), want.sequences_scores.numpy(), rtol=1e-5)
                continue
            assert len(got.scores) == len(want.scores)
            for mine, theirs in zip(got.scores, want.scores):  # transformers processes float32 scores
                np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=2e-6, atol=2e-6)
    assert not differ, f"{len(differ)} of {count} differ, first: {differ[0]}"
