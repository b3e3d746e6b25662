"""The scatter family vs torch: scatter / scatter_ (src or value, reduce='add'|'multiply'),
scatter_add(_), scatter_reduce(_) (sum, prod, mean, amax, amin; include_self), index_add(_),
index_copy(_), index_reduce(_), and index_fill's agreement with torch: values in float32, float64
and the integer dtypes, every gradient, float64 gradchecks, non-contiguous and size-0 inputs,
negative dims, 0-d tensors, in-place forms inside the graph, errors.

scatter with duplicate indices is nondeterministic in torch, so its indices are distinct per
line; scatter_add, scatter_reduce and the index_* ops draw duplicates. Ops: cpp/src/ops/scatter.cpp.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_gradcheck, assert_matches_torch, assert_raises_like_torch, sl_leaf,
    sl_np, th_leaf, th_np,
)

REDUCES = ["sum", "prod", "mean", "amax", "amin"]
INT_DTYPES = [np.int64, np.int32, np.int16, np.int8, np.uint8]


def distinct_index(rng, self_shape, dim, index_shape):
    """An index whose entries along dim are distinct in every line (scatter is deterministic then)."""
    dim = dim % len(index_shape)
    moved = np.moveaxis(np.empty(index_shape, dtype=np.int64), dim, -1)
    if moved.size == 0:
        return np.zeros(index_shape, dtype=np.int64)
    flat = moved.reshape(-1, index_shape[dim])
    for row in flat:
        row[:] = rng.permutation(self_shape[dim])[:index_shape[dim]]
    return np.moveaxis(flat.reshape(moved.shape), -1, dim).copy()


def any_index(rng, self_shape, dim, index_shape):
    """An index with duplicates along dim."""
    dim = dim % max(len(index_shape), 1)
    return rng.integers(0, self_shape[dim] if self_shape else 1, size=index_shape).astype(np.int64)


def quiet(fn):
    """fn with torch's deprecation / beta warnings silenced (tested on their own below)."""
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return run


# (self shape, dim, index shape, src shape)
CASES = {
    "2d-dim0": ((4, 5), 0, (3, 5), (3, 5)),
    "2d-dim1": ((4, 5), 1, (4, 3), (4, 3)),
    "2d-neg-dim": ((4, 5), -1, (2, 5), (2, 5)),
    "index-smaller": ((4, 5), 0, (2, 3), (2, 3)),
    "3d-dim1": ((2, 3, 4), 1, (2, 2, 4), (2, 2, 4)),
    "3d-neg2": ((2, 3, 4), -2, (1, 3, 3), (1, 3, 3)),
    "1d": ((6,), 0, (4,), (4,)),
    "0d": ((), 0, (), ()),
    "size0-self": ((0, 3), 1, (0, 2), (0, 2)),
    "size0-index": ((3, 4), 0, (0, 4), (0, 4)),
}


def scatter_inputs(rng, name, dtype, distinct):
    shape, dim, ishape, sshape = CASES[name]
    x = rng.standard_normal(shape).astype(dtype)
    src = rng.standard_normal(sshape).astype(dtype)
    make = distinct_index if distinct else any_index
    idx = make(rng, shape, dim, ishape) if ishape else np.array(0, dtype=np.int64)
    return dim, [x, idx, src]


