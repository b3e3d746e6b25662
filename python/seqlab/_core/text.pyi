"""
corpus encoding: tokens -> ids and counts
"""
from __future__ import annotations
import collections.abc
import typing
from seqlab._core import Tensor, dtype
__all__: list[str] = ['encode_file', 'encode_lines', 'encode_tokens']
def encode_file(path: str, level: str = 'word', vocab: collections.abc.Sequence[str] | None = None) -> tuple:
    ...
def encode_lines(lines: collections.abc.Sequence[str], level: str = 'word', vocab: collections.abc.Sequence[str] | None = None) -> tuple:
    ...
def encode_tokens(sentences: collections.abc.Sequence[collections.abc.Sequence[str]], vocab: collections.abc.Sequence[str] | None = None) -> tuple:
    ...
