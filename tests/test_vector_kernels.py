"""The SIMD kernel paths behind softmax/log_softmax (rows and other dims, forward and backward),
exact GELU, sums over a dim that is not the last and transposing copies (cpp/src/simd/,
cpp/src/ops/activation.cpp, reduce.cpp, elementwise.cpp, copy.cpp), against torch: row lengths around
the vector widths (4, 8, 16 lanes), tiny and huge rows, −inf and NaN entries, float64,
non-contiguous inputs, and the same result on one thread as on two (or three). The whole module runs
once per instruction set the CPU has (conftest.ISA_MODULES).
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn.functional as F
from conftest import DTYPE_IDS, FLOAT_DTYPES, assert_gradcheck, assert_matches_torch, randn, sl_leaf, sl_np

# lengths below, at and past 1, 2 and 4 vectors of every ISA, the attention/loss sizes, a long row
ROW_LENGTHS = [1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1000, 4096, 4097, 10000]


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    old = seqlab.get_num_threads()
    seqlab.set_num_threads(request.param)
    yield request.param
    seqlab.set_num_threads(old)


# ----------------------------------------------------------------------------------------
# softmax / log_softmax
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("D", ROW_LENGTHS)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_last_dim_row_lengths(rng, op, D, dtype):
    rows = max(1, 20000 // D)  # enough rows to be split over the pool
    x = randn(rng, (rows, D), dtype) * 3
    assert_matches_torch(lambda a: getattr(F, op)(a, -1), lambda a: getattr(TF, op)(a, -1), [x])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,dim", [((7, 9, 13), 0), ((7, 9, 13), 1), ((3, 200, 37), 1), ((300, 70), 0),
                                       ((2, 5000, 3), 1), ((64, 2, 40), 0), ((1, 8, 1000), 1), ((9, 1, 33), 1)])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_other_dims(rng, op, shape, dim, dtype):
    x = randn(rng, shape, dtype) * 3
    assert_matches_torch(lambda a: getattr(F, op)(a, dim), lambda a: getattr(TF, op)(a, dim), [x])


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_noncontiguous(rng, op, dim, layout):
    x = randn(rng, (37, 45), np.float32) * 3
    assert_matches_torch(lambda a: getattr(F, op)(a, dim), lambda a: getattr(TF, op)(a, dim), [x], layout=layout)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("D", [5, 8, 19, 64, 1000])
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_minus_inf_and_nan(rng, op, D, dim, dtype):
    """Masked entries give 0 (log: −inf) and zero gradient; a fully masked row and a row with a
    NaN or +inf come out NaN, as torch gives them. The gradients are compared on the finite rows."""
    x = randn(rng, (6, D), dtype) * 3
    x[0, ::3] = -np.inf        # partly masked
    x[1, :] = -np.inf          # fully masked
    x[2, D // 2] = np.nan      # NaN
    x[3, D - 1] = np.inf       # +inf
    x[4, 1:] = -np.inf         # one live entry
    if dim == 0:
        x = np.ascontiguousarray(x.T)
    ours = sl_np(getattr(F, op)(sl_leaf(x, False), dim))
    theirs = getattr(TF, op)(torch.from_numpy(x), dim).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, equal_nan=True)
    live = x[[0, 4, 5]] if dim == -1 else np.ascontiguousarray(x[:, [0, 4, 5]])
    assert_matches_torch(lambda a: getattr(F, op)(a, dim), lambda a: getattr(TF, op)(a, dim), [live])


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_same_on_one_and_two_threads(rng, op):
    x = seqlab.from_numpy(randn(rng, (300, 257), np.float32) * 3)
    got = []
    for n in (1, 2):
        seqlab.set_num_threads(n)
        got.append([sl_np(getattr(x, op)(d)) for d in (0, 1)])
    seqlab.set_num_threads(2)
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("C", [2, 10, 64, 1000, 4097])
def test_cross_entropy_class_counts(rng, C, dtype):
    x = randn(rng, (50, C), dtype) * 3
    t = rng.integers(0, C, size=50)
    assert_matches_torch(lambda a: F.cross_entropy(a, seqlab.from_numpy(t)),
                         lambda a: TF.cross_entropy(a, torch.from_numpy(t)), [x])


@pytest.mark.parametrize("name,dim", [("softmax", -1), ("log_softmax", -1), ("softmax", 0), ("log_softmax", 1)])
def test_gradcheck_softmax_kernels(rng, name, dim):
    x = randn(rng, (3, 11, 9), np.float64)
    assert_gradcheck(lambda a: getattr(F, name)(a, dim), [x])


# ----------------------------------------------------------------------------------------
# exact GELU (float32 has its own erfc approximation)
# ----------------------------------------------------------------------------------------

def test_gelu_dense_grid_float32():
    """All of the float line that matters, against float64 arithmetic: the float32 kernel is
    within a few ulp of x·Φ(x) (better than torch's own float erf in the tail x < 0). Not against
    torch's float32 GELU: torch picks another float kernel per CPU (AVX-512 vs AVX2), whose own
    errors (1.06e-6 near x = -3.2 on a Zen 4) are not seqlab's to match."""
    x = np.concatenate([np.linspace(-12, 12, 400001), [-1e4, -90, -30, -1e-30, 0.0, 1e-30, 30, 90, 1e4]])
    x32 = x.astype(np.float32)
    ours = sl_np(F.gelu(seqlab.from_numpy(x32))).astype(np.float64)
    ref = TF.gelu(torch.from_numpy(x32.astype(np.float64))).numpy()
    err = np.abs(ours - ref)
    assert np.all(err <= 4e-7 * np.maximum(1.0, np.abs(ref)) + 2e-6 * np.abs(ref))
    assert np.all(np.isnan(sl_np(F.gelu(seqlab.from_numpy(np.array([np.nan], np.float32))))))
    # gelu(−∞) = −∞·0 = NaN and gelu(∞) = ∞, as torch's float64 (exact) gives; torch's float32
    # kernel on AVX-512 CPUs returns NaN for +∞ too.
    inf = sl_np(F.gelu(seqlab.from_numpy(np.array([-np.inf, np.inf], np.float32))))
    np.testing.assert_array_equal(inf, TF.gelu(torch.tensor([-np.inf, np.inf], dtype=torch.float64)).numpy())


def _gelu_reference(x64):
    """x·Φ(x) and its derivative Φ(x) + x·φ(x) in float64, Φ(x) = ½ erfc(−x/√2), which keeps its
    relative accuracy in the tail x < 0 where x/2·(1 + erf(x/√2)) cancels (torch's gelu, and
    torch.special.ndtr: 0 at x = −9)."""
    x = torch.from_numpy(x64)
    cdf = 0.5 * torch.special.erfc(-x / np.sqrt(2.0))
    return (x * cdf).numpy(), (cdf + x * torch.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)).numpy()


