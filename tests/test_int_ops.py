"""The integer ops against torch, for every dtype torch has them for: integer
matmul (mm, bmm, mv, dot, @, wrapping), the bitwise ops (& | ^ ~ << >>, functions, methods,
in place, reflected), floor division (//), prod (with its backward where the input has zeros),
unique and unique_consecutive, and the class-index target dtypes of cross_entropy and nll_loss.
The kernels: cpp/src/blas.cpp (integer GEMM), cpp/src/ops/bitwise.cpp, division.cpp, scan.cpp
(prod); python/seqlab/_sorting.py (unique); cpp/src/ops/loss.cpp (targets)."""
import numpy as np
import pytest
import torch

import seqlab
from conftest import (assert_close, assert_gradcheck, assert_matches_torch, assert_raises_like_torch, sl_leaf,
                      sl_np, th_leaf, th_np)

INTS = ["uint8", "int8", "int16", "int32", "int64"]
ALL = ["bool"] + INTS + ["float32", "float64"]
NP = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
      "int64": np.int64, "float32": np.float32, "float64": np.float64}


def ints(rng, shape, dtype, low=None, high=None):
    """Random integers of `dtype` spanning its range (so that products and sums wrap)."""
    info = np.iinfo(NP[dtype])
    low = info.min if low is None else low
    high = info.max if high is None else high
    return rng.integers(low, high, size=shape, endpoint=True, dtype=np.int64).astype(NP[dtype])


def values_of(rng, shape, dtype):
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.startswith("float"):
        return (rng.standard_normal(shape) * 4).astype(NP[dtype])
    return ints(rng, shape, dtype)


def outcome(fn):
    """fn()'s result, or the exception it raised."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001  (compared with torch's)
        return e


def same_outcome(seqlab_fn, torch_fn, *fragments):
    """Both return equal tensors (dtype, shape, values), or both raise the same builtin exception
    type, seqlab's message containing every fragment."""
    expected = outcome(torch_fn)
    if isinstance(expected, Exception):
        assert_raises_like_torch(seqlab_fn, torch_fn, *fragments)
        return None
    got = seqlab_fn()
    for s, t in zip(got if isinstance(got, tuple) else (got,), expected if isinstance(expected, tuple) else (expected,)):
        assert tuple(s.shape) == tuple(t.shape)
        assert_close(sl_np(s), th_np(t), 0, 0, what="value")
    return got


# ------------------------------------------------------------------ matmul
MATMUL_SHAPES = [((3, 4), (4, 5)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((2, 3, 4), (2, 4, 5)),
                 ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 3)),
                 ((37, 300), (300, 600))]  # the last crosses the GEMM's 128 x 512 tiles


@pytest.mark.parametrize("layout", ["contig", "T", "slice"])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=lambda s: f"{s[0]}@{s[1]}")
@pytest.mark.parametrize("dtype", INTS)
def test_integer_matmul_wraps_as_torch(rng, dtype, shapes, layout):
    """Exact integer products modulo 2^bits, 1-d, 2-d and batched (broadcast) operands, transposed
    and strided ones."""
    a, b = ints(rng, shapes[0], dtype), ints(rng, shapes[1], dtype)
    out = assert_matches_torch(lambda x, y: x @ y, lambda x, y: x @ y, [a, b], grad=False, layout=layout)
    assert out.dtype == getattr(seqlab, dtype)


@pytest.mark.parametrize("dtype", INTS)
def test_mm_bmm_mv_dot_on_integers(rng, dtype):
    a, b, v = ints(rng, (3, 4), dtype), ints(rng, (4, 5), dtype), ints(rng, (4,), dtype)
    ab, bb = ints(rng, (2, 3, 4), dtype), ints(rng, (2, 4, 5), dtype)
    for fn, args in [(lambda L, x, y: L.mm(x, y), (a, b)), (lambda L, x, y: x.mm(y), (a, b)),
                     (lambda L, x, y: L.bmm(x, y), (ab, bb)), (lambda L, x, y: L.mv(x, y), (a, v)),
                     (lambda L, x, y: x.mv(y), (a, v)), (lambda L, x, y: L.dot(x, y), (v, v)),
                     (lambda L, x, y: L.matmul(x, y), (a, b))]:
        assert_matches_torch(lambda x, y: fn(seqlab, x, y), lambda x, y: fn(torch, x, y), list(args), grad=False)


