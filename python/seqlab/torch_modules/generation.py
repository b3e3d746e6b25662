"""generate() for the torch twins of seqlab's language models: Hugging Face's arguments and rules
(greedy, sampling with temperature / top_k / top_p, beam search with a length penalty), as seqlab's
model.generate(). The model runs in torch, on its device, with its own cache (new_cache(); a
decoder-only twin: forward(idx, attention_mask=None, cache=None); an encoder-decoder one, with
is_encoder_decoder = True: encode(src, src_key_padding_mask=None) and decode(tgt, memory,
cache=None, memory_key_padding_mask=None)); the decoding loop is seqlab's
(python/seqlab/generation/utils.py: numpy bookkeeping on the CPU), which reads each step's
last-position logits (one (N, V) row per step crosses to the CPU).

Token ids and masks cross as tensors (a mask: torch bool, True = padding, for the encoder-decoder
calls); the encoder's memory does not cross at all: the loop only hands it back to decode, so it
stays the twin's own object on its device (a transformer's (N, S, E) tensor, a recurrent state h or
(h, c)). Beam search encodes each input once per beam (the loop expands the source rows), so the
memory never needs reordering; the cache is reordered by its reorder_cache."""
import torch

from .. import _core
from ..generation.utils import generate

__all__ = ["GenerationMixin", "as_index"]


class GenerationMixin:
    @torch.no_grad()
    def generate(self, input_ids, **kwargs):
        """The sequences (or, with return_dict_in_generate, their dict) as torch tensors on the
        model's device; the arguments are seqlab's (and Hugging Face's) generate()'s."""
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
    """The torch model as seqlab's decoding loop calls a model: seqlab tensors of token ids (and
    masks) in, seqlab tensors of logits out; an encoder-decoder's memory passes through as the
    model's torch object."""

    def __init__(self, model, device):
        self.model, self.device = model, device
        self.is_encoder_decoder = bool(getattr(model, "is_encoder_decoder", False))

    def new_cache(self):
        return self.model.new_cache()

    def _torch(self, t):
        return None if t is None else torch.from_dlpack(t).to(self.device)

    @staticmethod
    def _seqlab(logits):
        """The logits for seqlab's loop; a half-precision model's in float32 (as Hugging Face's
        generate() upcasts them before the softmax)."""
        if logits.dtype in (torch.float16, torch.bfloat16):
            logits = logits.float()
        return _core.from_dlpack(logits.detach().cpu().contiguous())

    def forward(self, idx, cache=None, attention_mask=None):
        logits = self.model(self._torch(idx), attention_mask=self._torch(attention_mask), cache=cache)
        return self._seqlab(logits)

    __call__ = forward

    def encode(self, src, src_key_padding_mask=None):
        kw = {} if src_key_padding_mask is None else {"src_key_padding_mask": self._torch(src_key_padding_mask)}
        return self.model.encode(self._torch(src), **kw)

    def decode(self, tgt, memory, cache=None, memory_key_padding_mask=None):
        kw = {} if memory_key_padding_mask is None else {
            "memory_key_padding_mask": self._torch(memory_key_padding_mask)}
        return self._seqlab(self.model.decode(self._torch(tgt), memory, cache=cache, **kw))


def as_index(beam_idx):
    """A cache's reorder_cache(beam_idx) index as a torch tensor: seqlab's decoding loop passes a
    seqlab tensor (a user may pass torch's)."""
    return beam_idx if isinstance(beam_idx, torch.Tensor) else torch.from_dlpack(beam_idx)


def _to_torch_tensors(out, device):
    """seqlab tensors (alone, in tuples or in an output dict) as torch tensors on `device`."""
    if isinstance(out, _core.Tensor):
        return torch.from_dlpack(out).to(device)
    if isinstance(out, dict):
        return type(out)(**{k: _to_torch_tensors(v, device) for k, v in out.items()})
    if isinstance(out, (tuple, list)):
        return type(out)(_to_torch_tensors(v, device) for v in out)
    return out
