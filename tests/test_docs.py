"""help() in a notebook: every public callable of seqlab's public modules and
every public Tensor method has a docstring and a signature that inspect or the pybind11
docstring gives; tensors print as torch's do (values, dtype suffixes, requires_grad, grad_fn,
summaries of big tensors)."""
import importlib
import inspect
import re

import numpy as np
import pytest
import torch

import seqlab

MODULES = ["seqlab", "seqlab.nn", "seqlab.nn.functional", "seqlab.optim", "seqlab.optim.lr_scheduler", "seqlab.lm",
           "seqlab.embed", "seqlab.data", "seqlab.utils.data", "seqlab.generation", "seqlab.nn.positional",
           "seqlab.viz", "seqlab.nn.init", "seqlab.autograd", "seqlab.random", "seqlab.linalg", "seqlab.onnx",
           "seqlab.autograd.function", "seqlab.autograd.functional", "seqlab.autograd.graph", "seqlab.func"]


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return sorted(names)


def has_signature(name, f):
    """inspect.signature works, or the pybind11 docstring opens with `name(...)`."""
    try:
        inspect.signature(f)
        return True
    except (ValueError, TypeError):
        doc = (getattr(f, "__doc__", None) or "").lstrip()
        return re.match(rf"{re.escape(name)}\(.*\)", doc) is not None


def own_text(f):
    """The docstring without pybind11's signature lines."""
    doc = inspect.getdoc(f) or ""
    lines = [line for line in doc.splitlines()
             if not re.match(r"^\s*(\d+\. )?[\w.]+\(.*\)( -> .+)?$", line) and line.strip() != "Overloaded function."]
    return "\n".join(lines).strip()


def public_callables():
    seen = set()
    for modname in MODULES:
        module = importlib.import_module(modname)
        for name in public_names(module):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not callable(obj) or isinstance(obj, (seqlab.dtype, seqlab.device)):
                continue
            key = (modname, name)
            if key not in seen:
                seen.add(key)
                yield f"{modname}.{name}", name, obj
    for name in sorted(dir(seqlab.Tensor)):
        if name.startswith("_"):
            continue
        obj = getattr(seqlab.Tensor, name)
        if callable(obj) and not isinstance(obj, type):
            yield f"Tensor.{name}", name, obj


CALLABLES = list(public_callables())


def test_the_walk_reaches_the_api():
    names = {full for full, _, _ in CALLABLES}
    assert len(CALLABLES) > 400
    for expected in ["seqlab.add", "seqlab.tensor", "seqlab.nn.Linear", "seqlab.nn.functional.cross_entropy",
                     "seqlab.optim.Adam", "seqlab.lm.NGram", "seqlab.embed.Word2Vec", "Tensor.view", "Tensor.sum",
                     "seqlab.utils.data.DataLoader", "seqlab.viz.autograd_graph", "seqlab.onnx.export"]:
        assert expected in names, expected


def test_every_public_callable_has_a_docstring_and_a_signature():
    no_doc = [full for full, _, f in CALLABLES if not own_text(f)]
    no_sig = [full for full, name, f in CALLABLES if not isinstance(f, type) and not has_signature(name, f)]
    assert no_doc == [], f"{len(no_doc)} without a docstring: {no_doc}"
    assert no_sig == [], f"{len(no_sig)} without a signature: {no_sig}"


def test_help_shows_signature_and_text():
    for f, expect in [(seqlab.Tensor.view, "view("), (seqlab.add, "add(input"), (seqlab.nn.Linear, "in_features"),
                      (seqlab.zeros, "zeros(")]:
        text = pydoc_text(f)
        assert expect in text and len(own_text(f)) > 10, text


def pydoc_text(f):
    import pydoc
    return pydoc.render_doc(f, renderer=pydoc.plaintext)


# ------------------------------------------------------------------ repr as torch's
REPR_CASES = [
    lambda lib: lib.tensor([1.0, 2.5, -3.0]),
    lambda lib: lib.tensor([1.0, 2.0, 3.0]),
    lambda lib: lib.tensor(3.0),
    lambda lib: lib.tensor(7),
    lambda lib: lib.tensor(True),
    lambda lib: lib.tensor([[1, 2], [30, -4]]),
    lambda lib: lib.tensor([True, False]),
    lambda lib: lib.tensor([1.5, 2.0], dtype=lib.float64),
    lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64),
    lambda lib: lib.tensor([], dtype=lib.float64),
    lambda lib: lib.tensor([]),
    lambda lib: lib.tensor([], dtype=lib.int64),
    lambda lib: lib.zeros(2, 0, 3),
    lambda lib: lib.tensor([1e-5, 1.0, 1e5]),
    lambda lib: lib.tensor([1e10, 1.0]),
    lambda lib: lib.tensor([0.0001, 0.5]),
    lambda lib: lib.tensor([123456.789, 0.5]),
    lambda lib: lib.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
    lambda lib: lib.tensor([float("nan"), 1.0]),
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2,
    lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) + 1).sum(),
    lambda lib: lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True).exp(),
    lambda lib: lib.arange(2000.0),
    lambda lib: lib.arange(1200).reshape(40, 30),
    lambda lib: lib.arange(24.0).reshape(2, 3, 4) / 7,
    lambda lib: lib.arange(12.0).reshape(3, 4).t(),
    lambda lib: lib.arange(30.0) * 1.5,
    lambda lib: lib.tensor([-0.0, 0.0]),
    lambda lib: lib.tensor([[1e-8, 2.0], [3.0, 4.0]], dtype=lib.float64),
    lambda lib: lib.tensor([1, -2000000, 3]),
]


@pytest.mark.parametrize("case", range(len(REPR_CASES)))
def test_repr_as_torch(case):
    make = REPR_CASES[case]
    expected = repr(make(torch)).replace("torch.", "seqlab.")  # dtype=seqlab.float64
    assert repr(make(seqlab)) == expected
    assert str(make(seqlab)) == expected


def test_parameter_repr_as_torch():
    w = np.array([[0.5, -1.25]], dtype=np.float32)
    s = seqlab.nn.Parameter(seqlab.tensor(w))
    t = torch.nn.Parameter(torch.tensor(w))
    assert repr(s) == repr(t)
