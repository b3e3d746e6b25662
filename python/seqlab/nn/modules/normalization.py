"""torch.nn.modules.normalization: LayerNorm and RMSNorm, each one call of the fused C++ kernels
(F.layer_norm, F.rms_norm) that their twins in cpp/include/seqlab/nn/layers.hpp call. Tests:
tests/test_nn_layers.py."""
from ... import _args, _core
from .. import functional as F
from .. import init
from .._helpers import _factory
from .module import Module

__all__ = ["LayerNorm", "RMSNorm"]


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
