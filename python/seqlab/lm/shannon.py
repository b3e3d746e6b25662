"""The Shannon game (Shannon 1951, "Prediction and Entropy of Printed English").

A predictor guesses the next symbol of a text, most probable first, until it is right; the
number of guesses is the rank of the true symbol. From the rank frequencies q_1, q_2, ...
(the fraction of positions guessed right on the i-th guess) Shannon bounds the entropy of
the source, in bits per symbol, given N-1 symbols of context:

    upper  F_N <= -sum_i q_i log2 q_i
    lower  F_N >= sum_i i (q_i - q_{i+1}) log2 i        (q_{K+1} = 0)

Any model with `vocab` and `next_probs(context, bos=False)` plays (seqlab.lm.NGram now, an
RNN or transformer wrapper later). Tests: tests/test_shannon.py.
"""
import dataclasses

import numpy as np

# Shannon (1951), Bell System Technical Journal 30(1), pp. 50-64, section 6 "Experimental bounds
# for English" (p. 64; plotted in his Fig. 4): upper and lower bounds in bits per letter (27
# symbols, A-Z and space) from the rank frequencies of Table I. Column N = preceding letters known
# plus one (N - 1 letters of context); the last column is the test in which 100 letters were known.
# Checked value by value against the paper's text (OCR of princeton.edu/~wbialek/rome/refs/
# shannon_51.pdf); the N = 100 pair (1.3, 0.6) is also the "0.6 to 1.3 bits" usually quoted.
SHANNON_1951 = {
    "N": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 100],
    "upper": [4.03, 3.42, 3.0, 2.6, 2.7, 2.2, 2.8, 1.8, 1.9, 2.1, 2.2, 2.3, 2.1, 1.7, 2.1, 1.3],
    "lower": [3.19, 2.50, 2.1, 1.7, 1.7, 1.3, 1.8, 1.0, 1.0, 1.0, 1.3, 1.3, 1.2, 0.9, 1.2, 0.6],
}


def shannon_bounds(rank_freq):
    """(upper, lower) entropy bounds in bits from rank frequencies q_1..q_K (they are normalised)."""
    q = np.asarray(rank_freq, dtype=np.float64)
    if q.ndim != 1 or q.size == 0 or (q < 0).any() or q.sum() <= 0:
        raise ValueError(f"shannon_bounds: rank frequencies must be a non-empty vector of counts >= 0, got {rank_freq!r}")
    q = q / q.sum()
    nz = q[q > 0]
    upper = float(-(nz * np.log2(nz)).sum())
    i = np.arange(1, q.size + 1, dtype=np.float64)
    q_next = np.append(q[1:], 0.0)
    lower = float((i * (q - q_next) * np.log2(i)).sum())
    return upper, lower


@dataclasses.dataclass
class ShannonResult:
    """The outcome of shannon_game: the rank of every guess, the frequencies q_i of guessing on the
    i-th try, and Shannon's (1951) upper and lower entropy bounds from them."""
    ranks: np.ndarray       # rank (1 = first guess) of the true symbol at every position
    rank_freq: np.ndarray   # q_i: fraction of positions guessed on the i-th guess, i = 1..K
    alphabet: list          # the K symbols guessed among
    N: int                  # symbols known: N-1 of context plus the one guessed
    upper: float            # bits per symbol
    lower: float

    def __repr__(self):
        return (f"ShannonResult(N={self.N}, positions={self.ranks.size}, upper={self.upper:.3f} bits, "
                f"lower={self.lower:.3f} bits, first-guess rate={self.rank_freq[0]:.3f})")


def shannon_game(model, text, N=None, alphabet=None):
    """Plays the Shannon game on `text` (a string of symbols of a character model).

    At every position the model orders the alphabet by p(symbol | the previous N-1 symbols)
    (ties in alphabet order), and the rank of the true symbol is recorded. N defaults to the
    model's order; N=1 guesses from no context (the model's unigram distribution: letter
    frequencies for an MLE model; Kneser-Ney's continuation unigram ranks otherwise). The first N-1
    positions use what context there is, as Shannon's subjects did at a text's start.
    alphabet: the symbols to guess among; by default the model's characters (its vocabulary
    without <s>, </s>, <unk>). A symbol of the text outside the alphabet raises a ValueError.
    """
    order = getattr(model, "order", None)
    if N is None:
        if order is None:
            raise ValueError("shannon_game: give N for a model without an `order`")
        N = order
    if not isinstance(N, int) or N < 1:
        raise ValueError(f"shannon_game: N must be an int >= 1, got {N!r}")
    if not isinstance(text, str) or not text:
        raise ValueError("shannon_game: text must be a non-empty string")
    vocab = list(model.vocab)
    display = [" " if v == "<space>" else v for v in vocab]
    if alphabet is None:
        alphabet = [d for v, d in zip(vocab, display) if v not in ("<unk>", "<s>", "</s>")]
    alphabet = list(alphabet)
    pos = {d: i for i, d in enumerate(display)}
    missing = [a for a in alphabet if a not in pos]
    if missing:
        raise ValueError(f"shannon_game: symbols {missing[:5]} of the alphabet are not in the model's vocabulary")
    cols = np.array([pos[a] for a in alphabet])
    symbol_index = {a: i for i, a in enumerate(alphabet)}
    bad = sorted(set(text) - set(symbol_index))
    if bad:
        raise ValueError(f"shannon_game: the text has symbols outside the alphabet: {bad[:10]}")
    ranks = np.empty(len(text), dtype=np.int64)
    for t, ch in enumerate(text):
        context = text[max(0, t - (N - 1)):t] if N > 1 else ""
        p = np.asarray(model.next_probs(list(context), bos=False))[cols]
        # rank = 1 + number of symbols ranked before the true one (higher p, or equal p earlier in the alphabet)
        k = symbol_index[ch]
        ranks[t] = 1 + int((p > p[k]).sum()) + int((p[:k] == p[k]).sum())
    freq = np.bincount(ranks, minlength=len(alphabet) + 1)[1:].astype(np.float64)
    q = freq / freq.sum()
    upper, lower = shannon_bounds(q)
    return ShannonResult(ranks=ranks, rank_freq=q, alphabet=alphabet, N=N, upper=upper, lower=lower)
