"""seqlab models in PyTorch, for when a project outgrows the laptop: seqlab.to_torch(module) returns
a torch.nn.Module computing the same function with the same parameters (torch's own class where
torch.nn has the layer; otherwise the torch twin written here), ready for .to("cuda"), .half() and
torch.nn.parallel.DistributedDataParallel; seqlab.from_torch(module) brings it back for the
notebooks (attention maps, gradient norms, the Shannon game).

    tm = seqlab.to_torch(model)             # e.g. an nn.TransformerLM with ALiBi
    ...train tm with torch (GPUs, DDP)...
    model = seqlab.from_torch(tm)

Importing this package imports torch; seqlab itself does not need torch (seqlab.to_torch imports
it when called). Twins: positional.py (every scheme of seqlab.nn.positional: ALiBi, RoPE,
T5RelativeBias, KERPLE, Shaw, Transformer-XL, DeBERTa, DA and the absolute ones),
transformer.py (MultiheadAttention with seqlab's options, TransformerEncoderLayer with rms_norm
and glu, TransformerLM), recurrent.py (RNNLM, RNNSeq2Seq), seq2seq_attention.py (Seq2SeqAttention,
every score), generation.py (their generate(), encoder-decoders too); conversion: _convert.py
(_convert_seq2seq.py registers the seq2seq pieces). Scale-out with torch.distributed:
python -m seqlab.experiments.scale_out. Tests: tests/test_to_torch.py, tests/test_to_torch_seq2seq.py."""
from . import positional  # noqa: F401
from ._convert import from_torch, to_torch
from . import _convert_seq2seq  # noqa: F401  (registers Seq2SeqAttention and RNNSeq2Seq)
from .recurrent import RNNLM, RNNSeq2Seq
from .seq2seq_attention import Seq2SeqAttention
from .transformer import MultiheadAttention, TransformerEncoderLayer, TransformerLM

__all__ = ["to_torch", "from_torch", "MultiheadAttention", "TransformerEncoderLayer", "TransformerLM", "RNNLM",
           "RNNSeq2Seq", "Seq2SeqAttention", "positional"]
