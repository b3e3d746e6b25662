"""seqlab.nn.modules.pooling: torch.nn.modules.pooling's import path for classes defined in seqlab.nn."""
from ..pooling import MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d  # noqa: F401

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d"]
