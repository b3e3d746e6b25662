"""T5 (Raffel et al. 2020) as seqlab's nn.TransformerSeq2Seq: one embedding shared by the encoder,
the decoder and (tied) the head; pre-norm layers with RMSNorm and no biases (T5's LayerNorm has
neither a mean nor a bias); unscaled scores (scale=1.0: T5's W_Q absorbs the 1/√d); T5's
relative attention bias in the self-attentions, bidirectional in the encoder and causal in the
decoder, learned in each stack's first layer and shared by all its layers (the same Embedding
module here); no position information in the cross-attention; the feed-forward ReLU (T5 1.0:
DenseReluDense wi, wo) or gated GELU (T5 1.1: wi_0 activated, wi_1, wo = linear1, linear3,
linear2); with tied embeddings the decoder's output scaled by d_model^-1/2 before the head.

An encoder layer is T5's block layer.0 (SelfAttention, layer_norm -> norm1) and layer.1 (the
feed-forward, layer_norm -> norm2); a decoder layer adds EncDecAttention as layer.1 (norm2) and
the feed-forward becomes layer.2 (norm3)."""
import numpy as np

from ..nn import TransformerSeq2Seq
from ..nn.positional import T5RelativeBias
from ._architecture import Architecture, activation


class T5(Architecture, model_type="t5"):
    ignored = ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight")  # copies of shared.weight

    @classmethod
    def build(cls, config, dtype):
        # the heads span H·d_kv features, not always d_model (t5-v1_1-small: 6 · 64 = 384 of 512)
        E, H, d_kv = config.width_heads_and_head_dim("d_model", "num_heads", "d_kv")
        proj = config.get("feed_forward_proj", "relu")
        if proj not in ("relu", "gated-gelu", "gated-relu", "gelu", "gated-gelu_new"):
            raise NotImplementedError(f"seqlab.hub: {config.path}: feed_forward_proj = {proj!r} is not supported by "
                                      f"seqlab's t5 (supported: 'relu', 'gated-gelu')")
        tie = config.expect("tie_word_embeddings", (True, False), True)
        buckets = config.integer("relative_attention_num_buckets", 32)
        distance = config.integer("relative_attention_max_distance", 128)
        V = config.integer("vocab_size")
        model = TransformerSeq2Seq(
            V, V, E, H, config.integer("num_layers"), config.integer("num_decoder_layers", config.get("num_layers")),
            config.integer("d_ff"), dropout=config.number("dropout_rate", 0.1),
            activation=activation(config, "dense_act_fn", "relu"), share_embeddings=True,
            layer_norm_eps=config.number("layer_norm_epsilon", 1e-6), bias=False, dtype=dtype, scale=1.0,
            pos=T5RelativeBias(H, buckets, distance, bidirectional=True, dtype=dtype),
            decoder_pos=T5RelativeBias(H, buckets, distance, bidirectional=False, dtype=dtype), rms_norm=True,
            glu=bool(config.get("is_gated_act", proj.startswith("gated"))), tie_weights=tie,
            scale_decoder_outputs=config.expect("scale_decoder_outputs", (True, False), tie), head_dim=d_kv)
        for stack in (model.encoder, model.decoder):  # one relative bias per stack, layer 0's
            for layer in stack.layers[1:]:
                layer.self_attn.pos.relative_attention_bias = stack.layers[0].self_attn.pos.relative_attention_bias
        return model

    @classmethod
    def generation_defaults(cls, config):
        # the decoder starts from decoder_start_token_id, T5's pad token when the config names none
        return {"decoder_start_token_id": config.get("decoder_start_token_id", config.get("pad_token_id", 0))}

    @classmethod
    def weights(cls, config, ckpt, model):
        E, ff, V = model.d_model, model.encoder.layers[0].linear1.out_features, model.lm_head.out_features
        buckets = model.encoder.layers[0].self_attn.pos.num_buckets
        H = model.encoder.layers[0].self_attn.num_heads
        inner = H * model.encoder.layers[0].self_attn.head_dim
        glu = model.encoder.layers[0].linear3 is not None

        def attention(theirs, ours):
            qkv = [ckpt.take(f"{theirs}.{p}.weight", (inner, E)) for p in "qkv"]
            return {ours + ".in_proj_weight": np.concatenate(qkv),
                    ours + ".out_proj.weight": ckpt.take(f"{theirs}.o.weight", (E, inner))}

        def feed_forward(theirs, ours):
            names = (("linear1", "wi_0"), ("linear3", "wi_1")) if glu else (("linear1", "wi"),)
            out = {f"{ours}{a}.weight": ckpt.take(f"{theirs}.DenseReluDense.{b}.weight", (ff, E)) for a, b in names}
            out[f"{ours}linear2.weight"] = ckpt.take(f"{theirs}.DenseReluDense.wo.weight", (E, ff))
            return out

        shared = ckpt.take("shared.weight", (V, E))
        state = {"src_emb.weight": shared, "tgt_emb.weight": shared}
        for stack, cross in (("encoder", False), ("decoder", True)):
            layers = getattr(model, stack).layers
            bias = ckpt.take(f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight", (buckets, H))
            for i in range(len(layers)):
                hf, sl = f"{stack}.block.{i}.layer.", f"{stack}.layers.{i}."
                state.update(attention(hf + "0.SelfAttention", sl + "self_attn"))
                state[sl + "self_attn.pos.relative_attention_bias.weight"] = bias
                state[sl + "norm1.weight"] = ckpt.take(hf + "0.layer_norm.weight", (E,))
                k = 1
                if cross:
                    state.update(attention(hf + "1.EncDecAttention", sl + "multihead_attn"))
                    state[sl + "norm2.weight"] = ckpt.take(hf + "1.layer_norm.weight", (E,))
                    k = 2
                state.update(feed_forward(f"{hf}{k}", sl))
                state[sl + f"norm{k + 1}.weight"] = ckpt.take(f"{hf}{k}.layer_norm.weight", (E,))
            state[f"{stack}.norm.weight"] = ckpt.take(f"{stack}.final_layer_norm.weight", (E,))
        if model.lm_head.weight is model.tgt_emb.weight:
            ckpt.discard("lm_head.weight")
            state["lm_head.weight"] = shared
        else:
            state["lm_head.weight"] = ckpt.take("lm_head.weight", (V, E))
        return state
