"""seqlab.utils.data (torch.utils.data): the datasets (dataset.py), samplers (sampler.py), DataLoader
(dataloader.py) and DistributedSampler (distributed.py), defined at torch's paths; seqlab.data
re-exports them beside its corpora and vocabularies:

    from seqlab.utils.data import DataLoader, TensorDataset, random_split
"""
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .dataloader import DataLoader, default_collate, default_convert
from . import distributed  # noqa: F401 (torch.utils.data.distributed)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                             WeightedRandomSampler)

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
    "DataLoader", "default_collate", "default_convert",
]

from .combined import ChainDataset, StackDataset, get_worker_info  # noqa: E402
from .distributed import DistributedSampler  # noqa: E402 (torch.utils.data.DistributedSampler)

__all__ += ["ChainDataset", "StackDataset", "get_worker_info", "DistributedSampler"]
