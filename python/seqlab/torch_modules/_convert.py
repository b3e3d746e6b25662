"""seqlab.to_torch(module) and seqlab.from_torch(module): the same model, with the same parameters,
as a torch.nn.Module, and back.

A seqlab layer that torch.nn has (Linear, LSTM, MultiheadAttention, TransformerEncoderLayer, the
losses, the containers, ...) becomes torch's own class, built from the same constructor arguments
(seqlab's modules keep them under torch's attribute names) with the state dict copied in. A layer
with seqlab's own options, or a seqlab model torch has no class for, becomes its torch twin of
seqlab.torch_modules (MultiheadAttention with pos / scale / num_key_value_heads / head_dim,
TransformerEncoderLayer with rms_norm / glu, TransformerLM, the positional schemes), whose
parameters carry seqlab's names. from_torch reverses both. share=True makes the torch parameters
views of seqlab's memory (DLPack) instead of copies. A module with no converter is an error naming
it. Tests: tests/test_to_torch.py."""
import dataclasses
import inspect
import warnings

import torch

from .. import _core
from .. import nn as snn
from ..nn import functional as SF
from ..nn.modules.lazy import LazyModuleMixin
from ..nn.parameter import is_lazy
from ..nn import positional as SP
from . import positional as TP
from ._convert_positional import scheme as _scheme
from ._convert_user import is_converted_user_module, is_user_module, user_module_from_torch, user_module_to_torch
from . import recurrent as TR
from . import encoder_decoder as ED
from . import transformer as TT

__all__ = ["to_torch", "from_torch"]

# constructor arguments that are not module state: factory kwargs, torch's deprecated ones
_SKIP = {"device", "dtype", "size_average", "reduce", "_weight", "_freeze", "custom_encoder", "custom_decoder"}
# seqlab's own options of layers torch has (a layer that uses one becomes a torch twin instead)
_SEQLAB_OPTIONS = {"pos", "scale", "num_key_value_heads", "head_dim", "rms_norm", "glu"}


def _dtype(module):
    for t in list(module.parameters()) + list(module.buffers()):
        if t is not None and t.is_floating_point():
            return t.dtype
    return None


def _torch_dtype(seqlab_dtype):
    return None if seqlab_dtype is None else getattr(torch, str(seqlab_dtype).split(".")[-1])


def _seqlab_dtype(torch_dtype):
    return None if torch_dtype is None else getattr(_core.dtype, str(torch_dtype).split(".")[-1])


# arguments a module keeps under another name (the same on both sides)
_DERIVED = {"MultiheadAttention": {"bias": lambda m: m.in_proj_bias is not None,
                                   "add_bias_kv": lambda m: m.bias_k is not None},
            "PairwiseDistance": {"p": lambda m: m.norm},
            "AdaptiveLogSoftmaxWithLoss": {"cutoffs": lambda m: list(m.cutoffs[:-1])},  # (both keep n_classes last)
            "TripletMarginWithDistanceLoss": {"distance_function": lambda m: _distance_function(m.distance_function)},
            "LinearCrossEntropyLoss": {"in_features": lambda m: m.linear.in_features,
                                       "bias": lambda m: m.linear.bias is not None,
                                       "options": lambda m: _linear_cross_entropy_options(m.options)}}


def _linear_cross_entropy_options(options):
    """A LinearCrossEntropyOptions as the other side's (the same fields, acc_dtype by name); None stays None."""
    if options is None:
        return None
    to_torch = isinstance(options, snn.LinearCrossEntropyOptions)
    fields = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    if fields["acc_dtype"] is not None:
        fields["acc_dtype"] = getattr(torch if to_torch else _core.dtype, str(fields["acc_dtype"]).split(".")[-1])
    return (torch.nn.LinearCrossEntropyOptions if to_torch else snn.LinearCrossEntropyOptions)(**fields)


