"""seqlab.optim against torch.optim: 20-step trajectories in float64 (1e-10) for every
optimizer and variant, schedulers' learning rates step by step, state_dict round trips both
ways, gradient clipping, and bad options."""
import math

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn.utils
import seqlab.optim as optim

X = np.random.default_rng(0).standard_normal((5, 4))
W0 = np.random.default_rng(1).standard_normal((4, 3))
B0 = np.random.default_rng(2).standard_normal(3)


def loss_fn(x, w, b):
    # a bumpy surface: gradients change direction, so momentum and adaptivity matter
    return ((x @ w + b).tanh() ** 2).sum() + 0.1 * (w ** 4).sum() - 0.3 * b.sum()


def run(lib, opt_cls, kwargs, steps=20, groups=False):
    w = lib.tensor(W0.copy(), requires_grad=True)
    b = lib.tensor(B0.copy(), requires_grad=True)
    x = lib.tensor(X)
    params = [{"params": [w]}, {"params": [b], "lr": 0.05}] if groups else [w, b]
    opt = opt_cls(params, **kwargs)
    path = []
    for _ in range(steps):
        opt.zero_grad()
        loss_fn(x, w, b).backward()
        opt.step()
        path.append((w.detach().numpy().copy(), b.detach().numpy().copy()))
    return path, opt


CASES = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd-momentum": ("SGD", dict(lr=0.05, momentum=0.9)),
    "sgd-dampening-wd": ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01)),
    "sgd-nesterov": ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.02)),
    "sgd-maximize": ("SGD", dict(lr=0.01, momentum=0.5, maximize=True)),
    "adam": ("Adam", dict(lr=0.05)),
    "adam-wd-betas": ("Adam", dict(lr=0.02, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1)),
    "adam-amsgrad": ("Adam", dict(lr=0.05, amsgrad=True)),
    "adamw": ("AdamW", dict(lr=0.05)),
    "adamw-amsgrad": ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    "adam-decoupled": ("Adam", dict(lr=0.05, weight_decay=0.3, decoupled_weight_decay=True)),
    "adagrad": ("Adagrad", dict(lr=0.1)),
    "adagrad-decay-wd-init": ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.01, initial_accumulator_value=0.2)),
    "rmsprop": ("RMSprop", dict(lr=0.01)),
    "rmsprop-centered-momentum": ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.7, centered=True, weight_decay=0.05)),
}


@pytest.mark.parametrize("groups", [False, True], ids=["one-group", "two-groups"])
@pytest.mark.parametrize("case", list(CASES))
def test_trajectory_matches_torch(case, groups):
    name, kwargs = CASES[case]
    ours, _ = run(seqlab, getattr(optim, name), kwargs, groups=groups)
    theirs, _ = run(torch, getattr(torch.optim, name), kwargs, groups=groups)
    for step, ((w1, b1), (w2, b2)) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(w1, w2, rtol=1e-10, atol=1e-10, err_msg=f"{case} step {step}: weight")
        np.testing.assert_allclose(b1, b2, rtol=1e-10, atol=1e-10, err_msg=f"{case} step {step}: bias")


def test_float32_trajectory_close_to_torch():
    def go(lib, cls):
        w = lib.tensor(W0.astype(np.float32), requires_grad=True)
        b = lib.tensor(B0.astype(np.float32), requires_grad=True)
        opt = cls([w, b], lr=0.05)
        for _ in range(20):
            opt.zero_grad()
            loss_fn(lib.tensor(X.astype(np.float32)), w, b).backward()
            opt.step()
        return w.detach().numpy()
    np.testing.assert_allclose(go(seqlab, optim.Adam), go(torch, torch.optim.Adam), atol=1e-5)


