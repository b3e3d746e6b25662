"""seqlab.embed.KeyedVectors against gensim's KeyedVectors built from the same vectors:
queries, analogy evaluation on questions-words.txt, and the word2vec text and binary formats
in both directions (python/seqlab/embed/keyedvectors.py)."""
import os

import numpy as np
import pytest
from gensim.models import KeyedVectors as GensimKV

from seqlab.data import corpora
from seqlab.embed import KeyedVectors

QUESTIONS = corpora._questions_words_file()


def both(keys, vectors, counts=None):
    """The same vectors in seqlab and in gensim."""
    ours, theirs = KeyedVectors(vectors.shape[1]), GensimKV(vectors.shape[1])
    ours.add_vectors(keys, vectors)
    theirs.add_vectors(keys, vectors)
    if counts is not None:
        for k, c in zip(keys, counts):
            ours.set_vecattr(k, "count", int(c))
            theirs.set_vecattr(k, "count", int(c))
    return ours, theirs


@pytest.fixture(scope="module")
def random_pair():
    rng = np.random.default_rng(0)
    keys = [f"w{i}" for i in range(500)]
    return both(keys, rng.standard_normal((500, 16)).astype(np.float32))


def assert_same_ranking(ours, theirs):
    assert [k for k, _ in ours] == [k for k, _ in theirs]
    np.testing.assert_allclose([s for _, s in ours], [s for _, s in theirs], rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- queries

@pytest.mark.parametrize("query", [
    dict(positive=["w1"]),
    dict(positive=["w1", "w2"], negative=["w3"]),
    dict(positive=["w1", "w2"], negative=["w3"], topn=3),
    dict(positive="w7", negative="w8", topn=25),
    dict(positive=[("w1", 2.0), "w2"], negative=[("w3", -0.5)]),
    dict(positive=["w1", "w2"], negative=["w3"], restrict_vocab=100),
    dict(positive=["w400"], restrict_vocab=50),   # the query word lies outside the searched range
    dict(negative=["w5"], positive=["w6", "w9", "w11"]),
])
def test_most_similar_matches_gensim(random_pair, query):
    ours, theirs = random_pair
    assert_same_ranking(ours.most_similar(**query), theirs.most_similar(**query))


def test_most_similar_vectors_topn_none_and_aliases(random_pair):
    ours, theirs = random_pair
    v = np.random.default_rng(1).standard_normal(16).astype(np.float32)
    assert_same_ranking(ours.most_similar(positive=[v, "w4"]), theirs.most_similar(positive=[v, "w4"]))
    assert_same_ranking(ours.similar_by_vector(v, topn=7), theirs.similar_by_vector(v, topn=7))
    assert_same_ranking(ours.similar_by_word("w9", topn=4), theirs.similar_by_word("w9", topn=4))
    assert_same_ranking(ours.similar_by_key("w9", restrict_vocab=30), theirs.similar_by_key("w9", restrict_vocab=30))
    np.testing.assert_allclose(ours.most_similar("w3", topn=None), theirs.most_similar("w3", topn=None), rtol=1e-5)
    assert ours.most_similar("w3", topn=0) == theirs.most_similar("w3", topn=0) == []


@pytest.mark.parametrize("query", [
    dict(positive=["w1", "w2"], negative=["w3"]),
    dict(positive=["w1"], topn=5),
    dict(positive=["w1", "w2", "w10"], negative=["w3", "w20"], topn=20),
])
def test_most_similar_cosmul_matches_gensim(random_pair, query):
    ours, theirs = random_pair
    assert_same_ranking(ours.most_similar_cosmul(**query), theirs.most_similar_cosmul(**query))


def test_cosmul_formula_by_hand(random_pair):
    ours, _ = random_pair
    unit = ours.get_normed_vectors().astype(np.float64)
    s = lambda k: (1 + unit @ unit[ours.get_index(k)]) / 2  # noqa: E731
    expected = s("w1") * s("w2") / (s("w3") + 1e-6)
    np.testing.assert_allclose(ours.most_similar_cosmul(["w1", "w2"], ["w3"], topn=None), expected, rtol=1e-5)


def test_pairwise_queries_match_gensim(random_pair):
    ours, theirs = random_pair
    words = ["w1", "w2", "w3", "w4", "w5"]
    assert ours.doesnt_match(words) == theirs.doesnt_match(words)
    assert ours.doesnt_match(words + ["unknown"]) == theirs.doesnt_match(words + ["unknown"])
    ranked, g_ranked = ours.rank_by_centrality(words), theirs.rank_by_centrality(words)
    assert [w for _, w in ranked] == [w for _, w in g_ranked]
    np.testing.assert_allclose([s for s, _ in ranked], [s for s, _ in g_ranked], rtol=1e-5)
    assert ours.similarity("w1", "w2") == pytest.approx(theirs.similarity("w1", "w2"), rel=1e-5)
    assert ours.distance("w1", "w2") == pytest.approx(theirs.distance("w1", "w2"), rel=1e-5)
    assert ours.n_similarity(["w1", "w2"], ["w3"]) == pytest.approx(theirs.n_similarity(["w1", "w2"], ["w3"]), rel=1e-5)
    np.testing.assert_allclose(ours.distances("w1"), theirs.distances("w1"), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.distances("w1", ["w2", "w9"]), theirs.distances("w1", ["w2", "w9"]), rtol=1e-5)
    assert ours.closer_than("w1", "w2") == theirs.closer_than("w1", "w2")
    assert ours.rank("w1", "w2") == theirs.rank("w1", "w2")
    assert ours.most_similar_to_given("w1", words[1:]) == theirs.most_similar_to_given("w1", words[1:])
    assert ours.relative_cosine_similarity("w1", "w2") == pytest.approx(theirs.relative_cosine_similarity("w1", "w2"),
                                                                        rel=1e-5)
    np.testing.assert_allclose(ours.get_mean_vector(["w1", "w2"], [1.0, -2.0]),
                               theirs.get_mean_vector(["w1", "w2"], [1.0, -2.0]), rtol=1e-5)
    np.testing.assert_allclose(ours.get_normed_vectors(), theirs.get_normed_vectors(), rtol=1e-6)
    np.testing.assert_allclose(ours.get_vector("w5", norm=True), theirs.get_vector("w5", norm=True), rtol=1e-6)


def test_unknown_key_raises_gensims_keyerror(random_pair):
    ours, _ = random_pair
    for call in (lambda: ours["nope"], lambda: ours.most_similar("nope"), lambda: ours.similarity("w1", "nope"),
                 lambda: ours.most_similar_cosmul(["w1", "nope"]), lambda: ours.get_vecattr("nope", "count")):
        with pytest.raises(KeyError, match="Key 'nope' not present in vocabulary"):
            call()
    assert "nope" not in ours and "w1" in ours


def test_add_vector_add_vectors_and_setitem():
    kv, g = KeyedVectors(3, count=2), GensimKV(3, count=2)
    for k, v in (("a", [1, 0, 0]), ("b", [0, 1, 0]), ("c", [0, 0, 1])):
        assert kv.add_vector(k, np.array(v, np.float32)) == g.add_vector(k, np.array(v, np.float32))
    assert kv.index_to_key == g.index_to_key and kv.vectors.shape == (3, 3)
    kv.add_vectors(["c", "d"], np.array([[9, 9, 9], [1, 1, 0]], np.float32))   # c kept: replace=False
    np.testing.assert_array_equal(kv["c"], [0, 0, 1])
    kv["c"] = np.array([2, 0, 0], np.float32)                                  # __setitem__ replaces
    np.testing.assert_array_equal(kv["c"], [2, 0, 0])
    assert kv.vectors.dtype == np.float32 and kv.vectors.flags.c_contiguous
    assert kv.most_similar("a", topn=1)[0] == ("c", pytest.approx(1.0))        # norms refreshed
    kv.set_vecattr("d", "count", 7)
    assert kv.get_vecattr("d", "count") == 7 and kv.get_vecattr("a", "count") == 0


def test_analogy_convenience():
    # man : king :: woman : queen with exactly planted offsets
    rng = np.random.default_rng(2)
    base = rng.standard_normal((6, 10)).astype(np.float32)
    royal, female = rng.standard_normal(10), rng.standard_normal(10)
    keys = ["man", "king", "woman", "queen", "x", "y"]
    vectors = np.stack([base[0], base[0] + royal, base[0] + female, base[0] + royal + female, base[4], base[5]])
    kv, _ = both(keys, vectors.astype(np.float32))
    assert kv.analogy("man", "king", "woman") == "queen"
    assert kv.analogy("man", "king", "woman", method="3cosmul") == "queen"
    with pytest.raises(ValueError, match="method must be"):
        kv.analogy("man", "king", "woman", method="3cos")


# ----------------------------------------------------------------------------- analogies

def assert_same_evaluation(ours, theirs):
    score, sections = ours
    g_score, g_sections = theirs
    assert score == g_score
    assert [s["section"] for s in sections] == [s["section"] for s in g_sections]
    for s, g in zip(sections, g_sections):
        assert s["correct"] == g["correct"], s["section"]
        assert s["incorrect"] == g["incorrect"], s["section"]


@pytest.fixture(scope="module")
def questions_words_pair():
    """Random vectors over questions-words.txt's words, plus lowercase and capitalised case
    variants (so case_insensitive has collisions) and fillers, shuffled."""
    words = sorted({w for line in open(QUESTIONS, encoding="utf8") if not line.startswith(":") for w in line.split()})
    keys = list(dict.fromkeys(words + [w.lower() for w in words[::3]] + [w.capitalize() for w in words[::5]]
                              + [f"filler{i}" for i in range(1500)]))
    rng = np.random.default_rng(3)
    rng.shuffle(keys)
    return both(keys, rng.standard_normal((len(keys), 8)).astype(np.float32))


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(restrict_vocab=1200),
    dict(restrict_vocab=1200, dummy4unknown=True),
    dict(case_insensitive=False),
])
def test_evaluate_word_analogies_on_questions_words_matches_gensim(questions_words_pair, kwargs):
    ours, theirs = questions_words_pair
    result = ours.evaluate_word_analogies(QUESTIONS, **kwargs)
    assert_same_evaluation(result, theirs.evaluate_word_analogies(QUESTIONS, **kwargs))
    assert len(result[1]) == 15 and result[1][-1]["section"] == "Total accuracy"
    n_answered = len(result[1][-1]["correct"]) + len(result[1][-1]["incorrect"])
    assert n_answered > 1000


