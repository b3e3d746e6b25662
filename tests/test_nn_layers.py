"""seqlab.nn layers and losses against torch.nn: the same module is built in both libraries,
torch's (randomised) state dict is loaded into seqlab's, and the outputs, every input's
gradient, every parameter's gradient and the buffers afterwards are compared (float32 at
atol 1e-5, float64 at 1e-10), in training and evaluation mode. Then initialisation,
constructor arguments and errors.
"""
import math
import warnings

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
from conftest import (
    DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_matches_torch, assert_raises_like_torch, sl_leaf, sl_np, th_leaf, tol,
)

def _lib(tnn):
    return seqlab if tnn is nn else torch


def randomise(th_module, rng):
    """Give torch's parameters and float buffers random values (init values such as
    LayerNorm's ones and zeros would hide mistakes); running variances stay positive."""
    with torch.no_grad():
        for name, t in list(th_module.named_parameters()) + list(th_module.named_buffers()):
            if not t.is_floating_point():
                continue
            vals = rng.uniform(0.5, 1.5, t.shape) if name.endswith("running_var") else rng.uniform(-1, 1, t.shape)
            t.copy_(torch.from_numpy(vals))


def matched(make, dtype, rng):
    """(seqlab module, torch module) with identical state."""
    th, sl = make(torch.nn), make(nn)
    if dtype == np.float64:
        th.double()
        sl.double()
    randomise(th, rng)
    sl.load_state_dict(th.state_dict())
    return sl, th


def check_layer(make, inputs, dtype, rng, train=True, steps=1, scale=1.0):
    """Forward + backward through both libraries `steps` times; compare outputs, input
    grads, parameter grads (by name) and buffers."""
    atol, rtol = tol(dtype, scale)
    sl, th = matched(make, dtype, rng)
    sl.train(train)
    th.train(train)
    for _ in range(steps):
        sl_in = [sl_leaf(a) for a in inputs]
        th_in = [th_leaf(a) for a in inputs]
        sl_out, th_out = sl(*sl_in), th(*th_in)
        assert tuple(sl_out.shape) == tuple(th_out.shape)
        assert_close(sl_np(sl_out), th_out.detach().numpy(), atol, rtol, "forward")
        assert sl_out.requires_grad == th_out.requires_grad
        if th_out.requires_grad:
            g = rng.standard_normal(tuple(th_out.shape)).astype(th_out.detach().numpy().dtype)
            th_out.backward(torch.from_numpy(g.copy()))
            sl_out.backward(seqlab.from_numpy(g.copy()))
            for i, (s, t) in enumerate(zip(sl_in, th_in)):
                if t.requires_grad:
                    assert s.grad is not None, f"input {i}: seqlab has no gradient, torch has one"
                    assert_close(sl_np(s.grad), t.grad.numpy(), atol, rtol, f"grad of input {i}")
            sl_params = dict(sl.named_parameters())
            assert list(sl_params) == [n for n, _ in th.named_parameters()]
            for name, p in th.named_parameters():
                if p.grad is None:
                    assert sl_params[name].grad is None or not np.any(sl_np(sl_params[name].grad)), name
                else:
                    assert sl_params[name].grad is not None, f"{name}: seqlab has no gradient, torch has one"
                    assert_close(sl_np(sl_params[name].grad), p.grad.numpy(), atol, rtol, f"grad of {name}")
    sl_bufs = dict(sl.named_buffers())
    for name, b in th.named_buffers():
        assert_close(sl_np(sl_bufs[name]), b.numpy(), atol, rtol, f"buffer {name}")
    return sl, th


def r(shape):
    return lambda rng, dt: rng.standard_normal(shape).astype(dt)


def idx(high, shape):
    return lambda rng, dt: rng.integers(0, high, shape).astype(np.int64)


def fixed(arr):
    return lambda rng, dt: np.asarray(arr)


def probs(shape):
    def f(rng, dt):
        p = rng.uniform(0.1, 1.0, shape)
        return (p / p.sum(-1, keepdims=True)).astype(dt)
    return f


def w(shape, low=0.5, high=2.0):
    """A weight tensor argument for a loss, built for the library of `tnn`."""
    def make(tnn, rng=np.random.default_rng(7)):
        return _lib(tnn).tensor(rng.uniform(low, high, shape))
    return make


