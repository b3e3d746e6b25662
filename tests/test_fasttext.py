"""seqlab.embed.FastText: n-grams and hash buckets equal gensim's, OOV vectors are the mean of
their bucket rows, learning on the planted-analogies corpus, reproducibility, save/load, errors."""
import numpy as np
import pytest
from gensim.models import FastText as GensimFastText
from gensim.models.fasttext import ft_ngram_hashes as gensim_ft_ngram_hashes
from gensim.models.fasttext_inner import compute_ngrams_bytes, ft_hash_bytes

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
from seqlab.embed import FastText, FastTextKeyedVectors, KeyedVectors
from seqlab.embed.fasttext import ft_ngram_hashes

WORDS = ["where", "a", "", "naïve", "日本語", "über-cool", "x" * 40, "don't", "😀ok"]


def test_where_trigrams():
    assert _core.word2vec.char_ngrams("where", 3, 3) == [b"<wh", b"whe", b"her", b"ere", b"re>"]


@pytest.mark.parametrize("min_n,max_n", [(3, 6), (1, 3), (2, 2), (5, 5), (4, 3)])
def test_ngrams_and_buckets_equal_gensim(min_n, max_n):
    for word in WORDS:
        assert _core.word2vec.char_ngrams(word, min_n, max_n) == compute_ngrams_bytes(word, min_n, max_n)
        for bucket in (2_000_000, 1000, 7):
            np.testing.assert_array_equal(ft_ngram_hashes(word, min_n, max_n, bucket),
                                          np.array(gensim_ft_ngram_hashes(word, min_n, max_n, bucket), dtype=np.uint32))


def test_hash_equals_gensim_including_bytes_above_127():
    for b in [b"", b"<wh", "ü".encode(), bytes(range(256)), "日本語".encode()]:
        assert _core.word2vec.ft_hash(b) == ft_hash_bytes(b)


@pytest.fixture(scope="module")
def planted():
    pa = corpora.planted_analogies()
    return pa, [list(line) for line in pa.lines("train")]


def analogy_accuracy(wv, questions):
    unit = wv.vectors / np.linalg.norm(wv.vectors, axis=1, keepdims=True)
    idx = wv.key_to_index
    a, b, c, d = (np.array([idx[q[k]] for q in questions]) for k in range(4))
    scores = (unit[b] - unit[a] + unit[c]) @ unit.T
    rows = np.arange(len(questions))
    for ex in (a, b, c):
        scores[rows, ex] = -np.inf
    return float((scores.argmax(axis=1) == d).mean())


@pytest.mark.parametrize("sg,hs,negative", [(1, 0, 5), (0, 0, 5), (1, 1, 0)])
def test_recovers_planted_analogies(planted, sg, hs, negative):
    pa, sentences = planted
    model = FastText(sentences, vector_size=32, window=2, min_count=1, sg=sg, hs=hs, negative=negative,
                     bucket=5000, workers=2, progress=False)
    assert isinstance(model.wv, FastTextKeyedVectors) and isinstance(model.wv, KeyedVectors)
    assert analogy_accuracy(model.wv, pa.questions) > 0.9  # chance ~1/340


def test_initial_weights_and_vocab_equal_gensim(planted):
    _, sentences = planted
    ours = FastText(vector_size=8, min_count=1, bucket=1000, seed=3, progress=False)
    ours.build_vocab(sentences[:500])
    theirs = GensimFastText(vector_size=8, min_count=1, bucket=1000, seed=3)
    theirs.build_vocab(sentences[:500])
    assert ours.wv.index_to_key == theirs.wv.index_to_key
    np.testing.assert_array_equal(ours.wv.vectors_vocab, theirs.wv.vectors_vocab)
    np.testing.assert_array_equal(ours.wv.vectors_ngrams, theirs.wv.vectors_ngrams)
    np.testing.assert_allclose(ours.wv.vectors, theirs.wv.vectors, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ours.wv["unseen-word"], theirs.wv["unseen-word"], rtol=1e-6, atol=1e-8)


def test_oov_vector_is_mean_of_bucket_rows_and_vocab_vector_includes_word_row(planted):
    _, sentences = planted
    model = FastText(sentences[:3000], vector_size=16, window=2, min_count=1, bucket=3000, min_n=2, max_n=4,
                     workers=2, progress=False)
    word = "e99_r77"
    assert word not in model.wv.key_to_index and word in model.wv
    hashes = ft_ngram_hashes(word, 2, 4, 3000)
    expected = model.wv.vectors_ngrams[hashes].astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(model.wv[word], expected, rtol=1e-5, atol=1e-7)
    known = model.wv.index_to_key[5]
    h = ft_ngram_hashes(known, 2, 4, 3000)
    mean = (model.wv.vectors_vocab[5].astype(np.float64) + model.wv.vectors_ngrams[h].sum(axis=0)) / (1 + len(h))
    np.testing.assert_allclose(model.wv[known], mean, rtol=1e-5, atol=1e-7)
    # the trained n-gram rows moved away from their initial values
    assert np.abs(model.wv.vectors_ngrams[hashes]).max() > 1.0 / 16


