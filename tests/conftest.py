"""Shared helpers for the seqlab test suite.

torch (2.13, CPU) is the oracle: every op is run on the same NumPy data through seqlab and
through torch, and the outputs and every input's gradient are compared.
See tests/test_*.py for the per-family tests.
"""

import json
import os
import select
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn.functional  # noqa: F401  (makes seqlab.nn.functional reachable as an attribute)

# Default tolerances per dtype: (atol, rtol).
TOL = {
    np.float32: (1e-5, 1e-4),
    np.float64: (1e-10, 1e-8),
}

FLOAT_DTYPES = [np.float32, np.float64]
DTYPE_IDS = ["f32", "f64"]

# numpy dtype -> library dtype
SEQLAB_DTYPE = {
    np.dtype(np.float32): seqlab.float32,
    np.dtype(np.float64): seqlab.float64,
    np.dtype(np.int64): seqlab.int64,
    np.dtype(np.bool_): seqlab.bool,
}
TORCH_DTYPE = {
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.bool_): torch.bool,
}


def tol(dtype, scale=1.0):
    """(atol, rtol) for a numpy float dtype, optionally loosened by `scale`."""
    atol, rtol = TOL[np.dtype(dtype).type]
    return atol * scale, rtol * scale


def shape_id(*shapes):
    """Readable parametrize id for a list of shapes: (3,1)x(4)."""
    def one(s):
        return "(" + ",".join(str(d) for d in s) + ")"
    return "x".join(one(s) for s in shapes)


# ----------------------------------------------------------------------------------------
# Every instruction set the CPU has
# ----------------------------------------------------------------------------------------

# The tests of the SIMD kernels and of the fused layers built on them run once per instruction
# set level this CPU has (sse2, avx2, avx512): seqlab's dispatchers are capped at each in turn,
# so an AVX-512 machine checks three paths and an AVX2 machine two.
ISA_MODULES = {
    "test_vector_kernels", "test_elementwise", "test_reduce", "test_activation_loss", "test_norm",
    "test_rnn", "test_packed_sequence", "test_attention", "test_seq2seq_attention", "test_positional",
    "test_transformer", "test_kv_cache", "test_word2vec", "test_fasttext", "test_isa",
}
ISAS = list(seqlab._core._available_isas())


def pytest_generate_tests(metafunc):
    if metafunc.module.__name__.rsplit(".", 1)[-1] in ISA_MODULES:
        if "isa" not in metafunc.fixturenames:
            metafunc.fixturenames.append("isa")
        metafunc.parametrize("isa", ISAS, indirect=True, scope="module")


@pytest.fixture(scope="module")
def isa(request):
    """Caps every SIMD dispatcher at request.param for the test, then restores the CPU's best."""
    before = seqlab._core._simd_isa()
    seqlab._core._set_isa(request.param)
    yield request.param
    seqlab._core._set_isa(before)


# ----------------------------------------------------------------------------------------
# Seeding
# ----------------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def _seed_everything(request):
    """Seed numpy, torch and seqlab deterministically per test (derived from the test id)."""
    seed = zlib.crc32(request.node.nodeid.encode()) & 0x7FFFFFFF
    np.random.seed(seed)
    torch.manual_seed(seed)
    seqlab.manual_seed(seed)
    yield


@pytest.fixture
def rng(request):
    """A numpy Generator seeded from the test id, so every test is reproducible."""
    seed = zlib.crc32(request.node.nodeid.encode()) & 0x7FFFFFFF
    return np.random.default_rng(seed)


def make_rng(seed=0):
    return np.random.default_rng(seed)


# ----------------------------------------------------------------------------------------
# Random data
# ----------------------------------------------------------------------------------------

