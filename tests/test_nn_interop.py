"""PyTorch state dicts in and out of seqlab: for every layer, torch -> seqlab -> torch and
seqlab -> torch -> seqlab round trips with strict=True are exact; NumPy values load too;
a whole model loaded from torch gives torch's logits, loss and gradients.
"""
import collections

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
from seqlab.nn.interop import to_torch_state_dict
from conftest import sl_np


def _trained_batchnorm(tnn, lib, **kw):
    """A BatchNorm1d whose running statistics and counter are not at their initial values."""
    bn = tnn.BatchNorm1d(3, **kw)
    gen = np.random.default_rng(0)
    for _ in range(3):
        bn(lib.tensor(gen.standard_normal((5, 3)).astype(np.float32) * 2 + 1))
    return bn


MODULES = {
    "Linear": lambda tnn, lib: tnn.Linear(4, 3),
    "Linear-nobias": lambda tnn, lib: tnn.Linear(4, 3, bias=False),
    "Bilinear": lambda tnn, lib: tnn.Bilinear(3, 2, 4),
    "Embedding": lambda tnn, lib: tnn.Embedding(7, 3, padding_idx=0),
    "LayerNorm": lambda tnn, lib: tnn.LayerNorm((2, 3)),
    "LayerNorm-nobias": lambda tnn, lib: tnn.LayerNorm(3, bias=False),
    "BatchNorm1d": lambda tnn, lib: _trained_batchnorm(tnn, lib),
    "BatchNorm1d-noaffine": lambda tnn, lib: _trained_batchnorm(tnn, lib, affine=False, momentum=None),
    "BatchNorm1d-untracked": lambda tnn, lib: _trained_batchnorm(tnn, lib, track_running_stats=False),
    "Dropout": lambda tnn, lib: tnn.Dropout(0.2),
    "activations": lambda tnn, lib: tnn.Sequential(tnn.Tanh(), tnn.Sigmoid(), tnn.ReLU(), tnn.GELU(),
                                                   tnn.Softmax(-1), tnn.LogSoftmax(-1), tnn.Flatten(),
                                                   tnn.Identity()),
    "CrossEntropyLoss-weight": lambda tnn, lib: tnn.CrossEntropyLoss(weight=lib.tensor([1.0, 2.0, 0.5])),
    "NLLLoss-weight": lambda tnn, lib: tnn.NLLLoss(weight=lib.tensor([1.0, 2.0])),
    "BCEWithLogitsLoss-weights": lambda tnn, lib: tnn.BCEWithLogitsLoss(weight=lib.tensor([1.0, 3.0]),
                                                                        pos_weight=lib.tensor([2.0, 0.5])),
    "MSELoss": lambda tnn, lib: tnn.MSELoss(),
    "nested": lambda tnn, lib: tnn.Sequential(collections.OrderedDict([
        ("embed", tnn.Embedding(9, 4)),
        ("blocks", tnn.ModuleList([tnn.Sequential(tnn.LayerNorm(4), tnn.Linear(4, 4), tnn.GELU())
                                   for _ in range(2)])),
        ("heads", tnn.ModuleDict({"a": tnn.Linear(4, 2), "b": tnn.Bilinear(4, 4, 1)})),
        ("bn", tnn.BatchNorm1d(4)),
    ])),
}


def make_pair(name):
    return MODULES[name](nn, seqlab), MODULES[name](torch.nn, torch)


def assert_same_state(sl_state, th_state):
    assert list(sl_state) == list(th_state)
    for k in th_state:
        a, b = sl_state[k], th_state[k]
        a = sl_np(a) if isinstance(a, seqlab.Tensor) else a.detach().numpy()
        b = b.detach().numpy() if isinstance(b, torch.Tensor) else sl_np(b)
        assert a.shape == b.shape and a.dtype == b.dtype, k
        np.testing.assert_array_equal(a, b, err_msg=k)


@pytest.mark.parametrize("name", list(MODULES))
def test_torch_to_seqlab_to_torch(name):
    sl, th = make_pair(name)
    with torch.no_grad():
        for p in th.parameters():
            p.uniform_(-1, 1)
    assert sl.load_state_dict(th.state_dict()) == ([], [])
    assert_same_state(sl.state_dict(), th.state_dict())
    back = to_torch_state_dict(sl)
    assert isinstance(back, collections.OrderedDict) and all(isinstance(v, torch.Tensor) for v in back.values())
    fresh = MODULES[name](torch.nn, torch)
    assert fresh.load_state_dict(back, strict=True) == ([], [])
    assert_same_state(fresh.state_dict(), th.state_dict())


