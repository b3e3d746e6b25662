"""An architecture: one Hugging Face model_type mapped onto seqlab's own layers. A subclass names
its model_type (class GPT2(Architecture, model_type="gpt2")) and gives build(config) -> the seqlab
model, and weights(config, checkpoint) -> {seqlab state-dict name: array}; load() does the rest
the same way for all: every tensor is read and checked against the model's own state dict before
one goes in; an array the parameter can hold as it is becomes its data (no copy), the others
(transposed views, other dtypes: a float16 checkpoint into a float32 model) are copied in,
converted."""
import numpy as np

from ..autograd import no_grad
from ..nn import GELU
from ._files import array_dtype, as_tensor

# Hugging Face's activation names (transformers.activations.ACT2FN) that seqlab's layers compute:
# 'relu' and 'gelu' as the fused C++ ops, the tanh-approximated GELUs (GPT-2's 'gelu_new',
# 'gelu_fast' the same formula) as nn.GELU(approximate='tanh').
_ACTIVATIONS = {
    "relu": lambda: "relu",
    "gelu": lambda: "gelu",
    "gelu_new": lambda: GELU(approximate="tanh"),
    "gelu_pytorch_tanh": lambda: GELU(approximate="tanh"),
    "gelu_fast": lambda: GELU(approximate="tanh"),
}


def activation(config, name, default):
    """The feed-forward activation of config's field `name`, as the transformer layers take it."""
    return _ACTIVATIONS[config.expect(name, tuple(_ACTIVATIONS), default)]()


class Architecture:
    registry = {}  # model_type -> class
    model_type = None
    prefix = ""     # what some checkpoints put before every name (GPT2LMHeadModel's 'transformer.')
    ignored = ()    # name endings of buffers a checkpoint may hold that are not weights

    def __init_subclass__(cls, model_type, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.model_type = model_type
        Architecture.registry[model_type] = cls

    @classmethod
    def build(cls, config, dtype):
        raise NotImplementedError

    @classmethod
    def weights(cls, config, checkpoint, model):
        raise NotImplementedError

    @classmethod
    def generation_defaults(cls, config):
        """generate()'s arguments the architecture implies, under generation_config.json's."""
        return {}

    @staticmethod
    def head(ckpt, model, state):
        """state with the LM head's weight: the embedding's when tied (a checkpoint may hold a copy
        under lm_head.weight), else the checkpoint's lm_head.weight."""
        if model.lm_head.weight is model.tok_emb.weight:
            ckpt.discard("lm_head.weight")
            state["lm_head.weight"] = state["tok_emb.weight"]
        else:
            state["lm_head.weight"] = ckpt.take("lm_head.weight", (model.vocab_size, model.d_model))
        return state

    @classmethod
    def load(cls, model, config, checkpoint):
        """Fill model from the checkpoint, or raise before touching it."""
        state = cls.weights(config, checkpoint, model)
        checkpoint.check_used(cls.model_type)
        own = model.state_dict()
        missing = sorted(set(own) - set(state))
        if missing:  # a converter bug, not a bad file: say so
            raise RuntimeError(f"seqlab.hub: the {cls.model_type} converter left {missing[0]!r} of the seqlab model "
                               f"unset")
        for name, array in state.items():
            if name not in own or tuple(own[name].shape) != array.shape:
                raise RuntimeError(f"seqlab.hub: the {cls.model_type} converter made {name!r} {array.shape}, which "
                                   f"the seqlab model does not have in that shape")
        params = dict(model.named_parameters(remove_duplicate=False))
        adopted = {}  # address of an adopted array -> the parameter that holds it
        with no_grad():
            for name, array in state.items():
                param = params[name]
                if _adoptable(array, param) and adopted.setdefault(_address(array), param) is param:
                    param.data = as_tensor(array)  # the file's bytes as read become the parameter: no copy
                else:  # a transposed view or another dtype, or memory another parameter holds: copied
                    param.copy_(as_tensor(array))


def _address(array):
    return array.__array_interface__["data"][0]


def _adoptable(array, param):
    """An array the parameter can take over as it is: of its dtype and shape, C-contiguous,
    aligned and writable (a tensor as read from the file, or a fresh concatenation)."""
    return (isinstance(array, np.ndarray) and array_dtype(array) == param.dtype and array.shape == tuple(param.shape)
            and array.flags.c_contiguous and array.flags.aligned and array.flags.writeable)
