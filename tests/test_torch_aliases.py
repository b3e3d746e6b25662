"""torch's aliases, in-place forms and small Tensor facts against torch 2.13: values and dtypes in
float32 and float64, every gradient (float64 gradcheck for the compositions), broadcasting,
non-contiguous and size-0 inputs, and torch's errors. Covers python/seqlab/_aliases.py,
_inplace_forms.py, _tensor_surface.py."""
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import (FLOAT_DTYPES, DTYPE_IDS, assert_gradcheck, assert_matches_torch, assert_raises_like_torch,
                      away_from_zero, randn, sl_np, th_np)

LAYOUTS = ["contig", "T", "slice"]


# ------------------------------------------------------------------ aliases
BINARY_ALIASES = ["multiply", "subtract", "greater", "greater_equal", "less", "less_equal", "not_equal", "divide"]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", BINARY_ALIASES)
def test_binary_aliases_match_torch(rng, name, dtype, layout):
    a, b = away_from_zero(rng, (3, 4), dtype), away_from_zero(rng, (3, 4), dtype)
    assert_matches_torch(lambda x, y: getattr(seqlab, name)(x, y), lambda x, y: getattr(torch, name)(x, y), [a, b],
                         layout=layout)
    assert_matches_torch(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), [a, b[0]])  # broadcast


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["absolute", "fix", "positive", "ravel"])
def test_unary_aliases_match_torch(rng, name, dtype):
    a = away_from_zero(rng, (3, 4), dtype) * 3
    for layout in LAYOUTS:
        assert_matches_torch(lambda x: getattr(seqlab, name)(x), lambda x: getattr(torch, name)(x), [a], layout=layout)
        assert_matches_torch(lambda x: getattr(x, name)(), lambda x: getattr(x, name)(), [a], layout=layout)
    assert_matches_torch(lambda x: getattr(seqlab, name)(x), lambda x: getattr(torch, name)(x), [a[:0]])
    assert_raises_like_torch(lambda: seqlab.positive(seqlab.tensor([True])),
                             lambda: torch.positive(torch.tensor([True])), "on a bool tensor is not supported")


@pytest.mark.parametrize("rounding_mode", [None, "trunc", "floor"])
def test_div_rounding_modes_match_torch(rng, rounding_mode):
    a, b = away_from_zero(rng, (4, 5), np.float64) * 7, away_from_zero(rng, (5,), np.float64)
    for fn in (lambda m: m.div, lambda m: m.divide):
        assert_matches_torch(lambda x, y: fn(seqlab)(x, y, rounding_mode=rounding_mode),
                             lambda x, y: fn(torch)(x, y, rounding_mode=rounding_mode), [a, b])
    ints = np.array([7, -7, 6, -6, 0, 5], dtype=np.int64)
    for other in (2, -2, 2.5, np.array([2, -3, 4, -4, 1, 2], dtype=np.int64)):
        s_other = seqlab.tensor(other) if isinstance(other, np.ndarray) else other
        t_other = torch.tensor(other) if isinstance(other, np.ndarray) else other
        got = seqlab.div(seqlab.tensor(ints), s_other, rounding_mode=rounding_mode)
        want = torch.div(torch.tensor(ints), t_other, rounding_mode=rounding_mode)
        assert str(got.dtype)[7:] == str(want.dtype)[6:] and got.tolist() == want.tolist(), other
        got_ = seqlab.tensor(ints.astype(np.float32)).div_(s_other, rounding_mode=rounding_mode)
        want_ = torch.tensor(ints.astype(np.float32)).div_(t_other, rounding_mode=rounding_mode)
        assert got_.tolist() == want_.tolist()
    assert_raises_like_torch(lambda: seqlab.div(seqlab.ones(2), 2, rounding_mode="x"),
                             lambda: torch.div(torch.ones(2), 2, rounding_mode="x"),
                             "expected rounding_mode to be one of")
    assert_raises_like_torch(lambda: seqlab.tensor([1, 2]).div_(2), lambda: torch.tensor([1, 2]).div_(2),
                             "result type Float can't be cast to the desired output type Long")


def test_integer_trunc_division_by_zero_is_torchs_error():
    assert_raises_like_torch(lambda: seqlab.div(seqlab.tensor([7]), 0, rounding_mode="trunc"),
                             lambda: torch.div(torch.tensor([7]), 0, rounding_mode="trunc"), "ZeroDivisionError")