def test_reproducible_across_workers(planted):
    _, sentences = planted
    results = [FastText(sentences[:2000], vector_size=8, window=2, min_count=1, bucket=500, sg=sg, workers=w,
                        seed=2, progress=False) for sg in (0, 1) for w in (1, 2)]
    for a, b in ((0, 1), (2, 3)):
        np.testing.assert_array_equal(results[a].wv.vectors_ngrams, results[b].wv.vectors_ngrams)
        np.testing.assert_array_equal(results[a].wv.vectors, results[b].wv.vectors)
        np.testing.assert_array_equal(results[a].syn1neg, results[b].syn1neg)


def test_save_load_round_trip(tmp_path, planted):
    _, sentences = planted
    model = FastText(sentences[:2000], vector_size=8, window=2, min_count=1, bucket=500, min_n=2, max_n=5,
                     workers=2, progress=False)
    path = tmp_path / "ft.safetensors"
    model.save(path)
    loaded = FastText.load(path)
    assert (loaded.min_n, loaded.max_n, loaded.bucket) == (2, 5, 500)
    np.testing.assert_array_equal(loaded.wv.vectors_ngrams, model.wv.vectors_ngrams)
    np.testing.assert_array_equal(loaded.wv.vectors, model.wv.vectors)
    np.testing.assert_array_equal(loaded.wv["brand-new"], model.wv["brand-new"])
    from seqlab.embed import Word2Vec
    with pytest.raises(ValueError, match="holds a FastText"):
        Word2Vec.load(path)



def test_load_names_what_a_file_lacks(tmp_path):
    """As Word2Vec's (tests/test_word2vec.py), with FastText's parameters and n-gram rows."""
    import re

    import seqlab
    with pytest.raises(RuntimeError, match=r"FastText.save: the model has nothing to save yet"):
        FastText(vector_size=8, progress=False).save(tmp_path / "empty.safetensors")
    path = tmp_path / "ft.safetensors"
    FastText(small_corpus(), vector_size=8, min_count=2, bucket=50, epochs=1, workers=1, progress=False).save(path)
    checked = assert_load_names_what_is_missing(FastText, path,
                                                optional=("params.compute_loss", "params.running_training_loss"))
    assert {"class", "params.min_n", "params.max_n", "params.bucket", "params.word_ngrams", "arrays.vectors",
            "arrays.syn1neg", "arrays.count"} <= set(checked)
    # the vectors hold the words' rows and then the bucket's: without the latter the file is damaged
    state = seqlab.load(path)
    V = len(state["index_to_key"])
    state["arrays"]["vectors"] = seqlab.from_numpy(state["arrays"]["vectors"].numpy()[:V].copy())
    bad = tmp_path / "bad.safetensors"
    seqlab.save(state, bad)
    with pytest.raises(ValueError, match=rf"^FastText.load: '{re.escape(str(bad))}' is corrupt: the array 'vectors' "
                                         rf"is float32 \({V}, 8\), expected float32 \({V + 50}, 8\)"):
        FastText.load(bad)


def test_errors(planted):
    _, sentences = planted
    model = FastText(sentences[:500], vector_size=4, min_count=1, bucket=0, progress=False)
    with pytest.raises(KeyError, match="without ngrams"):
        model.wv["never-seen"]
    assert "never-seen" not in model.wv
    model = FastText(sentences[:500], vector_size=4, min_count=1, bucket=100, min_n=5, max_n=6, progress=False)
    with pytest.raises(KeyError, match="without ngrams"):
        model.wv["ab"]  # "<ab>" has 4 characters: no 5-gram
    with pytest.raises(NotImplementedError, match="word_ngrams"):
        FastText(word_ngrams=2)
    with pytest.raises(ValueError, match="vector_size must be >= 1"):
        FastText(vector_size=0)
    with pytest.raises(ValueError, match="corpus is empty"):
        FastText([[]], progress=False)


# ------------------------------------------------------------------------------ trim_rule, build_vocab(update=True)

def small_corpus():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]
    p = 1.0 / np.arange(1, 61)
    p /= p.sum()
    return [list(rng.choice(words, size=rng.integers(1, 12), p=p)) for _ in range(300)]




