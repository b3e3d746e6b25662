"""torch's switches, flags and constants against torch 2.13: set_default_dtype and what reads it,
set_printoptions and the repr, promote_types / result_type / can_cast, autocast and GradScaler on the
CPU, anomaly detection, the deterministic / warn-always / matmul-precision / interop flags, compile,
typename, Size, layouts and memory formats, constants."""
import builtins
import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_raises_like_torch

DTYPES = [(seqlab.bool, torch.bool), (seqlab.uint8, torch.uint8), (seqlab.int8, torch.int8),
          (seqlab.int16, torch.int16), (seqlab.int32, torch.int32), (seqlab.int64, torch.int64),
          (seqlab.float32, torch.float32), (seqlab.float64, torch.float64)]
TO_TORCH = dict(DTYPES)


def name(d):
    return str(d).rsplit(".", 1)[-1]


@pytest.fixture
def default_float64():
    """seqlab and torch both with float64 as the default dtype for one test."""
    seqlab.set_default_dtype(seqlab.float64)
    torch.set_default_dtype(torch.float64)
    yield
    seqlab.set_default_dtype(seqlab.float32)
    torch.set_default_dtype(torch.float32)


# ------------------------------------------------------------------ constants, Size, layouts
def test_constants_are_torchs():
    assert (seqlab.e, seqlab.pi, seqlab.inf) == (torch.e, torch.pi, torch.inf)
    assert math.isnan(seqlab.nan) and seqlab.newaxis is None is torch.newaxis
    x = seqlab.arange(3)
    assert x[:, seqlab.newaxis].shape == (3, 1)


def test_size_is_a_tuple_with_numel_and_torchs_repr():
    s, t = seqlab.Size([2, 3]), torch.Size([2, 3])
    assert s == t == (2, 3) and s.numel() == t.numel() == 6 and seqlab.Size().numel() == 1
    assert repr(s) == repr(t).replace("torch", "seqlab")
    assert isinstance(s[1:], seqlab.Size) and isinstance(s + (4,), seqlab.Size) and s + (4,) == (2, 3, 4)
    assert seqlab.ones(2, 3).shape == s
    assert_raises_like_torch(lambda: seqlab.Size([2.5]), lambda: torch.Size([2.5]),
                             r"Size\(\) takes an iterable of 'int'")


def test_layouts_and_memory_formats():
    assert repr(seqlab.strided) == "seqlab.strided" and seqlab.ones(2).layout is seqlab.strided
    for fmt in ("contiguous_format", "preserve_format", "legacy_contiguous_format"):
        assert repr(getattr(seqlab, fmt)) == repr(getattr(torch, fmt)).replace("torch", "seqlab")
        assert isinstance(getattr(seqlab, fmt), seqlab.memory_format)


# ------------------------------------------------------------------ default dtype
def test_set_default_dtype_refuses_what_torch_refuses():
    assert_raises_like_torch(lambda: seqlab.set_default_dtype(seqlab.int64),
                             lambda: torch.set_default_dtype(torch.int64), "only floating-point types")
    assert_raises_like_torch(lambda: seqlab.set_default_dtype("float"),
                             lambda: torch.set_default_dtype("float"), "only floating-point types")
    assert seqlab.get_default_dtype() == seqlab.float32


def test_creation_functions_layers_and_repr_follow_the_default_dtype(default_float64):
    made = {
        "tensor": (lambda m: m.tensor([1.5, 2.0])), "zeros": (lambda m: m.zeros(2)), "ones": (lambda m: m.ones(2)),
        "empty": (lambda m: m.empty(2)), "rand": (lambda m: m.rand(2)), "randn": (lambda m: m.randn(2)),
        "full": (lambda m: m.full((2,), 1.5)), "arange": (lambda m: m.arange(0.5, 2)), "eye": (lambda m: m.eye(2)),
        "linspace": (lambda m: m.linspace(0, 1, 3)), "Linear": (lambda m: m.nn.Linear(2, 2).weight),
        "LSTM": (lambda m: m.nn.LSTM(2, 2).weight_ih_l0), "Embedding": (lambda m: m.nn.Embedding(3, 2).weight),
    }
    for what, make in made.items():
        assert name(make(seqlab).dtype) == name(make(torch).dtype) == "float64", what
    assert seqlab.get_default_dtype() == seqlab.float64
    for values in ([1.5, 2.0], [1.0]):
        assert repr(seqlab.tensor(values)) == repr(torch.tensor(values))
        assert repr(seqlab.tensor(values, dtype=seqlab.float32)) == \
            repr(torch.tensor(values, dtype=torch.float32)).replace("torch", "seqlab")
    assert repr(seqlab.zeros(0)) == repr(torch.zeros(0))
    assert seqlab.result_type(seqlab.tensor([1]), 1.0) == seqlab.float64


