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

Weights load in float32 by default, whatever the checkpoint's dtype (a float16 / bfloat16 one is
widened exactly), as Hugging Face's from_pretrained does without torch_dtype; dtype=seqlab.float64,
float16 or bfloat16 (or its name, "float16") loads them in that dtype, and dtype="auto" in the
checkpoint's own: config.json's torch_dtype (or dtype) when it has one, else the dtype of the
first floating-point tensor in the weights, as Hugging Face's torch_dtype="auto". torch_dtype= is
accepted as dtype's older name, as in transformers. A name that is not a directory is fetched with huggingface_hub into its cache, when that
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
from ._files import array_dtype, read_config, read_generation_config, read_weights, resolve

__all__ = ["from_pretrained", "tokenizer", "supported_architectures"]


def supported_architectures():
    """The model_type values from_pretrained reads."""
    return sorted(Architecture.registry)


_FLOATING = {"float32": _core.dtype.float32, "float64": _core.dtype.float64, "float16": _core.dtype.float16,
             "bfloat16": _core.dtype.bfloat16}
# config.json's torch_dtype names, torch's aliases among them
_NAMES = {**_FLOATING, "float": _core.dtype.float32, "double": _core.dtype.float64, "half": _core.dtype.float16}


def _dtype(dtype):
    """from_pretrained's dtype argument as a seqlab dtype, "auto", or None (float32)."""
    if isinstance(dtype, str) and dtype != "auto":
        dtype = _NAMES.get(dtype.removeprefix("torch."), dtype)
    if dtype is None or dtype == "auto" or (isinstance(dtype, _core.dtype) and dtype in _FLOATING.values()):
        return dtype
    raise ValueError(f"seqlab.hub.from_pretrained: dtype must be a floating-point dtype (seqlab.float32, float64, "
                     f"float16 or bfloat16, or its name) or 'auto', got {dtype!r}")


def _auto_dtype(config, read):
    """torch_dtype="auto": config.json's torch_dtype (dtype in newer transformers), else the dtype of
    the first floating-point tensor of the checkpoint, else float32 (Hugging Face's rule)."""
    for key in ("torch_dtype", "dtype"):
        name = config.values.get(key)
        if isinstance(name, str) and name != "auto":
            if name.removeprefix("torch.") not in _NAMES:
                raise ValueError(f"seqlab.hub: {config.path}: {key} = {name!r} is not a floating-point dtype seqlab "
                                 f"has (float32, float64, float16, bfloat16)")
            return _NAMES[name.removeprefix("torch.")]
    for array, _ in read().values():
        dtype = array_dtype(array)
        if dtype is not None and dtype.is_floating_point:
            return dtype
    return _core.dtype.float32


def from_pretrained(path_or_name, dtype=None, revision=None, cache_dir=None, local_files_only=False, *,
                    torch_dtype=None):
    """The seqlab model of a Hugging Face model directory (or Hub name), in eval mode, its weights
    in float32, in `dtype`, or (dtype="auto") in the checkpoint's dtype."""
    if torch_dtype is not None:
        if dtype is not None:
            raise ValueError("seqlab.hub.from_pretrained: give dtype or torch_dtype (its older name), not both")
        dtype = torch_dtype
    dtype = _dtype(dtype)
    directory = resolve(path_or_name, revision, cache_dir, local_files_only)
    path, values = read_config(directory)
    config = Config(values, path)
    arch = Architecture.registry.get(config.model_type)
    if arch is None:
        raise NotImplementedError(f"seqlab.hub: {path}: model_type = {config.model_type!r} is not an architecture "
                                  f"seqlab reads (supported: {', '.join(supported_architectures())})")
    weights = []  # read once, after the config's checks unless "auto" needs them first

    def read():
        if not weights:
            weights.append(read_weights(directory))
        return weights[0]

    if dtype == "auto":
        dtype = _auto_dtype(config, read)
    with _no_init():  # every parameter is loaded below, or from_pretrained fails
        model = arch.build(config, dtype)
    arch.load(model, config, Checkpoint(read(), arch.prefix, arch.ignored))
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
