"""seqlab.nn.modules.loss: torch.nn.modules.loss's import path for classes defined in seqlab.nn."""
from ..loss import CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss, KLDivLoss  # noqa: F401

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss", "KLDivLoss"]
