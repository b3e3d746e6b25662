"""GloVe: Global Vectors for word representation (Pennington, Socher & Manning 2014).

    from seqlab.embed import GloVe
    model = GloVe(sentences, vector_size=100, window=10, min_count=5, epochs=25, workers=2, seed=1)
    model.wv.most_similar("king")

The co-occurrence counts (X_ij += 1/d for words d <= window apart) and the training run in
C++ threads without the GIL (cpp/src/embed/cooccur.cpp, glove.cpp). The model minimises

    J = sum_ij 1/2 f(X_ij) (w_i . c_j + b_i + b~_j - log X_ij)^2,   f(x) = min(1, (x / x_max)^alpha)

with AdaGrad as Stanford's glove.c, and .wv holds W + C (glove.c's default output).
Arguments keep gensim's names where gensim has them (sentences, corpus_file, vector_size,
window, min_count, epochs, workers, seed) and Stanford's glove otherwise (x_max, alpha,
learning_rate = glove's -eta, symmetric, distance_weighting). Tested in tests/test_glove.py.

save()/load() keep the whole model in one safetensors file (seqlab.save, atomic): the
co-occurrence matrix, W, C, the biases and AdaGrad's accumulators, so train() goes on after
load() exactly as it would have without it.
"""
import os

import warnings

import numpy as np

from .. import _core
from ..data.encode import encode_corpus
from ._file import load_state, missing, save_model
from .keyedvectors import KeyedVectors

__all__ = ["GloVe"]

FORMAT = "seqlab.embed.GloVe"
FORMAT_VERSION = 1
_PARAMS = ("vector_size", "window", "min_count", "x_max", "alpha", "learning_rate", "epochs", "workers", "seed",
           "symmetric", "distance_weighting")


def _check_counts(who, min_count, workers):
    """The constructor's check of min_count (>= 1, as _vocabulary needs) and workers: threads that
    the C++ counter and trainer start at once, at most seqlab's bound (4 per CPU, set_num_threads')."""
    if not isinstance(min_count, (int, np.integer)) or min_count < 1:
        raise ValueError(f"{who}: min_count must be an int >= 1, got {min_count!r}")
    top = _core._max_threads()
    if not isinstance(workers, (int, np.integer)) or not 1 <= workers <= top:
        raise ValueError(f"{who}: workers must be an int from 1 to {top} (4 per CPU), got {workers!r}")


def _vocabulary(sentences, corpus_file, min_count, who):
    """encode_corpus with gensim's min_count: the vocabulary by descending count, words seen
    fewer than min_count times dropped (their ids become -1, so windows close over them)."""
    if (sentences is None) == (corpus_file is None):
        raise ValueError(f"{who}: give exactly one of sentences and corpus_file")
    if min_count < 1:
        raise ValueError(f"{who}: min_count must be >= 1, got {min_count}")
    enc = encode_corpus(corpus_file if corpus_file is not None else sentences, who=who)
    n_kept = int(np.searchsorted(-enc.counts, -min_count, side="right"))  # counts are sorted descending
    ids = enc.ids.copy()
    ids[ids >= n_kept] = -1
    if n_kept == 0:
        raise ValueError(f"{who}: no word occurs at least min_count={min_count} times "
                         f"({len(enc.vocab)} distinct words in the corpus)")
    return enc.vocab[:n_kept], enc.counts[:n_kept], ids, enc.offsets


def _same_length(arrays, names, who_path):
    if len({arrays[n].shape for n in names}) != 1 or arrays[names[0]].ndim != 1:
        raise ValueError(f"{who_path} is corrupt: {', '.join(names)} must be vectors of one length")


def _make_keyed_vectors(words, counts, vectors):
    kv = KeyedVectors(vectors.shape[1])
    kv.index_to_key = list(words)
    kv.key_to_index = {w: i for i, w in enumerate(words)}
    kv.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    kv.expandos["count"] = np.asarray(counts, dtype=np.int64).copy()
    return kv