def test_int64_matmul_wraps_at_2_to_the_64():
    a = np.array([[2**62, 3], [-2**63, 1]], dtype=np.int64)
    assert_matches_torch(lambda x, y: x @ y, lambda x, y: x @ y, [a, a.T.copy()], grad=False)


@pytest.mark.parametrize("fn", ["@", "mm", "bmm", "mv", "dot"])
@pytest.mark.parametrize("pair", [("int64", "float32"), ("float32", "int64"), ("int64", "int32"),
                                  ("uint8", "int8"), ("bool", "bool"), ("float64", "float32")])
def test_matmul_of_mixed_dtypes_is_refused_as_torch(fn, pair):
    """torch multiplies matrices of one dtype only (no promotion) and has no bool GEMM."""
    shapes = {"@": ((2, 3), (3, 2)), "mm": ((2, 3), (3, 2)), "bmm": ((1, 2, 3), (1, 3, 2)), "mv": ((2, 3), (3,)),
              "dot": ((3,), (3,))}[fn]
    call = {"@": lambda L, x, y: x @ y, "mm": lambda L, x, y: L.mm(x, y), "bmm": lambda L, x, y: L.bmm(x, y),
            "mv": lambda L, x, y: L.mv(x, y), "dot": lambda L, x, y: L.dot(x, y)}[fn]

    def run(L):
        x = L.ones(shapes[0], dtype=getattr(L, pair[0]))
        y = L.ones(shapes[1], dtype=getattr(L, pair[1]))
        return call(L, x, y)

    assert_raises_like_torch(lambda: run(seqlab), lambda: run(torch),
                             r"dtype|scalar type|not implemented for 'Bool'")


# ------------------------------------------------------------------ bitwise
BITWISE = {"&": lambda L, x, y: x & y, "|": lambda L, x, y: x | y, "^": lambda L, x, y: x ^ y,
           "<<": lambda L, x, y: x << y, ">>": lambda L, x, y: x >> y,
           "bitwise_and": lambda L, x, y: L.bitwise_and(x, y), "bitwise_or": lambda L, x, y: L.bitwise_or(x, y),
           "bitwise_xor": lambda L, x, y: x.bitwise_xor(y),
           "bitwise_left_shift": lambda L, x, y: L.bitwise_left_shift(x, y),
           "bitwise_right_shift": lambda L, x, y: x.bitwise_right_shift(y)}


@pytest.mark.parametrize("b", ALL)
@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("op", list(BITWISE))
def test_bitwise_every_dtype_pair(rng, op, a, b):
    """torch's result dtype and values for every pair, its NotImplementedError for floats (and for
    shifts of two bools)."""
    x, y = values_of(rng, (3, 4), a), values_of(rng, (4,), b)
    if "shift" in op or op in ("<<", ">>"):
        if b != "bool" and not b.startswith("float"):
            y = rng.integers(0, 9, size=(4,)).astype(NP[b])  # shifts within the narrow types' widths
    fn = BITWISE[op]
    same_outcome(lambda: fn(seqlab, sl_leaf(x, False), sl_leaf(y, False)),
                 lambda: fn(torch, th_leaf(x, False), th_leaf(y, False)), r"not implemented for '(Float|Double|Bool)'")


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", ["<<", ">>"])
def test_shifts_by_negative_and_too_wide_amounts(op, dtype):
    """A shift by a negative amount or by the width or more: 0 for <<, the sign for >> (as torch)."""
    signed = dtype != "uint8"
    a = np.array([1, 3, 5, -1, -2, 7, 1, -128, 100, 1] if signed else [1, 3, 5, 255, 254, 7, 1, 128, 100, 1],
                 dtype=NP[dtype])
    bits = np.iinfo(NP[dtype]).bits
    b = np.array([0, 1, bits - 1, bits - 1, bits, bits + 1, 100 % (np.iinfo(NP[dtype]).max + 1), 3, 2, 0],
                 dtype=NP[dtype])
    if signed:
        b[[1, 4]] = -1, -9
    fn = BITWISE[op]
    same_outcome(lambda: fn(seqlab, sl_leaf(a), sl_leaf(b)), lambda: fn(torch, th_leaf(a), th_leaf(b)))


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("op", list(BITWISE))
def test_bitwise_broadcast_and_strided(rng, op, layout):
    x, y = ints(rng, (4, 3, 5), "int32"), ints(rng, (3, 5), "int32", 0, 31)
    assert_matches_torch(lambda s, t: BITWISE[op](seqlab, s, t), lambda s, t: BITWISE[op](torch, s, t), [x, y],
                         grad=False, layout=layout)


