"""Named corpora that load offline with one call, with fixed seeded train/valid/test splits.

Real text comes from Debian packages and gensim (no downloads): kjv (bible-kjv), words
(wamerican), analogies (gensim's questions-words.txt). Synthetic corpora with planted
structure are generated from a seed: zipf, long_range, planted_analogies.
Tested in tests/test_corpora.py.

Every loader is cached in memory (functools.lru_cache: a second call returns the same
object, so treat corpora as read-only); kjv and words are also cached on disk under
cache_dir() (~/.cache/seqlab), keyed by the source file's mtime and size, so a restarted
notebook reloads them in a fraction of a second.
"""

import dataclasses
import functools
import importlib.util
import inspect
import json
import os
import re
import shutil
import subprocess
import warnings

import numpy as np

from .._core import from_numpy

from .._atomic import atomic_open
from .text import SPLITS, TextCorpus, train_valid_test_split
from .tokenize import WordTokenizer
from .vocab import Vocab

__all__ = [
    "kjv", "words", "analogies", "zipf", "long_range", "planted_analogies",
    "Analogies", "ZipfCorpus", "LongRangeCorpus", "PlantedAnalogiesCorpus",
    "MissingPackageError", "cache_dir",
]

SPLIT_SEED = 0                    # the seed of every real corpus's train/valid/test split
FRACTIONS = (0.9, 0.05, 0.05)     # train / valid / test


class MissingPackageError(RuntimeError):
    """A corpus's source package is not installed; the message says how to install it."""


# ----------------------------------------------------------------------------- caches

