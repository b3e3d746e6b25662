"""seqlab.random: the default generator's seed and state, as torch.random.

    g = seqlab.Generator().manual_seed(0)      # a stream of its own
    x = seqlab.rand(3, generator=g)
    seqlab.manual_seed(0)                      # the default generator (used without generator=)
    state = seqlab.get_rng_state(); ...; seqlab.set_rng_state(state)

seqlab.Generator is C++ (cpp/include/seqlab/ops/generator.hpp): mt19937_64, so seqlab's numbers
are not torch's, but one seed always gives the same numbers and generators are independent.
Tests: tests/test_generator.py.
"""
import contextlib
import numbers

from ._core import Generator, Tensor, default_generator, initial_seed, manual_seed

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng", "normal"]


def seed():
    """Seed the default generator from a non-deterministic source; returns the seed."""
    return default_generator.seed()


def get_rng_state():
    """The default generator's state (an int64 tensor; torch's is a uint8 ByteTensor)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state from get_rng_state()."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, device_type="cpu"):
    """Run a block and put the default generator back where it was (torch.random.fork_rng)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """torch.normal: out_i ~ N(mean_i, std_i²). mean and std are tensors (broadcast, the result
    has their shape) or numbers; with two numbers, size= gives the shape. The draw is
    mean + std · z with z ~ N(0, 1), so the result is differentiable in mean and std."""
    from ._tensor import _check_device, _finish, randn
    _check_device(device, "normal")
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:
            raise TypeError("normal(): size= is taken only with a number mean and std")
        like = mean if isinstance(mean, Tensor) else std
        if isinstance(std, numbers.Real) and std < 0 or isinstance(std, Tensor) and bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = tuple((mean * 0 + std * 0).shape) if isinstance(mean, Tensor) and isinstance(std, Tensor) \
            else tuple(like.shape)
        z = randn(shape, generator=generator, dtype=like.dtype)
        return mean + std * z
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments: two numbers need size=")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    from ._tensor import empty
    out = empty(*((size,) if isinstance(size, int) else (tuple(size),)), dtype=dtype)
    return _finish(out.normal_(mean, std, generator=generator), requires_grad)