def test_trim_rule_equals_gensim():
    corpus = small_corpus()
    ours = FastText(corpus, vector_size=8, min_count=3, bucket=500, epochs=1, workers=1, trim_rule=numbered_rule,
                    progress=False)
    theirs = GensimFastText(corpus, vector_size=8, min_count=3, bucket=500, epochs=1, workers=1,
                            trim_rule=numbered_rule)
    assert ours.wv.index_to_key == theirs.wv.index_to_key
    np.testing.assert_array_equal(ours.wv.expandos["count"], theirs.wv.expandos["count"])
    assert "w7" not in ours.wv.key_to_index and "w55" in ours.wv.key_to_index
    assert not any(v is numbered_rule for v in vars(ours).values())


@pytest.mark.parametrize("kwargs", [dict(min_count=3, bucket=500), dict(min_count=2, bucket=0, sg=1, hs=1, negative=0),
                                    dict(min_count=3, bucket=300, trim_rule=numbered_rule)])
def test_update_equals_gensim_and_training_continues(kwargs):
    kwargs = dict(kwargs)
    rule = kwargs.pop("trim_rule", None)
    corpus = small_corpus()
    more = [s + [f"new{i % 13}"] for i, s in enumerate(corpus[:150])] + [["zz", "w1"]] * 2
    ours = FastText(corpus[:200], vector_size=8, epochs=1, workers=1, progress=False, **kwargs)
    theirs = GensimFastText(corpus[:200], vector_size=8, epochs=1, workers=1, **kwargs)
    n_old = len(ours.wv)
    old = {k: getattr(ours.wv, k).copy() for k in ("vectors", "vectors_vocab", "vectors_ngrams")}
    oov_before = ours.wv["new3"] if kwargs["bucket"] else None
    ours.build_vocab(more, update=True, trim_rule=rule)
    theirs.build_vocab(more, update=True, trim_rule=rule)
    assert ours.wv.index_to_key == theirs.wv.index_to_key and len(ours.wv) > n_old
    np.testing.assert_array_equal(ours.wv.expandos["count"], theirs.wv.expandos["count"])
    np.testing.assert_array_equal(ours.wv.expandos["sample_int"], theirs.wv.expandos["sample_int"])
    # existing rows kept (n-gram rows all of them), new words' own rows are gensim's
    np.testing.assert_array_equal(ours.wv.vectors_vocab[:n_old], old["vectors_vocab"])
    np.testing.assert_array_equal(ours.wv.vectors_ngrams, old["vectors_ngrams"])
    np.testing.assert_array_equal(ours.wv.vectors[:n_old], old["vectors"])
    np.testing.assert_array_equal(ours.wv.vectors_vocab[n_old:], theirs.wv.vectors_vocab[n_old:])
    for w in ("new3", "new12"):  # a word's vector: the mean of its own row and its n-gram rows
        i, h = ours.wv.key_to_index[w], ft_ngram_hashes(w, 3, 6, kwargs["bucket"])
        mean = (ours.wv.vectors_vocab[i].astype(np.float64) + ours.wv.vectors_ngrams[h].sum(axis=0)) / (1 + len(h))
        np.testing.assert_allclose(ours.wv[w], mean, rtol=1e-5, atol=1e-7)
    assert ours.wv.has_index_for("new3")
    if oov_before is not None:  # now in the vocabulary: its own row joins the mean of its n-grams
        assert not np.allclose(ours.wv["new3"], oov_before)
    out = ours.syn1neg if ours.negative else ours.syn1
    assert out.shape == (len(ours.wv), 8) and not out[n_old:].any()
    # training continues over the grown vocabulary
    ours.train(more, total_examples=ours.corpus_count, epochs=1)
    assert ours.wv.vectors.shape == (len(ours.wv), 8)
    row = ours.wv.key_to_index["new3"]
    assert (ours.wv.vectors_vocab[row] != theirs.wv.vectors_vocab[row]).all()
    assert (ours.wv.vectors_vocab[:n_old] != old["vectors_vocab"]).any()


def test_update_after_load(tmp_path):
    corpus = small_corpus()
    more = [s + ["extra"] for s in corpus[:50]]
    model = FastText(corpus, vector_size=8, min_count=2, bucket=200, epochs=1, workers=1, progress=False)
    path = tmp_path / "ft.safetensors"
    model.save(path)
    loaded = FastText.load(path)
    for m in (model, loaded):
        m.build_vocab(more, update=True)
        m.train(more, total_examples=m.corpus_count, epochs=1)
    assert loaded.wv.index_to_key == model.wv.index_to_key and "extra" in model.wv.key_to_index
    np.testing.assert_array_equal(loaded.wv.vectors_vocab, model.wv.vectors_vocab)
    np.testing.assert_array_equal(loaded.wv.vectors_ngrams, model.wv.vectors_ngrams)
    with pytest.raises(RuntimeError, match="FastText.build_vocab: update=True needs a model"):
        FastText(vector_size=8, progress=False).build_vocab(corpus, update=True)