# id: (factory(tnn), [input makers], modes)
LAYERS = {
    "Linear": (lambda tnn: tnn.Linear(5, 3), [r((4, 5))]),
    "Linear-3d": (lambda tnn: tnn.Linear(5, 3), [r((2, 4, 5))]),
    "Linear-1d": (lambda tnn: tnn.Linear(5, 3), [r((5,))]),
    "Linear-empty-batch": (lambda tnn: tnn.Linear(5, 3), [r((0, 5))]),
    "Linear-nobias": (lambda tnn: tnn.Linear(5, 3, bias=False), [r((4, 5))]),
    "Bilinear": (lambda tnn: tnn.Bilinear(4, 3, 2), [r((5, 4)), r((5, 3))]),
    "Bilinear-1d": (lambda tnn: tnn.Bilinear(4, 3, 2), [r((4,)), r((3,))]),
    "Bilinear-3d-nobias": (lambda tnn: tnn.Bilinear(4, 3, 2, bias=False), [r((2, 5, 4)), r((2, 5, 3))]),
    "Embedding": (lambda tnn: tnn.Embedding(10, 4), [idx(10, (3, 5))]),
    "Embedding-empty": (lambda tnn: tnn.Embedding(10, 4), [idx(10, (2, 0))]),
    "Embedding-padding": (lambda tnn: tnn.Embedding(10, 4, padding_idx=2),
                          [fixed(np.array([[2, 1, 2, 5], [0, 2, 9, 1]]))]),
    "Embedding-padding-neg": (lambda tnn: tnn.Embedding(6, 3, padding_idx=-1), [fixed(np.array([5, 0, 5, 1]))]),
    "LayerNorm": (lambda tnn: tnn.LayerNorm(6), [r((3, 4, 6))]),
    "LayerNorm-2d-shape": (lambda tnn: tnn.LayerNorm((4, 6)), [r((3, 4, 6))]),
    "LayerNorm-empty-batch": (lambda tnn: tnn.LayerNorm(6), [r((0, 6))]),
    "LayerNorm-noaffine": (lambda tnn: tnn.LayerNorm(6, elementwise_affine=False), [r((5, 6))]),
    "LayerNorm-nobias": (lambda tnn: tnn.LayerNorm(6, bias=False, eps=1e-3), [r((5, 6))]),
    "RMSNorm": (lambda tnn: tnn.RMSNorm(6), [r((3, 4, 6))]),
    "RMSNorm-2d-shape-eps": (lambda tnn: tnn.RMSNorm((4, 6), eps=1e-6), [r((3, 4, 6))]),
    "RMSNorm-empty-batch": (lambda tnn: tnn.RMSNorm(6), [r((0, 6))]),
    "RMSNorm-noaffine": (lambda tnn: tnn.RMSNorm(6, elementwise_affine=False), [r((5, 6))]),
    "SiLU": (lambda tnn: tnn.SiLU(), [r((4, 5))]),
    "BatchNorm1d-2d": (lambda tnn: tnn.BatchNorm1d(3), [r((8, 3))]),
    "BatchNorm1d-3d": (lambda tnn: tnn.BatchNorm1d(3), [r((4, 3, 5))]),
    "BatchNorm1d-noaffine": (lambda tnn: tnn.BatchNorm1d(3, affine=False, momentum=0.3), [r((6, 3))]),
    "BatchNorm1d-nobias": (lambda tnn: tnn.BatchNorm1d(3, bias=False, eps=1e-3), [r((6, 3, 2))]),
    "BatchNorm1d-untracked": (lambda tnn: tnn.BatchNorm1d(3, track_running_stats=False), [r((6, 3))]),
    "BatchNorm1d-cumulative": (lambda tnn: tnn.BatchNorm1d(3, momentum=None), [r((5, 3, 2))]),
    "Identity": (lambda tnn: tnn.Identity(3, foo=4), [r((2, 3))]),
    "Tanh": (lambda tnn: tnn.Tanh(), [r((2, 3))]),
    "Sigmoid": (lambda tnn: tnn.Sigmoid(), [r((2, 3))]),
    "ReLU": (lambda tnn: tnn.ReLU(), [r((4, 5))]),
    "GELU": (lambda tnn: tnn.GELU(), [r((2, 3))]),
    "GELU-tanh": (lambda tnn: tnn.GELU(approximate="tanh"), [r((2, 3))]),
    "Softmax": (lambda tnn: tnn.Softmax(dim=1), [r((2, 3, 4))]),
    "Softmax-last": (lambda tnn: tnn.Softmax(dim=-1), [r((2, 3, 4))]),
    "LogSoftmax": (lambda tnn: tnn.LogSoftmax(dim=0), [r((3, 4))]),
    "Flatten": (lambda tnn: tnn.Flatten(), [r((2, 3, 4))]),
    "Flatten-0-1": (lambda tnn: tnn.Flatten(0, 1), [r((2, 3, 4))]),
    "Dropout-p0": (lambda tnn: tnn.Dropout(p=0.0), [r((3, 4))]),
    "Sequential-MLP": (lambda tnn: tnn.Sequential(tnn.Linear(4, 8), tnn.Tanh(), tnn.LayerNorm(8),
                                                  tnn.Linear(8, 3), tnn.LogSoftmax(dim=-1)), [r((5, 4))]),
}

