"""torch.nn.modules.activation: the activations and MultiheadAttention, with torch's names,
arguments, defaults, parameter names, initialisation and repr.

Each activation's forward is one call of a C++ functional through seqlab.nn.functional (the
activations ELU .. PReLU in activation_pointwise.cpp), the same functional its C++ twin in
cpp/include/seqlab/nn/layers.hpp calls; MultiheadAttention (Vaswani et al. 2017, §3.2.2) passes its
parameters and options to the C++ multihead_attention as one record (_params: the fields the
record declares, read from the module). tests/test_nn_twins.py checks the twins; tests:
tests/test_activations.py, tests/test_transformer.py."""
import math
import numbers
import warnings

from ... import _args, _core
from .. import functional as F
from .. import init
from .._helpers import _empty, _factory
from ..parameter import Parameter
from ..positional import _check_pos
from .dropout import Dropout
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from .normalization import RMSNorm

__all__ = ["Tanh", "Sigmoid", "ReLU", "SiLU", "GELU", "Softmax", "LogSoftmax", "ELU", "SELU", "CELU", "LeakyReLU",
           "Softplus", "Hardtanh", "ReLU6", "LogSigmoid", "Mish", "Softsign", "Tanhshrink", "Hardsigmoid", "Hardswish",
           "Threshold", "Softmin", "GLU", "PReLU", "MultiheadAttention", "RReLU", "Hardshrink", "Softshrink",
           "Softmax2d"]


class _Pointwise(Module):
    """An activation with no options: forward(input) = F.<_name>(input), looked up when called (so
    that seqlab.onnx's tracer, which wraps the functions of seqlab's modules, sees the call)."""
    _name = None

    def forward(self, input):
        return getattr(F, self._name)(input)


class Tanh(_Pointwise):
    """tanh(x)."""
    _name = "tanh"


class Sigmoid(_Pointwise):
    """1 / (1 + e^-x)."""
    _name = "sigmoid"


class _InplaceActivation(Module):
    """A pointwise activation F.<_name>(input, *options, inplace) (looked up when called, as
    _Pointwise's): the module holds the options named in _options (torch's attribute names) and
    inplace; its repr shows the options, and inplace when True."""
    _name = None
    _options = ()

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, self._name)(input, *(getattr(self, name) for name in self._options), inplace=self.inplace)

    def extra_repr(self):
        shown = [f"{name}={getattr(self, name)}" for name in self._options] + (["inplace=True"] if self.inplace else [])
        return ", ".join(shown)


class ReLU(_InplaceActivation):
    """max(0, x). inplace=True overwrites the input (relu_)."""
    _name = "relu"


class SiLU(_InplaceActivation):
    """x * sigmoid(x) (Swish-1). inplace=True overwrites the input with the result."""
    _name = "silu"


class GELU(Module):
    """x * Phi(x) (approximate='none') or its tanh approximation (approximate='tanh')."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class ELU(_InplaceActivation):
    """alpha (e^x - 1) for x <= 0, x otherwise (Clevert et al. 2016)."""
    _name = "elu"
    _options = ("alpha",)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(inplace)
        self.alpha = alpha


class CELU(ELU):
    """max(0, x) + min(0, alpha (e^(x/alpha) - 1)) (Barron 2017)."""
    _name = "celu"


class SELU(_InplaceActivation):
    """scale * elu(x, alpha) with Klambauer et al.'s constants (self-normalising networks)."""
    _name = "selu"


class LeakyReLU(_InplaceActivation):
    """x for x > 0, negative_slope * x otherwise."""
    _name = "leaky_relu"
    _options = ("negative_slope",)

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(inplace)
        self.negative_slope = negative_slope


class Softplus(Module):
    """log(1 + e^(beta x)) / beta, x itself where beta x > threshold."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(_InplaceActivation):
    """min(max(x, min_val), max_val). min_value and max_value are torch's deprecated names of
    min_val and max_val (with its FutureWarning)."""
    _name = "hardtanh"
    _options = ("min_val", "max_val")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__(inplace)
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning,
                          stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning,
                          stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        if not max_val > min_val:
            raise AssertionError("max_val must be greater than min_val")


class ReLU6(Hardtanh):
    """min(max(x, 0), 6): Hardtanh(0, 6), as torch's."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LogSigmoid(_Pointwise):
    """log(sigmoid(x))."""
    _name = "logsigmoid"


class Mish(_InplaceActivation):
    """x tanh(softplus(x)) (Misra 2019)."""
    _name = "mish"


class Softsign(_Pointwise):
    """x / (1 + |x|)."""
    _name = "softsign"


class Tanhshrink(_Pointwise):
    """x - tanh(x)."""
    _name = "tanhshrink"


class Hardsigmoid(_InplaceActivation):
    """min(max(x + 3, 0), 6) / 6 (torch's repr never shows inplace)."""
    _name = "hardsigmoid"

    def extra_repr(self):
        return ""


class Hardswish(_InplaceActivation):
    """x min(max(x + 3, 0), 6) / 6 (Howard et al. 2019; torch's repr never shows inplace)."""
    _name = "hardswish"

    def extra_repr(self):
        return ""


