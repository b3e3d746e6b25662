"""Property-based fuzzing of the data API, NGram and the embedding models: hypothesis
draws odd arguments (empty corpora and sentences, unknown words, odd orders and smoothing options,
min_count above every count, window, vector_size and negative at 0 or huge, sizes of the wrong
type, padding values that do not fit) and each case runs in the fuzz worker's child process
(tests/fuzz_worker.py), where tests/fuzz_api_cases.py checks seqlab against its oracle: torch's
data utilities and PyTorch's word_language_model batching, gensim's vocabulary for Word2Vec and
FastText, a direct count for the corpus encoder and maximum-likelihood n-grams, and what holds for
any arguments (next-token probabilities sum to 1, a score is the sum of its tokens' log10 p by the
chain rule, perplexity is 10^(-log10 p / T)). A case fails on a crash, a hang, a wrong answer, or
an error other than a clear TypeError/ValueError/RuntimeError/KeyError/IndexError naming the
function (or the oracle's own exception type). Budget: FUZZ_EXAMPLES examples per case kind."""
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FUZZ_EXAMPLES


def api(name, **kwargs):
    return {"call": "api", "name": name, "kwargs": kwargs}


def mostly(valid, odd):
    """A valid value three times in four, else an odd one: most cases then get past the first
    check and reach counting, training and scoring with one odd argument or a few."""
    return st.one_of(st.sampled_from(valid), st.sampled_from(valid), st.sampled_from(valid), st.sampled_from(odd))


WORDS = ["the", "cat", "sat", "a", "dog", "on", "mat"]
ODD_TOKENS = ["", " ", "a b", "\x00", "é", "\u00a0", "<unk>", "<s>", "</s>", "<pad>", "\t"]
tokens = st.one_of(st.sampled_from(WORDS), st.sampled_from(ODD_TOKENS))
token_lists = st.lists(st.lists(tokens, max_size=6), max_size=5)
# sentences as text: words joined by ASCII and other whitespace
texts = st.lists(st.lists(st.sampled_from(WORDS + ["é", "x"]), max_size=6).map(" ".join), max_size=5)
odd_ints = st.one_of(st.integers(-2, 6), st.sampled_from([2**31 - 1, 2**31, 2**62, 2**63, 10**30]))
# an int argument, maybe as a NumPy int64 (which cannot hold 2**63: that one stays a Python int)
maybe_numpy = st.builds(lambda v, n: {"value": v, "numpy": n and v < 2**63}, st.one_of(st.integers(-2, 6),
                        st.sampled_from([2**62, 2**63])), st.booleans())
odd_sizes = mostly([1, 2, 3], [0, -1, 2**62, 10**30, None, 1.5, True, "3"])
id_values = st.lists(st.one_of(st.integers(-3, 40), st.sampled_from([2**40, 2**63 - 1, -2**63])), max_size=12)
id_seq = st.builds(lambda a, d, v: {"as": a, "dtype": d, "values": v}, st.sampled_from(["list", "numpy", "tensor"]),
                   st.sampled_from(["int64", "int32", "uint8", "float32", "bool"]), st.lists(st.integers(0, 9),
                                                                                          max_size=12))

