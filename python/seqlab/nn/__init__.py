"""seqlab.nn: modules with torch.nn's names and semantics, and the functional API.

    import seqlab.nn as nn
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    loss = nn.CrossEntropyLoss()(model(x), y)

Module and Parameter: module.py; Sequential, ModuleList, ModuleDict: containers.py; the
layers: layers.py; lazy modules: lazy.py; convolutions: conv.py; pooling: pooling.py; recurrent
layers: rnn.py; attention for RNN encoder-decoders: seq2seq_attention.py; MultiheadAttention and the Transformer: transformer.py; positional schemes
(RoPE, ALiBi, T5, Shaw, Transformer-XL, DeBERTa, DA, sinusoidal, learned): positional.py; language
models for generation: lm.py (their key/value cache, KVCache, is C++: ops/kv_cache.hpp); a masked
language model (BERT, DeBERTa): masked_lm.py; losses: loss.py; distances: distance.py;
PyTorch state dicts: interop.py."""
from . import functional, init, positional, utils  # noqa: F401
from .module import Module, Parameter, RemovableHandle  # noqa: F401
from .containers import Sequential, ModuleList, ModuleDict  # noqa: F401
from .layers import (  # noqa: F401
    Identity, Linear, Bilinear, Embedding, Dropout, LayerNorm, RMSNorm, BatchNorm1d,
    Tanh, Sigmoid, ReLU, SiLU, GELU, Softmax, LogSoftmax, Flatten,
)
from .layers import (  # noqa: F401  the other activations (activation_pointwise.cpp)
    ELU, SELU, CELU, LeakyReLU, Softplus, Hardtanh, ReLU6, LogSigmoid, Mish, Softsign, Tanhshrink, Hardsigmoid,
    Hardswish, Threshold, Softmin, GLU, PReLU,
)
from .lazy import LazyLinear, LazyBatchNorm1d, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .conv import Conv1d, Conv2d, LazyConv1d, LazyConv2d  # noqa: F401
from .pooling import MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d  # noqa: F401
from . import parameter  # noqa: F401
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401
from .seq2seq_attention import Seq2SeqAttention  # noqa: F401
from .transformer import (  # noqa: F401
    MultiheadAttention, TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder,
    Transformer,
)
from .lm import TransformerLM, TransformerSeq2Seq, RNNLM, RNNSeq2Seq  # noqa: F401
from .masked_lm import TransformerMaskedLM  # noqa: F401
from .._core import KVCache, AttentionCache  # noqa: F401
from .loss import CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss, KLDivLoss  # noqa: F401
from .loss import L1Loss, SmoothL1Loss, HuberLoss, BCELoss  # noqa: F401
from .loss import (  # noqa: F401
    MarginRankingLoss, CosineEmbeddingLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss, MultiMarginLoss,
    SoftMarginLoss, HingeEmbeddingLoss, MultiLabelSoftMarginLoss,
)
from .distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from .interop import to_torch_state_dict  # noqa: F401
from . import modules  # noqa: F401,E402 (torch.nn.modules' paths; after the classes they re-export)

__all__ = [
    "functional", "init", "positional", "utils",
    "Module", "Parameter", "RemovableHandle",
    "Sequential", "ModuleList", "ModuleDict",
    "Identity", "Linear", "Bilinear", "Embedding", "Dropout", "LayerNorm", "RMSNorm", "BatchNorm1d",
    "Tanh", "Sigmoid", "ReLU", "SiLU", "GELU", "Softmax", "LogSoftmax", "Flatten",
    "ELU", "SELU", "CELU", "LeakyReLU", "Softplus", "Hardtanh", "ReLU6", "LogSigmoid", "Mish", "Softsign",
    "Tanhshrink", "Hardsigmoid", "Hardswish", "Threshold", "Softmin", "GLU", "PReLU",
    "LazyLinear", "LazyBatchNorm1d", "UninitializedParameter", "UninitializedBuffer", "parameter",
    "Conv1d", "Conv2d", "LazyConv1d", "LazyConv2d",
    "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "Seq2SeqAttention",
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerDecoder", "Transformer",
    "TransformerLM", "TransformerSeq2Seq", "RNNLM", "RNNSeq2Seq", "TransformerMaskedLM", "KVCache", "AttentionCache",
    "CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss", "KLDivLoss",
    "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "CosineSimilarity", "PairwiseDistance",
    "MarginRankingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
    "MultiMarginLoss", "SoftMarginLoss", "HingeEmbeddingLoss", "MultiLabelSoftMarginLoss",
    "to_torch_state_dict",
]
