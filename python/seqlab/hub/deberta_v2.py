"""DeBERTa-v2 and v3 (He et al. 2021, 2023) as seqlab's nn.TransformerMaskedLM: post-LN encoder
layers (BERT's) whose self-attention carries DeBERTaRelativePosition, the disentangled attention;
the relative embeddings (deberta.encoder.rel_embeddings, layer-normalised with norm_rel_ebd =
"layer_norm") are one table shared by every layer (the same Embedding module here), the position
projections each layer's own, or its own query and key projections with share_att_key; distances
clipped at max_relative_positions, or log-bucketed with position_buckets (v3: 256). The embeddings:
word (plus absolute positions with position_biased_input, plus token types with type_vocab_size),
embed_proj when embedding_size differs, a LayerNorm. The masked-LM head: Hugging Face's legacy
cls.predictions (transform.dense, LayerNorm, decoder tied to the word embeddings, bias) or
DeBERTa's own lm_predictions.lm_head (the same computation); a checkpoint without a head (v3's
released discriminators) loads with a newly initialised head and a warning, as transformers does.

A layer's attention.self.{query,key,value}_proj stack into in_proj; attention.output.dense is
out_proj and its LayerNorm norm1; intermediate.dense and output.dense are linear1 and linear2,
output.LayerNorm norm2. Not supported (an error naming the field): the convolution after the first
layer (conv_kernel_size > 0, deberta-v2-xlarge), attention_head_size other than hidden_size /
num_attention_heads."""
import warnings

import numpy as np

from ..autograd import no_grad
from ..nn import Embedding, TransformerMaskedLM, init
from ..nn.positional import DeBERTaRelativePosition
from ._architecture import Architecture, activation


def _pos_att_type(config):
    """The position terms, c2p and/or p2c, from a list or DeBERTa's "p2c|c2p" string."""
    types = config.get("pos_att_type", [])
    if isinstance(types, str):
        types = [t.strip() for t in types.lower().split("|")]
    return tuple(t for t in ("c2p", "p2c") if t in types)


