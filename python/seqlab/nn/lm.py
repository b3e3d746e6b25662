"""Language models for generation (seqlab's own; torch.nn has none): a decoder-only transformer
(GPT-style: Radford et al. 2018/2019), an encoder-decoder transformer over tokens (Vaswani et
al. 2017), and their recurrent counterparts, all with forward(..., cache=None) so that
seqlab.generation.generate() decodes them step by step (DESIGN.md, "Generation").

They are built from seqlab.nn's torch-compatible layers and hold no computation of their own
beyond calling them. Tests: tests/test_generation.py, tests/test_kv_cache.py."""
import copy

import numpy as np

from .. import _core
from .._tensor import arange, ones
from .._tensor import bool as _bool
from ..generation.utils import GenerationMixin, RNNState, _Output, attention_keep
from .modules.container import ModuleList
from .modules.dropout import Dropout
from .modules.linear import Linear
from .modules.module import Module
from .modules.normalization import LayerNorm
from .modules.rnn import GRU, LSTM, RNN
from .modules.sparse import Embedding
from .positional import _Absolute
from ._twin_steps import RNNSeq2SeqSteps, TransformerSeq2SeqSteps, block_attention_weights, rnn_lm_step
from .utils.rnn import pack_padded_sequence, pad_packed_sequence
from .modules.transformer import (TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                                  TransformerEncoderLayer, _norm)

__all__ = ["TransformerLM", "TransformerSeq2Seq", "RNNLM", "RNNSeq2Seq", "CausalLMOutput"]


def causal_mask(L, P=0):
    """(L, P + L) bool mask of MultiheadAttention's convention (True = not allowed) for L new
    positions after P cached ones: row i sees keys j <= i + P."""
    return ones(L, P + L, dtype=_bool).triu(P + 1)


def _add_positions(x, positional, start, model, position_ids=None):
    """x + positional(positions start .. start + L - 1) for x (N, L, E), or of each token's own
    position_ids (N, L) (a left-padded batch): an absolute scheme (a learned nn.Embedding(max_len,
    E) as GPT-2, or a sinusoidal table module) added to the token embeddings. None: no positional
    information (NoPE). A table has no row for a position past its length: that is an error naming
    the model, the positions and the table."""
    if positional is None:
        return x
    if isinstance(positional, _Absolute):  # seqlab.nn.positional's: they add themselves, from `start`
        return positional(x, offset=start, position_ids=position_ids)
    first, last = (start, start + x.shape[1] - 1) if position_ids is None else \
        (int(position_ids.min()), int(position_ids.max()))
    table = getattr(positional, "num_embeddings", None)
    if table is not None and last >= table:
        raise IndexError(f"{model}: positions {first}..{last} are beyond the positional table's {table} "
                         f"positions (an absolute scheme cannot go past its table; generate fewer tokens or use "
                         f"a longer table)")
    return x + positional(arange(start, last + 1) if position_ids is None else position_ids)


def _step_shape(idx, cache, attention_mask, model):
    """(N, L, P, keep) of a decoder-only call: idx (N, L) new tokens after P cached positions, and
    the attention_mask over all P + L of them as a bool array (None: no padding)."""
    if idx.dim() != 2:
        raise ValueError(f"{model}: idx must be (N, L) token ids, got shape {tuple(idx.shape)}")
    N, L = idx.shape
    P = 0 if cache is None else cache.get_seq_length()
    keep = None if attention_mask is None else attention_keep(attention_mask, (N, P + L), model)
    return N, L, P, keep


def _padded_causal_mask(keep, L, num_heads):
    """The self-attention mask (N·num_heads, L, P + L) (True = not allowed, row n·H + h for head h
    of sequence n, MultiheadAttention's layout) of L new positions after P cached ones, in rows
    padded on the left (keep (N, P + L): False = padding): query i sees the keys j <= P + i that
    are tokens. A padding query sees only itself, so that its row of the softmax is not empty (no
    NaN); no token's query sees it."""
    N, S = keep.shape
    P = S - L
    i = np.arange(L)[:, None] + P
    j = np.arange(S)[None, :]
    allowed = (j <= i) & (keep[:, None, :] | (j == i))
    return _core.from_numpy(np.repeat(~allowed, num_heads, axis=0))


def _positions_from_first_token(keep, L):
    """Each of the last L positions' index counted from its row's first token (0 for padding)."""
    return _core.from_numpy(np.maximum(np.cumsum(keep, axis=1) - 1, 0)[:, keep.shape[1] - L:].astype(np.int64))


