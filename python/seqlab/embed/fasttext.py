"""FastText (Bojanowski et al. 2017, "Enriching Word Vectors with Subword Information") with
gensim 4's names and arguments: a word's input vector is the mean of its own row and the rows
of its character n-grams ("<where>", n = 3: <wh whe her ere re>), n-grams hashed into `bucket`
rows with Facebook's FNV-1a variant (gensim's ft_hash_bytes), so words never seen in training
get vectors too. Training is Word2Vec's C++ trainer (cpp/src/embed/word2vec.cpp).

    model = FastText(sentences, vector_size=100, min_n=3, max_n=6, bucket=2_000_000)
    model.wv["unseenword"]          # mean of its n-gram vectors

Tested in tests/test_fasttext.py.
"""
import numbers

import numpy as np

from .. import _core
from .keyedvectors import KeyedVectors
from .word2vec import Word2Vec, prep_vectors

_MAX_ROWS = 2**31 - 1  # input rows (words and n-gram buckets) are int32 ids in the trainer

__all__ = ["FastText", "FastTextKeyedVectors", "ft_ngram_hashes"]


def ft_ngram_hashes(word, min_n, max_n, bucket):
    """The bucket of every character n-gram of <word> (gensim.models.fasttext.ft_ngram_hashes)."""
    if bucket == 0 or max_n < min_n:
        return np.zeros(0, dtype=np.uint32)
    return _core.word2vec.ngram_buckets(word, int(min_n), int(max_n), int(bucket))


class FastTextKeyedVectors(KeyedVectors):
    """KeyedVectors whose lookups also answer words outside the vocabulary, from their n-grams.

    vectors_vocab (V, d): the words' own rows; vectors_ngrams (bucket, d): the n-gram rows;
    vectors (V, d): each word's mean of its own row and its n-gram rows (gensim's adjust_vectors).
    """

    def __init__(self, vector_size, min_n, max_n, bucket, count=0, dtype=np.float32):
        super().__init__(vector_size, count, dtype)
        self.min_n, self.max_n, self.bucket = int(min_n), int(max_n), int(bucket)
        self.vectors_vocab = np.zeros((count, self.vector_size), dtype=dtype)
        try:
            self.vectors_ngrams = np.zeros((self.bucket, self.vector_size), dtype=dtype)
        except MemoryError:  # numpy's message names no model and no argument
            raise MemoryError(f"FastText: cannot allocate {self.bucket * self.vector_size * np.dtype(dtype).itemsize} "
                              f"bytes for the n-gram vectors (bucket={self.bucket} x vector_size={self.vector_size} "
                              f"{np.dtype(dtype).name}); lower bucket or vector_size") from None

    def __contains__(self, word):
        """As gensim: with n-gram buckets every word has a vector, so every word is "in"."""
        return self.bucket > 0 or word in self.key_to_index

    def has_index_for(self, word):
        """Whether `word` is in the vocabulary (has a row of its own)."""
        return word in self.key_to_index

    def get_vector(self, word, norm=False):
        """The word's vector; for a word outside the vocabulary the mean of its n-gram rows.
        KeyError when the word is unknown and has no n-grams (bucket=0, or min_n > its length + 2)."""
        if word in self.key_to_index:
            return super().get_vector(word, norm=norm)
        hashes = ft_ngram_hashes(word, self.min_n, self.max_n, self.bucket)
        if len(hashes) == 0:
            raise KeyError(f"cannot calculate vector for OOV word '{word}' without ngrams "
                           f"(min_n={self.min_n}, max_n={self.max_n}, bucket={self.bucket})")
        v = self.vectors_ngrams[hashes].sum(axis=0, dtype=np.float32) / np.float32(len(hashes))
        if norm:
            n = np.linalg.norm(v)
            return v / n if n > 0 else v
        return v

    def adjust_vectors(self):
        """vectors[w] = (vectors_vocab[w] + Σ n-gram rows of w) / (1 + number of n-grams)."""
        vectors = self.vectors_vocab.copy()
        for i, word in enumerate(self.index_to_key):
            hashes = ft_ngram_hashes(word, self.min_n, self.max_n, self.bucket)
            if len(hashes):
                vectors[i] += self.vectors_ngrams[hashes].sum(axis=0, dtype=np.float32)
                vectors[i] /= np.float32(1 + len(hashes))
        self.vectors = vectors


