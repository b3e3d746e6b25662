"""seqlab.nn.modules.activation: torch.nn.modules.activation's import path for classes defined in seqlab.nn."""
from ..layers import Tanh, Sigmoid, ReLU, GELU, Softmax, LogSoftmax  # noqa: F401
from ..transformer import MultiheadAttention  # noqa: F401

__all__ = ["Tanh", "Sigmoid", "ReLU", "GELU", "Softmax", "LogSoftmax", "MultiheadAttention"]
