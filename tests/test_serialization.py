"""Checkpoints: seqlab.save / seqlab.load (python/seqlab/serialization.py).

The file is a safetensors file: the round trip keeps nesting, key types, plain values and every
dtype; the `safetensors` package (numpy and torch back ends) and a tiny reader written here read
it without seqlab; saves are atomic under exceptions and under SIGKILL of the saving process;
truncated or corrupt files raise ValueError naming the file.
"""

import collections
import io
import json
import math
import os
import re
import signal
import struct
import subprocess
import sys
import textwrap
import time
import zlib

import numpy as np
import pytest
import safetensors.numpy
import safetensors.torch
import torch

import seqlab
from seqlab import serialization
from seqlab.serialization import load, save
from conftest import sl_np


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------

def assert_same(got, expected, where="obj"):
    """`got` equals `expected` exactly: same container types, key types and order, plain values,
    tensor dtypes, shapes and bytes (so -0.0 and NaN payloads count)."""
    if isinstance(expected, seqlab.Tensor):
        assert isinstance(got, seqlab.Tensor), f"{where}: {type(got).__name__} is not a tensor"
        assert got.dtype == expected.dtype, f"{where}: dtype {got.dtype} != {expected.dtype}"
        assert tuple(got.shape) == tuple(expected.shape), f"{where}: shape {tuple(got.shape)} != {tuple(expected.shape)}"
        assert sl_np(got).tobytes() == sl_np(expected).tobytes(), f"{where}: values differ"
        assert not got.requires_grad, where
        if got.numel():  # (seqlab's is_contiguous() is False for some size-0 shapes, e.g. (2, 0, 3))
            assert got.is_contiguous(), where
        return
    assert type(got) is type(expected), f"{where}: {type(got).__name__} != {type(expected).__name__}"
    if isinstance(expected, dict):
        assert [(type(k), k) for k in got] == [(type(k), k) for k in expected], f"{where}: keys differ"
        for k in expected:
            assert_same(got[k], expected[k], f"{where}[{k!r}]")
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected), f"{where}: length {len(got)} != {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{where}[{i}]")
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got), where
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


def every_dtype_tensors():
    f32 = np.array([[0.0, -0.0, 1.5, -2.25], [np.inf, -np.inf, np.nan, 1e-40]], dtype=np.float32)
    f64 = np.array([math.pi, -1e300, 5e-324, np.nan], dtype=np.float64)
    i64 = np.array([np.iinfo(np.int64).min, -1, 0, np.iinfo(np.int64).max], dtype=np.int64)
    b = np.array([[True, False, True], [False, False, True]])
    return {
        "f32": seqlab.from_numpy(f32.copy()),
        "f64": seqlab.from_numpy(f64.copy()),
        "i64": seqlab.from_numpy(i64.copy()),
        "bool": seqlab.from_numpy(b.copy()),
        "scalar_f32": seqlab.tensor(2.5),
        "scalar_f64": seqlab.tensor(-7.0, dtype=seqlab.float64),
        "scalar_i64": seqlab.tensor(3),
        "scalar_bool": seqlab.tensor(True),
        "empty_f32": seqlab.zeros(0),
        "empty_f64": seqlab.zeros(2, 0, 3, dtype=seqlab.float64),
        "empty_i64": seqlab.zeros(0, 4, dtype=seqlab.int64),
        "empty_bool": seqlab.zeros(3, 0, dtype=seqlab.bool),
        # non-contiguous: a transpose, a strided slice, an expand (stride 0)
        "transposed": seqlab.randn(3, 5).t(),
        "strided": seqlab.arange(20).reshape(4, 5)[::2, 1::2],
        "expanded": seqlab.tensor([1.0, 2.0, 3.0], dtype=seqlab.float64).expand(4, 3),
    }


def model_and_optimizer_state():
    """What torch's model.state_dict() and Adam's optimizer.state_dict() look like."""
    model = collections.OrderedDict([
        ("embed.weight", seqlab.randn(10, 4)),
        ("rnn.weight_ih_l0", seqlab.randn(12, 4)),
        ("rnn.bias_ih_l0", seqlab.randn(12)),
        ("bn.num_batches_tracked", seqlab.tensor(7)),
    ])
    optim = {
        "state": {i: {"step": seqlab.tensor(5.0), "exp_avg": seqlab.randn(*t.shape), "exp_avg_sq": seqlab.rand(*t.shape)}
                  for i, t in enumerate(list(model.values())[:3])},
        "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0, "amsgrad": False,
                          "maximize": False, "foreach": None, "capturable": False, "params": [0, 1, 2]}],
    }
    return {"model": model, "optimizer": optim, "epoch": 3, "best_loss": 1.25, "note": "run α"}


