"""torch.utils.data.dataloader: DataLoader, batches from a dataset, and default_collate.

One process (num_workers and the other process options are accepted and change nothing): the
same arguments, defaults and errors; shuffle=True is a RandomSampler(dataset, generator=generator),
otherwise a SequentialSampler, grouped by a BatchSampler (sampler.py); seqlab's `seed` is
a shorthand for generator=seqlab.Generator().manual_seed(seed). Importable as
seqlab.utils.data.DataLoader and seqlab.data.DataLoader. Tests: tests/test_data.py,
tests/test_utils_data.py.
"""

import collections.abc
import numbers

import numpy as np

from ..._core import Generator, Tensor, from_numpy, stack
from ..._tensor import float64, tensor
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert"]


class DataLoader:
    """Iterate over `dataset` in batches: for batch in DataLoader(data, batch_size=32, shuffle=True).

    dataset: anything with __len__ and __getitem__(int) (a list, a NumPy array, a Dataset), or
        an IterableDataset (batched in its own order).
    batch_size: items per batch (None: no batching; each item goes through collate_fn alone).
    shuffle: visit the items in a new random order every epoch (every `for` over the loader).
    sampler / batch_sampler: the order of the indices / of whole batches, as torch's.
    drop_last: drop the last batch if it is smaller.
    collate_fn: turns a list of items into a batch; default_collate by default (PadCollate
        for token sequences of different lengths).
    generator: the seqlab.Generator of the shuffling; without it (and without seed) each
        epoch's order is seeded from the default generator, so seqlab.manual_seed(s) makes it
        reproducible. seed: seqlab's shorthand for generator=Generator().manual_seed(seed).
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True, seed=None):
        iterable = isinstance(dataset, IterableDataset)
        if not iterable and not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")):
            raise TypeError(f"DataLoader: dataset must have __len__ and __getitem__, got {type(dataset).__name__}")
        if not isinstance(num_workers, numbers.Integral) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"DataLoader: generator must be a seqlab.Generator, not {type(generator).__name__}")
        if seed is not None:
            if generator is not None:
                raise ValueError("DataLoader: give either seed or generator, not both")
            generator = Generator().manual_seed(seed)
        if iterable:
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                                 "drop_last")
        elif not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if sampler is None and not iterable:
            try:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
            except ValueError as e:  # an empty dataset cannot be shuffled (torch's error, named here)
                raise ValueError(f"DataLoader(shuffle=True): {e}") from None
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, int(batch_size), bool(drop_last))
        self.dataset = dataset
        self.batch_size = None if batch_size is None else int(batch_size)
        self.shuffle = bool(shuffle)
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.generator = generator
        self.seed = seed
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (isinstance(self.dataset, IterableDataset) and self.batch_size)

    def __len__(self):
        """The number of batches in one epoch (of items without batching)."""
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # TypeError if the stream has no length, as torch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def _fetch(self, indices):
        if hasattr(self.dataset, "__getitems__"):
            return self.dataset.__getitems__(indices)
        return [self.dataset[i] for i in indices]

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            yield from self._iter_stream()
        elif self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn(self._fetch(indices))
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])

    def _iter_stream(self):
        if self.batch_size is None:
            for item in self.dataset:
                yield self.collate_fn(item)
            return
        batch = []
        for item in self.dataset:
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __repr__(self):
        size = len(self.dataset) if hasattr(self.dataset, "__len__") else "a stream"
        return (f"DataLoader(dataset of {size}, batch_size={self.batch_size}, "
                f"shuffle={self.shuffle}, drop_last={self.drop_last}, seed={self.seed})")


def default_convert(data):
    """An item as it is, with NumPy arrays (and those inside tuples, lists and dicts) as tensors,
    as torch.utils.data.default_convert (the collate_fn of batch_size=None)."""
    if isinstance(data, np.ndarray) and data.dtype.kind in "biuf":
        return _from_numpy(data)
    if isinstance(data, np.generic) and np.asarray(data).dtype.kind in "biuf":
        return _from_numpy(np.array(data))
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (tuple, list)):
        return type(data)(default_convert(d) for d in data)
    return data


def default_collate(batch):
    """A list of items -> one batch, as torch.utils.data.default_collate:

    seqlab tensors and NumPy arrays of one shape are stacked (a new first dimension);
    Python ints become an int64 tensor, floats float64, bools bool; strings stay a list;
    tuples and lists are collated position by position, dicts key by key.
    """
    if len(batch) == 0:
        raise ValueError("default_collate: received an empty batch")
    elem = batch[0]
    if isinstance(elem, Tensor):
        _check_same_shape([tuple(x.shape) for x in batch])
        return stack(list(batch))
    if isinstance(elem, np.ndarray):
        _check_same_shape([x.shape for x in batch])
        return _from_numpy(np.stack(batch))
    if isinstance(elem, np.generic) and np.asarray(elem).dtype.kind in "biuf":
        return _from_numpy(np.array(batch))  # NumPy scalars keep their dtype, as torch.as_tensor does
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, numbers.Real):
        # torch.tensor(batch): the dtype of every item, not of the first (np.array(batch, int64)
        # truncated [1, 2.5] to [1, 2]): bools stay bool, ints int64, a float among them float32
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, collections.abc.Sequence):
        if any(len(x) != len(elem) for x in batch):
            raise RuntimeError("default_collate: each element in list of batch should be of equal size; "
                               "for token sequences of different lengths use collate_fn=PadCollate(...)")
        columns = [default_collate(list(column)) for column in zip(*batch)]
        if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple keeps its type
            return type(elem)(*columns)
        return columns  # tuples and lists alike become lists, as torch's
    raise TypeError(f"default_collate: batch must contain tensors, NumPy arrays, numbers, strings, "
                    f"dicts or lists; found {type(elem).__name__}")


def _check_same_shape(shapes):
    if any(s != shapes[0] for s in shapes):
        raise RuntimeError(f"default_collate: stack expects each tensor to be equal size, but got {shapes[0]} "
                           f"and {next(s for s in shapes if s != shapes[0])}; for sequences of different "
                           f"lengths use collate_fn=PadCollate(...)")


def _from_numpy(arr):
    if arr.dtype.kind in "iu":
        arr = arr.astype(np.int64, copy=False)
    elif arr.dtype.kind == "f" and arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float32)
    return from_numpy(np.ascontiguousarray(arr))
