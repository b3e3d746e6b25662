"""DataLoader: batches from a dataset, optionally shuffled with a seed, and default_collate.

Follows torch.utils.data.DataLoader (map-style datasets, one process): the same argument
names and defaults, with `seed` in place of a torch.Generator. Tested in tests/test_data.py.
"""

import collections.abc
import math
import numbers

import numpy as np

from .._core import Tensor, from_numpy, stack
from .._tensor import float64, randint, tensor

__all__ = ["DataLoader", "default_collate"]


class DataLoader:
    """Iterate over `dataset` in batches: for batch in DataLoader(data, batch_size=32, shuffle=True).

    dataset: anything with __len__ and __getitem__(int) (a list, a NumPy array, a corpus split).
    batch_size: items per batch. drop_last: drop the last batch if it is smaller.
    shuffle: visit the items in a new random order every epoch (every `for` over the loader).
    collate_fn: turns a list of items into a batch; default_collate by default (PadCollate
        for token sequences of different lengths).
    seed: makes the shuffling reproducible: two loaders with the same seed give the same
        orders, epoch after epoch. With seed=None each epoch's order is drawn from seqlab's
        global generator, so seqlab.manual_seed(s) makes it reproducible too.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None, seed=None):
        if not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")):
            raise TypeError(f"DataLoader: dataset must have __len__ and __getitem__, got {type(dataset).__name__}")
        self.dataset = dataset
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.collate_fn = default_collate if collate_fn is None else collate_fn
        self.seed = seed
        self._rng = np.random.default_rng(seed) if seed is not None else None

    def __len__(self):
        """The number of batches in one epoch."""
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def _order(self):
        n = len(self.dataset)
        if not self.shuffle:
            return np.arange(n)
        rng = self._rng
        if rng is None:  # draw this epoch's seed from seqlab's global generator
            rng = np.random.default_rng(randint(0, 2**62, ()).item())
        return rng.permutation(n)

    def __iter__(self):
        order = self._order().tolist()
        stop = len(self) * self.batch_size
        for start in range(0, stop, self.batch_size):
            items = [self.dataset[i] for i in order[start:start + self.batch_size]]
            yield self.collate_fn(items)

    def __repr__(self):
        return (f"DataLoader(dataset of {len(self.dataset)}, batch_size={self.batch_size}, "
                f"shuffle={self.shuffle}, drop_last={self.drop_last}, seed={self.seed})")


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
        return tuple(columns) if isinstance(elem, tuple) else columns
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
