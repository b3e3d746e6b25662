"""addmm, addmv, addr, baddbmm, addbmm (seqlab/_add_products.py), dist and cdist (_distances.py),
searchsorted and bucketize (_searchsorted.py) against torch: values, dtypes, shapes, broadcasting
of input, beta = 0 ignoring input's NaN, integer tensors, in-place methods, float64 gradients and
torch's errors."""
import numpy as np
import pytest
import torch

import seqlab


def pair(*shape, seed=0, dtype=np.float64):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return seqlab.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def close(ours, theirs, tol=1e-12):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol, equal_nan=True)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


CASES = [  # name, input shape, operand shapes
    ("addmm", (3, 4), [(3, 5), (5, 4)]),
    ("addmm", (4,), [(3, 5), (5, 4)]),
    ("addmm", (1, 1), [(3, 5), (5, 4)]),
    ("addmv", (3,), [(3, 5), (5,)]),
    ("addmv", (1,), [(3, 5), (5,)]),
    ("addr", (3, 4), [(3,), (4,)]),
    ("addr", (4,), [(3,), (4,)]),
    ("baddbmm", (2, 3, 4), [(2, 3, 5), (2, 5, 4)]),
    ("baddbmm", (3, 4), [(2, 3, 5), (2, 5, 4)]),
    ("addbmm", (3, 4), [(2, 3, 5), (2, 5, 4)]),
    ("addbmm", (), [(2, 3, 5), (2, 5, 4)]),
]


@pytest.mark.parametrize("name, input_shape, shapes", CASES)
@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2.0), (0, 1), (-1.5, 0)])
def test_add_products_equal_torch_with_gradients(name, input_shape, shapes, beta, alpha):
    s_in, t_in = pair(*input_shape, seed=1)
    ops = [pair(*shape, seed=2 + i) for i, shape in enumerate(shapes)]
    ours = getattr(seqlab, name)(s_in, *[o[0] for o in ops], beta=beta, alpha=alpha)
    theirs = getattr(torch, name)(t_in, *[o[1] for o in ops], beta=beta, alpha=alpha)
    close(ours, theirs)
    weight = np.random.default_rng(9).standard_normal(tuple(theirs.shape))
    (ours * seqlab.tensor(weight)).sum().backward()
    (theirs * torch.tensor(weight)).sum().backward()
    for (s, t) in [(s_in, t_in)] + ops:
        if t.grad is None:
            assert s.grad is None or not s.grad.numpy().any()
        else:
            close(s.grad, t.grad)


@pytest.mark.parametrize("name, input_shape, shapes", CASES[::2])
def test_add_products_as_methods_and_in_place(name, input_shape, shapes):
    full = {"addmm": (3, 4), "addmv": (3,), "addr": (3, 4), "baddbmm": (2, 3, 4), "addbmm": (3, 4)}[name]
    s_in, t_in = pair(*full, seed=1)
    ops = [pair(*shape, seed=2 + i) for i, shape in enumerate(shapes)]
    close(getattr(s_in, name)(*[o[0] for o in ops], alpha=3), getattr(t_in, name)(*[o[1] for o in ops], alpha=3))
    s, t = s_in.detach().clone(), t_in.detach().clone()
    getattr(s, name + "_")(*[o[0].detach() for o in ops], beta=2)
    getattr(t, name + "_")(*[o[1].detach() for o in ops], beta=2)
    close(s, t)


def test_beta_zero_ignores_nan_and_inf_in_input():
    m1, m2 = seqlab.ones(2, 3), seqlab.ones(3, 2)
    out = seqlab.addmm(seqlab.tensor([[float("nan"), float("inf")], [1.0, 2.0]]), m1, m2, beta=0)
    close(out, torch.addmm(torch.tensor([[float("nan"), float("inf")], [1.0, 2.0]]), torch.ones(2, 3),
                           torch.ones(3, 2), beta=0))


