"""seqlab.nn.modules.distance: torch.nn.modules.distance's import path for classes defined in seqlab.nn."""
from ..distance import CosineSimilarity, PairwiseDistance  # noqa: F401

__all__ = ["CosineSimilarity", "PairwiseDistance"]
