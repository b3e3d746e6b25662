"""seqlab's own encoder-decoder and masked-LM models across: nn.TransformerSeq2Seq <->
encoder_decoder.TransformerSeq2Seq and nn.TransformerMaskedLM <-> masked_lm.TransformerMaskedLM,
their layers always the twin layers (any of seqlab's options). Registered with _convert.register.
Tests: tests/test_to_torch_encoder_decoder.py."""
import torch

from .. import nn as snn
from . import encoder_decoder as ED
from . import masked_lm as TM
from . import transformer as TT
from ._convert import (_activation_from_torch, _activation_to_torch, _from_torch, _layer_args_from_torch,
                       _layers_from_torch, _layers_to_torch, _positional_from_torch, _positional_to_torch,
                       _stack_to_torch, _to_torch, _twin_attention_args, register)


def _optional(convert, m, owner):
    return None if m is None else convert(m, owner)


def _seq2seq_to_torch(m, owner):
    return ED.TransformerSeq2Seq(_to_torch(m.src_emb, owner + ".src_emb"), _to_torch(m.tgt_emb, owner + ".tgt_emb"),
                                 _positional_to_torch(m.positional, owner + ".positional"), m.drop.p,
                                 _stack_to_torch(m.encoder, owner + ".encoder", twin=True),
                                 _stack_to_torch(m.decoder, owner + ".decoder", twin=True),
                                 _to_torch(m.lm_head, owner + ".lm_head"), m.scale_decoder_outputs)


def _seq2seq_from_torch(m, owner):
    enc, dec = m.encoder.layers[0], m.decoder.layers[0]
    layer = _layer_args_from_torch(enc, owner + ".encoder.layers.0")
    attention = _twin_attention_args(enc.self_attn, owner + ".encoder.layers.0.self_attn")
    decoder_pos = _twin_attention_args(dec.self_attn, owner + ".decoder.layers.0.self_attn")["pos"]
    out = snn.TransformerSeq2Seq(
        m.src_emb.num_embeddings, m.tgt_emb.num_embeddings, layer["d_model"], layer["nhead"], m.encoder.num_layers,
        m.decoder.num_layers, layer["dim_feedforward"], m.drop.p, layer["activation"],
        _positional_from_torch(m.positional, owner + ".positional"), share_embeddings=m.tgt_emb is m.src_emb,
        layer_norm_eps=layer["layer_norm_eps"], bias=layer["bias"], decoder_pos=decoder_pos,
        rms_norm=isinstance(enc.norm1, torch.nn.RMSNorm), glu=enc.linear3 is not None,
        tie_weights=m.lm_head.weight is m.tgt_emb.weight, scale_decoder_outputs=m.scale_decoder_outputs, **attention)
    out.encoder, out.decoder = _from_torch(m.encoder, owner + ".encoder"), _from_torch(m.decoder, owner + ".decoder")
    return out


def _masked_lm_to_torch(m, owner):
    layers = _layers_to_torch(m.layers, owner + ".layers", TT.TransformerEncoderLayer)
    return TM.TransformerMaskedLM(
        _to_torch(m.tok_emb, owner + ".tok_emb"), _positional_to_torch(m.positional, owner + ".positional"),
        _optional(_to_torch, m.token_type_emb, owner + ".token_type_emb"),
        _optional(_to_torch, m.embed_proj, owner + ".embed_proj"),
        _optional(_to_torch, m.embedding_norm, owner + ".embedding_norm"), m.drop.p, layers,
        _optional(_to_torch, m.ln_f, owner + ".ln_f"), _to_torch(m.head_dense, owner + ".head_dense"),
        _activation_to_torch(m.head_activation, owner + ".head_activation"), _to_torch(m.head_norm, owner + ".head_norm"),
        _to_torch(m.lm_head, owner + ".lm_head"))


def _masked_lm_from_torch(m, owner):
    block = m.layers[0]
    layer = _layer_args_from_torch(block, owner + ".layers.0")
    attention = _twin_attention_args(block.self_attn, owner + ".layers.0.self_attn")
    if attention.pop("num_key_value_heads") != block.self_attn.num_heads or \
            attention.pop("head_dim") * block.self_attn.num_heads != block.self_attn.embed_dim:
        raise NotImplementedError(f"from_torch: {owner}'s attention has grouped-query heads or a head_dim, which "
                                  "seqlab's TransformerMaskedLM does not take")
    out = snn.TransformerMaskedLM(
        m.vocab_size, layer["d_model"], layer["nhead"], m.num_layers, layer["dim_feedforward"], m.drop.p,
        _activation_from_torch(m.head_activation, owner + ".head_activation"),
        _positional_from_torch(m.positional, owner + ".positional"), tie_weights=m.lm_head.weight is m.tok_emb.weight,
        layer_norm_eps=layer["layer_norm_eps"], bias=layer["bias"], norm_first=layer["norm_first"],
        embedding_size=m.tok_emb.embedding_dim,
        type_vocab_size=0 if m.token_type_emb is None else m.token_type_emb.num_embeddings,
        padding_idx=m.tok_emb.padding_idx, embedding_norm=m.embedding_norm is not None, **attention)
    out.layers = _layers_from_torch(m.layers, owner + ".layers")
    return out


register(snn.TransformerSeq2Seq, ED.TransformerSeq2Seq, _seq2seq_to_torch, _seq2seq_from_torch)
register(snn.TransformerMaskedLM, TM.TransformerMaskedLM, _masked_lm_to_torch, _masked_lm_from_torch)