def test_ops_promote_integers_to_the_default_dtype(default_float64):
    """int_tensor / 2, int * 1.5, exp of ints, int ** 0.5, clamp of ints by a float bound, where of
    two numbers, mean-free unary ops and the in-place true division's refusal: torch promotes
    integers to its default dtype, and so does seqlab."""
    calls = [
        lambda L: L.tensor([1, 2]) / 2,
        lambda L: L.tensor([1, 2]) * 1.5,
        lambda L: L.tensor([1, 2]) + L.tensor(0.5),
        lambda L: L.sqrt(L.tensor([4, 9])),
        lambda L: L.exp(L.tensor([1, 2])),
        lambda L: L.log(L.tensor([1, 2])),
        lambda L: L.sigmoid(L.tensor([1, 2])),
        lambda L: L.tanh(L.tensor([1, 2])),
        lambda L: L.tensor([1, 2]) ** 0.5,
        lambda L: L.clamp(L.tensor([1, 5]), max=2.5),
        lambda L: L.where(L.tensor([True, False]), 1.0, 2.0),
        lambda L: L.lgamma(L.tensor([3, 4])),
        lambda L: L.atan2(L.tensor([1, 2]), L.tensor([2, 1])),
        lambda L: L.tensor([True, False]).float().exp(),
    ]
    for i, call in enumerate(calls):
        got, want = call(seqlab), call(torch)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (i, got.dtype, want.dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, err_msg=str(i))
    seqlab.set_default_dtype(seqlab.float32)
    assert (seqlab.tensor([1, 2]) / 2).dtype == seqlab.float32  # and back


def test_set_default_tensor_type_warns_and_sets_the_dtype():
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            seqlab.set_default_tensor_type(seqlab.DoubleTensor)
        assert seqlab.get_default_dtype() == seqlab.float64
        with pytest.warns(UserWarning):
            seqlab.set_default_tensor_type("torch.FloatTensor")
        assert seqlab.get_default_dtype() == seqlab.float32
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_raises_like_torch(lambda: seqlab.set_default_tensor_type(seqlab.LongTensor),
                                     lambda: torch.set_default_tensor_type(torch.LongTensor),
                                     "only floating-point types")
            assert_raises_like_torch(lambda: seqlab.set_default_tensor_type("torch.cuda.FloatTensor"),
                                     lambda: torch.set_default_tensor_type("torch.cuda.FloatTensor"),
                                     "not available. Torch not compiled with CUDA enabled")
    finally:
        seqlab.set_default_dtype(seqlab.float32)


def test_default_device_is_the_cpu():
    assert str(seqlab.get_default_device()) == str(torch.get_default_device()) == "cpu"
    seqlab.set_default_device("cpu")
    seqlab.set_default_device(None)
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        seqlab.set_default_device("cuda")


# ------------------------------------------------------------------ print options
REPR_CASES = [
    np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
    np.array([1e-6, 1.0, 12345.678], dtype=np.float32),
    np.array([1.0, 2.0, 300.0], dtype=np.float64),
    np.arange(2000, dtype=np.float32) / 3,
    np.arange(30, dtype=np.int64).reshape(5, 6),
    np.linspace(-1, 1, 40).reshape(8, 5),
]
OPTIONS = [dict(precision=2), dict(precision=7), dict(threshold=5), dict(edgeitems=1, threshold=10),
           dict(linewidth=40), dict(profile="short"), dict(profile="full"), dict(sci_mode=True),
           dict(sci_mode=False), dict(profile="default", precision=6)]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_set_printoptions_changes_the_repr_as_torchs(options):
    try:
        seqlab.set_printoptions(**options)
        torch.set_printoptions(**options)
        fields = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
        assert [getattr(seqlab._tensor_str.PRINT_OPTS, f) for f in fields] == \
            [getattr(torch._tensor_str.PRINT_OPTS, f) for f in fields]
        for values in REPR_CASES:
            assert repr(seqlab.tensor(values)) == repr(torch.tensor(values)).replace("torch.", "seqlab."), values
    finally:
        seqlab.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert repr(seqlab.tensor(REPR_CASES[0])) == repr(torch.tensor(REPR_CASES[0]))


# ------------------------------------------------------------------ promotion
@pytest.mark.parametrize("a", DTYPES, ids=lambda p: name(p[0]))
def test_promote_types_and_can_cast_follow_torchs_table(a):
    for b in DTYPES:
        assert name(seqlab.promote_types(a[0], b[0])) == name(torch.promote_types(a[1], b[1])), (a, b)
        assert seqlab.can_cast(a[0], b[0]) == torch.can_cast(a[1], b[1]), (a, b)


