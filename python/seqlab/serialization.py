"""Checkpoints: seqlab.save(obj, path) and seqlab.load(path), for state dicts.

    seqlab.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3}, "ckpt.safetensors")
    ckpt = seqlab.load("ckpt.safetensors")

`obj` is what PyTorch users put in a checkpoint: nested dicts, lists and tuples of tensors and
plain values (int, float, bool, str, None). Dict keys may be str, int, float, bool or None, and
keep their type (an optimizer's {'state': {0: {...}}} comes back with the int key 0).

The file is one safetensors file (https://github.com/huggingface/safetensors), written and read
by the `safetensors` package (its NumPy API), so PyTorch (safetensors.torch.load_file), NumPy,
JAX and Rust read seqlab's checkpoints, and seqlab reads theirs. Tensors are named by their path
in `obj` joined with '.', as PyTorch names state-dict entries ("fc.weight", "state.0.exp_avg"),
so any safetensors reader sees a flat {name: array} dict. The rest of `obj` (nesting, key types,
plain values, where each tensor goes) is the structure, JSON text kept in the file's
`__metadata__` under the one key "seqlab" with its checksums (below). One key, because the
library writes the metadata from a hash map whose order varies from process to process: with
one entry the same object saves to the same bytes every time. dtypes: every seqlab dtype (F32,
F64, F16, BF16, I64, I32, I16, I8, U8, BOOL) is written and read as itself, bit for bit (a float16
or bfloat16 Hugging Face checkpoint loads in its own dtype, as safetensors.torch.load_file gives
it; convert with .float() or load it into a float32 model, whose load_state_dict converts).

Checksums: the "seqlab" entry is the JSON
{"structure": text, "crc32": {"structure": crc, "tensors": {name: crc}}}: the structure's JSON
text ({"version": 2, "root": node}) and the CRC-32 (zlib.crc32, 8 hex digits) of that text and
of each tensor's bytes as stored. CRC-32 detects every 1- and 2-bit error and every burst of up
to 32 bits, at about 1 GB/s; it guards against damage (a flipped bit on disk or in a copy), not
against tampering. Other readers ignore the entry, so the file stays a plain safetensors file.
Files of format version 1 (two entries: the structure under "seqlab.structure", the checksums'
JSON under "seqlab.crc32", or no checksums before they were added) still load.

Semantics, as torch.save/torch.load where they agree:
- Non-contiguous tensors are written contiguously; `requires_grad` and `.grad` are not saved
  (a state dict holds detached tensors); loaded tensors are fresh leaves that own their memory
  (read with pread, not memory-mapped: rewriting the file later cannot change or crash them).
- Tensors that share storage (tied weights, views of one another) are saved as separate
  copies and load as independent tensors; torch.save would keep the sharing.
- Writes are atomic (seqlab._atomic): the library writes a temporary file beside `path`, which
  is fsynced and renamed over `path`, then the directory is fsynced. An exception mid-save (an
  unsupported object, a full disk) leaves the previous file untouched and removes the temporary
  file; a process killed mid-save leaves the previous file untouched too, plus a stray
  `.<name>.*.tmp` file, and possibly the library's own temporary `.tmpXXXXXX` (it writes one and
  renames it over seqlab's), that no one can clean up for it.
- A file object instead of a path costs one more copy of the checkpoint in memory: save builds
  the whole file as bytes before writing it, load reads the whole file before unpacking it.
- A file the safetensors library refuses (truncated, corrupt, not safetensors) raises ValueError
  naming the file and what is wrong with it; so does a tensor whose bytes no longer match their
  checksum, and a file whose metadata holds seqlab's entries in part or under a damaged key name.
  Version-1 files written before the checksums (no "seqlab.crc32") load unchecked, as do files
  from other tools.
- A safetensors file written by another tool (no seqlab metadata) loads as {name: tensor}, in the
  order of the tensors' data in the file, from a path or a file object alike.
"""

import collections
import collections.abc
import io
import json
import math
import os
import struct
import zlib

import numpy as np
import safetensors
import safetensors.numpy

