"""PPMI + truncated SVD (python/seqlab/embed/ppmi.py): the SPPMI matrix against a NumPy
computation from hand-counted co-occurrences, the factorisation against np.linalg.svd, the
randomised SVD, and planted analogies."""
import numpy as np
import pytest

from conftest import assert_load_names_what_is_missing
from seqlab.data import corpora
from seqlab.embed import PPMI, KeyedVectors
from seqlab.embed.ppmi import _CSR, randomized_svd

TOY = [["the", "cat", "sat"], ["the", "dog", "sat"], ["a", "cat", "ran"], ["the", "cat", "ran", "rare"]]


def dense_counts(sentences, vocab, window):
    """Unweighted symmetric window counts, by hand (no word is dropped in TOY with min_count=1)."""
    index = {w: i for i, w in enumerate(vocab)}
    X = np.zeros((len(vocab), len(vocab)))
    for s in sentences:
        ids = [index[w] for w in s]
        for j in range(len(ids)):
            for i in range(max(0, j - window), j):
                X[ids[i], ids[j]] += 1
                X[ids[j], ids[i]] += 1
    return X


def numpy_sppmi(X, cds_alpha, neg):
    n_w, n_c = X.sum(1), X.sum(0)
    p_c = n_c ** cds_alpha / (n_c ** cds_alpha).sum()
    with np.errstate(divide="ignore"):
        pmi = np.log(X) - np.log(n_w)[:, None] - np.log(p_c)[None, :]
    return np.maximum(pmi - np.log(neg), 0)


@pytest.mark.parametrize("cds_alpha,neg,window", [(0.75, 1, 2), (1.0, 1, 1), (0.75, 2, 3)])
def test_ppmi_matrix_equals_numpy(cds_alpha, neg, window):
    model = PPMI(TOY, window=window, min_count=1, vector_size=3, cds_alpha=cds_alpha, neg=neg)
    X = dense_counts(TOY, model.wv.index_to_key, window)
    np.testing.assert_array_equal(model.cooccurrence_matrix(dense=True), X)
    expected = numpy_sppmi(X, cds_alpha, neg)
    np.testing.assert_allclose(model.ppmi_matrix(dense=True), expected, rtol=1e-12, atol=1e-14)
    _, _, value = model.ppmi_matrix()
    assert np.all(value > 0) and len(value) == np.count_nonzero(expected)


def test_ppmi_by_hand_for_one_entry():
    # window 1: "the cat" x2 and "cat the" ... count #(the, cat) = 2, #(the) = 3, with cds_alpha=1
    model = PPMI(TOY, window=1, min_count=1, vector_size=2, cds_alpha=1.0)
    X = model.cooccurrence_matrix(dense=True)
    i, j = model.wv.get_index("the"), model.wv.get_index("cat")
    assert X[i, j] == 2 and X[i].sum() == 3
    N = X.sum()
    # PMI = log( P(w,c) / (P(w) P(c)) ) = log( #(w,c) N / (#(w) #(c)) )
    assert model.ppmi_matrix(dense=True)[i, j] == pytest.approx(np.log(2 * N / (3 * X[:, j].sum())))


@pytest.mark.parametrize("eig", [0.0, 0.5, 1.0])
def test_dense_factorisation_matches_numpy_svd(eig):
    sentences = corpora.planted_analogies().train[:2000]
    model = PPMI(sentences, window=2, min_count=1, vector_size=12, eig=eig, svd="dense")
    M = model.ppmi_matrix(dense=True)
    U, S, _ = np.linalg.svd(M)
    np.testing.assert_allclose(model.singular_values, S[:12], rtol=1e-10)
    W = model.wv.vectors.astype(np.float64)
    expected = U[:, :12] * S[:12] ** eig
    # columns agree up to sign (SVD's only freedom when the singular values are distinct)
    signs = np.sign(np.sum(W * expected, axis=0))
    np.testing.assert_allclose(W, expected * signs, rtol=1e-4, atol=1e-5 * S[0] ** eig)
    assert model.svd_method == "dense" and model.wv.vectors.dtype == np.float32


