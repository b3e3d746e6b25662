"""seqlab.generation: decoding language models (greedy, sampling with temperature / top-k /
top-p, beam search with a length penalty), with Hugging Face's generate() argument names, the
logits processing it uses and its streamers. utils.py: the decoding loops; logits_process.py: the
processors and warpers; streamers.py: text as it is generated. The models (seqlab.nn.TransformerLM,
TransformerSeq2Seq, RNNLM, RNNSeq2Seq) are in seqlab/nn/lm.py; the attention key/value cache is
seqlab.nn.KVCache (DESIGN.md, "Generation")."""
from .logits_process import (LogitsProcessor, LogitsProcessorList, MinLengthLogitsProcessor,  # noqa: F401
                             MinNewTokensLengthLogitsProcessor, NoRepeatNGramLogitsProcessor,
                             RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper, TopKLogitsWarper,
                             TopPLogitsWarper, temperature_scale, top_k_filter, top_p_filter)
from .streamers import BaseStreamer, TextStreamer  # noqa: F401
from .utils import (GenerateBeamOutput, GenerateOutput, GenerationMixin, RNNState, beam_search, generate,  # noqa: F401
                    greedy_search, sample)

__all__ = ["generate", "greedy_search", "sample", "beam_search", "GenerationMixin", "GenerateOutput",
           "GenerateBeamOutput", "RNNState", "temperature_scale", "top_k_filter", "top_p_filter", "LogitsProcessor",
           "LogitsProcessorList", "TemperatureLogitsWarper", "TopKLogitsWarper", "TopPLogitsWarper",
           "RepetitionPenaltyLogitsProcessor", "NoRepeatNGramLogitsProcessor", "MinLengthLogitsProcessor",
           "MinNewTokensLengthLogitsProcessor", "BaseStreamer", "TextStreamer"]