def tiny_reader(path):
    """An independent safetensors reader (the format is 20 lines): {name: array}, metadata."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    body = data[8 + n:]
    types = {"F32": "<f4", "F64": "<f8", "I64": "<i8", "BOOL": "|b1"}
    arrays = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        arrays[name] = np.frombuffer(body[begin:end], dtype=types[info["dtype"]]).reshape(info["shape"])
    return arrays, metadata, header, n


def tmp_files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".tmp"))


# ----------------------------------------------------------------------------------------
# round trip
# ----------------------------------------------------------------------------------------

def test_round_trip_nested_structure_with_every_dtype_0d_and_size0(tmp_path):
    tensors = every_dtype_tensors()
    obj = {
        "tensors": tensors,
        "nested": {"list": [tensors["f32"], 1, [2.5, None], {"deep": (tensors["bool"], "x")}],
                   "tuple": (tensors["scalar_i64"], (), []), "empty": {}},
        "plain": [0, -3, 2 ** 70, 1.0, -0.5, float("inf"), float("-inf"), float("nan"), True, False, None,
                  "", "unicode ✓ \"quoted\" \n newline", "a.b"],
        "ordered": collections.OrderedDict([("z", 1), ("a", tensors["i64"])]),
    }
    path = tmp_path / "ckpt.safetensors"
    save(obj, path)
    loaded = load(path)
    assert_same(loaded, obj)
    assert type(loaded["ordered"]) is collections.OrderedDict and type(loaded) is dict
    assert tmp_files(tmp_path) == []


def test_a_bare_tensor_list_or_plain_value_round_trips(tmp_path):
    for obj in [seqlab.randn(2, 3), [seqlab.ones(2), 3], 42, None, "text"]:
        save(obj, tmp_path / "x.safetensors")
        assert_same(load(tmp_path / "x.safetensors"), obj)


def test_model_and_optimizer_state_dicts_keep_int_keys_and_order(tmp_path):
    obj = model_and_optimizer_state()
    save(obj, tmp_path / "ckpt.safetensors")
    loaded = load(str(tmp_path / "ckpt.safetensors"))
    assert_same(loaded, obj)
    assert list(loaded["optimizer"]["state"]) == [0, 1, 2]
    assert all(type(k) is int for k in loaded["optimizer"]["state"])
    assert loaded["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)


def test_key_types_are_preserved_even_when_their_names_collide(tmp_path):
    a, b, c, d = (seqlab.full((2,), float(v)) for v in range(4))
    # int 0 and str "0" are different keys; {'a.b': ...} and {'a': {'b': ...}} share one dotted name
    obj = {0: a, "0": b, "a.b": c, "a": {"b": d}, 1.5: "float key", None: "none key", True: "bool key"}
    save(obj, tmp_path / "k.safetensors")
    loaded = load(tmp_path / "k.safetensors")
    assert_same(loaded, obj)
    names = safetensors.numpy.load_file(str(tmp_path / "k.safetensors"))
    assert len(names) == 4 and {"0", "a.b"} <= names.keys()  # the second of each gets a '#1' suffix
    assert sorted(float(v[0]) for v in names.values()) == [0.0, 1.0, 2.0, 3.0]


def test_requires_grad_tensors_are_saved_detached_and_load_as_plain_leaves(tmp_path):
    w = seqlab.randn(3, 2, requires_grad=True)
    (w * 2).sum().backward()
    save({"w": w, "h": w * 3}, tmp_path / "g.safetensors")
    loaded = load(tmp_path / "g.safetensors")
    assert not loaded["w"].requires_grad and loaded["w"].grad is None and loaded["w"].is_leaf
    np.testing.assert_array_equal(sl_np(loaded["h"]), sl_np(w) * 3)


def test_shared_storage_is_saved_as_separate_copies(tmp_path):
    base = seqlab.arange(6, dtype=seqlab.float32)
    obj = {"base": base, "view": base[2:5], "tied": base}
    save(obj, tmp_path / "s.safetensors")
    loaded = load(tmp_path / "s.safetensors")
    assert_same(loaded, obj)
    loaded["base"].fill_(-1.0)          # the copies are independent after loading
    assert loaded["view"].tolist() == [2.0, 3.0, 4.0]
    assert loaded["tied"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_loaded_tensors_own_their_memory(tmp_path):
    path = tmp_path / "m.safetensors"
    save({"x": seqlab.arange(1000, dtype=seqlab.float64)}, path)
    x = load(path)["x"]
    save({"x": seqlab.zeros(1000, dtype=seqlab.float64)}, path)   # a new file at the same path
    os.remove(path)
    assert x.sum().item() == sum(range(1000))
    x.add_(1.0)                                                  # writable
    assert x[0].item() == 1.0


def test_load_accepts_and_ignores_torch_arguments(tmp_path):
    obj = {"w": seqlab.randn(2, 2)}
    save(obj, tmp_path / "t.safetensors")
    assert_same(load(tmp_path / "t.safetensors", map_location="cpu", weights_only=True), obj)
    assert_same(load(tmp_path / "t.safetensors", map_location=torch.device("cpu"), weights_only=False), obj)
    assert_same(load(tmp_path / "t.safetensors", None, True), obj)


def test_load_of_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "nope.safetensors")


# ----------------------------------------------------------------------------------------
# the format: other readers
# ----------------------------------------------------------------------------------------

def test_the_file_is_a_plain_safetensors_file_with_state_dict_names(tmp_path):
    obj = model_and_optimizer_state()
    obj["tensors"] = every_dtype_tensors()
    path = tmp_path / "ckpt.safetensors"
    save(obj, path)

    expected = {f"model.{k}": v for k, v in obj["model"].items()}
    for i, group in obj["optimizer"]["state"].items():
        expected.update({f"optimizer.state.{i}.{k}": v for k, v in group.items()})
    expected.update({f"tensors.{k}": v for k, v in obj["tensors"].items()})

    for arrays in (safetensors.numpy.load_file(str(path)), tiny_reader(path)[0]):
        assert sorted(arrays) == sorted(expected)
        for name, t in expected.items():
            a = arrays[name]
            assert a.dtype == sl_np(t).dtype and a.shape == tuple(t.shape), name
            assert a.tobytes() == sl_np(t).tobytes(), name

    arrays, metadata, header, n = tiny_reader(path)
    assert n % 8 == 0                                  # the data start 8-byte aligned
    assert set(metadata) == {"seqlab"}                # one entry: the structure and the checksums, as JSON
    entry = json.loads(metadata["seqlab"])
    assert set(entry) == {"structure", "crc32"}
    structure = json.loads(entry["structure"])
    assert structure["version"] == 2
    crc = entry["crc32"]                              # zlib's CRC-32 of each tensor's stored bytes
    assert crc["structure"] == f"{zlib.crc32(entry['structure'].encode()):08x}"
    assert crc["tensors"] == {name: f"{zlib.crc32(a.tobytes()):08x}" for name, a in arrays.items()}
    spans = sorted(info["data_offsets"] for info in header.values())
    assert spans[0][0] == 0 and all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert spans[-1][1] == os.path.getsize(path) - 8 - n
    with safetensors.safe_open(str(path), framework="np") as f:
        assert f.metadata() == metadata


def test_two_processes_save_the_same_object_to_the_same_bytes(tmp_path):
    # the library writes __metadata__ from a hash map seeded per process: with two entries their
    # order (and so the file) changed from run to run; one entry has one order
    script = textwrap.dedent("""
        import collections, sys
        import seqlab
        model = collections.OrderedDict([("fc.weight", seqlab.arange(12.0).reshape(3, 4)),
                                         ("fc.bias", seqlab.tensor([1.0, -2.0, 0.5])),
                                         ("bn.num_batches_tracked", seqlab.tensor(7))])
        seqlab.save({"model": model, "optimizer": {"state": {0: {"step": seqlab.tensor(3.0)}},
                                                   "param_groups": [{"lr": 0.1, "params": [0]}]},
                     "epoch": 3, "note": "run"}, sys.argv[1])
    """)
    contents = set()
    for i in range(8):   # (two orders, so eight runs of the old writer agreed once in 128)
        path = tmp_path / f"run{i}.safetensors"
        subprocess.run([sys.executable, "-c", script, str(path)], check=True, timeout=120)
        contents.add(path.read_bytes())
    assert len(contents) == 1


def legacy_file(path, obj_arrays, structure_root, checksums=True):
    """A format-version-1 checkpoint, as the writers before version 2 left it: the structure
    under "seqlab.structure" and (since the checksums) their JSON under "seqlab.crc32"."""
    structure = json.dumps({"version": 1, "root": structure_root}, separators=(",", ":"))
    metadata = {"seqlab.structure": structure}
    if checksums:
        metadata["seqlab.crc32"] = json.dumps({
            "structure": f"{zlib.crc32(structure.encode()):08x}",
            "tensors": {name: f"{zlib.crc32(a.tobytes()):08x}" for name, a in obj_arrays.items()}})
    safetensors.numpy.save_file(obj_arrays, str(path), metadata)


LEGACY_ARRAYS = {"model.w": np.arange(6, dtype=np.float32).reshape(2, 3), "model.b": np.array([1, -1], dtype=np.int64)}
LEGACY_ROOT = {"dict": [["model", {"odict": [["w", {"tensor": "model.w"}], ["b", {"tensor": "model.b"}]]}],
                        [0, {"float": "nan"}], ["epoch", 3]]}


@pytest.mark.parametrize("checksums", [True, False], ids=["with-checksums", "before-checksums"])
def test_version_1_files_still_load_from_a_path_and_a_file_object(tmp_path, checksums):
    path = tmp_path / "v1.safetensors"
    legacy_file(path, LEGACY_ARRAYS, LEGACY_ROOT, checksums)
    expected = {"model": collections.OrderedDict([("w", seqlab.from_numpy(LEGACY_ARRAYS["model.w"].copy())),
                                                  ("b", seqlab.from_numpy(LEGACY_ARRAYS["model.b"].copy()))]),
                0: math.nan, "epoch": 3}
    assert_same(load(path), expected)
    with open(path, "rb") as f:
        assert_same(load(f), expected)
    if checksums:  # and their checksums are checked
        content = bytearray(path.read_bytes())
        content[-1] ^= 0x04                      # (model.w: the F32 data come after the I64)
        path.write_bytes(content)
        with pytest.raises(ValueError, match=re.escape(str(path)) + ".*tensor 'model.w' does not match the checksum"):
            load(path)


def flips_in_metadata_keys(content, keys):
    """Every one-bit flip of `content` inside the header's text of the metadata key names `keys`."""
    (n,) = struct.unpack("<Q", content[:8])
    header = bytes(content[8:8 + n])
    for key in keys:
        start = 8 + header.index(json.dumps(key).encode())
        for byte in range(start, start + len(key) + 2):      # the name and its quotes
            for bit in range(8):
                flipped = bytearray(content)
                flipped[byte] ^= 1 << bit
                yield flipped


