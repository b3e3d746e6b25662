"""generate() for the torch twins of seqlab's language models: Hugging Face's arguments and rules
(greedy, sampling with temperature / top_k / top_p, beam search with a length penalty), as seqlab's
model.generate(). The model runs in torch, on its device, with its own cache (new_cache(),
forward(idx, attention_mask=None, cache=None)); the decoding loop is seqlab's
(python/seqlab/generation/utils.py: numpy bookkeeping on the CPU), which reads each step's
last-position logits (one (N, V) row per step crosses to the CPU)."""
import torch

__all__ = ["GenerationMixin", "as_index"]


class GenerationMixin:
    @torch.no_grad()
    def generate(self, input_ids, **kwargs):
        """The sequences (or, with return_dict_in_generate, their dict) as torch tensors on the
        model's device; the arguments are seqlab's (and Hugging Face's) generate()'s."""
        from .. import _core
        from ..generation.utils import generate
        device = next(self.parameters()).device
        ids = _core.from_dlpack(input_ids.detach().cpu().contiguous())
        mask = kwargs.get("attention_mask")
        if isinstance(mask, torch.Tensor):
            kwargs["attention_mask"] = _core.from_dlpack(mask.detach().cpu().contiguous())
        was_training = self.training
        self.eval()
        try:
            out = generate(_SeqlabView(self, device), ids, **kwargs)
        finally:
            self.train(was_training)
        return _to_torch_tensors(out, device)


class _SeqlabView:
    """The torch model as seqlab's decoding loop calls a model: seqlab tensors of token ids in,
    seqlab tensors of logits out."""

    is_encoder_decoder = False

    def __init__(self, model, device):
        self.model, self.device = model, device

    def new_cache(self):
        return self.model.new_cache()

    def forward(self, idx, cache=None, attention_mask=None):
        from .. import _core
        ids = torch.from_dlpack(idx).to(self.device)
        mask = None if attention_mask is None else torch.from_dlpack(attention_mask).to(self.device)
        logits = self.model(ids, attention_mask=mask, cache=cache)
        return _core.from_dlpack(logits.detach().cpu().contiguous())

    __call__ = forward


def as_index(beam_idx):
    """A cache's reorder_cache(beam_idx) index as a torch tensor: seqlab's decoding loop passes a
    seqlab tensor (a user may pass torch's)."""
    return beam_idx if isinstance(beam_idx, torch.Tensor) else torch.from_dlpack(beam_idx)


def _to_torch_tensors(out, device):
    """seqlab tensors (alone, in tuples or in an output dict) as torch tensors on `device`."""
    from .. import _core
    if isinstance(out, _core.Tensor):
        return torch.from_dlpack(out).to(device)
    if isinstance(out, dict):
        return type(out)(**{k: _to_torch_tensors(v, device) for k, v in out.items()})
    if isinstance(out, (tuple, list)):
        return type(out)(_to_torch_tensors(v, device) for v in out)
    return out
