"""A masked language model: a bidirectional transformer encoder with a masked-LM head (BERT:
Devlin et al. 2019; DeBERTa: He et al. 2021). seqlab's own, as torch.nn has none; built from
seqlab.nn's torch-compatible layers, with no computation of its own beyond calling them.
Tests: tests/test_masked_lm.py, tests/test_hub.py (DeBERTa-v2 against Hugging Face's)."""
import copy

from ._twin_steps import masked_lm_embeddings, masked_lm_outputs
from .lm import _add_positions, _FromPretrained, _tie
from .modules.container import ModuleList
from .modules.dropout import Dropout
from .modules.linear import Linear
from .modules.module import Module
from .modules.normalization import LayerNorm
from .modules.sparse import Embedding
from .modules.transformer import TransformerEncoderLayer, _get_activation_fn, _norm
from ..generation.utils import _Output

__all__ = ["TransformerMaskedLM", "MaskedLMOutput"]


class MaskedLMOutput(_Output):
    """What TransformerMaskedLM returns with output_hidden_states / output_attentions, under
    Hugging Face's names (transformers' MaskedLMOutput): logits (N, L, V); hidden_states, a tuple
    of num_layers + 1 tensors (N, L, E) or None; attentions, a tuple of num_layers tensors (N, H,
    L, L) or None."""

    def __init__(self, logits, hidden_states=None, attentions=None):
        super().__init__(logits=logits, hidden_states=hidden_states, attentions=attentions)


class TransformerMaskedLM(Module, _FromPretrained):
    """A bidirectional transformer encoder with a masked-LM head: every position sees the whole
    sequence and predicts its own token (BERT's [MASK] task): logits = head(blocks(emb(idx))).

    The embeddings, in BERT's order: tok_emb (Embedding(vocab_size, embedding_size), padding_idx)
    plus an optional absolute `positional` (as TransformerLM's: nn.Embedding(max_len, E) learned as
    BERT, or seqlab.nn.positional's absolute modules) plus token_type_emb (Embedding(type_vocab_size,
    E) when type_vocab_size > 0: BERT's segments A and B); then embed_proj (Linear(embedding_size,
    d_model, bias=False), when embedding_size differs from d_model), embedding_norm (a LayerNorm;
    BERT and DeBERTa have it) and dropout.
    layers: num_layers TransformerEncoderLayers (batch_first=True; norm_first=False, BERT's post-LN,
    by default; ln_f, a final norm, only with norm_first), each with its own copy of `pos`, a
    relative scheme of seqlab.nn.positional (DeBERTa's disentangled attention, T5's bias, ...).
    The head (BERT's prediction-head transform): head_dense (Linear(d_model, embedding_size)), the
    activation, head_norm (LayerNorm(embedding_size)), then lm_head (Linear(embedding_size,
    vocab_size) with a bias), its weight the embedding's with tie_weights (BERT's, the default).

    forward(idx, attention_mask=None, token_type_ids=None, output_hidden_states=False,
    output_attentions=False): idx (N, L) int64 -> logits (N, L, vocab_size); attention_mask (N, L),
    Hugging Face's (1 = token, 0 = padding): no position attends to padding; token_type_ids (N, L)
    (default zeros). With output_hidden_states or output_attentions it returns a MaskedLMOutput:
    hidden_states, num_layers + 1 tensors (N, L, d_model), the embeddings' output and each block's
    (the last after ln_f); attentions, num_layers tensors (N, nhead, L, L)."""

    def __init__(self, vocab_size, d_model=128, nhead=4, num_layers=2, dim_feedforward=None, dropout=0.1,
                 activation="gelu", positional=None, tie_weights=True, layer_norm_eps=1e-12, bias=True,
                 device=None, dtype=None, pos=None, scale=None, norm_first=False, embedding_size=None,
                 type_vocab_size=0, padding_idx=None, embedding_norm=True):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.vocab_size, self.d_model, self.nhead, self.num_layers = vocab_size, d_model, nhead, num_layers
        self.embedding_size = d_model if embedding_size is None else embedding_size
        self.dim_feedforward = 4 * d_model if dim_feedforward is None else dim_feedforward
        self.tok_emb = Embedding(vocab_size, self.embedding_size, padding_idx=padding_idx, **kw)
        self.positional = positional
        self.token_type_emb = Embedding(type_vocab_size, self.embedding_size, **kw) if type_vocab_size > 0 else None
        self.embed_proj = Linear(self.embedding_size, d_model, bias=False, **kw) \
            if self.embedding_size != d_model else None
        self.embedding_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw) if embedding_norm else None
        self.drop = Dropout(dropout)
        self.layers = ModuleList([
            TransformerEncoderLayer(d_model, nhead, self.dim_feedforward, dropout, activation, layer_norm_eps,
                                    batch_first=True, norm_first=norm_first, bias=bias, pos=copy.deepcopy(pos),
                                    scale=scale, **kw) for _ in range(num_layers)])
        self.ln_f = _norm(d_model, layer_norm_eps, bias, False, kw) if norm_first else None
        self.head_dense = Linear(d_model, self.embedding_size, bias=bias, **kw)
        self.head_activation = _get_activation_fn(activation, "TransformerMaskedLM") \
            if isinstance(activation, str) else activation
        self.head_norm = LayerNorm(self.embedding_size, eps=layer_norm_eps, bias=bias, **kw)
        self.lm_head = Linear(self.embedding_size, vocab_size, **kw)
        if tie_weights:
            _tie(self.lm_head, self.tok_emb)

    def embed(self, idx, token_type_ids=None):
        """The first block's input (N, L, d_model): the embeddings summed, projected and normalised."""
        x = _add_positions(self.tok_emb(idx), self.positional, 0, "TransformerMaskedLM")
        return masked_lm_embeddings(self, x, idx, token_type_ids)

    def forward(self, idx, attention_mask=None, token_type_ids=None, output_hidden_states=False,
                output_attentions=False):
        if idx.dim() != 2:
            raise ValueError(f"TransformerMaskedLM: expected idx of shape (N, L), got {tuple(idx.shape)}")
        padding = None
        if attention_mask is not None:
            if tuple(attention_mask.shape) != tuple(idx.shape):
                raise ValueError(f"TransformerMaskedLM: attention_mask {tuple(attention_mask.shape)} must have idx's "
                                 f"shape {tuple(idx.shape)} (1 = token, 0 = padding)")
            padding = attention_mask == 0
        return masked_lm_outputs(self, self.embed(idx, token_type_ids), padding, output_hidden_states,
                                 output_attentions, MaskedLMOutput)
