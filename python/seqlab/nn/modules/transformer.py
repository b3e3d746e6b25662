"""seqlab.nn.modules.transformer: torch.nn.modules.transformer's import path for classes defined in seqlab.nn."""
from ..transformer import TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder, Transformer  # noqa: F401

__all__ = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder", "Transformer"]
