"""seqlab.to_torch / seqlab.from_torch (python/seqlab/torch_modules/): the torch module computes
what the seqlab module computes, with the same parameters, and comes back unchanged.

Every layer case of tests/test_nn_twins.py that torch.nn has, the losses and the containers
become torch's own classes; seqlab's own options (positional schemes in the attention, grouped-
query attention, head_dim, RMSNorm, the GLU feed-forward) and nn.TransformerLM become the torch
twins of seqlab.torch_modules. For each: outputs equal in float64 (1e-10) and float32 (1e-5),
the gradients of every parameter equal, from_torch(to_torch(m)) holds m's state dict and computes
m's function. The walk over seqlab.nn.__all__ finds each module converted by a test (here or in
test_to_torch_seq2seq.py / test_to_torch_encoder_decoder.py / test_losses_distances.py); what has
no counterpart is a clear error naming it."""
import warnings

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from seqlab.nn import positional as P
from test_nn_twins import NOT_IN_TORCH, SEQLAB_OPTIONS, TWINS, build_python, inputs, layer_dtype, resolve

TOL = {seqlab.float64: 1e-10, seqlab.float32: 1e-5}


def to_torch_inputs(xs):
    return [None if x is None else torch.from_dlpack(x.detach()).clone() for x in xs]


def flat(out):
    """The tensors of an output (a tensor, or nested tuples with Nones)."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat(o)]
    return [] if out is None else [out]


def assert_same_function(m, tm, xs, what, tol):
    """m (seqlab) and tm (torch) give the same outputs on xs and, for a loss g·out, the same
    gradients of every parameter (torch's parameter order, names checked equal)."""
    txs = to_torch_inputs(xs)
    for x, tx in zip(xs, txs):  # (an in-place layer writes into its input: no gradient of a leaf then)
        if x is not None and x.is_floating_point() and not getattr(m, "inplace", False):
            x.requires_grad_(True)
            tx.requires_grad_(True)
    outs, touts = flat(m(*xs)), flat(tm(*txs))
    assert len(outs) == len(touts), what
    for a, b in zip(outs, touts):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol, err_msg=what)
    rng = np.random.default_rng(0)
    gs = [rng.standard_normal(tuple(a.shape)) for a in outs if a.is_floating_point()]
    floats = [a for a in outs if a.is_floating_point()]
    if not floats or not any(p.requires_grad for p in m.parameters()) and not any(
            x is not None and x.requires_grad for x in xs):
        return
    sum((a * seqlab.tensor(g, dtype=a.dtype)).sum() for a, g in zip(floats, gs)).backward()
    sum((b * torch.tensor(g, dtype=b.dtype)).sum() for b, g in zip([b for b in touts if b.is_floating_point()],
                                                                   gs)).backward()
    ours, theirs = dict(m.named_parameters()), dict(tm.named_parameters())
    assert sorted(ours) == sorted(theirs), what
    for name, p in ours.items():
        if p.grad is not None or theirs[name].grad is not None:
            np.testing.assert_allclose(p.grad.numpy(), theirs[name].grad.numpy(), rtol=tol * 100, atol=tol * 100,
                                       err_msg=f"{what}: gradient of {name}")
    for x, tx in zip(xs, txs):
        if x is not None and x.requires_grad:
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=tol * 100, atol=tol * 100,
                                       err_msg=f"{what}: gradient of an input")


def assert_round_trip(m, what):
    """from_torch(to_torch(m)) is m again: its type, its state, its repr (the options without state:
    scale, a scheme's arguments, norm_first, dropout, ...)."""
    back = seqlab.from_torch(seqlab.to_torch(m))
    assert type(back) is type(m), what
    assert repr(back) == repr(m), what
    ours, theirs = m.state_dict(), back.state_dict()
    assert list(ours) == list(theirs), what
    for k in ours:
        if ours[k] is not None:
            assert seqlab.equal(ours[k], theirs[k]), f"{what}: {k}"
    return back


# the cases torch's own class can take (a case with seqlab's options becomes a torch twin: tested below)
TORCH_CASES = [c for c in TWINS if c[0] not in NOT_IN_TORCH and not SEQLAB_OPTIONS & set(c[1])]


def case_id(case):
    name, kwargs, _ = case
    return name + "(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")"


