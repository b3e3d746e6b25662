"""More of torch's top-level function forms (torch.group_norm, torch.instance_norm, torch.rrelu,
torch.conv_transpose1d/2d, torch.detach, torch.chain_matmul, torch.nuclear_norm) and the deprecated
Tensor.resize / resize_as, each a thin call into seqlab's own op with torch's (ATen) argument order.
Follows the torch 2.13 signatures. Tests: tests/test_torch_compositions.py, tests/test_torch_aliases.py."""
import warnings

from . import _core
from . import linalg as _linalg
from .nn import functional as F

conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """F.group_norm under torch.group_norm's signature (cudnn_enabled is accepted and ignored: CPU)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """F.instance_norm under torch.instance_norm's ATen order (weight and bias first, all nine
    arguments required; cudnn_enabled is ignored)."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def _no_generator(generator, fn):
    if generator is None:
        return
    if not isinstance(generator, _core.Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}")
    raise NotImplementedError(f"{fn}(): seqlab's rrelu draws its slopes from the global generator and cannot take "
                              f"generator=; seed with seqlab.manual_seed instead")


def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """F.rrelu as torch.rrelu: x where x >= 0, else x·a, a drawn uniformly from [lower, upper] when
    training, a = (lower + upper) / 2 otherwise. generator must be None (seqlab draws from the
    global generator)."""
    _no_generator(generator, "rrelu")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """torch.rrelu_: rrelu written into input; returns input. generator must be None."""
    _no_generator(generator, "rrelu_")
    return F.rrelu_(input, lower, upper, training)


def detach(input):
    """torch.detach(input): input.detach(), the same data with no autograd history."""
    return input.detach()


def chain_matmul(*matrices, out=None):
    """The product of the 2-D matrices in the cheapest order (torch.chain_matmul, deprecated as
    torch's, with its warning): linalg.multi_dot(matrices); one matrix gives a copy of it."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=2)
    if out is not None:
        raise NotImplementedError("chain_matmul(): out= is not supported by seqlab")
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    return matrices[0].clone() if len(matrices) == 1 else _linalg.multi_dot(list(matrices))


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of the singular values of the matrices over dim (the last two without it)
    (torch.nuclear_norm, deprecated as torch's, with its warning): linalg.matrix_norm(input, 'nuc')."""
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in "
                  "a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    return _linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def resize(self, *sizes):
    """Tensor.resize (deprecated, as torch's, with its warning): self reshaped to sizes, which must
    hold the same number of elements; the gradient flows back through the reshape."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    sizes = list(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)) else list(sizes)
    return _resize(self, sizes)


def resize_as(self, tensor):
    """Tensor.resize_as (deprecated, as torch's, with its warning): self reshaped to tensor's shape,
    which must hold the same number of elements."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _resize(self, list(tensor.shape))


def _resize(self, sizes):
    numel = 1
    for s in sizes:
        numel *= s
    if numel != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                           f"given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           f"autograd's resize can only change the shape of a given tensor, while preserving the "
                           f"number of elements. ")
    return self.contiguous().reshape(sizes)


def get_file_path(*path_components):
    """torch.get_file_path: a path under the directory the package is installed in (site-packages
    for an installed seqlab), joined from path_components."""
    import os
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *path_components)


__all__ = ["conv_transpose1d", "conv_transpose2d", "group_norm", "instance_norm", "rrelu", "rrelu_", "detach",
           "chain_matmul", "nuclear_norm", "get_file_path"]
METHODS = {"resize": resize, "resize_as": resize_as}
