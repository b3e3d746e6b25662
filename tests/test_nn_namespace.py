"""seqlab.nn has torch.nn's namespace: each class torch.nn has is defined in the file torch defines it
in (torch.nn.modules.linear.Linear <-> seqlab.nn.modules.linear.Linear, torch.nn.parameter.Parameter <->
seqlab.nn.parameter.Parameter), seqlab.nn.modules.<file> gives the very objects seqlab.nn does,
and nn/ holds no file that only re-exports another's names (DESIGN.md, "Python package layout")."""
import ast
import importlib
import pathlib

import pytest
import torch.nn

import seqlab.nn

NN = pathlib.Path(seqlab.nn.__file__).parent
TORCH_CLASSES = sorted(name for name in seqlab.nn.__all__
                       if isinstance(getattr(seqlab.nn, name), type) and isinstance(getattr(torch.nn, name, None), type))


def seqlab_path(torch_module):
    return "seqlab" + torch_module[len("torch"):]


def test_the_torch_classes_are_found():
    assert len(TORCH_CLASSES) >= 86  # the layers, losses, containers, Module, Parameter, ...
    assert {"Linear", "MultiheadAttention", "LSTM", "Module", "Parameter", "LazyLinear"} <= set(TORCH_CLASSES)


@pytest.mark.parametrize("name", TORCH_CLASSES)
def test_class_is_defined_at_torchs_module_path(name):
    theirs = getattr(torch.nn, name).__module__
    assert theirs.startswith("torch.nn.")
    ours = getattr(seqlab.nn, name)
    assert ours.__module__ == seqlab_path(theirs), f"{name} is defined in {ours.__module__}, torch's in {theirs}"
    assert getattr(importlib.import_module(seqlab_path(theirs)), name) is ours


def test_nn_modules_reexports_the_same_objects_as_nn():
    import seqlab.nn.modules as modules
    import torch.nn.modules as torch_modules
    for name in modules.__all__:
        assert getattr(modules, name) is getattr(seqlab.nn, name), name
        assert name in seqlab.nn.__all__, name
    ours = {n for n in modules.__all__}
    theirs = {n for n in dir(torch_modules) if n in TORCH_CLASSES}
    assert theirs <= ours, sorted(theirs - ours)


def test_every_class_of_a_module_file_is_exported_from_its_file():
    """A module file's __all__ lists the public classes it defines, and nothing it imports."""
    for path in sorted((NN / "modules").glob("[!_]*.py")):
        module = importlib.import_module(f"seqlab.nn.modules.{path.stem}")
        defined = {n for n, v in vars(module).items()
                   if isinstance(v, type) and v.__module__ == module.__name__ and not n.startswith("_")}
        assert set(module.__all__) == defined, (path.name, sorted(set(module.__all__) ^ defined))


def _only_reexports(path):
    """The file's body is imports of the package's Python modules, __all__ and a docstring, nothing
    defined (a file binding compiled functions at torch's path, as nn/init.py, is not a shim)."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and "_core" in (node.module or "").split("."):
            return False
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            continue
        return False
    return True


def test_no_shim_files():
    """Apart from package __init__ files (which re-export, as torch's), no module only re-exports."""
    package = NN.parent
    shims = [str(p.relative_to(package)) for p in sorted(package.rglob("*.py"))
             if p.name != "__init__.py" and _only_reexports(p)]
    assert not shims, f"files that only re-export: {shims}"


def test_helpers_module_is_a_leaf():
    """nn/_helpers.py, which every layer file imports, imports nothing of seqlab.nn."""
    tree = ast.parse((NN / "_helpers.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level != 1 and not (node.module or "").startswith("seqlab.nn"), ast.unparse(node)
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("seqlab") for a in node.names), ast.unparse(node)
