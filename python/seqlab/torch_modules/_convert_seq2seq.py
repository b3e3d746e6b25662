"""The seq2seq pieces across: nn.Seq2SeqAttention <-> the torch twin of .seq2seq_attention (its
constructor arguments, which both keep under one name) and nn.RNNSeq2Seq <-> the twin of
.recurrent (to torch: its children converted one by one, to torch.nn's Embedding, GRU / LSTM / RNN
and Linear; back: seqlab's RNNSeq2Seq of their sizes and mode).
Registered with _convert.register when seqlab.torch_modules is imported. Tests:
tests/test_to_torch_seq2seq.py."""
from .. import nn as snn
from . import recurrent as TR
from . import seq2seq_attention as TA
from ._convert import _to_torch, register, rnn_mode

_ATTENTION_ARGS = ("query_size", "key_size", "score", "hidden_size", "bias")


def _attention_args(m):
    """The constructor arguments (hidden_size is 0 for a score other than 'additive', and ignored)."""
    return {name: getattr(m, name) for name in _ATTENTION_ARGS}


def _attention_to_torch(m, owner):
    return TA.Seq2SeqAttention(**_attention_args(m))


def _attention_from_torch(m, owner):
    return snn.Seq2SeqAttention(**_attention_args(m))


_SEQLAB_CHILDREN = ("src_emb", "tgt_emb", "encoder", "decoder", "out")


def _rnn_seq2seq_to_torch(m, owner):
    return TR.RNNSeq2Seq(*(_to_torch(getattr(m, name), f"{owner}.{name}") for name in _SEQLAB_CHILDREN))


def _rnn_seq2seq_from_torch(m, owner):
    enc, dec = m.encoder, m.decoder
    shape = lambda r: (rnn_mode(r), r.input_size, r.hidden_size, r.num_layers, r.dropout, r.bias,  # noqa: E731
                       r.batch_first, r.bidirectional, getattr(r, "proj_size", 0))
    if shape(enc) != shape(dec) or not enc.batch_first or enc.bidirectional or not enc.bias or shape(enc)[-1] or \
            m.src_emb.embedding_dim != enc.input_size or m.tgt_emb.embedding_dim != enc.input_size or \
            m.out.in_features != enc.hidden_size or m.out.bias is None:
        raise NotImplementedError(f"from_torch: {owner} is an RNNSeq2Seq whose parts are not those of seqlab's (one "
                                  "batch_first, unidirectional RNN with biases, of the embeddings' size, as encoder "
                                  "and decoder; a Linear with a bias over its outputs)")
    return snn.RNNSeq2Seq(m.src_emb.num_embeddings, m.tgt_emb.num_embeddings, enc.input_size, enc.hidden_size,
                          enc.num_layers, rnn_mode(enc), enc.dropout)


register(snn.Seq2SeqAttention, TA.Seq2SeqAttention, _attention_to_torch, _attention_from_torch)
register(snn.RNNSeq2Seq, TR.RNNSeq2Seq, _rnn_seq2seq_to_torch, _rnn_seq2seq_from_torch)
