"""seqlab.nn.utils.rnn against torch.nn.utils.rnn: the same call on the same data in both
libraries; packed data, batch_sizes, sorted/unsorted indices, padded results and lengths
must be equal, and so must the gradient of a random weighted sum of the result with respect
to every input. Then PackedSequence as a value (construction, namedtuple behaviour, .to),
and bad input (torch's exception type and wording).
"""
import numpy as np
import pytest
import torch
import torch.nn.utils.rnn as th_rnn

import seqlab
import seqlab.nn.utils.rnn as sl_rnn
from seqlab.nn.utils.rnn import PackedSequence, pack_padded_sequence  # the torch-style import works
from conftest import DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_raises_like_torch, sl_leaf, th_leaf, tol

FEATURES = [(), (3,), (2, 3)]
FEATURE_IDS = ["scalar", "vec", "mat"]


def _outputs(result):
    """The tensors of a result (PackedSequence, tuple, list or tensor), in order; None kept."""
    if isinstance(result, (tuple, list)):  # PackedSequence is a tuple too
        return [t for r in result for t in _outputs(r)]
    return [result]


def _np(t):
    return None if t is None else t.detach().numpy()


def compare(fn, arrays, rng, dtype=np.float32, lengths_as=None):
    """fn(rnn_module, lib, leaves) in both libraries; every output equal (integer outputs
    exactly, in dtype too), then the gradients of sum(output * w) over the float outputs."""
    atol, rtol = tol(dtype)
    sl_in = [sl_leaf(a) for a in arrays]
    th_in = [th_leaf(a) for a in arrays]
    sl_out = _outputs(fn(sl_rnn, seqlab, sl_in))
    th_out = _outputs(fn(th_rnn, torch, th_in))
    assert len(sl_out) == len(th_out)
    sl_loss, th_loss = None, None
    for i, (s, t) in enumerate(zip(sl_out, th_out)):
        if t is None:
            assert s is None, f"output {i}: torch has None"
            continue
        assert tuple(s.shape) == tuple(t.shape), f"output {i}: {tuple(s.shape)} vs {tuple(t.shape)}"
        assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], f"output {i}: {s.dtype} vs {t.dtype}"
        if t.is_floating_point():
            assert_close(_np(s), _np(t), atol, rtol, f"output {i}")
            if t.requires_grad:
                w = rng.standard_normal(tuple(t.shape)).astype(dtype)
                sl_term, th_term = (s * seqlab.tensor(w)).sum(), (t * torch.from_numpy(w)).sum()
                sl_loss = sl_term if sl_loss is None else sl_loss + sl_term
                th_loss = th_term if th_loss is None else th_loss + th_term
        else:
            np.testing.assert_array_equal(_np(s), _np(t), err_msg=f"output {i}")
    if th_loss is not None:
        th_loss.backward()
        sl_loss.backward()
        for i, (s, t) in enumerate(zip(sl_in, th_in)):
            assert t.grad is not None and s.grad is not None, f"input {i} got no gradient"
            assert_close(_np(s.grad), _np(t.grad), atol, rtol, f"grad of input {i}")
    return sl_out


def padded_batch(rng, lengths, feature, batch_first, dtype):
    """A (T, B, *) or (B, T, *) batch, values everywhere (padding too: packing must skip it)."""
    T, B = max(lengths), len(lengths)
    shape = (B, T) + feature if batch_first else (T, B) + feature
    return rng.standard_normal(shape).astype(dtype)


# ------------------------------------------------------------------ pack_padded_sequence
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("feature", FEATURES, ids=FEATURE_IDS)
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_major", "batch_first"])
@pytest.mark.parametrize("enforce_sorted", [True, False], ids=["sorted", "unsorted"])
def test_pack_padded_sequence(rng, dtype, feature, batch_first, enforce_sorted):
    lengths = [6, 4, 4, 2, 1] if enforce_sorted else [2, 6, 1, 4, 4]
    x = padded_batch(rng, lengths, feature, batch_first, dtype)
    packed = compare(lambda R, lib, a: R.pack_padded_sequence(a[0], lengths, batch_first, enforce_sorted),
                     [x], rng, dtype)
    assert packed[1].tolist() == [5, 4, 3, 3, 1, 1]


