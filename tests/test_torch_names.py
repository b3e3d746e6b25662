"""The torch names and keyword arguments that real course code uses, and a check that seqlab has
each one. The lists are facts (names only) collected from 60 files: Karpathy's
nn-zero-to-hero makemore notebooks (parts 1-5) and micrograd lecture, ng-video-lecture's bigram.py
and gpt.py, makemore.py, minGPT (model, trainer, utils, chargpt, adder), pytorch/examples'
word_language_model (main, model, data, generate) and time_sequence_prediction, and the PyTorch
code of d2l.ai's chapters on linear regression, MLPs, RNNs, modern RNNs and attention/transformers.
Each file was parsed (ast) for attribute chains rooted at torch (through its import aliases),
keywords passed to them, and method calls and attributes that torch.Tensor has.

MISSING is the ledger of what seqlab does not have, each with its reason: the test fails if a
name is missing and not in the ledger, and also if a ledger entry exists after all (so the
ledger cannot go stale). COVERAGE below is recomputed by test_coverage_is_reported."""
import importlib
import inspect
import re

import numpy as np
import pytest
import torch

import seqlab

NAMES = [
    'torch.Generator', 'torch.LongTensor', 'torch.Tensor', 'torch.accelerator',
    'torch.accelerator.current_accelerator', 'torch.accelerator.is_available', 'torch.all',
    'torch.allclose', 'torch.arange', 'torch.bmm', 'torch.cat', 'torch.cos', 'torch.cuda',
    'torch.cuda.is_available', 'torch.cuda.manual_seed_all', 'torch.cuda.synchronize', 'torch.device',
    'torch.double', 'torch.exp', 'torch.float', 'torch.float32', 'torch.from_numpy', 'torch.histogram',
    'torch.inference_mode', 'torch.int32', 'torch.int64', 'torch.linspace', 'torch.load', 'torch.log',
    'torch.long', 'torch.manual_seed', 'torch.max', 'torch.multinomial', 'torch.nn', 'torch.nn.Dropout',
    'torch.nn.Embedding', 'torch.nn.Flatten', 'torch.nn.GELU', 'torch.nn.GRU', 'torch.nn.LSTM',
    'torch.nn.LSTMCell', 'torch.nn.LayerNorm', 'torch.nn.LazyBatchNorm1d', 'torch.nn.LazyConv2d',
    'torch.nn.LazyLinear', 'torch.nn.Linear', 'torch.nn.MSELoss', 'torch.nn.Module', 'torch.nn.ModuleDict',
    'torch.nn.ModuleList', 'torch.nn.NLLLoss', 'torch.nn.Parameter', 'torch.nn.RNN', 'torch.nn.ReLU',
    'torch.nn.Sequential', 'torch.nn.Tanh', 'torch.nn.Transformer', 'torch.nn.functional',
    'torch.nn.functional.cross_entropy', 'torch.nn.functional.log_softmax', 'torch.nn.functional.one_hot',
    'torch.nn.functional.relu', 'torch.nn.functional.sigmoid', 'torch.nn.functional.softmax',
    'torch.nn.functional.tanh', 'torch.nn.init', 'torch.nn.init.normal_', 'torch.nn.init.ones_',
    'torch.nn.init.uniform_', 'torch.nn.init.zeros_', 'torch.nn.modules', 'torch.nn.modules.activation',
    'torch.nn.modules.activation.MultiheadAttention', 'torch.nn.modules.container',
    'torch.nn.modules.container.ModuleList', 'torch.nn.modules.dropout',
    'torch.nn.modules.dropout.Dropout', 'torch.nn.modules.linear', 'torch.nn.modules.linear.Linear',
    'torch.nn.modules.linear.NonDynamicallyQuantizableLinear', 'torch.nn.modules.normalization',
    'torch.nn.modules.normalization.LayerNorm', 'torch.nn.modules.rnn', 'torch.nn.modules.rnn.GRU',
    'torch.nn.modules.rnn.LSTM', 'torch.nn.modules.rnn.RNN', 'torch.nn.modules.sparse',
    'torch.nn.modules.sparse.Embedding', 'torch.nn.modules.transformer',
    'torch.nn.modules.transformer.TransformerEncoder',
    'torch.nn.modules.transformer.TransformerEncoderLayer', 'torch.nn.utils',
    'torch.nn.utils.clip_grad_norm_', 'torch.no_grad', 'torch.normal', 'torch.ones', 'torch.ones_like',
    'torch.onnx', 'torch.onnx.export', 'torch.optim', 'torch.optim.AdamW', 'torch.optim.LBFGS',
    'torch.optim.SGD', 'torch.pow', 'torch.rand', 'torch.randint', 'torch.randn', 'torch.randperm',
    'torch.relu', 'torch.repeat_interleave', 'torch.roll', 'torch.save', 'torch.serialization',
    'torch.serialization.safe_globals', 'torch.sigmoid', 'torch.sin', 'torch.sort', 'torch.sqrt',
    'torch.stack', 'torch.sum', 'torch.tanh', 'torch.tensor', 'torch.topk', 'torch.tril',
    'torch.unsqueeze', 'torch.utils', 'torch.utils.data', 'torch.utils.data.DataLoader',
    'torch.utils.data.Dataset', 'torch.utils.data.RandomSampler', 'torch.utils.data.TensorDataset',
    'torch.utils.data.dataloader.DataLoader', 'torch.utils.tensorboard.SummaryWriter', 'torch.zeros',
    'torch.zeros_like',
]

