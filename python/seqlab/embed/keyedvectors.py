"""KeyedVectors: words and their vectors, as gensim.models.KeyedVectors (gensim 4 API).

Layout (shared by every model in seqlab.embed):
- ``index_to_key``: list of keys, most frequent first for trained models;
- ``key_to_index``: dict key -> row;
- ``vectors``: NumPy float32 array (len(index_to_key), vector_size), C-contiguous;
- per-key attributes (``count``) via ``get_vecattr`` / ``set_vecattr``, as gensim 4.

Queries (most_similar, most_similar_cosmul, doesnt_match, evaluate_word_analogies, ...) are
one matrix product over all vectors; no Python loop runs over the vocabulary. The word2vec
text and binary formats are read and written byte for byte as gensim does.
Tested against gensim in tests/test_keyedvectors.py.
"""
import bz2
import contextlib
import gzip
import itertools
import json
import logging
import os
import shutil
from numbers import Integral

import numpy as np

from .._atomic import atomic_open

logger = logging.getLogger(__name__)

_KEY_TYPES = (str, int, np.integer)              # what counts as a key (gensim's _KEY_TYPES)
_KEY_OR_VECTOR_TYPES = (str, int, np.integer, np.ndarray)
_COSMUL_EPSILON = 1e-6                           # gensim's guard against a zero denominator in 3CosMul
_SAVE_FORMAT = "seqlab.KeyedVectors/1"


def _as_list(value):
    """positive=/negative= as a list: a single key or 1-D vector becomes [value], the rows of a
    2-D array become a list of vectors (gensim's _ensure_list)."""
    if value is None:
        return []
    if isinstance(value, _KEY_TYPES) or (isinstance(value, np.ndarray) and value.ndim == 1):
        return [value]
    if isinstance(value, np.ndarray) and value.ndim == 2:
        return list(value)
    return list(value)


def _unit(vec):
    """vec / ||vec|| (a zero vector stays zero), in vec's float dtype."""
    vec = np.asarray(vec)
    norm = np.sqrt(np.sum(vec.astype(np.float64) ** 2))
    return (vec / norm).astype(vec.dtype) if norm > 0 else vec


def _top(scores, topn):
    """Indices of the `topn` largest scores, largest first (argpartition, then sort those)."""
    n = scores.shape[0]
    if topn >= n:
        return np.argsort(-scores, kind="stable")
    part = np.argpartition(-scores, topn)[:topn]
    return part[np.argsort(-scores[part], kind="stable")]


