"""MultiheadAttention and the Transformer layers against torch.nn, loaded with torch's weights:
outputs and every gradient (inputs and parameters) across masks (causal bool and float, key
padding, both), batch_first, kdim/vdim, add_bias_kv, add_zero_attn, cross-attention,
need_weights/average_attn_weights and unbatched input; post- and pre-LN layers with relu, gelu and
a callable; the stacks with a final norm and nn.Transformer; torch's eval-mode nested-tensor path;
gradcheck; dropout only in training; state dicts both ways; causal attention leaks nothing; a
fully masked row; torch's warnings and errors for bad input."""
import warnings

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from conftest import assert_raises_like_torch

SL = {np.float32: seqlab.float32, np.float64: seqlab.float64}
TH = {np.float32: torch.float32, np.float64: torch.float64}
# Relative to each tensor's scale, as tests/test_rnn.py: float32 1e-5, float64 1e-10.
RTOL = {np.float32: 1e-5, np.float64: 1e-10}
DTYPES = [np.float32, np.float64]
DTYPE_IDS = ["f32", "f64"]
NESTED_WARNING = "enable_nested_tensor is True, but self.use_nested_tensor is False"

E, H = 8, 2  # embedding size, heads


def build(name, dtype=np.float64, **kwargs):
    """The same module in torch and seqlab, seqlab loaded from torch's state dict. kwargs may
    hold pairs (torch value, seqlab value) for arguments that differ (submodules, callables)."""
    tkw = {k: (v[0] if isinstance(v, tuple) else v) for k, v in kwargs.items()}
    skw = {k: (v[1] if isinstance(v, tuple) else v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", NESTED_WARNING)  # tested on its own below
        t = getattr(torch.nn, name)(**tkw, dtype=TH[dtype])
        s = getattr(nn, name)(**skw, dtype=SL[dtype])
    s.load_state_dict(t.state_dict())
    return t, s


def both(a, grad=False):
    """numpy -> (torch tensor, seqlab tensor), leaves when grad."""
    if a is None:
        return None, None
    return torch.tensor(a, requires_grad=grad), seqlab.tensor(a, requires_grad=grad)


def close(ours, theirs, dtype, what):
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape, f"{what}: shape {a.shape} != torch {b.shape}"
    finite = np.isfinite(b)
    scale = max(1.0, float(np.abs(b[finite]).max())) if finite.any() else 1.0
    np.testing.assert_allclose(a, b, rtol=RTOL[dtype], atol=RTOL[dtype] * scale, equal_nan=True, err_msg=what)


def compare(tm, sm, t_args, s_args, leaves, dtype, t_kwargs=None, s_kwargs=None, pick=lambda out: out):
    """Forward both modules, compare the output(s), backpropagate the same random gradient, and
    compare the gradients of the given (torch, seqlab) leaves and of every parameter."""
    t_out = pick(tm(*t_args, **(t_kwargs or {})))
    s_out = pick(sm(*s_args, **(s_kwargs or {})))
    t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
    s_outs = s_out if isinstance(s_out, tuple) else (s_out,)
    assert len(t_outs) == len(s_outs)
    rng = np.random.default_rng(7)
    t_loss, s_loss = 0, 0
    for i, (t, s) in enumerate(zip(t_outs, s_outs)):
        if t is None:
            assert s is None, f"output {i}: torch returns None"
            continue
        close(s, t, dtype, f"output {i}")
        g = rng.standard_normal(tuple(t.shape)).astype(dtype)
        t_loss = t_loss + (t * torch.tensor(g)).sum()
        s_loss = s_loss + (s * seqlab.tensor(g)).sum()
    t_loss.backward()
    s_loss.backward()
    for i, (t, s) in enumerate(leaves):
        close(s.grad, t.grad, dtype, f"grad of input {i}")
    t_params, s_params = dict(tm.named_parameters()), dict(sm.named_parameters())
    assert list(t_params) == list(s_params)
    for name, p in t_params.items():
        if p.grad is None:
            assert s_params[name].grad is None, name
        else:
            close(s_params[name].grad, p.grad, dtype, f"grad of {name}")
    return s_out


def causal_bool(n):
    return np.triu(np.ones((n, n), dtype=bool), 1)


def causal_float(n, dtype):
    return np.where(causal_bool(n), -np.inf, 0.0).astype(dtype)


def padding(lengths, total):
    return np.array([[j >= n for j in range(total)] for n in lengths])


# ------------------------------------------------------------------ MultiheadAttention
L, S, N = 5, 4, 3

# (id, constructor kwargs, how to call): self = query is key is value; "cross" = key is value, of
# length S; "qkv" = three tensors; masks are built from the names.
MHA_CASES = [
    ("self-weights", {}, dict(inputs="self")),
    ("self-causal-bool-fused", {}, dict(inputs="self", attn_mask="causal_bool", need_weights=False)),
    ("self-causal-float", {}, dict(inputs="self", attn_mask="causal_float")),
    ("self-is_causal-fused", {}, dict(inputs="self", attn_mask="causal_bool", is_causal=True, need_weights=False)),
    ("self-padding-per-head", {}, dict(inputs="self", key_padding_mask="bool", average_attn_weights=False)),
    ("self-both-masks-fused", {}, dict(inputs="self", attn_mask="causal_bool", key_padding_mask="bool",
                                       need_weights=False)),
    ("self-float-masks", {}, dict(inputs="self", attn_mask="causal_float", key_padding_mask="float")),
    ("batch_first", dict(batch_first=True), dict(inputs="self", key_padding_mask="bool")),
    ("batch_first-cross-fused", dict(batch_first=True), dict(inputs="cross", key_padding_mask="bool",
                                                             need_weights=False)),
    ("cross", {}, dict(inputs="cross", attn_mask="rect_bool")),
    ("kdim-vdim", dict(kdim=3, vdim=6), dict(inputs="qkv", key_padding_mask="bool")),
    ("kdim-vdim-fused", dict(kdim=3, vdim=6, bias=False), dict(inputs="qkv", need_weights=False)),
    ("bias_kv-zero_attn", dict(add_bias_kv=True, add_zero_attn=True),
     dict(inputs="cross", attn_mask="rect_bool", key_padding_mask="bool")),
    ("bias_kv-zero_attn-fused", dict(add_bias_kv=True, add_zero_attn=True),
     dict(inputs="self", attn_mask="causal_float", key_padding_mask="float", need_weights=False)),
    ("no-bias", dict(bias=False), dict(inputs="qkv")),
    ("3d-mask", {}, dict(inputs="self", attn_mask="3d_float", average_attn_weights=False)),
    ("unbatched", {}, dict(inputs="self", unbatched=True, key_padding_mask="bool")),
    ("unbatched-3d-mask-fused", {}, dict(inputs="cross", unbatched=True, attn_mask="3d_bool", need_weights=False)),
]


def mha_inputs(call, rng, dtype, kdim=E, vdim=E, batch_first=False):
    """numpy query, key, value (key/value None when they are the query / the key) and masks."""
    unbatched = call.get("unbatched", False)
    lead = (lambda n: (n, E)) if unbatched else ((lambda n: (N, n, E)) if batch_first else (lambda n: (n, N, E)))
    q = rng.standard_normal(lead(L)).astype(dtype)
    k = v = None
    src = L
    if call["inputs"] in ("cross", "qkv"):
        src = S
        shape = lead(S)
        k = rng.standard_normal(shape[:-1] + (kdim,)).astype(dtype)
        if call["inputs"] == "qkv":
            v = rng.standard_normal(shape[:-1] + (vdim,)).astype(dtype)
    masks = {}
    am = call.get("attn_mask")
    if am == "causal_bool":
        masks["attn_mask"] = causal_bool(L)
    elif am == "causal_float":
        masks["attn_mask"] = causal_float(L, dtype)
    elif am == "rect_bool":
        m = rng.random((L, src)) < 0.3
        m[:, 0] = False  # every query keeps a key
        masks["attn_mask"] = m
    elif am in ("3d_float", "3d_bool"):
        heads = H if unbatched else N * H
        if am == "3d_float":
            masks["attn_mask"] = rng.standard_normal((heads, L, src)).astype(dtype)
        else:
            m = rng.random((heads, L, src)) < 0.3
            m[..., 0] = False
            masks["attn_mask"] = m
    kpm = call.get("key_padding_mask")
    if kpm:
        m = padding([src, src - 1, 2][: 1 if unbatched else N], src)
        m = m[0] if unbatched else m
        masks["key_padding_mask"] = m if kpm == "bool" else np.where(m, -np.inf, 0.0).astype(dtype)
    return q, k, v, masks


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", MHA_CASES, ids=[c[0] for c in MHA_CASES])
def test_multihead_attention_matches_torch(case, dtype, rng):
    _, kwargs, call = case
    tm, sm = build("MultiheadAttention", dtype, embed_dim=E, num_heads=H, **kwargs)
    q, k, v, masks = mha_inputs(call, rng, dtype, kwargs.get("kdim", E), kwargs.get("vdim", E),
                                kwargs.get("batch_first", False))
    qt, qs = both(q, True)
    leaves = [(qt, qs)]
    kt, ks = (qt, qs) if k is None else both(k, True)
    vt, vs = (kt, ks) if v is None else both(v, True)
    leaves += [(kt, ks)] if k is not None else []
    leaves += [(vt, vs)] if v is not None else []
    opts = {key: call[key] for key in ("need_weights", "average_attn_weights", "is_causal") if key in call}
    t_kw = dict(opts, **{name: torch.tensor(m) for name, m in masks.items()})
    s_kw = dict(opts, **{name: seqlab.tensor(m) for name, m in masks.items()})
    out, weights = compare(tm, sm, (qt, kt, vt), (qs, ks, vs), leaves, dtype, t_kw, s_kw)
    assert (weights is None) == (call.get("need_weights", True) is False)


def test_functional_multi_head_attention_forward_matches_torch(rng):
    # torch's signature, positional and keyword, with static_k/static_v too.
    dtype = np.float64
    tm, sm = build("MultiheadAttention", dtype, embed_dim=E, num_heads=H)
    q = rng.standard_normal((L, N, E))
    static = rng.standard_normal((N * H, S, E // H))
    for need_weights in (True, False):
        (qt, qs), (kt, ks), (vt, vs) = both(q, True), both(static, True), both(static + 1, True)
        args_t = (qt, qt, qt, E, H, tm.in_proj_weight, tm.in_proj_bias, None, None, False, 0.0, tm.out_proj.weight,
                  tm.out_proj.bias)
        args_s = (qs, qs, qs, E, H, sm.in_proj_weight, sm.in_proj_bias, None, None, False, 0.0, sm.out_proj.weight,
                  sm.out_proj.bias)
        kw = dict(need_weights=need_weights, training=False)
        ot, wt = torch.nn.functional.multi_head_attention_forward(*args_t, static_k=kt, static_v=vt, **kw)
        os_, ws = F.multi_head_attention_forward(*args_s, static_k=ks, static_v=vs, **kw)
        close(os_, ot, dtype, "output")
        if need_weights:
            close(ws, wt, dtype, "weights")
        else:
            assert ws is None and wt is None
        ot.sum().backward()
        os_.sum().backward()
        for (t, s), name in [((qt, qs), "query"), ((kt, ks), "static_k"), ((vt, vs), "static_v")]:
            close(s.grad, t.grad, dtype, name)


@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "fused"])
def test_multi_head_attention_gradcheck(need_weights, rng):
    """All inputs and parameters of the functional, in float64, by central differences."""
    e, heads, l_, s_, n = 4, 2, 3, 4, 2

    def leaf(*shape):
        return seqlab.tensor(rng.standard_normal(shape), requires_grad=True)

    q, kv = leaf(l_, n, e), leaf(s_, n, e)
    w_in, b_in, w_out, b_out = leaf(3 * e, e), leaf(3 * e), leaf(e, e), leaf(e)
    bias_k, bias_v = leaf(1, 1, e), leaf(1, 1, e)
    mask = seqlab.tensor(np.where(rng.random((l_, s_)) < 0.3, -1.5, 0.25))
    kpm = seqlab.tensor(np.where(padding([s_, s_ - 1], s_), -np.inf, 0.0))

    def fn(q, kv, w_in, b_in, w_out, b_out, bias_k, bias_v):
        out, w = F.multi_head_attention_forward(q, kv, kv, e, heads, w_in, b_in, bias_k, bias_v, True, 0.0, w_out,
                                                b_out, key_padding_mask=kpm, attn_mask=mask,
                                                need_weights=need_weights, average_attn_weights=False)
        return (out, w) if need_weights else out

    assert seqlab.autograd.gradcheck(fn, (q, kv, w_in, b_in, w_out, b_out, bias_k, bias_v), eps=1e-6, atol=1e-6,
                                     rtol=1e-4)


@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "fused"])
def test_causal_self_attention_leaks_nothing_from_the_future(need_weights, rng):
    _, sm = build("MultiheadAttention", np.float64, embed_dim=E, num_heads=H)
    x = seqlab.tensor(rng.standard_normal((L, N, E)), requires_grad=True)
    out, _ = sm(x, x, x, attn_mask=seqlab.tensor(causal_bool(L)), need_weights=need_weights)
    for t in range(L - 1):
        x.grad = None
        out[t].sum().backward(retain_graph=True)
        g = x.grad.numpy()
        assert np.all(g[t + 1:] == 0.0), f"output {t} depends on later inputs"
        assert np.any(g[: t + 1] != 0.0)