def _self_attention_mask(L, P):
    """(mask, is_causal) for L new tokens after P cached: the causal mask ((L, P + L): row i sees
    keys j <= i + P) with the is_causal hint, so that the fused kernel applies it itself, shifted
    by the cache (its q_offset); none for one new token (it may see every cached key)."""
    if L == 1:
        return None, False
    if P == 0:
        return _core.generate_square_subsequent_mask(L, _bool), True
    return causal_mask(L, P), True


class CausalLMOutput(_Output):
    """What TransformerLM returns with output_hidden_states / output_attentions, under Hugging
    Face's names (transformers' CausalLMOutputWithPast): logits (N, L, V); hidden_states, a tuple
    of num_layers + 1 tensors (N, L, E) or None; attentions, a tuple of num_layers tensors (N, H,
    L, S) or None."""

    def __init__(self, logits, hidden_states=None, attentions=None):
        super().__init__(logits=logits, hidden_states=hidden_states, attentions=attentions)


class _FromPretrained:
    """cls.from_pretrained(path_or_name, **kwargs): a Hugging Face checkpoint of an architecture that
    seqlab builds as this class (TransformerLM: GPT-2, BLOOM, Llama; TransformerSeq2Seq: T5), by
    seqlab.hub.from_pretrained (its arguments), checked to be one. seqlab.hub builds on seqlab.nn, so
    nn does not import it: the hub registers its loader here when it is imported (import seqlab does)."""

    _loader = None  # seqlab.hub.from_pretrained

    @classmethod
    def from_pretrained(cls, path_or_name, **kwargs):
        if _FromPretrained._loader is None:
            raise ImportError(f"{cls.__name__}.from_pretrained reads checkpoints through seqlab.hub: import seqlab.hub")
        model = _FromPretrained._loader(path_or_name, **kwargs)
        if not isinstance(model, cls):
            raise TypeError(f"{cls.__name__}.from_pretrained: {path_or_name} holds a {model.config.model_type} "
                            f"model, which seqlab builds as {type(model).__name__}")
        return model


def _tie(head, embedding):
    """Weight tying (Press & Wolf 2017; Inan et al. 2017): the output layer's weight is the
    token embedding, both (V, E)."""
    if head.weight.shape != embedding.weight.shape:
        raise ValueError(f"tie_weights: the output layer's weight {tuple(head.weight.shape)} and the embedding "
                         f"{tuple(embedding.weight.shape)} must have the same shape (V, E)")
    head.weight = embedding.weight


