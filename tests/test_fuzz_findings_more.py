"""Regression tests for the fuzzing campaign's remaining findings: each
case gives torch's value or raises where torch raises (same exception type, a message naming the
op); where torch has no such API, the oracle is gensim or KenLM, or a clear error naming the
class, the argument or the file. The generated sweeps of tests/test_fuzz.py cover the same
ground with random arguments (huge int operands, list indices, multinomial's dtypes)."""
import math
import os

import numpy as np
import pytest
import torch
import torch.nn.utils.rnn as trnn

import seqlab
import seqlab.nn.utils.rnn as srnn
from conftest import assert_raises_like_torch

HUGE_INTS = [2**70, -2**70, 2**64, -2**63 - 1]


# ------------------------------------------------------------------ 1. Python ints outside 64 bits
OPERATORS = {
    "add": lambda x, b: x + b, "radd": lambda x, b: b + x, "sub": lambda x, b: x - b, "rsub": lambda x, b: b - x,
    "mul": lambda x, b: x * b, "truediv": lambda x, b: x / b, "floordiv": lambda x, b: x // b,
    "mod": lambda x, b: x % b, "pow": lambda x, b: x ** b, "rpow": lambda x, b: b ** x,
    "eq": lambda x, b: x == b, "lt": lambda x, b: x < b, "and": lambda x, b: x & b, "lshift": lambda x, b: x << b,
    "iadd": lambda x, b: x.__iadd__(b), "mul_": lambda x, b: x.mul_(b),
}
FUNCTIONS = {
    "add": lambda L, x, b: L.add(x, b), "sub": lambda L, x, b: L.sub(x, b), "mul": lambda L, x, b: L.mul(x, b),
    "div": lambda L, x, b: L.div(x, b), "pow": lambda L, x, b: L.pow(x, b), "pow_method": lambda L, x, b: x.pow(b),
    "remainder": lambda L, x, b: L.remainder(x, b), "remainder_scalar": lambda L, x, b: L.remainder(b, x),
    "fmod": lambda L, x, b: L.fmod(x, b), "eq": lambda L, x, b: x.eq(b),
    "where": lambda L, x, b: L.where(x > 2, x, b), "clamp": lambda L, x, b: x.clamp(b),
    "masked_fill": lambda L, x, b: x.masked_fill(x > 2, b), "alpha": lambda L, x, b: L.add(x, x, alpha=b),
    "masked_fill_": lambda L, x, b: x.masked_fill_(x > 2, b), "fill_": lambda L, x, b: x.fill_(b),
}


def _both(dtype):
    return seqlab.tensor([2, 3], dtype=getattr(seqlab, dtype)), torch.tensor([2, 3], dtype=getattr(torch, dtype))


@pytest.mark.parametrize("big", HUGE_INTS)
@pytest.mark.parametrize("dtype", ["int64", "float32"])
@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operators_refuse_an_int_outside_64_bits_as_torch(name, dtype, big):
    f = OPERATORS[name]
    s, t = _both(dtype)
    op = "mul_" if name == "mul_" else f"__{name}__"
    assert_raises_like_torch(lambda: f(s, big), lambda: f(t, big), f"^{op}\\(\\): argument", "int too big to convert")