def test_split_and_concatenate_aliases(rng):
    a = randn(rng, (3, 5), np.float64)
    for name, args in (("split_with_sizes", ([1, 4], 1)), ("unsafe_split_with_sizes", ([2, 1],)),
                       ("unsafe_split", (2, 1)), ("unsafe_chunk", (2, 0))):
        assert_matches_torch(lambda x: getattr(seqlab, name)(x, *args), lambda x: getattr(torch, name)(x, *args), [a])
        assert_matches_torch(lambda x: getattr(x, name)(*args), lambda x: getattr(x, name)(*args), [a])
    assert_raises_like_torch(lambda: seqlab.split_with_sizes(seqlab.ones(3), [1, 1]),
                             lambda: torch.split_with_sizes(torch.ones(3), [1, 1]),
                             "split_with_sizes expects split_sizes")
    b = randn(rng, (2, 5), np.float64)
    assert_matches_torch(lambda x, y: seqlab.concatenate([x, y], axis=0),
                         lambda x, y: torch.concatenate([x, y], axis=0), [a, b])
    assert_matches_torch(lambda x, y: seqlab.concatenate((x, y), dim=0), lambda x, y: torch.concatenate((x, y), dim=0),
                         [a, b])
    assert_matches_torch(lambda x, y: seqlab.row_stack([x, y]), lambda x, y: torch.row_stack([x, y]), [a, b])
    assert_matches_torch(lambda x, y: x.reshape_as(y), lambda x, y: x.reshape_as(y), [a, randn(rng, (5, 3))],
                         layout="T")


