"""seqlab.nn.functional's adaptive max pooling (one C++ op each, cpp/src/ops/pool.cpp) and power-average
pooling (composed, as torch's: avg_pool of x^p, times the window size, to the power 1/p). torch's
signatures. Tests: tests/test_nn_modules_extra.py."""
from .. import _core
from ._helpers import _ntuple
from .._core import adaptive_max_pool1d_with_indices  # noqa: F401


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """(the max over windows [floor(i*H/OH), ceil((i+1)*H/OH)) x [floor(j*W/OW), ceil((j+1)*W/OW)), the
    argmax positions h*W + w in each plane); None in output_size keeps that input size
    (F.adaptive_max_pool2d_with_indices)."""
    if isinstance(output_size, (list, tuple)) and len(output_size) == 2:
        output_size = tuple(input.shape[input.dim() - 2 + i] if o is None else o for i, o in enumerate(output_size))
    return _core.adaptive_max_pool2d_with_indices(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The max over windows [floor(i*L/O), ceil((i+1)*L/O)), i < O = output_size, of input (N, C, L) or
    (C, L); with return_indices, (output, the argmax positions along L) (F.adaptive_max_pool1d)."""
    out, indices = _core.adaptive_max_pool1d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The max over windows [floor(i*H/OH), ceil((i+1)*H/OH)) x [floor(j*W/OW), ceil((j+1)*W/OW)); None in
    output_size keeps that input size; with return_indices, (output, the argmax positions h*W + w)
    (F.adaptive_max_pool2d)."""
    out, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, indices) if return_indices else out


def _power_average(pooled, norm_type, window):
    """(window · avg)^(1/p), the average clamped at 0 through sign · relu(|·|) (as torch's)."""
    return (pooled.sign() * _core.relu(pooled.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling (F.lp_pool1d): y = (Σ_window x^p)^(1/p), p = norm_type, over windows of
    kernel_size (stride defaults to it); p = inf is max pooling, p = 1 sum pooling."""
    pooled = _core.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _power_average(pooled, norm_type, kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over kH x kW windows (F.lp_pool2d): y = (Σ_window x^p)^(1/p), p = norm_type."""
    kh, kw = _ntuple(kernel_size, 2)
    pooled = _core.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _power_average(pooled, norm_type, kw * kh)