@pytest.mark.parametrize("big", HUGE_INTS)
@pytest.mark.parametrize("dtype", ["int64", "float32"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_refuse_an_int_outside_64_bits_as_torch(name, dtype, big):
    f = FUNCTIONS[name]
    s, t = _both(dtype)
    op = {"pow_method": "pow", "remainder_scalar": "remainder", "alpha": "add"}.get(name, name)
    assert_raises_like_torch(lambda: f(seqlab, s, big), lambda: f(torch, t, big), op, "int too big")


def test_the_fuzz_case_int_pow_of_a_huge_exponent():
    assert_raises_like_torch(lambda: seqlab.tensor([2]) ** (2**70), lambda: torch.tensor([2]) ** (2**70),
                             r"__pow__\(\): argument 'exponent'", "int too big to convert")
    assert_raises_like_torch(lambda: seqlab.pow(seqlab.tensor([2]), 2**70), lambda: torch.pow(torch.tensor([2]), 2**70),
                             r"pow\(\): argument 'exponent'")


@pytest.mark.parametrize("name", ["pow", "where", "masked_fill", "clamp"])
def test_an_int_of_2_to_the_63_does_not_fit_an_int64_tensor(name):
    """In [2**63, 2**64) torch reads an unsigned Scalar: an integer tensor cannot take it."""
    f = {"pow": lambda L, x: x ** 2**63, "where": lambda L, x: L.where(x > 2, x, 2**63),
         "masked_fill": lambda L, x: x.masked_fill(x > 2, 2**63), "clamp": lambda L, x: x.clamp(2**63)}[name]
    s, t = _both("int64")
    assert_raises_like_torch(lambda: f(seqlab, s), lambda: f(torch, t), "cannot be converted to type int64_t")


@pytest.mark.parametrize("f", [lambda x: x ** 2**63, lambda x: x.clamp(2**63), lambda x: x.masked_fill(x > 2, 2**63),
                               lambda x: x + (2**63 - 1), lambda x: x * -2**63])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_64_bit_int_reaches_a_float_tensor_as_torchs(f, dtype):
    s, t = _both(dtype)
    np.testing.assert_array_equal(f(s).numpy(), f(t).numpy())
    assert str(f(s).dtype).split(".")[1] == str(f(t).dtype).split(".")[1]


def test_ints_inside_64_bits_still_work_exactly():
    x, y = seqlab.tensor([1, -1]), torch.tensor([1, -1])
    for b in (2**62, 2**62 + 1, 2**53 + 1, -2**63, 2**63 - 1, 7):
        assert (x * b).tolist() == (y * b).tolist()
        assert (x + b).tolist() == (y + b).tolist()
        assert (b - x).tolist() == (b - y).tolist()
        assert (x == b).tolist() == (y == b).tolist()
        assert (seqlab.tensor([b]) == b).tolist() == [True]
    assert (x ** 62).tolist() == (y ** 62).tolist()


# ------------------------------------------------------------------ 2. a list holding a sequence is a tuple
def _x(lib):
    return lib.arange(6.0).reshape(3, 2)


@pytest.mark.parametrize("key", [
    [[0, 1]], [[0, 2], [1, 0]], [[0, 1], slice(None)], [slice(1, None)], [0, slice(None)], [Ellipsis, 0], [None, 0],
    [0, None], [[True, False, True]], [1, [0, 1]], [np.array([0, 2])], [[0, 1], 1], [(0, 1)], ([0, 1],),
    [0, 1], [2, 0, 1], [True, False, True], [[0, 1]] * 32, [[[0, 1]]], [[0], [1]], [-1, [1]], [[]],
])
def test_a_list_index_reads_as_torch(key):
    s, t = _x(seqlab), _x(torch)
    np.testing.assert_array_equal(s[key].numpy(), t[key].numpy())
    assert list(s[key].shape) == list(t[key].shape)


@pytest.mark.parametrize("key", [[[0, 1]], [slice(None)], [0, None], [Ellipsis], [0, 1], [[0, 1]] * 32, ([0, 1],)])
def test_a_list_read_as_a_tuple_warns_as_torch(key):
    import warnings
    caught = []
    for lib in (seqlab, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            _x(lib)[key]
        caught.append([str(m.message) for m in w if issubclass(m.category, UserWarning)])
    assert bool(caught[0]) == bool(caught[1])
    assert all("non-tuple sequence for multidimensional indexing is deprecated" in m for m in caught[0])


def test_a_list_holding_a_tensor_is_a_tuple_of_indices():
    s, t = _x(seqlab), _x(torch)
    got, want = s[[seqlab.tensor([0, 2]), 1]], t[[torch.tensor([0, 2]), 1]]
    assert got.tolist() == want.tolist()
    got, want = s[[seqlab.tensor([2, 0])]], t[[torch.tensor([2, 0])]]
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("key, value", [
    ([[0, 1]], 7.0), ([[0, 2], [1, 0]], -1.0), ([[0, 1], slice(None)], 5.0), ([0, slice(None)], 3.0),
    ([[0, 1]], [[1.0, 2.0]]), ([Ellipsis, 1], 9.0), ([1, [0, 1]], 4.0), ([0, 1], 8.0),
])
def test_a_list_index_assigns_as_torch(key, value):
    s, t = _x(seqlab), _x(torch)
    s[key] = seqlab.tensor(value) if isinstance(value, list) else value
    t[key] = torch.tensor(value) if isinstance(value, list) else value
    np.testing.assert_array_equal(s.numpy(), t.numpy())


def test_a_list_index_assignment_with_autograd_as_torch():
    s, t = _x(seqlab).requires_grad_(), _x(torch).requires_grad_()
    ys, yt = s * 1, t * 1
    ys[[[0, 2], [1, 0]]] = 0.0
    yt[[[0, 2], [1, 0]]] = 0.0
    (ys * seqlab.arange(6.0).reshape(3, 2)).sum().backward()
    (yt * torch.arange(6.0).reshape(3, 2)).sum().backward()
    np.testing.assert_array_equal(ys.detach().numpy(), yt.detach().numpy())
    np.testing.assert_array_equal(s.grad.numpy(), t.grad.numpy())


def test_a_list_index_errors_as_torch():
    s, t = _x(seqlab), _x(torch)
    assert_raises_like_torch(lambda: s[[[0, 1], [0, 1], [0, 1]]], lambda: t[[[0, 1], [0, 1], [0, 1]]],
                             "too many indices")
    assert_raises_like_torch(lambda: s[[[0, 5]]], lambda: t[[[0, 5]]], "out of bounds")


# ------------------------------------------------------------------ 3. multinomial's dtype
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_multinomial_refuses_integer_probabilities_as_torch(dtype):
    s = seqlab.tensor([1, 2, 3]).to(getattr(seqlab, dtype))
    t = torch.tensor([1, 2, 3]).to(getattr(torch, dtype))
    name = {"int64": "Long", "int32": "Int", "bool": "Bool"}[dtype]
    assert_raises_like_torch(lambda: seqlab.multinomial(s, 1), lambda: torch.multinomial(t, 1),
                             f"multinomial only supports floating-point dtypes for input, got: {name}")
    assert_raises_like_torch(lambda: s.multinomial(1, True), lambda: t.multinomial(1, True), "multinomial")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multinomial_still_samples_floats(dtype):
    p = seqlab.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], dtype=getattr(seqlab, dtype))
    assert seqlab.multinomial(p, 2, replacement=True).tolist() == [[1, 1], [0, 0]]


# ------------------------------------------------------------------ 4. random sizes, bounds and seeds
@pytest.mark.parametrize("expr, fragments", [
    (lambda L: L.randint(0, 2**64, (3,)), ["randint", "'high'", "Overflow when unpacking long long"]),
    (lambda L: L.randint(-2**64, 0, (3,)), ["randint", "'low'"]),
    (lambda L: L.randint(2**64, (3,)), ["randint", "'high'"]),
    (lambda L: L.randperm(2**64), ["randperm", "'n'"]),
    (lambda L: L.rand(2**64), ["rand", "'size'", "pos 1", "Overflow when unpacking long long"]),
    (lambda L: L.rand(3, 2**64), ["rand", "'size'", "pos 2"]),
    (lambda L: L.randn(2**70), ["randn", "'size'"]),
    (lambda L: L.zeros((2, -2**63 - 1)), ["zeros", "'size'", "pos 2"]),
    (lambda L: L.randint(0, 5, (2**64,)), ["randint", "'size'"]),
])
def test_random_arguments_outside_int64_are_refused_as_torch(expr, fragments):
    err = assert_raises_like_torch(lambda: expr(seqlab), lambda: expr(torch), *fragments)
    assert "generator" not in str(err)


def test_randint_bounds_at_the_edge_of_int64_still_work():
    x = seqlab.randint(2**63 - 2, 2**63 - 1, (3,))
    assert x.tolist() == [2**63 - 2] * 3
    assert seqlab.randint(-2**63, -2**63 + 1, (2,)).tolist() == [-2**63] * 2


def test_generate_names_the_seed_that_overflows():
    model = seqlab.nn.lm.TransformerLM(10, 8, 2, 1)
    with pytest.raises(ValueError, match=r"generate.*seed must be an integer in \[0, 2\*\*64\), got 18446744073709551616"):
        model.generate(seqlab.tensor([[1, 2]]), max_new_tokens=2, do_sample=True, seed=2**64)
    with pytest.raises(ValueError, match="seed"):
        model.generate(seqlab.tensor([[1, 2]]), max_new_tokens=2, do_sample=True, seed=-1)
    a = model.generate(seqlab.tensor([[1, 2]]), max_new_tokens=3, do_sample=True, seed=2**64 - 1)
    b = model.generate(seqlab.tensor([[1, 2]]), max_new_tokens=3, do_sample=True, seed=2**64 - 1)
    assert a.tolist() == b.tolist()


# ------------------------------------------------------------------ 5. permutations out of range
@pytest.mark.parametrize("perm", [[0, -1], [0, 2], [-3, 0, 1], [5]])
def test_invert_permutation_refuses_entries_out_of_range_as_torch(perm):
    bad = next(p for p in perm if not 0 <= p < len(perm))
    assert_raises_like_torch(lambda: srnn.invert_permutation(seqlab.tensor(perm)),
                             lambda: trnn.invert_permutation(torch.tensor(perm)),
                             f"index {bad} is out of bounds for dimension 0 with size {len(perm)}")


def test_invert_permutation_of_a_permutation_as_torch():
    perm = [2, 0, 3, 1]
    assert srnn.invert_permutation(seqlab.tensor(perm)).tolist() == \
        trnn.invert_permutation(torch.tensor(perm)).tolist()
    assert srnn.invert_permutation(seqlab.tensor([], dtype=seqlab.int64)).tolist() == []


def test_packed_sequence_refuses_indices_out_of_range():
    data, sizes = seqlab.ones(3, 1), seqlab.tensor([2, 1])
    assert_raises_like_torch(lambda: srnn.PackedSequence(data, sizes, seqlab.tensor([1, -1])),
                             lambda: trnn.PackedSequence(torch.ones(3, 1), torch.tensor([2, 1]), torch.tensor([1, -1])),
                             "index -1 is out of bounds for dimension 0 with size 2")
    # torch keeps both, unchecked, when both are given; seqlab checks them (a loud difference)
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 2"):
        srnn.PackedSequence(data, sizes, seqlab.tensor([1, -1]), seqlab.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="index 2 is out of bounds"):
        srnn.PackedSequence(data, sizes, seqlab.tensor([1, 0]), seqlab.tensor([2, 0]))
    ok = srnn.PackedSequence(data, sizes, seqlab.tensor([1, 0]))
    assert ok.unsorted_indices.tolist() == [1, 0]


# ------------------------------------------------------------------ 6. pad_packed_sequence, pad_sequence
@pytest.mark.parametrize("total_length", [2.5, "3", 3.0])
def test_pad_packed_sequence_total_length_must_be_an_int_as_torch(total_length):
    s = srnn.pack_sequence([seqlab.ones(2, 1)])
    t = trnn.pack_sequence([torch.ones(2, 1)])
    assert_raises_like_torch(lambda: srnn.pad_packed_sequence(s, total_length=total_length),
                             lambda: trnn.pad_packed_sequence(t, total_length=total_length),
                             "total_length", "must be int")


def test_pad_packed_sequence_total_length_int_as_torch():
    s = srnn.pack_sequence([seqlab.ones(2, 1)])
    t = trnn.pack_sequence([torch.ones(2, 1)])
    for total_length in (3, np.int64(4)):
        a, b = srnn.pad_packed_sequence(s, total_length=total_length), trnn.pad_packed_sequence(t, total_length=int(total_length))
        np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e19, -9.3e18, 2**64])