@pytest.mark.parametrize("case", ["sgd-momentum", "adam-amsgrad", "adagrad", "rmsprop-centered-momentum"])
def test_state_dict_round_trip_continues_identically(case):
    name, kwargs = CASES[case]
    cls = getattr(optim, name)
    full, _ = run(seqlab, cls, kwargs, steps=10)
    # run 5 steps, save, rebuild a fresh optimizer from the state dict, run 5 more
    w = seqlab.tensor(W0.copy(), requires_grad=True)
    b = seqlab.tensor(B0.copy(), requires_grad=True)
    x = seqlab.tensor(X)
    opt = cls([w, b], **kwargs)
    for _ in range(5):
        opt.zero_grad()
        loss_fn(x, w, b).backward()
        opt.step()
    sd = opt.state_dict()
    opt2 = cls([w, b], **kwargs)
    opt2.load_state_dict(sd)
    for _ in range(5):
        opt2.zero_grad()
        loss_fn(x, w, b).backward()
        opt2.step()
    np.testing.assert_allclose(w.detach().numpy(), full[-1][0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ["sgd-nesterov", "adam", "adamw-amsgrad", "adagrad-decay-wd-init", "rmsprop-centered-momentum"])
def test_torch_state_dict_loads_into_seqlab(case):
    name, kwargs = CASES[case]
    _, topt = run(torch, getattr(torch.optim, name), kwargs, steps=5)
    tpath, _ = run(torch, getattr(torch.optim, name), kwargs, steps=10)
    # seqlab starts from torch's parameters after 5 steps and torch's optimizer state
    w = seqlab.tensor(topt.param_groups[0]["params"][0].detach().numpy().copy(), requires_grad=True)
    b = seqlab.tensor(topt.param_groups[0]["params"][1].detach().numpy().copy(), requires_grad=True)
    opt = getattr(optim, name)([w, b], **kwargs)
    sd = topt.state_dict()
    opt.load_state_dict(sd)
    for key in sd["state"][0]:
        assert key in opt.state[w], f"state {key!r} missing after load"
    x = seqlab.tensor(X)
    for _ in range(5):
        opt.zero_grad()
        loss_fn(x, w, b).backward()
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), tpath[-1][0], rtol=1e-10, atol=1e-10)


def test_adamw_is_adam_with_decoupled_weight_decay_as_torch():
    w = seqlab.zeros(2, requires_grad=True)
    opt = optim.AdamW([w])
    assert isinstance(opt, optim.Adam) and issubclass(torch.optim.AdamW, torch.optim.Adam)
    tw = torch.zeros(2, requires_grad=True)
    for ours, theirs in ((opt, torch.optim.AdamW([tw])), (optim.Adam([w]), torch.optim.Adam([tw]))):
        assert ours.defaults["decoupled_weight_decay"] == theirs.defaults["decoupled_weight_decay"]
        assert ours.defaults["weight_decay"] == theirs.defaults["weight_decay"]


def test_state_names_match_torch():
    for case in ["sgd-momentum", "adam-amsgrad", "adagrad", "rmsprop-centered-momentum"]:
        name, kwargs = CASES[case]
        _, ours = run(seqlab, getattr(optim, name), kwargs, steps=1)
        _, theirs = run(torch, getattr(torch.optim, name), kwargs, steps=1)
        assert set(ours.state_dict()["state"][0]) == set(theirs.state_dict()["state"][0]), case
        ours_groups = ours.state_dict()["param_groups"][0]
        assert ours_groups["params"] == [0, 1]
        assert ours_groups["lr"] == theirs.state_dict()["param_groups"][0]["lr"]


def test_changing_group_lr_takes_effect():
    w = seqlab.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    opt.param_groups[0]["lr"] = 0.5
    (w * 2.0).sum().backward()
    opt.step()
    assert w.item() == pytest.approx(0.0)


def test_zero_grad_set_to_none_and_zero():
    w = seqlab.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.Adam([w])
    w.sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    opt.zero_grad()
    assert w.grad is None


def test_bad_options_raise_value_error_like_torch():
    w = seqlab.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.SGD([w], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([w], betas=(0.9, 1.5))
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([w * 2.0], lr=0.1)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
def test_clip_grad_norm_matches_torch(norm_type):
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    sp = [seqlab.tensor(rng.standard_normal(g.shape), requires_grad=True) for g in grads]
    tp = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in sp]
    for s, t, g in zip(sp, tp, grads):
        s.grad = seqlab.tensor(g)
        t.grad = torch.tensor(g)
    ns = seqlab.nn.utils.clip_grad_norm_(sp, 1.5, norm_type)
    nt = torch.nn.utils.clip_grad_norm_(tp, 1.5, norm_type)
    assert ns.item() == pytest.approx(nt.item(), rel=1e-12)
    for s, t in zip(sp, tp):
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_clip_grad_value_matches_torch():
    g = np.linspace(-3, 3, 7)
    s = seqlab.tensor(np.zeros(7), requires_grad=True)
    s.grad = seqlab.tensor(g)
    seqlab.nn.utils.clip_grad_value_([s], 1.0)
    np.testing.assert_array_equal(s.grad.numpy(), np.clip(g, -1, 1))


def test_clip_grad_norm_nonfinite_error():
    s = seqlab.tensor([1.0], requires_grad=True)
    s.grad = seqlab.tensor([float("inf")])
    with pytest.raises(RuntimeError, match="non-finite"):
        seqlab.nn.utils.clip_grad_norm_([s], 1.0, error_if_nonfinite=True)


