"""torch.nn.utils.rnn: variable-length batches for the recurrent layers (PackedSequence,
pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence and their inverses),
with torch's names, arguments, results and errors. Tests: tests/test_packed_sequence.py.

A packed batch holds the valid rows of a padded (T, B, *) batch time-major: step 0 of every
sequence, then step 1 of those at least 2 long, ... with the sequences sorted by decreasing
length, so that batch_sizes[t], the number of sequences still running at step t, is
non-increasing and the running ones are always the first batch_sizes[t] rows of step t.

Every function here moves rows with one `index_select` whose index tensor is computed from
the lengths (on the CPU, with NumPy: lengths are plain integers, not part of the graph), so
gradients flow through packing and padding and there is no Python loop over time steps.
Padding positions read one extra constant row appended to the data (torch writes into a
tensor filled with padding_value; the gradient is the same: nothing flows to padding).
"""
from collections import namedtuple
from collections.abc import Iterable

import numpy as np

from ... import _args, _core
from ..._core import Tensor
from ..._tensor import int64, full, tensor

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
    "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence",
]


def _index(rows):
    """A NumPy array of row numbers as a 1-D int64 seqlab tensor."""
    return tensor(np.ascontiguousarray(rows, dtype=np.int64).reshape(-1))


def _ints(t):
    """A 1-D int64 tensor (or None) as a NumPy array."""
    return t.detach().numpy().astype(np.int64, copy=False)


# ------------------------------------------------------------------ PackedSequence
class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """A packed batch of variable-length sequences (torch.nn.utils.rnn.PackedSequence).

    data: (sum(batch_sizes), *) the valid rows, time-major, sequences sorted by length;
    batch_sizes: (T,) int64 CPU tensor, how many sequences are running at each step;
    sorted_indices: (B,) int64 or None, column b of the sorted batch is sequence
        sorted_indices[b] of the original batch (None: the batch was sorted already);
    unsorted_indices: its inverse, computed from sorted_indices when not given.

    Made by pack_padded_sequence / pack_sequence rather than by hand. The recurrent layers
    take one and return one with the same batch_sizes and indices; they permute a given
    h0 into sorted order with hx.index_select(1, sorted_indices) and h_n back with
    unsorted_indices, as torch's do."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        else:  # torch keeps both unchecked; an entry out of range would index past the batch later
            for indices in (sorted_indices, unsorted_indices):
                if indices is not None:
                    _check_indices(_ints(indices))
        if batch_sizes is None:  # PackedSequence((data, batch_sizes)), as torch allows
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """Converts data as Tensor.to does; returns self when nothing changes (indices and
        batch_sizes stay: seqlab has only the CPU)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def float(self):
        return self.to(dtype=_core.dtype.float32)

    def double(self):
        return self.to(dtype=_core.dtype.float64)

    def long(self):
        return self.to(dtype=int64)

    def cpu(self, *args, **kwargs):
        return self

    def cuda(self, *args, **kwargs):
        return self.to("cuda")  # refused by Tensor.to with seqlab's CPU-only error

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _check_indices(perm):
    """Every entry of a permutation of 0 .. n-1 lies in [0, n): torch's error (from its scatter_)
    for the first that does not (a negative one does not count from the end)."""
    bad = perm[(perm < 0) | (perm >= perm.size)]
    if bad.size:
        raise RuntimeError(f"index {int(bad[0])} is out of bounds for dimension 0 with size {perm.size}")


def invert_permutation(permutation):
    """The inverse of a 1-D int64 permutation (None for None)."""
    if permutation is None:
        return None
    perm = _ints(permutation)
    _check_indices(perm)
    inverse = np.empty_like(perm)
    inverse[perm] = np.arange(perm.size)
    return _index(inverse)


# ------------------------------------------------------------------ pack
def _lengths_array(lengths):
    """lengths (a list, NumPy array or tensor) as a 1-D int64 NumPy array, as torch converts
    them (`as_tensor(lengths, dtype=int64)`; a tensor is cast with .to(int64))."""
    if isinstance(lengths, Tensor):
        arr = lengths.detach().to(int64).numpy()
    else:
        arr = np.asarray(lengths)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"pack_padded_sequence(): lengths must be a list of ints or a tensor, got {lengths!r}")
        arr = arr.astype(np.int64)
    if arr.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {arr.ndim}D cpu Long tensor")
    return arr


