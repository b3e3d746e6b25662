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

from ._core import Generator, default_generator, initial_seed, manual_seed

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]


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