class FastText(Word2Vec):
    """gensim.models.FastText's constructor (min_n, max_n, bucket, word_ngrams=1 plus
    Word2Vec's arguments). Differences from gensim, by design: a word's input vector in
    skip-gram is the mean over its own row and its n-grams (gensim divides that sum by the
    number of n-grams alone); see docs/embeddings-design.md for the parallel schedule."""

    def __init__(self, sentences=None, corpus_file=None, sg=0, hs=0, vector_size=100, alpha=0.025, window=5,
                 min_count=5, max_vocab_size=None, word_ngrams=1, sample=1e-3, seed=1, workers=3, min_alpha=0.0001,
                 negative=5, ns_exponent=0.75, cbow_mean=1, hashfxn=hash, epochs=5, null_word=0, min_n=3, max_n=6,
                 sorted_vocab=1, bucket=2000000, trim_rule=None, batch_words=10000, callbacks=(),
                 max_final_vocab=None, shrink_windows=True, *, progress=True, chunk_words=256, block_chunks=4):
        if word_ngrams != 1:
            raise NotImplementedError("FastText: only word_ngrams=1 is supported (as in gensim)")
        for arg, value in (("min_n", min_n), ("max_n", max_n), ("bucket", bucket)):
            if not isinstance(value, numbers.Integral):
                raise TypeError(f"FastText: {arg} must be an int, got {value!r}")
        if int(min_n) < 1:
            raise ValueError(f"FastText: min_n must be >= 1, got {min_n}")
        if int(max_n) < 0:
            raise ValueError(f"FastText: max_n must be >= 0 (below min_n: no n-grams), got {max_n}")
        if not 0 <= bucket <= _MAX_ROWS - 1:  # the trainer's rows are int32: words, then buckets
            raise ValueError(f"FastText: bucket must be from 0 to {_MAX_ROWS - 1}, got {bucket}")
        self.min_n, self.max_n, self.bucket, self.word_ngrams = int(min_n), int(max_n), int(bucket), 1
        self._syn0 = None
        self._sub = (None, None)
        super().__init__(sentences=sentences, corpus_file=corpus_file, vector_size=vector_size, alpha=alpha,
                         window=window, min_count=min_count, max_vocab_size=max_vocab_size, sample=sample, seed=seed,
                         workers=workers, min_alpha=min_alpha, sg=sg, hs=hs, negative=negative,
                         ns_exponent=ns_exponent, cbow_mean=cbow_mean, hashfxn=hashfxn, epochs=epochs,
                         null_word=null_word, trim_rule=trim_rule, sorted_vocab=sorted_vocab, batch_words=batch_words,
                         callbacks=callbacks, max_final_vocab=max_final_vocab, shrink_windows=shrink_windows,
                         progress=progress, chunk_words=chunk_words, block_chunks=block_chunks)

    def _new_keyed_vectors(self):
        return FastTextKeyedVectors(self.vector_size, self.min_n, self.max_n, self.bucket)

    def _n_ngrams(self):
        return self.bucket if self.max_n >= self.min_n else 0

    def _after_vocab(self):
        # Training rows of each word: the word (row w), then its n-grams (row V + bucket).
        bucket = self._n_ngrams()
        if len(self.wv) + bucket > _MAX_ROWS:
            raise ValueError(f"FastText: {len(self.wv)} words and bucket={bucket} n-gram rows exceed the trainer's "
                             f"{_MAX_ROWS} rows (int32 row ids); lower bucket")
        self._sub = _core.word2vec.subword_rows(list(self.wv.index_to_key), self.min_n, self.max_n, bucket)

    def init_weights(self):
        """gensim 4's FastText init: vectors_vocab as Word2Vec's vectors from
        default_rng(seed), vectors_ngrams the same from default_rng(seed + 1); outputs zero."""
        n, d, nb = len(self.wv), self.vector_size, self._n_ngrams()
        syn0 = np.empty((n + nb, d), dtype=np.float32)
        prep_vectors(syn0[:n], self.seed)
        prep_vectors(syn0[n:], self.seed + 1)
        self._set_input_matrix(syn0, recompute_subwords=False)
        self.syn1neg = np.zeros((n, d), dtype=np.float32) if self.negative else None
        self.syn1 = np.zeros((n, d), dtype=np.float32) if self.hs else None

    def update_weights(self):
        """gensim's FastText update: new words' own rows are the rows of prep_vectors(seed) for the
        grown vocabulary (gensim's resize_vectors), the n-gram rows and all existing rows are kept,
        new output rows are zero."""
        n_old, n, d = len(self.wv.vectors_vocab), len(self.wv), self.vector_size
        vocab_rows = np.empty((n, d), dtype=np.float32)
        prep_vectors(vocab_rows, self.seed)
        vocab_rows[:n_old] = self._syn0[:n_old]
        syn0 = np.concatenate([vocab_rows, self._syn0[n_old:]])
        self._set_input_matrix(syn0, recompute_subwords=False)
        self.syn1neg, self.syn1 = (None if m is None else np.vstack([m, np.zeros((n - n_old, d), dtype=np.float32)])
                                   for m in (self.syn1neg, self.syn1))

    def _set_input_matrix(self, syn0, recompute_subwords=True):
        n = len(self.wv)
        self._syn0 = syn0
        self.wv.vectors_vocab = syn0[:n]
        self.wv.vectors_ngrams = syn0[n:]
        if recompute_subwords:
            self._after_vocab()
        self.wv.adjust_vectors()

    def _input_matrix(self):
        return self._syn0

    def _subwords(self):
        return self._sub

    def _after_train(self):
        self.wv.adjust_vectors()

    _FILE_PARAMS = Word2Vec._FILE_PARAMS + ("min_n", "max_n", "bucket", "word_ngrams")

    @staticmethod
    def _input_rows(V, params):
        """The words' rows, then the n-grams' (none when max_n < min_n)."""
        return V + (params["bucket"] if params["max_n"] >= params["min_n"] else 0)
