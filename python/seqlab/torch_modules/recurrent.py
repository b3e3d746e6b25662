"""seqlab.nn.RNNLM and seqlab.nn.RNNSeq2Seq in torch, built from torch.nn.Embedding, torch.nn.LSTM /
GRU / RNN (batch_first) and Linear under seqlab's submodule names.

RNNLM: dropout and a Linear decoder (tied to the embedding or not); forward(idx,
attention_mask=None, cache=None) with seqlab's rules: the cache is the recurrent state (an
RNNState), and prompts padded on the left run as a packed batch, each row from the zero state at
its first token.
RNNSeq2Seq: an encoder RNN whose final state (the memory) starts a decoder RNN; encode(src),
decode(tgt, memory, cache=None), forward(src, tgt); the decoder's running state is the cache.
generate() as seqlab's for both (generation.py). Tests: tests/test_to_torch.py,
tests/test_to_torch_seq2seq.py."""
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..generation.utils import RNNState as _RNNState
from ..nn._twin_steps import RNNSeq2SeqSteps, rnn_lm_step
from .generation import GenerationMixin, as_index

__all__ = ["RNNLM", "RNNSeq2Seq", "RNNState"]


class RNNState(_RNNState):
    """seqlab's recurrent-state cache (h, or (h, c), and the positions read), holding torch tensors:
    beam search's row index is made a torch tensor on the state's device."""

    def reorder_cache(self, beam_idx):
        if self.hidden is not None:
            device = (self.hidden[0] if isinstance(self.hidden, tuple) else self.hidden).device
            super().reorder_cache(as_index(beam_idx).to(device))


class RNNLM(GenerationMixin, torch.nn.Module):
    """Embedding -> a multi-layer RNN -> dropout -> Linear, as seqlab's RNNLM (and PyTorch's
    word_language_model example); built from torch modules (to_torch converts seqlab's)."""

    def __init__(self, embedding, rnn, dropout, decoder, tie_weights=False):
        super().__init__()
        self.embedding, self.rnn, self.drop, self.decoder = embedding, rnn, torch.nn.Dropout(dropout), decoder
        if tie_weights:
            self.decoder.weight = self.embedding.weight

    def new_cache(self):
        return RNNState()

    def forward(self, idx, attention_mask=None, cache=None):
        N, L = idx.shape
        P = 0 if cache is None else cache.get_seq_length()
        h0 = None if cache is None else cache.hidden
        x = self.drop(self.embedding(idx))
        keep = None if attention_mask is None else attention_mask.to(device=idx.device, dtype=torch.bool)
        return rnn_lm_step(self, x, h0, keep, P, cache, _run_left_padded)


class RNNSeq2Seq(RNNSeq2SeqSteps, GenerationMixin, torch.nn.Module):
    """An RNN encoder-decoder as seqlab's RNNSeq2Seq (Sutskever et al. 2014; Cho et al. 2014):
    src_emb -> encoder, whose final state (the memory: h, or (h, c) for an LSTM) starts the
    decoder over tgt_emb; out maps the decoder's outputs to the target vocabulary. Built from torch
    modules (to_torch converts seqlab's): two Embeddings, two torch.nn.GRU / LSTM / RNN of the same
    kind and size (batch_first) and a Linear.

    encode(src, src_key_padding_mask=None) -> memory (seqlab's takes no padding mask: a ValueError);
    decode(tgt, memory, cache=None, memory_key_padding_mask=None) -> logits (N, T, tgt_vocab):
    from the cache's state once it has one (an RNNState, new_cache()), else from the memory;
    the memory padding mask is accepted and not used, as in seqlab; forward(src, tgt) =
    decode(tgt, encode(src)) (teacher forcing)."""

    is_encoder_decoder = True

    def __init__(self, src_emb, tgt_emb, encoder, decoder, out):
        super().__init__()
        self.src_emb, self.tgt_emb, self.encoder, self.decoder, self.out = src_emb, tgt_emb, encoder, decoder, out

    def new_cache(self):
        return RNNState()


def _run_left_padded(rnn, x, keep):
    """rnn over rows padded on the left: each row's tokens moved to its front and run packed, the
    outputs moved back; padding positions get a zero output (as seqlab's)."""
    N, L = keep.shape
    lengths = keep.sum(1)
    pads = L - lengths
    t = torch.arange(L, device=x.device)[None, :]
    front = torch.where(t < lengths[:, None], pads[:, None] + t, torch.zeros_like(t))
    packed = pack_padded_sequence(x.gather(1, front[..., None].expand(N, L, x.shape[-1])), lengths.cpu(),
                                  batch_first=True, enforce_sorted=False)
    out, hidden = rnn(packed)
    out = pad_packed_sequence(out, batch_first=True, total_length=L)[0]
    back = torch.where(t >= pads[:, None], t - pads[:, None], (lengths % L)[:, None].expand(N, L))
    out = out.gather(1, back[..., None].expand(N, L, out.shape[-1]))
    return out, hidden