class TransformerLM(Module, GenerationMixin, _FromPretrained):
    """A decoder-only transformer language model: logits = head(LN_f(blocks(E[idx] + pos))).

    tok_emb: Embedding(vocab_size, d_model); positional: an optional module mapping positions
    (int64 (L,)) to (L, d_model) vectors added to the embeddings (e.g. nn.Embedding(max_len,
    d_model), learned as GPT-2), or an absolute module of seqlab.nn.positional
    (SinusoidalPositionalEncoding, LearnedPositionalEmbedding); pos: a relative scheme of
    seqlab.nn.positional (RoPE, ALiBi, T5RelativeBias, ...) for every block's self-attention, each
    block its own copy; scale: the attention scores' factor (None: 1/√head_dim; T5: 1.0); layers: num_layers causal pre-LN blocks (TransformerEncoderLayer
    with norm_first=True, batch_first=True, Xiong et al. 2020); ln_f: the final LayerNorm (pre-LN
    blocks leave their output unnormalised); lm_head: Linear(d_model, vocab_size, bias=False),
    its weight the embedding's with tie_weights; embedding_norm: a LayerNorm of the embeddings
    before the first block (BLOOM's word_embeddings_layernorm). activation: 'relu', 'gelu' or a
    callable, as the layers take it (GPT-2 and BLOOM: nn.GELU(approximate='tanh')). The Llama
    family's options go to every block (TransformerEncoderLayer's): num_key_value_heads
    (grouped-query attention), rms_norm (RMSNorm everywhere, ln_f too), glu (the SwiGLU
    feed-forward with activation=F.silu), head_dim (the heads' width when it is not d_model //
    nhead).

    forward(idx, cache=None, attention_mask=None): idx (N, L) int64 -> logits (N, L, vocab_size).
    With output_hidden_states or output_attentions it returns a CausalLMOutput (Hugging Face's
    fields): logits; hidden_states, num_layers + 1 tensors (N, L, d_model): each block's input,
    then the last block's output after ln_f; attentions, num_layers tensors (N, nhead, L, P + L):
    each block's attention weights (its self-attention run again with need_weights).
    With a KVCache (new_cache()) idx holds only the new tokens; positions continue after the cached
    ones. attention_mask (N, P + L) over the cached and new positions, Hugging Face's (1 = token,
    0 = padding): prompts of unequal length padded on the left; no token attends to padding, and
    each row's positions count from its first token, so a row computes what it would alone (exactly
    for the absolute schemes and the relative ones that read i - j; RoPE rotates by the padded
    position, which leaves q·k equal up to rounding)."""

    def __init__(self, vocab_size, d_model=128, nhead=4, num_layers=2, dim_feedforward=None, dropout=0.1,
                 activation="gelu", positional=None, tie_weights=False, layer_norm_eps=1e-5, bias=True, device=None,
                 dtype=None, pos=None, scale=None, embedding_norm=False, num_key_value_heads=None, rms_norm=False,
                 glu=False, head_dim=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.vocab_size, self.d_model, self.nhead, self.num_layers = vocab_size, d_model, nhead, num_layers
        self.scale = scale
        self._block_options = dict(num_key_value_heads=num_key_value_heads, rms_norm=rms_norm, glu=glu,
                                   head_dim=head_dim)
        self.dim_feedforward = 4 * d_model if dim_feedforward is None else dim_feedforward
        self.tok_emb = Embedding(vocab_size, d_model, **kw)
        self.embedding_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw) if embedding_norm else None
        self.positional = positional
        self.drop = Dropout(dropout)
        self.layers = ModuleList([self._make_block(dropout, activation, layer_norm_eps, bias, kw, pos)
                                  for _ in range(num_layers)])
        self.ln_f = _norm(d_model, layer_norm_eps, bias, rms_norm, kw)
        self.lm_head = Linear(d_model, vocab_size, bias=False, **kw)
        if tie_weights:
            _tie(self.lm_head, self.tok_emb)

    def _make_block(self, dropout, activation, layer_norm_eps, bias, kw, pos):
        """One causal block; the one place where the blocks are made. Each block's self-attention
        gets its own copy of the positional scheme `pos` (as the stacks clone their layers)."""
        return TransformerEncoderLayer(self.d_model, self.nhead, self.dim_feedforward, dropout, activation,
                                       layer_norm_eps, batch_first=True, norm_first=True, bias=bias,
                                       pos=copy.deepcopy(pos), scale=self.scale, **self._block_options, **kw)

    def new_cache(self):
        """An empty KVCache: one self-attention cache per block."""
        return _core.KVCache()

    def forward(self, idx, cache=None, attention_mask=None, output_hidden_states=False, output_attentions=False):
        N, L, P, keep = _step_shape(idx, cache, attention_mask, "TransformerLM")
        if output_attentions and cache is not None:
            raise ValueError("TransformerLM: output_attentions needs the whole sequence (cache=None): the weights "
                             "over cached positions are not kept")
        if keep is None:
            mask, is_causal = _self_attention_mask(L, P)
            positions = None
        else:
            mask, is_causal = _padded_causal_mask(keep, L, self.nhead), False
            positions = _positions_from_first_token(keep, L)
        x = self.tok_emb(idx)
        if self.embedding_norm is not None:
            x = self.embedding_norm(x)
        x = self.drop(_add_positions(x, self.positional, P, "TransformerLM", positions))
        hidden_states, attentions = [], []
        for i, block in enumerate(self.layers):
            if output_hidden_states:
                hidden_states.append(x)
            if output_attentions:
                attentions.append(block_attention_weights(block, x, mask))
            kw = {} if cache is None else {"cache": cache.self_attention(i)}
            x = block(x, src_mask=mask, is_causal=is_causal, **kw)
        x = self.ln_f(x)
        logits = self.lm_head(x)
        if not (output_hidden_states or output_attentions):
            return logits
        return CausalLMOutput(logits, tuple(hidden_states) + (x,) if output_hidden_states else None,
                              tuple(attentions) if output_attentions else None)


