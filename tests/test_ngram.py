"""Tests of seqlab.lm.NGram (python/seqlab/lm/ngram.py, cpp/src/lm/ngram_*.cpp).

Every expected value is computed independently here: by hand with fractions, or by the small
pure-Python reference models below, written from the formulas (KenLM's modified Kneser-Ney,
Katz back-off with Good-Turing discounts, interpolated Witten-Bell, MLE and add-k).
Comparisons with KenLM's own binaries are in tests/test_ngram_kenlm.py.
"""
import math
import random
import warnings
from collections import Counter, defaultdict
from fractions import Fraction

import numpy as np
import pytest
from seqlab.lm import Interpolated, NGram, interpolate

BOS, EOS, UNK, SPACE = "<s>", "</s>", "<unk>", "<space>"
SMOOTHINGS = ("kneser_ney", "katz", "witten_bell", "add_k", "mle")

TOY = ["the cat sat", "the dog sat", "the cat ran"]
SMALL_WORD = [
    "the cat sat on the mat",
    "the dog sat on the log",
    "a cat and a dog",
    "the cat ran",
    "on the mat the dog slept",
    "a dog ran on the log",
    "the mat",
]
SMALL_CHAR = ["abba cab", "a bad cab", "dab", "cc ab ba", "bad"]


