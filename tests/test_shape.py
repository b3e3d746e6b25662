"""Shape ops (reshape, view, flatten, transpose, permute, unsqueeze, squeeze, expand, cat, stack,
split, chunk, narrow, contiguous) vs torch: values, shapes, strides, view semantics and gradients.

Gradchecks in float64 at the bottom. Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_gradcheck, assert_matches_torch, randn, shape_id,
    sl_leaf, sl_np, th_leaf,
)

# name -> (input shape, fn(lib, x))
UNARY_SHAPE_OPS = {
    "reshape-(4,6)->(2,12)": ((4, 6), lambda lib, x: x.reshape(2, 12)),
    "reshape-tuple": ((4, 6), lambda lib, x: x.reshape((3, 8))),
    "reshape-(-1)": ((4, 6), lambda lib, x: x.reshape(-1)),
    "reshape-(2,-1,3)": ((4, 6), lambda lib, x: x.reshape(2, -1, 3)),
    "reshape-fn": ((2, 3, 4), lambda lib, x: lib.reshape(x, (6, 4))),
    "reshape-0d-to-1": ((), lambda lib, x: x.reshape(1, 1)),
    "reshape-to-0d": ((1, 1), lambda lib, x: x.reshape(())),
    "reshape-empty": ((0, 4), lambda lib, x: x.reshape(2, 0, 2)),
    "view-(4,6)->(24)": ((4, 6), lambda lib, x: x.view(24)),
    "view-(-1,4)": ((4, 6), lambda lib, x: x.view(-1, 4)),
    "view-tuple": ((2, 3, 4), lambda lib, x: x.view((6, 4))),
    "view-split-dim": ((2, 6), lambda lib, x: x.view(2, 2, 3)),
    "flatten": ((2, 3, 4), lambda lib, x: x.flatten()),
    "flatten-1": ((2, 3, 4), lambda lib, x: x.flatten(1)),
    "flatten-0-1": ((2, 3, 4), lambda lib, x: x.flatten(0, 1)),
    "flatten-neg": ((2, 3, 4, 5), lambda lib, x: x.flatten(start_dim=-3, end_dim=-2)),
    "flatten-fn": ((2, 3, 4), lambda lib, x: lib.flatten(x, 1, 2)),
    "flatten-0d": ((), lambda lib, x: x.flatten()),
    "transpose-0-1": ((3, 4), lambda lib, x: x.transpose(0, 1)),
    "transpose-neg": ((2, 3, 4), lambda lib, x: x.transpose(-1, -3)),
    "transpose-same": ((2, 3), lambda lib, x: x.transpose(1, 1)),
    "transpose-fn": ((2, 3, 4), lambda lib, x: lib.transpose(x, 1, 2)),
    "permute": ((2, 3, 4), lambda lib, x: x.permute(2, 0, 1)),
    "permute-tuple": ((2, 3, 4), lambda lib, x: x.permute((1, 2, 0))),
    "permute-neg": ((2, 3, 4), lambda lib, x: x.permute(-1, -2, -3)),
    "permute-fn": ((2, 3, 4, 5), lambda lib, x: lib.permute(x, (3, 1, 0, 2))),
    "unsqueeze-0": ((3, 4), lambda lib, x: x.unsqueeze(0)),
    "unsqueeze-last": ((3, 4), lambda lib, x: x.unsqueeze(2)),
    "unsqueeze-neg": ((3, 4), lambda lib, x: x.unsqueeze(-1)),
    "unsqueeze-neg-mid": ((3, 4), lambda lib, x: x.unsqueeze(-2)),
    "unsqueeze-0d": ((), lambda lib, x: x.unsqueeze(0)),
    "unsqueeze-fn": ((3,), lambda lib, x: lib.unsqueeze(x, 1)),
    "squeeze-all": ((1, 3, 1, 4, 1), lambda lib, x: x.squeeze()),
    "squeeze-dim": ((1, 3, 1, 4), lambda lib, x: x.squeeze(2)),
    "squeeze-neg": ((3, 4, 1), lambda lib, x: x.squeeze(-1)),
    "squeeze-non1-noop": ((3, 4), lambda lib, x: x.squeeze(1)),
    "squeeze-all-ones": ((1, 1), lambda lib, x: x.squeeze()),
    "squeeze-fn": ((1, 3), lambda lib, x: lib.squeeze(x, 0)),
    "squeeze-kw": ((2, 1), lambda lib, x: x.squeeze(dim=1)),
    "expand": ((3, 1), lambda lib, x: x.expand(3, 4)),
    "expand-minus1": ((3, 1), lambda lib, x: x.expand(-1, 5)),
    "expand-new-dims": ((3, 1), lambda lib, x: x.expand(2, 3, 4)),
    "expand-tuple": ((1,), lambda lib, x: x.expand((2, 3))),
    "expand-0d": ((), lambda lib, x: x.expand(4)),
    "expand-to-0": ((1, 3), lambda lib, x: x.expand(0, 3)),
    "narrow": ((5, 4), lambda lib, x: x.narrow(0, 1, 3)),
    "narrow-dim1": ((5, 4), lambda lib, x: x.narrow(1, 2, 2)),
    "narrow-neg-dim": ((5, 4), lambda lib, x: x.narrow(-1, 0, 1)),
    "narrow-empty": ((5, 4), lambda lib, x: x.narrow(0, 2, 0)),
    "narrow-fn": ((5, 4), lambda lib, x: lib.narrow(x, 1, 1, 3)),
    "contiguous-of-T": ((3, 4), lambda lib, x: x.t().contiguous()),
    "clone": ((3, 4), lambda lib, x: x.clone()),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(UNARY_SHAPE_OPS))
def test_shape_op(rng, name, dtype):
    shape, fn = UNARY_SHAPE_OPS[name]
    x = randn(rng, shape, dtype)
    out = assert_matches_torch(lambda a: fn(seqlab, a), lambda a: fn(torch, a), [x])
    expected_shape = tuple(fn(torch, torch.from_numpy(x)).shape)
    assert tuple(out.shape) == expected_shape


NONCONTIG_OK = [n for n in UNARY_SHAPE_OPS if not n.startswith("view")
                and len(UNARY_SHAPE_OPS[n][0]) >= 2]


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("name", NONCONTIG_OK)
def test_shape_op_noncontiguous(rng, name, layout):
    """Shape ops on strided inputs: reshape must copy where a view is impossible."""
    shape, fn = UNARY_SHAPE_OPS[name]
    x = randn(rng, shape, np.float32)
    assert_matches_torch(lambda a: fn(seqlab, a), lambda a: fn(torch, a), [x], layout=layout)


STRIDE_CASES = {
    "contig": lambda x: x,
    "t": lambda x: x.transpose(0, 2),
    "permute": lambda x: x.permute(1, 2, 0),
    "slice": lambda x: x[:, 1:, ::2],
    "unsqueeze": lambda x: x.unsqueeze(1),
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "view": lambda x: x.view(6, 4),
    "squeeze": lambda x: x[:1].squeeze(0),
    "flatten-contig": lambda x: x.flatten(1),
    "contiguous": lambda x: x.transpose(0, 1).contiguous(),
}


@pytest.mark.parametrize("name", list(STRIDE_CASES))
def test_strides_and_contiguity_match_torch(rng, name):
    x = randn(rng, (2, 3, 4))
    s = STRIDE_CASES[name](sl_leaf(x, False))
    t = STRIDE_CASES[name](th_leaf(x, False))
    assert tuple(s.shape) == tuple(t.shape)
    assert tuple(s.stride()) == tuple(t.stride())
    assert s.is_contiguous() == t.is_contiguous()
    for d in range(s.dim()):
        assert s.stride(d) == t.stride(d)
    assert_close(sl_np(s), t.numpy().copy(), 0, 0)


VIEW_OPS = {
    "view": lambda x: x.view(12),
    "reshape-contig": lambda x: x.reshape(4, 3),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "flatten": lambda x: x.flatten(),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "t": lambda x: x.t(),
    "split": lambda x: x.split(1, dim=0)[1],
    "chunk": lambda x: x.chunk(2, dim=1)[1],
    "getitem-slice": lambda x: x[1:, ::2],
}


@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_views_share_storage(name):
    """A write through the view is visible in the base (and vice versa), as in torch."""
    base_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    s_base, t_base = sl_leaf(base_np, False), th_leaf(base_np, False)
    s_view, t_view = VIEW_OPS[name](s_base), VIEW_OPS[name](t_base)
    s_view.mul_(-1.0)
    t_view.mul_(-1.0)
    assert_close(sl_np(s_base), t_base.numpy().copy(), 0, 0, what="base after writing the view")
    s_base.add_(100.0)
    t_base.add_(100.0)
    assert_close(sl_np(s_view), t_view.numpy().copy(), 0, 0, what="view after writing the base")


def test_expand_is_a_view():
    base = np.arange(4, dtype=np.float32).reshape(4, 1)
    s = sl_leaf(base, False)
    e = s.expand(4, 3)
    assert e.stride(1) == 0
    s.add_(10.0)
    np.testing.assert_array_equal(sl_np(e), np.broadcast_to(base + 10.0, (4, 3)))


def test_reshape_of_noncontiguous_copies():
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    s = sl_leaf(base, False)
    r = s.t().reshape(6)
    np.testing.assert_array_equal(sl_np(r), base.T.reshape(6))
    r.fill_(0.0)
    np.testing.assert_array_equal(sl_np(s), base)  # copy, not a view


def test_contiguous_returns_contiguous_copy_when_needed():
    base = np.arange(6, dtype=np.float64).reshape(2, 3)
    s = sl_leaf(base, False)
    c = s.t().contiguous()
    assert c.is_contiguous()
    assert tuple(c.stride()) == (2, 1)
    np.testing.assert_array_equal(sl_np(c), base.T)
    assert s.contiguous().is_contiguous()


# ----------------------------------------------------------------------------------------
# cat / stack
# ----------------------------------------------------------------------------------------

CAT_CASES = [
    ([(2, 3), (4, 3)], 0),
    ([(2, 3), (2, 5)], 1),
    ([(2, 3), (2, 1), (2, 2)], -1),
    ([(2, 3, 4), (2, 1, 4)], 1),
    ([(3,), (0,), (2,)], 0),
    ([(0, 3), (2, 3)], 0),
    ([(2, 3)], 0),
    ([(1, 1), (1, 1)], 0),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shapes,dim", CAT_CASES, ids=[f"{shape_id(*s)}-dim={d}" for s, d in CAT_CASES])
def test_cat(rng, shapes, dim, dtype):
    inputs = [randn(rng, s, dtype) for s in shapes]
    assert_matches_torch(lambda *xs: seqlab.cat(list(xs), dim), lambda *xs: torch.cat(list(xs), dim), inputs)
    assert_matches_torch(lambda *xs: seqlab.cat(xs, dim=dim), lambda *xs: torch.cat(xs, dim=dim), inputs)


def test_cat_default_dim_and_noncontiguous(rng):
    a, b = randn(rng, (3, 2)), randn(rng, (4, 3))
    f = lambda lib: (lambda x, y: lib.cat([x.t(), y[:, ::1].t()[:, 1:]]))  # noqa: E731
    assert_matches_torch(f(seqlab), f(torch), [a, b])
    assert_matches_torch(lambda x, y: seqlab.cat([x, y], 1), lambda x, y: torch.cat([x, y], 1),
                         [randn(rng, (3, 2)), randn(rng, (3, 4))], layout="T")


STACK_CASES = [
    ((2, 3), 2, 0),
    ((2, 3), 3, 1),
    ((2, 3), 2, 2),
    ((2, 3), 2, -1),
    ((4,), 3, 0),
    ((), 4, 0),
    ((0, 2), 2, 1),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape,n,dim", STACK_CASES,
                         ids=[f"{shape_id(s)}*{n}-dim={d}" for s, n, d in STACK_CASES])
def test_stack(rng, shape, n, dim, dtype):
    inputs = [randn(rng, shape, dtype) for _ in range(n)]
    assert_matches_torch(lambda *xs: seqlab.stack(list(xs), dim), lambda *xs: torch.stack(list(xs), dim), inputs)
    assert_matches_torch(lambda *xs: seqlab.stack(xs, dim=dim), lambda *xs: torch.stack(xs, dim=dim), inputs,
                         layout="T")


def test_cat_stack_int64_and_same_tensor_twice(rng):
    a = rng.integers(0, 9, size=(2, 3)).astype(np.int64)
    assert_matches_torch(lambda x: seqlab.cat([x, x], 0), lambda x: torch.cat([x, x], 0), [a], grad=False)
    x = randn(rng, (2, 3), np.float64)
    # the same leaf twice: its gradient is the sum of both slices
    assert_matches_torch(lambda t: seqlab.stack([t, t * 2.0]), lambda t: torch.stack([t, t * 2.0]), [x])


# ----------------------------------------------------------------------------------------
# split / chunk
# ----------------------------------------------------------------------------------------

SPLIT_CASES = {
    "split-2-dim0": ((5, 3), lambda lib, x: x.split(2)),
    "split-2-dim1": ((2, 7), lambda lib, x: x.split(2, dim=1)),
    "split-sizes": ((6, 3), lambda lib, x: x.split([1, 3, 2])),
    "split-sizes-dim1-with-0": ((3, 6), lambda lib, x: x.split([2, 0, 4], dim=1)),
    "split-larger-than-dim": ((3, 2), lambda lib, x: x.split(5)),
    "split-fn": ((4, 4), lambda lib, x: lib.split(x, 3, -1)),
    "split-fn-list": ((4, 4), lambda lib, x: lib.split(x, [2, 2], dim=0)),
    "chunk-2": ((6, 3), lambda lib, x: x.chunk(2)),
    "chunk-3-uneven": ((7, 3), lambda lib, x: x.chunk(3)),
    "chunk-dim1": ((2, 5), lambda lib, x: x.chunk(2, dim=1)),
    "chunk-more-than-size": ((3, 2), lambda lib, x: x.chunk(5, 0)),
    "chunk-fn": ((4, 6), lambda lib, x: lib.chunk(x, 3, -1)),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(SPLIT_CASES))
def test_split_chunk(rng, name, dtype):
    shape, fn = SPLIT_CASES[name]
    x = randn(rng, shape, dtype)
    out = assert_matches_torch(lambda a: tuple(fn(seqlab, a)), lambda a: tuple(fn(torch, a)), [x])
    assert len(out) == len(fn(torch, torch.from_numpy(x)))


def test_split_partial_use_gradient(rng):
    """Only some pieces used: unused pieces contribute zero gradient."""
    x = randn(rng, (6, 2), np.float64)
    assert_matches_torch(lambda a: a.split(2)[1] * 3.0, lambda a: a.split(2)[1] * 3.0, [x])
    assert_matches_torch(lambda a: a.chunk(3, 1)[0].exp(), lambda a: a.chunk(3, 1)[0].exp(), [x])


@pytest.mark.parametrize("layout", ["T", "slice"])
def test_split_noncontiguous(rng, layout):
    x = randn(rng, (4, 6))
    assert_matches_torch(lambda a: tuple(a.split(2, dim=1)), lambda a: tuple(a.split(2, dim=1)), [x], layout=layout)


# ----------------------------------------------------------------------------------------
# Gradchecks
# ----------------------------------------------------------------------------------------

GRADCHECK_SHAPE = {
    "reshape": ((2, 3, 4), lambda x: x.reshape(4, 6)),
    "view": ((2, 3, 4), lambda x: x.view(6, 4)),
    "reshape-of-T": ((3, 4), lambda x: x.t().reshape(12)),
    "flatten": ((2, 3, 4), lambda x: x.flatten(1)),
    "transpose": ((2, 3, 4), lambda x: x.transpose(0, 2)),
    "permute": ((2, 3, 4), lambda x: x.permute(1, 2, 0)),
    "unsqueeze": ((2, 3), lambda x: x.unsqueeze(1)),
    "squeeze": ((2, 1, 3), lambda x: x.squeeze()),
    "expand": ((2, 1), lambda x: x.expand(3, 2, 4)),
    "narrow": ((4, 3), lambda x: x.narrow(0, 1, 2)),
    "contiguous": ((3, 4), lambda x: x.t().contiguous()),
    "clone": ((3, 4), lambda x: x.clone()),
}


@pytest.mark.parametrize("name", list(GRADCHECK_SHAPE))
def test_gradcheck_shape_ops(rng, name):
    shape, fn = GRADCHECK_SHAPE[name]
    assert_gradcheck(fn, [randn(rng, shape, np.float64)])


def test_gradcheck_cat_stack_split_chunk(rng):
    a, b = randn(rng, (2, 3), np.float64), randn(rng, (2, 2), np.float64)
    assert_gradcheck(lambda x, y: seqlab.cat([x, y], dim=1), [a, b])
    assert_gradcheck(lambda x, y: seqlab.stack([x, y.t()[:2] * 1.0], dim=1), [randn(rng, (2, 2), np.float64), b])
    x = randn(rng, (5, 3), np.float64)
    assert_gradcheck(lambda t: t.split([2, 3])[1] * 2.0, [x])
    assert_gradcheck(lambda t: t.chunk(3, dim=1)[1], [x])