LOSSES = {
    "CrossEntropyLoss": (lambda tnn: tnn.CrossEntropyLoss(), [r((4, 5)), idx(5, (4,))]),
    "CrossEntropyLoss-weight-ignore": (lambda tnn: tnn.CrossEntropyLoss(weight=w((5,))(tnn), ignore_index=1),
                                       [r((6, 5)), fixed(np.array([0, 1, 2, 3, 4, 1]))]),
    "CrossEntropyLoss-smoothing-sum": (lambda tnn: tnn.CrossEntropyLoss(label_smoothing=0.1, reduction="sum"),
                                       [r((4, 5)), idx(5, (4,))]),
    "CrossEntropyLoss-none-3d": (lambda tnn: tnn.CrossEntropyLoss(reduction="none"), [r((2, 5, 3)), idx(5, (2, 3))]),
    "CrossEntropyLoss-probs": (lambda tnn: tnn.CrossEntropyLoss(), [r((4, 5)), probs((4, 5))]),
    "NLLLoss": (lambda tnn: tnn.NLLLoss(), [r((4, 5)), idx(5, (4,))]),
    "NLLLoss-weight-sum": (lambda tnn: tnn.NLLLoss(weight=w((5,))(tnn), reduction="sum"),
                           [r((4, 5)), idx(5, (4,))]),
    "MSELoss": (lambda tnn: tnn.MSELoss(), [r((3, 4)), r((3, 4))]),
    "MSELoss-none": (lambda tnn: tnn.MSELoss(reduction="none"), [r((3, 4)), r((3, 4))]),
    "BCEWithLogitsLoss": (lambda tnn: tnn.BCEWithLogitsLoss(), [r((3, 4)), probs((3, 4))]),
    "BCEWithLogitsLoss-weights": (lambda tnn: tnn.BCEWithLogitsLoss(weight=w((4,))(tnn), pos_weight=w((4,))(tnn)),
                                  [r((3, 4)), probs((3, 4))]),
}


def _cast_loss_buffers(make, dtype):
    """Loss class weights follow the input dtype (torch requires it)."""
    def make_cast(tnn):
        m = make(tnn)
        if dtype == np.float64:
            m.double()
        else:
            m.float()
        return m
    return make_cast


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch(rng, name, train, dtype):
    make, makers = LAYERS[name]
    check_layer(make, [m(rng, dtype) for m in makers], dtype, rng, train=train)


@pytest.mark.parametrize("layout", ["T", "slice"])
@pytest.mark.parametrize("name", ["Linear-3d", "Bilinear", "LayerNorm", "RMSNorm", "BatchNorm1d-3d", "GELU", "Softmax"])
def test_layer_noncontiguous_input(rng, name, layout):
    make, makers = LAYERS[name]
    sl, th = matched(make, np.float32, rng)
    assert_matches_torch(sl, th, [m(rng, np.float32) for m in makers], layout=layout)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_matches_torch(rng, name, dtype):
    make, makers = LOSSES[name]
    check_layer(_cast_loss_buffers(make, dtype), [m(rng, dtype) for m in makers], dtype, rng)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("momentum", [0.1, None], ids=["momentum0.1", "cumulative"])