@pytest.fixture(scope="module")
def planted_pair(tmp_path_factory):
    """Vectors entity + relation + noise for planted_analogies()'s words, so that about half the
    questions are right; and a questions file with its sections, case variants, OOV and bad lines."""
    corpus = corpora.planted_analogies()
    rng = np.random.default_rng(4)
    n_e, n_r, d = len(corpus.words), len(corpus.words[0]), 24
    E, R = rng.standard_normal((n_e, d)), rng.standard_normal((n_r, d))
    keys = [w for row in corpus.words for w in row] + [f"other{i}" for i in range(200)]
    vectors = np.concatenate([(E[:, None] + R[None, :]).reshape(-1, d), rng.standard_normal((200, d)) * 1.5])
    vectors += rng.standard_normal(vectors.shape) * 0.55
    order = rng.permutation(len(keys))
    keys = [keys[i] for i in order]
    ours, theirs = both(keys, vectors[order].astype(np.float32))
    path = tmp_path_factory.mktemp("analogies") / "planted.txt"
    lines = []
    for r1 in range(n_r):
        lines.append(f": relation-{r1}")
        for q in corpus.questions:
            if q[0].endswith(f"_r{r1}"):
                lines.append(" ".join(w.upper() if len(lines) % 7 == 0 else w for w in q))
        lines.append("e0_r0 e1_r0 not_a_word e2_r0")    # OOV: skipped or counted wrong
        lines.append("too few words")                  # invalid: skipped
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    return ours, theirs, str(path)


