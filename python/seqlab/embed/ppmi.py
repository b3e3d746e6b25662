"""PPMI + truncated SVD: word vectors as a factorisation of the shifted positive PMI matrix
(Levy & Goldberg 2014, "Neural word embedding as implicit matrix factorization"; Levy,
Goldberg & Dagan 2015, "Improving distributional similarity with lessons learned from word
embeddings", whose hyperparameter names cds, neg, eig are kept).

    from seqlab.embed import PPMI
    model = PPMI(sentences, window=5, min_count=5, vector_size=100)
    model.wv.most_similar("king")
    model.ppmi_matrix(dense=True)          # the matrix being factorised, for teaching

    #(w, c)       co-occurrences within the window (unweighted, both sides; C++, cooccur.cpp)
    P_a(c)       = #(c)^cds_alpha / sum_c' #(c')^cds_alpha     (context distribution smoothing)
    PMI(w, c)    = log( #(w, c) / (#(w) P_a(c)) )
    SPPMI(w, c)  = max(PMI(w, c) - log(neg), 0)                (SGNS with neg negatives ~ shift by log neg)
    SPPMI ~ U S V^T (rank vector_size),   W = U S^eig

The SVD is NumPy's on the dense matrix when the vocabulary is small, else a seeded randomised
SVD (Halko, Martinsson & Tropp 2011, Algorithms 4.4 and 5.1) whose sparse products run in C++.
No SciPy. save()/load() keep the model (counts, co-occurrences, SPPMI, vectors, context
vectors, singular values) in one safetensors file. Tested in tests/test_ppmi.py.
"""
import os
import warnings

import numpy as np

from .. import _core
from ._file import load_state, missing, save_model
from .glove import FORMAT_VERSION, _check_counts, _make_keyed_vectors, _same_length, _vocabulary

__all__ = ["PPMI", "randomized_svd"]

FORMAT = "seqlab.embed.PPMI"
_PARAMS = ("window", "min_count", "vector_size", "cds_alpha", "neg", "eig", "seed", "workers", "svd", "n_oversamples",
           "n_iter")

DENSE_SVD_MAX_WORDS = 2000   # svd="auto": np.linalg.svd up to this many words


class _CSR:
    """A sparse matrix in compressed rows, from COO entries sorted by (row, col)."""

    def __init__(self, row, col, value, shape, workers=2):
        self.shape, self.workers = shape, workers
        self.indptr = np.zeros(shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=shape[0]), out=self.indptr[1:])
        self.indices = np.ascontiguousarray(col, dtype=np.int32)
        self.data = np.ascontiguousarray(value, dtype=np.float64)
        self._coo = (row, col, value)

    def transpose(self):
        row, col, value = self._coo
        order = np.lexsort((row, col))   # by (col, row)
        return _CSR(col[order], row[order], value[order], self.shape[::-1], self.workers)

    def __matmul__(self, X):
        X = np.ascontiguousarray(X, dtype=np.float64)
        return _core.glove.csr_matmul(self.indptr, self.indices, self.data, X, self.workers)

    def toarray(self):
        A = np.zeros(self.shape)
        row, col, value = self._coo
        A[row, col] = value
        return A


def _flip_signs(U, Vt):
    """Make the largest-magnitude entry of each column of U positive (SVD signs are arbitrary)."""
    signs = np.sign(U[np.argmax(np.abs(U), axis=0), np.arange(U.shape[1])])
    signs[signs == 0] = 1
    return U * signs, Vt * signs[:, None]


def randomized_svd(A, k, n_oversamples=10, n_iter=4, seed=1):
    """Rank-k SVD of A (a dense array, or anything with @, .T @ via transpose(), .shape):
    Halko et al. 2011. Range finder with power iterations (Alg. 4.4): Q spans A Omega for a
    Gaussian Omega with k + n_oversamples columns, refined n_iter times by Q <- qr(A qr(A^T Q));
    then the SVD of the small B = Q^T A (Alg. 5.1). Returns U (m, k), S (k,), Vt (k, n)."""
    m, n = A.shape
    l = min(k + n_oversamples, m, n)
    At = A.transpose() if hasattr(A, "transpose") and not isinstance(A, np.ndarray) else A.T
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(A @ rng.standard_normal((n, l)))
    for _ in range(n_iter):
        Q, _ = np.linalg.qr(At @ Q)
        Q, _ = np.linalg.qr(A @ Q)
    B = (At @ Q).T                     # Q^T A, (l, n)
    Ub, S, Vt = np.linalg.svd(B, full_matrices=False)
    U, Vt = _flip_signs(Q @ Ub, Vt)
    return U[:, :k], S[:k], Vt[:k]