NUMBERS = [3, -2, True, 1.5]


@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64", "float32"])
@pytest.mark.parametrize("op", ["&", "|", "^", "<<", ">>"])
def test_bitwise_with_python_numbers_both_sides(rng, op, dtype, number):
    x = values_of(rng, (2, 3), dtype)
    if dtype != "bool" and not dtype.startswith("float"):
        x = np.abs(x.astype(np.int64) % 7).astype(NP[dtype])
    fn = BITWISE[op]
    for f in (lambda L, t: fn(L, t, number), lambda L, t: fn(L, number, t)):
        same_outcome(lambda: f(seqlab, sl_leaf(x, False)), lambda: f(torch, th_leaf(x, False)),
                     r"not implemented for '(Float|Bool)'")


@pytest.mark.parametrize("dtype", ALL)
def test_bitwise_not(rng, dtype):
    x = values_of(rng, (3, 4), dtype)
    for f in (lambda L, t: ~t, lambda L, t: L.bitwise_not(t), lambda L, t: t.bitwise_not(),
              lambda L, t: t.clone().bitwise_not_()):
        same_outcome(lambda: f(seqlab, sl_leaf(x, False)), lambda: f(torch, th_leaf(x, False)),
                     r"(operator.invert\) is only implemented on integer and Boolean-type tensors|"
                     r"\"bitwise_not_cpu\" not implemented for '(Float|Double)')")


INPLACE = {"&=": "__iand__", "|=": "__ior__", "^=": "__ixor__", "<<=": "__ilshift__", ">>=": "__irshift__",
           "bitwise_and_": "bitwise_and_", "bitwise_or_": "bitwise_or_", "bitwise_xor_": "bitwise_xor_",
           "bitwise_left_shift_": "bitwise_left_shift_", "bitwise_right_shift_": "bitwise_right_shift_"}


@pytest.mark.parametrize("other", ["int64", "int32", "bool", "float32", 2, True, 1.5])
@pytest.mark.parametrize("self_dtype", ["bool", "uint8", "int32", "int64", "float32"])
@pytest.mark.parametrize("op", list(INPLACE))
def test_bitwise_in_place(rng, op, self_dtype, other):
    """Written into self, which keeps its dtype; a result self cannot hold is refused as torch does."""
    x = values_of(rng, (2, 3), self_dtype)
    if self_dtype not in ("bool", "float32"):
        x = np.abs(x.astype(np.int64) % 50).astype(NP[self_dtype])
    y = np.array([1, 2, 3], dtype=NP[other]) if isinstance(other, str) else other
    if isinstance(other, str) and other == "bool":
        y = np.array([True, False, True])

    def run(L, leaf):
        s = leaf(x, False)
        o = leaf(y, False) if isinstance(y, np.ndarray) else y
        r = getattr(s, INPLACE[op])(o)
        assert r is s
        return s

    same_outcome(lambda: run(seqlab, sl_leaf), lambda: run(torch, th_leaf),
                 r"can't be cast to the desired output type|not implemented for '(Float|Bool)'")


