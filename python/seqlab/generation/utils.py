"""Autoregressive generation with Hugging Face's generate() arguments (max_new_tokens, do_sample,
temperature, top_k, top_p, num_beams, length_penalty, eos_token_id, pad_token_id, use_cache):
greedy decoding, sampling, and beam search, for decoder-only and encoder-decoder models,
transformer and recurrent alike.

A model takes part by a small protocol (the models of seqlab/nn/lm.py follow it):
- decoder-only: model(idx, cache=None) -> logits (N, L, V); idx (N, L) int64.
- encoder-decoder (is_encoder_decoder = True): model.encode(src) -> memory and
  model.decode(tgt, memory, cache=None) -> logits (N, T, V).
- model.new_cache() -> an empty cache that forward/decode update in place (a KVCache for a
  transformer, an RNNState for a recurrent model) and that has reorder_cache(beam_idx).
With use_cache=True a step feeds only the new token; with use_cache=False every step recomputes
the whole sequence (the oracle of the cache tests).

The loop is Python orchestration: one model call per generated token, as in Hugging Face, since
each step's input depends on the previous step's choice; the model call itself is the C++ layers.
Tests: tests/test_generation.py."""
import math
import numbers

import numpy as np

from .. import _core
from ..autograd import no_grad
from .logits_process import check_sampling_args, temperature_scale, top_k_filter, top_p_filter

__all__ = ["generate", "greedy_search", "sample", "beam_search", "GenerationMixin", "GenerateBeamOutput", "RNNState"]


class RNNState:
    """The cache of a recurrent model: its hidden state (h, or (h, c) for an LSTM; each
    (num_layers, N, H)), None before the first step, and the number of positions it has read."""

    def __init__(self):
        self.hidden = None
        self.seq_length = 0

    def update(self, hidden, new_positions):
        self.hidden = hidden
        self.seq_length += new_positions

    def get_seq_length(self):
        return self.seq_length

    def reorder_cache(self, beam_idx):
        """Keep batch rows beam_idx (the batch is dim 1 of a recurrent state)."""
        if self.hidden is None:
            return
        if isinstance(self.hidden, tuple):
            self.hidden = tuple(h.index_select(1, beam_idx) for h in self.hidden)
        else:
            self.hidden = self.hidden.index_select(1, beam_idx)

    def __repr__(self):
        return f"RNNState(positions={self.seq_length})"


class GenerationMixin:
    """model.generate(...) = seqlab.generation.generate(model, ...)."""

    def generate(self, input_ids, **kwargs):
        return generate(self, input_ids, **kwargs)


def _tensor(a):
    return _core.from_numpy(np.ascontiguousarray(a, dtype=np.int64))


class GenerateBeamOutput(dict):
    """What generate(..., return_dict_in_generate=True) returns for beam search, under Hugging
    Face's names (GenerateBeamDecoderOnlyOutput): sequences (N·R, L') token ids; sequences_scores
    (N·R,) each returned hypothesis's score, sum log p / generated_len**length_penalty, when
    output_scores=True; scores, one (N·num_beams, V) tensor of log-probabilities per step, when
    output_scores=True. Read as attributes (out.sequences) or keys (out["sequences"]); fields
    that were not asked for are None."""

    def __init__(self, sequences, sequences_scores=None, scores=None):
        super().__init__(sequences=sequences, sequences_scores=sequences_scores, scores=scores)

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class _Stepper:
    """Feeds a model one step at a time: with a cache only the new tokens, without it the whole
    sequence so far. next_logits(seqs) returns the logits of the last position, (rows, V)."""

    def __init__(self, model, input_ids, use_cache, fn):
        self.model = model
        self.use_cache = use_cache
        self.encoder_decoder = bool(getattr(model, "is_encoder_decoder", False))
        if use_cache and not hasattr(model, "new_cache"):
            raise TypeError(f"{fn}: use_cache=True needs a model with new_cache(); {type(model).__name__} has none "
                            "(pass use_cache=False)")
        self.memory = model.encode(input_ids) if self.encoder_decoder else None
        self.cache = model.new_cache() if use_cache else None
        self.fed = 0  # positions of the sequence the cache has read

    def call(self, tokens):
        if self.encoder_decoder:
            return self.model.decode(tokens, self.memory, cache=self.cache)
        return self.model(tokens, cache=self.cache) if self.cache is not None else self.model(tokens)

    def next_logits(self, seqs):
        if self.cache is None:
            logits = self.call(_tensor(seqs))
        else:
            logits = self.call(_tensor(seqs[:, self.fed:]))
            self.fed = seqs.shape[1]
        return logits[:, -1]

    def reorder(self, rows):
        if self.cache is not None:
            self.cache.reorder_cache(_tensor(rows))


