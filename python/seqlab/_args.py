"""Argument errors in PyTorch's words: "narrow(): argument 'dim' (position 1) must be int, not float".

Two users. Python code checks the arguments it parses itself with `index`, `number`, `ints` and
`dtype` (the creation functions' sizes, values and dtypes). The compiled core sends here every
call that pybind11 could not match to a binding (cpp/python/bind_errors.cpp): `explain` reads
pybind11's report, whose signatures are Python type hints ("dim: typing.SupportsInt |
typing.SupportsIndex"), binds the call's arguments to them as Python would, and names the first
argument that cannot be converted, as torch's argument parser does. Where it cannot tell, it
lists the signatures in Python terms; a C++ type never reaches the user. Tests:
tests/test_hardening.py, section 9."""
import collections.abc
import functools
import operator
import re

import numpy as np

from . import _core

# ------------------------------------------------------------------ for Python code


def index(value, fn, arg):
    """value as an int, or torch's TypeError: ints and objects with __index__ (NumPy integers),
    not floats (int(2.5) would silently make 2)."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{fn}(): argument '{arg}' must be int, not {_type(value)}") from None


def int64(value, fn, arg):
    """index(value), which must also fit in int64: torch's ValueError otherwise (randint(0, 2**64))."""
    value = index(value, fn, arg)
    if not -2**63 <= value < 2**63:
        raise ValueError(f"{fn}(): argument '{arg}' does not fit in int64 (Overflow when unpacking long long)")
    return value


def number(value, fn, arg):
    """value as a float (a Python or NumPy number, a one-element tensor), or torch's TypeError
    (float('a') would raise ValueError, float('2') would silently make 2.0)."""
    if isinstance(value, (str, bytes)) or not hasattr(type(value), "__float__"):
        raise TypeError(f"{fn}(): argument '{arg}' must be Number, not {_type(value)}")
    return float(value)


def dtype(value, fn):
    """value if it is a seqlab dtype or None, else torch's TypeError."""
    if value is not None and not isinstance(value, _core.dtype):
        raise TypeError(f"{fn}(): argument 'dtype' must be seqlab.dtype, not {_type(value)}")
    return value


# NumPy's names that torch's argument parser accepts for its own (python_arg_parser.cpp):
# sum(x, axis=0, keepdims=True) is sum(x, dim=0, keepdim=True). The compiled functions get the
# same rule from cpp/python/bind_errors.cpp.
NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}


def numpy_names(f):
    """Let a Python function with `dim`/`keepdim` take NumPy's `axis`/`keepdims` too."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        for numpy_name, name in NUMPY_NAMES.items():
            if numpy_name in kwargs and name not in kwargs:
                kwargs[name] = kwargs.pop(numpy_name)
        return f(*args, **kwargs)
    return wrapper


def generator(value, fn):
    """generator= of a random function: None (the default generator) or a seqlab.Generator."""
    if value is not None and not isinstance(value, _core.Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {_type(value)}")
    return value


def ints(value, fn, arg="size"):
    """An int or a sequence of ints (a size) as a list, or torch's TypeError (also for an int
    that does not fit in int64, rand(2**64), with torch's words)."""
    if not isinstance(value, (str, bytes, _core.Tensor)) and isinstance(value, collections.abc.Sequence):
        out = []
        for pos, element in enumerate(value):
            try:
                out.append(operator.index(element))
            except TypeError:
                raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, but found element of type "
                                f"{_type(element)} at pos {pos}") from None
    else:
        try:
            out = [operator.index(value)]
        except TypeError:
            raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, not {_type(value)}") from None
    for pos, v in enumerate(out):
        if not -2**63 <= v < 2**63:  # torch counts this position from 1
            raise TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos {pos + 1} with error "
                            f"\"Overflow when unpacking long long\" (it does not fit in int64)")
    return out


# ------------------------------------------------------------------ for the bindings' failed calls