# ------------------------------------------------------------------ floor division
@pytest.mark.parametrize("dtype", INTS)
def test_floor_divide_integers(rng, dtype):
    """Rounded toward -inf with negative operands, the minimum // -1 wrapping, as torch."""
    signed = dtype != "uint8"
    a = ints(rng, (5, 7), dtype)
    b = ints(rng, (7,), dtype)
    b[b == 0] = 3
    if signed:
        a[0, :3] = np.iinfo(NP[dtype]).min
        b[:3] = [-1, 1, -2]
    for f in (lambda L, x, y: x // y, lambda L, x, y: L.floor_divide(x, y), lambda L, x, y: x.floor_divide(y),
              lambda L, x, y: L.floor_divide(x, 3), lambda L, x, y: 100 // y, lambda L, x, y: x // -7):
        assert_matches_torch(lambda x, y: f(seqlab, x, y), lambda x, y: f(torch, x, y), [a, b], grad=False)


@pytest.mark.parametrize("layout", ["contig", "T", "slice"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floor_divide_floats(rng, dtype, layout):
    a = (rng.standard_normal((4, 6)) * 10).astype(dtype)
    b = (rng.standard_normal((4, 6)) * 3).astype(dtype)
    b[0, :4] = [0.0, -0.0, np.inf, -np.inf]
    a[1, :5] = [0.0, -0.0, np.inf, np.nan, 0.3]
    b[1, 4] = 0.1
    out = assert_matches_torch(lambda x, y: x // y, lambda x, y: x // y, [a, b], grad=False, layout=layout)
    expected = (torch.from_numpy(a) // torch.from_numpy(b)).numpy()
    number = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(sl_np(out))[number], np.signbit(expected)[number])


@pytest.mark.parametrize("case", ["int//0", "int//has0", "empty//0", "bool//bool", "bool//int", "int//float",
                                  "uint8//2.5", "float//int"])
def test_floor_divide_promotion_and_errors(case):
    a, b = {"int//0": ([1, -2], 0), "int//has0": ([1, -2], [3, 0]), "empty//0": (np.zeros((0, 2), np.int64), 0),
            "bool//bool": ([True, False], [True, True]), "bool//int": ([True, False], [2, 2]),
            "int//float": ([7, -7], 2.5), "uint8//2.5": (np.array([7, 200], np.uint8), 2.5),
            "float//int": ([7.5, -7.5], [2, 2])}[case]

    def run(L):
        x = L.tensor(a) if not isinstance(a, np.ndarray) else L.from_numpy(a)
        y = L.tensor(b) if isinstance(b, list) else b
        return x // y

    same_outcome(lambda: run(seqlab), lambda: run(torch), r"ZeroDivisionError|\"div_floor_cpu\" not implemented")


def test_floor_divide_has_no_derivative_as_in_torch():
    s, t = seqlab.tensor([3.0, -4.0], requires_grad=True), torch.tensor([3.0, -4.0], requires_grad=True)
    so, to = s // 2, t // 2
    assert so.requires_grad and to.requires_grad
    assert so.grad_fn.name() == type(to.grad_fn).__name__ == "NotImplemented"
    assert_raises_like_torch(lambda: so.sum().backward(), lambda: to.sum().backward(),
                             "derivative for aten::floor_divide is not implemented")


@pytest.mark.parametrize("other", [2, -3, 2.5, "tensor"])
@pytest.mark.parametrize("dtype", ["int64", "int8", "float32"])
def test_floor_divide_in_place(rng, dtype, other):
    x = values_of(rng, (2, 3), dtype)
    y = np.array([2, -3, 5], dtype=NP[dtype]) if other == "tensor" else other
    for name in ("floor_divide_", "__ifloordiv__"):
        def run(L, leaf):
            s = leaf(x, False)
            r = getattr(s, name)(leaf(y, False) if isinstance(y, np.ndarray) else y)
            assert r is s
            return s
        same_outcome(lambda: run(seqlab, sl_leaf), lambda: run(torch, th_leaf),
                     "result type Float can't be cast to the desired output type")


# ------------------------------------------------------------------ prod
@pytest.mark.parametrize("dtype", ALL)
def test_prod_dtypes(rng, dtype):
    """Integers and bools give int64 (wrapping), floats keep theirs; dtype= casts first."""
    x = values_of(rng, (3, 4, 5), dtype)
    if dtype.startswith("float"):
        x = (x / 4).astype(NP[dtype])
    for f in (lambda L, t: t.prod(), lambda L, t: L.prod(t, 1), lambda L, t: t.prod(-1, keepdim=True),
              lambda L, t: t.prod(0, dtype=L.float64), lambda L, t: L.prod(t, dtype=L.int32),
              lambda L, t: t.prod(dim=2, keepdim=False, dtype=L.int8)):
        expected = f(torch, th_leaf(x, False))
        got = f(seqlab, sl_leaf(x, False))
        assert tuple(got.shape) == tuple(expected.shape)
        atol, rtol = (0, 0) if not expected.dtype.is_floating_point else (1e-6, 1e-5)
        assert_close(sl_np(got), th_np(expected), atol, rtol, what=dtype)


@pytest.mark.parametrize("zeros", [0, 1, 2])
@pytest.mark.parametrize("layout", ["contig", "T", "slice"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prod_backward_with_zeros(rng, dtype, layout, zeros):
    """dx_j = g Π_{i != j} x_i, also where x has one zero (only its gradient is non-zero) or two
    (all are zero), as torch's prod_backward."""
    x = rng.uniform(0.5, 1.5, (4, 5)).astype(dtype) * np.where(rng.random((4, 5)) < 0.5, -1, 1).astype(dtype)
    x[0, :zeros] = 0
    x[:zeros, 2] = 0
    for f in (lambda t: t.prod(), lambda t: t.prod(1), lambda t: t.prod(0, keepdim=True), lambda t: t.prod(-1)):
        assert_matches_torch(f, f, [x], layout=layout)


def test_prod_gradcheck(rng):
    x = rng.uniform(0.5, 1.5, (3, 4))
    x[1, 2] = 0.0
    for f in (lambda t: t.prod(), lambda t: t.prod(1), lambda t: t.prod(0, keepdim=True)):
        assert_gradcheck(f, [x])


def test_prod_edges_and_errors():
    for f in (lambda L: L.tensor([]).prod(), lambda L: L.zeros(2, 0).prod(1), lambda L: L.tensor(3.0).prod(0),
              lambda L: L.tensor(3.0).prod(), lambda L: L.ones(2, 3).prod(2)):
        same_outcome(lambda: f(seqlab), lambda: f(torch), "Dimension out of range")
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert_matches_torch(lambda t: t.prod(1, dtype=seqlab.float32), lambda t: t.prod(1, dtype=torch.float32), [x])


def test_cumprod_of_every_integer_dtype(rng):
    for dtype in INTS + ["bool"]:
        x = values_of(rng, (3, 5), dtype)
        same_outcome(lambda: sl_leaf(x, False).cumprod(1), lambda: th_leaf(x, False).cumprod(1))


# ------------------------------------------------------------------ unique
UNIQUE_KW = [{}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True},
             {"sorted": False, "return_inverse": True}]


@pytest.mark.parametrize("kw", UNIQUE_KW, ids=str)
@pytest.mark.parametrize("dtype", ALL)
def test_unique(rng, dtype, kw):
    x = values_of(rng, (4, 6), dtype)
    if dtype != "bool":
        x = (x.astype(np.float64) % 5).astype(NP[dtype])
    for f in (lambda L, t: L.unique(t, **kw), lambda L, t: t.unique(**kw), lambda L, t: L.unique(t.t(), **kw)):
        same_outcome(lambda: f(seqlab, sl_leaf(x, False)), lambda: f(torch, th_leaf(x, False)))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["int64", "uint8", "float32", "bool"])
def test_unique_dim(rng, dtype, dim):
    x = values_of(rng, (6, 4), dtype)
    if dtype != "bool":
        x = (x.astype(np.float64) % 2).astype(NP[dtype])
    x[3] = x[1]
    x[:, 2] = x[:, 0]
    same_outcome(lambda: seqlab.unique(sl_leaf(x, False), dim=dim, return_inverse=True, return_counts=True),
                 lambda: torch.unique(th_leaf(x, False), dim=dim, return_inverse=True, return_counts=True))


def test_unique_edges():
    nan = float("nan")
    for f in (lambda L: L.unique(L.tensor([nan, 1.0, nan]), return_counts=True, return_inverse=True),
              lambda L: L.unique(L.tensor([]), return_inverse=True),
              lambda L: L.unique(L.tensor(5), return_inverse=True),
              lambda L: L.unique(L.zeros(0, 3), dim=0, return_inverse=True, return_counts=True),
              lambda L: L.unique(L.zeros(2, 0), dim=0),
              lambda L: L.unique(L.tensor([1, 2]), dim=3),
              lambda L: L.unique(L.tensor([[1.0, nan], [1.0, nan]]), dim=0, return_counts=True)):
        same_outcome(lambda: f(seqlab), lambda: f(torch), "0 sized dimensions|Dimension out of range")


@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize("dtype", ["int64", "int8", "float64", "bool"])
def test_unique_consecutive(rng, dtype, dim):
    x = values_of(rng, (6, 3), dtype)
    if dtype != "bool":
        x = (x.astype(np.float64) % 2).astype(NP[dtype])
    x[2] = x[1]
    kw = {"return_inverse": True, "return_counts": True}
    for f in (lambda L, t: L.unique_consecutive(t, dim=dim, **kw), lambda L, t: t.unique_consecutive(dim=dim),
              lambda L, t: L.unique_consecutive(t.reshape(-1), return_counts=True)):
        same_outcome(lambda: f(seqlab, sl_leaf(x, False)), lambda: f(torch, th_leaf(x, False)))


def test_unique_values_have_no_gradient():
    """torch's unique has no derivative (its backward raises); seqlab's values are detached."""
    x = seqlab.tensor([1.0, 2.0, 1.0], requires_grad=True)
    assert not seqlab.unique(x).requires_grad


# ------------------------------------------------------------------ loss targets
@pytest.mark.parametrize("target_dtype", ALL)
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_class_index_target_dtypes(rng, loss, target_dtype):
    """torch's CPU kernels take int64 and uint8 class indices and refuse the others in the same
    words; gradients equal for the accepted ones."""
    x = rng.standard_normal((5, 4)).astype(np.float32)
    t = np.array([0, 3, 1, 1, 2]).astype(NP[target_dtype])
    if target_dtype == "bool":
        t = np.array([0, 1, 1, 0, 1], dtype=bool)
    fn = {"cross_entropy": lambda L, a, b: L.nn.functional.cross_entropy(a, b),
          "nll_loss": lambda L, a, b: L.nn.functional.nll_loss(a.log_softmax(1), b)}[loss]
    if target_dtype in ("int64", "uint8"):
        assert_matches_torch(lambda a, b: fn(seqlab, a, b), lambda a, b: fn(torch, a, b), [x, t])
    else:
        assert_raises_like_torch(lambda: fn(seqlab, sl_leaf(x), sl_leaf(t, False)),
                                 lambda: fn(torch, th_leaf(x), th_leaf(t, False)),
                                 "expected target dtype to be Long or Byte, but got")


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_uint8_targets_of_spatial_inputs_are_refused_as_torch(rng, loss):
    """(N, C, d1) inputs: torch's nll_loss2d takes int64 targets only."""
    x = rng.standard_normal((2, 4, 3)).astype(np.float32)
    t = np.array([[0, 1, 3], [2, 2, 0]], dtype=np.uint8)
    fn = {"cross_entropy": lambda L, a, b: L.nn.functional.cross_entropy(a, b),
          "nll_loss": lambda L, a, b: L.nn.functional.nll_loss(a, b)}[loss]
    assert_raises_like_torch(lambda: fn(seqlab, sl_leaf(x), sl_leaf(t, False)),
                             lambda: fn(torch, th_leaf(x), th_leaf(t, False)), "expected scalar type Long but found Byte")
    assert_matches_torch(lambda a, b: fn(seqlab, a, b), lambda a, b: fn(torch, a, b), [x, t.astype(np.int64)])


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                                  "bitwise_right_shift"])
def test_bitwise_functions_take_a_number_as_input(name):
    """torch.bitwise_and(3, x) (torch's Scalar_Tensor overloads), as 3 & x."""
    x = np.array([[1, 2], [3, 4]], dtype=np.int32)
    same_outcome(lambda: getattr(seqlab, name)(3, sl_leaf(x)), lambda: getattr(torch, name)(3, th_leaf(x)))
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'input' \\(position 1\\) must be Tensor"):
        getattr(seqlab, name)(3, 4)