def test_a_fully_masked_row_gives_what_torch_gives(rng):
    # Every key of sequence 1 is padding. torch's weights path gives NaN for its rows (softmax of
    # -inf everywhere); its fused path gives zeros from SDPA, so the out-projection's bias.
    tm, sm = build("MultiheadAttention", np.float64, embed_dim=E, num_heads=H)
    with torch.no_grad():
        tm.out_proj.bias.uniform_(-1, 1)
    sm.load_state_dict(tm.state_dict())
    x = rng.standard_normal((L, N, E))
    kpm = padding([L, 0, 3], L)
    for need_weights in (True, False):
        (xt, xs) = both(x, True)
        ot, wt = tm(xt, xt, xt, key_padding_mask=torch.tensor(kpm), need_weights=need_weights)
        os_, ws = sm(xs, xs, xs, key_padding_mask=seqlab.tensor(kpm), need_weights=need_weights)
        close(os_, ot, np.float64, "output")
        assert np.isnan(os_[:, 1].detach().numpy()).all() == need_weights
        if need_weights:
            close(ws, wt, np.float64, "weights")
        else:
            np.testing.assert_allclose(os_[:, 1].detach().numpy(), np.broadcast_to(sm.out_proj.bias.detach().numpy(), (L, E)))
            ot[:, [0, 2]].sum().backward()
            os_[:, [0, 2]].sum().backward()
            close(xs.grad, xt.grad, np.float64, "grad")


