"""GPT-2 (Radford et al. 2019) as seqlab's nn.TransformerLM: learned absolute positions (an
nn.Embedding(n_positions, n_embd) added to the token embeddings), pre-LN blocks, the tanh GELU
('gelu_new'), a final LayerNorm and the head tied to the token embedding.

Hugging Face's GPT-2 stores its projections as Conv1D, y = x W + b with W (in, out): the
transpose of nn.Linear's (out, in), so each is transposed here. c_attn holds [W_q W_k W_v] side
by side: transposed, that is MultiheadAttention's in_proj_weight (3E, E) row blocks q; k; v.
The residual dropout (resid_pdrop) follows the attention and the feed-forward; GPT-2 has no
dropout inside the feed-forward."""
import math

from ..nn import Embedding, TransformerLM
from ._architecture import Architecture, activation


class GPT2(Architecture, model_type="gpt2"):
    prefix = "transformer."
    ignored = (".attn.bias", ".attn.masked_bias")  # the causal mask buffers of older checkpoints

    @classmethod
    def build(cls, config, dtype):
        E, H = config.width_and_heads(("n_embd", "hidden_size"), ("n_head", "num_attention_heads"))
        config.expect("add_cross_attention", (False,), False, "GPT-2 as a decoder of an encoder-decoder model")
        tie = config.expect("tie_word_embeddings", (True, False), True)
        scaled = config.expect("scale_attn_weights", (True, False), True)
        by_layer = config.expect("scale_attn_by_inverse_layer_idx", (True, False), False)
        # reorder_and_upcast_attn only sets the precision of the scores: seqlab's are in the model's dtype
        kw = dict(device=None, dtype=dtype)
        model = TransformerLM(config.integer("vocab_size"), E, H, config.integer(("n_layer", "num_hidden_layers")),
                              config.get("n_inner", None) or 4 * E, dropout=config.number("resid_pdrop", 0.1),
                              activation=activation(config, "activation_function", "gelu_new"),
                              positional=Embedding(config.integer(("n_positions", "max_position_embeddings")), E,
                                                   **kw),
                              tie_weights=tie, layer_norm_eps=config.number("layer_norm_epsilon", 1e-5), **kw)
        model.drop.p = config.number("embd_pdrop", 0.1)
        factor = 1 / math.sqrt(E // H) if scaled else 1.0  # the scores' factor in block 0
        for i, block in enumerate(model.layers):
            block.dropout.p = 0.0
            block.self_attn.dropout = config.number("attn_pdrop", 0.1)
            # None leaves the attention's own 1/√head_dim; by_layer divides block i's by i + 1
            block.self_attn.scale = factor / (i + 1) if by_layer else (None if scaled else factor)
        return model

    @classmethod
    def weights(cls, config, ckpt, model):
        E, ff = model.d_model, model.dim_feedforward
        state = {"tok_emb.weight": ckpt.take("wte.weight", (model.vocab_size, E)),
                 "positional.weight": ckpt.take("wpe.weight", tuple(model.positional.weight.shape)),
                 "ln_f.weight": ckpt.take("ln_f.weight", (E,)), "ln_f.bias": ckpt.take("ln_f.bias", (E,))}
        for i in range(model.num_layers):
            hf, sl = f"h.{i}.", f"layers.{i}."
            for ours, theirs, shape in (("self_attn.in_proj_", "attn.c_attn.", (E, 3 * E)),
                                        ("self_attn.out_proj.", "attn.c_proj.", (E, E)),
                                        ("linear1.", "mlp.c_fc.", (E, ff)), ("linear2.", "mlp.c_proj.", (ff, E))):
                state[sl + ours + "weight"] = ckpt.take(hf + theirs + "weight", shape).T  # Conv1D (in, out)
                state[sl + ours + "bias"] = ckpt.take(hf + theirs + "bias", shape[1:])
            for ours, theirs in (("norm1.", "ln_1."), ("norm2.", "ln_2.")):
                for p in ("weight", "bias"):
                    state[sl + ours + p] = ckpt.take(hf + theirs + p, (E,))
        return cls.head(ckpt, model, state)