class DebertaV2(Architecture, model_type="deberta-v2"):
    prefix = "deberta."
    ignored = ("embeddings.position_ids",)

    @classmethod
    def build(cls, config, dtype):
        E, H = config.width_and_heads("hidden_size", "num_attention_heads")
        if config.integer("attention_head_size", E // H) != E // H:
            raise NotImplementedError(f"seqlab.hub: {config.path}: attention_head_size = "
                                      f"{config.get('attention_head_size')} is not hidden_size / num_attention_heads "
                                      f"= {E // H}, which seqlab's attention assumes")
        config.expect("conv_kernel_size", (0,), 0, "the convolution after the first layer of deberta-v2-xlarge")
        config.expect("z_steps", (0,), 0, "re-running the last layer")
        max_positions = config.integer("max_position_embeddings", 512)
        types = _pos_att_type(config)
        pos, scale = None, None
        if config.expect("relative_attention", (True, False), False):
            k = config.integer("max_relative_positions", -1, low=-1)
            norm = config.expect("norm_rel_ebd", ("none", "layer_norm"), "none",
                                 "a LayerNorm of the relative embeddings or none")
            pos = DeBERTaRelativePosition(E, H, max_relative_position=k if k >= 1 else max_positions, dtype=dtype,
                                          position_buckets=config.integer("position_buckets", -1, low=-1),
                                          share_att_key=config.expect("share_att_key", (True, False), False),
                                          pos_att_type=types, norm_rel_ebd=norm,
                                          layer_norm_eps=config.number("layer_norm_eps", 1e-7))
        else:  # DeBERTa scales by √((1 + the position terms)·D) even without relative attention
            scale = 1.0 / np.sqrt((1 + len(types)) * (E // H))
        emb = config.integer("embedding_size", E)
        model = TransformerMaskedLM(
            config.integer("vocab_size"), E, H, config.integer("num_hidden_layers"), config.integer("intermediate_size"),
            dropout=config.number("hidden_dropout_prob", 0.1), activation=activation(config, "hidden_act", "gelu"),
            positional=Embedding(max_positions, emb, dtype=dtype)
            if config.expect("position_biased_input", (True, False), True) else None,
            tie_weights=config.expect("tie_word_embeddings", (True, False), True) or not config.get("legacy", True),
            layer_norm_eps=config.number("layer_norm_eps", 1e-7), dtype=dtype, pos=pos, scale=scale,
            embedding_size=emb, type_vocab_size=config.integer("type_vocab_size", 0, low=0),
            padding_idx=config.get("pad_token_id", 0))
        for block in model.layers:
            block.self_attn.dropout = config.number("attention_probs_dropout_prob", 0.1)
            if pos is not None:  # one relative table (and its norm) for all layers, as DeBERTa's encoder holds it
                block.self_attn.pos.rel_embeddings = model.layers[0].self_attn.pos.rel_embeddings
                block.self_attn.pos.rel_norm = model.layers[0].self_attn.pos.rel_norm
        return model

    @classmethod
    def weights(cls, config, ckpt, model):
        E, ff, V, emb = model.d_model, model.dim_feedforward, model.vocab_size, model.embedding_size
        ckpt.discard_under("mask_predictions.")  # v3's replaced-token detector, which DebertaV2ForMaskedLM skips too
        state = {"tok_emb.weight": ckpt.take("embeddings.word_embeddings.weight", (V, emb))}

        def linear(theirs, ours, shape):
            state[ours + ".weight"] = ckpt.take(theirs + ".weight", shape)
            state[ours + ".bias"] = ckpt.take(theirs + ".bias", shape[:1])

        def layer_norm(theirs, ours, n):
            state[ours + ".weight"] = ckpt.take(theirs + ".weight", (n,))
            state[ours + ".bias"] = ckpt.take(theirs + ".bias", (n,))

        if model.positional is not None:
            state["positional.weight"] = ckpt.take("embeddings.position_embeddings.weight",
                                                   tuple(model.positional.weight.shape))
        if model.token_type_emb is not None:
            state["token_type_emb.weight"] = ckpt.take("embeddings.token_type_embeddings.weight",
                                                       tuple(model.token_type_emb.weight.shape))
        if model.embed_proj is not None:
            state["embed_proj.weight"] = ckpt.take("embeddings.embed_proj.weight", (E, emb))
        layer_norm("embeddings.LayerNorm", "embedding_norm", E)
        pos = model.layers[0].self_attn.pos
        if pos is not None:
            table = ckpt.take("encoder.rel_embeddings.weight", tuple(pos.rel_embeddings.weight.shape))
            norm = pos.rel_norm is not None and (ckpt.take("encoder.LayerNorm.weight", (E,)),
                                                 ckpt.take("encoder.LayerNorm.bias", (E,)))
        for i, block in enumerate(model.layers):
            hf, sl = f"encoder.layer.{i}.", f"layers.{i}."
            att = hf + "attention.self."
            state[sl + "self_attn.in_proj_weight"] = np.concatenate(
                [ckpt.take(f"{att}{p}_proj.weight", (E, E)) for p in ("query", "key", "value")])
            state[sl + "self_attn.in_proj_bias"] = np.concatenate(
                [ckpt.take(f"{att}{p}_proj.bias", (E,)) for p in ("query", "key", "value")])
            if pos is not None:
                state[sl + "self_attn.pos.rel_embeddings.weight"] = table
                if norm:
                    state[sl + "self_attn.pos.rel_norm.weight"], state[sl + "self_attn.pos.rel_norm.bias"] = norm
                for name in ("pos_key_proj", "pos_query_proj"):
                    if getattr(block.self_attn.pos, name) is not None:
                        linear(att + name, f"{sl}self_attn.pos.{name}", (E, E))
            linear(hf + "attention.output.dense", sl + "self_attn.out_proj", (E, E))
            layer_norm(hf + "attention.output.LayerNorm", sl + "norm1", E)
            linear(hf + "intermediate.dense", sl + "linear1", (ff, E))
            linear(hf + "output.dense", sl + "linear2", (E, ff))
            layer_norm(hf + "output.LayerNorm", sl + "norm2", E)
        return cls._head(config, ckpt, model, state, linear, layer_norm)

    @staticmethod
    def _head(config, ckpt, model, state, linear, layer_norm):
        E, V, emb = model.d_model, model.vocab_size, model.embedding_size
        tied = model.lm_head.weight is model.tok_emb.weight
        if tied:
            state["lm_head.weight"] = state["tok_emb.weight"]
        if ckpt.has("cls.predictions.bias"):  # transformers' legacy head
            linear("cls.predictions.transform.dense", "head_dense", (emb, E))
            layer_norm("cls.predictions.transform.LayerNorm", "head_norm", emb)
            state["lm_head.bias"] = ckpt.take("cls.predictions.bias", (V,))
            ckpt.discard("cls.predictions.decoder.bias")  # the same tensor, tied
            if tied:
                ckpt.discard("cls.predictions.decoder.weight")
            else:
                state["lm_head.weight"] = ckpt.take("cls.predictions.decoder.weight", (V, emb))
        elif ckpt.has("lm_predictions.lm_head.bias"):  # DeBERTa's own head, always tied
            linear("lm_predictions.lm_head.dense", "head_dense", (E, E))
            layer_norm("lm_predictions.lm_head.LayerNorm", "head_norm", E)
            state["lm_head.bias"] = ckpt.take("lm_predictions.lm_head.bias", (V,))
        else:
            warnings.warn(f"seqlab.hub: {config.path} has no masked-LM head (cls.predictions.* or "
                          "lm_predictions.*): the head is newly initialised, as transformers' DebertaV2ForMaskedLM "
                          "does; train it before reading its predictions", stacklevel=4)
            with no_grad():
                init.normal_(model.head_dense.weight, 0.0, config.number("initializer_range", 0.02))
                for p in (model.head_dense.bias, model.head_norm.bias, model.lm_head.bias):
                    init.zeros_(p)
                init.ones_(model.head_norm.weight)
            for name in ("head_dense.weight", "head_dense.bias", "head_norm.weight", "head_norm.bias", "lm_head.bias"):
                state[name] = model.get_parameter(name).detach().numpy().copy()
            if not tied:
                raise ValueError(f"seqlab.hub: {config.path}: a checkpoint without a head must tie it to the word "
                                 "embeddings (tie_word_embeddings)")
        return state
