"""seqlab.nn.modules.loss: torch.nn.modules.loss's import path for classes defined in seqlab.nn."""
from ..loss import CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss, KLDivLoss  # noqa: F401
from ..loss import L1Loss, SmoothL1Loss, HuberLoss, BCELoss  # noqa: F401
from ..loss import (  # noqa: F401
    MarginRankingLoss, CosineEmbeddingLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss, MultiMarginLoss,
    SoftMarginLoss, HingeEmbeddingLoss, MultiLabelSoftMarginLoss,
)

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss", "KLDivLoss", "L1Loss", "SmoothL1Loss",
           "HuberLoss", "BCELoss", "MarginRankingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "PoissonNLLLoss",
           "GaussianNLLLoss", "MultiMarginLoss", "SoftMarginLoss", "HingeEmbeddingLoss", "MultiLabelSoftMarginLoss"]
