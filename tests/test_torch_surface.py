"""PyTorch names real scripts reach for beyond the course files, each against torch: logsumexp,
isnan / isinf / isfinite, index_fill(_), the in-place shape methods (unsqueeze_, squeeze_, t_,
transpose_), assignment of a value with leading size-1 dims, softmax and log_softmax without dim
(PyTorch's implicit dim and warning), kl_div / KLDivLoss, torch.autograd.Variable,
torch.distributed's entry points, torch.utils.data.distributed.DistributedSampler, and einsum
(every form real code writes: batched products, attention scores, outer products, diagonals,
"...", three operands, size-1 broadcasting, implicit outputs). (erf, erfc,
erfinv and rsqrt are with the other unary ops in tests/test_elementwise.py.)"""
import warnings

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from conftest import assert_matches_torch, assert_raises_like_torch

INF, NAN = np.inf, np.nan


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False), ((0, 2), False), ((1, 2), True)])
def test_logsumexp_matches_torch(rng, dtype, dim, keepdim):
    x = (rng.standard_normal((3, 4, 5)) * 30).astype(dtype)  # large: exp overflows without the shift
    assert_matches_torch(lambda t: seqlab.logsumexp(t, dim, keepdim), lambda t: torch.logsumexp(t, dim, keepdim), [x])
    assert_matches_torch(lambda t: t.logsumexp(dim, keepdim=keepdim), lambda t: t.logsumexp(dim, keepdim=keepdim),
                         [x])


def test_logsumexp_infinities_empty_and_integers():
    x = np.array([[-INF, -INF], [INF, 1.0], [NAN, 0.0], [-INF, 2.0]])
    assert_matches_torch(lambda t: seqlab.logsumexp(t, 1), lambda t: torch.logsumexp(t, 1), [x], grad=False)
    ints = np.array([[1, 2, 3], [4, 5, 6]])
    assert_matches_torch(lambda t: seqlab.logsumexp(t, 0), lambda t: torch.logsumexp(t, 0), [ints])
    empty = np.zeros((0, 3))
    assert_matches_torch(lambda t: seqlab.logsumexp(t, 0), lambda t: torch.logsumexp(t, 0), [empty], grad=False)
    with pytest.raises(IndexError, match="Dimension out of range"):
        seqlab.logsumexp(seqlab.zeros(2, 3), 2)


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_isnan_isinf_isfinite_match_torch(name):
    floats = np.array([0.0, -1.5, INF, -INF, NAN, 1e30, -0.0])
    for x in (floats, floats.astype(np.float32), np.array([1, -2, 0]), np.array([True, False])):
        assert_matches_torch(lambda t: getattr(seqlab, name)(t), lambda t: getattr(torch, name)(t), [x], grad=False)
        assert_matches_torch(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), [x], grad=False)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_fill_matches_torch(rng, dim):
    x = rng.standard_normal((3, 4))
    for index, value in (([0, 2], -1.5), ([1], 0.0), ([], 3.0), ([-1, 0], 7.0)):
        def run(lib, t, index=index, value=value):
            return t.index_fill(dim, lib.tensor(index, dtype=lib.int64), value)
        assert_matches_torch(lambda t: run(seqlab, t), lambda t: run(torch, t), [x])
    sl, th = seqlab.tensor(x), torch.tensor(x)
    sl.index_fill_(dim, seqlab.tensor([0]), 9.0)
    th.index_fill_(dim, torch.tensor([0]), 9.0)
    np.testing.assert_array_equal(sl.numpy(), th.numpy())
    assert_raises_like_torch(lambda: seqlab.ones(3, 4).index_fill(0, seqlab.tensor([3]), 1.0),
                             lambda: torch.ones(3, 4).index_fill(0, torch.tensor([3]), 1.0), "out of")