@pytest.mark.parametrize("kwargs", [dict(), dict(dummy4unknown=True), dict(restrict_vocab=150),
                                    dict(case_insensitive=False)])
def test_evaluate_word_analogies_on_planted_vectors_matches_gensim(planted_pair, kwargs):
    ours, theirs, path = planted_pair
    result = ours.evaluate_word_analogies(path, **kwargs)
    assert_same_evaluation(result, theirs.evaluate_word_analogies(path, **kwargs))
    if not kwargs:
        assert 0.2 < result[0] < 0.9   # a score where right and wrong answers both occur


def test_evaluate_word_analogies_3cosmul_is_at_least_plausible(planted_pair):
    ours, _, path = planted_pair
    add, _ = ours.evaluate_word_analogies(path)
    mul, sections = ours.evaluate_word_analogies(path, similarity_function="most_similar_cosmul")
    assert mul > 0.5 * add
    # each counted answer agrees with most_similar_cosmul's own top answer
    a, b, c, d = sections[0]["correct"][0]
    lower = [w.lower() for w in (a, b, c, d)]
    assert ours.most_similar_cosmul([lower[1], lower[2]], [lower[0]], topn=1)[0][0] == lower[3]


def test_evaluate_word_analogies_needs_a_section_header(tmp_path, random_pair):
    ours, _ = random_pair
    path = tmp_path / "bad.txt"
    path.write_text("w1 w2 w3 w4\n")
    with pytest.raises(ValueError, match="Missing section header before line #0"):
        ours.evaluate_word_analogies(str(path))