@pytest.mark.parametrize("lengths_kind", ["list", "tensor", "float_tensor", "tuple"])
def test_pack_padded_sequence_lengths_types(rng, lengths_kind):
    lengths = [3, 5, 1]
    x = padded_batch(rng, lengths, (2,), False, np.float32)

    def make(lib):
        return {"list": list(lengths), "tuple": tuple(lengths), "tensor": lib.tensor(lengths),
                "float_tensor": lib.tensor(lengths, dtype=lib.float64)}[lengths_kind]

    compare(lambda R, lib, a: R.pack_padded_sequence(a[0], make(lib), enforce_sorted=False), [x], rng)


def test_pack_padded_sequence_is_one_index_op(rng):
    """Packing is one graph node (an index of the input) whatever the sequence length."""
    for T in (3, 300):
        x = seqlab.randn(T, 4, 2, requires_grad=True)
        packed = pack_padded_sequence(x.tanh(), [T, T - 1, 2, 1], enforce_sorted=False)
        node = packed.data.grad_fn
        assert node.name() == "IndexBackward0"  # seqlab's index_select is its index op
        assert node.next_functions[0][0].name() == "ViewBackward0"  # flatten(0, 1) of tanh's output
        assert node.next_functions[0][0].next_functions[0][0].name() == "TanhBackward0"


def test_pack_integer_labels():
    """Packing int64 targets (torch's note: pack the labels too); padding keeps the dtype."""
    y = np.arange(12, dtype=np.int64).reshape(4, 3)
    compare(lambda R, lib, a: R.pad_packed_sequence(R.pack_padded_sequence(a[0], [4, 2, 1]), padding_value=-1.5),
            [y], np.random.default_rng(0))


def test_ties_keep_torch_order_for_small_batches(rng):
    """Equal lengths: torch's CPU sort is stable up to 16 elements, and so is seqlab's order."""
    lengths = [3, 5, 3, 1, 5, 3, 2, 5, 1, 1, 4, 4, 2, 5, 3, 3]
    x = padded_batch(rng, lengths, (2,), True, np.float64)
    compare(lambda R, lib, a: R.pack_padded_sequence(a[0], lengths, True, enforce_sorted=False), [x], rng, np.float64)


def test_ties_in_large_batches_round_trip_as_torch(rng):
    """Above 16 sequences torch's sort is unstable, so among equal lengths the packed order
    may differ from torch's (seqlab keeps the original order); batch_sizes, the sorted
    lengths and everything padded back are still torch's."""
    lengths = rng.integers(1, 6, size=40).tolist()
    x = padded_batch(rng, lengths, (3,), False, np.float32)

    def fn(R, lib, a):
        packed = R.pack_padded_sequence(a[0], lengths, enforce_sorted=False)
        padded, lens = R.pad_packed_sequence(packed, total_length=7)
        return packed.batch_sizes, lengths_sorted(lib, packed), padded, lens

    def lengths_sorted(lib, packed):
        return lib.tensor(lengths)[packed.sorted_indices]

    compare(fn, [x], rng)
    packed = sl_rnn.pack_padded_sequence(seqlab.tensor(x), lengths, enforce_sorted=False)
    order = packed.sorted_indices.tolist()
    assert order == sorted(range(40), key=lambda b: -lengths[b])  # stable


# ------------------------------------------------------------------ pad_packed_sequence
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("feature", FEATURES, ids=FEATURE_IDS)
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_major", "batch_first"])
@pytest.mark.parametrize("enforce_sorted", [True, False], ids=["sorted", "unsorted"])
@pytest.mark.parametrize("total_length", [None, 9])
def test_pack_then_pad(rng, dtype, feature, batch_first, enforce_sorted, total_length):
    lengths = [5, 5, 3, 1] if enforce_sorted else [3, 1, 5, 5]
    x = padded_batch(rng, lengths, feature, batch_first, dtype)

    def fn(R, lib, a):
        packed = R.pack_padded_sequence(a[0], lengths, batch_first, enforce_sorted)
        return R.pad_packed_sequence(packed, batch_first, padding_value=0.25, total_length=total_length)

    padded, lens = compare(fn, [x], rng, dtype)
    assert lens.tolist() == lengths


