"""torch's shape, indexing and math functions that seqlab composes from its primitives
(seqlab/_shape.py, seqlab/_math.py), each run on the same data through seqlab and torch: values,
dtypes, shapes and gradients (float32 and float64, contiguous and strided inputs, size-0 and size-1
dims), the Tensor methods where torch has them, float64 gradchecks, and torch's errors."""
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_gradcheck, assert_matches_torch, assert_raises_like_torch

LAYOUTS = ["contig", "T", "slice"]


def both(fn):
    """fn(lib, *tensors) as the (seqlab, torch) pair assert_matches_torch takes."""
    return (lambda *t: fn(seqlab, *t)), (lambda *t: fn(torch, *t))


# name, fn(lib, *tensors), input shapes
SHAPE_CASES = [
    ("hstack", lambda L, a, b: L.hstack([a, b]), [(3, 2), (3, 4)]),
    ("hstack_1d", lambda L, a, b: L.hstack((a, b)), [(3,), (2,)]),
    ("vstack", lambda L, a, b: L.vstack([a, b]), [(2, 4), (4,)]),
    ("dstack", lambda L, a, b: L.dstack([a, b]), [(2, 3), (2, 3, 2)]),
    ("column_stack", lambda L, a, b, c: L.column_stack([a, b, c]), [(3,), (3, 2), (3,)]),
    ("atleast_1d", lambda L, a: L.atleast_1d(a), [()]),
    ("atleast_2d", lambda L, a, b: L.atleast_2d(a, b), [(), (4,)]),
    ("atleast_3d", lambda L, a, b, c: L.atleast_3d([a, b, c]), [(2,), (2, 3), (2, 3, 4)]),
    ("tensor_split_n", lambda L, a: L.tensor_split(a, 3, dim=1), [(2, 7)]),
    ("tensor_split_idx", lambda L, a: L.tensor_split(a, [1, 4, -1, 10], 1), [(2, 7)]),
    ("tensor_split_method", lambda L, a: a.tensor_split(L.tensor([2, 3]), dim=-1), [(2, 7)]),
    ("hsplit", lambda L, a: L.hsplit(a, 2), [(3, 4)]),
    ("hsplit_1d", lambda L, a: a.hsplit([1, 3]), [(6,)]),
    ("vsplit", lambda L, a: L.vsplit(a, [1]), [(3, 4)]),
    ("movedim", lambda L, a: L.movedim(a, 0, -1), [(2, 3, 4)]),
    ("movedim_many", lambda L, a: a.movedim((0, -1), (2, 0)), [(2, 3, 4, 5)]),
    ("moveaxis", lambda L, a: L.moveaxis(a, [1], [0]), [(2, 3, 4)]),
    ("swapdims", lambda L, a: a.swapdims(0, -1), [(2, 3, 4)]),
    ("broadcast_to", lambda L, a: L.broadcast_to(a, (2, 3, 4)), [(3, 1)]),
    ("broadcast_to_method", lambda L, a: a.broadcast_to((5, -1)), [(4,)]),
    ("broadcast_tensors", lambda L, a, b, c: L.broadcast_tensors(a, b, c), [(3, 1), (1, 4), ()]),
    ("tile", lambda L, a: L.tile(a, (2,)), [(2, 3)]),
    ("tile_more", lambda L, a: L.tile(a, (2, 1, 3)), [(2, 3)]),
    ("tile_method", lambda L, a: a.tile(2, 2), [(3,)]),
    ("unflatten", lambda L, a: L.unflatten(a, 1, (2, -1)), [(3, 6)]),
    ("unflatten_method", lambda L, a: a.unflatten(-1, (3, 2)), [(3, 6)]),
    ("fliplr", lambda L, a: L.fliplr(a), [(3, 4, 2)]),
    ("flipud", lambda L, a: a.flipud(), [(3, 4)]),
    ("rot90", lambda L, a: L.rot90(a), [(3, 4)]),
    ("rot90_k2", lambda L, a: L.rot90(a, 2, [1, 2]), [(2, 3, 4)]),
    ("rot90_k3", lambda L, a: a.rot90(-1, (0, 1)), [(3, 4)]),
    ("rot90_k0", lambda L, a: a.rot90(4, (1, 0)), [(3, 4)]),
    ("rot90_back", lambda L, a: a.rot90(1, (1, 0)), [(3, 4)]),
    ("diag_1d", lambda L, a: L.diag(a), [(4,)]),
    ("diag_1d_offset", lambda L, a: L.diag(a, 2), [(3,)]),
    ("diag_1d_negative", lambda L, a: a.diag(-1), [(3,)]),
    ("diag_2d", lambda L, a: L.diag(a), [(3, 4)]),
    ("diag_2d_offset", lambda L, a: a.diag(1), [(3, 4)]),
    ("diag_2d_below", lambda L, a: a.diag(-2), [(3, 4)]),
    ("diag_2d_outside", lambda L, a: a.diag(5), [(3, 4)]),
    ("diagonal", lambda L, a: L.diagonal(a), [(3, 4)]),
    ("diagonal_dims", lambda L, a: L.diagonal(a, 1, 2, 0), [(4, 2, 3)]),
    ("diagonal_method", lambda L, a: a.diagonal(offset=-1, dim1=-1, dim2=-2), [(2, 4, 3)]),
    ("diag_embed", lambda L, a: L.diag_embed(a), [(2, 3)]),
    ("diag_embed_offset", lambda L, a: L.diag_embed(a, 1, 0, 2), [(2, 3)]),
    ("diag_embed_method", lambda L, a: a.diag_embed(-2, dim1=-1, dim2=0), [(2, 3)]),
    ("trace", lambda L, a: L.trace(a), [(3, 4)]),
    ("trace_method", lambda L, a: a.trace(), [(4, 2)]),
    ("outer", lambda L, a, b: L.outer(a, b), [(3,), (4,)]),
    ("ger", lambda L, a, b: a.ger(b), [(3,), (1,)]),
    ("kron", lambda L, a, b: L.kron(a, b), [(2, 3), (3, 2)]),
    ("kron_ranks", lambda L, a, b: a.kron(b.contiguous()), [(2,), (3, 2, 2)]),  # torch's fails on strided b
    ("tensordot_int", lambda L, a, b: L.tensordot(a, b, 1), [(2, 3), (3, 4)]),
    ("tensordot_2", lambda L, a, b: L.tensordot(a, b), [(2, 3, 4), (3, 4, 5)]),
    ("tensordot_lists", lambda L, a, b: L.tensordot(a, b, dims=([1, 0], [0, 2])), [(3, 4, 5), (4, 2, 3)]),
    ("tensordot_0", lambda L, a, b: L.tensordot(a, b, 0), [(2,), (3,)]),
    ("cross", lambda L, a, b: L.cross(a, b, dim=1), [(4, 3), (4, 3)]),
    ("cross_broadcast", lambda L, a, b: a.cross(b, -1), [(2, 1, 3), (1, 4, 3)]),
    ("linalg_cross", lambda L, a, b: L.linalg.cross(a, b), [(2, 3), (2, 3)]),
    ("linalg_cross_dim", lambda L, a, b: L.linalg.cross(a, b, dim=0), [(3, 5), (3, 1)]),
    ("block_diag", lambda L, a, b, c, d: L.block_diag(a, b, c, d), [(2, 3), (), (4,), (1, 2)]),
    ("meshgrid_ij", lambda L, a, b, c: L.meshgrid(a, b, c, indexing="ij"), [(2,), (3,), (4,)]),
    ("meshgrid_xy", lambda L, a, b, c: L.meshgrid(a, b, c, indexing="xy"), [(2,), (3,), (4,)]),
    ("meshgrid_list", lambda L, a, b: L.meshgrid([a, b], indexing="xy"), [(), (3,)]),
    ("cartesian_prod", lambda L, a, b, c: L.cartesian_prod(a, b, c), [(2,), (3,), (2,)]),
    ("cartesian_prod_one", lambda L, a: L.cartesian_prod(a), [(3,)]),
    ("combinations", lambda L, a: L.combinations(a), [(4,)]),
    ("combinations_r3", lambda L, a: L.combinations(a, 3, with_replacement=True), [(3,)]),
    ("combinations_too_many", lambda L, a: L.combinations(a, r=5), [(3,)]),
    ("take", lambda L, a: L.take(a, L.tensor([[0, 5], [-1, 3]])), [(2, 3)]),
    ("take_method", lambda L, a: a.take(L.tensor([2, 2, 0])), [(4,)]),
    ("take_along_dim", lambda L, a: L.take_along_dim(a, L.tensor([[0, 2], [1, 1]]), 1), [(2, 3)]),
    ("take_along_dim_broadcast", lambda L, a: a.take_along_dim(L.tensor([[[0], [2]]]), dim=-1), [(3, 2, 4)]),
    # (torch's flat take_along_dim views its input, which fails for a strided one)
    ("take_along_dim_flat", lambda L, a: L.take_along_dim(a.contiguous(), L.tensor([5, 0, 2])), [(2, 3)]),
    ("take_along_argsort", lambda L, a: L.take_along_dim(a, a.argsort(dim=0), dim=0), [(4, 3)]),
    ("masked_select", lambda L, a: L.masked_select(a, a > 0), [(3, 4)]),
    ("masked_select_broadcast", lambda L, a: a.masked_select(L.tensor([True, False, True, True])), [(3, 4)]),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, fn, shapes", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_shape_functions_match_torch(rng, name, fn, shapes, dtype, layout):
    inputs = [rng.standard_normal(s).astype(dtype) for s in shapes]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_matches_torch(*both(fn), inputs, layout=layout)


@pytest.mark.parametrize("name, fn, shapes", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_shape_functions_gradcheck(rng, name, fn, shapes):
    inputs = [rng.standard_normal(s) for s in shapes]
    assert_gradcheck(lambda *t: fn(seqlab, *t), inputs)


# integers, bools, mixed dtypes, size-0 and size-1 dims
EDGE_CASES = [
    ("hstack_ints", lambda L, a, b: L.hstack([a, b]), [np.arange(3), np.ones(2, dtype=np.float32)]),
    ("vstack_empty", lambda L, a, b: L.vstack([a, b]), [np.zeros((0, 3)), np.ones((2, 3))]),
    ("block_diag_mixed", lambda L, a, b: L.block_diag(a, b), [np.arange(4).reshape(2, 2), np.ones(3)]),
    ("block_diag_empty", lambda L, a, b: L.block_diag(a, b), [np.zeros((0, 2)), np.ones((2, 0))]),
    ("block_diag_none", lambda L: L.block_diag(), []),
    ("diag_ints", lambda L, a: L.diag(a, 1), [np.arange(3)]),
    ("diag_empty", lambda L, a: L.diag(a), [np.zeros(0)]),
    ("diagonal_empty", lambda L, a: L.diagonal(a), [np.zeros((0, 3))]),
    ("trace_ints", lambda L, a: L.trace(a), [np.arange(9).reshape(3, 3)]),
    ("trace_empty", lambda L, a: L.trace(a), [np.zeros((0, 2))]),
    ("outer_mixed", lambda L, a, b: L.outer(a, b), [np.arange(3), np.ones(2)]),
    ("kron_ints", lambda L, a, b: L.kron(a, b), [np.arange(4).reshape(2, 2), np.arange(2)]),
    ("tensordot_empty", lambda L, a, b: L.tensordot(a, b, 1), [np.zeros((2, 0)), np.zeros((0, 3))]),
    ("meshgrid_empty", lambda L, a, b: L.meshgrid(a, b, indexing="ij"), [np.zeros(0), np.ones(2)]),
    ("combinations_ints", lambda L, a: L.combinations(a, 0), [np.arange(3)]),
    ("take_empty", lambda L, a: L.take(a, L.tensor([], dtype=L.int64)), [np.ones((2, 2))]),
    ("masked_select_ints", lambda L, a: L.masked_select(a, a > 2), [np.arange(6).reshape(2, 3)]),
    ("argwhere", lambda L, a: L.argwhere(a), [np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])]),
    ("argwhere_method", lambda L, a: a.argwhere(), [np.array([True, False, True])]),
    ("argwhere_0d", lambda L, a: L.argwhere(a), [np.array(3)]),
    ("tensor_split_empty", lambda L, a: L.tensor_split(a, 3), [np.zeros((2, 4))]),
    ("unflatten_zero", lambda L, a: L.unflatten(a, 0, (0, 5)), [np.zeros((0, 2))]),
    ("rot90_ints", lambda L, a: L.rot90(a), [np.arange(6).reshape(2, 3)]),
    ("movedim_0d", lambda L, a: L.movedim(a, (), ()), [np.array(2.0)]),
    ("broadcast_size1", lambda L, a, b: L.broadcast_tensors(a, b), [np.ones((1, 3)), np.ones((0, 1))]),
    ("masked_select_0d", lambda L, a: L.masked_select(a, a > 0), [np.array(1.5)]),
    ("broadcast_to_0d", lambda L, a: L.broadcast_to(a, ()), [np.array(1.5)]),
    ("tensordot_size1", lambda L, a, b: L.tensordot(a, b, 1), [np.ones((3, 1)), np.arange(6.0).reshape(3, 2)]),
    ("tensordot_size1_b", lambda L, a, b: L.tensordot(a, b, ([0, 1], [1, 0])), [np.ones((2, 3)), np.ones((1, 2))]),
    ("unflatten_zero_infer", lambda L, a: L.unflatten(a, 1, (1, -1)), [np.zeros((2, 0))]),
    ("cross_ints", lambda L, a, b: L.linalg.cross(a, b), [np.arange(6).reshape(2, 3), np.arange(3, 9).reshape(2, 3)]),
]


