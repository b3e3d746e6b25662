"""seqlab.linalg: torch.linalg's names for what seqlab computes. vector_norm is the C++ op of
cpp/src/ops/reduce.cpp (Tensor.norm and seqlab.norm call it too); tests: tests/test_norm.py."""
from ._core import linalg as _linalg

vector_norm = _linalg.vector_norm

__all__ = ["vector_norm"]
