"""The recurrent layers against torch.nn: every combination of cell type, depth, direction,
batch layout and input kind; outputs, final states and every gradient. Also: the fused layer
against its composed cell loop, gradcheck, dropout between layers, state dicts both ways,
unbatched input, the cells, and torch's errors for bad input."""
import itertools

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
from seqlab.autograd import gradcheck

I, H, P = 5, 4, 3  # input size, hidden size, LSTM projection size

KINDS = {
    "RNN_TANH": ("RNN", {}),
    "RNN_RELU": ("RNN", {"nonlinearity": "relu"}),
    "LSTM": ("LSTM", {}),
    "LSTM_PROJ": ("LSTM", {"proj_size": P}),
    "GRU": ("GRU", {}),
}
# Relative to each tensor's scale: a gradient entry that is a sum of cancelling terms carries the
# rounding of its terms, not of itself (float32: 1e-5 of the largest entry, float64: 1e-10).
RTOL = {np.float32: 1e-5, np.float64: 1e-10}
SL = {np.float32: seqlab.float32, np.float64: seqlab.float64}
TH = {np.float32: torch.float32, np.float64: torch.float64}


def build(kind, dtype=np.float64, **kw):
    """The same layer in torch and seqlab, seqlab loaded from torch's state dict."""
    name, extra = KINDS[kind]
    args = dict(input_size=I, hidden_size=H, **extra, **kw)
    t = getattr(torch.nn, name)(**args, dtype=TH[dtype])
    s = getattr(nn, name)(**args, dtype=SL[dtype])
    s.load_state_dict(t.state_dict())
    return t, s


def s_tensor(a, grad=False):
    return seqlab.tensor(a, requires_grad=grad)


def t_tensor(a, grad=False):
    return torch.tensor(a, requires_grad=grad)


def close(ours, theirs, dtype, what):
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=RTOL[dtype], atol=RTOL[dtype] * scale, err_msg=what)


def states(kind, layers, bidir, batch, rng, dtype):
    """h0 (and c0) as numpy arrays; batch None = unbatched."""
    D = 2 if bidir else 1
    hout = P if kind == "LSTM_PROJ" else H
    lead = (D * layers,) if batch is None else (D * layers, batch)
    h0 = rng.standard_normal(lead + (hout,)).astype(dtype)
    c0 = rng.standard_normal(lead + (H,)).astype(dtype) if kind.startswith("LSTM") else None
    return h0, c0


def run(make_tensor, module, x, h0, c0):
    """Forward with explicit states (leaves made by make_tensor); returns (output tensor or
    packed, h_n, c_n, hx, cx)."""
    hx = make_tensor(h0, True)
    cx = make_tensor(c0, True) if c0 is not None else None
    out, state = module(x, (hx, cx) if cx is not None else hx)
    h_n, c_n = state if isinstance(state, tuple) else (state, None)
    return out, h_n, c_n, hx, cx


def loss_of(out, h_n, c_n, weights):
    loss = (out * weights[0]).sum() + (h_n * weights[1]).sum()
    if c_n is not None:
        loss = loss + (c_n * weights[2]).sum()
    return loss


CASES = list(itertools.product(KINDS, [1, 3], [False, True], [False, True], ["padded", "packed", "unbatched"]))


