"""torch.nn.modules.batchnorm: BatchNorm1d/2d and their lazy forms LazyBatchNorm1d/2d (_LazyNormBase,
also instancenorm.py's lazy forms); the statistics and the running averages are one C++ call
(F.batch_norm_module_forward), shared with the twins nn::BatchNorm1d/2d.
Tests: tests/test_nn_layers.py, tests/test_lazy.py."""
from ... import _core
from .. import functional as F
from .. import init
from .._helpers import _factory
from ..parameter import UninitializedBuffer
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d"]


class _NormBase(Module):
    """What batch and instance normalisation share (torch's _NormBase): num_features, eps, momentum,
    affine weight/bias, and with track_running_stats the buffers running_mean, running_var and
    num_batches_tracked, registered and reset in torch's order."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        dtype = _factory(device, dtype)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        self._new_parameter("weight", (num_features,), dtype, affine)
        self._new_parameter("bias", (num_features,), dtype, affine and bias)
        if track_running_stats:
            self.register_buffer("running_mean", _core._full([num_features], 0.0, dtype))
            self.register_buffer("running_var", _core._full([num_features], 1.0, dtype))
            self.register_buffer("num_batches_tracked", _core._full([], 0.0, _core.dtype.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)


class BatchNorm1d(_NormBase):
    """Batch normalisation of (N, C) or (N, C, L) input over every dim but C (Ioffe & Szegedy 2015).

    Training: batch statistics, and the buffers running_mean/running_var move towards them
    by `momentum` (momentum=None: a cumulative average over num_batches_tracked batches).
    Eval: the running statistics (unless track_running_stats=False)."""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        # The counting of batches, the momentum (None: a cumulative average) and the choice of
        # statistics are C++ (batch_norm_module_forward), shared with nn::BatchNorm1d.
        return F.batch_norm_module_forward(input, self.running_mean, self.running_var, self.num_batches_tracked,
                                           self.weight, self.bias, self.training, self.track_running_stats,
                                           self.momentum, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # State dicts from before num_batches_tracked existed (version < 2) load with it at 0.
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else _core._full([], 0.0, _core.dtype.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features from the first input's dim 1 (torch's _LazyNormBase, for the batch and the instance
    norms): weight/bias and the running statistics are placeholders until then; num_batches_tracked
    is a real 0 from the start, as torch's."""

    _inferred = "num_features"

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        # affine and track_running_stats False here: no tensors made only to be replaced
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        dtype = _factory(device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        self._lazy_weight_and_bias(affine, bias, dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = _core._full([], 0.0, _core.dtype.int64)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            # dim 1 even for unbatched instance-norm input, as torch's
            self.num_features = input.shape[1]
            if self.affine:
                self._materialize("weight", (self.num_features,))
                if self.bias is not None:
                    self._materialize("bias", (self.num_features,))
            if self.track_running_stats:
                self._materialize("running_mean", (self.num_features,))
                self._materialize("running_var", (self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """A BatchNorm1d whose num_features is input.shape[1] of the first call."""

    cls_to_become = BatchNorm1d


class BatchNorm2d(BatchNorm1d):
    """Batch normalisation of (N, C, H, W) input over N, H and W: BatchNorm1d's parameters, buffers
    and C++ functional (which normalises any (N, C, *) input), with torch's 4-D input check; the C++
    twin is nn::BatchNorm2d."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """A BatchNorm2d whose num_features is input.shape[1] of the first call."""

    cls_to_become = BatchNorm2d
