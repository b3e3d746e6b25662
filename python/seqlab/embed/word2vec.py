"""Word2Vec with gensim 4's names, arguments and vocabulary rules; training runs in C++ threads
(cpp/src/embed/word2vec.cpp) and is bit-for-bit reproducible for a seed, whatever `workers` is.

    model = Word2Vec(sentences, vector_size=100, window=5, min_count=5, sg=1, workers=2, seed=1)
    model.wv.most_similar("king")

Follows Mikolov et al. 2013 and gensim.models.Word2Vec; the deterministic parallel design is
in docs/embeddings-design.md. Tested in tests/test_word2vec.py.
"""
import math
import numbers
import os
import threading
import warnings

import numpy as np

from .. import _core
from ..data.encode import encode_corpus
from ._file import load_state, save_model
from .keyedvectors import KeyedVectors

__all__ = ["Word2Vec"]

MAX_WORDS_IN_SENTENCE = _core.word2vec.MAX_SENTENCE_WORDS  # gensim's MAX_WORDS_IN_BATCH (10,000); longer
# sentences are split (gensim truncates them); the bound on negative assumes it (word2vec.hpp)
FORMAT = "seqlab.embed.Word2Vec"
FORMAT_VERSION = 1

# gensim.utils' trim_rule answers: a rule(word, count, min_count) returns one of these.
RULE_DEFAULT = 0   # keep the word if count >= min_count
RULE_DISCARD = 1   # drop the word whatever its count
RULE_KEEP = 2      # keep the word whatever its count


def keep_vocab_item(word, count, min_count, trim_rule=None, who="keep_vocab_item"):
    """gensim.utils.keep_vocab_item: whether `word` (seen `count` times) stays in the vocabulary.
    Without a rule: count >= min_count. A rule's RULE_KEEP / RULE_DISCARD override that,
    RULE_DEFAULT (or None, as gensim) falls back to it. Any other answer is a ValueError naming
    `who` (gensim would read True as RULE_DISCARD and anything else as RULE_DEFAULT)."""
    default = count >= min_count
    if trim_rule is None:
        return default
    answer = trim_rule(word, count, min_count)
    if answer is None:
        return default
    if isinstance(answer, (bool, np.bool_)) or answer not in (RULE_DEFAULT, RULE_DISCARD, RULE_KEEP):
        raise ValueError(f"{who}: trim_rule returned {answer!r} for {word!r}; it must return RULE_DEFAULT (0), "
                         f"RULE_DISCARD (1) or RULE_KEEP (2) (seqlab.embed or gensim.utils)")
    if answer == RULE_KEEP:
        return True
    if answer == RULE_DISCARD:
        return False
    return default


def _check_sample(sample, who):
    """gensim's `sample` (None or 0: no downsampling); a negative one would make NaN keep probabilities."""
    if not (sample is None or isinstance(sample, numbers.Real) and 0 <= sample < math.inf):
        raise ValueError(f"{who}: sample must be a finite number >= 0 (0: no downsampling), got {sample!r}")
    return sample


def _check_trim_rule(trim_rule, who):
    if trim_rule is not None and not callable(trim_rule):
        raise TypeError(f"{who}: trim_rule must be None or a callable (word, count, min_count) returning "
                        f"RULE_DEFAULT, RULE_DISCARD or RULE_KEEP, got {type(trim_rule).__name__}")