def test_pad_sequence_of_ints_refuses_a_padding_value_int64_cannot_hold_as_torch(value):
    seqs = ([seqlab.tensor([1, 2]), seqlab.tensor([1])], [torch.tensor([1, 2]), torch.tensor([1])])
    assert_raises_like_torch(lambda: srnn.pad_sequence(seqs[0], padding_value=value),
                             lambda: trnn.pad_sequence(seqs[1], padding_value=value),
                             "value cannot be converted to type int64_t without overflow")


@pytest.mark.parametrize("value", [-1.5, 2.9, -2**63, -2**63 - 1, 2**62, 0.0])
def test_pad_sequence_of_ints_casts_the_padding_value_as_torch(value):
    a = srnn.pad_sequence([seqlab.tensor([1, 2]), seqlab.tensor([1])], padding_value=value)
    b = trnn.pad_sequence([torch.tensor([1, 2]), torch.tensor([1])], padding_value=value)
    assert a.tolist() == b.tolist()


def test_pad_packed_sequence_of_ints_refuses_nan_as_torch():
    s = srnn.pack_sequence([seqlab.tensor([1, 2]), seqlab.tensor([1])])
    t = trnn.pack_sequence([torch.tensor([1, 2]), torch.tensor([1])])
    assert_raises_like_torch(lambda: srnn.pad_packed_sequence(s, padding_value=math.nan),
                             lambda: trnn.pad_packed_sequence(t, padding_value=math.nan),
                             "value cannot be converted to type int64_t without overflow")


