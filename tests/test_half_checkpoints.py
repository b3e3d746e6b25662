"""float16 and bfloat16 where checkpoints and models meet them, against torch 2.13 and the safetensors
package: seqlab.save/load (safetensors F16/BF16, bit for bit, checksums kept), Module.half() /
bfloat16() / to(dtype) and load_state_dict across dtypes, to_torch_state_dict, the forward and
backward of the common layers in 16 bits, the optimizers' steps and clip_grad_norm_ on 16-bit
parameters, and autocast (a documented no-op). The hub's 16-bit loading is in tests/test_hub.py.
Code: python/seqlab/serialization.py, nn/modules/module.py, cpp/src/optim/, amp.py."""
import io
import zlib

import ml_dtypes
import numpy as np
import pytest
import safetensors.numpy
import safetensors.torch
import torch

import seqlab
from seqlab import nn
from seqlab.nn.interop import to_torch_state_dict

F16, BF16 = seqlab._core.dtype.float16, seqlab._core.dtype.bfloat16
HALVES = [F16, BF16]
TORCH = {F16: torch.float16, BF16: torch.bfloat16, seqlab.float32: torch.float32, seqlab.float64: torch.float64}
NAME = {F16: "float16", BF16: "bfloat16"}
# float32 values that the 16-bit dtypes keep apart: extremes, a signed zero, subnormals, inf, NaN
SPECIAL = [65504.0, -0.0, 6e-8, 1e-40, float("inf"), -float("inf"), float("nan"), 1 / 3, -2.5e-5, 3e38, 1e4]
# NaNs with payloads, a signalling one among them, as 16-bit patterns: only a bit-for-bit path keeps them
NAN_BITS = {F16: [0x7C01, 0xFE3F, 0x7E00], BF16: [0x7F81, 0xFFC1, 0x7FC0]}


def bits(t):
    """The 16-bit patterns of a seqlab or torch float16/bfloat16 tensor, as a uint16 array."""
    if isinstance(t, seqlab.Tensor):
        t = torch.from_dlpack(t.detach().contiguous())
    return t.detach().contiguous().view(torch.int16).numpy().view(np.uint16)