def _distance_function(fn):
    """A TripletMarginWithDistanceLoss's distance: a module converted to the other side, a function kept."""
    if isinstance(fn, snn.Module):
        return _to_torch(fn, "distance_function")
    if isinstance(fn, torch.nn.Module):
        return _from_torch(fn, "distance_function")
    return fn


def _native_args(src, signature_of, owner, tensor):
    """The constructor arguments of the class `signature_of` read from the module `src`: each an
    attribute of its name (torch's modules and seqlab's keep them so); a bias tensor-or-None as a
    bool; another tensor (a loss's class weights) converted by `tensor` to the other side's."""
    args = {}
    derived = _DERIVED.get(type(src).__name__, {})
    for name, p in inspect.signature(signature_of.__init__).parameters.items():
        if name == "self" or name in _SKIP or name in _SEQLAB_OPTIONS or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if name in derived:
            args[name] = derived[name](src)
        elif hasattr(src, name):
            value = getattr(src, name)
            if name == "bias" and not isinstance(value, bool):
                value = value is not None
            elif value is not None and hasattr(value, "__dlpack__"):
                value = tensor(value)
            args[name] = value
        elif p.default is inspect.Parameter.empty:
            raise TypeError(f"{owner}: {type(src).__name__} has no attribute {name!r} to build the other side's "
                            f"{signature_of.__name__} from")
    return args


# ------------------------------------------------------------------------------------- to torch

def _activation_to_torch(fn, owner):
    if fn is SF.relu or fn is _core.relu or fn == "relu":  # F.relu or seqlab.relu
        return torch.nn.functional.relu
    if fn is SF.gelu or fn == "gelu":
        return torch.nn.functional.gelu
    if fn is SF.silu:
        return torch.nn.functional.silu
    if isinstance(fn, snn.Module):
        return _to_torch(fn, owner + ".activation")
    raise TypeError(f"to_torch: {owner}'s activation {fn!r} has no torch counterpart (relu, gelu, silu or a module)")


def _scheme_to_torch(pos, owner):
    return _scheme(pos, owner, True)


def _has_seqlab_options(attn):
    return attn.pos is not None or attn.scale is not None or attn.num_key_value_heads != attn.num_heads or \
        attn.head_dim * attn.num_heads != attn.embed_dim


def _mha_twin_args(m, owner):
    if m.bias_k is not None or m.add_zero_attn or not m._qkv_same_embed_dim:
        raise NotImplementedError(f"to_torch: {owner} combines seqlab's attention options with add_bias_kv, "
                                  "add_zero_attn or kdim/vdim, which the torch twin does not take")
    return dict(embed_dim=m.embed_dim, num_heads=m.num_heads, dropout=m.dropout, bias=m.in_proj_bias is not None,
                batch_first=m.batch_first, pos=_scheme_to_torch(m.pos, owner + ".pos"), scale=m.scale,
                num_key_value_heads=m.num_key_value_heads, head_dim=m.head_dim)


def _layer_args(m, owner, activation=None):
    """TransformerEncoderLayer / DecoderLayer arguments (torch's names, the same on both sides) of
    either side's layer m; activation: the converter of its activation (default: to torch)."""
    return dict(d_model=m.self_attn.embed_dim, nhead=m.self_attn.num_heads, dim_feedforward=m.linear1.out_features,
                dropout=m.dropout.p, activation=(activation or _activation_to_torch)(m.activation, owner),
                layer_norm_eps=m.norm1.eps, batch_first=m.self_attn.batch_first, norm_first=m.norm_first,
                bias=m.linear1.bias is not None)


def _encoder_layer_needs_twin(m):
    """Whether a TransformerEncoderLayer uses what torch's layer does not have."""
    return _has_seqlab_options(m.self_attn) or m.linear3 is not None or isinstance(m.norm1, snn.RMSNorm) or \
        m.activation not in (SF.relu, _core.relu, SF.gelu)