# ------------------------------------------------------------------ 7. TensorBoard
def _histograms(tmp_path, values, **kwargs):
    """The (bucket_limit, bucket) seqlab's and torch's writers store for add_histogram(values)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    from seqlab.utils.tensorboard import SummaryWriter
    out = []
    for name, cls in (("seqlab", SummaryWriter), ("torch", TorchWriter)):
        d = tmp_path / name
        with cls(str(d)) as w:
            w.add_histogram("h", values, 0, **kwargs)
        ea = EventAccumulator(str(d), size_guidance={"histograms": 0})
        ea.Reload()
        h = ea.Histograms("h")[0].histogram_value
        out.append((list(h.bucket_limit), list(h.bucket), h.num, h.sum, h.sum_squares))
    return out


@pytest.mark.parametrize("values, kwargs", [
    (np.random.default_rng(0).standard_normal(1000), {"max_bins": 7}),
    (np.random.default_rng(1).standard_normal(500), {"bins": 13, "max_bins": 4}),
    (np.random.default_rng(2).standard_normal(500), {"bins": 12, "max_bins": 4}),
    (np.random.default_rng(3).exponential(size=300), {"bins": "auto", "max_bins": 3}),
    (np.arange(100.0), {"bins": 10, "max_bins": 10}),
    (np.arange(100.0), {"bins": 10, "max_bins": 9}),
    (np.array([1e300, 0.5, -3.0]), {}),
    (np.array([0.0, 0.0, 1.0]), {"max_bins": 50}),
])
def test_histogram_buckets_equal_torchs(tmp_path, values, kwargs):
    ours, theirs = _histograms(tmp_path, values, **kwargs)
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    assert ours[2] == theirs[2]
    np.testing.assert_allclose(ours[3:], theirs[3:], rtol=1e-12)


def test_histogram_with_every_value_outside_the_buckets_names_add_histogram(tmp_path):
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    from seqlab.utils.tensorboard import SummaryWriter
    values = np.array([1e300, -1e300])
    with SummaryWriter(str(tmp_path / "s")) as ours, TorchWriter(str(tmp_path / "t")) as theirs:
        assert_raises_like_torch(lambda: ours.add_histogram("h", values), lambda: theirs.add_histogram("h", values),
                                 "add_histogram", "'h'", "inside the bins")


@pytest.mark.parametrize("step", [2**63, 2**64 + 5, -2**63 - 1, np.uint64(2**63)])
@pytest.mark.parametrize("method", ["add_scalar", "add_text", "add_histogram"])
def test_a_global_step_outside_int64_is_torchs_value_error_naming_global_step(tmp_path, method, step):
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    from seqlab.utils.tensorboard import SummaryWriter
    value = {"add_scalar": 1.0, "add_text": "x", "add_histogram": np.arange(3.0)}[method]
    with SummaryWriter(str(tmp_path / "s")) as ours, TorchWriter(str(tmp_path / "t")) as theirs:
        assert_raises_like_torch(lambda: getattr(ours, method)("a", value, global_step=step),
                                 lambda: getattr(theirs, method)("a", value, global_step=step),
                                 f"SummaryWriter.{method}", "global_step")


def test_a_large_global_step_is_stored_exactly(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from seqlab.utils.tensorboard import SummaryWriter
    with SummaryWriter(str(tmp_path)) as w:
        for step in (2**63 - 1, 2**62 + 1, -5, seqlab.tensor(7), np.int64(9), 3.7):
            w.add_scalar("s", 1.0, global_step=step)
    ea = EventAccumulator(str(tmp_path), size_guidance={"scalars": 0})
    ea.Reload()
    assert [e.step for e in ea.Scalars("s")] == [2**63 - 1, 2**62 + 1, -5, 7, 9, 3]


# ------------------------------------------------------------------ 8. lone surrogates in text
SURROGATE = "a\ud800b"


@pytest.mark.parametrize("make, who", [
    (lambda s: seqlab.embed.Word2Vec(s, vector_size=4, min_count=1, epochs=1), "Word2Vec"),
    (lambda s: seqlab.embed.PPMI(s, vector_size=2), "PPMI"),
    (lambda s: seqlab.embed.GloVe(s, vector_size=2, epochs=1), "GloVe"),
    (lambda s: seqlab.lm.NGram(2).fit(s), "NGram.fit"),
    (lambda s: seqlab.lm.NGram(2).fit([" ".join(x) for x in s]), "NGram.fit"),
    (lambda s: seqlab.data.encode.encode_corpus(s), "encode_corpus"),
])
def test_a_lone_surrogate_token_is_a_value_error_naming_the_class_and_token(make, who):
    sentences = [[SURROGATE, "c"], ["c", "d"]] * 5
    with pytest.raises(ValueError) as info:
        make(sentences)
    msg = str(info.value)
    assert msg.startswith(who + ":") and repr(SURROGATE) in msg and "surrogate" in msg, msg


def test_a_lone_surrogate_in_a_query_is_a_value_error_as_kenlms(tmp_path):
    """Every binding taking text: pybind11's "invalid combination of arguments" becomes a
    ValueError naming the function and the text; KenLM's Python module raises
    UnicodeEncodeError, a ValueError, for the same query."""
    import kenlm
    model = seqlab.lm.NGram(2).fit([["a", "b", "c"]] * 3)
    path = tmp_path / "m.arpa"
    model.save_arpa(str(path))
    with pytest.raises(ValueError):
        kenlm.Model(str(path)).score(SURROGATE)
    for call in (lambda: model.score(SURROGATE), lambda: model.perplexity([["a", SURROGATE]])):
        with pytest.raises(ValueError) as info:
            call()
        assert "\\ud800" in str(info.value) and "lone surrogate" in str(info.value)
        assert "(): the text" in str(info.value)


def test_gensim_trains_on_a_surrogate_and_cannot_save_it(tmp_path):
    """gensim accepts the token in its pure-Python vocabulary and fails at save_word2vec_format
    (UTF-8); seqlab's core reads text as UTF-8, so it refuses the token up front."""
    import gensim.models
    m = gensim.models.Word2Vec([[SURROGATE, "c"]] * 5, vector_size=4, min_count=1, epochs=1, workers=1)
    assert SURROGATE in m.wv.key_to_index
    with pytest.raises(UnicodeEncodeError):
        m.wv.save_word2vec_format(str(tmp_path / "v.txt"))


