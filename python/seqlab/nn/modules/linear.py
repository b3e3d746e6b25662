"""torch.nn.modules.linear: Identity, Linear, Bilinear, NonDynamicallyQuantizableLinear and
LazyLinear, with torch's names, arguments, defaults, parameter names and shapes, initialisation
and repr, so that a torch state dict loads into them and back. The forward is one call of the C++
functional (F.linear, F.bilinear), the one the C++ twin in cpp/include/seqlab/nn/layers.hpp calls
(tests/test_nn_twins.py). Tests: tests/test_nn_layers.py, tests/test_lazy.py."""
import math

from ... import _core
from ...autograd import no_grad
from .. import functional as F
from .. import init
from .._helpers import _factory
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "NonDynamicallyQuantizableLinear", "LazyLinear"]


def _reset_kaiming_uniform(weight, bias):
    """torch's default init of Linear and the convolutions: weight kaiming_uniform_(a=sqrt(5)), which is
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and bias (if any) from the same range (0 when fan_in is 0).
    Through seqlab.nn.init's attributes, which skip_init and the hub's loader swap for no-ops."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


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

    _record = _core.LinearParams  # the record its C++ functional takes (_params)

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        self.in_features = in_features
        self.out_features = out_features
        self._new_parameter("weight", (out_features, in_features), dtype)
        self._new_parameter("bias", (out_features,), dtype, bias)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_kaiming_uniform(self.weight, self.bias)

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
        self._new_parameter("weight", (out_features, in1_features, in2_features), dtype)
        self._new_parameter("bias", (out_features,), dtype, bias)
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


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is input.shape[-1] of the first call."""

    cls_to_become = Linear
    _inferred = "in_features"

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.out_features = out_features
        self._lazy_weight_and_bias(True, bias, _factory(device, dtype))

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self._materialize("weight", (self.out_features, self.in_features))
                if self.bias is not None:
                    self._materialize("bias", (self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # weights loaded from a state dict: check the input against them
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]