def test_range_is_inclusive_and_deprecated():
    for args, kwargs in (((1, 4), {}), ((1, 4, 0.5), {}), ((0, 1, 0.1), {}), ((5, 1, -1), {}),
                         ((0, 3), {"dtype": seqlab.int64}), ((0, 2.5, 0.5), {"dtype": seqlab.float64})):
        tkw = {k: getattr(torch, str(v)[7:]) for k, v in kwargs.items()}
        with pytest.warns(UserWarning, match="range is deprecated"):
            got = seqlab.range(*args, **kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = torch.range(*args, **tkw)
        np.testing.assert_allclose(sl_np(got), th_np(want), rtol=1e-6)
        assert str(got.dtype)[7:] == str(want.dtype)[6:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_raises_like_torch(lambda: seqlab.range(0, 3, 0), lambda: torch.range(0, 3, 0), "step must be nonzero")


# ------------------------------------------------------------------ small facts
def test_tensor_facts_match_torch(rng):
    for dtype in ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"):
        s, t = seqlab.zeros(2, 3, dtype=getattr(seqlab, dtype)), torch.zeros(2, 3, dtype=getattr(torch, dtype))
        assert (s.itemsize, s.nbytes) == (t.itemsize, t.nbytes)
        for fn in ("is_floating_point", "is_signed"):
            assert getattr(seqlab, fn)(s) == getattr(torch, fn)(t) == getattr(s, fn)() == getattr(t, fn)()
    s, t = seqlab.ones(2, 3), torch.ones(2, 3)
    assert (s.get_device(), seqlab.get_device(s), s.is_meta, s.is_quantized, s.output_nr) == \
        (t.get_device(), torch.get_device(t), t.is_meta, t.is_quantized, t.output_nr)
    assert seqlab.is_same_size(s, seqlab.ones(2, 3)) and not s.is_same_size(seqlab.ones(3, 2))
    assert not seqlab.is_inference(s) and not s.is_inference()
    assert seqlab.is_nonzero(seqlab.tensor([2.0])) and not seqlab.tensor(0).is_nonzero()
    for bad in ([1.0, 2.0], []):
        assert_raises_like_torch(lambda: seqlab.is_nonzero(seqlab.tensor(bad)),
                                 lambda: torch.is_nonzero(torch.tensor(bad)), "Boolean value of Tensor")
    assert s.equal(seqlab.ones(2, 3)) and s.allclose(s + 1e-9) and not s.allclose(s + 1)
    a = randn(rng, (2, 3, 4), np.float64)
    for attr in ("mT", "mH"):
        assert_matches_torch(lambda x: getattr(x, attr), lambda x: getattr(x, attr), [a])
    assert_matches_torch(lambda x: x.H, lambda x: x.H, [a[0]], layout="T")
    assert_matches_torch(lambda x: seqlab.adjoint(x), lambda x: torch.adjoint(x), [a])
    assert_matches_torch(lambda x: x.adjoint(), lambda x: x.adjoint(), [a])
    assert_raises_like_torch(lambda: seqlab.ones(3).mT, lambda: torch.ones(3).mT, "only supported on matrices")
    assert_raises_like_torch(lambda: seqlab.ones(2, 2, 2).H, lambda: torch.ones(2, 2, 2).H,
                             "only supported on matrices")


# ------------------------------------------------------------------ in-place methods
UNARY_IN_PLACE = ["abs_", "absolute_", "exp_", "neg_", "negative_", "sigmoid_", "tanh_", "fix_", "reciprocal_",
                  "square_"]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", UNARY_IN_PLACE + ["sqrt_", "log_"])
def test_unary_in_place_methods_match_torch(rng, name, dtype):
    a = away_from_zero(rng, (3, 4), dtype)
    if name in ("sqrt_", "log_"):
        a = np.abs(a)
    # on a non-leaf, so the gradient flows through the in-place op into the leaf
    assert_matches_torch(lambda x: getattr(x * 1, name)(), lambda x: getattr(x * 1, name)(), [a])
    assert_matches_torch(lambda x: getattr(x * 1, name)(), lambda x: getattr(x * 1, name)(), [a[:0]])
    # a non-contiguous tensor is written through its view
    s, t = seqlab.tensor(a), torch.tensor(a)
    getattr(s.t(), name)()
    getattr(t.t(), name)()
    np.testing.assert_allclose(sl_np(s), th_np(t), rtol=1e-6)
    # the function form writes into its argument and returns it
    if hasattr(torch, name):
        s, t = seqlab.tensor(a), torch.tensor(a)
        assert getattr(seqlab, name)(s) is s
        getattr(torch, name)(t)
        np.testing.assert_allclose(sl_np(s), th_np(t), rtol=1e-6)


@pytest.mark.parametrize("name", UNARY_IN_PLACE)
def test_in_place_refusals_match_torch(name):
    assert_raises_like_torch(lambda: getattr(seqlab.ones(2, requires_grad=True), name)(),
                             lambda: getattr(torch.ones(2, requires_grad=True), name)(),
                             "a leaf Variable that requires grad is being used in an in-place operation")


def test_in_place_results_an_integer_tensor_cannot_hold_are_torchs_error():
    for name in ("sqrt_", "exp_", "reciprocal_", "sigmoid_", "log_"):
        assert_raises_like_torch(lambda: getattr(seqlab.tensor([1, 2]), name)(),
                                 lambda: getattr(torch.tensor([1, 2]), name)(),
                                 "result type Float can't be cast to the desired output type Long")
    for name, want in (("abs_", [1, 2]), ("neg_", [-1, 2]), ("square_", [1, 4]), ("pow_", None)):
        s, t = seqlab.tensor([-1, -2 if name == "abs_" else 2]), torch.tensor([-1, -2 if name == "abs_" else 2])
        args = (3,) if name == "pow_" else ()
        assert getattr(s, name)(*args).tolist() == getattr(t, name)(*args).tolist()


@pytest.mark.parametrize("name", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_",
                                  "less_equal_", "not_equal_", "logical_and_", "logical_or_", "logical_xor_"])
def test_comparisons_in_place_keep_the_tensors_dtype(rng, name):
    a = rng.integers(-2, 3, size=(3, 4)).astype(np.float32)
    b = rng.integers(-2, 3, size=(4,)).astype(np.float32)
    for dtype in (np.float32, np.float64, np.int64):
        s, t = seqlab.tensor(a.astype(dtype)), torch.tensor(a.astype(dtype))
        getattr(s, name)(seqlab.tensor(b.astype(dtype)))
        getattr(t, name)(torch.tensor(b.astype(dtype)))
        assert sl_np(s).dtype == th_np(t).dtype and np.array_equal(sl_np(s), th_np(t))
    s, t = seqlab.tensor(a), torch.tensor(a)
    assert s.logical_not_().tolist() == t.logical_not_().tolist()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_binary_in_place_methods_match_torch(rng, dtype):
    a, b = away_from_zero(rng, (3, 4), dtype), away_from_zero(rng, (4,), dtype)
    for name in ("multiply_", "subtract_", "true_divide_", "divide_", "pow_"):
        first = np.abs(a) if name == "pow_" else a
        assert_matches_torch(lambda x, y: getattr(x * 1, name)(y), lambda x, y: getattr(x * 1, name)(y), [first, b])
    for name, args in (("clamp_min_", (0.5,)), ("clamp_max_", (-0.5,)), ("clip_", (-0.7, 0.7)), ("tril_", (0,)),
                       ("triu_", (1,)), ("cumsum_", (1,)), ("cumprod_", (0,)), ("float_power_", (2,))):
        if name == "float_power_":
            if dtype != np.float64:
                continue
        assert_matches_torch(lambda x: getattr(x * 1, name)(*args), lambda x: getattr(x * 1, name)(*args), [a])
    assert_raises_like_torch(lambda: seqlab.ones(2).float_power_(2), lambda: torch.ones(2).float_power_(2),
                             "the base given to float_power_ has dtype Float")
    assert_raises_like_torch(lambda: seqlab.tensor([[1, 2]]).cumsum_(0, dtype=seqlab.float32),
                             lambda: torch.tensor([[1, 2]]).cumsum_(0, dtype=torch.float32), "Bad in-place call")


@pytest.mark.parametrize("name", ["abs_", "acos_", "asin_", "atan_", "ceil_", "floor_", "round_", "trunc_", "frac_",
                                  "fix_", "cos_", "cosh_", "sin_", "sinh_", "tan_", "tanh_", "exp_", "expm1_", "erf_",
                                  "erfc_", "log1p_", "neg_", "negative_", "rsqrt_", "sigmoid_", "sqrt_", "relu_",
                                  "zero_", "arccos_", "arcsin_", "arctan_"])
def test_function_forms_of_in_place_ops(rng, name):
    a = rng.uniform(0.1, 0.9, size=(2, 3))
    s, t = seqlab.tensor(a), torch.tensor(a)
    assert getattr(seqlab, name)(s) is s
    getattr(torch, name)(t)
    np.testing.assert_allclose(sl_np(s), th_np(t), rtol=1e-7, atol=1e-12)


def test_function_forms_with_arguments(rng):
    a = randn(rng, (3, 4), np.float64)
    for name, args in (("clamp_", (-0.5, 0.5)), ("clamp_min_", (0.1,)), ("clamp_max_", (0.1,)), ("clip_", (0, 1)),
                       ("fill_", (2.5,))):
        s, t = seqlab.tensor(a), torch.tensor(a)
        getattr(seqlab, name)(s, *args)
        getattr(torch, name)(t, *args)
        np.testing.assert_allclose(sl_np(s), th_np(t))
    m, v = randn(rng, (3, 4), np.float64), randn(rng, (4,), np.float64)
    s, t = seqlab.tensor(a[:, 0].copy()), torch.tensor(a[:, 0].copy())
    seqlab.addmv_(s, seqlab.tensor(m), seqlab.tensor(v))
    torch.addmv_(t, torch.tensor(m), torch.tensor(v))
    np.testing.assert_allclose(sl_np(s), th_np(t))


# ------------------------------------------------------------------ reciprocal, square, clamp_min, float_power, fill
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_new_pointwise_functions_match_torch(rng, dtype):
    a, b = away_from_zero(rng, (3, 4), dtype), away_from_zero(rng, (4,), dtype)
    for layout in LAYOUTS:
        for name in ("reciprocal", "square"):
            assert_matches_torch(lambda x: getattr(seqlab, name)(x), lambda x: getattr(torch, name)(x), [a],
                                 layout=layout)
            assert_matches_torch(lambda x: getattr(x, name)(), lambda x: getattr(x, name)(), [a], layout=layout)
        assert_matches_torch(lambda x: seqlab.clamp_min(x, 0.3), lambda x: torch.clamp_min(x, 0.3), [a], layout=layout)
        assert_matches_torch(lambda x, y: x.clamp_max(y), lambda x, y: x.clamp_max(y), [a, b], layout=layout)
        assert_matches_torch(lambda x, y: seqlab.float_power(x.abs(), y), lambda x, y: torch.float_power(x.abs(), y),
                             [a, b], layout=layout)
        assert_matches_torch(lambda x: x.float_power(3), lambda x: x.float_power(3), [a], layout=layout)
    assert_matches_torch(lambda x: seqlab.float_power(2.0, x), lambda x: torch.float_power(2.0, x), [a])
    assert_gradcheck(lambda x, y: seqlab.float_power(x.abs(), y), [a.astype(np.float64), b.astype(np.float64)])
    for ints in ([1, 2, 4], [True, False]):
        for name in ("reciprocal", "square"):
            got, want = getattr(seqlab, name)(seqlab.tensor(ints)), getattr(torch, name)(torch.tensor(ints))
            assert str(got.dtype)[7:] == str(want.dtype)[6:] and np.allclose(sl_np(got), th_np(want))
    assert str(seqlab.float_power(seqlab.tensor([2]), 2).dtype) == "seqlab.float64"
    assert_matches_torch(lambda x: seqlab.fill(x, 1.5), lambda x: torch.fill(x, 1.5), [a], grad=False)
    assert_matches_torch(lambda x, v: seqlab.fill(x, v), lambda x, v: torch.fill(x, v), [a, np.array(2.0, dtype)])


# ------------------------------------------------------------------ fill_diagonal_, masked_scatter, put, renorm
def test_fill_diagonal_matches_torch():
    for shape, wrap in (((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), False), ((2, 2, 2), False),
                        ((0, 0), False)):
        s, t = seqlab.ones(*shape), torch.ones(*shape)
        assert s.fill_diagonal_(2.5, wrap=wrap) is s
        t.fill_diagonal_(2.5, wrap=wrap)
        assert np.array_equal(sl_np(s), th_np(t)), (shape, wrap)
    assert_raises_like_torch(lambda: seqlab.ones(3).fill_diagonal_(2), lambda: torch.ones(3).fill_diagonal_(2),
                             "dimensions must larger than 1")
    assert_raises_like_torch(lambda: seqlab.ones(2, 3, 3).fill_diagonal_(2),
                             lambda: torch.ones(2, 3, 3).fill_diagonal_(2), "all dimensions of input must be of equal")
    assert_matches_torch(lambda x: (x * 1).fill_diagonal_(0.0), lambda x: (x * 1).fill_diagonal_(0.0),
                         [np.arange(9.0).reshape(3, 3)])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_masked_scatter_matches_torch(rng, dtype):
    a, src = randn(rng, (3, 4), dtype), randn(rng, (20,), dtype)
    mask = rng.random((3, 4)) > 0.5
    row_mask = rng.random((4,)) > 0.3
    for m in (mask, row_mask, np.zeros((3, 4), bool)):
        assert_matches_torch(lambda x, s: seqlab.masked_scatter(x, seqlab.tensor(m), s),
                             lambda x, s: torch.masked_scatter(x, torch.tensor(m), s), [a, src])
        assert_matches_torch(lambda x, s: (x * 1).masked_scatter_(seqlab.tensor(m), s),
                             lambda x, s: (x * 1).masked_scatter_(torch.tensor(m), s), [a, src], layout="T")
    assert_gradcheck(lambda x, s: seqlab.masked_scatter(x, seqlab.tensor(mask), s), [a, src])
    assert_raises_like_torch(lambda: seqlab.ones(3).masked_scatter(seqlab.tensor([True] * 3), seqlab.ones(2)),
                             lambda: torch.ones(3).masked_scatter(torch.tensor([True] * 3), torch.ones(2)),
                             "Number of elements of source < number of ones in mask")
    assert_raises_like_torch(lambda: seqlab.ones(3).masked_scatter(seqlab.tensor([1, 0, 1]), seqlab.ones(3)),
                             lambda: torch.ones(3).masked_scatter(torch.tensor([1, 0, 1]), torch.ones(3)),
                             "only supports boolean masks")


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_matches_torch(rng, accumulate):
    a, src = randn(rng, (3, 4), np.float64), randn(rng, (5,), np.float64)
    index = np.array([0, -1, 5, 11, 3]) if not accumulate else np.array([0, 0, 5, -12, 3])
    assert_matches_torch(lambda x, s: seqlab.put(x, seqlab.tensor(index), s, accumulate=accumulate),
                         lambda x, s: torch.put(x, torch.tensor(index), s, accumulate=accumulate), [a, src])
    assert_matches_torch(lambda x, s: (x * 1).put_(seqlab.tensor(index), s, accumulate),
                         lambda x, s: (x * 1).put_(torch.tensor(index), s, accumulate), [a, src], layout="T")
    assert_raises_like_torch(lambda: seqlab.put(seqlab.ones(2, 3), seqlab.tensor([10]), seqlab.ones(1)),
                             lambda: torch.put(torch.ones(2, 3), torch.tensor([10]), torch.ones(1)),
                             "out of range: tried to access index 10 on a tensor of 6 elements")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_renorm_matches_torch(rng, dtype):
    a = randn(rng, (3, 4, 2), dtype) * 3
    for p, dim, maxnorm in ((2, 0, 2.0), (1, 1, 1.5), (3, -1, 2.5), (2, 2, 100.0)):
        assert_matches_torch(lambda x: seqlab.renorm(x, p, dim, maxnorm), lambda x: torch.renorm(x, p, dim, maxnorm),
                             [a])
        assert_matches_torch(lambda x: (x * 1).renorm_(p, dim, maxnorm), lambda x: (x * 1).renorm_(p, dim, maxnorm),
                             [a])
    assert_gradcheck(lambda x: seqlab.renorm(x, 2, 0, 2.0), [a])
    for args, fragment in (((-1, 0, 3.0), "non-positive-norm"), ((2, 0, -1.0), "expected maxnorm to be >= 0"),
                           ((2, 5, 3.0), "Dimension out of range")):
        assert_raises_like_torch(lambda: seqlab.renorm(seqlab.ones(2, 3), *args),
                                 lambda: torch.renorm(torch.ones(2, 3), *args), fragment)


def test_sum_to_size_matches_torch(rng):
    a = randn(rng, (2, 3, 4), np.float64)
    for size in ((4,), (3, 1), (1, 3, 4), (2, 1, 1), ((2, 3, 4),)):
        assert_matches_torch(lambda x: x.sum_to_size(*size), lambda x: x.sum_to_size(*size), [a], layout="slice")
    assert_raises_like_torch(lambda: seqlab.ones(2, 3).sum_to_size(2), lambda: torch.ones(2, 3).sum_to_size(2),
                             "is not expandable to size")
    assert_raises_like_torch(lambda: seqlab.ones(2, 3).sum_to_size(), lambda: torch.ones(2, 3).sum_to_size(),
                             "missing 1 required positional argument")


# ------------------------------------------------------------------ constructors, device, resize, unfold, apply_
def test_legacy_constructors_match_torch():
    for dtype in ("float32", "int64", "float64"):
        s, t = seqlab.ones(2, dtype=getattr(seqlab, dtype)), torch.ones(2, dtype=getattr(torch, dtype))
        for make in (lambda x: x.new(2, 3), lambda x: x.new(), lambda x: x.new_empty(2, 3),
                     lambda x: x.new_empty((4,)), lambda x: x.new_empty_strided((2, 2), (2, 1))):
            got, want = make(s), make(t)
            assert tuple(got.shape) == tuple(want.shape) and str(got.dtype)[7:] == str(want.dtype)[6:]
        for make in (lambda x: x.new([1, 2]), lambda x: x.new_full((2, 2), 3),
                     lambda x: x.new_full((2,), 1.5, dtype=x.dtype)):
            assert make(s).tolist() == make(t).tolist() and str(make(s).dtype)[7:] == str(make(t).dtype)[6:]
    assert seqlab.empty_strided((2, 3), (3, 1)).shape == (2, 3)
    assert seqlab.empty_permuted((2, 3, 4), (0, 2, 1)).shape == (2, 3, 4)
    assert_raises_like_torch(lambda: seqlab.ones(2).new(2.5), lambda: torch.ones(2).new(2.5), "must be a sequence")


def test_cuda_is_torchs_cpu_build_error_and_memory_formats_are_accepted():
    assert_raises_like_torch(lambda: seqlab.ones(2).cuda(), lambda: torch.ones(2).cuda(),
                             "Torch not compiled with CUDA enabled")
    x = seqlab.arange(6.0).reshape(2, 3).t()
    for fmt in (seqlab.contiguous_format, seqlab.preserve_format, seqlab.legacy_contiguous_format):
        assert seqlab.clone(x, memory_format=fmt).tolist() == x.tolist()
        assert x.clone(memory_format=fmt).is_contiguous()
        assert seqlab.empty_like(x, memory_format=fmt).shape == x.shape
        assert seqlab.zeros_like(x, memory_format=fmt).shape == x.shape
    assert x.contiguous(memory_format=seqlab.contiguous_format).is_contiguous()
    with pytest.raises(TypeError, match="must be seqlab.memory_format"):
        x.clone(memory_format="channels_last")
    y = seqlab.ones(2, requires_grad=True)
    y.clone(memory_format=seqlab.preserve_format).sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]


