"""Tests of seqlab.lm.shannon: shannon_bounds, shannon_game, SHANNON_1951.

Shannon (1951): from the rank frequencies q_1..q_K of the true symbol among the predictor's
guesses, upper = -sum q_i log2 q_i and lower = sum_i i (q_i - q_{i+1}) log2 i (q_{K+1} = 0).
Every expected value below is worked out by hand or recomputed independently.
"""
import itertools
import math
import warnings
from collections import Counter

import numpy as np
import pytest
from seqlab.lm import SHANNON_1951, NGram, ShannonResult, shannon_bounds, shannon_game


def fit(sentences, order, smoothing="mle"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return NGram(order, smoothing, level="char").fit(sentences)


# ============================================================================ shannon_bounds

def test_bounds_by_hand():
    # q = 1/2, 1/4, 1/4 (from counts 2, 1, 1: they are normalised)
    # upper = 1/2 * 1 + 1/4 * 2 + 1/4 * 2 = 1.5
    # lower = 1 (1/2 - 1/4) log2 1 + 2 (1/4 - 1/4) log2 2 + 3 (1/4 - 0) log2 3 = 3/4 log2 3
    upper, lower = shannon_bounds([2, 1, 1])
    assert upper == pytest.approx(1.5, abs=1e-12)
    assert lower == pytest.approx(0.75 * math.log2(3), abs=1e-12)
    assert shannon_bounds([0.5, 0.25, 0.25]) == pytest.approx((upper, lower), abs=1e-12)

    # q = .5, .3, .2, 0 (a zero tail contributes nothing):
    # upper = -(.5 log2 .5 + .3 log2 .3 + .2 log2 .2)
    # lower = 0 + 2 (.3 - .2) * 1 + 3 (.2 - 0) log2 3 + 4 (0 - 0) * 2 = .2 + .6 log2 3
    upper, lower = shannon_bounds([0.5, 0.3, 0.2, 0.0])
    assert upper == pytest.approx(0.5 + 0.3 * math.log2(1 / 0.3) + 0.2 * math.log2(5), abs=1e-12)
    assert lower == pytest.approx(0.2 + 0.6 * math.log2(3), abs=1e-12)

    # always right on the first guess: both bounds are 0
    assert shannon_bounds([7]) == (0.0, 0.0)
    assert shannon_bounds([1, 0, 0]) == (0.0, 0.0)

    # uniform over 4 ranks: upper = 2; lower = 4 * (1/4 - 0) * log2 4 = 2 (the bounds meet)
    upper, lower = shannon_bounds([1, 1, 1, 1])
    assert upper == pytest.approx(2.0, abs=1e-12) and lower == pytest.approx(2.0, abs=1e-12)

    # q = .4, .2, .2, .2: upper = .4 log2 2.5 + .6 log2 5; lower = 4 * .2 * 2 = 1.6
    upper, lower = shannon_bounds([2, 1, 1, 1])
    assert upper == pytest.approx(0.4 * math.log2(2.5) + 0.6 * math.log2(5), abs=1e-12)
    assert lower == pytest.approx(1.6, abs=1e-12)


def test_bounds_lower_never_above_upper():
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(1, 30))
        q = np.sort(rng.random(k))[::-1]  # rank frequencies of a good predictor decrease
        up, lo = shannon_bounds(q)
        assert 0 <= lo <= up + 1e-12


@pytest.mark.parametrize("bad", [[], [0, 0], [1, -1], [[1, 2], [3, 4]]])
def test_bounds_errors(bad):
    with pytest.raises(ValueError, match="rank frequencies"):
        shannon_bounds(bad)


# ============================================================================ shannon_game by hand