def test_evaluate_word_pairs_matches_gensim(tmp_path, random_pair):
    ours, theirs = random_pair
    path = tmp_path / "pairs.tsv"
    rng = np.random.default_rng(5)
    rows = [f"W{i}\tw{j}\t{rng.uniform(0, 10):.2f}" for i, j in rng.integers(0, 500, (60, 2))]
    path.write_text("# comment\n" + "\n".join(rows + ["w1\tunknown\t3.0", "broken line"]) + "\n")
    p, s, oov = ours.evaluate_word_pairs(str(path))
    gp, gs, goov = theirs.evaluate_word_pairs(str(path))
    assert p[0] == pytest.approx(gp[0], rel=1e-5) and s[0] == pytest.approx(gs[0], rel=1e-5)
    assert oov == pytest.approx(goov)


# ----------------------------------------------------------------------------- formats

UNICODE_KEYS = ["the", "naïve", "日本語", "Ünïcödé", "emoji😀", "x-y_z", "a.b"]


@pytest.fixture
def counted_pair():
    rng = np.random.default_rng(6)
    keys = UNICODE_KEYS + [f"w{i}" for i in range(40)]
    vectors = rng.standard_normal((len(keys), 7)).astype(np.float32)
    vectors[3, 2] = 1e-8          # exercise str(np.float32) exponent formatting
    vectors[4, 0] = -123456.78
    counts = rng.integers(1, 50, len(keys))
    return both(keys, vectors, counts)


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("options", [dict(), dict(prefix="pre_"), dict(write_header=False), dict(total_vec=99),
                                     dict(sort_attr="none")])
def test_save_word2vec_format_is_byte_identical_to_gensims(tmp_path, counted_pair, binary, options):
    ours, theirs = counted_pair
    ours.save_word2vec_format(tmp_path / "ours", binary=binary, **options)
    theirs.save_word2vec_format(str(tmp_path / "theirs"), binary=binary, **options)
    assert (tmp_path / "ours").read_bytes() == (tmp_path / "theirs").read_bytes()