TENSOR_ATTRIBUTES = [
    'T', 'abs', 'add_', 'argmax', 'backward', 'clone', 'contiguous', 'copy_', 'cos', 'cpu', 'data',
    'detach', 'device', 'dim', 'div', 'dot', 'double', 'dtype', 'exp', 'expand', 'fill_', 'flatten',
    'flip', 'float', 'gather', 'grad', 'item', 'log', 'log10', 'long', 'masked_fill', 'matmul', 'max',
    'maximum', 'mean', 'narrow', 'ndim', 'nelement', 'new_zeros', 'normal_', 'numel', 'numpy', 'permute',
    'relu', 'repeat', 'requires_grad', 'reshape', 'retain_grad', 'shape', 'sigmoid', 'sin', 'size', 'sqrt',
    'squeeze', 'std', 'sub', 'sum', 'swapaxes', 't', 'tanh', 'to', 'tolist', 'transpose', 'type',
    'unsqueeze', 'var', 'view', 'zero_',
]

KEYWORDS = {
    'torch.arange': ['device', 'dtype', 'requires_grad'],
    'torch.cat': ['dim'],
    'torch.histogram': ['density'],
    'torch.load': ['map_location'],
    'torch.multinomial': ['generator', 'num_samples', 'replacement'],
    'torch.nn.Dropout': ['p'],
    'torch.nn.GRU': ['bidirectional', 'dropout'],
    'torch.nn.LazyConv2d': ['kernel_size', 'stride'],
    'torch.nn.LazyLinear': ['bias'],
    'torch.nn.Linear': ['bias'],
    'torch.nn.RNN': ['dropout', 'nonlinearity'],
    'torch.nn.functional.cross_entropy': ['ignore_index'],
    'torch.nn.functional.log_softmax': ['dim'],
    'torch.nn.functional.one_hot': ['num_classes'],
    'torch.nn.functional.softmax': ['dim'],
    'torch.nn.init.normal_': ['mean', 'std'],
    'torch.normal': ['size'],
    'torch.optim.AdamW': ['betas', 'eps', 'lr', 'weight_decay'],
    'torch.optim.LBFGS': ['lr'],
    'torch.optim.SGD': ['lr'],
    'torch.rand': ['generator'],
    'torch.randint': ['dtype', 'generator'],
    'torch.randn': ['generator', 'requires_grad'],
    'torch.randperm': ['generator'],
    'torch.repeat_interleave': ['dim', 'repeats'],
    'torch.tensor': ['dtype'],
    'torch.topk': ['dim', 'k'],
    'torch.unsqueeze': ['dim'],
    'torch.utils.data.DataLoader': ['shuffle'],
    'torch.utils.data.RandomSampler': ['num_samples', 'replacement'],
    'torch.utils.data.dataloader.DataLoader': ['batch_size', 'drop_last', 'num_workers', 'pin_memory', 'sampler', 'shuffle'],
    'torch.utils.tensorboard.SummaryWriter': ['log_dir'],
    'torch.zeros': ['device', 'dtype'],
}