@pytest.mark.parametrize("layout", ["version-2", "version-1"])
def test_a_flipped_bit_in_a_metadata_key_name_never_loads_different_content(tmp_path, layout):
    path, bad = tmp_path / "ckpt.safetensors", tmp_path / "flipped.safetensors"
    if layout == "version-2":
        save({"model": {"w": seqlab.arange(6.0).reshape(2, 3), "b": seqlab.tensor([1, -1])}, 0: math.nan,
              "epoch": 3}, path)
        keys = ["seqlab"]
    else:
        legacy_file(path, LEGACY_ARRAYS, LEGACY_ROOT)
        keys = ["seqlab.structure", "seqlab.crc32"]
    expected = load(path)
    content = path.read_bytes()
    refused = 0
    for flipped in flips_in_metadata_keys(content, keys):
        bad.write_bytes(flipped)
        for source in (lambda: bad, lambda: io.BytesIO(bytes(flipped))):
            try:
                got = load(source())
            except ValueError as e:
                assert str(bad) in str(e) or "BytesIO" in str(e), e
                refused += 1
                continue
            assert_same(got, expected)   # e.g. a damaged "seqlab.crc32": the structure loads unchecked
    assert refused > 0


def test_checksums_without_their_structure_are_refused(tmp_path):
    # a damaged "seqlab.structure" key name once made a checkpoint load as a flat {name: tensor} dict
    path = tmp_path / "ckpt.safetensors"
    legacy_file(path, LEGACY_ARRAYS, LEGACY_ROOT)
    content = path.read_bytes().replace(b'"seqlab.structure"', b'"seqlab.structurf"')
    path.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*'seqlab.structurf' holds seqlab's"):
        load(path)
    arrays = dict(LEGACY_ARRAYS)
    safetensors.numpy.save_file(arrays, str(path), {"seqlab.crc32": json.dumps({
        "structure": "00000000", "tensors": {name: f"{zlib.crc32(a.tobytes()):08x}" for name, a in arrays.items()}})})
    for source in (path, io.BytesIO(path.read_bytes())):
        with pytest.raises(ValueError, match="holds seqlab's checksums but there is no seqlab.structure metadata"):
            load(source)