def test_randomized_svd_recovers_the_top_singular_triplets():
    rng = np.random.default_rng(0)
    m, n, k = 300, 200, 10
    # a matrix with a decaying spectrum: A = P diag(s) R^T
    P, _ = np.linalg.qr(rng.standard_normal((m, n)))
    R, _ = np.linalg.qr(rng.standard_normal((n, n)))
    s = 10.0 * 0.8 ** np.arange(n)
    A = (P * s) @ R.T
    U, S, Vt = randomized_svd(A, k, n_oversamples=10, n_iter=4, seed=1)
    np.testing.assert_allclose(S, s[:k], rtol=1e-6)
    np.testing.assert_allclose(np.abs(np.sum(U * P[:, :k], axis=0)), 1, rtol=1e-6)
    np.testing.assert_allclose(np.abs(np.sum(Vt.T * R[:, :k], axis=0)), 1, rtol=1e-6)
    again = randomized_svd(A, k, seed=1)
    np.testing.assert_array_equal(U, again[0])   # seeded


def test_sparse_product_matches_dense():
    rng = np.random.default_rng(1)
    A = rng.random((50, 40)) * (rng.random((50, 40)) < 0.1)
    row, col = np.nonzero(A)
    csr = _CSR(row.astype(np.int32), col.astype(np.int32), A[row, col], A.shape)
    X = rng.standard_normal((40, 7))
    np.testing.assert_allclose(csr @ X, A @ X, rtol=1e-12)
    Y = rng.standard_normal((50, 3))
    np.testing.assert_allclose(csr.transpose() @ Y, A.T @ Y, rtol=1e-12)


def test_randomized_path_agrees_with_dense_path():
    sentences = corpora.planted_analogies().train[:3000]
    dense = PPMI(sentences, window=2, min_count=1, vector_size=8, svd="dense")
    rand = PPMI(sentences, window=2, min_count=1, vector_size=8, svd="randomized", n_oversamples=40, n_iter=8)
    assert rand.svd_method == "randomized"
    # this spectrum is flat after the first value (60, 37.2, 36.6, 36.3, ...), the hard case for a
    # randomised SVD: the values still agree to 0.5%, and the first vector (a clear gap) exactly
    np.testing.assert_allclose(rand.singular_values, dense.singular_values, rtol=5e-3)
    assert rand.singular_values[0] == pytest.approx(dense.singular_values[0], rel=1e-9)
    a, b = dense.wv.vectors[:, 0].astype(np.float64), rand.wv.vectors[:, 0].astype(np.float64)
    np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-4 * np.abs(a).max())


def test_planted_analogies_are_recovered():
    corpus = corpora.planted_analogies()
    model = PPMI(corpus.train, window=2, min_count=1, vector_size=20)
    assert isinstance(model.wv, KeyedVectors) and len(model.wv) == 320
    questions = corpus.questions[::10]
    right = sum(model.wv.analogy(a, b, c) == d for a, b, c, d in questions)
    assert right / len(questions) > 0.9       # chance is 1/317
    assert model.wv.get_vecattr(model.wv.index_to_key[0], "count") >= model.wv.get_vecattr(
        model.wv.index_to_key[-1], "count")


def test_ppmi_argument_errors_and_small_vocabulary():
    with pytest.raises(ValueError, match="neg must be >= 1"):
        PPMI(TOY, neg=0)
    with pytest.raises(ValueError, match="svd must be"):
        PPMI(TOY, svd="lanczos")
    with pytest.raises(ValueError, match="exactly one of sentences and corpus_file"):
        PPMI().build_vocab()
    with pytest.warns(UserWarning, match="vector_size=100 exceeds the vocabulary"):
        model = PPMI(TOY, min_count=1)
    assert model.wv.vector_size == len(model.wv) == 7


# ----------------------------------------------------------------------------- save / load