def test_game_unigram_ranks_by_hand():
    # MLE unigram on "aaa bb c": a 3, ' ' 2, b 2, c 1, </s> 1 (of 9).
    # Alphabet a, b, c, ' ': order a (3/9), then the tie b = ' ' (2/9) in alphabet order: b, ' ';
    # then c (1/9). Ranks: a 1, b 2, ' ' 3, c 4.
    lm = fit(["aaa bb c"], 1)
    r = shannon_game(lm, "cab a", alphabet=["a", "b", "c", " "])
    assert isinstance(r, ShannonResult)
    assert r.N == 1 and r.alphabet == ["a", "b", "c", " "]
    assert r.ranks.tolist() == [4, 1, 2, 3, 1]
    # q = 2/5, 1/5, 1/5, 1/5: upper = .4 log2 2.5 + .6 log2 5, lower = 4 (.2 - 0) log2 4 = 1.6
    np.testing.assert_allclose(r.rank_freq, [0.4, 0.2, 0.2, 0.2])
    assert r.upper == pytest.approx(0.4 * math.log2(2.5) + 0.6 * math.log2(5), abs=1e-12)
    assert r.lower == pytest.approx(1.6, abs=1e-12)
    # The tie goes the other way when ' ' comes first in the alphabet.
    r2 = shannon_game(lm, "cab a", alphabet=[" ", "c", "b", "a"])
    assert r2.ranks.tolist() == [4, 1, 3, 2, 1]
    # The default alphabet is the model's characters (no <s>, </s>, <unk>), spaces as " ".
    r3 = shannon_game(lm, "cab a")
    assert sorted(r3.alphabet) == sorted(["a", "b", "c", " "])
    assert r3.ranks[1] == 1 and r3.ranks[0] == 4 and r3.ranks[4] == 1


def test_game_bigram_context_and_N_by_hand():
    # MLE bigram on "abac": <s>a, ab, ba, ac, c</s>; unigrams a 2, b 1, c 1, </s> 1 (of 5).
    # The game never uses <s> (bos=False): the first position has no context -> unigrams.
    #   after 'a': b 1/2, c 1/2 (tie: b first) ; after 'b': a 1 ; after 'c': </s> 1 (a, b, c all 0)
    lm = fit(["abac"], 2)
    alphabet = ["a", "b", "c"]
    # N = 2, text "acab":
    #   'a' (no context): a 2/5 first -> 1
    #   'c' after 'a': b and c tie at 1/2, b first -> 2
    #   'a' after 'c': all three at 0, a first -> 1
    #   'b' after 'a': -> 1
    r = shannon_game(lm, "acab", N=2, alphabet=alphabet)
    assert r.ranks.tolist() == [1, 2, 1, 1]
    assert r.N == 2
    assert shannon_game(lm, "acab", alphabet=alphabet).ranks.tolist() == [1, 2, 1, 1]  # N = order
    # N = 1 ignores the context: unigrams a 2/5, b 1/5, c 1/5 -> a 1, b 2, c 3
    r1 = shannon_game(lm, "acab", N=1, alphabet=alphabet)
    assert r1.ranks.tolist() == [1, 3, 1, 2]
    # q = 2/4, 1/4, 1/4: upper 1.5, lower 3/4 log2 3 (see test_bounds_by_hand)
    assert r1.upper == pytest.approx(1.5) and r1.lower == pytest.approx(0.75 * math.log2(3))
    # N = 3 on a bigram model: the model only looks at what its order allows
    assert shannon_game(lm, "acab", N=3, alphabet=alphabet).ranks.tolist() == [1, 2, 1, 1]


class TableModel:
    """A model-agnostic predictor: `vocab`, `order` and next_probs(context, bos=False), as an RNN
    wrapper will offer. p depends on the last symbol only; every call is recorded."""

    def __init__(self, order=2):
        self.vocab = ["<unk>", "<s>", "</s>", "x", "y", "<space>"]
        if order is not None:
            self.order = order
        self.calls = []
        #            <unk> <s> </s>   x    y   space
        self.table = {None: [0, 0, 0, 0.5, 0.3, 0.2],
                      "x": [0, 0, 0, 0.1, 0.6, 0.3],
                      "y": [0, 0, 0, 0.2, 0.2, 0.6],
                      " ": [0.1, 0, 0.1, 0.3, 0.3, 0.2]}

    def next_probs(self, context, bos=True):
        self.calls.append((list(context), bos))
        return self.table[context[-1] if len(context) else None]