class Threshold(_InplaceActivation):
    """x where x > threshold, value elsewhere."""
    _name = "threshold"
    _options = ("threshold", "value")

    def __init__(self, threshold, value, inplace=False):
        super().__init__(inplace)
        self.threshold = threshold
        self.value = value


class PReLU(Module):
    """x for x > 0, weight * x otherwise; weight: (num_parameters,) filled with init, one per channel
    (dim 1 of the input) or one for all."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_empty((num_parameters,), _factory(device, dtype)))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class GLU(Module):
    """a * sigmoid(b), a and b the halves of the input along dim (Dauphin et al. 2017)."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


def _legacy_softmax_dim(name, ndim):
    # torch's rule for dim=None (deprecated there, with this warning).
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


class _SoftmaxOverDim(Module):
    """Softmax and LogSoftmax: a function applied over `dim` (None: torch's legacy choice)."""
    _name = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        dim = self.dim if self.dim is not None else _legacy_softmax_dim(self._name, input.dim())
        return getattr(F, self._name)(input, dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxOverDim):
    _name = "softmax"


class LogSoftmax(_SoftmaxOverDim):
    _name = "log_softmax"


class Softmin(_SoftmaxOverDim):
    """softmax(-x) over dim."""
    _name = "softmin"


class MultiheadAttention(Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O, head_i = softmax(Q W_Q^i (K W_K^i)^T / sqrt(d)) V W_V^i
    (Vaswani et al. 2017, §3.2.2), over num_heads heads of embed_dim // num_heads each.

    Parameters, in torch's order: in_proj_weight (3*embed_dim, embed_dim) — or q_proj_weight,
    k_proj_weight (embed_dim, kdim), v_proj_weight (embed_dim, vdim) when kdim or vdim differ —,
    in_proj_bias (3*embed_dim), out_proj (a Linear), bias_k and bias_v (1, 1, embed_dim) with
    add_bias_kv. forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False) -> (attn_output, attn_weights or None).
    Bool masks are True where attention is not allowed; float masks are added to the scores.

    seqlab's own arguments: pos, a positional scheme of seqlab.nn.positional applied inside the
    attention (converted to dtype when one is given); scale, the scores' factor softmax(q kᵀ · scale) (default 1/sqrt(head_dim), or the
    scheme's own; F.scaled_dot_product_attention's scale=): T5 uses scale=1.0;
    num_key_value_heads, grouped-query attention (Ainslie et al. 2023; Llama's): keys and values
    of that many heads, each shared by num_heads / num_key_value_heads query heads (default
    num_heads). Then in_proj_weight is (embed_dim + 2·kv_dim, embed_dim), kv_dim =
    num_key_value_heads · head_dim, and k_proj_weight / v_proj_weight (kv_dim, kdim / vdim);
    head_dim, each head's width (default embed_dim // num_heads), as T5's d_kv and the head_dim of
    Llama-family configs: the heads then span inner = num_heads · head_dim features, which need not
    be embed_dim: W_Q has inner rows (in_proj_weight (inner + 2·kv_dim, embed_dim)) and out_proj
    is Linear(inner, embed_dim)."""

    _record = _core.MultiheadAttentionParams  # the record its C++ functional takes (_params)

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None, pos=None, scale=None,
                 num_key_value_heads=None, head_dim=None):
        embed_dim = _args.index(embed_dim, "MultiheadAttention", "embed_dim")
        num_heads = _args.index(num_heads, "MultiheadAttention", "num_heads")
        if head_dim is None:
            _core.check_multihead_attention_args(embed_dim, num_heads)
            head_dim = embed_dim // num_heads
        else:
            head_dim = _args.index(head_dim, "MultiheadAttention", "head_dim")
            if embed_dim <= 0 or num_heads <= 0 or head_dim <= 0:
                raise ValueError(f"MultiheadAttention: embed_dim, num_heads and head_dim must be greater than 0, got "
                                 f"embed_dim={embed_dim}, num_heads={num_heads} and head_dim={head_dim}")
            if add_bias_kv and head_dim * num_heads != embed_dim:
                raise ValueError(f"MultiheadAttention: add_bias_kv needs num_heads · head_dim = embed_dim, got "
                                 f"{num_heads} · {head_dim} and {embed_dim}")
        kv_heads = num_heads if num_key_value_heads is None else \
            _args.index(num_key_value_heads, "MultiheadAttention", "num_key_value_heads")
        if kv_heads <= 0 or num_heads % kv_heads:
            raise ValueError(f"MultiheadAttention: num_heads ({num_heads}) must be a multiple of num_key_value_heads "
                             f"({kv_heads})")
        if kv_heads != num_heads and add_bias_kv:
            raise ValueError("MultiheadAttention: grouped-query attention (num_key_value_heads < num_heads) cannot be "
                             "combined with add_bias_kv")
        dtype = _factory(device, dtype)
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = head_dim
        self.num_key_value_heads = kv_heads
        kv_dim, inner = kv_heads * head_dim, num_heads * head_dim
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_empty((inner, embed_dim), dtype))
            self.k_proj_weight = Parameter(_empty((kv_dim, self.kdim), dtype))
            self.v_proj_weight = Parameter(_empty((kv_dim, self.vdim), dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_empty((inner + 2 * kv_dim, embed_dim), dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        self._new_parameter("in_proj_bias", (inner + 2 * kv_dim,), dtype, bias)
        self.out_proj = NonDynamicallyQuantizableLinear(inner, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_empty((1, 1, embed_dim), dtype))
            self.bias_v = Parameter(_empty((1, 1, embed_dim), dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        # seqlab's: a positional scheme applied inside the attention (seqlab.nn.positional)
        self.pos = _check_pos(pos, "MultiheadAttention", embed_dim, num_heads, head_dim)
        if self.pos is not None and dtype is not None:  # a scheme made apart takes the layer's dtype
            self.pos.to(dtype)
        # seqlab's: the scores' scale, softmax(q kᵀ · scale) (None: the scheme's, 1/√head_dim), as
        # F.scaled_dot_product_attention's scale=; T5 passes 1.0 (its W_Q absorbs the 1/√d)
        self.scale = _check_scale(scale, "MultiheadAttention")
        self._reset_parameters()

    def _reset_parameters(self):
        # torch's order (out_proj drew its numbers when it was made): Glorot-uniform projections,
        # zero biases, Glorot-normal bias_k and bias_v.
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """torch's MultiheadAttention.merge_masks: (mask, mask_type) for a batch-first (N, L, E)
        query, mask_type 1 for a key padding mask alone, 2 when attn_mask is given (then (N, H, L, L),
        the key padding mask added when there is one), None for neither."""
        mask_type, merged_mask = None, None
        if key_padding_mask is not None:
            mask_type, merged_mask = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged_mask = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                merged_mask = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged_mask = merged_mask + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1)
        return merged_mask, mask_type

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False, cache=None):
        # cache: seqlab's AttentionCache (seqlab.nn.KVCache; DESIGN.md "Generation"), keys and values of earlier steps
        return _core.multihead_attention(query, key, value, _params(self), self.training, key_padding_mask,
                                         need_weights, attn_mask, average_attn_weights, is_causal, cache)


def _params(module):
    """The record a module passes to its C++ functional (_core.MultiheadAttentionParams, ...): every
    field the record declares (record.fields, bound once in cpp/python/bind_transformer.cpp) read
    from the module by the same name; a submodule gives its own record (a Dropout its p), and the
    few fields named otherwise come from _FIELD_SOURCES."""
    values = {}
    record = _record_of(module)
    for field in record.fields:
        source = _FIELD_SOURCES.get(field)
        value = source(module) if source is not None else getattr(module, field)
        if isinstance(value, Dropout):
            value = value.p
        elif _record_of(value) is not None:
            value = _params(value)
        values[field] = value
    # made through _core's name, where the ONNX exporter's tracer records each record's fields
    return getattr(_core, record.__name__)(**values)


def _record_of(module):
    """The record class of a module that passes one to its C++ functional (its class's _record), else None."""
    return getattr(type(module), "_record", None)


def _check_scale(scale, owner):
    if scale is None:
        return None
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not math.isfinite(scale):
        raise ValueError(f"{owner}: scale must be a finite number or None (1/sqrt(head_dim)), got {scale!r}")
    return float(scale)


def _activation_arg(fn):
    """relu and gelu run as C++ ops; anything else is called back (a module keeps its hooks). relu:
    F.relu or seqlab.relu (the C++ op F.relu calls)."""
    if fn is F.relu or fn is _core.relu:
        return "relu"
    if fn is F.gelu:
        return "gelu"
    return fn


_FIELD_SOURCES = {
    "out_proj_weight": lambda m: m.out_proj.weight,
    "out_proj_bias": lambda m: m.out_proj.bias,
    "pos": lambda m: m.pos.scheme(m) if getattr(m, "pos", None) is not None else None,
    "scale": lambda m: getattr(m, "scale", None),
    "activation": lambda m: _activation_arg(m.activation),
    "rms": lambda m: isinstance(m, RMSNorm),
    "bias": lambda m: getattr(m, "bias", None),            # an RMSNorm has none
    "eps": lambda m: m.eps if m.eps is not None else _machine_eps(m),  # RMSNorm's None
}


def _machine_eps(norm):
    """RMSNorm's eps=None: its dtype's machine epsilon, as torch's (float32 without a weight)."""
    return 2.0 ** -52 if norm.weight is not None and norm.weight.dtype == _core.dtype.float64 else 2.0 ** -23


class RReLU(Module):
    """The randomized leaky ReLU (Xu et al. 2015): in training x for x > 0 and a x otherwise, a drawn
    from U(lower, upper) per element (the gradient is the slope used); in eval the fixed slope
    (lower + upper) / 2. One C++ functional (F.rrelu), as its twin's."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace_str}"


class Hardshrink(Module):
    """x where |x| > lambd, else 0 (F.hardshrink)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Module):
    """x - lambd above lambd, x + lambd below -lambd, 0 between (F.softshrink)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Softmax2d(Module):
    """softmax over the channels (dim -3) of (C, H, W) or (N, C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)
