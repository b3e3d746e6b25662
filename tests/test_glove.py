"""GloVe (python/seqlab/embed/glove.py, cpp/src/embed/glove.cpp, cooccur.cpp): co-occurrence
counts against a hand computation, one AdaGrad step and one pass against NumPy re-derivations
of glove.c, the gradient against finite differences, training behaviour, planted analogies."""
from collections import defaultdict

import numpy as np
import pytest

from conftest import assert_load_names_what_is_missing
from seqlab import _core
from seqlab.data import corpora
from seqlab.embed import GloVe, KeyedVectors

TOY = [["a", "b", "c"], ["a", "b"], ["c", "x", "a", "b"]]


def reference_cooccurrence(sentences, vocab, window, symmetric=True, distance_weighting=True):
    """cooccur.c in plain Python: out-of-vocabulary words are removed first, then each word b
    d <= window places after a adds X[a][b] += 1/d (and X[b][a] if symmetric)."""
    index = {w: i for i, w in enumerate(vocab)}
    X = defaultdict(float)
    for s in sentences:
        kept = [index[w] for w in s if w in index]
        for j, b in enumerate(kept):
            for d in range(1, window + 1):
                if j - d < 0:
                    break
                a = kept[j - d]
                w = 1.0 / d if distance_weighting else 1.0
                X[a, b] += w
                if symmetric:
                    X[b, a] += w
    return dict(X)


def as_dict(model):
    row, col, value = model.cooccurrence_matrix()
    return {(int(r), int(c)): float(v) for r, c, v in zip(row, col, value)}


def test_cooccurrence_counts_equal_a_hand_computation():
    model = GloVe(TOY, window=2, min_count=2, epochs=0, vector_size=2, progress=False)
    # counts: a 3, b 3, c 2, x 1 -> x dropped (min_count=2), so "c x a b" is windowed as "c a b"
    assert model.wv.index_to_key == ["a", "b", "c"]
    a, b, c = 0, 1, 2
    hand = {
        # "a b c": a-b at 1, b-c at 1, a-c at 2;  "a b": a-b at 1;  "c a b": c-a at 1, a-b at 1, c-b at 2
        (a, b): 1 + 1 + 1, (b, c): 1, (a, c): 0.5,
        (c, a): 1, (c, b): 0.5,
    }
    symmetric = defaultdict(float)
    for (i, j), v in hand.items():
        symmetric[i, j] += v
        symmetric[j, i] += v
    assert as_dict(model) == pytest.approx(dict(symmetric))
    left_only = GloVe(TOY, window=2, min_count=2, epochs=0, vector_size=2, symmetric=False, progress=False)
    assert as_dict(left_only) == pytest.approx(hand)
    unweighted = GloVe(TOY, window=1, min_count=1, epochs=0, vector_size=2, distance_weighting=False, progress=False)
    assert as_dict(unweighted) == pytest.approx(
        reference_cooccurrence(TOY, unweighted.wv.index_to_key, 1, distance_weighting=False))
    X = left_only.cooccurrence_matrix(dense=True)
    assert X[a, b] == 3 and X[b, a] == 0 and X.shape == (3, 3)


@pytest.mark.parametrize("symmetric,distance_weighting,window", [(True, True, 5), (False, True, 3), (True, False, 2)])
def test_cooccurrence_matches_reference_on_a_random_corpus(symmetric, distance_weighting, window):
    rng = np.random.default_rng(0)
    sentences = [[f"w{int(z)}" for z in rng.zipf(1.5, size=rng.integers(0, 30)) if z < 200] for _ in range(300)]
    model = GloVe(sentences, window=window, min_count=3, epochs=0, vector_size=2, symmetric=symmetric,
                  distance_weighting=distance_weighting, progress=False, workers=2)
    expected = reference_cooccurrence(sentences, model.wv.index_to_key, window, symmetric, distance_weighting)
    got = as_dict(model)
    assert got.keys() == expected.keys()
    assert [got[k] for k in expected] == pytest.approx([expected[k] for k in expected], rel=1e-12)
    row, col, _ = model.cooccurrence_matrix()
    assert np.all(np.diff(row.astype(np.int64) * len(model.wv) + col) > 0)   # sorted, one entry per pair
    one_worker = GloVe(sentences, window=window, min_count=3, epochs=0, vector_size=2, symmetric=symmetric,
                       distance_weighting=distance_weighting, progress=False, workers=1)
    assert as_dict(one_worker) == pytest.approx(got, rel=1e-12)