def test_result_type_follows_torchs_categories():
    operands = [
        (lambda m, d: m.ones(2, dtype=d)), (lambda m, d: m.tensor(1, dtype=d)),
    ]
    numbers = [True, 3, 2.5]
    for sd, td in DTYPES:
        for make in operands:
            for sd2, td2 in DTYPES:
                for make2 in operands:
                    got = seqlab.result_type(make(seqlab, sd), make2(seqlab, sd2))
                    assert name(got) == name(torch.result_type(make(torch, td), make2(torch, td2)))
            for n in numbers:
                assert name(seqlab.result_type(make(seqlab, sd), n)) == name(torch.result_type(make(torch, td), n))
                assert name(seqlab.result_type(n, make(seqlab, sd))) == name(torch.result_type(n, make(torch, td)))
    with pytest.raises(TypeError, match="promote_types"):
        seqlab.promote_types(seqlab.int64, "float")


# ------------------------------------------------------------------ autocast
def test_autocast_cpu_keeps_torchs_state_and_computes_in_the_inputs_dtype():
    assert not seqlab.is_autocast_enabled("cpu") and not seqlab.is_autocast_enabled()
    x = seqlab.randn(3, 4)
    with seqlab.autocast("cpu") as ctx:
        assert seqlab.is_autocast_enabled("cpu") and not seqlab.is_autocast_enabled()
        assert (x @ x.t()).dtype == seqlab.float32  # seqlab's autocast lowers no op (a documented no-op)
        with seqlab.autocast("cpu", enabled=False):
            assert not seqlab.is_autocast_enabled("cpu")
        assert seqlab.is_autocast_enabled("cpu")
    assert isinstance(ctx, seqlab.autocast) and not seqlab.is_autocast_enabled("cpu")

    @seqlab.autocast("cpu")
    def inside():
        return seqlab.is_autocast_enabled("cpu")
    assert inside() is True and not seqlab.is_autocast_enabled("cpu")


def test_autocast_warns_and_disables_as_torch_without_cuda():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        with seqlab.autocast("cuda"):
            assert not seqlab.is_autocast_enabled("cuda")
    with pytest.warns(UserWarning, match="target dtype is not supported"):
        with seqlab.autocast("cpu", dtype=seqlab.float32):
            assert not seqlab.is_autocast_enabled("cpu")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        seqlab.autocast("xyz")


def test_autocast_state_functions():
    assert seqlab.is_autocast_cache_enabled() is torch.is_autocast_cache_enabled() is True
    seqlab.set_autocast_cache_enabled(False)
    assert seqlab.is_autocast_cache_enabled() is False
    seqlab.set_autocast_cache_enabled(True)
    seqlab.clear_autocast_cache()
    seqlab.set_autocast_enabled("cpu", True)
    assert seqlab.is_autocast_enabled("cpu")
    seqlab.set_autocast_enabled("cpu", False)
    with pytest.warns(DeprecationWarning):
        assert seqlab.is_autocast_cpu_enabled() is False
    before = seqlab.get_autocast_dtype("cpu")
    seqlab.set_autocast_dtype("cpu", seqlab.float64)
    assert seqlab.get_autocast_dtype("cpu") == seqlab.float64
    with pytest.warns(DeprecationWarning):
        assert seqlab.get_autocast_cpu_dtype() == seqlab.float64
    seqlab.set_autocast_dtype("cpu", before)
    assert seqlab.is_autocast_available("cpu") and not seqlab.is_autocast_available("cuda")


# ------------------------------------------------------------------ GradScaler
def _training(lib, scaler, grads):
    """Three scaled steps of SGD on one parameter; `grads` replaces the gradient at each step (None:
    the loss's own), so inf can be injected. Returns the parameter, scales and state dicts seen."""
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
    opt = lib.optim.SGD([p], lr=0.1)
    seen = []
    for g in grads:
        opt.zero_grad()
        loss = (p * p).sum()
        scaler.scale(loss).backward()
        if g is not None:
            p.grad = lib.tensor(g)
        scaler.step(opt)
        scaler.update()
        seen.append((scaler.get_scale(), dict(scaler.state_dict())))
    return p.detach().numpy().copy(), seen


def test_grad_scaler_on_the_cpu_matches_torch():
    grads = [None, [float("inf"), 1.0], None, None, [float("nan"), 0.0], None]
    ours = _training(seqlab, seqlab.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2), grads)
    theirs = _training(torch, torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2), grads)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    assert ours[1] == theirs[1]


