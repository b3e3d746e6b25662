"""Checkpoints: seqlab.save(obj, path) and seqlab.load(path), for state dicts.

    seqlab.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3}, "ckpt.safetensors")
    ckpt = seqlab.load("ckpt.safetensors")

`obj` is what PyTorch users put in a checkpoint: nested dicts, lists and tuples of tensors and
plain values (int, float, bool, str, None). Dict keys may be str, int, float, bool or None, and
keep their type (an optimizer's {'state': {0: {...}}} comes back with the int key 0).

The file is one safetensors file (https://github.com/huggingface/safetensors), the open format
that the `safetensors` package, PyTorch (safetensors.torch.load_file), NumPy, JAX and Rust read:

    8 bytes        N, the header length, unsigned little-endian
    N bytes        a JSON object {name: {"dtype", "shape", "data_offsets": [begin, end]}, ...,
                   "__metadata__": {str: str}}, padded with spaces to a multiple of 8 bytes
    the rest       the tensors' bytes, C order, little-endian, back to back (offsets relative here)

Tensors are named by their path in `obj` joined with '.', as PyTorch names state-dict entries
("fc.weight", "state.0.exp_avg"), so any safetensors reader sees a flat {name: array} dict.
The rest of `obj` (nesting, key types, plain values, where each tensor goes) is JSON in the
metadata under "seqlab.structure". dtypes written: F32, F64, I64, I32, I16, I8, U8, BOOL; read
also: F16 and BF16 (Hugging Face checkpoints), as float32, which holds their values exactly.

Checksums: the metadata's "seqlab.crc32" is the JSON {"structure": crc, "tensors": {name: crc}},
the CRC-32 (zlib.crc32, 8 hex digits) of the structure's text and of each tensor's bytes as
stored. CRC-32 detects every 1- and 2-bit error and every burst of up to 32 bits, at about
1 GB/s; it guards against damage (a flipped bit on disk or in a copy), not against tampering.
Other readers ignore the entry, so the file stays a plain safetensors file.

Semantics, as torch.save/torch.load where they agree:
- Non-contiguous tensors are written contiguously; `requires_grad` and `.grad` are not saved
  (a state dict holds detached tensors); loaded tensors are fresh leaves that own their memory
  (copied out of the file, no mmap kept).
- Tensors that share storage (tied weights, views of one another) are saved as separate
  copies and load as independent tensors; torch.save would keep the sharing.
- Writes are atomic (seqlab.data._atomic): a temporary file beside `path`, flush + fsync, then
  os.replace and an fsync of the directory. An exception mid-save (an unsupported object, a
  full disk) leaves the previous file untouched and removes the temporary file; a process
  killed mid-save leaves the previous file untouched too, plus a stray `.<name>.*.tmp` file
  that no one can clean up for it.
- A truncated or corrupt file raises ValueError naming the file and what is wrong with it;
  a tensor whose bytes no longer match their checksum is named too. Files written before the
  checksums (no "seqlab.crc32") load unchecked, as do files from other tools.
- A safetensors file written by another tool (no "seqlab.structure") loads as {name: tensor}.
"""

import collections
import collections.abc
import json
import math
import os
import struct
import sys
import zlib

import numpy as np

from ._core import Tensor
from ._tensor import bool as _bool, empty, float32, float64, int8, int16, int32, int64, uint8
from ._atomic import atomic_open

__all__ = ["save", "load"]

STRUCTURE_KEY = "seqlab.structure"
CHECKSUM_KEY = "seqlab.crc32"
FORMAT_VERSION = 1

# safetensors dtype code -> (little-endian numpy dtype, seqlab dtype)
_DTYPES = {
    "F32": (np.dtype("<f4"), float32),
    "F64": (np.dtype("<f8"), float64),
    "I64": (np.dtype("<i8"), int64),
    "I32": (np.dtype("<i4"), int32),
    "I16": (np.dtype("<i2"), int16),
    "I8": (np.dtype("|i1"), int8),
    "U8": (np.dtype("|u1"), uint8),
    "BOOL": (np.dtype("|b1"), _bool),
}
_CODE_OF = {sl: code for code, (_, sl) in _DTYPES.items()}
# 16-bit floats (Hugging Face checkpoints are often stored so) load as float32, which holds every
# F16 and BF16 value exactly: seqlab has no 16-bit float dtype. BF16 is float32's top 16 bits.
_WIDENED = {
    "F16": (np.dtype("<f2"), lambda a: a.astype(np.float32)),
    "BF16": (np.dtype("<u2"), lambda a: (a.astype(np.uint32) << 16).view(np.float32)),
}

_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_MAX_HEADER = 100_000_000  # the Rust safetensors reader refuses larger headers


# ---------------------------------------------------------------------------------- save