def test_resize_keeps_the_leading_elements():
    for sizes in ((3, 3), (2,), (1, 2), (0,), (6,)):
        s, t = seqlab.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
        assert s.resize_(*sizes) is s
        t.resize_(*sizes)
        keep = min(6, int(np.prod(sizes)))
        assert tuple(s.shape) == tuple(t.shape)
        assert sl_np(s).reshape(-1)[:keep].tolist() == th_np(t).reshape(-1)[:keep].tolist()
    s, t = seqlab.arange(6.0), torch.arange(6.0)
    assert s.resize_as_(seqlab.ones(1, 2)).tolist() == t.resize_as_(torch.ones(1, 2)).tolist()
    assert seqlab.resize_as_(seqlab.arange(4.0), seqlab.ones(2, 2)).tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert_raises_like_torch(lambda: seqlab.ones(2, requires_grad=True).resize_(3),
                             lambda: torch.ones(2, requires_grad=True).resize_(3), "cannot resize variables")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_unfold_matches_torch(rng, dtype):
    a = randn(rng, (3, 7, 2), dtype)
    for dim, size, step in ((1, 3, 1), (1, 2, 3), (0, 3, 1), (-1, 1, 1), (1, 7, 2), (1, 0, 1)):
        for layout in LAYOUTS:
            assert_matches_torch(lambda x: x.unfold(dim, size, step), lambda x: x.unfold(dim, size, step), [a],
                                 layout=layout)
    assert_matches_torch(lambda x: x.unfold(0, 1, 1), lambda x: x.unfold(0, 1, 1), [np.array(2.5, dtype)])
    assert_gradcheck(lambda x: x.unfold(1, 3, 2), [a])
    for args, fragment in (((1, 8, 1), "maximum size for tensor at dimension 1 is 7 but size is 8"),
                           ((1, 2, 0), "step is 0 but must be > 0"), ((3, 1, 1), "Dimension out of range")):
        assert_raises_like_torch(lambda: seqlab.tensor(a).unfold(*args), lambda: torch.tensor(a).unfold(*args),
                                 fragment)


