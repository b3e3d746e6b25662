"""Beam search against Hugging Face transformers' own (5.24; the rules of its 4.50 rewrite), run on
the same model: a random table of next-token logits given the last two tokens, wrapped once as a
seqlab Module and once as a transformers PreTrainedModel with GenerationMixin. Every combination
of num_beams 2-4, length_penalty {0.6, 1.0, 2.0}, early_stopping {True, False, 'never'}, one or
two eos tokens and 1-6 new tokens, over random tables (some with eos made likely, so hypotheses
finish at every step), a batch of two prompts: the sequences equal Hugging Face's, and with
num_return_sequences = num_beams, return_dict_in_generate and output_scores, every returned beam
and its sequences_scores too. Issue 28, items 1-2. python/seqlab/generation/utils.py."""
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