def test_gelu_float32_relative_accuracy_grid(threads):
    """The float32 kernel against float64 x·Φ(x) on a dense grid, in relative terms: within 1.2e-6 for
    x ≥ −5 and 6e-6 in the tail down to −13 (where −x²/2 itself carries a rounding of up to 6e-8·x²/2);
    the gradient within 3e-7 absolute (torch's float32 kernel: 1.0 relative in the tail, 4% at −5).
    50,000 steps per unit: the SIMD lanes, not the scalar remainder, and the pool's chunks."""
    x = np.linspace(-13, 12, 1250001).astype(np.float32)
    ref, dref = _gelu_reference(x.astype(np.float64))
    sx = sl_leaf(x, True)
    y = F.gelu(sx)
    y.backward(seqlab.ones_like(y))
    ours, dours = sl_np(y).astype(np.float64), sl_np(sx.grad).astype(np.float64)
    rel = np.abs(ours - ref) / np.abs(ref).clip(min=np.finfo(np.float32).tiny)
    assert rel[x >= -5].max() <= 1.2e-6
    assert rel[x < -5].max() <= 6e-6
    assert np.abs(dours - dref).max() <= 3e-7


def _gelu_edge_values(dtype):
    fi = np.finfo(dtype)
    v = [0.0, -0.0, fi.tiny, -fi.tiny, fi.smallest_subnormal, -fi.smallest_subnormal, 1e-30, -1e-30, 0.75, -0.75,
         5.0, -5.0, 9.0, -9.0, 13.0, -13.0, 13.5, -13.5, 20.0, -20.0, 38.0, -38.0, 87.5, -87.5, 1e4, -1e4,
         fi.max, -fi.max, np.inf, -np.inf, np.nan]
    return np.array(v, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("copies", [1, 9, 700], ids=["scalar", "lanes", "pool"])
def test_gelu_edge_values(dtype, approximate, copies):
    """Signed zeros, subnormals, the smallest normal, tails where Φ or φ underflows, the largest finite
    numbers, ±inf and NaN, forward and backward, as torch computes them in float64 (float32 exact GELU:
    as x·Φ(x) in float64; results below the normal range may flush to 0). gelu(−0.0) is −0.0, the sign
    x·Φ(x) has and torch's float64 gives (torch's float32 kernel returns +0.0). Repeated copies put
    every value in the SIMD lanes (9: 279 elements) and in the pool's chunks on two threads (700)."""
    x = np.tile(_gelu_edge_values(dtype), copies)
    sx = sl_leaf(x, True)
    y = F.gelu(sx, approximate=approximate)
    y.backward(seqlab.ones_like(y))
    ours, dours = sl_np(y), sl_np(sx.grad)
    if dtype == np.float32 and approximate == "none":
        ref, dref = _gelu_reference(x.astype(np.float64))
        dref[np.isinf(x)] = np.nan  # ∞·φ(∞) = ∞·0, as torch
    else:  # the formula torch evaluates, in float64 (the tanh form in float32: torch's float32, which
        # loses the tail to 1 + tanh u → 0 exactly as seqlab does)
        tx = torch.from_numpy(x if approximate == "tanh" else x.astype(np.float64)).requires_grad_()
        ty = TF.gelu(tx, approximate=approximate)
        ty.backward(torch.ones_like(ty))
        ref, dref = ty.detach().numpy(), tx.grad.numpy()
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    atol = np.finfo(dtype).tiny
    np.testing.assert_allclose(ours, ref.astype(dtype), rtol=rtol, atol=atol)
    # gelu' crosses 0 at x ≈ −0.75, where its two terms cancel: an absolute bound there
    np.testing.assert_allclose(dours, dref.astype(dtype), rtol=rtol, atol=3e-7 if dtype == np.float32 else 2e-15)
    zeros = x == 0
    np.testing.assert_array_equal(np.signbit(ours[zeros]), np.signbit(x[zeros]))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("n", [1, 7, 9, 17, 33, 100003])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_lengths_forward_and_backward(rng, n, approximate, dtype):
    assert_matches_torch(lambda a: F.gelu(a, approximate=approximate), lambda a: TF.gelu(a, approximate=approximate),
                         [randn(rng, (n,), dtype) * 4])


def test_gelu_backward_expanded_upstream(rng):
    """An expanded (stride-0) upstream gradient reaches the SIMD kernel made contiguous."""
    x = randn(rng, (5, 6), np.float64)
    sx, tx = sl_leaf(x, True), torch.from_numpy(x).requires_grad_()
    F.gelu(sx).backward(seqlab.ones(6, dtype=seqlab.float64).expand(5, 6))
    TF.gelu(tx).backward(torch.ones(6).double().expand(5, 6))
    np.testing.assert_allclose(sl_np(sx.grad), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gradcheck_gelu_kernel(rng, approximate):
    assert_gradcheck(lambda a: F.gelu(a, approximate=approximate), [randn(rng, (40,), np.float64) * 3])


# ----------------------------------------------------------------------------------------
# sums over a dim that is not the last
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,dim", [((1000, 1000), 0), ((1000, 1000), 1), ((65, 7), 0), ((130, 33), 0),
                                       ((3, 200, 37), 1), ((5, 129, 100), 1), ((2, 3, 300), 0), ((1, 1000), 0),
                                       ((4000, 3), 0), ((7, 64, 9), (0, 2)), ((300, 500), (0, 1))])