def _layer_twin(m, owner, twin_cls):
    """The torch twin (an encoder or decoder layer class of seqlab.torch_modules) of a seqlab layer."""
    a = _mha_twin_args(m.self_attn, owner + ".self_attn")
    return twin_cls(**_layer_args(m, owner), pos=a["pos"], scale=a["scale"],
                    num_key_value_heads=a["num_key_value_heads"], head_dim=a["head_dim"],
                    rms_norm=isinstance(m.norm1, snn.RMSNorm), glu=m.linear3 is not None)


def _encoder_layer_to_torch(m, owner):
    if not _encoder_layer_needs_twin(m):
        return torch.nn.TransformerEncoderLayer(**_layer_args(m, owner))
    return _layer_twin(m, owner, TT.TransformerEncoderLayer)


def _decoder_layer_to_torch(m, owner):
    if not _encoder_layer_needs_twin(m):  # (the cross-attention has the self-attention's options but pos)
        return torch.nn.TransformerDecoderLayer(**_layer_args(m, owner))
    return _layer_twin(m, owner, ED.TransformerDecoderLayer)


def _layers_to_torch(layers, owner, twin_cls=None):
    """Each layer converted on its own (a stack's layers may differ, e.g. NoPE in every other one):
    torch's class where it has the layer, or with twin_cls always that twin."""
    return torch.nn.ModuleList([_to_torch(layer, f"{owner}.{i}") if twin_cls is None else
                                _layer_twin(layer, f"{owner}.{i}", twin_cls) for i, layer in enumerate(layers)])


def _layers_from_torch(layers, owner):
    return snn.ModuleList([_from_torch(layer, f"{owner}.{i}") for i, layer in enumerate(layers)])


def _stack_to_torch(m, owner, twin=False):
    """A seqlab TransformerEncoder / Decoder: torch's when all its layers become torch's, else (or
    with twin) the twin stack; each layer converted on its own."""
    decoder = type(m) is snn.TransformerDecoder
    twin_cls = (ED.TransformerDecoderLayer if decoder else TT.TransformerEncoderLayer) if twin else None
    layers = _layers_to_torch(m.layers, owner + ".layers", twin_cls)
    torchs = all(type(layer) in (torch.nn.TransformerEncoderLayer, torch.nn.TransformerDecoderLayer)
                 for layer in layers)
    norm = None if m.norm is None else _to_torch(m.norm, owner + ".norm")
    if decoder:
        out = (torch.nn.TransformerDecoder if torchs else ED.TransformerDecoder)(layers[0], m.num_layers, norm)
    else:
        out = (torch.nn.TransformerEncoder if torchs else ED.TransformerEncoder)(
            layers[0], m.num_layers, norm, enable_nested_tensor=m.enable_nested_tensor, mask_check=m.mask_check)
    out.layers = layers
    return out


def _positional_to_torch(positional, owner):
    """A model's absolute positions: a scheme's twin, or a table (an Embedding) converted."""
    if isinstance(positional, snn.Module) and not isinstance(positional, SP._Absolute):
        return _to_torch(positional, owner)
    return _scheme_to_torch(positional, owner)


def _transformer_lm_to_torch(m, owner):
    block = m.layers[0]
    positional = _positional_to_torch(m.positional, owner + ".positional")
    a = _mha_twin_args(block.self_attn, owner + ".layers.0.self_attn")
    out = TT.TransformerLM(
        m.vocab_size, m.d_model, m.nhead, m.num_layers, m.dim_feedforward, m.drop.p,
        _activation_to_torch(block.activation, owner + ".layers.0"), positional,
        tie_weights=m.lm_head.weight is m.tok_emb.weight, layer_norm_eps=block.norm1.eps,
        bias=block.linear1.bias is not None, pos=a["pos"], scale=m.scale, embedding_norm=m.embedding_norm is not None,
        num_key_value_heads=a["num_key_value_heads"], rms_norm=isinstance(m.ln_f, snn.RMSNorm),
        glu=block.linear3 is not None, head_dim=a["head_dim"])
    out.layers = _layers_to_torch(m.layers, owner + ".layers", TT.TransformerEncoderLayer)
    return out