class TransformerSeq2Seq(TransformerSeq2SeqSteps, Module, GenerationMixin, _FromPretrained):
    """An encoder-decoder transformer over tokens (Vaswani et al. 2017): src_emb and tgt_emb
    (or one shared embedding with share_embeddings), an optional absolute positional module added
    to both, a TransformerEncoder and a TransformerDecoder of pre-LN layers (batch_first) with
    final LayerNorms, and a Linear head over the target vocabulary; pos and scale (the attention
    scores' factor, None: 1/√head_dim) go to every layer.

    encode(src, src_key_padding_mask=None) -> memory (N, S, d_model);
    decode(tgt, memory, cache=None, memory_key_padding_mask=None) -> logits (N, T, tgt_vocab);
    forward(src, tgt) = decode(tgt, encode(src)) (teacher forcing). With a KVCache the decoder's
    self-attention appends the new target positions and its cross-attention projects the memory
    once.

    For T5 (Raffel et al. 2020): decoder_pos, the decoder self-attention's scheme when it differs
    from the encoder's (T5's relative bias is bidirectional in the encoder, causal in the
    decoder; default: a copy of pos); rms_norm, glu, num_key_value_heads and head_dim (T5's d_kv)
    go to every layer, as in TransformerLM (RMSNorm also for the stacks' final norms); tie_weights, the head's weight
    the target embedding's; scale_decoder_outputs, the decoder's output times d_model^-1/2 before
    the head (T5 with tied embeddings)."""

    is_encoder_decoder = True

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=128, nhead=4, num_encoder_layers=2,
                 num_decoder_layers=2, dim_feedforward=None, dropout=0.1, activation="gelu", positional=None,
                 share_embeddings=False, layer_norm_eps=1e-5, bias=True, device=None, dtype=None, pos=None,
                 scale=None, decoder_pos=None, num_key_value_heads=None, rms_norm=False, glu=False, tie_weights=False,
                 scale_decoder_outputs=False, head_dim=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        ff = 4 * d_model if dim_feedforward is None else dim_feedforward
        self.d_model = d_model
        self.scale_decoder_outputs = scale_decoder_outputs
        self.src_emb = Embedding(src_vocab_size, d_model, **kw)
        if share_embeddings:
            if src_vocab_size != tgt_vocab_size:
                raise ValueError(f"TransformerSeq2Seq: share_embeddings needs one vocabulary, got src_vocab_size="
                                 f"{src_vocab_size} and tgt_vocab_size={tgt_vocab_size}")
            self.tgt_emb = self.src_emb
        else:
            self.tgt_emb = Embedding(tgt_vocab_size, d_model, **kw)
        self.positional = positional
        self.drop = Dropout(dropout)
        layer = dict(dim_feedforward=ff, dropout=dropout, activation=activation, layer_norm_eps=layer_norm_eps,
                     batch_first=True, norm_first=True, bias=bias, scale=scale, num_key_value_heads=num_key_value_heads,
                     rms_norm=rms_norm, glu=glu, head_dim=head_dim, **kw)

        def final_norm():
            return _norm(d_model, layer_norm_eps, bias, rms_norm, kw)

        self.encoder = TransformerEncoder(TransformerEncoderLayer(d_model, nhead, pos=pos, **layer), num_encoder_layers,
                                          final_norm(), enable_nested_tensor=False)
        decoder_pos = copy.deepcopy(pos) if decoder_pos is None else decoder_pos
        self.decoder = TransformerDecoder(TransformerDecoderLayer(d_model, nhead, pos=decoder_pos, **layer),
                                          num_decoder_layers, final_norm())
        self.lm_head = Linear(d_model, tgt_vocab_size, bias=False, **kw)
        if tie_weights:
            _tie(self.lm_head, self.tgt_emb)

    def new_cache(self):
        """An empty KVCache: a self- and a cross-attention cache per decoder layer."""
        return _core.KVCache()

    def encode(self, src, src_key_padding_mask=None):
        x = self.drop(_add_positions(self.src_emb(src), self.positional, 0, "TransformerSeq2Seq"))
        return self.encoder(x, src_key_padding_mask=src_key_padding_mask)

    def decode(self, tgt, memory, cache=None, memory_key_padding_mask=None):
        if tgt.dim() != 2:
            raise ValueError(f"TransformerSeq2Seq: tgt must be (N, T) token ids, got shape {tuple(tgt.shape)}")
        P = 0 if cache is None else cache.get_seq_length()
        mask, is_causal = _self_attention_mask(tgt.shape[1], P)
        x = self.drop(_add_positions(self.tgt_emb(tgt), self.positional, P, "TransformerSeq2Seq"))
        return self._decode_embedded(x, memory, mask, is_causal, memory_key_padding_mask, cache)


_RNN_MODES = {"RNN_TANH": RNN, "RNN_RELU": RNN, "LSTM": LSTM, "GRU": GRU}