def _check_sorted_lengths(lengths, batch_size, seq_len):
    """torch's checks in _pack_padded_sequence, in its order, plus one torch lacks: a length
    beyond the padded sequence (torch reads past the input's end there)."""
    if lengths.size != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.size} "
                           f"(batch_size={batch_size})")
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if lengths[0] > seq_len:
        raise RuntimeError(f"pack_padded_sequence: found a length of {int(lengths[0])} in 'lengths', longer than "
                           f"the input's sequence length {seq_len}; every length must be at most the padded "
                           "sequence length")


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch: input (T, B, *) (batch_first: (B, T, *)), lengths (B,), each in
    [1, T]. With enforce_sorted=True the lengths must be non-increasing; otherwise the batch
    is sorted here and sorted_indices records how."""
    lengths = _lengths_array(lengths)
    if enforce_sorted:
        sorted_indices = None
        order = np.arange(lengths.size)
    else:
        # torch.sort(descending=True) is not stable; a stable sort of -lengths gives the
        # same permutation for distinct lengths and keeps ties in their original order.
        order = np.argsort(-lengths, kind="stable")
        lengths = lengths[order]
        sorted_indices = _index(order)
    time_dim, batch_dim = (1, 0) if batch_first else (0, 1)
    batch_size = input.size(batch_dim)
    seq_len = input.size(time_dim)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    _check_sorted_lengths(lengths, batch_size, seq_len)

    # running[t, b]: sorted sequence b has a step t. Its rows, taken in row-major (t, b)
    # order, are exactly the packed order; each comes from original column order[b].
    steps = np.arange(lengths[0])
    running = steps[:, None] < lengths[None, :]
    t, b = np.nonzero(running)
    src = order[b] * seq_len + t if batch_first else t * batch_size + order[b]
    data = input.flatten(0, 1).index_select(0, _index(src))
    batch_sizes = _index(running.sum(axis=1))
    return PackedSequence(data, batch_sizes, sorted_indices, None)


# ------------------------------------------------------------------ pad
def _with_padding_row(data, padding_value):
    """data (N, *) with one more row of padding_value at the end, index N. The value is
    cast to data's dtype as torch's new_full casts it (-1.5 pads an int64 tensor with -1;
    NaN, inf or a value past int64 is torch's RuntimeError)."""
    if data.dtype == int64:
        padding_value = float(padding_value)  # torch's padding_value is a float
        if not -2.0**63 <= padding_value < 2.0**63:  # (False for NaN)
            raise RuntimeError(f"value cannot be converted to type int64_t without overflow (padding_value="
                               f"{padding_value} for an int64 sequence)")
        padding_value = int(padding_value)
    elif data.dtype == _core.dtype.bool:
        padding_value = bool(padding_value)
    pad = full([1] + list(data.shape[1:]), padding_value, dtype=data.dtype)
    return _core.cat([data, pad], 0)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of pack_padded_sequence: returns (padded (T, B, *) or (B, T, *), lengths (B,)
    int64), the batch in its original order, T = total_length or the longest length."""
    batch_sizes = _ints(sequence.batch_sizes)
    max_seq_length = batch_sizes.size
    if total_length is not None:
        total_length = _args.index(total_length, "pad_packed_sequence", "total_length")
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    batch_size = int(batch_sizes[0]) if batch_sizes.size else 0
    data = sequence.data
    n_rows = data.size(0)

    # Sorted sequence s has lengths[s] steps; its step t sits at row offset[t] + s.
    lengths = (batch_sizes[None, :] > np.arange(batch_size)[:, None]).sum(axis=1)
    offset = np.concatenate([[0], np.cumsum(batch_sizes)])
    unsorted = np.arange(batch_size) if sequence.unsorted_indices is None else _ints(sequence.unsorted_indices)
    # Output column j is sorted column unsorted[j] (torch: index_select(batch_dim, unsorted_indices)).
    t = np.arange(max_seq_length)[:, None]                       # (T, 1)
    s = unsorted[None, :]                                        # (1, B)
    valid = t < lengths[s]
    rows = np.where(valid, offset[np.minimum(t, batch_sizes.size)] + s, n_rows)  # (T, B); n_rows: padding
    if batch_first:
        rows = rows.T
    padded = _with_padding_row(data, padding_value).index_select(0, _index(rows))
    padded = padded.view(list(rows.shape) + list(data.shape[1:]))
    return padded, _index(lengths[unsorted])


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shapes (L_i, *) into (T, B, *) (batch_first: (B, T, *)), T = max L_i,
    filling with padding_value after each sequence (padding_side='left': before it)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = list(sequences[0].shape[1:])
    for seq in sequences[1:]:
        shape = list(seq.shape[1:])
        if shape != trailing:
            if len(shape) == len(trailing):
                d = next(i for i in range(len(shape)) if shape[i] != trailing[i])
                raise RuntimeError(f"The size of tensor a ({trailing[d]}) must match the size of tensor b "
                                   f"({shape[d]}) at non-singleton dimension {d + 1}")
            raise RuntimeError(f"pad_sequence: every sequence must have the trailing shape {trailing} of the first, "
                               f"got a sequence of shape {list(seq.shape)}")
    lengths = np.array([seq.size(0) for seq in sequences], dtype=np.int64)
    max_len = int(lengths.max())
    start = np.concatenate([[0], np.cumsum(lengths)[:-1]])   # each sequence's first row in the cat
    n_rows = int(lengths.sum())

    t = np.arange(max_len)[:, None]                          # (T, 1)
    first = 0 if padding_side == "right" else max_len - lengths  # (B,) the step where each begins
    step = t - first                                         # (T, B) the sequence's own step
    valid = (step >= 0) & (step < lengths)
    rows = np.where(valid, start + step, n_rows)
    if batch_first:
        rows = rows.T
    flat = _core.cat([seq.reshape([seq.size(0)] + trailing) for seq in sequences], 0)
    padded = _with_padding_row(flat, padding_value).index_select(0, _index(rows))
    return padded.view(list(rows.shape) + trailing)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Inverse of pad_sequence: the list of padded_sequences' B sequences cut to lengths.
    (torch transposes a time-major input in place here; seqlab leaves it unchanged.)"""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    lengths = _lengths_array(lengths)
    return [padded_sequences[b].narrow(0, 0, int(n)) for b, n in enumerate(lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (L_i, *): pad_sequence, then pack_padded_sequence."""
    lengths = [seq.size(0) for seq in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Inverse of pack_sequence: the list of sequences, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