def case_id(c):
    kind, layers, bidir, bf, inp = c
    return f"{kind}-L{layers}-{'bi' if bidir else 'uni'}-{'bf' if bf else 'tf'}-{inp}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_layer_matches_torch(case, dtype, rng):
    kind, layers, bidir, batch_first, inp = case
    if inp == "unbatched" and batch_first:
        batch_first = False  # batch_first does not apply to unbatched input (torch ignores it)
    tm, sm = build(kind, dtype, num_layers=layers, bidirectional=bidir, batch_first=batch_first)
    T, B = 6, 4
    lengths = [6, 3, 5, 1]  # unsorted and unequal: packed with enforce_sorted=False
    if inp == "unbatched":
        x = rng.standard_normal((T, I)).astype(dtype)
        h0, c0 = states(kind, layers, bidir, None, rng, dtype)
    else:
        x = rng.standard_normal((B, T, I) if batch_first else (T, B, I)).astype(dtype)
        h0, c0 = states(kind, layers, bidir, B, rng, dtype)
    xs, xt = s_tensor(x, True), t_tensor(x, True)

    if inp == "packed":
        from seqlab.nn.utils.rnn import pack_padded_sequence as s_pack, pad_packed_sequence as s_pad
        from torch.nn.utils.rnn import pack_padded_sequence as t_pack, pad_packed_sequence as t_pad
        ps = s_pack(xs, lengths, batch_first=batch_first, enforce_sorted=False)
        pt = t_pack(xt, torch.tensor(lengths), batch_first=batch_first, enforce_sorted=False)
        os_, hs, cs, hxs, cxs = run(s_tensor, sm, ps, h0, c0)
        ot, ht, ct, hxt, cxt = run(t_tensor, tm, pt, h0, c0)
        assert list(os_.batch_sizes.tolist()) == pt.batch_sizes.tolist()
        os_, _ = s_pad(os_, batch_first=batch_first)
        ot, _ = t_pad(ot, batch_first=batch_first)
    else:
        os_, hs, cs, hxs, cxs = run(s_tensor, sm, xs, h0, c0)
        ot, ht, ct, hxt, cxt = run(t_tensor, tm, xt, h0, c0)

    assert tuple(os_.shape) == tuple(ot.shape) and tuple(hs.shape) == tuple(ht.shape)
    close(os_, ot, dtype, "output")
    close(hs, ht, dtype, "h_n")
    if ct is not None:
        close(cs, ct, dtype, "c_n")

    weights = [rng.standard_normal(tuple(a.shape)).astype(dtype) for a in (ot, ht) + ((ct,) if ct is not None else ())]
    loss_of(os_, hs, cs, [s_tensor(w) for w in weights]).backward()
    loss_of(ot, ht, ct, [t_tensor(w) for w in weights]).backward()
    close(xs.grad, xt.grad, dtype, "input grad")
    close(hxs.grad, hxt.grad, dtype, "h0 grad")
    if cxt is not None:
        close(cxs.grad, cxt.grad, dtype, "c0 grad")
    for (name, ps_), (_, pt_) in zip(sm.named_parameters(), tm.named_parameters()):
        close(ps_.grad, pt_.grad, dtype, f"grad of {name}")


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("batch_first", [False, True])
def test_default_state_and_grads_without_hx(kind, batch_first, rng):
    tm, sm = build(kind, np.float32, num_layers=2, batch_first=batch_first)
    x = rng.standard_normal((3, 7, I)).astype(np.float32)
    xs, xt = s_tensor(x, True), t_tensor(x, True)
    os_, st = sm(xs)
    ot, tt = tm(xt)
    close(os_, ot, np.float32, "output")
    os_.sum().backward()
    ot.sum().backward()
    close(xs.grad, xt.grad, np.float32, "input grad")