def explain(report, name, args, kwargs):
    """The message of the TypeError for a call of a binding that failed with pybind11's `report`,
    or None to keep the report. `name` is the function's name (None if unknown); `args` and
    `kwargs` are the call's arguments, self first for a method. A str that UTF-8 cannot encode
    (a lone surrogate, "a\\ud800b"), which pybind11 reports as a mismatch, is a ValueError
    naming it: the exception itself is returned."""
    text = _unencodable(list(args) + list(kwargs.values()))
    if text is not None:
        return ValueError(f"{name or 'this function'}(): the text {text!r} is not valid Unicode: it holds a lone "
                          f"surrogate, which UTF-8 cannot encode")
    if report.startswith("Unable to cast Python instance"):  # a .cast<T>() inside a binding
        found = re.match(r"Unable to cast Python instance of type <class '([\w.]+)'>", report)
        what = found.group(1).rsplit(".", 1)[-1] if found else "an unexpected type"
        return f"{name or 'this function'}(): received an argument of type {what} that it cannot convert"
    header = re.match(r"([\w.]*)\(\): incompatible (function|constructor) arguments\. "
                      r"The following argument types are supported:\n", report)
    if not header:
        return None
    listing = report[header.end():].split("\n\nInvoked with", 1)[0]
    overloads = [_signature(line) for line in re.findall(r"^\s+\d+\. (.+)$", listing, re.M)]
    if not overloads or None in overloads:
        return None
    if not header.group(1):  # a property's setter (`name` is the property's): (self, value)
        problem = name and len(args) == 2 and len(overloads[0][1]) == 2 and _problem(overloads[0][1][1].type, args[1])
        return f"{name} must be {problem}" if problem else None
    name = header.group(1)
    if header.group(2) == "constructor":  # the signatures leave out self; the call has it
        name, args = overloads[0][0], args[1:]
    if len(overloads) == 1:
        blame = _blame(name, overloads[0][1], args, kwargs)
        if blame:
            return blame
    params = overloads[0][1]
    skip = 1 if params and params[0].name == "self" else 0
    got = [_type(a) for a in args[skip:]] + [f"{k}={_type(v)}" for k, v in kwargs.items()]
    lines = [f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), "
             f"but expected one of:"]
    lines += [" * (" + ", ".join(p.readable() for p in params if p.name != "self") + ")" for _, params in overloads]
    return "\n".join(lines)


def _unencodable(values, depth=2):
    """The first str among values (and inside their lists, tuples and dicts, `depth` levels down)
    that UTF-8 cannot encode, or None."""
    for v in values:
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return v
        elif depth and isinstance(v, (list, tuple, dict)):
            found = _unencodable(v.keys() if isinstance(v, dict) else v, depth - 1)
            if found is not None:
                return found
    return None


class _Param:
    def __init__(self, name, kind, annotation=None, default=None):
        self.name, self.kind, self.default = name, kind, default
        self.type = _parse_type(annotation) if annotation else ("name", "object")

    def readable(self):
        if self.kind == "var_positional":
            return "*" + self.name
        if self.kind == "var_keyword":
            return "**" + self.name
        text = f"{self.name}: {_display(self.type)}"
        return text + (f" = {self.default}" if self.default is not None else "")