def save(obj, path):
    """Save `obj` (nested dicts/lists/tuples of tensors and plain values) to `path`, atomically.

    The file is a safetensors file; see the module docstring for the layout. Nothing is written
    (and the previous file at `path` stays as it was) if `obj` holds an unsupported object.
    `path` may also be a binary file object open for writing (`with open(p, "wb") as f:
    torch.save(sd, f)`, as PyTorch scripts write); the checkpoint goes there, at its position.
    """
    file = path if hasattr(path, "write") else None
    if file is None:
        path = os.fspath(path)
    tensors = []  # [(name, detached tensor)] in file order
    structure = {"version": FORMAT_VERSION, "root": _Encoder(tensors).encode(obj, ())}
    structure = json.dumps(structure, separators=(",", ":"), allow_nan=False)
    # The checksums go in the header, before the data: one pass to compute them, one to write.
    checksums = {"structure": _crc32(structure.encode("utf-8")),
                 "tensors": {name: _crc32(_tensor_bytes(t)) for name, t in tensors}}
    header = _header(tensors, structure, checksums)

    def write(f):
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        for _, t in tensors:
            _write_tensor(f, t)

    if file is not None:
        write(file)  # the caller's open file: written where it stands, not atomically
        return
    with atomic_open(path, "wb") as f:
        write(f)


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
            if obj.dtype not in _CODE_OF:
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