def test_batchnorm_running_stats_over_steps_then_eval(rng, momentum, dtype):
    make = lambda tnn: tnn.BatchNorm1d(4, momentum=momentum)  # noqa: E731
    x = rng.standard_normal((6, 4, 3)).astype(dtype) * 3 + 1
    sl, th = check_layer(make, [x], dtype, rng, train=True, steps=4)
    assert sl.num_batches_tracked.item() == th.num_batches_tracked.item() == 4
    sl.eval()
    th.eval()
    y = rng.standard_normal((2, 4, 3)).astype(dtype)
    atol, rtol = tol(dtype)
    assert_close(sl_np(sl(seqlab.from_numpy(y))), th(torch.from_numpy(y)).detach().numpy(), atol, rtol, "eval")
    assert sl.num_batches_tracked.item() == 4  # eval does not count


def test_batchnorm_eval_uses_running_stats_exactly():
    bn = nn.BatchNorm1d(2).double().eval()
    with seqlab.no_grad():
        bn.running_mean.copy_(seqlab.tensor([1.0, -1.0], dtype=seqlab.float64))
        bn.running_var.copy_(seqlab.tensor([4.0, 0.25], dtype=seqlab.float64))
    x = seqlab.tensor([[3.0, 0.0]], dtype=seqlab.float64)  # a batch of 1 is fine in eval
    np.testing.assert_allclose(sl_np(bn(x)), [[2.0 / math.sqrt(4 + 1e-5), 1.0 / math.sqrt(0.25 + 1e-5)]], rtol=1e-12)


def test_dropout_train_and_eval():
    x = seqlab.ones(2000, requires_grad=True)
    d = nn.Dropout(p=0.25)
    y = d(x)
    vals = sl_np(y)
    kept = vals != 0
    np.testing.assert_allclose(vals[kept], 1 / 0.75, rtol=1e-6)
    assert 0.2 < 1 - kept.mean() < 0.3
    y.sum().backward()
    np.testing.assert_allclose(sl_np(x.grad), np.where(kept, 1 / 0.75, 0.0), rtol=1e-6)
    assert d.eval()(x) is x or np.array_equal(sl_np(d(x)), sl_np(x))
    assert not np.any(sl_np(nn.Dropout(p=1.0)(x)))
    assert repr(nn.Dropout(0.3, inplace=True)) == repr(torch.nn.Dropout(0.3, inplace=True))


def test_relu_inplace():
    x = seqlab.tensor([-1.0, 2.0, -3.0])
    m = nn.ReLU(inplace=True)
    y = m(x)
    assert y.data_ptr() == x.data_ptr() and sl_np(x).tolist() == [0.0, 2.0, 0.0]
    assert repr(m) == repr(torch.nn.ReLU(inplace=True)) == "ReLU(inplace=True)"


