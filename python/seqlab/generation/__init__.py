"""seqlab.generation: decoding language models (greedy, sampling with temperature / top-k /
top-p, beam search with a length penalty), with Hugging Face's generate() argument names, and
the logits processing it uses. utils.py: the decoding loops; logits_process.py: the filters.
The models (seqlab.nn.TransformerLM, TransformerSeq2Seq, RNNLM, RNNSeq2Seq) are in
seqlab/nn/lm.py; the attention key/value cache is seqlab.nn.KVCache (DESIGN.md, "Generation")."""
from .logits_process import temperature_scale, top_k_filter, top_p_filter  # noqa: F401
from .utils import (GenerateBeamOutput, GenerationMixin, RNNState, beam_search, generate, greedy_search,  # noqa: F401
                    sample)

__all__ = ["generate", "greedy_search", "sample", "beam_search", "GenerationMixin", "GenerateBeamOutput", "RNNState",
           "temperature_scale", "top_k_filter", "top_p_filter"]
