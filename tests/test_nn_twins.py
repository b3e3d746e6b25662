"""The twin policy (DESIGN.md): every layer exists as a Python module (seqlab.nn) and a C++
module (cpp/include/seqlab/nn/layers.hpp, bound as seqlab._core.cpp_nn), both registering
parameters under torch's names and calling one C++ functional. Each layer below is built on
both sides from the same arguments and the same seed, and must agree with its twin on
parameter and buffer names, shapes, dtypes and initial values, on its repr, and on its output;
the names, shapes and repr must also be torch.nn's. A new layer is covered by one line in TWINS."""
import inspect
import warnings

import pytest
import torch

import seqlab
import seqlab.nn as nn
from seqlab import _core

cpp_nn = _core.cpp_nn


class Sub:
    """A submodule argument (TransformerEncoder's encoder_layer, norm), built on each side from
    the same arguments, after the seed."""

    def __init__(self, name, **kwargs):
        self.name, self.kwargs = name, kwargs

    def __repr__(self):
        return self.name + "(" + ", ".join(f"{k}={v}" for k, v in self.kwargs.items()) + ")"


def resolve(kwargs, build, convert=lambda kw: kw):
    """The arguments with each Sub built by build(name, kwargs)."""
    return {k: build(v.name, resolve(v.kwargs, build, convert)) if isinstance(v, Sub) else v
            for k, v in convert(kwargs).items()}


def build_python(name, kwargs):
    return getattr(nn, name)(**kwargs)


def build_cpp(name, kwargs):
    """The C++ twin built as a C++ user builds it, through its options struct (cpp_nn.<name>Options,
    the fields named as the Python constructor's keywords), when it has one."""
    options_class = getattr(cpp_nn, name + "Options", None)
    if options_class is None:
        return getattr(cpp_nn, name)(**kwargs)
    options = options_class()
    for field, value in kwargs.items():
        setattr(options, field, value)
    return getattr(cpp_nn, name)(options)


E = 8  # the attention layers' embedding size
ENCODER_LAYER = dict(d_model=E, nhead=2, dim_feedforward=16)

