"""What an architecture's converter reads, checked as it reads it: the config's fields (Config)
and the checkpoint's tensors (Checkpoint). Every error names the file and the field or tensor, so
that a bad checkpoint is found before any weight reaches the model (nothing is half-loaded)."""
import numbers

_MISSING = object()


def _first(names):
    return names if isinstance(names, str) else names[0]


class Config:
    """config.json's fields, as attributes of `values`; get() and the checks name the file."""

    def __init__(self, values, path):
        self.values, self.path = values, path
        self.model_type = values.get("model_type")

    def get(self, names, default=_MISSING):
        """The field `names`: a name, or a tuple of a name and its aliases (Hugging Face configs
        rename fields, n_embd / hidden_size), the first present; else default; no default: an
        error naming the field."""
        names = (names,) if isinstance(names, str) else names
        for key in names:
            if key in self.values and self.values[key] is not None:
                return self.values[key]
        if default is _MISSING:
            raise ValueError(f"seqlab.hub: {self.path} has no {names[0]!r}, which a {self.model_type} model needs")
        return default

    def integer(self, names, default=_MISSING, low=1):
        value = self.get(names, default)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"seqlab.hub: {self.path}: {_first(names)} = {value!r} is not an integer >= {low}")
        return int(value)

    def number(self, names, default=_MISSING):
        value = self.get(names, default)
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"seqlab.hub: {self.path}: {_first(names)} = {value!r} is not a number")
        return float(value)

    def width_and_heads(self, width, heads):
        """(E, H): the model width and the attention heads, from the fields `width` and `heads`
        (names as get() takes them); E must be a multiple of H."""
        E, H = self.integer(width), self.integer(heads)
        if E % H:
            raise ValueError(f"seqlab.hub: {self.path}: {_first(width)} = {E} is not a multiple of "
                             f"{_first(heads)} = {H}")
        return E, H

    def width_heads_and_head_dim(self, width, heads, head_dim):
        """(E, H, D): the model width, the attention heads and each head's width, from the field
        `head_dim` when the config has it (T5's d_kv, Llama's head_dim: H·D need not be E), else
        E / H (then E must be a multiple of H)."""
        if self.get(head_dim, None) is None:
            E, H = self.width_and_heads(width, heads)
            return E, H, E // H
        return self.integer(width), self.integer(heads), self.integer(head_dim)

    def expect(self, name, supported, default=_MISSING, why=""):
        """The field, which must be one of `supported`: else an error saying what seqlab supports."""
        value = self.get(name, default)
        if value not in supported:
            raise NotImplementedError(
                f"seqlab.hub: {self.path}: {name} = {value!r} is not supported by seqlab's {self.model_type} "
                f"(supported: {', '.join(map(repr, supported))}){'; ' + why if why else ''}")
        return value


class Checkpoint:
    """The checkpoint's tensors {name: (array, file)}, taken one by one by the converter. A
    prefix that every name of some checkpoints carries (GPT2LMHeadModel's 'transformer.') is
    looked for with and without it; names matching `ignored` (buffers such as GPT-2's causal
    'attn.bias') are dropped."""

    def __init__(self, tensors, prefix="", ignored=()):
        self.tensors = dict(tensors)
        self.prefix = prefix
        for name in [n for n in self.tensors if any(n.endswith(s) for s in ignored)]:
            del self.tensors[name]

    def _key(self, name):
        for key in (self.prefix + name, name):
            if key in self.tensors:
                return key
        return None

    def has(self, name):
        return self._key(name) is not None

    def take(self, name, shape):
        """The tensor `name`, a floating-point array of the given shape (what the model expects)."""
        key = self._key(name)
        if key is None:
            files = sorted({f for _, f in self.tensors.values()}) or ["the checkpoint"]
            raise ValueError(f"seqlab.hub: {', '.join(files)} has no tensor {self.prefix + name!r}")
        array, path = self.tensors.pop(key)
        if tuple(array.shape) != tuple(shape):
            raise ValueError(f"seqlab.hub: {path}: tensor {key!r} has shape {tuple(array.shape)}, but the config "
                             f"asks for {tuple(shape)}")
        if array.dtype.kind != "f" and array.dtype.name != "bfloat16":  # (ml_dtypes' bfloat16 is kind "V")
            raise ValueError(f"seqlab.hub: {path}: tensor {key!r} is {array.dtype}, not a floating-point tensor")
        return array

    def discard(self, name):
        """Drop `name` if present (a tied head's copy of the embedding)."""
        key = self._key(name)
        if key is not None:
            del self.tensors[key]

    def discard_under(self, prefix):
        """Drop every tensor whose name starts with `prefix`: a part of the checkpoint that the
        seqlab model does not have and Hugging Face's model class does not load either."""
        for name in [n for n in self.tensors if n.startswith(prefix) or n.startswith(self.prefix + prefix)]:
            del self.tensors[name]

    def check_used(self, model_type):
        """Every tensor was taken: one left over is a part of the model seqlab would not load."""
        if self.tensors:
            name, (_, path) = next(iter(sorted(self.tensors.items())))
            raise ValueError(f"seqlab.hub: {path} holds {len(self.tensors)} tensor(s) that seqlab's {model_type} has "
                             f"no place for, e.g. {name!r} (a variant of the architecture seqlab does not support?)")