class KeyedVectors:
    """Word vectors by key, as gensim's KeyedVectors: `kv[word]`, most_similar, similarity, analogies
    (3CosAdd, 3CosMul), save/load in word2vec's text and binary formats."""
    def __init__(self, vector_size, count=0, dtype=np.float32):
        self.vector_size = int(vector_size)
        self.index_to_key = []
        self.key_to_index = {}
        self.vectors = np.zeros((count, self.vector_size), dtype=dtype)
        self.expandos = {}
        self.norms = None          # ||vectors[i]||, filled on demand by fill_norms()
        self._norms_of = None      # the vectors array `norms` was computed from

    def __len__(self):
        return len(self.index_to_key)

    def __contains__(self, key):
        return self.has_index_for(key)

    def __str__(self):
        return f"{type(self).__name__}<vector_size={self.vector_size}, {len(self)} keys>"

    __repr__ = __str__

    # ------------------------------------------------------------------ keys and vectors

    def get_index(self, key, default=None):
        """The row of `key`. An int that is not itself a key is taken as a row number, as gensim does."""
        index = self.key_to_index.get(key, -1) if isinstance(key, _KEY_TYPES) else -1
        if index >= 0:
            return index
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= key < len(self.index_to_key):
            return int(key)
        if default is not None:
            return default
        raise KeyError(f"Key '{key}' not present in vocabulary")

    def has_index_for(self, key):
        return self.get_index(key, -1) >= 0

    def get_vector(self, key, norm=False):
        """The vector of `key` (read-only view); unit length if norm=True."""
        index = self.get_index(key)
        if norm:
            self.fill_norms()
            norm_i = self.norms[index]
            v = self.vectors[index] / norm_i if norm_i > 0 else self.vectors[index].copy()
        else:
            v = self.vectors[index]
        v.setflags(write=False)
        return v

    def __getitem__(self, key_or_keys):
        if isinstance(key_or_keys, _KEY_TYPES):
            return self.get_vector(key_or_keys)
        return np.vstack([self.get_vector(k) for k in key_or_keys])

    def __setitem__(self, keys, weights):
        """kv[key] = vector or kv[[k1, k2]] = matrix: add, replacing existing vectors."""
        if not isinstance(keys, list):
            keys = [keys]
            weights = np.asarray(weights).reshape(1, -1)
        self.add_vectors(keys, weights, replace=True)

    # ------------------------------------------------------------------ per-key attributes

    def allocate_vecattrs(self, attrs=None, types=None):
        """Make each attribute array as long as index_to_key (new entries 0)."""
        if attrs is None:
            attrs = list(self.expandos)
            types = [self.expandos[a].dtype for a in attrs]
        n = len(self.index_to_key)
        for attr, t in zip(attrs, types):
            t = np.int64 if t is int else object if t is str else t
            old = self.expandos.get(attr)
            if old is None:
                self.expandos[attr] = np.zeros(n, dtype=t)
            elif len(old) != n:
                grown = np.zeros(n, dtype=old.dtype)
                grown[:min(n, len(old))] = old[:n]
                self.expandos[attr] = grown

    def get_vecattr(self, key, attr):
        index = self.get_index(key)
        return self.expandos[attr][index]

    def set_vecattr(self, key, attr, value):
        if attr not in self.expandos:
            self.allocate_vecattrs([attr], [np.int64 if isinstance(value, (int, np.integer)) else type(value)])
        elif len(self.expandos[attr]) != len(self.index_to_key):
            self.allocate_vecattrs([attr], [self.expandos[attr].dtype])
        self.expandos[attr][self.get_index(key)] = value

    # ------------------------------------------------------------------ adding vectors

    def add_vector(self, key, vector):
        """Add one key; fills a preallocated row (KeyedVectors(d, count)) if one is free. Returns its row."""
        index = len(self.index_to_key)
        if key in self.key_to_index:
            raise ValueError(f"add_vector: key {key!r} is already present; use kv[key] = vector to replace it")
        if index < self.vectors.shape[0]:                # a preallocated row
            self.vectors[index] = vector
            self.index_to_key.append(key)
            self.key_to_index[key] = index
            self.allocate_vecattrs()
            self.norms = None
        else:
            self.add_vectors([key], np.asarray(vector).reshape(1, -1))
        return index

    def add_vectors(self, keys, weights, extras=None, replace=False):
        """Append keys and their vectors (rows of `weights`). A key already present keeps its old
        vector unless replace=True. `extras`: {attr: array aligned with keys}."""
        if isinstance(keys, _KEY_TYPES):
            keys = [keys]
            weights = np.asarray(weights).reshape(1, -1)
        weights = np.asarray(weights)
        if weights.ndim != 2 or weights.shape != (len(keys), self.vector_size):
            raise ValueError(f"add_vectors: expected {len(keys)} vectors of size {self.vector_size}, "
                             f"got an array of shape {weights.shape}")
        extras = extras or {}
        present = np.array([k in self.key_to_index for k in keys], dtype=bool)
        # rows beyond index_to_key (a preallocated but unfilled KeyedVectors) are dropped first
        vectors = self.vectors[:len(self.index_to_key)]
        fresh = np.flatnonzero(~present)
        for i in fresh:
            self.key_to_index[keys[i]] = len(self.index_to_key)
            self.index_to_key.append(keys[i])
        self.vectors = np.ascontiguousarray(np.vstack([vectors, weights[fresh].astype(vectors.dtype)]))
        self.allocate_vecattrs()
        for attr, values in extras.items():
            values = np.asarray(values)
            if attr not in self.expandos:
                self.allocate_vecattrs([attr], [values.dtype])
            rows = [self.key_to_index[keys[i]] for i in fresh]
            self.expandos[attr][rows] = values[fresh]
        if replace and present.any():
            rows = [self.key_to_index[keys[i]] for i in np.flatnonzero(present)]
            self.vectors[rows] = weights[present]
            for attr, values in extras.items():
                self.expandos[attr][rows] = np.asarray(values)[present]
        self.norms = None

    def sort_by_descending_frequency(self):
        """Reorder so that the largest 'count' comes first (ties: gensim's order)."""
        if not len(self):
            return
        counts = np.asarray(self.expandos["count"], dtype=np.int64)
        order = np.lexsort((-np.arange(len(counts)), -counts))
        self.index_to_key = [self.index_to_key[i] for i in order]
        self.key_to_index = {k: i for i, k in enumerate(self.index_to_key)}
        for attr in self.expandos:
            self.expandos[attr] = self.expandos[attr][order]
        if len(self.vectors):
            self.vectors = np.ascontiguousarray(self.vectors[order])
        self.norms = None

    # ------------------------------------------------------------------ norms

    def fill_norms(self, force=False):
        """Compute ||v|| for every row (cached until the vectors array is replaced, or force=True)."""
        if force or self.norms is None or getattr(self, "_norms_of", None) is not self.vectors \
                or len(self.norms) != len(self.vectors):
            self.norms = np.linalg.norm(self.vectors, axis=1)
            self._norms_of = self.vectors

    def get_normed_vectors(self):
        """All vectors scaled to unit length, (n, vector_size)."""
        self.fill_norms()
        return self.vectors / self.norms[:, None]

    def unit_normalize_all(self):
        """Scale every vector to unit length in place (gensim's; irreversible)."""
        self.fill_norms()
        self.vectors /= self.norms[:, None]
        self.fill_norms(force=True)

    # ------------------------------------------------------------------ similarity queries

    def get_mean_vector(self, keys, weights=None, pre_normalize=True, post_normalize=False, ignore_missing=True):
        """sum_i w_i v_i / sum_i |w_i| over keys (or raw vectors) in `keys`; each v_i unit length if
        pre_normalize; the result unit length if post_normalize. Missing keys are skipped, or
        raise KeyError if ignore_missing=False."""
        if len(keys) == 0:
            raise ValueError("cannot compute mean with no input")
        weights = np.ones(len(keys)) if weights is None else np.asarray(weights, dtype=np.float64)
        if weights.shape[0] != len(keys):
            raise ValueError("keys and weights array must have same number of elements")
        mean = np.zeros(self.vector_size, dtype=self.vectors.dtype)
        total = 0.0
        for key, w in zip(keys, weights):
            if isinstance(key, np.ndarray):
                mean += w * key
            elif key in self:
                mean += w * self.get_vector(key, norm=pre_normalize)
            elif not ignore_missing:
                raise KeyError(f"Key '{key}' not present in vocabulary")
            else:
                continue
            total += abs(w)
        if total > 0:
            mean = mean / total
        return _unit(mean).astype(self.vectors.dtype) if post_normalize else mean

    def _split_weighted(self, positive, negative):
        """keys and weights: +1 for positive, -1 for negative, or the weight of a (key, weight) tuple."""
        positive, negative = _as_list(positive), _as_list(negative)
        keys, weights = [], []
        for items, sign in ((positive, 1.0), (negative, -1.0)):
            for item in items:
                if isinstance(item, _KEY_OR_VECTOR_TYPES):
                    keys.append(item)
                    weights.append(sign)
                else:
                    keys.append(item[0])
                    weights.append(float(item[1]))
        return keys, np.array(weights)

    def _clip(self, restrict_vocab, clip_start=0, clip_end=None):
        """The rows searched: the first restrict_vocab, else clip_start:clip_end; never the
        unfilled rows of a preallocated KeyedVectors(d, count)."""
        n = min(len(self.index_to_key), len(self.vectors))
        if restrict_vocab:
            return 0, min(int(restrict_vocab), n)
        return clip_start, min(clip_end or n, n)

    def _ranked(self, scores, topn, start, exclude):
        """[(key, score)] of the topn best rows of `scores` (rows start..), skipping rows in `exclude`."""
        best = _top(scores, min(len(scores), topn + len(exclude)))
        result = [(self.index_to_key[i + start], float(scores[i])) for i in best if i + start not in exclude]
        return result[:topn]

    def most_similar(self, positive=None, negative=None, topn=10, clip_start=0, clip_end=None,
                     restrict_vocab=None, indexer=None):
        """The topn keys closest (cosine) to the mean of the unit vectors of `positive` minus those of
        `negative`: 3CosAdd (Mikolov et al. 2013) for positive=[b, c], negative=[a].

        Items may be keys, vectors, or (key_or_vector, weight) tuples. The query keys are not
        returned. restrict_vocab=n searches only the first n keys. topn=None returns the
        similarities to every key as an array. `indexer` is accepted and ignored (exact search).
        """
        if isinstance(topn, Integral) and topn < 1:
            return []
        keys, weights = self._split_weighted(positive, negative)
        self.fill_norms()
        start, end = self._clip(restrict_vocab, clip_start, clip_end)
        mean = self.get_mean_vector(keys, weights, pre_normalize=True, post_normalize=True, ignore_missing=False)
        query_rows = {self.get_index(k) for k in keys if isinstance(k, _KEY_TYPES) and self.has_index_for(k)}
        scores = self.vectors[start:end] @ mean / self.norms[start:end]
        if not topn:
            return scores
        return self._ranked(scores, topn, start, query_rows)

    def similar_by_key(self, key, topn=10, restrict_vocab=None):
        return self.most_similar(positive=[key], topn=topn, restrict_vocab=restrict_vocab)

    similar_by_word = similar_by_key

    def similar_by_vector(self, vector, topn=10, restrict_vocab=None):
        return self.most_similar(positive=[vector], topn=topn, restrict_vocab=restrict_vocab)

    def most_similar_cosmul(self, positive=None, negative=None, topn=10, restrict_vocab=None):
        """3CosMul (Levy & Goldberg 2014, eq. 4): argmax_x prod_pos s(x, p) / (prod_neg s(x, n) + eps),
        with each cosine shifted to s = (1 + cos) / 2 in [0, 1] (their footnote 7) and eps = 1e-6,
        as gensim. Keys may be given as keys or vectors (vectors are used at unit length; gensim
        uses them as given) and restrict_vocab is honoured (gensim ignores it)."""
        if isinstance(topn, Integral) and topn < 1:
            return []
        positive, negative = _as_list(positive), _as_list(negative)
        if not positive:
            raise ValueError("cannot compute similarity with no input")
        self.fill_norms()
        start, end = self._clip(restrict_vocab)
        query_rows = {self.get_index(k) for k in positive + negative
                      if not isinstance(k, np.ndarray) and self.has_index_for(k)}

        def unit(item):
            return self.get_vector(item, norm=True) if not isinstance(item, np.ndarray) else _unit(item)

        V = self.vectors[start:end]
        norms = self.norms[start:end]

        def shifted(items):  # s(x, t) = (1 + cos(x, t)) / 2 for every row x, per item t
            return [(1 + V @ unit(t) / norms) / 2 for t in items]

        scores = np.prod(shifted(positive), axis=0) / (np.prod(shifted(negative), axis=0) + _COSMUL_EPSILON)
        if not topn:
            return scores
        return self._ranked(scores, topn, start, query_rows)

    def analogy(self, a, b, c, method="3cosadd", restrict_vocab=None):
        """a is to b as c is to ?  The best key other than a, b, c by 3CosAdd (b - a + c) or 3CosMul.

            kv.analogy("man", "king", "woman")   # 'queen', with good vectors
        """
        if method not in ("3cosadd", "3cosmul"):
            raise ValueError(f"analogy: method must be '3cosadd' or '3cosmul', got {method!r}")
        search = self.most_similar if method == "3cosadd" else self.most_similar_cosmul
        result = search(positive=[b, c], negative=[a], topn=1, restrict_vocab=restrict_vocab)
        if not result:
            raise ValueError("analogy: no key left to answer with (the vocabulary holds only the question)")
        return result[0][0]

    def rank_by_centrality(self, words, use_norm=True):
        """[(similarity to the centroid, word)], most central first; unknown words are ignored."""
        self.fill_norms()
        used = [w for w in words if w in self]
        if len(used) != len(words):
            logger.warning("vectors for words %s are not present in the model, ignoring these words",
                           set(words) - set(used))
        if not used:
            raise ValueError("cannot select a word from an empty list")
        vectors = np.vstack([self.get_vector(w, norm=use_norm) for w in used]).astype(np.float32)
        mean = self.get_mean_vector(vectors, post_normalize=True)
        return sorted(zip((vectors @ mean).tolist(), used), reverse=True)

    def doesnt_match(self, words):
        """The word farthest from the mean of the (unit) vectors of `words`."""
        return self.rank_by_centrality(words)[-1][1]

    @staticmethod
    def cosine_similarities(vector_1, vectors_all):
        """cos(vector_1, row) for each row of vectors_all."""
        return (vectors_all @ vector_1) / (np.linalg.norm(vector_1) * np.linalg.norm(vectors_all, axis=1))

    def distances(self, word_or_vector, other_words=()):
        """1 - cosine from a key or vector to each of other_words (all keys if empty)."""
        v = self.get_vector(word_or_vector) if isinstance(word_or_vector, _KEY_TYPES) else word_or_vector
        others = self.vectors if not other_words else self.vectors[[self.get_index(w) for w in other_words]]
        return 1 - self.cosine_similarities(v, others)

    def distance(self, w1, w2):
        return 1 - self.similarity(w1, w2)

    def similarity(self, w1, w2):
        """Cosine similarity of two keys."""
        return np.dot(_unit(self[w1]), _unit(self[w2]))

    def n_similarity(self, ws1, ws2):
        """Cosine similarity of the means of two lists of keys."""
        if not (len(ws1) and len(ws2)):
            raise ZeroDivisionError("At least one of the passed list is empty.")
        mean1 = self.get_mean_vector(ws1, pre_normalize=False)
        mean2 = self.get_mean_vector(ws2, pre_normalize=False)
        return np.dot(_unit(mean1), _unit(mean2))

    def most_similar_to_given(self, key1, keys_list):
        """The key of keys_list most similar to key1."""
        return keys_list[int(np.argmax([self.similarity(key1, k) for k in keys_list]))]

    def closer_than(self, key1, key2):
        """Every key closer to key1 than key2 is (key1 itself excluded)."""
        d = self.distances(key1)
        i1, i2 = self.get_index(key1), self.get_index(key2)
        return [self.index_to_key[i] for i in np.flatnonzero(d < d[i2]) if i != i1]

    def rank(self, key1, key2):
        """1 + the number of keys closer to key1 than key2."""
        return len(self.closer_than(key1, key2)) + 1

    def relative_cosine_similarity(self, wa, wb, topn=10):
        """sim(wa, wb) / sum of sim(wa, .) over wa's topn neighbours (Leeuwenberg et al. 2016)."""
        sims = self.similar_by_word(wa, topn)
        if not sims:
            raise ValueError("Cannot calculate relative cosine similarity without any similar words.")
        return float(self.similarity(wa, wb)) / sum(s for _, s in sims)

    # ------------------------------------------------------------------ evaluation

    def _ok_vocab(self, restrict_vocab, case_insensitive):
        """The searchable keys: the first restrict_vocab keys, uppercased if case_insensitive; where
        case variants collide, the first (most frequent) one wins, as gensim."""
        ok_keys = self.index_to_key[:restrict_vocab]
        if case_insensitive:
            return {k.upper(): i for i, k in reversed(list(enumerate(ok_keys)))}
        return {k: i for i, k in reversed(list(enumerate(ok_keys)))}

    def evaluate_word_analogies(self, analogies, restrict_vocab=300000, case_insensitive=True,
                                dummy4unknown=False, similarity_function="most_similar"):
        """Accuracy on a questions-words.txt style file (": section" lines, then "a b c d" lines):
        a question is right when the best key for b - a + c among the first restrict_vocab keys,
        a, b, c excluded, is d. Returns (score, sections) as gensim: one dict per section with
        'section', 'correct' and 'incorrect' (lists of (a, b, c, d), uppercased if
        case_insensitive), and a last 'Total accuracy' section. Questions with a word outside
        the first restrict_vocab keys are skipped, or count as incorrect if dummy4unknown.
        similarity_function: 'most_similar' (3CosAdd, gensim's) or 'most_similar_cosmul' (3CosMul).

        As gensim: of the 5 best candidates, the first that is not a case variant of a, b or c
        is the answer. All questions are answered with one matrix product per batch.
        """
        if similarity_function not in ("most_similar", "most_similar_cosmul"):
            raise ValueError("evaluate_word_analogies: similarity_function must be 'most_similar' or "
                             f"'most_similar_cosmul', got {similarity_function!r}")
        ok_vocab = self._ok_vocab(restrict_vocab, case_insensitive)
        # pass 1: read the file; each section keeps its questions in file order, with the row
        # of each answerable one in `asked` (None = skipped or, with dummy4unknown, wrong)
        parsed, oov, n_questions, asked = [], 0, 0, []
        with _open_read(analogies) as fin:
            for line_no, raw in enumerate(fin):
                line = raw.decode("utf8")
                if line.startswith(": "):
                    parsed.append((line.lstrip(": ").strip(), []))
                    continue
                if not parsed:
                    raise ValueError(f"Missing section header before line #{line_no} in {analogies}")
                words = [w.upper() for w in line.split()] if case_insensitive else line.split()
                if len(words) != 4:
                    logger.info("Skipping invalid line #%i in %s", line_no, analogies)
                    continue
                n_questions += 1
                if any(w not in ok_vocab for w in words):
                    oov += 1
                    if dummy4unknown:
                        parsed[-1][1].append((tuple(words), None))
                    continue
                parsed[-1][1].append((tuple(words), len(asked)))
                asked.append(tuple(words))
        # pass 2: answer every question at once
        answers = self._answer_analogies(asked, ok_vocab, restrict_vocab, case_insensitive,
                                         cosmul=similarity_function == "most_similar_cosmul")
        sections = []
        for name, items in parsed:
            section = {"section": name, "correct": [], "incorrect": []}
            for words, q in items:
                right = q is not None and answers[q] == words[3]
                section["correct" if right else "incorrect"].append(words)
            sections.append(section)
        total = {"section": "Total accuracy",
                 "correct": list(itertools.chain.from_iterable(s["correct"] for s in sections)),
                 "incorrect": list(itertools.chain.from_iterable(s["incorrect"] for s in sections))}
        if n_questions:
            logger.info("Quadruplets with out-of-vocabulary words: %.1f%%", 100.0 * oov / n_questions)
        for s in sections + [total]:
            c, i = len(s["correct"]), len(s["incorrect"])
            if c + i:
                logger.info("%s: %.1f%% (%i/%i)", s["section"], 100.0 * c / (c + i), c, c + i)
        c, i = len(total["correct"]), len(total["incorrect"])
        score = c / (c + i) if c + i else 0.0
        sections.append(total)
        return score, sections

    def _answer_analogies(self, questions, ok_vocab, restrict_vocab, case_insensitive, cosmul=False,
                          candidates=5):
        """The answer (in ok_vocab's case) to each question (a, b, c, d): the first of the
        `candidates` best rows, a/b/c's rows excluded, that is not a case variant of a, b, c."""
        if not questions:
            return []
        self.fill_norms()
        n = len(self.vectors) if restrict_vocab is None else min(int(restrict_vocab), len(self.vectors))
        V = self.vectors[:n]
        norms = self.norms[:n].astype(V.dtype)
        unit = V / np.where(norms > 0, norms, 1)[:, None]
        keys = [k.upper() for k in self.index_to_key[:n]] if case_insensitive else self.index_to_key[:n]
        rows = np.array([[ok_vocab[w] for w in q[:3]] for q in questions], dtype=np.int64)  # (Q, 3): a, b, c
        answers = []
        batch = max(1, min(1024, (1 << 24) // max(n, 1)))   # score matrices of at most 64 MiB
        for lo in range(0, len(questions), batch):
            r = rows[lo:lo + batch]
            B = len(r)
            if cosmul:
                # s(x, y) = (1 + cos(x, y)) / 2;  score = s(x, b) s(x, c) / (s(x, a) + eps)
                sa, sb, sc = ((1 + unit[r[:, j]] @ V.T / norms) / 2 for j in range(3))
                scores = sb * sc / (sa + _COSMUL_EPSILON)
            else:
                # 3CosAdd: cos(x, unit((b + c - a) / 3)), b, c, a at unit length
                mean = (unit[r[:, 1]] + unit[r[:, 2]] - unit[r[:, 0]]) / 3
                mean /= np.linalg.norm(mean.astype(np.float64), axis=1, keepdims=True).astype(mean.dtype)
                scores = mean @ V.T / norms
            scores[np.arange(B)[:, None], r] = -np.inf            # never answer with a query word
            k = min(candidates, n)
            best = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < n else np.tile(np.arange(n), (B, 1))
            order = np.argsort(-np.take_along_axis(scores, best, axis=1), axis=1, kind="stable")
            best = np.take_along_axis(best, order, axis=1)
            finite = np.isfinite(np.take_along_axis(scores, best, axis=1))
            for q, (cand, fin) in enumerate(zip(best.tolist(), finite.tolist())):
                question = questions[lo + q]
                guess = None
                for i, ok in zip(cand, fin):
                    if not ok:
                        break
                    guess = keys[i]
                    if guess in ok_vocab and guess not in question[:3]:
                        break
                answers.append(guess)
        return answers

    def evaluate_word_pairs(self, pairs, delimiter="\t", encoding="utf8", restrict_vocab=300000,
                            case_insensitive=True, dummy4unknown=False):
        """Correlation of cosine similarities with human judgements (wordsim353.tsv format:
        word1<delimiter>word2<delimiter>score, '#' comments). Returns (pearson, spearman,
        oov_ratio) as gensim, each correlation a (statistic, pvalue) pair from scipy.stats."""
        from scipy import stats  # gensim's dependency; only this method needs it

        ok_vocab = self._ok_vocab(restrict_vocab, case_insensitive)
        gold, model, oov = [], [], 0
        with open(pairs, encoding=encoding) as fin:
            for line_no, line in enumerate(fin):
                if not line or line.startswith("#"):
                    continue
                try:
                    fields = line.split(delimiter)
                    a, b, sim = [w.upper() for w in fields] if case_insensitive else fields
                    sim = float(sim)
                except (ValueError, TypeError):
                    logger.info("Skipping invalid line #%d in %s", line_no, pairs)
                    continue
                if a not in ok_vocab or b not in ok_vocab:
                    oov += 1
                    if dummy4unknown:
                        model.append(0.0)
                        gold.append(sim)
                    continue
                gold.append(sim)
                model.append(float(np.dot(_unit(self.vectors[ok_vocab[a]]), _unit(self.vectors[ok_vocab[b]]))))
        if not gold:
            raise ValueError(f"No valid similarity judgements found in {pairs}: either invalid format or "
                             f"all are out-of-vocabulary in {self}")
        spearman = stats.spearmanr(gold, model)
        pearson = stats.pearsonr(gold, model)
        oov_ratio = 100.0 * oov / (len(gold) if dummy4unknown else len(gold) + oov)
        return pearson, spearman, oov_ratio

    # ------------------------------------------------------------------ word2vec formats

    def save_word2vec_format(self, fname, fvocab=None, binary=False, total_vec=None, write_header=True,
                             prefix="", append=False, sort_attr="count"):
        """Write the vectors in the C word2vec format, byte for byte as gensim.

        Text: a header "<count> <size>\\n", then "<key> <v1> ... <vd>\\n" per key, each value
        written as str(np.float32(v)). Binary: the same header, then per key "<key> " followed by
        d little-endian float32 (no newline between entries). Keys are written by descending
        `sort_attr` if the keys have it (else in index order); fvocab gets "<key> <count>" lines.
        The file is replaced atomically (append=True: the old contents, then the new).
        """
        if total_vec is None:
            total_vec = len(self.index_to_key)
        if sort_attr in self.expandos:
            counts = self.expandos[sort_attr]
            order = sorted(range(len(self.index_to_key)), key=lambda i: -counts[i])
        else:
            if fvocab is not None:
                raise ValueError(f"Cannot store vocabulary with '{sort_attr}' because that attribute does not exist")
            logger.warning("attribute %s not present in %s; will store in internal index_to_key order",
                           sort_attr, self)
            order = range(len(self.index_to_key))
        keys_in_order = [self.index_to_key[i] for i in order]
        if (len(self.index_to_key), self.vector_size) != self.vectors.shape:
            raise ValueError(f"save_word2vec_format: {len(self.index_to_key)} keys but vectors of shape "
                             f"{self.vectors.shape}")
        # Both readers end a key at its first space (and a text line at its newline; the binary
        # reader drops leading newlines): such a key would be written and then misread. gensim
        # writes it; seqlab refuses it before any file is touched.
        for key in (f"{prefix}{k}" for k in keys_in_order):
            if " " in key or "\n" in key:
                raise ValueError(f"save_word2vec_format: the key {key!r} holds a space or a newline, which "
                                 f"the word2vec {'binary' if binary else 'text'} format cannot store (its reader ends "
                                 f"a key there); not writing {os.fspath(fname)}")
        if fvocab is not None:
            counts = self.expandos[sort_attr]
            with _open_write(fvocab, append) as vout:
                vout.write("".join(f"{prefix}{k} {counts[self.key_to_index[k]]}\n"
                                   for k in keys_in_order).encode("utf8"))
        # gensim writes a leading run of int keys equal to their row (Doc2Vec's tags) first
        n_int = 0
        for i, key in enumerate(self.index_to_key):
            if i != key:
                break
            n_int += 1
        rows = list(range(n_int)) + [self.key_to_index[k] for k in keys_in_order]
        with _open_write(fname, append) as fout:
            if write_header:
                fout.write(f"{total_vec} {self.vector_size}\n".encode("utf8"))
            chunk = []
            for row in rows:
                key, v = self.index_to_key[row], self.vectors[row]
                if binary:
                    chunk.append(f"{prefix}{key} ".encode("utf8") + v.astype(np.float32).tobytes())
                else:
                    chunk.append(f"{prefix}{key} {' '.join(map(str, v))}\n".encode("utf8"))
                if len(chunk) == 10000:
                    fout.write(b"".join(chunk))
                    chunk = []
            fout.write(b"".join(chunk))

    @classmethod
    def load_word2vec_format(cls, fname, fvocab=None, binary=False, encoding="utf8", unicode_errors="strict",
                             limit=None, datatype=np.float32, no_header=False):
        """Read a C word2vec text or binary file (also .gz / .bz2), as gensim.

        fvocab: the "<word> <count>" file of word2vec's -save-vocab; without it, counts are
        made up in descending order (n - row), as gensim. limit: read only the first `limit`
        vectors. no_header: a text file without the "<count> <size>" line (e.g. GloVe's).
        A damaged file raises ValueError naming the file and what is wrong.
        """
        counts = None
        if fvocab is not None:
            counts = {}
            with _open_read(fvocab) as fin:
                for line_no, line in enumerate(fin, 1):
                    fields = line.decode(encoding, errors=unicode_errors).strip().split()
                    if not fields:
                        continue
                    try:
                        word, count = fields
                        counts[word] = int(count)
                    except ValueError:
                        raise ValueError(f"{fvocab}, line {line_no}: expected '<word> <count>', "
                                         f"got {line[:80]!r}") from None
        reader = _Word2VecReader(fname, encoding, unicode_errors, datatype)
        with _open_read(fname) as fin:
            if no_header:
                if binary:
                    raise NotImplementedError("no_header only available for text-format files")
                vocab_size, vector_size = reader.detect_sizes(fin, limit)
                fin.seek(0)
            else:
                vocab_size, vector_size = reader.header(fin)
            if limit:
                vocab_size = min(vocab_size, int(limit))
            try:
                kv = cls(vector_size, vocab_size, dtype=datatype)
            except (ValueError, MemoryError, OverflowError):  # a damaged header: no array that size
                reader.fail(f"the header declares {vocab_size} vectors of size {vector_size}, more than memory "
                            f"can hold")
            read = reader.binary if binary else reader.text
            for word, vector in read(fin, vocab_size, vector_size, check_end=not limit):
                if word in kv.key_to_index:
                    logger.warning("duplicate word '%s' in word2vec file, ignoring all but first", word)
                    continue
                row = kv.add_vector(word, vector)
                if counts is None:
                    count = vocab_size - row
                elif word in counts:
                    count = counts[word]
                else:
                    logger.warning("vocabulary file is incomplete: '%s' is missing", word)
                    count = 0
                kv.set_vecattr(word, "count", count)
        if kv.vectors.shape[0] != len(kv):  # duplicates were dropped
            kv.vectors = np.ascontiguousarray(kv.vectors[:len(kv)])
        return kv

    # ------------------------------------------------------------------ seqlab's own format

    def save(self, fname):
        """Write everything (keys, vectors, per-key attributes) to one .npz file, atomically.
        Keys and object-typed attributes are stored as JSON (str and int round-trip), numeric
        arrays as arrays; nothing is pickled."""
        bad = next((k for k in self.index_to_key if not isinstance(k, (str, int, np.integer))), None)
        if bad is not None:
            raise ValueError(f"KeyedVectors.save: keys must be str or int, got {bad!r} ({type(bad).__name__})")
        arrays = {f"attr.{name}": values for name, values in self.expandos.items() if values.dtype != object}
        meta = {"format": _SAVE_FORMAT, "vector_size": self.vector_size, "keys": list(self.index_to_key),
                "class": type(self).__name__,
                "object_attrs": {name: values.tolist() for name, values in self.expandos.items()
                                 if values.dtype == object}}
        try:
            meta_text = json.dumps(meta, ensure_ascii=False, default=_json_integer)
        except (TypeError, ValueError) as e:
            raise ValueError(f"KeyedVectors.save: keys and object attributes must be str or int: {e}") from None
        with atomic_open(fname, "wb") as f:
            np.savez(f, meta=np.array(meta_text), vectors=self.vectors, **arrays)

    @classmethod
    def load(cls, fname):
        """Read a file written by save(); a damaged or foreign file raises ValueError naming it."""
        try:
            with np.load(fname, allow_pickle=False) as z:
                meta = json.loads(z["meta"].item())
                vectors = z["vectors"]
                attrs = {name[5:]: z[name] for name in z.files if name.startswith("attr.")}
        except FileNotFoundError:
            raise
        except Exception as e:  # noqa: BLE001 -- zip, JSON and key errors all mean "not a KeyedVectors file"
            raise ValueError(f"KeyedVectors.load: {fname} is not a readable KeyedVectors file "
                             f"({type(e).__name__}: {e})") from None
        if meta.get("format") != _SAVE_FORMAT:
            raise ValueError(f"KeyedVectors.load: {fname} has format {meta.get('format')!r}, "
                             f"expected {_SAVE_FORMAT!r}")
        keys = meta["keys"]
        if vectors.shape != (len(keys), meta["vector_size"]):
            raise ValueError(f"KeyedVectors.load: {fname} holds {len(keys)} keys but vectors of shape "
                             f"{vectors.shape}")
        kv = cls(meta["vector_size"], 0, dtype=vectors.dtype)
        kv.index_to_key = keys
        kv.key_to_index = {k: i for i, k in enumerate(keys)}
        kv.vectors = np.ascontiguousarray(vectors)
        for name, values in meta.get("object_attrs", {}).items():
            attrs[name] = np.empty(len(values), dtype=object)
            attrs[name][:] = values
        for name, values in attrs.items():
            if len(values) != len(keys):
                raise ValueError(f"KeyedVectors.load: {fname}: attribute {name!r} has {len(values)} "
                                 f"entries for {len(keys)} keys")
            kv.expandos[name] = values
        return kv


# ---------------------------------------------------------------------- file helpers

def _open_read(path):
    """Open a file for reading bytes; .gz and .bz2 are decompressed."""
    path = os.fspath(path)
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        return bz2.open(path, "rb")
    return open(path, "rb")


@contextlib.contextmanager
def _open_write(path, append=False):
    """Write bytes to `path` atomically (compressed for .gz / .bz2). append=True: the temporary
    file first receives a copy of the current contents, then the new bytes."""
    path = os.fspath(path)
    with atomic_open(path, "wb") as raw:
        if append and os.path.exists(path):
            with open(path, "rb") as old:
                shutil.copyfileobj(old, raw)
        if path.endswith(".gz"):
            with gzip.GzipFile(fileobj=raw, mode="ab" if append else "wb") as f:
                yield f
        elif path.endswith(".bz2"):
            with bz2.BZ2File(raw, mode="ab" if append else "wb") as f:
                yield f
        else:
            yield raw


class _Word2VecReader:
    """Parses the word2vec formats; every error names the file and what is wrong."""

    def __init__(self, fname, encoding, unicode_errors, datatype):
        self.fname, self.encoding, self.errors, self.datatype = os.fspath(fname), encoding, unicode_errors, datatype

    def fail(self, what):
        raise ValueError(f"{self.fname}: {what}")

    def decode(self, raw, where):
        try:
            return raw.decode(self.encoding, errors=self.errors)
        except UnicodeDecodeError as e:
            self.fail(f"{where} is not valid {self.encoding} ({e.reason} at byte {e.start}); "
                      f"pass unicode_errors='replace' or 'ignore' to read it anyway")

    def header(self, fin):
        line = fin.readline()
        fields = self.decode(line, "the header").split()
        try:
            vocab_size, vector_size = (int(x) for x in fields)
        except ValueError:
            self.fail(f"the first line must be the header '<number of vectors> <vector size>', got {line[:80]!r} "
                      f"(for a file without a header pass no_header=True)")
        if vocab_size < 0 or vector_size < 1:
            self.fail(f"the header declares {vocab_size} vectors of size {vector_size}")
        return vocab_size, vector_size

    def parse_line(self, line, line_no, vector_size=None):
        parts = self.decode(line.rstrip(), f"line {line_no}").split(" ")
        word, values = parts[0], parts[1:]
        if vector_size is not None and len(values) != vector_size:
            self.fail(f"line {line_no} ('{word[:40]}') has {len(values)} values, expected {vector_size}")
        try:
            vector = np.array(values, dtype=np.float64).astype(self.datatype)
        except ValueError:
            bad = next(v for v in values if not _is_number(v))
            self.fail(f"line {line_no} ('{word[:40]}') holds the non-numeric value {bad[:40]!r}")
        return word, vector

    def detect_sizes(self, fin, limit):
        vocab_size, vector_size = 0, None
        for line in fin:
            if limit and vocab_size == limit:
                break
            if vector_size is None:
                vector_size = len(self.parse_line(line, 1)[1])
                if vector_size == 0:
                    self.fail("line 1 holds a word without a vector")
            vocab_size += 1
        if vector_size is None:
            self.fail("the file is empty")
        return vocab_size, vector_size

    def text(self, fin, vocab_size, vector_size, check_end):
        line_no = 1
        for i in range(vocab_size):
            line = fin.readline()
            line_no += 1
            if not line:
                self.fail(f"truncated: the header declares {vocab_size} vectors, the file ends after {i}")
            yield self.parse_line(line, line_no, vector_size)
        if check_end and fin.read(1 << 16).strip():
            self.fail(f"the file holds more than the {vocab_size} vectors its header declares")

    def binary(self, fin, vocab_size, vector_size, check_end, chunk_size=1 << 20):
        """Entries are "<word> " + vector_size float32, read in chunks (a limit reads no further)."""
        n_bytes = vector_size * np.dtype(np.float32).itemsize
        buf, pos, consumed, eof = b"", 0, 0, False   # consumed: file offset of buf[0] after the header
        i = 0
        while i < vocab_size:
            space = buf.find(b" ", pos)
            if space < 0 or len(buf) - (space + 1) < n_bytes:
                if eof:
                    if space < 0:
                        self.fail(f"truncated: the header declares {vocab_size} vectors, the file ends after {i}")
                    word = self.decode(buf[pos:space], f"word {i}").lstrip("\n")
                    self.fail(f"truncated: vector {i} ('{word[:40]}') has {len(buf) - space - 1} of its "
                              f"{n_bytes} bytes ({vector_size} float32); the header declares {vocab_size} vectors")
                more = fin.read(chunk_size)
                eof = not more
                consumed += pos
                buf, pos = buf[pos:] + more, 0
                continue
            word = self.decode(buf[pos:space], f"word {i} (byte {consumed + pos} after the header)").lstrip("\n")
            vector = np.frombuffer(buf, dtype=np.float32, count=vector_size, offset=space + 1).astype(self.datatype)
            pos = space + 1 + n_bytes
            i += 1
            yield word, vector
        if check_end:
            rest = buf[pos:] + fin.read(1 << 16)
            if rest.strip():
                self.fail(f"data follow the {vocab_size} vectors the header declares "
                          f"(is the header's count or vector size wrong?)")


def _json_integer(o):
    """json.dumps' fallback: NumPy integers become ints; anything else is refused."""
    if isinstance(o, np.integer):
        return int(o)
    raise TypeError(f"{o!r} of type {type(o).__name__} is not JSON serialisable")


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False
