"""seqlab.utils.data at torch.utils.data's import path (python/seqlab/utils/data/dataset.py, sampler.py,
dataloader.py): datasets, samplers, DataLoader and random_split against torch's, in order (equal
batches), shuffled (the same permutation property and sizes; seqlab's random stream is its own)
and in their errors."""
import numpy as np
import pytest
import torch
import torch.utils.data as tud

import seqlab
import seqlab.utils.data as sud
from conftest import sl_np


def both(x):
    return seqlab.tensor(x), torch.tensor(x)


def plain(batch):
    """A batch (tensors inside tuples/lists/dicts) as nested Python lists."""
    if isinstance(batch, (seqlab.Tensor, torch.Tensor)):
        return batch.tolist()
    if isinstance(batch, dict):
        return {k: plain(v) for k, v in batch.items()}
    if isinstance(batch, (tuple, list)):
        return [plain(b) for b in batch]
    return batch


def test_one_implementation_two_paths():
    for name in sud.__all__:
        assert getattr(sud, name) is getattr(seqlab.data, name), name
    assert seqlab.utils.data.DataLoader is seqlab.data.DataLoader


def test_tensor_dataset_matches_torch(rng):
    x, y = rng.standard_normal((7, 3)).astype(np.float32), rng.integers(0, 5, 7)
    (sx, tx), (sy, ty) = both(x), both(y)
    s, t = sud.TensorDataset(sx, sy), tud.TensorDataset(tx, ty)
    assert len(s) == len(t) == 7
    for i in [0, 3, -1]:
        assert plain(s[i]) == plain(t[i])
    with pytest.raises(AssertionError, match="Size mismatch"):
        tud.TensorDataset(tx, ty[:3])
    with pytest.raises(AssertionError, match="Size mismatch"):
        sud.TensorDataset(sx, sy[:3])


@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (3, False), (3, True), (7, False), (10, True)])
def test_dataloader_in_order_matches_torch(rng, batch_size, drop_last):
    x, y = rng.standard_normal((7, 2)).astype(np.float32), rng.integers(0, 5, 7)
    (sx, tx), (sy, ty) = both(x), both(y)
    s = sud.DataLoader(sud.TensorDataset(sx, sy), batch_size=batch_size, drop_last=drop_last)
    t = tud.DataLoader(tud.TensorDataset(tx, ty), batch_size=batch_size, drop_last=drop_last)
    assert len(s) == len(t)
    sb, tb = list(s), list(t)
    assert len(sb) == len(tb)
    for a, b in zip(sb, tb):
        assert isinstance(a, list) == isinstance(b, list) and len(a) == len(b) == 2
        assert a[0].dtype == seqlab.float32 and a[1].dtype == seqlab.int64
        np.testing.assert_array_equal(sl_np(a[0]), b[0].numpy())
        np.testing.assert_array_equal(sl_np(a[1]), b[1].numpy())


def test_dataloader_samplers_and_no_batching_match_torch():
    data = [{"a": i, "b": [float(i), 2.0 * i]} for i in range(9)]
    cases = [
        (dict(batch_size=None), dict(batch_size=None)),
        (dict(sampler=sud.SequentialSampler(data), batch_size=4), dict(sampler=tud.SequentialSampler(data), batch_size=4)),
        (dict(batch_sampler=sud.BatchSampler(sud.SequentialSampler(data), 2, True)),
         dict(batch_sampler=tud.BatchSampler(tud.SequentialSampler(data), 2, True))),
        (dict(sampler=[8, 1, 4], batch_size=2), dict(sampler=[8, 1, 4], batch_size=2)),
        (dict(batch_size=4, collate_fn=lambda b: [d["a"] for d in b]),
         dict(batch_size=4, collate_fn=lambda b: [d["a"] for d in b])),
        (dict(batch_size=4, num_workers=2), dict(batch_size=4, num_workers=0)),  # one process here
    ]
    for skw, tkw in cases:
        s, t = sud.DataLoader(data, **skw), tud.DataLoader(data, **tkw)
        assert len(s) == len(t)
        assert [plain(b) for b in s] == [plain(b) for b in t], skw
    arrays = [np.full((2,), i, dtype=np.float32) for i in range(3)]
    s = [plain(b) for b in sud.DataLoader(arrays, batch_size=None)]
    assert s == [plain(b) for b in tud.DataLoader(arrays, batch_size=None)]
    assert all(isinstance(b, seqlab.Tensor) for b in sud.DataLoader(arrays, batch_size=None))


