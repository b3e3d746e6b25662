"""Logits processing, as Hugging Face's (transformers.generation.logits_process), applied to the
last dim of a (..., V) tensor of next-token scores. The warpers shape sampling:

    temperature:  logits / T                                (T > 0; T < 1 sharpens, T > 1 flattens)
    top-k:        keep the k largest logits (and ties with the k-th), the rest -> -inf
    top-p:        keep the smallest set of most probable tokens whose probability sums to >= p
                  (nucleus sampling, Holtzman et al. 2020), the rest -> -inf

and the processors, which read the sequence so far (input_ids (rows, len)), apply to every
decoding strategy:

    repetition penalty:  a score s of a token already in the sequence -> s·θ if s < 0 else s/θ
                         (Keskar et al. 2019, CTRL; θ > 1 discourages repeats)
    no-repeat n-grams:   a token that would complete an n-gram the sequence already holds -> -inf
    min length:          eos -> -inf while the sequence is shorter than min_length (all tokens)
                         or has fewer than min_new_tokens new tokens

The processor classes carry Hugging Face's names and are called as processor(input_ids, scores)
-> scores; generate() builds them in Hugging Face's order (_logits_processors in utils.py) and
appends a logits_processor= list of your own. The tokens to drop are found in NumPy from the
detached scores; the result is one masked_fill (or a where), so kept scores keep their gradient.
Tests: tests/test_generation.py (the warpers against the same steps in torch),
tests/test_generation_hf.py (the processors against transformers' own, and generate() with them)."""
import math
import numbers

import numpy as np

from .. import _core

__all__ = ["temperature_scale", "top_k_filter", "top_p_filter", "check_sampling_args", "LogitsProcessor",
           "LogitsProcessorList", "TemperatureLogitsWarper", "TopKLogitsWarper", "TopPLogitsWarper",
           "RepetitionPenaltyLogitsProcessor", "NoRepeatNGramLogitsProcessor", "MinLengthLogitsProcessor",
           "MinNewTokensLengthLogitsProcessor"]


def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _check_temperature(temperature, fn):
    if not _is_number(temperature) or not math.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"{fn}: temperature must be a finite number > 0, got {temperature!r} (for greedy decoding "
                         "use do_sample=False)")


def _check_top_k(top_k, fn):
    if not isinstance(top_k, numbers.Integral) or isinstance(top_k, bool) or top_k < 1:
        raise ValueError(f"{fn}: top_k must be an integer >= 1, got {top_k!r}")


def _check_top_p(top_p, fn):
    if not _is_number(top_p) or not 0 < top_p <= 1:
        raise ValueError(f"{fn}: top_p must be a number in (0, 1], got {top_p!r}")


def _check_logits(logits, fn):
    if not isinstance(logits, _core.Tensor):
        raise TypeError(f"{fn}: logits must be a Tensor, not {type(logits).__name__}")
    if logits.dim() < 1 or logits.shape[-1] == 0 or not logits.is_floating_point():
        raise ValueError(f"{fn}: logits must be a floating-point tensor (..., V) with V >= 1, got shape "
                         f"{tuple(logits.shape)} and dtype {logits.dtype}")


def check_sampling_args(temperature=1.0, top_k=None, top_p=None, fn="generate()"):
    """The checks of temperature, top_k and top_p (None: not used), before anything runs."""
    _check_temperature(temperature, fn)
    if top_k is not None:
        _check_top_k(top_k, fn)
    if top_p is not None:
        _check_top_p(top_p, fn)


def _rows(logits):
    """The logits as a float64 (rows, V) NumPy array."""
    return logits.detach().contiguous().numpy().astype(np.float64).reshape(-1, logits.shape[-1])


def _drop(logits, remove, filter_value):
    mask = _core.from_numpy(np.ascontiguousarray(remove.reshape(tuple(logits.shape))))
    return logits.masked_fill(mask, filter_value)


def temperature_scale(logits, temperature):
    """logits / temperature. A temperature so small that a finite logit overflows (1e-308) raises
    here, naming it, rather than as NaN probabilities inside the sampler."""
    _check_logits(logits, "temperature_scale")
    _check_temperature(temperature, "temperature_scale")
    scaled = logits / temperature
    a, b = _rows(logits), _rows(scaled)
    if not np.all(np.isfinite(b) | ~np.isfinite(a)):
        big = float(np.max(np.abs(a[np.isfinite(a)])))
        raise ValueError(f"temperature_scale: temperature={temperature!r} is too small for these logits: logit / "
                         f"temperature overflows {logits.dtype} (largest |logit| {big:.6g}); use a larger "
                         "temperature, or do_sample=False for greedy decoding")
    return scaled