def test_a_plain_file_loads_in_the_files_order_from_a_path_and_a_file_object(tmp_path):
    # safetensors.deserialize gives the tensors in hash-map order; load gives them in the file's
    path = tmp_path / "plain.safetensors"
    arrays = {f"layer{i}.{kind}": np.full((i % 3, 2), i, dtype=np.float32 if i % 2 else np.int64)
              for i in range(12) for kind in ("weight", "bias")}
    safetensors.numpy.save_file(arrays, str(path))
    _, _, header, _ = tiny_reader(path)
    in_file = sorted(header, key=lambda name: header[name]["data_offsets"])  # (stable: ties in header order)
    assert list(load(path)) == in_file
    with open(path, "rb") as f:
        assert list(load(f)) == in_file
    assert list(load(io.BytesIO(path.read_bytes()))) == in_file


def test_a_checkpoint_gets_the_old_files_permissions_or_0o644(tmp_path):
    # the library renames its own 0600 temporary over the one atomic_path hands it: the
    # permissions are set after it wrote
    old_umask = os.umask(0o022)
    try:
        path = tmp_path / "ckpt.safetensors"
        save({"w": seqlab.zeros(3)}, path)
        assert path.stat().st_mode & 0o777 == 0o644
        path.chmod(0o640)
        save({"w": seqlab.ones(3)}, path)
        assert path.stat().st_mode & 0o777 == 0o640
        assert_same(load(path), {"w": seqlab.ones(3)})
    finally:
        os.umask(old_umask)