def _check_common(input_ids, max_new_tokens, eos_token_id, fn):
    if not isinstance(input_ids, _core.Tensor) or input_ids.dtype != _core.dtype.int64 or input_ids.dim() != 2:
        shape = tuple(input_ids.shape) if isinstance(input_ids, _core.Tensor) else type(input_ids).__name__
        raise ValueError(f"{fn}: input_ids must be an int64 tensor (N, L) of token ids, got {shape}")
    if input_ids.shape[0] == 0:
        raise ValueError(f"{fn}: input_ids must hold at least one sequence, got shape {tuple(input_ids.shape)}")
    if not isinstance(max_new_tokens, numbers.Integral) or isinstance(max_new_tokens, bool) or max_new_tokens < 0:
        raise ValueError(f"{fn}: max_new_tokens must be an integer >= 0, got {max_new_tokens!r}")
    eos = [] if eos_token_id is None else [eos_token_id] if isinstance(eos_token_id, numbers.Integral) \
        else list(eos_token_id)
    if any(not isinstance(e, numbers.Integral) or isinstance(e, bool) or e < 0 for e in eos):
        raise ValueError(f"{fn}: eos_token_id must be a token id >= 0 or a list of them, got {eos_token_id!r}")
    return np.asarray(eos, dtype=np.int64)


def _start(model, input_ids, decoder_start_token_id, fn):
    """The sequences the decoder extends: the prompt (decoder-only) or the start token."""
    if not getattr(model, "is_encoder_decoder", False):
        if input_ids.shape[1] == 0:
            raise ValueError(f"{fn}: a decoder-only model needs a prompt of at least one token, got shape "
                             f"{tuple(input_ids.shape)}")
        return input_ids.numpy().astype(np.int64)
    if decoder_start_token_id is None:
        raise ValueError(f"{fn}: an encoder-decoder model needs decoder_start_token_id (the first target token)")
    return np.full((input_ids.shape[0], 1), decoder_start_token_id, dtype=np.int64)


def _decode_loop(model, input_ids, max_new_tokens, eos_token_id, pad_token_id, use_cache, decoder_start_token_id,
                 choose, fn):
    """The greedy / sampling loop: choose(logits (N, V)) -> next token ids (N,)."""
    eos = _check_common(input_ids, max_new_tokens, eos_token_id, fn)
    seqs = _start(model, input_ids, decoder_start_token_id, fn)
    pad = pad_token_id if pad_token_id is not None else (int(eos[0]) if len(eos) else 0)
    with no_grad():
        stepper = _Stepper(model, input_ids, use_cache, fn)
        finished = np.zeros(seqs.shape[0], dtype=bool)
        for _ in range(max_new_tokens):
            nxt = choose(stepper.next_logits(seqs))
            nxt = np.where(finished, pad, nxt)        # a finished sequence is padded
            seqs = np.concatenate([seqs, nxt[:, None]], axis=1)
            finished |= np.isin(nxt, eos)
            if finished.all():
                break
    return _tensor(seqs)


def greedy_search(model, input_ids, max_new_tokens=20, eos_token_id=None, pad_token_id=None, use_cache=True,
                  decoder_start_token_id=None):
    """The most probable next token at every step (argmax; the first of ties, as torch.argmax)."""
    def choose(logits):
        return logits.detach().numpy().argmax(axis=-1).astype(np.int64)
    return _decode_loop(model, input_ids, max_new_tokens, eos_token_id, pad_token_id, use_cache,
                        decoder_start_token_id, choose, "greedy_search()")


def _warp(logits, temperature, top_k, top_p):
    """Hugging Face's order: temperature, then top-k, then top-p."""
    if temperature != 1.0:
        logits = temperature_scale(logits, temperature)
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None and top_p < 1.0:
        logits = top_p_filter(logits, top_p)
    return logits