def torch_half(dtype, shape=(5, 3), seed=0):
    """A torch tensor of `dtype` holding SPECIAL, the NaN payloads and random values."""
    g = torch.Generator().manual_seed(seed)
    t = (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(TORCH[dtype]).reshape(-1)
    t[:len(SPECIAL)] = torch.tensor(SPECIAL).to(TORCH[dtype])
    payloads = torch.from_numpy(np.array(NAN_BITS[dtype], dtype=np.uint16).view(np.int16)).view(TORCH[dtype])
    t[len(SPECIAL):len(SPECIAL) + len(payloads)] = payloads
    return t.reshape(shape)


def to_seqlab(t):
    return seqlab.from_dlpack(t.detach().contiguous())


def f64(t):
    """A seqlab or torch tensor's values as a float64 array."""
    if isinstance(t, seqlab.Tensor):
        t = torch.from_dlpack(t.detach().contiguous())
    return t.detach().double().numpy()


# ---------------------------------------------------------------------------------- serialization
@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
def test_16_bit_tensors_save_as_f16_bf16_that_safetensors_and_torch_read_bit_for_bit(tmp_path, dtype):
    want = torch_half(dtype)
    path = tmp_path / "ckpt.safetensors"
    seqlab.save({"w": to_seqlab(want), "nested": [to_seqlab(want[1:, ::2])]}, path)
    code = {F16: "F16", BF16: "BF16"}[dtype]
    with safetensors.safe_open(str(path), framework="np") as f:
        assert f.get_slice("w").get_dtype() == code and f.get_slice("nested.0").get_dtype() == code
    read = safetensors.torch.load_file(str(path))
    assert read["w"].dtype == TORCH[dtype] and read["nested.0"].dtype == TORCH[dtype]
    np.testing.assert_array_equal(bits(read["w"]), bits(want))
    np.testing.assert_array_equal(bits(read["nested.0"]), bits(want[1:, ::2]))
    arrays = safetensors.numpy.load_file(str(path))   # NumPy's float16, ml_dtypes' bfloat16
    assert arrays["w"].dtype == (np.float16 if dtype == F16 else ml_dtypes.bfloat16)
    np.testing.assert_array_equal(arrays["w"].view(np.uint16), bits(want))


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
def test_f16_bf16_files_written_by_safetensors_torch_load_in_their_dtype_bit_for_bit(tmp_path, dtype):
    want = torch_half(dtype, shape=(4, 6), seed=1)
    path = tmp_path / "hf.safetensors"
    safetensors.torch.save_file({"h": want, "empty": want[:0]}, str(path))
    for source in (path, io.BytesIO(path.read_bytes())):   # a path and a file object
        got = seqlab.load(source)
        assert got["h"].dtype == dtype and tuple(got["h"].shape) == (4, 6)
        assert got["empty"].dtype == dtype and tuple(got["empty"].shape) == (0, 6)
        np.testing.assert_array_equal(bits(got["h"]), bits(want))
        # the values as torch converts them, signed zero and infinities included
        np.testing.assert_array_equal(f64(got["h"].float()), want.float().double().numpy())


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
def test_16_bit_tensors_round_trip_through_seqlab_save_and_load(tmp_path, dtype):
    t = to_seqlab(torch_half(dtype))
    obj = {"model": {"w": t, "b": t[0]}, "optim": {"state": {0: {"exp_avg": t.t()}}}, "step": 3}
    path = tmp_path / "ckpt.safetensors"
    seqlab.save(obj, path)
    buf = io.BytesIO()
    seqlab.save(obj, buf)
    for got in (seqlab.load(path), seqlab.load(io.BytesIO(buf.getvalue()))):
        assert got["step"] == 3
        for a, b in ((got["model"]["w"], t), (got["model"]["b"], t[0]), (got["optim"]["state"][0]["exp_avg"], t.t())):
            assert a.dtype == dtype
            np.testing.assert_array_equal(bits(a), bits(b))


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
def test_a_flipped_bit_in_a_16_bit_tensor_is_refused(tmp_path, dtype):
    path = tmp_path / "ckpt.safetensors"
    seqlab.save({"w": to_seqlab(torch_half(dtype))}, path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x10   # inside the last tensor's bytes
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"tensor 'w' does not match the checksum saved with it"):
        seqlab.load(path)
    # the checksum is of the bytes as stored: the 16-bit patterns themselves
    seqlab.save({"w": to_seqlab(torch_half(dtype))}, path)
    with safetensors.safe_open(str(path), framework="np") as f:
        meta = f.metadata()["seqlab"]
    assert f"{zlib.crc32(bits(torch_half(dtype)).tobytes()):08x}" in meta


def test_a_torch_zip_checkpoint_of_16_bit_tensors_is_refused_naming_the_format(tmp_path):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.ones(3, dtype=torch.float16)}, path)
    with pytest.raises(ValueError, match="torch.save's format, which seqlab does not read"):
        seqlab.load(path)


# ---------------------------------------------------------------------------------- Module conversions
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.bn = nn.BatchNorm1d(2)


class TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.bn = torch.nn.BatchNorm1d(2)


@pytest.mark.parametrize("convert", ["half", "bfloat16", "to"])
def test_half_bfloat16_and_to_convert_floating_parameters_buffers_and_grads_as_torch(convert):
    dtype = BF16 if convert == "bfloat16" else F16
    ours, theirs = Net(), TorchNet()
    ours.load_state_dict(theirs.state_dict())
    params = list(ours.parameters())
    for m in (ours, theirs):
        for p in m.parameters():
            p.grad = p.detach() * 0 + 0.1
    if convert == "to":
        assert ours.to(dtype) is ours
        theirs.to(TORCH[dtype])
    else:
        assert getattr(ours, convert)() is ours
        getattr(theirs, convert)()
    assert list(ours.parameters()) == params   # the same Parameter objects, converted in place
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], name   # num_batches_tracked: int64
        np.testing.assert_array_equal(f64(a) if a.is_floating_point() else a.numpy(),
                                      b.double().numpy() if b.is_floating_point() else b.numpy(), err_msg=name)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert p.grad.dtype == dtype and q.grad.dtype == TORCH[dtype]
        np.testing.assert_array_equal(bits(p.grad), bits(q.grad))
    ours.float()
    assert all(p.dtype == seqlab.float32 and p.grad.dtype == seqlab.float32 for p in ours.parameters())