def test_integer_tensors_take_beta_and_alpha_as_integers():
    def run(m, **kw):
        return m.addmm(m.ones(2, 2, dtype=m.int64), m.ones(2, 3, dtype=m.int64), m.ones(3, 2, dtype=m.int64), **kw)
    for kw in (dict(beta=0.5), dict(alpha=1.5), dict(beta=2, alpha=3)):
        close(run(seqlab, **kw), run(torch, **kw))


@pytest.mark.parametrize("call, message", [
    (lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3), m.ones(4, 2)), "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"),
    (lambda m: m.addmv(m.ones(2), m.ones(2, 3), m.ones(4)), "size mismatch, got input (2), mat (2x3), vec (4)"),
    (lambda m: m.baddbmm(m.ones(2, 2, 2), m.ones(2, 2, 3), m.ones(3, 3, 2)),
     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."),
    (lambda m: m.addbmm(m.ones(2, 2), m.ones(2, 2, 3), m.ones(2, 4, 2)), "Incompatible matrix sizes for bmm (2x3 and 4x2)"),
    (lambda m: m.addbmm(m.ones(2, 2), m.ones(2, 2, 3), m.ones(3, 3, 2)),
     "batch1 and batch2 must have same number of batches, got 2 and 3"),
])
def test_shape_errors_are_torchs(call, message):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    assert message in str(theirs.value)
    with pytest.raises(RuntimeError) as ours:
        call(seqlab)
    assert message in str(ours.value)


@pytest.mark.parametrize("call, op", [
    (lambda m: m.addmm(m.ones(3, 2), m.ones(2, 3), m.ones(3, 2)), "addmm"),        # input not broadcastable
    (lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3, 1), m.ones(3, 2)), "mat1 must be a matrix"),
    (lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3, dtype=m.float64), m.ones(3, 2, dtype=m.float64)), "dtype"),
    (lambda m: m.addr(m.ones(2, 2), m.ones(2, 1), m.ones(2)), "vec1 must be a vector"),
])
def test_other_errors_name_the_problem(call, op):
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError, match=op):
        call(seqlab)


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, float("inf")])
def test_dist_equals_torch_with_gradient(p):
    (s1, t1), (s2, t2) = pair(3, 4, seed=1), pair(4, seed=2)
    close(seqlab.dist(s1, s2, p), torch.dist(t1, t2, p))
    if p != 0:
        seqlab.dist(s1, s2, p).backward()
        torch.dist(t1, t2, p).backward()
        close(s1.grad, t1.grad)
        close(s2.grad, t2.grad)
    close(s1.dist(s2), t1.dist(t2))


@pytest.mark.parametrize("shapes", [((5, 3), (4, 3)), ((2, 5, 3), (2, 4, 3)), ((2, 5, 3), (4, 3)), ((1, 3), (6, 3))])
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist_equals_torch_with_gradient(shapes, p):
    (s1, t1), (s2, t2) = pair(*shapes[0], seed=3), pair(*shapes[1], seed=4)
    ours, theirs = seqlab.cdist(s1, s2, p), torch.cdist(t1, t2, p)
    close(ours, theirs, 1e-10)
    if p != 0:
        (ours ** 2).sum().backward()
        (theirs ** 2).sum().backward()
        close(s1.grad, t1.grad, 1e-10)
        close(s2.grad, t2.grad, 1e-10)


def test_cdist_gradient_at_zero_distance_is_zero():
    a = np.array([[1.0, 2.0], [0.5, -1.0]])
    s = seqlab.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    seqlab.cdist(s, seqlab.tensor(a)).sum().backward()
    torch.cdist(t, torch.tensor(a)).sum().backward()
    close(s.grad, t.grad)
    assert np.isfinite(s.grad.numpy()).all()


