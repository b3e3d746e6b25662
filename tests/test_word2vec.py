"""seqlab.embed.Word2Vec: the update's gradient, gensim's vocabulary rules, learning on the
planted-analogies corpus, reproducibility across worker counts, save/load, errors."""
import copy

import numpy as np
import pytest

from conftest import (
    Recorder,
    assert_load_names_what_is_missing,
    assert_same_state,
    assert_vocabulary_equals_gensim,
    model_state,
    numbered_rule,
)
from seqlab import _core
from seqlab.data import corpora
from seqlab.embed import KeyedVectors, Word2Vec

from gensim.models import Word2Vec as GensimWord2Vec


def analogy_accuracy(wv, questions):
    unit = wv.vectors / np.linalg.norm(wv.vectors, axis=1, keepdims=True)
    idx = wv.key_to_index
    qs = [q for q in questions if all(w in idx for w in q)]
    a, b, c, d = (np.array([idx[q[k]] for q in qs]) for k in range(4))
    scores = (unit[b] - unit[a] + unit[c]) @ unit.T
    rows = np.arange(len(qs))
    for ex in (a, b, c):
        scores[rows, ex] = -np.inf
    return float((scores.argmax(axis=1) == d).mean())


@pytest.fixture(scope="module")
def planted():
    pa = corpora.planted_analogies()
    return pa, [list(line) for line in pa.lines("train")]


def small_corpus():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]
    p = 1.0 / np.arange(1, 61)
    p /= p.sum()
    return [list(rng.choice(words, size=rng.integers(1, 12), p=p)) for _ in range(300)]


# ------------------------------------------------------------------------------ the update

def log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def sgns_loss(w, c, negs):
    # log σ(w·c) + Σ_i log σ(-w·c_i)
    return log_sigmoid(w @ c) + sum(log_sigmoid(-(w @ n)) for n in negs)