def test_cooccurrence_rejects_bad_input():
    ids = np.array([0, 1, 5], np.int32)
    with pytest.raises(ValueError, match="token 2 has id 5, outside the vocabulary of 3 words"):
        _core.glove.cooccurrence(ids, np.array([0, 3], np.int64), 3, 2)
    with pytest.raises(ValueError, match="window must be >= 1"):
        _core.glove.cooccurrence(ids, np.array([0, 3], np.int64), 6, 0)
    with pytest.raises(ValueError, match="offsets point outside ids"):
        _core.glove.cooccurrence(ids, np.array([0, 4], np.int64), 6, 2)


# ----------------------------------------------------------------------------- the optimiser

def f(x, x_max, alpha):
    return np.where(x < x_max, (x / x_max) ** alpha, 1.0)


def numpy_adagrad_step(p, i, j, x, eta, x_max, alpha):
    """One update of glove.c's train_thread on the nonzero X[i][j] = x, in NumPy."""
    p = {k: v.copy() for k, v in p.items()}
    diff = p["W"][i] @ p["C"][j] + p["bw"][i] + p["bc"][j] - np.log(x)
    fdiff = f(x, x_max, alpha) * diff
    cost = 0.5 * fdiff * diff
    g = eta * fdiff                          # glove.c scales by eta first ...
    step_w, step_c = g * p["C"][j], g * p["W"][i]
    p["W"][i] -= step_w / np.sqrt(p["gW"][i])
    p["C"][j] -= step_c / np.sqrt(p["gC"][j])
    p["gW"][i] += step_w ** 2                # ... so the accumulator holds (eta g)^2
    p["gC"][j] += step_c ** 2
    p["bw"][i] -= g / np.sqrt(p["gbw"][i])
    p["bc"][j] -= g / np.sqrt(p["gbc"][j])
    p["gbw"][i] += g ** 2
    p["gbc"][j] += g ** 2
    return p, cost


def trainer(row, col, value, n_words, d=3, x_max=10.0, alpha=0.75, eta=0.05, workers=1, seed=3):
    return _core.glove.Trainer(np.array(row, np.int32), np.array(col, np.int32), np.array(value, np.float64),
                               n_words, d, x_max, alpha, eta, workers, seed)


def test_initialisation_is_glove_c():
    t = trainer([0], [1], [2.0], 50, d=4)
    p = t.parameters()
    for name in ("W", "C", "bw", "bc"):
        assert np.all(np.abs(p[name]) <= 0.5 / 4) and p[name].std() > 0.05 / 4
    for name in ("gW", "gC", "gbw", "gbc"):
        assert np.all(p[name] == 1.0)


def test_one_adagrad_step_equals_numpy():
    t = trainer([2], [1], [3.5], 4, d=5)
    before = t.parameters()
    cost = t.train_epoch()
    expected, expected_cost = numpy_adagrad_step(before, 2, 1, 3.5, 0.05, 10.0, 0.75)
    after = t.parameters()
    for name in expected:
        np.testing.assert_allclose(after[name], expected[name], rtol=1e-13, atol=1e-15, err_msg=name)
    assert cost == pytest.approx(expected_cost, rel=1e-13)
    # a count above x_max has weight 1
    t = trainer([0], [0], [25.0], 2, d=2)
    before = t.parameters()
    t.train_epoch()
    expected, _ = numpy_adagrad_step(before, 0, 0, 25.0, 0.05, 10.0, 0.75)
    np.testing.assert_allclose(t.parameters()["W"], expected["W"], rtol=1e-13)


def test_one_pass_equals_sequential_numpy_in_the_shuffled_order():
    rng = np.random.default_rng(1)
    V = 6
    row, col = np.nonzero(rng.random((V, V)) < 0.6)
    value = rng.uniform(0.5, 30, len(row))
    t = trainer(row, col, value, V, d=4, workers=1)
    order = t.order()
    assert sorted(order.tolist()) == list(range(len(row)))
    p = t.parameters()
    for epoch in range(2):
        costs = []
        for e in order:
            p, c = numpy_adagrad_step(p, row[e], col[e], value[e], 0.05, 10.0, 0.75)
            costs.append(c)
        assert t.train_epoch() == pytest.approx(np.mean(costs), rel=1e-12)
    for name, expected in p.items():
        np.testing.assert_allclose(t.parameters()[name], expected, rtol=1e-12, atol=1e-14, err_msg=name)


