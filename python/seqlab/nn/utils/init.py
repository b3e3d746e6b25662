"""torch.nn.utils.skip_init: a module built without initialising its parameters, for weights
that are about to be overwritten (a checkpoint's). PyTorch builds it on the meta device and then
allocates; seqlab's modules allocate their parameters uninitialised (empty) and fill them with
seqlab.nn.init's functions, so here those functions leave the tensor as it is while the module is
built (as transformers' no_init_weights does to torch.nn.init). The values are then whatever the
memory held: load every parameter before use."""
import contextlib

from .. import init

_INITIALISERS = ("uniform_", "normal_", "constant_", "zeros_", "ones_", "xavier_uniform_", "xavier_normal_",
                 "kaiming_uniform_", "kaiming_normal_", "orthogonal_")


def _unchanged(tensor, *args, **kwargs):
    return tensor


@contextlib.contextmanager
def _no_init():
    saved = {name: getattr(init, name) for name in _INITIALISERS}
    for name in _INITIALISERS:
        setattr(init, name, _unchanged)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(init, name, fn)


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with its parameters and buffers allocated but not initialised."""
    if not isinstance(module_cls, type):
        raise TypeError(f"skip_init: module_cls must be a class, got {type(module_cls).__name__}")
    with _no_init():
        return module_cls(*args, **kwargs)
