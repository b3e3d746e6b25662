"""Hugging Face checkpoints in seqlab: from_pretrained(path_or_name) reads a model directory
(config.json, model.safetensors or its shards, generation_config.json) and returns the seqlab
model of that architecture, built from seqlab's own layers and positional schemes:

    model = seqlab.hub.from_pretrained("path/to/gpt2")     # an nn.TransformerLM, in eval mode
    tok = seqlab.hub.tokenizer("path/to/gpt2")             # transformers' or tokenizers' tokenizer
    ids = seqlab.tensor([tok.encode("In the beginning")])
    model.generate(ids, max_new_tokens=20, num_beams=4)

Supported (model_type in config.json): gpt2 (learned positions, Conv1D layout, tied head; gpt2.py),
bloom (ALiBi, embedding LayerNorm, per-head fused QKV; bloom.py), llama (RoPE, RMSNorm, SwiGLU,
grouped-query attention; llama.py), all as nn.TransformerLM, and t5 (relative bias, RMSNorm,
ReLU or gated-GELU feed-forward; t5.py) as nn.TransformerSeq2Seq, and deberta-v2 (DeBERTa-v2 and v3:
disentangled attention, log-bucketed distances, a masked-LM head; deberta_v2.py) as
nn.TransformerMaskedLM. Each file maps one
architecture's config fields and tensor names onto the seqlab model's; nothing else is specific to
a model. A config field or tensor seqlab cannot honour is an error naming the file and the field or
tensor, raised before any weight is copied in.

Weights load in float32 (F16 / BF16 checkpoints exactly widened) or, with dtype=seqlab.float64,
in float64. A name that is not a directory is fetched with huggingface_hub into its cache, when that
package is installed and there is a network. The model keeps config.json as model.config (its
fields as attributes) and generation_config.json's generate() arguments (eos_token_id, ...) as
model.generation_config, which model.generate() uses as its defaults, as Hugging Face's does."""
import os
import types

from .. import _core
from ..generation.utils import _DEFAULTS
from ..nn.lm import _FromPretrained
from ..nn.utils.init import _no_init
from . import bloom, deberta_v2, gpt2, llama, t5  # noqa: F401  (each registers its architecture)
from ._architecture import Architecture
from ._checkpoint import Checkpoint, Config
from ._files import read_config, read_generation_config, read_weights, resolve

__all__ = ["from_pretrained", "tokenizer", "supported_architectures"]


def supported_architectures():
    """The model_type values from_pretrained reads."""
    return sorted(Architecture.registry)


def from_pretrained(path_or_name, dtype=None, revision=None, cache_dir=None, local_files_only=False):
    """The seqlab model of a Hugging Face model directory (or Hub name), in eval mode."""
    if dtype not in (None, _core.dtype.float32, _core.dtype.float64):
        raise ValueError(f"seqlab.hub.from_pretrained: dtype must be seqlab.float32 or seqlab.float64, got {dtype!r}")
    directory = resolve(path_or_name, revision, cache_dir, local_files_only)
    path, values = read_config(directory)
    config = Config(values, path)
    arch = Architecture.registry.get(config.model_type)
    if arch is None:
        raise NotImplementedError(f"seqlab.hub: {path}: model_type = {config.model_type!r} is not an architecture "
                                  f"seqlab reads (supported: {', '.join(supported_architectures())})")
    with _no_init():  # every parameter is loaded below, or from_pretrained fails
        model = arch.build(config, dtype)
    arch.load(model, config, Checkpoint(read_weights(directory), arch.prefix, arch.ignored))
    model.config = types.SimpleNamespace(**values)
    model.generation_config = {**arch.generation_defaults(config),
                               **{k: v for k, v in read_generation_config(directory).items() if k in _DEFAULTS}}
    return model.eval()


_FromPretrained._loader = staticmethod(from_pretrained)  # TransformerLM.from_pretrained & co. (nn/lm.py)


def tokenizer(path_or_name, **kwargs):
    """The model's tokenizer: transformers.AutoTokenizer when transformers is installed, else the
    `tokenizers` library's Tokenizer from tokenizer.json."""
    directory = resolve(path_or_name, kwargs.pop("revision", None), kwargs.pop("cache_dir", None),
                        kwargs.pop("local_files_only", False))
    try:
        from transformers import AutoTokenizer
    except ImportError:
        pass
    else:
        return AutoTokenizer.from_pretrained(directory, **kwargs)
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise ImportError("seqlab.hub.tokenizer needs transformers or tokenizers (pip install tokenizers)") from None
    path = os.path.join(directory, "tokenizer.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"seqlab.hub.tokenizer: {directory} has no tokenizer.json (install transformers to "
                                "read the other tokenizer formats)")
    return Tokenizer.from_file(path)