def test_torchs_eval_mode_fused_kernels_give_the_same_values(rng):
    # In eval mode without gradients torch runs batch_first self-attention through
    # _native_multi_head_attention and the encoder layer through _transformer_encoder_layer_fwd.
    # The input here is a non-contiguous view. The one difference (DESIGN.md): a query whose keys
    # are all masked gets NaN from those kernels, zeros from torch's ordinary path and seqlab.
    tm, sm = build("MultiheadAttention", np.float32, embed_dim=E, num_heads=H, batch_first=True)
    lt, ls = build("TransformerEncoderLayer", np.float32, **layer_kwargs(dict(batch_first=True)))
    for m in (tm, sm, lt, ls):
        m.eval()
    x = rng.standard_normal((L, N, E)).astype(np.float32)
    xt, xs = torch.tensor(x).transpose(0, 1), seqlab.tensor(x).transpose(0, 1)
    kpm = padding([L, 3, 0], L)
    with torch.no_grad(), seqlab.no_grad():
        for need_weights in (True, False):
            ot, wt = tm(xt, xt, xt, key_padding_mask=torch.tensor(kpm), need_weights=need_weights)
            os_, ws = sm(xs, xs, xs, key_padding_mask=seqlab.tensor(kpm), need_weights=need_weights)
            close(os_[:2], ot[:2], np.float32, "output")
            if need_weights:
                close(ws, wt, np.float32, "weights")
            assert np.isnan(ot[2].numpy()).all()
            assert np.isnan(os_[2].numpy()).all() == need_weights
        close(ls(xs, src_key_padding_mask=seqlab.tensor(kpm))[:2], lt(xt, src_key_padding_mask=torch.tensor(kpm))[:2],
              np.float32, "encoder layer")