def _make_rnn(mode, input_size, hidden_size, num_layers, dropout, kw):
    if mode not in _RNN_MODES:
        raise ValueError(f"unknown rnn mode {mode!r}: expected one of {sorted(_RNN_MODES)}")
    extra = {"nonlinearity": "relu" if mode == "RNN_RELU" else "tanh"} if _RNN_MODES[mode] is RNN else {}
    return _RNN_MODES[mode](input_size, hidden_size, num_layers, batch_first=True, dropout=dropout, **extra, **kw)


class RNNLM(Module, GenerationMixin):
    """A recurrent language model, as PyTorch's word_language_model example: Embedding, a
    multi-layer RNN/LSTM/GRU (batch_first), dropout, a Linear decoder (weight tied to the
    embedding with tie_weights, which needs hidden_size == embedding_dim).

    forward(idx, cache=None, attention_mask=None): idx (N, L) -> logits (N, L, vocab_size). The
    recurrent state is the cache: with an RNNState (new_cache()) the layer starts from its hidden
    state and leaves the new one there, so a step reads only the new tokens. attention_mask (N, P +
    L), Hugging Face's (1 = token, 0 = padding): prompts padded on the left are run as a packed
    batch (each row from the zero state at its first token, its state the one after its last), so
    a row computes what it would alone; the logits at padding positions are those of a zero
    output."""

    def __init__(self, vocab_size, embedding_dim=128, hidden_size=128, num_layers=1, mode="LSTM", dropout=0.0,
                 tie_weights=False, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embedding = Embedding(vocab_size, embedding_dim, **kw)
        self.rnn = _make_rnn(mode, embedding_dim, hidden_size, num_layers, dropout, kw)
        self.drop = Dropout(dropout)
        self.decoder = Linear(hidden_size, vocab_size, **kw)
        if tie_weights:
            _tie(self.decoder, self.embedding)

    def new_cache(self):
        return RNNState()

    def forward(self, idx, cache=None, attention_mask=None):
        N, L, P, keep = _step_shape(idx, cache, attention_mask, "RNNLM")
        h0 = None if cache is None else cache.hidden
        return rnn_lm_step(self, self.drop(self.embedding(idx)), h0, keep, P, cache, _run_left_padded)


def _run_left_padded(rnn, x, keep):
    """rnn (batch_first) over x (N, L, E) whose rows are padded on the left (keep (N, L): False =
    padding): each row's tokens are moved to its front, run as a packed sequence (so each row
    starts from the zero state and its final state is the one after its last token), and the
    outputs moved back to the tokens' places; padding positions get a zero output."""
    N, L = keep.shape
    lengths = keep.sum(axis=1)
    pads = L - lengths
    t = np.arange(L)[None, :]
    rows = np.arange(N)[:, None] * L
    to_front = rows + np.where(t < lengths[:, None], pads[:, None] + t, 0)      # the token at front index t
    back = rows + np.where(t >= pads[:, None], t - pads[:, None], lengths[:, None] % L)  # a zero output for padding
    front = x.reshape(N * L, -1).index_select(0, _core.from_numpy(to_front.reshape(-1))).reshape(N, L, -1)
    packed = pack_padded_sequence(front, _core.from_numpy(lengths.astype(np.int64)), batch_first=True,
                                  enforce_sorted=False)
    out, hidden = rnn(packed)
    out = pad_packed_sequence(out, batch_first=True, total_length=L)[0]
    return out.reshape(N * L, -1).index_select(0, _core.from_numpy(back.reshape(-1))).reshape(N, L, -1), hidden


class RNNSeq2Seq(RNNSeq2SeqSteps, Module, GenerationMixin):
    """An RNN encoder-decoder (Sutskever et al. 2014; Cho et al. 2014): the encoder's final state
    starts the decoder. encode(src) -> the encoder's final hidden state (the "memory");
    decode(tgt, memory, cache=None) -> logits (N, T, tgt_vocab); forward(src, tgt) (teacher
    forcing). The decoder's running state is the cache (RNNState)."""

    is_encoder_decoder = True

    def __init__(self, src_vocab_size, tgt_vocab_size, embedding_dim=64, hidden_size=128, num_layers=1, mode="GRU",
                 dropout=0.0, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.src_emb = Embedding(src_vocab_size, embedding_dim, **kw)
        self.tgt_emb = Embedding(tgt_vocab_size, embedding_dim, **kw)
        self.encoder = _make_rnn(mode, embedding_dim, hidden_size, num_layers, dropout, kw)
        self.decoder = _make_rnn(mode, embedding_dim, hidden_size, num_layers, dropout, kw)
        self.out = Linear(hidden_size, tgt_vocab_size, **kw)

    def new_cache(self):
        return RNNState()