@pytest.mark.parametrize("svd", ["dense", "randomized"])
def test_save_load_round_trip(tmp_path, svd):
    sentences = corpora.planted_analogies().train[:3000]
    model = PPMI(sentences, window=2, min_count=1, vector_size=8, cds_alpha=0.6, neg=2, eig=0.25, seed=3, svd=svd)
    path = tmp_path / "ppmi.safetensors"
    model.save(path)
    loaded = PPMI.load(path)
    assert isinstance(loaded, PPMI) and repr(loaded) == repr(model) and loaded.svd_method == svd
    for k in ("window", "min_count", "vector_size", "cds_alpha", "neg", "eig", "seed", "workers", "svd",
              "n_oversamples", "n_iter"):
        assert getattr(loaded, k) == getattr(model, k), k
    assert loaded.wv.index_to_key == model.wv.index_to_key
    np.testing.assert_array_equal(loaded.wv.vectors, model.wv.vectors)
    np.testing.assert_array_equal(loaded.context_vectors, model.context_vectors)
    np.testing.assert_array_equal(loaded.singular_values, model.singular_values)
    np.testing.assert_array_equal(loaded.wv.expandos["count"], model.wv.expandos["count"])
    word = model.wv.index_to_key[5]
    assert loaded.wv.most_similar(word, topn=10) == model.wv.most_similar(word, topn=10)
    for a, b in zip(loaded.ppmi_matrix() + loaded.cooccurrence_matrix(),
                    model.ppmi_matrix() + model.cooccurrence_matrix()):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    # factorising again after load gives the same vectors
    loaded.train()
    np.testing.assert_array_equal(loaded.wv.vectors, model.wv.vectors)


def test_save_load_before_train_and_errors(tmp_path):
    import re

    import seqlab
    from seqlab.embed import GloVe
    with pytest.raises(RuntimeError, match=r"PPMI.save: .*call build_vocab\(\)"):
        PPMI().save(tmp_path / "x.safetensors")
    path = tmp_path / "ppmi.safetensors"
    counted = PPMI(window=2, min_count=1, vector_size=3).build_vocab(TOY)
    counted.save(path)
    loaded = PPMI.load(path)
    assert loaded.wv is None
    np.testing.assert_array_equal(loaded.ppmi_matrix(dense=True), counted.ppmi_matrix(dense=True))
    loaded.train()
    counted.train()
    np.testing.assert_array_equal(loaded.wv.vectors, counted.wv.vectors)

    trained = tmp_path / "trained.safetensors"
    counted.save(trained)
    content = trained.read_bytes()
    bad = tmp_path / "bad.safetensors"
    for size in range(0, len(content), 7):
        bad.write_bytes(content[:size])
        with pytest.raises(ValueError, match=f"PPMI.load: cannot read '{re.escape(str(bad))}'"):
            PPMI.load(bad)
    GloVe(TOY, window=2, min_count=1, vector_size=3, epochs=1, progress=False).save(bad)
    with pytest.raises(ValueError, match=f"PPMI.load: '{re.escape(str(bad))}' is not a seqlab PPMI file"):
        PPMI.load(bad)
    corruptions = [
        (lambda s: s["arrays"].pop("ppmi_value"),
         r"has no array 'ppmi_value' \(not written by PPMI.save, or damaged\)"),
        (lambda s: s["arrays"].pop("context_vectors"),
         ("has no array 'context_vectors', which a trained PPMI's file holds with its vectors, singular_values, "
          "svd_method")),
        (lambda s: s["arrays"].update(vectors=seqlab.zeros(2, 3)), "is corrupt: .*go together"),
        (lambda s: s["arrays"].update(ppmi_row=s["arrays"]["ppmi_row"] + 100),
         "is corrupt: .*ppmi index is outside the 7 words"),
        (lambda s: s["arrays"].update(cooccurrence_col=s["arrays"]["cooccurrence_col"][:-1]),
         "is corrupt: .*cooccurrence_row, cooccurrence_col, cooccurrence_value must be vectors of one length"),
        (lambda s: s.update(index_to_key="the cat"), "is corrupt: .*index_to_key must be a list"),
    ]
    for change, message in corruptions:
        bad.write_bytes(content)
        state = seqlab.load(bad)
        change(state)
        seqlab.save(state, bad)
        with pytest.raises(ValueError, match=f"PPMI.load: '{re.escape(str(bad))}' {message}"):
            PPMI.load(bad)
    # every entry PPMI.save writes, trained or not, is needed
    assert_load_names_what_is_missing(PPMI, trained)
    assert_load_names_what_is_missing(PPMI, path)
