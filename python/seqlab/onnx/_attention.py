"""Multi-head attention and the transformer layers, which seqlab computes in one C++ call each
(cpp/src/ops/multihead_attention.cpp, transformer.cpp), written out as their decomposition into
standard ONNX ops (Vaswani et al. 2017, §3.2.2):

    q, k, v = x W_qᵀ + b_q, ...          split into H heads of d = E / H: (N, H, L, d)
    A = softmax(q kᵀ / √d + mask)         mask: -inf where attention is not allowed, 0 elsewhere
    out = concat_h(A v) W_oᵀ + b_o

The layers' options and parameters reach the C++ call in params records (MultiheadAttentionParams,
TransformerEncoderLayerParams, ...), whose constructor arguments the tracer keeps. The work is
batch-first (N, L, E) inside; a causal mask (is_causal, or the mask TransformerLM passes with it)
is built from the sequence length at run time (Trilu), so it follows a dynamic sequence axis."""
import math

import numpy as np

from .. import _core
from ._symbolic import gelu, np_dtype

Tensor = _core.Tensor


def _fields(tr, record):
    """A params record's fields as the module passed them (by keyword: the names of record.fields)."""
    if id(record) not in tr.records:
        raise RuntimeError("seqlab.onnx.export: a transformer layer's parameters were packed before the export "
                           "started; build them inside forward, as seqlab's modules do")
    args, kwargs = tr.record(record)
    return dict(zip(type(record).fields, args), **kwargs)


def _linear(tr, x, record):
    f = _fields(tr, record)
    g = tr.graph
    y = g.op("MatMul", x, g.transpose(tr.name(f["weight"]), [1, 0]))
    return y if f["bias"] is None else g.op("Add", y, tr.name(f["bias"]))


def _layer_norm(tr, x, record, dtype):
    f = _fields(tr, record)
    if f.get("rms"):
        raise NotImplementedError("seqlab.onnx.export: a transformer layer with RMSNorm (rms_norm=True) has no ONNX "
                                  "translation in seqlab's exporter")
    g = tr.graph
    shape = [int(s) for s in f["normalized_shape"]]
    scale = tr.name(f["weight"]) if f["weight"] is not None else g.const(np.ones(shape, np_dtype(dtype)))
    bias = None if f["bias"] is None else tr.name(f["bias"])
    return g.op("LayerNormalization", x, scale, bias, axis=-len(shape), epsilon=float(f["eps"]))


def _additive(tr, mask, dtype):
    """A mask as scores to add: bool (True = not allowed) -> -inf / 0; float as it is."""
    g = tr.graph
    if mask.dtype == _core.dtype.bool:
        dt = np_dtype(dtype)
        return g.op("Where", tr.name(mask), g.const(-np.inf, dt), g.const(0.0, dt))
    return tr.name(mask)


def _causal(tr, q, k, dtype):
    """(L, S) -inf above the diagonal, 0 elsewhere, with L, S read from q, k (N, L, E) at run time."""
    g = tr.graph
    dt = np_dtype(dtype)
    shape = g.op("Concat", g.shape_slice(q, 1, 2), g.shape_slice(k, 1, 2), axis=0)
    ones = g.op("ConstantOfShape", shape, value=np.ones(1, np.float32))
    above = g.op("Cast", g.op("Trilu", ones, g.const(1, np.int64), upper=1), to=9)     # bool: j > i
    return g.op("Where", above, g.const(-np.inf, dt), g.const(0.0, dt))


def _mask(tr, q, k, attn_mask, key_padding_mask, is_causal, num_heads, dtype):
    """The (…, L, S) scores to add, broadcastable to (N, H, L, S), or None."""
    g = tr.graph
    mask = None
    if is_causal:
        mask = _causal(tr, q, k, dtype)
    elif attn_mask is not None:
        mask = _additive(tr, attn_mask, dtype)
        if attn_mask.dim() == 3:                             # (N·H, L, S) -> (N, H, L, S)
            mask = g.reshape(mask, [[-1, num_heads], g.shape_slice(mask, 1)])
    if key_padding_mask is not None:                         # (N, S) -> (N, 1, 1, S)
        padding = g.unsqueeze(_additive(tr, key_padding_mask, dtype), [1, 2])
        mask = padding if mask is None else g.op("Add", mask, padding)
    return mask


