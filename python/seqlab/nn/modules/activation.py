"""seqlab.nn.modules.activation: torch.nn.modules.activation's import path for classes defined in seqlab.nn."""
from ..layers import Tanh, Sigmoid, ReLU, GELU, Softmax, LogSoftmax  # noqa: F401
from ..layers import (  # noqa: F401
    SiLU, ELU, SELU, CELU, LeakyReLU, Softplus, Hardtanh, ReLU6, LogSigmoid, Mish, Softsign, Tanhshrink,
    Hardsigmoid, Hardswish, Threshold, Softmin, GLU, PReLU,
)
from ..transformer import MultiheadAttention  # noqa: F401

__all__ = ["Tanh", "Sigmoid", "ReLU", "GELU", "Softmax", "LogSoftmax", "MultiheadAttention",
           "SiLU", "ELU", "SELU", "CELU", "LeakyReLU", "Softplus", "Hardtanh", "ReLU6", "LogSigmoid", "Mish", "Softsign",
           "Tanhshrink", "Hardsigmoid", "Hardswish", "Threshold", "Softmin", "GLU", "PReLU"]