class Word2Vec:
    """gensim.models.Word2Vec's constructor; with `sentences` or `corpus_file` it builds the
    vocabulary and trains at once.

    seqlab-only arguments: `progress` shows a tqdm bar with words/s during training;
    `chunk_words` and `block_chunks` set the deterministic schedule (docs/embeddings-design.md).
    `trim_rule` (word, count, min_count) -> RULE_DEFAULT / RULE_DISCARD / RULE_KEEP is applied by
    build_vocab as gensim does and is not kept by the model.
    Not supported (NotImplementedError when set): null_word.

    As gensim: `compute_loss` makes train() sum the loss, -log σ(±w·c) over every (input,
    output) pair trained, into `get_latest_training_loss()` (reset by each train call, which
    takes its own compute_loss argument); `callbacks` (gensim.models.callbacks.CallbackAny2Vec
    or anything with its methods) get on_train_begin / on_epoch_begin / on_epoch_end /
    on_train_end(model) around every epoch, with the vectors and the loss up to date.
    """

    def __init__(self, sentences=None, corpus_file=None, vector_size=100, alpha=0.025, window=5, min_count=5,
                 max_vocab_size=None, sample=1e-3, seed=1, workers=3, min_alpha=0.0001, sg=0, hs=0, negative=5,
                 ns_exponent=0.75, cbow_mean=1, hashfxn=hash, epochs=5, null_word=0, trim_rule=None, sorted_vocab=1,
                 batch_words=10000, compute_loss=False, callbacks=(), comment=None, max_final_vocab=None,
                 shrink_windows=True, *, progress=True, chunk_words=256, block_chunks=4):
        name = type(self).__name__
        for arg, value in (("vector_size", vector_size), ("window", window), ("min_count", min_count),
                           ("negative", negative), ("epochs", epochs), ("workers", workers),
                           ("chunk_words", chunk_words), ("block_chunks", block_chunks)):
            if not isinstance(value, numbers.Integral):  # int(1.5) would train 1-dimensional vectors
                raise TypeError(f"{name}: {arg} must be an int, got {value!r}")
        _check_sample(sample, name)
        # The bounds of the C++ options (word2vec.hpp says why), checked here too for values that
        # its int types cannot even hold (which pybind11 would refuse as a wrong type).
        for arg, value, low, high in (("vector_size", vector_size, 1, _core.word2vec.MAX_VECTOR_SIZE),
                                      ("window", window, 1, 2**31 - 1),  # an int, as gensim's and fastText's
                                      ("negative", negative, 0, _core.word2vec.MAX_NEGATIVE)):
            if value < low:
                raise ValueError(f"{name}: {arg} must be >= {low}, got {value}")
            if value > high:
                raise ValueError(f"{name}: {arg} must be at most {high}, got {value}")
        if not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
            # the trainer's random streams take a uint64 (a TypeError, as pybind11's refusal was)
            raise TypeError(f"{name}: seed must be an int from 0 to 2**64 - 1, got {seed!r}")
        if int(workers) < 1:
            raise ValueError(f"{type(self).__name__}: workers must be >= 1, got {workers}")
        if not hs and not negative:
            raise ValueError(f"{type(self).__name__}: one of hs=1 or negative>0 is needed to train")
        if int(epochs) < 0:
            raise ValueError(f"{type(self).__name__}: epochs must be >= 0, got {epochs}")
        _check_trim_rule(trim_rule, type(self).__name__)
        if null_word:
            raise NotImplementedError(f"{type(self).__name__}: null_word is not supported by seqlab")
        self.vector_size = int(vector_size)
        self.layer1_size = self.vector_size
        self.alpha = float(alpha)
        self.min_alpha = float(min_alpha)
        self.window = int(window)
        self.min_count = int(min_count)
        self.max_vocab_size = max_vocab_size
        self.max_final_vocab = max_final_vocab
        self.sample = sample
        self.seed = int(seed)
        self.workers = int(workers)
        self.sg = int(sg)
        self.hs = int(hs)
        self.negative = int(negative)
        self.ns_exponent = float(ns_exponent)
        self.cbow_mean = int(cbow_mean)
        self.epochs = int(epochs)
        self.sorted_vocab = int(sorted_vocab)
        self.batch_words = int(batch_words)
        self.shrink_windows = bool(shrink_windows)
        self.comment = comment
        self.progress = progress
        self.chunk_words = int(chunk_words)
        self.block_chunks = int(block_chunks)
        self.compute_loss = bool(compute_loss)
        self.running_training_loss = 0.0
        # Every training option, checked by the C++ trainer's own check now rather than after build_vocab.
        try:
            _core.word2vec.check_options(**self._train_options(self.alpha, self.min_alpha, self.epochs))
        except ValueError as e:  # the C++ check names Word2Vec; a FastText's error names FastText
            raise ValueError(str(e).replace("Word2Vec:", f"{name}:", 1)) from None
        self.wv = self._new_keyed_vectors()
        self.syn1neg = self.syn1 = None
        self.corpus_count = self.corpus_total_words = 0
        self.train_count = 0
        self.min_alpha_yet_reached = self.alpha
        self.effective_min_count = self.min_count
        self._cache = None  # (source, ids, offsets) of the corpus build_vocab encoded
        if sentences is not None and corpus_file is not None:
            raise ValueError(f"{type(self).__name__}: pass sentences or corpus_file, not both")
        if sentences is not None or corpus_file is not None:
            if isinstance(sentences, (str, bytes)):
                raise TypeError(f"{type(self).__name__}: sentences must be an iterable of token lists, got "
                                f"{type(sentences).__name__} (use corpus_file= for a path)")
            self.build_vocab(corpus_iterable=sentences, corpus_file=corpus_file, trim_rule=trim_rule)
            self.train(corpus_iterable=sentences, corpus_file=corpus_file, total_examples=self.corpus_count,
                       total_words=self.corpus_total_words, epochs=self.epochs, compute_loss=self.compute_loss,
                       callbacks=callbacks)
        else:
            if trim_rule is not None:
                warnings.warn(f"{type(self).__name__}: trim_rule is only used by build_vocab() and is not kept by "
                              "the model; without sentences it is ignored (pass it to build_vocab)", stacklevel=2)
            if callbacks:
                warnings.warn(f"{type(self).__name__}: callbacks are only used by the training they are given to "
                              "(as gensim: pass them to train()); without a corpus here they are ignored",
                              stacklevel=2)

    def __repr__(self):
        return f"{type(self).__name__}<vocab={len(self.wv)}, vector_size={self.vector_size}, alpha={self.alpha}>"

    def _new_keyed_vectors(self):
        return KeyedVectors(self.vector_size)

    # ------------------------------------------------------------------------ vocabulary

    def _encode(self, corpus_iterable, corpus_file, vocab=None):
        if corpus_file is not None:
            if not os.path.exists(os.fspath(corpus_file)):
                raise FileNotFoundError(f"{type(self).__name__}: no such corpus_file '{os.fspath(corpus_file)}'")
            return encode_corpus(os.fspath(corpus_file), vocab=vocab)
        if corpus_iterable is None:
            raise ValueError(f"{type(self).__name__}: pass corpus_iterable (lists of tokens) or corpus_file")
        return encode_corpus(corpus_iterable, vocab=vocab, who=type(self).__name__)

    def scan_vocab(self, corpus_iterable=None, corpus_file=None, progress_per=10000, workers=None, trim_rule=None):
        """Counts every word into raw_vocab (gensim's: a dict in first-occurrence order, pruned as
        gensim prunes it when max_vocab_size is exceeded, trim_rule deciding with min_count the
        pruning threshold) and sets corpus_count, corpus_total_words. Returns the encoded corpus.
        progress_per and workers are gensim's logging period and scan threads: seqlab's scan
        logs nothing and runs in C++."""
        _check_trim_rule(trim_rule, f"{type(self).__name__}.scan_vocab")
        enc, self.raw_vocab = self._scan(corpus_iterable, corpus_file, trim_rule)
        self.corpus_count = enc.n_sentences
        self.corpus_total_words = int(len(enc.ids))
        return enc

    def _scan(self, corpus_iterable, corpus_file, trim_rule):
        """scan_vocab without changing the model: (the encoded corpus, raw_vocab)."""
        enc = self._encode(corpus_iterable, corpus_file)
        if len(enc.ids) == 0:
            raise ValueError(f"{type(self).__name__}: the corpus is empty (no words in {enc.n_sentences} sentences)")
        if self.max_vocab_size and len(enc.vocab) > self.max_vocab_size:
            return enc, self._pruned_counts(enc, trim_rule)
        _, first = np.unique(enc.ids, return_index=True)  # first occurrence of each id
        order = np.argsort(first, kind="stable")
        return enc, {enc.vocab[i]: int(enc.counts[i]) for i in order}

    def _pruned_counts(self, enc, trim_rule=None):
        """gensim's _scan_vocab with max_vocab_size: after each sentence that leaves more than
        max_vocab_size words, drop those seen fewer than min_reduce times (gensim's prune_vocab:
        keep_vocab_item with min_count=min_reduce, so trim_rule decides too), then min_reduce += 1."""
        who = f"{type(self).__name__}.build_vocab"
        counts, min_reduce = {}, 1
        ids, offsets = enc.ids, enc.offsets
        for s in range(enc.n_sentences):
            for i in ids[offsets[s]:offsets[s + 1]].tolist():
                counts[i] = counts.get(i, 0) + 1
            if len(counts) > self.max_vocab_size:
                counts = {i: c for i, c in counts.items()
                          if keep_vocab_item(enc.vocab[i], c, min_reduce, trim_rule, who)}
                min_reduce += 1
        return {enc.vocab[i]: c for i, c in counts.items()}

    def build_vocab(self, corpus_iterable=None, corpus_file=None, update=False, progress_per=10000,
                    keep_raw_vocab=False, trim_rule=None, min_count=None, sample=None, dry_run=False):
        """Vocabulary and subsampling thresholds as gensim's build_vocab (scan_vocab, then
        prepare_vocab), then fresh weights (gensim's init_weights). Returns None, as gensim.

        trim_rule(word, count, min_count) -> RULE_DEFAULT / RULE_DISCARD / RULE_KEEP decides with
        min_count which words stay (gensim's keep_vocab_item); it is used now and not kept.
        min_count, sample, dry_run are prepare_vocab's (gensim passes them on as **kwargs): this
        vocabulary's settings instead of the model's, and a dry run, which changes nothing in the
        model and returns what prepare_vocab reports.
        keep_raw_vocab=True keeps raw_vocab (word -> count in this corpus), else it is emptied.
        progress_per is gensim's logging period; seqlab's scan logs nothing.
        update=True (gensim's online update): the corpus' new words that stay are appended after
        the existing ones, every existing word's count grows by its count in the corpus, the
        existing vectors and output weights are kept and the new words' vectors are rows of
        gensim's seeded initialisation (prep_vectors of the grown vocabulary); then train()."""
        name = f"{type(self).__name__}.build_vocab"
        _check_trim_rule(trim_rule, name)
        if update and not len(self.wv):
            raise RuntimeError(f"{name}: update=True needs a model that has a vocabulary already (you cannot do an "
                               "online vocabulary update before build_vocab() on a first corpus, or load())")
        if dry_run:
            _, raw = self._scan(corpus_iterable, corpus_file, trim_rule)
            return self._prepare_vocab(raw, update, trim_rule, min_count, sample, dry_run=True)
        enc = self.scan_vocab(corpus_iterable, corpus_file, trim_rule=trim_rule)
        self.prepare_vocab(update=update, keep_raw_vocab=keep_raw_vocab, trim_rule=trim_rule, min_count=min_count,
                           sample=sample)
        # Keep the corpus as ids of the final vocabulary for train() on the same corpus.
        index = {w: i for i, w in enumerate(enc.vocab)}
        remap = np.full(len(enc.vocab), -1, dtype=np.int32)
        for w, i in self.wv.key_to_index.items():
            if w in index:  # (after update=True, old words may be absent from this corpus)
                remap[index[w]] = i
        ids, offsets = self._drop_unknown(remap[enc.ids], enc.offsets)
        self._cache = (corpus_file if corpus_file is not None else corpus_iterable, ids, offsets)
        if update:
            self.update_weights()
        else:
            self.init_weights()

    @staticmethod
    def _drop_unknown(ids, offsets):
        """Removes ids < 0 and splits sentences longer than MAX_WORDS_IN_SENTENCE."""
        keep = ids >= 0
        kept = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
        ids = np.ascontiguousarray(ids[keep], dtype=np.int32)
        offsets = kept[offsets]
        lengths = np.diff(offsets)
        if len(lengths) and lengths.max() > MAX_WORDS_IN_SENTENCE:
            pieces = []
            for s in range(len(lengths)):
                pieces.append(np.arange(offsets[s], offsets[s + 1], MAX_WORDS_IN_SENTENCE))
            offsets = np.concatenate(pieces + [offsets[-1:]])
        return ids, np.ascontiguousarray(offsets, dtype=np.int64)

    def prepare_vocab(self, update=False, keep_raw_vocab=False, trim_rule=None, min_count=None, sample=None,
                      dry_run=False):
        """gensim's prepare_vocab on raw_vocab (scan_vocab's counts): min_count (raised to meet
        max_final_vocab) and trim_rule choose the words, sorted by descending count (gensim's tie
        order: reverse first occurrence), and `sample` sets their downsampling (sample_int).

        min_count, sample: used instead of the model's; a new vocabulary stores them in the model
        (gensim: "make stored settings match these applied settings"), an update (update=True,
        see build_vocab) does not. None means the model's. 0 means 0: gensim reads
        `min_count or self.min_count`, so its prepare_vocab(sample=0) silently keeps the model's.
        dry_run=True changes nothing (gensim's still sets effective_min_count).
        keep_raw_vocab=False empties raw_vocab afterwards (not after a dry run), as gensim.
        Returns gensim's report: drop_unique (words dropped), retain_total (their corpus' length),
        downsample_unique (words downsampled), downsample_total (expected corpus length after
        downsampling, rounded down), num_retained_words."""
        report = self._prepare_vocab(self.raw_vocab, update, trim_rule, min_count, sample, dry_run)
        if not dry_run and not keep_raw_vocab:
            self.raw_vocab = {}
        return report

    def _prepare_vocab(self, raw, update, trim_rule, min_count, sample, dry_run):
        who = f"{type(self).__name__}.build_vocab"
        min_count = self.min_count if min_count is None else int(min_count)
        sample = self.sample if sample is None else _check_sample(sample, who)
        effective_min_count = min_count
        if self.max_final_vocab is not None:
            sorted_counts = sorted(raw.values(), reverse=True)
            calc_min_count = 1
            if self.max_final_vocab < len(sorted_counts):
                calc_min_count = sorted_counts[self.max_final_vocab] + 1
            effective_min_count = max(calc_min_count, min_count)
        retained = [w for w, c in raw.items() if keep_vocab_item(w, c, effective_min_count, trim_rule, who)]
        if update:  # gensim's order: the new words, then those the model has
            known = self.wv.key_to_index
            retained = [w for w in retained if w not in known] + [w for w in retained if w in known]
        report = _vocab_report(raw, retained, sample)
        if dry_run:
            return report
        if not update and not retained:
            if trim_rule is not None:
                raise ValueError(f"{who}: no word of the corpus ({len(raw)} distinct words) is kept by trim_rule "
                                 f"with min_count={effective_min_count}")
            raise ValueError(f"{type(self).__name__}: no word occurs at least min_count={effective_min_count} times "
                             f"in the corpus ({len(raw)} distinct words, the most frequent "
                             f"{max(raw.values()) if raw else 0} times); lower min_count")
        self.effective_min_count = effective_min_count
        if update:
            self._update_vocab(retained, sample)
        else:
            self.min_count, self.sample = min_count, sample
            self._new_vocab(retained)
        return report

    def _new_vocab(self, words):
        """A fresh vocabulary of `words` (in first-occurrence order): sorted, counts, sample_int."""
        raw = self.raw_vocab
        counts = np.array([raw[w] for w in words], dtype=np.int64)
        if self.sorted_vocab:
            # np.lexsort((-position, -count)): gensim's KeyedVectors.sort_by_descending_frequency
            order = np.lexsort((-np.arange(len(words)), -counts))
            words = [words[i] for i in order]
            counts = counts[order]
        self.wv = self._new_keyed_vectors()
        self.wv.index_to_key = words
        self.wv.key_to_index = {w: i for i, w in enumerate(words)}
        self.wv.expandos["count"] = counts
        self.wv.expandos["sample_int"] = _sample_ints(counts, self.sample)
        self._after_vocab()

    def _update_vocab(self, retained, sample):
        """gensim's prepare_vocab(update=True). `retained`: the scanned words that pass min_count
        and trim_rule. The new ones among them are appended in first-occurrence order (no
        re-sorting); every word's count grows by its count in this corpus (gensim adds it to the
        words that did not pass too); sample_int is recomputed with `sample`, from this corpus'
        counts alone, for the retained words only (others keep theirs), all as gensim does."""
        wv, raw = self.wv, self.raw_vocab
        new_words = [w for w in retained if w not in wv.key_to_index]
        for w in new_words:
            wv.key_to_index[w] = len(wv.index_to_key)
            wv.index_to_key.append(w)
        n_old, n = len(wv.expandos["count"]), len(wv.index_to_key)
        counts = np.zeros(n, dtype=np.int64)
        counts[:n_old] = wv.expandos["count"]
        counts += np.array([raw.get(w, 0) for w in wv.index_to_key], dtype=np.int64)
        sample_int = np.zeros(n, dtype=np.uint32)
        sample_int[:n_old] = wv.expandos["sample_int"]
        if retained:
            rows = np.array([wv.key_to_index[w] for w in retained], dtype=np.int64)
            sample_int[rows] = _sample_ints(np.array([raw[w] for w in retained], dtype=np.int64), sample)
        wv.expandos["count"] = counts
        wv.expandos["sample_int"] = sample_int
        wv.norms = None
        self._after_vocab()

    def update_weights(self):
        """gensim's update_weights: the existing rows are kept; the new words' input vectors are
        the rows of prep_vectors(seed) for the grown vocabulary (what gensim's resize_vectors
        gives), their output rows zero."""
        n_old, n, d = len(self.wv.vectors), len(self.wv), self.vector_size
        vectors = np.empty((n, d), dtype=np.float32)
        prep_vectors(vectors, self.seed)
        vectors[:n_old] = self.wv.vectors
        self.wv.vectors = vectors
        self.wv.norms = None
        self.syn1neg, self.syn1 = (None if m is None else np.vstack([m, np.zeros((n - n_old, d), dtype=np.float32)])
                                   for m in (self.syn1neg, self.syn1))

    def _after_vocab(self):
        """Hook for FastText (n-gram buckets of the new vocabulary)."""

    def init_weights(self):
        """gensim's init_weights: input vectors uniform in [-1, 1) / vector_size from
        numpy.random.default_rng(seed) (gensim 4's prep_vectors, so they equal gensim's),
        output weights zero."""
        n, d = len(self.wv), self.vector_size
        vectors = np.empty((n, d), dtype=np.float32)
        prep_vectors(vectors, self.seed)
        self.wv.vectors = vectors
        self.syn1neg = np.zeros((n, d), dtype=np.float32) if self.negative else None
        self.syn1 = np.zeros((n, d), dtype=np.float32) if self.hs else None

    # ------------------------------------------------------------------------ training

    def _input_matrix(self):
        return self.wv.vectors

    def _subwords(self):
        return None, None

    def _train_options(self, alpha, min_alpha, epochs):
        """The C++ trainer's options (Word2VecOptions) for one train call."""
        return dict(vector_size=self.vector_size, window=self.window, sg=bool(self.sg), hs=bool(self.hs),
                    negative=self.negative, ns_exponent=self.ns_exponent, cbow_mean=bool(self.cbow_mean),
                    alpha=alpha, min_alpha=min_alpha, epochs=epochs, shrink_windows=self.shrink_windows,
                    seed=self.seed, workers=self.workers, chunk_words=self.chunk_words,
                    block_chunks=self.block_chunks, compute_loss=self.compute_loss)

    def train(self, corpus_iterable=None, corpus_file=None, total_examples=None, total_words=None, epochs=None,
              start_alpha=None, end_alpha=None, word_count=0, queue_factor=2, report_delay=1.0, compute_loss=False,
              callbacks=(), **kwargs):
        """Trains `epochs` epochs, the learning rate falling linearly from start_alpha (alpha)
        to end_alpha (min_alpha) over all of their words. As gensim, epochs and one of
        total_examples/total_words must be given. Returns (effective words, corpus words)."""
        name = type(self).__name__
        if not len(self.wv):
            raise RuntimeError(f"{name}: you must first build vocabulary before training the model")
        if epochs is None:
            raise ValueError("You must specify an explicit epochs count. The usual value is epochs=model.epochs.")
        if total_examples is None and total_words is None:
            raise ValueError("You must specify either total_examples or total_words, for proper learning-rate "
                             "and progress calculations. The usual value is total_examples=model.corpus_count.")
        callbacks = tuple(callbacks)
        source = corpus_file if corpus_file is not None else corpus_iterable
        if self._cache is not None and source is self._cache[0]:
            ids, offsets = self._cache[1], self._cache[2]
        else:
            enc = self._encode(corpus_iterable, corpus_file, vocab=self.wv.index_to_key)
            ids, offsets = self._drop_unknown(enc.ids, enc.offsets)
        alpha = self.alpha if start_alpha is None else float(start_alpha)
        min_alpha = self.min_alpha if end_alpha is None else float(end_alpha)
        epochs = int(epochs)
        if epochs < 0:
            raise ValueError(f"{name}: epochs must be >= 0, got {epochs}")
        # As gensim: train's own compute_loss decides, and the loss counts from this call.
        self.compute_loss = bool(compute_loss)
        self.running_training_loss = 0.0
        sub_offsets, sub_rows = self._subwords()
        progress = _core.word2vec.Progress()
        args = (ids, offsets, self.wv.expandos["count"], self.wv.expandos["sample_int"] if self.sample else None,
                self._input_matrix(), self.syn1neg, self.syn1, sub_offsets, sub_rows, progress)
        options = self._train_options(alpha, min_alpha, epochs)
        for callback in callbacks:
            callback.on_train_begin(self)
        # Callbacks see epoch boundaries: then the C++ trainer runs one epoch per call. The
        # random streams and learning rate are the whole run's, so the vectors are the same.
        spans = [(e, e + 1) for e in range(epochs)] if callbacks else [(0, epochs)]
        with _progress_bar(epochs * len(ids), enabled=self.progress, desc=name) as bar:
            for begin, end in spans:
                for callback in callbacks:
                    callback.on_epoch_begin(self)
                _run_with_progress(lambda: _core.word2vec.train(*args, **options, epoch_begin=begin, epoch_end=end),
                                   progress, bar)
                self.running_training_loss = progress.loss
                self.min_alpha_yet_reached = progress.last_alpha
                if callbacks:
                    self.wv.norms = None
                    self._after_train()
                for callback in callbacks:
                    callback.on_epoch_end(self)
        self.train_count += 1
        self.min_alpha_yet_reached = progress.last_alpha
        self.wv.norms = None  # the vectors changed in place: lengths are recomputed on demand, as gensim
        self._after_train()
        for callback in callbacks:
            callback.on_train_end(self)
        return progress.effective_words, progress.words_done

    def get_latest_training_loss(self):
        """gensim's: the loss summed by the last train() call with compute_loss=True (so far,
        when read from a callback), else 0. Each (input, output) pair trained adds
        -log σ(w·c) for the positive or a Huffman label 1, -log σ(-w·c) for a negative or
        label 0; unlike gensim's table, exact and including |w·c| >= 6, summed in float64."""
        return self.running_training_loss

    def _after_train(self):
        """Hook for FastText (word vectors from their n-grams)."""

    # ------------------------------------------------------------------------ save / load

    # What save() writes in "params"; load() needs every one. The last two came later to
    # version-1 files: a file without them loads with compute_loss off and no loss.
    _FILE_PARAMS = ("vector_size", "alpha", "min_alpha", "window", "min_count", "max_vocab_size", "max_final_vocab",
                    "sample", "seed", "workers", "sg", "hs", "negative", "ns_exponent", "cbow_mean", "epochs",
                    "sorted_vocab", "batch_words", "shrink_windows", "comment", "chunk_words", "block_chunks",
                    "corpus_count", "corpus_total_words", "train_count", "min_alpha_yet_reached",
                    "effective_min_count")
    _FILE_PARAMS_LATER = ("compute_loss", "running_training_loss")

    def save(self, fname):
        """Writes the whole model (vocabulary, counts, all weights, parameters) to one
        safetensors file with seqlab.save (atomic: a crash leaves any previous file intact):
        params, index_to_key and the arrays vectors (FastText: word rows, then n-gram rows),
        syn1neg (negative > 0), syn1 (hs), count and sample_int (as int64)."""
        name = type(self).__name__
        if not len(self.wv):
            raise RuntimeError(f"{name}.save: the model has nothing to save yet; call build_vocab() (or pass "
                               f"sentences to {name}()) first")
        params = {k: getattr(self, k) for k in self._FILE_PARAMS + self._FILE_PARAMS_LATER}
        arrays = {"vectors": self._input_matrix(), "syn1neg": self.syn1neg, "syn1": self.syn1,
                  "count": self.wv.expandos["count"], "sample_int": self.wv.expandos["sample_int"].astype(np.int64)}
        save_model(self, fname, FORMAT, FORMAT_VERSION, params, self.wv.index_to_key, arrays)

    @classmethod
    def load(cls, fname):
        """Reads a model written by save(). A file that is damaged, of another kind, or lacks
        anything save() writes (a parameter, index_to_key, an array) is a ValueError naming
        cls.load, the file and what is wrong."""
        def expected(V, state):
            params = state["params"]
            d = params["vector_size"]
            return {"vectors": (np.float32, (cls._input_rows(V, params), d), True),
                    "syn1neg": (np.float32, (V, d), bool(params["negative"])),
                    "syn1": (np.float32, (V, d), bool(params["hs"])),
                    "count": (np.int64, (V,), True), "sample_int": (np.int64, (V,), True)}

        state, arrays = load_state(cls, fname, FORMAT, FORMAT_VERSION, cls._FILE_PARAMS, expected,
                                   shared_by=("Word2Vec", "FastText"))
        model = cls.__new__(cls)
        model.compute_loss, model.running_training_loss = False, 0.0  # files written before compute_loss
        for k, v in state["params"].items():
            setattr(model, k, v)
        model.layer1_size = model.vector_size
        model.progress = True
        model._cache = None
        model.raw_vocab = {}
        model.wv = model._new_keyed_vectors()
        model.wv.index_to_key = list(state["index_to_key"])
        model.wv.key_to_index = {w: i for i, w in enumerate(model.wv.index_to_key)}
        model.wv.expandos["count"] = arrays["count"]
        model.wv.expandos["sample_int"] = arrays["sample_int"].astype(np.uint32)
        model.syn1neg = arrays.get("syn1neg")
        model.syn1 = arrays.get("syn1")
        model._set_input_matrix(arrays["vectors"])
        return model

    @staticmethod
    def _input_rows(V, params):
        """Rows of the input matrix of a model of V words with these params."""
        return V

    def _set_input_matrix(self, m):
        self.wv.vectors = m