from ._atomic import atomic_path
from . import _core
from ._core import Tensor, from_numpy
from ._tensor import bool as _bool, float32, float64, int8, int16, int32, int64, uint8

float16, bfloat16 = _core.dtype.float16, _core.dtype.bfloat16

__all__ = ["save", "load"]

METADATA_KEY = "seqlab"
FORMAT_VERSION = 2
# format version 1: the structure and its checksums under two keys (still read)
STRUCTURE_KEY = "seqlab.structure"
CHECKSUM_KEY = "seqlab.crc32"

# safetensors dtype code -> (seqlab dtype, NumPy dtype: what the library's NumPy reader gives;
# NumPy's bfloat16 is ml_dtypes', imported when one is met)
_DTYPES = {"F32": (float32, "<f4"), "F64": (float64, "<f8"), "F16": (float16, "<f2"), "BF16": (bfloat16, "bfloat16"),
           "I64": (int64, "<i8"), "I32": (int32, "<i4"), "I16": (int16, "<i2"), "I8": (int8, "i1"), "U8": (uint8, "u1"),
           "BOOL": (_bool, "?")}
_SEQLAB_DTYPES = {sl for sl, _ in _DTYPES.values()}

_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_MAX_HEADER = 100_000_000  # the safetensors library refuses larger headers


# ---------------------------------------------------------------------------------- save

def save(obj, path):
    """Save `obj` (nested dicts/lists/tuples of tensors and plain values) to `path`, atomically.

    The file is a safetensors file; see the module docstring for the layout. Nothing is written
    (and the previous file at `path` stays as it was) if `obj` holds an unsupported object.
    `path` may also be a binary file object open for writing (`with open(p, "wb") as f:
    torch.save(sd, f)`, as PyTorch scripts write); the checkpoint goes there, at its position,
    not atomically, built in memory as bytes first (one more copy of the checkpoint).
    """
    file = path if hasattr(path, "write") else None
    if file is None:
        path = os.fspath(path)
    tensors = []  # [(name, detached tensor)] in the order met
    structure = {"version": FORMAT_VERSION, "root": _Encoder(tensors).encode(obj, ())}
    structure = json.dumps(structure, separators=(",", ":"), allow_nan=False)
    arrays = {name: _array(t) for name, t in tensors}
    checksums = {"structure": _crc32(structure.encode("utf-8")),
                 "tensors": {name: _crc32(_bytes(a)) for name, a in arrays.items()}}
    metadata = {METADATA_KEY: json.dumps({"structure": structure, "crc32": checksums}, separators=(",", ":"))}
    if file is not None:
        file.write(safetensors.numpy.save(arrays, metadata))  # the caller's open file: not atomic
        return
    with atomic_path(path) as tmp:
        safetensors.numpy.save_file(arrays, tmp, metadata)