def test_sum_over_leading_dims(rng, shape, dim, dtype, threads):
    x = randn(rng, shape, dtype)
    assert_matches_torch(lambda a: a.sum(dim), lambda a: a.sum(dim), [x])
    assert_matches_torch(lambda a: a.sum(dim, keepdim=True), lambda a: a.sum(dim, keepdim=True), [x], layout="T")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_sums_same_on_one_two_and_three_threads(rng, dtype):
    """A reduction's bits do not depend on how many threads share it (fixed chunks, joined in
    order), on every instruction set (this module runs once per ISA the CPU has)."""
    x = seqlab.from_numpy(randn(rng, (777, 1001), dtype))
    long_row = seqlab.from_numpy(randn(rng, (3_000_001,), dtype))
    got = []
    for n in (1, 2, 3):
        seqlab.set_num_threads(n)
        got.append([sl_np(x.sum(0)), sl_np(x.sum(1)), sl_np(x.sum()), sl_np(x.mean()), sl_np(long_row.sum()),
                    sl_np(long_row.norm()), sl_np(seqlab.linalg.vector_norm(long_row, 1))])
    seqlab.set_num_threads(2)
    for other in got[1:]:
        for a, b in zip(got[0], other):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_pointwise_kernels_same_on_one_two_and_three_threads(rng, dtype):
    """Every element goes through the same vector code wherever the pool's chunks end (the last
    partial vector through a padded buffer, not a scalar loop), so the bits do not depend on the
    thread count. A scalar tail of float GELU, ½x(1 + erf), was 1e-4 off near x = −3.6."""
    x = seqlab.from_numpy((randn(rng, (1_000_003,), dtype) * 4)).requires_grad_()
    ops = {"exp": lambda t: t.exp(), "log": lambda t: t.abs().log(), "tanh": lambda t: t.tanh(),
           "sigmoid": lambda t: t.sigmoid(), "relu": F.relu, "gelu": F.gelu,
           "gelu_tanh": lambda t: F.gelu(t, approximate="tanh")}
    got = []
    for n in (1, 2, 3):
        seqlab.set_num_threads(n)
        row = []
        for name, f in ops.items():
            x.grad = None
            y = f(x)
            y.sum().backward()
            row += [sl_np(y), sl_np(x.grad)]
        got.append(row)
    seqlab.set_num_threads(2)
    for other in got[1:]:
        for a, b in zip(got[0], other):
            np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------------------