def _keep_probabilities(counts, sample):
    """gensim's downsampling: a word seen v times is kept with probability (sqrt(v / t) + 1) t / v
    when that is below 1, t = sample * total (sample < 1), int(sample * (3 + sqrt 5) / 2)
    (sample >= 1: words seen more than about `sample` times are downsampled) or total (sample
    0 or None: none is). `counts`: the retained words' counts, `total` their sum. Not capped at 1."""
    retain_total = int(counts.sum())
    if not sample:
        threshold = retain_total
    elif sample < 1.0:
        threshold = sample * retain_total
    else:
        threshold = int(sample * (3 + np.sqrt(5)) / 2)
    v = counts.astype(np.float64)
    return (np.sqrt(v / threshold) + 1) * (threshold / v)


def _sample_ints(counts, sample):
    """The keep probabilities as gensim stores them: uint32(min(p, 1) * (2^32 - 1))."""
    p = np.minimum(_keep_probabilities(counts, sample), 1.0)
    return (p * (2**32 - 1)).astype(np.uint32)


def _vocab_report(raw, retained, sample):
    """gensim's prepare_vocab report for keeping `retained` of raw_vocab's words (in gensim's
    order, which the float sum follows): words dropped, the retained corpus' length, words
    downsampled, the expected corpus length after downsampling (rounded down), words kept."""
    counts = np.array([raw[w] for w in retained], dtype=np.int64)
    p = _keep_probabilities(counts, sample)
    downsample_total = 0.0
    for p_w, v in zip(np.minimum(p, 1.0).tolist(), counts.tolist()):
        downsample_total += p_w * v
    return {"drop_unique": len(raw) - len(retained), "retain_total": int(counts.sum()),
            "downsample_unique": int((p < 1.0).sum()), "downsample_total": int(downsample_total),
            "num_retained_words": len(retained)}