class GloVe:
    """GloVe word vectors (Pennington et al. 2014): weighted least squares on log co-occurrence counts,
    f(X_ij) (w_i . c_j + b_i + b~_j - log X_ij)^2 with f(x) = min(1, (x / x_max)^alpha), trained by
    AdaGrad; `wv` holds the vectors as gensim's KeyedVectors."""
    def __init__(self, sentences=None, corpus_file=None, vector_size=100, window=10, min_count=5, x_max=100,
                 alpha=0.75, learning_rate=0.05, epochs=25, workers=2, seed=1, symmetric=True,
                 distance_weighting=True, progress=True):
        """Count co-occurrences and train, if sentences (token lists or lines) or corpus_file
        (a path, one sentence per line) is given; else call build_vocab() then train()."""
        for name, value, low in (("vector_size", vector_size, 1), ("window", window, 1), ("epochs", epochs, 0)):
            if not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"GloVe: {name} must be an int >= {low}, got {value!r}")
        if vector_size > _core.word2vec.MAX_VECTOR_SIZE:  # Word2Vec's bound, for the same reason (word2vec.hpp)
            raise ValueError(f"GloVe: vector_size must be at most {_core.word2vec.MAX_VECTOR_SIZE}, got {vector_size}")
        _check_counts("GloVe", min_count, workers)
        for name, value in (("x_max", x_max), ("learning_rate", learning_rate)):
            if not 0 < value < np.inf:
                raise ValueError(f"GloVe: {name} must be > 0 and finite, got {value!r}")
        if not 0 <= alpha < np.inf:
            raise ValueError(f"GloVe: alpha must be >= 0 and finite, got {alpha!r}")
        self.vector_size, self.window, self.min_count = int(vector_size), int(window), int(min_count)
        self.x_max, self.alpha, self.learning_rate = float(x_max), float(alpha), float(learning_rate)
        self.epochs, self.workers, self.seed = int(epochs), int(workers), int(seed)
        self.symmetric, self.distance_weighting, self.progress = bool(symmetric), bool(distance_weighting), progress
        self.wv = KeyedVectors(self.vector_size)
        self.cost_history = []   # glove.c's "cost" (mean J_ij over the pass) of every epoch trained
        self._trainer = None
        if sentences is not None or corpus_file is not None:
            self.build_vocab(sentences=sentences, corpus_file=corpus_file)
            self.train()

    def build_vocab(self, sentences=None, corpus_file=None):
        """Build the vocabulary, count co-occurrences (C++) and initialise the parameters."""
        words, counts, ids, offsets = _vocabulary(sentences, corpus_file, self.min_count, "GloVe")
        row, col, value = _core.glove.cooccurrence(ids, offsets, len(words), self.window, self.symmetric,
                                                   self.distance_weighting, self.workers)
        self._words, self._counts = words, counts
        self._cooccurrence = (row, col, value)
        self._trainer = _core.glove.Trainer(row, col, value, len(words), self.vector_size, self.x_max, self.alpha,
                                            self.learning_rate, self.workers, self.seed)
        self.cost_history = []
        self._update_wv()
        return self

    def train(self, epochs=None):
        """Run `epochs` (default: the constructor's) more AdaGrad passes; returns the costs."""
        if self._trainer is None:
            raise RuntimeError("GloVe.train: call build_vocab() first (or pass sentences to GloVe())")
        epochs = self.epochs if epochs is None else int(epochs)
        bar = range(epochs)
        if self.progress:
            from tqdm.auto import tqdm
            bar = tqdm(bar, desc="GloVe", unit="epoch")
        costs = []
        for _ in bar:
            costs.append(self._trainer.train_epoch())   # C++ threads, GIL released
            if self.progress:
                bar.set_postfix(cost=f"{costs[-1]:.6f}")
        if self.progress:
            bar.close()
        self.cost_history.extend(costs)
        self._update_wv()
        if not np.all(np.isfinite(self.wv.vectors)):  # as glove.c's "Caught NaN", but once and by name
            warnings.warn(f"GloVe.train: the vectors diverged to inf or NaN (learning_rate={self.learning_rate}); "
                          "lower learning_rate", RuntimeWarning, stacklevel=2)
        return costs

    def _update_wv(self):
        p = self._trainer.parameters()
        self.wv = _make_keyed_vectors(self._words, self._counts, p["W"] + p["C"])

    # ------------------------------------------------------------------ save / load

    def save(self, fname):
        """Writes the model (parameters, vocabulary and counts, co-occurrences, W, C, biases,
        AdaGrad accumulators, cost history) to one safetensors file with seqlab.save (atomic: a
        crash leaves any previous file intact)."""
        if self._trainer is None:
            raise RuntimeError("GloVe.save: the model has nothing to save yet; call build_vocab() (or pass sentences "
                               "to GloVe()) first")
        row, col, value = self._cooccurrence
        arrays = {"count": np.asarray(self._counts, dtype=np.int64), "row": row.astype(np.int64),
                  "col": col.astype(np.int64), "value": value, **self._trainer.parameters()}
        save_model(self, fname, FORMAT, FORMAT_VERSION, {k: getattr(self, k) for k in _PARAMS}, self._words, arrays,
                   {"cost_history": [float(c) for c in self.cost_history]})

    @classmethod
    def load(cls, fname):
        """Reads a model written by save(); train() continues it as if it had not been saved."""
        def expected(V, state):
            d = state["params"]["vector_size"]
            f64 = np.float64
            return {"count": (np.int64, (V,), True), "row": (np.int64, None, True), "col": (np.int64, None, True),
                    "value": (f64, None, True), "W": (f64, (V, d), True), "C": (f64, (V, d), True),
                    "bw": (f64, (V,), True), "bc": (f64, (V,), True), "gW": (f64, (V, d), True),
                    "gC": (f64, (V, d), True), "gbw": (f64, (V,), True), "gbc": (f64, (V,), True)}

        state, arrays = load_state(cls, fname, FORMAT, FORMAT_VERSION, _PARAMS, expected)
        where = f"GloVe.load: '{os.fspath(fname)}'"
        _same_length(arrays, ["row", "col", "value"], where)
        model = cls.__new__(cls)
        for k in _PARAMS:
            setattr(model, k, state["params"][k])
        model.progress = True
        model._words = list(state["index_to_key"])
        model._counts = arrays["count"]
        if "cost_history" not in state:
            raise missing(cls, fname, "'cost_history'")
        cost_history = state["cost_history"]
        if not isinstance(cost_history, list) or not all(isinstance(c, (int, float)) for c in cost_history):
            raise ValueError(f"{where} is corrupt: cost_history must be a list of numbers")
        model.cost_history = [float(c) for c in cost_history]
        row, col = arrays["row"], arrays["col"]
        V = len(model._words)
        if len(row) and (min(row.min(), col.min()) < 0 or max(row.max(), col.max()) >= V):
            raise ValueError(f"{where} is corrupt: a co-occurrence index is outside the {V} words")
        model._cooccurrence = (row.astype(np.int32), col.astype(np.int32), arrays["value"])
        try:
            model._trainer = _core.glove.Trainer(*model._cooccurrence, V, model.vector_size, model.x_max, model.alpha,
                                                 model.learning_rate, model.workers, model.seed)
            model._trainer.set_parameters({k: arrays[k] for k in ("W", "C", "bw", "bc", "gW", "gC", "gbw", "gbc")})
        except (ValueError, TypeError) as e:
            raise ValueError(f"{where} is corrupt: {e}") from None
        model._update_wv()
        return model

    # ------------------------------------------------------------------ for teaching

    def parameters(self):
        """W, C (the paper's w and w~), biases bw, bc, and AdaGrad's accumulators, as float64 copies."""
        return self._trainer.parameters()

    def cost(self):
        """J = sum_ij 1/2 f(X_ij) (w_i . c_j + bw_i + bc_j - log X_ij)^2 at the current parameters."""
        return self._trainer.cost()

    def cooccurrence_matrix(self, dense=False):
        """X as (row, col, value) arrays sorted by (row, col), or a dense (V, V) array."""
        row, col, value = self._cooccurrence
        if not dense:
            return row, col, value
        X = np.zeros((len(self._words), len(self._words)))
        X[row, col] = value
        return X

    def __repr__(self):
        return (f"GloVe<vocab={len(self.wv)}, vector_size={self.vector_size}, window={self.window}, "
                f"x_max={self.x_max:g}, alpha={self.alpha:g}>")