def test_apply_and_map_match_torch():
    a = np.arange(6.0).reshape(2, 3)
    for dtype in ("float32", "int64"):
        s, t = seqlab.tensor(a).to(getattr(seqlab, dtype)), torch.tensor(a).to(getattr(torch, dtype))
        assert s.clone().apply_(lambda v: v * 2 + 1).tolist() == t.clone().apply_(lambda v: v * 2 + 1).tolist()
        assert s.clone().map_(s[0], lambda u, v: u - v).tolist() == t.clone().map_(t[0], lambda u, v: u - v).tolist()
        assert s.clone().map2_(s, s, lambda u, v, w: u + v * w).tolist() == \
            t.clone().map2_(t, t, lambda u, v, w: u + v * w).tolist()
    assert_raises_like_torch(lambda: seqlab.ones(2, requires_grad=True).apply_(abs),
                             lambda: torch.ones(2, requires_grad=True).apply_(abs),
                             "Can't call apply_\\(\\) on Variable that requires grad")


# ------------------------------------------------------------------ review fixes: fill keeps the graph, clamp's tensor bounds
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_fill_of_a_tensor_requiring_grad_keeps_the_graph_like_torch(rng, dtype):
    a = randn(rng, (2, 3), dtype)
    for layout in LAYOUTS:
        assert_matches_torch(lambda x: seqlab.fill(x, 2), lambda x: torch.fill(x, 2), [a], layout=layout)
    assert_matches_torch(lambda x: seqlab.fill(x, 2), lambda x: torch.fill(x, 2), [np.zeros((0, 3), dtype)])
    s, t = seqlab.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    assert seqlab.fill(s, 2).requires_grad == torch.fill(t, 2).requires_grad is True
    with seqlab.no_grad():
        assert not seqlab.fill(s, 2).requires_grad


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_clamp_and_clip_take_tensor_bounds_like_torch(rng, dtype):
    a, lo, hi = randn(rng, (3, 4), dtype), randn(rng, (4,), dtype) - 0.5, randn(rng, (3, 1), dtype) + 0.5
    for name in ("clamp", "clip"):
        sf, tf = getattr(seqlab, name), getattr(torch, name)
        for layout in LAYOUTS:
            assert_matches_torch(lambda x, l, h: sf(x, l, h), lambda x, l, h: tf(x, l, h), [a, lo, hi], layout=layout)
            assert_matches_torch(lambda x, l: getattr(x, name)(min=l), lambda x, l: getattr(x, name)(min=l), [a, lo],
                                 layout=layout)
            assert_matches_torch(lambda x, h: sf(x, None, h), lambda x, h: tf(x, None, h), [a, hi], layout=layout)
        assert_raises_like_torch(lambda: sf(seqlab.tensor(a), seqlab.tensor(lo), 0.25),
                                 lambda: tf(torch.tensor(a), torch.tensor(lo), 0.25), "invalid combination of arguments")
        assert_matches_torch(lambda x, l, h: sf(x, l, h), lambda x, l, h: tf(x, l, h),
                             [np.zeros((0, 4), dtype), lo, hi[:1]])
        for fn in (lambda m, x, l, h: getattr(m, name + "_")(x.clone(), l, h),
                   lambda m, x, l, h: getattr(x.clone(), name + "_")(l, h)):
            s = fn(seqlab, seqlab.tensor(a), seqlab.tensor(lo), seqlab.tensor(hi))
            t = fn(torch, torch.tensor(a), torch.tensor(lo), torch.tensor(hi))
            np.testing.assert_array_equal(sl_np(s), th_np(t))
    assert_gradcheck(lambda x, l, h: seqlab.clamp(x, l, h), [a.astype(np.float64), lo, hi])
    ints = np.array([1, 5, -3])
    s = seqlab.clamp(seqlab.tensor(ints), seqlab.tensor(0.5))
    t = torch.clamp(torch.tensor(ints), torch.tensor(0.5))
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] and s.tolist() == t.tolist()
    assert_raises_like_torch(lambda: seqlab.clamp_(seqlab.tensor(ints), seqlab.tensor(0.5)),
                             lambda: torch.clamp_(torch.tensor(ints), torch.tensor(0.5)), "can't be cast")
    assert_raises_like_torch(lambda: seqlab.clamp(seqlab.tensor(ints)), lambda: torch.clamp(torch.tensor(ints)),
                             "At least one of 'min' or 'max' must not be None")


