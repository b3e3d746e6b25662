"""kthvalue, median, nanmedian, quantile, nanquantile, mode and msort (seqlab/_order_statistics.py)
against torch: values, dtypes, shapes, indices (equal to torch's where the values are distinct, and
naming an element equal to the value among ties), NaN placement, gradients in float64 and torch's
errors."""
import numpy as np
import pytest
import torch

import seqlab

NAN = float("nan")


def both(a, dtype=np.float64):
    a = np.asarray(a, dtype=dtype)
    return seqlab.tensor(a), torch.tensor(a)


def close(ours, theirs):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12, equal_nan=True)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


def distinct(*shape, seed=0):
    """Values with no ties, so every index is determined."""
    rng = np.random.default_rng(seed)
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64) / 7 - 3


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("shape, dim", [((7,), 0), ((4, 6), 1), ((4, 6), 0), ((3, 4, 5), -1), ((3, 4, 5), 1), ((2, 1), 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_along_a_dim_equals_torch(name, shape, dim, keepdim):
    s, t = both(distinct(*shape))
    ours, theirs = getattr(seqlab, name)(s, dim, keepdim), getattr(torch, name)(t, dim, keepdim)
    close(ours.values, theirs.values)
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    assert type(ours).__name__ == name and ours.indices.dtype == seqlab.int64


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_all_elements_and_its_gradient(name):
    a = distinct(4, 5)
    s = seqlab.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    close(getattr(seqlab, name)(s), getattr(torch, name)(t))
    (getattr(s, name)() * 3).backward()
    (getattr(t, name)() * 3).backward()
    close(s.grad, t.grad)


def test_median_along_a_dim_sends_the_gradient_to_the_chosen_element():
    a = distinct(5, 6)
    s = seqlab.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    w = np.arange(5.0)
    (seqlab.median(s, 1).values * seqlab.tensor(w)).sum().backward()
    (torch.median(t, 1).values * torch.tensor(w)).sum().backward()
    close(s.grad, t.grad)


def test_median_is_the_lower_one_and_ties_name_an_equal_element():
    s, t = both([[1, 1, 1, 2], [3, 1, 2, 1], [2, 2, 5, 5]])
    ours, theirs = seqlab.median(s, 1), torch.median(t, 1)
    close(ours.values, theirs.values)
    picked = np.take_along_axis(s.numpy(), ours.indices.numpy()[:, None], 1)[:, 0]
    np.testing.assert_array_equal(picked, ours.values.numpy())


def test_nan_makes_the_median_nan_and_nanmedian_skips_it():
    rows = [[NAN, 1, 0, 5], [4, NAN, NAN, 1], [NAN, NAN, NAN, NAN], [2, 3, 1, 0]]
    s, t = both(rows)
    for name in ("median", "nanmedian"):
        ours, theirs = getattr(seqlab, name)(s, 1), getattr(torch, name)(t, 1)
        close(ours.values, theirs.values)
        # a row of NaN only: any index names a NaN (torch's nanmedian answers 2 here, its selection's
        # leftover; 0 for a row of 3); elsewhere torch's index (the first NaN for median)
        np.testing.assert_array_equal(np.delete(ours.indices.numpy(), 2), np.delete(theirs.indices.numpy(), 2))
        assert np.isnan(np.array(rows)[2, ours.indices.numpy()[2]])
        close(getattr(seqlab, name)(s), getattr(torch, name)(t))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32])
def test_median_keeps_the_dtype(dtype):
    s, t = both([[5, 3, 9], [1, 7, 2]], dtype)
    close(seqlab.median(s), torch.median(t))
    close(seqlab.median(s, 0).values, torch.median(t, 0).values)
    close(s.median(dim=1, keepdim=True).values, t.median(dim=1, keepdim=True).values)


def test_median_of_empty_and_0d_tensors():
    close(seqlab.median(seqlab.zeros(0)), torch.median(torch.zeros(0)))
    close(seqlab.nanmedian(seqlab.zeros(0, dtype=seqlab.float64)), torch.nanmedian(torch.zeros(0, dtype=torch.float64)))
    close(seqlab.median(seqlab.zeros(0, dtype=seqlab.int64)), torch.median(torch.zeros(0, dtype=torch.int64)))
    close(seqlab.median(seqlab.tensor(3.0), 0).values, torch.median(torch.tensor(3.0), 0).values)
    with pytest.raises(IndexError, match=r"median\(\): Expected reduction dim 1 to have non-zero size"):
        seqlab.median(seqlab.zeros(2, 0), 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        seqlab.median(seqlab.zeros(2, 3), 2)


@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_equals_torch_with_gradient(k, keepdim):
    a = distinct(4, 6, seed=k)
    s = seqlab.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    ours, theirs = seqlab.kthvalue(s, k, 1, keepdim), torch.kthvalue(t, k, 1, keepdim)
    close(ours.values, theirs.values)
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    ours.values.sum().backward()
    theirs.values.sum().backward()
    close(s.grad, t.grad)
    close(s.kthvalue(2, dim=0).values, t.kthvalue(2, dim=0).values)


def test_kthvalue_counts_nan_as_the_largest_and_checks_k():
    s, t = both([[NAN, 1, 0, 5]])
    for k in (1, 3, 4):
        close(seqlab.kthvalue(s, k).values, torch.kthvalue(t, k).values)
    for k in (0, 5):
        with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range for dimension 1"):
            seqlab.kthvalue(s, k)


QS = [0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0]


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("n", [1, 2, 5, 6])
def test_quantile_of_a_vector_equals_torch(interpolation, n):
    s, t = both(distinct(n, seed=n))
    for q in QS:
        close(seqlab.quantile(s, q, interpolation=interpolation), torch.quantile(t, q, interpolation=interpolation))


@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (0, False), (1, True), (-1, False)])
def test_quantile_with_a_q_tensor_along_dims(dim, keepdim):
    s, t = both(distinct(4, 5, seed=1))
    qs, qt = both([0.1, 0.5, 0.95])
    close(seqlab.quantile(s, qs, dim, keepdim), torch.quantile(t, qt, dim, keepdim))
    close(seqlab.quantile(s, 0.3, dim, keepdim), torch.quantile(t, 0.3, dim, keepdim))
    q0s, q0t = both(0.6)
    close(s.quantile(q0s, dim=dim, keepdim=keepdim), t.quantile(q0t, dim=dim, keepdim=keepdim))