def test_the_vocab_of_encode_corpus_is_checked_too():
    with pytest.raises(ValueError, match="the vocab"):
        seqlab.data.encode.encode_corpus([["a", "b"]], vocab=["a", SURROGATE])


# ------------------------------------------------------------------ 9. word2vec keys with a space
@pytest.mark.parametrize("key", ["a b", "\na", "a\nb", "tail "])
@pytest.mark.parametrize("binary", [True, False])
def test_save_word2vec_format_refuses_a_key_its_reader_would_split(tmp_path, key, binary):
    kv = seqlab.embed.KeyedVectors(3)
    kv.add_vectors(["ok", key], np.ones((2, 3), dtype=np.float32))
    kv.expandos["count"] = np.array([5, 3])
    path, vocab = tmp_path / "v.bin", tmp_path / "vocab.txt"
    with pytest.raises(ValueError) as info:
        kv.save_word2vec_format(str(path), fvocab=str(vocab), binary=binary)
    assert repr(key) in str(info.value) and str(path) in str(info.value) and "save_word2vec_format" in str(info.value)
    assert not path.exists() and not vocab.exists()


def test_gensim_writes_a_key_with_a_space_and_misreads_it(tmp_path):
    """What seqlab refuses: gensim's binary file of ['a b', 'c'] reads back other keys."""
    import gensim.models
    kv = gensim.models.KeyedVectors(3)
    kv.add_vectors(["a b", "c"], np.zeros((2, 3), dtype=np.float32))
    kv.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    back = gensim.models.KeyedVectors.load_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    assert back.index_to_key != ["a b", "c"]