# (layer, constructor arguments, input shapes for forward; () for a layer that takes no input here)
TWINS = [
    ("Linear", dict(in_features=5, out_features=3), [(4, 5)]),
    ("Linear", dict(in_features=5, out_features=3, bias=False, dtype=seqlab.float64), [(2, 7, 5)]),
    ("Bilinear", dict(in1_features=3, in2_features=4, out_features=2), [(6, 3), (6, 4)]),
    ("Bilinear", dict(in1_features=3, in2_features=4, out_features=2, bias=False), [(6, 3), (6, 4)]),
    ("Embedding", dict(num_embeddings=10, embedding_dim=4), ["index"]),
    ("Embedding", dict(num_embeddings=10, embedding_dim=4, padding_idx=-1), ["index"]),
    ("LayerNorm", dict(normalized_shape=4), [(3, 4)]),
    ("LayerNorm", dict(normalized_shape=(2, 3), eps=1e-3, elementwise_affine=False), [(5, 2, 3)]),
    ("LayerNorm", dict(normalized_shape=[4], bias=False, dtype=seqlab.float64), [(3, 4)]),
    ("RMSNorm", dict(normalized_shape=4), [(3, 4)]),
    ("RMSNorm", dict(normalized_shape=(2, 3), eps=1e-3, elementwise_affine=False), [(5, 2, 3)]),
    ("RMSNorm", dict(normalized_shape=[4], eps=1e-6, dtype=seqlab.float64), [(3, 4)]),
    ("BatchNorm1d", dict(num_features=3), [(8, 3)]),
    ("BatchNorm1d", dict(num_features=3, momentum=None, bias=False), [(4, 3, 5)]),
    ("BatchNorm1d", dict(num_features=3, affine=False, track_running_stats=False), [(8, 3)]),
    ("BatchNorm2d", dict(num_features=3), [(4, 3, 2, 5)]),
    ("BatchNorm2d", dict(num_features=2, momentum=None, eps=1e-3, dtype=seqlab.float64), [(3, 2, 4, 4)]),
    ("Dropout", dict(p=0.3), [(50,)]),
    ("Dropout", dict(p=0.5, inplace=True), [(50,)]),
    ("AlphaDropout", dict(p=0.2), [(50,)]),
    ("FeatureAlphaDropout", dict(p=0.5), [(3, 6, 4)]),
    ("Identity", dict(), [(2, 3)]),
    ("Tanh", dict(), [(2, 3)]),
    ("Sigmoid", dict(), [(2, 3)]),
    ("SiLU", dict(), [(2, 3)]),
    ("SiLU", dict(inplace=True), [(2, 3)]),
    ("ReLU", dict(), [(2, 3)]),
    ("ReLU", dict(inplace=True), [(2, 3)]),
    ("GELU", dict(), [(2, 3)]),
    ("GELU", dict(approximate="tanh"), [(2, 3)]),
    ("ELU", dict(), [(2, 3)]),
    ("ELU", dict(alpha=0.5, inplace=True), [(2, 3)]),
    ("SELU", dict(inplace=True), [(2, 3)]),
    ("CELU", dict(alpha=2.0), [(2, 3)]),
    ("LeakyReLU", dict(negative_slope=0.2, inplace=True), [(2, 3)]),
    ("Softplus", dict(beta=2.0, threshold=1.5), [(2, 3)]),
    ("Hardtanh", dict(min_val=-0.5, max_val=2.0), [(2, 3)]),
    ("ReLU6", dict(inplace=True), [(2, 3)]),
    ("LogSigmoid", dict(), [(2, 3)]),
    ("Mish", dict(inplace=True), [(2, 3)]),
    ("Softsign", dict(), [(2, 3)]),
    ("Tanhshrink", dict(), [(2, 3)]),
    ("Hardsigmoid", dict(inplace=True), [(2, 3)]),
    ("Hardswish", dict(), [(2, 3)]),
    ("Threshold", dict(threshold=0.1, value=-2.0, inplace=True), [(2, 3)]),
    ("Softmin", dict(dim=1), [(2, 3)]),
    ("GLU", dict(dim=0), [(4, 3)]),
    ("PReLU", dict(), [(2, 3)]),
    ("PReLU", dict(num_parameters=3, init=0.1, dtype=seqlab.float64), [(2, 3, 4)]),
    ("Softmax", dict(dim=1), [(2, 3)]),
    ("LogSoftmax", dict(dim=-1), [(2, 3)]),
    ("Flatten", dict(), [(2, 3, 4)]),
    ("Flatten", dict(start_dim=0, end_dim=1), [(2, 3, 4)]),
    ("Conv1d", dict(in_channels=4, out_channels=6, kernel_size=3), [(2, 4, 10)]),
    ("Conv1d", dict(in_channels=4, out_channels=6, kernel_size=4, padding="same", dilation=2, groups=2, bias=False,
                    dtype=seqlab.float64), [(4, 10)]),
    ("Conv2d", dict(in_channels=1, out_channels=6, kernel_size=5, padding=2), [(2, 1, 28, 28)]),
    ("Conv2d", dict(in_channels=4, out_channels=6, kernel_size=(3, 2), stride=(2, 1), padding=(1, 0),
                    dilation=(1, 2), groups=2), [(2, 4, 9, 9)]),
    ("Conv2d", dict(in_channels=3, out_channels=2, kernel_size=3, padding="valid"), [(3, 5, 5)]),
    ("ConvTranspose1d", dict(in_channels=4, out_channels=6, kernel_size=3), [(2, 4, 7)]),
    ("ConvTranspose1d", dict(in_channels=4, out_channels=6, kernel_size=2, stride=2, padding=1, output_padding=1,
                             groups=2, bias=False, dilation=2, dtype=seqlab.float64), [(4, 5)]),
    ("ConvTranspose2d", dict(in_channels=4, out_channels=2, kernel_size=(3, 2), stride=(2, 1), padding=(1, 0),
                             output_padding=(1, 0)), [(2, 4, 5, 5)]),
    ("RNN", dict(input_size=3, hidden_size=4), [(5, 2, 3)]),
    ("RNN", dict(input_size=3, hidden_size=4, num_layers=2, nonlinearity="relu", bias=False, batch_first=True,
                 dropout=0.5, bidirectional=True), [(2, 5, 3)]),
    ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2, dropout=0.25), [(5, 2, 3)]),
    ("LSTM", dict(input_size=3, hidden_size=4, bidirectional=True, proj_size=2, dtype=seqlab.float64), [(5, 3)]),
    ("GRU", dict(input_size=3, hidden_size=4, num_layers=3, batch_first=True), [(2, 5, 3)]),
    ("RNNCell", dict(input_size=3, hidden_size=4), [(2, 3)]),
    ("RNNCell", dict(input_size=3, hidden_size=4, bias=False, nonlinearity="relu"), [(3,)]),
    ("LSTMCell", dict(input_size=3, hidden_size=4), [(2, 3)]),
    ("GRUCell", dict(input_size=3, hidden_size=4, dtype=seqlab.float64), [(2, 3)]),
    ("MultiheadAttention", dict(embed_dim=E, num_heads=2), [(5, 3, E)] * 3),
    ("MultiheadAttention", dict(embed_dim=E, num_heads=4, dropout=0.5, bias=False, add_bias_kv=True,
                                add_zero_attn=True, kdim=3, vdim=5, batch_first=True, dtype=seqlab.float64),
     [(3, 5, E), (3, 4, 3), (3, 4, 5)]),
    ("MultiheadAttention", dict(embed_dim=E, num_heads=4, num_key_value_heads=2, kdim=3, vdim=5),
     [(5, 3, E), (4, 3, 3), (4, 3, 5)]),
    ("MultiheadAttention", dict(embed_dim=E, num_heads=2, head_dim=3, batch_first=True), [(3, 5, E)] * 3),
    ("TransformerEncoderLayer", ENCODER_LAYER, [(5, 3, E)]),
    ("TransformerEncoderLayer", dict(ENCODER_LAYER, nhead=4, num_key_value_heads=1, rms_norm=True, glu=True,
                                     activation="gelu", norm_first=True), [(5, 3, E)]),
    ("TransformerDecoderLayer", dict(ENCODER_LAYER, head_dim=2, rms_norm=True, glu=True, bias=False,
                                     dtype=seqlab.float64), [(5, 3, E), (4, 3, E)]),
    ("TransformerEncoderLayer", dict(ENCODER_LAYER, dropout=0.3, activation="gelu", layer_norm_eps=1e-3,
                                     batch_first=True, norm_first=True, bias=False, dtype=seqlab.float64),
     [(3, 5, E)]),
    ("TransformerDecoderLayer", ENCODER_LAYER, [(5, 3, E), (4, 3, E)]),
    ("TransformerDecoderLayer", dict(ENCODER_LAYER, activation="gelu", batch_first=True, norm_first=True),
     [(3, 5, E), (3, 4, E)]),
    ("TransformerEncoder", dict(encoder_layer=Sub("TransformerEncoderLayer", **ENCODER_LAYER, batch_first=True),
                                num_layers=2, norm=Sub("LayerNorm", normalized_shape=E)), [(3, 5, E)]),
    ("TransformerEncoder", dict(encoder_layer=Sub("TransformerEncoderLayer", **ENCODER_LAYER, norm_first=True),
                                num_layers=3, mask_check=False), [(5, 3, E)]),
    ("TransformerDecoder", dict(decoder_layer=Sub("TransformerDecoderLayer", **ENCODER_LAYER), num_layers=2,
                                norm=Sub("LayerNorm", normalized_shape=E)), [(5, 3, E), (4, 3, E)]),
    ("Transformer", dict(d_model=E, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
                         batch_first=True), [(3, 4, E), (3, 5, E)]),
    ("Transformer", dict(d_model=E, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16,
                         activation="gelu", norm_first=True, bias=False, dtype=seqlab.float64), [(4, 3, E), (5, 3, E)]),
    ("Seq2SeqAttention", dict(query_size=4), [(2, 4), (2, 5, 4)]),
    ("Seq2SeqAttention", dict(query_size=4, score="scaled"), [(2, 3, 4), (2, 5, 4), (2, 5, 3), "mask"]),
    ("Seq2SeqAttention", dict(query_size=4, key_size=6, score="general", dtype=seqlab.float64),
     [(2, 3, 4), (2, 5, 6), (2, 5, 3)]),
    ("Seq2SeqAttention", dict(query_size=4, key_size=6, score="additive", hidden_size=5), [(2, 4), (2, 5, 6), None,
                                                                                          "mask"]),
    ("Seq2SeqAttention", dict(query_size=4, key_size=6, score="concat", bias=False), [(2, 3, 4), (2, 5, 6)]),
    ("Seq2SeqAttention", dict(query_size=4, score="linear"), [(2, 3, 4), (2, 5, 4), (2, 5, 3), "mask"]),
    ("GroupNorm", dict(num_groups=2, num_channels=4), [(3, 4, 5)]),
    ("GroupNorm", dict(num_groups=3, num_channels=6, eps=1e-3, affine=False), [(2, 6)]),
    ("GroupNorm", dict(num_groups=1, num_channels=4, bias=False, dtype=seqlab.float64), [(2, 4, 3, 2)]),
    ("InstanceNorm1d", dict(num_features=3), [(2, 3, 5)]),
    ("InstanceNorm1d", dict(num_features=3, affine=True, track_running_stats=True), [(2, 3, 5)]),
    ("InstanceNorm1d", dict(num_features=3, momentum=None, affine=True, bias=False, track_running_stats=True,
                            dtype=seqlab.float64), [(3, 5)]),
    ("InstanceNorm2d", dict(num_features=2, eps=1e-3, momentum=0.3, affine=True, track_running_stats=True),
     [(2, 2, 3, 4)]),
    ("RReLU", dict(), [(50,)]),
    ("RReLU", dict(lower=0.1, upper=0.3, inplace=True), [(4, 5)]),
    ("Hardshrink", dict(), [(4, 5)]),
    ("Hardshrink", dict(lambd=1.0), [(4, 5)]),
    ("Softshrink", dict(lambd=0.3), [(4, 5)]),
    ("Softmax2d", dict(), [(2, 3, 4, 5)]),
    ("Dropout1d", dict(p=0.3), [(4, 6, 5)]),
    ("Dropout1d", dict(p=0.5, inplace=True), [(6, 5)]),
    ("Dropout2d", dict(p=0.4), [(2, 6, 3, 3)]),
]