# the converters of the twins' own conversion modules (_convert_*.py), by exact class: seqlab's ->
# fn(m, owner) returning the torch module, and torch's -> fn(m, owner) returning seqlab's
_TO_TORCH, _FROM_TORCH = {}, {}


def register(seqlab_cls, torch_cls, to_torch, from_torch):
    """seqlab_cls becomes torch_cls by to_torch(m, owner), and back by from_torch(m, owner); each
    converts its children with _to_torch / _from_torch (owner: the dotted path for errors)."""
    _TO_TORCH[seqlab_cls], _FROM_TORCH[torch_cls] = to_torch, from_torch


def _to_torch(m, owner):
    name = type(m).__name__
    if type(m) in _TO_TORCH:
        return _TO_TORCH[type(m)](m, owner)
    if type(m) in (snn.Sequential, snn.ModuleList):
        children = [_to_torch(c, f"{owner}.{i}") for i, c in enumerate(m)]
        return torch.nn.Sequential(*children) if type(m) is snn.Sequential else torch.nn.ModuleList(children)
    if type(m) is snn.ModuleDict:
        return torch.nn.ModuleDict({k: _to_torch(c, f"{owner}.{k}") for k, c in m.items()})
    if type(m) is snn.Container:  # (deprecated on both sides: its children are keyword arguments)
        return torch.nn.Container(**{k: _to_torch(c, f"{owner}.{k}") for k, c in m.named_children()})
    if type(m) in (snn.ParameterList, snn.ParameterDict):  # their entries: tensors (as Parameters) or any object
        def entry(v):
            return torch.nn.Parameter(torch.from_dlpack(v.detach()).clone(), v.requires_grad) \
                if isinstance(v, _core.Tensor) else v
        if type(m) is snn.ParameterList:
            return torch.nn.ParameterList([entry(v) for v in m])
        return torch.nn.ParameterDict({k: entry(v) for k, v in m.items()})
    if type(m) is snn.TransformerLM:
        return _transformer_lm_to_torch(m, owner)
    if type(m) is snn.RNNLM:
        return TR.RNNLM(_to_torch(m.embedding, owner + ".embedding"), _to_torch(m.rnn, owner + ".rnn"), m.drop.p,
                        _to_torch(m.decoder, owner + ".decoder"), tie_weights=m.decoder.weight is m.embedding.weight)
    if type(m) is snn.MultiheadAttention and _has_seqlab_options(m):
        return TT.MultiheadAttention(**_mha_twin_args(m, owner))
    if type(m) is snn.TransformerEncoderLayer:
        return _encoder_layer_to_torch(m, owner)
    if type(m) is snn.TransformerDecoderLayer:
        return _decoder_layer_to_torch(m, owner)
    if type(m) in (snn.TransformerEncoder, snn.TransformerDecoder):
        return _stack_to_torch(m, owner)
    if type(m) is snn.Transformer:  # (its stacks converted on their own: twin stacks where a layer needs one)
        layer = m.encoder.layers[0]
        out = torch.nn.Transformer(m.d_model, m.nhead, len(m.encoder.layers), len(m.decoder.layers),
                                   **{k: v for k, v in _layer_args(layer, owner).items() if k not in ("d_model", "nhead")})
        out.encoder, out.decoder = _to_torch(m.encoder, owner + ".encoder"), _to_torch(m.decoder, owner + ".decoder")
        return out
    if type(m).__module__.startswith("seqlab.nn") and hasattr(torch.nn, name) and name in snn.__all__:
        return getattr(torch.nn, name)(**_native_args(m, type(m), owner, lambda t: torch.from_dlpack(t.detach()).clone()))
    if type(m) in (SP.SinusoidalPositionalEncoding, SP.LearnedPositionalEmbedding):
        return _scheme_to_torch(m, owner)
    if is_user_module(m):
        return user_module_to_torch(m, owner, _to_torch)
    raise NotImplementedError(f"to_torch: {owner} is a {name}, which has no torch counterpart in seqlab yet")