def _header(tensors, structure, checksums):
    header = {"__metadata__": {STRUCTURE_KEY: structure,
                               CHECKSUM_KEY: json.dumps(checksums, separators=(",", ":"))}}
    offset = 0
    for name, t in tensors:
        nbytes = t.numel() * t.element_size()
        header[name] = {"dtype": _CODE_OF[t.dtype], "shape": [int(s) for s in t.shape],
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    return text + b" " * (-len(text) % 8)  # the data start 8-byte aligned, as safetensors writes


def _write_tensor(f, t):
    f.write(_tensor_bytes(t))


def _tensor_bytes(t):
    """One tensor's bytes as the file holds them: C order (a non-contiguous tensor is copied),
    little-endian."""
    if t.numel() == 0:
        return b""
    arr = t.contiguous().numpy().reshape(-1)
    if sys.byteorder != "little":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return memoryview(np.ascontiguousarray(arr).view(np.uint8))


# ---------------------------------------------------------------------------------- load

def load(path, map_location=None, weights_only=True):
    """Load what seqlab.save wrote to `path`.

    `map_location` and `weights_only` are accepted for torch.load compatibility and ignored:
    seqlab tensors live on the CPU, and a checkpoint holds only tensors and plain values (no
    pickled code), so loading is always "weights only".
    A truncated or corrupt file raises ValueError naming the file.
    `path` may also be a binary file object open for reading (and seekable), as torch.load
    allows; the checkpoint is read from its current position to its end.
    """
    del map_location, weights_only
    if hasattr(path, "read"):
        f = path
        base = f.tell()
        size = f.seek(0, os.SEEK_END) - base
        f.seek(base)
        return _load(f, getattr(f, "name", repr(f)), base, size)
    path = os.fspath(path)
    with open(path, "rb") as f:
        return _load(f, path, 0, os.fstat(f.fileno()).st_size)


def _load(f, path, base, size):
    """load() from the open binary file f, whose checkpoint spans `size` bytes from `base`."""
    def bad(why):
        return ValueError(f"seqlab.load: {path} is not a valid checkpoint (safetensors file): {why}")

    if size < 8:
        raise bad(f"the file has {size} bytes, fewer than the 8-byte header length (truncated?)")
    first = f.read(8)
    (n,) = struct.unpack("<Q", first)
    if n > size - 8 or n > _MAX_HEADER:
        hint = " (it looks like a zip file: torch.save's format, which seqlab does not read)" \
            if first.startswith(b"PK\x03\x04") else " (truncated?)"
        raise bad(f"the header length is {n} bytes but the file has {size - 8} bytes after it{hint}")
    try:
        header = json.loads(f.read(n).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise bad(f"the header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise bad(f"the header is a JSON {type(header).__name__}, not an object")
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise bad("__metadata__ must map strings to strings")

    checksums = _checksums(metadata, header, bad)  # None for a file without them
    data_start, data_len = 8 + n, size - 8 - n
    entries = [(name,) + _check_entry(name, info, data_len, bad) for name, info in header.items()]
    end = 0
    for name, _, _, begin, stop in sorted(entries, key=lambda e: (e[3], e[4])):
        if begin != end:
            raise bad(f"tensor {name!r} starts at byte {begin} of the data, expected {end} "
                      f"(tensors overlap or leave a gap)")
        end = stop
    if end != data_len:
        raise bad(f"the tensors cover {end} bytes of data but the file holds {data_len}")

    tensors = {}
    for name, code, shape, begin, stop in sorted(entries, key=lambda e: e[3]):
        if code in _WIDENED:
            tensors[name] = _read_widened(f, base + data_start + begin, code, shape, checksums, name, bad)
            continue
        t = empty(shape, dtype=_DTYPES[code][1])  # seqlab-owned memory; the bytes go straight in
        if stop > begin:
            arr = t.numpy().reshape(-1)
            f.seek(base + data_start + begin)
            if _read_into(f, memoryview(arr.view(np.uint8))) != stop - begin:
                raise bad(f"tensor {name!r}: the file ended early (truncated while being read?)")
        if checksums is not None:
            _verify(f"tensor {name!r}", t.numpy().reshape(-1).view(np.uint8) if stop > begin else b"",
                    checksums["tensors"][name], bad)
        if stop > begin:
            if sys.byteorder != "little":
                arr.byteswap(inplace=True)
        tensors[name] = t
    tensors = {name: tensors[name] for name in header}  # header order

    if STRUCTURE_KEY not in metadata:
        return tensors  # a plain safetensors file from another tool
    if checksums is not None:
        _verify(f"the {STRUCTURE_KEY} metadata", metadata[STRUCTURE_KEY].encode("utf-8"), checksums["structure"], bad)
    try:
        structure = json.loads(metadata[STRUCTURE_KEY])
    except json.JSONDecodeError as e:
        raise bad(f"the {STRUCTURE_KEY} metadata is not valid JSON ({e})") from None
    if not isinstance(structure, dict) or structure.get("version") != FORMAT_VERSION or "root" not in structure:
        raise bad(f"the {STRUCTURE_KEY} metadata is not a version-{FORMAT_VERSION} structure")
    try:
        return _decode(structure["root"], tensors)
    except _Invalid as e:
        raise bad(f"the {STRUCTURE_KEY} metadata is invalid: {e}") from None


def _read_widened(f, offset, code, shape, checksums, name, bad):
    """A 16-bit float tensor of the file as a float32 tensor (its values exactly)."""
    file_dtype, widen = _WIDENED[code]
    raw = np.empty(shape, dtype=file_dtype)
    f.seek(offset)
    if _read_into(f, memoryview(raw.reshape(-1).view(np.uint8))) != raw.nbytes:
        raise bad(f"tensor {name!r}: the file ended early (truncated while being read?)")
    if checksums is not None:
        _verify(f"tensor {name!r}", raw.reshape(-1).view(np.uint8), checksums["tensors"][name], bad)
    return Tensor(np.ascontiguousarray(widen(raw.astype(raw.dtype.newbyteorder("=")))))


def _checksums(metadata, header, bad):
    """The CHECKSUM_KEY entry as {"structure": int, "tensors": {name: int}} covering every tensor
    of `header`, None when the file has none (written before checksums, or by another tool)."""
    if CHECKSUM_KEY not in metadata:
        return None

    def crc(value):
        if not (isinstance(value, str) and len(value) == 8 and all(c in "0123456789abcdef" for c in value)):
            raise bad(f"the {CHECKSUM_KEY} metadata holds {value!r}, not a CRC-32 of 8 hex digits")
        return int(value, 16)

    try:
        entry = json.loads(metadata[CHECKSUM_KEY])
    except json.JSONDecodeError as e:
        raise bad(f"the {CHECKSUM_KEY} metadata is not valid JSON ({e})") from None
    if not (isinstance(entry, dict) and isinstance(entry.get("tensors"), dict)):
        raise bad(f"the {CHECKSUM_KEY} metadata is not {{'structure': crc, 'tensors': {{name: crc}}}}")
    if set(entry["tensors"]) != set(header):
        unlisted = sorted(set(header) - set(entry["tensors"])) or sorted(set(entry["tensors"]) - set(header))
        raise bad(f"the {CHECKSUM_KEY} metadata and the header disagree on the tensors (e.g. {unlisted[0]!r})")
    return {"structure": crc(entry.get("structure")),
            "tensors": {name: crc(value) for name, value in entry["tensors"].items()}}


def _verify(what, data, expected, bad):
    got = zlib.crc32(data)
    if got != expected:
        raise bad(f"{what} does not match the checksum saved with it (CRC-32 {got:08x}, saved {expected:08x}): "
                  f"its bytes changed after the save (a flipped bit on disk or in a copy?)")


def _check_entry(name, info, data_len, bad):
    """(dtype code, shape, begin, end) of one header entry, or raise `bad`."""
    if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= info.keys():
        raise bad(f"tensor {name!r}: expected an object with dtype, shape and data_offsets, got {info!r}")
    code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if code not in _DTYPES and code not in _WIDENED:
        raise bad(f"tensor {name!r} has dtype {code!r}; seqlab reads {', '.join([*_DTYPES, *_WIDENED])}")
    if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape):
        raise bad(f"tensor {name!r}: shape {shape!r} is not a list of non-negative integers")
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(type(o) is int for o in offsets)
            or not 0 <= offsets[0] <= offsets[1]):
        raise bad(f"tensor {name!r}: data_offsets {offsets!r} is not [begin, end] with 0 <= begin <= end")
    begin, end = offsets
    if end > data_len:
        raise bad(f"tensor {name!r}: data_offsets {offsets} reach beyond the {data_len} bytes of data "
                  f"in the file (truncated?)")
    need = math.prod(shape) * (_DTYPES[code] if code in _DTYPES else _WIDENED[code])[0].itemsize
    if end - begin != need:
        raise bad(f"tensor {name!r}: data_offsets {offsets} span {end - begin} bytes but a {code} tensor "
                  f"of shape {shape} has {need}")
    return code, shape, begin, end


def _read_into(f, buf):
    got = 0
    while got < len(buf):
        k = f.readinto(buf[got:])
        if not k:
            break
        got += k
    return got


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