def test_shuffle_with_a_generator():
    data = list(range(20))

    def epochs(loader, n=3):
        return [[v for b in loader for v in b.tolist()] for _ in range(n)]

    a = epochs(sud.DataLoader(data, batch_size=6, shuffle=True, generator=seqlab.Generator().manual_seed(1)))
    b = epochs(sud.DataLoader(data, batch_size=6, shuffle=True, generator=seqlab.Generator().manual_seed(1)))
    c = epochs(sud.DataLoader(data, batch_size=6, shuffle=True, generator=seqlab.Generator().manual_seed(2)))
    assert a == b and a != c
    assert all(sorted(e) == data for e in a + c) and a[0] != a[1]
    # the generator is the loader's only source: the default generator is not touched
    seqlab.manual_seed(5)
    expected = seqlab.rand(3).tolist()
    seqlab.manual_seed(5)
    list(sud.DataLoader(data, batch_size=6, shuffle=True, generator=seqlab.Generator().manual_seed(1)))
    assert seqlab.rand(3).tolist() == expected
    # without one, each epoch is seeded from the default generator (torch's rule)
    seqlab.manual_seed(9)
    d = epochs(sud.DataLoader(data, batch_size=6, shuffle=True))
    seqlab.manual_seed(9)
    assert epochs(sud.DataLoader(data, batch_size=6, shuffle=True)) == d and d[0] != d[1]
    # seqlab's seed= is a generator seeded once
    assert epochs(sud.DataLoader(data, batch_size=6, shuffle=True, seed=1)) == a


def test_random_samplers():
    g = seqlab.Generator().manual_seed(0)
    s = list(sud.RandomSampler(range(10), generator=g))
    assert sorted(s) == list(range(10)) and s != list(range(10))
    r = list(sud.RandomSampler(range(5), replacement=True, num_samples=100, generator=g))
    assert len(r) == 100 and set(r) <= set(range(5)) and len(set(r)) == 5
    assert len(list(sud.RandomSampler(range(4), num_samples=10, generator=g))) == 10 == len(
        list(tud.RandomSampler(range(4), num_samples=10)))
    w = list(sud.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200, generator=g))
    assert set(w) == {1, 3} and 0.6 < w.count(3) / 200 < 0.9
    assert sorted(sud.SubsetRandomSampler([5, 7, 9], generator=g)) == [5, 7, 9]
    for cls in (sud.RandomSampler, tud.RandomSampler):
        with pytest.raises(ValueError, match="num_samples should be a positive integer"):
            cls(range(3), num_samples=0)


@pytest.mark.parametrize("lengths", [[3, 7], [0.5, 0.5], [0.3, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [10, 0]])
def test_random_split_sizes_match_torch(lengths):
    data = list(range(10))
    s = sud.random_split(data, lengths, generator=seqlab.Generator().manual_seed(0))
    t = tud.random_split(data, lengths, generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in s] == [len(p) for p in t]
    assert sorted(v for p in s for v in p) == data
    again = sud.random_split(data, lengths, generator=seqlab.Generator().manual_seed(0))
    assert [list(p) for p in s] == [list(p) for p in again]
    assert all(isinstance(p, sud.Subset) for p in s)


def test_random_split_uses_the_default_generator():
    seqlab.manual_seed(3)
    a = [list(p) for p in sud.random_split(range(10), [5, 5])]
    seqlab.manual_seed(3)
    assert [list(p) for p in sud.random_split(range(10), [5, 5])] == a


def test_datasets_compose_as_torch():
    class Squares(sud.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return i * i

    class TSquares(tud.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return i * i

    s, t = Squares() + Squares(), TSquares() + TSquares()
    assert len(s) == len(t) == 8 and [s[i] for i in range(-8, 8)] == [t[i] for i in range(-8, 8)]
    assert plain(list(sud.DataLoader(s, batch_size=3))) == plain(list(tud.DataLoader(t, batch_size=3)))
    sub_s, sub_t = sud.Subset(s, [7, 0, 3]), tud.Subset(t, [7, 0, 3])
    assert [sub_s[i] for i in range(3)] == [sub_t[i] for i in range(3)]

    class Stream(sud.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    class TStream(tud.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    for kw in [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)]:
        assert plain(list(sud.DataLoader(Stream(), **kw))) == plain(list(tud.DataLoader(TStream(), **kw)))
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        sud.DataLoader(Stream(), shuffle=True)
    with pytest.raises(NotImplementedError):
        sud.Dataset()[0]


@pytest.mark.parametrize("kwargs, message", [
    (dict(sampler=[0, 1], shuffle=True), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0, 1]], batch_size=2), "batch_sampler option is mutually exclusive"),
    (dict(batch_sampler=[[0, 1]], drop_last=True), "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "mutually exclusive with drop_last"),
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(batch_size=0), "batch_size should be a positive integer value"),
])
def test_dataloader_errors_match_torch(kwargs, message):
    data = list(range(4))
    with pytest.raises(ValueError, match=message):
        tud.DataLoader(data, **kwargs)
    with pytest.raises(ValueError, match=message):
        sud.DataLoader(data, **kwargs)


def test_random_split_errors_match_torch():
    for lengths in ([3, 3], [0.5, 0.6]):
        with pytest.raises(ValueError, match="Sum of input lengths"):
            tud.random_split(range(10), lengths)
        with pytest.raises(ValueError, match="Sum of input lengths"):
            sud.random_split(range(10), lengths)
