"""torch.nn.modules.conv: Conv1d, Conv2d and their lazy forms LazyConv1d, LazyConv2d (in_channels
taken from the first input, as linear.py's LazyLinear). The same parameter names, shapes,
initialisation (kaiming_uniform_(a=sqrt(5)), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))) and repr as
torch's, so state dicts move both ways; the forward is one call of the C++ functional F.conv1d /
F.conv2d (cpp/src/ops/conv.cpp), after F.pad for the padding modes other than 'zeros'. The C++
twins (cpp/include/seqlab/nn/conv.hpp, padding with zeros) are checked by tests/test_nn_twins.py.
Tests: tests/test_conv.py."""
from ...autograd import no_grad
from .. import functional as F
from .._helpers import _factory, _ntuple
from .lazy import LazyModuleMixin
from .linear import _reset_kaiming_uniform
from .module import Module

__all__ = ["Conv1d", "Conv2d", "LazyConv1d", "LazyConv2d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """The shared constructor of Conv1d and Conv2d (torch.nn.modules.conv._ConvNd)."""

    _n = 0  # spatial dims

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        dtype = _factory(device, dtype)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for the padding modes: last dim first, (before, after) for each dim;
        # 'same' puts the odd one out after, as F.conv2d does.
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i] = total // 2
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        self._new_parameter("weight", (out_channels, in_channels // groups, *kernel_size), dtype)
        self._new_parameter("bias", (out_channels,), dtype, bias)
        self.reset_parameters()

    def reset_parameters(self):
        # U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias, fan_in = in/groups * prod(kernel)
        _reset_kaiming_uniform(self.weight, self.bias)

    def _conv_forward(self, input, weight, bias):
        conv = F.conv1d if self._n == 1 else F.conv2d
        if self.padding_mode != "zeros":
            return conv(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                        self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self):
        n = self._n
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """y[n, o, l] = b[o] + sum_{c, j} W[o, c, j] x[n, c, l*stride - padding + j*dilation] (within a group).

    input (N, C_in, L) or (C_in, L); weight (C_out, C_in/groups, k), bias (C_out,)."""

    _n = 1


class Conv2d(_ConvNd):
    """y[n, o, i, j] = b[o] + sum_{c, p, q} W[o, c, p, q] x[n, c, i*sH - pH + p*dH, j*sW - pW + q*dW] (within a group).

    input (N, C_in, H, W) or (C_in, H, W); weight (C_out, C_in/groups, kH, kW), bias (C_out,)."""

    _n = 2


class _LazyConvMixin(LazyModuleMixin):
    """in_channels from the first input's channel dim (dim 1, or dim 0 unbatched), as torch's
    _LazyConvXdMixin; the parameters are then materialised in place and initialised. The
    constructor is LazyConv1d's and LazyConv2d's: the convolution's without in_channels."""

    _inferred = "in_channels"

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self.out_channels = out_channels
        self._lazy_weight_and_bias(True, bias, _factory(device, dtype))

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_channels = self._get_in_channels(input)
                if self.in_channels % self.groups != 0:
                    raise ValueError("in_channels must be divisible by groups")
                self._materialize("weight", (self.out_channels, self.in_channels // self.groups, *self.kernel_size))
                if self.bias is not None:
                    self._materialize("bias", (self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched, batched = self._n + 1, self._n + 2
        if input.dim() not in (unbatched, batched):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {list(input.shape)}")
        return input.shape[1] if input.dim() == batched else input.shape[0]


class LazyConv1d(_LazyConvMixin, Conv1d):
    """A Conv1d whose in_channels is the first input's channel count."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvMixin, Conv2d):
    """A Conv2d whose in_channels is the first input's channel count (d2l's LeNet: nn.LazyConv2d(6, kernel_size=5))."""

    cls_to_become = Conv2d