# ------------------------------------------------------------------ scatter
@pytest.mark.parametrize("layout", ["contig", "T", "slice"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_scatter_src_matches_torch(rng, name, dtype, layout):
    dim, inputs = scatter_inputs(rng, name, dtype, distinct=True)
    assert_matches_torch(lambda x, i, s: seqlab.scatter(x, dim, i, s), lambda x, i, s: torch.scatter(x, dim, i, s),
                         inputs, layout=layout)
    assert_matches_torch(lambda x, i, s: x.scatter(dim, i, src=s), lambda x, i, s: x.scatter(dim, i, src=s), inputs,
                         layout=layout)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_scatter_value_matches_torch(rng, name, dtype):
    dim, (x, idx, _) = scatter_inputs(rng, name, dtype, distinct=False)  # duplicates write the same value
    assert_matches_torch(lambda x, i: seqlab.scatter(x, dim, i, 2.5), lambda x, i: torch.scatter(x, dim, i, 2.5),
                         [x, idx])
    assert_matches_torch(lambda x, i: x.scatter(dim, i, value=-1), lambda x, i: x.scatter(dim, i, value=-1), [x, idx])


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("name", ["2d-dim0", "3d-neg2", "0d", "size0-index"])
def test_scatter_reduce_keyword_matches_torch(rng, name, reduce):
    dim, inputs = scatter_inputs(rng, name, np.float64, distinct=False)
    assert_matches_torch(quiet(lambda x, i, s: seqlab.scatter(x, dim, i, s, reduce=reduce)),
                         quiet(lambda x, i, s: torch.scatter(x, dim, i, s, reduce=reduce)), inputs, grad=False)
    assert_matches_torch(quiet(lambda x, i: x.clone().scatter_(dim, i, 3.0, reduce=reduce)),
                         quiet(lambda x, i: x.clone().scatter_(dim, i, 3.0, reduce=reduce)), inputs[:2], grad=False)
    # no derivative, as torch: the backward raises
    x = seqlab.tensor(inputs[0], requires_grad=True)
    y = quiet(lambda: seqlab.scatter(x, dim, seqlab.tensor(inputs[1]), seqlab.tensor(inputs[2]), reduce=reduce))()
    tx = torch.tensor(inputs[0], requires_grad=True)
    ty = quiet(lambda: torch.scatter(tx, dim, torch.tensor(inputs[1]), torch.tensor(inputs[2]), reduce=reduce))()
    assert_raises_like_torch(lambda: y.sum().backward(), lambda: ty.sum().backward(), "derivative for aten::scatter")


def test_scatter_reduce_keyword_warns_once_as_torch():
    # torch warns once per process for the src form only; a fresh interpreter sees the first call
    code = ("import warnings, seqlab\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    x = seqlab.zeros(3); i = seqlab.tensor([0, 0]); s = seqlab.ones(2)\n"
            "    x.scatter(0, i, 2.0, reduce='add')\n"
            "    x.scatter(0, i, s, reduce='add'); x.scatter(0, i, s, reduce='multiply')\n"
            "    x.index_reduce(0, i, s, 'prod'); x.index_reduce(0, i, s, 'amax')\n"
            "for m in w: print(m.category.__name__, m.message)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "UserWarning The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
        "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
        "UserWarning index_reduce() is in beta and the API may change at any time."]


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_])
def test_scatter_integer_and_bool_dtypes(rng, dtype):
    x = rng.integers(0, 2 if dtype is np.bool_ else 50, size=(4, 5)).astype(dtype)
    s = rng.integers(0, 2 if dtype is np.bool_ else 50, size=(3, 5)).astype(dtype)
    idx = distinct_index(rng, (4, 5), 0, (3, 5))
    dup = any_index(rng, (4, 5), 0, (3, 5))
    assert_matches_torch(lambda x, i, s: seqlab.scatter(x, 0, i, s), lambda x, i, s: torch.scatter(x, 0, i, s),
                         [x, idx, s], grad=False)
    assert_matches_torch(lambda x, i, s: x.scatter_add(0, i, s), lambda x, i, s: x.scatter_add(0, i, s), [x, dup, s],
                         grad=False)
    assert_matches_torch(lambda x, i: x.scatter(0, i, 1), lambda x, i: x.scatter(0, i, 1), [x, idx], grad=False)
    for reduce in ["sum", "prod", "amax", "amin"] + ([] if dtype is np.bool_ else ["mean"]):
        for include_self in [True, False]:
            assert_matches_torch(lambda x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
                                 lambda x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
                                 [x, dup, s], grad=False)


def test_scatter_integer_mean_floors_and_int32_index():
    x = np.array([5, 7, 9, 11])
    idx = np.array([0, 0, 1])
    s = np.array([-2, -3, 4])
    for include_self in [True, False]:
        assert_matches_torch(lambda x, i, s: x.scatter_reduce(0, i, s, "mean", include_self=include_self),
                             lambda x, i, s: x.scatter_reduce(0, i, s, "mean", include_self=include_self),
                             [x, idx, s], grad=False)
    assert_matches_torch(lambda x, i, s: x.scatter_add(0, i, s), lambda x, i, s: x.scatter_add(0, i, s),
                         [x, idx.astype(np.int32), s], grad=False)


def test_scatter_value_converts_and_checks_as_torch():
    assert_matches_torch(lambda x, i: x.scatter(0, i, 2.7), lambda x, i: x.scatter(0, i, 2.7),
                         [np.zeros(3, dtype=np.int64), np.array([1])], grad=False)
    assert_matches_torch(lambda x, i: x.scatter(0, i, True), lambda x, i: x.scatter(0, i, True),
                         [np.zeros(3, dtype=np.bool_), np.array([2])], grad=False)
    assert_raises_like_torch(lambda: seqlab.zeros(3, dtype=seqlab.uint8).scatter(0, seqlab.tensor([0]), 300),
                             lambda: torch.zeros(3, dtype=torch.uint8).scatter(0, torch.tensor([0]), 300),
                             "value cannot be converted to type uint8_t without overflow")


