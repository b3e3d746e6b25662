"""seqlab.nn.modules.container: torch.nn.modules.container's import path for classes defined in seqlab.nn."""
from ..containers import Sequential, ModuleList, ModuleDict  # noqa: F401

__all__ = ["Sequential", "ModuleList", "ModuleDict"]
