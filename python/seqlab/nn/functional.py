"""seqlab.nn.functional: activations and losses with PyTorch's signatures.

softmax, log_softmax and cross_entropy are fused C++ kernels with hand-written backward
(cpp/src/ops/activation.cpp, cpp/src/ops/loss.cpp)."""
from .. import _core
from ..autograd import no_grad
from .._core import (  # noqa: F401
    relu, tanh, sigmoid, gelu, cross_entropy, nll_loss, mse_loss, binary_cross_entropy_with_logits,
    layer_norm, embedding,
)


def softmax(input, dim=None, dtype=None):
    if dim is None:
        raise TypeError("softmax(): dim must be given (implicit dim is deprecated in PyTorch)")
    x = input if dtype is None else input.to(dtype)
    return _core.softmax(x, dim)


def log_softmax(input, dim=None, dtype=None):
    if dim is None:
        raise TypeError("log_softmax(): dim must be given (implicit dim is deprecated in PyTorch)")
    x = input if dtype is None else input.to(dtype)
    return _core.log_softmax(x, dim)


def dropout(input, p=0.5, training=True, inplace=False):
    return _core.dropout(input, p, training)


def linear(input, weight, bias=None):
    """y = x W^T + b"""
    return _core._linear(input, weight, bias)


# ------------------------------------------------------------------ composed from primitives
# (Python, autograd through the primitives; used by nn.Bilinear and nn.BatchNorm1d.)

def bilinear(input1, input2, weight, bias=None):
    """y_k = x1^T A_k x2 + b_k     x1: (*, I1)  x2: (*, I2)  A: (O, I1, I2)  b: (O,)  y: (*, O)

    One GEMM, x1 · A viewed as (I1, O*I2), then a product with x2 summed over I2."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    if list(input1.shape[:-1]) != list(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} "
                           f"and {list(input2.shape[:-1])}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D (out, in1, in2), got {weight.dim()}-D")
    O, I1, I2 = weight.shape
    if input1.shape[-1] != I1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} "
                           f"but expected {I1}")
    if input2.shape[-1] != I2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} "
                           f"but expected {I2}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != O):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {list(bias.shape)} "
                           f"but expected [{O}]")
    x1 = input1.reshape(-1, I1)                                                 # (N, I1)
    x2 = input2.reshape(-1, I2)                                                 # (N, I2)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(I1, O * I2)).view(-1, O, I2)  # t[n,k,j] = sum_i x1[n,i] A[k,i,j]
    y = (t * x2.unsqueeze(1)).sum(-1)                                           # (N, O)
    if bias is not None:
        y = y + bias
    return y.reshape(list(input1.shape[:-1]) + [O])


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalisation over channel dim 1 of (N, C, *) (Ioffe & Szegedy 2015, Algorithm 1):

        y = (x - mean) / sqrt(var + eps) * weight + bias

    training: mean and the biased var over every dim but 1, and the running statistics (if
    given) are updated in place, r = (1 - momentum) * r + momentum * s, with the *unbiased*
    batch var for running_var (as torch). Otherwise the running statistics are used."""
    if input.dim() < 2:
        raise ValueError(f"batch_norm(): expected input of shape (N, C, *), got {input.dim()}D input")
    C = input.shape[1]
    dims = [0] + list(range(2, input.dim()))
    shape = [1, C] + [1] * (input.dim() - 2)
    if training:
        n = input.numel() // C if C else 0
        if n == 1:
            raise ValueError("Expected more than 1 value per channel when training, "
                             f"got input size {list(input.shape)}")
        mean = input.mean(dims)
        var = input.var(dims, correction=0)
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(running_mean * (1.0 - momentum) + mean * momentum)
            if running_var is not None:
                running_var.copy_(running_var * (1.0 - momentum) + var * (momentum * n / (n - 1)))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm(): running_mean and running_var must be defined in evaluation mode")
        mean, var = running_mean, running_var
    y = (input - mean.view(shape)) / (var + eps).sqrt().view(shape)
    if weight is not None:
        y = y * weight.view(shape)
    if bias is not None:
        y = y + bias.view(shape)
    return y