# transposing copies
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_], ids=["f32", "f64", "i64", "bool"])
@pytest.mark.parametrize("shape,perm", [((1000, 1000), (1, 0)), ((33, 4097), (1, 0)), ((17, 300), (1, 0)),
                                        ((4, 50, 70), (0, 2, 1)), ((50, 4, 70), (2, 1, 0)), ((6, 40, 3, 50), (0, 3, 2, 1)),
                                        ((3, 64, 129), (2, 0, 1)), ((300, 1, 200), (2, 1, 0))])
def test_transposing_copy(rng, shape, perm, dtype, threads):
    a = (rng.standard_normal(shape) * 100).astype(dtype)
    got = sl_np(seqlab.from_numpy(a).permute(*perm).contiguous())
    np.testing.assert_array_equal(got, torch.from_numpy(a).permute(*perm).contiguous().numpy())


def test_transposing_copy_into_views_and_with_conversion(rng):
    a = rng.standard_normal((300, 200)).astype(np.float32)
    # copy_ into a transposed destination, and a dtype conversion on the way
    dst = seqlab.zeros(200, 300, dtype=seqlab.float64)
    dst.copy_(seqlab.from_numpy(a).t())
    np.testing.assert_array_equal(sl_np(dst), a.T.astype(np.float64))
    big = seqlab.zeros(300, 400)
    view = big[:, ::2]  # strided destination
    view.copy_(seqlab.from_numpy(np.ascontiguousarray(a)).t().t())
    np.testing.assert_array_equal(sl_np(big)[:, ::2], a)
    # a broadcast (stride 0) source dim next to the transposed pair
    b = rng.standard_normal((1, 120, 90)).astype(np.float32)
    got = sl_np(seqlab.from_numpy(b).expand(3, 120, 90).transpose(1, 2).contiguous())
    np.testing.assert_array_equal(got, np.broadcast_to(b, (3, 120, 90)).transpose(0, 2, 1))
    # the backward of a transposing copy
    assert_matches_torch(lambda t: t.t().contiguous() * 2, lambda t: t.t().contiguous() * 2,
                         [rng.standard_normal((70, 90)).astype(np.float32)])
