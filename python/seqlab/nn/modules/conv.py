"""torch.nn.modules.conv: Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d and their lazy forms
LazyConv1d/2d, LazyConvTranspose1d/2d (in_channels taken from the first input, as linear.py's
LazyLinear). The same parameter names, shapes, initialisation (kaiming_uniform_(a=sqrt(5)), bias
U(-1/sqrt(fan_in), 1/sqrt(fan_in))) and repr as torch's, so state dicts move both ways; the forward
is one call of the C++ functional F.conv1d / F.conv2d (cpp/src/ops/conv.cpp), after F.pad for the
padding modes other than 'zeros'. The C++ twins (cpp/include/seqlab/nn/conv.hpp, padding with
zeros) are checked by tests/test_nn_twins.py. Tests: tests/test_conv.py."""
from ...autograd import no_grad
from .. import functional as F
from .._helpers import _factory, _ntuple
from .lazy import LazyModuleMixin
from .linear import _reset_kaiming_uniform
from .module import Module

__all__ = ["Conv1d", "Conv2d", "LazyConv1d", "LazyConv2d", "ConvTranspose1d", "ConvTranspose2d", "LazyConvTranspose1d",
           "LazyConvTranspose2d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """The shared constructor of Conv1d and Conv2d (torch.nn.modules.conv._ConvNd)."""

    _n = 0  # spatial dims
    _transposed = False  # ConvTranspose: weight (in, out / groups, k...)

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
        self.transposed = self._transposed
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
        if self._transposed:
            weight_shape = (in_channels, out_channels // groups)
        else:
            weight_shape = (out_channels, in_channels // groups)
        self._new_parameter("weight", (*weight_shape, *kernel_size), dtype)
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
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
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
    _LazyConvXdMixin; the parameters are then materialised in place, (out, in / groups, k...) or
    transposed (in, out / groups, k...), and initialised."""

    _inferred = "in_channels"

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_channels = self._get_in_channels(input)
                if self.in_channels % self.groups != 0:
                    raise ValueError("in_channels must be divisible by groups")
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
                self._materialize("weight", shape)
                if self.bias is not None:
                    self._materialize("bias", (self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched, batched = self._n + 1, self._n + 2
        if input.dim() not in (unbatched, batched):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {list(input.shape)}")
        return input.shape[1] if input.dim() == batched else input.shape[0]


class _LazyConv(_LazyConvMixin):
    """The constructor of LazyConv1d and LazyConv2d: the convolution's without in_channels."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        # bias False here: no tensor made only to be replaced
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self.out_channels = out_channels
        self._lazy_weight_and_bias(True, bias, _factory(device, dtype))


class LazyConv1d(_LazyConv, Conv1d):
    """A Conv1d whose in_channels is the first input's channel count."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A Conv2d whose in_channels is the first input's channel count (d2l's LeNet: nn.LazyConv2d(6, kernel_size=5))."""

    cls_to_become = Conv2d


class _ConvTransposeNd(_ConvNd):
    """The transposed convolutions (torch.nn.modules.conv._ConvTransposeNd): the adjoint of the
    convolution with the same arguments, weight (in_channels, out_channels / groups, k...), initialised
    as torch's (fan_in from the weight's dim 1); forward(input, output_size=None), where output_size picks
    output_padding. One call of F.conv_transpose1d / F.conv_transpose2d (cpp/src/ops/conv.cpp)."""

    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype)
        self.output_padding = _ntuple(output_padding, self._n)

    def _output_padding(self, input, output_size):
        """output_padding, or what makes the output output_size: each spatial size must lie in
        [min, min + stride - 1], min = (I - 1) stride - 2 padding + dilation (k - 1) + 1."""
        if output_size is None:
            return self.output_padding
        n = self._n
        leading = 2 if input.dim() == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == leading + n:
            output_size = output_size[leading:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{leading + n} elements (got {len(output_size)})")
        smallest = [(input.shape[leading + d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        largest = [lo + self.stride[d] - 1 for d, lo in enumerate(smallest)]
        for size, lo, hi in zip(output_size, smallest, largest):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} "
                                 f"to {largest} (for an input of {list(input.shape[leading:])})")
        return tuple(size - lo for size, lo in zip(output_size, smallest))

    def forward(self, input, output_size=None):
        conv = F.conv_transpose1d if self._n == 1 else F.conv_transpose2d
        return conv(input, self.weight, self.bias, self.stride, self.padding, self._output_padding(input, output_size),
                    self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """The transposed 1-D convolution (a "deconvolution"; the gradient of Conv1d in its input): input
    (N, C_in, L) or (C_in, L), weight (C_in, C_out/groups, k), bias (C_out,); output length
    (L - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1."""

    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """The transposed 2-D convolution: input (N, C_in, H, W) or (C_in, H, W), weight (C_in, C_out/groups,
    kH, kW), bias (C_out,); each output size (I - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1."""

    _n = 2


class _LazyConvTranspose(_LazyConvMixin):
    """The constructor of LazyConvTranspose1d and LazyConvTranspose2d: the transposed convolution's
    without in_channels."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self.out_channels = out_channels
        self._lazy_weight_and_bias(True, bias, _factory(device, dtype))


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is the first input's channel count."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is the first input's channel count."""

    cls_to_become = ConvTranspose2d