def test_keys_with_tabs_and_unicode_still_round_trip(tmp_path):
    kv = seqlab.embed.KeyedVectors(3)
    keys = ["tab\there", "ünïcode", "x"]
    kv.add_vectors(keys, np.arange(9, dtype=np.float32).reshape(3, 3))
    for binary in (True, False):
        kv.save_word2vec_format(str(tmp_path / "v"), binary=binary)
        back = seqlab.embed.KeyedVectors.load_word2vec_format(str(tmp_path / "v"), binary=binary)
        assert sorted(back.index_to_key) == sorted(keys)


# ------------------------------------------------------------------ 10. ARPA: positive log10 probabilities
ARPA_POSITIVE = {
    "unigram": "\\data\\\nngram 1=3\nngram 2=1\n\n\\1-grams:\n0.5\t<s>\t-0.2\n-1.0\t</s>\n-0.5\ta\t0.3\n\n"
               "\\2-grams:\n-0.25\t<s> a\n\n\\end\\\n",
    "bigram": "\\data\\\nngram 1=3\nngram 2=1\n\n\\1-grams:\n-1\t<s>\t-0.2\n-1.0\t</s>\n-0.5\ta\t0.3\n\n"
              "\\2-grams:\n0.25\t<s> a\n\n\\end\\\n",
}