def sample(model, input_ids, max_new_tokens=20, temperature=1.0, top_k=None, top_p=None, eos_token_id=None,
           pad_token_id=None, use_cache=True, decoder_start_token_id=None, seed=None, generator=None):
    """Ancestral sampling from softmax(warped logits), drawn from `generator` (a seqlab.Generator,
    as torch's generator= arguments) or else seqlab's global generator; seed reseeds that first
    (seqlab.manual_seed(seed) or generator.manual_seed(seed)), so a seed gives the same tokens again."""
    check_sampling_args(temperature, top_k, top_p, "sample()")
    _seed(seed, generator, "sample()")

    def choose(logits):
        probs = _core.softmax(_warp(logits.to(_core.dtype.float64), temperature, top_k, top_p), -1)
        return _core.multinomial(probs, 1, False, generator=generator).numpy()[:, 0].astype(np.int64)
    return _decode_loop(model, input_ids, max_new_tokens, eos_token_id, pad_token_id, use_cache,
                        decoder_start_token_id, choose, "sample()")


def _seed(seed, generator, fn):
    if generator is not None and not isinstance(generator, _core.Generator):
        raise TypeError(f"{fn}: generator must be a seqlab.Generator, got {type(generator).__name__}")
    if seed is not None:
        if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"{fn}: seed must be an integer >= 0, got {seed!r}")
        (generator.manual_seed if generator is not None else _core.manual_seed)(int(seed))


class _Hypotheses:
    """The finished sequences of one input, best num_beams kept, each scored as Hugging Face's:
    sum of log-probabilities / generated_len ** length_penalty, where generated_len counts the new
    tokens (eos included)."""

    def __init__(self, num_beams, length_penalty, early_stopping, max_new_tokens):
        self.num_beams, self.length_penalty = num_beams, length_penalty
        self.early_stopping, self.max_new_tokens = early_stopping, max_new_tokens
        self.beams = []  # (score, tokens), best first

    def add(self, tokens, sum_logprobs, generated_len):
        score = sum_logprobs / generated_len ** self.length_penalty
        self.beams.append((score, tokens))
        self.beams.sort(key=lambda b: -b[0])
        del self.beams[self.num_beams:]

    def full(self):
        return len(self.beams) == self.num_beams

    def can_improve(self, best_running_sum, generated_len):
        """Hugging Face's early-stop heuristic (_check_early_stop_heuristic): can the best running
        beam still beat the worst kept hypothesis? It is assumed to end now (early_stopping False,
        or a length_penalty <= 0), or at max_new_tokens ('never' with length_penalty > 0: the
        exact bound, since sums only fall)."""
        if not self.full():
            return True
        if self.early_stopping == "never" and self.length_penalty > 0:
            generated_len = self.max_new_tokens
        return best_running_sum / generated_len ** self.length_penalty > self.beams[-1][0]


