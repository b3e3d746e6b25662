"""Batching token ids: language-model streams cut into BPTT windows, and padded batches.

batchify / get_batch follow PyTorch's examples/word_language_model/main.py; pad_sequence
follows torch.nn.utils.rnn.pad_sequence. Tested in tests/test_data.py.
"""

import operator

import numpy as np

from .. import _tensor
from .._core import Tensor, from_numpy

__all__ = ["batchify", "get_batch", "BPTTBatches", "pad_sequence", "pad_collate", "PadCollate"]


def _positive(value, what, arg):
    """A positive int argument (NumPy integers too): TypeError for a non-int, ValueError below 1."""
    if isinstance(value, bool):
        raise TypeError(f"{what}: {arg} must be a positive integer, got {value!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: {arg} must be a positive integer, got {value!r}") from None
    if value < 1:
        raise ValueError(f"{what}: {arg} must be a positive integer, got {value!r}")
    return value


def _as_numpy(data):
    """A NumPy view or copy of a list, array or seqlab tensor."""
    if isinstance(data, Tensor):
        return data.detach().numpy()
    return np.asarray(data)


def _as_ids(data, what):
    """A 1-D int64 NumPy array of token ids."""
    arr = _as_numpy(data)
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a 1-D sequence of token ids, got shape {tuple(arr.shape)}")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"{what}: token ids must be integers, got {arr.dtype}")
    return arr.astype(np.int64, copy=False)


# ----------------------------------------------------------------------------- LM streams

def batchify(data, batch_size):
    """Cut one long stream of token ids into `batch_size` parallel streams: shape (N, B).

    Column b is the b-th contiguous piece of the stream, so reading down a column reads
    the text in order:

        data = [0 1 2 3 4 5 6 7 8 9], batch_size = 3  ->  [[0 3 6]
                                                           [1 4 7]
                                                           [2 5 8]]    (the 9 is dropped)

    Trailing ids that do not fill a row are dropped (N = len(data) // B), as in PyTorch's
    word_language_model. Returns a contiguous seqlab int64 tensor that owns its memory.
    """
    batch_size = _positive(batch_size, "batchify", "batch_size")
    ids = _as_ids(data, "batchify")
    n_rows = len(ids) // batch_size
    if n_rows == 0:
        raise ValueError(f"batchify: a stream of {len(ids)} tokens is too short for batch_size={batch_size}")
    # data.view(B, -1).t().contiguous() in the PyTorch example
    streams = ids[: n_rows * batch_size].reshape(batch_size, n_rows)
    return from_numpy(np.array(streams.T, order="C"))   # a copy, even when B = 1