def test_game_with_a_model_agnostic_predictor():
    m = TableModel(order=2)
    # alphabet (default): x, y, ' ' (the specials dropped, <space> shown as " ")
    # text "xy y x":
    #   'x' no context: x .5 -> 1
    #   'y' after x: y .6 -> 1
    #   ' ' after y: ' ' .6 -> 1
    #   'y' after ' ': x .3 = y .3 tie, x first -> 2
    #   ' ' after y -> 1
    #   'x' after ' ': x .3 = y .3, x first -> 1
    r = shannon_game(m, "xy y x")
    assert r.alphabet == ["x", "y", " "]
    assert r.N == 2
    assert r.ranks.tolist() == [1, 1, 1, 2, 1, 1]
    np.testing.assert_allclose(r.rank_freq, [5 / 6, 1 / 6, 0])
    assert r.upper == pytest.approx(-(5 / 6) * math.log2(5 / 6) - (1 / 6) * math.log2(1 / 6))
    # lower = 1 (5/6 - 1/6) * 0 + 2 (1/6 - 0) * 1 + 3 * 0 = 1/3
    assert r.lower == pytest.approx(1 / 3)
    # the game asks with bos=False and contexts of N-1 symbols (fewer at the start)
    assert m.calls == [([], False), (["x"], False), (["y"], False), ([" "], False), (["y"], False),
                       ([" "], False)]
    m.calls.clear()
    r3 = shannon_game(m, "xy y", N=3)
    assert [c for c, _ in m.calls] == [[], ["x"], ["x", "y"], ["y", " "]]
    assert r3.ranks.tolist() == [1, 1, 1, 2]
    m.calls.clear()
    r1 = shannon_game(m, "xy y", N=1)
    assert [c for c, _ in m.calls] == [[], [], [], []]
    # no context: x .5, y .3, ' ' .2 -> x 1, y 2, ' ' 3
    assert r1.ranks.tolist() == [1, 2, 3, 2]
    # an explicit alphabet restricts and orders the guesses
    r4 = shannon_game(TableModel(), "yy", N=1, alphabet=["y", "x"])
    assert r4.ranks.tolist() == [2, 2] and r4.rank_freq.tolist() == [0.0, 1.0]
    # a model without `order` needs N
    no_order = TableModel(order=None)
    with pytest.raises(ValueError, match="give N"):
        shannon_game(no_order, "xy")
    assert shannon_game(no_order, "xy", N=2).ranks.tolist() == [1, 1]


# ============================================================================ errors

def test_game_errors():
    lm = fit(["abc ab"], 2)
    with pytest.raises(ValueError, match="non-empty"):
        shannon_game(lm, "")
    with pytest.raises(ValueError, match="non-empty"):
        shannon_game(lm, ["a", "b"])
    with pytest.raises(ValueError, match="outside the alphabet"):
        shannon_game(lm, "abz")
    with pytest.raises(ValueError, match="outside the alphabet"):
        shannon_game(lm, "abc", alphabet=["a", "b"])
    for N in (0, -1, 1.5, "2"):
        with pytest.raises(ValueError, match="N must be"):
            shannon_game(lm, "ab", N=N)
    with pytest.raises(ValueError, match="not in the model's vocabulary"):
        shannon_game(lm, "ab", alphabet=["a", "b", "q"])


def test_shannon_1951_table():
    t = SHANNON_1951
    assert t["N"][:4] == [1, 2, 3, 4]
    assert t["upper"][:4] == [4.03, 3.42, 3.0, 2.6]
    assert t["lower"][:4] == [3.19, 2.50, 2.1, 1.7]
    assert len(t["N"]) == len(t["upper"]) == len(t["lower"])
    assert all(lo <= up for lo, up in zip(t["lower"], t["upper"]))