# Layers torch.nn does not have: their names follow the papers (DESIGN.md, principle 3), and their
# names, shapes and reprs are checked against the papers' mapping in the test named here.
NOT_IN_TORCH = {"Seq2SeqAttention": "tests/test_seq2seq_attention.py"}
# seqlab's options of torch's layers (the Llama family's): a case with one is compared between the
# twins only.
SEQLAB_OPTIONS = {"num_key_value_heads", "head_dim", "rms_norm", "glu"}


def ids(case):
    name, kwargs, _ = case
    return name + "(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")"


def build_both(name, kwargs, seed=0):
    """The layer built by seqlab.nn and by cpp_nn, which must warn alike (torch's warnings)."""
    built, warned = [], []
    for build in (build_python, build_cpp):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            seqlab.manual_seed(seed)
            built.append(build(name, resolve(kwargs, build)))
        warned.append([str(w.message) for w in caught])
    assert warned[0] == warned[1], "the twins warn differently"
    return built


def torch_dtypes(kwargs):
    kw = dict(kwargs)
    if "dtype" in kw:
        kw["dtype"] = {seqlab.float32: torch.float32, seqlab.float64: torch.float64}[kw["dtype"]]
    return kw


def torch_twin(name, kwargs):
    """torch.nn's layer, or None for a layer torch does not have (NOT_IN_TORCH) or built with
    seqlab's own options (SEQLAB_OPTIONS)."""
    if name in NOT_IN_TORCH or SEQLAB_OPTIONS & set(kwargs):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's nested-tensor warning: checked against seqlab's in test_transformer
        return getattr(torch.nn, name)(**resolve(kwargs, lambda n, kw: getattr(torch.nn, n)(**kw), torch_dtypes))