def get_batch(source, i, bptt):
    """The BPTT window starting at row i of batchified `source` (N, B): (input, target).

    input  = source[i : i+T]        (T, B)
    target = source[i+1 : i+1+T]    (T, B): the next token of each input token
    with T = min(bptt, N - 1 - i), so the last window may be shorter. Both are views of
    `source` (PyTorch's example returns target.view(-1); reshape(-1) gives that form).
    """
    bptt = _positive(bptt, "get_batch", "bptt")
    try:
        i = operator.index(i)  # source[1.5:] would be a TypeError naming no one
    except TypeError:
        raise TypeError(f"get_batch: the start row i must be an int, got {type(i).__name__}") from None
    if len(source.shape) != 2:
        raise ValueError(f"get_batch: source must be batchified, shape (N, B), got {tuple(source.shape)}")
    n = source.shape[0]
    if not 0 <= i < n - 1:
        raise IndexError(f"get_batch: start row {i} is out of range for a source of {n} rows "
                         f"(valid: 0 <= i < {n - 1}, the last row has no next token)")
    seq_len = min(bptt, n - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


class BPTTBatches:
    """All BPTT windows of batchified `source`, in order: for input, target in BPTTBatches(src, 35).

    Yields get_batch(source, i, bptt) for i = 0, bptt, 2*bptt, ... < N - 1; len() is their number.
    """

    def __init__(self, source, bptt):
        bptt = _positive(bptt, "BPTTBatches", "bptt")
        if len(source.shape) != 2:
            raise ValueError(f"BPTTBatches: source must be batchified, shape (N, B), got {tuple(source.shape)}")
        self.source = source
        self.bptt = bptt

    def __len__(self):
        return max(0, -(-(self.source.shape[0] - 1) // self.bptt))

    def __iter__(self):
        for i in range(0, self.source.shape[0] - 1, self.bptt):
            yield get_batch(self.source, i, self.bptt)


# ----------------------------------------------------------------------------- padding

def pad_sequence(sequences, batch_first=False, padding_value=0):
    """Stack sequences of different lengths into one tensor, padding the short ones.

    sequences: lists, 1-D NumPy arrays or 1-D seqlab tensors. Returns (L, B), or (B, L) with
    batch_first=True, where L is the longest length; as torch.nn.utils.rnn.pad_sequence.
    Integers give int64; floats give float32 (float64 when every float input is a float64
    array or tensor); bools give bool.
    """
    sequences = list(sequences)
    return _pad([_as_numpy(s) for s in sequences], sequences, batch_first, padding_value,
                "pad_sequence")[0]


def pad_collate(batch, padding_value=0, batch_first=False):
    """Collate token-id sequences of different lengths: (padded, lengths, mask).

    padded:  int64 (L, B), or (B, L) with batch_first=True, filled with padding_value
    lengths: int64 (B,), the true length of each sequence
    mask:    bool, the shape of padded, True where a real token is (False on padding);
             PyTorch's key_padding_mask is its negation, True on padding.
    """
    batch = list(batch)
    arrays = [_as_numpy(s) for s in batch]
    padded, lengths = _pad(arrays, batch, batch_first, padding_value, "pad_collate")
    mask = np.arange(lengths.max(initial=0))[None, :] < lengths[:, None]   # (B, L)
    if not batch_first:
        mask = np.ascontiguousarray(mask.T)
    return padded, from_numpy(lengths), from_numpy(mask)


def _pad(arrays, originals, batch_first, padding_value, what):
    """(padded seqlab tensor, lengths as an int64 NumPy array)."""
    if not arrays:
        raise ValueError(f"{what}: received an empty list of sequences")
    for k, a in enumerate(arrays):
        if a.ndim != 1:
            raise ValueError(f"{what}: sequence {k} has shape {tuple(a.shape)}; expected 1-D")
    # an empty list has no dtype (NumPy would say float64); an empty array or tensor has its own
    kinds = {a.dtype.kind for a, s in zip(arrays, originals) if a.size or isinstance(s, (np.ndarray, Tensor))}
    if kinds <= {"i", "u"}:
        dtype = np.int64
    elif kinds <= {"i", "u", "f"}:
        float64_inputs = [isinstance(s, (np.ndarray, Tensor)) and a.dtype == np.float64
                          for s, a in zip(originals, arrays) if a.dtype.kind == "f" and a.size]
        dtype = np.float64 if all(float64_inputs) else np.float32
    elif kinds == {"b"}:
        dtype = np.bool_
    else:
        raise TypeError(f"{what}: cannot pad sequences of dtypes {sorted({str(a.dtype) for a in arrays})}")
    lengths = np.array([len(a) for a in arrays], dtype=np.int64)
    _check_padding(padding_value, dtype, what)
    out = np.full((len(arrays), lengths.max()), padding_value, dtype=dtype)
    for b, a in enumerate(arrays):
        out[b, :len(a)] = a
    return from_numpy(out if batch_first else np.ascontiguousarray(out.T)), lengths


_SEQLAB_DTYPE = {np.int64: "int64", np.float32: "float32", np.float64: "float64", np.bool_: "bool"}


def _check_padding(value, dtype, what):
    """padding_value must be a number that fits the padded dtype, as torch's fill requires (TypeError
    for a non-number, torch's overflow RuntimeError for NaN, inf or 2**63 into int64); NumPy would
    raise OverflowError or ValueError, or wrap around."""
    try:
        _tensor.full((), value, dtype=getattr(_tensor, _SEQLAB_DTYPE[dtype]))
    except (TypeError, RuntimeError) as e:
        raise type(e)(f"{what}: padding_value {value!r}: {e}") from None


class PadCollate:
    """pad_collate with fixed options, to pass as a DataLoader's collate_fn:

        loader = DataLoader(sequences, batch_size=32, collate_fn=PadCollate(vocab.pad_index))
        for padded, lengths, mask in loader: ...
    """

    def __init__(self, padding_value=0, batch_first=False):
        self.padding_value = padding_value
        self.batch_first = batch_first

    def __call__(self, batch):
        return pad_collate(batch, padding_value=self.padding_value, batch_first=self.batch_first)

    def __repr__(self):
        return f"PadCollate(padding_value={self.padding_value}, batch_first={self.batch_first})"