def cell_loop(sm, kind, x, h0, c0, states_out=None):
    """The layer recomputed as a loop of seqlab's cells over its own weights (the composed twin).
    states_out, if given, receives each layer and direction's list of h_t, in time order."""
    D = 2 if sm.bidirectional else 1
    layer_in = x
    hs, cs = [], []
    for layer in range(sm.num_layers):
        outs = []
        for d in range(D):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w = [getattr(sm, k + sfx) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            h, c = h0[layer * D + d], (c0[layer * D + d] if c0 is not None else None)
            steps = range(x.shape[0]) if d == 0 else reversed(range(x.shape[0]))
            seq = [None] * x.shape[0]
            for t in steps:
                if kind == "LSTM":
                    h, c = seqlab._core.lstm_cell(layer_in[t], h, c, *w)
                elif kind == "GRU":
                    h = seqlab._core.gru_cell(layer_in[t], h, *w)
                elif kind == "RNN_TANH":
                    h = seqlab._core.rnn_tanh_cell(layer_in[t], h, *w)
                else:
                    h = seqlab._core.rnn_relu_cell(layer_in[t], h, *w)
                seq[t] = h
            outs.append(seqlab.stack(seq))
            if states_out is not None:
                states_out.append(seq)
            hs.append(h)
            cs.append(c)
        layer_in = seqlab.cat(outs, dim=2) if D == 2 else outs[0]
    return layer_in, seqlab.stack(hs), (seqlab.stack(cs) if c0 is not None else None)


@pytest.mark.parametrize("kind", ["RNN_TANH", "RNN_RELU", "LSTM", "GRU"])
@pytest.mark.parametrize("bidir", [False, True])
def test_fused_layer_equals_its_cell_loop(kind, bidir, rng):
    _, sm = build(kind, np.float64, num_layers=2, bidirectional=bidir)
    x = rng.standard_normal((5, 3, I))
    h0, c0 = states(kind, 2, bidir, 3, rng, np.float64)
    results = []
    for fused in (True, False):
        sm.zero_grad()
        xs, hx = s_tensor(x, True), s_tensor(h0, True)
        cx = s_tensor(c0, True) if c0 is not None else None
        if fused:
            out, st = sm(xs, (hx, cx) if cx is not None else hx)
            h_n, c_n = st if isinstance(st, tuple) else (st, None)
        else:
            out, h_n, c_n = cell_loop(sm, kind, xs, hx, cx)
        ((out * out).sum() + h_n.exp().sum() + (c_n.sum() if c_n is not None else 0)).backward()
        results.append([out, h_n, xs.grad, hx.grad] + [p.grad.clone() for p in sm.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", list(KINDS))
def test_gradcheck_fused_layer(kind, rng):
    _, sm = build(kind, np.float64, num_layers=2, bidirectional=True)
    x = s_tensor(rng.standard_normal((4, 2, I)), True)
    h0, c0 = states(kind, 2, True, 2, rng, np.float64)
    hx = s_tensor(h0, True)
    params = list(sm.parameters())
    if c0 is not None:
        cx = s_tensor(c0, True)

        def f(x, hx, cx, *ps):
            out, (h, c) = sm(x, (hx, cx))
            return out.sum() + (h * h).sum() + (c * c).sum()
        assert gradcheck(f, (x, hx, cx, *params))
    else:
        def f(x, hx, *ps):
            out, h = sm(x, hx)
            return (out * out).sum() + h.sum()
        assert gradcheck(f, (x, hx, *params))


@pytest.mark.parametrize("cell,extra", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("LSTMCell", {}),
                                        ("GRUCell", {}), ("GRUCell", {"bias": False})])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(cell, extra, batched, rng):
    t = getattr(torch.nn, cell)(I, H, dtype=torch.float64, **extra)
    s = getattr(nn, cell)(I, H, dtype=seqlab.float64, **extra)
    s.load_state_dict(t.state_dict())
    assert repr(s) == repr(t)
    shape = (3,) if batched else ()
    x = rng.standard_normal(shape + (I,))
    h = rng.standard_normal(shape + (H,))
    c = rng.standard_normal(shape + (H,))
    xs, xt, hs, ht, cs, ct = (s_tensor(x, True), t_tensor(x, True), s_tensor(h, True), t_tensor(h, True),
                              s_tensor(c, True), t_tensor(c, True))
    if cell == "LSTMCell":
        (h1s, c1s), (h1t, c1t) = s(xs, (hs, cs)), t(xt, (ht, ct))
        loss_s, loss_t = (h1s * 2).sum() + c1s.sum(), (h1t * 2).sum() + c1t.sum()
        close(c1s, c1t, np.float64, "c'")
    else:
        h1s, h1t = s(xs, hs), t(xt, ht)
        loss_s, loss_t = (h1s * h1s).sum(), (h1t * h1t).sum()
    close(h1s, h1t, np.float64, "h'")
    loss_s.backward()
    loss_t.backward()
    close(xs.grad, xt.grad, np.float64, "x grad")
    close(hs.grad, ht.grad, np.float64, "h grad")
    for (k, a), (_, b) in zip(s.named_parameters(), t.named_parameters()):
        close(a.grad, b.grad, np.float64, k)
    # no state given = zeros
    out = s(xs)
    ref = t(xt)
    close(out[0] if cell == "LSTMCell" else out, ref[0] if cell == "LSTMCell" else ref, np.float64, "default state")
    assert gradcheck(lambda x: (s(x)[0] if cell == "LSTMCell" else s(x)).sum(), (s_tensor(x, True),))


def test_dropout_between_layers_only_in_training(rng):
    seqlab.manual_seed(0)
    m = nn.LSTM(I, H, num_layers=3, dropout=0.5)
    x = s_tensor(rng.standard_normal((5, 2, I)).astype(np.float32))
    m.eval()
    a = m(x)[0]
    b = m(x)[0]
    assert seqlab.equal(a, b)
    m.dropout = 0.0
    m.train()
    assert seqlab.equal(m(x)[0], a)  # no dropout: train and eval agree
    m.dropout = 0.5
    c, d = m(x)[0], m(x)[0]
    assert not seqlab.allclose(c, a) and not seqlab.allclose(c, d)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(I, H, dropout=0.3)


@pytest.mark.parametrize("kind", list(KINDS))
def test_state_dict_moves_both_ways(kind):
    t, s = build(kind, np.float32, num_layers=2, bidirectional=True)
    assert list(s.state_dict()) == list(t.state_dict())
    t2 = getattr(torch.nn, KINDS[kind][0])(I, H, num_layers=2, bidirectional=True, **KINDS[kind][1])
    t2.load_state_dict(nn.to_torch_state_dict(s))
    for (k, a), (_, b) in zip(t.state_dict().items(), t2.state_dict().items()):
        assert torch.equal(a, b), k
    assert repr(s) == repr(t)
    assert s._flat_weights_names == t._flat_weights_names
    s.flatten_parameters()


def test_repr_and_init_like_torch():
    for args, kw in [((10, 20), dict(nonlinearity="relu", num_layers=2, bias=False, batch_first=True, dropout=0.5,
                                     bidirectional=True)), ((3, 4), {})]:
        assert repr(nn.RNN(*args, **kw)) == repr(torch.nn.RNN(*args, **kw))
    assert repr(nn.LSTM(10, 20, proj_size=5)) == repr(torch.nn.LSTM(10, 20, proj_size=5))
    m = nn.LSTM(10, 16)
    bound = 1 / 4
    for p in m.parameters():
        assert float(p.abs().max()) <= bound and float(p.abs().max()) > bound * 0.8


def test_truncated_bptt_detaches_state(rng):
    m = nn.LSTM(I, H)
    x = s_tensor(rng.standard_normal((4, 2, I)).astype(np.float32))
    out, hidden = m(x)
    hidden = tuple(h.detach() for h in hidden)
    out2, _ = m(x, hidden)
    out2.sum().backward()  # reaches only the second chunk's graph
    assert all(h.grad_fn is None and not h.requires_grad for h in hidden)


def test_zero_batch_and_errors_like_torch(rng):
    g, tg = nn.GRU(10, 20), torch.nn.GRU(10, 20)
    assert tuple(g(seqlab.randn(5, 0, 10))[0].shape) == tuple(tg(torch.randn(5, 0, 10))[0].shape)

    def err(f_s, f_t, exc):
        with pytest.raises(exc) as es:
            f_s()
        with pytest.raises(exc) as et:
            f_t()
        return str(es.value), str(et.value)

    r, tr = nn.LSTM(10, 20, num_layers=2), torch.nn.LSTM(10, 20, num_layers=2)
    cases = [
        (lambda: r(seqlab.randn(5, 3, 11)), lambda: tr(torch.randn(5, 3, 11)), RuntimeError),
        (lambda: r(seqlab.randn(5, 3, 10, 1)), lambda: tr(torch.randn(5, 3, 10, 1)), ValueError),
        (lambda: r(seqlab.randn(5, 3, 10), (seqlab.randn(2, 4, 20), seqlab.randn(2, 3, 20))),
         lambda: tr(torch.randn(5, 3, 10), (torch.randn(2, 4, 20), torch.randn(2, 3, 20))), RuntimeError),
        (lambda: r(seqlab.randn(5, 3, 10), (seqlab.randn(2, 3, 20), seqlab.randn(2, 3, 21))),
         lambda: tr(torch.randn(5, 3, 10), (torch.randn(2, 3, 20), torch.randn(2, 3, 21))), RuntimeError),
        (lambda: r(seqlab.randn(5, 10), (seqlab.randn(2, 3, 20), seqlab.randn(2, 3, 20))),
         lambda: tr(torch.randn(5, 10), (torch.randn(2, 3, 20), torch.randn(2, 3, 20))), RuntimeError),
        (lambda: g(seqlab.randn(5, 3, 10), seqlab.randn(1, 3, 21)),
         lambda: tg(torch.randn(5, 3, 10), torch.randn(1, 3, 21)), RuntimeError),
        (lambda: g(seqlab.randn(0, 3, 10)), lambda: tg(torch.randn(0, 3, 10)), RuntimeError),
        (lambda: g(seqlab.randn(5, 3, 10, dtype=seqlab.float64)),
         lambda: tg(torch.randn(5, 3, 10, dtype=torch.float64)), ValueError),
        (lambda: nn.LSTM(10, 20, proj_size=20), lambda: torch.nn.LSTM(10, 20, proj_size=20), ValueError),
        (lambda: nn.LSTM(10, 20, proj_size=-1), lambda: torch.nn.LSTM(10, 20, proj_size=-1), ValueError),
        (lambda: nn.RNN(10, 20, nonlinearity="sigmoid"), lambda: torch.nn.RNN(10, 20, nonlinearity="sigmoid"),
         ValueError),
        (lambda: nn.RNN(10, 20, dropout=1.5), lambda: torch.nn.RNN(10, 20, dropout=1.5), ValueError),
        (lambda: nn.RNN(10, 0), lambda: torch.nn.RNN(10, 0), ValueError),
        (lambda: nn.RNN(10, 20, num_layers=0), lambda: torch.nn.RNN(10, 20, num_layers=0), ValueError),
        (lambda: nn.RNNCell(10, 20)(seqlab.randn(3, 5)), lambda: torch.nn.RNNCell(10, 20)(torch.randn(3, 5)),
         RuntimeError),
        (lambda: nn.RNNCell(10, 20)(seqlab.randn(3, 10), seqlab.randn(4, 20)),
         lambda: torch.nn.RNNCell(10, 20)(torch.randn(3, 10), torch.randn(4, 20)), RuntimeError),
        (lambda: nn.GRUCell(10, 20)(seqlab.randn(2, 3, 10)),
         lambda: torch.nn.GRUCell(10, 20)(torch.randn(2, 3, 10)), ValueError),
    ]
    for f_s, f_t, exc in cases:
        ours, theirs = err(f_s, f_t, exc)
        theirs = theirs.replace("torch.", "seqlab.")
        assert theirs.split(".")[0].split(",")[0] in ours or ours in theirs, (ours, theirs)
    with pytest.raises(TypeError, match="hx must be a tuple"):
        r(seqlab.randn(5, 3, 10), seqlab.randn(2, 3, 20))
    with pytest.raises(TypeError, match="hx must be a Tensor"):
        g(seqlab.randn(5, 3, 10), (seqlab.randn(1, 3, 20),))
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.RNNBase("GRU", 10, 20, proj_size=2)


@pytest.mark.parametrize("kind", ["RNN_TANH", "LSTM", "GRU"])
def test_hidden_grad_norms_equal_the_cell_loops_state_gradients(kind, rng):
    from seqlab.nn.utils import hidden_grad_norms
    _, sm = build(kind, np.float64, num_layers=2, bidirectional=True)
    x = s_tensor(rng.standard_normal((6, 3, I)))
    target = s_tensor(rng.standard_normal((6, 3, 2 * H)))
    norms = hidden_grad_norms(sm, lambda: ((sm(x)[0] - target) ** 2).sum())
    assert tuple(norms[""].shape) == (4, 6) and norms[""].dtype == seqlab.float64

    # The same gradients, from retain_grad() on every state of the composed loop.
    kept = []
    h0, c0 = states(kind, 2, True, 3, rng, np.float64)
    out, _, _ = cell_loop(sm, kind, x, s_tensor(np.zeros_like(h0)),
                          s_tensor(np.zeros_like(c0)) if c0 is not None else None, states_out=kept)
    for seq in kept:
        for h in seq:
            h.retain_grad()
    ((out - target) ** 2).sum().backward()
    expected = np.array([[float((h.grad * h.grad).sum()) ** 0.5 for h in seq] for seq in kept])
    np.testing.assert_allclose(norms[""].numpy(), expected, rtol=1e-10)


def test_hidden_grad_norms_vanish_in_a_tanh_rnn_not_in_an_lstm():
    # Pascanu et al. 2012: the gradient reaching early steps of a tanh RNN shrinks geometrically.
    seqlab.manual_seed(0)
    x = seqlab.randn(60, 1, 8)
    ratios = {}
    for cls in (nn.RNN, nn.LSTM):
        m = cls(8, 32)
        with seqlab.no_grad():
            for name, p in m.named_parameters():
                if name.startswith("bias_ih") and cls is nn.LSTM:
                    p[32:64] = 3.0  # forget gate open, as an LSTM learns to hold memory
        norms = hidden_grad_norms_of(m, x)
        ratios[cls.__name__] = float(norms[0, 0]) / float(norms[0, -1])
    assert ratios["RNN"] < 1e-3 < ratios["LSTM"], ratios


def hidden_grad_norms_of(m, x):
    from seqlab.nn.hidden_grads import hidden_grad_norms
    return hidden_grad_norms(m, lambda: m(x)[0][-1].sum())[""]


def test_hidden_grad_norms_of_packed_input_equal_the_padded_ones_for_equal_lengths(rng):
    from seqlab.nn.utils import hidden_grad_norms
    from seqlab.nn.utils.rnn import pack_padded_sequence
    _, sm = build("GRU", np.float64, num_layers=2, bidirectional=True)
    x = s_tensor(rng.standard_normal((5, 3, I)))
    padded = hidden_grad_norms(sm, lambda: (sm(x)[0] ** 2).sum())[""]
    packed = hidden_grad_norms(sm, lambda: (sm(pack_padded_sequence(x, [5, 5, 5]))[0].data ** 2).sum())[""]
    assert tuple(packed.shape) == (4, 5)
    np.testing.assert_allclose(packed.numpy(), padded.numpy(), rtol=1e-12)


def test_modes_come_from_the_registered_cells():
    # torch's mode strings, each a cell registered in cpp/src/ops/recurrent/, with torch's gate count
    # (its RNNBase: gate_size = {LSTM: 4, GRU: 3, RNN_*: 1} · hidden_size); an unknown one in torch's words.
    for mode in ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"]:
        ours, theirs = nn.RNNBase(mode, 3, 5), torch.nn.RNNBase(mode, 3, 5)
        assert ours.weight_ih_l0.shape == theirs.weight_ih_l0.shape
        assert seqlab._core.rnn_gate_count(mode) * 5 == theirs.weight_ih_l0.shape[0]
    with pytest.raises(ValueError) as ours:
        nn.RNNBase("FOO", 3, 5)
    with pytest.raises(ValueError) as theirs:
        torch.nn.RNNBase("FOO", 3, 5)
    assert str(ours.value) == str(theirs.value) == "Unrecognized RNN mode: FOO"