@pytest.mark.parametrize("case, line", [("unigram", 6), ("bigram", 11)])
def test_an_arpa_file_with_a_positive_log_probability_is_refused_as_kenlm_does(tmp_path, case, line):
    path = tmp_path / f"{case}.arpa"
    path.write_text(ARPA_POSITIVE[case])
    import kenlm
    with pytest.raises(OSError, match="Positive log probability"):
        kenlm.Model(str(path))
    with pytest.raises(ValueError) as info:
        seqlab.lm.NGram.load_arpa(str(path))
    msg = str(info.value)
    assert str(path) in msg and f"line {line}" in msg and "positive" in msg, msg


def test_an_arpa_file_with_zero_probabilities_and_positive_backoffs_loads_as_kenlm_does(tmp_path):
    path = tmp_path / "ok.arpa"
    path.write_text("\\data\\\nngram 1=3\nngram 2=1\n\n\\1-grams:\n-1\t<s>\t0.7\n-1.0\t</s>\n0\ta\t0.3\n\n"
                    "\\2-grams:\n-0.25\t<s> a\n\n\\end\\\n")
    import kenlm
    kenlm.Model(str(path))
    model = seqlab.lm.NGram.load_arpa(str(path))
    assert model is not None


# ------------------------------------------------------------------ 11. a scheme takes the model's dtype
@pytest.mark.parametrize("make_pos", [
    lambda: seqlab.nn.positional.T5RelativeBias(2),
    lambda: seqlab.nn.positional.ALiBi(2),
    lambda: seqlab.nn.positional.RoPE(4),
    lambda: seqlab.nn.positional.KERPLE(2),
    lambda: seqlab.nn.positional.ShawRelativePosition(4),
    lambda: seqlab.nn.positional.TransformerXLRelativePosition(8, 2),
    lambda: seqlab.nn.positional.DeBERTaRelativePosition(8, 2),
    lambda: seqlab.nn.positional.DARelativePosition(2),
])
def test_transformer_lm_in_float64_converts_the_scheme_it_is_given(make_pos):
    seqlab.manual_seed(0)
    model = seqlab.nn.lm.TransformerLM(10, 8, 2, 1, pos=make_pos(), dtype=seqlab.float64)
    for p in model.parameters():
        assert p.dtype == seqlab.float64
    idx = seqlab.tensor([[1, 2, 3]])
    logits = model(idx)
    assert logits.dtype == seqlab.float64 and list(logits.shape) == [1, 3, 10]
    logits.sum().backward()
    model.eval()
    out = model.generate(idx, max_new_tokens=3, do_sample=False)
    assert list(out.shape) == [1, 6]
    # with the KV cache (the scheme's terms for the new positions only) as without it
    uncached = model.generate(idx, max_new_tokens=3, do_sample=False, use_cache=False)
    assert out.tolist() == uncached.tolist()
    # greedy: the last token is the argmax of a full float64 forward over the tokens before it
    assert model(out[:, :-1])[0, -1].argmax().item() == out[0, -1].item()
    sampled = model.generate(idx, max_new_tokens=2, do_sample=True, seed=3)
    assert sampled.tolist() == model.generate(idx, max_new_tokens=2, do_sample=True, seed=3).tolist()


def test_multihead_attention_converts_a_scheme_to_its_dtype():
    pos = seqlab.nn.positional.T5RelativeBias(2)
    mha = seqlab.nn.MultiheadAttention(8, 2, dtype=seqlab.float64, pos=pos, batch_first=True)
    assert mha.pos.relative_attention_bias.weight.dtype == seqlab.float64
    x = seqlab.randn(1, 3, 8, dtype=seqlab.float64)
    out, _ = mha(x, x, x)
    assert out.dtype == seqlab.float64
    # without dtype the scheme stays as it was made
    pos32 = seqlab.nn.positional.T5RelativeBias(2)
    seqlab.nn.MultiheadAttention(8, 2, pos=pos32)
    assert pos32.relative_attention_bias.weight.dtype == seqlab.float32