# ============================================================================ the KJV, 27 symbols

@pytest.fixture(scope="module")
def kjv27():
    from seqlab.data import corpora
    corpus = corpora.kjv("shannon27")
    lines, n = [], 0
    for line in corpus.lines("train"):  # the first ~300k symbols of the train split, by verse
        lines.append(line)
        n += len(line) + 1
        if n >= 300_000:
            break
    test = corpus.text("test")[:2000]
    return lines, test


def entropy_bits(counter):
    total = sum(counter.values())
    return -sum(c / total * math.log2(c / total) for c in counter.values() if c)


def test_kjv_5gram_bounds_fall_with_N(kjv27):
    lines, test = kjv27
    assert set(test) <= set(" abcdefghijklmnopqrstuvwxyz") and len(test) == 2000
    lm = fit(lines, 5, "kneser_ney")
    results = [shannon_game(lm, test, N=N) for N in range(1, 6)]
    assert shannon_game(lm, test).N == 5
    for r in results:
        assert r.ranks.size == 2000 and len(r.alphabet) == 27
        assert r.rank_freq.sum() == pytest.approx(1.0)
        assert r.lower <= r.upper
    uppers = [r.upper for r in results]
    lowers = [r.lower for r in results]
    assert all(a > b for a, b in itertools.pairwise(uppers)), uppers
    assert all(a > b for a, b in itertools.pairwise(lowers)), lowers
    # N = 1: the guessing order is the same at every position, so the ranks are a relabelling of
    # the symbols and the upper bound is exactly the entropy of the test text's symbol frequencies
    assert uppers[0] == pytest.approx(entropy_bits(Counter(test)), abs=1e-9)
    # ... which is near the unigram entropy of English letters and space (~4.1 bits)
    train_h = entropy_bits(Counter("".join(lines)) + Counter({" ": len(lines) - 1}))
    assert 4.0 < train_h < 4.2
    assert abs(uppers[0] - train_h) < 0.2
    # more context helps a lot: the 5-gram guesses right on the first try far more often
    assert results[4].rank_freq[0] > 2 * results[0].rank_freq[0]


def test_kjv_unigram_frequency_ranks(kjv27):
    """Shannon's N = 1 subject guesses by letter frequency: an MLE unigram model's ranks are the
    positions of the symbols in the training frequency order (ties in alphabet order)."""
    lines, test = kjv27
    lm = fit(lines, 1, "mle")
    freq = Counter("".join(lines))  # what the model counted (verse ends are </s>, not spaces)
    r = shannon_game(lm, test)
    alphabet = r.alphabet
    order = sorted(alphabet, key=lambda a: (-freq[a], alphabet.index(a)))
    rank_of = {a: i + 1 for i, a in enumerate(order)}
    assert order[0] == " " and order[1] == "e"
    assert r.ranks.tolist() == [rank_of[ch] for ch in test]
    up, lo = shannon_bounds(np.bincount(r.ranks, minlength=28)[1:])
    assert (r.upper, r.lower) == pytest.approx((up, lo))
    assert r.lower < r.upper
    assert r.upper == pytest.approx(entropy_bits(Counter(test)), abs=1e-9)


def test_shannon_1951_table_is_the_papers():
    """Every value of Shannon (1951), BSTJ 30(1) p. 64, section 6 (the bounds plotted in Fig. 4)."""
    t = SHANNON_1951
    assert t["N"] == [*range(1, 16), 100]
    assert t["upper"] == [4.03, 3.42, 3.0, 2.6, 2.7, 2.2, 2.8, 1.8, 1.9, 2.1, 2.2, 2.3, 2.1, 1.7, 2.1, 1.3]
    assert t["lower"] == [3.19, 2.50, 2.1, 1.7, 1.7, 1.3, 1.8, 1.0, 1.0, 1.0, 1.3, 1.3, 1.2, 0.9, 1.2, 0.6]