@pytest.mark.parametrize("name", list(MODULES))
def test_seqlab_to_torch_to_seqlab(name):
    sl, _ = make_pair(name)
    th = MODULES[name](torch.nn, torch)
    th.load_state_dict(to_torch_state_dict(sl), strict=True)
    assert_same_state(sl.state_dict(), th.state_dict())
    fresh = MODULES[name](nn, seqlab)
    fresh.load_state_dict(th.state_dict(), strict=True)
    assert_same_state(fresh.state_dict(), sl.state_dict())


@pytest.mark.parametrize("name", ["Linear", "BatchNorm1d", "nested"])
def test_numpy_state_dict_round_trip(name):
    sl, th = make_pair(name)
    sl.load_state_dict({k: v.numpy() for k, v in th.state_dict().items()})
    assert_same_state(sl.state_dict(), th.state_dict())
    fresh = MODULES[name](nn, seqlab)
    fresh.load_state_dict({k: v.numpy() for k, v in sl.state_dict().items()})
    assert_same_state(fresh.state_dict(), sl.state_dict())


def test_float64_models_round_trip_with_dtype():
    sl, th = nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    th.load_state_dict(to_torch_state_dict(sl))
    assert th.weight.dtype == torch.float64
    np.testing.assert_array_equal(th.weight.detach().numpy(), sl_np(sl.weight))


def test_to_torch_state_dict_shares_memory_and_keeps_metadata():
    sl = nn.Sequential(nn.BatchNorm1d(2))
    out = to_torch_state_dict(sl)
    assert out["0.running_var"].data_ptr() == sl[0].running_var.data_ptr()
    assert out["0.num_batches_tracked"].dtype == torch.int64 and out["0.num_batches_tracked"].dim() == 0
    th_metadata = torch.nn.Sequential(torch.nn.BatchNorm1d(2)).state_dict()._metadata
    assert out._metadata["0"] == {"version": 2} == th_metadata["0"]
    assert list(to_torch_state_dict(sl.state_dict())) == list(out)  # a state dict works as well as a module
    with pytest.raises(TypeError, match="value for 'x' is a int, not a tensor"):
        to_torch_state_dict({"x": 1})


def test_old_batchnorm_state_without_counter_loads_like_torch():
    # State dicts written before num_batches_tracked existed (no metadata) still load strictly.
    th = torch.nn.BatchNorm1d(3)
    old = {k: v for k, v in th.state_dict().items() if k != "num_batches_tracked"}
    sl = nn.BatchNorm1d(3)
    assert sl.load_state_dict(old) == ([], [])
    assert th.load_state_dict(old) == ([], [])
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        sd = collections.OrderedDict(old)
        sd._metadata = {"": {"version": 2}}
        sl.load_state_dict(sd)


def test_model_from_torch_weights_gives_torchs_logits_loss_and_grads():
    # The test_gpt2.c check: a tiny character-level model loaded from torch weights.
    def build(tnn):
        return tnn.Sequential(tnn.Embedding(12, 8), tnn.Flatten(), tnn.Linear(24, 16), tnn.LayerNorm(16),
                              tnn.Tanh(), tnn.Dropout(0.1), tnn.Linear(16, 12)).double()

    th, sl = build(torch.nn), build(nn)
    sl.load_state_dict(th.state_dict())
    th.eval()
    sl.eval()
    gen = np.random.default_rng(3)
    x, y = gen.integers(0, 12, (6, 3)), gen.integers(0, 12, (6,))
    th_logits = th(torch.from_numpy(x))
    sl_logits = sl(seqlab.from_numpy(x))
    np.testing.assert_allclose(sl_np(sl_logits), th_logits.detach().numpy(), atol=1e-10)
    th_loss = torch.nn.CrossEntropyLoss()(th_logits, torch.from_numpy(y))
    sl_loss = nn.CrossEntropyLoss()(sl_logits, seqlab.from_numpy(y))
    assert abs(sl_loss.item() - th_loss.item()) < 1e-10
    th_loss.backward()
    sl_loss.backward()
    sl_grads = {n: p.grad for n, p in sl.named_parameters()}
    for n, p in th.named_parameters():
        np.testing.assert_allclose(sl_np(sl_grads[n]), p.grad.numpy(), atol=1e-10, err_msg=n)
    # and back: torch loads the seqlab model unchanged
    th2 = build(torch.nn).eval()
    th2.load_state_dict(to_torch_state_dict(sl))
    np.testing.assert_allclose(th2(torch.from_numpy(x)).detach().numpy(), th_logits.detach().numpy(), atol=0)
