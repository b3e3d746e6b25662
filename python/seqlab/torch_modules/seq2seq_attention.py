"""seqlab.nn.Seq2SeqAttention in torch: the attention of RNN encoder-decoders with every score of
seqlab's ('dot', 'scaled', 'general' or 'bilinear', 'additive' or 'concat', 'linear'), written
with torch ops in the order of seqlab's C++ functional (cpp/src/ops/seq2seq_attention.cpp), with
seqlab's parameters (W; or query_proj, key_proj, v), its checks, its repr, and its rule for a row
whose keys are all padding (weights 0, context 0, no NaN). torch.nn has no such layer. Tests:
tests/test_to_torch_seq2seq.py."""
import math
import numbers

import torch
import torch.nn.functional as TF

__all__ = ["Seq2SeqAttention"]

# each score's canonical name, by the names seqlab takes
_SCORES = {"dot": "dot", "scaled": "scaled", "general": "general", "bilinear": "general", "additive": "additive",
           "concat": "additive", "linear": "linear"}
_FN = "seq2seq_attention"


def _size(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"Seq2SeqAttention: {name} should be of type int, got: {type(value).__name__}")
    return int(value)


def _shape(t):
    return str(list(t.shape))


def _name(dtype):
    return str(dtype).split(".")[-1]


