"""The Llama family (Touvron et al. 2023) as seqlab's nn.TransformerLM: RoPE (Su et al. 2021) in
every block's self-attention, rotating the two halves of each head (Hugging Face's rotate_half:
RoPE(head_dim, rope_theta, interleaved=False)), no absolute positions; RMSNorm before the
attention, before the feed-forward and at the end (rms_norm); the SwiGLU feed-forward (glu with
F.silu): down(silu(gate(x)) ⊙ up(x)), i.e. linear2(silu(linear1(x)) ⊙ linear3(x)); grouped-query
attention (num_key_value_heads); no biases; an untied head unless tie_word_embeddings.

q_proj, k_proj and v_proj stack into in_proj_weight [W_q; W_k; W_v] ((E + 2·kv_dim, E)); gate_proj
is linear1 (the activated one), up_proj linear3, down_proj linear2 (Meta's w1, w3, w2)."""
import numpy as np

from ..nn import TransformerLM
from ..nn import functional as F
from ..nn.positional import RoPE
from ._architecture import Architecture


class Llama(Architecture, model_type="llama"):
    prefix = "model."

    @classmethod
    def build(cls, config, dtype):
        E, H, head_dim = config.width_heads_and_head_dim("hidden_size", "num_attention_heads", "head_dim")
        G = config.integer("num_key_value_heads", H)
        if H % G:
            raise ValueError(f"seqlab.hub: {config.path}: num_attention_heads = {H} is not a multiple of "
                             f"num_key_value_heads = {G}")
        config.expect("hidden_act", ("silu",), "silu")
        config.expect("pretraining_tp", (1,), 1, "a tensor-parallel split of the projections")
        bias = config.expect("attention_bias", (False, True), False)
        config.expect("mlp_bias", (bias,), False, "seqlab's layers take one bias flag for attention and feed-forward")
        rope = config.get("rope_parameters", None) or {}
        scaling = config.get("rope_scaling", None) or {}
        if rope.get("rope_type", "default") != "default" or scaling.get("rope_type", "default") != "default":
            raise NotImplementedError(f"seqlab.hub: {config.path}: rope_type = "
                                      f"{rope.get('rope_type') or scaling.get('rope_type')!r} is not supported by "
                                      f"seqlab's llama (supported: 'default', the original RoPE)")
        theta = float(rope.get("rope_theta", config.number("rope_theta", 10000.0)))
        model = TransformerLM(config.integer("vocab_size"), E, H, config.integer("num_hidden_layers"),
                              config.integer("intermediate_size"), dropout=0.0, activation=F.silu,
                              pos=RoPE(head_dim, base=theta, interleaved=False),
                              tie_weights=config.expect("tie_word_embeddings", (True, False), False),
                              layer_norm_eps=config.number("rms_norm_eps", 1e-6), bias=bias, dtype=dtype,
                              num_key_value_heads=G, rms_norm=True, glu=True, head_dim=head_dim)
        for block in model.layers:
            block.self_attn.dropout = config.number("attention_dropout", 0.0)
        return model

    @classmethod
    def weights(cls, config, ckpt, model):
        E, ff, attn = model.d_model, model.dim_feedforward, model.layers[0].self_attn
        kv, inner = attn.num_key_value_heads * attn.head_dim, attn.num_heads * attn.head_dim
        bias = model.layers[0].linear1.bias is not None
        state = {"tok_emb.weight": ckpt.take("embed_tokens.weight", (model.vocab_size, E)),
                 "ln_f.weight": ckpt.take("norm.weight", (E,))}
        for i in range(model.num_layers):
            hf, sl = f"layers.{i}.", f"layers.{i}."
            rows = (("q", inner), ("k", kv), ("v", kv))
            state[sl + "self_attn.in_proj_weight"] = np.concatenate(
                [ckpt.take(hf + f"self_attn.{p}_proj.weight", (n, E)) for p, n in rows])
            state[sl + "self_attn.out_proj.weight"] = ckpt.take(hf + "self_attn.o_proj.weight", (E, inner))
            for ours, theirs, shape in (("linear1", "gate_proj", (ff, E)), ("linear3", "up_proj", (ff, E)),
                                        ("linear2", "down_proj", (E, ff))):
                state[sl + ours + ".weight"] = ckpt.take(hf + f"mlp.{theirs}.weight", shape)
                if bias:
                    state[sl + ours + ".bias"] = ckpt.take(hf + f"mlp.{theirs}.bias", shape[:1])
            if bias:
                state[sl + "self_attn.in_proj_bias"] = np.concatenate(
                    [ckpt.take(hf + f"self_attn.{p}_proj.bias", (n,)) for p, n in rows])
                state[sl + "self_attn.out_proj.bias"] = ckpt.take(hf + "self_attn.o_proj.bias", (E,))
            state[sl + "norm1.weight"] = ckpt.take(hf + "input_layernorm.weight", (E,))
            state[sl + "norm2.weight"] = ckpt.take(hf + "post_attention_layernorm.weight", (E,))
        return cls.head(ckpt, model, state)