def randn(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def uniform(rng, shape, low, high, dtype=np.float32):
    return rng.uniform(low, high, size=shape).astype(dtype)


def away_from_zero(rng, shape, dtype=np.float32, low=0.5, high=2.0):
    """Random values with |v| in [low, high] and random sign (safe for div, abs, relu)."""
    mag = rng.uniform(low, high, size=shape)
    sign = np.where(rng.random(size=shape) < 0.5, -1.0, 1.0)
    return (mag * sign).astype(dtype)


# ----------------------------------------------------------------------------------------
# Conversions
# ----------------------------------------------------------------------------------------

def _is_float(arr):
    return np.issubdtype(arr.dtype, np.floating)


def sl_leaf(arr, requires_grad=None):
    """A fresh seqlab leaf tensor holding a copy of `arr`."""
    arr = np.array(arr, copy=True, order="C")
    t = seqlab.from_numpy(arr)
    if requires_grad is None:
        requires_grad = _is_float(arr)
    if requires_grad:
        t.requires_grad_()
    return t


def th_leaf(arr, requires_grad=None):
    arr = np.array(arr, copy=True, order="C")
    t = torch.from_numpy(arr)
    if requires_grad is None:
        requires_grad = _is_float(arr)
    if requires_grad:
        t.requires_grad_()
    return t


def sl_np(t):
    """seqlab tensor -> numpy copy (works for non-contiguous and requires_grad tensors)."""
    return np.array(t.detach().contiguous().numpy(), copy=True)


def th_np(t):
    return t.detach().contiguous().numpy().copy()


def _flatten_outputs(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flatten_outputs(o))
        return res
    return [out]


def assert_close(got, expected, atol, rtol, what=""):
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != torch {expected.shape}"
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != torch {expected.dtype}"
    if got.dtype == np.bool_ or np.issubdtype(got.dtype, np.integer):
        np.testing.assert_array_equal(got, expected, err_msg=what)
    else:
        np.testing.assert_allclose(got, expected, atol=atol, rtol=rtol, equal_nan=True, err_msg=what)


# ----------------------------------------------------------------------------------------
# The central comparison
# ----------------------------------------------------------------------------------------

def _make_layout(arr, layout):
    """Return (storage array, view function) so that view(storage) has the values of `arr`.

    layout: "contig" -> arr itself; "T" -> stored transposed, viewed with transpose(-1, -2);
    "slice" -> stored with a doubled last dim, viewed with [..., ::2].
    Both views are non-contiguous, so the op under test sees strided input.
    """
    if layout == "contig" or arr.ndim == 0:
        return arr, (lambda t: t)
    if layout == "T":
        if arr.ndim < 2:
            return arr, (lambda t: t)
        return np.ascontiguousarray(np.swapaxes(arr, -1, -2)), (lambda t: t.transpose(-1, -2))
    if layout == "slice":
        big_shape = arr.shape[:-1] + (arr.shape[-1] * 2,)
        big = np.zeros(big_shape, dtype=arr.dtype)
        if _is_float(arr):
            big[...] = 7.0  # junk in the skipped positions
        big[..., ::2] = arr
        return big, (lambda t: t[..., ::2])
    raise ValueError(layout)


def assert_matches_torch(seqlab_fn, torch_fn, inputs, atol=None, rtol=None, grad=True,
                         layout="contig", upstream_seed=1234):
    """Run `seqlab_fn` and `torch_fn` on tensors built from the same numpy `inputs`.

    Float inputs become leaves with requires_grad=True (when grad=True). The outputs are
    compared (values, shape, dtype). Then a random upstream gradient, identical for both
    libraries, is backpropagated from every floating output that requires grad, and every
    input's .grad is compared.
    """
    inputs = [np.asarray(a) for a in inputs]
    float_dtypes = [a.dtype for a in inputs if _is_float(a)]
    if atol is None or rtol is None:
        d_atol, d_rtol = tol(float_dtypes[0] if float_dtypes else np.float64)
        atol = d_atol if atol is None else atol
        rtol = d_rtol if rtol is None else rtol

    storages, views = zip(*[_make_layout(a, layout) for a in inputs]) if inputs else ((), ())
    sl_leaves = [sl_leaf(s, requires_grad=grad and _is_float(s)) for s in storages]
    th_leaves = [th_leaf(s, requires_grad=grad and _is_float(s)) for s in storages]
    sl_args = [v(t) for v, t in zip(views, sl_leaves)]
    th_args = [v(t) for v, t in zip(views, th_leaves)]

    th_out = torch_fn(*th_args)
    sl_out = seqlab_fn(*sl_args)

    th_outs = _flatten_outputs(th_out)
    sl_outs = _flatten_outputs(sl_out)
    assert len(sl_outs) == len(th_outs), f"seqlab returned {len(sl_outs)} outputs, torch {len(th_outs)}"
    for i, (s, t) in enumerate(zip(sl_outs, th_outs)):
        assert tuple(s.shape) == tuple(t.shape), f"output {i}: shape {tuple(s.shape)} != torch {tuple(t.shape)}"
        assert_close(sl_np(s), th_np(t), atol, rtol, what=f"forward output {i}")

    if not grad:
        return sl_out

    rng = np.random.default_rng(upstream_seed)
    for i, (s, t) in enumerate(zip(sl_outs, th_outs)):
        assert bool(s.requires_grad) == bool(t.requires_grad), (
            f"output {i}: requires_grad {s.requires_grad} != torch {t.requires_grad}")
        if not t.requires_grad:
            continue
        g = rng.standard_normal(tuple(t.shape)).astype(th_np(t).dtype)
        t.backward(torch.from_numpy(g.copy()), retain_graph=True)
        s.backward(seqlab.from_numpy(g.copy()), retain_graph=True)

    for i, (s, t) in enumerate(zip(sl_leaves, th_leaves)):
        if not t.requires_grad:
            continue
        if t.grad is None:
            assert s.grad is None or not np.any(sl_np(s.grad)), f"input {i}: torch grad is None, seqlab has one"
            continue
        assert s.grad is not None, f"input {i}: seqlab grad is None, torch has a gradient"
        assert_close(sl_np(s.grad), th_np(t.grad), atol, rtol, what=f"grad of input {i}")
    return sl_out


def assert_gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3):
    """seqlab.autograd.gradcheck on float64 leaves built from `inputs` (numpy arrays)."""
    leaves = []
    for a in inputs:
        a = np.asarray(a)
        if _is_float(a):
            leaves.append(sl_leaf(a.astype(np.float64), requires_grad=True))
        else:
            leaves.append(sl_leaf(a, requires_grad=False))
    ok = seqlab.autograd.gradcheck(fn, tuple(leaves), eps=eps, atol=atol, rtol=rtol)
    assert ok is True