def test_to_an_integer_dtype_is_refused_as_torch():
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point dtypes"):
        Net().to(seqlab.int64)
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        TorchNet().to(torch.int64)


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
def test_load_state_dict_converts_between_16_bit_and_float32_as_torch(dtype):
    theirs = TorchNet()
    with torch.no_grad():
        theirs.fc.weight.mul_(1000.0)   # values that 16 bits round
    # a 16-bit torch state dict into a float32 model: copied with conversion (exact: widening)
    ours = Net()
    low = {k: (v.to(TORCH[dtype]) if v.is_floating_point() else v) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(low)
    assert ours.fc.weight.dtype == seqlab.float32
    np.testing.assert_array_equal(f64(ours.fc.weight), low["fc.weight"].double().numpy())
    # a float32 torch state dict into a 16-bit model: rounded as torch's copy_
    ours = Net().to(dtype)
    want = TorchNet().to(TORCH[dtype])
    ours.load_state_dict(theirs.state_dict())
    want.load_state_dict(theirs.state_dict())
    assert ours.fc.weight.dtype == dtype
    for name, b in want.state_dict().items():
        a = ours.state_dict()[name]
        if b.is_floating_point():
            np.testing.assert_array_equal(bits(a), bits(b), err_msg=name)
    # NumPy's float16 and ml_dtypes' bfloat16 arrays load too
    ours = Net().to(dtype)
    arrays = {"fc.weight": np.full((2, 3), 1.5, dtype=np.float16 if dtype == F16 else ml_dtypes.bfloat16),
              "fc.bias": np.arange(2, dtype=ml_dtypes.bfloat16)}
    ours.load_state_dict(arrays, strict=False)
    np.testing.assert_array_equal(f64(ours.fc.weight), np.full((2, 3), 1.5))
    np.testing.assert_array_equal(f64(ours.fc.bias), [0.0, 1.0])


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
def test_to_torch_state_dict_of_a_16_bit_model_keeps_its_dtype_and_loads_back(dtype):
    ours = Net()
    ours.fc.weight.data = ours.fc.weight.data * 1000
    ours.to(dtype)
    state = to_torch_state_dict(ours)
    assert state["fc.weight"].dtype == TORCH[dtype] and state["bn.num_batches_tracked"].dtype == torch.int64
    np.testing.assert_array_equal(bits(state["fc.weight"]), bits(ours.fc.weight))
    theirs = TorchNet().to(TORCH[dtype])
    theirs.load_state_dict(state)
    np.testing.assert_array_equal(bits(theirs.fc.weight), bits(ours.fc.weight))
    back = Net().to(dtype)
    back.load_state_dict(theirs.state_dict())
    for name, a in back.state_dict().items():
        if a.is_floating_point():
            assert a.dtype == dtype
            np.testing.assert_array_equal(bits(a), bits(state[name]), err_msg=name)


# ---------------------------------------------------------------------------------- 16-bit forward and backward
# How far seqlab's 16-bit layers may be from torch's: seqlab computes each fused op in float32 and
# rounds its result once, torch rounds after each of its ops, so they differ by a few roundings
TOL = {F16: dict(rtol=2e-2, atol=2e-2), BF16: dict(rtol=8e-2, atol=8e-2)}

LAYERS = {
    "Linear": (lambda lib: lib.nn.Linear(6, 4), (3, 6)),
    "Embedding": (lambda lib: lib.nn.Embedding(10, 4), None),
    "LayerNorm": (lambda lib: lib.nn.LayerNorm(6), (3, 6)),
    "LSTM": (lambda lib: lib.nn.LSTM(6, 4, num_layers=2, batch_first=True), (2, 5, 6)),
    "GRU": (lambda lib: lib.nn.GRU(6, 4), (5, 2, 6)),
    "MultiheadAttention": (lambda lib: lib.nn.MultiheadAttention(8, 2, batch_first=True), (2, 5, 8)),
    # gelu: relu's kink would turn a pre-activation that the two round to either side of 0 into a
    # different gradient row
    "TransformerEncoderLayer": (lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                                                          batch_first=True), (2, 5, 8)),
}


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
@pytest.mark.parametrize("layer", list(LAYERS))
def test_a_16_bit_layer_runs_forward_and_backward_as_torchs(layer, dtype):
    make, shape = LAYERS[layer]
    torch.manual_seed(0)
    theirs = make(torch).to(TORCH[dtype])
    ours = make(seqlab).to(dtype)
    ours.load_state_dict(theirs.state_dict())
    g = torch.Generator().manual_seed(1)
    if shape is None:
        x = torch.randint(0, 10, (3, 4), generator=g)
    else:
        x = torch.randn(shape, generator=g).to(TORCH[dtype])
    args = (x, x, x) if layer == "MultiheadAttention" else (x,)
    want = _first(theirs(*args))
    got = _first(ours(*[to_seqlab(a) for a in args]))
    assert got.dtype == dtype and want.dtype == TORCH[dtype]
    np.testing.assert_allclose(f64(got), f64(want), **TOL[dtype])
    weight = torch.randn(want.shape, generator=g, dtype=torch.float64)
    (want.double() * weight).sum().backward()
    (got.double() * to_seqlab(weight)).sum().backward()
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert p.grad.dtype == dtype and q.grad.dtype == TORCH[dtype], name
        scale = max(float(q.grad.double().abs().max()), 1.0)
        np.testing.assert_allclose(f64(p.grad) / scale, f64(q.grad) / scale, **TOL[dtype], err_msg=name)