def prep_vectors(out, seed):
    """Fills `out` (float32 (n, d), C-contiguous) as gensim 4's prep_vectors: uniform in
    [-1, 1) / d from numpy.random.default_rng(seed), with gensim's operations in its order, so
    the values are gensim's bit for bit."""
    rng = np.random.default_rng(seed=seed)
    rng.random(out=out, dtype=np.float32)
    out *= 2.0
    out -= 1.0
    out /= out.shape[1]


class _progress_bar:
    """A tqdm bar over `total` words (a do-nothing one when not enabled), closed on exit."""

    def __init__(self, total, enabled, desc):
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, desc=desc, unit="word", unit_scale=True, smoothing=0.1)
        self.shown = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()

    def show(self, words_done):
        if self.bar is not None:
            self.bar.update(words_done - self.shown)
            self.shown = words_done


def _run_with_progress(fn, progress, bar):
    """Runs fn (a C++ call that releases the GIL) in a thread; meanwhile `bar` follows
    progress.words_done. Ctrl-C asks the C++ side to stop at the next block."""
    result = {}

    def target():
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 -- re-raised in the caller's thread
            result["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
            bar.show(progress.words_done)
    except KeyboardInterrupt:
        progress.stop()
        thread.join()
        raise
    if "error" in result:
        raise result["error"]