def test_gradient_and_cost_match_finite_differences():
    rng = np.random.default_rng(2)
    V, d = 4, 3
    row, col = np.nonzero(rng.random((V, V)) < 0.7)
    value = rng.uniform(0.5, 20, len(row))
    t = trainer(row, col, value, V, d=d, x_max=8.0)
    p = t.parameters()
    for name in ("W", "C", "bw", "bc"):   # move away from the tiny initial values
        p[name] = rng.standard_normal(p[name].shape) * 0.5
    t.set_parameters(p)
    J = sum(0.5 * f(x, 8.0, 0.75) * (p["W"][i] @ p["C"][j] + p["bw"][i] + p["bc"][j] - np.log(x)) ** 2
            for i, j, x in zip(row, col, value))
    assert t.cost() == pytest.approx(J, rel=1e-12)
    grad = t.gradient()
    h = 1e-6
    for name in ("W", "C", "bw", "bc"):
        numeric = np.zeros_like(p[name])
        for idx in np.ndindex(p[name].shape):
            for sign in (1, -1):
                q = {k: v.copy() for k, v in p.items()}
                q[name][idx] += sign * h
                t.set_parameters(q)
                numeric[idx] += sign * t.cost() / (2 * h)
        np.testing.assert_allclose(grad[name], numeric, rtol=1e-6, atol=1e-8, err_msg=name)
    t.set_parameters(p)
    with pytest.raises(ValueError, match="W has 3 values, expected 12"):
        t.set_parameters({**p, "W": np.zeros(3)})


def test_trainer_rejects_bad_input():
    with pytest.raises(ValueError, match="counts must be positive"):
        trainer([0], [1], [0.0], 2)
    with pytest.raises(ValueError, match=r"entry 0 \(0, 7\) is outside the 2 x 2 matrix"):
        trainer([0], [7], [1.0], 2)
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        trainer([0], [1], [1.0], 2, eta=0.0)


# ----------------------------------------------------------------------------- the model

@pytest.fixture(scope="module")
def planted():
    return corpora.planted_analogies()


@pytest.fixture(scope="module")
def planted_model(planted):
    return GloVe(planted.train, vector_size=20, window=2, min_count=1, epochs=30, workers=2, seed=1, progress=False)


def test_cost_decreases(planted_model):
    costs = planted_model.cost_history
    assert len(costs) == 30
    assert costs[-1] < 0.1 * costs[0]
    assert all(b < a for a, b in zip(costs[1:], costs[2:]))   # monotone after the first pass
    assert planted_model.cost() / len(planted_model.cooccurrence_matrix()[2]) == pytest.approx(costs[-1], rel=0.2)


def test_wv_is_w_plus_c_with_counts(planted_model, planted):
    kv = planted_model.wv
    p = planted_model.parameters()
    assert isinstance(kv, KeyedVectors) and kv.vectors.dtype == np.float32 and kv.vectors.flags.c_contiguous
    np.testing.assert_allclose(kv.vectors, p["W"] + p["C"], rtol=1e-6)
    counts = [kv.get_vecattr(w, "count") for w in kv.index_to_key]
    assert counts == sorted(counts, reverse=True)
    assert sum(counts) == sum(len(s) for s in planted.train)


def test_deterministic_for_a_seed_and_workers(planted):
    sentences = planted.train[:3000]
    run = lambda **kw: GloVe(sentences, vector_size=8, window=2, min_count=1, epochs=3,  # noqa: E731
                             progress=False, **kw).wv.vectors
    np.testing.assert_array_equal(run(seed=5, workers=2), run(seed=5, workers=2))
    np.testing.assert_array_equal(run(seed=5, workers=1), run(seed=5, workers=1))
    assert not np.array_equal(run(seed=5, workers=2), run(seed=6, workers=2))


def test_planted_analogies_are_recovered_above_chance(planted_model, planted):
    questions = planted.questions[::8]
    right = sum(planted_model.wv.analogy(a, b, c) == d for a, b, c, d in questions)
    chance = 1 / (len(planted_model.wv) - 3)
    assert right / len(questions) > 10 * chance