@pytest.mark.parametrize("need_weights", [True, False], ids=["weights", "fused"])
def test_empty_sequences_and_batches(need_weights):
    tm, sm = build("MultiheadAttention", np.float64, embed_dim=E, num_heads=H)
    with torch.no_grad():
        tm.out_proj.bias.uniform_(-1, 1)
    sm.load_state_dict(tm.state_dict())
    for q, kv in [((0, N, E), (S, N, E)), ((L, 0, E), (S, 0, E)), ((L, N, E), (0, N, E))]:
        rng = np.random.default_rng(0)
        qa, kva = rng.standard_normal(q), rng.standard_normal(kv)
        (qt, qs), (kt, ks) = both(qa, True), both(kva, True)
        compare(tm, sm, (qt, kt, kt), (qs, ks, ks), [(qt, qs), (kt, ks)], np.float64,
                dict(need_weights=need_weights), dict(need_weights=need_weights))
        tm.zero_grad()
        sm.zero_grad()


def test_dropout_is_active_only_in_training(rng):
    tm, sm = build("MultiheadAttention", np.float64, embed_dim=E, num_heads=H, dropout=0.5)
    x = seqlab.tensor(rng.standard_normal((L, N, E)))
    out1, w1 = sm(x, x, x, average_attn_weights=False)
    out2, _ = sm(x, x, x)
    assert not np.allclose(out1.detach().numpy(), out2.detach().numpy())
    w = w1.detach().numpy()
    # Dropout after the softmax: weights are 0 or 2 x a probability (torch returns them so too).
    assert (w == 0).any() and (w.sum(-1) > 1.2).any()
    sm.eval()
    tm.eval()
    out, weights = sm(x, x, x)
    t_out, t_weights = tm(*[torch.tensor(x.numpy())] * 3)
    close(out, t_out, np.float64, "eval output")
    close(weights, t_weights, np.float64, "eval weights")

    layer_t, layer_s = build("TransformerEncoderLayer", np.float64, d_model=E, nhead=H, dim_feedforward=16,
                             dropout=0.5)
    a, b = layer_s(x), layer_s(x)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    layer_s.eval()
    layer_t.eval()
    with torch.no_grad():
        close(layer_s(x), layer_t(torch.tensor(x.numpy())), np.float64, "eval layer")


# ------------------------------------------------------------------ the layers
def silu(x):
    return x * x.sigmoid()  # a callable activation: the same code runs on torch and seqlab tensors


ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "F.gelu": (torch.nn.functional.gelu, F.gelu),
               "callable": (silu, silu), "module": (torch.nn.GELU(approximate="tanh"), nn.GELU(approximate="tanh"))}

LAYER_CASES = [
    # (id, constructor kwargs, masks)
    ("post-relu-causal", dict(activation="relu"), dict(mask="causal_bool")),
    ("pre-gelu-padding", dict(activation="gelu", norm_first=True), dict(key_padding_mask="bool")),
    ("post-callable-both", dict(activation="callable"), dict(mask="causal_float", key_padding_mask="float")),
    ("pre-F.gelu-batch_first-both", dict(activation="F.gelu", norm_first=True, batch_first=True),
     dict(mask="causal_bool", key_padding_mask="bool")),
    ("post-module-is_causal", dict(activation="module", bias=False, layer_norm_eps=1e-3),
     dict(mask="causal_bool", is_causal=True)),
    ("unbatched", dict(), dict(unbatched=True, mask="causal_float")),
]


def layer_kwargs(kwargs):
    kw = dict(d_model=E, nhead=H, dim_feedforward=16, dropout=0.0)
    kw.update(kwargs)
    if "activation" in kw:
        kw["activation"] = ACTIVATIONS[kw["activation"]]
    return kw


def seq_masks(masks, n, lengths, dtype, prefix):
    """{name: (torch mask, seqlab mask)} for a self-attention block of length n."""
    out = {}
    if masks.get("mask") == "causal_bool":
        out[prefix + "mask"] = causal_bool(n)
    elif masks.get("mask") == "causal_float":
        out[prefix + "mask"] = causal_float(n, dtype)
    if masks.get("key_padding_mask"):
        m = padding(lengths, n)
        out[prefix + "key_padding_mask"] = m if masks["key_padding_mask"] == "bool" else \
            np.where(m, -np.inf, 0.0).astype(dtype)
    return out


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_encoder_layer_matches_torch(case, dtype, rng):
    _, kwargs, masks = case
    tm, sm = build("TransformerEncoderLayer", dtype, **layer_kwargs(kwargs))
    unbatched, bf = masks.get("unbatched", False), kwargs.get("batch_first", False)
    shape = (L, E) if unbatched else ((N, L, E) if bf else (L, N, E))
    xt, xs = both(rng.standard_normal(shape).astype(dtype), True)
    named = seq_masks(masks, L, [L, 3, 1], dtype, "src_")
    t_kw = {k: torch.tensor(v) for k, v in named.items()}
    s_kw = {k: seqlab.tensor(v) for k, v in named.items()}
    if masks.get("is_causal"):
        t_kw["is_causal"] = s_kw["is_causal"] = True
    compare(tm, sm, (xt,), (xs,), [(xt, xs)], dtype, t_kw, s_kw)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_decoder_layer_matches_torch(case, dtype, rng):
    _, kwargs, masks = case
    tm, sm = build("TransformerDecoderLayer", dtype, **layer_kwargs(kwargs))
    unbatched, bf = masks.get("unbatched", False), kwargs.get("batch_first", False)
    lead = (lambda n: (n, E)) if unbatched else ((lambda n: (N, n, E)) if bf else (lambda n: (n, N, E)))
    (tt, ts), (mt, ms) = both(rng.standard_normal(lead(L)).astype(dtype), True), \
        both(rng.standard_normal(lead(S)).astype(dtype), True)
    named = seq_masks(masks, L, [L, 3, 1], dtype, "tgt_")
    if masks.get("key_padding_mask"):  # the memory is padded too
        m = padding([S, 2, 1], S)
        named["memory_key_padding_mask"] = m if masks["key_padding_mask"] == "bool" else \
            np.where(m, -np.inf, 0.0).astype(dtype)
    t_kw = {k: torch.tensor(v) for k, v in named.items()}
    s_kw = {k: seqlab.tensor(v) for k, v in named.items()}
    if masks.get("is_causal"):
        t_kw["tgt_is_causal"] = s_kw["tgt_is_causal"] = True
    compare(tm, sm, (tt, mt), (ts, ms), [(tt, ts), (mt, ms)], dtype, t_kw, s_kw)