class _Encoder:
    """Turns `obj` into the JSON structure, collecting the tensors it meets with their names.

    Structure nodes: a JSON null/bool/int/str/finite float is that plain value;
    {"float": "nan"|"inf"|"-inf"}; {"tensor": name}; {"list": [node...]}; {"tuple": [node...]};
    {"dict": [[key, node]...]} and {"odict": ...} for an OrderedDict (keys are plain-value nodes,
    so int keys stay ints).
    """

    def __init__(self, tensors):
        self.tensors = tensors
        self.names = {"", "__metadata__"}  # reserved: never a tensor name
        self.active = set()  # ids of the containers on the current path (cycle detection)

    def encode(self, obj, path):
        if isinstance(obj, Tensor):
            if obj.dtype not in _SEQLAB_DTYPES:
                raise TypeError(f"seqlab.save: tensor at {_where(path)} has dtype {obj.dtype}, "
                                f"which a checkpoint cannot hold")
            name = self._name(path)
            self.tensors.append((name, obj.detach()))
            return {"tensor": name}
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return _plain(obj)
        if isinstance(obj, (collections.abc.Mapping, list, tuple)):
            if id(obj) in self.active:
                raise ValueError(f"seqlab.save: the object at {_where(path)} contains itself")
            self.active.add(id(obj))
            try:
                if isinstance(obj, collections.abc.Mapping):
                    tag = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
                    return {tag: [[self._key(k, path), self.encode(v, path + (k,))] for k, v in obj.items()]}
                tag = "tuple" if isinstance(obj, tuple) else "list"
                return {tag: [self.encode(v, path + (i,)) for i, v in enumerate(obj)]}
            finally:
                self.active.discard(id(obj))
        # torch.save(model, f) pickles the module; seqlab saves what it holds (no pickled code)
        hint = "; save its state_dict() instead" if hasattr(obj, "state_dict") else ""
        raise TypeError(f"seqlab.save: cannot save an object of type {type(obj).__name__} (at {_where(path)}); "
                        f"a checkpoint holds nested dicts, lists and tuples of tensors, int, float, bool, "
                        f"str and None{hint}")

    def _key(self, key, path):
        if key is None or isinstance(key, (bool, int, float, str)):
            return _plain(key)
        raise TypeError(f"seqlab.save: cannot save a dict key of type {type(key).__name__} ({key!r} in "
                        f"{_where(path)}); keys must be str, int, float, bool or None")

    def _name(self, path):
        base = ".".join(str(k) for k in path)
        name, i = base, 1
        while name in self.names:  # two paths with one dotted name ({'a.b': x, 'a': {'b': y}})
            name = f"{base or 'tensor'}#{i}"
            i += 1
        self.names.add(name)
        return name


def _plain(value):
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)  # an IntEnum or another int subclass is saved as its value
    value = float(value)
    if math.isfinite(value):
        return value
    return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def _where(path):
    return "obj" + "".join(f"[{k!r}]" for k in path)


def _crc32(data):
    return f"{zlib.crc32(data):08x}"


def _array(t):
    """A tensor's values as the C-ordered NumPy array the library writes."""
    if t.dtype == bfloat16:
        # NumPy has no bfloat16 of its own (Tensor.numpy() refuses it, as torch's): a bfloat16 is
        # the top 16 bits of the float32 it widens to exactly, NaN payloads included
        wide = t.to(float32).contiguous().numpy()
        return (wide.view(np.uint32) >> 16).astype(np.uint16).view(_numpy_dtype("BF16"))
    a = t.contiguous().numpy()
    return a if a.flags.c_contiguous else a.copy(order="C")  # (a size-0 tensor may have odd strides)


def _bytes(a):
    """A C-ordered array's bytes as the file holds them (little-endian), for its checksum."""
    if not a.size:
        return b""
    little = a.dtype.newbyteorder("<")   # (a no-op for 1-byte dtypes and on little-endian machines)
    return np.ascontiguousarray(a, dtype=little).reshape(-1).view(np.uint8)


# ---------------------------------------------------------------------------------- load

def load(path, map_location=None, weights_only=True):
    """Load what seqlab.save wrote to `path`.

    `map_location` and `weights_only` are accepted for torch.load compatibility and ignored:
    seqlab tensors live on the CPU, and a checkpoint holds only tensors and plain values (no
    pickled code), so loading is always "weights only".
    A truncated or corrupt file raises ValueError naming the file.
    `path` may also be a binary file object open for reading, as torch.load allows; the
    checkpoint is read from its current position to its end, into memory as bytes first (one
    more copy of the checkpoint than loading from a path).
    """
    del map_location, weights_only
    if hasattr(path, "read"):
        name = getattr(path, "name", repr(path))
        data = path.read()
        bad = _bad(name)
        try:
            entries = dict(safetensors.deserialize(data))
        except safetensors.SafetensorError as e:
            raise bad(_refusal(data, len(data), e)) from None
        # the bytes API gives no metadata and its own order: both from the header it has accepted
        header = _header(io.BytesIO(data))
        arrays = {key: (entries[key]["dtype"], lambda e=entries[key]: _frombuffer(e)) for key in _data_order(header)}
        return _assemble(arrays, header.get("__metadata__", {}), bad)
    path = os.fspath(path)
    bad = _bad(path)
    with open(path, "rb"):   # a missing file, a directory, no permission: Python's own OSError naming it
        pass
    try:
        # pread: every tensor is read into memory it owns (a mapping would follow later writes)
        with safetensors.safe_open(path, framework="np", backend="pread") as f:
            with open(path, "rb") as raw:   # offset_keys() orders tensors with equal offsets at random
                order = _data_order(_header(raw))
            if set(order) != set(f.keys()):   # (the file was replaced between the two opens)
                order = f.offset_keys()
            arrays = {key: (f.get_slice(key).get_dtype(), lambda key=key: f.get_tensor(key)) for key in order}
            return _assemble(arrays, f.metadata() or {}, bad)
    except safetensors.SafetensorError as e:
        with open(path, "rb") as f:
            data = f.read(8 + _MAX_HEADER)
            size = os.fstat(f.fileno()).st_size
        raise bad(_refusal(data, size, e)) from None


