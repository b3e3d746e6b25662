"""The type stubs of the compiled module (python/seqlab/_core/*.pyi, made by tools/gen_stubs.py):
they parse, declare every public name of seqlab._core (functions, classes, their methods and
properties) with the parameter names of the runtime's signatures, so they cannot go stale
unnoticed; and a notebook's completer (jedi, as IPython uses it) gets real signatures."""
import ast
import importlib
import inspect
import keyword
import pathlib
import re

import jedi
import pytest

import seqlab
from seqlab import _core

STUBS = pathlib.Path(seqlab.__file__).resolve().parent / "_core"
SUBMODULES = sorted(n for n, v in vars(_core).items() if inspect.ismodule(v) and v.__name__.startswith("seqlab._core."))


def stub_tree(module_name):
    name = "__init__" if module_name == "seqlab._core" else module_name.rsplit(".", 1)[1]
    return ast.parse((STUBS / f"{name}.pyi").read_text())


def split_top(text):
    """Split a parameter list at the commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += c
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def names_of(params):
    out = []
    for p in params:
        name = re.split(r"[:=]", p, maxsplit=1)[0].strip()
        if name not in ("*", "/"):
            name = name.lstrip("*")
            out.append(name + "_" if keyword.iskeyword(name) else name)  # from -> from_, as torch's stubs
    return tuple(out)


def runtime_signatures(name, f):
    """The parameter-name tuples of each overload: pybind11's docstring lines, or inspect's."""
    try:
        return {tuple(inspect.signature(f).parameters)}
    except (ValueError, TypeError):
        pass
    doc = f.__doc__ or ""
    found = set()
    for line in doc.splitlines():
        m = re.match(rf"^(?:\d+\. )?{re.escape(name)}\((.*)\)(?: -> .*)?$", line.strip())
        if m:
            found.add(names_of(split_top(m.group(1))))
    if len(found) > 1:  # overloaded: the first line is the catch-all name(*args, **kwargs)
        found.discard(("args", "kwargs"))
    return found


def stub_signature(node):
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args]
    if a.vararg:
        names.append(a.vararg.arg)
    names += [x.arg for x in a.kwonlyargs]
    if a.kwarg:
        names.append(a.kwarg.arg)
    return tuple(names)


def stub_members(body):
    """name -> list of FunctionDef / ClassDef / assignment nodes declared in a module or class body."""
    out = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, []).append(node)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(node)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                out.setdefault(alias.asname or alias.name, []).append(node)
    return out


def check_scope(runtime, body, where, problems):
    declared = stub_members(body)
    for name, value in vars(runtime).items():
        if name.startswith("_") and name != "__init__":
            continue
        if name == "__init__" and (type(value).__name__ == "wrapper_descriptor" or not runtime_signatures(name, value)):
            continue  # a class with no constructor from Python (pybind11's default __init__ raises)
        if name not in declared:
            problems.append(f"{where}.{name}: not in the stub")
            continue
        f = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
        if inspect.isclass(f) and f.__module__.startswith("seqlab._core") and isinstance(declared[name][0], ast.ClassDef):
            check_scope(f, declared[name][0].body, f"{where}.{name}", problems)
        elif callable(f) and not inspect.isclass(f) and not isinstance(f, property):
            want = runtime_signatures(name, f)
            nodes = declared[name]
            if all(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) for n in nodes):  # `asin = arcsin`
                nodes = declared.get(nodes[0].value.id, [])
                if not nodes:
                    problems.append(f"{where}.{name}: an alias of an undeclared name in the stub")
            have = {stub_signature(n) for n in nodes if isinstance(n, ast.FunctionDef)}
            if inspect.isclass(runtime):  # a method's receiver: `self`, or `input` for a Python function
                want, have = ({("self",) + w[1:] if w and w[0] == "input" else w for w in sigs} for sigs in (want, have))
            if want and have and not (want & have):
                problems.append(f"{where}.{name}: runtime {sorted(want)} but stub {sorted(have)}")
            static_in_stub = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                 for n in declared[name] if isinstance(n, ast.FunctionDef) for d in n.decorator_list)
            if inspect.isclass(runtime) and static_in_stub != isinstance(value, staticmethod):
                problems.append(f"{where}.{name}: a {'static ' if static_in_stub else ''}method in the stub but not at "
                                "run time")


def test_stubs_parse_and_are_shipped():
    assert (STUBS / "__init__.pyi").exists()
    assert (STUBS.parent / "py.typed").exists()
    for sub in ["__init__"] + SUBMODULES:
        ast.parse((STUBS / f"{sub}.pyi").read_text())


@pytest.mark.parametrize("module_name", ["seqlab._core"] + [f"seqlab._core.{s}" for s in SUBMODULES])
def test_stubs_declare_the_runtime_api(module_name):
    """Fails when a binding was added, removed or renamed since tools/gen_stubs.py last ran."""
    problems = []
    check_scope(importlib.import_module(module_name), stub_tree(module_name).body, module_name, problems)
    assert problems == [], "stale stubs (run tools/gen_stubs.py):\n" + "\n".join(problems)


def test_stubs_carry_types_and_defaults():
    tensor = next(n for n in stub_tree("seqlab._core").body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    methods = {n.name: n for n in tensor.body if isinstance(n, ast.FunctionDef)}
    for name in ["sum", "view", "transpose", "backward", "softmax", "masked_fill", "to", "__getitem__", "numpy"]:
        assert name in methods, name
    text = ast.unparse(methods["sum"]).replace(" ", "")
    assert "keepdim:bool=False" in text and "->Tensor" in text
    assert "dtype:dtype|None=None" in text


@pytest.mark.parametrize("code, params", [
    ("x.sum(", ["dim", "keepdim", "dtype", "keepdims"]),
    ("x.transpose(", ["dim0", "dim1"]),
    ("x.masked_fill(", ["mask", "value"]),
    ("x.backward(", ["gradient", "retain_graph"]),
    ("x.narrow(", ["dim", "start", "length"]),
    ("seqlab.add(", ["input", "other", "alpha"]),
    ("seqlab.zeros(", ["size", "dtype", "device", "requires_grad"]),
])
def test_a_notebook_completer_shows_real_signatures(code, params):
    """What IPython shows while one types: jedi's signatures for live objects."""
    sigs = jedi.Interpreter(code, [{"x": seqlab.zeros(2, 3), "seqlab": seqlab}]).get_signatures()
    assert sigs, code
    names = [re.split(r"[:=]", p.name)[0].strip().lstrip("*") for p in sigs[0].params]
    for p in params:
        assert p in names, (code, names)


def test_inspect_signature_for_python_tensor_methods():
    for f in [seqlab.Tensor.to, seqlab.Tensor.tolist, seqlab.Tensor.new_zeros, seqlab.Tensor.type_as]:
        assert "self" in inspect.signature(f).parameters