# ------------------------------------------------------------------ the stacks
def stack_pair(kind, dtype, layer_kw, num_layers=2, with_norm=True, **kwargs):
    layer = "TransformerEncoderLayer" if kind == "TransformerEncoder" else "TransformerDecoderLayer"
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", NESTED_WARNING)
        tl = getattr(torch.nn, layer)(**layer_kw, dtype=TH[dtype])
        sl = getattr(nn, layer)(**layer_kw, dtype=SL[dtype])
        tn = torch.nn.LayerNorm(E, dtype=TH[dtype]) if with_norm else None
        sn = nn.LayerNorm(E, dtype=SL[dtype]) if with_norm else None
        key = "encoder_layer" if layer.startswith("TransformerEncoder") else "decoder_layer"
        t = getattr(torch.nn, kind)(**{key: tl}, num_layers=num_layers, norm=tn, **kwargs)
        s = getattr(nn, kind)(**{key: sl}, num_layers=num_layers, norm=sn, **kwargs)
    with torch.no_grad():  # distinct layers, and a norm that is not the identity
        for p in t.parameters():
            p.add_(torch.rand_like(p) * 0.2 - 0.1)
    s.load_state_dict(t.state_dict())
    return t, s


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_encoder_stack_matches_torch(norm_first, dtype, rng):
    kw = layer_kwargs(dict(norm_first=norm_first, activation="gelu"))
    tm, sm = stack_pair("TransformerEncoder", dtype, kw)
    xt, xs = both(rng.standard_normal((L, N, E)).astype(dtype), True)
    # A causal float mask is detected (is_causal=None) and passed on as the hint.
    named = {"mask": causal_float(L, dtype), "src_key_padding_mask": padding([L, 3, 4], L)}
    t_kw = {k: torch.tensor(v) for k, v in named.items()}
    s_kw = {k: seqlab.tensor(v) for k, v in named.items()}
    with pytest.warns(UserWarning, match="Support for mismatched src_key_padding_mask and mask"):
        tm(xt, **t_kw)
    with pytest.warns(UserWarning, match="Support for mismatched src_key_padding_mask and mask"):
        sm(xs, **s_kw)
    t_kw["src_key_padding_mask"] = torch.tensor(np.where(named["src_key_padding_mask"], -np.inf, 0.0).astype(dtype))
    s_kw["src_key_padding_mask"] = seqlab.tensor(t_kw["src_key_padding_mask"].numpy())
    compare(tm, sm, (xt,), (xs,), [(xt, xs)], dtype, t_kw, s_kw)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_decoder_stack_matches_torch(norm_first, dtype, rng):
    kw = layer_kwargs(dict(norm_first=norm_first, batch_first=True))
    tm, sm = stack_pair("TransformerDecoder", dtype, kw, num_layers=3)
    (tt, ts), (mt, ms) = both(rng.standard_normal((N, L, E)).astype(dtype), True), \
        both(rng.standard_normal((N, S, E)).astype(dtype), True)
    named = {"tgt_mask": causal_bool(L), "tgt_key_padding_mask": padding([L, 2, 4], L),
             "memory_key_padding_mask": padding([S, 1, 3], S)}
    t_kw = {k: torch.tensor(v) for k, v in named.items()}
    s_kw = {k: seqlab.tensor(v) for k, v in named.items()}
    compare(tm, sm, (tt, mt), (ts, ms), [(tt, ts), (mt, ms)], dtype, t_kw, s_kw)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("batch_first", [False, True], ids=["seq-first", "batch-first"])
def test_transformer_matches_torch(batch_first, dtype, rng):
    kw = dict(d_model=E, nhead=H, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16, dropout=0.0,
              batch_first=batch_first)
    if batch_first:
        tm, sm = build("Transformer", dtype, **kw)
    else:  # torch warns that seq-first encoders cannot use nested tensors; so does seqlab
        with pytest.warns(UserWarning, match=NESTED_WARNING):
            tm = torch.nn.Transformer(**kw, dtype=TH[dtype])
        with pytest.warns(UserWarning, match=NESTED_WARNING):
            sm = nn.Transformer(**kw, dtype=SL[dtype])
        sm.load_state_dict(tm.state_dict())
    lead = (lambda n: (N, n, E)) if batch_first else (lambda n: (n, N, E))
    (st, ss), (tt, ts) = both(rng.standard_normal(lead(S)).astype(dtype), True), \
        both(rng.standard_normal(lead(L)).astype(dtype), True)
    tgt_mask_t = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=TH[dtype])
    tgt_mask_s = nn.Transformer.generate_square_subsequent_mask(L, dtype=SL[dtype])
    close(tgt_mask_s, tgt_mask_t, dtype, "generate_square_subsequent_mask")
    src_kpm = padding([S, 2, 3], S)
    t_kw = dict(tgt_mask=tgt_mask_t, src_key_padding_mask=torch.tensor(src_kpm),
                memory_key_padding_mask=torch.tensor(src_kpm))
    s_kw = dict(tgt_mask=tgt_mask_s, src_key_padding_mask=seqlab.tensor(src_kpm),
                memory_key_padding_mask=seqlab.tensor(src_kpm))
    compare(tm, sm, (st, tt), (ss, ts), [(st, ss), (tt, ts)], dtype, t_kw, s_kw)


