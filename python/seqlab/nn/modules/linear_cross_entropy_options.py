"""torch.nn.modules.linear_cross_entropy_options: LinearCrossEntropyOptions, what turns on the chunked path
of F.linear_cross_entropy (rows in chunks, the (N, num_classes) logits never made), with torch's fields,
checks, "auto" choices and chunk-size rule (aspect_ratio). Tests: tests/test_linear_cross_entropy.py."""
import dataclasses

from ... import _core

__all__ = ["LinearCrossEntropyOptions"]

_dt = _core.dtype
_ACC_POLICIES = ("accurate", "balanced", "compact", "auto")
_ACC_DTYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
# "auto" on the CPU: (acc_policy, chunking_method) for 16-bit inputs, the fallback otherwise (torch's table)
_AUTO_16BIT = ("accurate", "aspect_ratio")
_AUTO_FALLBACK = ("compact", "aspect_ratio:2")


def _ceil_div(a, b):
    return -(-a // b)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How F.linear_cross_entropy chunks the batch (torch.nn.LinearCrossEntropyOptions).

    batch_chunk_size: rows per chunk (None: one chunk, or what chunking_method gives).
    chunking_method: "auto", None, "aspect_ratio" or "aspect_ratio:N": chunks whose (rows, num_classes)
    logits take about the memory of the (N, in_features) input, divided by N.
    acc_policy, acc_dtype: torch's precision/memory trade-offs of its GPU kernels; seqlab computes each chunk
    in the input's dtype (float16/bfloat16 in float32), so they are checked and resolved as torch's only.
    allow_retain_graph: for 'mean' and 'sum' the gradients are made with the loss; without it the backward
    hands them over and a second backward raises."""

    allow_retain_graph: bool = False
    batch_chunk_size: "int | None" = None
    chunking_method: "str | None" = "auto"
    acc_policy: str = "auto"
    acc_dtype: "object | None" = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, colon, factor = self.chunking_method.partition(":")
            if not (name == "aspect_ratio" and (not colon or (factor.isdigit() and int(factor) > 0))):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and not isinstance(size, bool) and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError("acc_dtype must be one of {None, seqlab.float16, seqlab.bfloat16, seqlab.float32, "
                             f"seqlab.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")

    def __repr__(self):
        def show(v):
            return str(v) if isinstance(v, _dt) else repr(v)
        fields = ", ".join(f"{f.name}={show(getattr(self, f.name))}" for f in dataclasses.fields(self))
        return f"{type(self).__name__}({fields})"

    @staticmethod
    def _compute_batch_chunk_size(num_batches, in_features, num_classes, method):
        # aspect_ratio[:k]: logits rows so that rows * num_classes ~ num_batches * in_features, the next
        # power of two, divided by k
        factor = int(method.partition(":")[2] or 1)
        target = _ceil_div(num_batches, _ceil_div(num_classes, in_features))
        return min((1 << (target - 1).bit_length()) // factor, num_batches)

    def _adjust(self, num_batches, in_features, num_classes, dtype, device=None):
        """These options with "auto" and None resolved for one call (torch's _adjust, on the CPU)."""
        policy, method = self.acc_policy, self.chunking_method
        if method == "auto" and self.batch_chunk_size is not None:
            method = None  # an explicit size wins over the automatic method
        reduced = dtype in (_dt.float16, _dt.bfloat16)
        auto_policy, auto_method = _AUTO_16BIT if reduced else _AUTO_FALLBACK
        policy = auto_policy if policy == "auto" else policy
        method = auto_method if method == "auto" else method
        size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if method is not None:
            size = self._compute_batch_chunk_size(num_batches, in_features, num_classes, method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != size:
                raise ValueError(f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method ('{method}') give "
                                 f"different chunk sizes ({self.batch_chunk_size} vs {size}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            acc_dtype = _dt.float32 if self.acc_policy == "auto" and reduced else dtype
        return dataclasses.replace(self, acc_policy=policy, chunking_method=method, batch_chunk_size=max(1, size),
                                   acc_dtype=acc_dtype)
