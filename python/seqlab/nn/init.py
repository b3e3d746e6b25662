"""seqlab.nn.init: torch.nn.init's initialisers (same names, arguments and formulas),
implemented in C++ (cpp/src/nn/init.cpp) so that C++ modules and Python modules share them; the
ones no layer of seqlab uses (eye_, dirac_, sparse_, trunc_normal_) and torch's deprecated names
are composed in Python below. Each fills the tensor in place without recording history and returns it."""
from .._core.init import (  # noqa: F401
    calculate_gain, _calculate_fan_in_and_fan_out,
    uniform_, normal_, constant_, zeros_, ones_,
    xavier_uniform_, xavier_normal_, kaiming_uniform_, kaiming_normal_, orthogonal_,
)


# --- the rest of torch.nn.init, composed in Python of the ops above: eye_, dirac_, sparse_,
# trunc_normal_, and torch's deprecated names without the underscore. Tests: tests/test_nn_modules_more.py.
import math as _math  # noqa: E402
import warnings as _warnings  # noqa: E402

from .._core import _eye  # noqa: E402
from ..autograd import no_grad as _no_grad  # noqa: E402
from .._tensor import randperm as _randperm  # noqa: E402


def eye_(tensor):
    """Fills the 2-D tensor with the identity matrix (ones on the diagonal, zeros elsewhere),
    without history (nn.init.eye_): Linear layers start out preserving their inputs."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with _no_grad():
        tensor.copy_(_eye(tensor.shape[0], tensor.shape[1], tensor.dtype))
    return tensor


def dirac_(tensor, groups=1):
    """Fills the 3-, 4- or 5-D convolution weight (out, in, *kernel) with the Dirac delta: for each of
    `groups` groups, out channel d of the group gets a 1 at in channel d and the kernel's centre
    (zeros elsewhere), so the convolution passes as many channels as it can through unchanged
    (nn.init.dirac_)."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = list(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with _no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills the 2-D tensor with N(0, std) values and then zeros ceil(sparsity * rows) entries of
    each column, at rows drawn at random (Martens 2010; nn.init.sparse_)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(_math.ceil(sparsity * rows))
    with _no_grad():
        normal_(tensor, 0.0, std, generator)
        for col in range(cols):
            zero_rows = _randperm(rows, generator=generator)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


def _norm_cdf(x):
    return (1.0 + _math.erf(x / _math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills the tensor with N(mean, std²) truncated to [a, b] (nn.init.trunc_normal_), by inverse
    transform sampling: u ~ U(Φ(α), Φ(β)) with α, β the bounds in standard units, then
    mean + std·√2·erfinv(2u − 1), clamped to [a, b]. Warns, as torch's, when mean is more than
    2 std outside [a, b]."""
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        _warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                       "be incorrect.", stacklevel=2)
    with _no_grad():
        lo = _norm_cdf((a - mean) / std)
        hi = _norm_cdf((b - mean) / std)
        uniform_(tensor, 2 * lo - 1, 2 * hi - 1, generator)
        tensor.erfinv_()
        tensor.mul_(std * _math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
    return tensor


def _deprecated(new):
    """torch's deprecated initialiser `name` for `name_`: warns (FutureWarning) and calls it."""
    old = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        _warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.", FutureWarning,
                       stacklevel=2)
        return new(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old
    deprecated_init.__doc__ = f"Deprecated (as torch's): warns with a FutureWarning, then calls {new.__name__}."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