def assert_raises_like_torch(seqlab_fn, torch_fn, *fragments):
    """Both calls raise; seqlab raises the same (builtin) exception type as torch and its
    message contains every regex in `fragments` (case-insensitive)."""
    import re
    import warnings

    with pytest.raises(Exception) as th_info, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns on some of these (e.g. mse_loss size mismatch)
        torch_fn()
    expected_type = next(c for c in type(th_info.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(Exception) as sl_info:
        seqlab_fn()
    assert isinstance(sl_info.value, expected_type), (
        f"seqlab raised {type(sl_info.value).__name__}: {sl_info.value!s}; torch raises {expected_type.__name__}")
    msg = str(sl_info.value)
    for frag in fragments:
        assert re.search(frag, msg, flags=re.IGNORECASE), f"message {msg!r} does not match {frag!r}"
    return sl_info.value


def rss_bytes():
    """Resident set size of this process in bytes."""
    import os

    with open("/proc/self/statm") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


def numbered_rule(word, count, min_count):
    """A gensim trim_rule for words numbered like "w35": drops multiples of 7, keeps multiples
    of 5 whatever their count (tests/test_word2vec.py, test_fasttext.py)."""
    from gensim import utils
    n = int("".join(ch for ch in word if ch.isdigit()) or 1)
    if n % 7 == 0:
        return utils.RULE_DISCARD
    if n % 5 == 0:
        return utils.RULE_KEEP
    return utils.RULE_DEFAULT


def model_state(model):
    """A deep copy of everything a Word2Vec/FastText holds, its KeyedVectors' too (a dry run
    must leave it all as it was)."""
    import copy
    return copy.deepcopy({**vars(model), "wv": vars(model.wv)})


def assert_same_state(before, after, where="model"):
    """Equal model_state()s: the same attributes, arrays equal in dtype, shape and values."""
    if isinstance(before, np.ndarray) or isinstance(after, np.ndarray):
        assert isinstance(before, np.ndarray) and isinstance(after, np.ndarray), where
        assert before.dtype == after.dtype and np.array_equal(before, after), where
    elif isinstance(before, dict):
        assert isinstance(after, dict) and list(before) == list(after), where
        for k in before:
            assert_same_state(before[k], after[k], f"{where}.{k}")
    elif isinstance(before, (list, tuple)):
        assert type(before) is type(after) and len(before) == len(after), where
        for i, (b, a) in enumerate(zip(before, after)):
            assert_same_state(b, a, f"{where}[{i}]")
    else:
        assert before == after, where


# What build_vocab sets on a gensim 4 model besides the vocabulary (gensim/models/word2vec.py
# build_vocab, scan_vocab, prepare_vocab).
VOCAB_ATTRIBUTES = ("min_count", "sample", "effective_min_count", "corpus_count", "corpus_total_words")


def assert_vocabulary_equals_gensim(ours, theirs, initial_vectors=True):
    """The same words in the same order, counts, sample_int, raw_vocab (in order) and the
    attributes build_vocab sets; after a fresh build_vocab also the initial input vectors
    (FastText: the words' and the n-grams' rows)."""
    assert ours.wv.index_to_key == theirs.wv.index_to_key
    for name in ("count", "sample_int"):
        np.testing.assert_array_equal(ours.wv.expandos[name], theirs.wv.expandos[name], err_msg=name)
    for name in VOCAB_ATTRIBUTES:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert list(ours.raw_vocab.items()) == list(theirs.raw_vocab.items())
    if initial_vectors:
        names = ("vectors_vocab", "vectors_ngrams") if hasattr(theirs.wv, "vectors_ngrams") else ("vectors",)
        for name in names:
            np.testing.assert_array_equal(getattr(ours.wv, name), getattr(theirs.wv, name), err_msg=name)


def assert_load_names_what_is_missing(cls, path, optional=()):
    """Removes, one at a time, each entry cls.save wrote to `path` (a top-level key, one of
    params, one of arrays) and checks that cls.load raises a ValueError naming cls.load, the
    file and the entry; an entry named in `optional` ("params.compute_loss") must not be needed.
    Returns the entries checked."""
    import re
    bad = path.with_name("incomplete-" + path.name)
    written = seqlab.load(path)
    entries = [(k,) for k in written] + [("params", k) for k in written["params"]] + \
              [("arrays", k) for k in written["arrays"]]
    for entry in entries:
        state = seqlab.load(path)
        del (state if len(entry) == 1 else state[entry[0]])[entry[-1]]
        seqlab.save(state, bad)
        name = ".".join(entry)
        if name in optional:
            cls.load(bad)
            continue
        if name == "format":
            what = "is not a seqlab"
        elif name == "arrays":
            what = r"has no arrays \(not written by {}.save, or damaged\)"
        elif len(entry) == 2:
            what = f"has no {'parameter' if entry[0] == 'params' else 'array'} '{entry[1]}'"
        else:
            what = f"has no '{name}'"
        with pytest.raises(ValueError, match=f"^{cls.__name__}.load: '{re.escape(str(bad))}' {what.format(cls.__name__)}"):
            cls.load(bad)
    return [".".join(e) for e in entries]


from gensim.models.callbacks import CallbackAny2Vec  # noqa: E402


class Recorder(CallbackAny2Vec):
    """gensim's callback protocol; records the calls, the cumulative loss and the vectors
    (the Word2Vec and FastText tests)."""

    def __init__(self):
        self.events, self.losses, self.vectors = [], [], []

    def on_train_begin(self, model):
        self.events.append("train_begin")

    def on_epoch_begin(self, model):
        self.events.append("epoch_begin")

    def on_epoch_end(self, model):
        self.events.append("epoch_end")
        self.losses.append(model.get_latest_training_loss())
        self.vectors.append(np.array(model.wv.vectors))

    def on_train_end(self, model):
        self.events.append("train_end")


# ------------------------------------------------------------------ the fuzz suites' child process
# tests/test_fuzz.py and tests/test_fuzz_files.py run each case in tests/fuzz_worker.py.
FUZZ_WORKER = os.path.join(os.path.dirname(__file__), "fuzz_worker.py")
FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))  # hypothesis examples per op or reader
FUZZ_TIMEOUT = 15.0  # seconds for one case: a hang, not a slow op
FUZZ_STARTUP = 300.0  # seconds for the child to import torch and seqlab on a busy machine


class FuzzWorker:
    """One child process running cases until it dies; restarted after a crash or a hang."""

    def __init__(self):
        self.proc = None

    def start(self):
        # stderr goes to a file: a pipe nobody reads would block a child that warns a lot
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, FUZZ_WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True, bufsize=1)
        ready, _, _ = select.select([self.proc.stdout], [], [], FUZZ_STARTUP)
        line = self.proc.stdout.readline() if ready else ""
        if line.strip() != "ready":
            self.proc.kill()
            pytest.fail(f"the fuzz worker did not start: {line!r}\n{self._tail()}")

    def _tail(self):
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read()[-2000:]

    def run(self, case):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        line = json.dumps(case)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], FUZZ_TIMEOUT)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"hang: no answer in {FUZZ_TIMEOUT:.0f} s to the case {line}")
        answer = self.proc.stdout.readline()
        if not answer:
            code = self.proc.wait()
            pytest.fail(f"crash (exit {code}) on the case {line}\n{self._tail()}")
        return json.loads(answer)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def fuzz_worker():
    w = FuzzWorker()
    yield w
    w.close()