def test_in_place_shape_methods_match_torch():
    for name, args in (("unsqueeze_", (0,)), ("unsqueeze_", (-1,)), ("squeeze_", ()), ("squeeze_", (1,)),
                       ("t_", ()), ("transpose_", (0, 2))):
        shape = (2, 1, 3) if name != "t_" else (2, 3)
        a, b = seqlab.arange(6.0).reshape(shape), torch.arange(6.0).reshape(shape)
        ra, rb = getattr(a, name)(*args), getattr(b, name)(*args)
        assert ra is a and tuple(a.shape) == tuple(b.shape), (name, args)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        a.add_(1)  # still a view of the same memory, written through
    leaf = seqlab.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"a leaf Variable that requires grad is being used in an in-place "
                                           r"operation \(unsqueeze_\)"):
        leaf.unsqueeze_(0)
    with pytest.raises(RuntimeError, match=r"unsqueeze_\(\): seqlab changes a tensor's shape in place only outside "
                                           r"autograd"):
        (leaf * 2).unsqueeze_(0)
    with seqlab.no_grad():
        leaf.unsqueeze_(0)
    assert tuple(leaf.shape) == (1, 2)


def test_assignment_drops_the_values_leading_size_one_dims():
    for target, key, value in (((3, 4), 0, (1, 4)), ((3, 4), 1, (1, 1, 4)), ((3, 4), slice(0, 2), (1, 2, 4)),
                               ((2, 3), (0, 1), (1, 1)), ((3, 4), 0, (1,))):
        a, b = seqlab.zeros(*target), torch.zeros(*target)
        a[key] = seqlab.ones(*value) * 2
        b[key] = torch.ones(*value) * 2
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert_raises_like_torch(lambda: seqlab.zeros(3, 4).__setitem__(0, seqlab.ones(2, 4)),
                             lambda: torch.zeros(3, 4).__setitem__(0, torch.ones(2, 4)), "shape")


@pytest.mark.parametrize("shape", [(5,), (2, 5), (2, 3, 4), (2, 3, 4, 5)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_without_dim_uses_torchs_implicit_dim_and_warns(rng, shape, name):
    x = rng.standard_normal(shape)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = getattr(F, name)(seqlab.tensor(x))
        want = getattr(torch.nn.functional, name)(torch.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    texts = [str(w.message) for w in caught]
    assert texts.count(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                       "dim=X as an argument.") == 2  # one from each library


@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_matches_torch(rng, reduction, log_target):
    logq = torch.log_softmax(torch.tensor(rng.standard_normal((4, 6))), -1).numpy()
    p = torch.softmax(torch.tensor(rng.standard_normal((4, 6))), -1).numpy()
    target = np.log(p) if log_target else p
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_matches_torch(  # values and the gradients of input and target
            lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target),
            lambda a, b: torch.nn.functional.kl_div(a, b, reduction=reduction, log_target=log_target),
            [logq, target])
        module = nn.KLDivLoss(reduction=reduction, log_target=log_target)
        reference = torch.nn.KLDivLoss(reduction=reduction, log_target=log_target)
        assert_matches_torch(lambda a, b: module(a, b), lambda a, b: reference(a, b), [logq, target])
        # zeros in the target: 0·log 0 counts 0, and the input's gradient is torch's (the target's
        # has no derivative there: torch gives NaN, seqlab the product rule with 0·log 0 = 0)
        p[0, :3] = 0.0
        ours, theirs = seqlab.tensor(logq, requires_grad=True), torch.tensor(logq, requires_grad=True)
        a = F.kl_div(ours, seqlab.tensor(p), reduction=reduction)
        b = torch.nn.functional.kl_div(theirs, torch.tensor(p), reduction=reduction)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-15)
        a.sum().backward()
        b.sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_kl_div_warns_for_mean_and_refuses_an_unknown_reduction():
    x = seqlab.zeros(2, 3)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size"):
        F.kl_div(x, x.exp())
    with pytest.raises(ValueError, match="average is not a valid value for reduction"):
        F.kl_div(x, x.exp(), reduction="average")
    assert repr(nn.KLDivLoss()) == repr(torch.nn.KLDivLoss()) == "KLDivLoss()"


def test_variable_is_torchs_deprecated_alias():
    from seqlab.autograd import Variable
    x = seqlab.ones(3)
    v = Variable(x, requires_grad=True)
    assert v is not x and v.requires_grad and v.is_leaf and not x.requires_grad
    assert v.data_ptr() == x.data_ptr() and isinstance(x, Variable) and not isinstance(3, Variable)
    w = Variable(v * 2)  # history dropped, as PyTorch's
    assert w.grad_fn is None and not w.requires_grad
    (v * v).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [2, 2, 2])
    assert seqlab.autograd.Variable is Variable
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        Variable(x, volatile=True)