@pytest.mark.parametrize("binary", [False, True])
def test_fvocab_and_append_are_byte_identical_to_gensims(tmp_path, counted_pair, binary):
    ours, theirs = counted_pair
    for who, kv in (("ours", ours), ("theirs", theirs)):
        kv.save_word2vec_format(str(tmp_path / who), fvocab=str(tmp_path / f"{who}.vocab"), binary=binary)
        kv.save_word2vec_format(str(tmp_path / who), binary=binary, append=True, write_header=False, prefix="again_")
    assert (tmp_path / "ours").read_bytes() == (tmp_path / "theirs").read_bytes()
    assert (tmp_path / "ours.vocab").read_bytes() == (tmp_path / "theirs.vocab").read_bytes()


@pytest.mark.parametrize("binary", [False, True])
def test_gensim_reads_ours_and_we_read_gensims(tmp_path, counted_pair, binary):
    ours, theirs = counted_pair
    ours.save_word2vec_format(str(tmp_path / "ours"), fvocab=str(tmp_path / "ours.vocab"), binary=binary)
    theirs.save_word2vec_format(str(tmp_path / "theirs"), fvocab=str(tmp_path / "theirs.vocab"), binary=binary)
    g = GensimKV.load_word2vec_format(str(tmp_path / "ours"), fvocab=str(tmp_path / "ours.vocab"), binary=binary)
    s = KeyedVectors.load_word2vec_format(str(tmp_path / "theirs"), fvocab=str(tmp_path / "theirs.vocab"),
                                          binary=binary)
    for loaded in (g, s):
        assert set(loaded.index_to_key) == set(UNICODE_KEYS) | {f"w{i}" for i in range(40)}
        for k in ours.index_to_key:   # text keeps float32 values exactly (shortest repr round-trips)
            np.testing.assert_array_equal(loaded[k], ours[k])
            assert loaded.get_vecattr(k, "count") == ours.get_vecattr(k, "count")
    assert s.index_to_key == g.index_to_key
    assert s.vectors.dtype == np.float32 and s.vectors.flags.c_contiguous


@pytest.mark.parametrize("binary", [False, True])
def test_load_without_fvocab_limit_and_datatype_match_gensim(tmp_path, counted_pair, binary):
    _, theirs = counted_pair
    path = str(tmp_path / "v")
    theirs.save_word2vec_format(path, binary=binary)
    for kwargs in (dict(), dict(limit=5), dict(datatype=np.float64)):
        s = KeyedVectors.load_word2vec_format(path, binary=binary, **kwargs)
        g = GensimKV.load_word2vec_format(path, binary=binary, **kwargs)
        assert s.index_to_key == g.index_to_key
        np.testing.assert_array_equal(s.vectors, g.vectors)
        assert s.vectors.dtype == g.vectors.dtype
        assert [s.get_vecattr(k, "count") for k in s.index_to_key] == [g.get_vecattr(k, "count") for k in g.index_to_key]


def test_no_header_compressed_and_duplicates(tmp_path, counted_pair):
    ours, _ = counted_pair
    ours.save_word2vec_format(str(tmp_path / "noheader.txt"), write_header=False)
    s = KeyedVectors.load_word2vec_format(str(tmp_path / "noheader.txt"), no_header=True)
    g = GensimKV.load_word2vec_format(str(tmp_path / "noheader.txt"), no_header=True)
    assert s.index_to_key == g.index_to_key
    np.testing.assert_array_equal(s.vectors, g.vectors)
    ours.save_word2vec_format(str(tmp_path / "v.bin.gz"), binary=True)
    g = GensimKV.load_word2vec_format(str(tmp_path / "v.bin.gz"), binary=True)
    s = KeyedVectors.load_word2vec_format(str(tmp_path / "v.bin.gz"), binary=True)
    np.testing.assert_array_equal(s.vectors, g.vectors)
    (tmp_path / "dup.txt").write_text("3 2\na 1 2\nb 3 4\na 5 6\n")
    s = KeyedVectors.load_word2vec_format(str(tmp_path / "dup.txt"))
    g = GensimKV.load_word2vec_format(str(tmp_path / "dup.txt"))
    assert s.index_to_key == g.index_to_key[:2] == ["a", "b"]   # gensim leaves a None and a zero row behind
    np.testing.assert_array_equal(s.vectors, g.vectors[:2])
    np.testing.assert_array_equal(s["a"], [1, 2])