@pytest.mark.parametrize("case", TORCH_CASES, ids=case_id)
def test_a_layer_torch_has_becomes_torchs_class_computing_the_same(case):
    name, kwargs, shapes = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's nested-tensor note, as in test_nn_twins
        seqlab.manual_seed(0)
        m = getattr(nn, name)(**resolve(kwargs, build_python)).eval()
        tm = seqlab.to_torch(m)
    assert type(tm) is getattr(torch.nn, name) and not tm.training
    assert repr(tm) == repr(m)
    dtype = layer_dtype(kwargs)
    assert_same_function(m, tm, inputs(shapes, dtype), case_id(case), TOL[dtype])
    assert_round_trip(m, case_id(case))


LOSSES = [
    (nn.CrossEntropyLoss(weight=seqlab.rand(5) + 0.5, label_smoothing=0.1, ignore_index=2), "logits"),
    (nn.NLLLoss(reduction="sum"), "log_probs"),
    (nn.MSELoss(reduction="none"), "pair"),
    (nn.BCEWithLogitsLoss(pos_weight=seqlab.rand(5) + 0.5), "binary"),
    (nn.KLDivLoss(reduction="batchmean", log_target=True), "log_pair"),
]


@pytest.mark.parametrize("loss,kind", LOSSES, ids=[type(m).__name__ for m, _ in LOSSES])
def test_a_loss_becomes_torchs_with_its_options(loss, kind):
    tl = seqlab.to_torch(loss)
    assert type(tl) is getattr(torch.nn, type(loss).__name__) and repr(tl) == repr(loss)
    seqlab.manual_seed(1)
    x = seqlab.randn(4, 5, dtype=seqlab.float64)
    y = {"logits": seqlab.tensor([0, 2, 4, 1]), "log_probs": seqlab.tensor([0, 2, 4, 1]),
         "pair": seqlab.randn(4, 5, dtype=seqlab.float64), "binary": (seqlab.rand(4, 5) > 0.5).double(),
         "log_pair": F.log_softmax(seqlab.randn(4, 5, dtype=seqlab.float64), -1)}[kind]
    if kind in ("log_probs", "log_pair"):
        x = F.log_softmax(x, -1)
    loss.double()
    assert_same_function(loss, seqlab.to_torch(loss), [x, y], type(loss).__name__, 1e-10)
    back = seqlab.from_torch(tl)
    assert type(back) is type(loss) and repr(back) == repr(loss)


def test_containers_convert_their_children():
    seqlab.manual_seed(2)
    seq = nn.Sequential(nn.Linear(4, 8), nn.GELU(approximate="tanh"), nn.Dropout(0.1), nn.Linear(8, 3)).double().eval()
    ts = seqlab.to_torch(seq)
    assert type(ts) is torch.nn.Sequential and [type(c).__name__ for c in ts] == ["Linear", "GELU", "Dropout", "Linear"]
    assert_same_function(seq, ts, [seqlab.randn(5, 4, dtype=seqlab.float64)], "Sequential", 1e-10)
    assert_round_trip(seq, "Sequential")
    lst = nn.ModuleList([nn.Linear(2, 2), nn.LSTM(2, 3)])
    assert type(seqlab.to_torch(lst)[1]) is torch.nn.LSTM
    assert_round_trip(lst, "ModuleList")
    d = nn.ModuleDict({"emb": nn.Embedding(7, 3), "norm": nn.LayerNorm(3)})
    assert sorted(seqlab.to_torch(d).keys()) == ["emb", "norm"]
    assert_round_trip(d, "ModuleDict")


# ---------------------------------------------------------------------------- seqlab's own layers

