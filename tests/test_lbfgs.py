"""optim.LBFGS against torch.optim.LBFGS: the same iterates, closure calls and state, with and
without the strong-Wolfe line search, on Rosenbrock's function, a small network and the
sine-wave LSTM of pytorch/examples' time_sequence_prediction."""
import numpy as np
import pytest
import torch

import seqlab


def rosenbrock(lib, xy):
    x, y = xy[0], xy[1]
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


def run_rosenbrock(lib, steps, dtype, **kw):
    xy = lib.tensor([-1.5, 2.0], dtype=getattr(lib, dtype), requires_grad=True)
    opt = lib.optim.LBFGS([xy], **kw)
    path, losses = [], []

    def closure():
        opt.zero_grad()
        loss = rosenbrock(lib, xy)
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
        path.append(xy.detach().numpy().copy())
    st = opt.state[xy]
    return np.array(path), losses, st["func_evals"], st["n_iter"]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("history_size", [100, 2])
def test_rosenbrock_iterates_equal_torch(line_search_fn, history_size):
    # Fixed steps along Rosenbrock's curved valley amplify rounding differences (the order of
    # a dot product's terms) about tenfold per step() of 20 iterations: 4 steps stay near 1e-8.
    steps = 6 if line_search_fn else 4
    kw = dict(lr=1 if line_search_fn else 0.1, max_iter=20, history_size=history_size, line_search_fn=line_search_fn)
    ours = run_rosenbrock(seqlab, steps, "float64", **kw)
    theirs = run_rosenbrock(torch, steps, "float64", **kw)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, atol=1e-9)
    assert ours[2:] == theirs[2:]          # the same number of closure calls and iterations
    if line_search_fn:                     # with the line search it reaches the minimum (1, 1)
        np.testing.assert_allclose(ours[0][-1], [1.0, 1.0], atol=1e-5)


def test_float32_close_to_torch():
    # float32 on a well-conditioned quadratic: the iterates agree to float32's precision; near
    # convergence the stopping tests (g·d > -1e-9 ...) depend on the last bits of a float32 dot
    # product, so the two may stop an iteration apart, both at the solution
    rng = np.random.default_rng(1)
    A = rng.standard_normal((6, 6))
    A = (A @ A.T + 6 * np.eye(6)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    exact = np.linalg.solve(A.astype(np.float64), b)

    def run(lib, max_iter):
        x = lib.zeros(6, requires_grad=True)
        opt = lib.optim.LBFGS([x], lr=1, max_iter=max_iter, line_search_fn="strong_wolfe")
        Am, bm = lib.tensor(A), lib.tensor(b)

        def closure():
            opt.zero_grad()
            loss = 0.5 * (x * (Am @ x)).sum() - (bm * x).sum()
            loss.backward()
            return loss
        opt.step(closure)
        return x.detach().numpy(), opt.state[x]["func_evals"]
    ours, theirs = run(seqlab, 6), run(torch, 6)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-6)
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(run(seqlab, 20)[0], exact, atol=1e-4)


def make_net(lib, sd=None):
    net = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)).double()
    if sd is not None:
        net.load_state_dict({k: lib.tensor(v.numpy()) for k, v in sd.items()})
    return net


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_network_training_equals_torch_and_state_dict_moves_between_them(line_search_fn):
    torch.manual_seed(0)
    tnet = make_net(torch)
    snet = make_net(seqlab, tnet.state_dict())
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((40, 3)), rng.standard_normal((40, 1))

    def fit(lib, net, steps, opt=None):
        x, y = lib.tensor(X), lib.tensor(Y)
        opt = opt or lib.optim.LBFGS(net.parameters(), lr=0.5, max_iter=5, history_size=4,
                                     line_search_fn=line_search_fn)

        def closure():
            opt.zero_grad()
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            return loss
        return [float(opt.step(closure).detach()) for _ in range(steps)], opt

    sl, sopt = fit(seqlab, snet, 4)
    tl, topt = fit(torch, tnet, 4)
    np.testing.assert_allclose(sl, tl, rtol=1e-8)
    for (k, a), b in zip(snet.state_dict().items(), tnet.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-10, err_msg=k)
    assert sl[-1] < sl[0]

    # seqlab's state dict (torch's layout) continues in torch, and torch's in seqlab
    sd = sopt.state_dict()
    assert set(sd["state"][0]) == set(topt.state_dict()["state"][0])
    t2 = make_net(torch)
    t2.load_state_dict({k: torch.tensor(v.numpy()) for k, v in snet.state_dict().items()})
    topt2 = torch.optim.LBFGS(t2.parameters(), lr=0.5, max_iter=5, history_size=4, line_search_fn=line_search_fn)
    topt2.load_state_dict(_to_torch(sd))
    s2 = make_net(seqlab, tnet.state_dict())
    sopt2 = seqlab.optim.LBFGS(s2.parameters(), lr=0.5, max_iter=5, history_size=4, line_search_fn=line_search_fn)
    sopt2.load_state_dict(topt.state_dict())
    a, _ = fit(torch, t2, 2, topt2)
    b, _ = fit(seqlab, s2, 2, sopt2)
    c, _ = fit(seqlab, snet, 2, sopt)
    np.testing.assert_allclose(a, c, rtol=1e-8)
    np.testing.assert_allclose(b, c, rtol=1e-8)