def test_c_word2vec_binary_with_newlines_reads(tmp_path):
    # the original word2vec.c writes "\n" after each vector; gensim strips it from the next word
    vectors = np.arange(6, dtype=np.float32).reshape(2, 3)
    data = b"2 3\n" + b"".join(w + b" " + v.tobytes() + b"\n" for w, v in zip([b"ab", b"cd"], vectors))
    (tmp_path / "c.bin").write_bytes(data)
    s = KeyedVectors.load_word2vec_format(str(tmp_path / "c.bin"), binary=True)
    assert s.index_to_key == ["ab", "cd"]
    np.testing.assert_array_equal(s.vectors, vectors)


BAD_TEXT = {
    "3 2\na 1 2\nb 3 4\n": "truncated: the header declares 3 vectors, the file ends after 2",
    "1 2\na 1 2\nb 3 4\n": "more than the 1 vectors its header declares",
    "2 2\na 1 2\nb 3\n": r"line 3 \('b'\) has 1 values, expected 2",
    "2 2\na 1 2\nb 3 4 5\n": r"line 3 \('b'\) has 3 values, expected 2",
    "2 2\na 1 x2\nb 3 4\n": r"line 2 \('a'\) holds the non-numeric value 'x2'",
    "two 2\na 1 2\n": "the first line must be the header",
    "2\na 1 2\n": "the first line must be the header",
    "": "the first line must be the header",
    "-1 2\n": "declares -1 vectors",
}


@pytest.mark.parametrize("content", list(BAD_TEXT), ids=range(len(BAD_TEXT)))
def test_malformed_text_files_raise_valueerror_naming_the_file(tmp_path, content):
    path = tmp_path / "broken.txt"
    path.write_text(content)
    with pytest.raises(ValueError, match=BAD_TEXT[content]) as info:
        KeyedVectors.load_word2vec_format(str(path))
    assert str(path) in str(info.value)


def test_malformed_binary_files_raise_valueerror_naming_the_file(tmp_path, counted_pair):
    ours, _ = counted_pair
    good = tmp_path / "good.bin"
    ours.save_word2vec_format(str(good), binary=True)
    data = good.read_bytes()
    cases = {
        data[:-5]: r"truncated: vector 46 \('\w+'\) has 23 of its 28 bytes",
        data.replace(b"47 7\n", b"48 7\n", 1): "truncated: the header declares 48 vectors, the file ends after 47",
        data.replace(b"47 7\n", b"40 7\n", 1): "data follow the 40 vectors the header declares",
        # a wrong vector size derails the parse: a word spans float bytes, or the counts stop adding up
        data.replace(b"47 7\n", b"47 6\n", 1): "is not valid utf8|truncated|data follow",
        b"47 7\n" + b"\xff\xfe " + data[5:]: r"word 0 \(byte 0 after the header\) is not valid utf8",
    }
    for content, message in cases.items():
        path = tmp_path / "broken.bin"
        path.write_bytes(content)
        with pytest.raises(ValueError, match=message) as info:
            KeyedVectors.load_word2vec_format(str(path), binary=True)
        assert str(path) in str(info.value)
    path.write_bytes(b"47 7\n" + b"\xff\xfe " + data[5:])
    s = KeyedVectors.load_word2vec_format(str(path), binary=True, unicode_errors="replace")
    assert s.index_to_key[0] == "\ufffd\ufffd"


