"""torch.utils.data's datasets made of other datasets, beside ConcatDataset (dataset.py): ChainDataset
(iterable datasets one after another) and StackDataset (item i is the tuple or dict of every
dataset's item i), and get_worker_info. Tests: tests/test_torch_switches.py."""
from .dataset import Dataset, IterableDataset

__all__ = ["ChainDataset", "StackDataset", "get_worker_info"]


class ChainDataset(IterableDataset):
    """The iterable datasets one after another, lazily (torch.utils.data.ChainDataset); len() is the
    sum of theirs."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class StackDataset(Dataset):
    """Datasets of one length side by side (torch.utils.data.StackDataset): StackDataset(a, b)[i]
    is (a[i], b[i]); StackDataset(x=a, y=b)[i] is {"x": a[i], "y": b[i]}."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        datasets = args or kwargs
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        lengths = {len(d) for d in (args or kwargs.values())}
        if len(lengths) != 1:
            raise ValueError("Size mismatch between datasets")
        self._length = lengths.pop()
        self.datasets = args if args else dict(kwargs)

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        """The items at `indices`, as a list (what a DataLoader's batch asks for)."""
        return [self[i] for i in indices]

    def __len__(self):
        return self._length


def get_worker_info():
    """Information about the DataLoader worker process running this code (torch's
    get_worker_info): None, since seqlab's DataLoader loads every batch in the main process."""
    return None
