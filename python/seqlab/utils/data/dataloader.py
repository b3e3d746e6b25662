"""seqlab.utils.data.dataloader: torch.utils.data.dataloader's import path for DataLoader and
default_collate (python/seqlab/data/loader.py)."""
from ...data.loader import DataLoader, default_collate, default_convert  # noqa: F401

__all__ = ["DataLoader", "default_collate", "default_convert"]