def top_k_filter(logits, top_k, filter_value=-math.inf, min_tokens_to_keep=1):
    """Logits outside the top_k largest of each row set to filter_value; a logit equal to the
    k-th largest is kept (Hugging Face's rule: drop x < the k-th value). top_k above V keeps all."""
    _check_logits(logits, "top_k_filter")
    _check_top_k(top_k, "top_k_filter")
    a = _rows(logits)
    k = min(max(top_k, min_tokens_to_keep), a.shape[1])
    kth = -np.sort(-a, axis=1)[:, k - 1:k]     # the k-th largest value of each row
    return _drop(logits, a < kth, filter_value)


def top_p_filter(logits, top_p, filter_value=-math.inf, min_tokens_to_keep=1):
    """Nucleus filtering: in each row, tokens sorted by probability descending are kept until
    their cumulative probability reaches top_p (the token that crosses it is kept). As Hugging
    Face computes it: sort ascending, cumsum of softmax, drop where the cumulative sum <= 1 - top_p,
    always keeping the min_tokens_to_keep most probable. Ties: the sort is stable, so among tokens
    of equal logit the highest index counts as the more probable and is kept first. Hugging Face
    sorts with torch.sort, which is stable on small rows (the same subset) but not guaranteed to
    be, so on long rows it may keep another of the tied tokens."""
    _check_logits(logits, "top_p_filter")
    _check_top_p(top_p, "top_p_filter")
    a = _rows(logits)
    order = np.argsort(a, axis=1, kind="stable")          # ascending
    sorted_logits = np.take_along_axis(a, order, axis=1)
    m = sorted_logits[:, -1:]
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(sorted_logits - m)
    cumulative = np.cumsum(e / e.sum(axis=1, keepdims=True), axis=1)
    sorted_remove = cumulative <= 1 - top_p
    sorted_remove[:, -min_tokens_to_keep:] = False
    remove = np.empty_like(sorted_remove)
    np.put_along_axis(remove, order, sorted_remove, axis=1)
    return _drop(logits, remove, filter_value)


def _ids(input_ids, scores, fn):
    """The sequences so far as an int64 (rows, len) NumPy array, one row per row of scores."""
    a = input_ids.numpy() if isinstance(input_ids, _core.Tensor) else np.asarray(input_ids)
    if a.ndim != 2 or a.dtype.kind not in "iu":
        raise ValueError(f"{fn}: input_ids must be integer token ids (rows, len), got {a.dtype} {a.shape}")
    _check_logits(scores, fn)
    if scores.dim() != 2 or scores.shape[0] != a.shape[0]:
        raise ValueError(f"{fn}: scores must be (rows, V) with one row per sequence of input_ids {a.shape}, got "
                         f"{tuple(scores.shape)}")
    return a.astype(np.int64, copy=False)


class LogitsProcessor:
    """A step of logits processing: __call__(input_ids (rows, len) int64, scores (rows, V)) ->
    scores. Subclass it (or pass any such callable in generate's logits_processor=)."""

    def __call__(self, input_ids, scores):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(input_ids, scores)")


class LogitsProcessorList(list):
    """Processors applied in order: each reads the previous one's scores."""

    def __call__(self, input_ids, scores):
        for processor in self:
            scores = processor(input_ids, scores)
        return scores


class TemperatureLogitsWarper(LogitsProcessor):
    def __init__(self, temperature):
        _check_temperature(temperature, "TemperatureLogitsWarper")
        self.temperature = temperature

    def __call__(self, input_ids, scores):
        return temperature_scale(scores, self.temperature)


class TopKLogitsWarper(LogitsProcessor):
    def __init__(self, top_k, filter_value=-math.inf, min_tokens_to_keep=1):
        _check_top_k(top_k, "TopKLogitsWarper")
        self.top_k, self.filter_value, self.min_tokens_to_keep = top_k, filter_value, min_tokens_to_keep

    def __call__(self, input_ids, scores):
        return top_k_filter(scores, self.top_k, self.filter_value, self.min_tokens_to_keep)


class TopPLogitsWarper(LogitsProcessor):
    def __init__(self, top_p, filter_value=-math.inf, min_tokens_to_keep=1):
        _check_top_p(top_p, "TopPLogitsWarper")
        self.top_p, self.filter_value, self.min_tokens_to_keep = top_p, filter_value, min_tokens_to_keep

    def __call__(self, input_ids, scores):
        return top_p_filter(scores, self.top_p, self.filter_value, self.min_tokens_to_keep)


