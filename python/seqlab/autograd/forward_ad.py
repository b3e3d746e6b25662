"""torch.autograd.forward_ad's names, so that scripts importing them load; seqlab has no
forward-mode AD, so using them raises NotImplementedError. J·v is available by reverse mode:
seqlab.autograd.functional.jvp, seqlab.func.jvp and seqlab.func.jacfwd. Tests: tests/test_func.py."""

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor", "enter_dual_level", "exit_dual_level"]

_WHY = ("seqlab has no forward-mode AD (dual tensors); compute J·v with seqlab.func.jvp or "
        "seqlab.autograd.functional.jvp, which use reverse mode")


def _unavailable(name):
    raise NotImplementedError(f"torch.autograd.forward_ad.{name}: {_WHY}")


def enter_dual_level():
    """Not available in seqlab (NotImplementedError): no forward-mode AD."""
    _unavailable("enter_dual_level")


def exit_dual_level(*, level=None):
    """Not available in seqlab (NotImplementedError): no forward-mode AD."""
    _unavailable("exit_dual_level")


def make_dual(tensor, tangent, *, level=None):
    """Not available in seqlab (NotImplementedError): no forward-mode AD."""
    _unavailable("make_dual")


def unpack_dual(tensor, *, level=None):
    """Not available in seqlab (NotImplementedError): no forward-mode AD."""
    _unavailable("unpack_dual")


class UnpackedDualTensor(tuple):
    """torch's (primal, tangent) pair; seqlab never makes one (no forward-mode AD)."""


class dual_level:
    """torch.autograd.forward_ad.dual_level: entering it raises NotImplementedError (no forward-mode AD)."""

    def __enter__(self):
        _unavailable("dual_level")

    def __exit__(self, *exc):
        return False
