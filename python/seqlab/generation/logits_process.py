"""Logits processing for sampling, as Hugging Face's logits warpers (transformers.generation.
logits_process: TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper), applied to the last
dim of a (..., V) tensor of next-token logits:

    temperature:  logits / T                                (T > 0; T < 1 sharpens, T > 1 flattens)
    top-k:        keep the k largest logits (and ties with the k-th), the rest -> -inf
    top-p:        keep the smallest set of most probable tokens whose probability sums to >= p
                  (nucleus sampling, Holtzman et al. 2020), the rest -> -inf

The tokens to drop are found in NumPy from the detached logits (an order, as seqlab's sort and
topk do, and a cumulative sum); the result is one masked_fill of the logits, so the kept
logits keep their gradient. Tests: tests/test_generation.py (against the same steps in torch)."""
import math
import numbers

import numpy as np

from .. import _core

__all__ = ["temperature_scale", "top_k_filter", "top_p_filter", "check_sampling_args"]


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