METHOD_KEYWORDS = {
    'add_': ['alpha'],
    'argmax': ['axis'],
    'backward': ['retain_graph'],
    'max': ['keepdim'],
    'mean': ['keepdim'],
    'std': ['keepdim'],
    'sum': ['keepdim', 'keepdims'],
    'var': ['keepdim', 'unbiased'],
}

MISSING = {}
MISSING_KEYWORDS = {}
# What the test found when it was written (names, Tensor attributes, keywords): see test_coverage_is_reported.
COVERAGE = {"names": (135, 135), "tensor_attributes": (68, 68), "keywords": (65, 65)}


def resolve(qualified):
    """The seqlab object at torch's path (torch.nn.functional.softmax -> seqlab.nn.functional.softmax)."""
    obj = seqlab
    for part in qualified.split(".")[1:]:
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        name = getattr(obj, "__name__", None)
        if not inspect.ismodule(obj) or name is None:
            return None
        try:
            obj = importlib.import_module(f"{name}.{part}")
        except ImportError:
            return None
    return obj


def accepts(fn, keyword):
    """fn takes `keyword`: from its signature, or for compiled functions pybind11's docstring.
    NumPy's axis/keepdims are torch's dim/keepdim (tests/test_scan.py checks the rule)."""
    keyword = {"axis": "dim", "keepdims": "keepdim"}.get(keyword, keyword)
    if inspect.isclass(fn):
        fn = fn.__init__
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = None
    if params is not None and keyword in params:
        return True
    return re.search(rf"\b{keyword}\s*[:=]", fn.__doc__ or "") is not None


def present_names():
    return [n for n in NAMES if resolve(n) is not None]


def present_keywords():
    pairs = [(n, k) for n, ks in KEYWORDS.items() for k in ks]
    pairs += [(f"Tensor.{m}", k) for m, ks in METHOD_KEYWORDS.items() for k in ks]
    found = []
    for name, k in pairs:
        fn = getattr(seqlab.Tensor, name[7:], None) if name.startswith("Tensor.") else resolve(name)
        if fn is not None and accepts(fn, k):
            found.append((name, k))
    return pairs, found


@pytest.mark.parametrize("name", NAMES)
def test_seqlab_has_the_name(name):
    assert resolve(name) is not None or name in MISSING, f"seqlab lacks {name} (add it, or a reason to MISSING)"
    if name in MISSING:
        assert resolve(name) is None, f"{name} exists now: remove it from MISSING"


@pytest.mark.parametrize("attribute", TENSOR_ATTRIBUTES)
def test_tensors_have_the_attribute(attribute):
    assert hasattr(seqlab.Tensor, attribute) or hasattr(seqlab.ones(2), attribute)


@pytest.mark.parametrize("name, keyword", [(n, k) for n, ks in KEYWORDS.items() for k in ks]
                         + [(f"Tensor.{m}", k) for m, ks in METHOD_KEYWORDS.items() for k in ks])
def test_the_keyword_is_taken(name, keyword):
    if (name, keyword) in MISSING_KEYWORDS:
        assert resolve(name) is None, f"{name} exists now: check {keyword} and remove it from MISSING_KEYWORDS"
        return
    fn = getattr(seqlab.Tensor, name[7:]) if name.startswith("Tensor.") else resolve(name)
    assert fn is not None and accepts(fn, keyword), f"seqlab's {name} does not take {keyword}="