def test_variable_function_raises_torchs_deprecation_error():
    """torch.autograd.variable (lower case) only raises, naming the replacement; seqlab's does the same."""
    assert_raises_like_torch(lambda: seqlab.autograd.variable(seqlab.ones(2)),
                             lambda: torch.autograd.variable(torch.ones(2)),
                             r"autograd\.variable\(\.\.\.\) is deprecated, use (seqlab|torch)\.tensor\(\.\.\.\) instead")


def test_distributed_entry_points_say_there_is_no_group():
    import seqlab.distributed as dist
    assert dist.is_available() is False and dist.is_initialized() is False
    for call in (dist.get_rank, dist.get_world_size, dist.barrier):
        with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
            call()
    with pytest.raises(RuntimeError, match="seqlab runs in one process and has no distributed backend"):
        dist.init_process_group("gloo")


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (9, 3, False), (2, 4, False),
                                                  (7, 1, False), (11, 4, True)])
def test_distributed_sampler_partitions_as_torch(n, replicas, drop_last):
    from seqlab.utils.data.distributed import DistributedSampler
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    data = list(range(n))
    seen = []
    for rank in range(replicas):
        ours = DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(data, num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
        shuffled = DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=True, seed=5,
                                      drop_last=drop_last)
        shuffled.set_epoch(2)
        seen += list(shuffled)
        assert len(list(shuffled)) == len(theirs)
    if not drop_last:  # the shuffled shards cover the dataset (padding repeats some)
        assert set(seen) == set(data)
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(data, num_replicas=3, rank=3)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(data)