def test_causal_encoder_leaks_nothing_from_the_future(rng):
    _, sm = stack_pair("TransformerEncoder", np.float64, layer_kwargs({}))
    x = seqlab.tensor(rng.standard_normal((L, N, E)), requires_grad=True)
    out = sm(x, mask=nn.Transformer.generate_square_subsequent_mask(L, dtype=seqlab.float64))
    for t in range(L - 1):
        x.grad = None
        out[t].sum().backward(retain_graph=True)
        assert np.all(x.grad.numpy()[t + 1:] == 0.0), f"output {t} depends on later inputs"


@pytest.mark.parametrize("lengths", [[L, 3, 0], [2, L, 4]], ids=["one-empty", "all-tokens"])
def test_encoder_in_eval_mode_zeroes_padding_as_torchs_nested_path(lengths, rng):
    # torch, in eval mode without gradients, runs batch_first layers with a padding mask on nested
    # tensors: the padded positions of the output are zeros, then the final norm (its bias here).
    kw = layer_kwargs(dict(batch_first=True))
    tm, sm = stack_pair("TransformerEncoder", np.float32, kw)
    tm.eval()
    sm.eval()
    x = rng.standard_normal((N, L, E)).astype(np.float32)
    kpm = padding(lengths, L)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The PyTorch API of nested tensors is in prototype stage")
        t_fast = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    with seqlab.no_grad():
        s_fast = sm(seqlab.tensor(x), src_key_padding_mask=seqlab.tensor(kpm))
    close(s_fast, t_fast, np.float32, "eval, no grad")
    np.testing.assert_array_equal(s_fast.numpy()[kpm], np.broadcast_to(sm.norm.bias.detach().numpy(), (kpm.sum(), E)))
    # With gradients, torch takes its ordinary path: padded positions are computed.
    xt, xs = both(x, True)
    t_slow = tm(xt, src_key_padding_mask=torch.tensor(kpm))
    s_slow = sm(xs, src_key_padding_mask=seqlab.tensor(kpm))
    close(s_slow, t_slow, np.float32, "eval, with grad")
    assert not np.allclose(s_slow.detach().numpy()[kpm], s_fast.numpy()[kpm])
    # Padding that is not at the end of the sequence: no nested path, in torch or here.
    kpm = padding([L, 3, 1], L)[:, ::-1].copy()
    with torch.no_grad():
        t_out = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    with seqlab.no_grad():
        s_out = sm(seqlab.tensor(x), src_key_padding_mask=seqlab.tensor(kpm))
    close(s_out, t_out, np.float32, "not left-aligned")


def test_state_dicts_load_both_ways(rng):
    kw = dict(d_model=E, nhead=H, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16, dropout=0.0,
              batch_first=True)
    tm, sm = build("Transformer", np.float32, **kw)
    sd = sm.state_dict()
    assert list(sd) == list(tm.state_dict())
    seqlab.manual_seed(3)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", NESTED_WARNING)
        fresh_t = torch.nn.Transformer(**kw)
    fresh_t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in sd.items()})
    src, tgt = rng.standard_normal((N, S, E)).astype(np.float32), rng.standard_normal((N, L, E)).astype(np.float32)
    close(sm(seqlab.tensor(src), seqlab.tensor(tgt)), fresh_t(torch.tensor(src), torch.tensor(tgt)), np.float32,
          "seqlab -> torch")
    # MultiheadAttention with separate projections and bias_k / bias_v.
    tm, sm = build("MultiheadAttention", np.float32, embed_dim=E, num_heads=H, kdim=3, vdim=5, add_bias_kv=True)
    assert list(sm.state_dict()) == list(tm.state_dict()) == [
        "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
        "out_proj.bias"]
    tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in sm.state_dict().items()})


def test_a_subclass_of_transformer_may_replace_the_decoder(rng):
    # Built as PyTorch's word_language_model example builds its TransformerModel.
    def subclass(base, linear):
        class Model(base):
            def __init__(self):
                super().__init__(d_model=E, nhead=H, dim_feedforward=16, num_encoder_layers=2, dropout=0.0)
                self.decoder = linear(E, 5)

            def forward(self, src):
                return self.decoder(self.encoder(src, mask=self.generate_square_subsequent_mask(len(src))))
        return Model

    with pytest.warns(UserWarning, match=NESTED_WARNING):
        tm = subclass(torch.nn.Transformer, torch.nn.Linear)()
    with pytest.warns(UserWarning, match=NESTED_WARNING):
        sm = subclass(nn.Transformer, nn.Linear)()
    assert list(sm.state_dict()) == list(tm.state_dict())
    sm.load_state_dict(tm.state_dict())
    x = rng.standard_normal((L, N, E)).astype(np.float32)
    close(sm(seqlab.tensor(x)), tm(torch.tensor(x)), np.float32, "output")


def test_reprs_and_attributes_are_torchs():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", NESTED_WARNING)
        for name, kw in [("MultiheadAttention", dict(embed_dim=E, num_heads=H, kdim=3)),
                         ("TransformerDecoderLayer", dict(d_model=E, nhead=H, dim_feedforward=16,
                                                          activation=ACTIVATIONS["module"])),
                         ("Transformer", dict(d_model=E, nhead=H, num_encoder_layers=2, num_decoder_layers=1,
                                              dim_feedforward=16, norm_first=True, bias=False))]:
            t, s = build(name, np.float32, **kw)
            assert repr(s) == repr(t)
    t, s = build("TransformerEncoderLayer", np.float32, d_model=E, nhead=H, activation="gelu")
    assert s.activation is F.gelu and s.activation_relu_or_gelu == t.activation_relu_or_gelu == 2
    t, s = build("MultiheadAttention", np.float32, embed_dim=E, num_heads=H)
    for attr in ("embed_dim", "kdim", "vdim", "_qkv_same_embed_dim", "num_heads", "dropout", "batch_first",
                 "head_dim", "bias_k", "bias_v", "add_zero_attn"):
        assert getattr(s, attr) == getattr(t, attr), attr


