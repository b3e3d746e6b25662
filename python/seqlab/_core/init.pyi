"""
torch.nn.init's initialisers, in C++
"""
from __future__ import annotations
import seqlab._core
import typing
from seqlab._core import Tensor, dtype
__all__: list[str] = ['calculate_gain', 'constant_', 'kaiming_normal_', 'kaiming_uniform_', 'normal_', 'ones_', 'orthogonal_', 'uniform_', 'xavier_normal_', 'xavier_uniform_', 'zeros_']
def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """
    (fan_in, fan_out) of a weight: its dims 1 and 0 times the receptive field.
    """
def calculate_gain(nonlinearity: str, param: typing.SupportsFloat | typing.SupportsIndex = 0.01) -> float:
    """
    The gain recommended for a nonlinearity: 1 (linear, sigmoid), 5/3 (tanh), sqrt(2) (relu),
    sqrt(2 / (1 + param^2)) (leaky_relu), 3/4 (selu) (nn.init.calculate_gain).
    """
def constant_(tensor: Tensor, val: typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
    """
    Fill tensor with val in place.
    """
def kaiming_normal_(tensor: Tensor, a: typing.SupportsFloat | typing.SupportsIndex = 0.0, mode: str = 'fan_in', nonlinearity: str = 'leaky_relu', generator: seqlab._core.Generator = None) -> Tensor:
    """
    N(0, std^2) with std = gain / sqrt(fan) (He et al. 2015), in place.
    """
def kaiming_uniform_(tensor: Tensor, a: typing.SupportsFloat | typing.SupportsIndex = 0.0, mode: str = 'fan_in', nonlinearity: str = 'leaky_relu', generator: seqlab._core.Generator = None) -> Tensor:
    """
    U(-b, b) with b = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a), fan = fan_in or
    fan_out by mode (He et al. 2015), in place.
    """
def normal_(tensor: Tensor, mean: typing.SupportsFloat | typing.SupportsIndex = 0.0, std: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: seqlab._core.Generator = None) -> Tensor:
    """
    Fill tensor with N(mean, std^2) in place.
    """
def ones_(tensor: Tensor) -> Tensor:
    """
    Fill tensor with 1 in place.
    """
def orthogonal_(tensor: Tensor, gain: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: seqlab._core.Generator = None) -> Tensor:
    """
    A (semi-)orthogonal matrix times gain, from the QR decomposition of a normal matrix (Saxe et al.
    2013), in place.
    """
def uniform_(tensor: Tensor, a: typing.SupportsFloat | typing.SupportsIndex = 0.0, b: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: seqlab._core.Generator = None) -> Tensor:
    """
    Fill tensor with U(a, b) in place.
    """
def xavier_normal_(tensor: Tensor, gain: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: seqlab._core.Generator = None) -> Tensor:
    """
    N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot & Bengio 2010), in place.
    """
def xavier_uniform_(tensor: Tensor, gain: typing.SupportsFloat | typing.SupportsIndex = 1.0, generator: seqlab._core.Generator = None) -> Tensor:
    """
    U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio 2010), in place.
    """
def zeros_(tensor: Tensor) -> Tensor:
    """
    Fill tensor with 0 in place.
    """
