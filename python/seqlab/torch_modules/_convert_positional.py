"""The positional schemes across: each seqlab scheme and its torch twin of .positional, built from
the constructor arguments both keep under one name. Used by _convert.py for pos= of the attention
and the absolute schemes of the models. Tests: tests/test_to_torch.py."""
from ..nn import positional as SP
from . import positional as TP

# each positional scheme with a torch twin, and the constructor arguments both keep under one name
# (a Dropout module stands for its p)
_SCHEME_TWINS = [
    (SP.ALiBi, TP.ALiBi, ("num_heads",)),
    (SP.RoPE, TP.RoPE, ("head_dim", "base", "interleaved")),
    (SP.T5RelativeBias, TP.T5RelativeBias, ("num_heads", "num_buckets", "max_distance", "bidirectional")),
    (SP.SinusoidalPositionalEncoding, TP.SinusoidalPositionalEncoding, ("d_model", "dropout", "base", "batch_first")),
    (SP.LearnedPositionalEmbedding, TP.LearnedPositionalEmbedding, ("max_len", "d_model", "dropout", "batch_first")),
]


def scheme(pos, owner, to_torch):
    """The other side's scheme for `pos` (None for none or NoPE); an error naming it if it has no twin."""
    if pos is None or type(pos) is SP.NoPE:
        return None
    for seqlab_cls, torch_cls, names in _SCHEME_TWINS:
        source, target = (seqlab_cls, torch_cls) if to_torch else (torch_cls, seqlab_cls)
        if type(pos) is source:
            return target(*(getattr(getattr(pos, n), "p", getattr(pos, n)) for n in names))
    if to_torch:
        raise NotImplementedError(f"to_torch: {owner} is a {type(pos).__name__}, which has no torch twin yet (ALiBi, "
                                  "RoPE, T5RelativeBias, NoPE and the absolute schemes do)")
    raise NotImplementedError(f"from_torch: {owner} is a {type(pos).__name__}, which seqlab cannot convert")