def test_quantile_gradient_is_split_between_the_neighbours():
    a = distinct(3, 8, seed=4)
    s = seqlab.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    qs, qt = both([0.3, 0.55])
    (seqlab.quantile(s, qs, dim=1) ** 2).sum().backward()
    (torch.quantile(t, qt, dim=1) ** 2).sum().backward()
    close(s.grad, t.grad)
    assert seqlab.autograd.gradcheck(lambda x: seqlab.quantile(x, 0.37, dim=0), (seqlab.tensor(a, requires_grad=True),))


def test_quantile_in_float32():
    s, t = both(distinct(6, 7, seed=2), np.float32)
    ours, theirs = seqlab.quantile(s, 0.4, dim=1), torch.quantile(t, 0.4, dim=1)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    assert ours.dtype == seqlab.float32


def test_nan_in_quantile_and_nanquantile():
    rows = [[NAN, 1, 0, 5], [4, NAN, NAN, 1], [NAN, NAN, NAN, NAN], [2, 3, 1, 0]]
    s, t = both(rows)
    for q in (0.0, 0.5, 0.8):
        close(seqlab.quantile(s, q, dim=1), torch.quantile(t, q, dim=1))
        close(seqlab.nanquantile(s, q, dim=1), torch.nanquantile(t, q, dim=1))
        close(seqlab.nanquantile(s, q), torch.nanquantile(t, q))
        close(s.nanquantile(q, dim=0, keepdim=True), t.nanquantile(q, dim=0, keepdim=True))