def _header(f):
    """The JSON header of the file open as `f`, which the library has accepted."""
    (n,) = struct.unpack("<Q", f.read(8))
    return json.loads(f.read(n))


def _data_order(header):
    """The tensors' names in the order of their data in the file (as the library's offset_keys),
    ties (size-0 tensors) in the header's order, which the library's readers do not keep."""
    names = [name for name in header if name != "__metadata__"]
    return sorted(names, key=lambda name: header[name]["data_offsets"])


def _bad(path):
    return lambda why: ValueError(f"seqlab.load: {path} is not a valid checkpoint (safetensors file): {why}")


def _frombuffer(entry):
    """deserialize()'s {"dtype", "shape", "data"} as a NumPy array (over its bytearray, no copy)."""
    return np.frombuffer(entry["data"], dtype=_numpy_dtype(entry["dtype"])).reshape(entry["shape"])


def _numpy_dtype(code):
    if code == "BF16":
        import ml_dtypes  # registers NumPy's bfloat16 (the library's NumPy reader needs it too)
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(_DTYPES[code][1])


def _assemble(arrays, metadata, bad):
    """The checkpoint from {name: (dtype code, read())}, in the file's order, and its metadata:
    every tensor read, checked against its checksum and made a seqlab tensor; then the structure."""
    for name, (code, _) in arrays.items():
        if code not in _DTYPES:
            raise bad(f"tensor {name!r} has dtype {code!r}; seqlab reads {', '.join(_DTYPES)}")
        _numpy_dtype(code)  # (BF16: ml_dtypes registered before the library reads one)
    layout = _Layout(metadata, arrays, bad)
    tensors = {}
    for name, (code, read) in arrays.items():
        try:
            a = read()
        except safetensors.SafetensorError as e:   # the file changed under us (truncated while read?)
            raise bad(f"tensor {name!r}: {e}") from None
        if layout.checksums is not None:
            _verify(f"tensor {name!r}", _bytes(a), layout.checksums["tensors"][name], bad)
        if not (a.flags.writeable and a.flags.aligned):
            a = a.copy()
        # BF16: the array's bytes read as seqlab's bfloat16, bit for bit (from_numpy, as torch's,
        # knows no ml_dtypes type)
        tensors[name] = _core._from_numpy_as(a, bfloat16) if code == "BF16" else from_numpy(a)
    if layout.structure is None:
        if layout.checksums is not None:   # a damaged key name would otherwise load as a flat dict
            raise bad(f"the {CHECKSUM_KEY} metadata holds seqlab's checksums but there is no {STRUCTURE_KEY} "
                      f"metadata beside it")
        return tensors  # a plain safetensors file from another tool
    what = layout.what
    if layout.checksums is not None:
        _verify(what, layout.structure.encode("utf-8"), layout.checksums["structure"], bad)
    try:
        structure = json.loads(layout.structure)
    except json.JSONDecodeError as e:
        raise bad(f"{what} is not valid JSON ({e})") from None
    if not isinstance(structure, dict) or structure.get("version") != layout.version or "root" not in structure:
        raise bad(f"{what} is not a version-{layout.version} structure")
    try:
        return _decode(structure["root"], tensors)
    except _Invalid as e:
        raise bad(f"{what} is invalid: {e}") from None