def _share_as(src, out):
    """Make `out`'s submodules and parameters one object wherever `src`'s are (a head tied to the
    embedding, one relative table for every layer, shared source and target embeddings): a
    converter builds each name's own, and both sides name their state alike."""
    def set_at(root, name, value):
        parent, _, leaf = name.rpartition(".")
        setattr(root.get_submodule(parent) if parent else root, leaf, value)

    first = {}
    for name, mod in src.named_modules(remove_duplicate=False):
        stateless = not any(True for _ in mod.parameters()) and not any(True for _ in mod.buffers())
        if id(mod) in first and name and not stateless:  # (a stateless one, an activation, need not be one)
            set_at(out, name, out.get_submodule(first[id(mod)]))
        first.setdefault(id(mod), name)
    first = {}
    for name, p in src.named_parameters(remove_duplicate=False):
        if id(p) in first:
            set_at(out, name, out.get_parameter(first[id(p)]))
        first.setdefault(id(p), name)


def _refuse_hooks(module, owner, direction):
    """A hook is code of the user's own that the converted module would silently not run: an error
    naming the module (register it again on the converted one)."""
    kinds = {"_forward_pre_hooks": "forward pre-hook", "_forward_hooks": "forward hook",
             "_backward_pre_hooks": "backward pre-hook", "_backward_hooks": "backward hook"}
    for name, mod in module.named_modules():
        lazy = isinstance(mod, (torch.nn.modules.lazy.LazyModuleMixin, LazyModuleMixin))  # (their own hook infers
        # the shapes)
        for attr, kind in kinds.items():
            if getattr(mod, attr, None) and not (lazy and attr == "_forward_pre_hooks"):
                raise NotImplementedError(f"{direction}: {owner}{'.' + name if name else ''} has a {kind}, which the "
                                          "converted module would not run; remove it and register it again on the "
                                          "converted module")


def _carry_modes(src, out):
    """Each submodule's training mode and each parameter's requires_grad, as src's (by name: both
    sides name them alike)."""
    modules = dict(out.named_modules())
    for name, mod in src.named_modules():
        if name in modules:
            modules[name].training = mod.training
    params = dict(out.named_parameters())
    for name, p in src.named_parameters():
        if name in params and params[name].requires_grad != p.requires_grad:  # (an uninitialised one: as made)
            params[name].requires_grad_(p.requires_grad)


def _build(module, owner, direction, convert, other_dtype):
    """The other side's module for `module`, before its state is loaded: hooks refused, converted,
    shared where module's parts are, in module's dtype (the same steps both ways)."""
    _refuse_hooks(module, owner, direction)
    with warnings.catch_warnings():  # (building a stack repeats the note its user saw when building theirs)
        warnings.filterwarnings("ignore", message="enable_nested_tensor is True")
        out = convert(module, owner)
    _share_as(module, out)
    dtype = other_dtype(_dtype(module))
    return out if dtype is None else out.to(dtype)


def to_torch(module, share=False):
    """The torch.nn.Module computing what the seqlab `module` computes, with its parameters and
    buffers (copies; share=True: views of seqlab's memory through DLPack), in its dtype and mode."""
    owner = type(module).__name__
    out = _build(module, owner, "to_torch", _to_torch, _torch_dtype)
    # (a lazy module's uninitialised parameters stay torch's uninitialised ones: both take their shape on first use)
    state = {k: torch.from_dlpack(v.detach()) for k, v in module.state_dict().items()
             if v is not None and not is_lazy(v)}
    missing, unexpected = out.load_state_dict(state if share else {k: v.clone() for k, v in state.items()},
                                              strict=False)
    mine = out.state_dict(keep_vars=True)
    missing = [k for k in missing if not torch.nn.parameter.is_lazy(mine[k])]
    if missing or unexpected:  # a converter bug: the two sides must have the same state
        raise RuntimeError(f"to_torch: the torch {type(out).__name__} made for {owner} differs in its state: missing "
                           f"{missing[:3]}, unexpected {unexpected[:3]}")
    if share:
        with torch.no_grad():
            for name, p in out.named_parameters():
                p.data = state[name]
    _carry_modes(module, out)
    return out


