"""torch.nn.modules.instancenorm: InstanceNorm1d and InstanceNorm2d, each (n, c) plane normalised by
its own statistics, and their lazy forms LazyInstanceNorm1d/2d (batchnorm.py's _LazyNormBase); the
checks, unbatched input and the running statistics are one C++ call (F.instance_norm_module_forward),
shared with the twins nn::InstanceNorm1d/2d. (InstanceNorm3d is out of scope, as the other volume
layers.) Tests: tests/test_nn_modules_more.py, tests/test_nn_twins.py, tests/test_lazy.py."""
import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d"]


class _InstanceNorm(_NormBase):
    """Instance normalisation (Ulyanov et al. 2016) of (N, C, *spatial) or unbatched (C, *spatial).

    Each plane by its own mean and biased variance, then weight[c], bias[c] with affine. With
    track_running_stats, buffers running_mean/running_var move towards the batch's average of
    the planes' statistics by momentum (None: they stay) and are used in eval mode."""

    _spatial_dims = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        feature_dim = input.dim() - (self._spatial_dims + 1)
        if (not self.affine and input.dim() in (self._spatial_dims + 1, self._spatial_dims + 2)
                and input.shape[feature_dim] != self.num_features):
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        return F.instance_norm_module_forward(input, self.running_mean, self.running_var, self.weight, self.bias,
                                              self.training, self.track_running_stats, self.momentum, self.eps,
                                              self.num_features, self._spatial_dims)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or unbatched (C, L): each (n, c) row by its own statistics."""

    _spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or unbatched (C, H, W): each (n, c) plane by its own statistics."""

    _spatial_dims = 2


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    """An InstanceNorm1d whose num_features is input.shape[1] of the first call (torch's defaults:
    affine=True, track_running_stats=True, those of the lazy batch norms)."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    """An InstanceNorm2d whose num_features is input.shape[1] of the first call."""

    cls_to_become = InstanceNorm2d
