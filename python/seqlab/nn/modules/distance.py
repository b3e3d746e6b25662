"""torch.nn.modules.distance: CosineSimilarity and PairwiseDistance; each calls its function in
seqlab.nn.functional (composed of norm and elementwise ops, nn/_losses.py); no parameters."""
from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """Σ x1·x2 / (max(‖x1‖, ε) · max(‖x2‖, ε)) along dim: F.cosine_similarity."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """‖x1 − x2 + ε‖_p over the last dimension: F.pairwise_distance (the order p is kept as
    `norm`, as in torch)."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