# ----------------------------------------------------------------------------------- from torch

def rnn_mode(rnn):
    """seqlab's mode name of a torch.nn recurrent layer (LSTM, GRU, RNN_TANH, RNN_RELU)."""
    return type(rnn).__name__ if type(rnn) is not torch.nn.RNN else f"RNN_{rnn.nonlinearity.upper()}"


def _activation_from_torch(fn, owner):
    if fn is torch.nn.functional.relu:
        return "relu"
    if fn is torch.nn.functional.gelu:
        return "gelu"
    if fn is torch.nn.functional.silu:
        return SF.silu
    if isinstance(fn, torch.nn.Module):
        return _from_torch(fn, owner + ".activation")
    raise TypeError(f"from_torch: {owner}'s activation {fn!r} has no seqlab counterpart (relu, gelu, silu or a module)")


def _scheme_from_torch(pos, owner):
    return _scheme(pos, owner, False)


def _positional_from_torch(positional, owner):
    if positional is None or isinstance(positional, TP._Absolute):
        return _scheme_from_torch(positional, owner)
    return _from_torch(positional, owner)


def _layer_args_from_torch(m, owner):
    return _layer_args(m, owner, _activation_from_torch)


def _twin_attention_args(a, owner):
    return dict(pos=_scheme_from_torch(a.pos, owner + ".pos"), scale=a.scale, num_key_value_heads=a.num_key_value_heads,
                head_dim=a.head_dim)


