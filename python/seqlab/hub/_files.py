"""Finding and reading a Hugging Face model directory: config.json, the weights (model.safetensors,
a sharded model.safetensors.index.json, or pytorch_model.bin through torch), generation_config.json.

A name that is not a directory is fetched with huggingface_hub (into its usual cache) when that
package is installed; without it, or without a network, the error says so and what to do."""
import json
import os

import numpy as np

from .. import _core, serialization

WEIGHTS = "model.safetensors"
SHARDED = "model.safetensors.index.json"
TORCH_WEIGHTS = "pytorch_model.bin"
# What from_pretrained reads of a repository on the Hub (no other weights formats, no ONNX or TF copies)
_PATTERNS = ["config.json", "generation_config.json", "*.safetensors", SHARDED, "tokenizer*", "vocab*", "merges.txt",
             "special_tokens_map.json", "*.model"]


def resolve(path_or_name, revision=None, cache_dir=None, local_files_only=False):
    """The local directory of a model: path_or_name itself when it is one, else the Hub's snapshot."""
    if os.path.isdir(path_or_name):
        return os.fspath(path_or_name)
    name = os.fspath(path_or_name)
    if os.path.exists(name):
        raise ValueError(f"seqlab.hub.from_pretrained: {name} is a file; pass the model's directory (the one "
                         "holding config.json)")
    try:
        import huggingface_hub
    except ImportError:
        raise FileNotFoundError(f"seqlab.hub.from_pretrained: {name!r} is not a directory, and huggingface_hub is "
                                "not installed to fetch it (pip install huggingface_hub, or pass the directory "
                                "save_pretrained wrote)") from None
    try:
        return huggingface_hub.snapshot_download(name, revision=revision, cache_dir=cache_dir,
                                                 local_files_only=local_files_only, allow_patterns=_PATTERNS)
    except Exception as e:  # offline, unknown repository, gated model, ...: all end here
        raise FileNotFoundError(
            f"seqlab.hub.from_pretrained: {name!r} is not a directory and could not be fetched from the Hugging "
            f"Face Hub ({type(e).__name__}: {e}). With no network, download it on a machine that has one "
            f"(huggingface-cli download {name}) and pass its directory, or copy the Hub cache over") from None


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError(f"seqlab.hub: {path} is not valid JSON ({e})") from None
    if not isinstance(value, dict):
        raise ValueError(f"seqlab.hub: {path} holds a JSON {type(value).__name__}, not an object")
    return value


def read_config(directory):
    path = os.path.join(directory, "config.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"seqlab.hub.from_pretrained: {directory} has no config.json (is it a Hugging Face "
                                "model directory, as save_pretrained writes?)")
    return path, read_json(path)


def read_generation_config(directory):
    path = os.path.join(directory, "generation_config.json")
    return read_json(path) if os.path.isfile(path) else {}


# NumPy dtype -> seqlab dtype of the arrays read_weights gives (bfloat16 is ml_dtypes', looked up by name)
_SEQLAB_OF = {np.dtype(np.float32): _core.dtype.float32, np.dtype(np.float64): _core.dtype.float64,
              np.dtype(np.float16): _core.dtype.float16, np.dtype(np.int64): _core.dtype.int64,
              np.dtype(np.int32): _core.dtype.int32, np.dtype(np.int16): _core.dtype.int16,
              np.dtype(np.int8): _core.dtype.int8, np.dtype(np.uint8): _core.dtype.uint8,
              np.dtype(np.bool_): _core.dtype.bool}


def array_dtype(array):
    """The seqlab dtype of an array read_weights gives (None for one seqlab has not)."""
    if array.dtype.name == "bfloat16":
        return _core.dtype.bfloat16
    return _SEQLAB_OF.get(array.dtype)


def as_tensor(array):
    """A seqlab tensor of the array's dtype over its memory when it can (C-contiguous, aligned),
    else over a copy; a bfloat16 array's bytes are read bit for bit."""
    if not (array.flags.c_contiguous and array.flags.aligned):
        array = np.ascontiguousarray(array)
    dtype = array_dtype(array)
    if dtype == _core.dtype.bfloat16:
        return _core._from_numpy_as(array, dtype)
    return _core.from_numpy(array)


def read_weights(directory):
    """{name: (NumPy array, the file it came from)} of every tensor of the checkpoint, in the
    file's dtype (float16 as NumPy's, bfloat16 as ml_dtypes')."""
    single, index = os.path.join(directory, WEIGHTS), os.path.join(directory, SHARDED)
    if os.path.isfile(single):
        return _safetensors(single)
    if os.path.isfile(index):
        return _sharded(index, directory)
    torch_file = os.path.join(directory, TORCH_WEIGHTS)
    if os.path.isfile(torch_file):
        return _torch_bin(torch_file)
    raise FileNotFoundError(f"seqlab.hub.from_pretrained: {directory} has no weights: expected {WEIGHTS}, {SHARDED} "
                            f"or {TORCH_WEIGHTS}")


def _safetensors(path):
    # serialization._array: a bfloat16 tensor as ml_dtypes' array (Tensor.numpy() refuses it, as torch's)
    return {name: (serialization._array(t), path) for name, t in serialization.load(path).items()}


def _sharded(index, directory):
    weight_map = read_json(index).get("weight_map")
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise ValueError(f"seqlab.hub: {index} has no weight_map of tensor names to shard files")
    tensors = {}
    for shard in sorted(set(weight_map.values())):
        path = os.path.join(directory, shard)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"seqlab.hub: {index} lists the shard {shard}, which {directory} does not have")
        tensors.update(_safetensors(path))
    missing = sorted(set(weight_map) - set(tensors))
    if missing:
        raise ValueError(f"seqlab.hub: {index} puts the tensor {missing[0]!r} in {weight_map[missing[0]]}, which does "
                         f"not hold it ({len(missing)} such tensors)")
    return tensors


def _torch_bin(path):
    try:
        import torch
    except ImportError:
        raise ImportError(f"seqlab.hub: {path} is a torch.save file, which needs torch to read (pip install torch, "
                          "or convert it to model.safetensors)") from None
    state = torch.load(path, map_location="cpu", weights_only=True)
    out = {}
    for name, t in state.items():
        t = t.detach()
        if t.dtype == torch.bfloat16:  # its bits, as ml_dtypes' bfloat16 (torch's numpy() refuses it)
            out[name] = (t.view(torch.int16).numpy().copy().view(serialization._numpy_dtype("BF16")), path)
        else:
            out[name] = (t.numpy().copy(), path)
    return out
