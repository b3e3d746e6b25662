"""Vocab: the mapping between tokens and integer ids, with special tokens.

Follows torchtext's Vocab (itos / stoi, specials first, min_freq, max_size) and saves to a
small JSON file, written atomically. Tested in tests/test_data.py.
"""

import collections
import json
import operator
import os

import numpy as np

from .._core import Tensor, from_numpy
from .._tensor import int64

from .._atomic import atomic_open

__all__ = ["Vocab", "SPECIALS"]

# The specials every seqlab Vocab has by default, in this order (so <unk> is 0, <pad> 1, ...).
SPECIALS = ("<unk>", "<pad>", "<s>", "</s>")

_FORMAT = "seqlab.data.Vocab"
_VERSION = 1


def _int_arg(value, name):
    """An int argument of Vocab.build (NumPy integers too), or a TypeError naming it."""
    if isinstance(value, bool):
        raise TypeError(f"Vocab.build: {name} must be an int, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"Vocab.build: {name} must be an int, got {type(value).__name__}") from None


class Vocab:
    """Tokens <-> ids. The specials come first, then the tokens in the order given.

        v = Vocab.build([["the", "cat"], ["the", "dog"]])   # from token sequences, by frequency
        v.itos        # ['<unk>', '<pad>', '<s>', '</s>', 'the', 'cat', 'dog']
        v["the"]      # 4;  v["zebra"] -> 0 (<unk>)
        v.encode(["the", "cat"], eos=True)                  # [4, 5, 3]
        v.encode("the cat".split(), as_tensor=True)          # tensor([4, 5]) (int64)
        v.decode([4, 5])                                     # ['the', 'cat']

    tokens: the ordinary tokens, in id order (duplicates of earlier tokens are ignored); a str
        stands for its characters: Vocab(" abcdefghijklmnopqrstuvwxyz", specials=()).
    specials: tokens placed first, default ("<unk>", "<pad>", "<s>", "</s>"). Without "<unk>"
        an unknown token raises KeyError instead of mapping to <unk>.
    """

    def __init__(self, tokens=(), specials=SPECIALS):
        if isinstance(specials, str):  # tuple("<unk>") would be five one-character specials
            raise TypeError(f"Vocab: specials must be a sequence of str, got the str {specials!r}; "
                            f"write specials=({specials!r},)")
        specials, tokens = tuple(specials), tuple(tokens)  # a str gives its characters
        for t in specials + tokens:
            if not isinstance(t, str):
                raise TypeError(f"Vocab: tokens must be str, got {type(t).__name__} ({t!r})")
        if len(set(specials)) != len(specials):
            raise ValueError(f"Vocab: duplicate specials in {specials}")
        self.specials = specials
        self.itos = list(specials)
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        for t in tokens:
            if t not in self.stoi:
                self.stoi[t] = len(self.itos)
                self.itos.append(t)

    @classmethod
    def build(cls, sequences, min_freq=1, max_size=None, specials=SPECIALS):
        """A Vocab of the tokens in `sequences`, most frequent first (ties in string order).

        sequences: an iterable of token sequences, as torchtext's build_vocab_from_iterator
            takes: [["the", "cat"], ...] for words, ["line one", ...] for characters. For one
            flat list of tokens, pass [tokens].
        min_freq: drop tokens seen fewer times than this.
        max_size: keep at most this many tokens besides the specials (the most frequent).
        """
        min_freq = _int_arg(min_freq, "min_freq")
        if min_freq < 1:
            raise ValueError(f"Vocab.build: min_freq must be >= 1, got {min_freq}")
        if max_size is not None:
            max_size = _int_arg(max_size, "max_size")
        if max_size is not None and max_size < 0:
            raise ValueError(f"Vocab.build: max_size must be >= 0 or None, got {max_size}")
        counts = collections.Counter()
        for seq in sequences:
            counts.update(seq)
        for t in counts:  # every token, also those min_freq drops: a 0 among str tokens is a bug upstream
            if not isinstance(t, str):
                raise TypeError(f"Vocab.build: tokens must be str, got {type(t).__name__} ({t!r})")
        special_set = set(specials)
        ranked = sorted((t for t, c in counts.items() if c >= min_freq and t not in special_set),
                        key=lambda t: (-counts[t], t))
        if max_size is not None:
            ranked = ranked[:max_size]
        return cls(ranked, specials=specials)

    # ------------------------------------------------------------------ lookup

    def __len__(self):
        return len(self.itos)

    def __contains__(self, token):
        return token in self.stoi

    def __iter__(self):
        return iter(self.itos)

    def __getitem__(self, token):
        """The id of `token`; <unk>'s id for an unknown token (KeyError when there is no <unk>)."""
        i = self.stoi.get(token)
        if i is None:
            if self.unk_index is None:
                raise KeyError(f"Vocab: token {token!r} is not in the vocabulary, which has no '<unk>'")
            return self.unk_index
        return i

    def lookup_token(self, index):
        """The token with id `index`."""
        try:
            index = operator.index(index)  # itos[1.5] would be a TypeError naming no one
        except TypeError:
            raise TypeError(f"Vocab.lookup_token: the id must be an int, got {type(index).__name__}") from None
        if not 0 <= index < len(self.itos):
            raise IndexError(f"Vocab: id {index} is out of range for a vocabulary of size {len(self.itos)}")
        return self.itos[index]

    def _special(self, token):
        return self.stoi.get(token) if token in self.specials else None

    # the ids of the special tokens, None for one the vocabulary lacks
    unk_index = property(lambda self: self._special("<unk>"), doc="The id of <unk>, or None.")
    pad_index = property(lambda self: self._special("<pad>"), doc="The id of <pad>, or None.")
    bos_index = property(lambda self: self._special("<s>"), doc="The id of <s>, or None.")
    eos_index = property(lambda self: self._special("</s>"), doc="The id of </s>, or None.")

    # ------------------------------------------------------------------ encode / decode

    def encode(self, tokens, bos=False, eos=False, as_tensor=False):
        """Token ids for `tokens` (a list of tokens, or a str for a character vocabulary).

        bos / eos: put <s> first / </s> last. as_tensor: return a 1-D seqlab int64 tensor
        instead of a list of ints.
        """
        ids = [self[t] for t in tokens]
        if bos:
            ids.insert(0, self._required("<s>", "bos"))
        if eos:
            ids.append(self._required("</s>", "eos"))
        if as_tensor:
            return from_numpy(np.array(ids, dtype=np.int64))
        return ids

    def decode(self, ids, skip_specials=False):
        """The tokens for `ids`: a list or tuple of ints, a 1-D NumPy array or seqlab tensor."""
        if isinstance(ids, Tensor):
            if ids.dtype != int64:
                raise TypeError(f"Vocab.decode: expected an int64 tensor, got {ids.dtype}")
            ids = ids.detach().numpy()
        ids = np.asarray(ids)
        if ids.ndim != 1:
            raise ValueError(f"Vocab.decode: expected a 1-D sequence of ids, got shape {tuple(ids.shape)}")
        if ids.size and ids.dtype.kind not in "iu":
            raise TypeError(f"Vocab.decode: ids must be integers, got {ids.dtype}")
        bad = (ids < 0) | (ids >= len(self.itos))
        if bad.any():
            raise IndexError(f"Vocab.decode: id {int(ids[bad][0])} is out of range for a vocabulary "
                             f"of size {len(self.itos)}")
        n_specials = len(self.specials)
        return [self.itos[i] for i in ids.tolist() if not (skip_specials and i < n_specials)]

    def _required(self, token, what):
        if token not in self.specials:
            raise ValueError(f"Vocab.encode: {what}=True needs the special {token!r}, "
                             f"which this vocabulary lacks (specials: {self.specials})")
        return self.stoi[token]

    # ------------------------------------------------------------------ save / load

    def save(self, path):
        """Write the vocabulary to `path` as JSON, atomically (the old file survives a failure)."""
        obj = {"format": _FORMAT, "version": _VERSION,
               "specials": list(self.specials), "itos": self.itos}
        with atomic_open(path, "w") as f:
            json.dump(obj, f, ensure_ascii=False)
            f.write("\n")

    @classmethod
    def load(cls, path):
        """A Vocab saved by Vocab.save. A corrupt or foreign file raises ValueError naming it."""
        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                obj = json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"Vocab.load: {path} is not a valid vocabulary file (corrupt JSON: {e})") from None

        def invalid(why):
            return ValueError(f"Vocab.load: {path} is not a valid vocabulary file ({why})")

        if not isinstance(obj, dict) or obj.get("format") != _FORMAT:
            raise invalid(f"expected a JSON object with \"format\": \"{_FORMAT}\"")
        if obj.get("version") != _VERSION:
            raise invalid(f"unsupported version {obj.get('version')!r}, expected {_VERSION}")
        itos, specials = obj.get("itos"), obj.get("specials")
        if not isinstance(itos, list) or not isinstance(specials, list):
            raise invalid("\"itos\" and \"specials\" must be lists")
        if not all(isinstance(t, str) for t in itos):
            raise invalid("\"itos\" must hold only strings")
        if itos[:len(specials)] != specials:
            raise invalid("\"itos\" must start with the specials")
        if len(set(itos)) != len(itos):
            raise invalid("\"itos\" has duplicate tokens")
        return cls(itos[len(specials):], specials=specials)

    # ------------------------------------------------------------------ misc

    def __eq__(self, other):
        return isinstance(other, Vocab) and self.specials == other.specials and self.itos == other.itos

    __hash__ = None

    def __repr__(self):
        head = ", ".join(repr(t) for t in self.itos[:8])
        more = ", ..." if len(self.itos) > 8 else ""
        return f"Vocab(size={len(self.itos)}, [{head}{more}])"