def fit(sentences, order, smoothing="kneser_ney", level="word", **kw):
    """Fit, ignoring the discount-fallback warnings of tiny corpora."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return NGram(order, smoothing, level, **kw).fit(sentences)


def tokens_of(sentence, level):
    if not isinstance(sentence, str):
        return list(sentence)
    return sentence.split() if level == "word" else [SPACE if c == " " else c for c in sentence]


def log10(p):
    return math.log10(p) if p > 0 else -math.inf


def assert_log10_close(got, expected, tol=1e-5, what=""):
    if expected == -math.inf:
        assert got == -math.inf or got <= -99, f"{what}: got {got}, expected -inf"
    else:
        assert abs(got - expected) <= tol, f"{what}: got {got}, expected {expected}"


def zipf_markov_text(seed, n_sentences, vocab_size=30, mean_len=9):
    """Seeded random text: Zipfian words with a first-order Markov preference, so that the
    counts of counts at orders 1 and 2 are dense (Good-Turing and KN discounts are estimable)."""
    r = random.Random(seed)
    words = [f"w{i}" for i in range(vocab_size)]
    base = [1.0 / (i + 1) for i in range(vocab_size)]
    follow = {w: [base[(j + 3 * i) % vocab_size] for j in range(vocab_size)] for i, w in enumerate(words)}
    out = []
    for _ in range(n_sentences):
        length = max(1, int(r.expovariate(1 / mean_len)))
        prev = None
        sent = []
        for _ in range(length):
            weights = base if prev is None or r.random() < 0.3 else follow[prev]
            prev = r.choices(words, weights)[0]
            sent.append(prev)
        out.append(" ".join(sent))
    return out


# ============================================================================ reference models

class Counts:
    """n-gram counts as KenLM's lmplz makes them: every sentence padded with order-1 <s> and one
    </s>; the top order counted from the windows, lower orders as their suffixes; adjusted
    counts (raw at the top order and for n-grams starting with <s>, else the number of distinct
    left extensions); padding n-grams (<s> <s> ...) dropped."""

    def __init__(self, sentences, N, level="word"):
        self.N = N
        sents = [tokens_of(s, level) for s in sentences]
        raw = {n: Counter() for n in range(1, N + 1)}
        for toks in sents:
            padded = [BOS] * (N - 1) + toks + [EOS]
            for i in range(N - 1, len(padded)):
                for n in range(1, N + 1):
                    raw[n][tuple(padded[i - n + 1:i + 1])] += 1
        adj = {N: Counter(raw[N])}
        for n in range(N - 1, 0, -1):
            a = Counter()
            for g in raw[n + 1]:
                a[g[1:]] += 1
            for g in raw[n]:
                if g[0] == BOS:
                    a[g] = raw[n][g]
            adj[n] = a
        for n in range(2, N + 1):
            for d in (raw, adj):
                for g in [g for g in d[n] if g[0] == BOS and g[1] == BOS]:
                    del d[n][g]
        self.words = sorted({w for t in sents for w in t} | {EOS, UNK})
        self.V = len(self.words)  # the vocabulary without <s>
        for w in self.words:
            raw[1].setdefault((w,), 0)
        raw[1][(BOS,)] = 0
        adj[1] = Counter({g: (0 if g == (BOS,) else adj[1].get(g, 0)) for g in raw[1]})
        self.raw, self.adj = raw, adj
        self.ctx = {n: Counter() for n in range(2, N + 1)}  # c(h) = sum_w c(h w)
        for n in range(2, N + 1):
            for g, c in raw[n].items():
                self.ctx[n][g[:-1]] += c
        self.total = sum(raw[1].values())

    def map_oov(self, tokens):
        known = set(self.words) | {BOS}
        return [t if t in known else UNK for t in tokens]


def backoff_prob(P, B, N, history, w):
    """The ARPA back-off rule: p(w | h) = p*(h w) if h w is in the model, else bow(h) p(w | h')
    (bow = 1 for a history that is not a context)."""
    h = tuple(history[max(0, len(history) - (N - 1)):]) if N > 1 else ()

    def rec(h):
        if not h:
            return P[1][(w,)]
        g = h + (w,)
        if g in P[len(g)]:
            return P[len(g)][g]
        return B[len(h)].get(h, 1.0) * rec(h[1:])

    return rec(h)


class BackoffRef:
    """A reference back-off model: P[n][ngram] = p, B[n][ngram] = back-off weight (not logs)."""

    def __init__(self, counts, P, B, **info):
        self.counts, self.P, self.B, self.N = counts, P, B, counts.N
        self.__dict__.update(info)

    def prob(self, history, w):
        return backoff_prob(self.P, self.B, self.N, self.counts.map_oov(history), w)

    def sentence_log10(self, tokens, bos=True, eos=True):
        toks = self.counts.map_oov(tokens)
        hist = [BOS] if bos else []
        out = []
        for w in toks + ([EOS] if eos else []):
            out.append(log10(self.prob(hist, w)))
            hist.append(w)
        return out


def kneser_ney_ref(counts, fallback=(0.5, 1.0, 1.5)):
    """Interpolated modified Kneser-Ney as KenLM defines it (Heafield et al. 2013)."""
    N, V = counts.N, counts.V
    P, B, discounts, fell_back = {}, {}, {}, []
    for n in range(1, N + 1):
        a = counts.adj[n]
        t = [sum(1 for v in a.values() if v == k) for k in (1, 2, 3, 4)]
        ok = t[0] > 0 and t[1] > 0 and t[2] > 0
        if ok:
            Y = t[0] / (t[0] + 2 * t[1])
            D = [k - (k + 1) * Y * t[k] / t[k - 1] for k in (1, 2, 3)]
            ok = all(0 <= D[k - 1] <= k for k in (1, 2, 3))
        if not ok:
            D = list(fallback)
            fell_back.append(n)
        discounts[n] = (D, t)
        total, nk = defaultdict(float), defaultdict(lambda: [0, 0, 0])
        for g, c in a.items():
            if c > 0:
                total[g[:-1]] += c
                nk[g[:-1]][min(c, 3) - 1] += 1
        gamma = {h: (D[0] * nk[h][0] + D[1] * nk[h][1] + D[2] * nk[h][2]) / total[h] for h in total}
        P[n] = {}
        for g, c in a.items():
            if g == (BOS,):
                continue
            u = (c - (D[min(c, 3) - 1] if c > 0 else 0.0)) / total[g[:-1]]
            lower = 1.0 / V if n == 1 else P[n - 1][g[1:]]
            P[n][g] = u + gamma[g[:-1]] * lower
        if n > 1:
            B[n - 1] = gamma
    B.setdefault(N, {})
    return BackoffRef(counts, P, B, discounts=discounts, fell_back=fell_back)


def witten_bell_ref(counts):
    """Interpolated Witten-Bell on raw counts:
    p(w | h) = (c(h w) + N1+(h .) p(w | h')) / (c(h) + N1+(h .)), ending in 1/V."""
    N, V = counts.N, counts.V
    P, B = {}, {}
    for n in range(1, N + 1):
        c = counts.raw[n]
        total, types = defaultdict(float), defaultdict(int)
        for g, v in c.items():
            if v > 0:
                total[g[:-1]] += v
                types[g[:-1]] += 1
        P[n] = {}
        for g, v in c.items():
            if g == (BOS,):
                continue
            h = g[:-1]
            lower = 1.0 / V if n == 1 else P[n - 1][g[1:]]
            P[n][g] = (v + types[h] * lower) / (total[h] + types[h])
        if n > 1:
            B[n - 1] = {h: types[h] / (total[h] + types[h]) for h in total}
    B.setdefault(N, {})
    return BackoffRef(counts, P, B)


PROB_EPSILON = 3e-6  # SRILM's Prob_Epsilon (lm/src/Prob.h)


def good_turing_ref(nr, K):
    """SRILM's GoodTuring::estimate (lm/src/Discount.cc) on the counts of counts nr (a Counter):
    K = 0 without singletons, lowered while n_{K+1} = 0; d_r = (r*/r - C) / (1 - C), r* = (r+1) n_{r+1}/n_r,
    C = (K+1) n_{K+1}/n_1, for r <= K; an unusable d_r (n_r = 0, r*/r > 1, not finite, <= 3e-6, or, as
    seqlab adds, > 1) is 1. Returns (K, {r: d_r})."""
    k = K if nr[1] > 0 else 0
    while k > 0 and nr[k + 1] == 0:
        k -= 1
    d = {}
    if k > 0:
        common = (k + 1) * nr[k + 1] / nr[1]
        for r in range(1, k + 1):
            if nr[r] == 0:
                d[r] = 1.0
                continue
            coeff0 = (r + 1) * nr[r + 1] / (r * nr[r])
            coeff = (coeff0 - common) / (1 - common) if common != 1 else math.inf
            d[r] = coeff if (math.isfinite(coeff) and PROB_EPSILON < coeff <= 1 and coeff0 <= 1) else 1.0
    return k, d


def katz_ref(counts, K=5):
    """Katz back-off with Good-Turing discounts as SRILM's ngram-count estimates it (NgramLM.cc
    Ngram::estimate2 and computeBOW), written from those rules, as documented in
    cpp/src/lm/ngram_smoothing.cpp: p(w | h) = d_r r / T(h) for a seen h w, with T(h) = c(h) raised by 1
    while the seen words leave less than 3e-6 and h was not followed by every word; back-off weights
    (1 - sum p(w | h)) / (1 - sum p(w | h')), both taken as 0 within 3e-6; a zero denominator with
    mass left rescales the seen n-grams to sum to 1 (weight 1). Unigrams: the left-over mass goes to the
    unseen words, or to all words if there is none. used_k[n] = (K, {r: d_r}), raised[n] = the
    contexts whose denominator was raised."""
    N, V = counts.N, counts.V
    P, B, used_k, raised = {}, {}, {}, {}
    for n in range(1, N + 1):
        c = counts.raw[n]
        nr = Counter(v for v in c.values() if v >= 1)
        k, d = good_turing_ref(nr, min(K, max(nr, default=0)))
        used_k[n] = (k, d)

        def disc(r, d=d):
            return d.get(r, 1.0) * r

        by_ctx = defaultdict(list)
        for g, v in c.items():
            if v > 0:
                by_ctx[g[:-1]].append(g)
        P[n], raised[n] = {}, 0
        for h, gs in by_ctx.items():
            T = sum(c[g] for g in gs)
            if len(gs) < V and sum(disc(c[g]) for g in gs) / T > 1 - PROB_EPSILON:
                raised[n] += 1
                while sum(disc(c[g]) for g in gs) / T > 1 - PROB_EPSILON:
                    T += 1
            for g in gs:
                P[n][g] = disc(c[g]) / T
        if n == 1:
            left = 1 - sum(P[1].values())
            left = 0.0 if left < PROB_EPSILON else left
            unseen = [g for g in c if g != (BOS,) and g not in P[1]]
            for g in unseen:
                P[1][g] = left / len(unseen)
            if not unseen:  # as SRILM's distributeProb: the left-over mass is shared by all words
                everyone = [g for g in c if g != (BOS,)]
                for g in everyone:
                    P[1][g] += left / len(everyone)
            continue
        B[n - 1] = {}
        for h, gs in by_ctx.items():
            num = 1 - sum(P[n][g] for g in gs)
            den = 1 - sum(backoff_prob(P, B, n - 1, g[1:-1], g[-1]) if n > 2 else P[1][g[-1:]] for g in gs)
            num = 0.0 if abs(num) < PROB_EPSILON else num
            den = 0.0 if abs(den) < PROB_EPSILON else den
            if den < PROB_EPSILON and num > PROB_EPSILON:  # nothing to back off to: rescale the seen
                for g in gs:
                    P[n][g] /= 1 - num
                B[n - 1][h] = 1.0
            elif num < 0:
                B[n - 1][h] = 0.0
            elif den <= 0:
                B[n - 1][h] = 1.0
            else:
                B[n - 1][h] = num / den
    B.setdefault(N, {})
    return BackoffRef(counts, P, B, used_k=used_k, raised=raised)


def direct_ref_prob(counts, history, w, k=None):
    """MLE (k=None) or add-k: p(w | h) = (c(h w) [+ k]) / (c(h) [+ k V]); an unseen history
    backs off to a shorter one."""
    N = counts.N
    h = tuple(counts.map_oov(history))[max(0, len(history) - (N - 1)):] if N > 1 else ()
    for n in range(len(h) + 1, 1, -1):
        hh = h[len(h) - (n - 1):]
        ctot = counts.ctx[n].get(hh, 0)
        if ctot == 0:
            continue
        c = counts.raw[n].get(hh + (w,), 0)
        return (c + k) / (ctot + k * counts.V) if k is not None else c / ctot
    c = counts.raw[1][(w,)]
    return (c + k) / (counts.total + k * counts.V) if k is not None else c / counts.total


def compare_tables(lm, ref, tol=1e-5):
    """lm.ngrams(n) against the reference: the same n-grams, counts, log10 p and back-off."""
    for n in range(1, ref.N + 1):
        got = lm.ngrams(n)
        expected_keys = set(ref.P[n]) | ({(BOS,)} if n == 1 else set())
        assert set(got) == expected_keys, f"order {n}: n-gram sets differ: {set(got) ^ expected_keys}"
        for g, (lp, bo, count) in got.items():
            assert count == ref.counts.raw[n][g], f"count of {g}"
            if g == (BOS,):
                assert lp == 0.0
            else:
                assert_log10_close(lp, log10(ref.P[n][g]), tol, f"log10 p{g}")
            expected_bo = log10(ref.B[n].get(g, 1.0)) if n < ref.N else 0.0
            assert_log10_close(bo, expected_bo, tol, f"backoff{g}")


def check_scores(lm, ref, sentences, tol=1e-5):
    for s in sentences:
        toks = s.split()
        for bos in (True, False):
            for eos in (True, False):
                got = lm.full_log10(s, bos=bos, eos=eos)
                exp = ref.sentence_log10(toks, bos, eos)
                assert len(got) == len(exp)
                for i, (g, e) in enumerate(zip(got, exp)):
                    assert_log10_close(float(g), e, tol, f"{s!r} bos={bos} eos={eos} token {i}")
                assert_log10_close(lm.score(s, bos=bos, eos=eos), sum(exp), tol * len(exp), f"score {s!r}")


# ============================================================================ normalisation

def contexts_for(sentences, level, order):
    """Every context that occurs in the corpus (all spans ending anywhere in a sentence), plus
    unseen ones: unknown tokens and unseen combinations."""
    ctxs = set()
    for s in sentences:
        toks = tokens_of(s, level)
        toks = [" " if t == SPACE else t for t in toks]
        for i in range(len(toks) + 1):
            for j in range(max(0, i - order), i + 1):
                ctxs.add(tuple(toks[j:i]))
    if level == "word":
        unseen = [("zzz",), ("zzz", "the"), ("the", "zzz"), ("the", "the", "the"), ("mat", "a", "ran"),
                  ("slept", "slept"), ("log", "cat", "on", "dog"), ("zzz", "yyy", "xxx")]
    else:
        unseen = [("z",), ("z", "a"), ("a", "z"), ("c", "c", "c"), ("d", "d", " ", " "), ("b", "a", "b", "b"),
                  (" ", " ")]
    return sorted(ctxs) + unseen


@pytest.mark.parametrize("level", ["word", "char"])
@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("smoothing", SMOOTHINGS)
def test_next_probs_sum_to_one(smoothing, order, level):
    corpus = SMALL_WORD if level == "word" else SMALL_CHAR
    lm = fit(corpus, order, smoothing, level)
    V = len(lm.vocab)
    assert lm.vocab[:3] == [UNK, BOS, EOS]
    for ctx in contexts_for(corpus, level, order):
        for bos in (True, False):
            p = lm.next_probs(list(ctx), bos=bos)
            assert p.shape == (V,)
            assert p[1] == 0.0, "p(<s>) must be 0"
            assert np.all(p >= 0)
            assert abs(p.sum() - 1.0) < 1e-5, f"{smoothing} order {order} context {ctx} bos={bos}: sum {p.sum()}"


@pytest.mark.parametrize("order", [1, 2, 3])
def test_mle_next_probs_are_relative_frequencies(order):
    """MLE: after a seen history, p = c(h w)/c(h) and an unseen continuation gets exactly 0;
    an unseen history backs off to a shorter one."""
    lm = fit(SMALL_WORD, order, "mle")
    counts = Counts(SMALL_WORD, order)
    for ctx in contexts_for(SMALL_WORD, "word", order):
        for bos in (True, False):
            hist = ([BOS] if bos else []) + list(ctx)
            p = lm.next_probs(list(ctx), bos=bos)
            for i, w in enumerate(lm.vocab):
                if w == BOS:
                    continue
                assert abs(p[i] - direct_ref_prob(counts, hist, w)) < 1e-6, (ctx, bos, w)
    if order >= 2:
        p = lm.next_probs(["cat"], bos=False)  # 'cat' is followed by sat, and, ran only
        assert p[lm.vocab.index("mat")] == 0.0
        assert p[lm.vocab.index("sat")] > 0


# ============================================================================ hand computations

# The corpus "the cat sat" / "the dog sat" / "the cat ran". Bigram counts, with <s> and </s>:
#   c(<s> the) = 3; c(the cat) = 2, c(the dog) = 1; c(cat sat) = 1, c(cat ran) = 1;
#   c(dog sat) = 1; c(sat </s>) = 2; c(ran </s>) = 1.
#   context counts c(<s>) = 3, c(the) = 3, c(cat) = 2, c(dog) = 1, c(sat) = 2, c(ran) = 1.
# Unigrams (predicted tokens): the 3, cat 2, dog 1, sat 2, ran 1, </s> 3: 12 tokens.
# V (vocabulary without <s>) = {the, cat, sat, dog, ran, </s>, <unk>} = 7.

def test_perplexity_mle_bigram_by_hand():
    lm = fit(TOY, 2, "mle")
    test = ["the cat sat", "the dog sat"]
    # the cat sat </s>: 3/3 * 2/3 * 1/2 * 2/2 = 1/3 ; the dog sat </s>: 3/3 * 1/3 * 1/1 * 2/2 = 1/3
    s1 = Fraction(3, 3) * Fraction(2, 3) * Fraction(1, 2) * Fraction(2, 2)
    s2 = Fraction(3, 3) * Fraction(1, 3) * Fraction(1, 1) * Fraction(2, 2)
    assert s1 == Fraction(1, 3) and s2 == Fraction(1, 3)
    T = 3 + 1 + 3 + 1
    log10p = math.log10(s1) + math.log10(s2)
    expected_ppl = 10 ** (-log10p / T)
    assert expected_ppl == pytest.approx(9 ** (1 / 8), rel=1e-12)
    assert lm.perplexity(test) == pytest.approx(expected_ppl, rel=1e-6)
    assert lm.score("the cat sat") == pytest.approx(math.log10(1 / 3), abs=1e-6)
    ev = lm.evaluate(test)
    assert ev["tokens"] == 8 and ev["sentences"] == 2 and ev["oov"] == 0
    bits = -math.log2(s1 * s2)
    assert ev["log10_prob"] == pytest.approx(log10p, abs=1e-6)
    assert ev["entropy"] == pytest.approx(bits / 8, rel=1e-6)
    chars = len("the cat sat") + len("the dog sat") + 2  # one newline per sentence
    assert ev["characters"] == chars
    assert ev["bits_per_char"] == pytest.approx(bits / chars, rel=1e-6)
    assert lm.cross_entropy(test) == pytest.approx(bits / 8, rel=1e-6)
    # a single string is one sentence (kenlm.Model.perplexity): 10 ** (-log10(1/3) / 4)
    assert lm.perplexity("the cat sat") == pytest.approx(3 ** (1 / 4), rel=1e-6)
    assert lm.bits_per_char(test) == pytest.approx(bits / chars, rel=1e-6)
    # An unseen continuation after a seen history: probability 0, perplexity infinite.
    assert lm.score("the dog ran") == -math.inf
    # Unigram MLE: p(w) = c(w) / 12.
    uni = fit(TOY, 1, "mle")
    p = Fraction(3, 12) * Fraction(2, 12) * Fraction(2, 12) * Fraction(3, 12)
    assert uni.score("the cat sat") == pytest.approx(math.log10(p), abs=1e-6)


def test_perplexity_add_one_bigram_by_hand():
    lm = fit(TOY, 2, "add_k", k=1.0)
    V = 7
    # "the cat ran": (3+1)/(3+7) (1... <s> the), (2+1)/(3+7) the cat, (1+1)/(2+7) cat ran, (1+1)/(1+7) ran </s>
    s1 = Fraction(3 + 1, 3 + V) * Fraction(2 + 1, 3 + V) * Fraction(1 + 1, 2 + V) * Fraction(1 + 1, 1 + V)
    # "the bird sat": bird is <unk>: (0+1)/(3+7) after 'the'; <unk> was never a history, so
    # p(sat | <unk>) backs off to the add-1 unigram (2+1)/(12+7); then (2+1)/(2+7) sat </s>
    s2 = Fraction(3 + 1, 3 + V) * Fraction(0 + 1, 3 + V) * Fraction(2 + 1, 12 + V) * Fraction(2 + 1, 2 + V)
    # "dog dog": <s> dog (0+1)/(3+7), dog dog (0+1)/(1+7), dog </s> (0+1)/(1+7)
    s3 = Fraction(0 + 1, 3 + V) * Fraction(0 + 1, 1 + V) * Fraction(0 + 1, 1 + V)
    test = ["the cat ran", "the bird sat", "dog dog"]
    T = 4 + 4 + 3
    total = math.log10(s1) + math.log10(s2) + math.log10(s3)
    for s, f in zip(test, (s1, s2, s3)):
        assert lm.score(s) == pytest.approx(math.log10(f), abs=1e-6), s
    ev = lm.evaluate(test)
    assert ev["tokens"] == T and ev["sentences"] == 3 and ev["oov"] == 1
    assert ev["perplexity"] == pytest.approx(10 ** (-total / T), rel=1e-6)
    bits = -total * math.log2(10)
    assert ev["entropy"] == pytest.approx(bits / T, rel=1e-6)
    chars = sum(len(s) for s in test) + 3
    assert ev["characters"] == chars
    assert ev["bits_per_char"] == pytest.approx(bits / chars, rel=1e-6)
    # without eos: no </s> tokens and no newlines
    ev2 = lm.evaluate(test, eos=False)
    total2 = total - math.log10(Fraction(2, 8) * Fraction(3, 9) * Fraction(1, 8))
    assert ev2["tokens"] == T - 3
    assert ev2["perplexity"] == pytest.approx(10 ** (-total2 / (T - 3)), rel=1e-6)
    assert ev2["characters"] == chars - 3
    # add-k with k = 0.5: p(cat | the) = (2 + .5)/(3 + .5 * 7)
    half = fit(TOY, 2, "add_k", k=0.5)
    assert half.log_prob("cat", ["the"]) == pytest.approx(math.log(2.5 / 6.5), abs=1e-6)


def test_evaluate_char_level_by_hand():
    # character MLE unigram on "ab" / "a": predicted tokens a a b </s> </s> -> a 2/5, b 1/5, </s> 2/5
    lm = fit(["ab", "a"], 1, "mle", level="char")
    ev = lm.evaluate(["ba"])
    p = Fraction(1, 5) * Fraction(2, 5) * Fraction(2, 5)
    assert ev["tokens"] == 3 and ev["characters"] == 3
    assert ev["perplexity"] == pytest.approx(float(p) ** (-1 / 3), rel=1e-6)
    assert ev["bits_per_char"] == pytest.approx(-math.log2(p) / 3, rel=1e-6)


# ============================================================================ reference comparisons

MEDIUM = zipf_markov_text(seed=1234, n_sentences=400, vocab_size=300)
MEDIUM_TEST = zipf_markov_text(seed=99, n_sentences=30, vocab_size=300) + ["w0 unknownword w1", "w299 w299 w299 w299", "w5"]


def test_medium_corpus_is_what_the_reference_tests_need():
    counts = Counts(MEDIUM, 3)
    assert 3000 <= counts.total <= 10000
    kn = kneser_ney_ref(counts)
    assert kn.fell_back == [], "the medium corpus must estimate KN discounts at every order"
    katz = katz_ref(counts, 5)
    assert katz.used_k[1][0] == 5 and katz.used_k[2][0] == 5, katz.used_k


@pytest.mark.parametrize("order", [1, 2, 3])
def test_kneser_ney_matches_reference_estimated_discounts(order):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the discounts are estimated: no warning
        lm = NGram(order, "kneser_ney").fit(MEDIUM)
    ref = kneser_ney_ref(Counts(MEDIUM, order))
    assert ref.fell_back == []
    for n, d in enumerate(lm.discounts, start=1):
        D, t = ref.discounts[n]
        assert d["fallback"] is False
        assert list(d["counts_of_counts"]) == t
        assert d["D1"] == pytest.approx(D[0], abs=1e-6)
        assert d["D2"] == pytest.approx(D[1], abs=1e-6)
        assert d["D3+"] == pytest.approx(D[2], abs=1e-6)
    compare_tables(lm, ref)
    check_scores(lm, ref, MEDIUM_TEST)


def test_kneser_ney_matches_reference_above_65536_words():
    """The counter keeps each position's token in 2 bytes up to 65536 words and in 4 above:
    a vocabulary of 66000 words (each seen once, after a frequent one) counts as the reference."""
    r = random.Random(7)
    rare = [f"r{i}" for i in range(66000)]
    common = [f"c{i}" for i in range(30)]
    sentences = [" ".join([r.choice(common), *rare[i:i + 10]]) for i in range(0, len(rare), 10)]
    lm = fit(sentences, 3)
    assert len(lm.vocab) > 65536
    compare_tables(lm, kneser_ney_ref(Counts(sentences, 3)))


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5])
def test_kneser_ney_matches_reference_with_fallback(order):
    """The tiny corpus of docs/kenlm-lmplz.md: discounts cannot be estimated; KenLM's
    --discount_fallback values are used, with a RuntimeWarning per failing order."""
    ref = kneser_ney_ref(Counts(TOY, order))
    # By hand: the unigrams' adjusted counts (distinct left words) are the 1, cat 1, dog 1, ran 1,
    # sat 2, </s> 2: t3 = 0, so every model of order >= 2 falls back at order 1.
    assert (1 in ref.fell_back) == (order >= 2)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        lm = NGram(order, "kneser_ney").fit(TOY)
    warned = sorted(int(str(w.message).split("order ")[1].split()[0]) for w in rec
                    if issubclass(w.category, RuntimeWarning) and "Kneser-Ney discounts" in str(w.message))
    assert warned == ref.fell_back
    for n, d in enumerate(lm.discounts, start=1):
        assert d["fallback"] is (n in ref.fell_back)
        if n in ref.fell_back:
            assert (d["D1"], d["D2"], d["D3+"]) == (0.5, 1.0, 1.5)
    compare_tables(lm, ref)
    check_scores(lm, ref, ["the cat sat", "the dog ran", "a cat", "sat sat the", "ran"])


def test_kneser_ney_custom_fallback_and_hand_values():
    with pytest.warns(RuntimeWarning):
        lm = NGram(2, "kneser_ney", discount_fallback=(0.25, 0.75, 1.25)).fit(TOY)
    ref = kneser_ney_ref(Counts(TOY, 2), fallback=(0.25, 0.75, 1.25))
    compare_tables(lm, ref)
    # By hand, the unigrams (fallback D = .5, 1, 1.5): adjusted counts (distinct left words)
    # the 1 (<s>), cat 1, dog 1, sat 2 (cat, dog), ran 1, </s> 2 (sat, ran): sum 8,
    # N1 = 4, N2 = 2 -> gamma = (.5*4 + 1*2)/8 = 1/2; p(the) = (1 - .5)/8 + 1/2 * 1/7.
    with pytest.warns(RuntimeWarning, match="order 1"):
        lm2 = NGram(2, "kneser_ney").fit(TOY)
    d1, d2 = lm2.discounts
    assert d1["fallback"] and (d1["D1"], d1["D2"], d1["D3+"]) == (0.5, 1.0, 1.5)
    # Bigrams (the top order: raw counts): <s> the 3, the cat 2, sat </s> 2, and 5 singletons:
    # t = 5, 2, 1, 0 -> Y = 5/9, D1 = 1 - 2 Y 2/5 = 5/9, D2 = 2 - 3 Y 1/2 = 7/6, D3+ = 3 - 0 = 3.
    assert not d2["fallback"] and list(d2["counts_of_counts"]) == [5, 2, 1, 0]
    assert d2["D1"] == pytest.approx(5 / 9) and d2["D2"] == pytest.approx(7 / 6) and d2["D3+"] == pytest.approx(3)
    uni = lm2.ngrams(1)
    assert uni[("the",)][0] == pytest.approx(math.log10(0.5 / 8 + 0.5 / 7), abs=1e-6)
    assert uni[("sat",)][0] == pytest.approx(math.log10(1.0 / 8 + 0.5 / 7), abs=1e-6)
    assert uni[(UNK,)][0] == pytest.approx(math.log10(0.5 / 7), abs=1e-6)
    # p(cat | the): the's continuations cat 2, dog 1 (total 3); gamma(the) = (D1 + D2)/3 = 31/54;
    # p = (2 - D2)/3 + 31/54 p(cat) = 5/18 + 31/54 p(cat)
    p_cat = 0.5 / 8 + 0.5 / 7
    assert lm2.ngrams(2)[("the", "cat")][0] == pytest.approx(math.log10(5 / 18 + 31 / 54 * p_cat), abs=1e-6)
    assert uni[("the",)][1] == pytest.approx(math.log10(31 / 54), abs=1e-6)


def check_katz_discounts(lm, ref):
    """lm.discounts (Katz's per order) against the reference's K, d_r and raised contexts."""
    assert len(lm.discounts) == ref.N
    for n, got in enumerate(lm.discounts, start=1):
        k, d = ref.used_k[n]
        assert got["K"] == k, (n, got, ref.used_k[n])
        assert got["d"] == pytest.approx([d[r] for r in range(1, k + 1)], abs=1e-12)
        nr = Counter(v for v in ref.counts.raw[n].values() if v >= 1)
        assert got["counts_of_counts"][:k + 1] == [nr[r] for r in range(1, k + 2)]
        assert got["raised_contexts"] == ref.raised[n], (n, got["raised_contexts"], ref.raised[n])


@pytest.mark.parametrize("order", [1, 2, 3])
def test_katz_matches_reference(order):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # order 3 may lower K
        lm = NGram(order, "katz").fit(MEDIUM)
    ref = katz_ref(Counts(MEDIUM, order), 5)
    compare_tables(lm, ref)
    check_scores(lm, ref, MEDIUM_TEST)
    check_katz_discounts(lm, ref)


def test_katz_uses_good_turing_at_k5_without_warning_on_medium_bigrams():
    """The medium bigrams' counts of counts fall with r (2418, 261, 84, 26, 14, 10): Good-Turing at K = 5,
    every d_r in (0, 1), no warning about order 2. Its unigrams' rise (1, 6, 9, 15, 23, 26: a 300-word
    vocabulary, each word frequent), so r*/r > 1 for every r and, as SRILM does, no count is discounted."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", RuntimeWarning)
        lm = NGram(2, "katz").fit(MEDIUM)
    assert [str(w.message) for w in rec] == ["NGram.fit: Katz: Good-Turing discounts for order 1: the coefficient of "
                                             "count 1, 2, 3, 4, 5 is out of range (n_r = 0, r*/r > 1, or d_r outside "
                                             "(0, 1]), so those counts are not discounted, as in SRILM"]
    uni, bi = lm.discounts
    assert uni["K"] == 5 and uni["d"] == [1.0] * 5 and uni["raised_contexts"] == 1  # the unigrams' T + 1
    assert bi["K"] == 5 and bi["counts_of_counts"] == [2418, 261, 84, 26, 14, 10]
    assert all(0 < d < 1 for d in bi["d"]), bi


@pytest.mark.parametrize("katz_k", [1, 2, 3])
def test_katz_matches_reference_smaller_k(katz_k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lm = NGram(3, "katz", katz_k=katz_k).fit(MEDIUM)
    ref = katz_ref(Counts(MEDIUM, 3), katz_k)
    compare_tables(lm, ref)
    check_scores(lm, ref, MEDIUM_TEST[:10])
    check_katz_discounts(lm, ref)


def test_katz_on_a_tiny_corpus_follows_srilm():
    """Sparse counts of counts: K is lowered where n_{K+1} = 0 and unusable coefficients are 1, with a
    warning; every context still leaves mass for unseen words (SRILM's denominator + 1)."""
    ref = katz_ref(Counts(SMALL_WORD, 3), 5)
    assert any(k < 5 for k, _ in ref.used_k.values())
    assert sum(ref.raised.values()) > 0
    with pytest.warns(RuntimeWarning, match="Katz"):
        lm = NGram(3, "katz").fit(SMALL_WORD)
    compare_tables(lm, ref)
    check_scores(lm, ref, SMALL_WORD[:3] + ["the zzz sat", "log log"])
    check_katz_discounts(lm, ref)
    for ctx in ([], ["the"], ["on", "the"], ["zzz"], ["the", "mat"]):
        p = lm.next_probs(ctx)
        assert abs(p.sum() - 1) < 1e-5
        assert (np.delete(p, 1) > 0).all(), ctx  # every token but <s> has p > 0


def test_katz_good_turing_by_hand():
    """Unigram Katz with K = 1 by hand. Corpus 'a a b' / 'c': predicted tokens a 2, b 1, </s> 2, c 1
    (6 in all); n1 = 2 (b, c), n2 = 2 (a, </s>). r*(1) = 2 n2/n1 = 2, so r*/1 > 1: the coefficient is out
    of range and, as in SRILM, count 1 is not discounted (with K = 1, d_1 = (r*(1) - 2 n2/n1) / (1 - 2 n2/n1)
    is 0 for any corpus). No mass is left for <unk>, the one unseen word, so the denominator is raised
    from 6 to 7: p(a) = 2/7, p(b) = 1/7, and the left-over 1/7 goes to <unk>."""
    with pytest.warns(RuntimeWarning, match="Katz: Good-Turing discounts for order 1: the coefficient of count 1"):
        lm = NGram(1, "katz", katz_k=1).fit(["a a b", "c"])
    u = lm.ngrams(1)
    assert u[("a",)][0] == pytest.approx(math.log10(2 / 7), abs=1e-6)
    assert u[("b",)][0] == pytest.approx(math.log10(1 / 7), abs=1e-6)
    assert u[("</s>",)][0] == pytest.approx(math.log10(2 / 7), abs=1e-6)
    assert u[(UNK,)][0] == pytest.approx(math.log10(1 / 7), abs=1e-6)
    assert lm.discounts == [{"K": 1, "counts_of_counts": [2, 2], "d": [1.0], "raised_contexts": 1}]
    # With K = 2, n3 = 0 lowers K to 1 (SRILM's gtmax): the same model.
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", RuntimeWarning)
        lm2 = NGram(1, "katz", katz_k=2).fit(["a a b", "c"])
    messages = [str(w.message) for w in rec]
    assert len(messages) == 2 and "use counts up to 1 instead of 2 (n_r = 0 for r = 3..3" in messages[0], messages
    assert "the coefficient of count 1 is out of range" in messages[1], messages
    assert lm2.ngrams(1) == u
    assert ("<s>",) in u and u[("<s>",)][0] == 0.0


def test_katz_history_seen_only_with_counts_above_k_keeps_mass_by_hand():
    """The case that made Katz's perplexity infinite on the KJV (in training "forefront" is followed
    only by "of", 9 times; a held-out verse has "forefront ,"): a history whose every continuation was
    seen more than K times. Its counts are not
    discounted, so they took all the mass (p(y | x) = 1, back-off weight 0) and a word never seen
    after it got probability 0. SRILM raises the history's denominator by 1 instead.

    Bigrams, K = 2, corpus 'p x y q' / 'r x y s' / 't x y u' / 'v w' / 'v w'. Bigram counts: x y 3,
    <s> v, v w, w </s> 2, and 12 singletons: n1 = 12, n2 = 3, n3 = 1, C = 3 n3/n1 = 1/4,
    d_1 = (2 n2/n1 - C)/(1 - C) = 1/3, d_2 = (3 n3/(2 n2) - C)/(1 - C) = 1/3.
    Unigrams (21 tokens): p r t q s u 1, v w 2, x y 3, </s> 5: n1 = 6, n2 = 2, n3 = 2, C = 3 n3/n1 = 1,
    so every coefficient is unusable (1 - C = 0) and none is discounted; <unk> is unseen, so the
    denominator is 22: p(w) = c(w)/22, p(<unk>) = 1/22.
    History x: y 3 > K, so p(y | x) = 3/3 would leave nothing; the denominator becomes 4: p(y | x) = 3/4,
    bow(x) = (1 - 3/4) / (1 - p(y)) = (1/4) / (19/22) = 11/38, and p(q | x) = bow(x) p(q) = 1/76.
    History <s>: p, r, t 1, v 2, each discounted by 1/3: p(p | <s>) = (1/3)/5, p(v | <s>) = (2/3)/5, the
    seen take 1/3, bow(<s>) = (2/3) / (1 - 5/22) = 44/51, so p(x | <s>) = 44/51 * 3/22 = 2/17.
    History q: </s> 1, discounted: p(</s> | q) = 1/3."""
    corpus = ["p x y q", "r x y s", "t x y u", "v w", "v w"]
    with pytest.warns(RuntimeWarning, match="Katz"):
        lm = NGram(2, "katz", katz_k=2).fit(corpus)
    uni, bi = lm.discounts
    assert uni == {"K": 2, "counts_of_counts": [6, 2, 2], "d": [1.0, 1.0], "raised_contexts": 1}
    assert bi["K"] == 2 and bi["counts_of_counts"] == [12, 3, 1] and bi["raised_contexts"] == 1
    assert bi["d"] == pytest.approx([1 / 3, 1 / 3], abs=1e-12)
    u, b = lm.ngrams(1), lm.ngrams(2)
    assert u[("y",)][0] == pytest.approx(math.log10(3 / 22), abs=1e-6)
    assert u[(UNK,)][0] == pytest.approx(math.log10(1 / 22), abs=1e-6)
    assert b[("x", "y")][0] == pytest.approx(math.log10(3 / 4), abs=1e-6)
    assert u[("x",)][1] == pytest.approx(math.log10(11 / 38), abs=1e-6)  # bow(x), finite
    assert lm.log_prob("q", ["x"]) == pytest.approx(math.log(1 / 76), abs=1e-5)
    expected = [math.log10(2 / 17), math.log10(1 / 76), math.log10(1 / 3)]
    assert lm.full_log10("x q") == pytest.approx(expected, abs=1e-6)
    assert math.isfinite(lm.perplexity(["x q", "x v w", "y y"]))
    compare_tables(lm, katz_ref(Counts(corpus, 2), 2))


def test_katz_gives_every_word_mass_after_every_history():
    """On the medium corpus every history of a trigram Katz model leaves mass for the words never
    seen after it: p(w | h) > 0 for every token w but <s>, so held-out perplexity is finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lm = NGram(3, "katz").fit(MEDIUM)
    assert sum(d["raised_contexts"] for d in lm.discounts) > 0  # some histories needed SRILM's rule
    for h in list(lm.ngrams(2))[:400] + [(w,) for w, in list(lm.ngrams(1))[:100]]:
        p = lm.next_probs(list(h), bos=False)
        assert (np.delete(p, 1) > 0).all(), h
        assert abs(p.sum() - 1) < 1e-5, h
    assert math.isfinite(lm.perplexity(MEDIUM_TEST))


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("corpus", ["toy", "medium"])
def test_witten_bell_matches_reference(order, corpus):
    sents = TOY if corpus == "toy" else MEDIUM
    lm = fit(sents, order, "witten_bell")
    ref = witten_bell_ref(Counts(sents, order))
    compare_tables(lm, ref)
    check_scores(lm, ref, (["the cat sat", "the dog ran", "zzz the"] if corpus == "toy" else MEDIUM_TEST[:12]))


def test_witten_bell_by_hand():
    # unigrams of TOY: 12 tokens, 6 types -> gamma = 6/18; p(the) = (3 + 6/7) / 18
    lm = fit(TOY, 1, "witten_bell")
    assert lm.ngrams(1)[("the",)][0] == pytest.approx(math.log10((3 + 6 / 7) / 18), abs=1e-6)
    assert lm.ngrams(1)[(UNK,)][0] == pytest.approx(math.log10((6 / 7) / 18), abs=1e-6)


ODD_WORD = ["a b", "", "c a", "a <unk> b", "b b b b b"]  # an empty sentence, a literal <unk>


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("smoothing", ["kneser_ney", "witten_bell", "katz"])
@pytest.mark.parametrize("corpus", ["char", "odd"])
def test_backoff_models_match_reference_on_char_and_odd_corpora(corpus, smoothing, order):
    sents, level = (SMALL_CHAR, "char") if corpus == "char" else (ODD_WORD, "word")
    make = {"kneser_ney": kneser_ney_ref, "witten_bell": witten_bell_ref, "katz": katz_ref}[smoothing]
    lm = fit(sents, order, smoothing, level)
    ref = make(Counts(sents, order, level))
    compare_tables(lm, ref)
    for ctx in contexts_for(sents, level, order):  # a literal <unk> leaves no unigram unseen
        for bos in (True, False):
            p = lm.next_probs(list(ctx), bos=bos)
            assert abs(p.sum() - 1.0) < 1e-5, f"{smoothing} order {order} context {ctx} bos={bos}: sum {p.sum()}"
    tests = (["abba", "cab dab", "zz", ""] if level == "char" else ["a b", "", "q a b", "<unk> b", "b b b"])
    for s in tests:
        for bos in (True, False):
            exp = ref.sentence_log10(tokens_of(s, level), bos, True)
            got = lm.full_log10(s, bos=bos)
            assert len(got) == len(exp)
            for g, e in zip(got, exp):
                assert_log10_close(float(g), e, 1e-5, f"{s!r}")


@pytest.mark.parametrize("smoothing,k", [("mle", None), ("add_k", 1.0), ("add_k", 0.1)])
@pytest.mark.parametrize("order", [1, 2, 3])
def test_mle_add_k_scores_match_reference(smoothing, k, order):
    lm = fit(SMALL_WORD, order, smoothing, **({} if k is None else {"k": k}))
    counts = Counts(SMALL_WORD, order)
    for s in SMALL_WORD + ["the zzz sat on", "mat mat", "on the log"]:
        toks = s.split()
        for bos in (True, False):
            hist = [BOS] if bos else []
            got = lm.full_log10(s, bos=bos)
            for i, w in enumerate(counts.map_oov(toks) + [EOS]):
                assert_log10_close(float(got[i]), log10(direct_ref_prob(counts, hist, w, k)), 1e-6, f"{s} {i}")
                hist.append(w)


# ============================================================================ ARPA files

ARPA_SMOOTHINGS = ("kneser_ney", "katz", "witten_bell", "mle")
ROUNDTRIP_TEST = ["the cat sat on the mat", "a dog slept", "zzz on the log", "the the the", "mat"]


@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("smoothing", ARPA_SMOOTHINGS)
def test_arpa_round_trip_is_exact(tmp_path, smoothing, order):
    lm = fit(SMALL_WORD, order, smoothing)
    p1 = tmp_path / "a.arpa"
    lm.save_arpa(p1)
    text = p1.read_bytes()
    assert text.startswith(b"\\data\\\n") and text.rstrip().endswith(b"\\end\\")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the file has <unk>: no warning
        back = NGram.load_arpa(p1)
    assert back.order == order
    assert back.vocab[:3] == [UNK, BOS, EOS]
    assert set(back.vocab) == set(lm.vocab)
    for n in range(1, order + 1):
        a = {g: v[:2] for g, v in lm.ngrams(n).items()}
        b = {g: v[:2] for g, v in back.ngrams(n).items()}
        assert a == b, f"order {n}"
    if smoothing == "mle" and order > 1:
        # MLE back-off weights are log10 0 = -inf, written as -99
        assert b"\t-99\n" in text
        assert any(v[1] == -math.inf for v in back.ngrams(order - 1).values())
    for s in ROUNDTRIP_TEST + SMALL_WORD:
        for bos in (True, False):
            for eos in (True, False):
                x = lm.full_log10(s, bos, eos)
                y = back.full_log10(s, bos, eos)
                if smoothing == "mle":
                    # MLE scores from the counts in double precision; the file holds floats
                    np.testing.assert_allclose(y, x, rtol=1e-6, atol=1e-6)
                    assert np.array_equal(np.isinf(x), np.isinf(y))
                else:
                    assert np.array_equal(x, y), (s, bos, eos, x, y)
    for ctx in ([], ["the"], ["on", "the"], ["zzz"]):
        np.testing.assert_allclose(back.next_probs(ctx), lm.next_probs(ctx), rtol=1e-6, atol=1e-9)
    p2 = tmp_path / "b.arpa"
    back.save_arpa(p2)
    assert p2.read_bytes() == text
    lm.save_arpa(str(tmp_path / "c.arpa"))
    assert (tmp_path / "c.arpa").read_bytes() == text


def test_add_k_cannot_be_saved_as_arpa(tmp_path):
    lm = fit(TOY, 2, "add_k")
    with pytest.raises(ValueError, match="add-k"):
        lm.save_arpa(tmp_path / "x.arpa")
    assert not (tmp_path / "x.arpa").exists()


@pytest.mark.parametrize("smoothing", ARPA_SMOOTHINGS)
def test_char_level_arpa_spells_space(tmp_path, smoothing):
    lm = fit(SMALL_CHAR, 3, smoothing, level="char")
    assert SPACE in lm.vocab and " " not in lm.vocab
    path = tmp_path / "c.arpa"
    lm.save_arpa(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    fields = [l.split("\t") for l in lines if l.count("\t") >= 1]
    assert [SPACE] in [f[1].split(" ") for f in fields]            # the unigram
    assert ["a", SPACE] in [f[1].split(" ") for f in fields]       # the bigram "a "
    assert all(" " not in f[1].replace(" ", "") and "  " not in f[1] for f in fields)
    back = NGram.load_arpa(path, level="char")
    assert back.level == "char"
    for s in SMALL_CHAR + ["ab ba", "zz a", " "]:
        x, y = lm.full_log10(s), back.full_log10(s)
        if smoothing == "mle":
            np.testing.assert_allclose(y, x, rtol=1e-6, atol=1e-6)
        else:
            assert np.array_equal(x, y), s
        assert back.score(s) == pytest.approx(lm.score(s), abs=1e-5)
    d = back.next_token_distribution(["a"])
    assert " " in [t for t, _ in d]


ARPA_OK = """\\data\\
ngram 1=5
ngram 2=3

\\1-grams:
-1.0\t<unk>\t0
0\t<s>\t-0.3
-0.5\t</s>\t0
-0.7\ta\t-0.2
-0.8\tb\t-0.1

\\2-grams:
-0.2\t<s> a
-0.3\ta b
-0.1\tb </s>

\\end\\
"""


def test_load_hand_written_arpa_scores_by_backoff_rule(tmp_path):
    path = tmp_path / "hand.arpa"
    path.write_text(ARPA_OK)
    lm = NGram.load_arpa(path)
    assert lm.order == 2 and lm.vocab == [UNK, BOS, EOS, "a", "b"]
    # <s> a b </s>: -0.2 (<s> a) + -0.3 (a b) + -0.1 (b </s>)
    assert lm.score("a b") == pytest.approx(-0.6, abs=1e-6)
    # <s> b a </s>: bow(<s>) + p(b) = -0.3 - 0.8 ; bow(b) + p(a) = -0.1 - 0.7 ; bow(a) + p(</s>) = -0.2 - 0.5
    assert lm.full_log10("b a") == pytest.approx([-1.1, -0.8, -0.7], abs=1e-6)
    assert lm.full_scores("b a") == [(pytest.approx(-1.1, abs=1e-6), 1, False),
                                     (pytest.approx(-0.8, abs=1e-6), 1, False),
                                     (pytest.approx(-0.7, abs=1e-6), 1, False)]
    # an OOV word is <unk>: bow(a) + p(<unk>) = -0.2 - 1.0
    assert lm.full_scores("a q", eos=False)[1] == (pytest.approx(-1.2, abs=1e-6), 1, True)


def _bad_arpa_cases():
    lines = ARPA_OK.splitlines(keepends=True)
    text = ARPA_OK
    return {
        "wrong count": (text.replace("ngram 2=3", "ngram 2=4"), "ngram 2=4"),
        "missing end": (text.replace("\\end\\\n", ""), "end"),
        "truncated": ("".join(lines[:12]), None),
        "non-numeric probability": (text.replace("-0.3\ta b", "abc\ta b"), "abc"),
        "non-numeric backoff": (text.replace("-0.7\ta\t-0.2", "-0.7\ta\tx1"), "x1"),
        "word missing from unigrams": (text.replace("-0.3\ta b", "-0.3\ta c"), "'c'"),
        "duplicate n-gram": (text.replace("-0.1\tb </s>", "-0.1\tb </s>\n-0.1\ta b").replace("ngram 2=3", "ngram 2=4"),
                             "duplicate"),
        "duplicate unigram": (text.replace("-0.8\tb\t-0.1", "-0.8\tb\t-0.1\n-0.8\tb\t-0.1").replace(
            "ngram 1=5", "ngram 1=6"), "duplicate"),
        "not an ARPA file": ("hello world\nthis is text\n", "ARPA"),
        "empty file": ("", None),
        "wrong field count": (text.replace("-0.3\ta b", "-0.3\ta b c d"), None),
        "bad count line": (text.replace("ngram 2=3", "ngram 2=three"), None),
        "missing section": (text.replace("\\2-grams:", "\\3-grams:"), None),
    }


@pytest.mark.parametrize("case", list(_bad_arpa_cases()))
def test_malformed_arpa_raises_value_error_naming_file_and_line(tmp_path, case):
    content, fragment = _bad_arpa_cases()[case]
    path = tmp_path / "bad_model.arpa"
    path.write_text(content)
    with pytest.raises(ValueError) as info:
        NGram.load_arpa(path)
    msg = str(info.value)
    assert "bad_model.arpa" in msg, msg
    assert "line" in msg, msg
    if fragment is not None:
        assert fragment.lower() in msg.lower(), msg


def test_malformed_arpa_line_numbers(tmp_path):
    path = tmp_path / "m.arpa"
    path.write_text(ARPA_OK.replace("-0.3\ta b", "abc\ta b"))  # line 14 of the file
    with pytest.raises(ValueError, match=r"line 14\b"):
        NGram.load_arpa(path)
    path.write_text(ARPA_OK.replace("-0.3\ta b", "-0.3\ta c"))
    with pytest.raises(ValueError, match=r"line 14\b"):
        NGram.load_arpa(path)


@pytest.mark.parametrize("value", ["nan", "NaN", "-nan"])
def test_arpa_nan_probability_is_rejected(tmp_path, value):
    """A log10 probability of NaN is not a number: the file is malformed (otherwise every score
    through that n-gram is silently NaN)."""
    path = tmp_path / "nan_model.arpa"
    path.write_text(ARPA_OK.replace("-0.3\ta b", f"{value}\ta b"))  # line 14
    with pytest.raises(ValueError, match=r"nan_model\.arpa.*line 14"):
        NGram.load_arpa(path)


def test_load_arpa_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.arpa"):
        NGram.load_arpa(tmp_path / "nope.arpa")
    with pytest.raises(FileNotFoundError):
        NGram.load_arpa(str(tmp_path / "nope.arpa"))


def test_arpa_without_unk_warns(tmp_path):
    path = tmp_path / "nounk.arpa"
    path.write_text(ARPA_OK.replace("-1.0\t<unk>\t0\n", "").replace("ngram 1=5", "ngram 1=4"))
    with pytest.warns(RuntimeWarning, match="<unk>"):
        lm = NGram.load_arpa(path)
    assert lm.score("a b") == pytest.approx(-0.6, abs=1e-6)


# ============================================================================ interpolation

def test_interpolation_per_token_and_perplexity():
    m1 = fit(MEDIUM, 3, "kneser_ney")
    m2 = fit(MEDIUM, 1, "witten_bell")
    heldout = MEDIUM_TEST
    for lam in (0.0, 0.3, 0.5, 0.9, 1.0):
        mix = interpolate(m1, m2, lam)
        assert isinstance(mix, Interpolated)
        for s in heldout[:10]:
            a, b = m1.full_log10(s), m2.full_log10(s)
            expected = [math.log10(lam * 10 ** x + (1 - lam) * 10 ** y) for x, y in zip(a, b)]
            np.testing.assert_allclose(mix.full_log10(s), expected, atol=1e-9)
            assert mix.score(s) == pytest.approx(sum(expected), abs=1e-8)
        ev = mix.evaluate(heldout)
        T = sum(len(s.split()) + 1 for s in heldout)
        total = sum(math.log10(lam * 10 ** x + (1 - lam) * 10 ** y)
                    for s in heldout for x, y in zip(m1.full_log10(s), m2.full_log10(s)))
        assert ev["tokens"] == T
        assert ev["perplexity"] == pytest.approx(10 ** (-total / T), rel=1e-9)
        assert ev["entropy"] == pytest.approx(-total * math.log2(10) / T, rel=1e-9)
        # log of a mixture >= mixture of logs: ppl(mix) <= ppl1^lam ppl2^(1-lam) <= max
        p1, p2 = m1.perplexity(heldout), m2.perplexity(heldout)
        assert ev["perplexity"] <= p1 ** lam * p2 ** (1 - lam) * (1 + 1e-9)
        assert ev["perplexity"] <= max(p1, p2) * (1 + 1e-9)
    assert interpolate(m1, m2, 1.0).perplexity(heldout) == pytest.approx(m1.perplexity(heldout), rel=1e-9)
    assert interpolate(m1, m2, 0.0).perplexity(heldout) == pytest.approx(m2.perplexity(heldout), rel=1e-9)


def test_interpolation_best_weight():
    m1 = fit(MEDIUM, 3, "kneser_ney")
    m2 = fit(MEDIUM, 2, "add_k", k=0.5)
    heldout = MEDIUM_TEST
    rows = [(m1.full_log10(s), m2.full_log10(s)) for s in heldout]
    T = sum(len(a) for a, _ in rows)
    grid = np.linspace(0.05, 0.95, 19)

    def ppl(lam):
        return 10 ** (-sum(math.log10(lam * 10 ** x + (1 - lam) * 10 ** y) for a, b in rows
                           for x, y in zip(a, b)) / T)

    expected = min(grid, key=ppl)
    best = Interpolated.best_weight(m1, m2, heldout)
    assert best == pytest.approx(expected)
    small_grid = [0.1, 0.5, 0.9]
    assert Interpolated.best_weight(m1, m2, heldout, grid=small_grid) == min(small_grid, key=ppl)
    assert ppl(best) <= min(ppl(0.05), ppl(0.95)) + 1e-12


def test_interpolation_errors():
    w = fit(TOY, 2)
    c = fit(["ab"], 2, level="char")
    with pytest.raises(ValueError, match="level"):
        Interpolated(w, c)
    with pytest.raises(ValueError, match="lam"):
        Interpolated(w, w, 1.5)
    with pytest.raises(ValueError, match="lam"):
        interpolate(w, w, -0.1)


# ============================================================================ scoring semantics

def test_full_scores_like_kenlm():
    lm = fit(MEDIUM, 3, "kneser_ney")
    ref = kneser_ney_ref(Counts(MEDIUM, 3))
    s = "w0 w1 qqq w2 w3"
    toks = s.split()
    for bos in (True, False):
        for eos in (True, False):
            fs = lm.full_scores(s, bos=bos, eos=eos)
            assert len(fs) == len(toks) + (1 if eos else 0)
            assert [o for _, _, o in fs] == [t == "qqq" for t in toks] + ([False] if eos else [])
            assert sum(p for p, _, _ in fs) == pytest.approx(lm.score(s, bos=bos, eos=eos), abs=1e-9)
            np.testing.assert_array_equal([p for p, _, _ in fs], lm.full_log10(s, bos, eos))
            # the n-gram length is that of the longest n-gram of the model ending in the token
            hist = [BOS] if bos else []
            for (p, length, _), w in zip(fs, ref.counts.map_oov(toks) + ([EOS] if eos else [])):
                h = hist[-2:]
                expected = max(n for n in range(1, len(h) + 2)
                               if n == 1 or tuple(h[len(h) - (n - 1):]) + (w,) in ref.P[n])
                assert length == expected, (w, hist, length)
                hist.append(w)
    assert lm.full_scores(s, bos=False)[0][1] == 1
    # OOV is scored as <unk>
    assert lm.full_scores("qqq", bos=False, eos=False)[0][0] == pytest.approx(lm.ngrams(1)[(UNK,)][0])
    assert lm.score("", bos=True, eos=True) == pytest.approx(ref.sentence_log10([], True, True)[0], abs=1e-5)
    assert lm.full_scores("", bos=True, eos=False) == []


@pytest.mark.parametrize("level", ["word", "char"])
def test_token_list_equals_string(level):
    corpus = SMALL_WORD if level == "word" else SMALL_CHAR
    lm = fit(corpus, 3, "kneser_ney", level)
    sents = (["the cat sat", "zzz on the mat", "a"] if level == "word" else ["ab ba", "zab", "c"])
    for s in sents:
        toks = s.split() if level == "word" else list(s)
        for bos in (True, False):
            for eos in (True, False):
                assert lm.score(toks, bos, eos) == pytest.approx(lm.score(s, bos, eos), abs=1e-9)
                np.testing.assert_array_equal(lm.full_log10(toks, bos, eos), lm.full_log10(s, bos, eos))
                assert lm.full_scores(toks, bos, eos) == lm.full_scores(s, bos, eos)
        assert lm.evaluate([toks]) == lm.evaluate([s])
        np.testing.assert_array_equal(lm.next_probs(toks), lm.next_probs(s))


def test_char_model_reads_token_lists_alike_in_fit_and_evaluate():
    """At character level a token-list sentence is a list of characters everywhere: fit()
    (encode_corpus), score(), evaluate() / perplexity() and Interpolated.evaluate read it alike,
    so a model scored on its own training data as lists gets the same (finite) perplexity."""
    as_text = ["in the", "the end"]
    sents = [list(s) for s in as_text]
    lm = fit(sents, 2, "mle", "char")
    assert lm.ngrams(2) == fit(as_text, 2, "mle", "char").ngrams(2)
    expected = lm.evaluate(as_text)
    assert math.isfinite(expected["perplexity"])
    assert lm.evaluate(sents) == expected
    assert lm.perplexity(sents) == pytest.approx(expected["perplexity"])
    mix = interpolate(lm, fit(as_text, 1, "witten_bell", "char"), 0.5)
    assert mix.evaluate(sents) == mix.evaluate(as_text)


def test_fit_from_token_lists_equals_fit_from_strings():
    a = fit(SMALL_WORD, 3, "katz")
    b = fit([s.split() for s in SMALL_WORD], 3, "katz")
    assert a.vocab == b.vocab
    for n in (1, 2, 3):
        assert a.ngrams(n) == b.ngrams(n)


def test_log_prob_and_membership():
    lm = fit(TOY, 2, "kneser_ney")
    p = lm.next_probs(["the"], bos=False)
    assert lm.log_prob("cat", ["the"]) == pytest.approx(math.log(p[lm.vocab.index("cat")]), abs=1e-9)
    assert lm.log_prob("</s>", ["sat"]) == pytest.approx(math.log(lm.next_probs(["sat"], bos=False)[2]), abs=1e-9)
    pb = lm.next_probs([], bos=True)
    assert lm.log_prob("the", [], bos=True) == pytest.approx(math.log(pb[lm.vocab.index("the")]), abs=1e-9)
    assert "cat" in lm and "bird" not in lm
    with pytest.raises(KeyError, match="bird"):
        lm.log_prob("bird", ["the"])
    clm = fit(SMALL_CHAR, 2, level="char")
    assert " " in clm
    assert clm.log_prob(" ", "a") == pytest.approx(math.log(clm.next_probs(["a"], bos=False)[clm.vocab.index(SPACE)]))


def test_next_token_distribution_sorted():
    for level, corpus, ctx in (("word", SMALL_WORD, ["the"]), ("char", SMALL_CHAR, ["a"])):
        lm = fit(corpus, 3, "kneser_ney", level)
        d = lm.next_token_distribution(ctx)
        probs = [p for _, p in d]
        assert probs == sorted(probs, reverse=True)
        toks = [t for t, _ in d]
        assert BOS not in toks and len(toks) == len(lm.vocab) - 1
        assert sum(probs) == pytest.approx(1.0, abs=1e-5)
        full = lm.next_probs(ctx)
        for t, p in d:
            assert p == pytest.approx(full[lm.vocab.index(SPACE if t == " " else t)])
        top = lm.next_token_distribution(ctx, topn=3)
        assert top == d[:3]
        if level == "char":
            assert SPACE not in toks and " " in toks


@pytest.mark.parametrize("level", ["word", "char"])
def test_generate_is_reproducible(level):
    corpus = SMALL_WORD if level == "word" else SMALL_CHAR
    lm = fit(corpus, 3, "kneser_ney", level)
    a = [lm.generate(30, seed=s) for s in range(20)]
    b = [lm.generate(30, seed=s) for s in range(20)]
    assert a == b
    assert len(set(a)) > 1
    allowed = set(lm.vocab) - {BOS, EOS}
    for text in a:
        # a character model may sample <unk> (KN gives it mass); it is written as "<unk>"
        toks = text.split() if level == "word" else [SPACE if c == " " else c
                                                     for c in text.replace(UNK, "\0")]
        toks = [UNK if t == "\0" else t for t in toks]
        assert set(toks) <= allowed
        assert len(toks) <= 30
    # MLE bigram on one sentence is deterministic: it reproduces the sentence
    det = fit(["x y z"], 2, "mle")
    assert det.generate(10, seed=0) == "x y z"
    assert det.generate(10, context=["y"], seed=3) == "z"
    assert det.generate(2, seed=5) == "x y"


# ============================================================================ fitting from files

@pytest.mark.parametrize("level", ["word", "char"])
def test_fit_from_path_equals_fit_from_lines(tmp_path, level):
    corpus = SMALL_WORD if level == "word" else SMALL_CHAR
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(corpus) + "\n", encoding="utf-8")
    a = fit(corpus, 3, "kneser_ney", level)
    for src in (path, str(path)):
        b = fit(src, 3, "kneser_ney", level)
        assert b.vocab == a.vocab
        for n in (1, 2, 3):
            assert b.ngrams(n) == a.ngrams(n)
    ev_list = a.evaluate(corpus)
    assert a.evaluate(path) == ev_list


# ============================================================================ errors

def test_constructor_errors():
    for order in (0, -1, 2.0, "3", True, None):
        with pytest.raises(ValueError, match="order"):
            NGram(order)
    with pytest.raises(ValueError, match="smoothing"):
        NGram(2, "good_turing")
    with pytest.raises(ValueError, match="level"):
        NGram(2, level="byte")
    for k in (0, -1, 0.0):
        with pytest.raises(ValueError, match="k > 0"):
            NGram(2, "add_k", k=k)
    with pytest.raises(ValueError, match="discount_fallback"):
        NGram(2, discount_fallback=(0.5, 1.0))


def test_fit_errors(tmp_path):
    for empty in ([], [""], ["", "   "], [[]]):
        with pytest.raises(ValueError, match="empty"):
            NGram(2).fit(empty)
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(ValueError, match="empty"):
        NGram(2).fit(tmp_path / "empty.txt")
    with pytest.raises(FileNotFoundError):
        NGram(2).fit(tmp_path / "missing.txt")
    for bad in (["a <s> b"], ["a b </s>"], [["a", "<s>"]]):
        with pytest.raises(ValueError, match="special token"):
            NGram(2).fit(bad)


def test_unfitted_model_errors(tmp_path):
    lm = NGram(2)
    for call in (lambda: lm.score("a"), lambda: lm.next_probs(), lambda: lm.vocab, lambda: lm.evaluate(["a"]),
                 lambda: lm.save_arpa(tmp_path / "x.arpa"), lambda: lm.generate(seed=0), lambda: lm.ngrams(1),
                 lambda: lm.full_scores("a")):
        with pytest.raises(RuntimeError, match="not trained"):
            call()
    assert "not fitted" in repr(lm)


def test_evaluate_no_tokens_raises():
    lm = fit(TOY, 2)
    with pytest.raises(ValueError, match="no tokens"):
        lm.evaluate([], eos=True)
    with pytest.raises(ValueError, match="no tokens"):
        lm.evaluate([""], eos=False)


# ============================================================================ batch scoring

BATCH = MEDIUM_TEST + ["", "w0", "unknownword", "  w1   w2  ", "w3 unknownword unknownword w3"]


@pytest.mark.parametrize("smoothing", SMOOTHINGS)
@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_evaluate_in_one_call_equals_one_call_per_sentence(smoothing, order):
    """evaluate scores the whole corpus in one C++ call (with the scorer's prefetching running
    ahead of each sentence); it must say what score, full_log10 and full_scores say sentence by
    sentence: empty sentences, unknown words and every bos/eos option included."""
    lm = fit(MEDIUM, order, smoothing)
    for bos in (True, False):
        for eos in (True, False):
            ev = lm.evaluate(BATCH, bos=bos, eos=eos)
            per = [lm.full_scores(s, bos=bos, eos=eos) for s in BATCH]
            assert ev["sentences"] == len(BATCH)
            assert ev["tokens"] == sum(len(p) for p in per)
            assert ev["oov"] == sum(o for p in per for _, _, o in p)
            assert ev["characters"] == sum(len(s) for s in BATCH) + (len(BATCH) if eos else 0)
            scores = [lm.score(s, bos=bos, eos=eos) for s in BATCH]
            for s, sc, p in zip(BATCH, scores, per):
                assert sc == pytest.approx(sum(x for x, _, _ in p), rel=1e-12, abs=1e-12), s
            if all(math.isfinite(x) for x in scores):
                assert ev["log10_prob"] == pytest.approx(math.fsum(scores), rel=1e-12)
            else:  # MLE: a sentence of probability 0
                assert ev["log10_prob"] == -math.inf


def test_evaluate_in_one_call_char_level_and_loaded_arpa(tmp_path):
    lm = fit(SMALL_CHAR, 4, "kneser_ney", "char")
    lines = SMALL_CHAR + ["", "zz ab", "é a"]
    for model in (lm, NGram.load_arpa(_saved(lm, tmp_path), level="char")):
        for bos, eos in [(True, True), (False, True), (True, False), (False, False)]:
            ev = model.evaluate(lines, bos=bos, eos=eos)
            scores = [model.score(s, bos=bos, eos=eos) for s in lines]
            assert ev["log10_prob"] == pytest.approx(math.fsum(scores), rel=1e-12)
            assert ev["tokens"] == sum(len(s) for s in lines) + (len(lines) if eos else 0)
            assert ev["characters"] == sum(len(s) for s in lines) + (len(lines) if eos else 0)
            assert ev["oov"] == sum(c not in "abcd " for s in lines for c in s)


def _saved(lm, tmp_path):
    path = tmp_path / "model.arpa"
    lm.save_arpa(path)
    return path


def test_arpa_file_is_unchanged(tmp_path):
    """The ARPA writer's output on a fixed corpus, byte for byte (its SHA-256 as written before
    the scorer's index was added): the file does not depend on how scoring finds n-grams."""
    import hashlib
    lm = fit(MEDIUM, 4, "kneser_ney")
    lm.score("w0 w1 w2")  # builds the scorer's index before writing
    data = _saved(lm, tmp_path).read_bytes()
    assert hashlib.sha256(data).hexdigest() == ARPA_SHA256


ARPA_SHA256 = "ecec39e9243261582285b8093b5200fd6b709d1013c99c2fa54cf3ceeaddbf3e"
