"""
co-occurrence counting, GloVe, sparse products (seqlab.embed)
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
from seqlab._core import Tensor, dtype
__all__: list[str] = ['Trainer', 'cooccurrence', 'csr_matmul']
class Trainer:
    def __init__(self, row: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], col: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], value: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], n_words: typing.SupportsInt | typing.SupportsIndex, vector_size: typing.SupportsInt | typing.SupportsIndex, x_max: typing.SupportsFloat | typing.SupportsIndex, alpha: typing.SupportsFloat | typing.SupportsIndex, learning_rate: typing.SupportsFloat | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def cost(self) -> float:
        ...
    def gradient(self) -> dict:
        ...
    def order(self) -> numpy.typing.NDArray[numpy.int64]:
        ...
    def parameters(self) -> dict:
        ...
    def set_parameters(self, parameters: dict) -> None:
        ...
    def train_epoch(self) -> float:
        """
        One AdaGrad pass over the nonzeros; returns glove.c's mean cost.
        """
def cooccurrence(ids: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], n_words: typing.SupportsInt | typing.SupportsIndex, window: typing.SupportsInt | typing.SupportsIndex, symmetric: bool = True, distance_weighting: bool = True, workers: typing.SupportsInt | typing.SupportsIndex = 2) -> tuple[numpy.typing.NDArray[numpy.int32], numpy.typing.NDArray[numpy.int32], numpy.typing.NDArray[numpy.float64]]:
    """
    Sparse co-occurrence counts (row int32, col int32, value float64), sorted by (row, col).
    """
def csr_matmul(indptr: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], indices: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], data: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], workers: typing.SupportsInt | typing.SupportsIndex = 2) -> numpy.typing.NDArray[numpy.float64]:
    """
    Y = A @ X for a CSR matrix A and a dense float64 X.
    """