# ---------------------------------------------------------------------------------- optimizers
OPTIMIZERS = {
    "SGD": dict(lr=0.1),
    "SGD-momentum-wd": dict(lr=0.1, momentum=0.9, weight_decay=0.01, dampening=0.1),
    "SGD-nesterov-maximize": dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True),
    "Adam": dict(lr=0.01),
    "Adam-amsgrad-wd": dict(lr=0.01, amsgrad=True, weight_decay=0.1, betas=(0.8, 0.9)),
    "AdamW": dict(lr=0.01, weight_decay=0.1),
    "Adagrad": dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5),
    "RMSprop": dict(lr=0.01),
    "RMSprop-centered-momentum": dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1),
}


MANTISSA = {F16: 10, BF16: 7}


def ulps(got, want, dtype):
    """|got - want| in units in the last place of want's 16-bit dtype (NaN where either is)."""
    got, want = f64(got), f64(want)
    _, e = np.frexp(want)
    ulp = np.ldexp(1.0, np.maximum(e - 1, {F16: -14, BF16: -126}[dtype]) - MANTISSA[dtype])
    return np.abs(got - want) / ulp


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizers_step_16_bit_parameters_as_torchs_single_tensor_path(name, dtype):
    cls, kwargs = name.split("-")[0], OPTIMIZERS[name]
    g = torch.Generator().manual_seed(2)
    init = torch.randn(7, 5, generator=g).to(TORCH[dtype])
    q = torch.nn.Parameter(init.clone())
    p = nn.Parameter(to_seqlab(init.clone()))
    theirs = getattr(torch.optim, cls)([q], foreach=False, **kwargs)
    ours = getattr(seqlab.optim, cls)([p], **kwargs)
    for _ in range(6):
        grad = torch.randn(7, 5, generator=g).to(TORCH[dtype])
        q.grad = grad.clone()
        p.grad = to_seqlab(grad.clone())
        theirs.step()
        ours.step()
        assert p.dtype == dtype
        # each op rounded to 16 bits as torch's, so within an ulp or two: torch's own CPU add(x, y,
        # alpha) rounds differently on short tensors (its scalar loop rounds alpha·y to 16 bits
        # first, its vectorised loop does not), so the last bit is not one answer
        assert ulps(p, q, dtype).max() <= 4
    for key, value in theirs.state[q].items():
        mine = ours.state_dict()["state"][0][key]
        if key == "step":
            assert mine.dtype == seqlab.float32 and float(mine) == float(value)
        else:
            assert mine.dtype == dtype, key
            assert ulps(mine, value, dtype).max() <= 4, key


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (0.5, float("inf")), (100.0, 2.0), (1.0, 1.0)])
def test_clip_grad_norm_of_16_bit_gradients_as_torchs(dtype, max_norm, norm_type):
    g = torch.Generator().manual_seed(0)
    grads = [torch.randn(3, 4, generator=g).to(TORCH[dtype]) for _ in range(2)]
    theirs = [torch.nn.Parameter(torch.zeros(3, 4, dtype=TORCH[dtype])) for _ in grads]
    ours = [nn.Parameter(seqlab.zeros(3, 4).to(dtype)) for _ in grads]
    for q, p, grad in zip(theirs, ours, grads):
        q.grad, p.grad = grad.clone(), to_seqlab(grad.clone())
    want = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    got = nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    assert got.dtype == dtype and want.dtype == TORCH[dtype]
    np.testing.assert_array_equal(bits(got), bits(want))
    for p, q in zip(ours, theirs):
        assert p.grad.dtype == dtype
        np.testing.assert_array_equal(bits(p.grad), bits(q.grad))