def test_coverage_is_reported():
    pairs, found = present_keywords()
    now = {"names": (len(present_names()), len(NAMES)),
           "tensor_attributes": (sum(hasattr(seqlab.Tensor, a) for a in TENSOR_ATTRIBUTES), len(TENSOR_ATTRIBUTES)),
           "keywords": (len(found), len(pairs))}
    assert now == COVERAGE, f"coverage changed: {now}; update COVERAGE (and the ledgers)"


# ---------------------------------------------------------------- the cheap ones this test found missing

def test_dot_normal_cpu_synchronize_as_torch(rng):
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    for dtype in (np.float32, np.float64):
        sa = seqlab.tensor(a.astype(dtype), requires_grad=True)
        ta = torch.tensor(a.astype(dtype), requires_grad=True)
        s, t = seqlab.dot(sa, seqlab.tensor(b.astype(dtype))), torch.dot(ta, torch.tensor(b.astype(dtype)))
        np.testing.assert_allclose(s.item(), t.item(), rtol=1e-6)
        s.backward()
        t.backward()
        np.testing.assert_allclose(sa.grad.numpy(), ta.grad.numpy(), rtol=1e-6)
        assert sa.dot(sa).shape == ()
    for bad in (lambda lib: lib.dot(lib.ones(2, 2), lib.ones(2)), lambda lib: lib.dot(lib.ones(2), lib.ones(3)),
                lambda lib: lib.dot(lib.ones(2), lib.ones(2, dtype=lib.float64))):
        with pytest.raises(RuntimeError):
            bad(torch)
        with pytest.raises(RuntimeError):
            bad(seqlab)
    g = seqlab.Generator().manual_seed(0)
    for call, shape in [(lambda lib, **k: lib.normal(2.0, 3.0, size=(4, 5), **k), (4, 5)),
                        (lambda lib, **k: lib.normal(lib.zeros(3, 1), 1.0, **k), (3, 1)),
                        (lambda lib, **k: lib.normal(lib.zeros(3), lib.ones(3), **k), (3,)),
                        (lambda lib, **k: lib.normal(0.0, lib.ones(2, 2), **k), (2, 2))]:
        assert tuple(call(seqlab, generator=g).shape) == tuple(call(torch).shape) == shape
    z = seqlab.normal(1.0, 2.0, size=(100_000,), generator=g).numpy()
    assert abs(z.mean() - 1.0) < 0.03 and abs(z.std() - 2.0) < 0.03
    mean = seqlab.zeros(3, requires_grad=True)
    seqlab.normal(mean, 1.0).sum().backward()
    assert mean.grad.tolist() == [1.0, 1.0, 1.0]
    x = seqlab.ones(2)
    assert x.cpu() is x and torch.ones(2).cpu().device.type == "cpu"
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        seqlab.cuda.synchronize()
    with seqlab.serialization.safe_globals([seqlab.nn.Linear]):
        pass


def test_what_issue_16_added_documents_itself():
    """help() shows a signature and a description for each function and class added here."""
    import pydoc
    objects = [seqlab.Generator, seqlab.Generator.manual_seed, seqlab.Generator.get_state, seqlab.cumsum,
               seqlab.Tensor.cumprod, seqlab.histc, seqlab.histogram, seqlab.bernoulli, seqlab.Tensor.bernoulli_,
               seqlab.Tensor.exponential_, seqlab.Tensor.random_, seqlab.Tensor.normal_, seqlab.multinomial,
               seqlab.randperm, seqlab.normal, seqlab.dot, seqlab.utils.data.DataLoader,
               seqlab.utils.data.TensorDataset, seqlab.utils.data.random_split, seqlab.utils.data.RandomSampler,
               seqlab.nn.LazyLinear, seqlab.nn.LazyBatchNorm1d, seqlab.FloatTensor, seqlab.random.fork_rng]
    for obj in objects:
        text = pydoc.render_doc(obj)
        doc = (obj.__doc__ or "").strip()
        lines = [l for l in doc.splitlines() if l.strip() and "(" not in l.split(" ")[0]]
        assert lines, f"{obj} has no description beyond its signature"
        assert obj.__name__ in text