@pytest.mark.parametrize("call, message", [
    (lambda m: m.quantile(m.tensor([1, 2]), 0.5), "quantile() input tensor must be either float or double dtype"),
    (lambda m: m.quantile(m.tensor([1.0, 2.0]), 1.5), "quantile() q must be in the range [0, 1] but got 1.5"),
    (lambda m: m.quantile(m.tensor([1.0, 2.0]), -0.1), "quantile() q must be in the range [0, 1] but got -0.1"),
    (lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([0.5], dtype=m.float64)),
     "quantile() q tensor must be same dtype as the input tensor"),
    (lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([[0.5]])), "quantile() q must be a scalar or 1D tensor"),
    (lambda m: m.quantile(m.zeros(0), 0.5), "quantile() input tensor must be non-empty"),
    (lambda m: m.quantile(m.tensor([1.0, 2.0]), 0.5, interpolation="foo"),
     "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got foo"),
    (lambda m: m.nanquantile(m.tensor([1, 2]), 0.5), "quantile() input tensor must be either float or double"),
    (lambda m: m.nanquantile(m.tensor([1.0, 2.0]), 2.0), "quantile() q must be in the range [0, 1] but got 2"),
])
def test_quantile_errors_are_torchs(call, message):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    assert message in str(theirs.value)
    with pytest.raises(RuntimeError, match=None) as ours:
        call(seqlab)
    assert message in str(ours.value)


@pytest.mark.parametrize("rows", [[[1, 2, 2, 1, 3]], [[2, 2, 1, 1]], [[5, 4, 3]], [[7, 7, 7]], [[1, 2, 2, 3, 3, 0, 0]]])
def test_mode_is_the_smallest_most_frequent_value_at_its_last_occurrence(rows):
    s, t = both(rows, np.int64)
    ours, theirs = seqlab.mode(s), torch.mode(t)
    close(ours.values, theirs.values)
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    assert type(ours).__name__ == "mode"


def test_mode_along_a_dim_with_keepdim_and_gradient():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, size=(3, 9, 2)).astype(np.float64)
    s = seqlab.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    for dim, keepdim in ((1, False), (0, True), (-1, True)):
        ours, theirs = s.mode(dim, keepdim), t.mode(dim, keepdim)
        close(ours.values, theirs.values)
        np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    seqlab.mode(s, 1).values.sum().backward()
    torch.mode(t, 1).values.sum().backward()
    close(s.grad, t.grad)
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1 to have non-zero size"):
        seqlab.mode(seqlab.zeros(2, 0), 1)


def test_msort_sorts_along_the_first_dim():
    s, t = both([[3, NAN, 1], [1, 2, NAN], [2, 0, 0]])
    close(seqlab.msort(s), torch.msort(t))
    close(s.msort(), t.msort())


@pytest.mark.parametrize("values, q, interpolation", [
    ([1.0, float("inf")], 1.0, "higher"), ([-float("inf"), 1.0], 0.0, "lower"),
    ([1.0, float("inf"), float("inf")], 0.5, "nearest"), ([1.0, float("inf"), 3.0], 0.5, "linear"),
    ([1.0, float("inf"), 3.0], 1.0, "midpoint"), ([-float("inf"), 2.0, 5.0], 0.25, "linear"),
    ([1.0, float("inf")], 1.0, "linear"), ([-float("inf"), 2.0, 5.0], 0.75, "linear"),
])
def test_quantile_with_infinite_values_equals_torch(values, q, interpolation):
    # lower / higher / nearest give the element itself; linear and midpoint are torch's lerp, NaN
    # where it is (inf and inf at weight 0 or 0.5)
    s, t = both(values)
    close(seqlab.quantile(s, q, interpolation=interpolation), torch.quantile(t, q, interpolation=interpolation))
    close(seqlab.nanquantile(s, q, interpolation=interpolation), torch.nanquantile(t, q, interpolation=interpolation))


def test_mode_counts_nan_as_one_value_the_largest():
    # torch's answer with NaN follows its sort's undefined order for NaN; seqlab's is documented
    s = seqlab.tensor([[NAN, 1.0, NAN, 1.0], [NAN, NAN, 1.0, 2.0]])
    out = seqlab.mode(s, 1)
    np.testing.assert_array_equal(out.values.numpy(), [1.0, NAN])
    np.testing.assert_array_equal(out.indices.numpy(), [3, 1])