EINSUM = [  # (equation, operand shapes)
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhld,bhsd->bhls", [(2, 3, 4, 5), (2, 3, 6, 5)]), ("bhls,bhsd->bhld", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("i,j->ij", [(3,), (4,)]), ("i,i->", [(5,), (5,)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
    ("ii->i", [(4, 4)]), ("ii", [(4, 4)]), ("iij->j", [(3, 3, 2)]), ("ij,jk", [(3, 4), (4, 5)]), ("ba,ac", [(3, 4), (4, 2)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("...ij->...ji", [(2, 1, 3, 4)]), ("b...,b...->b", [(2, 3, 4), (2, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("ij,ik,il->jkl", [(2, 3), (2, 4), (2, 5)]),
    ("bi,bj->bij", [(1, 3), (4, 5)]), ("ij,kj->ik", [(3, 1), (2, 5)]), ("Ab,bC->CA", [(2, 3), (3, 4)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]), ("ij,ij->ij", [(3, 4), (3, 4)]), ("i j , j k -> i k", [(2, 3), (3, 2)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_torch(rng, equation, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    assert_matches_torch(lambda *t: seqlab.einsum(equation, *t), lambda *t: torch.einsum(equation, *t), arrays)
    assert_matches_torch(lambda *t: seqlab.einsum(equation, list(t)), lambda *t: torch.einsum(equation, list(t)),
                         arrays)


def test_einsum_integers_and_errors():
    a = np.arange(12).reshape(3, 4)
    assert_matches_torch(lambda t: seqlab.einsum("ij,kj->ik", t, t), lambda t: torch.einsum("ij,kj->ik", t, t), [a])
    x = seqlab.ones(2, 3)
    cases = [(("ij,jk->ik", x, x), "sizes|subscript j has size 3 for one operand and 2"),
             (("ijk->ij", x), "name 3 dims but the operand has shape"),
             (("ij->ik", x), "output label 'k' does not appear"),
             (("ij,jk->ik", x), "2 operand subscripts in the equation for 1 operands"),
             (("i1->i", x), "invalid subscript '1'"),
             (("ij->ii", x), "repeat a label")]
    for args, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            seqlab.einsum(*args)
    with pytest.raises(TypeError, match="argument 'equation' must be str"):
        seqlab.einsum(x, [0, 1])


# ---------------------------------------------------------------------------------------------
# Silent differences the fuzzing against torch found, each now torch's value or torch's error

def test_attention_row_of_nan_scores_is_nan_not_zero():
    """A NaN query makes its row's scores NaN: torch's output is NaN there (a masked row stays 0);
    the fused kernel took the NaN row for a fully masked one and gave zeros."""
    for lib in (seqlab, torch):
        q = lib.tensor([[[float("nan"), 0.0], [1.0, 2.0]]], requires_grad=True)
        k = v = lib.ones(1, 2, 2)
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        assert np.isnan(out.detach().numpy()[0, 0]).all() and np.isfinite(out.detach().numpy()[0, 1]).all()
        out.sum().backward()
        assert np.isnan(q.grad.numpy()[0, 0]).all() and np.isfinite(q.grad.numpy()[0, 1]).all()
    masked = seqlab.nn.functional.scaled_dot_product_attention(
        seqlab.ones(1, 2, 2), seqlab.ones(1, 2, 2), seqlab.ones(1, 2, 2), attn_mask=seqlab.tensor([[False, False]]))
    np.testing.assert_array_equal(masked.numpy(), 0.0)  # fully masked: zeros, torch's choice


@pytest.mark.parametrize("case", [
    lambda L: L.tensor([3, -1, 2, 1, -1, 0]) ** L.tensor([-1, -1, -2, -5, -2, 3]),  # 1/3 -> 0, (-1)^-1 = -1
    lambda L: 2 ** L.tensor(-1), lambda L: L.tensor([-2, 5], dtype=L.int8) ** L.tensor([-3, -1], dtype=L.int8),
    lambda L: L.clamp(L.tensor([1, 5], dtype=L.int8), 1000.0), lambda L: L.clamp(L.tensor([1, 5]), max=float("inf")),
    lambda L: L.tensor([1, 5], dtype=L.int32).clamp(min=2.5), lambda L: L.tensor([1, 5]).clip(0, 3),
    lambda L: L.tensor([-32768], dtype=L.int16) ** 2.0, lambda L: L.tensor([3]) ** 2,
    lambda L: L.where(L.tensor([True, False]), L.tensor([1, 2], dtype=L.int8), 100),
    lambda L: L.add(L.tensor([1, 2]), L.tensor([1, 1]), alpha=3), lambda L: L.tensor([1.0]).sub(L.tensor([1]), alpha=0.5),
])
def test_integer_promotion_and_powers_match_torch(case):
    got, want = case(seqlab), case(torch)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("case,message", [
    (lambda L: L.where(L.tensor([True]), L.tensor([1], dtype=L.int8), 256), "value cannot be converted to type int8_t"),
    (lambda L: L.tensor([1], dtype=L.uint8).where(L.tensor([False]), -256), "value cannot be converted to type uint8_t"),
    (lambda L: L.clamp(L.tensor([1], dtype=L.int8), max=256), "value cannot be converted to type int8_t"),
    (lambda L: L.add(L.tensor([1, 2]), L.tensor([1, 1]), alpha=1.5), "argument alpha must not be a floating point"),
    (lambda L: L.tensor([1, 2]).sub(1, alpha=0.5), "argument alpha must not be a floating point"),
    (lambda L: L.tensor([1, 2]).add_(1, alpha=2.0), "argument alpha must not be a floating point"),
    (lambda L: L.tensor([2, 3]) ** -1, "Integers to negative integer powers are not allowed"),
])
def test_integer_overflow_and_alpha_errors_match_torch(case, message):
    assert_raises_like_torch(lambda: case(seqlab), lambda: case(torch), message)


def test_sort_and_topk_put_nan_above_inf_and_keep_0d_shapes():
    rng = np.random.default_rng(0)
    for _ in range(50):
        a = rng.choice([1.0, 2.0, INF, -INF, NAN, 0.0, -0.0], size=(3, 5))
        for dim in (0, 1):
            for descending in (True, False):
                ours = seqlab.sort(seqlab.tensor(a), dim=dim, descending=descending)
                theirs = torch.sort(torch.tensor(a), dim=dim, descending=descending, stable=True)
                np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
                np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
        got, want = seqlab.topk(seqlab.tensor(a[0]), 3), torch.topk(torch.tensor(a[0]), 3)
        np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
    for fn in (lambda L: L.argsort(L.tensor(3.0)), lambda L: L.sort(L.tensor(3.0)).indices,
               lambda L: L.tensor(3.0).topk(1).indices):
        assert tuple(fn(seqlab).shape) == tuple(fn(torch).shape) == ()


@pytest.mark.parametrize("pad,mode", [((-1, 1), "circular"), ((1, -1), "circular"), ((-1, -1), "circular"),
                                      ((2, -1), "circular"), ((-1, 2), "constant"), ((0, -3), "constant")])
def test_pad_with_negative_pads_crops_first(pad, mode):
    x = np.array([[[1.0, 2.0, 3.0]]])
    assert_matches_torch(lambda t: F.pad(t, pad, mode), lambda t: torch.nn.functional.pad(t, pad, mode), [x])


@pytest.mark.parametrize("case,message", [
    (lambda L: L.nn.functional.pad(L.tensor([[1.0, 2.0, 3.0]]), (-2, -2)), "length must be non-negative"),
    (lambda L: L.zeros(0, 0, 3).argmin(0), r"argmin\(\): Expected reduction dim 0 to have non-zero size"),
    (lambda L: L.zeros(2, 0).argmax(1), r"argmax\(\): Expected reduction dim 1 to have non-zero size"),
    (lambda L: L.zeros(0, 3).max(0), r"max\(\): Expected reduction dim 0 to have non-zero size"),
    (lambda L: L.arange(0, float("inf")), r"unsupported range: 0 -> inf"),
    (lambda L: L.logical_xor(L.tensor([0.0, 1.0]), 2.5), r"logical_xor\(\): argument 'other'.* must be Tensor, not float"),
    (lambda L: L.maximum(L.tensor([0.0, 1.0]), True), r"maximum\(\): argument 'other'.* must be Tensor, not bool"),
    (lambda L: L.tensor([1.0]).minimum(2), r"minimum\(\): argument 'other'.* must be Tensor, not int"),
    (lambda L: L.tensor([L.tensor([1.0, 2.0])]), "only one element tensors can be converted to Python scalars"),
])
def test_edge_errors_match_torch(case, message):
    assert_raises_like_torch(lambda: case(seqlab), lambda: case(torch), message)


@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")  # torch warns for the empty reductions
@pytest.mark.parametrize("case", [
    lambda L: L.zeros(0).std(0, correction=-1), lambda L: L.zeros(0, 3).var(0), lambda L: L.zeros(2, 0).var(1),
    lambda L: L.tensor([[1.0, 3.0], [2.0, 0.0]]).argmax(None, keepdim=True),
    lambda L: L.tensor([[1.0, 3.0], [2.0, 0.0]]).argmin(keepdim=True), lambda L: L.zeros(0, 2).argmax(1),
    lambda L: L.tensor([L.tensor([1.0]), L.tensor([2.0])]), lambda L: L.tensor([[L.tensor(1), L.tensor([2])]]),
])
def test_edge_values_match_torch(case):
    got, want = case(seqlab), case(torch)
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_subtraction_records_torchs_node_name():
    """a − b records SubBackward0 as PyTorch does (it was AddBackward0: the drawn graph differed)."""
    for lib in (seqlab, torch):
        a = lib.ones(2, requires_grad=True)
        assert [(a - 1).grad_fn.name(), lib.sub(a, a).grad_fn.name(), (a + 1).grad_fn.name()] == \
            ["SubBackward0", "SubBackward0", "AddBackward0"]


def test_skip_init_builds_the_module_without_initialising_it():
    """torch.nn.utils.skip_init: the module's parameters are allocated, not initialised (here:
    the init functions were not called), and initialisation works again afterwards, also after
    a constructor that raised."""
    calls = []
    original = seqlab.nn.init.kaiming_uniform_
    try:
        seqlab.nn.init.kaiming_uniform_ = lambda t, *a, **k: calls.append(t) or original(t, *a, **k)
        for lib in (seqlab, torch):
            m = lib.nn.utils.skip_init(lib.nn.Linear, 5, 3, bias=False)
            assert isinstance(m, lib.nn.Linear) and tuple(m.weight.shape) == (3, 5) and m.bias is None
        assert calls == []
        seqlab.nn.Linear(5, 3)
        assert len(calls) == 1
        with pytest.raises(TypeError):
            seqlab.nn.utils.skip_init(seqlab.nn.Linear, 5, 3, no_such_arg=1)
        seqlab.nn.Linear(5, 3)
        assert len(calls) == 2
    finally:
        seqlab.nn.init.kaiming_uniform_ = original
    with pytest.raises(TypeError, match="skip_init: module_cls must be a class"):
        seqlab.nn.utils.skip_init(seqlab.nn.Linear(2, 2))
