"""torch.nn.modules.lazy: LazyModuleMixin, what makes a module lazy. LazyLinear, LazyBatchNorm1d/2d,
LazyInstanceNorm1d/2d, LazyConv1d/2d and LazyConvTranspose1d/2d (linear.py, batchnorm.py,
instancenorm.py, conv.py) infer in_features / num_features / in_channels from their first input.
Until then their parameters are UninitializedParameter (buffers UninitializedBuffer;
nn/parameter.py); the first call materialises them in place,
initialises them as the full module would (reset_parameters), and turns the module into that
module (LazyLinear -> Linear). Loading a state dict into a lazy module materialises it with the
loaded shapes. Tests: tests/test_lazy.py."""
from ..parameter import UninitializedParameter, is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Runs initialize_parameters(*input) before the first forward; once nothing is left
    uninitialized, the module becomes cls_to_become (torch.nn.modules.lazy.LazyModuleMixin)."""

    cls_to_become = None
    _inferred = None  # the size the first input gives: "in_features", "in_channels", "num_features"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

    def _lazy_weight_and_bias(self, weight, bias, dtype):
        """weight and bias (each when asked) as UninitializedParameters of dtype."""
        if weight:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        # the full module's init, once the first input (or a state dict) has given the parameters a shape
        if not self.has_uninitialized_params() and getattr(self, self._inferred) != 0:
            super().reset_parameters()

    def has_uninitialized_params(self):
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def _materialize(self, name, shape):
        """Give the placeholder `name` memory of `shape`, in place (the same object stays registered)."""
        (self._parameters if name in self._parameters else self._buffers)[name].materialize(shape)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # A loaded tensor gives a placeholder its shape (torch's _lazy_load_hook).
        for name, value in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if is_lazy(value) and key in state_dict and not is_lazy(state_dict[key]):
                self._materialize(name, tuple(state_dict[key].shape))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


def _infer_parameters(module, args):
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become
