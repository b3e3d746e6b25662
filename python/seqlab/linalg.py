"""seqlab.linalg: torch.linalg's names for what seqlab computes. vector_norm is the C++ op of
cpp/src/ops/reduce.cpp (Tensor.norm and seqlab.norm call it too); tests: tests/test_norm.py.
cross is composed in seqlab/_shape.py (tests: tests/test_torch_functions.py)."""
from ._core import linalg as _linalg

from ._shape import linalg_cross as cross  # noqa: E402

vector_norm = _linalg.vector_norm

__all__ = ["vector_norm", "cross"]
