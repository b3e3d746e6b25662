"""seqlab.distributed: torch.distributed's entry points for scripts that import them and then run in
one process. seqlab computes on one machine's CPU threads, so there is no process group:
is_available() and is_initialized() are False (as torch built without distributed support says),
and what needs a group raises PyTorch's error for a group that was never initialised.
Tests: tests/test_torch_surface.py."""

__all__ = ["is_available", "is_initialized", "init_process_group", "get_rank", "get_world_size", "barrier"]

_NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


def is_available():
    """False: seqlab has no multi-process backend."""
    return False


def is_initialized():
    """False: no process group exists."""
    return False


def init_process_group(*args, **kwargs):
    """Refused: there is no backend to join."""
    raise RuntimeError("seqlab.distributed.init_process_group: seqlab runs in one process and has no distributed "
                       "backend (is_available() is False); run the script without launching several processes")


def get_rank(group=None):
    """Refused: no process group (PyTorch's error)."""
    raise RuntimeError(_NO_GROUP)


def get_world_size(group=None):
    """Refused: no process group (PyTorch's error)."""
    raise RuntimeError(_NO_GROUP)


def barrier(group=None, **kwargs):
    """Refused: no process group (PyTorch's error)."""
    raise RuntimeError(_NO_GROUP)
