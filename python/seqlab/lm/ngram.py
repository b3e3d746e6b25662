"""seqlab.lm.NGram: n-gram language models with KenLM's conventions (log10 scores, <s> </s>
<unk>, ARPA files). Counting, smoothing and scoring are C++ (cpp/src/lm/); tests in
tests/test_ngram.py and tests/test_ngram_kenlm.py.

    lm = NGram(order=5, smoothing="kneser_ney").fit(corpus.train)
    lm.score("in the beginning")           # log10 p(<s> in the beginning </s>), as kenlm.Model.score
    lm.perplexity(corpus.test)             # exp(-(1/T) sum ln p) over the words and </s>
    lm.save_arpa("kjv.arpa")               # kenlm.Model("kjv.arpa") scores the same
"""
import math
import numbers
import os
import warnings

import numpy as np

from .. import _core
from .._atomic import atomic_path
from ..data.encode import encode_corpus

SMOOTHINGS = ("kneser_ney", "katz", "witten_bell", "add_k", "mle")
SPACE = "<space>"  # how a character model spells " " in its vocabulary and ARPA file


class NGram:
    """An n-gram language model.

    order: n (1 = unigram). smoothing:
      'kneser_ney'  interpolated modified Kneser-Ney with KenLM's discount estimates
                    (D_k = k - (k+1) Y t_{k+1}/t_k, Y = t_1/(t_1 + 2 t_2)); where they cannot be
                    estimated (small corpora), `discount_fallback` (KenLM's 0.5, 1, 1.5) with a warning
      'katz'        Katz back-off with Good-Turing discounts for counts <= katz_k, estimated as SRILM's
                    ngram-count does: katz_k lowered where n_{k+1} = 0, an unusable coefficient is 1, and
                    a history whose seen words would take all the mass gets its denominator raised by 1
                    (SRILM's rule), so every word has p > 0 after every history
      'witten_bell' interpolated Witten-Bell
      'add_k'       add-k (k=1: Laplace); unseen histories back off to shorter ones
      'mle'         maximum likelihood: unseen n-grams after a seen history have probability 0
    level: 'word' (whitespace-separated tokens) or 'char' (every character, spaces included;
      a space is the token "<space>" in the vocabulary and in ARPA files).
    """

    def __init__(self, order=3, smoothing="kneser_ney", level="word", k=1.0, katz_k=5,
                 discount_fallback=(0.5, 1.0, 1.5)):
        max_order = _core.lm.MAX_ORDER
        if not isinstance(order, int) or isinstance(order, bool) or not 1 <= order <= max_order:
            raise ValueError(f"NGram: order must be an int from 1 to {max_order}, got {order!r}")
        if smoothing not in SMOOTHINGS:
            raise ValueError(f"NGram: smoothing must be one of {SMOOTHINGS}, got {smoothing!r}")
        if level not in ("word", "char"):
            raise ValueError(f"NGram: level must be 'word' or 'char', got {level!r}")
        if not isinstance(katz_k, numbers.Integral) or isinstance(katz_k, bool) or not 1 <= katz_k < 2**31:
            raise ValueError(f"NGram: katz_k must be an int >= 1 (Good-Turing discounts counts 1..katz_k), "
                             f"got {katz_k!r}")
        if len(tuple(discount_fallback)) != 3:
            raise ValueError(f"NGram: discount_fallback must be (D1, D2, D3+), got {discount_fallback!r}")
        self.order, self.smoothing, self.level = order, smoothing, level
        self.k, self.katz_k, self.discount_fallback = float(k), int(katz_k), tuple(map(float, discount_fallback))
        # The C++ check of every build option (BuildOptions::check), now rather than after counting.
        _core.lm.check_options(order, smoothing, self.k, self.katz_k, self.discount_fallback)
        self._m = None

    # ------------------------------------------------------------------ training
    def fit(self, sentences):
        """Count and smooth. sentences: an iterable of strings or token lists, or a path
        (str or os.PathLike) to a text file with one sentence per line. Returns self."""
        enc = encode_corpus(sentences, self.level, who="NGram.fit")
        if len(enc.ids) == 0:
            raise ValueError("NGram.fit: the corpus is empty (no tokens)")
        vocab = [SPACE if (self.level == "char" and w == " ") else w for w in enc.vocab]
        self._m = _core.lm.NGramModel.build(vocab, enc.ids, enc.offsets, self.order, self.smoothing, self.k,
                                            self.katz_k, self.discount_fallback)
        for w in self._m.warnings:
            warnings.warn(f"NGram.fit: {w}", RuntimeWarning, stacklevel=2)
        return self

    @property
    def model(self):
        if self._m is None:
            raise RuntimeError("NGram: the model is not trained; call fit(sentences) or NGram.load_arpa(path)")
        return self._m

    # ------------------------------------------------------------------ vocabulary
    @property
    def vocab(self):
        """The tokens, by id: '<unk>', '<s>', '</s>', then the words (most frequent first when fitted)."""
        return self.model.vocab

    def __contains__(self, token):
        return self._token(token) in self._index

    @property
    def _index(self):
        # Built once per model: `self.vocab` copies the whole vocabulary out of C++, so it is not
        # read on every call (`w in lm` and scoring a token list ask for the index per call).
        m = self.model
        if getattr(self, "_index_of", None) is not m:
            self._index_cache = {w: i for i, w in enumerate(m.vocab)}
            self._index_of = m
        return self._index_cache

    def _token(self, t):
        return SPACE if (self.level == "char" and t == " ") else t

    def _ids(self, sentence):
        """A sentence (str, or a list of tokens) as ids; unknown tokens are <unk> (id 0)."""
        if isinstance(sentence, str):
            return self.model.encode(sentence, self.level)
        idx = self._index
        return np.array([idx.get(self._token(t), 0) for t in sentence], dtype=np.uint32)

    @property
    def discounts(self):
        """Per order, Kneser-Ney's {"D1", "D2", "D3+", "fallback", "counts_of_counts" (adjusted counts 1..4)};
        Katz's {"K" (the largest count discounted, 0: none), "counts_of_counts" (n_1 .. n_{K'+1},
        K' = min(katz_k, the order's largest count)), "d" (Good-Turing's d_1 .. d_K), "raised_contexts"
        (histories whose denominator was raised to leave mass for unseen words)}; empty for the others."""
        return self.model.discounts

    def ngrams(self, n):
        """The model's n-grams of order n: {tuple of tokens: (log10 p, log10 backoff, count or None)}."""
        ids, lp, bo, counts = self.model.ngrams(n)
        vocab = self.vocab
        out = {}
        for e in range(len(lp)):
            out[tuple(vocab[i] for i in ids[e])] = (float(lp[e]), float(bo[e]),
                                                    None if counts is None else int(counts[e]))
        return out

    # ------------------------------------------------------------------ scoring
    def score(self, sentence, bos=True, eos=True):
        """log10 p(sentence), as kenlm.Model.score: <s> before it with bos, </s> after it with eos."""
        if type(sentence) is str and self._m is not None:  # the fast path: one C++ call
            return self._m.score(sentence, self.level, bos, eos)
        if isinstance(sentence, str):
            return self.model.score(sentence, self.level, bos, eos)
        return float(self.full_log10(sentence, bos, eos).sum())

    def full_log10(self, sentence, bos=True, eos=True):
        """Per-token log10 probabilities (the tokens, then </s> with eos), as a NumPy array."""
        return self.model.score_ids(self._ids(sentence), bos, eos)[0]

    def full_scores(self, sentence, bos=True, eos=True):
        """As kenlm.Model.full_scores: (log10 p, length of the n-gram used, oov) per token and </s>."""
        ids = self._ids(sentence)
        lp, lengths = self.model.score_ids(ids, bos, eos)
        oov = list(ids == 0) + ([False] if eos else [])
        return [(float(p), int(n), bool(o)) for p, n, o in zip(lp, lengths, oov)]

    def log_prob(self, word, context=(), bos=False):
        """ln p(word | context): context is a list of tokens (or a string at character level)."""
        ids = self._ids(list(context))
        if bos:
            ids = np.concatenate([[1], ids]).astype(np.uint32)
        dist = self.model.distribution(ids)
        return float(dist[self._word_id(word)] * math.log(10))

    def _word_id(self, word):
        if word == "</s>":
            return 2
        i = self._index.get(self._token(word))
        if i is None:
            raise KeyError(f"NGram: '{word}' is not in the vocabulary (it would be scored as <unk>)")
        return i

    def next_probs(self, context=(), bos=True):
        """p(w | context) for every token w of `vocab` (p(<s>) = 0): a NumPy array summing to 1.
        context: a list of tokens, or a string (split like a sentence); with bos it follows <s>."""
        ids = self._ids(context)
        if bos:
            ids = np.concatenate([[1], ids]).astype(np.uint32)
        return 10.0 ** self.model.distribution(ids)

    def next_token_distribution(self, context=(), bos=True, topn=None):
        """The next-token distribution as (token, probability) pairs, most probable first."""
        p = self.next_probs(context, bos)
        order = np.argsort(-p, kind="stable")[:topn]
        vocab = self.vocab
        return [(" " if (self.level == "char" and vocab[i] == SPACE) else vocab[i], float(p[i]))
                for i in order if i != 1]

    def evaluate(self, corpus, bos=True, eos=True):
        """Scores a corpus (iterable of sentences, a single string, or an os.PathLike file).

        Returns a dict: log10_prob (total), tokens (words plus one </s> per sentence with eos),
        sentences, oov (tokens scored as <unk>), characters (of the text, one newline per
        sentence), perplexity = 10 ** (-log10_prob / tokens) = exp(-(1/T) sum ln p),
        entropy = bits per token = -log2 p / T, bits_per_char = -sum log2 p / characters."""
        lines = _lines(corpus, self.level)
        # One C++ call: splitting, vocabulary lookup, scoring and counting characters.
        total, tokens, oov, chars = self.model.score_corpus(lines, self.level, bos, eos)
        n_tokens = int(tokens.sum())
        if n_tokens == 0:
            raise ValueError("NGram.evaluate: the corpus has no tokens to score")
        log10 = float(total.sum())
        chars += len(lines) if eos else 0
        bits = -log10 * math.log2(10)
        return {"log10_prob": log10, "tokens": n_tokens, "sentences": len(lines), "oov": int(oov.sum()),
                "characters": chars, "perplexity": 10.0 ** (-log10 / n_tokens), "entropy": bits / n_tokens,
                "bits_per_char": bits / max(chars, 1)}

    def perplexity(self, corpus, bos=True, eos=True):
        """exp(-(1/T) sum ln p) over the corpus's tokens and </s>. A single string is one sentence
        (kenlm.Model.perplexity); use a list of sentences or a pathlib.Path for a corpus."""
        return self.evaluate(corpus, bos, eos)["perplexity"]

    def cross_entropy(self, corpus, bos=True, eos=True):
        """Bits per token on the corpus (log2 of the perplexity)."""
        return self.evaluate(corpus, bos, eos)["entropy"]

    def bits_per_char(self, corpus, bos=True, eos=True):
        return self.evaluate(corpus, bos, eos)["bits_per_char"]

    # ------------------------------------------------------------------ sampling
    def generate(self, max_tokens=100, context=(), seed=None, bos=True):
        """Samples tokens from p(w | history) until </s> or max_tokens. Returns the text
        (words joined by spaces, characters joined as they are). seed: int or None.
        <unk> is never sampled (the rest is renormalised): it stands for no particular token."""
        rng = np.random.default_rng(seed)
        history = list(self._ids(context))
        if bos:
            history = [1] + history
        keep = self.order - 1
        vocab = self.vocab
        out = []
        for _ in range(max_tokens):
            h = np.array(history[len(history) - keep:] if keep else [], dtype=np.uint32)
            p = 10.0 ** self.model.distribution(h)
            p[0] = 0.0  # <unk>
            p /= p.sum()
            w = int(rng.choice(len(p), p=p))
            if w == 2:
                break
            history.append(w)
            out.append(" " if vocab[w] == SPACE and self.level == "char" else vocab[w])
        return ("" if self.level == "char" else " ").join(out)

    # ------------------------------------------------------------------ ARPA files
    def save_arpa(self, path):
        """Writes the model as an ARPA file (KenLM and SRILM read it), atomically."""
        if self.smoothing == "add_k":
            raise ValueError("NGram.save_arpa: add-k is not a back-off model (the mass of an unseen word "
                             "after a seen history is not a fixed multiple of a lower-order probability), "
                             "so an ARPA file cannot represent it; use 'kneser_ney', 'katz', 'witten_bell' or 'mle'")
        with atomic_path(path) as tmp:
            self.model.write_arpa(os.fspath(tmp))

    @classmethod
    def load_arpa(cls, path, level="word"):
        """Reads an ARPA file (from seqlab, KenLM's lmplz or SRILM). The model scores with the
        ARPA back-off rule; level='char' reads "<space>" as the space character."""
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(f"NGram.load_arpa: no such file '{path}'")
        m = _core.lm.NGramModel.read_arpa(path)
        lm = cls(order=m.order, level=level)
        lm.smoothing = "arpa"
        lm._m = m
        for w in m.warnings:
            warnings.warn(f"NGram.load_arpa: {w}", RuntimeWarning, stacklevel=2)
        return lm

    def __repr__(self):
        state = f"vocab={len(self.vocab)}" if self._m is not None else "not fitted"
        return f"NGram(order={self.order}, smoothing='{self.smoothing}', level='{self.level}', {state})"


