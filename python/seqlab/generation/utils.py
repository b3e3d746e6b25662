"""Autoregressive generation with Hugging Face's generate() arguments (max_new_tokens, do_sample,
temperature, top_k, top_p, num_beams, length_penalty, early_stopping, eos_token_id, pad_token_id,
use_cache, num_return_sequences, attention_mask, the logits processors, streamer,
return_dict_in_generate): greedy decoding, sampling, and beam search, for decoder-only and
encoder-decoder models, transformer and recurrent alike.

A model takes part by a small protocol (the models of seqlab/nn/lm.py follow it):
- decoder-only: model(idx, cache=None) -> logits (N, L, V); idx (N, L) int64; for padded prompts
  also attention_mask= (N, positions so far), 1 = token, 0 = padding.
- encoder-decoder (is_encoder_decoder = True): model.encode(src) -> memory and
  model.decode(tgt, memory, cache=None) -> logits (N, T, V).
- model.new_cache() -> an empty cache that forward/decode update in place (a KVCache for a
  transformer, an RNNState for a recurrent model) and that has reorder_cache(beam_idx).
With use_cache=True a step feeds only the new token; with use_cache=False every step recomputes
the whole sequence (the oracle of the cache tests).

The loop is Python orchestration: one model call per generated token, as in Hugging Face, since
each step's input depends on the previous step's choice; the model call itself is the C++ layers.
Tests: tests/test_generation.py, tests/test_generation_hf.py (against transformers),
tests/test_generation_padding.py."""
import inspect
import math
import numbers
from types import SimpleNamespace

import numpy as np

from .. import _core
from ..autograd import no_grad
from .logits_process import (LogitsProcessorList, MinLengthLogitsProcessor, MinNewTokensLengthLogitsProcessor,
                             NoRepeatNGramLogitsProcessor, RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper,
                             TopKLogitsWarper, TopPLogitsWarper, check_sampling_args)

__all__ = ["generate", "greedy_search", "sample", "beam_search", "GenerationMixin", "GenerateOutput", "GenerateBeamOutput",
           "RNNState", "attention_keep"]


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
    """model.generate(...) = seqlab.generation.generate(model, ...). A model's generation_config
    (a dict of generate()'s arguments; seqlab.hub sets it from generation_config.json, as Hugging
    Face does) gives the defaults that the call's own arguments override."""

    def generate(self, input_ids, **kwargs):
        return generate(self, input_ids, **{**(getattr(self, "generation_config", None) or {}), **kwargs})


def _tensor(a):
    return _core.from_numpy(np.ascontiguousarray(a, dtype=np.int64))


class _Output(dict):
    """A dict whose keys read as attributes too (out.sequences or out["sequences"]), as Hugging
    Face's ModelOutput; fields that were not asked for are None."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class GenerateOutput(_Output):
    """What greedy decoding and sampling return with return_dict_in_generate=True, under Hugging
    Face's names (GenerateDecoderOnlyOutput / GenerateEncoderDecoderOutput): sequences (N·R, L');
    scores, with output_scores=True, one (N·R, V) tensor per step: the scores the token was chosen
    from (after the logits processors and, when sampling, the warpers); logits, with
    output_logits=True, the model's raw next-token logits per step."""

    def __init__(self, sequences, scores=None, logits=None):
        super().__init__(sequences=sequences, scores=scores, logits=logits)


class GenerateBeamOutput(_Output):
    """What beam search returns with return_dict_in_generate=True, under Hugging Face's names
    (GenerateBeamDecoderOnlyOutput): sequences (N·R, L') token ids; sequences_scores (N·R,) each
    returned hypothesis's score, sum log p / generated_len**length_penalty, when output_scores=True;
    scores, one (N·num_beams, V) tensor of processed log-probabilities per step, when
    output_scores=True; logits, the raw logits per step, when output_logits=True."""

    def __init__(self, sequences, sequences_scores=None, scores=None, logits=None):
        super().__init__(sequences=sequences, sequences_scores=sequences_scores, scores=scores, logits=logits)


def _integer(v, low=0):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= low