CASES = {
    "data.Vocab": st.builds(
        lambda seqs, mf, ms, sp, probe, ids: api("data.Vocab", sequences=seqs, min_freq=mf, max_size=ms, specials=sp,
                                                  probe=probe, ids=ids),
        st.one_of(token_lists, st.lists(st.lists(st.one_of(tokens, st.integers(0, 3), st.none()), max_size=3),
                                        max_size=3)),
        odd_sizes, st.one_of(st.none(), st.none(), odd_sizes),
        mostly(["default"], ["<unk>", [1]]) | st.lists(st.sampled_from(["<unk>", "<pad>", "<s>", "a", "the", ""]),
                                                        max_size=3),
        st.lists(tokens, max_size=5), st.lists(st.one_of(st.integers(-3, 12), st.sampled_from([1.5, True, 2**70])),
                                               max_size=4)),
    "data.tokenize": st.builds(
        lambda kind, text, lower, split: api("data.tokenize", kind=kind, text=text, lower=lower,
                                             split_punctuation=split),
        st.sampled_from(["char", "word"]),
        st.one_of(st.text(alphabet=st.sampled_from(list("ab Z.,'’()-_9\t\n\u00a0\u2028\u0301İΣς")), max_size=20),
                  st.text(max_size=12), st.sampled_from([None, 3, ["a"]])),
        st.booleans(), st.booleans()),
    "data.batchify": st.builds(lambda d, b: api("data.batchify", data=d, batch_size=b), id_seq, maybe_numpy),
    "data.get_batch": st.builds(lambda r, c, i, b: api("data.get_batch", rows=r, cols=c, i=i, bptt=b),
                                st.integers(0, 7), mostly([1, 2, 3], [0]),
                                st.one_of(st.builds(lambda v, n: {"value": v, "numpy": n}, st.integers(0, 6),
                                                    st.booleans()), maybe_numpy),
                                mostly([1, 2, 3, 5], [0, -1, 2**62, 1.5, True])),
    "data.pad": st.builds(lambda s, bf, pv, c: api("data.pad", seqs=s, batch_first=bf, padding_value=pv, collate=c),
                          st.lists(id_seq, max_size=4), st.booleans(),
                          st.sampled_from([0, -1, 1.5, math.nan, math.inf, 2**63, True, 1e20]), st.booleans()),
    "data.DataLoader": st.builds(
        lambda k, n, b, dl, sh, seed: api("data.DataLoader", spec={"kind": k, "n": n}, batch_size=b, drop_last=dl,
                                          shuffle=sh, seed=seed),
        st.sampled_from(["ints", "floats", "ints_then_floats", "bools", "numpy_scalars", "numpy_int_scalars",
                         "arrays", "pairs", "dicts", "strings"]),
        st.integers(0, 7), maybe_numpy, st.booleans(), st.booleans(), st.one_of(st.none(), st.integers(0, 3))),
    "data.encode_corpus": st.builds(
        lambda c, level, v: api("data.encode_corpus", corpus=c, level=level, vocab_given=v),
        st.one_of(texts, token_lists, st.lists(st.text(alphabet=" \t\x0b\x0c\r\u00a0ab", max_size=8), max_size=4)),
        st.sampled_from(["word", "char", "bytes"]), st.one_of(st.none(), st.lists(tokens, max_size=4))),
    "lm.NGram": st.builds(
        lambda opts, c, probes, contexts: api("lm.NGram", options=opts, corpus=c, probes=probes, contexts=contexts),
        st.fixed_dictionaries({
            "order": mostly([1, 2, 3, 4, 5], [0, -1, 64, 65, 10**6, 2.0, True]),
            "smoothing": mostly(["kneser_ney", "katz", "witten_bell", "add_k", "mle"], ["laplace"])},
            optional={"level": st.sampled_from(["word", "char"]),
                      "k": mostly([1.0, 0.5, 1e-3], [0.0, -1.0, 1e-300, 1e300, math.nan, math.inf]),
                      "katz_k": mostly([1, 2, 5], [0, 2**31, 2.5]),
                      "discount_fallback": mostly([[0.5, 1.0, 1.5], [0, 0, 0], [1, 2, 3]],
                                                  [[3, 3, 3], [math.nan, 1, 1], [0.5, 1.0]])}),
        st.one_of(texts, st.lists(st.lists(st.sampled_from(WORDS), max_size=5), max_size=4),
                  st.sampled_from([[], [""], ["", " "], ["a"]])),
        st.lists(st.one_of(st.lists(st.sampled_from(WORDS + ["zebra"]), max_size=6).map(" ".join),
                           st.lists(st.sampled_from(WORDS + ["zebra"]), max_size=4)), max_size=3),
        st.lists(st.one_of(st.lists(st.sampled_from(WORDS + ["zebra"]), max_size=7), st.sampled_from(["", "the cat"])),
                 max_size=3)),
}