# ---------------------------------------------------------------------------------- schedulers
def sched_lrs(lib, make, steps=30, opt_name="SGD", opt_kwargs=None, two_groups=True):
    w = lib.tensor([1.0], requires_grad=True)
    b = lib.tensor([1.0], requires_grad=True)
    opt_mod = optim if lib is seqlab else torch.optim
    params = [{"params": [w]}, {"params": [b], "lr": 0.3}] if two_groups else [w, b]
    opt = getattr(opt_mod, opt_name)(params, **(opt_kwargs or {"lr": 0.1, "momentum": 0.9}))
    sched_mod = optim.lr_scheduler if lib is seqlab else torch.optim.lr_scheduler
    sched = make(sched_mod, opt)
    out = []
    for _ in range(steps):
        opt.step()
        sched.step()
        g = opt.param_groups[0]
        out.append((sched.get_last_lr(), g.get("momentum"), g.get("betas")))
    return out


SCHEDULERS = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=7, gamma=0.5),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
    "LambdaLR": lambda m, o: m.LambdaLR(o, lr_lambda=lambda e: 1.0 / (1 + e)),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.1, total_iters=8),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=30),
    "OneCycleLR-linear-3phase": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=30, anneal_strategy="linear",
                                                         three_phase=True),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_lrs_match_torch_step_by_step(name):
    ours = sched_lrs(seqlab, SCHEDULERS[name], steps=29 if "OneCycle" in name else 30)
    theirs = sched_lrs(torch, SCHEDULERS[name], steps=29 if "OneCycle" in name else 30)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(a[0], b[0], rtol=1e-12, err_msg=f"{name} step {step}")
        if a[1] is not None:
            assert a[1] == pytest.approx(b[1], rel=1e-12)


def test_onecycle_cycles_adam_beta1_like_torch():
    make = lambda m, o: m.OneCycleLR(o, max_lr=0.5, total_steps=20)  # noqa: E731
    ours = sched_lrs(seqlab, make, steps=19, opt_name="Adam", opt_kwargs={"lr": 0.1})
    theirs = sched_lrs(torch, make, steps=19, opt_name="Adam", opt_kwargs={"lr": 0.1})
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a[0], b[0], rtol=1e-12)
        np.testing.assert_allclose(a[2], b[2], rtol=1e-12)


def test_scheduled_lr_reaches_the_cpp_update():
    w = seqlab.tensor([0.0], requires_grad=True)
    opt = optim.SGD([w], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    moves = []
    for _ in range(3):
        before = w.item()
        opt.zero_grad()
        (w * -1.0).sum().backward()  # gradient -1: each step moves w by +lr
        opt.step()
        sched.step()
        moves.append(w.item() - before)
    assert moves == pytest.approx([1.0, 0.5, 0.25])


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("RMSprop", dict(lr=0.01)),
                                     ("Adagrad", dict(lr=0.1))])
def test_model_double_between_steps_keeps_training_like_torch(name, kw):
    # model.double() converts parameters in place (p.data = ...); the optimizer's float32 state
    # is converted to float64 at the next step. torch keeps that state float32 and computes in
    # mixed precision: equal to 1e-6 here. (torch's Adam raises on the mixed dtypes; seqlab's trains.)
    weights = []
    for lib in (seqlab, torch):
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.fill_(0.1)
            m.bias.fill_(0.2)
        opt = getattr(lib.optim, name)(m.parameters(), **kw)
        for i in range(4):
            if i == 2:
                m.double()
            opt.zero_grad()
            m(lib.ones(4, 3, dtype=lib.float64 if i >= 2 else lib.float32)).pow(2).sum().backward()
            opt.step()
        assert m.weight.dtype == lib.float64
        weights.append(m.weight.detach().numpy())
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-6, atol=1e-7)


def test_adam_refuses_a_decoupled_weight_decay_it_would_not_run():
    # seqlab's Adam runs one C++ update rule for all groups (Adam or AdamW, chosen at construction):
    # a group, a later assignment or a loaded state dict asking for the other is refused, not ignored.
    a, b = seqlab.zeros(2, requires_grad=True), seqlab.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="decoupled_weight_decay"):
        optim.Adam([{"params": [a]}, {"params": [b], "decoupled_weight_decay": True}])
    opt = optim.Adam([a])
    with pytest.raises(ValueError, match="decoupled_weight_decay"):
        opt.param_groups[0]["decoupled_weight_decay"] = True
    with pytest.raises(ValueError, match="decoupled_weight_decay"):
        optim.Adam([b]).load_state_dict(optim.AdamW([b]).state_dict())
    opt.param_groups[0]["decoupled_weight_decay"] = False  # the same value is fine
    optim.AdamW([a]).load_state_dict(optim.AdamW([b]).state_dict())