def test_grad_scaler_errors_and_disabled_forms_match_torch():
    scaler = seqlab.amp.GradScaler("cpu")
    p = seqlab.nn.Parameter(seqlab.ones(2))
    opt = seqlab.optim.SGD([p], lr=1.0)
    scaler.scale((p * 3).sum()).backward()
    assert p.grad.tolist() == [3 * 65536.0] * 2
    scaler.unscale_(opt)
    assert p.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0)
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        seqlab.amp.GradScaler("cpu").load_state_dict({})
    with pytest.raises(AssertionError, match="Attempted update but _scale is None"):
        seqlab.amp.GradScaler("cpu").update()
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
        cuda = seqlab.amp.GradScaler()
    off = seqlab.amp.GradScaler("cpu", enabled=False)
    for s in (cuda, off):
        assert not s.is_enabled() and s.get_scale() == 1.0 and s.state_dict() == {}
        x = seqlab.ones(2)
        assert s.scale(x) is x
    restored = seqlab.amp.GradScaler("cpu")
    restored.load_state_dict({"scale": 4.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 7,
                              "_growth_tracker": 2})
    assert restored.get_scale() == 4.0 and restored.get_growth_factor() == 3.0
    assert restored.get_backoff_factor() == 0.25 and restored.get_growth_interval() == 7


# ------------------------------------------------------------------ anomaly and inference mode
def test_detect_anomaly_raises_on_nan_gradients_and_keeps_its_flag():
    assert not seqlab.is_anomaly_enabled() and seqlab.is_anomaly_check_nan_enabled()
    x = seqlab.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with seqlab.autograd.detect_anomaly():
            assert seqlab.is_anomaly_enabled()
            (x * 2).sum().backward()  # finite: fine
            with pytest.raises(RuntimeError, match="nan"):
                (x.sqrt() * 0).sum().backward()
    assert not seqlab.is_anomaly_enabled()
    x.grad = None
    (x.sqrt() * 0).sum().backward()  # outside: NaN is left in .grad, as torch
    assert math.isnan(x.grad[0].item())
    with seqlab.autograd.set_detect_anomaly(True, check_nan=False):
        assert seqlab.is_anomaly_enabled() and not seqlab.is_anomaly_check_nan_enabled()
    assert not seqlab.is_anomaly_enabled() and seqlab.is_anomaly_check_nan_enabled()
    seqlab.set_anomaly_enabled(True)
    assert seqlab.is_anomaly_enabled()
    seqlab.set_anomaly_enabled(False)


def test_is_inference_mode_enabled():
    assert not seqlab.is_inference_mode_enabled()
    with seqlab.inference_mode():
        assert seqlab.is_inference_mode_enabled() and not seqlab.is_grad_enabled()
        with seqlab.inference_mode(False):
            assert not seqlab.is_inference_mode_enabled()
        assert seqlab.is_inference_mode_enabled()
    assert not seqlab.is_inference_mode_enabled()


# ------------------------------------------------------------------ flags
def test_deterministic_flags_follow_torchs_state_machine():
    try:
        for lib in (seqlab, torch):
            lib.set_deterministic_debug_mode("warn")
        assert (seqlab.get_deterministic_debug_mode(), seqlab.are_deterministic_algorithms_enabled(),
                seqlab.is_deterministic_algorithms_warn_only_enabled()) == (1, True, True)
        for mode in ("error", 0, 1, "default", 2):
            for lib in (seqlab, torch):
                lib.set_deterministic_debug_mode(mode)
            assert seqlab.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
            assert seqlab.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
        for args, kwargs in (((True,), {"warn_only": True}), ((False,), {}), ((True,), {})):
            seqlab.use_deterministic_algorithms(*args, **kwargs)
            torch.use_deterministic_algorithms(*args, **kwargs)
            assert seqlab.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
            assert seqlab.is_deterministic_algorithms_warn_only_enabled() == \
                torch.is_deterministic_algorithms_warn_only_enabled()
        assert_raises_like_torch(lambda: seqlab.set_deterministic_debug_mode("x"),
                                 lambda: torch.set_deterministic_debug_mode("x"), "expected one of `default`")
        assert_raises_like_torch(lambda: seqlab.set_deterministic_debug_mode(5),
                                 lambda: torch.set_deterministic_debug_mode(5), "expected 0, 1, or 2")
        assert_raises_like_torch(lambda: seqlab.use_deterministic_algorithms("x"),
                                 lambda: torch.use_deterministic_algorithms("x"), "must be bool, not str")
    finally:
        seqlab.use_deterministic_algorithms(False)
        torch.use_deterministic_algorithms(False)