class Seq2SeqAttention(torch.nn.Module):
    """A query (the decoder state) attends over the keys (the encoder states); see seqlab's
    Seq2SeqAttention for the scores and their papers.

        scores (B, T, S): 'dot', 'linear' qᵀk_j; 'scaled' qᵀk_j / √key_size; 'general' qᵀ W k_j;
                          'additive' vᵀ tanh(W₁ q + W₂ k_j + b)
        weights: softmax over the keys that are not padding ('linear': the raw scores, 0 at padding)
        context = Σ_j weights_j v_j (the values are the keys unless given)

    forward(query, keys, values=None, key_padding_mask=None) -> (context, weights): query
    (B, query_size) or (B, T, query_size), keys (B, S, key_size), values (B, S, value_size),
    key_padding_mask (B, S) bool, True = padding; context (B[, T], value_size), weights (B[, T], S).
    Every tensor must have the query's dtype, as in seqlab (no promotion)."""

    def __init__(self, query_size, key_size=None, score="dot", hidden_size=None, bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        query_size = _size(query_size, "query_size")
        key_size = query_size if key_size is None else _size(key_size, "key_size")
        if not isinstance(score, str):
            raise TypeError(f"Seq2SeqAttention: score should be a str, got: {type(score).__name__}")
        if score not in _SCORES:
            raise ValueError(f"{_FN}: unknown score '{score}'; expected 'dot', 'scaled', 'general' (or 'bilinear'), "
                             "'additive' (or 'concat') or 'linear'")
        score = _SCORES[score]
        hidden_size = (query_size if hidden_size is None else _size(hidden_size, "hidden_size")) \
            if score == "additive" else 0
        if query_size <= 0 or key_size <= 0:
            raise ValueError(f"Seq2SeqAttention: query_size and key_size must be positive, got {query_size} and "
                             f"{key_size}")
        if score in ("dot", "scaled", "linear") and key_size != query_size:
            raise ValueError(f"Seq2SeqAttention: score '{score}' compares query and key directly, so key_size must "
                             f"equal query_size, got {key_size} and {query_size} (use score='general' or 'additive' "
                             "for different sizes)")
        if score == "additive" and hidden_size <= 0:
            raise ValueError(f"Seq2SeqAttention: hidden_size must be positive, got {hidden_size}")
        self.query_size, self.key_size, self.score, self.hidden_size = query_size, key_size, score, hidden_size
        self.bias = bool(bias)
        if score == "general":  # laid out as the weight of a Linear(key_size, query_size)
            self.W = torch.nn.Parameter(torch.empty(query_size, key_size, **kw))
        else:
            self.register_parameter("W", None)
        if score == "additive":
            self.query_proj = torch.nn.Linear(query_size, hidden_size, bias=False, **kw)  # W₁
            self.key_proj = torch.nn.Linear(key_size, hidden_size, bias=self.bias, **kw)  # W₂ and b
            self.v = torch.nn.Linear(hidden_size, 1, bias=False, **kw)  # vᵀ
        self.reset_parameters()

    def reset_parameters(self):
        """W as torch.nn.Linear's weight (kaiming_uniform, a=√5); the Linear children reset themselves."""
        if self.W is not None:
            torch.nn.init.kaiming_uniform_(self.W, a=math.sqrt(5))

    def _check(self, query, keys, values, mask):
        if query.dim() not in (2, 3):
            raise ValueError(f"{_FN}: Expected query to be 2D (batch, query_size) for one step or 3D (batch, steps, "
                             f"query_size), got {query.dim()}D of shape {_shape(query)}")
        if keys.dim() != 3:
            raise ValueError(f"{_FN}: Expected keys to be 3D (batch, source_len, key_size), got {keys.dim()}D of "
                             f"shape {_shape(keys)}")
        if values is not None and values.dim() != 3:
            raise ValueError(f"{_FN}: Expected values to be 3D (batch, source_len, value_size), got {values.dim()}D "
                             f"of shape {_shape(values)}")
        if not query.is_floating_point():
            raise RuntimeError(f"{_FN}: expected a floating point query, got {_name(query.dtype)}")
        for t, name in ((keys, "keys"), (values, "values"), *((p, n) for n, p in self.named_parameters())):
            if t is not None and t.dtype != query.dtype:
                raise RuntimeError(f"{_FN}: expected all tensors of dtype {_name(query.dtype)} (the query's), got "
                                   f"{_name(t.dtype)} for {name}")
        B, S = query.shape[0], keys.shape[1]
        if keys.shape[0] != B:
            raise RuntimeError(f"{_FN}: query batch size {B} doesn't match keys batch size {keys.shape[0]} (query "
                               f"{_shape(query)}, keys {_shape(keys)})")
        if values is not None and tuple(values.shape[:2]) != (B, S):
            raise RuntimeError(f"{_FN}: values of shape {_shape(values)} must be (batch, source_len, value_size) with "
                               f"(batch, source_len) = ({B}, {S}) as keys {_shape(keys)}")
        if mask is not None:
            if mask.dtype != torch.bool:
                raise RuntimeError(f"{_FN}: key_padding_mask must be a bool tensor (True = padding), got "
                                   f"{_name(mask.dtype)}")
            if tuple(mask.shape) != (B, S):
                raise RuntimeError(f"{_FN}: expected key_padding_mask of shape (batch, source_len) = {[B, S]}, got "
                                   f"{_shape(mask)}")
        Dq, Dk = query.shape[-1], keys.shape[-1]
        expected = {"general": (Dq, Dk), "additive": (self.hidden_size, Dk)}.get(self.score)
        if self.score in ("dot", "scaled", "linear") and Dq != Dk:
            raise RuntimeError(f"{_FN}: score '{self.score}' needs query and keys of the same size, got query "
                               f"{_shape(query)} and keys {_shape(keys)}")
        if self.score == "general" and tuple(self.W.shape) != expected:
            raise RuntimeError(f"{_FN}: W of shape {_shape(self.W)} must be (query_size, key_size) = {expected}")
        if self.score == "additive" and (self.query_proj.in_features != Dq or self.key_proj.in_features != Dk):
            raise RuntimeError(f"{_FN}: query_proj and key_proj take ({self.query_proj.in_features}, "
                               f"{self.key_proj.in_features}) features, got query {_shape(query)} and keys "
                               f"{_shape(keys)}")

    def forward(self, query, keys, values=None, key_padding_mask=None):
        self._check(query, keys, values, key_padding_mask)
        one_step = query.dim() == 2
        q = query.unsqueeze(1) if one_step else query  # (B, T, Dq)
        values = keys if values is None else values  # (B, S, Dv)
        if self.score in ("dot", "linear"):
            scores = torch.bmm(q, keys.transpose(1, 2))  # qᵀ k_j
        elif self.score == "scaled":
            scores = torch.bmm(q, keys.transpose(1, 2)) / math.sqrt(keys.shape[2])  # qᵀ k_j / √d
        elif self.score == "general":
            scores = torch.bmm(q, TF.linear(keys, self.W).transpose(1, 2))  # qᵀ (W k_j), W k_j once per key
        else:  # vᵀ tanh(W₁ q + W₂ k_j + b): (B, T, 1, H) + (B, 1, S, H), then the product with v over H
            pq = self.query_proj(q).unsqueeze(2)
            pk = self.key_proj(keys).unsqueeze(1)
            scores = torch.matmul(torch.tanh(pq + pk), self.v.weight.reshape(-1))
        mask = key_padding_mask
        if self.score == "linear":  # no softmax: the raw scores, 0 at padding
            weights = scores if mask is None else scores.masked_fill(mask.unsqueeze(1), 0.0)
        elif mask is None:
            weights = torch.softmax(scores, -1)
        else:
            # padding gets −inf; a row that is all padding is left unmasked for the softmax and then
            # multiplied by keep = 0 (weights 0, context 0, no NaN and no gradient), as seqlab's
            keep = (~mask).to(query.dtype)  # (B, S)
            has_key = keep.sum(1, keepdim=True) > 0  # (B, 1)
            fill = (mask & has_key).unsqueeze(1)  # (B, 1, S)
            weights = torch.softmax(scores.masked_fill(fill, float("-inf")), -1) * keep.unsqueeze(1)
        context = torch.bmm(weights, values)  # Σ_j a_j v_j, (B, T, Dv)
        if one_step:
            return context.squeeze(1), weights.squeeze(1)
        return context, weights

    def extra_repr(self):
        s = f"query_size={self.query_size}, key_size={self.key_size}, score='{self.score}'"
        if self.score == "additive":
            s += f", hidden_size={self.hidden_size}" + ("" if self.bias else ", bias=False")
        return s