class _Layout:
    """Where a file's metadata keeps seqlab's structure (its JSON text, or None for a plain
    safetensors file) and checksums (as _checksums gives them, or None for a version-1 file
    written before them): `what` names the structure in messages, `version` is its format's."""

    def __init__(self, metadata, names, bad):
        misnamed = _misnamed(metadata)
        if misnamed is not None:
            raise bad(f"the metadata key {misnamed!r} holds seqlab's {METADATA_KEY!r} entry, {STRUCTURE_KEY!r} or "
                      f"{CHECKSUM_KEY!r} (a damaged key name?)")
        if METADATA_KEY in metadata:
            self.version, self.what = FORMAT_VERSION, f"the structure in the {METADATA_KEY} metadata"
            where = f"the {METADATA_KEY} metadata"
            try:
                entry = json.loads(metadata[METADATA_KEY])
            except json.JSONDecodeError as e:
                raise bad(f"{where} is not valid JSON ({e})") from None
            if not (isinstance(entry, dict) and entry.keys() == {"structure", "crc32"}
                    and isinstance(entry["structure"], str)):
                raise bad(f"{where} is not {{'structure': text, 'crc32': checksums}}")
            self.structure = entry["structure"]
            self.checksums = _checksums(entry["crc32"], names, f"{where}'s crc32", bad)
            return
        self.version, self.what = 1, f"the {STRUCTURE_KEY} metadata"
        self.structure = metadata.get(STRUCTURE_KEY)
        self.checksums = None
        if CHECKSUM_KEY in metadata:
            try:
                entry = json.loads(metadata[CHECKSUM_KEY])
            except json.JSONDecodeError as e:
                raise bad(f"the {CHECKSUM_KEY} metadata is not valid JSON ({e})") from None
            self.checksums = _checksums(entry, names, f"the {CHECKSUM_KEY} metadata", bad)


def _misnamed(metadata):
    """A metadata key, not one of seqlab's, whose value is what seqlab keeps under its own keys
    (a flipped bit in the key's name), or None."""
    for key, value in metadata.items():
        if key in (METADATA_KEY, STRUCTURE_KEY, CHECKSUM_KEY) or not value.startswith("{"):
            continue
        try:
            entry = json.loads(value)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and (entry.keys() in ({"structure", "crc32"}, {"structure", "tensors"})
                                        or entry.keys() >= {"version", "root"}):
            return key
    return None


def _checksums(entry, names, where, bad):
    """The parsed checksums `entry` as {"structure": int, "tensors": {name: int}} covering every
    tensor in `names`; `where` names the entry in messages."""

    def crc(value):
        if not (isinstance(value, str) and len(value) == 8 and all(c in "0123456789abcdef" for c in value)):
            raise bad(f"{where} holds {value!r}, not a CRC-32 of 8 hex digits")
        return int(value, 16)

    if not (isinstance(entry, dict) and isinstance(entry.get("tensors"), dict)):
        raise bad(f"{where} is not {{'structure': crc, 'tensors': {{name: crc}}}}")
    if set(entry["tensors"]) != set(names):
        unlisted = sorted(set(names) - set(entry["tensors"])) or sorted(set(entry["tensors"]) - set(names))
        raise bad(f"{where} and the header disagree on the tensors (e.g. {unlisted[0]!r})")
    return {"structure": crc(entry.get("structure")),
            "tensors": {name: crc(value) for name, value in entry["tensors"].items()}}


def _verify(what, data, expected, bad):
    got = zlib.crc32(data)
    if got != expected:
        raise bad(f"{what} does not match the checksum saved with it (CRC-32 {got:08x}, saved {expected:08x}): "
                  f"its bytes changed after the save (a flipped bit on disk or in a copy?)")


def _refusal(data, size, error):
    """Why the safetensors library refused a file of `size` bytes beginning with `data`, told in
    the format's terms (the header's length, its JSON, a tensor's entry), then in the library's.
    The library decides what is valid; this only names what it tripped on."""
    why = _explain(data, size)
    return f"{why} (safetensors: {error})" if why else f"safetensors: {error}"


