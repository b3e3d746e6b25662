"""Plain-text corpora: the TextCorpus dataclass, seeded train/valid/test splits, read_corpus.

read_corpus reads a directory with train.txt / valid.txt / test.txt (the Penn Treebank and
WikiText layout of PyTorch's word_language_model) or one file split by line with a seed.
The named corpora in seqlab.data.corpora return the same TextCorpus. Tested in tests/test_data.py.
"""

import dataclasses
import os

import numpy as np

from .._core import from_numpy

from .tokenize import WordTokenizer
from .vocab import SPECIALS, Vocab

__all__ = ["TextCorpus", "train_valid_test_split", "read_corpus"]

SPLITS = ("train", "valid", "test")


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class TextCorpus:
    """A text corpus split into train / valid / test lines, with a vocabulary built on train.

    name:   e.g. "kjv-word"
    level:  "word" (a line is a tuple of word tokens) or "char" (a line is a str, whose
            characters are its tokens)
    train, valid, test: tuples of lines (verses, words, sentences, ...); treat as read-only
    vocab:  a Vocab of the train tokens; tokens not in it encode as <unk>
    eos:    the token ids() puts after every line ("</s>"), or None for no separator

        c = read_corpus("data/ptb")                       # or seqlab.data.corpora.kjv()
        train = batchify(c.ids("train"), batch_size=20)   # (N, 20) int64, for BPTT
    """

    name: str
    level: str
    train: tuple
    valid: tuple
    test: tuple
    vocab: Vocab
    eos: str | None = "</s>"

    def __post_init__(self):
        if self.level not in ("word", "char"):
            raise ValueError(f"TextCorpus: level must be 'word' or 'char', got {self.level!r}")
        if self.eos is not None and self.eos not in self.vocab:
            raise ValueError(f"TextCorpus: eos token {self.eos!r} is not in the vocabulary")
        object.__setattr__(self, "_ids", {})  # split -> int64 NumPy stream, filled by ids()

    def lines(self, split):
        """The lines of `split`: "train", "valid" or "test"."""
        if split not in SPLITS:
            raise ValueError(f"{self.name}: split must be one of {SPLITS}, got {split!r}")
        return getattr(self, split)

    def ids(self, split="train"):
        """The whole split as one 1-D int64 tensor of token ids, eos after every line.

        This is the stream batchify() cuts into parallel streams for a language model.
        """
        stream = self._ids.get(split)
        if stream is None:
            stream = self._ids[split] = self._encode(self.lines(split))
        return from_numpy(stream.copy())

    def _encode(self, lines):
        stoi, unk = self.vocab.stoi, self.vocab.unk_index
        lookup = stoi.__getitem__ if unk is None else (lambda t: stoi.get(t, unk))
        eos = () if self.eos is None else (self.eos,)
        return np.fromiter((lookup(t) for line in lines for seq in (line, eos) for t in seq),
                           dtype=np.int64)

    def num_tokens(self, split="train"):
        """The number of tokens in `split`, eos tokens included (= len(ids(split)))."""
        lines = self.lines(split)
        return sum(len(line) for line in lines) + (0 if self.eos is None else len(lines))

    def text(self, split="train"):
        """The split as one string: words joined by spaces, and lines joined by the eos token
        when it is an ordinary token (a space in kjv("shannon27")), else by newlines."""
        glue = " " if self.level == "word" else ""
        lines = [line if isinstance(line, str) else glue.join(line) for line in self.lines(split)]
        join = self.eos if self.eos is not None and self.eos not in self.vocab.specials else "\n"
        return join.join(lines)

    def __repr__(self):
        sizes = ", ".join(f"{s}={len(self.lines(s))} lines/{self.num_tokens(s)} tokens" for s in SPLITS)
        return f"{type(self).__name__}({self.name!r}, level={self.level!r}, {sizes}, vocab={len(self.vocab)})"


def train_valid_test_split(items, fractions=(0.9, 0.05, 0.05), seed=0):
    """Split `items` at random into (train, valid, test) lists, each in the original order.

    The valid and test parts get round(n * fraction) items, train the rest; the same seed
    gives the same split. Fractions must be non-negative and sum to 1.
    """
    items = list(items)
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise ValueError(f"train_valid_test_split: fractions must be three non-negative numbers summing to 1, "
                         f"got {tuple(fractions)}")
    n = len(items)
    n_valid, n_test = round(n * fractions[1]), round(n * fractions[2])
    order = np.random.default_rng(seed).permutation(n)
    valid = np.sort(order[:n_valid])
    test = np.sort(order[n_valid:n_valid + n_test])
    train = np.sort(order[n_valid + n_test:])
    return tuple([items[i] for i in part] for part in (train, valid, test))


def read_corpus(path, level="word", lower=False, tokenizer=None, fractions=(0.9, 0.05, 0.05), seed=0,
                min_freq=1, max_size=None, specials=SPECIALS, encoding="utf-8"):
    """A TextCorpus from plain text, one line per sentence (blank lines are skipped).

    path:  a directory holding train.txt, valid.txt and test.txt, or one text file whose
           lines are split at random by train_valid_test_split(lines, fractions, seed).
    level: "word" (WordTokenizer: punctuation split off) or "char" (each line a str).
    tokenizer: a callable str -> list of tokens, instead of the level's default.
    lower: lowercase the text. min_freq, max_size, specials: passed to Vocab.build (train only).
    """
    if level not in ("word", "char"):
        raise ValueError(f"read_corpus: level must be 'word' or 'char', got {level!r}")
    path = os.fspath(path)
    if os.path.isdir(path):
        files = [os.path.join(path, f"{s}.txt") for s in SPLITS]
        missing = [f for f in files if not os.path.isfile(f)]
        if missing:
            raise FileNotFoundError(f"read_corpus: {path} is a directory but lacks {', '.join(missing)} "
                                    f"(expected train.txt, valid.txt and test.txt)")
        parts = [_read_lines(f, encoding) for f in files]
    elif os.path.isfile(path):
        parts = train_valid_test_split(_read_lines(path, encoding), fractions, seed)
    else:
        raise FileNotFoundError(f"read_corpus: no such file or directory: {path}")

    if tokenizer is None and level == "char":
        def prepare(line):
            return line.lower() if lower else line
    else:
        tokenize = WordTokenizer() if tokenizer is None else tokenizer

        def prepare(line):
            return tuple(tokenize(line.lower() if lower else line))

    train, valid, test = (tuple(prepare(line) for line in part) for part in parts)
    vocab = Vocab.build(train, min_freq=min_freq, max_size=max_size, specials=specials)
    eos = "</s>" if "</s>" in vocab.specials else None
    name = os.path.basename(os.path.normpath(path))
    return TextCorpus(name=name, level=level, train=train, valid=valid, test=test, vocab=vocab, eos=eos)


def _read_lines(path, encoding):
    try:
        with open(path, encoding=encoding) as f:
            return [line.strip() for line in f if line.strip()]
    except UnicodeDecodeError as e:
        raise ValueError(f"read_corpus: {path} is not {encoding} text ({e})") from None