def inputs(shapes, dtype, seed=1):
    """A tensor per shape; "index": int64 indices, "mask": a (2, 5) key padding mask, None: None."""
    seqlab.manual_seed(seed)

    def one(s):
        if s is None:
            return None
        if s == "index":
            return seqlab.randint(0, 10, (3, 4))
        if s == "mask":
            return seqlab.tensor([[False] * 5, [False, False, False, True, True]])
        return seqlab.randn(*s, dtype=dtype)
    return [one(s) for s in shapes]


def layer_dtype(kwargs):
    return kwargs.get("dtype", seqlab.float32)


@pytest.mark.parametrize("case", TWINS, ids=ids)
def test_twins_register_the_same_parameters_and_buffers(case):
    name, kwargs, _ = case
    py, cpp = build_both(name, kwargs)
    for what in ("named_parameters", "named_buffers"):
        ours = [(k, tuple(v.shape), v.dtype) for k, v in getattr(py, what)()]
        theirs = [(k, tuple(v.shape), v.dtype) for k, v in getattr(cpp, what)()]
        assert ours == theirs, what
        for (k, a), (_, b) in zip(getattr(py, what)(), getattr(cpp, what)()):
            # Same seed, same initialiser calls in the same order: the same values, bit for bit.
            assert seqlab.equal(a, b), f"{what} {k}: the twins initialise differently"
    t = torch_twin(name, kwargs)
    if t is None:
        return  # no torch.nn layer to compare with: see NOT_IN_TORCH
    assert [(k, tuple(v.shape)) for k, v in py.named_parameters()] == \
           [(k, tuple(v.shape)) for k, v in t.named_parameters()]
    assert [(k, tuple(v.shape)) for k, v in py.named_buffers()] == [(k, tuple(v.shape)) for k, v in t.named_buffers()]


@pytest.mark.parametrize("case", TWINS, ids=ids)
def test_twins_have_torchs_repr(case):
    name, kwargs, _ = case
    py, cpp = build_both(name, kwargs)
    t = torch_twin(name, kwargs)
    assert repr(py) == repr(cpp) == (repr(py) if t is None else repr(t))