E, H = 24, 4
SCHEMES = {
    "nope": lambda dt: None,
    "alibi": lambda dt: P.ALiBi(H),
    "rope-interleaved": lambda dt: P.RoPE(E // H),
    "rope-halves": lambda dt: P.RoPE(E // H, base=500.0, interleaved=False),
    "t5": lambda dt: P.T5RelativeBias(H, num_buckets=8, max_distance=20, bidirectional=False, dtype=dt),
}
ABSOLUTE = {
    "table": lambda dt: nn.Embedding(32, E, dtype=dt),
    "sinusoidal": lambda dt: P.SinusoidalPositionalEncoding(E),
    "learned": lambda dt: P.LearnedPositionalEmbedding(32, E, dtype=dt),
}
LMS = [(s, None, {}) for s in SCHEMES] + [("nope", a, {}) for a in ABSOLUTE] + [
    ("rope-halves", None, dict(rms_norm=True, glu=True, activation=F.silu, num_key_value_heads=2, bias=False,
                               tie_weights=True)),
    ("alibi", None, dict(embedding_norm=True, head_dim=10, num_key_value_heads=1, activation="relu")),
    ("t5", None, dict(scale=1.0, rms_norm=True)),
]


def lm_id(case):
    scheme, absolute, options = case
    return "-".join([scheme] + ([absolute] if absolute else []) + [f"{k}" for k in options])


def make_lm(case, dtype):
    scheme, absolute, options = case
    seqlab.manual_seed(3)
    return nn.TransformerLM(50, E, H, 2, 40, dropout=0.1, pos=SCHEMES[scheme](dtype), dtype=dtype,
                            positional=ABSOLUTE[absolute](dtype) if absolute else None, **options).eval()


@pytest.mark.parametrize("dtype", [seqlab.float64, seqlab.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", LMS, ids=lm_id)
def test_a_transformer_lm_becomes_its_torch_twin_computing_the_same(case, dtype):
    """Logits with and without left padding, every gradient, and the round trip."""
    from seqlab.torch_modules import TransformerLM
    m = make_lm(case, dtype)
    tm = seqlab.to_torch(m)
    assert type(tm) is TransformerLM and not tm.training
    assert (tm.lm_head.weight is tm.tok_emb.weight) == (m.lm_head.weight is m.tok_emb.weight)
    assert_lm_twin_computes_the_same(m, tm, np.random.default_rng(4).integers(0, 50, (3, 11)), lm_id(case),
                                     TOL[dtype])


def assert_lm_twin_computes_the_same(m, tm, ids, what, tol):
    """A TransformerLM and its twin: the same logits and gradients, the same logits at the kept
    positions of a left-padded batch, and the round trip computing m's logits."""
    ids = seqlab.tensor(ids)
    mask = np.ones(tuple(ids.shape), dtype=np.int64)
    mask[1, :4] = mask[2, :1] = 0
    assert_same_function(m, tm, [ids], what, tol)
    with seqlab.no_grad(), torch.no_grad():
        ours = m(ids, attention_mask=seqlab.tensor(mask)).numpy()
        theirs = tm(torch.from_numpy(ids.numpy()), attention_mask=torch.from_numpy(mask)).numpy()
    keep = mask == 1
    np.testing.assert_allclose(ours[keep], theirs[keep], rtol=tol, atol=tol, err_msg=what + " padded")
    back = assert_round_trip(m, what)
    with seqlab.no_grad():
        np.testing.assert_array_equal(back.eval()(ids).numpy(), m(ids).numpy())


@pytest.mark.parametrize("case", [c for c in LMS if not c[2]] + [LMS[-3]], ids=lm_id)
def test_the_twin_generates_seqlabs_tokens_with_its_own_kv_cache(case):
    """generate() on the torch twin: greedy, beam and seeded sampling, from left-padded prompts,
    give seqlab's tokens; its KV cache gives the logits of the whole sequence step by step."""
    m = make_lm(case, seqlab.float64)
    tm = seqlab.to_torch(m)
    ids = np.random.default_rng(5).integers(1, 50, (2, 6))
    mask = np.ones_like(ids)
    mask[1, :3] = 0
    for kw in (dict(), dict(num_beams=3, length_penalty=0.7), dict(do_sample=True, top_k=10, seed=3)):
        for padded in (False, True):
            extra = dict(attention_mask=mask) if padded else {}
            want = m.generate(seqlab.tensor(ids), max_new_tokens=7, **kw,
                              **{k: seqlab.tensor(v) for k, v in extra.items()}).numpy()
            got = tm.generate(torch.from_numpy(ids), max_new_tokens=7, **kw,
                              **{k: torch.from_numpy(v) for k, v in extra.items()})
            assert isinstance(got, torch.Tensor)
            np.testing.assert_array_equal(got.numpy(), want, err_msg=f"{kw} padded={padded}")
    assert_cache_steps_give_the_whole(tm)


def assert_cache_steps_give_the_whole(tm):
    """The twin LM's KV cache, 4 tokens then one at a time, gives the whole sequence's logits;
    returns the ids and those logits."""
    with torch.no_grad():
        x = torch.from_numpy(np.random.default_rng(6).integers(0, 50, (2, 9)))
        whole = tm(x)
        cache = tm.new_cache()
        steps = [tm(x[:, :4], cache=cache)] + [tm(x[:, t:t + 1], cache=cache) for t in range(4, 9)]
    np.testing.assert_allclose(torch.cat(steps, 1).numpy(), whole.numpy(), rtol=1e-10, atol=1e-12)
    return x, whole


@pytest.mark.parametrize("mode,tie", [("LSTM", False), ("GRU", True), ("RNN_RELU", False), ("RNN_TANH", True)])
def test_an_rnn_lm_becomes_its_torch_twin_and_generates_the_same(mode, tie):
    """RNNLM: torch.nn's recurrent layer inside the twin; logits (left padding run packed, as
    seqlab's), every gradient, greedy and beam generate(), and the round trip."""
    from seqlab.torch_modules import RNNLM
    seqlab.manual_seed(8)
    m = nn.RNNLM(40, 16, 16, 2, mode=mode, dropout=0.1, tie_weights=tie, dtype=seqlab.float64).eval()
    tm = seqlab.to_torch(m)
    assert type(tm) is RNNLM and type(tm.rnn) is getattr(torch.nn, mode.split("_")[0])
    ids = np.random.default_rng(9).integers(1, 40, (3, 7))
    mask = np.ones_like(ids)
    mask[1, :2] = mask[2, :5] = 0
    assert_same_function(m, tm, [seqlab.tensor(ids)], mode, 1e-10)
    with seqlab.no_grad(), torch.no_grad():
        ours = m(seqlab.tensor(ids), attention_mask=seqlab.tensor(mask)).numpy()
        theirs = tm(torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    for kw in (dict(), dict(num_beams=3), dict(attention_mask=mask), dict(num_beams=2, attention_mask=mask)):
        sl_kw = {k: seqlab.tensor(v) if k == "attention_mask" else v for k, v in kw.items()}
        th_kw = {k: torch.from_numpy(v) if k == "attention_mask" else v for k, v in kw.items()}
        np.testing.assert_array_equal(tm.generate(torch.from_numpy(ids), max_new_tokens=6, **th_kw).numpy(),
                                      m.generate(seqlab.tensor(ids), max_new_tokens=6, **sl_kw).numpy(), err_msg=str(kw))
    back = assert_round_trip(m, mode)
    assert (back.decoder.weight is back.embedding.weight) == tie


def test_attention_and_layer_with_seqlabs_options_become_twins():
    from seqlab import torch_modules as TM
    seqlab.manual_seed(5)
    mha = nn.MultiheadAttention(E, H, batch_first=True, pos=P.ALiBi(H), num_key_value_heads=2, head_dim=8,
                                dtype=seqlab.float64).eval()
    tmha = seqlab.to_torch(mha)
    assert type(tmha) is TM.MultiheadAttention
    x = seqlab.randn(2, 7, E, dtype=seqlab.float64)
    pad = seqlab.tensor([[False] * 7, [False] * 5 + [True] * 2])
    for need_weights in (True, False):
        with seqlab.no_grad(), torch.no_grad():
            ours = mha(x, x, x, key_padding_mask=pad, need_weights=need_weights)
            theirs = tmha(torch.from_dlpack(x), torch.from_dlpack(x), torch.from_dlpack(x),
                          key_padding_mask=torch.from_dlpack(pad), need_weights=need_weights)
        for a, b in zip(flat(ours), flat(theirs)):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-10)
    assert_round_trip(mha, "MultiheadAttention with options")
    for norm_first in (False, True):
        layer = nn.TransformerEncoderLayer(E, H, 40, dropout=0.0, batch_first=True, norm_first=norm_first,
                                           pos=P.RoPE(E // H), rms_norm=True, glu=True, activation=F.silu,
                                           dtype=seqlab.float64).eval()
        tl = seqlab.to_torch(layer)
        assert type(tl) is TM.TransformerEncoderLayer
        assert_same_function(layer, tl, [seqlab.randn(2, 6, E, dtype=seqlab.float64)], f"layer {norm_first}", 1e-10)
        assert_round_trip(layer, "TransformerEncoderLayer with options")


def test_share_makes_the_torch_parameters_views_of_seqlabs():
    m = nn.Linear(3, 2)
    shared, copied = seqlab.to_torch(m, share=True), seqlab.to_torch(m)
    with seqlab.no_grad():
        m.weight.fill_(7.0)
    assert float(shared.weight.detach()[0, 0]) == 7.0 and float(copied.weight.detach()[0, 0]) != 7.0


def test_the_torch_twin_moves_dtype_like_any_torch_module():
    tm = seqlab.to_torch(make_lm(LMS[1], seqlab.float32))  # ALiBi
    ids = torch.randint(0, 50, (2, 9))
    want = tm.double()(ids)
    got = tm.to(torch.bfloat16)(ids)
    assert got.dtype == torch.bfloat16 and torch.allclose(got.double(), want, atol=0.1)


def test_what_has_no_torch_counterpart_is_a_clear_error():
    class MyScheme(P.ALiBi):  # a scheme of the user's own: its terms may differ from ALiBi's
        pass

    with pytest.raises(NotImplementedError, match=r"to_torch: TransformerLM.layers.0.self_attn.pos is a MyScheme, "
                                                  r"which has no torch twin"):
        seqlab.to_torch(nn.TransformerLM(30, E, H, 1, pos=MyScheme(H)))

    with pytest.raises(NotImplementedError, match=r"from_torch: Conv3d is a torch Conv3d, which seqlab has no class "
                                                  r"for"):
        seqlab.from_torch(torch.nn.Conv3d(1, 1, 1))
    # (a user's own module converts with its forward, or names what cannot: tests/test_to_torch_user_modules.py)


@pytest.mark.parametrize("lazy,shape", [(nn.LazyLinear(3), (2, 5)), (nn.LazyConv1d(4, 3), (2, 5, 7)),
                                        (nn.LazyConv2d(2, 3), (1, 5, 6, 6)), (nn.LazyBatchNorm1d(), (4, 5)),
                                        (nn.LazyBatchNorm2d(momentum=0.2), (4, 3, 2, 2)),
                                        (nn.LazyInstanceNorm1d(affine=True), (2, 3, 5)),
                                        (nn.LazyInstanceNorm2d(eps=1e-3), (2, 3, 4, 4)),
                                        (nn.LazyConvTranspose1d(4, 3, stride=2), (2, 5, 7)),
                                        (nn.LazyConvTranspose2d(2, 3, groups=2, bias=False), (1, 4, 5, 5))],
                         ids=lambda v: type(v).__name__ if isinstance(v, nn.Module) else str(v))
def test_a_lazy_module_becomes_torchs_lazy_one_and_both_take_their_shape_on_first_use(lazy, shape):
    tl = seqlab.to_torch(lazy)
    assert type(tl) is getattr(torch.nn, type(lazy).__name__)
    assert type(seqlab.from_torch(tl)) is type(lazy)
    x = torch.randn(*shape)
    tl(x)
    assert type(tl) is getattr(torch.nn, type(lazy).__name__[4:])  # torch's became its eager class
    back = seqlab.from_torch(tl.double())
    assert type(back) is getattr(nn, type(lazy).__name__[4:])
    assert_same_function(back, seqlab.to_torch(back), [seqlab.from_dlpack(x.double())], type(lazy).__name__, 1e-10)


def test_every_module_of_seqlab_nn_converts():
    covered = {name for name, _, _ in TORCH_CASES} | {type(m).__name__ for m, _ in LOSSES} | {
        "Sequential", "ModuleList", "ModuleDict", "TransformerLM", "RNNLM", "MaxPool1d", "MaxPool2d", "AvgPool1d",
        "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "LazyLinear", "LazyConv1d", "LazyConv2d",
        "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyConvTranspose1d",
        "LazyConvTranspose2d"}
    import test_losses_distances
    import test_to_torch_encoder_decoder
    import test_to_torch_seq2seq
    covered |= set(test_to_torch_seq2seq.CONVERTS) | set(test_to_torch_encoder_decoder.CONVERTS)
    covered |= set(test_losses_distances.CONVERTS)
    import test_nn_modules_extra
    covered |= set(test_nn_modules_extra.CONVERTS)
    import test_nn_modules_more
    covered |= set(test_nn_modules_more.CONVERTS)
    import test_linear_cross_entropy
    covered |= set(test_linear_cross_entropy.CONVERTS)
    missing = []
    for name in nn.__all__:
        obj = getattr(nn, name)
        if isinstance(obj, type) and issubclass(obj, nn.Module) and name not in ("Module", "RNNBase", "RNNCellBase"):
            if name not in covered:
                missing.append(name)
    assert not missing, f"modules of seqlab.nn that no test converts: {missing}"


@pytest.mark.parametrize("pool,shape", [(nn.MaxPool1d(3, stride=2, padding=1), (2, 3, 9)),
                                        (nn.MaxPool2d((2, 3), ceil_mode=True), (2, 3, 7, 8)),
                                        (nn.AvgPool1d(3, count_include_pad=False, padding=1), (2, 3, 9)),
                                        (nn.AvgPool2d(2, divisor_override=3), (1, 2, 6, 6)),
                                        (nn.AdaptiveAvgPool1d(4), (2, 3, 9)), (nn.AdaptiveAvgPool2d((2, 3)), (1, 2, 7, 8))],
                         ids=lambda v: type(v).__name__ if isinstance(v, nn.Module) else str(v))
def test_pooling_becomes_torchs(pool, shape):
    tp = seqlab.to_torch(pool)
    assert type(tp) is getattr(torch.nn, type(pool).__name__) and repr(tp) == repr(pool)
    assert_same_function(pool, tp, [seqlab.randn(*shape, dtype=seqlab.float64)], type(pool).__name__, 1e-12)
    assert type(seqlab.from_torch(tp)) is type(pool)


def test_each_submodules_mode_and_each_parameters_requires_grad_carry_over():
    seqlab.manual_seed(30)
    m = nn.Sequential(nn.Embedding(9, 4), nn.LSTM(4, 4, batch_first=True), nn.Dropout(0.5))
    m[0].eval()  # a frozen, evaluated embedding in a model that trains
    m[0].weight.requires_grad_(False)
    tm = seqlab.to_torch(m)
    back = seqlab.from_torch(tm)
    for side in (tm, back):
        assert [mod.training for _, mod in side.named_modules()] == [True, False, True, True]
        assert [p.requires_grad for p in side.parameters()] == [p.requires_grad for p in m.parameters()]
        assert not side[0].weight.requires_grad and side[1].weight_ih_l0.requires_grad


def test_the_twin_attentions_is_causal_counts_the_cached_positions():
    from seqlab import torch_modules as TM
    torch.manual_seed(31)
    mha = TM.MultiheadAttention(E, H, batch_first=True, pos=TM.positional.ALiBi(H)).double().eval()
    cache = TM.transformer.KVCache(1).layers[0]
    x = torch.randn(2, 7, E, dtype=torch.float64)
    with torch.no_grad():
        whole = mha(x, x, x, is_causal=True, need_weights=False)[0]
        head = mha(x[:, :4], x[:, :4], x[:, :4], is_causal=True, need_weights=False, cache=cache)[0]
        tail = mha(x[:, 4:], x[:, 4:], x[:, 4:], is_causal=True, need_weights=False, cache=cache)[0]
    np.testing.assert_allclose(torch.cat([head, tail], 1).numpy(), whole.numpy(), rtol=1e-12, atol=1e-12)


def test_the_scheme_twins_keep_seqlabs_limits_and_precision():
    from seqlab import torch_modules as TM
    table = seqlab.to_torch(P.LearnedPositionalEmbedding(8, E))
    with pytest.raises(IndexError, match=r"LearnedPositionalEmbedding: positions 6..9 reach past the table of max_len=8 positions \(0..7;"):
        table(torch.zeros(1, 4, E), offset=6)
    alibi = TM.TransformerLM(30, E, H, 1, pos=TM.positional.ALiBi(H)).half()
    assert alibi.layers[0].self_attn.pos.slopes.dtype == torch.float64  # the bias is exact before its one rounding


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_a_recurrent_layer_takes_packed_sequences_as_torchs(mode):
    """The converted layer on the same packed batch (torch's PackedSequence of the same data):
    the same padded outputs and final states, and the same gradients."""
    seqlab.manual_seed(32)
    m = getattr(nn, mode)(5, 6, num_layers=2, bidirectional=True, batch_first=True, dtype=seqlab.float64)
    tm = seqlab.to_torch(m)
    x = seqlab.randn(3, 7, 5, dtype=seqlab.float64)
    lengths = [7, 3, 5]
    ours = nn.utils.rnn.pack_padded_sequence(x, seqlab.tensor(lengths), batch_first=True, enforce_sorted=False)
    theirs = torch.nn.utils.rnn.pack_padded_sequence(torch.from_dlpack(x), torch.tensor(lengths), batch_first=True,
                                                     enforce_sorted=False)
    out, h = m(ours)
    tout, th = tm(theirs)
    padded = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)[0]
    tpadded = torch.nn.utils.rnn.pad_packed_sequence(tout, batch_first=True)[0]
    np.testing.assert_allclose(padded.detach().numpy(), tpadded.detach().numpy(), rtol=1e-10, atol=1e-12)
    for a, b in zip(flat(h), flat(th)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    (padded.sum() + sum(t.sum() for t in flat(h))).backward()
    (tpadded.sum() + sum(t.sum() for t in flat(th))).backward()
    for (name, p), tp in zip(m.named_parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-9, atol=1e-10, err_msg=name)
