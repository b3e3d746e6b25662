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
and glu, TransformerLM), encoder_decoder.py (TransformerDecoderLayer with those options, the
stacks of twin layers, TransformerSeq2Seq), masked_lm.py (TransformerMaskedLM), recurrent.py (RNNLM,
RNNSeq2Seq), seq2seq_attention.py (Seq2SeqAttention, every score), generation.py (their generate(),
encoder-decoders too). Conversion: _convert.py (torch.nn's own layers, the layers with seqlab's
options, the LMs; the others register with it: _convert_positional.py the schemes,
_convert_seq2seq.py the recurrent seq2seq pieces, _convert_models.py the encoder-decoder and the
masked LM, _convert_user.py a user's own Module subclass, its forward reused). Scale-out with
torch.distributed: python -m seqlab.experiments.scale_out. Tests: tests/test_to_torch*.py."""
from . import positional  # noqa: F401
from ._convert import from_torch, to_torch
from . import _convert_seq2seq  # noqa: F401  (registers Seq2SeqAttention and RNNSeq2Seq)
from . import _convert_models  # noqa: F401  (registers TransformerSeq2Seq and TransformerMaskedLM)
from .encoder_decoder import TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerSeq2Seq
from .masked_lm import TransformerMaskedLM
from .recurrent import RNNLM, RNNSeq2Seq
from .seq2seq_attention import Seq2SeqAttention
from .transformer import MultiheadAttention, TransformerEncoderLayer, TransformerLM

__all__ = ["to_torch", "from_torch", "MultiheadAttention", "TransformerEncoderLayer", "TransformerLM", "RNNLM",
           "RNNSeq2Seq", "Seq2SeqAttention", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
           "TransformerSeq2Seq", "TransformerMaskedLM", "positional"]