def test_torch_reads_seqlab_checkpoints_through_safetensors(tmp_path):
    tensors = every_dtype_tensors()
    path = tmp_path / "t.safetensors"
    save(tensors, path)
    loaded = safetensors.torch.load_file(str(path))
    torch_dtype = {seqlab.float32: torch.float32, seqlab.float64: torch.float64,
                   seqlab.int64: torch.int64, seqlab.bool: torch.bool}
    assert sorted(loaded) == sorted(tensors)
    for name, t in tensors.items():
        assert loaded[name].dtype == torch_dtype[t.dtype], name
        assert tuple(loaded[name].shape) == tuple(t.shape), name
        assert loaded[name].numpy().tobytes() == sl_np(t).tobytes(), name   # bit for bit, NaN and -0.0 too

    # a seqlab state dict loads unchanged into the matching torch module
    state = {"weight": seqlab.randn(3, 4), "bias": seqlab.randn(3)}
    save(state, tmp_path / "linear.safetensors")
    linear = torch.nn.Linear(4, 3)
    linear.load_state_dict(safetensors.torch.load_file(str(tmp_path / "linear.safetensors")))
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    expected = x @ sl_np(state["weight"]).T + sl_np(state["bias"])
    np.testing.assert_allclose(linear(torch.from_numpy(x)).detach().numpy(), expected, rtol=1e-5, atol=1e-6)


def test_seqlab_loads_safetensors_files_written_by_torch(tmp_path):
    state = torch.nn.Linear(4, 3).state_dict()
    state["mask"] = torch.tensor([True, False])
    state["steps"] = torch.arange(3)
    path = tmp_path / "torch.safetensors"
    safetensors.torch.save_file(state, str(path), metadata={"format": "pt"})
    loaded = load(path)                    # no seqlab structure: a flat {name: tensor} dict
    assert sorted(loaded) == sorted(state)
    for name, t in state.items():
        np.testing.assert_array_equal(sl_np(loaded[name]), t.numpy(), err_msg=name)
        assert sl_np(loaded[name]).dtype == t.numpy().dtype

    # 16-bit floats (as Hugging Face checkpoints store them) load in their own dtype, bit for bit
    half = torch.randn(5, 3, dtype=torch.float64) * 100
    half[0, :] = torch.tensor([65504.0, -0.0, 6e-8])  # F16's largest, a signed zero, a subnormal
    safetensors.torch.save_file({"h": half.half(), "b": half.bfloat16()}, str(path))
    loaded = load(path)
    for name, t in (("h", half.half()), ("b", half.bfloat16())):
        assert loaded[name].dtype == getattr(seqlab._core.dtype, str(t.dtype).split(".")[1])
        assert tuple(loaded[name].shape) == (5, 3)
        got = torch.from_dlpack(loaded[name])
        np.testing.assert_array_equal(got.view(torch.int16).numpy(), t.view(torch.int16).numpy(), err_msg=name)
        np.testing.assert_array_equal(sl_np(loaded[name].float()), t.float().numpy(), err_msg=name)
        assert np.signbit(sl_np(loaded[name].float())[0, 1])

    safetensors.torch.save_file({"z": torch.ones(2, dtype=torch.complex64)}, str(path))
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*'z' has dtype 'C64'"):
        load(path)


ALL_DTYPES = {seqlab.float32: (np.float32, torch.float32), seqlab.float64: (np.float64, torch.float64),
              seqlab.int64: (np.int64, torch.int64), seqlab.int32: (np.int32, torch.int32),
              seqlab.int16: (np.int16, torch.int16), seqlab.int8: (np.int8, torch.int8),
              seqlab.uint8: (np.uint8, torch.uint8), seqlab.bool: (np.bool_, torch.bool)}


def all_dtype_arrays():
    """One array per seqlab dtype, with each type's extremes (and -0.0, NaN, a subnormal for floats)."""
    rng = np.random.default_rng(3)
    out = {}
    for np_type, _ in ALL_DTYPES.values():
        if np_type is np.bool_:
            a = rng.random((2, 3)) > 0.5
        elif np.issubdtype(np_type, np.integer):
            info = np.iinfo(np_type)
            a = np.concatenate([[info.min, info.max, 0], rng.integers(info.min, info.max, 3, dtype=np_type)])
        else:
            a = np.concatenate([[-0.0, np.nan, np.finfo(np_type).smallest_subnormal], rng.standard_normal(3)])
        out[np.dtype(np_type).name] = np.ascontiguousarray(a.astype(np_type).reshape(2, 3))
    return out


