"""nn.LazyLinear, nn.LazyBatchNorm1d/2d, nn.LazyInstanceNorm1d/2d and nn.LazyConvTranspose1d/2d
(python/seqlab/nn/modules/lazy.py, linear.py, batchnorm.py, instancenorm.py, conv.py) against torch's: reprs and
placeholders before the first call, shapes, names, class and initialisation bounds after it,
the same outputs, gradients and running statistics as torch's given the same weights, state
dicts loaded into lazy modules, and the errors."""
import inspect
import math
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_close, assert_raises_like_torch, sl_np

snn, tnn = seqlab.nn, torch.nn


def build(lib, dtype=None):
    nn = snn if lib is seqlab else tnn
    return nn.Sequential(nn.LazyLinear(4, dtype=dtype), nn.ReLU(), nn.LazyBatchNorm1d(dtype=dtype),
                         nn.LazyLinear(2, bias=False, dtype=dtype))


def test_before_the_first_call_as_torch():
    s, t = build(seqlab), build(torch)
    assert repr(s) == repr(t)
    assert list(s.state_dict().keys()) == list(t.state_dict().keys())
    assert [n for n, _ in s.named_parameters()] == [n for n, _ in t.named_parameters()]
    sw, tw = s[0].weight, t[0].weight
    assert isinstance(sw, snn.Parameter) and isinstance(sw, snn.parameter.UninitializedParameter)
    assert isinstance(s[2].running_mean, snn.UninitializedBuffer)
    assert repr(sw) == repr(tw) == "<UninitializedParameter>"
    assert s[2].num_batches_tracked.item() == t[2].num_batches_tracked.item() == 0
    assert s[0].has_uninitialized_params() and t[0].has_uninitialized_params()
    for use, error, text in [(lambda w: w.shape, RuntimeError, "Can't access the shape"),
                             (lambda w: w.numel(), ValueError, "Attempted to use an uninitialized parameter"),
                             (lambda w: w + 1, ValueError, "Attempted to use an uninitialized parameter"),
                             (lambda w: w.sum(), ValueError, "Attempted to use an uninitialized parameter")]:
        with pytest.raises(error, match=text):
            use(tw)
        with pytest.raises(error, match=text):
            use(sw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_after_the_first_call_equal_to_torch(rng, dtype):
    s, t = build(seqlab, getattr(seqlab, dtype)), build(torch, getattr(torch, dtype))
    x = rng.standard_normal((6, 5)).astype(dtype)
    s(seqlab.tensor(x))
    t(torch.tensor(x))
    assert repr(s) == repr(t)
    assert [type(m).__name__ for m in s] == [type(m).__name__ for m in t] == ["Linear", "ReLU", "BatchNorm1d", "Linear"]
    assert isinstance(s[0], snn.Linear) and isinstance(s[2], snn.BatchNorm1d)
    assert (s[0].in_features, s[2].num_features, s[3].in_features) == (5, 4, 4)
    assert {k: tuple(v.shape) for k, v in s.state_dict().items()} == {k: tuple(v.shape) for k, v in t.state_dict().items()}
    assert all(p.dtype == getattr(seqlab, dtype) for p in s.parameters())
    # initialised as the full module: Linear's U(-1/sqrt(in), 1/sqrt(in)), BatchNorm's ones/zeros
    bound = 1 / math.sqrt(5)
    assert np.abs(sl_np(s[0].weight)).max() <= bound and np.abs(sl_np(s[0].bias)).max() <= bound
    assert np.abs(sl_np(s[0].weight)).max() > 0
    assert sl_np(s[2].weight).tolist() == [1.0] * 4 and sl_np(s[2].bias).tolist() == [0.0] * 4
    # the first call trained BatchNorm's statistics as torch's did: one batch tracked
    assert s[2].num_batches_tracked.item() == t[2].num_batches_tracked.item() == 1
    # with torch's weights, every later call is torch's: outputs, gradients, running statistics
    s.load_state_dict({k: seqlab.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    x2 = rng.standard_normal((7, 5)).astype(dtype)
    sx, tx = seqlab.tensor(x2, requires_grad=True), torch.tensor(x2, requires_grad=True)
    so, to = s(sx), t(tx)
    atol = 1e-5 if dtype == "float32" else 1e-12
    assert_close(sl_np(so), to.detach().numpy(), atol, atol)
    g = rng.standard_normal(tuple(to.shape)).astype(dtype)
    so.backward(seqlab.tensor(g))
    to.backward(torch.tensor(g))
    assert_close(sl_np(sx.grad), tx.grad.numpy(), atol, atol)
    for (name, sp), (_, tp) in zip(s.named_parameters(), t.named_parameters()):
        assert_close(sl_np(sp.grad), tp.grad.numpy(), atol, atol, name)
    assert_close(sl_np(s[2].running_mean), t[2].running_mean.numpy(), atol, atol)
    assert_close(sl_np(s[2].running_var), t[2].running_var.numpy(), atol, atol)


@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_optimizer_built_before_the_first_call_trains_as_torch(rng, opt):
    """As in torch, the first call materialises the placeholders in place: the optimizer built
    before it holds the very parameters the model then has, and training equals torch's."""
    s, t = build(seqlab), build(torch)
    # Adam's eps is raised: the first Linear's bias feeds a BatchNorm, so its gradient is round-off
    # noise that Adam's 1/sqrt(v) would scale up to the learning rate in both libraries
    make = {"SGD": lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9),
            "Adam": lambda lib, ps: lib.optim.Adam(ps, lr=0.01, eps=1e-3)}
    sopt, topt = make[opt](seqlab, s.parameters()), make[opt](torch, t.parameters())
    assert len(sopt.state) == len(topt.state) == 0
    assert sopt.state_dict()["state"] == topt.state_dict()["state"] == {}
    placeholders = list(s.parameters())
    x = rng.standard_normal((6, 5)).astype(np.float32)
    s(seqlab.tensor(x))
    t(torch.tensor(x))
    # the same objects, now ordinary Parameters with data
    assert all(a is b for a, b in zip(placeholders, s.parameters()))
    assert all(isinstance(p, snn.Parameter) and not isinstance(p, snn.parameter.UninitializedParameter)
               and type(p) is seqlab.Tensor and p.requires_grad and p.is_leaf for p in placeholders)
    assert all(p is q for p, q in zip(sopt.param_groups[0]["params"], s.parameters()))
    s.load_state_dict({k: seqlab.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    for _ in range(3):
        for model, o, lib in ((s, sopt, seqlab), (t, topt, torch)):
            o.zero_grad()
            (model(lib.tensor(x)) ** 2).mean().backward()
            o.step()
    for (name, sp), (_, tp) in zip(s.named_parameters(), t.named_parameters()):
        assert_close(sl_np(sp), tp.detach().numpy(), 1e-5, 1e-5, name)


def test_placeholders_refuse_every_op():
    """Placeholders are Tensors underneath (so an optimizer can hold them), but every op refuses
    them, as torch's __torch_function__ does, until the first call gives them data."""
    w = snn.LazyLinear(3).weight
    for use in [lambda: seqlab.add(w, 1), lambda: seqlab.nn.functional.linear(seqlab.ones(2, 4), w),
                lambda: w.view(-1), lambda: seqlab.stack([w, w]), lambda: w * 2]:
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
            use()


def test_data_assignment_keeps_identity_as_torch():
    """x.data = t (which in-place materialisation uses): x takes t's memory, shape and dtype, keeps
    its identity and requires_grad; an optimizer holding x then updates the new data."""
    for lib in (seqlab, torch):
        p = lib.nn.Parameter(lib.zeros(2))
        opt = lib.optim.SGD([p], lr=1.0)
        p.data = lib.ones(3, 2)
        assert tuple(p.shape) == (3, 2) and p.requires_grad and p.is_leaf
        (p * lib.arange(6.0).reshape(3, 2)).sum().backward()
        opt.step()
        assert p.detach().numpy().tolist() == [[1.0, 0.0], [-1.0, -2.0], [-3.0, -4.0]]
    for lib in (seqlab, torch):
        with pytest.raises(RuntimeError, match="data set to a tensor that requires gradients must be floating point"):
            lib.nn.Parameter(lib.zeros(2)).data = lib.zeros(2, dtype=lib.int64)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
        seqlab.zeros(2).data = 3
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
        torch.zeros(2).data = 3


def test_load_state_dict_into_a_lazy_module():
    t = tnn.Linear(3, 2)
    for lazy, torch_lazy in [(snn.LazyLinear(2), tnn.LazyLinear(2))]:
        lazy.load_state_dict({k: seqlab.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
        torch_lazy.load_state_dict(t.state_dict())
        assert type(lazy).__name__ == type(torch_lazy).__name__ == "LazyLinear"
        assert tuple(lazy.weight.shape) == tuple(torch_lazy.weight.shape) == (2, 3)
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        assert_close(sl_np(lazy(seqlab.tensor(x))), torch_lazy(torch.tensor(x)).detach().numpy(), 1e-6, 1e-6)
        assert type(lazy).__name__ == type(torch_lazy).__name__ == "Linear"
        assert lazy.in_features == 3
    lazy, torch_lazy = snn.LazyLinear(2), tnn.LazyLinear(2)
    lazy.load_state_dict({k: seqlab.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    torch_lazy.load_state_dict(t.state_dict())
    with pytest.raises(AssertionError, match="in_features inferred from input: 4"):
        torch_lazy(torch.ones(1, 4))
    with pytest.raises(AssertionError, match="in_features inferred from input: 4"):
        lazy(seqlab.ones(1, 4))
    bn = snn.LazyBatchNorm1d()
    bn.load_state_dict({k: seqlab.tensor(v.numpy()) for k, v in tnn.BatchNorm1d(5).state_dict().items()})
    assert tuple(bn.running_mean.shape) == (5,)


def test_module_to_before_the_first_call():
    s, t = snn.LazyLinear(2).to(seqlab.float64), tnn.LazyLinear(2).to(torch.float64)
    s(seqlab.ones(1, 3, dtype=seqlab.float64))
    t(torch.ones(1, 3, dtype=torch.float64))
    assert s.weight.dtype == seqlab.float64 and t.weight.dtype == torch.float64


@pytest.mark.parametrize("make, shape", [(lambda nn: nn.LazyLinear(2), ()), (lambda nn: nn.LazyBatchNorm1d(), (3,))])
def test_bad_first_input_raises_as_torch(make, shape):
    with pytest.raises(IndexError):
        make(tnn)(torch.zeros(shape))
    with pytest.raises(IndexError):
        make(snn)(seqlab.zeros(shape))


# (constructor, first input's shape): the lazy norms and transposed convolutions, each with torch's defaults and
# with the arguments that change what is materialised
LAZY = [
    (lambda nn: nn.LazyBatchNorm2d(), (4, 3, 5, 6)),
    (lambda nn: nn.LazyBatchNorm2d(momentum=None, bias=False), (4, 3, 2, 2)),
    (lambda nn: nn.LazyBatchNorm2d(affine=False, track_running_stats=False), (2, 3, 4, 4)),
    (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 7)),
    (lambda nn: nn.LazyInstanceNorm1d(eps=1e-3, affine=True, track_running_stats=False, bias=False), (2, 3, 7)),
    (lambda nn: nn.LazyInstanceNorm1d(affine=False, track_running_stats=False), (2, 3, 7)),  # nothing lazy: warns
    (lambda nn: nn.LazyInstanceNorm2d(), (2, 3, 4, 5)),
    (lambda nn: nn.LazyInstanceNorm2d(affine=False, momentum=0.3), (2, 3, 4, 5)),
    (lambda nn: nn.LazyConvTranspose1d(6, 3), (2, 4, 7)),
    (lambda nn: nn.LazyConvTranspose1d(6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2), (2, 4, 7)),
    (lambda nn: nn.LazyConvTranspose1d(4, 3, bias=False), (5, 7)),  # unbatched: in_channels from dim 0
    (lambda nn: nn.LazyConvTranspose2d(4, 3), (2, 3, 5, 5)),
    (lambda nn: nn.LazyConvTranspose2d(4, (3, 2), stride=(2, 1), padding=(1, 0), groups=2, bias=False), (2, 4, 5, 6)),
]
LAZY_IDS = [f"{inspect.getsource(m).split('nn.')[1].split('),')[0]})-{s}" for m, s in LAZY]


def params(cls):
    """The constructor's parameters: names, kinds and defaults (torch's also carry type annotations)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


def first_call(module, x):
    """The first call's output and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = module(x)
    return out, [str(w.message) for w in caught]


@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match num_features")  # the later calls
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, shape", LAZY, ids=LAZY_IDS)
def test_lazy_norms_and_transposed_convs_as_torch(rng, make, shape, dtype):
    s, t = make(snn), make(tnn)
    assert params(type(s)) == params(type(t))
    assert repr(s) == repr(t)
    assert list(s.state_dict()) == list(t.state_dict())
    assert [n for n, _ in s.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert s.has_uninitialized_params() == t.has_uninitialized_params()
    assert all(isinstance(p, snn.parameter.UninitializedParameter) for p in s.parameters())
    s.to(getattr(seqlab, dtype))
    t.to(getattr(torch, dtype))
    x = rng.standard_normal(shape).astype(dtype)
    so, s_warned = first_call(s, seqlab.tensor(x))
    to, t_warned = first_call(t, torch.tensor(x))
    assert s_warned == t_warned
    assert type(s).__name__ == type(t).__name__ == type(t).__name__.replace("Lazy", "")
    assert type(s) is getattr(snn, type(t).__name__)
    assert repr(s) == repr(t)
    assert ({k: tuple(v.shape) for k, v in s.state_dict().items()}
            == {k: tuple(v.shape) for k, v in t.state_dict().items()})
    assert all(p.dtype == getattr(seqlab, dtype) for p in s.parameters())
    if "Conv" in type(s).__name__:
        # initialised as the full module: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = weight.shape[1] * prod(k)
        w = sl_np(s.weight)
        bound = 1 / math.sqrt(w[0].size)
        assert 0 < np.abs(w).max() <= bound
        if s.bias is not None:
            assert np.abs(sl_np(s.bias)).max() <= bound
    else:
        if s.affine:
            assert (sl_np(s.weight) == 1).all()
        if s.bias is not None:
            assert (sl_np(s.bias) == 0).all()
        for name in ("running_mean", "running_var", "num_batches_tracked"):  # the first call's statistics
            if getattr(t, name) is not None:
                assert_close(sl_np(getattr(s, name)), getattr(t, name).numpy(), 1e-6, 1e-5, name)
            else:
                assert getattr(s, name) is None
        atol = 1e-5 if dtype == "float32" else 1e-12
        assert_close(sl_np(so), to.detach().numpy(), atol, atol)  # no random init: the first outputs agree
    # given torch's weights, a later call equals torch's: outputs, gradients, running statistics
    s.load_state_dict({k: seqlab.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    x2 = rng.standard_normal(shape).astype(dtype)
    sx, tx = seqlab.tensor(x2, requires_grad=True), torch.tensor(x2, requires_grad=True)
    so, to = s(sx), t(tx)
    atol = 1e-5 if dtype == "float32" else 1e-12
    assert_close(sl_np(so), to.detach().numpy(), atol, atol)
    g = rng.standard_normal(tuple(to.shape)).astype(dtype)
    so.backward(seqlab.tensor(g))
    to.backward(torch.tensor(g))
    assert_close(sl_np(sx.grad), tx.grad.numpy(), atol, atol)
    for (name, sp), (_, tp) in zip(s.named_parameters(), t.named_parameters()):
        assert_close(sl_np(sp.grad), tp.grad.numpy(), atol, atol, name)
    for (name, sb), (_, tb) in zip(s.named_buffers(), t.named_buffers()):
        assert_close(sl_np(sb), tb.numpy(), atol, atol, name)


def test_lazy_transposed_conv_and_norm_load_a_state_dict_before_their_first_call():
    theirs = tnn.ConvTranspose2d(3, 4, 3, stride=2)
    for ours, torch_lazy in [(snn.LazyConvTranspose2d(4, 3, stride=2), tnn.LazyConvTranspose2d(4, 3, stride=2))]:
        ours.load_state_dict({k: seqlab.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
        torch_lazy.load_state_dict(theirs.state_dict())
        assert type(ours).__name__ == type(torch_lazy).__name__ == "LazyConvTranspose2d"
        assert repr(ours) == repr(torch_lazy)  # in_channels is still 0 until the first call, as torch's
        assert tuple(ours.weight.shape) == tuple(torch_lazy.weight.shape) == (3, 4, 3, 3)
        x = np.arange(75, dtype=np.float32).reshape(1, 3, 5, 5) / 75
        assert_close(sl_np(ours(seqlab.tensor(x))), theirs(torch.tensor(x)).detach().numpy(), 1e-5, 1e-5)
        assert type(ours) is snn.ConvTranspose2d
    bn = snn.LazyBatchNorm2d()
    bn.load_state_dict({k: seqlab.tensor(v.numpy()) for k, v in tnn.BatchNorm2d(5).state_dict().items()})
    assert tuple(bn.running_mean.shape) == tuple(bn.weight.shape) == (5,)
    # a loaded affine instance norm keeps num_features 0 (nothing is left to infer), so its first call fails the
    # size check, in both libraries
    state = tnn.InstanceNorm1d(3, affine=True).state_dict()
    ours = snn.LazyInstanceNorm1d(track_running_stats=False)
    torch_lazy = tnn.LazyInstanceNorm1d(track_running_stats=False)
    ours.load_state_dict({k: seqlab.tensor(v.numpy()) for k, v in state.items()})
    torch_lazy.load_state_dict(state)
    assert_raises_like_torch(lambda: ours(seqlab.zeros(2, 3, 4)), lambda: torch_lazy(torch.zeros(2, 3, 4)),
                             r"expected input's size at dim=1 to match num_features \(0\), but got: 3")


@pytest.mark.parametrize("make, shape, fragments", [
    (lambda nn: nn.LazyConvTranspose1d(4, 3), (2, 3, 4, 5),
     [r"Expected 2D \(unbatched\) or 3D \(batched\) input to LazyConvTranspose1d, but got input of size"]),
    (lambda nn: nn.LazyConvTranspose2d(4, 3), (3, 5),
     [r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConvTranspose2d"]),
    (lambda nn: nn.LazyConvTranspose2d(4, 3, groups=2), (2, 3, 5, 5), ["in_channels must be divisible by groups"]),
    (lambda nn: nn.LazyConvTranspose1d(4, 3, padding_mode="reflect"), None,
     ['Only "zeros" padding mode is supported for LazyConvTranspose1d']),
    (lambda nn: nn.LazyBatchNorm2d(), (3, 4, 5), [r"expected 4D input \(got 3D input\)"]),
    (lambda nn: nn.LazyBatchNorm2d(), (3,), []),  # no dim 1 to infer from: IndexError
    (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 4, 5), [r"expected 2D or 3D input \(got 4D input\)"]),
    (lambda nn: nn.LazyInstanceNorm2d(), (3, 4), [r"expected 3D or 4D input \(got 2D input\)"]),
    # unbatched (C, H, W): torch infers num_features from dim 1 all the same, and the check then fails
    (lambda nn: nn.LazyInstanceNorm2d(), (3, 4, 5),
     [r"expected input's size at dim=0 to match num_features \(4\), but got: 3\."]),
])
def test_lazy_norm_and_transposed_conv_errors_as_torch(make, shape, fragments):
    if shape is None:
        assert_raises_like_torch(lambda: make(snn), lambda: make(tnn), *fragments)
        return
    s, t = make(snn), make(tnn)
    assert_raises_like_torch(lambda: s(seqlab.zeros(shape)), lambda: t(torch.zeros(shape)), *fragments)
    assert type(s).__name__ == type(t).__name__
