"""torch.nn.modules.normalization: LayerNorm, RMSNorm and GroupNorm, each one call of the fused C++
kernels (F.layer_norm, F.rms_norm, F.group_norm) that their twins in cpp/include/seqlab/nn/layers.hpp
call, and LocalResponseNorm (composed in Python: F.local_response_norm). Tests:
tests/test_nn_layers.py, tests/test_nn_modules_more.py."""
from ... import _args, _core
from .. import functional as F
from .. import init
from .._helpers import _factory
from .module import Module

__all__ = ["LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm"]


class LayerNorm(Module):
    """y = (x - mean) / sqrt(var + eps) * weight + bias over the trailing normalized_shape
    dims (Ba et al. 2016); fused forward and backward in C++. weight = 1, bias = 0 at init."""

    _record = _core.LayerNormParams  # the record its C++ functional takes (_params)

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        self.normalized_shape = tuple(_args.ints(normalized_shape, "LayerNorm", "normalized_shape"))
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self._new_parameter("weight", self.normalized_shape, dtype, elementwise_affine)
        self._new_parameter("bias", self.normalized_shape, dtype, elementwise_affine and bias)
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

    _record = _core.LayerNormParams  # the record its C++ functional takes (_params)

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        self.normalized_shape = tuple(_args.ints(normalized_shape, "RMSNorm", "normalized_shape"))
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self._new_parameter("weight", self.normalized_shape, dtype, elementwise_affine)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """Group normalisation (Wu & He 2018): the C channels of (N, C, *) in num_groups groups, each
    sample's group normalised by its own mean and biased variance, then y = xhat * weight[c] +
    bias[c]; fused forward and backward in C++ (F.group_norm). weight = 1, bias = 0 at init."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        dtype = _factory(device, dtype)
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        self._new_parameter("weight", (num_channels,), dtype, affine)
        self._new_parameter("bias", (num_channels,), dtype, affine and bias)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class LocalResponseNorm(Module):
    """Local response normalisation (Krizhevsky et al. 2012) across channels:
    y_c = x_c / (k + alpha / size * Σ_{c' near c} x_{c'}²)^beta over a window of `size` channels.
    No parameters; composed in Python (F.local_response_norm)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