def _from_torch(m, owner):
    name = type(m).__name__
    if type(m) in _FROM_TORCH:
        return _FROM_TORCH[type(m)](m, owner)
    if type(m) in (torch.nn.Sequential, torch.nn.ModuleList):
        children = [_from_torch(c, f"{owner}.{i}") for i, c in enumerate(m)]
        return snn.Sequential(*children) if type(m) is torch.nn.Sequential else snn.ModuleList(children)
    if type(m) is torch.nn.ModuleDict:
        return snn.ModuleDict({k: _from_torch(c, f"{owner}.{k}") for k, c in m.items()})
    if type(m) is torch.nn.Container:
        return snn.Container(**{k: _from_torch(c, f"{owner}.{k}") for k, c in m.named_children()})
    if type(m) in (torch.nn.ParameterList, torch.nn.ParameterDict):
        def entry(v):
            return snn.Parameter(_core.from_dlpack(v.detach().cpu().clone()), v.requires_grad) \
                if isinstance(v, torch.Tensor) else v
        if type(m) is torch.nn.ParameterList:
            return snn.ParameterList([entry(v) for v in m])
        return snn.ParameterDict({k: entry(v) for k, v in m.items()})
    if type(m) is TT.TransformerLM:
        block = m.layers[0]
        positional = _positional_from_torch(m.positional, owner + ".positional")
        out = snn.TransformerLM(
            m.vocab_size, m.d_model, m.nhead, m.num_layers, m.dim_feedforward, m.drop.p,
            _activation_from_torch(block.activation, owner + ".layers.0"), positional,
            tie_weights=m.lm_head.weight is m.tok_emb.weight, layer_norm_eps=m.ln_f.eps,
            bias=block.linear1.bias is not None, embedding_norm=m.embedding_norm is not None,
            rms_norm=isinstance(m.ln_f, torch.nn.RMSNorm), glu=block.linear3 is not None,
            **_twin_attention_args(block.self_attn, owner + ".layers.0.self_attn"))
        out.layers = _layers_from_torch(m.layers, owner + ".layers")
        return out
    if type(m) is TR.RNNLM:
        mode = rnn_mode(m.rnn)
        return snn.RNNLM(m.embedding.num_embeddings, m.embedding.embedding_dim, m.rnn.hidden_size, m.rnn.num_layers,
                         mode, m.rnn.dropout, tie_weights=m.decoder.weight is m.embedding.weight)
    if type(m) is TT.MultiheadAttention:
        return snn.MultiheadAttention(m.embed_dim, m.num_heads, m.dropout, m.in_proj_bias is not None,
                                      batch_first=m.batch_first, **_twin_attention_args(m, owner))
    if type(m) in (TT.TransformerEncoderLayer, ED.TransformerDecoderLayer):
        cls = snn.TransformerEncoderLayer if type(m) is TT.TransformerEncoderLayer else snn.TransformerDecoderLayer
        return cls(**_layer_args_from_torch(m, owner), **_twin_attention_args(m.self_attn, owner + ".self_attn"),
                   rms_norm=isinstance(m.norm1, torch.nn.RMSNorm), glu=m.linear3 is not None)
    if type(m) is torch.nn.TransformerEncoderLayer:
        return snn.TransformerEncoderLayer(**_layer_args_from_torch(m, owner))
    if type(m) is torch.nn.TransformerDecoderLayer:
        return snn.TransformerDecoderLayer(**_layer_args_from_torch(m, owner))
    if type(m) in (torch.nn.TransformerEncoder, ED.TransformerEncoder, torch.nn.TransformerDecoder,
                   ED.TransformerDecoder):
        layers = _layers_from_torch(m.layers, owner + ".layers")
        norm = None if m.norm is None else _from_torch(m.norm, owner + ".norm")
        if type(m) in (torch.nn.TransformerDecoder, ED.TransformerDecoder):
            out = snn.TransformerDecoder(layers[0], m.num_layers, norm)
        else:
            out = snn.TransformerEncoder(layers[0], m.num_layers, norm, enable_nested_tensor=m.enable_nested_tensor,
                                         mask_check=m.mask_check)
        out.layers = layers
        return out
    if type(m) is torch.nn.Transformer:
        layer = m.encoder.layers[0]
        args = {k: v for k, v in _layer_args_from_torch(layer, owner).items() if k not in ("d_model", "nhead")}
        out = snn.Transformer(m.d_model, m.nhead, len(m.encoder.layers), len(m.decoder.layers), **args)
        out.encoder, out.decoder = _from_torch(m.encoder, owner + ".encoder"), _from_torch(m.decoder, owner + ".decoder")
        return out
    if isinstance(m, TP._Absolute):
        return _scheme_from_torch(m, owner)
    if type(m).__module__.startswith("torch.nn") and name in snn.__all__:
        cls = getattr(snn, name)
        return cls(**_native_args(m, cls, owner, lambda t: _core.from_dlpack(t.detach().cpu().clone())))
    if is_converted_user_module(m):
        return user_module_from_torch(m, owner, _from_torch)
    raise NotImplementedError(f"from_torch: {owner} is a torch {name}, which seqlab has no class for")


def from_torch(module):
    """The seqlab module computing what the torch `module` (from to_torch, or torch.nn's own layers)
    computes, with copies of its parameters and buffers, in its dtype and mode."""
    owner = type(module).__name__
    out = _build(module, owner, "from_torch", _from_torch, _seqlab_dtype)
    state = {k: v.detach().cpu() for k, v in module.state_dict().items() if not torch.nn.parameter.is_lazy(v)}
    missing, unexpected = out.load_state_dict(state, strict=False)
    mine = out.state_dict()
    missing = [k for k in missing if not is_lazy(mine[k])]
    if missing or unexpected:  # a converter bug: the two sides must have the same state
        raise RuntimeError(f"from_torch: the seqlab {type(out).__name__} made for {owner} differs in its state: "
                           f"missing {missing[:3]}, unexpected {unexpected[:3]}")
    _carry_modes(module, out)
    return out
