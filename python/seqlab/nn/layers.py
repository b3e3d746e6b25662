"""The built-in layers: torch.nn's names, arguments, defaults, parameter names and shapes,
initialisation and repr, so that a torch state dict loads into them and back.

Each layer registers its parameters under torch's names and its forward is one call of a C++
functional through seqlab.nn.functional (linear, bilinear, layer_norm, batch_norm, embedding,
dropout, the activations: ELU .. PReLU in activation_pointwise.cpp), the same functional its C++
twin in cpp/include/seqlab/nn/layers.hpp calls; tests/test_nn_twins.py checks that the twins agree (DESIGN.md, "The twin policy")."""
import math
import warnings

from .. import _args, _core
from .._tensor import float32, float64
from ..autograd import no_grad
from . import functional as F
from . import init
from .module import Module, Parameter

__all__ = ["Identity", "Linear", "Bilinear", "Embedding", "Dropout", "LayerNorm", "BatchNorm1d",
           "RMSNorm", "Tanh", "Sigmoid", "ReLU", "SiLU", "GELU", "Softmax", "LogSoftmax", "Flatten",
           "ELU", "SELU", "CELU", "LeakyReLU", "Softplus", "Hardtanh", "ReLU6", "LogSigmoid", "Mish", "Softsign",
           "Tanhshrink", "Hardsigmoid", "Hardswish", "Threshold", "Softmin", "GLU", "PReLU"]


def _factory(device, dtype):
    """The dtype for a layer's new parameters (device must be the CPU)."""
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError(f"seqlab runs on the CPU only; got device {device!r}")
    if dtype is None:
        return float32
    if dtype not in (float32, float64):
        raise TypeError(f"layers hold floating point parameters (seqlab.float32 or seqlab.float64), got {dtype}")
    return dtype


def _empty(shape, dtype):
    return _core._empty(_args.ints(shape, "empty"), dtype)  # Linear('a', 3): torch's TypeError from empty()


class Identity(Module):
    """Returns its input; takes and ignores any arguments (a placeholder)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b.   weight: (out_features, in_features), bias: (out_features,).

    Init as torch: W ~ kaiming_uniform_(a=sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)), and
    b ~ U(-1/sqrt(in), 1/sqrt(in))."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in_features), dtype))
        if bias:
            self.bias = Parameter(_empty((out_features,), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under torch's other name for it (torch.nn.modules.linear): MultiheadAttention's
    out_proj, so that reprs and torch's quantization tooling see what they see in torch."""