@pytest.mark.parametrize("batch_first", [False, True], ids=["time_major", "batch_first"])
def test_pad_packed_sequence_from_data(rng, batch_first):
    """A PackedSequence built by hand from a leaf (as an RNN's output is): padding it gives
    the data's gradient."""
    batch_sizes = np.array([4, 3, 3, 1], dtype=np.int64)
    data = rng.standard_normal((batch_sizes.sum(), 2)).astype(np.float64)
    perm = np.array([2, 0, 3, 1], dtype=np.int64)

    def fn(R, lib, a):
        packed = R.PackedSequence(a[0], lib.tensor(batch_sizes), lib.tensor(perm))
        return R.pad_packed_sequence(packed, batch_first=batch_first, padding_value=-3.0)

    compare(fn, [data], rng, np.float64)


# ------------------------------------------------------------------ pad_sequence and friends
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("feature", FEATURES, ids=FEATURE_IDS)
@pytest.mark.parametrize("batch_first", [False, True], ids=["time_major", "batch_first"])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(rng, dtype, feature, batch_first, padding_side):
    seqs = [rng.standard_normal((n,) + feature).astype(dtype) for n in (2, 5, 1, 5, 3)]
    compare(lambda R, lib, a: R.pad_sequence(a, batch_first, padding_value=7.0, padding_side=padding_side),
            seqs, rng, dtype)


def test_pad_sequence_defaults_and_tensor_input(rng):
    seqs = [rng.standard_normal((n, 2)).astype(np.float32) for n in (3, 1)]
    compare(lambda R, lib, a: R.pad_sequence(a), seqs, rng)
    same = rng.standard_normal((3, 4, 2)).astype(np.float32)  # a tensor iterates over dim 0
    compare(lambda R, lib, a: R.pad_sequence(a[0], batch_first=True), [same], rng)


@pytest.mark.parametrize("enforce_sorted", [True, False], ids=["sorted", "unsorted"])
def test_pack_sequence_and_unpack_sequence(rng, enforce_sorted):
    sizes = (6, 4, 4, 1) if enforce_sorted else (4, 6, 1, 4)
    seqs = [rng.standard_normal((n, 3)).astype(np.float32) for n in sizes]
    compare(lambda R, lib, a: R.pack_sequence(a, enforce_sorted), seqs, rng)
    back = compare(lambda R, lib, a: R.unpack_sequence(R.pack_sequence(a, enforce_sorted)), seqs, rng)
    for s, original in zip(back, seqs):
        np.testing.assert_array_equal(s.detach().numpy(), original)


@pytest.mark.parametrize("batch_first", [False, True], ids=["time_major", "batch_first"])
def test_unpad_sequence(rng, batch_first):
    lengths = [2, 5, 3]
    x = padded_batch(rng, lengths, (2,), batch_first, np.float32)
    # torch transposes a time-major input in place: give it its own copy
    compare(lambda R, lib, a: R.unpad_sequence(a[0] * 1, lib.tensor(lengths), batch_first), [x], rng)


def test_invert_permutation():
    perm = [3, 0, 2, 1]
    assert sl_rnn.invert_permutation(seqlab.tensor(perm)).tolist() == \
        th_rnn.invert_permutation(torch.tensor(perm)).tolist()
    assert sl_rnn.invert_permutation(None) is None


def test_h0_follows_the_sort_as_in_torchs_layers(rng):
    """What the fused layers do with a PackedSequence's indices: h0 (L, B, H) into sorted
    order, h_n back to the original order."""
    h0 = rng.standard_normal((2, 4, 3)).astype(np.float32)
    x = padded_batch(rng, [2, 4, 1, 3], (3,), False, np.float32)

    def fn(R, lib, a):
        packed = R.pack_padded_sequence(a[1], [2, 4, 1, 3], enforce_sorted=False)
        hx = a[0].index_select(1, packed.sorted_indices)
        return packed, hx, hx.index_select(1, packed.unsorted_indices)

    *_, back = compare(fn, [h0, x], rng)
    np.testing.assert_array_equal(back.detach().numpy(), h0)