class Interpolated:
    """Linear interpolation of two models on the same tokens: p(w | h) = lam p1(w | h) + (1 - lam) p2(w | h).
    lam is usually tuned on held-out data (see `best_weight`)."""

    def __init__(self, first, second, lam=0.5):
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"Interpolated: lam must be in [0, 1], got {lam}")
        if first.level != second.level:
            raise ValueError(f"Interpolated: models of different levels ({first.level}, {second.level})")
        self.first, self.second, self.lam, self.level = first, second, float(lam), first.level

    def full_log10(self, sentence, bos=True, eos=True):
        a = self.first.full_log10(sentence, bos, eos)
        b = self.second.full_log10(sentence, bos, eos)
        return np.log10(self.lam * 10.0 ** a + (1 - self.lam) * 10.0 ** b)

    def score(self, sentence, bos=True, eos=True):
        return float(self.full_log10(sentence, bos, eos).sum())

    def evaluate(self, corpus, bos=True, eos=True):
        lines = _lines(corpus, self.level)
        log10 = sum(self.score(l, bos, eos) for l in lines)
        n = sum(len(self.first._ids(l)) + (1 if eos else 0) for l in lines)
        if n == 0:
            raise ValueError("Interpolated.evaluate: the corpus has no tokens to score")
        return {"log10_prob": log10, "tokens": n, "perplexity": 10.0 ** (-log10 / n),
                "entropy": -log10 * math.log2(10) / n}

    def perplexity(self, corpus, bos=True, eos=True):
        return self.evaluate(corpus, bos, eos)["perplexity"]

    @staticmethod
    def best_weight(first, second, heldout, grid=np.linspace(0.05, 0.95, 19)):
        """The lam of `grid` with the lowest held-out perplexity."""
        return min(grid, key=lambda lam: Interpolated(first, second, lam).perplexity(heldout))


def interpolate(first, second, lam=0.5):
    """p = lam p_first + (1 - lam) p_second (see Interpolated)."""
    return Interpolated(first, second, lam)


def _lines(corpus, level):
    """A corpus to score as a list of strings: a str is one sentence, an os.PathLike a file."""
    if isinstance(corpus, str):
        return [corpus]
    if isinstance(corpus, os.PathLike):
        with open(corpus, encoding="utf-8") as f:
            return f.read().splitlines()
    if isinstance(corpus, list) and all(type(s) is str for s in corpus):
        return corpus  # the common case, with no copy
    out = []
    for s in corpus:
        if isinstance(s, str):
            out.append(s)
        elif level == "char":  # a token list of a character model is its characters, as fit reads it
            out.append("".join(" " if t == SPACE else t for t in s))
        else:
            out.append(" ".join(s))
    return out