# ------------------------------------------------------------------ warnings and bad input
def test_mismatched_mask_dtypes_warn_as_torch(rng):
    tm, sm = build("MultiheadAttention", np.float32, embed_dim=E, num_heads=H)
    x = rng.standard_normal((L, N, E)).astype(np.float32)
    kpm = padding([L, 2, 3], L)
    mask = causal_float(L, np.float32)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        t_out, _ = tm(*[torch.tensor(x)] * 3, key_padding_mask=torch.tensor(kpm), attn_mask=torch.tensor(mask))
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        s_out, _ = sm(*[seqlab.tensor(x)] * 3, key_padding_mask=seqlab.tensor(kpm), attn_mask=seqlab.tensor(mask))
    close(s_out, t_out, np.float32, "output")


def mha_pair():
    return build("MultiheadAttention", np.float32, embed_dim=E, num_heads=H)


def call_both(kind, *shapes, dtype=np.float32, **masks):
    """Calls that must fail: torch's and seqlab's, on zeros of the given shapes."""
    tm, sm = mha_pair() if kind == "mha" else build(kind, np.float32, d_model=E, nhead=H, dim_feedforward=16,
                                                   batch_first=True)
    t_args = [torch.zeros(s, dtype=TH[dtype]) for s in shapes]
    s_args = [seqlab.zeros(*s, dtype=SL[dtype]) for s in shapes]
    t_kw = {k: torch.tensor(v) for k, v in masks.items()}
    s_kw = {k: seqlab.tensor(v) for k, v in masks.items()}
    return (lambda: sm(*s_args, **s_kw)), (lambda: tm(*t_args, **t_kw))


@pytest.mark.parametrize("case", [
    ("attn_mask-2d", ((L, N, E),) * 3, dict(attn_mask=np.zeros((L, L + 1), bool)), RuntimeError,
     r"MultiheadAttention: The shape of the 2D attn_mask is \[5, 6\], but should be \(5, 5\)"),
    ("attn_mask-3d", ((L, N, E),) * 3, dict(attn_mask=np.zeros((N, L, L), bool)), RuntimeError,
     r"MultiheadAttention: The shape of the 3D attn_mask is \[3, 5, 5\], but should be \(6, 5, 5\)"),
    ("attn_mask-4d", ((L, N, E),) * 3, dict(attn_mask=np.zeros((1, N, L, L), bool)), AssertionError,
     r"MultiheadAttention: For batched \(3-D\) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found 4-D"),
    ("padding-shape", ((L, N, E),) * 3, dict(key_padding_mask=np.zeros((N, L - 1), bool)), AssertionError,
     r"MultiheadAttention: Expected key_padded_mask.shape\[1\] to be 5, but got 4"),
    ("padding-batch", ((L, N, E),) * 3, dict(key_padding_mask=np.zeros((N + 1, L), bool)), AssertionError,
     r"MultiheadAttention: Expected key_padded_mask.shape\[0\] to be 3, but got 4"),
    ("mask-dtype", ((L, N, E),) * 3, dict(attn_mask=np.zeros((L, L), np.int64)), AssertionError,
     "only bool and floating types of attn_mask are supported"),
    ("padding-dtype", ((L, N, E),) * 3, dict(key_padding_mask=np.zeros((N, L), np.int64)), AssertionError,
     "only bool and floating types of key_padding_mask are supported"),
    ("key-value-length", ((L, N, E), (S, N, E), (S + 1, N, E)), {}, AssertionError,
     r"MultiheadAttention: key shape \[4, 3, 8\] does not match value shape \[5, 3, 8\]"),
    ("query-rank", ((1, L, N, E), (L, N, E), (L, N, E)), {}, AssertionError,
     "MultiheadAttention: query should be unbatched 2D or batched 3D tensor but received 4-D query tensor"),
    ("key-rank", ((L, N, E), (L, E), (L, E)), {}, AssertionError,
     r"MultiheadAttention: For batched \(3-D\) `query`, expected `key` and `value` to be 3-D but found 2-D and 2-D"),
    ("unbatched-padding-rank", ((L, E),) * 3, dict(key_padding_mask=np.zeros((1, L), bool)), AssertionError,
     r"MultiheadAttention: For unbatched \(2-D\) `query`, expected `key_padding_mask` to be `None` or 1-D"),
    ("unbatched-3d-mask", ((L, E),) * 3, dict(attn_mask=np.zeros((H + 1, L, L), bool)), AssertionError,
     r"MultiheadAttention: Expected `attn_mask` shape to be \(2, 5, 5\) but got \[3, 5, 5\]"),
    ("embed-dim", ((L, N, E + 2),) * 3, {}, AssertionError,
     "MultiheadAttention: was expecting embedding dimension of 8, but got 10"),
], ids=lambda c: c[0])
def test_multihead_attention_bad_input_raises_torchs_errors(case):
    _, shapes, masks, exc, message = case
    ours, theirs = call_both("mha", *shapes, **masks)
    err = assert_raises_like_torch(ours, theirs, message)
    assert isinstance(err, exc)