def test_softmax_without_dim_warns_and_uses_torchs_legacy_dim(rng):
    for shape in [(5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]:
        x = rng.standard_normal(shape).astype(np.float32)
        for name in ["Softmax", "LogSoftmax"]:
            with pytest.warns(UserWarning, match="Implicit dimension choice"):
                got = sl_np(getattr(nn, name)()(seqlab.from_numpy(x)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = getattr(torch.nn, name)()(torch.from_numpy(x)).numpy()
            np.testing.assert_allclose(got, expected, atol=1e-6)


# ------------------------------------------------------------------ repr
REPRS = [
    lambda tnn: tnn.Linear(4, 8), lambda tnn: tnn.Linear(4, 8, bias=False), lambda tnn: tnn.Bilinear(2, 3, 4),
    lambda tnn: tnn.Embedding(10, 3), lambda tnn: tnn.Embedding(10, 3, padding_idx=0),
    lambda tnn: tnn.Dropout(), lambda tnn: tnn.LayerNorm(5), lambda tnn: tnn.LayerNorm((2, 3), eps=1e-3, bias=False),
    lambda tnn: tnn.LayerNorm(4, elementwise_affine=False), lambda tnn: tnn.BatchNorm1d(3),
    lambda tnn: tnn.BatchNorm1d(3, momentum=None, affine=False, track_running_stats=False),
    lambda tnn: tnn.Identity(), lambda tnn: tnn.Tanh(), lambda tnn: tnn.Sigmoid(), lambda tnn: tnn.ReLU(),
    lambda tnn: tnn.GELU(), lambda tnn: tnn.GELU("tanh"),
    lambda tnn: tnn.SiLU(), lambda tnn: tnn.SiLU(True),
    lambda tnn: tnn.RMSNorm(4), lambda tnn: tnn.RMSNorm([2, 3], eps=1e-6, elementwise_affine=False), lambda tnn: tnn.Softmax(dim=-1), lambda tnn: tnn.Softmax(),
    lambda tnn: tnn.LogSoftmax(1), lambda tnn: tnn.Flatten(), lambda tnn: tnn.Flatten(0, 2),
    lambda tnn: tnn.CrossEntropyLoss(), lambda tnn: tnn.NLLLoss(), lambda tnn: tnn.MSELoss(),
    lambda tnn: tnn.BCEWithLogitsLoss(),
    lambda tnn: tnn.Sequential(tnn.Embedding(5, 4), tnn.Flatten(), tnn.Sequential(tnn.Linear(8, 8), tnn.ReLU()),
                               tnn.ModuleList([tnn.Linear(8, 8), tnn.Linear(8, 8), tnn.Tanh()]),
                               tnn.ModuleDict({"a": tnn.Dropout(0.1), "b": tnn.Identity()})),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_repr_equals_torch(i):
    assert repr(REPRS[i](nn)) == repr(REPRS[i](torch.nn))


# ------------------------------------------------------------------ parameters and init
@pytest.mark.parametrize("i", range(len(REPRS)))
def test_parameter_and_buffer_names_shapes_dtypes_equal_torch(i):
    s, t = REPRS[i](nn), REPRS[i](torch.nn)
    for sl_items, th_items in [(s.named_parameters(), t.named_parameters()), (s.named_buffers(), t.named_buffers())]:
        sl_items, th_items = list(sl_items), list(th_items)
        assert [(n, tuple(p.shape), p.requires_grad) for n, p in sl_items] == \
            [(n, tuple(p.shape), p.requires_grad) for n, p in th_items]
        assert [str(p.dtype).split(".")[-1] for _, p in sl_items] == [str(p.dtype).split(".")[-1] for _, p in th_items]


def _uniform_bound_ok(t, bound):
    v = sl_np(t)
    assert np.all(np.abs(v) <= bound + 1e-7)
    assert abs(v.std() - bound / math.sqrt(3)) < 0.05 * bound  # U(-b, b) has std b/sqrt(3)
    assert abs(v.mean()) < 0.05 * bound


def test_linear_init_like_torch():
    m = nn.Linear(400, 300)
    _uniform_bound_ok(m.weight, 1 / math.sqrt(400))  # kaiming_uniform_(a=sqrt(5)) gives this bound
    assert np.all(np.abs(sl_np(m.bias)) <= 1 / math.sqrt(400))
    th = torch.nn.Linear(400, 300)
    assert abs(sl_np(m.weight).std() - th.weight.detach().numpy().std()) < 1e-3


def test_bilinear_init_like_torch():
    m = nn.Bilinear(50, 40, 30)
    _uniform_bound_ok(m.weight, 1 / math.sqrt(50))
    assert np.all(np.abs(sl_np(m.bias)) <= 1 / math.sqrt(50))


def test_embedding_init_like_torch():
    m = nn.Embedding(1000, 64, padding_idx=3)
    v = sl_np(m.weight)
    assert np.all(v[3] == 0)
    rest = np.delete(v, 3, axis=0)
    assert abs(rest.mean()) < 0.01 and abs(rest.std() - 1.0) < 0.01


def test_norm_layers_init_like_torch():
    ln, bn = nn.LayerNorm((2, 3)), nn.BatchNorm1d(4)
    assert np.all(sl_np(ln.weight) == 1) and np.all(sl_np(ln.bias) == 0)
    assert np.all(sl_np(bn.weight) == 1) and np.all(sl_np(bn.bias) == 0)
    assert np.all(sl_np(bn.running_mean) == 0) and np.all(sl_np(bn.running_var) == 1)
    assert bn.num_batches_tracked.item() == 0 and bn.num_batches_tracked.dtype == seqlab.int64


def test_layers_accept_dtype_and_cpu_device():
    m = nn.Linear(3, 2, dtype=seqlab.float64, device="cpu")
    assert m.weight.dtype == m.bias.dtype == seqlab.float64
    assert nn.BatchNorm1d(2, dtype=seqlab.float64).running_var.dtype == seqlab.float64
    assert nn.Embedding(4, 2, dtype=seqlab.float64).weight.dtype == seqlab.float64
    with pytest.raises(RuntimeError, match="CPU only"):
        nn.Linear(3, 2, device="cuda")


def test_embedding_padding_row_gets_no_gradient_and_from_pretrained():
    w_np = np.arange(12, dtype=np.float32).reshape(4, 3)
    for tnn, lib in ((nn, seqlab), (torch.nn, torch)):
        e = tnn.Embedding.from_pretrained(lib.tensor(w_np), padding_idx=1)
        assert not e.weight.requires_grad and e.padding_idx == 1
        np.testing.assert_array_equal(e.weight.detach().numpy(), w_np)  # padding row is not zeroed here
        e2 = tnn.Embedding.from_pretrained(lib.tensor(w_np), freeze=False)
        assert e2.weight.requires_grad
    src = seqlab.tensor(w_np)
    assert nn.Embedding.from_pretrained(src).weight.data_ptr() == src.data_ptr()


# ------------------------------------------------------------------ errors
ERRORS = {
    "dropout-p": (lambda tnn, lib: tnn.Dropout(1.5), "dropout probability has to be between 0 and 1, but got 1.5"),
    "batchnorm-4d": (lambda tnn, lib: tnn.BatchNorm1d(3)(lib.zeros(2, 3, 4, 5)), r"expected 2D or 3D input \(got 4D"),
    "batchnorm-batch-of-1": (lambda tnn, lib: tnn.BatchNorm1d(3)(lib.zeros(1, 3)),
                             r"Expected more than 1 value per channel when training, got input size"),
    "embedding-padding-range": (lambda tnn, lib: tnn.Embedding(5, 2, padding_idx=5),
                                "Padding_idx must be within num_embeddings"),
    "embedding-padding-range-neg": (lambda tnn, lib: tnn.Embedding(5, 2, padding_idx=-6),
                                    "Padding_idx must be within num_embeddings"),
    "from-pretrained-1d": (lambda tnn, lib: tnn.Embedding.from_pretrained(lib.zeros(3)),
                           "Embeddings parameter is expected to be 2-dimensional"),
    "embedding-weight-shape": (lambda tnn, lib: tnn.Embedding(3, 2, _weight=lib.zeros(2, 2)),
                               "Shape of weight does not match"),
    "bilinear-in1": (lambda tnn, lib: tnn.Bilinear(3, 2, 4)(lib.zeros(5, 4), lib.zeros(5, 2)),
                     "input1 size does not match weight size: got 4 but expected 3"),
    "bilinear-in2": (lambda tnn, lib: tnn.Bilinear(3, 2, 4)(lib.zeros(5, 3), lib.zeros(5, 7)),
                     "input2 size does not match weight size: got 7 but expected 2"),
    "bilinear-batch": (lambda tnn, lib: tnn.Bilinear(3, 2, 4)(lib.zeros(5, 3), lib.zeros(6, 2)),
                       "input batch dimensions do not match"),
    "bilinear-zero-features": (lambda tnn, lib: tnn.Bilinear(0, 2, 4), r"in1_features must be > 0"),
    "linear-shape": (lambda tnn, lib: tnn.Linear(3, 2)(lib.zeros(4, 5)), ""),
    "layernorm-shape": (lambda tnn, lib: tnn.LayerNorm(4)(lib.zeros(2, 5)), ""),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_like_torch(name):
    fn, msg = ERRORS[name]
    assert_raises_like_torch(lambda: fn(nn, seqlab), lambda: fn(torch.nn, torch), msg)


def test_embedding_unsupported_options_raise():
    with pytest.raises(NotImplementedError, match="max_norm, scale_grad_by_freq and sparse are not supported"):
        nn.Embedding(4, 2, max_norm=1.0)


def test_loss_legacy_reduction_arguments():
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning, match="reduction='none'"):
        assert nn.CrossEntropyLoss(reduce=False).reduction == "none"


def test_loss_weights_are_buffers_like_torch():
    for tnn, lib in ((nn, seqlab), (torch.nn, torch)):
        assert list(tnn.CrossEntropyLoss(weight=lib.ones(3)).state_dict()) == ["weight"]
        assert list(tnn.BCEWithLogitsLoss(pos_weight=lib.ones(3)).state_dict()) == ["pos_weight"]
        assert list(tnn.MSELoss().state_dict()) == []