class Bilinear(Module):
    """y_k = x1^T A_k x2 + b_k.   weight: (out, in1, in2), bias: (out,), both U(-1/sqrt(in1), 1/sqrt(in1))."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in1_features, in2_features), dtype))
        if bias:
            self.bias = Parameter(_empty((out_features,), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Embedding(Module):
    """A lookup table: row i of weight (num_embeddings, embedding_dim) for index i.

    Init N(0, 1); row padding_idx is zeros and gets no gradient. max_norm,
    scale_grad_by_freq and sparse gradients (torch's extras) are not supported."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise NotImplementedError("seqlab.nn.Embedding: max_norm, scale_grad_by_freq and sparse are not supported")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= self.num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -self.num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(_empty((num_embeddings, embedding_dim), dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is `embeddings` (2-D; shares its storage), frozen by default."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class Dropout(Module):
    """In training mode, zeroes each element with probability p and scales the rest by
    1/(1-p); in eval mode, the identity. (inplace=True is accepted; the result is a new tensor.)"""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class LayerNorm(Module):
    """y = (x - mean) / sqrt(var + eps) * weight + bias over the trailing normalized_shape
    dims (Ba et al. 2016); fused forward and backward in C++. weight = 1, bias = 0 at init."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        self.normalized_shape = tuple(_args.ints(normalized_shape, "LayerNorm", "normalized_shape"))
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_empty(self.normalized_shape, dtype))
            if bias:
                self.bias = Parameter(_empty(self.normalized_shape, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """y = x / sqrt(mean(x²) + eps) * weight over the trailing normalized_shape dims (Zhang &
    Sennrich 2019: LayerNorm without the centring and the bias); eps=None: the dtype's machine
    epsilon, as torch's. The same fused C++ kernels as LayerNorm. weight = 1 at init."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        self.normalized_shape = tuple(_args.ints(normalized_shape, "RMSNorm", "normalized_shape"))
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_empty(self.normalized_shape, dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class BatchNorm1d(Module):
    """Batch normalisation of (N, C) or (N, C, L) input over every dim but C (Ioffe & Szegedy 2015).

    Training: batch statistics, and the buffers running_mean/running_var move towards them
    by `momentum` (momentum=None: a cumulative average over num_batches_tracked batches).
    Eval: the running statistics (unless track_running_stats=False)."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        dtype = _factory(device, dtype)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_empty((num_features,), dtype))
            if bias:
                self.bias = Parameter(_empty((num_features,), dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _core._full([num_features], 0.0, dtype))
            self.register_buffer("running_var", _core._full([num_features], 1.0, dtype))
            self.register_buffer("num_batches_tracked", _core._full([], 0.0, _core.dtype.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        # The counting of batches, the momentum (None: a cumulative average) and the choice of
        # statistics are C++ (batch_norm_module_forward), shared with nn::BatchNorm1d.
        return F.batch_norm_module_forward(input, self.running_mean, self.running_var, self.num_batches_tracked,
                                           self.weight, self.bias, self.training, self.track_running_stats,
                                           self.momentum, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # State dicts from before num_batches_tracked existed (version < 2) load with it at 0.
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else _core._full([], 0.0, _core.dtype.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


# ------------------------------------------------------------------ activations
class Tanh(Module):
    def forward(self, input):
        return _core.tanh(input)


class Sigmoid(Module):
    def forward(self, input):
        return _core.sigmoid(input)


class ReLU(Module):
    """max(0, x). inplace=True overwrites the input (relu_)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu_(input) if self.inplace else F.relu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class SiLU(Module):
    """x * sigmoid(x) (Swish-1). inplace=True overwrites the input with the result."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    """x * Phi(x) (approximate='none') or its tanh approximation (approximate='tanh')."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class _InplaceActivation(Module):
    """A pointwise activation whose only option is inplace (torch's repr shows it when True)."""
    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """alpha (e^x - 1) for x <= 0, x otherwise (Clevert et al. 2016)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """max(0, x) + min(0, alpha (e^(x/alpha) - 1)) (Barron 2017)."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(_InplaceActivation):
    """scale * elu(x, alpha) with Klambauer et al.'s constants (self-normalising networks)."""
    _fn = F.selu


class LeakyReLU(Module):
    """x for x > 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


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


class Hardtanh(Module):
    """min(max(x, min_val), max_val). min_value and max_value are torch's deprecated names of
    min_val and max_val (with its FutureWarning)."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
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
        self.inplace = inplace
        if not max_val > min_val:
            raise AssertionError("max_val must be greater than min_val")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """min(max(x, 0), 6): Hardtanh(0, 6), as torch's."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    def forward(self, input):
        return F.logsigmoid(input)


class Mish(_InplaceActivation):
    """x tanh(softplus(x)) (Misra 2019)."""
    _fn = F.mish


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input):
        return F.tanhshrink(input)


class Hardsigmoid(_InplaceActivation):
    """min(max(x + 3, 0), 6) / 6 (torch's repr never shows inplace)."""
    _fn = F.hardsigmoid

    def extra_repr(self):
        return ""


class Hardswish(_InplaceActivation):
    """x min(max(x + 3, 0), 6) / 6 (Howard et al. 2019; torch's repr never shows inplace)."""
    _fn = F.hardswish

    def extra_repr(self):
        return ""


class Threshold(Module):
    """x where x > threshold, value elsewhere."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


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


class Flatten(Module):
    """Flattens dims start_dim..end_dim into one (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
