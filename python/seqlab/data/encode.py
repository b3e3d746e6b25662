"""Corpus -> ids in one C++ pass (cpp/src/text/corpus.cpp); the front end of seqlab.lm and
seqlab.embed. Tested in tests/test_text_encode.py.

    enc = encode_corpus(["in the beginning", "and the earth"])
    enc.vocab[enc.ids[enc.offsets[1]:enc.offsets[2]]]      # the second sentence's tokens
"""
import os
from typing import NamedTuple

import numpy as np

from .. import _core


class EncodedCorpus(NamedTuple):
    vocab: list          # the vocabulary: given, or built by descending count (ties: first seen)
    counts: np.ndarray   # int64, occurrences of each vocab entry in this corpus
    ids: np.ndarray      # int32, every token of every sentence; -1 = not in the given vocab
    offsets: np.ndarray  # int64, sentence s is ids[offsets[s]:offsets[s + 1]]
    n_unknown: int       # tokens not in the given vocab

    @property
    def n_sentences(self):
        return len(self.offsets) - 1

    def sentence(self, s):
        """The ids of sentence s."""
        return self.ids[self.offsets[s]:self.offsets[s + 1]]


def encode_corpus(corpus, level="word", vocab=None, *, who="encode_corpus"):
    """Encode `corpus` into ids.

    corpus: a path (str or os.PathLike: one sentence per line), or an iterable of sentences,
    each a string (split on whitespace for level='word', into characters for level='char')
    or a list of tokens (used as they are: at level='char' each element is one token, a character).
    vocab: a fixed vocabulary (list of str) to encode against; otherwise one is built.
    who: the class or function named in errors (a caller's, e.g. 'NGram.fit'). Text must be
    valid Unicode: a str holding a lone surrogate ("a\\ud800b"), which UTF-8 cannot encode, is a
    ValueError naming it (gensim would train on it and fail when saving; KenLM reads only UTF-8).
    """
    if level not in ("word", "char"):
        raise ValueError(f"level must be 'word' or 'char', got {level!r}")
    if vocab is not None:
        vocab = list(vocab)
    if isinstance(corpus, (str, os.PathLike)):
        path = os.fspath(corpus)
        if not os.path.exists(path):
            raise FileNotFoundError(f"encode_corpus: no such file '{path}' (a str corpus is a path; "
                                    "pass a list of sentences for text)")
        return EncodedCorpus(*_core.text.encode_file(path, level, vocab))
    if isinstance(corpus, (bytes, bytearray)):
        raise TypeError("encode_corpus: corpus must be a path or an iterable of sentences, got bytes")
    sentences = corpus if isinstance(corpus, list) else list(corpus)
    if not sentences or isinstance(sentences[0], str):
        for i, s in enumerate(sentences):
            if not isinstance(s, str):
                raise TypeError(f"encode_corpus: sentence {i} is a {type(s).__name__}, expected str like sentence 0")
        try:
            return EncodedCorpus(*_core.text.encode_lines(sentences, level, vocab))
        except ValueError:  # the core's words name no sentence and no caller
            _check_unicode(sentences, vocab, who)
            raise
    try:
        return EncodedCorpus(*_core.text.encode_tokens(sentences, vocab))
    except TypeError:
        for i, s in enumerate(sentences):
            if isinstance(s, str) or not all(isinstance(t, str) for t in s):
                raise TypeError(f"encode_corpus: sentence {i} must be a list of str tokens like sentence 0, "
                                f"got {type(s).__name__}") from None
        raise
    except ValueError:
        _check_unicode(sentences, vocab, who)
        raise


def _check_unicode(sentences, vocab, who):
    """After the core refused a str argument: name the caller, the first text UTF-8 cannot
    encode (a lone surrogate) and where it is."""
    places = [(f"sentence {i}", s) for i, s in enumerate(sentences)] + [("the vocab", vocab or [])]
    for where, texts in places:
        for text in texts.split() if isinstance(texts, str) else texts:  # a str sentence: its words
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                raise ValueError(f"{who}: the token {text!r} in {where} is not valid Unicode text: "
                                 f"{text[e.start:e.end]!r} is a lone surrogate, which UTF-8 cannot encode") from None