# ------------------------------------------------------------------ function forms exp2_ ... xlogy_, Tensor.resize / resize_as
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_more_in_place_function_forms_match_torch(rng, dtype):
    x = np.abs(randn(rng, (3, 4), dtype)) * 0.4 + 0.05
    for name, args in (("exp2_", ()), ("i0_", ()), ("sinc_", ()), ("logit_", ()), ("logit_", (0.1,)), ("xlogy_", (2.0,)),
                       ("xlogy_", ("t",))):
        s, t = seqlab.tensor(x), torch.tensor(x)
        sa = [seqlab.tensor(x[0]) if a == "t" else a for a in args]
        ta = [torch.tensor(x[0]) if a == "t" else a for a in args]
        assert getattr(seqlab, name)(s, *sa) is s and getattr(torch, name)(t, *ta) is t
        np.testing.assert_allclose(sl_np(s), th_np(t), rtol=1e-5, atol=1e-6)
    assert_raises_like_torch(lambda: seqlab.exp2_(seqlab.ones(2, requires_grad=True)),
                             lambda: torch.exp2_(torch.ones(2, requires_grad=True)), "leaf Variable that requires grad")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_resize_and_resize_as_warn_and_match_torch(rng, dtype):
    a = randn(rng, (2, 6), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for layout in LAYOUTS:
            assert_matches_torch(lambda x: x.resize(3, 4), lambda x: x.resize(3, 4), [a], layout=layout)
            assert_matches_torch(lambda x: x.resize_as(seqlab.ones(4, 3)), lambda x: x.resize_as(torch.ones(4, 3)),
                                 [a], layout=layout)
        assert_gradcheck(lambda x: x.resize(4, 3), [a])
        assert_raises_like_torch(lambda: seqlab.tensor(a).resize(5), lambda: torch.tensor(a).resize(5),
                                 "requested resize to 5 \\(5 elements in total\\)")
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        seqlab.tensor(a).resize(12)
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        seqlab.tensor(a).resize_as(seqlab.ones(12))