def _memoize(fn):
    """functools.lru_cache keyed by the bound arguments, so that kjv() and kjv(level="word")
    are one entry. The wrapper keeps cache_clear() and __wrapped__ (the uncached loader)."""
    signature = inspect.signature(fn)
    cached = functools.lru_cache(maxsize=None)(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return cached(*bound.args)

    wrapper.cache_clear = cached.cache_clear
    wrapper.cache_info = cached.cache_info
    return wrapper


_CACHE_FORMAT = 1  # bump when the processing below changes, to invalidate old caches


def cache_dir():
    """Where corpora are cached: $SEQLAB_CACHE_DIR, else $XDG_CACHE_HOME/seqlab, else ~/.cache/seqlab."""
    if os.environ.get("SEQLAB_CACHE_DIR"):
        return os.environ["SEQLAB_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "seqlab")


def _source_key(name, path):
    """What the cache entry depends on: the corpus, the cache format, the source file's identity."""
    st = os.stat(path)
    return {"corpus": name, "format": _CACHE_FORMAT, "source": path,
            "mtime_ns": st.st_mtime_ns, "size": st.st_size}


def _cached(name, source, build):
    """The TextCorpus `name`, from the disk cache if it matches `source`, else build() and cache it."""
    key = _source_key(name, source)
    path = os.path.join(cache_dir(), name + ".npz")
    corpus = _load_cache(path, key)
    if corpus is None:
        corpus = build()
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _save_cache(path, key, corpus)
        except OSError as e:  # a read-only home must not stop the corpus from loading
            warnings.warn(f"seqlab.data.corpora: could not write the cache {path}: {e}", stacklevel=3)
    return corpus


def _save_cache(path, key, corpus):
    """One .npz: a JSON header, and per split the lines as UTF-8 text and the id stream."""
    meta = {"key": key, "name": corpus.name, "level": corpus.level, "eos": corpus.eos,
            "specials": list(corpus.vocab.specials), "itos": corpus.vocab.itos}
    arrays = {"meta": np.array(json.dumps(meta))}
    glue = " " if corpus.level == "word" else ""
    for split in SPLITS:
        lines = [line if isinstance(line, str) else glue.join(line) for line in corpus.lines(split)]
        text = "\n".join(lines)
        assert text.count("\n") == max(len(lines) - 1, 0), "a line holds a newline; it cannot be cached"
        arrays[split + "_text"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
        corpus.ids(split)  # fills corpus._ids
        arrays[split + "_ids"] = corpus._ids[split].astype(_smallest_uint(len(corpus.vocab)))
    with atomic_open(path, "wb") as f:
        np.savez(f, **arrays)


def _smallest_uint(n):
    return np.uint8 if n <= 2**8 else np.uint16 if n <= 2**16 else np.uint32


def _load_cache(path, key):
    """The cached TextCorpus, or None if the file is missing, stale or unreadable."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(z["meta"].item())
            if meta.get("key") != key:
                return None
            parts, streams = {}, {}
            for split in SPLITS:
                text = z[split + "_text"].tobytes().decode("utf-8")
                lines = text.split("\n") if text else []
                parts[split] = tuple(tuple(line.split(" ")) for line in lines) if meta["level"] == "word" \
                    else tuple(lines)
                streams[split] = z[split + "_ids"].astype(np.int64)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 -- any damage to a cache file means "rebuild it", never an error
        return None
    vocab = Vocab(meta["itos"][len(meta["specials"]):], specials=meta["specials"])
    corpus = TextCorpus(name=meta["name"], level=meta["level"], vocab=vocab, eos=meta["eos"], **parts)
    corpus._ids.update(streams)
    return corpus


# ----------------------------------------------------------------------------- kjv

BIBLE_DATA = "/usr/lib/bible.data"  # the text, from bible-kjv-text (which bible-kjv depends on)
N_VERSES = 31102
# `bible -f` prints one verse per line after its reference:  Ge1:1 In the beginning ...  1Cor13:4 Charity ...
_VERSE_REFERENCE = re.compile(r"^\s*\w+?\d+:\d+\s+")
_APOSTROPHES = re.compile(r"['’]")
_NOT_A_TO_Z = re.compile(r"[^a-z]+")
SHANNON27 = " abcdefghijklmnopqrstuvwxyz"


def _require_bible():
    program = shutil.which("bible")
    if program is None or not os.path.exists(BIBLE_DATA):
        missing = "the `bible` program" if program is None else BIBLE_DATA
        raise MissingPackageError(
            f"seqlab.data.corpora.kjv: the King James Bible is not installed ({missing} is missing); "
            f"install Debian's bible-kjv package: `sudo apt-get install bible-kjv` (`make setup` does)")
    return program


def _kjv_verses(program):
    """The 31,102 verses, references stripped, in canonical order."""
    out = subprocess.run([program, "-f", "Gen1:1-Rev22:21"], capture_output=True, text=True, check=True).stdout
    verses = []
    for line in out.splitlines():
        if not line.strip():
            continue
        m = _VERSE_REFERENCE.match(line)
        if m is None:
            raise RuntimeError(f"seqlab.data.corpora.kjv: unexpected output from `bible`: {line[:80]!r}")
        verses.append(line[m.end():].strip())
    if len(verses) != N_VERSES:
        raise RuntimeError(f"seqlab.data.corpora.kjv: `bible` printed {len(verses)} verses, expected {N_VERSES}")
    return verses


def shannon27(text):
    """`text` over Shannon's 27 symbols: lowercase a-z and space. Apostrophes are dropped
    ("LORD'S" -> "lords"); every other run of non-letters (punctuation, digits, newlines,
    spaces) becomes one space; the ends are stripped."""
    text = _APOSTROPHES.sub("", text.lower())
    return _NOT_A_TO_Z.sub(" ", text).strip()


@_memoize
def kjv(level="word"):
    """The King James Bible from Debian's bible-kjv, split 90/5/5 by verse (seeded, fixed).

    31,102 verses, verse references ("Ge1:1") stripped: train 27,992 verses, valid 1,555,
    test 1,555; each split keeps the canonical order. A line is one verse. The vocabulary is
    built from train.

    level="word": lowercased WordTokenizer tokens, punctuation split off ("father's" stays
        one token): 913,708 tokens, train 822,518, valid 46,042, test 45,148 (eos not
        counted); vocab 12,279: the 4 specials + the 12,275 train types (of 12,772), most
        frequent first; eos "</s>".
    level="char": the verse text verbatim (case and punctuation kept): 4,106,747 characters,
        train 3,696,870, valid 206,409, test 203,468; vocab 66: the 4 specials + all 62
        characters, most frequent first; eos "</s>".
    level="shannon27": the 27 symbols of Shannon's game (1951), " abc...z", and nothing
        else: lowercased, apostrophes dropped, every other run of non-letters one space
        (see shannon27()); verses are joined by a space, so eos is " " and ids() / text()
        give one continuous 27-symbol stream: train 3,583,815, valid 199,982, test 197,208
        symbols plus one space per verse. vocab is exactly the 27 symbols (no specials).

    Raises MissingPackageError when bible-kjv is not installed.
    """
    if level not in ("word", "char", "shannon27"):
        raise ValueError(f"kjv: level must be 'word', 'char' or 'shannon27', got {level!r}")
    program = _require_bible()
    return _cached(f"kjv-{level}", BIBLE_DATA, lambda: _build_kjv(program, level))


def _build_kjv(program, level):
    train, valid, test = train_valid_test_split(_kjv_verses(program), FRACTIONS, SPLIT_SEED)
    if level == "word":
        tokenize = WordTokenizer(lower=True)
        train, valid, test = ([tuple(tokenize(v)) for v in part] for part in (train, valid, test))
        vocab, eos, kind = Vocab.build(train), "</s>", "word"
    elif level == "char":
        vocab, eos, kind = Vocab.build(train), "</s>", "char"
    else:
        train, valid, test = ([shannon27(v) for v in part] for part in (train, valid, test))
        vocab, eos, kind = Vocab(SHANNON27, specials=()), " ", "char"
    return TextCorpus(name=f"kjv-{level}", level=kind, train=tuple(train), valid=tuple(valid),
                      test=tuple(test), vocab=vocab, eos=eos)


# ----------------------------------------------------------------------------- words

WORDS_FILE = "/usr/share/dict/american-english"  # from Debian's wamerican
_A_TO_Z_WORD = re.compile(r"[a-z]+")


@_memoize
def words():
    """English words from Debian's wamerican, for character-level models (as makemore's names).

    Every entry lowercased, kept only if it is made of the letters a-z alone ("zygote's" and
    "élan" go), duplicates removed: 73,445 words, in sorted order within each split, split
    90/5/5 at random (seeded, fixed): train 66,101, valid 3,672, test 3,672. A line is one
    word (a str). vocab: the 4 specials then "a".."z" (30 tokens); eos "</s>"; encode a word
    for a model with vocab.encode(word, bos=True, eos=True).

    Raises MissingPackageError when wamerican is not installed.
    """
    if not os.path.exists(WORDS_FILE):
        raise MissingPackageError(
            f"seqlab.data.corpora.words: the word list {WORDS_FILE} is missing; install Debian's "
            f"wamerican package: `sudo apt-get install wamerican` (`make setup` does)")
    return _cached("words", WORDS_FILE, _build_words)


def _build_words():
    with open(WORDS_FILE, encoding="utf-8") as f:
        entries = {line.strip().lower() for line in f}
    kept = sorted(w for w in entries if _A_TO_Z_WORD.fullmatch(w))
    train, valid, test = train_valid_test_split(kept, FRACTIONS, SPLIT_SEED)
    return TextCorpus(name="words", level="char", train=tuple(train), valid=tuple(valid), test=tuple(test),
                      vocab=Vocab("abcdefghijklmnopqrstuvwxyz"), eos="</s>")


# ----------------------------------------------------------------------------- analogies

@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Analogies:
    """Word-analogy questions a : b :: c : d (Mikolov et al. 2013, questions-words.txt).

    sections: section name -> tuple of (a, b, c, d), all 19,544 questions in file order
        (14 sections: 5 semantic, e.g. "capital-common-countries", 9 syntactic, "gram1-..." on).
    valid, test: the same sections, each split in half at random (seeded, fixed; valid gets
        the smaller half of an odd section): 9,771 valid and 9,773 test questions. Tune on
        valid, report on test.
    """

    sections: dict
    valid: dict
    test: dict

    def questions(self, split="all"):
        """All (a, b, c, d) of `split` ("all", "valid" or "test") as one list, section by section."""
        if split not in ("all", "valid", "test"):
            raise ValueError(f"Analogies.questions: split must be 'all', 'valid' or 'test', got {split!r}")
        parts = self.sections if split == "all" else getattr(self, split)
        return [q for qs in parts.values() for q in qs]

    @property
    def semantic(self):
        """The names of the semantic sections (the others, "gram*", are syntactic)."""
        return [name for name in self.sections if not name.startswith("gram")]

    @property
    def syntactic(self):
        return [name for name in self.sections if name.startswith("gram")]

    def __repr__(self):
        n = sum(len(q) for q in self.sections.values())
        return f"Analogies({n} questions in {len(self.sections)} sections)"


def _questions_words_file():
    spec = importlib.util.find_spec("gensim")  # finds the package without importing it (fast)
    if spec is None or not spec.submodule_search_locations:
        raise MissingPackageError("seqlab.data.corpora.analogies: gensim is not installed and ships "
                                  "questions-words.txt; install it with `pip install gensim` "
                                  "(`make setup` does)")
    path = os.path.join(list(spec.submodule_search_locations)[0], "test", "test_data", "questions-words.txt")
    if not os.path.exists(path):
        raise MissingPackageError(f"seqlab.data.corpora.analogies: {path} is missing from this gensim; "
                                  f"reinstall it with `pip install --force-reinstall gensim`")
    return path


def _parse_questions(path, lower):
    sections = {}
    current = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if line.startswith(":"):
                current = sections.setdefault(line[1:].strip(), [])
                continue
            fields = (line.lower() if lower else line).split()
            if current is None or len(fields) != 4:
                raise ValueError(f"{path}:{number}: expected a ': section' line or four words, got {line!r}")
            current.append(tuple(fields))
    return {name: tuple(qs) for name, qs in sections.items()}


@_memoize
def analogies(lower=True):
    """The 19,544 word-analogy questions of questions-words.txt, shipped inside gensim.

    lower: lowercase every word (as gensim's evaluate_word_analogies(case_insensitive=True)
    does; the seqlab word corpora are lowercase). Returns an Analogies. Cached in memory
    only: parsing the file is as fast as reading a cache.

    Raises MissingPackageError when gensim is not installed.
    """
    sections = _parse_questions(_questions_words_file(), lower)
    rng = np.random.default_rng(SPLIT_SEED)
    valid, test = {}, {}
    for name, qs in sections.items():
        order = rng.permutation(len(qs))
        half = len(qs) // 2
        valid[name] = tuple(qs[i] for i in np.sort(order[:half]))
        test[name] = tuple(qs[i] for i in np.sort(order[half:]))
    return Analogies(sections=sections, valid=valid, test=test)


# ----------------------------------------------------------------------------- synthetic corpora

def _split_seed(seed):
    """The seed of a synthetic corpus's split: independent of the stream that generated it."""
    return np.random.SeedSequence([seed, 1])


@dataclasses.dataclass(frozen=True, eq=False, repr=False, kw_only=True)
class ZipfCorpus(TextCorpus):
    """zipf()'s corpus, with the true distribution: probs[k-1] = P("w{k}") ∝ 1 / k**exponent."""

    probs: np.ndarray
    exponent: float

    def entropy(self):
        """The entropy of the true unigram distribution in nats: the best possible per-token loss."""
        return float(-(self.probs * np.log(self.probs)).sum())


@_memoize
def zipf(n_tokens=100_000, vocab_size=1_000, exponent=1.0, seed=0, line_length=50):
    """Tokens drawn independently from a Zipf law: P(k-th most frequent word) ∝ 1 / k**exponent.

    The words are "w1" (the most frequent) .. "w{vocab_size}". The stream is cut into lines
    of line_length tokens (the last may be shorter), split 90/5/5 by line (seeded): with the
    defaults 2,000 lines, train 1,800, valid 100, test 100. eos is None (a line break is not
    a token). vocab is built from train by frequency, so rare words may be <unk> in valid.
    Returns a ZipfCorpus; its entropy() is the loss a perfect unigram model reaches.
    """
    if n_tokens < 1 or vocab_size < 1 or line_length < 1:
        raise ValueError(f"zipf: n_tokens, vocab_size and line_length must be >= 1, "
                         f"got {n_tokens}, {vocab_size}, {line_length}")
    if exponent < 0:
        raise ValueError(f"zipf: exponent must be >= 0, got {exponent}")
    probs = 1.0 / np.arange(1, vocab_size + 1, dtype=np.float64) ** exponent
    probs /= probs.sum()
    probs.flags.writeable = False
    names = np.array([f"w{k}" for k in range(1, vocab_size + 1)])
    stream = names[np.random.default_rng(seed).choice(vocab_size, size=n_tokens, p=probs)].tolist()
    lines = [tuple(stream[i:i + line_length]) for i in range(0, n_tokens, line_length)]
    train, valid, test = train_valid_test_split(lines, FRACTIONS, _split_seed(seed))
    return ZipfCorpus(name="zipf", level="word", train=tuple(train), valid=tuple(valid), test=tuple(test),
                      vocab=Vocab.build(train), eos=None, probs=probs, exponent=exponent)


@dataclasses.dataclass(frozen=True, eq=False, repr=False, kw_only=True)
class LongRangeCorpus(TextCorpus):
    """long_range()'s corpus: every line has length `length`; line[gap] = key_to_value[line[0]]."""

    gap: int
    length: int
    key_to_value: dict

    def sequences(self, split="train"):
        """The split as an int64 tensor (n_lines, length), one sequence per row (no eos)."""
        lines = self.lines(split)
        ids = np.array([[self.vocab.stoi[t] for t in line] for line in lines], dtype=np.int64)
        return from_numpy(ids.reshape(len(lines), self.length))


@_memoize
def long_range(n_seqs=2_000, length=32, gap=16, seed=0, n_keys=4, n_fillers=16):
    """Sequences with a planted long-range dependency, for RNN vs LSTM/GRU experiments.

    Position 0 holds a key "k0".."k{n_keys-1}", drawn uniformly; position `gap` holds its
    value key_to_value[key] ("v0".., a seeded one-to-one map); every other position is a
    filler "f0".."f{n_fillers-1}" drawn uniformly. The value is predictable only by
    remembering position 0 across gap - 1 fillers: a model without that memory pays
    log(n_keys) nats on it, a model with it pays 0.

    Lines (tuples of `length` tokens) are split 90/5/5 (seeded): with the defaults train
    1,800, valid 100, test 100. vocab: the 4 specials, the keys, the values, the fillers;
    eos "</s>". sequences(split) gives an (n, length) int64 tensor: for inputs x = s[:, :-1]
    and next-token targets y = s[:, 1:], the planted target is y[:, gap - 1].
    """
    if not 1 <= gap < length:
        raise ValueError(f"long_range: need 1 <= gap < length, got gap={gap}, length={length}")
    if n_seqs < 1 or n_keys < 2 or n_fillers < 1:
        raise ValueError(f"long_range: need n_seqs >= 1, n_keys >= 2, n_fillers >= 1, "
                         f"got {n_seqs}, {n_keys}, {n_fillers}")
    rng = np.random.default_rng(seed)
    keys = np.array([f"k{i}" for i in range(n_keys)])
    values = np.array([f"v{i}" for i in range(n_keys)])
    fillers = np.array([f"f{i}" for i in range(n_fillers)])
    value_of = rng.permutation(n_keys)                               # key i -> value value_of[i]
    key_ids = rng.integers(n_keys, size=n_seqs)
    grid = fillers[rng.integers(n_fillers, size=(n_seqs, length))]   # (n_seqs, length) of str
    grid = grid.astype(f"<U{max(len(s) for s in (*keys, *values, *fillers))}")
    grid[:, 0] = keys[key_ids]
    grid[:, gap] = values[value_of[key_ids]]
    lines = [tuple(row) for row in grid.tolist()]
    train, valid, test = train_valid_test_split(lines, FRACTIONS, _split_seed(seed))
    return LongRangeCorpus(
        name="long_range", level="word", train=tuple(train), valid=tuple(valid), test=tuple(test),
        vocab=Vocab([*keys.tolist(), *values.tolist(), *fillers.tolist()]), eos="</s>",
        gap=gap, length=length, key_to_value={str(keys[i]): str(values[value_of[i]]) for i in range(n_keys)})


@dataclasses.dataclass(frozen=True, eq=False, repr=False, kw_only=True)
class PlantedAnalogiesCorpus(TextCorpus):
    """planted_analogies()'s corpus: words[e][r] is entity e in form r; questions are the
    (words[e1][r1], words[e1][r2], words[e2][r1], words[e2][r2]) for e1 != e2, r1 != r2."""

    words: tuple
    questions: tuple


@_memoize
def planted_analogies(seed=0, n_entities=20, n_relations=4, n_contexts=10, n_sentences=20_000, window=2):
    """A corpus in which word2vec recovers a : b :: c : d, because the offsets are planted.

    There are n_entities x n_relations target words "e{e}_r{r}" (think: entity "king",
    relation "female" -> "queen"). Each sentence is one target word with `window` context
    words on each side; each context word comes, with probability 1/2 each, from the
    target's entity contexts "c{e}_0".. or from its relation contexts "d{r}_0"..
    (n_contexts of each). So a target's contexts are the sum of an entity part and a relation
    part, its PMI row is additive, and vec(e1_r2) - vec(e1_r1) + vec(e2_r1) ~ vec(e2_r2).
    (The names spell the structure out; only a subword model such as FastText can read them.)

    Sentences are split 90/5/5 (seeded): with the defaults 20,000 sentences, train 18,000,
    valid 1,000, test 1,000; questions: n_e (n_e - 1) n_r (n_r - 1) = 4,560. vocab: the
    specials, the targets, the entity contexts, the relation contexts; eos "</s>".
    """
    if n_entities < 2 or n_relations < 2 or n_contexts < 1 or n_sentences < 1 or window < 1:
        raise ValueError(f"planted_analogies: need n_entities >= 2, n_relations >= 2, and n_contexts, "
                         f"n_sentences, window >= 1; got {n_entities}, {n_relations}, {n_contexts}, "
                         f"{n_sentences}, {window}")
    rng = np.random.default_rng(seed)
    targets = [[f"e{e}_r{r}" for r in range(n_relations)] for e in range(n_entities)]
    entity_ctx = np.array([[f"c{e}_{j}" for j in range(n_contexts)] for e in range(n_entities)])
    relation_ctx = np.array([[f"d{r}_{j}" for j in range(n_contexts)] for r in range(n_relations)])
    e = rng.integers(n_entities, size=n_sentences)
    r = rng.integers(n_relations, size=n_sentences)
    j = rng.integers(n_contexts, size=(n_sentences, 2 * window))
    from_entity = rng.random((n_sentences, 2 * window)) < 0.5
    context = np.where(from_entity, entity_ctx[e[:, None], j], relation_ctx[r[:, None], j]).tolist()
    sentences = [tuple(ctx[:window]) + (targets[ei][ri],) + tuple(ctx[window:])
                 for ctx, ei, ri in zip(context, e.tolist(), r.tolist())]
    train, valid, test = train_valid_test_split(sentences, FRACTIONS, _split_seed(seed))
    questions = tuple((targets[e1][r1], targets[e1][r2], targets[e2][r1], targets[e2][r2])
                      for e1 in range(n_entities) for e2 in range(n_entities) if e1 != e2
                      for r1 in range(n_relations) for r2 in range(n_relations) if r1 != r2)
    vocab = Vocab([w for row in targets for w in row] + entity_ctx.ravel().tolist() + relation_ctx.ravel().tolist())
    return PlantedAnalogiesCorpus(
        name="planted_analogies", level="word", train=tuple(train), valid=tuple(valid), test=tuple(test),
        vocab=vocab, eos="</s>", words=tuple(tuple(row) for row in targets), questions=questions)