def beam_search(model, input_ids, num_beams=4, max_new_tokens=20, length_penalty=1.0, early_stopping=False,
                eos_token_id=None, pad_token_id=None, use_cache=True, decoder_start_token_id=None,
                num_return_sequences=1, output_scores=False, return_dict_in_generate=False):
    """Beam search, step for step as Hugging Face transformers' (the rules of its rewrite in 4.50,
    checked against 5.24 in tests/test_generation_hf.py). Each step scores every extension of
    every running beam by its summed log-probability and takes the best K = max(2, 1 + #eos) ·
    num_beams. A candidate that ends in eos, or reaches max_new_tokens, is finished: if it ranks
    among the first num_beams it becomes a hypothesis, scored sum / generated_len**length_penalty
    (length_penalty > 0 favours longer sequences), and the best num_beams hypotheses are kept; the
    best num_beams unfinished candidates run on. So at the last step the running beams become
    hypotheses too. An input stops taking hypotheses when early_stopping is True and it has
    num_beams of them, or when the best running beam can no longer beat the worst kept one:
    judged at its present length (early_stopping False, Hugging Face's heuristic) or at
    max_new_tokens ('never', exact when length_penalty > 0). The best num_return_sequences
    hypotheses per input are returned (rows n·R + r, best first), padded with pad_token_id;
    return_dict_in_generate=True returns a GenerateBeamOutput (with output_scores=True, their
    scores and every step's log-probabilities too)."""
    fn = "beam_search()"
    eos = _check_common(input_ids, max_new_tokens, eos_token_id, fn)
    if not isinstance(num_beams, numbers.Integral) or isinstance(num_beams, bool) or num_beams < 1:
        raise ValueError(f"{fn}: num_beams must be an integer >= 1, got {num_beams!r}")
    if not isinstance(length_penalty, numbers.Real) or not math.isfinite(length_penalty):
        raise ValueError(f"{fn}: length_penalty must be a finite number, got {length_penalty!r}")
    if early_stopping not in (True, False, "never"):
        raise ValueError(f"{fn}: early_stopping must be True, False or 'never', got {early_stopping!r}")
    R = num_return_sequences
    if not isinstance(R, numbers.Integral) or isinstance(R, bool) or not 1 <= R <= num_beams:
        raise ValueError(f"{fn}: num_return_sequences must be an integer from 1 to num_beams ({num_beams}), got "
                         f"{R!r} (Hugging Face's rule: a beam search returns at most its beams)")
    N, B = input_ids.shape[0], num_beams
    step_scores = []  # each step's (N·B, V) log-probabilities, for output_scores
    K = max(2, 1 + len(eos)) * B
    pad = pad_token_id if pad_token_id is not None else (int(eos[0]) if len(eos) else 0)
    # Every input becomes B rows (beam b of input n is row n·B + b); the encoder reads each copy.
    rows_of = np.repeat(np.arange(N), B)
    expanded = _tensor(input_ids.numpy()[rows_of])
    seqs = _start(model, expanded, decoder_start_token_id, fn)
    hyps = [_Hypotheses(B, length_penalty, early_stopping, max(max_new_tokens, 1)) for _ in range(N)]
    improvable = np.ones(N, dtype=bool)  # Hugging Face's is_early_stop_heuristic_unsatisfied
    # Only beam 0 starts alive, so the first step does not pick one token B times.
    beam_scores = np.zeros((N, B))
    beam_scores[:, 1:] = -np.inf
    with no_grad():
        stepper = _Stepper(model, expanded, use_cache, fn)
        for step in range(max_new_tokens):
            last = step == max_new_tokens - 1  # every candidate reaches max_new_tokens: all finish
            logits = stepper.next_logits(seqs)
            step_logp = _core.log_softmax(logits.to(_core.dtype.float64), -1)
            if output_scores:
                step_scores.append(step_logp)
            logp = step_logp.numpy()  # (N·B, V)
            V = logp.shape[1]
            cand = (beam_scores.reshape(-1, 1) + logp).reshape(N, B * V)
            top = np.argsort(-cand, axis=1, kind="stable")[:, :K]
            new_rows, new_tokens, new_scores = [], [], []
            for n in range(N):
                # No more hypotheses once it has num_beams of them (early_stopping True) or the
                # running beams cannot beat them; its rows still run, as in Hugging Face's loop.
                closed = not improvable[n] or (early_stopping is True and hyps[n].full())
                kept = 0
                for rank, c in enumerate(top[n]):
                    beam, token, score = c // V, c % V, cand[n, c]
                    if not np.isfinite(score):
                        continue
                    if last or token in eos:
                        if rank < B and not closed:
                            hyps[n].add(np.append(seqs[n * B + beam], token), score, step + 1)
                        continue
                    if kept < B:
                        new_rows.append(n * B + beam)
                        new_tokens.append(token)
                        new_scores.append(score)
                        kept += 1
                while kept < B:  # fewer live candidates than beams: dead rows
                    new_rows.append(n * B)
                    new_tokens.append(pad)
                    new_scores.append(-np.inf)
                    kept += 1
                best_running = max(new_scores[-B:])
                improvable[n] &= hyps[n].can_improve(best_running, step + 1)
            if last:
                break
            rows = np.asarray(new_rows, dtype=np.int64)
            seqs = np.concatenate([seqs[rows], np.asarray(new_tokens, dtype=np.int64)[:, None]], axis=1)
            beam_scores = np.asarray(new_scores).reshape(N, B)
            stepper.reorder(rows)
            if not improvable.any() or (early_stopping is True and all(h.full() for h in hyps)):
                break
    # The R best hypotheses of each input (with no new token: the prompt itself, score 0).
    best = [hyps[n].beams[r] if hyps[n].beams else (0.0, seqs[n * B]) for n in range(N) for r in range(R)]
    width = max(len(tokens) for _, tokens in best)
    out = np.full((N * R, width), pad, dtype=np.int64)
    for row, (_, tokens) in enumerate(best):
        out[row, :len(tokens)] = tokens
    if not return_dict_in_generate:
        return _tensor(out)
    if not output_scores:
        return GenerateBeamOutput(_tensor(out))
    scores = _core.from_numpy(np.array([score for score, _ in best], dtype=np.float64))
    return GenerateBeamOutput(_tensor(out), scores, tuple(step_scores))