def test_matmul_precision_interop_threads_and_warn_always():
    assert seqlab.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    try:
        seqlab.set_float32_matmul_precision("high")
        assert seqlab.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
            seqlab.set_float32_matmul_precision("bad")
        assert seqlab.get_float32_matmul_precision() == "high"
    finally:
        seqlab.set_float32_matmul_precision("highest")
    assert seqlab.get_num_interop_threads() >= 1
    assert_raises_like_torch(lambda: seqlab.set_num_interop_threads(0), lambda: torch.set_num_interop_threads(0),
                             "expects a positive integer")
    assert seqlab.is_warn_always_enabled() is torch.is_warn_always_enabled() is False
    seqlab.set_warn_always(True)
    assert seqlab.is_warn_always_enabled()
    seqlab.set_warn_always(False)


def _torch_compile_errors(calls):
    """torch.compile's error for each call, run in a child process: importing torch._dynamo changes
    global torch state (it turns off torch.distributions' default argument validation)."""
    code = ("import json, sys, torch\nout = []\nfn = lambda x: x\n"
            "for call in json.loads(sys.argv[1]):\n"
            "    try:\n        eval(call)\n        out.append(None)\n"
            "    except Exception as e:\n        out.append([type(e).__name__, str(e)])\n"
            "print(json.dumps(out))")
    result = subprocess.run([sys.executable, "-c", code, json.dumps(calls)], capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout.splitlines()[-1])


def test_compile_returns_the_model_and_keeps_torchs_checks():
    model = seqlab.nn.Linear(2, 2)
    assert seqlab.compile(model) is model
    assert seqlab.compile(model, mode="max-autotune", fullgraph=True, dynamic=False) is model

    @seqlab.compile(mode="reduce-overhead")
    def f(x):
        return x * 2
    assert f(seqlab.ones(1)).item() == 2.0
    fn = lambda x: x  # noqa: E731
    calls = ['torch.compile(fn, mode="bad")', 'torch.compile(fn, mode="default", options={"a": 1})',
             'torch.compile(3)']
    fragments = ["Unrecognized mode=bad", "Either mode or options", "A callable function is expected"]
    for call, (kind, message), fragment in zip(calls, _torch_compile_errors(calls), fragments):
        assert fragment in message
        with pytest.raises(getattr(builtins, kind)) as info:
            eval(call.replace("torch.", "seqlab."))
        assert fragment in str(info.value)


def test_typename():
    for sd, td in DTYPES:
        assert seqlab.typename(seqlab.ones(1, dtype=sd)) == torch.typename(torch.ones(1, dtype=td)).replace("torch",
                                                                                                          "seqlab")
    assert seqlab.typename(3) == torch.typename(3) == "int"
    assert seqlab.typename(seqlab.nn.Linear(1, 1)).endswith(".Linear")


# ------------------------------------------------------------------ torch.utils.data additions
def test_chain_and_stack_datasets_match_torch():
    import torch.utils.data as tud
    import seqlab.utils.data as sud

    class Stream(sud.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    chain = sud.ChainDataset([Stream(3), Stream(2)])
    assert list(chain) == [0, 1, 2, 0, 1] and len(chain) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(sud.ChainDataset([[1, 2]]))
    for args, kwargs in ((([1, 2], [3, 4]), {}), ((), {"a": [1, 2], "b": [3, 4]})):
        ours, theirs = sud.StackDataset(*args, **kwargs), tud.StackDataset(*args, **kwargs)
        assert len(ours) == len(theirs) and [ours[i] for i in range(2)] == [theirs[i] for i in range(2)]
        assert ours.__getitems__([1, 0]) == theirs.__getitems__([1, 0])
    loader = sud.DataLoader(sud.StackDataset(seqlab.arange(4), seqlab.arange(4) * 2), batch_size=2)
    assert [b[1].tolist() for b in loader] == [[0, 2], [4, 6]]
    for args, kwargs, fragment in ((([1, 2], [3]), {}, "Size mismatch"), (([1],), {"b": [2]}, "both types"),
                                   ((), {}, "At least one dataset")):
        assert_raises_like_torch(lambda: sud.StackDataset(*args, **kwargs),
                                 lambda: tud.StackDataset(*args, **kwargs), fragment)
    assert sud.get_worker_info() is None is tud.get_worker_info()
    sampler = sud.DistributedSampler(list(range(10)), num_replicas=2, rank=1, shuffle=False)
    assert list(sampler) == list(tud.DistributedSampler(list(range(10)), num_replicas=2, rank=1, shuffle=False))