def assert_equal_outputs(a, b, what):
    """Equal tensors, or equal nested tuples of them (the recurrent layers' (output, state))."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), what
        for x, y in zip(a, b):
            assert_equal_outputs(x, y, what)
    else:
        assert seqlab.equal(a, b), what


@pytest.mark.parametrize("case", TWINS, ids=ids)
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_twins_compute_the_same_outputs(case, training):
    name, kwargs, shapes = case
    py, cpp = build_both(name, kwargs)
    py.train(training)
    cpp.train(training)
    for step in range(2):  # twice: running statistics and counters move the same way
        xs_py, xs_cpp = inputs(shapes, layer_dtype(kwargs)), inputs(shapes, layer_dtype(kwargs))
        seqlab.manual_seed(10 + step)
        out_py = py(*xs_py)
        seqlab.manual_seed(10 + step)
        out_cpp = cpp(*xs_cpp)
        assert_equal_outputs(out_py, out_cpp, f"step {step}")
        for (k, a), (_, b) in zip(py.named_buffers(), cpp.named_buffers()):
            assert seqlab.equal(a, b), f"buffer {k} after step {step}"


def test_every_layer_of_seqlab_nn_has_a_twin_case():
    # A layer added to seqlab.nn.modules' layer files without a line in TWINS fails here.
    from seqlab.nn import seq2seq_attention
    from seqlab.nn.modules import activation, batchnorm, conv, dropout, flatten, linear, normalization, rnn, sparse
    from seqlab.nn.modules import instancenorm, transformer
    layers = set().union(*(m.__all__ for m in (linear, sparse, dropout, normalization, batchnorm, flatten, activation)))
    lazy = {"LazyLinear", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
            "LazyConvTranspose2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d"}  # see PYTHON_ONLY
    layers -= {"NonDynamicallyQuantizableLinear"} | lazy
    layers -= {"Unflatten", "LocalResponseNorm", "EmbeddingBag"}  # composed in Python: see PYTHON_ONLY
    covered = {name for name, _, _ in TWINS}
    modules = (layers | set(rnn.__all__) - {"RNNBase", "RNNCellBase"} | set(seq2seq_attention.__all__)
               | set(transformer.__all__) | set(conv.__all__) - lazy | set(instancenorm.__all__) - lazy)
    assert modules <= covered, sorted(modules - covered)
    assert covered <= set(dir(cpp_nn)), sorted(covered - set(dir(cpp_nn)))


# Fields of an options struct that several C++ modules share which a module's Python twin does not
# take (the module refuses them): RNNOptions is also LSTMOptions and GRUOptions, RNNCellOptions the
# cells'.
NOT_TAKEN = {"RNN": {"proj_size"}, "LSTM": {"nonlinearity"}, "GRU": {"nonlinearity", "proj_size"},
             "LSTMCell": {"nonlinearity"}, "GRUCell": {"nonlinearity"}}


@pytest.mark.parametrize("name", sorted({name for name, _, _ in TWINS if hasattr(cpp_nn, name + "Options")}))
def test_cpp_options_are_the_python_keywords(name):
    """A C++ twin's options struct names each field as the Python layer's keyword (STYLE.md 16),
    so build_cpp can set them by name; the module refuses a field its twin does not take."""
    options = getattr(cpp_nn, name + "Options")
    keywords = set(inspect.signature(getattr(nn, name)).parameters)
    taken = set(options.fields) - NOT_TAKEN.get(name, set())
    assert taken <= keywords, sorted(taken - keywords)
    for field in NOT_TAKEN.get(name, ()):
        with pytest.raises(TypeError, match=f"unexpected keyword argument '{field}'"):
            getattr(cpp_nn, name)(3, 4, **{field: "relu" if field == "nonlinearity" else 2})


# The layers of seqlab.nn with no C++ twin, and why: the twin rule is for layers whose computation
# is a C++ functional that a C++ user would call through a module.
PYTHON_ONLY = {
    "Sequential": "a container: it holds Python modules and computes nothing",
    "ModuleDict": "a container: it holds Python modules and computes nothing",
    "ModuleList": "a container (cpp_nn.ModuleList is its C++ counterpart for C++ modules)",
    "LazyLinear": "lazy modules infer their shapes at the first call (a Python mechanism); materialised, they are "
                  "Linear, BatchNorm1d/2d, InstanceNorm1d/2d, Conv1d/2d, ConvTranspose1d/2d, which are twinned",
    "LazyBatchNorm1d": "lazy (see LazyLinear)",
    "LazyBatchNorm2d": "lazy (see LazyLinear)",
    "LazyInstanceNorm1d": "lazy (see LazyLinear)",
    "LazyInstanceNorm2d": "lazy (see LazyLinear)",
    "LazyConv1d": "lazy (see LazyLinear)",
    "LazyConv2d": "lazy (see LazyLinear)",
    "LazyConvTranspose1d": "lazy (see LazyLinear)",
    "LazyConvTranspose2d": "lazy (see LazyLinear)",
    "MaxPool1d": "pooling has no parameters: the module calls its C++ functional (pool.cpp) and a C++ user calls it "
                 "directly",
    "MaxPool2d": "pooling (see MaxPool1d)",
    "AvgPool1d": "pooling (see MaxPool1d)",
    "AvgPool2d": "pooling (see MaxPool1d)",
    "AdaptiveAvgPool1d": "pooling (see MaxPool1d)",
    "AdaptiveAvgPool2d": "pooling (see MaxPool1d)",
    "CrossEntropyLoss": "losses hold no parameters: each calls one functional (loss.cpp), which C++ calls directly",
    "NLLLoss": "a loss (see CrossEntropyLoss)",
    "MSELoss": "a loss (see CrossEntropyLoss)",
    "BCEWithLogitsLoss": "a loss (see CrossEntropyLoss)",
    "KLDivLoss": "a loss composed of elementwise ops (see CrossEntropyLoss)",
    "L1Loss": "a loss composed of elementwise ops (nn/_losses.py; see CrossEntropyLoss)",
    "SmoothL1Loss": "a loss composed of elementwise ops (see L1Loss)",
    "HuberLoss": "a loss composed of elementwise ops (see L1Loss)",
    "BCELoss": "a loss composed of elementwise ops (see L1Loss)",
    "CosineSimilarity": "a distance without parameters, composed of norm and elementwise ops (nn/_losses.py)",
    "PairwiseDistance": "a distance (see CosineSimilarity)",
    "MarginRankingLoss": "a loss composed of elementwise ops (see L1Loss)",
    "CosineEmbeddingLoss": "a loss composed of elementwise ops (see L1Loss)",
    "TripletMarginLoss": "a loss composed of elementwise ops (see L1Loss)",
    "PoissonNLLLoss": "a loss composed of elementwise ops (see L1Loss)",
    "GaussianNLLLoss": "a loss composed of elementwise ops (see L1Loss)",
    "MultiMarginLoss": "a loss composed of elementwise ops (see L1Loss)",
    "SoftMarginLoss": "a loss composed of elementwise ops (see L1Loss)",
    "HingeEmbeddingLoss": "a loss composed of elementwise ops (see L1Loss)",
    "MultiLabelSoftMarginLoss": "a loss composed of elementwise ops (see L1Loss)",
    "TransformerLM": "seqlab's language models compose twinned layers in Python (nn/lm.py) for generate(); they "
                     "compute nothing of their own",
    "TransformerSeq2Seq": "a language model (see TransformerLM)",
    "RNNLM": "a language model (see TransformerLM)",
    "RNNSeq2Seq": "a language model (see TransformerLM)",
    "TransformerMaskedLM": "a language model (see TransformerLM; nn/masked_lm.py)",
    "ParameterList": "a container: it holds Python parameters and computes nothing",
    "ParameterDict": "a container (see ParameterList)",
    "Unflatten": "a view composed in Python (seqlab.unflatten, _shape.py): no C++ functional to share; a C++ user "
                 "calls reshape",
    "LocalResponseNorm": "no parameters: composed in Python of avg_pool2d and elementwise ops "
                         "(F.local_response_norm)",
    "EmbeddingBag": "composed in Python (F.embedding_bag: one gather and a sum, mean or max over each bag, the bag "
                    "bookkeeping in NumPy); no C++ functional yet for a twin to call",
    "ZeroPad1d": "padding has no parameters: one call of F.pad (composed of index_select), which C++ users lack",
    "ZeroPad2d": "padding (see ZeroPad1d)",
    "ConstantPad1d": "padding (see ZeroPad1d)",
    "ConstantPad2d": "padding (see ZeroPad1d)",
    "ReflectionPad1d": "padding (see ZeroPad1d)",
    "ReflectionPad2d": "padding (see ZeroPad1d)",
    "ReplicationPad1d": "padding (see ZeroPad1d)",
    "ReplicationPad2d": "padding (see ZeroPad1d)",
    "CircularPad1d": "padding (see ZeroPad1d)",
    "CircularPad2d": "padding (see ZeroPad1d)",
}
PYTHON_ONLY.update({  # the losses, pooling and containers added with CTCLoss
    "CTCLoss": "a loss (see CrossEntropyLoss): one C++ functional, ctc_loss.cpp",
    "MultiLabelMarginLoss": "a loss composed of elementwise ops (see L1Loss)",
    "TripletMarginWithDistanceLoss": "a loss composed of a distance and elementwise ops (see L1Loss)",
    "NLLLoss2d": "a deprecated alias of NLLLoss (see CrossEntropyLoss)",
    "Container": "a deprecated container (see Sequential)",
    "AdaptiveLogSoftmaxWithLoss": "composes twinned Linear layers in Sequential and ModuleList containers with "
                                  "log_softmax, gather and cat; it computes nothing of its own",
    "AdaptiveMaxPool1d": "pooling (see MaxPool1d)",
    "AdaptiveMaxPool2d": "pooling (see MaxPool1d)",
    "LPPool1d": "pooling composed of avg_pool and elementwise ops (see MaxPool1d)",
    "LPPool2d": "pooling (see LPPool1d)",
})
PYTHON_ONLY["LinearCrossEntropyLoss"] = ("a loss (see CrossEntropyLoss) over a twinned Linear head: one C++ functional "
                                         "(linear_cross_entropy.cpp, chunked), which C++ calls directly")


def test_every_layer_is_twinned_or_listed_as_python_only():
    """Walks seqlab.nn.__all__ and seqlab.nn.positional.__all__: every Module class there has a
    case in TWINS (so a C++ twin) or a reason in PYTHON_ONLY; a new layer with neither fails."""
    from seqlab.nn import positional
    covered = {name for name, _, _ in TWINS}
    bases = {"RNNBase", "RNNCellBase", "Module"}
    missing, stale = [], []
    for name in nn.__all__:
        obj = getattr(nn, name)
        if isinstance(obj, type) and issubclass(obj, nn.Module) and name not in bases:
            if name not in covered and name not in PYTHON_ONLY:
                missing.append(name)
            if name in covered and name in PYTHON_ONLY:
                stale.append(name)
    covered_schemes = {name for name, _ in POSITIONAL_TWINS}
    for name in positional.__all__:  # the schemes, each twinned in POSITIONAL_TWINS
        obj = getattr(positional, name)
        if isinstance(obj, type) and issubclass(obj, nn.Module) and obj is not positional.RelativePositionScheme:
            if name not in covered_schemes:
                missing.append(name)
    assert covered_schemes <= set(dir(cpp_nn)), sorted(covered_schemes - set(dir(cpp_nn)))
    assert not missing, f"layers with neither a C++ twin (TWINS) nor a reason in PYTHON_ONLY: {missing}"
    assert not stale, f"twinned layers still listed as Python-only: {stale}"
    assert set(PYTHON_ONLY) <= set(nn.__all__), sorted(set(PYTHON_ONLY) - set(nn.__all__))


# --- seqlab.nn.positional's schemes and their C++ twins (nn/positional.hpp): the same parameters
# (names, shapes, initial values) and reprs; a relative scheme gives the same PositionalScheme,
# attention and gradients, an absolute one adds the same table.
from seqlab.nn import positional  # noqa: E402

H, D = 2, E // 2  # the schemes' heads: 2 of 4 features
POSITIONAL_TWINS = [
    ("NoPE", dict()),
    ("RoPE", dict(head_dim=D)),
    ("RoPE", dict(head_dim=D, base=500.0, interleaved=False)),
    ("ALiBi", dict(num_heads=H)),
    ("T5RelativeBias", dict(num_heads=H)),
    ("T5RelativeBias", dict(num_heads=H, num_buckets=8, max_distance=16, bidirectional=False, dtype=seqlab.float64)),
    ("ShawRelativePosition", dict(head_dim=D, max_relative_position=3)),
    ("ShawRelativePosition", dict(head_dim=D, values=False)),
    ("TransformerXLRelativePosition", dict(embed_dim=E, num_heads=H)),
    ("TransformerXLRelativePosition", dict(embed_dim=E, num_heads=H, base=100.0, dtype=seqlab.float64)),
    ("DeBERTaRelativePosition", dict(embed_dim=E, num_heads=H, max_relative_position=4)),
    ("DeBERTaRelativePosition", dict(embed_dim=E, num_heads=H, max_relative_position=16, position_buckets=4,
                                     pos_att_type=("c2p",), norm_rel_ebd="layer_norm", layer_norm_eps=1e-5)),
    ("DeBERTaRelativePosition", dict(embed_dim=E, num_heads=H, share_att_key=True, pos_att_type=("p2c",))),
    ("DARelativePosition", dict(num_heads=H)),
    ("KERPLE", dict(num_heads=H)),
    ("KERPLE", dict(num_heads=H, kernel="power", dtype=seqlab.float64)),
    ("SinusoidalPositionalEncoding", dict(d_model=E)),
    ("SinusoidalPositionalEncoding", dict(d_model=E, dropout=0.5, base=100.0, batch_first=False)),
    ("LearnedPositionalEmbedding", dict(max_len=16, d_model=E)),
    ("LearnedPositionalEmbedding", dict(max_len=16, d_model=E, dropout=0.3, batch_first=False,
                                        dtype=seqlab.float64)),
]
RELATIVE_TWINS = [c for c in POSITIONAL_TWINS if issubclass(getattr(positional, c[0]), positional.RelativePositionScheme)]
ABSOLUTE_TWINS = [c for c in POSITIONAL_TWINS if c not in RELATIVE_TWINS]


def scheme_ids(case):
    name, kwargs = case
    return name + "(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")"


def build_schemes(name, kwargs, seed=0):
    """The scheme built by seqlab.nn.positional and by cpp_nn from the same seed."""
    built = []
    for namespace in (positional, cpp_nn):
        seqlab.manual_seed(seed)
        built.append(getattr(namespace, name)(**kwargs))
    return built


@pytest.mark.parametrize("case", POSITIONAL_TWINS, ids=scheme_ids)
def test_positional_twins_register_the_same_parameters_and_repr(case):
    py, cpp = build_schemes(*case)
    assert [(k, tuple(v.shape), v.dtype) for k, v in py.named_parameters()] == \
           [(k, tuple(v.shape), v.dtype) for k, v in cpp.named_parameters()]
    for (k, a), (_, b) in zip(py.named_parameters(), cpp.named_parameters()):
        assert seqlab.equal(a, b), f"{k}: the twins initialise differently"
    assert repr(py) == repr(cpp)


def assert_same_scheme(a, b):
    """Two PositionalSchemes: the same kind, options and parameter tensors (the same objects)."""
    assert (a.kind, a.options) == (b.kind, b.options)
    assert sorted(a.params) == sorted(b.params)
    for k in a.params:
        assert (a.params[k] is None) == (b.params[k] is None), k
        assert a.params[k] is None or seqlab.equal(a.params[k], b.params[k]), k


def raises_alike(fn_py, fn_cpp):
    """Both raise the same exception type with the same message."""
    caught = []
    for fn in (fn_py, fn_cpp):
        with pytest.raises(Exception) as info:
            fn()
        caught.append((type(info.value), str(info.value)))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("case", RELATIVE_TWINS, ids=scheme_ids)
def test_positional_twins_compute_the_same_attention(case):
    name, kwargs = case
    py, cpp = build_schemes(name, kwargs)
    if kwargs.get("share_att_key"):  # the scheme reads the attention's projections: see the layer tests
        raises_alike(py.scheme, cpp.scheme)
        return
    assert_same_scheme(py.scheme(), cpp.scheme())
    dtype = kwargs.get("dtype", seqlab.float32)
    for is_causal in (False, True):
        seqlab.manual_seed(1)
        qkv = [seqlab.randn(2, H, 5, D, dtype=dtype) for _ in range(3)]
        outs, grads = [], []
        for m in (py, cpp):
            leaves = [t.detach().requires_grad_() for t in qkv]
            outs.append(m.attention(*leaves, is_causal=is_causal))
            outs[-1].sum().backward()  # each scheme hands over its own parameters: gradients reach them
            grads.append([t.grad for t in leaves] + [w.grad for _, w in m.named_parameters()])
            for _, w in m.named_parameters():
                w.grad = None
        assert seqlab.equal(*outs)
        for a, b in zip(*grads):
            assert a is not None and seqlab.equal(a, b)
        assert seqlab.equal(py.attention_weights(*qkv[:2], is_causal=is_causal, scale=0.5),
                            cpp.attention_weights(*qkv[:2], is_causal=is_causal, scale=0.5))


@pytest.mark.parametrize("case", ABSOLUTE_TWINS, ids=scheme_ids)
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_positional_twins_add_the_same_table(case, training):
    name, kwargs = case
    py, cpp = build_schemes(name, kwargs)
    py.train(training)
    cpp.train(training)
    first = kwargs.get("batch_first", True)
    dtype = kwargs.get("dtype", seqlab.float32)
    seqlab.manual_seed(1)
    x3 = seqlab.randn(*((3, 5, E) if first else (5, 3, E)), dtype=dtype)
    x2 = seqlab.randn(5, E, dtype=dtype)
    ids = seqlab.randint(0, 16, tuple(x3.shape[:-1]))
    for args in ((x3,), (x2, 4), (x3, 0, ids)):
        outs = []
        for m in (py, cpp):
            seqlab.manual_seed(10)
            outs.append(m(*args))
        assert seqlab.equal(*outs)
    bad_calls = [(x3, 0, ids[0]), (x3[0, 0],)]  # position_ids of another shape; x of one dim
    if name == "LearnedPositionalEmbedding":
        bad_calls.append((x2, 12))  # positions 12..16 past the table
    for args in bad_calls:
        raises_alike(lambda: py(*args), lambda: cpp(*args))


@pytest.mark.parametrize("name, kwargs", [
    ("RoPE", dict(head_dim=3)), ("ALiBi", dict(num_heads=0)), ("T5RelativeBias", dict(num_heads=2, num_buckets=2)),
    ("ShawRelativePosition", dict(head_dim=4, max_relative_position=0)),
    ("TransformerXLRelativePosition", dict(embed_dim=9, num_heads=2)),
    ("DeBERTaRelativePosition", dict(embed_dim=8, num_heads=2, pos_att_type=("c2p", "p2p"))),
    ("DeBERTaRelativePosition", dict(embed_dim=8, num_heads=2, norm_rel_ebd="batch_norm")),
    ("DeBERTaRelativePosition", dict(embed_dim=8, num_heads=2, max_relative_position=4, position_buckets=16)),
    ("DARelativePosition", dict(num_heads=-1)), ("KERPLE", dict(num_heads=2, kernel="cubic")),
    ("SinusoidalPositionalEncoding", dict(d_model=7)),
], ids=lambda x: x if isinstance(x, str) else "")
def test_positional_twins_refuse_the_same_options_alike(name, kwargs):
    raises_alike(lambda: getattr(positional, name)(**kwargs), lambda: getattr(cpp_nn, name)(**kwargs))


# The attention and the transformer layers with a scheme (pos=, their self-attention's) and a
# scale, built on both sides from one seed: the scheme is the attention's submodule "pos", so the
# names read self_attn.pos.* in a layer, and the outputs agree.
POS_LAYERS = [
    ("MultiheadAttention", dict(embed_dim=E, num_heads=H), [(5, 3, E)] * 3),
    ("MultiheadAttention", dict(embed_dim=E, num_heads=H, batch_first=True, scale=0.5), [(3, 5, E)] * 3),
    ("TransformerEncoderLayer", dict(ENCODER_LAYER, scale=1.0), [(5, 3, E)]),
    ("TransformerDecoderLayer", dict(ENCODER_LAYER, batch_first=True, norm_first=True, scale=0.3),
     [(3, 5, E), (3, 4, E)]),
]


def build_with_pos(layer, kwargs, scheme, scheme_kwargs):
    built = []
    dtype = scheme_kwargs.get("dtype", seqlab.float32)
    for layers, schemes in ((nn, positional), (cpp_nn, cpp_nn)):
        seqlab.manual_seed(0)
        pos = getattr(schemes, scheme)(**scheme_kwargs)
        built.append(getattr(layers, layer)(**kwargs, dtype=dtype, pos=pos))
    return built


@pytest.mark.parametrize("layer", POS_LAYERS, ids=ids)
@pytest.mark.parametrize("case", RELATIVE_TWINS, ids=scheme_ids)
def test_twins_with_a_positional_scheme_compute_the_same_outputs(case, layer):
    (scheme, scheme_kwargs), (name, kwargs, shapes) = case, layer
    py, cpp = build_with_pos(name, kwargs, scheme, scheme_kwargs)
    ours = [(k, tuple(v.shape)) for k, v in py.named_parameters()]
    assert ours == [(k, tuple(v.shape)) for k, v in cpp.named_parameters()]
    prefix = "pos." if name == "MultiheadAttention" else "self_attn.pos."
    scheme_names = [prefix + k for k, _ in getattr(positional, scheme)(**scheme_kwargs).named_parameters()]
    assert [k for k, _ in ours if k.startswith(prefix)] == scheme_names
    for (k, a), (_, b) in zip(py.named_parameters(), cpp.named_parameters()):
        assert seqlab.equal(a, b), k
    assert repr(py) == repr(cpp)
    for training in (True, False):
        py.train(training)
        cpp.train(training)
        outs = []
        for m in (py, cpp):
            xs = inputs(shapes, scheme_kwargs.get("dtype", seqlab.float32))
            seqlab.manual_seed(10)
            outs.append(m(*xs))
        assert_equal_outputs(*outs, f"training={training}")


def test_stack_layers_own_copies_of_the_scheme():
    # TransformerEncoder copies its layer (copy.deepcopy; the C++ clone()): each layer's scheme is
    # its own, under layers.<i>.self_attn.pos.*, equal at the start on both sides.
    built = []
    for layers, schemes in ((nn, positional), (cpp_nn, cpp_nn)):
        seqlab.manual_seed(0)
        layer = layers.TransformerEncoderLayer(**ENCODER_LAYER, pos=schemes.T5RelativeBias(H, num_buckets=8))
        built.append(layers.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False))
    py, cpp = built
    names = [k for k, _ in cpp.named_parameters() if ".pos." in k]
    assert names == ["layers.0.self_attn.pos.relative_attention_bias.weight",
                     "layers.1.self_attn.pos.relative_attention_bias.weight"]
    assert names == [k for k, _ in py.named_parameters() if ".pos." in k]
    state = cpp.state_dict()
    assert seqlab.equal(state[names[0]], state[names[1]])
    with seqlab.no_grad():
        state[names[0]].add_(1.0)  # layer 0's scheme only: layer 1 keeps its own values
    assert not seqlab.equal(cpp.state_dict()[names[0]], cpp.state_dict()[names[1]])
    x = inputs([(5, 3, E)], seqlab.float32)
    py.eval()
    cpp.eval()
    py.load_state_dict(cpp.state_dict())
    assert seqlab.equal(py(*x), cpp(*x))


@pytest.mark.parametrize("name, args", [
    ("RNNCell", ()), ("LSTMCell", (4,)), ("LSTM", ()), ("GRU", (4,)), ("MultiheadAttention", (8,)),
    ("TransformerEncoderLayer", ()), ("TransformerDecoderLayer", (8,)), ("ShawRelativePosition", ()),
    ("LearnedPositionalEmbedding", (16,)), ("ALiBi", ()), ("RoPE", ()), ("DeBERTaRelativePosition", (8,)),
])
def test_a_cpp_twin_without_a_required_argument_is_a_type_error_as_in_python(name, args):
    # as the Python twin (and torch) refuse the call, not a layer built with sizes 0
    with pytest.raises(TypeError, match="missing"):
        getattr(_core.cpp_nn, name)(*args)
    python_twin = getattr(nn, name, None) or getattr(nn.positional, name)
    with pytest.raises(TypeError, match="missing"):
        python_twin(*args)


def test_cpp_twin_reprs_write_floats_as_python():
    cpp = _core.cpp_nn
    for ours, theirs in [(cpp.LayerNorm(4, eps=1.0), torch.nn.LayerNorm(4, eps=1.0)),
                         (cpp.RMSNorm(4, eps=1.0), torch.nn.RMSNorm(4, eps=1.0)),
                         (cpp.BatchNorm1d(4, eps=1.0, momentum=1.0), torch.nn.BatchNorm1d(4, eps=1.0, momentum=1.0))]:
        assert repr(ours) == repr(theirs)
