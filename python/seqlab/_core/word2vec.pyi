"""
Word2Vec and FastText training (seqlab.embed)
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
from seqlab._core import Tensor, dtype
__all__: list[str] = ['MAX_NEGATIVE', 'MAX_SENTENCE_WORDS', 'MAX_VECTOR_SIZE', 'Progress', 'char_ngrams', 'check_options', 'decayed_alpha', 'ft_hash', 'huffman', 'ngram_buckets', 'sgd_block', 'sgns_step', 'subword_rows', 'train']
class Progress:
    """
    Training progress, readable from another thread while train() runs
    """
    def __init__(self) -> None:
        ...
    def stop(self) -> None:
        """
        finish the current block and return
        """
    @property
    def effective_words(self) -> int:
        ...
    @property
    def last_alpha(self) -> float:
        ...
    @property
    def loss(self) -> float:
        """
        with compute_loss: the summed -log sigma(+-s) of the pairs trained so far
        """
    @property
    def words_done(self) -> int:
        ...
def char_ngrams(word: str, min_n: typing.SupportsInt | typing.SupportsIndex, max_n: typing.SupportsInt | typing.SupportsIndex) -> list:
    """
    the n-grams of <word> as UTF-8 bytes (gensim's compute_ngrams_bytes)
    """
def check_options(*, vector_size: typing.SupportsInt | typing.SupportsIndex, window: typing.SupportsInt | typing.SupportsIndex, sg: bool, hs: bool, negative: typing.SupportsInt | typing.SupportsIndex, ns_exponent: typing.SupportsFloat | typing.SupportsIndex, cbow_mean: bool, alpha: typing.SupportsFloat | typing.SupportsIndex, min_alpha: typing.SupportsFloat | typing.SupportsIndex, epochs: typing.SupportsInt | typing.SupportsIndex, shrink_windows: bool, seed: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex, chunk_words: typing.SupportsInt | typing.SupportsIndex, block_chunks: typing.SupportsInt | typing.SupportsIndex, compute_loss: bool = False) -> None:
    ...
def decayed_alpha(alpha: typing.SupportsFloat | typing.SupportsIndex, min_alpha: typing.SupportsFloat | typing.SupportsIndex, words_done: typing.SupportsInt | typing.SupportsIndex, total_words: typing.SupportsInt | typing.SupportsIndex) -> float:
    """
    gensim's linear learning-rate decay
    """
def ft_hash(bytes: bytes) -> int:
    """
    Facebook fastText's FNV-1a hash (gensim's ft_hash_bytes)
    """
def huffman(counts: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tuple[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.uint8], numpy.typing.NDArray[numpy.int32]]:
    """
    (code_offsets, codes, points) of the Huffman tree over counts
    """
def ngram_buckets(word: str, min_n: typing.SupportsInt | typing.SupportsIndex, max_n: typing.SupportsInt | typing.SupportsIndex, bucket: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.uint32]:
    """
    gensim's ft_ngram_hashes
    """
def sgd_block(H: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], O: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], L: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], alpha: typing.SupportsFloat | typing.SupportsIndex) -> tuple[numpy.typing.NDArray[numpy.float32], numpy.typing.NDArray[numpy.float32]]:
    ...
def sgns_step(w: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], c: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], negatives: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], alpha: typing.SupportsFloat | typing.SupportsIndex) -> tuple[numpy.typing.NDArray[numpy.float32], numpy.typing.NDArray[numpy.float32], numpy.typing.NDArray[numpy.float32]]:
    ...
def subword_rows(words: collections.abc.Sequence[str], min_n: typing.SupportsInt | typing.SupportsIndex, max_n: typing.SupportsInt | typing.SupportsIndex, bucket: typing.SupportsInt | typing.SupportsIndex) -> tuple[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.int32]]:
    ...
def train(ids: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], counts: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], sample_int: typing.Annotated[numpy.typing.ArrayLike, numpy.uint32] | None, syn0: typing.Any, syn1neg: typing.Any, syn1: typing.Any, sub_offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.int64] | None, sub_rows: typing.Annotated[numpy.typing.ArrayLike, numpy.int32] | None, progress: Progress, *, vector_size: typing.SupportsInt | typing.SupportsIndex, window: typing.SupportsInt | typing.SupportsIndex, sg: bool, hs: bool, negative: typing.SupportsInt | typing.SupportsIndex, ns_exponent: typing.SupportsFloat | typing.SupportsIndex, cbow_mean: bool, alpha: typing.SupportsFloat | typing.SupportsIndex, min_alpha: typing.SupportsFloat | typing.SupportsIndex, epochs: typing.SupportsInt | typing.SupportsIndex, shrink_windows: bool, seed: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex, chunk_words: typing.SupportsInt | typing.SupportsIndex, block_chunks: typing.SupportsInt | typing.SupportsIndex, compute_loss: bool = False, epoch_begin: typing.SupportsInt | typing.SupportsIndex = 0, epoch_end: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
    ...
MAX_NEGATIVE: int = 100000
MAX_SENTENCE_WORDS: int = 10000
MAX_VECTOR_SIZE: int = 1048576
