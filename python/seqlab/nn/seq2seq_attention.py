"""Attention for RNN encoder-decoders (seq2seq): Seq2SeqAttention, with every score of the course.

The module only holds the parameters; the computation is one C++ functional,
seqlab.nn.functional.seq2seq_attention (cpp/src/ops/seq2seq_attention.cpp, composed of ordinary
ops), the same one its C++ twin in cpp/include/seqlab/nn/seq2seq_attention.hpp calls.
Tests: tests/test_seq2seq_attention.py, tests/test_nn_twins.py."""
import math
import numbers

from .. import _core
from . import init
from ._helpers import _factory
from .modules.linear import Linear
from .modules.module import Module

__all__ = ["Seq2SeqAttention"]


def _size(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"Seq2SeqAttention: {name} should be of type int, got: {type(value).__name__}")
    return int(value)


class Seq2SeqAttention(Module):
    """A query (the decoder state) attends over the keys (the encoder states):

        a_j = softmax_j(score(q, k_j))   over the source positions j that are not padding
        context = Σ_j a_j v_j            (the values v_j are the keys unless given)

    score (the name of the variant; torch has no such layer, so the names are the papers'):
      'dot'       qᵀ k_j                                  Luong et al. 2015, "Effective Approaches to
                                                          Attention-based Neural Machine Translation"
      'scaled'    qᵀ k_j / √d, d = query_size = key_size  (the scaling of Vaswani et al. 2017)
      'general'   qᵀ W k_j; alias 'bilinear'              Luong et al. 2015
      'additive'  vᵀ tanh(W₁ q + W₂ k_j + b); alias       Bahdanau et al. 2015, "Neural Machine
                  'concat'                                Translation by Jointly Learning to Align
                                                          and Translate"
      'linear'    "linear attention": NO softmax. The weights are the raw dot scores,
                  a_j = qᵀ k_j (0 at padding), so context = Σ_j (qᵀ k_j) v_j. They need not be
                  positive nor sum to 1. Its normalised relative is the kernelised linear
                  attention of Katharopoulos et al. 2020 ("Transformers are RNNs"), which
                  divides by Σ_j φ(q)ᵀφ(k_j) with a positive feature map φ (not implemented).

    Parameters:
      'dot', 'scaled', 'linear'   none; key_size must equal query_size
      'general'     W: (query_size, key_size), laid out as the weight of a
                    Linear(key_size, query_size) and initialised like one: U(±1/√key_size)
      'additive'    query_proj = Linear(query_size, hidden_size, bias=False)   (W₁)
                    key_proj = Linear(key_size, hidden_size, bias=bias)       (W₂ and b)
                    v = Linear(hidden_size, 1, bias=False)                    (vᵀ)
                    The one bias b is on the key side: W₂ k_j + b is computed once per source
                    position and reused at every decoder step (a bias on both sides would be
                    redundant, their sum is one bias).
    key_size defaults to query_size; hidden_size (used by 'additive' only) to query_size; bias
    concerns 'additive' only (a constant added to every score of a row leaves its softmax as it is).

    forward(query, keys, values=None, key_padding_mask=None) -> (context, weights):
      query (B, query_size) for one decoder step, or (B, T, query_size) for T steps at once;
      keys (B, S, key_size); values (B, S, value_size), default the keys;
      key_padding_mask (B, S) bool, True = padding (ignored), as torch.nn.MultiheadAttention's.
      context (B[, T], value_size), weights (B[, T], S).
      A row whose keys are all padding attends to nothing: weights 0 and context 0, no NaN."""

    def __init__(self, query_size, key_size=None, score="dot", hidden_size=None, bias=True, device=None,
                 dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        query_size = _size(query_size, "query_size")
        key_size = query_size if key_size is None else _size(key_size, "key_size")
        if not isinstance(score, str):
            raise TypeError(f"Seq2SeqAttention: score should be a str, got: {type(score).__name__}")
        score = _core.seq2seq_score(score)  # the canonical name; ValueError for an unknown one
        if score == "additive":
            hidden_size = query_size if hidden_size is None else _size(hidden_size, "hidden_size")
        else:
            hidden_size = 0
        _core.check_seq2seq_attention_args(query_size, key_size, score, hidden_size)
        self.query_size = query_size
        self.key_size = key_size
        self.score = score
        self.hidden_size = hidden_size
        self.bias = bool(bias)
        self._new_parameter("W", (query_size, key_size), dtype, score == "general")
        if score == "additive":
            self.query_proj = Linear(query_size, hidden_size, bias=False, dtype=dtype)
            self.key_proj = Linear(key_size, hidden_size, bias=self.bias, dtype=dtype)
            self.v = Linear(hidden_size, 1, bias=False, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """W as nn.Linear's weight, kaiming_uniform(a=√5). As in torch, the Linear children
        initialise themselves and have their own reset_parameters."""
        if self.W is not None:
            init.kaiming_uniform_(self.W, a=math.sqrt(5))

    def forward(self, query, keys, values=None, key_padding_mask=None):
        if self.score == "additive":
            params = dict(query_weight=self.query_proj.weight, key_weight=self.key_proj.weight,
                          key_bias=self.key_proj.bias, v=self.v.weight)
        else:
            params = dict(W=self.W)
        return _core.seq2seq_attention(query, keys, values, self.score, key_padding_mask=key_padding_mask, **params)

    def extra_repr(self):
        s = f"query_size={self.query_size}, key_size={self.key_size}, score='{self.score}'"
        if self.score == "additive":
            s += f", hidden_size={self.hidden_size}" + ("" if self.bias else ", bias=False")
        return s