def test_every_seqlab_dtype_goes_both_ways_with_the_safetensors_readers_and_writers(tmp_path):
    arrays = all_dtype_arrays()
    tensors = {name: seqlab.from_numpy(a.copy()) for name, a in arrays.items()}
    assert {t.dtype for t in tensors.values()} == set(ALL_DTYPES)
    path = tmp_path / "ours.safetensors"
    save(tensors, path)
    # seqlab's file, read by safetensors' NumPy API (from the path and from bytes) and by torch's loader
    for theirs in (safetensors.numpy.load_file(str(path)), safetensors.numpy.load(path.read_bytes())):
        assert sorted(theirs) == sorted(arrays)
        for name, a in arrays.items():
            assert theirs[name].dtype == a.dtype and theirs[name].tobytes() == a.tobytes(), name
    loaded = safetensors.torch.load_file(str(path))
    for name, t in tensors.items():
        assert loaded[name].dtype == ALL_DTYPES[t.dtype][1], name
        assert loaded[name].numpy().tobytes() == arrays[name].tobytes(), name
    # files written by safetensors' NumPy and torch writers, read by seqlab (from a path and a file object)
    safetensors.numpy.save_file(arrays, str(tmp_path / "numpy.safetensors"))
    safetensors.torch.save_file({k: torch.from_numpy(a.copy()) for k, a in arrays.items()},
                                str(tmp_path / "torch.safetensors"))
    for name in ("numpy.safetensors", "torch.safetensors"):
        with open(tmp_path / name, "rb") as f:
            for got in (load(tmp_path / name), load(f)):
                assert sorted(got) == sorted(arrays)
                for key, a in arrays.items():
                    assert got[key].dtype == seqlab.from_numpy(a.copy()).dtype, (name, key)
                    assert sl_np(got[key]).tobytes() == a.tobytes(), (name, key)


def test_16_bit_floats_load_from_a_file_object_too(tmp_path):
    half = torch.randn(4, 3, dtype=torch.float64) * 100
    buf = io.BytesIO(safetensors.torch.save({"h": half.half(), "b": half.bfloat16()}))
    loaded = load(buf)
    for name, t in (("h", half.half()), ("b", half.bfloat16())):
        assert loaded[name].dtype == getattr(seqlab._core.dtype, str(t.dtype).split(".")[1])
        got = torch.from_dlpack(loaded[name])
        np.testing.assert_array_equal(got.view(torch.int16).numpy(), t.view(torch.int16).numpy(), err_msg=name)