@pytest.mark.parametrize("dtype", HALVES, ids=NAME.get)
def test_layers_made_with_a_16_bit_dtype_hold_initialised_16_bit_parameters(dtype):
    lin = nn.Linear(40, 30, dtype=dtype)
    assert lin.weight.dtype == lin.bias.dtype == dtype and lin.weight.requires_grad and lin.weight.is_leaf
    bound = 1 / np.sqrt(40)   # kaiming_uniform_(a=√5): U(-1/√fan_in, 1/√fan_in), as torch's
    w = f64(lin.weight)
    assert np.all(np.abs(w) <= bound * 1.01) and w.std() > bound / 3
    assert torch.nn.Linear(40, 30, dtype=TORCH[dtype]).weight.dtype == TORCH[dtype]
    emb = nn.Embedding(7, 5, dtype=dtype)
    assert emb.weight.dtype == dtype and 0.5 < f64(emb.weight).std() < 2
    p = nn.Parameter(seqlab.zeros(4, 4).to(dtype))
    nn.init.orthogonal_(p)
    assert p.is_leaf and p.grad_fn is None and p.dtype == dtype
    np.testing.assert_allclose(f64(p) @ f64(p).T, np.eye(4), atol=0.05)
    nn.init.constant_(p, 1 / 3)
    np.testing.assert_array_equal(bits(p), bits(torch.full((4, 4), 1 / 3, dtype=TORCH[dtype])))


def test_a_16_bit_optimizer_state_round_trips_through_a_checkpoint(tmp_path):
    p = nn.Parameter(seqlab.randn(4, 3).to(BF16))
    opt = seqlab.optim.Adam([p], lr=0.01)
    p.grad = seqlab.randn(4, 3).to(BF16)
    opt.step()
    seqlab.save(opt.state_dict(), tmp_path / "optim.safetensors")
    state = seqlab.load(tmp_path / "optim.safetensors")
    assert state["state"][0]["exp_avg"].dtype == BF16
    again = seqlab.optim.Adam([p], lr=0.01)
    again.load_state_dict(state)
    np.testing.assert_array_equal(bits(again.state_dict()["state"][0]["exp_avg_sq"]),
                                  bits(opt.state_dict()["state"][0]["exp_avg_sq"]))


# ---------------------------------------------------------------------------------- autocast
def test_autocast_reports_torchs_dtypes_and_lowers_no_op():
    assert seqlab.get_autocast_dtype("cpu") == BF16 and torch.get_autocast_dtype("cpu") == torch.bfloat16
    assert seqlab.get_autocast_dtype("cuda") == F16 and torch.get_autocast_dtype("cuda") == torch.float16
    x = seqlab.randn(3, 4)
    lin = nn.Linear(4, 2)
    with seqlab.autocast("cpu", dtype=BF16):
        assert seqlab.is_autocast_enabled("cpu") and seqlab.get_autocast_dtype("cpu") == BF16
        # a documented no-op: torch's CPU autocast would give bfloat16 here
        assert (x @ x.t()).dtype == seqlab.float32 and lin(x).dtype == seqlab.float32
    with seqlab.autocast("cpu", dtype=F16):
        assert seqlab.get_autocast_dtype("cpu") == F16
    assert seqlab.get_autocast_dtype("cpu") == BF16