class RepetitionPenaltyLogitsProcessor(LogitsProcessor):
    """The repetition penalty of CTRL (Keskar et al. 2019, §4.1): every token that occurs in the
    sequence so far (the prompt included, as Hugging Face) has its score s replaced by s·penalty if
    s < 0, else s / penalty, so penalty > 1 makes a repeat less likely whatever the sign of s;
    penalty < 1 encourages repeats. A token counts once however often it occurs."""

    def __init__(self, penalty):
        if not _is_number(penalty) or not math.isfinite(penalty) or penalty <= 0:
            raise ValueError(f"RepetitionPenaltyLogitsProcessor: penalty must be a finite number > 0, got {penalty!r}")
        self.penalty = float(penalty)

    def __call__(self, input_ids, scores):
        ids = _ids(input_ids, scores, "RepetitionPenaltyLogitsProcessor")
        V = scores.shape[1]
        seen = np.zeros((ids.shape[0], V), dtype=bool)
        rows = np.repeat(np.arange(ids.shape[0]), ids.shape[1])
        inside = ids.reshape(-1) < V  # an id past the head's vocabulary has no score to penalise
        seen[rows[inside], ids.reshape(-1)[inside]] = True
        penalised = _core.where(scores < 0, scores * self.penalty, scores / self.penalty)
        return _core.where(_core.from_numpy(seen), penalised, scores)


class NoRepeatNGramLogitsProcessor(LogitsProcessor):
    """No n-gram occurs twice (Paulus et al. 2017): a token that, after the last n − 1 tokens,
    would complete an n-gram already in the sequence (the prompt included) gets -inf."""

    def __init__(self, ngram_size):
        if not isinstance(ngram_size, numbers.Integral) or isinstance(ngram_size, bool) or ngram_size < 1:
            raise ValueError(f"NoRepeatNGramLogitsProcessor: ngram_size must be an integer >= 1, got {ngram_size!r}")
        self.ngram_size = int(ngram_size)

    def __call__(self, input_ids, scores):
        ids = _ids(input_ids, scores, "NoRepeatNGramLogitsProcessor")
        n, (rows, length), V = self.ngram_size, ids.shape, scores.shape[1]
        banned = np.zeros((rows, V), dtype=bool)
        if length >= n:  # else no n-gram is complete yet, so none can repeat
            prefix = ids[:, length - (n - 1):]                                   # (rows, n - 1)
            windows = np.lib.stride_tricks.sliding_window_view(ids, n, axis=1)   # (rows, length - n + 1, n)
            match = (windows[..., :-1] == prefix[:, None, :]).all(axis=-1)
            r, w = np.nonzero(match)
            last = windows[r, w, -1]
            inside = last < V
            banned[r[inside], last[inside]] = True
        return _drop(scores, banned, -math.inf)


class MinLengthLogitsProcessor(LogitsProcessor):
    """eos -> -inf while the sequence (prompt included) is shorter than min_length."""

    def __init__(self, min_length, eos_token_id):
        if not isinstance(min_length, numbers.Integral) or isinstance(min_length, bool) or min_length < 0:
            raise ValueError(f"MinLengthLogitsProcessor: min_length must be an integer >= 0, got {min_length!r}")
        self.min_length, self.eos = int(min_length), np.atleast_1d(np.asarray(eos_token_id, dtype=np.int64))

    def __call__(self, input_ids, scores):
        ids = _ids(input_ids, scores, "MinLengthLogitsProcessor")
        return _ban_eos(scores, self.eos) if ids.shape[1] < self.min_length else scores


class MinNewTokensLengthLogitsProcessor(LogitsProcessor):
    """eos -> -inf until min_new_tokens tokens follow the prompt (its length prompt_length_to_skip:
    the prompt of a decoder-only model, the start token of an encoder-decoder's decoder)."""

    def __init__(self, prompt_length_to_skip, min_new_tokens, eos_token_id):
        for name, v in (("prompt_length_to_skip", prompt_length_to_skip), ("min_new_tokens", min_new_tokens)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 0:
                raise ValueError(f"MinNewTokensLengthLogitsProcessor: {name} must be an integer >= 0, got {v!r}")
        self.prompt_length_to_skip, self.min_new_tokens = int(prompt_length_to_skip), int(min_new_tokens)
        self.eos = np.atleast_1d(np.asarray(eos_token_id, dtype=np.int64))

    def __call__(self, input_ids, scores):
        ids = _ids(input_ids, scores, "MinNewTokensLengthLogitsProcessor")
        new = ids.shape[1] - self.prompt_length_to_skip
        return _ban_eos(scores, self.eos) if new < self.min_new_tokens else scores


def _ban_eos(scores, eos):
    banned = np.zeros(tuple(scores.shape), dtype=bool)
    banned[:, eos[eos < scores.shape[1]]] = True
    return _drop(scores, banned, -math.inf)