def test_a_flipped_bit_is_refused_naming_the_file_and_the_tensor(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    save({"model": {"w": seqlab.randn(4, 5), "b": seqlab.zeros(5)}, "epoch": 2}, path)
    content = bytearray(path.read_bytes())
    (n,) = struct.unpack("<Q", content[:8])
    begin, _ = json.loads(content[8:8 + n])["model.w"]["data_offsets"]
    for bit in (0, 13, 31):
        flipped = bytearray(content)
        flipped[8 + n + begin + bit // 8] ^= 1 << (bit % 8)
        bad = tmp_path / "flipped.safetensors"
        bad.write_bytes(flipped)
        assert safetensors.numpy.load_file(str(bad))["model.w"].shape == (4, 5)   # still a valid safetensors file
        with pytest.raises(ValueError, match=re.escape(str(bad)) + ".*tensor 'model.w' does not match the checksum"):
            load(bad)
        with open(bad, "rb") as f, pytest.raises(ValueError, match="tensor 'model.w' does not match the checksum"):
            load(f)


# ----------------------------------------------------------------------------------------
# atomicity
# ----------------------------------------------------------------------------------------

def test_an_unsupported_object_raises_and_leaves_the_old_file(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    old = model_and_optimizer_state()
    save(old, path)
    before = path.read_bytes()

    cyclic = {"a": 1}
    cyclic["self"] = cyclic
    cases = [
        ({"model": {"w": seqlab.ones(2)}, "fn": object()}, TypeError, r"type object \(at obj\['fn'\]\)"),
        ({"arr": np.zeros(3)}, TypeError, r"ndarray \(at obj\['arr'\]\)"),
        ({"s": {1, 2}}, TypeError, r"set"),
        ({(1, 2): seqlab.ones(1)}, TypeError, r"dict key of type tuple"),
        (cyclic, ValueError, r"obj\['self'\] contains itself"),
    ]
    for obj, exc, message in cases:
        with pytest.raises(exc, match=message):
            save(obj, path)
        assert path.read_bytes() == before
        assert os.listdir(tmp_path) == ["ckpt.safetensors"]
    assert_same(load(path), old)

    with pytest.raises(TypeError):
        save({"x": object()}, tmp_path / "new.safetensors")   # a failed first save writes nothing
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]


@pytest.mark.parametrize("failure", ["write", "fsync", "replace"])
def test_a_failure_mid_save_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, failure):
    path = tmp_path / "ckpt.safetensors"
    old = model_and_optimizer_state()
    save(old, path)
    before = path.read_bytes()

    if failure == "write":
        real_save_file = safetensors.numpy.save_file

        def failing_write(arrays, filename, metadata=None):
            real_save_file(arrays, filename, metadata)
            os.truncate(filename, os.path.getsize(filename) // 2)  # half of the file is written ...
            raise OSError(28, "No space left on device")           # ... then the disk is full
        monkeypatch.setattr(safetensors.numpy, "save_file", failing_write)
    elif failure == "fsync":
        def failing_fsync(fd):
            raise OSError(5, "Input/output error")
        monkeypatch.setattr(os, "fsync", failing_fsync)
    else:
        def failing_replace(src, dst):
            raise OSError(18, "Invalid cross-device link")
        monkeypatch.setattr(os, "replace", failing_replace)

    with pytest.raises(OSError):
        save(model_and_optimizer_state(), path)
    with pytest.raises(OSError):
        save(model_and_optimizer_state(), tmp_path / "first.safetensors")
    monkeypatch.undo()

    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]    # no temporary, no half-written first file
    assert_same(load(path), old)


CHILD = textwrap.dedent("""
    import sys, time
    import seqlab
    from seqlab import serialization

    path, mode = sys.argv[1], sys.argv[2]

    def state(step):   # ~16 MB; every tensor holds `step`, so a mixed checkpoint would show
        return {"step": step,
                "model": {f"layer{i}.weight": seqlab.full((512, 1024), float(step)) for i in range(8)},
                "optimizer": {"state": {0: {"step": seqlab.tensor(step)}}, "param_groups": [{"lr": 0.1}]}}

    deadline = time.time() + 60          # never outlive a broken parent
    if mode == "mid-write":              # stop for good with half of the file written
        import os, safetensors.numpy
        real = safetensors.numpy.save_file
        def write(arrays, filename, metadata=None):
            real(arrays, filename, metadata)
            os.truncate(filename, os.path.getsize(filename) // 2)
            print("mid-write", flush=True)
            while time.time() < deadline:
                time.sleep(0.1)
        safetensors.numpy.save_file = write
    step = 1
    while time.time() < deadline:
        print("saving", step, flush=True)
        serialization.save(state(step), path)
        step += 1
""")


def assert_consistent_checkpoint(path, steps):
    ckpt = load(path)
    step = ckpt["step"]
    assert step in steps, f"step {step} not in {steps}"
    assert ckpt["optimizer"]["state"][0]["step"].item() == step
    assert len(ckpt["model"]) == 8
    for name, t in ckpt["model"].items():
        assert tuple(t.shape) == (512, 1024)
        assert t.min().item() == step and t.max().item() == step, name
    return step


def run_child_and_kill(path, mode, delay=None, wait_for="saving 1"):
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), mode],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while True:
            line = child.stdout.readline()
            assert line, f"child exited early: {child.wait()} {child.stderr.read()}"
            lines.append(line.strip())
            if line.strip() == wait_for:
                break
        if delay:
            time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL
        lines += child.stdout.read().splitlines()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        child.stderr.close()
    return [int(line.split()[1]) for line in lines if line.startswith("saving")]


def test_a_process_killed_halfway_through_a_save_leaves_the_old_checkpoint(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    save({"step": 0, "model": {f"layer{i}.weight": seqlab.zeros(512, 1024) for i in range(8)},
          "optimizer": {"state": {0: {"step": seqlab.tensor(0)}}, "param_groups": [{"lr": 0.1}]}}, path)
    before = path.read_bytes()

    run_child_and_kill(path, "mid-write", wait_for="mid-write")
    assert path.read_bytes() == before
    assert assert_consistent_checkpoint(path, {0}) == 0
    stray = tmp_files(tmp_path)              # SIGKILL leaves the half-written temporary behind
    assert len(stray) == 1 and stray[0].startswith(".ckpt.safetensors.")
    assert 0 < os.path.getsize(tmp_path / stray[0]) < len(before)

    # killed at arbitrary moments of a save loop: always the old or a complete new checkpoint
    previous = 0
    for delay in (0.0, 0.02, 0.07, 0.15, 0.3):
        steps = run_child_and_kill(path, "loop", delay=delay)
        previous = assert_consistent_checkpoint(path, {previous, *steps})
    # a later save in the same directory is unaffected by the stray temporaries
    save({"step": 99}, path)
    assert load(path) == {"step": 99}


# ----------------------------------------------------------------------------------------
# corrupt files
# ----------------------------------------------------------------------------------------

def raw_file(header, data=b"", n=None):
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    return struct.pack("<Q", len(text) if n is None else n) + text + data


F32x2 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}