def _split(text, sep=","):
    """text split at `sep` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>" and not text[i - 1:i + 1] == "->":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i].strip())
            start = i + len(sep)
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _signature(line):
    """(name, params) of one line of the report, "(self: Tensor, dim: int) -> Tensor" or, for a
    constructor, "seqlab._core.optim.SGDOptions(lr: float = 0.001)"; None if unreadable."""
    open_ = line.find("(")
    depth = 0
    for close in range(open_, len(line)):
        depth += {"(": 1, ")": -1}.get(line[close], 0)
        if depth == 0:
            break
    else:
        return None
    params, kind = [], "positional"
    for part in _split(line[open_ + 1:close]):
        if part == "/":
            for p in params:
                p.kind = "positional_only"
        elif part == "*":
            kind = "keyword_only"
        elif part.startswith("**"):
            params.append(_Param(part[2:].split(":")[0], "var_keyword"))
        elif part.startswith("*"):
            params.append(_Param(part[1:].split(":")[0], "var_positional"))
            kind = "keyword_only"
        else:
            declared, *default = _split(part, " = ")
            name, _, annotation = declared.partition(":")
            params.append(_Param(name.strip(), kind, annotation.strip(), default[0] if default else None))
    return line[:open_].rsplit(".", 1)[-1], params


def _blame(name, params, args, kwargs):
    """What is wrong with calling `params` with these arguments, as torch (or Python) says it;
    None if nothing is found."""
    skip = 1 if params and params[0].name == "self" else 0  # torch counts positions after self
    positional = [p for p in params if p.kind in ("positional_only", "positional")]
    if len(args) > len(positional) and not any(p.kind == "var_positional" for p in params):
        return (f"{name}() takes {len(positional) - skip} positional argument{'s' * (len(positional) - skip != 1)} "
                f"but {len(args) - skip} were given")
    bound = {p.name: (value, i) for i, (p, value) in enumerate(zip(positional, args))}
    for key, value in kwargs.items():
        if not any(p.name == key and p.kind in ("positional", "keyword_only") for p in params):
            if any(p.kind == "var_keyword" for p in params):
                continue
            return f"{name}() got an unexpected keyword argument '{key}'"
        if key in bound:
            return f"{name}() got multiple values for argument '{key}'"
        bound[key] = (value, None)
    for kinds, word in ((("positional_only", "positional"), "positional"), (("keyword_only",), "keyword-only")):
        missing = [p.name for p in params if p.kind in kinds and p.default is None and p.name not in bound]
        if missing:
            return (f"{name}() missing {len(missing)} required {word} argument{'s' * (len(missing) != 1)}: "
                    + ", ".join(f'"{m}"' for m in missing))
    for p in params:
        if p.name in bound:
            value, i = bound[p.name]
            problem = _problem(p.type, value)
            if problem:
                where = f" (position {i + 1 - skip})" if i is not None and i >= skip else ""
                return f"{name}(): argument '{p.name}'{where} must be {problem}"
    return None


# A type is ("name", "int"), ("union", [types]) or ("generic", "Sequence", [types]). pybind11 3
# spells int and float as protocols; pybind11 2 as int and float.
_SPELLINGS = [("typing.SupportsInt | typing.SupportsIndex", "int"),
              ("typing.SupportsFloat | typing.SupportsIndex", "float")]
_PREFIXES = ("typing.", "collections.abc.", "numpy.typing.")


def _parse_type(text):
    for long, short in _SPELLINGS:
        text = text.replace(long, short)
    alternatives = _split(text, " | ")
    if len(alternatives) > 1:
        return ("union", [_parse_type(a) for a in alternatives])
    text = alternatives[0]
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):]
    if text.endswith("]") and "[" in text:
        base, inner = text[:-1].split("[", 1)
        args = [_parse_type(a) for a in _split(inner)]
        if base == "Optional":
            return ("union", args + [("name", "None")])
        if base == "Union":
            return ("union", args)
        return ("generic", base, args)
    return ("name", text)


def _display(t):
    """A type as torch names it in messages: int, float, Tensor, tuple of ints."""
    if t[0] == "union":
        shown = [_display(a) for a in t[1] if a != ("name", "None")]
        return " or ".join(shown) if shown else "None"
    if t[0] == "generic":
        base, args = t[1], t[2]
        if base in ("Sequence", "list", "List"):
            element = _display(args[0])
            plural = {"int": "ints", "float": "floats", "Tensor": "Tensors", "str": "strs"}.get(element)
            return f"tuple of {plural}" if plural else f"sequence of {element}"
        if base == "Annotated":
            return _display(args[0])
        if base in ("Mapping", "dict", "Dict"):
            return "dict"
        return f"{base.lower()}[{', '.join(_display(a) for a in args)}]"
    name = t[1]
    if name == "seqlab._core.dtype":
        return "seqlab.dtype"
    if name.startswith("seqlab._core."):
        return name[len("seqlab._core."):]
    return {"NoneType": "None", "ArrayLike": "array-like", "ndarray": "numpy.ndarray"}.get(name, name)


def _type(value):
    return "Tensor" if isinstance(value, _core.Tensor) else type(value).__name__


def _problem(t, value):
    """What to say after "must be" when `value` cannot be converted to type t; None when it can
    (or when it is not clear that it cannot: then no argument is blamed)."""
    kind = t[0]
    if kind == "union":
        problems = [_problem(a, value) for a in t[1]]
        if None in problems:
            return None
        real = [p for a, p in zip(t[1], problems) if a != ("name", "None")]
        return real[0] if len(real) == 1 else f"{_display(t)}, not {_type(value)}"
    if kind == "generic":
        base, args = t[1], t[2]
        if base == "Annotated":
            return _problem(args[0], value)
        if base in ("Sequence", "list", "List", "tuple", "Tuple"):
            if isinstance(value, (str, bytes, dict)) or not hasattr(type(value), "__getitem__"):
                return f"{_display(t)}, not {_type(value)}"
            if base in ("tuple", "Tuple") and len(value) != len(args):
                return f"{_display(t)}, not a sequence of length {len(value)}"
            for pos, element in enumerate(value):
                if _problem(args[0 if base not in ("tuple", "Tuple") else pos], element):
                    return f"{_display(t)}, but found element of type {_type(element)} at pos {pos}"
            return None
        if base in ("Mapping", "dict", "Dict"):
            return None if isinstance(value, collections.abc.Mapping) else f"dict, not {_type(value)}"
        return None
    ok = _accepts(t[1], value)
    return None if ok is not False else f"{_display(t)}, not {_type(value)}"


def _accepts(name, value):
    """True, False, or None when seqlab cannot tell what pybind11's converter would do (which
    tries __index__, __int__, __float__ and __bool__ where the value has them)."""
    tensor = isinstance(value, _core.Tensor)
    has = lambda *methods: any(hasattr(type(value), m) for m in methods)  # noqa: E731
    if name == "int":
        if isinstance(value, (int, np.integer)):
            return True
        if tensor:  # through __index__: a one-element integer tensor
            return value.numel() == 1 and not value.dtype.is_floating_point
        return False if isinstance(value, float) or not has("__index__", "__int__") else None
    if name == "float":
        if isinstance(value, (int, float, np.number)):
            return True
        if tensor:
            return value.numel() == 1
        return None if has("__float__", "__index__") else False
    if name == "bool":
        if value is None or isinstance(value, (bool, np.bool_, int, float)):
            return True
        return None if has("__bool__") else False
    if name == "str":
        return isinstance(value, (str, bytes))
    if name in ("None", "NoneType"):
        return value is None
    if name == "Tensor":
        return tensor
    if name in ("dict", "list", "tuple"):
        return isinstance(value, {"dict": dict, "list": list, "tuple": tuple}[name])
    if name.startswith("seqlab._core."):
        cls = _core
        for part in name.split(".")[2:]:
            cls = getattr(cls, part, None)
        return isinstance(value, cls) if isinstance(cls, type) else None
    return None  # object, numpy arrays, callables, ...
