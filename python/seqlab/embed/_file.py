"""The embedding models' files (Word2Vec, FastText, GloVe, PPMI): one safetensors file each,
written by seqlab.save (atomic), holding JSON metadata (format, version, class, params,
index_to_key, ...) and the arrays; and the checks that turn a file that is damaged, of another
kind or lacking something save writes into a ValueError naming the loader, the file and what is
wrong. Tested in tests/test_word2vec.py, test_fasttext.py, test_glove.py, test_ppmi.py.
"""
import os

import numpy as np

from .._core import Tensor, from_numpy
from ..serialization import load, save


def save_model(model, fname, fmt, version, params, index_to_key, arrays, extra=None):
    """One safetensors file via seqlab.save (atomic): JSON metadata (format, version, class,
    params, index_to_key, `extra`) and the arrays (None ones left out)."""
    tensors = {k: from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items() if v is not None}
    save({"format": fmt, "version": version, "class": type(model).__name__, "params": params,
          "index_to_key": list(index_to_key), **(extra or {}), "arrays": tensors}, fname)


def missing(cls, fname, what):
    """The error for a file that lacks `what` ("array 'count'", "'params'", ...), which
    cls.save always writes."""
    return ValueError(f"{cls.__name__}.load: '{os.fspath(fname)}' has no {what} "
                      f"(not written by {cls.__name__}.save, or damaged)")


def load_state(cls, fname, fmt, version, params, expected, shared_by=None):
    """Reads a file written by save_model and checks it before anything uses it.

    params: the names save_model always writes in params. expected(V, state) gives
    {array name: (dtype, shape or None to skip, required)}, V = len(index_to_key); it is called
    once params and index_to_key are checked. shared_by: the classes whose files share `fmt`,
    told apart by the file's class (Word2Vec and FastText).
    ValueError naming cls.load and the file when it is unreadable (truncated, not safetensors),
    of another kind or version, lacks something save_model writes, or is inconsistent.
    Returns (state, {array name: NumPy copy})."""
    who, path = f"{cls.__name__}.load", os.fspath(fname)
    try:
        state = load(path)
    except ValueError as e:  # seqlab.load's message names the file and the damage
        raise ValueError(f"{who}: cannot read '{path}': {e}") from None

    def corrupt(why):
        return ValueError(f"{who}: '{path}' is corrupt: {why}")

    kinds = shared_by or (cls.__name__,)
    if not isinstance(state, dict) or state.get("format") != fmt:
        raise ValueError(f"{who}: '{path}' is not a seqlab {'/'.join(kinds)} file")
    if "version" not in state:
        raise missing(cls, path, "'version'")
    if state["version"] != version:
        raise ValueError(f"{who}: '{path}' is a version-{state['version']!r} {'/'.join(kinds)} file; "
                         f"this seqlab reads version {version}")
    if "class" not in state:
        raise missing(cls, path, "'class'")
    if shared_by and state["class"] != cls.__name__:
        raise ValueError(f"{who}: '{path}' holds a {state['class']}, load it with {state['class']}.load")
    if "params" not in state:
        raise missing(cls, path, "'params'")
    if not isinstance(state["params"], dict):
        raise corrupt("its params are not a dict")
    absent = [repr(p) for p in params if p not in state["params"]]
    if absent:
        raise missing(cls, path, f"parameter{'s' if len(absent) > 1 else ''} {', '.join(absent)}")
    if "index_to_key" not in state:
        raise missing(cls, path, "'index_to_key'")
    words = state["index_to_key"]
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words) or len(set(words)) != len(words):
        raise corrupt("index_to_key must be a list of distinct strings")
    if "arrays" not in state:
        raise missing(cls, path, "arrays")
    if not isinstance(state["arrays"], dict) or not all(isinstance(t, Tensor) for t in state["arrays"].values()):
        raise corrupt("its arrays must be a dict of tensors")
    arrays = {k: t.numpy().copy() for k, t in state["arrays"].items()}
    for name, (dtype, shape, required) in expected(len(words), state).items():
        if name not in arrays:
            if required:
                raise missing(cls, path, f"array {name!r}")
            continue
        a = arrays[name]
        if a.dtype != dtype or (shape is not None and a.shape != shape):
            raise corrupt(f"the array {name!r} is {a.dtype} {a.shape}, expected {np.dtype(dtype)} "
                          f"{shape if shape is not None else ''}".rstrip())
    return state, arrays