def test_sgns_step_is_alpha_times_the_finite_difference_gradient():
    rng = np.random.default_rng(0)
    d, k, alpha = 7, 4, 0.1
    w, c = rng.normal(size=d) * 0.5, rng.normal(size=d) * 0.5
    negs = rng.normal(size=(k, d)) * 0.5
    w_new, c_new, negs_new = _core.word2vec.sgns_step(w.astype(np.float32), c.astype(np.float32),
                                                       negs.astype(np.float32), alpha)
    w32, c32, n32 = (x.astype(np.float32).astype(np.float64) for x in (w, c, negs))
    eps = 1e-6

    def numeric(x, f):
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            xp, xm = x.copy(), x.copy()
            xp[i] += eps
            xm[i] -= eps
            g[i] = (f(xp) - f(xm)) / (2 * eps)
        return g

    gw = numeric(w32, lambda x: sgns_loss(x, c32, n32))
    gc = numeric(c32, lambda x: sgns_loss(w32, x, n32))
    gn = numeric(n32, lambda x: sgns_loss(w32, c32, x))
    np.testing.assert_allclose((w_new - w32) / alpha, gw, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose((c_new - c32) / alpha, gc, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose((negs_new - n32) / alpha, gn, rtol=1e-3, atol=1e-5)
    assert np.abs(gw).max() > 0.05  # the check is not vacuous


def test_sgd_block_equals_per_input_updates_from_the_same_outputs():
    # m inputs sharing outputs: dH_j = Σ_k G_jk O_k and O_k += Σ_j G_jk H_j, all from old values.
    rng = np.random.default_rng(1)
    H, O = rng.normal(size=(3, 5)).astype(np.float32), rng.normal(size=(4, 5)).astype(np.float32)
    L = np.array([1, 0, 0, 1], dtype=np.float32)
    Hn, On = _core.word2vec.sgd_block(H, O, L, 0.05)
    G = 0.05 * (L - 1 / (1 + np.exp(-(H.astype(np.float64) @ O.T.astype(np.float64)))))
    np.testing.assert_allclose(Hn, H + G @ O, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(On, O + G.T @ H, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------ vocabulary

@pytest.mark.parametrize("kwargs", [dict(min_count=1), dict(min_count=3), dict(min_count=1, max_final_vocab=20),
                                    dict(min_count=2, max_final_vocab=7), dict(min_count=1, max_vocab_size=30)])
def test_vocabulary_equals_gensim(kwargs):
    corpus = small_corpus()
    ours = Word2Vec(vector_size=8, progress=False, **kwargs)
    ours.build_vocab(corpus)
    theirs = GensimWord2Vec(vector_size=8, **kwargs)
    theirs.build_vocab(corpus)
    assert ours.wv.index_to_key == theirs.wv.index_to_key
    np.testing.assert_array_equal(ours.wv.expandos["count"], theirs.wv.expandos["count"])
    assert ours.effective_min_count == theirs.effective_min_count
    assert ours.corpus_count == theirs.corpus_count and ours.corpus_total_words == theirs.corpus_total_words


@pytest.mark.parametrize("sample", [1e-3, 1e-2, 0, 5])
def test_subsampling_thresholds_equal_gensim(sample):
    corpus = small_corpus()
    ours = Word2Vec(vector_size=8, min_count=1, sample=sample, progress=False)
    ours.build_vocab(corpus)
    theirs = GensimWord2Vec(vector_size=8, min_count=1, sample=sample)
    theirs.build_vocab(corpus)
    np.testing.assert_array_equal(ours.wv.expandos["sample_int"], theirs.wv.expandos["sample_int"])
    if sample == 1e-2:
        assert (ours.wv.expandos["sample_int"] < 2**32 - 1).sum() > 0  # some words are downsampled


def test_initial_vectors_equal_gensim():
    corpus = small_corpus()
    ours = Word2Vec(vector_size=16, min_count=1, seed=7, progress=False)
    ours.build_vocab(corpus)
    theirs = GensimWord2Vec(vector_size=16, min_count=1, seed=7)
    theirs.build_vocab(corpus)
    np.testing.assert_array_equal(ours.wv.vectors, theirs.wv.vectors)
    assert isinstance(ours.wv, KeyedVectors) and ours.wv.vectors.dtype == np.float32
    assert not ours.syn1neg.any()


# ------------------------------------------------------------------------------ learning

@pytest.mark.parametrize("sg,hs,negative", [(1, 0, 5), (0, 0, 5), (1, 1, 0), (0, 1, 0)])
def test_recovers_planted_analogies(planted, sg, hs, negative):
    pa, sentences = planted
    model = Word2Vec(sentences, vector_size=32, window=2, min_count=1, sg=sg, hs=hs, negative=negative, epochs=5,
                     workers=2, seed=3, progress=False)
    assert (model.syn1 is not None) == bool(hs) and (model.syn1neg is not None) == bool(negative)
    # chance is 1 / vocabulary (~1/340); gensim gets 1.0 with these settings
    assert analogy_accuracy(model.wv, pa.questions) > 0.9


def test_cbow_sum_trains(planted):
    pa, sentences = planted
    model = Word2Vec(sentences, vector_size=32, window=2, min_count=1, sg=0, cbow_mean=0, workers=2,
                     progress=False)
    assert analogy_accuracy(model.wv, pa.questions) > 0.9


# ------------------------------------------------------------------------------ reproducibility

def test_same_seed_same_vectors_for_any_number_of_workers(planted):
    _, sentences = planted
    runs = {}
    for workers in (1, 2, 3, 1):
        m = Word2Vec(sentences[:4000], vector_size=16, window=2, min_count=1, sg=1, hs=1, negative=3, workers=workers,
                     seed=5, progress=False)
        runs.setdefault(workers, []).append((m.wv.vectors.copy(), m.syn1neg.copy(), m.syn1.copy()))
    reference = runs[1][0]
    for workers, results in runs.items():
        for result in results:
            for ours, ref in zip(result, reference):
                np.testing.assert_array_equal(ours, ref)
    other = Word2Vec(sentences[:4000], vector_size=16, window=2, min_count=1, sg=1, hs=1, negative=3, workers=2,
                     seed=6, progress=False)
    assert not np.array_equal(other.wv.vectors, reference[0])


def test_alpha_decays_linearly_to_min_alpha(planted):
    _, sentences = planted
    f = _core.word2vec.decayed_alpha
    assert f(0.025, 0.0001, 0, 1000) == 0.025
    assert f(0.025, 0.0001, 500, 1000) == pytest.approx(0.025 - (0.025 - 0.0001) * 0.5)
    assert f(0.025, 0.0001, 1000, 1000) == pytest.approx(0.0001)
    assert f(0.025, 0.0001, 2000, 1000) == 0.0001  # never below min_alpha
    model = Word2Vec(sentences[:2000], vector_size=8, window=2, min_count=1, epochs=3, workers=2, progress=False)
    total = 3 * model.corpus_total_words
    last_sentence = len(sentences[1999])
    # the last sentence trains at the rate reached after all the words before it
    assert model.min_alpha_yet_reached == pytest.approx(f(0.025, 0.0001, total - last_sentence, total), rel=1e-6)
    # a second train() decays from start_alpha to end_alpha over its own epochs
    model.train(sentences[:2000], total_examples=2000, epochs=1, start_alpha=0.01, end_alpha=0.005)
    assert model.min_alpha_yet_reached == pytest.approx(f(0.01, 0.005, total // 3 - last_sentence, total // 3),
                                                        rel=1e-6)


def test_train_returns_word_counts(planted):
    _, sentences = planted
    model = Word2Vec(vector_size=8, window=2, min_count=1, sample=0, progress=False)
    model.build_vocab(sentences[:1000])
    effective, raw = model.train(sentences[:1000], total_examples=1000, epochs=2)
    assert raw == 2 * model.corpus_total_words and effective == raw  # sample=0 keeps every word


# ------------------------------------------------------------------------------ save / load

def test_save_load_round_trip(tmp_path, planted):
    _, sentences = planted
    model = Word2Vec(sentences[:2000], vector_size=8, window=2, min_count=1, hs=1, negative=2, workers=1,
                     progress=False)
    path = tmp_path / "model.safetensors"
    model.save(path)
    loaded = Word2Vec.load(path)
    assert loaded.wv.index_to_key == model.wv.index_to_key
    np.testing.assert_array_equal(loaded.wv.vectors, model.wv.vectors)
    np.testing.assert_array_equal(loaded.syn1neg, model.syn1neg)
    np.testing.assert_array_equal(loaded.syn1, model.syn1)
    np.testing.assert_array_equal(loaded.wv.expandos["count"], model.wv.expandos["count"])
    np.testing.assert_array_equal(loaded.wv.expandos["sample_int"], model.wv.expandos["sample_int"])
    assert (loaded.window, loaded.sg, loaded.hs, loaded.negative) == (model.window, model.sg, model.hs, model.negative)
    # training continues identically from the loaded model
    model.train(sentences[:500], total_examples=500, epochs=1)
    loaded.train(sentences[:500], total_examples=500, epochs=1)
    np.testing.assert_array_equal(loaded.wv.vectors, model.wv.vectors)


def test_load_rejects_other_files(tmp_path):
    import seqlab
    path = tmp_path / "other.safetensors"
    seqlab.save({"x": 1}, path)
    with pytest.raises(ValueError, match="not a seqlab Word2Vec"):
        Word2Vec.load(path)


LATER_PARAMS = ("params.compute_loss", "params.running_training_loss")  # not in files from before compute_loss


def test_load_names_what_a_file_lacks(tmp_path):
    """A file without one of the entries save() writes (a parameter, index_to_key, an array):
    ValueError naming Word2Vec.load, the file and the entry (it was a bare KeyError, or a model
    missing an attribute until it was used)."""
    import seqlab
    path = tmp_path / "w2v.safetensors"
    model = Word2Vec(small_corpus(), vector_size=8, min_count=2, hs=1, negative=2, epochs=1, workers=1, progress=False)
    model.save(path)
    checked = assert_load_names_what_is_missing(Word2Vec, path, optional=LATER_PARAMS)
    assert {"version", "class", "params", "index_to_key", "arrays", "params.vector_size", "params.window",
            "params.effective_min_count", "arrays.vectors", "arrays.syn1neg", "arrays.syn1", "arrays.count",
            "arrays.sample_int"} <= set(checked)
    state = seqlab.load(path)
    del state["arrays"]["count"]
    bad = tmp_path / "x.safetensors"
    seqlab.save(state, bad)
    with pytest.raises(ValueError) as error:
        Word2Vec.load(bad)
    assert str(error.value) == f"Word2Vec.load: '{bad}' has no array 'count' (not written by Word2Vec.save, or damaged)"
    # a file from before compute_loss loads with it off
    state = seqlab.load(path)
    for name in LATER_PARAMS:
        del state["params"][name.split(".")[1]]
    seqlab.save(state, bad)
    loaded = Word2Vec.load(bad)
    assert (loaded.compute_loss, loaded.running_training_loss) == (False, 0.0)
    np.testing.assert_array_equal(loaded.wv.vectors, model.wv.vectors)


def test_load_rejects_damaged_files_and_save_an_empty_model(tmp_path):
    import re

    import seqlab
    with pytest.raises(RuntimeError, match=r"Word2Vec.save: the model has nothing to save yet; call build_vocab\(\)"):
        Word2Vec(vector_size=8, progress=False).save(tmp_path / "empty.safetensors")
    path = tmp_path / "w2v.safetensors"
    Word2Vec(small_corpus(), vector_size=8, min_count=2, negative=2, epochs=1, workers=1, progress=False).save(path)
    content = path.read_bytes()
    bad = tmp_path / "bad.safetensors"
    for size in range(0, len(content), 101):  # truncated: seqlab.load's checks, named by Word2Vec.load
        bad.write_bytes(content[:size])
        with pytest.raises(ValueError, match=f"Word2Vec.load: cannot read '{re.escape(str(bad))}'"):
            Word2Vec.load(bad)
    V = len(seqlab.load(path)["index_to_key"])
    corruptions = [
        (lambda s: s.update(version=2), "is a version-2 Word2Vec/FastText file"),
        (lambda s: s.update(index_to_key=["w1"] * V), "is corrupt: index_to_key must be a list of distinct strings"),
        (lambda s: s["arrays"].update(count=seqlab.from_numpy(np.ones(V - 1, dtype=np.int64))),
         rf"is corrupt: the array 'count' is int64 \({V - 1},\), expected int64 \({V},\)"),
        (lambda s: s["arrays"].update(vectors=seqlab.zeros(V, 8, dtype=seqlab.float64)),
         rf"is corrupt: the array 'vectors' is float64 \({V}, 8\), expected float32 \({V}, 8\)"),
        (lambda s: s["arrays"].update(syn1neg=seqlab.zeros(V, 7)), "is corrupt: the array 'syn1neg' is float32"),
        (lambda s: s["arrays"].update(count=[1, 2]), "is corrupt: its arrays must be a dict of tensors"),
    ]
    for change, message in corruptions:
        state = seqlab.load(path)
        change(state)
        seqlab.save(state, bad)
        with pytest.raises(ValueError, match=f"^Word2Vec.load: '{re.escape(str(bad))}' {message}"):
            Word2Vec.load(bad)


# ------------------------------------------------------------------------------ errors

def test_errors():
    with pytest.raises(ValueError, match="corpus is empty"):
        Word2Vec([], progress=False)
    with pytest.raises(ValueError, match="corpus is empty"):
        Word2Vec([[], []], progress=False)
    with pytest.raises(ValueError, match="vector_size must be >= 1"):
        Word2Vec(vector_size=0)
    with pytest.raises(ValueError, match="hs=1 or negative>0"):
        Word2Vec(hs=0, negative=0)
    with pytest.raises(ValueError, match="no word occurs at least min_count=5"):
        Word2Vec([["a", "b"], ["c"]], progress=False)
    with pytest.raises(TypeError, match="corpus_file="):
        Word2Vec("a path", progress=False)
    model = Word2Vec([["a", "b"]] * 3, min_count=1, vector_size=4, progress=False)
    with pytest.raises(KeyError, match="'zebra' not present"):
        model.wv["zebra"]
    with pytest.raises(ValueError, match="explicit epochs"):
        model.train([["a"]], total_examples=1)
    with pytest.raises(ValueError, match="total_examples or total_words"):
        model.train([["a"]], epochs=1)
    with pytest.raises(RuntimeError, match="build vocabulary"):
        Word2Vec(progress=False).train([["a"]], total_examples=1, epochs=1)


def test_corpus_file_and_unknown_words(tmp_path, planted):
    _, sentences = planted
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(" ".join(s) for s in sentences[:3000]) + "\n")
    from_file = Word2Vec(corpus_file=str(path), vector_size=8, window=2, min_count=1, workers=2, progress=False)
    from_list = Word2Vec(sentences[:3000], vector_size=8, window=2, min_count=1, workers=1, progress=False)
    np.testing.assert_array_equal(from_file.wv.vectors, from_list.wv.vectors)
    # words outside the vocabulary are skipped in train()
    from_list.train([s + ["never-seen"] for s in sentences[:100]], total_examples=100, epochs=1)


def test_second_train_refreshes_vector_lengths():
    """train() updates wv.vectors in place: most_similar must not rank with the old lengths."""
    from seqlab.embed import Word2Vec
    sents = [["a", "b", "c", "d"], ["b", "c", "d", "e"], ["c", "d", "e", "a"]] * 50
    m = Word2Vec(sents, vector_size=8, min_count=1, window=2, epochs=1, seed=3, workers=1)
    m.wv.most_similar("a")  # fills the cached lengths
    m.train(sents, total_examples=len(sents), epochs=3)
    v = m.wv.vectors
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    sims = unit @ unit[m.wv.key_to_index["a"]]
    expected = [m.wv.index_to_key[i] for i in np.argsort(-sims) if m.wv.index_to_key[i] != "a"]
    assert [w for w, _ in m.wv.most_similar("a", topn=4)] == expected[:4]


# ------------------------------------------------------------------------------ trim_rule (gensim's)



def test_rule_constants_equal_gensim():
    from gensim import utils
    from seqlab.embed import RULE_DEFAULT, RULE_DISCARD, RULE_KEEP
    assert (RULE_DEFAULT, RULE_DISCARD, RULE_KEEP) == (utils.RULE_DEFAULT, utils.RULE_DISCARD, utils.RULE_KEEP)
    assert (RULE_DEFAULT, RULE_DISCARD, RULE_KEEP) == (0, 1, 2)


@pytest.mark.parametrize("kwargs", [dict(min_count=3), dict(min_count=1), dict(min_count=2, max_vocab_size=30),
                                    dict(min_count=2, max_final_vocab=10), dict(min_count=4, sorted_vocab=0)])
def test_trim_rule_vocabulary_equals_gensim(kwargs):
    corpus = small_corpus()
    ours = Word2Vec(vector_size=8, progress=False, **kwargs)
    ours.build_vocab(corpus, trim_rule=numbered_rule)
    theirs = GensimWord2Vec(vector_size=8, **kwargs)
    theirs.build_vocab(corpus, trim_rule=numbered_rule)
    assert ours.wv.index_to_key == theirs.wv.index_to_key
    np.testing.assert_array_equal(ours.wv.expandos["count"], theirs.wv.expandos["count"])
    np.testing.assert_array_equal(ours.wv.expandos["sample_int"], theirs.wv.expandos["sample_int"])
    np.testing.assert_array_equal(ours.wv.vectors, theirs.wv.vectors)
    assert not any(w in ours.wv.key_to_index for w in ("w7", "w14", "w21", "w28"))
    # the rule changed something: without it the vocabulary differs
    plain = Word2Vec(vector_size=8, progress=False, **kwargs)
    plain.build_vocab(corpus)
    assert plain.wv.index_to_key != ours.wv.index_to_key


def test_trim_rule_keeps_rare_words_and_accepts_plain_ints():
    from seqlab.embed import RULE_DEFAULT, RULE_DISCARD, RULE_KEEP
    corpus = small_corpus()
    seen = []

    def rule(word, count, min_count):
        seen.append((word, count, min_count))
        return {"w59": 2, "w0": 1}.get(word, 0)  # plain integers, as gensim accepts

    ours = Word2Vec(corpus, vector_size=8, min_count=5, epochs=1, workers=1, trim_rule=rule, progress=False)
    theirs = GensimWord2Vec(corpus, vector_size=8, min_count=5, epochs=1, workers=1, trim_rule=rule)
    assert ours.wv.index_to_key == theirs.wv.index_to_key
    assert "w59" in ours.wv.key_to_index and "w0" not in ours.wv.key_to_index
    count_59 = sum(s.count("w59") for s in corpus)
    assert 0 < count_59 < 5  # kept although rarer than min_count
    assert ours.wv.expandos["count"][ours.wv.key_to_index["w59"]] == count_59
    # called with (word, count, min_count), plain Python types
    assert ("w59", count_59, 5) in seen and all(type(c) is int and m == 5 for _, c, m in seen)
    # the constants work as well as the integers (and keep_vocab_item answers as gensim's)
    from gensim.utils import keep_vocab_item as gensim_keep
    from seqlab.embed.word2vec import keep_vocab_item
    for answer in (RULE_DEFAULT, RULE_DISCARD, RULE_KEEP, None):
        for count in (1, 5, 9):
            def rule(*args, answer=answer):
                return answer
            assert keep_vocab_item("x", count, 5, rule) == gensim_keep("x", count, 5, rule)


def test_trim_rule_is_not_kept_by_the_model(tmp_path):
    corpus = small_corpus()
    rule = lambda word, count, min_count: 1 if word == "w1" else 0
    model = Word2Vec(corpus, vector_size=8, min_count=2, epochs=1, workers=1, trim_rule=rule, progress=False)
    assert "w1" not in model.wv.key_to_index
    assert not any(v is rule for v in vars(model).values())
    path = tmp_path / "m.safetensors"
    model.save(path)  # a lambda could not be written: it is not part of the model
    assert Word2Vec.load(path).wv.index_to_key == model.wv.index_to_key
    # a later build_vocab without a rule uses min_count alone
    model.build_vocab(corpus)
    assert "w1" in model.wv.key_to_index
    # a rule given to the constructor without sentences is ignored, with a warning (gensim logs one)
    with pytest.warns(UserWarning, match="trim_rule"):
        Word2Vec(vector_size=8, trim_rule=rule, progress=False)


def test_trim_rule_errors():
    corpus = small_corpus()
    with pytest.raises(TypeError, match="Word2Vec: trim_rule must be None or a callable"):
        Word2Vec(corpus, trim_rule=2, progress=False)
    model = Word2Vec(vector_size=8, min_count=1, progress=False)
    with pytest.raises(TypeError, match="Word2Vec.build_vocab: trim_rule must be None or a callable"):
        model.build_vocab(corpus, trim_rule="keep")
    # True would be RULE_DISCARD in gensim: ambiguous, so refused, naming the word
    with pytest.raises(ValueError, match=r"Word2Vec.build_vocab: trim_rule returned True for 'w\d+'"):
        model.build_vocab(corpus, trim_rule=lambda w, c, m: c > 3)
    with pytest.raises(ValueError, match="trim_rule returned 7"):
        model.build_vocab(corpus, trim_rule=lambda w, c, m: 7)
    with pytest.raises(ValueError, match="Word2Vec.build_vocab: no word of the corpus .* is kept by trim_rule"):
        model.build_vocab(corpus, trim_rule=lambda w, c, m: 1)


# ------------------------------------------------------------------------------ build_vocab(update=True)

def grown_corpus():
    """Half of small_corpus, each sentence with a new word new0..new12 (11 or 12 times each,
    new1 3 times more), then a rare new 'zz' (twice) and old words again."""
    corpus = small_corpus()
    return [s + [f"new{i % 13}"] for i, s in enumerate(corpus[:150])] + [["zz", "w1"]] * 2 + [["new1", "w3"]] * 3


@pytest.mark.parametrize("kwargs,rule", [(dict(min_count=3), None), (dict(min_count=2, hs=1, negative=0), None),
                                         (dict(min_count=3), numbered_rule),
                                         (dict(min_count=2, max_final_vocab=40, sample=1e-2), None)])
def test_update_vocabulary_equals_gensim(kwargs, rule):
    corpus = small_corpus()
    ours = Word2Vec(corpus[:200], vector_size=8, epochs=2, workers=1, progress=False, **kwargs)
    theirs = GensimWord2Vec(corpus[:200], vector_size=8, epochs=2, workers=1, **kwargs)
    n_old = len(ours.wv)
    old_vectors, old_counts = ours.wv.vectors.copy(), ours.wv.expandos["count"].copy()
    old_out = (ours.syn1neg if ours.negative else ours.syn1).copy()
    more = grown_corpus()
    ours.build_vocab(more, update=True, trim_rule=rule)
    theirs.build_vocab(more, update=True, trim_rule=rule)
    # new words after the old ones in gensim's order, counts summed, thresholds as gensim's
    assert ours.wv.index_to_key == theirs.wv.index_to_key
    assert len(ours.wv) > n_old and ours.wv.index_to_key[n_old].startswith("new")
    np.testing.assert_array_equal(ours.wv.expandos["count"], theirs.wv.expandos["count"])
    assert (ours.wv.expandos["count"][:n_old] > old_counts).any()
    np.testing.assert_array_equal(ours.wv.expandos["sample_int"], theirs.wv.expandos["sample_int"])
    assert ours.corpus_count == theirs.corpus_count == len(more)
    # old vectors untouched, new ones are gensim's seeded rows, new output rows zero
    np.testing.assert_array_equal(ours.wv.vectors[:n_old], old_vectors)
    np.testing.assert_array_equal(ours.wv.vectors[n_old:], theirs.wv.vectors[n_old:])
    out = ours.syn1neg if ours.negative else ours.syn1
    assert out.shape == (len(ours.wv), 8)
    np.testing.assert_array_equal(out[:n_old], old_out)
    assert not out[n_old:].any()
    assert ours.wv.vectors.dtype == np.float32 and ours.wv.vectors.flags.c_contiguous
    # training continues: every word seen moves, old and new
    ours.train(more, total_examples=ours.corpus_count, epochs=1)
    new_rows = [ours.wv.key_to_index[w] for w in ("new1", "new3")]
    assert (ours.wv.vectors[new_rows] != theirs.wv.vectors[new_rows]).all(axis=1).all()
    assert (ours.wv.vectors[ours.wv.key_to_index["w3"]] != old_vectors[ours.wv.key_to_index["w3"]]).all()


def test_update_learns_the_new_words(planted):
    """Entities e3, e7, e11 are held out of the first corpus; after the update and train() on the
    whole corpus their analogies are answered as well as the others'."""
    pa, sentences = planted
    held = {"e3", "e7", "e11"}
    is_held = lambda w: w.split("_")[0] in held
    first = [s for s in sentences if not any(is_held(w) for w in s)]
    model = Word2Vec(first, vector_size=32, window=2, min_count=1, sg=1, workers=2, seed=3, progress=False)
    assert not any(is_held(w) for w in model.wv.index_to_key)
    before = model.wv.vectors.copy()
    model.build_vocab(sentences, update=True)
    np.testing.assert_array_equal(model.wv.vectors[:len(before)], before)
    model.train(sentences, total_examples=model.corpus_count, epochs=model.epochs)
    new_questions = [q for q in pa.questions if any(is_held(w) for w in q)]
    old_questions = [q for q in pa.questions if not any(is_held(w) for w in q)]
    assert len(new_questions) > 500
    assert analogy_accuracy(model.wv, new_questions) > 0.9
    assert analogy_accuracy(model.wv, old_questions) > 0.9


def test_update_after_load_and_reproducibility(tmp_path):
    corpus, more = small_corpus(), grown_corpus()
    model = Word2Vec(corpus, vector_size=8, min_count=2, epochs=1, hs=1, workers=1, progress=False)
    path = tmp_path / "m.safetensors"
    model.save(path)
    loaded = Word2Vec.load(path)
    for m in (model, loaded):
        m.build_vocab(more, update=True)
        m.train(more, total_examples=m.corpus_count, epochs=2)
    assert loaded.wv.index_to_key == model.wv.index_to_key
    for a, b in ((loaded.wv.vectors, model.wv.vectors), (loaded.syn1neg, model.syn1neg), (loaded.syn1, model.syn1)):
        np.testing.assert_array_equal(a, b)
    # and the updated model saves and loads
    model.save(path)
    again = Word2Vec.load(path)
    assert again.wv.index_to_key == model.wv.index_to_key
    np.testing.assert_array_equal(again.wv.vectors, model.wv.vectors)


def test_update_errors():
    with pytest.raises(RuntimeError, match="Word2Vec.build_vocab: update=True needs a model that has a vocabulary"):
        Word2Vec(vector_size=8, progress=False).build_vocab(small_corpus(), update=True)
    # a corpus without any word that stays changes only the counts (as gensim)
    model = Word2Vec(small_corpus(), vector_size=8, min_count=2, epochs=1, workers=1, progress=False)
    words, counts = list(model.wv.index_to_key), model.wv.expandos["count"].copy()
    model.build_vocab([["w0", "brand-new"]], update=True)
    assert model.wv.index_to_key == words
    assert model.wv.expandos["count"][model.wv.key_to_index["w0"]] == counts[model.wv.key_to_index["w0"]] + 1


# ------------------------------------------------------------------------------ build_vocab's min_count, sample, dry_run

# (the model's settings, build_vocab's keywords)
VOCAB_SETTINGS = [
    (dict(), dict(min_count=3)),
    (dict(min_count=1), dict(sample=1e-2)),
    (dict(min_count=5, sample=1e-2), dict(min_count=2, sample=5)),
    (dict(min_count=1, max_final_vocab=20), dict(min_count=4, keep_raw_vocab=True)),
    (dict(min_count=2, max_vocab_size=30), dict(min_count=1, sample=1e-4, keep_raw_vocab=True)),
    (dict(min_count=2, sorted_vocab=0), dict(min_count=3, sample=1e-2)),
    (dict(), dict(min_count=3, trim_rule=numbered_rule)),
]


@pytest.mark.parametrize("settings,vocab_kwargs", VOCAB_SETTINGS)
def test_build_vocab_settings_equal_gensim(settings, vocab_kwargs):
    corpus = small_corpus()
    ours = Word2Vec(vector_size=8, progress=False, **settings)
    theirs = GensimWord2Vec(vector_size=8, **settings)
    assert ours.build_vocab(corpus, **vocab_kwargs) is None  # as gensim's
    theirs.build_vocab(corpus, **vocab_kwargs)
    assert_vocabulary_equals_gensim(ours, theirs)
    # a fresh vocabulary's settings become the model's
    assert ours.min_count == vocab_kwargs.get("min_count", settings.get("min_count", 5))
    assert ours.sample == vocab_kwargs.get("sample", settings.get("sample", 1e-3))


def test_build_vocab_settings_train_and_save_as_if_given_to_the_constructor(tmp_path):
    corpus = small_corpus()
    given = Word2Vec(corpus, vector_size=8, min_count=2, sample=1e-2, epochs=2, workers=1, progress=False)
    later = Word2Vec(vector_size=8, min_count=5, sample=1e-3, epochs=2, workers=1, progress=False)
    later.build_vocab(corpus, min_count=2, sample=1e-2)
    later.train(corpus, total_examples=later.corpus_count, epochs=later.epochs)
    assert later.wv.index_to_key == given.wv.index_to_key
    np.testing.assert_array_equal(later.wv.vectors, given.wv.vectors)
    later.save(tmp_path / "m.safetensors")
    loaded = Word2Vec.load(tmp_path / "m.safetensors")
    assert (loaded.min_count, loaded.sample, loaded.effective_min_count) == (2, 1e-2, 2)


@pytest.mark.parametrize("vocab_kwargs", [dict(min_count=1), dict(min_count=4, sample=1e-2),
                                          dict(sample=5, keep_raw_vocab=True), dict(min_count=2, trim_rule=numbered_rule)])
def test_update_with_settings_equals_gensim(vocab_kwargs):
    corpus, more = small_corpus(), grown_corpus()
    ours = Word2Vec(corpus[:200], vector_size=8, min_count=3, epochs=1, workers=1, progress=False)
    theirs = GensimWord2Vec(corpus[:200], vector_size=8, min_count=3, epochs=1, workers=1)
    ours.build_vocab(more, update=True, **vocab_kwargs)
    theirs.build_vocab(more, update=True, **vocab_kwargs)
    assert_vocabulary_equals_gensim(ours, theirs, initial_vectors=False)
    # an update applies them and keeps the model's (gensim stores them for a fresh vocabulary only)
    assert (ours.min_count, ours.sample) == (3, 1e-3)
    assert ours.effective_min_count == vocab_kwargs.get("min_count", 3)


def test_zero_min_count_and_sample_mean_zero():
    """gensim's prepare_vocab reads 0 as "not given" (`sample or self.sample`), so its
    build_vocab(sample=0) still downsamples with the model's sample. seqlab's builds what a
    model made with min_count=0, sample=0 builds (docs/embeddings-design.md)."""
    corpus = small_corpus()
    ours = Word2Vec(vector_size=8, min_count=5, sample=1e-2, progress=False)
    ours.build_vocab(corpus, min_count=0, sample=0)
    theirs = GensimWord2Vec(vector_size=8, min_count=0, sample=0)
    theirs.build_vocab(corpus)
    assert_vocabulary_equals_gensim(ours, theirs)
    assert (ours.min_count, ours.sample) == (0, 0)
    assert (ours.wv.expandos["sample_int"] == 2**32 - 1).all()  # nothing is downsampled
    assert ours.wv.expandos["count"].min() < 5
    quirk = GensimWord2Vec(vector_size=8, min_count=5, sample=1e-2)
    quirk.build_vocab(corpus, min_count=0, sample=0)
    assert (quirk.min_count, quirk.sample) == (5, 1e-2)


@pytest.mark.parametrize("model,update", [("fresh", False), ("trained", False), ("trained", True)])
def test_dry_run_changes_nothing_and_reports_as_gensim(model, update):
    corpus, more = small_corpus(), grown_corpus()
    if model == "fresh":
        ours, theirs = Word2Vec(vector_size=8, min_count=3, progress=False), GensimWord2Vec(vector_size=8, min_count=3)
    else:
        ours = Word2Vec(corpus[:200], vector_size=8, min_count=3, epochs=1, workers=1, progress=False)
        theirs = GensimWord2Vec(corpus[:200], vector_size=8, min_count=3, epochs=1, workers=1)
    before = model_state(ours)
    theirs.scan_vocab(more)
    for settings in (dict(), dict(min_count=1, sample=1e-2), dict(min_count=6, sample=5), dict(min_count=1000),
                     dict(min_count=2, trim_rule=numbered_rule)):
        report = ours.build_vocab(more, update=update, dry_run=True, keep_raw_vocab=True, **settings)
        assert_same_state(before, model_state(ours))
        # gensim's build_vocab logs the report and returns None; its prepare_vocab returns it
        assert report == theirs.prepare_vocab(update=update, dry_run=True, **settings)
        if settings.get("min_count") == 1000:
            assert report["num_retained_words"] == 0  # no error: a dry run is for trying settings
            continue
        # it is the report of what build_vocab without dry_run builds
        real = copy.deepcopy(ours)
        real.scan_vocab(more)
        assert real.prepare_vocab(update=update, **settings) == report
        if not update:
            assert len(real.wv) == report["num_retained_words"]
    # prepare_vocab(dry_run=True) on scan_vocab's counts keeps them and changes nothing either
    ours.scan_vocab(more)
    scanned = model_state(ours)
    ours.prepare_vocab(update=update, dry_run=True, min_count=1)
    assert_same_state(scanned, model_state(ours))
    if model == "trained" and not update:  # gensim's dry run re-initialises the weights (its build_vocab
        trained = theirs.wv.vectors.copy()  # calls prepare_weights whatever dry_run is)
        theirs.build_vocab(more, dry_run=True)
        assert not np.array_equal(theirs.wv.vectors, trained)


def test_build_vocab_rejects_unknown_keywords():
    model = Word2Vec(vector_size=8, progress=False)
    with pytest.raises(TypeError, match="min_cout"):  # gensim: prepare_vocab's TypeError
        model.build_vocab(small_corpus(), min_cout=2)
    with pytest.raises(TypeError, match="min_cout"):
        GensimWord2Vec(vector_size=8).build_vocab(small_corpus(), min_cout=2)

# ------------------------------------------------------------------------------ loss and callbacks



@pytest.mark.parametrize("sg", [1, 0])
def test_hs_loss_is_the_sum_of_minus_log_sigmoid_over_the_trained_pairs(sg):
    """With hs, no subsampling and fixed windows nothing is random: with a negligible rate
    the loss is Σ over (input, Huffman node) pairs of -log σ(±input·node), input the context
    word (skip-gram) or the context mean (CBOW), + for label 1 - code, - for label 0."""
    sentences = small_corpus()
    model = Word2Vec(vector_size=8, window=2, min_count=1, sg=sg, hs=1, negative=0, sample=0, shrink_windows=False,
                     alpha=1e-12, min_alpha=1e-12, seed=3, workers=2, progress=False)
    model.build_vocab(sentences)
    model.syn1[:] = np.random.default_rng(0).normal(scale=0.5, size=model.syn1.shape)
    syn0, syn1 = model.wv.vectors.astype(np.float64), model.syn1.astype(np.float64)
    model.train(sentences, total_examples=len(sentences), epochs=1, compute_loss=True)
    code_offsets, codes, points = _core.word2vec.huffman(model.wv.expandos["count"].tolist())
    expected = 0.0
    for sentence in sentences:
        ids = [model.wv.key_to_index[w] for w in sentence]
        for i, w in enumerate(ids):
            context = [ids[j] for j in range(max(0, i - 2), min(len(ids), i + 3)) if j != i]
            inputs = [syn0[c] for c in context] if sg else ([syn0[context].mean(axis=0)] if context else [])
            nodes = slice(code_offsets[w], code_offsets[w + 1])
            for h in inputs:
                x = syn1[points[nodes]] @ h
                expected -= log_sigmoid(np.where(codes[nodes] == 0, x, -x)).sum()
    assert expected > 0
    assert model.get_latest_training_loss() == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("sg,hs,negative", [(1, 0, 5), (0, 0, 5), (1, 1, 0), (0, 1, 0)])
def test_loss_and_callbacks_as_gensim(planted, sg, hs, negative):
    """Same callback calls in the same order as gensim; the first epoch's loss within 20% of
    gensim's with one worker (gensim's own sum loses updates with more workers: each thread
    writes back its job's start value plus its loss); the loss per epoch falls, every epoch."""
    _, sentences = planted
    kwargs = dict(vector_size=32, window=2, min_count=1, sg=sg, hs=hs, negative=negative, seed=1, epochs=5,
                  compute_loss=True)
    ours, theirs = Recorder(), Recorder()
    model = Word2Vec(sentences, **kwargs, workers=2, progress=False, callbacks=[ours])
    GensimWord2Vec(sentences, **kwargs, workers=1, callbacks=[theirs])
    assert ours.events == theirs.events == ["train_begin"] + ["epoch_begin", "epoch_end"] * 5 + ["train_end"]
    per_epoch = np.diff([0.0] + ours.losses)
    assert 0.8 < per_epoch[0] / theirs.losses[0] < 1.2
    assert np.all(per_epoch > 0) and np.all(np.diff(per_epoch) < 0) and per_epoch[-1] < 0.8 * per_epoch[0]
    assert model.get_latest_training_loss() == ours.losses[-1]
    # the callbacks saw each epoch's vectors, the last one the final vectors
    assert not np.array_equal(ours.vectors[0], ours.vectors[1])
    np.testing.assert_array_equal(ours.vectors[-1], model.wv.vectors)


def test_callbacks_and_loss_do_not_change_the_vectors(planted):
    """Callbacks run the trainer one epoch per call; the random streams and the learning rate
    are the whole run's, so the vectors equal those of one call, for any number of workers."""
    _, sentences = planted
    kwargs = dict(vector_size=16, window=2, min_count=1, sg=0, hs=1, negative=3, seed=5, epochs=3, progress=False)
    plain = Word2Vec(sentences[:4000], **kwargs, workers=2)
    for workers in (1, 3):
        with_callbacks = Word2Vec(sentences[:4000], **kwargs, workers=workers, callbacks=[Recorder()],
                                  compute_loss=True)
        for ours, ref in ((with_callbacks.wv.vectors, plain.wv.vectors), (with_callbacks.syn1neg, plain.syn1neg),
                          (with_callbacks.syn1, plain.syn1)):
            np.testing.assert_array_equal(ours, ref)


def test_loss_counts_from_the_last_train_call_with_compute_loss(planted):
    """As gensim: train()'s own compute_loss argument decides (default False), and every
    train() call starts the sum again."""
    _, sentences = planted
    sentences = sentences[:2000]
    model = Word2Vec(sentences, vector_size=16, window=2, min_count=1, epochs=1, workers=2, progress=False)
    assert model.compute_loss is False and model.get_latest_training_loss() == 0.0
    model.train(sentences, total_examples=len(sentences), epochs=1, compute_loss=True)
    first = model.get_latest_training_loss()
    model.train(sentences, total_examples=len(sentences), epochs=1, compute_loss=True)
    second = model.get_latest_training_loss()
    assert 0 < second < first  # not accumulated over calls; lower as the model has learnt
    model.train(sentences, total_examples=len(sentences), epochs=1)
    assert model.get_latest_training_loss() == 0.0
    with_loss = Word2Vec(sentences, vector_size=16, window=2, min_count=1, epochs=1, workers=2, progress=False,
                         compute_loss=True)
    assert with_loss.compute_loss is True and with_loss.get_latest_training_loss() > 0


def test_callbacks_without_a_corpus_warn_and_are_not_kept():
    recorder = Recorder()
    with pytest.warns(UserWarning, match="callbacks"):
        model = Word2Vec(vector_size=8, min_count=1, callbacks=[recorder], progress=False)
    sents = [["a", "b", "c"], ["b", "c", "a"]] * 20
    model.build_vocab(sents)
    model.train(sents, total_examples=len(sents), epochs=2)
    assert recorder.events == []
