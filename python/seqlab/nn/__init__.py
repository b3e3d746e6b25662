"""seqlab.nn: modules with torch.nn's names and semantics, and the functional API.

    import seqlab.nn as nn
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    loss = nn.CrossEntropyLoss()(model(x), y)

The classes torch.nn has are defined where torch defines them: modules/module.py (Module),
modules/container.py, modules/linear.py, modules/activation.py (with MultiheadAttention),
modules/rnn.py, modules/transformer.py, modules/loss.py, ... (seqlab.nn.modules re-exports them);
Parameter and the lazy placeholders: parameter.py. seqlab's own layers: positional.py (RoPE, ALiBi,
T5, Shaw, Transformer-XL, DeBERTa, DA, KERPLE, sinusoidal, learned), seq2seq_attention.py
(attention for RNN encoder-decoders), lm.py (language models for generation; their key/value
cache, KVCache, is C++: ops/kv_cache.hpp), masked_lm.py (BERT, DeBERTa). The private helpers of
all of them: _helpers.py. PyTorch state dicts: interop.py."""
from . import functional, init, parameter  # noqa: F401
# the layers before positional.py, whose schemes are built from them (MultiheadAttention checks its pos with it)
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import positional, utils  # noqa: F401
from .parameter import Parameter, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .parameter import Buffer  # noqa: F401
from .modules.module import RemovableHandle  # noqa: F401
from .seq2seq_attention import Seq2SeqAttention  # noqa: F401
from .lm import TransformerLM, TransformerSeq2Seq, RNNLM, RNNSeq2Seq  # noqa: F401
from .masked_lm import TransformerMaskedLM  # noqa: F401
from .._core import KVCache, AttentionCache  # noqa: F401
from .interop import to_torch_state_dict  # noqa: F401

__all__ = _modules_all + [
    "functional", "init", "parameter", "positional", "utils", "modules",
    "Parameter", "UninitializedParameter", "UninitializedBuffer", "RemovableHandle",
    "Seq2SeqAttention",
    "TransformerLM", "TransformerSeq2Seq", "RNNLM", "RNNSeq2Seq", "TransformerMaskedLM", "KVCache", "AttentionCache",
    "to_torch_state_dict",
    "Buffer",
]