# Word2Vec / FastText / GloVe / PPMI: odd options on tiny corpora (workers=1, few epochs: fast).
embed_corpus = st.lists(st.lists(st.sampled_from(WORDS[:5]), max_size=8), min_size=0, max_size=5)
w2v_options = st.fixed_dictionaries(
    {"workers": st.just(1), "epochs": mostly([1, 2], [0, -1]), "seed": mostly([1, 0], [-1, 2**64]),
     "min_count": mostly([1, 2], [0, 10**9, -1])},
    optional={"vector_size": mostly([1, 4, 8], [0, -1, 1.5, 2**20, 2**20 + 1, 2**31, 2**40, 2**62, 2**63]),
              "window": mostly([1, 3, 10**4, 2**31 - 1], [0, -1, 2**31, 2**62]),
              "negative": mostly([0, 1, 5, 64], [-1, 10**5, 10**5 + 1, 2**31, 2**40]),
              "hs": st.sampled_from([0, 1]), "sg": st.sampled_from([0, 1]),
              "sample": mostly([0, 1e-3, 1.0], [-1.0, math.nan]),
              "alpha": mostly([0.025, 1e10], [0.0, -1.0, math.nan]),
              "ns_exponent": mostly([0.75, 0.0, -1.0], [math.inf]),
              "max_vocab_size": st.sampled_from([None, 1, 2]), "max_final_vocab": st.sampled_from([None, 0, 1, 2]),
              "shrink_windows": st.booleans(), "cbow_mean": st.sampled_from([0, 1])})
fasttext_options = w2v_options.flatmap(lambda o: st.fixed_dictionaries(
    {**{k: st.just(v) for k, v in o.items()},
     "bucket": mostly([0, 1, 100], [2**31 - 1, 2**31, 2**62]), "min_n": mostly([1, 3, 7], [0]),
     "max_n": st.sampled_from([0, 2, 6])}))
glove_options = st.fixed_dictionaries(
    {"workers": st.just(1), "epochs": mostly([1, 2], [0, -1]), "progress": st.just(False),
     "min_count": mostly([1, 2], [10**9, 0])},
    optional={"vector_size": mostly([1, 4], [0, 2**20 + 1, 2**40]),
              "window": mostly([1, 3, 10**4, 2**31], [0, 2**62]),
              "x_max": mostly([100, 1e-3], [0, math.inf, math.nan]),
              "alpha": mostly([0.75, 0], [-1, math.nan]),
              "learning_rate": mostly([0.05, 1e10], [0, math.nan])})
ppmi_options = st.fixed_dictionaries(
    {"workers": st.just(1), "min_count": mostly([1, 2], [10**9, 0])},
    optional={"vector_size": mostly([1, 2, 4, 50, 2**40], [0]), "window": mostly([1, 3, 2**31], [0]),
              "neg": mostly([1, 5], [0, math.inf]), "cds_alpha": mostly([0.75, 1.0], [0, math.nan]),
              "eig": mostly([0.5, 0], [math.nan]), "svd": st.sampled_from(["auto", "dense", "randomized"]),
              "n_iter": mostly([0, 2], [-1])})
CASES.update({
    "embed.Word2Vec": st.builds(lambda c, o: api("embed", model="Word2Vec", corpus=c, options=o), embed_corpus,
                                w2v_options),
    "embed.FastText": st.builds(lambda c, o: api("embed", model="FastText", corpus=c, options=o), embed_corpus,
                                fasttext_options),
    "embed.GloVe": st.builds(lambda c, o: api("embed", model="GloVe", corpus=c, options=o), embed_corpus,
                             glove_options),
    "embed.PPMI": st.builds(lambda c, o: api("embed", model="PPMI", corpus=c, options=o), embed_corpus, ppmi_options),
})


@pytest.mark.parametrize("kind", sorted(CASES))
def test_fuzz_api(kind, fuzz_worker):
    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(case=CASES[kind])
    def run(case):
        import json
        answer = fuzz_worker.run(case)["seqlab"]
        assert answer["ok"], f"{answer['exc']}: {answer['msg']}\nreproducer: {json.dumps(case)}"

    run()
