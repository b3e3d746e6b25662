"""seqlab.utils.data: torch.utils.data's import path for the datasets, samplers and DataLoader
that live in seqlab.data (one implementation, two paths):

    from seqlab.utils.data import DataLoader, TensorDataset, random_split
"""
from ...data.dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from ...data.loader import DataLoader, default_collate, default_convert
from . import dataloader, distributed  # noqa: F401 (torch.utils.data.dataloader, .distributed)
from ...data.sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                             WeightedRandomSampler)

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
    "DataLoader", "default_collate", "default_convert",
]