# ------------------------------------------------------------------ PackedSequence as a value
def _packed(lib, R, unsorted=True):
    data = lib.arange(12, dtype=lib.float32).view(6, 2)
    return R.PackedSequence(data, lib.tensor([3, 2, 1]), lib.tensor([2, 0, 1]) if unsorted else None)


def test_packed_sequence_construction():
    data, bs, si = seqlab.arange(12.0).view(6, 2), seqlab.tensor([3, 2, 1]), seqlab.tensor([2, 0, 1])
    by_position = PackedSequence(data, bs, si)
    by_keyword = PackedSequence(data=data, batch_sizes=bs, sorted_indices=si)
    from_pair = PackedSequence((data, bs))
    four = PackedSequence(data, bs, si, seqlab.tensor([1, 2, 0]))
    for p in (by_position, by_keyword, four):
        assert p.data is data and p.batch_sizes is bs and p.sorted_indices is si
        assert p.unsorted_indices.tolist() == [1, 2, 0]  # computed as torch computes it
    assert from_pair.sorted_indices is None and from_pair.unsorted_indices is None
    th = _packed(torch, th_rnn)
    assert _packed(seqlab, sl_rnn).unsorted_indices.tolist() == th.unsorted_indices.tolist()


def test_packed_sequence_is_a_namedtuple():
    sl, th = _packed(seqlab, sl_rnn), _packed(torch, th_rnn)
    assert sl._fields == th._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert isinstance(sl, tuple) and len(sl) == len(th) == 4
    data, batch_sizes, sorted_indices, unsorted_indices = sl
    assert data is sl.data and sl[1] is sl.batch_sizes and unsorted_indices is sl.unsorted_indices
    assert list(sl._asdict()) == list(th._asdict())
    doubled = sl._replace(data=sl.data * 2)
    assert type(doubled) is PackedSequence and doubled.data.tolist() == (th.data * 2).tolist()
    assert repr(sl).startswith("PackedSequence(data=tensor([[ 0.,  1.],") and repr(th).startswith(
        "PackedSequence(data=tensor([[ 0.,  1.],")
    assert repr(sl).endswith("batch_sizes=tensor([3, 2, 1]), sorted_indices=tensor([2, 0, 1]), "
                             "unsorted_indices=tensor([1, 2, 0]))")
    with pytest.raises(AttributeError):
        sl.data = None  # immutable, as torch's


@pytest.mark.parametrize("convert", ["double", "float", "long", "to_dtype", "to_kw", "to_same", "cpu"])
def test_packed_sequence_conversions(convert):
    def run(lib, R):
        p = _packed(lib, R)
        out = {"double": lambda: p.double(), "float": lambda: p.float(), "long": lambda: p.long(),
               "to_dtype": lambda: p.to(lib.float64), "to_kw": lambda: p.to(dtype=lib.float64),
               "to_same": lambda: p.to(lib.float32), "cpu": lambda: p.cpu()}[convert]()
        return p, out

    (sp, so), (tp, to) = run(seqlab, sl_rnn), run(torch, th_rnn)
    assert (so is sp) == (to is tp)
    assert str(so.data.dtype).split(".")[-1] == str(to.data.dtype).split(".")[-1]
    assert type(so) is PackedSequence and so.data.tolist() == to.data.tolist()
    assert so.batch_sizes is sp.batch_sizes and so.sorted_indices.tolist() == to.sorted_indices.tolist()
    assert so.unsorted_indices.tolist() == to.unsorted_indices.tolist()
    assert sp.is_cuda is tp.is_cuda is False


def test_nn_utils_is_a_package():
    import seqlab.nn as nn

    assert nn.utils.rnn.pad_sequence is sl_rnn.pad_sequence
    assert sorted(sl_rnn.__all__) == sorted(th_rnn.__all__)
    assert callable(nn.utils.clip_grad_norm_) and callable(nn.utils.clip_grad_value_)


# ------------------------------------------------------------------ bad input
x432 = np.random.default_rng(0).standard_normal((4, 3, 2)).astype(np.float32)