@pytest.mark.parametrize("call", [
    lambda m: m.cdist(m.ones(2, 3, dtype=m.int64), m.zeros(4, 3, dtype=m.int64)),
    lambda m: m.cdist(m.ones(3), m.zeros(4, 3)),
    lambda m: m.cdist(m.ones(2, 3), m.zeros(4, 2)),
    lambda m: m.cdist(m.ones(2, 3), m.zeros(4, 3), p=-1),
    lambda m: m.dist(m.ones(3, dtype=m.int64), m.zeros(3, dtype=m.int64)),
])
def test_distance_errors_are_torchs(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(seqlab)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("kw", [{}, dict(right=True), dict(side="right"), dict(side="left"), dict(out_int32=True)])
def test_searchsorted_equals_torch(kw):
    seq = [1.0, 3.0, 3.0, 5.0, 8.0]
    values = [[0.0, 3.0, 4.0], [5.0, 8.0, 9.0]]
    ours = seqlab.searchsorted(seqlab.tensor(seq), seqlab.tensor(values), **kw)
    theirs = torch.searchsorted(torch.tensor(seq), torch.tensor(values), **kw)
    close(ours, theirs)
    rows = [[1, 3, 5, 7], [2, 4, 6, 8]]
    close(seqlab.searchsorted(seqlab.tensor(rows), seqlab.tensor([[3, 9], [1, 6]]), **kw),
          torch.searchsorted(torch.tensor(rows), torch.tensor([[3, 9], [1, 6]]), **kw))
    close(seqlab.searchsorted(seqlab.tensor(seq), 3.0, **kw), torch.searchsorted(torch.tensor(seq), 3.0, **kw))


def test_searchsorted_with_a_sorter_and_bucketize():
    close(seqlab.searchsorted(seqlab.tensor([5.0, 1.0, 3.0]), seqlab.tensor([3.0, 6.0]), sorter=seqlab.tensor([1, 2, 0])),
          torch.searchsorted(torch.tensor([5.0, 1.0, 3.0]), torch.tensor([3.0, 6.0]), sorter=torch.tensor([1, 2, 0])))
    bounds = [1.0, 3.0, 5.0, 7.0]
    for right in (False, True):
        close(seqlab.bucketize(seqlab.tensor([[1.0, 3.0], [6.0, 9.0]]), seqlab.tensor(bounds), right=right),
              torch.bucketize(torch.tensor([[1.0, 3.0], [6.0, 9.0]]), torch.tensor(bounds), right=right))
        close(seqlab.bucketize(3.0, seqlab.tensor(bounds), right=right),
              torch.bucketize(3.0, torch.tensor(bounds), right=right))


def test_searchsorted_keeps_a_numbers_type():
    for m_seq in ([1, 2, 3], [1.0, 2.0, 3.0]):
        for value in (2.5, 2, -1.5):
            close(seqlab.searchsorted(seqlab.tensor(m_seq), value), torch.searchsorted(torch.tensor(m_seq), value))
            close(seqlab.bucketize(value, seqlab.tensor(m_seq)), torch.bucketize(value, torch.tensor(m_seq)))


@pytest.mark.parametrize("call", [
    lambda m: m.searchsorted(m.tensor([1, 3, 5]), m.tensor([3]), side="left", right=True),
    lambda m: m.searchsorted(m.tensor([3.0, 1.0, 2.0]), m.tensor([2.0]), sorter=m.tensor([1, 2])),
    lambda m: m.searchsorted(m.tensor([3.0, 1.0, 2.0]), m.tensor([2.0]), sorter=m.tensor([1, 2, 5])),
    lambda m: m.searchsorted(m.tensor([3.0, 1.0, 2.0]), m.tensor([2.0]), sorter=m.tensor([1, 2, -1])),
    lambda m: m.searchsorted(m.tensor([3.0, 1.0, 2.0]), m.tensor([2.0]), sorter=m.tensor([1, 2, 0], dtype=m.int32)),
    lambda m: m.searchsorted(m.tensor(1.0), m.tensor([2.0])),
    lambda m: m.searchsorted(m.tensor([[1, 3, 5]]), m.tensor([[3], [3]])),
    lambda m: m.bucketize(m.tensor([1.0]), m.tensor([[1.0, 2.0]])),
])
def test_search_errors_are_torchs(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(seqlab)
    assert str(ours.value) == str(theirs.value)