def _to_torch(sd):
    def conv(v):
        if isinstance(v, list):
            return [conv(x) for x in v]
        return torch.tensor(v.numpy()) if isinstance(v, seqlab.Tensor) else v
    return {"state": {i: {k: conv(v) for k, v in st.items()} for i, st in sd["state"].items()},
            "param_groups": sd["param_groups"]}


def test_time_sequence_prediction_lstm_cell_equals_torch():
    # pytorch/examples time_sequence_prediction: LSTMCell on sine waves, LBFGS(lr=0.8)
    rng = np.random.default_rng(0)
    T, N = 30, 6
    x = np.arange(T)[None, :] + rng.integers(-20, 20, size=(N, 1))
    data = np.sin(x / 5.0)

    def run(lib, sd=None):
        cell = lib.nn.LSTMCell(1, 8).double()
        lin = lib.nn.Linear(8, 1).double()
        if sd is not None:
            cell.load_state_dict({k: lib.tensor(v.numpy()) for k, v in sd[0].items()})
            lin.load_state_dict({k: lib.tensor(v.numpy()) for k, v in sd[1].items()})
        inp, target = lib.tensor(data[:, :-1]), lib.tensor(data[:, 1:])
        params = list(cell.parameters()) + list(lin.parameters())
        opt = lib.optim.LBFGS(params, lr=0.8)

        def closure():
            opt.zero_grad()
            h = c = lib.zeros(N, 8, dtype=lib.float64)
            outs = []
            for t in range(T - 1):
                h, c = cell(inp[:, t:t + 1], (h, c))
                outs.append(lin(h))
            loss = ((lib.cat(outs, 1) - target) ** 2).mean()
            loss.backward()
            return loss
        return [float(opt.step(closure).detach()) for _ in range(2)], (cell.state_dict(), lin.state_dict())

    torch.manual_seed(0)
    tl, tsd = run(torch)
    torch.manual_seed(0)
    ref_cell, ref_lin = torch.nn.LSTMCell(1, 8).double(), torch.nn.Linear(8, 1).double()
    sl, _ = run(seqlab, (ref_cell.state_dict(), ref_lin.state_dict()))
    np.testing.assert_allclose(sl, tl, rtol=1e-7)
    assert sl[1] < sl[0] / 2


def test_errors_are_torchs():
    p = seqlab.zeros(3, requires_grad=True)
    opt = seqlab.optim.LBFGS([p])
    with pytest.raises(TypeError, match="closure"):     # torch: a required argument
        opt.step()
    with pytest.raises(ValueError, match="per-parameter options"):
        seqlab.optim.LBFGS([{"params": [p]}, {"params": [seqlab.zeros(2, requires_grad=True)]}])
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        seqlab.optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(ValueError, match="empty parameter list"):
        seqlab.optim.LBFGS([])
    with pytest.raises(TypeError, match="Tensors"):
        seqlab.optim.LBFGS([1.0])


def test_optimal_start_returns_at_once_and_defaults_are_torchs():
    p = seqlab.zeros(3, requires_grad=True)
    opt = seqlab.optim.LBFGS([p])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss
    assert float(opt.step(closure)) == 0.0 and len(calls) == 1   # the gradient is already 0
    ref = torch.optim.LBFGS([torch.zeros(3, requires_grad=True)])
    assert {k: v for k, v in opt.param_groups[0].items() if k != "params"} == \
        {k: v for k, v in ref.param_groups[0].items() if k != "params"}
    assert isinstance(opt, seqlab.optim.Optimizer)


def test_lazy_module_built_before_the_first_call_trains_as_torch():
    # torch materialises a lazy module's parameters in place, so LBFGS can be built first
    X = np.random.default_rng(2).standard_normal((16, 5))
    Y = X @ np.arange(1.0, 6.0)[:, None]

    def run(lib):
        lib.manual_seed(0)
        net = lib.nn.LazyLinear(1).double()
        opt = lib.optim.LBFGS(net.parameters(), lr=1, max_iter=10)
        x, y = lib.tensor(X), lib.tensor(Y)
        net(x)                                          # materialise with torch's and seqlab's same draws
        with lib.no_grad():
            net.weight.copy_(lib.zeros(1, 5, dtype=lib.float64))
            net.bias.copy_(lib.zeros(1, dtype=lib.float64))

        def closure():
            opt.zero_grad()
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            return loss
        return [float(opt.step(closure).detach()) for _ in range(2)]
    np.testing.assert_allclose(run(seqlab), run(torch), rtol=1e-8)