def test_callbacks_see_each_epoch_and_do_not_change_the_vectors(planted):
    """gensim's callback protocol (FastText takes no compute_loss, as gensim's, but train()
    does); the word vectors a callback sees are those of the n-grams so far."""
    _, sentences = planted
    kwargs = dict(vector_size=16, window=2, min_count=1, bucket=5000, seed=2, epochs=2, progress=False)
    plain = FastText(sentences[:2000], **kwargs, workers=2)
    recorder = Recorder()
    model = FastText(vector_size=16, window=2, min_count=1, bucket=5000, seed=2, epochs=2, progress=False,
                     workers=3)
    model.build_vocab(sentences[:2000])
    model.train(sentences[:2000], total_examples=2000, epochs=2, compute_loss=True, callbacks=[recorder])
    assert recorder.events == ["train_begin"] + ["epoch_begin", "epoch_end"] * 2 + ["train_end"]
    np.testing.assert_array_equal(model.wv.vectors, plain.wv.vectors)
    np.testing.assert_array_equal(recorder.vectors[-1], plain.wv.vectors)
    assert not np.array_equal(recorder.vectors[0], recorder.vectors[1])
    assert 0 < recorder.losses[0] < recorder.losses[1] == model.get_latest_training_loss()


# ------------------------------------------------------------------------------ build_vocab's min_count, sample, dry_run

@pytest.mark.parametrize("settings,vocab_kwargs", [
    (dict(min_count=5, bucket=300), dict(min_count=2, sample=1e-2)),
    (dict(min_count=1, bucket=0, max_final_vocab=20), dict(min_count=3, keep_raw_vocab=True)),
    (dict(min_count=2, bucket=300, sample=1e-2), dict(sample=5, trim_rule=numbered_rule)),
    (dict(min_count=5, bucket=300, sample=1e-2), dict(min_count=0, sample=0)),  # 0 means 0 (gensim: not given)
])
def test_build_vocab_settings_equal_gensim(settings, vocab_kwargs):
    corpus = small_corpus()
    ours = FastText(vector_size=8, progress=False, **settings)
    assert ours.build_vocab(corpus, **vocab_kwargs) is None
    if vocab_kwargs.get("sample") == 0:  # what gensim builds for a model made with these settings
        theirs = GensimFastText(vector_size=8, **{**settings, **vocab_kwargs})
        theirs.build_vocab(corpus)
    else:
        theirs = GensimFastText(vector_size=8, **settings)
        theirs.build_vocab(corpus, **vocab_kwargs)
    assert_vocabulary_equals_gensim(ours, theirs)
    assert ours.min_count == vocab_kwargs.get("min_count", settings["min_count"])
    assert ours.sample == vocab_kwargs.get("sample", settings.get("sample", 1e-3))


@pytest.mark.parametrize("vocab_kwargs", [dict(min_count=1, sample=1e-2), dict(min_count=4, keep_raw_vocab=True)])
def test_update_with_settings_equals_gensim(vocab_kwargs):
    corpus = small_corpus()
    more = [s + [f"new{i % 13}"] for i, s in enumerate(corpus[:150])] + [["zz", "w1"]] * 2
    ours = FastText(corpus[:200], vector_size=8, min_count=3, bucket=300, epochs=1, workers=1, progress=False)
    theirs = GensimFastText(corpus[:200], vector_size=8, min_count=3, bucket=300, epochs=1, workers=1)
    ours.build_vocab(more, update=True, **vocab_kwargs)
    theirs.build_vocab(more, update=True, **vocab_kwargs)
    assert_vocabulary_equals_gensim(ours, theirs, initial_vectors=False)
    assert (ours.min_count, ours.sample) == (3, 1e-3)


@pytest.mark.parametrize("update", [False, True])
def test_dry_run_changes_nothing_and_reports_as_gensim(update):
    corpus = small_corpus()
    more = [s + [f"new{i % 13}"] for i, s in enumerate(corpus[:150])] + [["zz", "w1"]] * 2
    ours = FastText(corpus[:200], vector_size=8, min_count=3, bucket=300, epochs=1, workers=1, progress=False)
    theirs = GensimFastText(corpus[:200], vector_size=8, min_count=3, bucket=300, epochs=1, workers=1)
    before = model_state(ours)
    theirs.scan_vocab(more)
    for settings in (dict(), dict(min_count=1, sample=1e-2), dict(min_count=6, sample=5)):
        report = ours.build_vocab(more, update=update, dry_run=True, **settings)
        assert_same_state(before, model_state(ours))
        assert report == theirs.prepare_vocab(update=update, dry_run=True, **settings)
    assert report["num_retained_words"] > 0 and report["downsample_unique"] > 0