def attention_keep(attention_mask, shape, owner, left_padded=True):
    """An attention_mask (Hugging Face's: 1 = a token, 0 = padding; a Tensor or array, int or
    bool) of the given (N, S) shape, checked, as a NumPy bool array; None when it masks nothing.
    left_padded: padding only before each row's first token (a decoder-only batch), every row
    with a token."""
    a = attention_mask.numpy() if isinstance(attention_mask, _core.Tensor) else np.asarray(attention_mask)
    if a.shape != tuple(shape) or a.dtype.kind not in "biu" or not np.isin(a, (0, 1)).all():
        raise ValueError(f"{owner}: attention_mask must be 0/1 (1 = token, 0 = padding) of shape {tuple(shape)}, got "
                         f"{a.dtype} {a.shape}" + ("" if a.shape != tuple(shape) or a.dtype.kind not in "biu"
                                                    else f" with values {sorted(set(np.unique(a).tolist()))}"))
    keep = a.astype(bool)
    if not keep.any(axis=1).all():
        raise ValueError(f"{owner}: attention_mask row {int(np.argmin(keep.any(axis=1)))} is all padding; every "
                         "sequence needs at least one token")
    if left_padded and (keep[:, 1:] < keep[:, :-1]).any():
        raise ValueError(f"{owner}: attention_mask row {int(np.nonzero((keep[:, 1:] < keep[:, :-1]).any(1))[0][0])} "
                         "has padding after a token; a decoder-only batch is padded on the left (as Hugging Face's "
                         "tokenizer.padding_side = 'left'), so that every row's next token follows its last one")
    return None if keep.all() else keep