def _attention(tr, query, key, value, record, mask, dtype, need_weights=False, average_attn_weights=True):
    """Multi-head attention of batch-first values (N, L, E), (N, S, E) -> (out, weights or None)."""
    f = _fields(tr, record)
    for option in ("bias_k", "bias_v", "pos", "add_zero_attn"):
        if f.get(option) not in (None, False):
            raise NotImplementedError(f"seqlab.onnx.export: MultiheadAttention with {option} has no ONNX translation "
                                      "in seqlab's exporter")
    if f.get("num_key_value_heads") not in (None, 0, f["num_heads"]):
        raise NotImplementedError("seqlab.onnx.export: MultiheadAttention with num_key_value_heads < num_heads "
                                  "(grouped-query attention) has no ONNX translation in seqlab's exporter")
    E, H = int(f["embed_dim"]), int(f["num_heads"])
    if f.get("head_dim") not in (None, 0, E // H):
        raise NotImplementedError(f"seqlab.onnx.export: MultiheadAttention with head_dim {f['head_dim']} (heads that "
                                  f"do not span embed_dim {E}) has no ONNX translation in seqlab's exporter")
    g = tr.graph
    d = E // H
    b_in = f["in_proj_bias"]
    if f["in_proj_weight"] is not None and query == key == value:   # self-attention: one projection
        y = g.op("MatMul", query, g.transpose(tr.name(f["in_proj_weight"]), [1, 0]))
        y = y if b_in is None else g.op("Add", y, tr.name(b_in))
        q, k, v = g.op("Split", y, g.ints([E, E, E]), axis=2, outputs=3)
    else:
        if f["in_proj_weight"] is not None:
            weights = g.op("Split", tr.name(f["in_proj_weight"]), g.ints([E, E, E]), axis=0, outputs=3)
        else:
            weights = [tr.name(f[n]) for n in ("q_proj_weight", "k_proj_weight", "v_proj_weight")]
        biases = [None] * 3 if b_in is None else g.op("Split", tr.name(b_in), g.ints([E, E, E]), axis=0, outputs=3)
        q, k, v = [g.op("MatMul", x, g.transpose(w, [1, 0])) for x, w in zip((query, key, value), weights)]
        q, k, v = [x if b is None else g.op("Add", x, b) for x, b in zip((q, k, v), biases)]

    def heads(x, perm):                                      # (N, L, E) -> (N, H, L, d) or (N, H, d, L)
        return g.transpose(g.reshape(x, [[0, 0, H, d]]), perm)

    dt = np_dtype(dtype)
    scale = 1.0 / math.sqrt(d) if f.get("scale") is None else float(f["scale"])
    scores = g.op("MatMul", g.op("Mul", heads(q, [0, 2, 1, 3]), g.const(scale, dt)),
                  heads(k, [0, 2, 3, 1]))
    if mask is not None:
        scores = g.op("Add", scores, mask)
    attn = g.op("Softmax", scores, axis=-1)
    used = attn
    if mask is not None and not need_weights:
        # a query whose keys are all masked: softmax of -inf is NaN; seqlab's fused kernel (torch's SDPA) gives 0
        used = g.op("Where", g.op("IsNaN", attn), g.const(0.0, dt), attn)
    out = g.reshape(g.transpose(g.op("MatMul", used, heads(v, [0, 2, 1, 3])), [0, 2, 1, 3]), [[0, 0, -1]])
    out = g.op("MatMul", out, g.transpose(tr.name(f["out_proj_weight"]), [1, 0]))
    if f["out_proj_bias"] is not None:
        out = g.op("Add", out, tr.name(f["out_proj_bias"]))
    weights = None
    if need_weights:
        weights = attn
        if average_attn_weights:
            weights = (g.op("ReduceMean", attn, g.ints([1]), keepdims=0) if g.opset >= 18
                       else g.op("ReduceMean", attn, axes=[1], keepdims=0))
    return out, weights


def scaled_dot_product_attention(tr, out, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    # softmax(Q Kᵀ · scale + mask) V over the last two dims; a bool attn_mask is True where attention is allowed
    if dropout_p > 0:
        raise RuntimeError(f"seqlab.onnx.export: scaled_dot_product_attention with dropout_p={dropout_p}; the "
                           "exported model is in eval mode: pass dropout_p=self.dropout if self.training else 0")
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        raise NotImplementedError("seqlab.onnx.export: grouped-query attention (enable_gqa) has no ONNX translation")
    g = tr.graph
    dt = np_dtype(out.dtype)
    q, k, v = tr.name(query), tr.name(key), tr.name(value)
    n = query.dim()
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    perm = list(range(n - 2)) + [n - 1, n - 2]
    scores = g.op("MatMul", g.op("Mul", q, g.const(scale, dt)), g.transpose(k, perm))
    mask = None
    if is_causal:                                            # (L, S): -inf where j > i
        shape = g.op("Concat", g.shape_slice(q, n - 2, n - 1), g.shape_slice(k, n - 2, n - 1), axis=0)
        ones = g.op("ConstantOfShape", shape, value=np.ones(1, np.float32))
        above = g.op("Cast", g.op("Trilu", ones, g.const(1, np.int64), upper=1), to=9)
        mask = g.op("Where", above, g.const(-np.inf, dt), g.const(0.0, dt))
    elif attn_mask is not None:
        mask = tr.name(attn_mask)
        if attn_mask.dtype == _core.dtype.bool:
            mask = g.op("Where", mask, g.const(0.0, dt), g.const(-np.inf, dt))
    if mask is not None:
        scores = g.op("Add", scores, mask)
    attn = g.op("Softmax", scores, axis=-1)
    if mask is not None:                                     # a query with no key allowed gets 0, as seqlab's kernel
        attn = g.op("Where", g.op("IsNaN", attn), g.const(0.0, dt), attn)
    tr.bind(out, g.op("MatMul", attn, v))


def _batch_first(tr, t, batch_first):
    """t as (N, L, E): unbatched (L, E) gets N = 1, sequence-first (L, N, E) is transposed."""
    x = tr.name(t)
    if t.dim() == 2:
        return tr.graph.unsqueeze(x, [0])
    return x if batch_first else tr.graph.transpose(x, [1, 0, 2])


def _restore(tr, x, like, batch_first):
    if like.dim() == 2:
        return tr.graph.squeeze(x, [0])
    return x if batch_first else tr.graph.transpose(x, [1, 0, 2])


def multihead_attention(tr, out, query, key, value, params, training, key_padding_mask=None, need_weights=True,
                        attn_mask=None, average_attn_weights=True, is_causal=False, cache=None):
    if cache is not None:
        raise NotImplementedError("seqlab.onnx.export: attention with a KVCache has no ONNX translation")
    f = _fields(tr, params)
    bf = bool(f["batch_first"])
    q, k, v = (_batch_first(tr, t, bf) for t in (query, key, value))
    if key is query:
        k = q
    if value is key:
        v = k
    mask = _mask(tr, q, k, attn_mask, key_padding_mask, is_causal and attn_mask is None, f["num_heads"], out[0].dtype)
    y, weights = _attention(tr, q, k, v, params, mask, out[0].dtype, need_weights, average_attn_weights)
    tr.bind(out[0], _restore(tr, y, query, bf))
    if out[1] is not None:
        tr.bind(out[1], tr.graph.squeeze(weights, [0]) if query.dim() == 2 else weights)


def _check_plain_feed_forward(p):
    if p.get("linear3") is not None:
        raise NotImplementedError("seqlab.onnx.export: a transformer layer with the GLU feed-forward (glu=True) has no "
                                  "ONNX translation in seqlab's exporter")


def _activation(tr, x, activation, dtype):
    g = tr.graph
    fn = getattr(activation, "__wrapped__", activation)
    name = activation if isinstance(activation, str) else getattr(fn, "__name__", type(fn).__name__).lower()
    approximate = getattr(activation, "approximate", "none")
    if name == "relu":
        return g.op("Relu", x)
    if name == "gelu":
        return gelu(g, x, np_dtype(dtype), approximate)
    raise NotImplementedError(f"seqlab.onnx.export: a transformer layer with the activation {activation!r} has no "
                              "ONNX translation (relu and gelu have)")


def _layer(tr, params, dtype, *caches):
    """The fields of a transformer layer's params record and its self-attention's, checked for what
    the exporter writes out (no KV cache, the plain feed-forward)."""
    if any(c is not None for c in caches):
        raise NotImplementedError("seqlab.onnx.export: a transformer layer with a KVCache has no ONNX translation")
    p = _fields(tr, params)
    _check_plain_feed_forward(p)
    sa = _fields(tr, p["self_attn"])

    def feed_forward(h):
        return _linear(tr, _activation(tr, _linear(tr, h, p["linear1"]), p["activation"], dtype), p["linear2"])
    return p, sa["num_heads"], bool(sa["batch_first"]), feed_forward


def _residual_blocks(tr, x, p, blocks, dtype):
    """Each (block, norm) around x: post-LN x = norm(x + block(x)), or pre-LN (norm_first)
    x = x + block(norm(x))."""
    g = tr.graph
    for block, norm in blocks:
        if p["norm_first"]:
            x = g.op("Add", x, block(_layer_norm(tr, x, p[norm], dtype)))
        else:
            x = _layer_norm(tr, g.op("Add", x, block(x)), p[norm], dtype)
    return x


def transformer_encoder_layer(tr, out, src, params, training, src_mask=None, src_key_padding_mask=None,
                              is_causal=False, cache=None):
    # post-LN: x = LN1(x + SA(x)); x = LN2(x + FF(x))    pre-LN (norm_first): x = x + SA(LN1(x)); x = x + FF(LN2(x))
    dtype = out.dtype
    p, heads, bf, feed_forward = _layer(tr, params, dtype, cache)
    x = _batch_first(tr, src, bf)
    mask = _mask(tr, x, x, src_mask, src_key_padding_mask, is_causal, heads, dtype)

    def self_attention(h):
        return _attention(tr, h, h, h, p["self_attn"], mask, dtype)[0]

    x = _residual_blocks(tr, x, p, ((self_attention, "norm1"), (feed_forward, "norm2")), dtype)
    tr.bind(out, _restore(tr, x, src, bf))


def transformer_decoder_layer(tr, out, tgt, memory, params, training, tgt_mask=None, memory_mask=None,
                              tgt_key_padding_mask=None, memory_key_padding_mask=None, tgt_is_causal=False,
                              memory_is_causal=False, cache=None, memory_cache=None):
    # post-LN: x = LN1(x + SA(x)); x = LN2(x + MHA(x, mem)); x = LN3(x + FF(x))
    # pre-LN (norm_first): x = x + SA(LN1(x)); x = x + MHA(LN2(x), mem); x = x + FF(LN3(x))
    dtype = out.dtype
    p, heads, bf, feed_forward = _layer(tr, params, dtype, cache, memory_cache)
    x, mem = _batch_first(tr, tgt, bf), _batch_first(tr, memory, bf)
    self_mask = _mask(tr, x, x, tgt_mask, tgt_key_padding_mask, tgt_is_causal, heads, dtype)
    cross_mask = _mask(tr, x, mem, memory_mask, memory_key_padding_mask, memory_is_causal, heads, dtype)

    def self_attention(h):
        return _attention(tr, h, h, h, p["self_attn"], self_mask, dtype)[0]

    def cross_attention(h):
        return _attention(tr, h, mem, mem, p["multihead_attn"], cross_mask, dtype)[0]

    blocks = ((self_attention, "norm1"), (cross_attention, "norm2"), (feed_forward, "norm3"))
    x = _residual_blocks(tr, x, p, blocks, dtype)
    tr.bind(out, _restore(tr, x, tgt, bf))


def canonical_mask(tr, out, mask, mask_name, other, other_name, target_type):
    """torch's _canonical_mask: a bool mask becomes -inf / 0 scores of target_type."""
    if out is None:
        return
    tr.bind(out, _additive(tr, mask, out.dtype) if mask.dtype == _core.dtype.bool else tr.name(mask))


FUNCTIONS = {"scaled_dot_product_attention": scaled_dot_product_attention, "multihead_attention": multihead_attention,
             "transformer_encoder_layer": transformer_encoder_layer, "transformer_decoder_layer": transformer_decoder_layer,
             "canonical_mask": canonical_mask}
