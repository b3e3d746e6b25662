"""seqlab.nn.TransformerMaskedLM in torch (BERT's and DeBERTa's masked-LM encoder): the torch twin
seqlab.to_torch builds for it. Parameter names and shapes are seqlab's, so state dicts move either
way unchanged; the layers are the twin TransformerEncoderLayers (any positional scheme, DeBERTa's
disentangled attention included). Tests: tests/test_to_torch_encoder_decoder.py."""
import torch

from ..nn._twin_steps import masked_lm_embeddings, masked_lm_outputs
from ..nn.masked_lm import MaskedLMOutput
from .encoder_decoder import add_positions

__all__ = ["TransformerMaskedLM"]


class TransformerMaskedLM(torch.nn.Module):
    """Embeddings (tok_emb + positional + token_type_emb, then embed_proj, embedding_norm, dropout),
    bidirectional layers, ln_f (pre-LN only), and the head lm_head(head_norm(act(head_dense(x)))).
    forward(idx, attention_mask=None, token_type_ids=None, output_hidden_states=False,
    output_attentions=False) as seqlab's: logits (N, L, V), or a MaskedLMOutput (Hugging Face's
    names) with the hidden states and each block's attention weights (N, H, L, L)."""

    def __init__(self, tok_emb, positional, token_type_emb, embed_proj, embedding_norm, dropout, layers, ln_f,
                 head_dense, head_activation, head_norm, lm_head):
        super().__init__()
        self.tok_emb, self.positional, self.token_type_emb = tok_emb, positional, token_type_emb
        self.embed_proj, self.embedding_norm, self.drop = embed_proj, embedding_norm, torch.nn.Dropout(dropout)
        self.layers, self.ln_f = layers, ln_f
        self.head_dense, self.head_activation, self.head_norm, self.lm_head = head_dense, head_activation, head_norm, \
            lm_head
        self.vocab_size, self.num_layers = lm_head.out_features, len(layers)

    def embed(self, idx, token_type_ids=None):
        x = add_positions(self.positional, self.tok_emb(idx), 0)
        return masked_lm_embeddings(self, x, idx, token_type_ids)

    def forward(self, idx, attention_mask=None, token_type_ids=None, output_hidden_states=False,
                output_attentions=False):
        padding = None if attention_mask is None else attention_mask == 0
        return masked_lm_outputs(self, self.embed(idx, token_type_ids), padding, output_hidden_states,
                                 output_attentions, MaskedLMOutput)