def _explain(data, size):
    if size < 8:
        return f"the file has {size} bytes, fewer than the 8-byte header length (truncated?)"
    (n,) = struct.unpack("<Q", data[:8])
    if n > size - 8 or n > _MAX_HEADER:
        hint = " (it looks like a zip file: torch.save's format, which seqlab does not read)" \
            if data.startswith(b"PK\x03\x04") else " (truncated?)"
        return f"the header length is {n} bytes but the file has {size - 8} bytes after it{hint}"
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        return f"the header is not valid JSON ({e})"
    if not isinstance(header, dict):
        return f"the header is a JSON {type(header).__name__}, not an object"
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        return "__metadata__ must map strings to strings"
    data_len = size - 8 - n
    for name, info in header.items():
        why = _entry_refusal(name, info, data_len)
        if why:
            return why
    end = 0
    for name, info in sorted(header.items(), key=lambda item: item[1]["data_offsets"]):
        begin, stop = info["data_offsets"]
        if begin != end:
            return f"tensor {name!r} starts at byte {begin} of the data, expected {end} (tensors overlap or leave a gap)"
        end = stop
    if end != data_len:
        return f"the tensors cover {end} bytes of data but the file holds {data_len}"
    return None


def _entry_refusal(name, info, data_len):
    """What is wrong with one tensor's header entry, or None."""
    if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= info.keys():
        return f"tensor {name!r}: expected an object with dtype, shape and data_offsets, got {info!r}"
    code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        return f"tensor {name!r}: shape {shape!r} is not a list of non-negative integers"
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(type(o) is int for o in offsets)
            or not 0 <= offsets[0] <= offsets[1]):
        return f"tensor {name!r}: data_offsets {offsets!r} is not [begin, end] with 0 <= begin <= end"
    if offsets[1] > data_len:
        return (f"tensor {name!r}: data_offsets {offsets} reach beyond the {data_len} bytes of data in the file "
                f"(truncated?)")
    if code not in _DTYPES:
        return None  # a dtype seqlab does not read: refused by name once the library accepts the file
    need = math.prod(shape) * _numpy_dtype(code).itemsize
    if offsets[1] - offsets[0] != need:
        return (f"tensor {name!r}: data_offsets {offsets} span {offsets[1] - offsets[0]} bytes but a {code} tensor "
                f"of shape {shape} has {need}")
    return None


class _Invalid(Exception):
    pass


def _decode(node, tensors):
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, dict) and len(node) == 1:
        ((tag, value),) = node.items()
        if tag == "tensor":
            if not isinstance(value, str) or value not in tensors:
                raise _Invalid(f"it refers to a tensor {value!r} that the file does not hold")
            return tensors[value]
        if tag == "float" and value in _NONFINITE:
            return _NONFINITE[value]
        if tag in ("list", "tuple") and isinstance(value, list):
            items = [_decode(v, tensors) for v in value]
            return tuple(items) if tag == "tuple" else items
        if tag in ("dict", "odict") and isinstance(value, list):
            out = collections.OrderedDict() if tag == "odict" else {}
            for pair in value:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise _Invalid(f"a dict item must be a [key, value] pair, got {pair!r}")
                key = _decode(pair[0], {})
                if isinstance(key, (dict, list, tuple)):
                    raise _Invalid(f"a dict key must be a plain value, got {pair[0]!r}")
                out[key] = _decode(pair[1], tensors)
            return out
    raise _Invalid(f"unexpected node {json.dumps(node)[:200]}")


# torch.serialization's allow-list for unpickling (torch.load(weights_only=True)). seqlab's
# checkpoints hold no pickled objects, so there is nothing to allow: both are accepted no-ops,
# so scripts that register their classes for torch.load run unchanged.
_SAFE_GLOBALS = []


def add_safe_globals(safe_globals):
    """torch.serialization.add_safe_globals: recorded, and needed by nothing (no pickle here)."""
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals():
    return list(_SAFE_GLOBALS)


class safe_globals:
    """with torch.serialization.safe_globals([...]): torch.load(...) — a no-op context here."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