def generate(model, input_ids, max_new_tokens=20, do_sample=False, temperature=1.0, top_k=None, top_p=None,
             num_beams=1, length_penalty=1.0, early_stopping=False, eos_token_id=None, pad_token_id=None,
             use_cache=True, decoder_start_token_id=None, seed=None, generator=None, num_return_sequences=1,
             output_scores=False, return_dict_in_generate=False):
    """Hugging Face's generate(): input_ids (N, L) int64 — the prompt of a decoder-only model or
    the source of an encoder-decoder one — to (N, L + new) (decoder-only) or (N, 1 + new)
    (encoder-decoder, starting with decoder_start_token_id) token ids. num_beams > 1: beam search;
    else do_sample: sampling with temperature / top_k / top_p; else greedy (temperature, top_k and
    top_p are then not used, nor checked, as in Hugging Face). Sequences that
    produced eos_token_id are padded with pad_token_id (default: the eos id) until all are done.
    num_return_sequences: beam search returns that many of its best hypotheses per input (at most
    num_beams), sampling that many samples per input (rows n·R + r); greedy decoding only 1.
    return_dict_in_generate / output_scores: beam search's GenerateBeamOutput (sequences,
    sequences_scores, scores), as Hugging Face's. The model runs in whatever mode it is in: call
    model.eval() first, as with torch."""
    fn = "generate()"
    _check_common(input_ids, max_new_tokens, eos_token_id, fn)
    if do_sample:  # temperature, top_k and top_p only shape sampling; otherwise ignored, as Hugging Face does
        check_sampling_args(temperature, top_k, top_p, fn)
    if not isinstance(num_beams, numbers.Integral) or isinstance(num_beams, bool) or num_beams < 1:
        raise ValueError(f"{fn}: num_beams must be an integer >= 1, got {num_beams!r}")
    if num_beams > 1:
        if do_sample:
            raise ValueError(f"{fn}: beam sampling (num_beams > 1 with do_sample=True) is not implemented")
        return beam_search(model, input_ids, num_beams, max_new_tokens, length_penalty, early_stopping, eos_token_id,
                           pad_token_id, use_cache, decoder_start_token_id, num_return_sequences, output_scores,
                           return_dict_in_generate)
    if return_dict_in_generate or output_scores:
        raise NotImplementedError(f"{fn}: return_dict_in_generate and output_scores are implemented for beam search "
                                  "(num_beams > 1) only")
    R = num_return_sequences
    if not isinstance(R, numbers.Integral) or isinstance(R, bool) or R < 1:
        raise ValueError(f"{fn}: num_return_sequences must be an integer >= 1, got {R!r}")
    if do_sample:
        if R > 1:  # each input R times, as Hugging Face expands them: rows n·R + r
            input_ids = _tensor(np.repeat(input_ids.numpy(), R, axis=0))
        return sample(model, input_ids, max_new_tokens, temperature, top_k, top_p, eos_token_id, pad_token_id,
                      use_cache, decoder_start_token_id, seed, generator)
    if R > 1:
        raise ValueError(f"{fn}: greedy decoding returns one sequence per input: num_return_sequences must be 1, got "
                         f"{R} (use num_beams >= num_return_sequences, or do_sample=True)")
    if generator is not None or seed is not None:
        _seed(seed, generator, fn)
    return greedy_search(model, input_ids, max_new_tokens, eos_token_id, pad_token_id, use_cache,
                         decoder_start_token_id)