class PPMI:
    """Count-based word vectors: positive pointwise mutual information of window co-occurrences
    (context counts smoothed with cds_alpha), factorised by a truncated SVD (Levy, Goldberg & Dagan
    2015); `wv` holds the vectors as gensim's KeyedVectors."""
    def __init__(self, sentences=None, corpus_file=None, window=5, min_count=5, vector_size=100, cds_alpha=0.75,
                 neg=1, eig=0.5, seed=1, workers=2, svd="auto", n_oversamples=10, n_iter=4):
        """Count, weight and factorise, if sentences (token lists or lines) or corpus_file is given.

        svd: "dense" (np.linalg.svd), "randomized", or "auto" (dense up to 2000 words)."""
        if not isinstance(window, (int, np.integer)) or window < 1:
            raise ValueError(f"PPMI: window must be an int >= 1, got {window!r}")
        if not isinstance(vector_size, (int, np.integer)) or vector_size < 1:
            raise ValueError(f"PPMI: vector_size must be an int >= 1, got {vector_size!r}")
        _check_counts("PPMI", min_count, workers)
        if not 1 <= neg < np.inf:
            raise ValueError(f"PPMI: neg must be >= 1 and finite (the shift is log neg), got {neg!r}")
        if not 0 < cds_alpha < np.inf:
            raise ValueError(f"PPMI: cds_alpha must be > 0 and finite, got {cds_alpha!r}")
        if not -np.inf < eig < np.inf:
            raise ValueError(f"PPMI: eig must be finite, got {eig!r}")
        for name, value in (("n_oversamples", n_oversamples), ("n_iter", n_iter)):
            if not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"PPMI: {name} must be an int >= 0, got {value!r}")
        if svd not in ("auto", "dense", "randomized"):
            raise ValueError(f"PPMI: svd must be 'auto', 'dense' or 'randomized', got {svd!r}")
        self.window, self.min_count, self.vector_size = int(window), int(min_count), int(vector_size)
        self.cds_alpha, self.neg, self.eig, self.seed, self.workers = float(cds_alpha), neg, float(eig), seed, workers
        self.svd, self.n_oversamples, self.n_iter = svd, n_oversamples, n_iter
        self.wv = None
        if sentences is not None or corpus_file is not None:
            self.build_vocab(sentences=sentences, corpus_file=corpus_file)
            self.train()

    def build_vocab(self, sentences=None, corpus_file=None):
        """Vocabulary (gensim's min_count), co-occurrence counts (C++), and the SPPMI matrix."""
        words, counts, ids, offsets = _vocabulary(sentences, corpus_file, self.min_count, "PPMI")
        self._words, self._counts = words, counts
        self._cooccurrence = _core.glove.cooccurrence(ids, offsets, len(words), self.window, True, False,
                                                      self.workers)
        self._ppmi = self._sppmi(*self._cooccurrence, len(words))
        return self

    def _sppmi(self, row, col, value, V):
        """The nonzeros of max(PMI_alpha - log neg, 0), as (row, col, value)."""
        n_w = np.bincount(row, weights=value, minlength=V)           # #(w)
        n_c = np.bincount(col, weights=value, minlength=V)           # #(c)
        p_c = n_c ** self.cds_alpha
        p_c /= p_c.sum()                                              # P_alpha(c)
        pmi = np.log(value) - np.log(n_w[row]) - np.log(p_c[col])     # log #(w,c) / (#(w) P_alpha(c))
        shifted = pmi - np.log(self.neg)
        keep = shifted > 0
        return row[keep], col[keep], shifted[keep]

    def train(self):
        """Factorise the SPPMI matrix: W = U_k S_k^eig."""
        V = len(self._words)
        k = self.vector_size
        if k > V:
            warnings.warn(f"PPMI: vector_size={k} exceeds the vocabulary ({V} words); using {V}", stacklevel=2)
            k = V
        method = self.svd if self.svd != "auto" else ("dense" if V <= DENSE_SVD_MAX_WORDS else "randomized")
        if method == "dense":
            U, S, Vt = np.linalg.svd(self.ppmi_matrix(dense=True), full_matrices=False)
            U, Vt = _flip_signs(U[:, :k], Vt[:k])
            S = S[:k]
        else:
            A = _CSR(*self._ppmi, (V, V), self.workers)
            U, S, Vt = randomized_svd(A, k, self.n_oversamples, self.n_iter, self.seed)
        self.singular_values = S
        self.svd_method = method
        self.wv = _make_keyed_vectors(self._words, self._counts, U * S ** self.eig)
        self.context_vectors = (Vt.T * S ** self.eig).astype(np.float32)   # Levy et al.'s C, for w + c
        return self

    def save(self, fname):
        """Writes the model (parameters, vocabulary and counts, co-occurrence and SPPMI nonzeros,
        and once trained the vectors, context vectors and singular values) to one safetensors
        file with seqlab.save (atomic: a crash leaves any previous file intact)."""
        if not hasattr(self, "_words"):
            raise RuntimeError("PPMI.save: the model has nothing to save yet; call build_vocab() (or pass sentences "
                               "to PPMI()) first")
        (crow, ccol, cval), (prow, pcol, pval) = self._cooccurrence, self._ppmi
        arrays = {"count": np.asarray(self._counts, dtype=np.int64),
                  "cooccurrence_row": crow.astype(np.int64), "cooccurrence_col": ccol.astype(np.int64),
                  "cooccurrence_value": cval, "ppmi_row": prow.astype(np.int64), "ppmi_col": pcol.astype(np.int64),
                  "ppmi_value": pval}
        extra = {}
        if self.wv is not None:
            arrays.update(vectors=self.wv.vectors, context_vectors=self.context_vectors,
                          singular_values=np.asarray(self.singular_values, dtype=np.float64))
            extra["svd_method"] = self.svd_method
        save_model(self, fname, FORMAT, FORMAT_VERSION, {k: getattr(self, k) for k in _PARAMS}, self._words, arrays,
                   extra)

    @classmethod
    def load(cls, fname):
        """Reads a model written by save()."""
        def expected(V, state):
            i64, f64, f32 = np.int64, np.float64, np.float32
            out = {name: (i64, None, True) for name in ("cooccurrence_row", "cooccurrence_col", "ppmi_row", "ppmi_col")}
            out.update(count=(i64, (V,), True), cooccurrence_value=(f64, None, True), ppmi_value=(f64, None, True),
                       vectors=(f32, None, False), context_vectors=(f32, None, False),
                       singular_values=(f64, None, False))
            return out

        state, arrays = load_state(cls, fname, FORMAT, FORMAT_VERSION, _PARAMS, expected)
        where = f"PPMI.load: '{os.fspath(fname)}'"
        V = len(state["index_to_key"])
        for part in ("cooccurrence", "ppmi"):
            names = [f"{part}_row", f"{part}_col", f"{part}_value"]
            _same_length(arrays, names, where)
            row, col = arrays[names[0]], arrays[names[1]]
            if len(row) and (min(row.min(), col.min()) < 0 or max(row.max(), col.max()) >= V):
                raise ValueError(f"{where} is corrupt: a {part} index is outside the {V} words")
        # a trained model's file holds its factorisation: three arrays and svd_method
        parts = {"vectors": "vectors" in arrays, "context_vectors": "context_vectors" in arrays,
                 "singular_values": "singular_values" in arrays, "svd_method": "svd_method" in state}
        trained = any(parts.values())
        if trained and not all(parts.values()):
            absent = next(k for k, there in parts.items() if not there)
            what = "'svd_method'" if absent == "svd_method" else f"array {absent!r}"
            raise missing(cls, fname, f"{what}, which a trained PPMI's file holds with its "
                                      f"{', '.join(k for k, there in parts.items() if there)}")
        if trained:
            k = arrays["singular_values"].shape[0]
            if (arrays["singular_values"].ndim != 1 or arrays["vectors"].shape != (V, k)
                    or arrays["context_vectors"].shape != (V, k) or not isinstance(state["svd_method"], str)):
                raise ValueError(f"{where} is corrupt: vectors ({V}, k), context_vectors ({V}, k), "
                                 "singular_values (k,) and svd_method go together")
        model = cls.__new__(cls)
        for name in _PARAMS:
            setattr(model, name, state["params"][name])
        model._words = list(state["index_to_key"])
        model._counts = arrays["count"]
        # (row, col, value) as build_vocab leaves them: int32 indices
        model._cooccurrence, model._ppmi = ((arrays[f"{part}_row"].astype(np.int32),
                                             arrays[f"{part}_col"].astype(np.int32), arrays[f"{part}_value"])
                                            for part in ("cooccurrence", "ppmi"))
        model.wv = None
        if trained:
            model.singular_values = arrays["singular_values"]
            model.svd_method = state["svd_method"]
            model.wv = _make_keyed_vectors(model._words, model._counts, arrays["vectors"])
            model.context_vectors = arrays["context_vectors"]
        return model

    def ppmi_matrix(self, dense=False):
        """The shifted PPMI matrix: (row, col, value) of its nonzeros sorted by (row, col), or dense (V, V)."""
        if not dense:
            return self._ppmi
        return _CSR(*self._ppmi, (len(self._words),) * 2).toarray()

    def cooccurrence_matrix(self, dense=False):
        """The raw window counts #(w, c): (row, col, value) or dense (V, V)."""
        if not dense:
            return self._cooccurrence
        return _CSR(*self._cooccurrence, (len(self._words),) * 2).toarray()

    def __repr__(self):
        size = self.wv.vector_size if self.wv is not None else self.vector_size
        return (f"PPMI<vocab={len(self._words) if hasattr(self, '_words') else 0}, vector_size={size}, "
                f"window={self.window}, cds_alpha={self.cds_alpha:g}, neg={self.neg}, eig={self.eig:g}>")