@pytest.mark.parametrize("name, fn, inputs", EDGE_CASES, ids=[c[0] for c in EDGE_CASES])
def test_shape_functions_edge_cases_match_torch(name, fn, inputs):
    assert_matches_torch(*both(fn), inputs)


def test_broadcast_shapes_matches_torch():
    for shapes in [((2, 1), (3,)), ((), (1,), (4, 1, 1)), (3, (2, 3)), ((0, 1), (1, 5)), ()]:
        assert seqlab.broadcast_shapes(*shapes) == tuple(torch.broadcast_shapes(*shapes))


def test_meshgrid_without_indexing_warns_as_torch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = seqlab.meshgrid(seqlab.arange(2), seqlab.arange(3))
        want = torch.meshgrid(torch.arange(2), torch.arange(3))
    assert [tuple(g.shape) for g in got] == [tuple(w.shape) for w in want]
    texts = [str(w.message) for w in caught]
    assert sum(t.startswith("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                            "argument.") for t in texts) == 2


def test_cross_without_dim_warns_and_takes_the_first_size_three_dim(rng):
    a, b = rng.standard_normal((3, 3, 2)), rng.standard_normal((3, 3, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_matches_torch(*both(lambda L, x, y: L.cross(x, y)), [a, b])
    assert sum("Using torch.cross without specifying the dim arg is deprecated" in str(w.message)
               for w in caught) == 2


def test_out_of_range_indices_raise():
    """torch's CPU gather reads out of bounds here without a word; seqlab refuses."""
    for index in ([[-3]], [[2]]):
        with pytest.raises(IndexError, match="take_along_dim.*out of bounds for dimension 1 with size 2"):
            seqlab.take_along_dim(seqlab.ones(3, 2), seqlab.tensor(index), 1)


def test_views_share_memory_as_torchs():
    x = seqlab.zeros(2, 3, 4)
    for view in (x.movedim(0, -1), x.broadcast_to((5, 2, 3, 4)), x.unflatten(-1, (2, 2)), x.tensor_split(2, 1)[0],
                 seqlab.atleast_3d(x), x.swapdims(0, 1)):
        x.add_(1)
        assert float(view.reshape(-1)[0]) == float(x.reshape(-1)[0])


SHAPE_ERRORS = [
    (lambda L: L.hstack(L.ones(2)), "hstack"),
    (lambda L: L.broadcast_tensors(L.ones(2), 3), "broadcast_tensors.*expected Tensor as element 1"),
    (lambda L: L.atleast_1d(L.ones(2), 3), "atleast_1d.*expected Tensor as element 1"),
    (lambda L: L.vstack([]), "vstack"),
    (lambda L: L.tensor_split(L.tensor(1.0), 2), "tensor_split"),
    (lambda L: L.tensor_split(L.ones(3), 0), "sections"),
    (lambda L: L.tensor_split(L.ones(3), 2, dim=1), "Dimension out of range"),
    (lambda L: L.hsplit(L.ones(3, 4), 3), "hsplit.*divisible"),
    (lambda L: L.vsplit(L.ones(4), 2), "vsplit"),
    (lambda L: L.movedim(L.ones(2, 3), (0, 1), (0,)), "movedim"),
    (lambda L: L.movedim(L.ones(2, 3), (0, 0), (0, 1)), "movedim|repeated|duplicates"),
    (lambda L: L.broadcast_to(L.ones(2, 3), (4,)), "expand"),
    (lambda L: L.broadcast_tensors(L.ones(2, 3), L.ones(4)), "3.*4|4.*3"),
    (lambda L: L.broadcast_shapes((2, 3), (4,)), ""),
    (lambda L: L.unflatten(L.ones(6), 0, (4, -1)), "unflatten"),
    (lambda L: L.fliplr(L.ones(3)), ">= 2-d"),
    (lambda L: L.flipud(L.tensor(1.0)), ">= 1-d"),
    (lambda L: L.rot90(L.ones(2, 2), 1, (0, 0)), "rotation dims"),
    (lambda L: L.rot90(L.ones(2, 2), 1, (0, 1, 2)), "rotation dims"),
    (lambda L: L.diag(L.ones(2, 2, 2)), "diag"),
    (lambda L: L.diagonal(L.ones(2, 2), 0, 1, 1), "diagonal dimensions cannot be identical"),
    (lambda L: L.diagonal(L.ones(2, 2), 0, 0, 2), "Dimension out of range"),
    (lambda L: L.diag_embed(L.ones(2), 0, 0, 0), "diagonal dimensions cannot be identical"),
    (lambda L: L.trace(L.ones(3)), "trace: expected a matrix"),
    (lambda L: L.outer(L.ones(3), L.ones(2, 2)), "outer"),
    (lambda L: L.tensordot(L.ones(2, 3), L.ones(4, 3), 1), "contracted dimensions"),
    (lambda L: L.tensordot(L.ones(2, 3), L.ones(3, dtype=L.float64), 1), "same dtype"),
    (lambda L: L.cross(L.ones(2, 4), L.ones(2, 4), dim=1), "cross.*length 3"),
    (lambda L: L.linalg.cross(L.ones(3), L.ones(2, 3)), "same number of dimensions"),
    (lambda L: L.linalg.cross(L.ones(3), L.ones(3, dtype=L.float64)), "float64|Double"),
    (lambda L: L.block_diag(L.ones(1, 1, 1)), "block_diag.*2 or fewer"),
    (lambda L: L.meshgrid(L.ones(2), L.ones(2), indexing="yx"), "indexing"),
    (lambda L: L.meshgrid(L.ones(2, 2), indexing="ij"), "meshgrid"),
    (lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.float64), indexing="ij"), "meshgrid.*same dtype"),
    (lambda L: L.cartesian_prod(L.ones(2, 2)), "1D vector"),
    (lambda L: L.combinations(L.ones(2, 2)), "1D vector"),
    (lambda L: L.combinations(L.ones(2), -1), "non-negative"),
    (lambda L: L.take(L.ones(3), L.tensor([3])), "out of range"),
    (lambda L: L.take(L.ones(3), L.tensor([1.0])), "long"),
    (lambda L: L.take_along_dim(L.ones(3, 2), L.tensor([0]), 1), "take_along_dim.*same number of dimensions"),
    (lambda L: L.trace(L.ones(2, 2, dtype=L.bool)), "trace.*Bool"),
    (lambda L: L.masked_select(L.ones(3), L.tensor([1, 0, 1])), "masked_select.*Bool"),
]


@pytest.mark.parametrize("fn, message", SHAPE_ERRORS)
def test_shape_function_errors_match_torch(fn, message):
    assert_raises_like_torch(lambda: fn(seqlab), lambda: fn(torch), message)


# ---------------------------------------------------------------- math and reductions (seqlab/_math.py)

def ties(rng, shape, dtype):
    """Small integers as floats: many ties, for the gradients of amax / amin / cummax."""
    return rng.integers(-2, 3, size=shape).astype(dtype)


def positive(rng, shape, dtype):
    return rng.uniform(0.2, 3.0, size=shape).astype(dtype)


# name, fn(lib, *tensors), [make(rng, dtype) per input]
MATH_CASES = [
    ("amax", lambda L, a: L.amax(a), [lambda r, d: ties(r, (3, 4), d)]),
    ("amax_dim", lambda L, a: L.amax(a, 1), [lambda r, d: ties(r, (3, 4), d)]),
    ("amax_dims", lambda L, a: a.amax((0, -1), keepdim=True), [lambda r, d: ties(r, (3, 2, 4), d)]),
    ("amin_dim", lambda L, a: L.amin(a, -1, True), [lambda r, d: ties(r, (3, 4), d)]),
    ("amin_all", lambda L, a: a.amin(), [lambda r, d: ties(r, (3, 4), d)]),
    ("aminmax", lambda L, a: L.aminmax(a), [lambda r, d: ties(r, (3, 4), d)]),
    ("aminmax_dim", lambda L, a: a.aminmax(dim=0, keepdim=True), [lambda r, d: ties(r, (3, 4), d)]),
    ("nansum", lambda L, a: L.nansum(a), [lambda r, d: with_nans(r, (3, 4), d)]),
    ("nansum_dim", lambda L, a: a.nansum(1, keepdim=True), [lambda r, d: with_nans(r, (3, 4), d)]),
    ("nanmean", lambda L, a: L.nanmean(a), [lambda r, d: with_nans(r, (3, 4), d)]),
    ("nanmean_dim", lambda L, a: a.nanmean(dim=(0,)), [lambda r, d: with_nans(r, (3, 4), d)]),
    ("diff", lambda L, a: L.diff(a), [lambda r, d: r.standard_normal((3, 5)).astype(d)]),
    ("diff_n", lambda L, a: a.diff(n=2, dim=0), [lambda r, d: r.standard_normal((4, 3)).astype(d)]),
    ("diff_pad", lambda L, a, b, c: L.diff(a, 2, -1, prepend=b, append=c),
     [lambda r, d: r.standard_normal((3, 4)).astype(d), lambda r, d: r.standard_normal((3, 1)).astype(d),
      lambda r, d: r.standard_normal((3, 2)).astype(d)]),
    ("diff_too_far", lambda L, a: L.diff(a, 4), [lambda r, d: r.standard_normal((2, 3)).astype(d)]),
    ("lerp_scalar", lambda L, a, b: L.lerp(a, b, 0.3), [lambda r, d: r.standard_normal((3, 4)).astype(d)] * 2),
    ("lerp_scalar_big", lambda L, a, b: a.lerp(b, 0.75), [lambda r, d: r.standard_normal((3, 4)).astype(d)] * 2),
    ("lerp_tensor", lambda L, a, b, w: L.lerp(a, b, w),
     [lambda r, d: r.standard_normal((3, 4)).astype(d), lambda r, d: r.standard_normal((4,)).astype(d),
      lambda r, d: r.uniform(-0.5, 1.5, (3, 1)).astype(d)]),
    ("xlogy", lambda L, a, b: L.xlogy(a, b),
     [lambda r, d: r.standard_normal((3, 4)).astype(d), lambda r, d: positive(r, (3, 4), d)]),
    ("xlogy_zeros", lambda L, a, b: a.xlogy(b),
     [lambda r, d: np.array([0.0, 0.0, 1.5, 2.0, 0.0], dtype=d), lambda r, d: np.array([2.0, 0.5, 3.0, 0.5, 1.0], d)]),
    ("xlogy_scalar", lambda L, a: L.xlogy(a, 3), [lambda r, d: r.standard_normal((4,)).astype(d)]),
    ("xlogy_scalar_first", lambda L, a: L.xlogy(2, a), [lambda r, d: positive(r, (4,), d)]),
    ("logaddexp", lambda L, a, b: L.logaddexp(a, b),
     [lambda r, d: r.standard_normal((3, 4)).astype(d) * 50, lambda r, d: r.standard_normal((4,)).astype(d) * 50]),
    ("logaddexp_ties", lambda L, a, b: a.logaddexp(b), [lambda r, d: ties(r, (6,), d)] * 2),
    ("logaddexp2", lambda L, a, b: L.logaddexp2(a, b),
     [lambda r, d: r.standard_normal((3, 4)).astype(d) * 50, lambda r, d: r.standard_normal((3, 4)).astype(d)]),
    ("hypot", lambda L, a, b: L.hypot(a, b), [lambda r, d: r.standard_normal((3, 4)).astype(d),
                                              lambda r, d: r.standard_normal((1, 4)).astype(d)]),
    ("hypot_huge", lambda L, a, b: a.hypot(b), [lambda r, d: np.array([3e30, -4e30, 1e-30], dtype=d),
                                                lambda r, d: np.array([4e30, 3e30, 0.0], dtype=d)]),
    ("copysign", lambda L, a, b: L.copysign(a, b), [lambda r, d: r.standard_normal((3, 4)).astype(d),
                                                    lambda r, d: r.standard_normal((4,)).astype(d)]),
    ("copysign_scalar", lambda L, a: a.copysign(-1.0), [lambda r, d: r.standard_normal((3, 4)).astype(d)]),
    ("nan_to_num", lambda L, a: L.nan_to_num(a), [lambda r, d: special(d)]),
    ("nan_to_num_values", lambda L, a: a.nan_to_num(nan=1.5, posinf=9.0, neginf=-9.0), [lambda r, d: special(d)]),
    ("sinh", lambda L, a: L.sinh(a), [lambda r, d: r.standard_normal((3, 4)).astype(d) * 3]),
    ("sinh_tiny", lambda L, a: a.sinh(), [lambda r, d: np.array([1e-20, -3e-9, 0.0, 1e-4], dtype=d)]),
    ("cosh", lambda L, a: a.cosh(), [lambda r, d: r.standard_normal((3, 4)).astype(d) * 3]),
    ("asinh", lambda L, a: L.asinh(a), [lambda r, d: r.standard_normal((3, 4)).astype(d) * 5]),
    ("asinh_edges", lambda L, a: a.asinh(), [lambda r, d: np.array([0.0, 1e-20, -1e-9, 1e4, -1e6, 1e30], dtype=d)]),
    ("arcsinh", lambda L, a: L.arcsinh(a), [lambda r, d: r.standard_normal((5,)).astype(d)]),
    ("acosh", lambda L, a: L.acosh(a), [lambda r, d: r.uniform(1.01, 20.0, (3, 4)).astype(d)]),
    ("acosh_edges", lambda L, a: a.acosh(), [lambda r, d: np.array([1.0 + 1e-3, 2.0, 1e4, 1e6, 1e30], dtype=d)]),
    ("atanh", lambda L, a: L.atanh(a), [lambda r, d: r.uniform(-0.99, 0.99, (3, 4)).astype(d)]),
    ("atanh_edges", lambda L, a: a.arctanh(), [lambda r, d: np.array([0.0, 1e-20, -1e-6, 0.999, -0.999], dtype=d)]),
    ("atan", lambda L, a: L.atan(a), [lambda r, d: r.standard_normal((3, 4)).astype(d) * 4]),
    ("atan_edges", lambda L, a: a.arctan(), [lambda r, d: np.array([0.0, 1e-20, 0.66, -0.67, 2.414, -2.415, 1e4, -1e30,
                                                                    np.inf], dtype=d)]),
    ("atan2", lambda L, a, b: L.atan2(a, b), [lambda r, d: r.standard_normal((3, 4)).astype(d),
                                              lambda r, d: r.standard_normal((4,)).astype(d)]),
    ("arctan2", lambda L, a, b: a.arctan2(b), [lambda r, d: r.standard_normal((3, 1)).astype(d),
                                               lambda r, d: r.standard_normal((3, 4)).astype(d) * 1e-3]),
    ("asin", lambda L, a: L.asin(a), [lambda r, d: r.uniform(-0.99, 0.99, (3, 4)).astype(d)]),
    ("arcsin", lambda L, a: a.arcsin(), [lambda r, d: np.array([0.0, 1e-20, -0.5, 0.999, -0.9999], dtype=d)]),
    ("acos", lambda L, a: L.acos(a), [lambda r, d: r.uniform(-0.99, 0.99, (3, 4)).astype(d)]),
    ("arccos", lambda L, a: a.arccos(), [lambda r, d: np.array([0.0, 1e-20, -0.5, 0.999, -0.9999], dtype=d)]),
    ("var_mean", lambda L, a: L.var_mean(a), [lambda r, d: r.standard_normal((3, 4)).astype(d)]),
    ("var_mean_dim", lambda L, a: L.var_mean(a, 1, keepdim=True, correction=0),
     [lambda r, d: r.standard_normal((3, 4)).astype(d)]),
    ("var_mean_unbiased", lambda L, a: L.var_mean(a, (0, 1), False),
     [lambda r, d: r.standard_normal((3, 4)).astype(d)]),
    ("std_mean", lambda L, a: L.std_mean(a, dim=0), [lambda r, d: r.standard_normal((3, 4)).astype(d)]),
    ("std_mean_all", lambda L, a: L.std_mean(a, unbiased=False), [lambda r, d: r.standard_normal((3, 4)).astype(d)]),
    ("cummax", lambda L, a: L.cummax(a, 1), [lambda r, d: ties(r, (3, 6), d)]),
    ("cummax_dim0", lambda L, a: a.cummax(0), [lambda r, d: r.standard_normal((5, 3)).astype(d)]),
    ("cummin", lambda L, a: L.cummin(a, -1), [lambda r, d: ties(r, (3, 6), d)]),
    ("logcumsumexp", lambda L, a: L.logcumsumexp(a, 1), [lambda r, d: r.standard_normal((3, 7)).astype(d) * 30]),
    ("logcumsumexp_dim0", lambda L, a: a.logcumsumexp(0), [lambda r, d: r.standard_normal((9, 2)).astype(d)]),
    ("logcumsumexp_far", lambda L, a: a.logcumsumexp(0), [lambda r, d: np.array([-1000.0, 0.0, -1e4, 5.0], dtype=d)]),
]


def with_nans(rng, shape, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.3] = np.nan
    return x


def special(dtype):
    return np.array([0.0, np.nan, np.inf, -np.inf, -2.5, 1e30], dtype=dtype)


@pytest.mark.parametrize("layout", ["contig", "T"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, fn, makers", MATH_CASES, ids=[c[0] for c in MATH_CASES])
def test_math_functions_match_torch(rng, name, fn, makers, dtype, layout):
    inputs = [make(rng, dtype) for make in makers]
    atol, rtol = (1e-5, 1e-4) if dtype == np.float32 else (1e-12, 1e-10)
    assert_matches_torch(*both(fn), inputs, atol=atol, rtol=rtol, layout=layout)


GRADCHECK = [c for c in MATH_CASES if not c[0].startswith(("nan", "amax", "amin", "aminmax", "cummax", "cummin",
                                                          "sgn", "copysign", "hypot_huge", "xlogy_zeros"))
             and "edges" not in c[0]]


@pytest.mark.parametrize("name, fn, makers", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_math_functions_gradcheck(rng, name, fn, makers):
    inputs = [make(rng, np.float64) for make in makers]
    assert_gradcheck(lambda *t: fn(seqlab, *t), inputs)


def test_amax_amin_share_the_gradient_of_ties_as_torch():
    x = np.array([[1.0, 3.0, 3.0, 3.0], [2.0, 2.0, -1.0, 0.0], [np.inf, 0.0, -np.inf, 1.0]])
    for fn in (lambda L, t: L.amax(t, 1), lambda L, t: L.amin(-t, 1), lambda L, t: t.amax(),
               lambda L, t: L.aminmax(t, dim=1).max):
        assert_matches_torch(*both(fn), [x])


# ints, bools, size-0 and size-1 dims, non-finite values (no gradient)
MATH_EDGES = [
    ("amax_ints", lambda L, a: L.amax(a, 0), [np.arange(6).reshape(2, 3)]),
    ("amax_bool", lambda L, a: L.amax(a, 0), [np.array([[True, False], [False, False]])]),
    ("amax_kept_empty", lambda L, a: L.amax(a, 1), [np.zeros((0, 3))]),
    ("amax_0d", lambda L, a: L.amax(a), [np.array(2.5)]),
    ("amax_0d_dim", lambda L, a: L.amax(a, -1, keepdim=True), [np.array(2.5)]),
    ("aminmax_empty_kept", lambda L, a: L.aminmax(a, dim=1), [np.zeros((0, 3))]),
    ("amin_nan", lambda L, a: L.amin(a, 1), [np.array([[1.0, np.nan], [0.0, 2.0]])]),
    ("aminmax_keepdim_all", lambda L, a: L.aminmax(a, keepdim=True), [np.arange(6.0).reshape(2, 3)]),
    ("nansum_ints", lambda L, a: L.nansum(a), [np.arange(6).reshape(2, 3)]),
    ("nansum_dtype", lambda L, a: L.nansum(a, 0, dtype=L.float64), [np.array([[1.0, np.nan]], dtype=np.float32)]),
    ("nanmean_all_nan", lambda L, a: L.nanmean(a, 1), [np.array([[np.nan, np.nan], [1.0, np.nan]])]),
    ("count_nonzero", lambda L, a: L.count_nonzero(a), [np.array([[0.0, 1.0, np.nan], [0.0, -0.0, 2.0]])]),
    ("count_nonzero_dim", lambda L, a: a.count_nonzero(0), [np.array([[0, 1, 3], [0, 0, 2]])]),
    ("count_nonzero_dims", lambda L, a: L.count_nonzero(a, (0, 1)), [np.array([[True, False]])]),
    ("count_nonzero_empty", lambda L, a: L.count_nonzero(a, 0), [np.zeros((0, 3))]),
    ("diff_ints", lambda L, a: L.diff(a), [np.array([1, 4, 9, 16])]),
    ("diff_bool", lambda L, a: L.diff(a), [np.array([True, True, False, True])]),
    ("diff_n0", lambda L, a: L.diff(a, 0), [np.arange(3.0)]),
    ("diff_empty", lambda L, a: L.diff(a, dim=0), [np.zeros((0, 2))]),
    ("xlogy_special", lambda L, a, b: L.xlogy(a, b),
     [np.array([0.0, 0.0, 0.0, 0.0, 1.0, np.nan, 2.0]), np.array([0.0, -1.0, np.inf, np.nan, 0.0, 1.0, -1.0])]),
    ("xlogy_ints", lambda L, a, b: L.xlogy(a, b), [np.arange(4), np.arange(1, 5)]),
    ("xlogy_mixed", lambda L, a, b: L.xlogy(a, b), [np.arange(4), np.ones(4)]),
    ("logaddexp_inf", lambda L, a, b: L.logaddexp(a, b),
     [np.array([np.inf, -np.inf, -np.inf, np.inf, 1.0, np.nan]), np.array([np.inf, -np.inf, 2.0, -np.inf, 1e308, 0])]),
    ("logaddexp_mixed", lambda L, a, b: L.logaddexp(a, b), [np.ones(2, np.float32), np.ones(2)]),
    ("hypot_special", lambda L, a, b: L.hypot(a, b),
     [np.array([np.inf, 0.0, np.nan, -np.inf, 1e308]), np.array([np.nan, 0.0, 1.0, 2.0, 1e308])]),
    ("signbit", lambda L, a: L.signbit(a), [np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan])]),
    ("signbit_ints", lambda L, a: a.signbit(), [np.array([0, -3, 2])]),
    ("copysign_ints", lambda L, a, b: L.copysign(a, b), [np.arange(3), np.array([1, -1, 0])]),
    ("copysign_zero", lambda L, a, b: L.copysign(a, b), [np.array([1.0, 2.0, 3.0]), np.array([-0.0, 0.0, -np.nan])]),
    ("sgn_ints", lambda L, a: L.sgn(a), [np.array([-3, 0, 2])]),
    ("sgn", lambda L, a: a.sgn(), [np.array([-3.0, 0.0, -0.0, 2.0, np.nan])]),
    ("nan_to_num_ints", lambda L, a: L.nan_to_num(a), [np.arange(3)]),
    ("sinh_ints", lambda L, a: L.sinh(a), [np.arange(3)]),
    ("acosh_domain", lambda L, a: L.acosh(a), [np.array([0.5, 1.0, -2.0, np.inf])]),
    ("atanh_domain", lambda L, a: L.atanh(a), [np.array([1.0, -1.0, 2.0, -np.inf])]),
    ("asinh_inf", lambda L, a: L.asinh(a), [np.array([np.inf, -np.inf, np.nan])]),
    ("cosh_big", lambda L, a: L.cosh(a), [np.array([-1000.0, 700.0, 0.0])]),
    ("cummax_nan", lambda L, a: L.cummax(a, 0), [np.array([1.0, np.nan, 3.0, 0.0, np.nan, 2.0])]),
    ("cummin_nan", lambda L, a: L.cummin(a, 1), [np.array([[np.nan, 1.0, np.nan], [2.0, 2.0, 1.0]])]),
    ("cummin_ints", lambda L, a: L.cummin(a, 0), [np.array([3, 1, 1, 2, 0])]),
    ("cummax_0d", lambda L, a: L.cummax(a, 0), [np.array(2.0)]),
    ("cummax_empty", lambda L, a: L.cummax(a, 1), [np.zeros((2, 0))]),
    ("logcumsumexp_inf", lambda L, a: L.logcumsumexp(a, 0), [np.array([-np.inf, -np.inf, 0.0, np.inf, 1.0])]),
    ("logcumsumexp_empty", lambda L, a: L.logcumsumexp(a, 0), [np.zeros((0, 2))]),
    ("var_mean_empty", lambda L, a: L.var_mean(a, 0), [np.zeros((0, 3))]),
    ("atan_special", lambda L, a: L.atan(a), [np.array([np.inf, -np.inf, np.nan, -0.0, 0.0])]),
    ("atan_ints", lambda L, a: L.atan(a), [np.arange(-2, 3)]),
    ("asin_domain", lambda L, a: L.asin(a), [np.array([1.0, -1.0, 1.5, -2.0, np.nan, -0.0])]),
    ("acos_domain", lambda L, a: L.acos(a), [np.array([1.0, -1.0, 1.5, -2.0, 0.0])]),
    ("atan2_special", lambda L, a, b: L.atan2(a, b),
     [np.array([0.0, -0.0, 0.0, -0.0, np.inf, -np.inf, np.inf, 1.0, -1.0, 0.0, np.inf, 5.0]),
      np.array([0.0, 0.0, -0.0, -0.0, np.inf, np.inf, -np.inf, 0.0, -0.0, -3.0, 2.0, -np.inf])]),
    ("atan2_ints", lambda L, a, b: L.atan2(a, b), [np.array([1, -1, 0]), np.array([0, -2, 3])]),
]


@pytest.mark.parametrize("name, fn, inputs", MATH_EDGES, ids=[c[0] for c in MATH_EDGES])
def test_math_functions_edge_cases_match_torch(name, fn, inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's var_mean of an empty dim warns
        assert_matches_torch(*both(fn), inputs, grad=False)


@pytest.mark.parametrize("x", [0.0, 1e4, -1e4, 1e-8, 1.0, -1.0])
@pytest.mark.parametrize("name", ["asinh", "sinh", "cosh", "logaddexp", "hypot", "xlogy", "atanh", "acosh",
                                  "logcumsumexp", "nan_to_num", "lerp", "atan", "atan2", "atan2_x", "asin", "acos"])
def test_gradients_stay_finite_where_torchs_do(name, x):
    calls = {"logaddexp": lambda L, t: L.logaddexp(t, t * 0 - 1e4), "hypot": lambda L, t: L.hypot(t, t * 0 + 1),
             "xlogy": lambda L, t: L.xlogy(t, t * 0 + 2), "lerp": lambda L, t: L.lerp(t, t * 2, 0.5),
             "logcumsumexp": lambda L, t: L.logcumsumexp(L.stack([t, t * 0 - 1e4]), 0),
             "atan2": lambda L, t: L.atan2(t, t * 0 + 1), "atan2_x": lambda L, t: L.atan2(t * 0 + 1, t)}
    fn = calls.get(name, lambda L, t: getattr(L, name)(t))
    data = np.array([x])
    if name in ("atanh", "asin", "acos"):
        data = np.array([np.clip(x, -0.999, 0.999)])
    if name == "acosh":
        data = np.array([abs(x) + 1.5])
    assert_matches_torch(*both(fn), [data], atol=1e-10, rtol=1e-8)
    t, u = seqlab.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    fn(seqlab, t).sum().backward()
    fn(torch, u).sum().backward()
    assert np.isfinite(t.grad.numpy()).all() == np.isfinite(u.grad.numpy()).all()


def test_isclose_matches_torch(rng):
    a = np.array([1.0, 1.0 + 1e-6, 1.1, np.inf, np.inf, np.nan, 0.0, -np.inf])
    b = np.array([1.0, 1.0, 1.0, np.inf, -np.inf, np.nan, 1e-9, -np.inf])
    for kwargs in ({}, {"equal_nan": True}, {"rtol": 0.2, "atol": 0.0}, {"atol": 1e-3}):
        for dtype in (np.float32, np.float64):
            assert_matches_torch(*both(lambda L, s, t: L.isclose(s, t, **kwargs)), [a.astype(dtype), b.astype(dtype)],
                                 grad=False)
            assert_matches_torch(*both(lambda L, s, t: s.isclose(t, **kwargs)), [a.astype(dtype), b.astype(dtype)],
                                 grad=False)
    assert_matches_torch(lambda s, t: seqlab.isclose(s, t), lambda s, t: torch.isclose(s, t),
                         [np.array([1, 2, 3]), np.array([1, 3, 3])], grad=False)


def test_nan_to_num_in_place_matches_torch():
    a, b = seqlab.tensor(special(np.float32)), torch.tensor(special(np.float32))
    assert a.nan_to_num_(posinf=1.0) is a
    b.nan_to_num_(posinf=1.0)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


IN_PLACE = [  # name, input from x, arguments
    ("lerp_", lambda a: a, lambda L, a: (a * 2 + 1, 0.3)),
    ("xlogy_", lambda a: a, lambda L, a: (L.ones(4) * 3,)),
    ("hypot_", lambda a: a, lambda L, a: (L.ones(4),)),
    ("sgn_", lambda a: a, lambda L, a: ()),
    ("copysign_", lambda a: a, lambda L, a: (-1.0,)),
    ("nan_to_num_", lambda a: a, lambda L, a: ()),
    ("sinh_", lambda a: a, lambda L, a: ()),
    ("cosh_", lambda a: a, lambda L, a: ()),
    ("asinh_", lambda a: a, lambda L, a: ()),
    ("arcsinh_", lambda a: a, lambda L, a: ()),
    ("acosh_", lambda a: a.abs() + 1, lambda L, a: ()),
    ("arccosh_", lambda a: a.abs() + 1, lambda L, a: ()),
    ("atanh_", lambda a: a * 0.1, lambda L, a: ()),
    ("atan_", lambda a: a, lambda L, a: ()),
    ("arctan_", lambda a: a, lambda L, a: ()),
    ("atan2_", lambda a: a, lambda L, a: (L.ones(4) * -2,)),
    ("arctan2_", lambda a: a, lambda L, a: (L.ones(4) * -2,)),
    ("asin_", lambda a: a * 0.2, lambda L, a: ()),
    ("arcsin_", lambda a: a * 0.2, lambda L, a: ()),
    ("acos_", lambda a: a * 0.2, lambda L, a: ()),
    ("arccos_", lambda a: a * 0.2, lambda L, a: ()),
    ("arctanh_", lambda a: a * 0.1, lambda L, a: ()),
]


@pytest.mark.parametrize("name, prepare, args", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_in_place_methods_match_torch(rng, name, prepare, args):
    def run(L, t, method=name):
        a = prepare(t * 1)  # a non-leaf
        out = getattr(a, method)(*args(L, a))
        assert out is a or method == name[:-1]
        return out

    x = rng.standard_normal((3, 4))
    # values and gradients of torch's (torch has no derivative for the in-place inverse hyperbolics,
    # and gives sgn_ a ZeroTensor gradient: there seqlab's is the out-of-place function's)
    grad = name not in ("sgn_", "asinh_", "arcsinh_", "acosh_", "arccosh_", "atanh_", "arctanh_")
    assert_matches_torch(lambda t: run(seqlab, t), lambda t: run(torch, t), [x], grad=grad)
    if not grad and name != "sgn_":  # against torch's out-of-place function
        assert_matches_torch(lambda t: run(seqlab, t), lambda t: run(torch, t, name[:-1]), [x])
    with pytest.raises(RuntimeError, match=rf"a leaf Variable that requires grad is being used in an in-place "
                                           rf"operation \({name}\)"):
        leaf = seqlab.ones(4, requires_grad=True)
        getattr(leaf, name)(*args(seqlab, leaf.detach()))


def test_in_place_refusals_match_torch():
    assert_raises_like_torch(lambda: seqlab.arange(3).sinh_(), lambda: torch.arange(3).sinh_(), "can't be cast")
    assert_raises_like_torch(lambda: seqlab.ones(3).hypot_(seqlab.ones(2, 3)),
                             lambda: torch.ones(3).hypot_(torch.ones(2, 3)), "doesn't match the broadcast shape")
    for name in ("swapdims_", "swapaxes_"):
        a, b = seqlab.zeros(2, 3), torch.zeros(2, 3)
        assert getattr(a, name)(0, 1) is a
        getattr(b, name)(0, 1)
        assert tuple(a.shape) == tuple(b.shape) == (3, 2)


MATH_ERRORS = [
    (lambda L: L.amax(L.ones(0, 3), 0), "amax.*non-zero size"),
    (lambda L: L.amin(L.ones(2), 1), "Dimension out of range"),
    (lambda L: L.aminmax(L.ones(0)), "aminmax.*empty"),
    (lambda L: L.nanmean(L.arange(3)), "nanmean.*floating point"),
    (lambda L: L.diff(L.tensor(1.0)), "diff expects input to be at least one-dimensional"),
    (lambda L: L.diff(L.ones(3), n=-1), "order must be non-negative"),
    (lambda L: L.diff(L.ones(3), prepend=L.ones(2, 2)), "diff expects prepend or append"),
    (lambda L: L.lerp(L.ones(2), L.ones(2, dtype=L.float64), 0.5), "expected dtype"),
    (lambda L: L.lerp(L.ones(2), L.ones(2), L.ones(2, dtype=L.float64)), "expected dtype"),
    (lambda L: L.logaddexp(L.arange(2), L.arange(2)), "logaddexp.*not implemented for 'Long'"),
    (lambda L: L.hypot(L.arange(2), L.arange(2)), "hypot.*not implemented for 'Long'"),
    (lambda L: L.atan2(L.ones(2), L.ones(3)), "3|2"),
    (lambda L: L.atan2(L.ones(2), 2.0), "atan2.*must be Tensor"),
    (lambda L: L.hypot(L.ones(2), 2.0), "hypot.*must be Tensor"),
    (lambda L: L.logaddexp(L.ones(2), 2.0), "logaddexp.*must be Tensor"),
    (lambda L: L.logcumsumexp(L.arange(2), 0), "logcumsumexp.*not implemented for 'Long'"),
    (lambda L: L.logcumsumexp(L.ones(2), 1), "Dimension out of range"),
    (lambda L: L.isclose(L.ones(2), L.ones(2, dtype=L.float64)), "did not match"),
    (lambda L: L.isclose(L.ones(2), L.ones(2), rtol=-1.0), "rtol must be greater than or equal to zero"),
    (lambda L: L.cummax(L.ones(2), 1), "Dimension out of range"),
    (lambda L: L.lerp(L.arange(3), L.arange(3) + 4, 0.5), "\"lerp_kernel_scalar\" not implemented for 'Long'"),
    (lambda L: L.lerp(L.arange(3), L.arange(3), L.arange(3)), "\"lerp_kernel_tensor\" not implemented for 'Long'"),
    (lambda L: L.ones(2, dtype=L.int32).lerp_(L.ones(2, dtype=L.int32), 0.5), "lerp_kernel_scalar.*'Int'"),
    (lambda L: L.lerp(L.ones(2, dtype=L.bool), L.ones(2, dtype=L.bool), 0.5), "lerp_kernel_scalar.*'Bool'"),
]


@pytest.mark.parametrize("fn, message", MATH_ERRORS)
def test_math_function_errors_match_torch(fn, message):
    assert_raises_like_torch(lambda: fn(seqlab), lambda: fn(torch), message)


# ---------------------------------------------------------------- review 27's regressions


@pytest.mark.parametrize("name, args", [
    ("xlogy_", lambda L, y: (y,)), ("hypot_", lambda L, y: (y,)), ("atan2_", lambda L, y: (y,)),
    ("copysign_", lambda L, y: (y,)), ("lerp_", lambda L, y: (y * 2, 0.3)), ("lerp_", lambda L, y: (y * 0 + 1, y)),
    ("xlogy_", lambda L, y: (y.reshape(1, 3).expand(2, 3)[0],)),
])
def test_in_place_methods_differentiate_an_argument_that_requires_grad(name, args):
    """self does not require grad, an argument does: fn reads a clone of self, so copy_ does not
    overwrite what fn's backward saved (torch's y.grad, not a version-counter error)."""
    x = np.array([0.5, 2.0, 3.0])
    grads = []
    for L in (seqlab, torch):
        y = L.tensor([1.5, 0.7, 2.0], dtype=L.float64, requires_grad=True)
        a = L.tensor(x)
        out = getattr(a, name)(*args(L, y))
        assert out is a and a.requires_grad
        (a * L.tensor([1.0, -2.0, 0.5], dtype=L.float64)).sum().backward()
        grads.append((a.detach().numpy().copy(), y.grad.numpy().copy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)
    with seqlab.no_grad():   # no graph: nothing to clone, and no history
        a = seqlab.tensor(x)
        a.xlogy_(seqlab.tensor([1.5, 0.7, 2.0], dtype=seqlab.float64, requires_grad=True))
        assert not a.requires_grad


ZERO_D = [  # a 0-d tensor promotes only where its category is above the dimensioned tensors' (torch's rule)
    ("hypot", lambda L, a, b: L.hypot(a, b)), ("atan2", lambda L, a, b: L.atan2(a, b)),
    ("atan2_0d_first", lambda L, a, b: L.atan2(b, a)), ("logaddexp", lambda L, a, b: L.logaddexp(a, b)),
    ("logaddexp2", lambda L, a, b: L.logaddexp2(b, a)), ("copysign", lambda L, a, b: L.copysign(a, b)),
    ("xlogy", lambda L, a, b: L.xlogy(a, b)), ("xlogy_0d_first", lambda L, a, b: L.xlogy(b, a)),
    ("block_diag", lambda L, a, b: L.block_diag(a.reshape(1, -1), b)),
    ("block_diag_0d_first", lambda L, a, b: L.block_diag(b, a)),
]


@pytest.mark.parametrize("name, fn", ZERO_D, ids=[c[0] for c in ZERO_D])
@pytest.mark.parametrize("vector, scalar", [(np.float32, np.float64), (np.float64, np.float32),
                                            (np.int64, np.float64), (np.int64, np.float32), (np.float32, np.int64)])
def test_zero_dim_tensors_promote_as_torchs(name, fn, vector, scalar):
    a = (np.arange(3) + 1).astype(vector)
    b = np.array(3, dtype=scalar)
    if name.startswith(("hypot", "logaddexp")) and not (np.issubdtype(vector, np.floating)
                                                        or np.issubdtype(scalar, np.floating)):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_matches_torch(*both(fn), [a, b], atol=1e-6, rtol=1e-6)
    assert_matches_torch(*both(fn), [np.array(2.0, np.float32), np.array(3.0)], atol=1e-6, rtol=1e-6)   # both 0-d


@pytest.mark.parametrize("dtype, v", [(np.float32, 89.0), (np.float64, 710.0)])
@pytest.mark.parametrize("name", ["sinh", "cosh"])
def test_sinh_cosh_stay_finite_where_torchs_do(name, dtype, v):
    """e^|x| overflows before e^|x| / 2 does: values and gradients near the limit are torch's, finite
    where its are, and ±inf beyond, as torch's. (Beyond, torch's gradient is g·inf; seqlab's is g·e^|x|/2
    formed as two finite factors, finite when |g| is small: compared as values only.)"""
    limit = 88.0 if dtype == np.float32 else 709.0
    x = np.array([v, -v, limit, -limit, limit + 0.5, 20.0, -3.0, 0.0, np.inf, -np.inf], dtype)
    rtol = 1e-6 if dtype == np.float32 else 1e-13
    out = assert_matches_torch(*both(lambda L, t: getattr(L, name)(t)), [x], atol=0.0, rtol=rtol)
    assert np.isfinite(out.detach().numpy()[:2]).all()
    assert_matches_torch(*both(lambda L, t: getattr(L, name)(t)), [np.array([v + 1, -(v + 1)], dtype)], grad=False)


def test_take_along_dim_takes_negative_indices_as_torch():
    a = np.arange(12.0).reshape(3, 4)
    index = np.array([[-1, 0, -4], [3, -2, 1], [-3, -3, 2]])
    assert_matches_torch(*both(lambda L, t, i: L.take_along_dim(t, i, 1)), [a, index])
    assert_matches_torch(*both(lambda L, t, i: t.take_along_dim(i, dim=-2)), [a, np.array([[-3, 2, -1, 0]])])
    assert_matches_torch(*both(lambda L, t, i: L.take_along_dim(t, i)), [a, np.array([0, 11, 3])])
    with pytest.raises(IndexError, match="take_along_dim.*index -5 is out of bounds for dimension 1 with size 4"):
        seqlab.take_along_dim(seqlab.tensor(a), seqlab.tensor([[-5]]), 1)
    # without dim torch's flattened gather takes no negative index (RuntimeError there)
    with pytest.raises(IndexError, match="take_along_dim.*index -1 is out of bounds for dimension 0 with size 12"):
        seqlab.take_along_dim(seqlab.tensor(a), seqlab.tensor([-1]))


@pytest.mark.parametrize("name, points", [("asin", [1.0, -1.0, 0.5]), ("acos", [1.0, -1.0, -0.25]),
                                          ("acosh", [1.0, 3.0]), ("atanh", [1.0, -1.0, 0.5])])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradients_at_the_ends_of_the_domain_are_torchs(name, points, dtype):
    """torch's ±inf there (the composed forms gave NaN), and the values at the ends exactly."""
    x = np.array(points, dtype)
    assert_matches_torch(*both(lambda L, t: getattr(L, name)(t)), [x], atol=0.0, rtol=1e-6)
    assert_matches_torch(*both(lambda L, t: getattr(t * 1, name + "_")()), [x], atol=0.0, rtol=1e-6,
                         grad=name in ("asin", "acos"))   # (torch has no derivative of acosh_ / atanh_)


def test_atan2_gradient_at_the_origin_is_zero_as_torchs():
    y = np.array([0.0, -0.0, 0.0, -0.0, 0.0, 1.0])
    x = np.array([0.0, 0.0, -0.0, -0.0, 2.0, 0.0])
    assert_matches_torch(*both(lambda L, a, b: L.atan2(a, b)), [y, x], atol=0.0, rtol=1e-12)
    out = seqlab.atan2(seqlab.tensor(y), seqlab.tensor(x)).numpy()
    np.testing.assert_array_equal(np.signbit(out), np.signbit(torch.atan2(torch.tensor(y), torch.tensor(x)).numpy()))


def test_amax_amin_with_nan_and_infinite_ties_match_torch():
    """±inf ties share the gradient (== holds for inf); a row with NaN gets NaN everywhere, as torch's."""
    x = np.array([[np.inf, np.inf, 0.0], [1.0, np.nan, 3.0], [-np.inf, -np.inf, -np.inf], [2.0, 2.0, -1.0]])
    for fn in (lambda L, t: L.amax(t, 1), lambda L, t: L.amin(-t, 1, keepdim=True), lambda L, t: t.amax(),
               lambda L, t: L.amax(t, 0), lambda L, t: L.aminmax(t, dim=1).max):
        assert_matches_torch(*both(fn), [x])


def test_diagonal_and_unfold_are_views_as_torchs():
    """diagonal and unfold are strided views (as_strided), as torch's: writing into them writes into
    the input, and their gradients still reach it (unfold's overlapping windows add up)."""
    for lib in (seqlab, torch):
        z = lib.zeros(3, 4)
        z.diagonal(1).fill_(1.0)
        z.t().diagonal(-1).add_(2.0)   # a view of a transposed view
        y = lib.arange(6.0)
        y.unfold(0, 2, 3).mul_(10.0)   # windows [0:2], [3:5] (writes into overlapping windows are undefined)
        if lib is seqlab:
            got = (z.numpy().copy(), y.numpy().copy())
        else:
            np.testing.assert_array_equal(got[0], z.numpy())
            np.testing.assert_array_equal(got[1], y.numpy())
    assert_matches_torch(*both(lambda L, t: t.diagonal(1)), [np.arange(12.0).reshape(3, 4)])
    assert_matches_torch(*both(lambda L, t: t.diagonal(-1, 0, 2)), [np.arange(24.0).reshape(2, 3, 4)])
    assert_matches_torch(*both(lambda L, t: t.unfold(1, 2, 1) * 3), [np.arange(12.0).reshape(3, 4)])
