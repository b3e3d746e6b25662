"""seqlab <-> PyTorch state dicts.

torch -> seqlab needs nothing here: Module.load_state_dict accepts torch tensors (through
DLPack) as well as seqlab tensors and NumPy arrays. seqlab -> torch is to_torch_state_dict."""
import collections

from .._core import Tensor
from .modules.module import Module

__all__ = ["to_torch_state_dict"]


def to_torch_state_dict(module):
    """An OrderedDict of torch tensors that the torch model with the same structure loads
    with strict=True: ``torch_model.load_state_dict(to_torch_state_dict(model))``.

    `module` is a seqlab Module (its state_dict() is converted) or a state dict of seqlab
    tensors. The torch tensors share memory with seqlab's (DLPack, zero-copy), as a torch
    state_dict() shares memory with its model: clone them to keep a snapshot."""
    import torch  # only needed here; seqlab itself does not depend on torch

    state = module.state_dict() if isinstance(module, Module) else module
    out = collections.OrderedDict()
    for key, value in state.items():
        if isinstance(value, Tensor):
            value = torch.from_dlpack(value.detach())
        elif not isinstance(value, torch.Tensor):
            raise TypeError(f"to_torch_state_dict(): value for {key!r} is a {type(value).__name__}, "
                            "not a tensor")
        out[key] = value
    metadata = getattr(state, "_metadata", None)
    if metadata is not None:  # per-module versions, read by torch's BatchNorm on load
        out._metadata = collections.OrderedDict((k, dict(v)) for k, v in metadata.items())
    return out
