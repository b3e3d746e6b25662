"""seqlab.data: from text to batches of token ids, and the course's corpora.

    from seqlab.data import WordTokenizer, Vocab, batchify, get_batch, DataLoader, PadCollate
    from seqlab.data import corpora
    c = corpora.kjv("word")                         # train/valid/test verses + a vocab, offline
    train = batchify(c.ids("train"), batch_size=20)  # (N, 20) int64
    x, y = get_batch(train, 0, bptt=35)              # (35, 20) inputs and next-token targets

One concept per file: tokenize.py, vocab.py, batching.py, text.py (plain-text corpora and splits),
corpora.py (the named corpora). torch's datasets, samplers and DataLoader are defined at torch's
paths, seqlab.utils.data (dataset.py, sampler.py, dataloader.py), and re-exported here. Tests:
tests/test_data.py, tests/test_corpora.py.
"""

from . import corpora
from .encode import EncodedCorpus, encode_corpus
from .batching import BPTTBatches, PadCollate, batchify, get_batch, pad_collate, pad_sequence
from ..utils.data.dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from ..utils.data.dataloader import DataLoader, default_collate, default_convert
from ..utils.data.sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                                  SubsetRandomSampler, WeightedRandomSampler)
from .text import TextCorpus, read_corpus, train_valid_test_split
from .tokenize import CharTokenizer, WordTokenizer
from .vocab import SPECIALS, Vocab

__all__ = [
    "CharTokenizer", "WordTokenizer",
    "Vocab", "SPECIALS",
    "batchify", "get_batch", "BPTTBatches", "pad_sequence", "pad_collate", "PadCollate",
    "DataLoader", "default_collate", "default_convert",
    "Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
    "TextCorpus", "read_corpus", "train_valid_test_split",
    "corpora",
]

from ..utils.data.combined import ChainDataset, StackDataset, get_worker_info  # noqa: E402
from ..utils.data.distributed import DistributedSampler  # noqa: E402

__all__ += ["ChainDataset", "StackDataset", "get_worker_info", "DistributedSampler"]