def test_malformed_fvocab_names_the_file(tmp_path, counted_pair):
    ours, _ = counted_pair
    ours.save_word2vec_format(str(tmp_path / "v.txt"))
    (tmp_path / "vocab.txt").write_text("the 3\nbroken\n")
    with pytest.raises(ValueError, match=r"vocab.txt, line 2: expected '<word> <count>'"):
        KeyedVectors.load_word2vec_format(str(tmp_path / "v.txt"), fvocab=str(tmp_path / "vocab.txt"))


def test_save_word2vec_format_is_atomic(tmp_path, counted_pair):
    ours, _ = counted_pair
    path = tmp_path / "v.txt"
    ours.save_word2vec_format(str(path))
    before = path.read_bytes()

    class Unprintable:
        def __format__(self, spec):
            raise RuntimeError("cannot format this key")

    broken = KeyedVectors(7)
    broken.add_vectors(["fine", Unprintable()], np.ones((2, 7), np.float32))
    with pytest.raises(RuntimeError, match="cannot format"):
        broken.save_word2vec_format(str(path), sort_attr="none")
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["v.txt"]   # no temporary file left behind
    with pytest.raises(ValueError, match="Cannot store vocabulary with 'none'"):
        ours.save_word2vec_format(str(path), fvocab=str(tmp_path / "voc"), sort_attr="none")


def test_save_and_load_full_keyedvectors(tmp_path, counted_pair):
    ours, _ = counted_pair
    ours.set_vecattr("the", "sample_int", np.uint32(5))
    ours.set_vecattr("the", "note", "a str attribute")
    path = tmp_path / "kv.npz"
    ours.save(str(path))
    back = KeyedVectors.load(str(path))
    assert back.get_vecattr("the", "note") == "a str attribute" and back.expandos["note"].dtype == object
    assert back.index_to_key == ours.index_to_key and back.key_to_index == ours.key_to_index
    np.testing.assert_array_equal(back.vectors, ours.vectors)
    for attr in ("count", "sample_int"):
        np.testing.assert_array_equal(back.expandos[attr], ours.expandos[attr])
        assert back.expandos[attr].dtype == ours.expandos[attr].dtype
    assert back.most_similar("the", topn=3) == ours.most_similar("the", topn=3)
    int_keys = KeyedVectors(2)
    int_keys.add_vectors([np.int64(10), 20], np.eye(2, dtype=np.float32))
    int_keys.save(str(tmp_path / "ints.npz"))
    assert KeyedVectors.load(str(tmp_path / "ints.npz")).index_to_key == [10, 20]
    float_keys = KeyedVectors(2)
    float_keys.add_vectors([1.5, 2.5], np.eye(2, dtype=np.float32))
    with pytest.raises(ValueError, match="must be str or int"):
        float_keys.save(str(tmp_path / "floats.npz"))
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ValueError, match="is not a readable KeyedVectors file") as info:
        KeyedVectors.load(str(path))
    assert str(path) in str(info.value)


def test_binary_file_larger_than_a_read_chunk(tmp_path):
    # 3,000 x 100 float32 = 1.2 MB: entries straddle the reader's 1 MiB chunks
    rng = np.random.default_rng(7)
    keys = [f"word{i}" * (1 + i % 5) for i in range(3000)]
    _, theirs = both(keys, rng.standard_normal((3000, 100)).astype(np.float32))
    path = str(tmp_path / "big.bin")
    theirs.save_word2vec_format(path, binary=True)
    s = KeyedVectors.load_word2vec_format(path, binary=True)
    assert s.index_to_key == keys
    np.testing.assert_array_equal(s.vectors, theirs.vectors)
    s = KeyedVectors.load_word2vec_format(path, binary=True, limit=2900)
    np.testing.assert_array_equal(s.vectors, theirs.vectors[:2900])


def test_queries_skip_unfilled_preallocated_rows():
    kv = KeyedVectors(2, count=10)
    kv.add_vector("a", np.array([1, 0], np.float32))
    kv.add_vector("b", np.array([1, 1], np.float32))
    assert kv.most_similar("a") == [("b", pytest.approx(2 ** -0.5))]
    assert kv.most_similar("a", topn=None).shape == (2,)