def test_corpus_file_equals_sentences_and_progress_bar(tmp_path, capsys):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(" ".join(s) for s in TOY) + "\n")
    from_file = GloVe(corpus_file=str(path), window=2, min_count=1, vector_size=4, epochs=2, progress=True)
    err = capsys.readouterr().err
    assert "GloVe" in err and "cost=" in err
    from_list = GloVe(TOY, window=2, min_count=1, vector_size=4, epochs=2, progress=False)
    assert from_file.wv.index_to_key == from_list.wv.index_to_key
    np.testing.assert_array_equal(from_file.wv.vectors, from_list.wv.vectors)
    assert from_file.cost_history == from_list.cost_history
    more = from_list.train(epochs=3)
    assert len(more) == 3 and len(from_list.cost_history) == 5


def test_glove_argument_errors():
    with pytest.raises(ValueError, match="exactly one of sentences and corpus_file"):
        GloVe(TOY, corpus_file="x.txt")
    with pytest.raises(ValueError, match="no word occurs at least min_count=10 times"):
        GloVe(TOY, min_count=10)
    with pytest.raises(ValueError, match="vector_size must be an int >= 1"):
        GloVe(TOY, vector_size=0)
    with pytest.raises(ValueError, match="x_max must be > 0"):
        GloVe(TOY, x_max=0)
    with pytest.raises(RuntimeError, match="call build_vocab"):
        GloVe().train()


# ----------------------------------------------------------------------------- save / load

def test_save_load_round_trip_and_training_continues(tmp_path, planted):
    model = GloVe(planted.train[:3000], vector_size=8, window=2, min_count=1, epochs=3, workers=2, seed=4,
                  x_max=50, alpha=0.7, learning_rate=0.04, symmetric=False, progress=False)
    path = tmp_path / "glove.safetensors"
    model.save(path)
    loaded = GloVe.load(path)
    loaded.progress = False
    assert isinstance(loaded, GloVe) and repr(loaded) == repr(model)
    for k in ("vector_size", "window", "min_count", "x_max", "alpha", "learning_rate", "epochs", "workers", "seed",
              "symmetric", "distance_weighting"):
        assert getattr(loaded, k) == getattr(model, k), k
    assert loaded.wv.index_to_key == model.wv.index_to_key
    np.testing.assert_array_equal(loaded.wv.vectors, model.wv.vectors)
    np.testing.assert_array_equal(loaded.wv.expandos["count"], model.wv.expandos["count"])
    word = model.wv.index_to_key[7]
    assert loaded.wv.most_similar(word, topn=10) == model.wv.most_similar(word, topn=10)
    assert loaded.cost_history == model.cost_history and len(loaded.cost_history) == 3
    for a, b in zip(loaded.cooccurrence_matrix(), model.cooccurrence_matrix()):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    for k, v in model.parameters().items():  # AdaGrad's accumulators too
        np.testing.assert_array_equal(loaded.parameters()[k], v)
    assert loaded.cost() == model.cost()
    # training continues exactly as without the round trip
    assert loaded.train(epochs=2) == model.train(epochs=2)
    np.testing.assert_array_equal(loaded.wv.vectors, model.wv.vectors)
    assert len(loaded.cost_history) == 5
    # a model loaded from a file is saved again the same way
    loaded.save(tmp_path / "again.safetensors")
    np.testing.assert_array_equal(GloVe.load(tmp_path / "again.safetensors").wv.vectors, model.wv.vectors)


