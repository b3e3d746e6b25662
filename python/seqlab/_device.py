"""torch.device and the argument parsing of Tensor.to / Module.to. seqlab computes on the CPU
only, but PyTorch scripts name their device (`device = torch.device("cpu")`,
`data.to(device)`, `model.to(device)`), so seqlab.device exists, "cpu" is accepted wherever
torch takes a device, and any other device type is a RuntimeError at the point of use.
Tests: tests/test_lm_script_api.py."""
import re

from . import _core

__all__ = ["device", "parse_to"]

# torch's device types, for its "Expected one of ..." message; only "cpu" can hold data here.
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:
    """device(type, index=None) or device("type:index"), as torch.device: a value naming where
    tensors live. Equal devices compare and hash equal; str() is "cpu" or "cuda:0"."""

    __slots__ = ("_type", "_index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        if not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' must be str, not {_typename(type)}")
        found = re.fullmatch(r"([a-z_]+)(?::(\d+))?", type)
        name = found.group(1) if found else type.split(":")[0]
        if name not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                               f"string: {type}")
        if not found:
            raise RuntimeError(f"Invalid device string: '{type}'")
        if found.group(2) is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed "
                                   f"explicitly: {type}")
            index = int(found.group(2))
        if index is not None and (not isinstance(index, int) or index < 0):
            raise RuntimeError(f"Device index must not be negative, got {index}")
        self._type, self._index = name, index

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    def __eq__(self, other):
        return isinstance(other, device) and (self._type, self._index) == (other._type, other._index)

    def __hash__(self):
        return hash((self._type, self._index))

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __repr__(self):
        index = "" if self._index is None else f", index={self._index}"
        return f"device(type='{self._type}'{index})"

    def __reduce__(self):
        return device, (self._type, self._index)


def _typename(obj):
    return type(obj).__name__


CPU = device("cpu")


def check_device(dev, fn="to"):
    """The seqlab.device for `dev` (a device or a string), refusing all but the CPU."""
    dev = dev if isinstance(dev, device) else device(dev)
    if dev.type != "cpu":
        raise RuntimeError(f"{fn}(): seqlab runs on the CPU only; got device '{dev}'")
    return dev


def parse_to(args, kwargs, fn="to"):
    """(device or None, dtype or None, copy) from Tensor.to's overloads, as torch parses them:
    to(dtype), to(device, dtype=None), to(tensor), each with non_blocking and copy
    (positionally after the first form's arguments, or by keyword) and memory_format."""
    kwargs = dict(kwargs)
    dev, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    flags = {"non_blocking": kwargs.pop("non_blocking", False), "copy": kwargs.pop("copy", False)}
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"{fn}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], _core.Tensor):
        other = rest.pop(0)
        dtype = other.dtype
    elif rest and isinstance(rest[0], _core.dtype):
        dtype = rest.pop(0)
    elif rest and (isinstance(rest[0], (str, device)) or rest[0] is None):
        dev = rest.pop(0)
        if rest and isinstance(rest[0], _core.dtype):
            dtype = rest.pop(0)
    names = iter(("non_blocking", "copy"))
    for a in rest:
        name = next(names, None)
        if name is None or not isinstance(a, bool):
            got = ", ".join(_typename(x) for x in args)
            raise TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but expected one "
                            "of: (device device = None, dtype dtype = None, bool non_blocking = False, bool copy = "
                            "False), (dtype dtype, bool non_blocking = False, bool copy = False), (Tensor other, "
                            "bool non_blocking = False, bool copy = False)")
        flags[name] = a
    if dev is not None:
        check_device(dev, fn)
    if dtype is not None and not isinstance(dtype, _core.dtype):
        raise TypeError(f"{fn}(): argument 'dtype' must be seqlab.dtype, not {_typename(dtype)}")
    return dev, dtype, flags["copy"]
