"""seqlab.nn.functional.scaled_dot_product_attention: the fused kernel
(cpp/src/ops/attention_fused.cpp) against torch, against its composed oracle
(scaled_dot_product_attention_math: bmm, softmax, dropout, bmm with ordinary autograd) and by
finite differences; masks, causality, dropout regenerated in the backward, fully masked rows,
memory that does not grow as L·S, the weights for plots, and torch's errors."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn.functional as F
from conftest import assert_close, assert_gradcheck, assert_matches_torch, assert_raises_like_torch, tol

# Shapes that cross block edges (96 × 96 blocks; the micro-kernel's 6 rows and 16/32-wide panels):
# one row, ragged last blocks, L > S and L < S, head sizes that are not multiples of the SIMD width.
CASES = [
    # (batch dims, L, S, E, Ev)
    ((2, 3), 5, 7, 4, 4),
    ((1, 2), 97, 130, 16, 8),
    ((3,), 1, 200, 33, 17),
    ((2, 2), 150, 40, 64, 64),
    ((), 9, 11, 5, 3),
]


def qkv(rng, batch, L, S, E, Ev, dtype):
    return (rng.standard_normal(batch + (L, E)).astype(dtype), rng.standard_normal(batch + (S, E)).astype(dtype),
            rng.standard_normal(batch + (S, Ev)).astype(dtype))


def both(fn_kwargs_sl, fn_kwargs_th):
    return (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **fn_kwargs_sl),
            lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, **fn_kwargs_th))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"b{c[0]}L{c[1]}S{c[2]}E{c[3]}Ev{c[4]}")
@pytest.mark.parametrize("variant", ["plain", "causal", "bool", "float", "scale", "bool_causal"])
def test_matches_torch(rng, dtype, case, variant):
    batch, L, S, E, Ev = case
    q, k, v = qkv(rng, batch, L, S, E, Ev, dtype)
    kw_sl, kw_th = {}, {}
    if variant == "causal":
        kw_sl["is_causal"] = kw_th["is_causal"] = True
    if variant in ("bool", "bool_causal"):
        m = rng.random((L, S)) > 0.3
        m[min(2, L - 1)] = False  # one row sees nothing: zeros, as torch
        kw_sl["attn_mask"], kw_th["attn_mask"] = seqlab.tensor(m), torch.tensor(m)
    if variant == "bool_causal":  # both masks apply (torch's 4-D path; its math path refuses the pair)
        kw_sl["is_causal"] = True
        kw_th["attn_mask"] = torch.tensor(m & np.tril(np.ones((L, S), dtype=bool)))
    if variant == "float":
        m = rng.standard_normal(batch[-1:] + (1, S) if batch else (1, S)).astype(dtype)
        kw_sl["attn_mask"], kw_th["attn_mask"] = seqlab.tensor(m), torch.tensor(m)
    if variant == "scale":
        kw_sl["scale"] = kw_th["scale"] = 0.37
    assert_matches_torch(*both(kw_sl, kw_th), [q, k, v], *tol(dtype, 5.0))


@pytest.mark.parametrize("layout", ["T", "slice"])
def test_strided_inputs(rng, layout):
    q, k, v = qkv(rng, (2, 3), 20, 30, 8, 8, np.float64)
    assert_matches_torch(*both({}, {}), [q, k, v], layout=layout)


def test_batch_dims_broadcast_and_gqa(rng):
    q = rng.standard_normal((2, 6, 10, 8))
    k = rng.standard_normal((1, 6, 12, 8))
    v = rng.standard_normal((2, 1, 12, 8))
    assert_matches_torch(*both({}, {}), [q, k, v])
    k2, v2 = rng.standard_normal((2, 2, 12, 8)), rng.standard_normal((2, 2, 12, 5))
    assert_matches_torch(*both({"enable_gqa": True}, {"enable_gqa": True}), [q, k2, v2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bool_mask_of_every_rank_broadcasts(rng, dtype):
    q, k, v = qkv(rng, (2, 3), 10, 12, 4, 4, dtype)
    for shape in [(10, 12), (3, 1, 12), (2, 1, 10, 12), (2, 3, 10, 12)]:
        m = rng.random(shape) > 0.4
        kw_sl, kw_th = {"attn_mask": seqlab.tensor(m)}, {"attn_mask": torch.tensor(m)}
        assert_matches_torch(*both(kw_sl, kw_th), [q, k, v], *tol(dtype, 5.0))


@pytest.mark.parametrize("mask", [None, "bool", "float"])
@pytest.mark.parametrize("dropout_p", [0.0, 0.3])
@pytest.mark.parametrize("causal", [False, True])
def test_fused_equals_composed_oracle(rng, mask, dropout_p, causal):
    """The twin rule: the fused kernel and bmm-softmax-bmm agree, dropout included (same seed,
    same mask)."""
    q, k, v = qkv(rng, (2, 2), 100, 120, 12, 10, np.float64)
    m = None
    if mask == "bool":
        m = seqlab.tensor(rng.random((100, 120)) > 0.5)
    elif mask == "float":
        m = seqlab.tensor(rng.standard_normal((2, 1, 100, 120)))
    g = seqlab.tensor(rng.standard_normal((2, 2, 100, 10)))
    results = []
    for fn in (F.scaled_dot_product_attention, seqlab._core.scaled_dot_product_attention_math):
        leaves = [seqlab.tensor(x).requires_grad_() for x in (q, k, v)]
        seqlab.manual_seed(7)
        out = fn(*leaves, attn_mask=m, dropout_p=dropout_p, is_causal=causal)
        out.backward(g)
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in leaves])
    for what, a, b in zip(["out", "dq", "dk", "dv"], *results):
        assert_close(a, b, 1e-12, 1e-10, what)
    if dropout_p:
        assert np.abs(results[0][0]).max() > 0


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"mask": "bool"}, {"mask": "float"},
                                    {"dropout_p": 0.4}, {"dropout_p": 0.4, "is_causal": True}, {"enable_gqa": True}])
def test_gradcheck(rng, kwargs):
    kwargs = dict(kwargs)
    mask = kwargs.pop("mask", None)
    hk = 1 if kwargs.get("enable_gqa") else 2
    q = rng.standard_normal((2, 2, 7, 5))
    k = rng.standard_normal((2, hk, 9, 5))
    v = rng.standard_normal((2, hk, 9, 3))
    m = None
    if mask == "bool":
        m = rng.random((7, 9)) > 0.3
        m[:, 0] = True
        m = seqlab.tensor(m)
    elif mask == "float":
        m = seqlab.tensor(rng.standard_normal((7, 9)))

    def fn(q, k, v):
        seqlab.manual_seed(3)  # the same dropout mask at every evaluation
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, **kwargs)
    assert_gradcheck(fn, [q, k, v])


def test_float_mask_that_needs_a_gradient_takes_the_composed_path(rng):
    q, k, v = qkv(rng, (2,), 6, 8, 4, 4, np.float64)
    bias = rng.standard_normal((6, 8))
    assert_matches_torch(lambda q, k, v, b: F.scaled_dot_product_attention(q, k, v, attn_mask=b),
                         lambda q, k, v, b: TF.scaled_dot_product_attention(q, k, v, attn_mask=b), [q, k, v, bias])


def test_causal_attention_leaks_nothing_from_the_future(rng):
    """∂out_t/∂x_s is exactly zero for s > t: self-attention over x with is_causal."""
    L = 130
    x = seqlab.tensor(rng.standard_normal((1, 2, L, 8))).requires_grad_()
    wq, wk, wv = (seqlab.tensor(rng.standard_normal((8, 8))) for _ in range(3))
    out = F.scaled_dot_product_attention(x @ wq, x @ wk, x @ wv, is_causal=True)
    for t in (0, 50, 100, L - 2):
        x.grad = None
        out[:, :, t].sum().backward(retain_graph=True)
        g = x.grad.numpy()
        assert np.all(g[:, :, t + 1:] == 0.0), f"the output at {t} depends on later positions"
        assert np.abs(g[:, :, :t + 1]).max() > 0


def test_fully_masked_rows_give_zeros_and_zero_gradients_as_torch(rng):
    q, k, v = qkv(rng, (1, 2), 4, 6, 3, 3, np.float64)
    m = np.ones((4, 6), dtype=bool)
    m[1] = False
    fm = np.where(m, 0.0, -np.inf)
    for mask in (m, fm):
        out = assert_matches_torch(*both({"attn_mask": seqlab.tensor(mask)}, {"attn_mask": torch.tensor(mask)}),
                                   [q, k, v])
        assert np.all(out.detach().numpy()[:, :, 1] == 0)
        assert np.isfinite(out.detach().numpy()).all()


def test_empty_sequences(rng):
    for L, S in [(0, 5), (4, 0), (0, 0)]:
        q, k, v = qkv(rng, (2,), L, S, 3, 2, np.float32)
        assert_matches_torch(*both({}, {}), [q, k, v])


def test_dropout_is_seeded_and_unbiased(rng):
    q, k = (seqlab.tensor(rng.standard_normal((4, 50, 8)).astype(np.float32)) for _ in range(2))
    v = seqlab.ones(4, 50, 16)
    seqlab.manual_seed(1)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    seqlab.manual_seed(1)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    c = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    assert np.array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())
    # each output is Σ_j w_j z_j / (1 − p) with Σ_j w_j = 1: its mean over many rows is 1
    assert abs(a.numpy().mean() - 1.0) < 0.05
    assert np.array_equal(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).numpy(), np.zeros((4, 50, 16)))


def test_attention_weights_are_the_softmax_torch_computes(rng):
    q, k, _ = qkv(rng, (2, 3), 7, 9, 4, 4, np.float64)
    m = rng.random((7, 9)) > 0.3
    m[0] = False

    def th(q, k):
        s = q @ k.transpose(-2, -1) / 2.0
        s = s.masked_fill(~torch.tensor(m), float("-inf")).masked_fill(torch.ones(7, 9, dtype=torch.bool).triu(1),
                                                                         float("-inf"))
        return torch.nan_to_num(torch.softmax(s, -1), nan=0.0)
    w = assert_matches_torch(lambda q, k: F.attention_weights(q, k, attn_mask=seqlab.tensor(m), is_causal=True),
                             th, [q, k])
    sums = w.detach().numpy().sum(-1)
    live = (m & np.tril(np.ones((7, 9), dtype=bool))).any(-1)
    np.testing.assert_allclose(sums[..., live], 1.0)
    assert np.all(sums[..., ~live] == 0)


def test_output_modified_in_place_is_caught_in_backward(rng):
    q, k, v = (seqlab.tensor(x).requires_grad_() for x in qkv(rng, (2,), 3, 4, 2, 2, np.float64))
    out = F.scaled_dot_product_attention(q, k, v)
    out.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_memory_grows_with_length_not_with_length_squared():
    """L = S = 4,000: the score matrix would be 64 MB in float32; forward + backward must not
    raise the peak resident memory by a tenth of that (run in a child; the peak, VmHWM, is reset
    after the inputs exist). The composed oracle, which materialises it, is the control."""
    code = textwrap.dedent("""
        import sys, seqlab, seqlab.nn.functional as F
        def kb(field):
            return int(next(l for l in open("/proc/self/status") if l.startswith(field)).split()[1])
        fn = getattr(seqlab._core, sys.argv[1])
        q, k, v = (seqlab.randn(1, 1, 4000, 8).requires_grad_() for _ in range(3))
        open("/proc/self/clear_refs", "w").write("5")
        before = kb("VmRSS")
        fn(q, k, v, is_causal=True).sum().backward()
        print(kb("VmHWM") - before)
    """)
    grown = {fn: int(subprocess.run([sys.executable, "-c", code, fn], capture_output=True, text=True,
                                    check=True).stdout)
             for fn in ("scaled_dot_product_attention", "scaled_dot_product_attention_math")}
    assert grown["scaled_dot_product_attention_math"] > 64_000, grown
    assert grown["scaled_dot_product_attention"] < 6_400, grown


def test_errors_name_the_op_and_the_shapes():
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    sq, sk, sv = (seqlab.tensor(t.numpy()) for t in (q, k, v))
    sdpa, tsdpa = F.scaled_dot_product_attention, TF.scaled_dot_product_attention
    assert_raises_like_torch(lambda: sdpa(sq[0, 0], sk, sv), lambda: tsdpa(q[0, 0], k, v), "at least 2 dimensional")
    assert_raises_like_torch(lambda: sdpa(sq.double(), sk, sv), lambda: tsdpa(q.double(), k, v), "same dtype")
    assert_raises_like_torch(lambda: sdpa(sq, sk, sv, attn_mask=seqlab.ones(3, 5, dtype=seqlab.int64)),
                             lambda: tsdpa(q, k, v, attn_mask=torch.ones(3, 5, dtype=torch.int64)),
                             "attn_mask dtype to be bool or float")
    assert_raises_like_torch(lambda: sdpa(sq, sk, sv, dropout_p=1.5), lambda: tsdpa(q, k, v, dropout_p=1.5),
                             "between 0 and 1")
    assert_raises_like_torch(lambda: sdpa(sq, sk, sv, attn_mask=seqlab.ones(3, 4, dtype=seqlab.bool)),
                             lambda: tsdpa(q, k, v, attn_mask=torch.ones(3, 4, dtype=torch.bool)),
                             r"scaled_dot_product_attention: attn_mask of shape \[3, 4\]", r"\[2, 3, 5\]")
    assert_raises_like_torch(lambda: sdpa(sq, sk[..., :3], sv), lambda: tsdpa(q, k[..., :3], v),
                             r"scaled_dot_product_attention: query and key .* \[2, 3, 4\] .* \[2, 5, 3\]")
    # torch reads past the end of the shorter one here (its flash kernel returns a value); seqlab refuses
    with pytest.raises(RuntimeError, match=r"key and value must have the same sequence length.*\[2, 5, 4\].*\[2, 4, 6\]"):
        sdpa(sq, sk, sv[:, :4])
    assert_raises_like_torch(
        lambda: sdpa(seqlab.randn(1, 5, 3, 4), seqlab.randn(1, 2, 5, 4), seqlab.randn(1, 2, 5, 4), enable_gqa=True),
        lambda: tsdpa(torch.randn(1, 5, 3, 4), torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4), enable_gqa=True),
        "Number of heads in key and value must divide the number of heads in query")
    with pytest.raises(RuntimeError, match="floating point"):
        sdpa(seqlab.ones(2, 2, dtype=seqlab.int64), seqlab.ones(2, 2, dtype=seqlab.int64),
             seqlab.ones(2, 2, dtype=seqlab.int64))


def test_a_float32_mask_serves_a_float64_query_as_in_torch(rng):
    """torch accepts "bool or float or the query's dtype": the float32 causal mask of
    generate_square_subsequent_mask works in a model moved to float64; float64 into float32 does not."""
    q, k, v = qkv(rng, (2, 3), 6, 6, 4, 4, np.float64)
    m = np.triu(np.full((6, 6), -np.inf, dtype=np.float32), 1)
    assert_matches_torch(*both({"attn_mask": seqlab.tensor(m)}, {"attn_mask": torch.tensor(m)}), [q, k, v])
    q32, k32, v32 = (seqlab.tensor(x.astype(np.float32)) for x in (q, k, v))
    assert_raises_like_torch(
        lambda: F.scaled_dot_product_attention(q32, k32, v32, attn_mask=seqlab.tensor(m.astype(np.float64))),
        lambda: TF.scaled_dot_product_attention(*(torch.tensor(x.astype(np.float32)) for x in (q, k, v)),
                                                attn_mask=torch.tensor(m.astype(np.float64))),
        "attn_mask dtype to be bool or float")
