"""The steps that seqlab's models (nn/lm.py, nn/masked_lm.py) and their torch twins
(seqlab/torch_modules: recurrent.py, encoder_decoder.py, masked_lm.py) take alike. Each reads only
its model's submodules and its tensors' methods, so one definition runs on seqlab and on torch
tensors. A leaf: it imports neither seqlab nor torch. Tests: tests/test_to_torch*.py."""


class RNNSeq2SeqSteps:
    """An RNN encoder-decoder (Sutskever et al. 2014; Cho et al. 2014) over the submodules src_emb,
    tgt_emb, encoder and decoder (recurrent, batch_first) and out: the encoder's final state (the
    memory) starts the decoder; the cache (an RNNState) holds the decoder's running state."""

    def encode(self, src, src_key_padding_mask=None):
        if src_key_padding_mask is not None:
            raise ValueError("RNNSeq2Seq: src_key_padding_mask is not supported; pack the source instead")
        return self.encoder(self.src_emb(src))[1]

    def decode(self, tgt, memory, cache=None, memory_key_padding_mask=None):
        h0 = memory if cache is None or cache.hidden is None else cache.hidden
        out, hidden = self.decoder(self.tgt_emb(tgt), h0)
        if cache is not None:
            cache.update(hidden, tgt.shape[1])
        return self.out(out)

    def forward(self, src, tgt):
        return self.decode(tgt, self.encode(src))


class TransformerSeq2SeqSteps:
    """What a transformer encoder-decoder does after embedding the target (decoder, with the
    outputs scaled by d_model^-1/2 when scale_decoder_outputs, as T5's tied head, then lm_head), and
    forward(src, tgt) teacher-forced; the model gives encode() and decode()."""

    def _decode_embedded(self, x, memory, mask, is_causal, memory_key_padding_mask, cache):
        x = self.decoder(x, memory, tgt_mask=mask, tgt_is_causal=is_causal,
                         memory_key_padding_mask=memory_key_padding_mask, cache=cache)
        if self.scale_decoder_outputs:
            x = x * self.d_model ** -0.5
        return self.lm_head(x)

    def forward(self, src, tgt, src_key_padding_mask=None):
        memory = self.encode(src, src_key_padding_mask)
        return self.decode(tgt, memory, memory_key_padding_mask=src_key_padding_mask)


def masked_lm_embeddings(model, x, idx, token_type_ids):
    """A masked LM's first block input from its token (and position) embeddings x (N, L, E): plus
    the token-type embeddings (type 0 where token_type_ids is None), projected to d_model
    (embed_proj), normalised (embedding_norm) and dropped out, each step where the model has it."""
    if model.token_type_emb is not None:
        x = x + model.token_type_emb(idx.new_zeros(idx.shape) if token_type_ids is None else token_type_ids)
    if model.embed_proj is not None:
        x = model.embed_proj(x)
    if model.embedding_norm is not None:
        x = model.embedding_norm(x)
    return model.drop(x)


def block_attention_weights(block, x, mask, key_padding_mask=None):
    """The attention weights (N, H, L, S) of a block's self-attention on its input x (N, L, E)
    under `mask` and `key_padding_mask`, each head's own: the block's attention run once more with
    need_weights (the fused block keeps no weights)."""
    h = block.norm1(x) if block.norm_first else x
    return block.self_attn(h, h, h, key_padding_mask=key_padding_mask, attn_mask=mask, need_weights=True,
                           average_attn_weights=False)[1]


def masked_lm_outputs(model, x, padding, output_hidden_states, output_attentions, output_class):
    """A masked LM's blocks over its embedded input x (N, L, E), key padding mask `padding` (True at
    padding), then the final norm (ln_f, pre-LN models) and the head
    lm_head(head_norm(head_activation(head_dense(x)))): the logits, or with output_hidden_states /
    output_attentions output_class(logits, each block's input and the last output, each block's
    attention weights (N, H, L, L))."""
    hidden_states, attentions = [], []
    for block in model.layers:
        if output_hidden_states:
            hidden_states.append(x)
        if output_attentions:
            attentions.append(block_attention_weights(block, x, None, padding))
        x = block(x, src_key_padding_mask=padding)
    if model.ln_f is not None:
        x = model.ln_f(x)
    logits = model.lm_head(model.head_norm(model.head_activation(model.head_dense(x))))
    if not (output_hidden_states or output_attentions):
        return logits
    return output_class(logits, tuple(hidden_states) + (x,) if output_hidden_states else None,
                        tuple(attentions) if output_attentions else None)


def rnn_lm_step(model, x, h0, keep, P, cache, run_left_padded):
    """An RNN LM's recurrent layers and decoder over the embedded new tokens x (N, L, E) after P
    cached ones, from the state h0: rows padded on the left (keep (N, P + L), False at padding) run
    through run_left_padded(rnn, x, keep), the framework's packed run, so each row starts from the
    zero state at its first token; the final state goes to the cache. Returns the logits."""
    L = x.shape[1]
    if keep is None or bool(keep[:, P:].all()):
        out, hidden = model.rnn(x, h0)
    elif P > 0:
        raise ValueError(f"RNNLM: attention_mask has padding among the {L} new positions after {P} cached ones; "
                         "only a prompt's first call may hold padding (on the left)")
    else:
        out, hidden = run_left_padded(model.rnn, x, keep)
    if cache is not None:
        cache.update(hidden, L)
    return model.decoder(model.drop(out))