CORRUPT = [
    (b"", "0 bytes, fewer than the 8-byte header length"),
    (b"\x10\x00\x00", "3 bytes"),
    (raw_file({"x": F32x2}, b"\x00" * 8, n=10 ** 12), "header length is 1000000000000 bytes"),
    (raw_file({"x": F32x2}, b"", n=500), "header length is 500 bytes but the file has"),
    (raw_file(b'{"x": {"dtype": "F32", "sha', b"\x00" * 8), "not valid JSON"),
    (raw_file(b"\xff\xfe{}"), "not valid JSON"),
    (raw_file([1, 2]), "a JSON list, not an object"),
    (raw_file({"__metadata__": {"a": 1}}), "__metadata__ must map strings to strings"),
    (raw_file({"x": [0, 8]}), "expected an object with dtype, shape and data_offsets"),
    (raw_file({"x": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}}, b"\x00" * 2), "dtype 'F8_E4M3'"),
    (raw_file({"x": {"dtype": "F16", "shape": [2], "data_offsets": [0, 8]}}, b"\x00" * 8), "span 8 bytes but"),
    (raw_file({"x": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\x00" * 8), "shape \\[-2\\]"),
    (raw_file({"x": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}, b"\x00" * 8), "data_offsets"),
    (raw_file({"x": F32x2}, b"\x00" * 5), "reach beyond the 5 bytes of data"),
    (raw_file({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\x00" * 8), "span 8 bytes but"),
    (raw_file({"x": F32x2, "y": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\x00" * 8),
     "overlap or leave a gap"),
    (raw_file({"x": F32x2}, b"\x00" * 12), "cover 8 bytes of data but the file holds 12"),
    (raw_file({"__metadata__": {"seqlab.structure": "{oops"}, "x": F32x2}, b"\x00" * 8),
     "seqlab.structure metadata is not valid JSON"),
    (raw_file({"__metadata__": {"seqlab.structure": '{"version": 9, "root": null}'}}), "version-1 structure"),
    (raw_file({"__metadata__": {"seqlab.structure": '{"version": 1, "root": {"tensor": "y"}}'}, "x": F32x2},
              b"\x00" * 8), "refers to a tensor 'y' that the file does not hold"),
    (raw_file({"__metadata__": {"seqlab.structure": '{"version": 1, "root": {"set": [1]}}'}}), "unexpected node"),
    (b"PK\x03\x04" + b"\x00" * 100, "looks like a zip file: torch.save's format"),
    (raw_file({"__metadata__": {"seqlab.crc32": "{oops"}, "x": F32x2}, b"\x00" * 8),
     "seqlab.crc32 metadata is not valid JSON"),
    (raw_file({"__metadata__": {"seqlab.crc32": '{"structure": "0", "tensors": {}}'}, "x": F32x2}, b"\x00" * 8),
     "disagree on the tensors \\(e.g. 'x'\\)"),
    (raw_file({"__metadata__": {"seqlab.crc32": '{"structure": "00000000", "tensors": {"x": "XYZ"}}'}, "x": F32x2},
              b"\x00" * 8), "holds 'XYZ', not a CRC-32 of 8 hex digits"),
    (raw_file({"__metadata__": {"seqlab.crc32": '{"structure": "00000000", "tensors": {"x": "00000000"}}'},
               "x": F32x2}, b"\x00" * 8), "tensor 'x' does not match the checksum saved with it"),
]


@pytest.mark.parametrize("content, why", CORRUPT, ids=[f"case{i}" for i in range(len(CORRUPT))])
def test_a_corrupt_file_raises_value_error_naming_the_file(tmp_path, content, why):
    path = tmp_path / "broken.safetensors"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=f"seqlab.load: {re.escape(str(path))} is not a valid checkpoint.*{why}"):
        load(path)


def test_every_truncation_of_a_checkpoint_raises_naming_the_file(tmp_path):
    good = tmp_path / "good.safetensors"
    save({"w": seqlab.randn(2, 3), "state": {0: {"step": seqlab.tensor(1)}}, "lr": 0.1}, good)
    content = good.read_bytes()
    bad = tmp_path / "truncated.safetensors"
    for size in range(len(content)):
        bad.write_bytes(content[:size])
        with pytest.raises(ValueError, match=re.escape(str(bad))):
            load(bad)


def test_a_torch_save_file_is_refused_with_a_hint(tmp_path):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*torch.save's format"):
        load(path)
