"""torch.nn.modules.flatten: Flatten, a view of dims start_dim..end_dim as one, and Unflatten, its
inverse (a view of one dim as several). Tests: tests/test_nn_layers.py, tests/test_nn_modules_more.py."""
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dims start_dim..end_dim into one (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Unflattens dim into the dims of unflattened_size, a tuple or list of ints (one may be -1):
    (N, 12) -> (N, 3, 4) for Unflatten(1, (3, 4)); a view (seqlab.unflatten). seqlab has no named
    tensors, so dim must be an int."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise NotImplementedError("Unflatten: a named dim needs named tensors, which seqlab does not have")
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input):
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                    f"{type(elem).__name__} at pos {idx}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}")

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