def both(fn):
    """fn(R, lib) as two zero-argument calls for assert_raises_like_torch."""
    return (lambda: fn(sl_rnn, seqlab)), (lambda: fn(th_rnn, torch))


@pytest.mark.parametrize("lengths, kwargs, fragments", [
    ([2, 3, 1], {}, ["`lengths` array must be sorted in decreasing order when `enforce_sorted` is True",
                     "enforce_sorted=False"]),
    ([3, 2, 0], {}, ["Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"]),
    ([3, 0, 1], {}, ["must be sorted in decreasing order"]),  # torch checks the last length first
    ([3, -1, 1], {"enforce_sorted": False}, ["has to be greater than 0"]),
    ([3, 2], {}, [r"Expected `len\(lengths\)` to be equal to batch_size, but got 2 \(batch_size=3\)"]),
    ([3, 2, 1, 1], {}, [r"but got 4 \(batch_size=3\)"]),
    ([3, 2, 1], {"batch_first": True}, [r"but got 3 \(batch_size=4\)"]),
    ([[3, 2, 1]], {}, ["'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"]),
])
def test_pack_padded_sequence_errors(lengths, kwargs, fragments):
    assert_raises_like_torch(*both(lambda R, lib: R.pack_padded_sequence(lib.tensor(x432), lengths, **kwargs)),
                             *fragments)


def test_pack_padded_sequence_bad_input_tensors():
    assert_raises_like_torch(*both(lambda R, lib: R.pack_padded_sequence(lib.randn(4), [3])), "Dimension out of range")
    assert_raises_like_torch(*both(lambda R, lib: R.pack_padded_sequence(lib.randn(0, 3, 2), [1, 1, 1])),
                             "Cannot pack empty tensors")


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_lengths_longer_than_the_sequence(enforce_sorted):
    """torch does not check this (it packs rows from past the input's end, pytorch issue
    #110553's family); seqlab refuses, naming the length and the sequence length."""
    lengths = [5, 3, 1] if enforce_sorted else [3, 5, 1]
    with pytest.raises(RuntimeError, match="found a length of 5 in 'lengths', longer than the input's sequence "
                                           "length 4"):
        sl_rnn.pack_padded_sequence(seqlab.tensor(x432), lengths, enforce_sorted=enforce_sorted)
    with pytest.raises(RuntimeError, match="length 3"):
        sl_rnn.pack_padded_sequence(seqlab.tensor(x432), [4, 3, 2, 1], batch_first=True)
    with pytest.raises(RuntimeError, match="longer than the input's sequence length 2"):
        sl_rnn.pack_padded_sequence(seqlab.randn(2, 2), [3, 1])


def test_pad_packed_sequence_total_length_too_short():
    assert_raises_like_torch(
        *both(lambda R, lib: R.pad_packed_sequence(R.pack_padded_sequence(lib.tensor(x432), [4, 2, 1]),
                                                   total_length=3)),
        r"Expected total_length to be at least the length of the longest sequence in input, but got "
        r"total_length=3 and max sequence length being 4")


@pytest.mark.parametrize("case, fragments", [
    ("empty", ["received an empty list of sequences"]),
    ("not_iterable", ["pad_sequence: Expected iterable for input sequences, but got arg of type: <class 'int'>"]),
    ("side", ["Expected padding_side to be one of left or right, but got middle."]),
    ("trailing", [r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1"]),
])
def test_pad_sequence_errors(case, fragments):
    def fn(R, lib):
        args = {"empty": ([],), "not_iterable": (5,), "side": ([lib.randn(2)], False, 0.0, "middle"),
                "trailing": ([lib.randn(2, 3), lib.randn(2, 4)],)}[case]
        return R.pad_sequence(*args)

    assert_raises_like_torch(*both(fn), *fragments)


def test_pack_sequence_unsorted_needs_enforce_sorted_false():
    assert_raises_like_torch(*both(lambda R, lib: R.pack_sequence([lib.randn(2), lib.randn(3)])),
                             "must be sorted in decreasing order")


def test_packed_sequence_from_a_bad_pair():
    assert_raises_like_torch(*both(lambda R, lib: R.PackedSequence(lib.randn(3))),
                             "Expected data to be a list or tuple of length 2")