def test_bad_arguments_raise_torchs_errors():
    assert_raises_like_torch(lambda: nn.MultiheadAttention(10, 3), lambda: torch.nn.MultiheadAttention(10, 3),
                             "embed_dim must be divisible by num_heads", "MultiheadAttention")
    assert_raises_like_torch(lambda: nn.MultiheadAttention(0, 2), lambda: torch.nn.MultiheadAttention(0, 2),
                             "embed_dim and num_heads must be greater than 0, got embed_dim=0 and num_heads=2")
    assert_raises_like_torch(lambda: nn.TransformerEncoderLayer(E, H, activation="tanh"),
                             lambda: torch.nn.TransformerEncoderLayer(E, H, activation="tanh"),
                             "activation should be relu/gelu, not tanh")
    # is_causal is a hint about attn_mask: without a mask it is an error.
    tm, sm = mha_pair()
    x_t, x_s = torch.zeros(L, N, E), seqlab.zeros(L, N, E)
    assert_raises_like_torch(lambda: sm(x_s, x_s, x_s, is_causal=True), lambda: tm(x_t, x_t, x_t, is_causal=True),
                             "MultiheadAttention: Need attn_mask if specifying the is_causal hint")
    # A float mask of another dtype than the query's, float32 excepted (as torch's attention).
    with pytest.raises(RuntimeError, match="MultiheadAttention: expected attn_mask to be bool, float32 or of the "
                                           "query's dtype"):
        sm(x_s, x_s, x_s, attn_mask=seqlab.zeros(L, L, dtype=seqlab.float64))


def test_transformer_bad_input_raises_torchs_errors():
    kw = dict(d_model=E, nhead=H, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, batch_first=True)
    tm, sm = build("Transformer", np.float32, **kw)
    for src, tgt, message in [((N, S, E), (N + 1, L, E), r"the batch number of src and tgt must be equal \(Transformer"),
                              ((N, S, E), (N, L, E + 1), "the feature number of src and tgt must be equal to d_model "
                                                         r"\(Transformer: d_model=8")]:
        assert_raises_like_torch(lambda: sm(seqlab.zeros(*src), seqlab.zeros(*tgt)),
                                 lambda: tm(torch.zeros(src), torch.zeros(tgt)), message)
    ours, theirs = call_both("TransformerEncoderLayer", (N, L, E), src_mask=np.zeros((L, L + 1), bool))
    assert_raises_like_torch(ours, theirs, "MultiheadAttention: The shape of the 2D attn_mask")
    ours, theirs = call_both("TransformerDecoderLayer", (N, L, E), (N, S, E),
                             memory_key_padding_mask=np.zeros((N, S + 1), bool))
    assert_raises_like_torch(ours, theirs, r"Expected key_padded_mask.shape\[1\] to be 4, but got 5")
    # A callable activation that returns something else than a tensor.
    layer = nn.TransformerEncoderLayer(E, H, dim_feedforward=16, activation=lambda x: 0)
    with pytest.raises(TypeError, match="TransformerEncoderLayer: the activation returned int, not a Tensor"):
        layer(seqlab.zeros(L, N, E))
    # An exception inside the activation reaches the caller as itself.
    def boom(x):
        raise KeyError("inside the activation")
    layer = nn.TransformerEncoderLayer(E, H, dim_feedforward=16, activation=boom)
    with pytest.raises(KeyError, match="inside the activation"):
        layer(seqlab.zeros(L, N, E))


def test_float32_causal_mask_in_a_float64_encoder_as_torch():
    """PyTorch's word-LM script builds its float32 mask and moves the model to float64: torch's
    attention accepts a float32 mask whatever the query's float dtype."""
    torch.manual_seed(0)
    th = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                     enable_nested_tensor=False).double()
    sl = seqlab.nn.TransformerEncoder(seqlab.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                      enable_nested_tensor=False).double()
    sl.load_state_dict({k: seqlab.tensor(v.numpy()) for k, v in th.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 3, 8))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    assert mask.dtype == torch.float32
    out_t = th(torch.tensor(x), mask=mask)
    out_s = sl(seqlab.tensor(x), mask=seqlab.nn.Transformer.generate_square_subsequent_mask(5))
    np.testing.assert_allclose(out_s.detach().numpy(), out_t.detach().numpy(), atol=1e-10, rtol=1e-10)


def test_merge_masks_as_torch():
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    sm = nn.MultiheadAttention(8, 2, batch_first=True)
    rng = np.random.default_rng(0)
    q = rng.standard_normal((3, 5, 8)).astype(np.float32)
    am = rng.standard_normal((5, 5)).astype(np.float32)
    am3 = rng.standard_normal((6, 5, 5)).astype(np.float32)
    kpm = rng.standard_normal((3, 5)).astype(np.float32)
    for a, k in [(None, None), (None, kpm), (am, None), (am, kpm), (am3, kpm)]:
        conv = [(lib.tensor(a) if a is not None else None, lib.tensor(k) if k is not None else None)
                for lib in (seqlab, torch)]
        s_mask, s_type = sm.merge_masks(*conv[0], seqlab.tensor(q))
        t_mask, t_type = tm.merge_masks(*conv[1], torch.tensor(q))
        assert s_type == t_type
        assert (s_mask is None) == (t_mask is None)
        if t_mask is not None:
            np.testing.assert_array_equal(s_mask.numpy(), t_mask.numpy())


def test_constructor_argument_types_are_named():
    with pytest.raises(TypeError, match="MultiheadAttention\\(\\): argument 'embed_dim'.* must be int, not float"):
        nn.MultiheadAttention(8.0, 2)
    with pytest.raises(TypeError, match="MultiheadAttention\\(\\): argument 'num_heads'.* must be int, not str"):
        nn.MultiheadAttention(8, "2")