def _accepts(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


class _Stepper:
    """Feeds a model one step at a time: with a cache only the new tokens, without it the whole
    sequence so far. next_logits(seqs) returns the logits of the last position, (rows, V). keep:
    the attention_mask of the input (None: no padding), passed to a decoder-only model as
    attention_mask over every position so far, to an encoder-decoder one as the source's
    src_key_padding_mask / memory_key_padding_mask."""

    def __init__(self, model, input_ids, use_cache, keep, fn):
        self.model = model
        self.use_cache = use_cache
        self.encoder_decoder = bool(getattr(model, "is_encoder_decoder", False))
        if use_cache and not hasattr(model, "new_cache"):
            raise TypeError(f"{fn}: use_cache=True needs a model with new_cache(); {type(model).__name__} has none "
                            "(pass use_cache=False)")
        self.keep = keep
        if keep is not None:
            takes = self.model.encode if self.encoder_decoder else self.model.forward
            arg = "src_key_padding_mask" if self.encoder_decoder else "attention_mask"
            if not _accepts(takes, arg):
                raise TypeError(f"{fn}: attention_mask has padding but {type(model).__name__}."
                                f"{'encode' if self.encoder_decoder else 'forward'} takes no {arg}")
        if not self.encoder_decoder:
            self.memory = None
        elif keep is None:
            self.memory = model.encode(input_ids)
        else:
            self.memory = model.encode(input_ids, src_key_padding_mask=_core.from_numpy(~keep))
        self.cache = model.new_cache() if use_cache else None
        self.fed = 0  # positions of the sequence the cache has read

    def call(self, tokens, length):
        kw = {} if self.cache is None else {"cache": self.cache}
        if self.encoder_decoder:
            if self.keep is not None:
                kw["memory_key_padding_mask"] = _core.from_numpy(~self.keep)
            return self.model.decode(tokens, self.memory, **kw)
        if self.keep is not None:  # the generated tokens are never padding
            ones = np.ones((self.keep.shape[0], length - self.keep.shape[1]), dtype=bool)
            kw["attention_mask"] = _core.from_numpy(np.concatenate([self.keep, ones], axis=1))
        return self.model(tokens, **kw)

    def next_logits(self, seqs):
        if self.cache is None:
            logits = self.call(_tensor(seqs), seqs.shape[1])
        else:
            logits = self.call(_tensor(seqs[:, self.fed:]), seqs.shape[1])
            self.fed = seqs.shape[1]
        return logits[:, -1]

    def reorder(self, rows):
        if self.cache is not None:
            self.cache.reorder_cache(_tensor(rows))
        if self.keep is not None:  # (beams move within an input: its memory rows stay as they are)
            self.keep = self.keep[rows]


def _check_common(input_ids, max_new_tokens, eos_token_id, fn):
    if not isinstance(input_ids, _core.Tensor) or input_ids.dtype != _core.dtype.int64 or input_ids.dim() != 2:
        shape = tuple(input_ids.shape) if isinstance(input_ids, _core.Tensor) else type(input_ids).__name__
        raise ValueError(f"{fn}: input_ids must be an int64 tensor (N, L) of token ids, got {shape}")
    if input_ids.shape[0] == 0:
        raise ValueError(f"{fn}: input_ids must hold at least one sequence, got shape {tuple(input_ids.shape)}")
    if not _integer(max_new_tokens):
        raise ValueError(f"{fn}: max_new_tokens must be an integer >= 0, got {max_new_tokens!r}")
    eos = [] if eos_token_id is None else [eos_token_id] if isinstance(eos_token_id, numbers.Integral) \
        else list(eos_token_id)
    if any(not _integer(e) for e in eos):
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


def _logits_processors(eos, prompt_length, repetition_penalty, no_repeat_ngram_size, min_length, min_new_tokens,
                       logits_processor, do_sample, temperature, top_k, top_p, fn):
    """The processors of one generate() call in Hugging Face's order (_get_logits_processor):
    repetition penalty, no-repeat n-grams, min length, min new tokens, then the caller's own
    logits_processor list, then (when sampling) temperature, top-k, top-p. The min-length ones
    need an eos to ban and are left out without one, as there."""
    processors = LogitsProcessorList()
    if repetition_penalty is not None and repetition_penalty != 1.0:
        processors.append(RepetitionPenaltyLogitsProcessor(repetition_penalty))
    if no_repeat_ngram_size:
        processors.append(NoRepeatNGramLogitsProcessor(no_repeat_ngram_size))
    for name, v in (("min_length", min_length), ("min_new_tokens", min_new_tokens)):
        if v is not None and not _integer(v):
            raise ValueError(f"{fn}: {name} must be an integer >= 0, got {v!r}")
    if min_length and len(eos):
        processors.append(MinLengthLogitsProcessor(min_length, eos))
    if min_new_tokens and len(eos):
        processors.append(MinNewTokensLengthLogitsProcessor(prompt_length, min_new_tokens, eos))
    for p in logits_processor or ():
        if not callable(p):
            raise TypeError(f"{fn}: logits_processor must hold callables (input_ids, scores) -> scores, got "
                            f"{type(p).__name__}")
        processors.append(p)
    if do_sample:
        if temperature != 1.0:
            processors.append(TemperatureLogitsWarper(temperature))
        if top_k is not None:
            processors.append(TopKLogitsWarper(top_k))
        if top_p is not None and top_p < 1.0:
            processors.append(TopPLogitsWarper(top_p))
    return processors


def _check_streamer(streamer, num_beams, fn):
    if streamer is None:
        return
    if not (callable(getattr(streamer, "put", None)) and callable(getattr(streamer, "end", None))):
        raise TypeError(f"{fn}: streamer must have put(token_ids) and end() (a seqlab.generation.TextStreamer or "
                        f"BaseStreamer), got {type(streamer).__name__}")
    if num_beams > 1:
        raise ValueError(f"{fn}: a streamer cannot be used with beam search (num_beams={num_beams}): the beams are "
                         "only known at the end, as in Hugging Face")


def _decode_loop(model, input_ids, seqs, keep, o, processors, choose, scores_dtype, fn):
    """The greedy / sampling loop over the prompt rows seqs (o: generate()'s checked arguments):
    choose(scores (N, V)) -> next token ids (N,), scores being the logits (as scores_dtype) after
    the processors."""
    eos, pad, streamer = o.eos, o.pad, o.streamer
    step_scores, step_logits = [], []
    with no_grad():
        stepper = _Stepper(model, input_ids, o.use_cache, keep, fn)
        if streamer is not None:
            streamer.put(_tensor(seqs))
        finished = np.zeros(seqs.shape[0], dtype=bool)
        for _ in range(o.max_new_tokens):
            logits = stepper.next_logits(seqs)
            scores = processors(_tensor(seqs), logits.to(scores_dtype))
            if o.output_logits:
                step_logits.append(logits)
            if o.output_scores:
                step_scores.append(scores)
            nxt = np.where(finished, pad, choose(scores))  # a finished sequence is padded
            seqs = np.concatenate([seqs, nxt[:, None]], axis=1)
            if streamer is not None:
                streamer.put(_tensor(nxt))
            finished |= np.isin(nxt, eos)
            if finished.all():
                break
        if streamer is not None:
            streamer.end()
    if not o.return_dict_in_generate:
        return _tensor(seqs)
    return GenerateOutput(_tensor(seqs), tuple(step_scores) if o.output_scores else None,
                          tuple(step_logits) if o.output_logits else None)


def _seed(seed, generator, fn):
    if generator is not None and not isinstance(generator, _core.Generator):
        raise TypeError(f"{fn}: generator must be a seqlab.Generator, got {type(generator).__name__}")
    if seed is not None:
        if not _integer(seed) or seed >= 2**64:  # a generator's seed is 64 bits
            raise ValueError(f"{fn}: seed must be an integer in [0, 2**64), got {seed!r}")
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


def _beam_loop(model, input_ids, seqs, keep, o, processors, fn):
    """Beam search (beam_search's docstring) over the prompt rows seqs (o: generate()'s checked
    arguments)."""
    num_beams, length_penalty, early_stopping = o.num_beams, o.length_penalty, o.early_stopping
    max_new_tokens, eos, pad, R = o.max_new_tokens, o.eos, o.pad, o.num_return_sequences
    N, B = input_ids.shape[0], num_beams
    step_scores, step_logits = [], []
    K = max(2, 1 + len(eos)) * B
    # Every input becomes B rows (beam b of input n is row n·B + b); the encoder reads each copy.
    rows_of = np.repeat(np.arange(N), B)
    expanded = _tensor(input_ids.numpy()[rows_of])
    seqs = prompts = seqs[rows_of]
    keep = None if keep is None else keep[rows_of]
    hyps = [_Hypotheses(B, length_penalty, early_stopping, max(max_new_tokens, 1)) for _ in range(N)]
    improvable = np.ones(N, dtype=bool)  # Hugging Face's is_early_stop_heuristic_unsatisfied
    # Only beam 0 starts alive, so the first step does not pick one token B times.
    beam_scores = np.zeros((N, B))
    beam_scores[:, 1:] = -np.inf
    with no_grad():
        stepper = _Stepper(model, expanded, o.use_cache, keep, fn)
        for step in range(max_new_tokens):
            last = step == max_new_tokens - 1  # every candidate reaches max_new_tokens: all finish
            logits = stepper.next_logits(seqs)
            step_logp = processors(_tensor(seqs), _core.log_softmax(logits.to(_core.dtype.float64), -1))
            if o.output_logits:
                step_logits.append(logits)
            if o.output_scores:
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
    # The R best hypotheses of each input. With no new token asked for: the prompt itself, score 0.
    # Fewer than R (a processor banned every other continuation): the prompt, score -inf, where
    # Hugging Face returns placeholder beams scored about -1e9.
    best = [hyps[n].beams[r] if r < len(hyps[n].beams) else (0.0 if max_new_tokens == 0 else -np.inf, prompts[n * B])
            for n in range(N) for r in range(R)]
    width = max(len(tokens) for _, tokens in best)
    out = np.full((N * R, width), pad, dtype=np.int64)
    for row, (_, tokens) in enumerate(best):
        out[row, :len(tokens)] = tokens
    if not o.return_dict_in_generate:
        return _tensor(out)
    scores = None
    if o.output_scores:
        scores = _core.from_numpy(np.array([score for score, _ in best], dtype=np.float64))
    return GenerateBeamOutput(_tensor(out), scores, tuple(step_scores) if o.output_scores else None,
                              tuple(step_logits) if o.output_logits else None)


def generate(model, input_ids, max_new_tokens=20, do_sample=False, temperature=1.0, top_k=None, top_p=None,
             num_beams=1, length_penalty=1.0, early_stopping=False, eos_token_id=None, pad_token_id=None,
             use_cache=True, decoder_start_token_id=None, seed=None, generator=None, num_return_sequences=1,
             output_scores=False, return_dict_in_generate=False, attention_mask=None, repetition_penalty=1.0,
             no_repeat_ngram_size=0, min_length=0, min_new_tokens=None, logits_processor=None, streamer=None,
             output_logits=False):
    """Hugging Face's generate(): input_ids (N, L) int64 — the prompt of a decoder-only model or
    the source of an encoder-decoder one — to (N, L + new) (decoder-only) or (N, 1 + new)
    (encoder-decoder, starting with decoder_start_token_id) token ids.

    Strategy: num_beams > 1: beam search (beam_search()); else do_sample: sampling with
    temperature / top_k / top_p; else greedy (temperature, top_k and top_p are then not used, nor
    checked, as in Hugging Face). Sequences that produced eos_token_id (an id or a list of them)
    are padded with pad_token_id (default: the first eos id) until all are done.

    attention_mask (N, L), 1 = token, 0 = padding: prompts of unequal length in one batch, padded
    on the left for a decoder-only model (each row then generates as it would alone: the model
    masks the padding and counts positions from the row's first token), anywhere for the source
    of an encoder-decoder model.

    Logits processing, in Hugging Face's order: repetition_penalty (CTRL's: θ > 1 discourages
    tokens already in the sequence), no_repeat_ngram_size (no n-gram twice), min_length (eos
    banned while the whole sequence is shorter) and min_new_tokens (eos banned before that many
    new tokens), then your own logits_processor list of callables (input_ids, scores) -> scores,
    then the sampling warpers. Beam search applies them to the log-probabilities.

    num_return_sequences: beam search returns that many of its best hypotheses per input (at most
    num_beams), sampling that many samples per input (rows n·R + r); greedy decoding only 1.
    return_dict_in_generate=True returns a GenerateOutput (GenerateBeamOutput for beam search) with
    the sequences, and with output_scores the processed scores of every step (beam search: and
    each hypothesis's score), with output_logits the raw logits. streamer: an object with
    put(token_ids) and end() (TextStreamer prints the text as it comes): it receives the prompt,
    then each step's new tokens (one sequence; not with beam search). The model runs in whatever
    mode it is in: call model.eval() first, as with torch."""
    options = {name: value for name, value in locals().items() if name not in ("model", "input_ids")}
    return _generate(model, input_ids, options, "generate()")


def _generate(model, input_ids, o, fn, beam=None):
    """generate() on its arguments by name (o); beam=True runs beam search whatever num_beams is."""
    o = SimpleNamespace(**o)
    eos = _check_common(input_ids, o.max_new_tokens, o.eos_token_id, fn)
    if o.do_sample:  # temperature, top_k and top_p only shape sampling; otherwise ignored, as Hugging Face does
        check_sampling_args(o.temperature, o.top_k, o.top_p, fn)
    if not _integer(o.num_beams, 1):
        raise ValueError(f"{fn}: num_beams must be an integer >= 1, got {o.num_beams!r}")
    if beam is None:
        beam = o.num_beams > 1
    if beam:
        if o.do_sample:
            raise ValueError(f"{fn}: beam sampling (num_beams > 1 with do_sample=True) is not implemented")
        if isinstance(o.length_penalty, bool) or not isinstance(o.length_penalty, numbers.Real) \
                or not math.isfinite(o.length_penalty):
            raise ValueError(f"{fn}: length_penalty must be a finite number, got {o.length_penalty!r}")
        if o.early_stopping not in (True, False, "never"):
            raise ValueError(f"{fn}: early_stopping must be True, False or 'never', got {o.early_stopping!r}")
        if not _integer(o.num_return_sequences, 1) or o.num_return_sequences > o.num_beams:
            raise ValueError(f"{fn}: num_return_sequences must be an integer from 1 to num_beams ({o.num_beams}), got "
                             f"{o.num_return_sequences!r} (Hugging Face's rule: a beam search returns at most its "
                             "beams)")
    elif not _integer(o.num_return_sequences, 1):
        raise ValueError(f"{fn}: num_return_sequences must be an integer >= 1, got {o.num_return_sequences!r}")
    elif o.num_return_sequences > 1 and not o.do_sample:
        raise ValueError(f"{fn}: greedy decoding returns one sequence per input: num_return_sequences must be 1, got "
                         f"{o.num_return_sequences} (use num_beams >= num_return_sequences, or do_sample=True)")
    _check_streamer(o.streamer, o.num_beams if beam else 1, fn)
    encoder_decoder = bool(getattr(model, "is_encoder_decoder", False))
    keep = None if o.attention_mask is None else attention_keep(o.attention_mask, tuple(input_ids.shape), fn,
                                                                left_padded=not encoder_decoder)
    if o.do_sample or o.generator is not None or o.seed is not None:
        _seed(o.seed, o.generator, fn)
    if o.do_sample and o.num_return_sequences > 1:  # each input R times, as Hugging Face expands them: rows n·R + r
        input_ids = _tensor(np.repeat(input_ids.numpy(), o.num_return_sequences, axis=0))
        keep = None if keep is None else np.repeat(keep, o.num_return_sequences, axis=0)
    seqs = _start(model, input_ids, o.decoder_start_token_id, fn)
    processors = _logits_processors(eos, seqs.shape[1], o.repetition_penalty, o.no_repeat_ngram_size, o.min_length,
                                    o.min_new_tokens, o.logits_processor, o.do_sample and not beam, o.temperature,
                                    o.top_k, o.top_p, fn)
    o.eos, o.pad = eos, o.pad_token_id if o.pad_token_id is not None else (int(eos[0]) if len(eos) else 0)
    if beam:
        return _beam_loop(model, input_ids, seqs, keep, o, processors, fn)
    if o.do_sample:
        def choose(scores):  # scores in float64: softmax, then one draw per row
            probs = _core.softmax(scores, -1)
            return _core.multinomial(probs, 1, False, generator=o.generator).numpy()[:, 0].astype(np.int64)
        return _decode_loop(model, input_ids, seqs, keep, o, processors, choose, _core.dtype.float64, fn)

    def argmax(scores):  # the first of ties, as torch.argmax
        return scores.numpy().argmax(axis=-1).astype(np.int64)
    return _decode_loop(model, input_ids, seqs, keep, o, processors, argmax, None, fn)


# generate()'s arguments after (model, input_ids) and their defaults, read from its signature
_DEFAULTS = {name: p.default for name, p in list(inspect.signature(generate).parameters.items())[2:]}


def _call(model, input_ids, kwargs, fn, beam=None, **fixed):
    """greedy_search / sample / beam_search: generate() with some arguments fixed."""
    unknown = sorted(set(kwargs) - set(_DEFAULTS))
    if unknown:
        raise TypeError(f"{fn}: unexpected keyword argument {unknown[0]!r}")
    return _generate(model, input_ids, {**_DEFAULTS, **kwargs, **fixed}, fn, beam)


def greedy_search(model, input_ids, **kwargs):
    """generate() with greedy decoding: the most probable next token at every step (argmax; the
    first of ties, as torch.argmax). Takes generate()'s arguments."""
    return _call(model, input_ids, kwargs, "greedy_search()", do_sample=False, num_beams=1)


def sample(model, input_ids, **kwargs):
    """generate() with sampling: ancestral sampling from softmax(processed, warped scores), drawn
    from `generator` (a seqlab.Generator, as torch's generator= arguments) or else seqlab's global
    generator; seed reseeds that first (seqlab.manual_seed(seed) or generator.manual_seed(seed)),
    so a seed gives the same tokens again. Takes generate()'s arguments."""
    return _call(model, input_ids, kwargs, "sample()", do_sample=True, num_beams=1)


def beam_search(model, input_ids, num_beams=4, **kwargs):
    """generate() with beam search, step for step as Hugging Face transformers' (the rules of its
    rewrite in 4.50, checked against 5.24 in tests/test_generation_hf.py). Each step scores every
    extension of every running beam by its summed (processed) log-probability and takes the best
    K = max(2, 1 + #eos) · num_beams. A candidate that ends in eos, or reaches max_new_tokens, is
    finished: if it ranks among the first num_beams it becomes a hypothesis, scored sum /
    generated_len**length_penalty (length_penalty > 0 favours longer sequences), and the best
    num_beams hypotheses are kept; the best num_beams unfinished candidates run on. So at the last
    step the running beams become hypotheses too. An input stops taking hypotheses when
    early_stopping is True and it has num_beams of them, or when the best running beam can no
    longer beat the worst kept one: judged at its present length (early_stopping False, Hugging
    Face's heuristic) or at max_new_tokens ('never', exact when length_penalty > 0). The best
    num_return_sequences hypotheses per input are returned (rows n·R + r, best first), padded
    with pad_token_id. Takes generate()'s arguments; num_beams=1 runs this same search with one beam (which is greedy
    decoding: the oracle of a test)."""
    return _call(model, input_ids, kwargs, "beam_search()", beam=True, num_beams=num_beams, do_sample=False)
