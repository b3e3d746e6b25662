"""The positional schemes across: each seqlab scheme and its torch twin of .positional, built from
the constructor arguments both keep (under one name, or derived the same way from either side:
the twins hold seqlab's attributes and submodules). Used by _convert.py for pos= of the attention
and the absolute schemes of the models. Tests: tests/test_to_torch.py, tests/test_to_torch_schemes.py."""
from ..nn import positional as SP
from . import positional as TP


# each positional scheme with a torch twin, and its constructor arguments: a name, read as the
# attribute of that name (a Dropout module stands for its p), or (name, read(module)) for an
# argument the module keeps in another form
_SCHEME_TWINS = [
    (SP.ALiBi, TP.ALiBi, ("num_heads",)),
    (SP.RoPE, TP.RoPE, ("head_dim", "base", "interleaved")),
    (SP.T5RelativeBias, TP.T5RelativeBias, ("num_heads", "num_buckets", "max_distance", "bidirectional")),
    (SP.KERPLE, TP.KERPLE, ("num_heads", "kernel")),
    (SP.ShawRelativePosition, TP.ShawRelativePosition,
     ("head_dim", "max_relative_position", ("values", lambda m: m.relative_value is not None))),
    (SP.TransformerXLRelativePosition, TP.TransformerXLRelativePosition, ("embed_dim", "num_heads", "base")),
    (SP.DeBERTaRelativePosition, TP.DeBERTaRelativePosition,
     ("embed_dim", "num_heads", "max_relative_position", "position_buckets", "share_att_key", "pos_att_type",
      ("norm_rel_ebd", lambda m: None if m.rel_norm is None else "layer_norm"),
      ("layer_norm_eps", lambda m: 1e-7 if m.rel_norm is None else m.rel_norm.eps))),
    (SP.DARelativePosition, TP.DARelativePosition, ("num_heads",)),
    (SP.SinusoidalPositionalEncoding, TP.SinusoidalPositionalEncoding, ("d_model", "dropout", "base", "batch_first")),
    (SP.LearnedPositionalEmbedding, TP.LearnedPositionalEmbedding, ("max_len", "d_model", "dropout", "batch_first")),
]


def _arguments(pos, names):
    args = {}
    for spec in names:
        name, read = spec if isinstance(spec, tuple) else (spec, None)
        value = getattr(pos, name) if read is None else read(pos)
        args[name] = getattr(value, "p", value)
    return args


def scheme(pos, owner, to_torch):
    """The other side's scheme for `pos` (None for none or NoPE); an error naming it if it has no twin."""
    if pos is None or type(pos) is SP.NoPE:
        return None
    for seqlab_cls, torch_cls, names in _SCHEME_TWINS:
        source, target = (seqlab_cls, torch_cls) if to_torch else (torch_cls, seqlab_cls)
        if type(pos) is source:
            return target(**_arguments(pos, names))
    if to_torch:
        raise NotImplementedError(f"to_torch: {owner} is a {type(pos).__name__}, which has no torch twin yet (every "
                                  "scheme of seqlab.nn.positional has one: NoPE, ALiBi, RoPE, T5RelativeBias, KERPLE, "
                                  "ShawRelativePosition, TransformerXLRelativePosition, DeBERTaRelativePosition, "
                                  "DARelativePosition and the absolute schemes)")
    raise NotImplementedError(f"from_torch: {owner} is a {type(pos).__name__}, which seqlab cannot convert")
