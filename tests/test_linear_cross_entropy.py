"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions against torch 2.13
(python/seqlab/nn/functional.py, nn/modules/loss.py and linear_cross_entropy_options.py,
cpp/src/ops/linear_cross_entropy.cpp):
the reference path (class indices, ignore_index rows, class weights, label smoothing, probabilities,
K-dimensional out_features, unbatched input) and the chunked path (against torch's chunked and reference
paths: values, gradients of input, weight and bias, gradcheck, the backward-twice rule), the fallbacks
with torch's warning, the errors, the module (signature, repr, state dict), and that the chunked path
never makes the (N, C) logits (the kernel's chunk rows, and peak RSS in a fresh process)."""
import dataclasses
import inspect
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_close, assert_gradcheck, assert_raises_like_torch, sl_leaf, sl_np, th_leaf

# the modules this file converts to torch and back (tests/test_to_torch.py's walk over seqlab.nn)
CONVERTS = ["LinearCrossEntropyLoss"]
SF, TF = seqlab.nn.functional, torch.nn.functional
SO, TO = seqlab.nn.LinearCrossEntropyOptions, torch.nn.LinearCrossEntropyOptions
N, D, C = 11, 5, 7


def data(rng, dtype, n=N, d=D, c=C, out_features=(), probs=False, ignored=True):
    x = rng.standard_normal((n, d)).astype(dtype)
    w = (rng.standard_normal((c, *out_features, d)) / np.sqrt(d)).astype(dtype)
    b = rng.standard_normal((c, *out_features)).astype(dtype)
    cw = rng.uniform(0.5, 2.0, c).astype(dtype)
    if probs:
        t = rng.uniform(0.0, 1.0, (n, c, *out_features)).astype(dtype)
        t /= t.sum(axis=1, keepdims=True)
    else:
        t = rng.integers(0, c, (n, *out_features))
        if ignored:
            t.reshape(-1)[::4] = -100  # every fourth row is ignored
    return x, w, b, cw, t


def run(lib, x, w, t, b=None, cw=None, grad_out=None, **kw):
    """(loss, grads of x, w, b): a fresh leaf each, the loss's backward with grad_out (ones for 'none')."""
    leaf = sl_leaf if lib is seqlab else th_leaf
    F = SF if lib is seqlab else TF
    xs, ws = leaf(x, True), leaf(w, True)
    bs = leaf(b, True) if b is not None else None
    loss = F.linear_cross_entropy(xs, ws, lib.from_numpy(np.array(t)), linear_bias=bs,
                                  weight=lib.from_numpy(cw) if cw is not None else None, **kw)
    g = np.ones(tuple(loss.shape), dtype=x.dtype) if grad_out is None else grad_out
    loss.backward(lib.from_numpy(np.array(g, dtype=x.dtype)))
    np_ = sl_np if lib is seqlab else (lambda v: v.detach().numpy())
    return [np_(loss), np_(xs.grad), np_(ws.grad), np_(bs.grad) if bs is not None else None]


def assert_same(got, expected, tol, what=""):
    for name, a, e in zip(("loss", "d input", "d linear_weight", "d linear_bias"), got, expected):
        if e is None:
            assert a is None, name
        else:
            assert_close(a, e, tol, tol, f"{what} {name}")


TOL = {np.float32: 2e-5, np.float64: 1e-11}

# (keywords, data keywords): the reference path's cases
REFERENCE = [
    (dict(), dict()),
    (dict(reduction="sum"), dict()),
    (dict(reduction="none"), dict()),
    (dict(ignore_index=3), dict(ignored=False)),
    (dict(label_smoothing=0.1), dict()),
    (dict(label_smoothing=0.2, reduction="sum"), dict()),
    (dict(), dict(probs=True)),
    (dict(label_smoothing=0.1, reduction="none"), dict(probs=True)),
    (dict(), dict(out_features=(2, 3))),
    (dict(reduction="none", label_smoothing=0.1), dict(out_features=(3,))),
    (dict(), dict(out_features=(2,), probs=True)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("bias", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("class_weight", [False, True], ids=["", "cw"])
@pytest.mark.parametrize("kw, dkw", REFERENCE, ids=[f"{k}-{d}" for k, d in REFERENCE])
def test_reference_path_equals_torch(rng, kw, dkw, class_weight, bias, dtype):
    x, w, b, cw, t = data(rng, dtype, **dkw)
    args = dict(b=b if bias else None, cw=cw if class_weight else None, **kw)
    assert_same(run(seqlab, x, w, t, **args), run(torch, x, w, t, **args), TOL[dtype])


def test_reference_path_unbatched_and_defaults(rng):
    x, w, b, cw, t = data(rng, np.float64)
    for target in (np.array(3), np.array(-100)):  # ignore_index None is -100: the second loss is NaN (0/0)
        assert_same(run(seqlab, x[0], w, target, b=b), run(torch, x[0], w, target, b=b), 1e-12)
    probs = np.full(C, 1.0 / C)
    assert_same(run(seqlab, x[0], w, probs), run(torch, x[0], w, probs), 1e-12)
    sig = inspect.signature(SF.linear_cross_entropy)
    assert [(p.name, p.kind, p.default) for p in sig.parameters.values()] == [
        (p.name, p.kind, p.default) for p in inspect.signature(TF.linear_cross_entropy).parameters.values()]


# (options keywords, call keywords): the chunked path's cases
CHUNKED = [
    (dict(batch_chunk_size=1), dict()),
    (dict(batch_chunk_size=3), dict()),
    (dict(batch_chunk_size=3), dict(reduction="sum")),
    (dict(batch_chunk_size=4), dict(reduction="none")),
    (dict(batch_chunk_size=N), dict()),
    (dict(batch_chunk_size=100), dict(reduction="sum")),
    (dict(), dict()),  # auto: aspect_ratio:2
    (dict(chunking_method="aspect_ratio"), dict(reduction="none")),
    (dict(batch_chunk_size=2), dict(ignore_index=1)),
    (dict(batch_chunk_size=5, allow_retain_graph=True), dict()),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("bias", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("class_weight", [False, True], ids=["", "cw"])
@pytest.mark.parametrize("okw, kw", CHUNKED, ids=[f"{o}-{k}" for o, k in CHUNKED])
def test_chunked_path_equals_torch_chunked_and_reference(rng, okw, kw, class_weight, bias, dtype):
    x, w, b, cw, t = data(rng, dtype, ignored="ignore_index" not in kw)  # (-100 is a class index then: refused)
    args = dict(b=b if bias else None, cw=cw if class_weight else None, **kw)
    # 'none': a different upstream gradient per row, so the recomputed backward weights each row
    g = rng.standard_normal(N).astype(dtype) if kw.get("reduction") == "none" else None
    ours = run(seqlab, x, w, t, options=SO(**okw), grad_out=g, **args)
    assert_same(ours, run(torch, x, w, t, options=TO(**okw), grad_out=g, **args), TOL[dtype], "torch chunked")
    assert_same(ours, run(torch, x, w, t, grad_out=g, **args), TOL[dtype], "torch reference")


def test_chunked_path_unbatched_empty_and_all_ignored(rng):
    x, w, b, cw, t = data(rng, np.float64)
    for reduction in ("mean", "sum", "none"):
        o = dict(options=SO(batch_chunk_size=2), reduction=reduction)
        ot = dict(options=TO(batch_chunk_size=2), reduction=reduction)
        assert_same(run(seqlab, x[0], w, np.array(4), b=b, **o), run(torch, x[0], w, np.array(4), b=b, **ot), 1e-12)
        assert_same(run(seqlab, x[:0], w, t[:0], b=b, **o), run(torch, x[:0], w, t[:0], b=b, **ot), 1e-12)
        none = np.full(N, -100)  # 'mean' of no kept row: NaN, as torch
        assert_same(run(seqlab, x, w, none, b=b, cw=cw, **o), run(torch, x, w, none, b=b, cw=cw, **ot), 1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("bias", [False, True], ids=["nobias", "bias"])
def test_chunked_path_gradcheck(rng, reduction, bias):
    x, w, b, cw, t = data(rng, np.float64, n=7)
    target, weight = seqlab.from_numpy(t), seqlab.from_numpy(cw.astype(np.float64))
    opts = SO(batch_chunk_size=3)

    def f(x, w, *b):
        return SF.linear_cross_entropy(x, w, target, linear_bias=b[0] if b else None, weight=weight,
                                       reduction=reduction, options=opts)
    assert_gradcheck(f, [x, w, b] if bias else [x, w])


def test_chunked_backward_twice_as_torch(rng):
    """'mean'/'sum' make the gradients in the forward: a second backward raises unless
    allow_retain_graph; 'none' recomputes, so retain_graph works."""
    x, w, b, cw, t = data(rng, np.float64)
    for lib, O in ((seqlab, SO), (torch, TO)):
        F = SF if lib is seqlab else TF
        xs = (sl_leaf if lib is seqlab else th_leaf)(x, True)
        loss = F.linear_cross_entropy(xs, lib.from_numpy(w), lib.from_numpy(t), options=O(batch_chunk_size=3))
        loss.backward(retain_graph=True)
        with pytest.raises(RuntimeError, match=r"linear_cross_entropy chunked backward called twice; "
                                               r"retain_graph=True / double backward are not supported\."):
            loss.backward()
    results = []
    for lib, O in ((seqlab, SO), (torch, TO)):
        F = SF if lib is seqlab else TF
        xs = (sl_leaf if lib is seqlab else th_leaf)(x, True)
        for opts, red in ((O(batch_chunk_size=3, allow_retain_graph=True), "sum"), (O(batch_chunk_size=3), "none")):
            loss = F.linear_cross_entropy(xs, lib.from_numpy(w), lib.from_numpy(t), options=opts, reduction=red)
            loss.sum().backward(retain_graph=True)
            loss.sum().backward()
        results.append(xs.grad.detach().numpy().copy())
    assert_close(results[0], results[1], 1e-12, 1e-12, "twice")


# (keywords, data keywords): what the chunked path leaves to the reference path, with torch's warning
FALLBACKS = [
    (dict(label_smoothing=0.1), dict()),
    (dict(), dict(probs=True)),
    (dict(), dict(out_features=(2,))),
    (dict(reduction="sum"), dict(out_features=(2, 2))),
]


@pytest.mark.parametrize("kw, dkw", FALLBACKS, ids=[f"{k}-{d}" for k, d in FALLBACKS])
def test_unsupported_options_warn_and_take_the_reference_path(rng, kw, dkw):
    x, w, b, cw, t = data(rng, np.float64, **dkw)
    got = {}
    for lib, O in ((seqlab, SO), (torch, TO)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got[lib] = run(lib, x, w, t, b=b, options=O(batch_chunk_size=2), **kw)
        (message,) = [str(c.message) for c in caught]
        got[lib].append(message.replace("torch.", "").replace("seqlab.", ""))
    assert got[seqlab][4] == got[torch][4]
    assert "``options`` ignored; chunked path needs" in got[seqlab][4]
    assert_same(got[seqlab][:4], got[torch][:4], 1e-12)


def test_uint8_class_indices_take_the_reference_path(rng):
    x, w, b, cw, t = data(rng, np.float64)
    uint8 = rng.integers(0, C, N).astype(np.uint8)
    with pytest.warns(UserWarning, match=r"target\.dtype=seqlab\.uint8"):
        loss = SF.linear_cross_entropy(sl_leaf(x), seqlab.from_numpy(w), seqlab.from_numpy(uint8), options=SO())
    expected = TF.linear_cross_entropy(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(uint8))
    assert_close(sl_np(loss), expected.numpy(), 1e-12, 1e-12)


def both(rng, x_shape=(N, D), w_shape=(C, D), t=None, b_shape=None, w_dtype=None, **kw):
    """(seqlab call, torch call) of linear_cross_entropy on inputs of these shapes."""
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal(w_shape).astype(w_dtype or np.float64)
    b = rng.standard_normal(b_shape) if b_shape is not None else None
    t = rng.integers(0, C, N) if t is None else t
    calls = []
    for lib, F in ((seqlab, SF), (torch, TF)):
        kws = dict(kw)
        if "options" in kw:  # the options' fields, made into each library's options
            kws["options"] = (SO if lib is seqlab else TO)(**{k: getattr(lib, v) if k == "acc_dtype" else v
                                                              for k, v in kw["options"].items()})
        bias = lib.from_numpy(b) if b is not None else None
        calls.append(lambda F=F, lib=lib, kws=kws, bias=bias: F.linear_cross_entropy(
            lib.from_numpy(x), lib.from_numpy(w), lib.from_numpy(np.array(t)), linear_bias=bias, **kws))
    return calls


@pytest.mark.parametrize("kw, fragments", [
    (dict(x_shape=(2, N, D)), [r"expected input with dimensionality 1 or 2, got 3"]),
    (dict(w_shape=(D,)), [r"expected linear_weight with dimensionality at least 2, got 1"]),
    (dict(w_shape=(C, D + 1)), [r"expected equal input and linear_weight last dimensions \(in_features\), got 5 and "
                                r"6, respectively"]),
    (dict(b_shape=(C + 1,)), [r"expected linear_bias shape \(7,\), got \(8,\)"]),
    (dict(w_shape=(C, 2, D), b_shape=(C,)), [r"expected linear_bias shape \(7, 2\), got \(7,\)"]),
    (dict(x_shape=(D,), w_shape=(C, 2, D), t=np.zeros(2, np.int64)),
     [r"K-dimensional loss defined by linear_weight shape \(7, 2, 5\) requires batched input, \(N, 5\), got "
      r"unbatched input with shape \(5,\)"]),
    (dict(t=np.full((N, C), 1.0 / C), ignore_index=-100),
     ["ignore_index cannot be specified when target contains probabilities"]),
    (dict(reduction="bad"), ["bad is not a valid value for reduction"]),
    (dict(t=np.full(N, C)), ["Target 7 is out of bounds"]),
    (dict(w_dtype=np.float32), [r"same dtype|float"]),
    # the chunked path
    (dict(t=np.full(N, C), options=dict(batch_chunk_size=2)),
     [r"index 7 is out of bounds for dimension 1 with size 7"]),
    (dict(t=np.full(N, -1), options=dict(batch_chunk_size=2)),
     [r"index -1 is out of bounds for dimension 1 with size 7"]),
    (dict(w_dtype=np.float32, options=dict(batch_chunk_size=2)),
     [r"expected m1 and m2 to have the same dtype, but got: float64 != float32"]),
    (dict(options=dict(batch_chunk_size=3, chunking_method="aspect_ratio")),  # next_pow2(ceil(11 / ceil(7 / 5)))
     [r"batch_chunk_size \(=3\) and chunking_method \('aspect_ratio'\) give different chunk sizes \(3 vs 8\); pass "
      r"only one\."]),
    (dict(options=dict(acc_dtype="float32")),
     [r"linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got (seqlab|torch)\.float32 "
      r"acc_dtype and (seqlab|torch)\.float64 inputs\."]),
])
def test_errors_as_torch(rng, kw, fragments):
    ours, theirs = both(rng, **kw)
    assert_raises_like_torch(ours, theirs, *fragments)


@pytest.mark.parametrize("kw, fragment", [
    (dict(acc_policy="fast"), r"invalid acc_policy: 'fast'"),
    (dict(chunking_method="aspect"), r"invalid chunking_method: 'aspect'"),
    (dict(chunking_method="aspect_ratio:0"), r"invalid chunking_method: 'aspect_ratio:0'"),
    (dict(batch_chunk_size=0), r"batch_chunk_size must be positive int or None, got 0"),
    (dict(batch_chunk_size=2.0), r"batch_chunk_size must be positive int or None, got 2.0"),
    (dict(acc_dtype="int64"), r"acc_dtype must be one of"),
])
def test_options_checks_as_torch(kw, fragment):
    def make(lib, O):
        return O(**{k: getattr(lib, v) if k == "acc_dtype" else v for k, v in kw.items()})
    assert_raises_like_torch(lambda: make(seqlab, SO), lambda: make(torch, TO), fragment)


def test_options_fields_repr_and_resolution_as_torch():
    s, t = SO(), TO()
    assert repr(s) == repr(t) == ("LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=None, "
                                  "chunking_method='auto', acc_policy='auto', acc_dtype=None)")
    assert [f.name for f in dataclasses.fields(SO)] == [f.name for f in dataclasses.fields(TO)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.batch_chunk_size = 3
    assert repr(SO(acc_dtype=seqlab.float32)).endswith("acc_dtype=seqlab.float32)")
    # the chunk size each option resolves to, on an LM-head shape and a small one
    for n, d, c in [(4096, 256, 32000), (11, 5, 7), (1000, 64, 64), (3, 100, 10)]:
        for okw in [dict(), dict(chunking_method="aspect_ratio"), dict(chunking_method="aspect_ratio:4"),
                    dict(batch_chunk_size=100), dict(batch_chunk_size=100, chunking_method=None),
                    dict(chunking_method=None), dict(acc_policy="balanced")]:
            ours = SO(**okw)._adjust(n, d, c, seqlab.float32)
            theirs = TO(**okw)._adjust(n, d, c, torch.float32, torch.device("cpu"))
            assert (ours.batch_chunk_size, ours.chunking_method, ours.acc_policy) == (
                theirs.batch_chunk_size, theirs.chunking_method, theirs.acc_policy), (n, d, c, okw)
            assert str(ours.acc_dtype).split(".")[1] == str(theirs.acc_dtype).split(".")[1]


def test_the_kernel_uses_chunks_of_the_asked_size(rng):
    """The kernel's probe: the largest logits buffer it made holds batch_chunk_size rows, not N, in the
    forward and in the recomputing backward."""
    x, w, b, cw, t = data(rng, np.float32, n=64)
    seqlab._core._linear_cross_entropy_max_chunk_rows()  # reset
    for reduction, size in (("mean", 8), ("sum", 5), ("none", 16)):
        xs = sl_leaf(x, True)
        loss = SF.linear_cross_entropy(xs, sl_leaf(w, True), seqlab.from_numpy(t), reduction=reduction,
                                       options=SO(batch_chunk_size=size))
        assert seqlab._core._linear_cross_entropy_max_chunk_rows() == size
        loss.sum().backward()
        assert seqlab._core._linear_cross_entropy_max_chunk_rows() == (size if reduction == "none" else 0)
    # the default options on this shape (C/d ~ 1.4): aspect_ratio:2, next_pow2(ceil(64 / 2)) / 2 = 16 rows
    SF.linear_cross_entropy(sl_leaf(x), sl_leaf(w), seqlab.from_numpy(t), options=SO())
    assert seqlab._core._linear_cross_entropy_max_chunk_rows() == 16


PEAK = textwrap.dedent("""
    import sys
    import numpy as np
    import seqlab

    def status(key):  # kB
        return int(next(line for line in open("/proc/self/status") if line.startswith(key)).split()[1])
    n, d, c, chunk = 4096, 64, 8192, int(sys.argv[1])
    rng = np.random.default_rng(0)
    x = seqlab.from_numpy(rng.standard_normal((n, d), dtype=np.float32)).requires_grad_()
    w = seqlab.from_numpy(rng.standard_normal((c, d), dtype=np.float32) / 8).requires_grad_()
    t = seqlab.from_numpy(rng.integers(0, c, n))
    opts = seqlab.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk) if chunk else None
    small = seqlab.nn.functional.linear_cross_entropy(x[:8], w, t[:8], options=opts)  # warm up the pool
    small.backward()
    x.grad = w.grad = None
    # the peak from here: VmHWM reset to the resident size (ru_maxrss would keep the parent's across exec)
    open("/proc/self/clear_refs", "w").write("5")
    before = status("VmRSS")
    seqlab.nn.functional.linear_cross_entropy(x, w, t, options=opts).backward()
    print((status("VmHWM") - before) * 1024)
""")


def test_peak_memory_of_the_chunked_path_is_below_the_logits():
    """Peak RSS (VmHWM) of a fresh process around one forward and backward (N=4096, d=64, C=8192, float32, the
    logits 128 MiB): the reference path's rises past the logits' size (so the measure sees them), the
    chunked path's (256 rows: a 8 MiB buffer) stays below a quarter of it."""
    logits = 4096 * 8192 * 4

    def peak(chunk):
        out = subprocess.run([sys.executable, "-c", PEAK, str(chunk)], capture_output=True, text=True, check=True)
        return int(out.stdout.strip())
    assert peak(0) > logits
    assert peak(256) < logits / 4


def test_module_as_torch(rng):
    kw = dict(weight=rng.uniform(0.5, 2, C))
    s = seqlab.nn.LinearCrossEntropyLoss(D, C, bias=True, weight=seqlab.from_numpy(kw["weight"]), dtype=seqlab.float64)
    t = torch.nn.LinearCrossEntropyLoss(D, C, bias=True, weight=torch.from_numpy(kw["weight"]), dtype=torch.float64)
    assert [(p.name, p.kind, p.default) for p in inspect.signature(type(s)).parameters.values()] == [
        (p.name, p.kind, p.default) for p in inspect.signature(type(t)).parameters.values()]
    assert repr(s) == repr(t)
    assert ({k: tuple(v.shape) for k, v in s.state_dict().items()}
            == {k: tuple(v.shape) for k, v in t.state_dict().items()})
    assert list(s.state_dict()) == list(t.state_dict()) == ["weight", "linear.weight", "linear.bias"]
    assert [n for n, _ in s.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert isinstance(s.linear, seqlab.nn.Linear) and s.num_classes == C and s.out_features == ()
    s.load_state_dict({k: seqlab.from_numpy(v.detach().numpy().copy()) for k, v in t.state_dict().items()})
    x, target = rng.standard_normal((N, D)), rng.integers(0, C, N)
    for so, to in ((None, None), (SO(batch_chunk_size=4), TO(batch_chunk_size=4))):
        s.options, t.options = so, to
        assert repr(s) == repr(t)
        xs, xt = sl_leaf(x, True), th_leaf(x, True)
        ls, lt = s(xs, seqlab.from_numpy(target)), t(xt, torch.from_numpy(target))
        ls.backward()
        lt.backward()
        assert_close(sl_np(ls), lt.detach().numpy(), 1e-12, 1e-12)
        assert_close(sl_np(xs.grad), xt.grad.numpy(), 1e-12, 1e-12)
        for (name, a), (_, b) in zip(s.named_parameters(), t.named_parameters()):
            assert_close(sl_np(a.grad), b.grad.numpy(), 1e-12, 1e-12, name)
            a.grad, b.grad = None, None
    # K-dimensional, probabilities, smoothing: the module's flat head reshaped as torch's
    s = seqlab.nn.LinearCrossEntropyLoss(D, C, out_features=(2, 3), label_smoothing=0.1, reduction="sum",
                                         dtype=seqlab.float64)
    t = torch.nn.LinearCrossEntropyLoss(D, C, out_features=(2, 3), label_smoothing=0.1, reduction="sum",
                                        dtype=torch.float64)
    assert repr(s) == repr(t) and tuple(s.linear.weight.shape) == (C * 6, D)
    s.load_state_dict({k: seqlab.from_numpy(v.detach().numpy().copy()) for k, v in t.state_dict().items()})
    probs = rng.uniform(size=(N, C, 2, 3))
    probs /= probs.sum(axis=1, keepdims=True)
    for target in (rng.integers(0, C, (N, 2, 3)), probs):
        assert_close(sl_np(s(seqlab.from_numpy(x), seqlab.from_numpy(target))),
                     t(torch.from_numpy(x), torch.from_numpy(target)).detach().numpy(), 1e-12, 1e-12)


@pytest.mark.parametrize("kw, fragment", [
    (dict(weight=np.ones(C - 1)), r"expected weight shape to be \(7,\), got \(6,\)"),
    (dict(label_smoothing=1.5), r"expected label_smoothing to be in range \[0, 1\], got 1.5"),
    (dict(label_smoothing=-0.1), r"expected label_smoothing to be in range \[0, 1\], got -0.1"),
])
def test_module_errors_as_torch(kw, fragment):
    def make(lib):
        args = {k: lib.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        return lib.nn.LinearCrossEntropyLoss(D, C, **args)
    assert_raises_like_torch(lambda: make(seqlab), lambda: make(torch), fragment)


@pytest.mark.parametrize("kw", [dict(), dict(bias=True, ignore_index=2, reduction="sum"),
                                dict(bias=True, options="chunks"), dict(out_features=(2,), label_smoothing=0.1)],
                         ids=lambda kw: str(kw))
def test_module_converts_to_torch_and_back(rng, kw):
    from test_to_torch import assert_same_function
    weight = rng.uniform(0.5, 2, C)

    def make(lib, O):
        args = dict(kw, weight=lib.from_numpy(weight))
        if kw.get("options"):
            args["options"] = O(batch_chunk_size=3, acc_dtype=lib.float64)
        return lib.nn.LinearCrossEntropyLoss(D, C, dtype=lib.float64, **args)
    m, tm = make(seqlab, SO), make(torch, TO)
    converted = seqlab.to_torch(m)
    assert type(converted) is type(tm) and repr(converted) == repr(tm)
    x = seqlab.from_numpy(rng.standard_normal((N, D)))
    target = seqlab.from_numpy(rng.integers(0, C, (N, *kw.get("out_features", ()))))
    assert_same_function(m, converted, [x, target], "LinearCrossEntropyLoss", 1e-10)
    back = seqlab.from_torch(tm)
    assert type(back) is type(m) and repr(back) == repr(m)
    assert {k: tuple(v.shape) for k, v in back.state_dict().items()} == {
        k: tuple(v.shape) for k, v in tm.state_dict().items()}