def test_save_is_atomic(tmp_path, monkeypatch):
    import os
    import safetensors.numpy
    path = tmp_path / "glove.safetensors"
    first = GloVe(TOY, window=2, min_count=1, vector_size=4, epochs=2, progress=False)
    first.save(path)
    second = GloVe(TOY, window=2, min_count=1, vector_size=4, epochs=5, seed=9, progress=False)

    def failing(arrays, filename, metadata=None):   # the checkpoint writer fails halfway through the file
        original(arrays, filename, metadata)
        os.truncate(filename, os.path.getsize(filename) // 2)
        raise OSError("disk full")

    original = safetensors.numpy.save_file
    monkeypatch.setattr(safetensors.numpy, "save_file", failing)
    with pytest.raises(OSError, match="disk full"):
        second.save(path)
    monkeypatch.undo()
    np.testing.assert_array_equal(GloVe.load(path).wv.vectors, first.wv.vectors)
    assert [p.name for p in tmp_path.iterdir()] == ["glove.safetensors"]  # no temporary file left


def rewrite(path, change):
    """Loads the raw state of a model file, applies change(state), writes it back."""
    import seqlab
    state = seqlab.load(path)
    change(state)
    seqlab.save(state, path)


def test_load_errors_name_the_function_and_the_file(tmp_path):
    import re

    import seqlab
    from seqlab.embed import PPMI, Word2Vec
    with pytest.raises(RuntimeError, match=r"GloVe.save: .*call build_vocab\(\)"):
        GloVe().save(tmp_path / "empty.safetensors")
    good = tmp_path / "glove.safetensors"
    GloVe(TOY, window=2, min_count=1, vector_size=3, epochs=1, progress=False).save(good)
    content = good.read_bytes()
    bad = tmp_path / "bad.safetensors"
    # every truncation of the file (seqlab.load's checks, named by GloVe.load)
    for size in range(len(content)):
        bad.write_bytes(content[:size])
        with pytest.raises(ValueError, match=f"GloVe.load: cannot read '{re.escape(str(bad))}'"):
            GloVe.load(bad)
    bad.write_bytes(b"not a model at all, just text" * 3)
    with pytest.raises(ValueError, match=f"GloVe.load: cannot read '{re.escape(str(bad))}'.*not a valid checkpoint"):
        GloVe.load(bad)
    with pytest.raises(FileNotFoundError):
        GloVe.load(tmp_path / "missing.safetensors")
    # other files
    seqlab.save({"x": 1}, bad)
    with pytest.raises(ValueError, match=f"GloVe.load: '{re.escape(str(bad))}' is not a seqlab GloVe file"):
        GloVe.load(bad)
    Word2Vec([["a", "b"]] * 3, min_count=1, vector_size=4, progress=False).save(bad)
    with pytest.raises(ValueError, match="is not a seqlab GloVe file"):
        GloVe.load(bad)
    PPMI(TOY, min_count=1, vector_size=2).save(bad)
    with pytest.raises(ValueError, match="is not a seqlab GloVe file"):
        GloVe.load(bad)
    with pytest.raises(ValueError, match="not a seqlab Word2Vec/FastText file"):
        Word2Vec.load(good)
    # well-formed safetensors whose content does not fit
    corruptions = [
        (lambda s: s.update(version=2), "version-2 GloVe file"),
        (lambda s: s["params"].pop("window"), r"has no parameter 'window' \(not written by GloVe.save, or damaged\)"),
        (lambda s: s.update(index_to_key=["a", "a", "b", "c", "x"]), "index_to_key must be a list of distinct"),
        (lambda s: s["arrays"].pop("gW"), r"has no array 'gW' \(not written by GloVe.save, or damaged\)"),
        (lambda s: s["arrays"].update(W=3), "is corrupt: its arrays must be a dict of tensors"),
        (lambda s: s.update(cost_history="low"), "is corrupt: cost_history must be a list of numbers"),
        (lambda s: s["arrays"].update(W=seqlab.zeros(2, 3, dtype=seqlab.float64)), r"the array 'W' is float64 \(2, 3\)"),
        (lambda s: s["arrays"].update(count=seqlab.zeros(4)), "the array 'count' is float32"),
        (lambda s: s["arrays"].update(value=seqlab.ones(1, dtype=seqlab.float64)), "row, col, value must be vectors"),
        (lambda s: s["arrays"].update(col=s["arrays"]["col"] + 7), "co-occurrence index is outside the 4 words"),
        (lambda s: s["arrays"].update(value=s["arrays"]["value"] * 0), "co-occurrence entry 0 has value 0"),
    ]
    for change, message in corruptions:
        bad.write_bytes(content)
        rewrite(bad, change)
        with pytest.raises(ValueError, match=f"GloVe.load: '{re.escape(str(bad))}'.*{message}"):
            GloVe.load(bad)
    # every entry GloVe.save writes is needed
    checked = assert_load_names_what_is_missing(GloVe, good)
    assert {"version", "class", "cost_history", "params.window", "arrays.gbc"} <= set(checked)
