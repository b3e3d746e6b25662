"""BLOOM (BigScience 2022) as seqlab's nn.TransformerLM: ALiBi (Press et al. 2022) in every
block's self-attention and no absolute positions, a LayerNorm of the token embeddings
(embedding_norm), pre-LN blocks with the tanh GELU and a 4·hidden feed-forward, a final
LayerNorm, the head tied to the embedding.

BLOOM's query_key_value (3E, E) is laid out head by head, [q_h; k_h; v_h] for h = 0 .. H-1
(its forward views the output as (…, H, 3, head_dim)); MultiheadAttention's in_proj_weight is
[W_q; W_k; W_v], so the rows are regrouped: (H, 3, d, E) -> (3, H, d, E). BLOOM adds the ALiBi
bias to the scaled scores as slope·(key position); seqlab's ALiBi adds −slope·(i − j), the same
softmax under the causal mask (a constant per query row). The dropouts: hidden_dropout after the
attention and the feed-forward, attention_dropout on the weights, none on the embeddings."""
from ..nn import GELU, TransformerLM
from ..nn.positional import ALiBi
from ._architecture import Architecture


class Bloom(Architecture, model_type="bloom"):
    prefix = "transformer."

    @classmethod
    def build(cls, config, dtype):
        E, H = config.width_and_heads(("hidden_size", "n_embed"), ("n_head", "num_attention_heads"))
        config.expect("apply_residual_connection_post_layernorm", (False,), False,
                      "seqlab's blocks add the residual before the LayerNorm")
        # slow_but_exact and pretraining_tp only change how the tensor-parallel sums are ordered
        model = TransformerLM(config.integer("vocab_size"), E, H, config.integer(("n_layer", "num_hidden_layers")),
                              4 * E, dropout=config.number("hidden_dropout", 0.0),
                              activation=GELU(approximate="tanh"), pos=ALiBi(H),
                              tie_weights=config.expect("tie_word_embeddings", (True, False), True),
                              layer_norm_eps=config.number("layer_norm_epsilon", 1e-5), dtype=dtype,
                              embedding_norm=True)
        model.drop.p = 0.0
        for block in model.layers:
            block.dropout.p = 0.0
            block.self_attn.dropout = config.number("attention_dropout", 0.0)
        return model

    @classmethod
    def weights(cls, config, ckpt, model):
        E, H = model.d_model, model.nhead
        d = E // H

        def norm(ours, theirs):
            return {ours + p: ckpt.take(theirs + p, (E,)) for p in ("weight", "bias")}

        state = {"tok_emb.weight": ckpt.take("word_embeddings.weight", (model.vocab_size, E)),
                 **norm("embedding_norm.", "word_embeddings_layernorm."), **norm("ln_f.", "ln_f.")}
        for i in range(model.num_layers):
            hf, sl = f"h.{i}.", f"layers.{i}."
            qkv = ckpt.take(hf + "self_attention.query_key_value.weight", (3 * E, E))
            state[sl + "self_attn.in_proj_weight"] = qkv.reshape(H, 3, d, E).transpose(1, 0, 2, 3).reshape(3 * E, E)
            qkv_bias = ckpt.take(hf + "self_attention.query_key_value.bias", (3 * E,))
            state[sl + "self_attn.in_proj_bias"] = qkv_bias.reshape(H, 3, d).transpose(1, 0, 2).reshape(3 * E)
            for ours, theirs, shape in (("self_attn.out_proj.", "self_attention.dense.", (E, E)),
                                        ("linear1.", "mlp.dense_h_to_4h.", (4 * E, E)),
                                        ("linear2.", "mlp.dense_4h_to_h.", (E, 4 * E))):
                state[sl + ours + "weight"] = ckpt.take(hf + theirs + "weight", shape)
                state[sl + ours + "bias"] = ckpt.take(hf + theirs + "bias", shape[:1])
            state.update(norm(sl + "norm1.", hf + "input_layernorm."))
            state.update(norm(sl + "norm2.", hf + "post_attention_layernorm."))
        return cls.head(ckpt, model, state)
