"""torch.nn.modules.dropout: Dropout, one call of the C++ F.dropout. Tests: tests/test_nn_layers.py."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


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