# ------------------------------------------------------------------ scatter_add
@pytest.mark.parametrize("layout", ["contig", "T", "slice"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_scatter_add_matches_torch(rng, name, dtype, layout):
    dim, inputs = scatter_inputs(rng, name, dtype, distinct=False)
    assert_matches_torch(lambda x, i, s: seqlab.scatter_add(x, dim, i, s),
                         lambda x, i, s: torch.scatter_add(x, dim, i, s), inputs, layout=layout)


# ------------------------------------------------------------------ scatter_reduce
def reduce_inputs(rng, name, dtype, reduce):
    dim, (x, idx, s) = scatter_inputs(rng, name, dtype, distinct=False)
    if reduce in ("amax", "amin"):  # ties between self and src and among src: the gradient is split
        x = rng.integers(0, 3, size=x.shape).astype(dtype)
        s = rng.integers(0, 3, size=s.shape).astype(dtype)
    if reduce == "prod":  # zeros: one at some positions, several at others
        x = np.where(rng.random(x.shape) < 0.2, 0, x).astype(dtype)
        s = np.where(rng.random(s.shape) < 0.3, 0, s).astype(dtype)
    return dim, [x, idx, s]


@pytest.mark.parametrize("include_self", [True, False], ids=["self", "noself"])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_scatter_reduce_matches_torch(rng, name, dtype, reduce, include_self):
    dim, inputs = reduce_inputs(rng, name, dtype, reduce)
    assert_matches_torch(lambda x, i, s: seqlab.scatter_reduce(x, dim, i, s, reduce, include_self=include_self),
                         lambda x, i, s: torch.scatter_reduce(x, dim, i, s, reduce, include_self=include_self), inputs)


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_non_contiguous(rng, reduce, layout):
    dim, inputs = reduce_inputs(rng, "3d-dim1", np.float64, reduce)
    assert_matches_torch(lambda x, i, s: x.scatter_reduce(dim, i, s, reduce, include_self=False),
                         lambda x, i, s: x.scatter_reduce(dim, i, s, reduce, include_self=False), inputs, layout=layout)


def test_scatter_reduce_nan_and_max_min_aliases():
    nan = np.nan
    x = np.array([1.0, nan, 3.0, 4.0])
    idx = np.array([0, 0, 1, 2])
    s = np.array([2.0, nan, 5.0, nan])
    for reduce in ["amax", "amin", "max", "min"]:
        assert_matches_torch(lambda x, i, s: x.scatter_reduce(0, i, s, reduce),
                             lambda x, i, s: x.scatter_reduce(0, i, s, reduce), [x, idx, s], grad=False)
    # 'max' and 'min' have no backward in torch
    a = seqlab.tensor([1.0, 2.0], requires_grad=True)
    ta = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a.scatter_reduce(0, seqlab.tensor([0]), seqlab.tensor([3.0]), "max")
    ty = ta.scatter_reduce(0, torch.tensor([0]), torch.tensor([3.0]), "max")
    assert_raises_like_torch(lambda: y.sum().backward(), lambda: ty.sum().backward(),
                             "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got max")


def test_scatter_reduce_prod_gradient_with_zeros():
    # position 0: one zero among the values; 1: two zeros; 2: a zero in self; 3: no zero
    x = np.array([2.0, 3.0, 0.0, 1.5])
    idx = np.array([0, 0, 1, 1, 1, 2, 3, 3])
    s = np.array([0.0, 4.0, 0.0, 5.0, 0.0, 7.0, 2.0, -1.0])
    for include_self in [True, False]:
        assert_matches_torch(lambda x, i, s: x.scatter_reduce(0, i, s, "prod", include_self=include_self),
                             lambda x, i, s: x.scatter_reduce(0, i, s, "prod", include_self=include_self), [x, idx, s])


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_gradcheck(rng, reduce, include_self):
    x = rng.permutation(20).reshape(4, 5).astype(np.float64) / 7 + 0.5  # distinct: amax/amin differentiable
    s = rng.permutation(15).reshape(3, 5).astype(np.float64) / 5 + 0.3
    idx = any_index(rng, (4, 5), 0, (3, 5))
    assert_gradcheck(lambda x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), [x, idx, s])


def test_scatter_gradchecks(rng):
    x, s = rng.standard_normal((4, 5)), rng.standard_normal((3, 6))
    idx = distinct_index(rng, (4, 5), 1, (3, 4))
    assert_gradcheck(lambda x, i, s: seqlab.scatter(x, 1, i, s), [x, idx, s])  # src larger than index
    assert_gradcheck(lambda x, i: seqlab.scatter(x, 1, i, 0.5), [x, idx])
    assert_gradcheck(lambda x, i, s: seqlab.scatter_add(x, -1, i, s), [x, any_index(rng, (4, 5), 1, (3, 4)), s])


def test_src_larger_than_index_gets_zero_gradient_where_unread(rng):
    # torch refuses this backward ("returned an invalid gradient"); seqlab gives src's gradient:
    # gather(g) where src is read, 0 elsewhere
    g = rng.standard_normal((3, 4))
    i = np.array([[0, 1, 2, 0]])
    read = np.zeros((2, 4))
    read[0] = g[i[0], np.arange(4)]
    for op in [seqlab.scatter, seqlab.scatter_add, lambda x, d, i, s: seqlab.scatter_reduce(x, d, i, s, "sum")]:
        s = seqlab.tensor(rng.standard_normal((2, 4)), requires_grad=True)
        op(seqlab.zeros(3, 4, dtype=seqlab.float64), 0, seqlab.tensor(i), s).backward(seqlab.tensor(g))
        assert_close(sl_np(s.grad), read, 0, 0)


# ------------------------------------------------------------------ in place
INPLACE = {
    "scatter_": (lambda x, i, s: x.scatter_(0, i, s)),
    "scatter_value": (lambda x, i, s: x.scatter_(0, i, 1.5)),
    "scatter_add_": (lambda x, i, s: x.scatter_add_(0, i, s)),
    "scatter_reduce_prod": (lambda x, i, s: x.scatter_reduce_(0, i, s, "prod")),
    "scatter_reduce_amax": (lambda x, i, s: x.scatter_reduce_(0, i, s, "amax", include_self=False)),
    "scatter_reduce_mean": (lambda x, i, s: x.scatter_reduce_(0, i, s, "mean")),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_forms_inside_the_graph(rng, name):
    op = INPLACE[name]
    x, s = rng.standard_normal((4, 5)), rng.standard_normal((3, 5))
    idx = distinct_index(rng, (4, 5), 0, (3, 5))
    # on a non-leaf, on a view of one, and with no grad at all
    assert_matches_torch(lambda x, i, s: op(x * 1, i, s), lambda x, i, s: op(x * 1, i, s), [x, idx, s])
    assert_matches_torch(lambda x, i, s: op((x * 2)[:, 1:], i, s[:, :4]), lambda x, i, s: op((x * 2)[:, 1:], i, s[:, :4]),
                         [x, idx[:, :4], s])
    assert_matches_torch(lambda x, i, s: op(x.clone(), i, s), lambda x, i, s: op(x.clone(), i, s), [x, idx, s],
                         grad=False)
    # the result is self, written in place
    t = seqlab.tensor(x)
    assert op(t, seqlab.tensor(idx), seqlab.tensor(s)) is t


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_non_contiguous_self_without_grad(rng, name):
    op = INPLACE[name]
    x, s = rng.standard_normal((5, 4)), rng.standard_normal((3, 5))
    idx = distinct_index(rng, (4, 5), 0, (3, 5))
    sx, tx = seqlab.tensor(x), torch.tensor(x)
    op(sx.t(), seqlab.tensor(idx), seqlab.tensor(s))
    op(tx.t(), torch.tensor(idx), torch.tensor(s))
    assert_close(sl_np(sx), th_np(tx), 1e-12, 1e-12)


def test_inplace_errors_as_torch():
    for call in [lambda L: L.ones(3, requires_grad=True).scatter_(0, L.tensor([0]), L.ones(1)),
                 lambda L: L.ones(3, requires_grad=True).scatter_reduce_(0, L.tensor([0]), L.ones(1), "amin"),
                 lambda L: L.ones(3, requires_grad=True).index_add_(0, L.tensor([0]), L.ones(1))]:
        assert_raises_like_torch(lambda: call(seqlab), lambda: call(torch), "leaf Variable that requires grad")
    for name, call in [("scatter_", lambda L, x: x.scatter_(0, L.tensor([0, 1, 2]), x[1:])),
                       ("scatter_add_", lambda L, x: x.scatter_add_(0, L.tensor([0, 1, 2]), x[1:])),
                       ("scatter_reduce_", lambda L, x: x.scatter_reduce_(0, L.tensor([0, 1, 2]), x[1:], "sum")),
                       ("index_add_", lambda L, x: x.index_add_(0, L.tensor([0, 1, 2]), x[1:])),
                       ("index_copy_", lambda L, x: x.index_copy_(0, L.tensor([3]), x[:1]))]:
        assert_raises_like_torch(lambda: call(seqlab, seqlab.tensor([5.0, 7, 9, 11])),
                                 lambda: call(torch, torch.tensor([5.0, 7, 9, 11])),
                                 "refer to a single memory location")
    assert_raises_like_torch(lambda: seqlab.zeros(1).expand(3).scatter_(0, seqlab.tensor([0]), seqlab.ones(1)),
                             lambda: torch.zeros(1).expand(3).scatter_(0, torch.tensor([0]), torch.ones(1)),
                             "single memory location|overlap")


def test_a_refused_scatter_writes_nothing():
    x = seqlab.zeros(3)
    for call in [lambda: x.scatter_(0, seqlab.tensor([0, 9]), seqlab.ones(2)),
                 lambda: x.scatter_reduce_(0, seqlab.tensor([0, 9]), seqlab.ones(2), "prod"),
                 lambda: x.index_add_(0, seqlab.tensor([0, 9]), seqlab.ones(2))]:
        with pytest.raises((RuntimeError, IndexError)):
            call()
        assert x.tolist() == [0.0, 0.0, 0.0]


# ------------------------------------------------------------------ index_add, index_copy, index_reduce
# (self shape, dim, index length, source shape)
INDEX_CASES = {
    "2d-dim0": ((4, 3), 0, 5, (5, 3)),
    "2d-dim1": ((4, 3), 1, 2, (4, 2)),
    "3d-neg": ((2, 3, 4), -1, 6, (2, 3, 6)),
    "1d": ((5,), 0, 3, (3,)),
    "0d": ((), 0, 1, ()),
    "size0-index": ((4, 3), 0, 0, (0, 3)),
    "size0-self": ((0, 3), 1, 2, (0, 2)),
}


def index_inputs(rng, name, dtype):
    shape, dim, n, sshape = INDEX_CASES[name]
    idx = rng.integers(0, shape[dim] if shape else 1, size=n)
    return dim, [rng.standard_normal(shape).astype(dtype), idx.astype(np.int64),
                 rng.standard_normal(sshape).astype(dtype)]


@pytest.mark.parametrize("layout", ["contig", "T", "slice"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(INDEX_CASES))
def test_index_add_matches_torch(rng, name, dtype, layout):
    dim, inputs = index_inputs(rng, name, dtype)
    assert_matches_torch(lambda x, i, s: seqlab.index_add(x, dim, i, s), lambda x, i, s: torch.index_add(x, dim, i, s),
                         inputs, layout=layout)
    assert_matches_torch(lambda x, i, s: x.index_add(dim, i, s, alpha=-2.5),
                         lambda x, i, s: x.index_add(dim, i, s, alpha=-2.5), inputs, layout=layout)
    assert_gradcheck(lambda x, i, s: x.index_add(dim, i, s, alpha=0.5), inputs)


@pytest.mark.parametrize("layout", ["contig", "T", "slice"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(INDEX_CASES))
def test_index_copy_matches_torch(rng, name, dtype, layout):
    shape, dim, n, sshape = INDEX_CASES[name]
    if shape and n > shape[dim]:  # index_copy's indices are distinct: at most self.size(dim) of them
        sshape = tuple(shape[dim] if d == dim % len(shape) else v for d, v in enumerate(sshape))
        n = shape[dim]
    idx = rng.permutation(shape[dim] if shape else 1)[:n].astype(np.int64)
    inputs = [rng.standard_normal(shape).astype(dtype), idx, rng.standard_normal(sshape).astype(dtype)]
    assert_matches_torch(lambda x, i, s: seqlab.index_copy(x, dim, i, s),
                         lambda x, i, s: torch.index_copy(x, dim, i, s), inputs, layout=layout)
    assert_gradcheck(lambda x, i, s: x.index_copy(dim, i, s), inputs)


@pytest.mark.parametrize("include_self", [True, False], ids=["self", "noself"])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(INDEX_CASES))
def test_index_reduce_matches_torch(rng, name, dtype, reduce, include_self):
    dim, (x, idx, s) = index_inputs(rng, name, dtype)
    if reduce in ("amax", "amin"):
        x, s = rng.integers(0, 3, size=x.shape).astype(dtype), rng.integers(0, 3, size=s.shape).astype(dtype)
    if reduce == "prod":
        s = np.where(rng.random(s.shape) < 0.3, 0, s).astype(dtype)
    fn = lambda lib: quiet(lambda x, i, s: x.index_reduce(dim, i, s, reduce, include_self=include_self))
    assert_matches_torch(fn(seqlab), fn(torch), [x, idx, s])


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_gradcheck(rng, reduce):
    x = rng.permutation(12).reshape(4, 3).astype(np.float64) / 5 + 0.5
    s = rng.permutation(15).reshape(5, 3).astype(np.float64) / 3 + 0.2
    idx = np.array([0, 2, 2, 3, 0])
    for include_self in [True, False]:
        assert_gradcheck(quiet(lambda x, i, s: x.index_reduce(0, i, s, reduce, include_self=include_self)),
                         [x, idx, s])


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_])
def test_index_ops_integer_dtypes(rng, dtype):
    hi = 2 if dtype is np.bool_ else 20
    x = rng.integers(0, hi, size=(4, 3)).astype(dtype)
    s = rng.integers(0, hi, size=(5, 3)).astype(dtype)
    idx = np.array([0, 2, 2, 3, 0])
    assert_matches_torch(lambda x, i, s: x.index_add(0, i, s), lambda x, i, s: x.index_add(0, i, s), [x, idx, s],
                         grad=False)
    if dtype is not np.bool_:
        assert_matches_torch(lambda x, i, s: x.index_add(0, i, s, alpha=3), lambda x, i, s: x.index_add(0, i, s, alpha=3),
                             [x, idx, s], grad=False)
    assert_matches_torch(lambda x, i, s: x.index_copy(0, i, s), lambda x, i, s: x.index_copy(0, i, s),
                         [x, np.array([3, 1]), s[:2]], grad=False)
    if dtype is np.bool_:  # torch's index_reduce has no bool kernel but for include_self on 2-d or more
        for reduce, include_self, shape in [("prod", False, (4, 3)), ("amax", True, (4,)), ("mean", True, (4, 3))]:
            fn = lambda lib: quiet(lambda x, i, s: x.index_reduce(0, i, s, reduce, include_self=include_self))
            x2, s2 = x[(...,) if len(shape) == 2 else (slice(None), 0)], s[(...,) if len(shape) == 2 else (slice(None), 0)]
            assert_raises_like_torch(lambda: fn(seqlab)(*map(seqlab.tensor, (x2, idx, s2))),
                                     lambda: fn(torch)(*map(torch.tensor, (x2, idx, s2))), "not implemented for 'Bool'")
    for reduce in ["prod", "amax", "amin"] + ([] if dtype is np.bool_ else ["mean"]):
        for include_self in [True] if dtype is np.bool_ else [True, False]:
            fn = lambda lib: quiet(lambda x, i, s: x.index_reduce(0, i, s, reduce, include_self=include_self))
            assert_matches_torch(fn(seqlab), fn(torch), [x, idx, s], grad=False)


def test_index_add_int_alpha_truncates_as_torch():
    x, s, idx = np.zeros((3, 2), np.int64), np.ones((3, 2), np.int64), np.array([0, 2, 0])
    for alpha in [2.5, True, -1.7]:
        assert_matches_torch(lambda x, i, s: x.index_add(0, i, s, alpha=alpha),
                             lambda x, i, s: x.index_add(0, i, s, alpha=alpha), [x, idx, s], grad=False)


INDEX_INPLACE = {
    "index_add_": lambda x, i, s: x.index_add_(0, i, s, alpha=2),
    "index_copy_": lambda x, i, s: x.index_copy_(0, i, s),
    "index_reduce_": quiet(lambda x, i, s: x.index_reduce_(0, i, s, "amax", include_self=False)),
}


@pytest.mark.parametrize("name", list(INDEX_INPLACE))
def test_index_inplace_forms_inside_the_graph(rng, name):
    op = INDEX_INPLACE[name]
    x, s = rng.standard_normal((4, 3)), rng.standard_normal((2, 3))
    idx = np.array([3, 1])
    assert_matches_torch(lambda x, i, s: op(x * 1, i, s), lambda x, i, s: op(x * 1, i, s), [x, idx, s])
    assert_matches_torch(lambda x, i, s: op((x * 2)[:, :2], i, s[:, :2]),
                         lambda x, i, s: op((x * 2)[:, :2], i, s[:, :2]), [x, idx, s])
    t = seqlab.tensor(x)
    assert op(t, seqlab.tensor(idx), seqlab.tensor(s)) is t
    tt = torch.tensor(x)
    op(tt, torch.tensor(idx), torch.tensor(s))
    assert_close(sl_np(t), th_np(tt), 1e-12, 1e-12)


def test_index_copy_scalar_source_and_index():
    for x, i, s in [(np.zeros(3), np.array(1), np.array(2.0)), (np.zeros(3), np.array([1]), np.array(2.0)),
                    (np.array(1.0), np.array([0]), np.array([2.0]))]:
        assert_matches_torch(lambda x, i, s: x.index_copy(0, i, s), lambda x, i, s: x.index_copy(0, i, s), [x, i, s])


# ------------------------------------------------------------------ index_fill (composed, _composed.py)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
def test_index_fill_matches_torch(rng, dtype):
    x = rng.standard_normal((3, 4, 2)).astype(dtype)
    for dim, idx in [(1, np.array([0, 3, 3])), (-1, np.array([1])), (1, np.array([-1, 0])), (0, np.array(2))]:
        assert_matches_torch(lambda x, i: x.index_fill(dim, i, -2.0), lambda x, i: x.index_fill(dim, i, -2.0), [x, idx])
        assert_matches_torch(lambda x, i: x.index_fill(dim, i, seqlab.tensor(4.0, dtype=x.dtype)),
                             lambda x, i: x.index_fill(dim, i, torch.tensor(4.0, dtype=x.dtype)), [x, idx])


# ------------------------------------------------------------------ errors
ERRORS = {
    "scatter-dtype": (lambda L: L.zeros(3, 4).scatter(0, L.tensor([[0, 1]]), L.ones(1, 2, dtype=L.float64)),
                      [r"scatter\(\): Expected self.dtype to be equal to src.dtype"]),
    "scatter-index-dtype": (lambda L: L.zeros(3, 4).scatter(0, L.tensor([[0.0, 1.0]]), L.ones(1, 2)),
                            [r"scatter\(\): Expected dtype int32/int64 for index"]),
    "scatter-oob": (lambda L: L.zeros(3, 4).scatter(0, L.tensor([[0, 5]]), L.ones(1, 2)),
                    [r"index 5 is out of bounds for dimension 0 with size 3"]),
    "scatter-negative": (lambda L: L.zeros(3, 4).scatter(0, L.tensor([[0, -1]]), L.ones(1, 2)),
                         [r"index -1 is out of bounds for dimension 0 with size 3"]),
    "scatter-dim": (lambda L: L.zeros(3, 4).scatter(2, L.tensor([[0, 1]]), L.ones(1, 2)), ["Dimension out of range"]),
    "scatter-ndim": (lambda L: L.zeros(3, 4).scatter(0, L.tensor([0, 1]), L.ones(1, 2)),
                     ["Index tensor must have the same number of dimensions as self tensor"]),
    "scatter-src-ndim": (lambda L: L.zeros(3, 4).scatter(0, L.tensor([[0, 1]]), L.ones(1, 2, 1)),
                         ["Index tensor must have the same number of dimensions as src tensor"]),
    "scatter-src-fewer-dims": (lambda L: L.zeros(3, 4).scatter_add(0, L.tensor([[0, 1]]), L.ones(2)),
                               [r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"]),
    "scatter-index-larger-than-src": (lambda L: L.zeros(3, 4).scatter(0, L.zeros(1, 3, dtype=L.int64), L.ones(1, 2)),
                                      [r"Expected index \[1, 3\] to be no larger than self \[3, 4\] apart from "
                                       r"dimension 0 and to be no larger size than src \[1, 2\]"]),
    "scatter-index-larger-than-self": (lambda L: L.zeros(3, 4).scatter(1, L.zeros(4, 1, dtype=L.int64), 1.0),
                                       [r"Expected index \[4, 1\] to be no larger than self \[3, 4\] apart from "
                                        r"dimension 1"]),
    "scatter-reduce-kw": (lambda L: L.zeros(3).scatter(0, L.tensor([0]), L.ones(1), reduce="sum"),
                          ["reduce argument must be either add or multiply"]),
    "scatter-value-reduce-kw": (lambda L: L.zeros(3).scatter_(0, L.tensor([0]), 1.0, reduce="mean"),
                                ["reduce argument must be either add or multiply"]),
    "scatter_add-dtype": (lambda L: L.zeros(3).scatter_add(0, L.tensor([0]), L.ones(1, dtype=L.float64)),
                          [r"Expected self.dtype to be equal to src.dtype"]),
    "scatter_add-oob": (lambda L: L.zeros(3).scatter_add_(0, L.tensor([3]), L.ones(1)), ["index 3 is out of bounds"]),
    "scatter_reduce-name": (lambda L: L.zeros(3).scatter_reduce(0, L.tensor([0]), L.ones(1), "add"),
                            ["reduce argument must be either sum, prod, mean, amax or amin, got add"]),
    "scatter_reduce-bool-mean": (lambda L: L.zeros(3, dtype=L.bool).scatter_reduce(0, L.tensor([0]),
                                                                                  L.ones(1, dtype=L.bool), "mean"),
                                 ["scatter_gather_tensor_cpu_reduce_mean.*Bool"]),
    "index_add-dtype": (lambda L: L.zeros(3, 4).index_add(0, L.tensor([0]), L.ones(1, 4, dtype=L.float64)),
                        [r"index_add_\(\): self \(Float\) and source \(Double\) must have the same scalar type"]),
    "index_add-index-dtype": (lambda L: L.zeros(3, 4).index_add(0, L.tensor([0.0]), L.ones(1, 4)),
                              [r"index_add_\(\): Expected dtype int32/int64 for index but got: Float"]),
    "index_add-index-2d": (lambda L: L.zeros(3, 4).index_add(0, L.tensor([[0]]), L.ones(1, 4)),
                           [r"index_add_\(\): Index is supposed to be a vector, but got dim: 2"]),
    "index_add-count": (lambda L: L.zeros(3, 4).index_add(0, L.tensor([0, 1]), L.ones(3, 4)),
                        [r"Number of indices \(2\) should be equal to source.size\(dim\): \(3\), for dim: 0"]),
    "index_add-shape": (lambda L: L.zeros(3, 4).index_add(0, L.tensor([0]), L.ones(1, 3)),
                        [r"source tensor shape must match self tensor shape", r"\[3, 4\]", r"\[1, 3\]"]),
    "index_add-oob": (lambda L: L.zeros(3, 4).index_add(0, L.tensor([3]), L.ones(1, 4)),
                      ["index 3 is out of bounds for dimension 0 with size 3"]),
    "index_add-negative": (lambda L: L.zeros(3, 4).index_add(0, L.tensor([-1]), L.ones(1, 4)),
                           ["index -1 is out of bounds for dimension 0 with size 3"]),
    "index_add-dim": (lambda L: L.zeros(3, 4).index_add(2, L.tensor([0]), L.ones(1, 4)), ["Dimension out of range"]),
    "index_copy-dtype": (lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0]), L.ones(1, 4, dtype=L.float64)),
                         [r"index_copy_\(\): self and source expected to have the same dtype"]),
    "index_copy-index-dtype": (lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0], dtype=L.int32), L.ones(1, 4)),
                               [r"index_copy_\(\): Expected a long tensor for index, but got Int"]),
    "index_copy-index-2d": (lambda L: L.zeros(3, 4).index_copy(0, L.tensor([[0]]), L.ones(1, 4)),
                            [r"index_copy_\(\): Index should have dimension 1 or 0 \(got 2\)"]),
    "index_copy-ndim": (lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0]), L.ones(1, 4, 1)),
                        ["their dimensionality must match"]),
    "index_copy-count": (lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0, 1]), L.ones(1, 4)),
                         [r"Number of indices \(2\) should be equal to source.size\(dim\) \(1\)"]),
    "index_copy-slice": (lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0]), L.ones(1, 3)),
                         ["Source/destination tensor must have same slice shapes"]),
    "index_copy-oob": (lambda L: L.zeros(3, 4).index_copy(0, L.tensor([7]), L.ones(1, 4)),
                       [r"index_copy_\(\): index 7 is out of bounds for dimension 0 with size 3"]),
    "index_reduce-name": (lambda L: L.zeros(3).index_reduce(0, L.tensor([0]), L.ones(1), "sum"),
                          [r"index_reduce\(\): Expected reduce to be one of prod, mean, amax or amin but got sum"]),
    "index_reduce-oob": (lambda L: L.zeros(3).index_reduce(0, L.tensor([3]), L.ones(1), "prod"),
                         ["index out of range in self"]),
    "index_reduce-dtype": (lambda L: L.zeros(3).index_reduce(0, L.tensor([0]), L.ones(1, dtype=L.float64), "amax"),
                           [r"index_reduce_\(\): self \(Float\) and source \(Double\)"]),
    "index_reduce-bool-mean": (lambda L: L.zeros(3, dtype=L.bool).index_reduce(0, L.tensor([0]),
                                                                              L.ones(1, dtype=L.bool), "mean"),
                               ["index_func_.*Bool"]),
    "index_fill-index-dtype": (lambda L: L.zeros(3, 4).index_fill(1, L.tensor([0], dtype=L.int32), 1.0),
                               [r"index_fill_\(\): Expected dtype int64 for index"]),
    "index_fill-index-2d": (lambda L: L.zeros(3, 4).index_fill(1, L.tensor([[0]]), 1.0),
                            ["Index has to be a vector/scalar"]),
    "index_fill-value-1d": (lambda L: L.zeros(3, 4).index_fill(1, L.tensor([0]), L.tensor([2.0])),
                            ["index_fill_ only supports a 0-dimensional value tensor"]),
    "index_fill-oob": (lambda L: L.zeros(3, 4).index_fill_(1, L.tensor([-5]), 1.0),
                       ["index -5 is out of bounds for dimension 1 with size 4"]),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    fn, fragments = ERRORS[name]
    assert_raises_like_torch(quiet(lambda: fn(seqlab)), quiet(lambda: fn(torch)), *fragments)


def test_arguments_as_torch():
    x, i, s = seqlab.zeros(3), seqlab.tensor([0]), seqlab.ones(1)
    with pytest.raises(TypeError):
        x.scatter_reduce(0, i, s, "sum", True)  # include_self is keyword-only, as torch
    with pytest.raises(TypeError):
        x.index_add(0, i, s, 2)  # alpha too
    assert seqlab.scatter(x, dim=0, index=i, src=s).tolist() == [1.0, 0.0, 0.0]
    assert x.scatter(0, i, value=4).tolist() == [4.0, 0.0, 0.0]
    assert seqlab.index_add(x, 0, i, s, alpha=3).tolist() == [3.0, 0.0, 0.0]
