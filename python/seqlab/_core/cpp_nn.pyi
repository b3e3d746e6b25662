"""
The C++ twins of seqlab.nn's layers (nn/layers.hpp)
"""
from __future__ import annotations
import collections.abc
import seqlab._core
import typing
from seqlab._core import Tensor, dtype
__all__: list[str] = ['ALiBi', 'ALiBiOptions', 'AbsolutePosition', 'AlphaDropout', 'AlphaDropoutOptions', 'BatchNorm1d', 'BatchNorm1dOptions', 'BatchNorm2d', 'BatchNorm2dOptions', 'BatchNormOptions', 'Bilinear', 'BilinearOptions', 'CELU', 'CELUOptions', 'Conv1d', 'Conv1dOptions', 'Conv2d', 'Conv2dOptions', 'ConvNd', 'ConvOptions', 'ConvTranspose1d', 'ConvTranspose1dOptions', 'ConvTranspose2d', 'ConvTranspose2dOptions', 'ConvTransposeNd', 'ConvTransposeOptions', 'DARelativePosition', 'DARelativePositionOptions', 'DeBERTaRelativePosition', 'DeBERTaRelativePositionOptions', 'Dropout', 'Dropout1d', 'Dropout1dOptions', 'Dropout2d', 'Dropout2dOptions', 'DropoutOptions', 'ELU', 'ELUOptions', 'Embedding', 'EmbeddingOptions', 'FeatureAlphaDropout', 'FeatureAlphaDropoutOptions', 'Flatten', 'FlattenOptions', 'GELU', 'GLU', 'GRU', 'GRUCell', 'GRUCellOptions', 'GRUOptions', 'GroupNorm', 'GroupNormOptions', 'Hardshrink', 'Hardsigmoid', 'Hardswish', 'Hardtanh', 'HardtanhOptions', 'Identity', 'InstanceNorm', 'InstanceNorm1d', 'InstanceNorm1dOptions', 'InstanceNorm2d', 'InstanceNorm2dOptions', 'InstanceNormOptions', 'KERPLE', 'KERPLEOptions', 'LSTM', 'LSTMCell', 'LSTMCellOptions', 'LSTMOptions', 'LayerNorm', 'LayerNormOptions', 'LeakyReLU', 'LeakyReLUOptions', 'LearnedPositionalEmbedding', 'LearnedPositionalEmbeddingOptions', 'Linear', 'LinearOptions', 'LogSigmoid', 'LogSoftmax', 'Mish', 'Module', 'ModuleList', 'MultiheadAttention', 'MultiheadAttentionOptions', 'NoPE', 'NonDynamicallyQuantizableLinear', 'PReLU', 'PReLUOptions', 'RMSNorm', 'RMSNormOptions', 'RNN', 'RNNBase', 'RNNCell', 'RNNCellBase', 'RNNCellOptions', 'RNNOptions', 'RReLU', 'RReLUOptions', 'ReLU', 'ReLU6', 'RelativePosition', 'RoPE', 'RoPEOptions', 'SELU', 'Seq2SeqAttention', 'Seq2SeqAttentionOptions', 'ShawRelativePosition', 'ShawRelativePositionOptions', 'SiLU', 'Sigmoid', 'SinusoidalPositionalEncoding', 'SinusoidalPositionalEncodingOptions', 'Softmax', 'Softmax2d', 'Softmin', 'Softplus', 'SoftplusOptions', 'Softshrink', 'Softsign', 'T5RelativeBias', 'T5RelativeBiasOptions', 'Tanh', 'Tanhshrink', 'Threshold', 'ThresholdOptions', 'Transformer', 'TransformerDecoder', 'TransformerDecoderLayer', 'TransformerDecoderLayerOptions', 'TransformerDecoderOptions', 'TransformerEncoder', 'TransformerEncoderLayer', 'TransformerEncoderLayerOptions', 'TransformerEncoderOptions', 'TransformerLayerOptions', 'TransformerOptions', 'TransformerXLRelativePosition', 'TransformerXLRelativePositionOptions', 'UnaryModule']
class Module:
    def __repr__(self) -> str:
        ...
    def eval(self) -> None:
        ...
    def load_state_dict(self, state_dict: collections.abc.Mapping[str, Tensor], strict: bool = True) -> None:
        ...
    def named_buffers(self) -> list[tuple[str, Tensor]]:
        ...
    def named_parameters(self) -> list[tuple[str, Tensor]]:
        ...
    def state_dict(self) -> dict[str, Tensor]:
        ...
    def train(self, mode: bool = True) -> None:
        ...
    @property
    def training(self) -> bool:
        ...
class UnaryModule(Module):
    def __call__(self, input: Tensor) -> Tensor:
        ...
    def forward(self, input: Tensor) -> Tensor:
        ...
class LinearOptions:
    fields: typing.ClassVar[tuple] = ('in_features', 'out_features', 'bias', 'dtype')
    bias: bool
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    in_features: int
    out_features: int
class Linear(UnaryModule):
    @typing.overload
    def __init__(self, options: LinearOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> LinearOptions:
        ...
class NonDynamicallyQuantizableLinear(Linear):
    @typing.overload
    def __init__(self, options: LinearOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> LinearOptions:
        ...
class BilinearOptions:
    fields: typing.ClassVar[tuple] = ('in1_features', 'in2_features', 'out_features', 'bias', 'dtype')
    bias: bool
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    in1_features: int
    in2_features: int
    out_features: int
class Bilinear(Module):
    def __call__(self, input1: Tensor, input2: Tensor) -> Tensor:
        ...
    @typing.overload
    def __init__(self, options: BilinearOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        ...
    @property
    def options(self) -> BilinearOptions:
        ...
class EmbeddingOptions:
    fields: typing.ClassVar[tuple] = ('num_embeddings', 'embedding_dim', 'padding_idx', 'dtype')
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    embedding_dim: int
    num_embeddings: int
    @property
    def padding_idx(self) -> int | None:
        ...
    @padding_idx.setter
    def padding_idx(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
class Embedding(UnaryModule):
    @typing.overload
    def __init__(self, options: EmbeddingOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> EmbeddingOptions:
        ...
class LayerNormOptions:
    fields: typing.ClassVar[tuple] = ('normalized_shape', 'eps', 'elementwise_affine', 'bias', 'dtype')
    bias: bool
    dtype: seqlab._core.dtype
    elementwise_affine: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    eps: float
    @property
    def normalized_shape(self) -> tuple:
        ...
    @normalized_shape.setter
    def normalized_shape(self, arg1: typing.Any) -> None:
        ...
class LayerNorm(UnaryModule):
    @typing.overload
    def __init__(self, options: LayerNormOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> LayerNormOptions:
        ...
class RMSNormOptions:
    fields: typing.ClassVar[tuple] = ('normalized_shape', 'eps', 'elementwise_affine', 'dtype')
    dtype: seqlab._core.dtype
    elementwise_affine: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    @property
    def eps(self) -> float | None:
        ...
    @eps.setter
    def eps(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None:
        ...
    @property
    def normalized_shape(self) -> tuple:
        ...
    @normalized_shape.setter
    def normalized_shape(self, arg1: typing.Any) -> None:
        ...
class RMSNorm(UnaryModule):
    @typing.overload
    def __init__(self, options: RMSNormOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> RMSNormOptions:
        ...
class BatchNormOptions:
    fields: typing.ClassVar[tuple] = ('num_features', 'eps', 'momentum', 'affine', 'track_running_stats', 'dtype', 'bias')
    affine: bool
    bias: bool
    dtype: seqlab._core.dtype
    track_running_stats: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    eps: float
    @property
    def momentum(self) -> float | None:
        ...
    @momentum.setter
    def momentum(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None:
        ...
    num_features: int
class BatchNorm1d(UnaryModule):
    @typing.overload
    def __init__(self, options: BatchNormOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> BatchNormOptions:
        ...
class BatchNorm2d(BatchNorm1d):
    @typing.overload
    def __init__(self, options: BatchNormOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> BatchNormOptions:
        ...
class DropoutOptions:
    fields: typing.ClassVar[tuple] = ('p', 'inplace')
    inplace: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    p: float
class Dropout(UnaryModule):
    @typing.overload
    def __init__(self, options: DropoutOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> DropoutOptions:
        ...
class AlphaDropout(Dropout):
    @typing.overload
    def __init__(self, options: DropoutOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> DropoutOptions:
        ...
class FeatureAlphaDropout(Dropout):
    @typing.overload
    def __init__(self, options: DropoutOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> DropoutOptions:
        ...
class Identity(UnaryModule):
    def __init__(self) -> None:
        ...
class Tanh(UnaryModule):
    def __init__(self) -> None:
        ...
class Sigmoid(UnaryModule):
    def __init__(self) -> None:
        ...
class SiLU(UnaryModule):
    def __init__(self, inplace: bool = False) -> None:
        ...
class ReLU(UnaryModule):
    def __init__(self, inplace: bool = False) -> None:
        ...
class GELU(UnaryModule):
    def __init__(self, approximate: str = 'none') -> None:
        ...
class ELUOptions:
    fields: typing.ClassVar[tuple] = ('alpha', 'inplace')
    inplace: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    alpha: float
class ELU(UnaryModule):
    @typing.overload
    def __init__(self, options: ELUOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> ELUOptions:
        ...
class SELU(UnaryModule):
    def __init__(self, inplace: bool = False) -> None:
        ...
class CELU(UnaryModule):
    @typing.overload
    def __init__(self, options: ELUOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> ELUOptions:
        ...
class LeakyReLUOptions:
    fields: typing.ClassVar[tuple] = ('negative_slope', 'inplace')
    inplace: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    negative_slope: float
class LeakyReLU(UnaryModule):
    @typing.overload
    def __init__(self, options: LeakyReLUOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> LeakyReLUOptions:
        ...
class SoftplusOptions:
    fields: typing.ClassVar[tuple] = ('beta', 'threshold')
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    beta: float
    threshold: float
class Softplus(UnaryModule):
    @typing.overload
    def __init__(self, options: SoftplusOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> SoftplusOptions:
        ...
class HardtanhOptions:
    fields: typing.ClassVar[tuple] = ('min_val', 'max_val', 'inplace')
    inplace: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    max_val: float
    min_val: float
class Hardtanh(UnaryModule):
    @typing.overload
    def __init__(self, options: HardtanhOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> HardtanhOptions:
        ...
class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False) -> None:
        ...
class LogSigmoid(UnaryModule):
    def __init__(self) -> None:
        ...
class Mish(UnaryModule):
    def __init__(self, inplace: bool = False) -> None:
        ...
class Softsign(UnaryModule):
    def __init__(self) -> None:
        ...
class Tanhshrink(UnaryModule):
    def __init__(self) -> None:
        ...
class Hardsigmoid(UnaryModule):
    def __init__(self, inplace: bool = False) -> None:
        ...
class Hardswish(UnaryModule):
    def __init__(self, inplace: bool = False) -> None:
        ...
class ThresholdOptions:
    fields: typing.ClassVar[tuple] = ('threshold', 'value', 'inplace')
    inplace: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    threshold: float
    value: float
class Threshold(UnaryModule):
    @typing.overload
    def __init__(self, options: ThresholdOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> ThresholdOptions:
        ...
class PReLUOptions:
    fields: typing.ClassVar[tuple] = ('num_parameters', 'init', 'dtype')
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    init: float
    num_parameters: int
class PReLU(UnaryModule):
    @typing.overload
    def __init__(self, options: PReLUOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> PReLUOptions:
        ...
class Softmin(UnaryModule):
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class GLU(UnaryModule):
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
class Softmax(UnaryModule):
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class LogSoftmax(UnaryModule):
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class FlattenOptions:
    fields: typing.ClassVar[tuple] = ('start_dim', 'end_dim')
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    end_dim: int
    start_dim: int
class Flatten(UnaryModule):
    @typing.overload
    def __init__(self, options: FlattenOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> FlattenOptions:
        ...
class GroupNormOptions:
    fields: typing.ClassVar[tuple] = ('num_groups', 'num_channels', 'eps', 'affine', 'dtype', 'bias')
    affine: bool
    bias: bool
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    eps: float
    num_channels: int
    num_groups: int
class GroupNorm(UnaryModule):
    @typing.overload
    def __init__(self, options: GroupNormOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> GroupNormOptions:
        ...
class InstanceNormOptions:
    fields: typing.ClassVar[tuple] = ('num_features', 'eps', 'momentum', 'affine', 'track_running_stats', 'dtype', 'bias')
    affine: bool
    bias: bool
    dtype: seqlab._core.dtype
    track_running_stats: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    eps: float
    @property
    def momentum(self) -> float | None:
        ...
    @momentum.setter
    def momentum(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None:
        ...
    num_features: int
class InstanceNorm(UnaryModule):
    pass
class InstanceNorm1d(InstanceNorm):
    @typing.overload
    def __init__(self, options: InstanceNormOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> InstanceNormOptions:
        ...
class InstanceNorm2d(InstanceNorm):
    @typing.overload
    def __init__(self, options: InstanceNormOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> InstanceNormOptions:
        ...
class RReLUOptions:
    fields: typing.ClassVar[tuple] = ('lower', 'upper', 'inplace')
    inplace: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    lower: float
    upper: float
class RReLU(UnaryModule):
    @typing.overload
    def __init__(self, options: RReLUOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> RReLUOptions:
        ...
class Hardshrink(UnaryModule):
    def __init__(self, lambd: typing.SupportsFloat | typing.SupportsIndex = 0.5) -> None:
        ...
class Softshrink(UnaryModule):
    def __init__(self, lambd: typing.SupportsFloat | typing.SupportsIndex = 0.5) -> None:
        ...
class Softmax2d(UnaryModule):
    def __init__(self) -> None:
        ...
class Dropout1d(Dropout):
    @typing.overload
    def __init__(self, options: DropoutOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> DropoutOptions:
        ...
class Dropout2d(Dropout):
    @typing.overload
    def __init__(self, options: DropoutOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> DropoutOptions:
        ...
class RNNBase(Module):
    def __call__(self, input: Tensor, hx: typing.Any = None) -> tuple:
        ...
    def flatten_parameters(self) -> None:
        ...
    def forward(self, input: Tensor, hx: typing.Any = None) -> tuple:
        ...
    def forward_packed(self, data: Tensor, batch_sizes: Tensor, sorted_indices: Tensor | None = None, unsorted_indices: Tensor | None = None) -> tuple:
        ...
class RNNOptions:
    fields: typing.ClassVar[tuple] = ('input_size', 'hidden_size', 'num_layers', 'nonlinearity', 'bias', 'batch_first', 'dropout', 'bidirectional', 'proj_size', 'dtype')
    batch_first: bool
    bias: bool
    bidirectional: bool
    dtype: seqlab._core.dtype
    nonlinearity: str
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    dropout: float
    hidden_size: int
    input_size: int
    num_layers: int
    proj_size: int
class RNN(RNNBase):
    @typing.overload
    def __init__(self, options: RNNOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> RNNOptions:
        ...
class LSTM(RNNBase):
    @typing.overload
    def __init__(self, options: RNNOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> RNNOptions:
        ...
class GRU(RNNBase):
    @typing.overload
    def __init__(self, options: RNNOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> RNNOptions:
        ...
class RNNCellOptions:
    fields: typing.ClassVar[tuple] = ('input_size', 'hidden_size', 'bias', 'nonlinearity', 'dtype')
    bias: bool
    dtype: seqlab._core.dtype
    nonlinearity: str
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    hidden_size: int
    input_size: int
class RNNCellBase(Module):
    pass
class RNNCell(RNNCellBase):
    def __call__(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        ...
    @typing.overload
    def __init__(self, options: RNNCellOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        ...
    @property
    def options(self) -> RNNCellOptions:
        ...
class LSTMCell(RNNCellBase):
    def __call__(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        ...
    @typing.overload
    def __init__(self, options: RNNCellOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        ...
    @property
    def options(self) -> RNNCellOptions:
        ...
class GRUCell(RNNCellBase):
    def __call__(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        ...
    @typing.overload
    def __init__(self, options: RNNCellOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        ...
    @property
    def options(self) -> RNNCellOptions:
        ...
class RelativePosition(Module):
    def attention(self, query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None, dropout_p: typing.SupportsFloat | typing.SupportsIndex = 0.0, is_causal: bool = False, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, q_offset: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        ...
    def attention_weights(self, query: Tensor, key: Tensor, attn_mask: Tensor | None = None, is_causal: bool = False, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, q_offset: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        ...
    def scheme(self) -> seqlab._core.PositionalScheme:
        """
        The PositionalScheme the attention reads (kind, options and parameters by name).
        """
    @property
    def kind(self) -> str:
        ...
class NoPE(RelativePosition):
    def __init__(self) -> None:
        ...
class RoPE(RelativePosition):
    @typing.overload
    def __init__(self, options: RoPEOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def rotate(self, x: Tensor, offset: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        ...
    @property
    def options(self) -> RoPEOptions:
        ...
class RoPEOptions:
    fields: typing.ClassVar[tuple] = ('head_dim', 'base', 'interleaved')
    interleaved: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    base: float
    head_dim: int
class ALiBi(RelativePosition):
    @typing.overload
    def __init__(self, options: ALiBiOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def slopes(self) -> Tensor:
        ...
    @property
    def options(self) -> ALiBiOptions:
        ...
class ALiBiOptions:
    fields: typing.ClassVar[tuple] = ('num_heads')
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    num_heads: int
class T5RelativeBias(RelativePosition):
    @typing.overload
    def __init__(self, options: T5RelativeBiasOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def bucket(self, relative_position: Tensor) -> Tensor:
        ...
    @property
    def options(self) -> T5RelativeBiasOptions:
        ...
class T5RelativeBiasOptions:
    fields: typing.ClassVar[tuple] = ('num_heads', 'num_buckets', 'max_distance', 'bidirectional', 'dtype')
    bidirectional: bool
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    max_distance: int
    num_buckets: int
    num_heads: int
class ShawRelativePosition(RelativePosition):
    @typing.overload
    def __init__(self, options: ShawRelativePositionOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> ShawRelativePositionOptions:
        ...
class ShawRelativePositionOptions:
    fields: typing.ClassVar[tuple] = ('head_dim', 'max_relative_position', 'values', 'dtype')
    dtype: seqlab._core.dtype
    values: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    head_dim: int
    max_relative_position: int
class TransformerXLRelativePosition(RelativePosition):
    @typing.overload
    def __init__(self, options: TransformerXLRelativePositionOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> TransformerXLRelativePositionOptions:
        ...
class TransformerXLRelativePositionOptions:
    fields: typing.ClassVar[tuple] = ('embed_dim', 'num_heads', 'base', 'dtype')
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    base: float
    embed_dim: int
    num_heads: int
class DeBERTaRelativePosition(RelativePosition):
    @typing.overload
    def __init__(self, options: DeBERTaRelativePositionOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> DeBERTaRelativePositionOptions:
        ...
class DeBERTaRelativePositionOptions:
    fields: typing.ClassVar[tuple] = ('embed_dim', 'num_heads', 'max_relative_position', 'dtype', 'position_buckets', 'share_att_key', 'pos_att_type', 'norm_rel_ebd', 'layer_norm_eps')
    dtype: seqlab._core.dtype
    norm_rel_ebd: str | None
    share_att_key: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    embed_dim: int
    layer_norm_eps: float
    max_relative_position: int
    num_heads: int
    @property
    def pos_att_type(self) -> list[str]:
        ...
    @pos_att_type.setter
    def pos_att_type(self, arg1: collections.abc.Sequence[str]) -> None:
        ...
    position_buckets: int
class DARelativePosition(RelativePosition):
    @typing.overload
    def __init__(self, options: DARelativePositionOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> DARelativePositionOptions:
        ...
class DARelativePositionOptions:
    fields: typing.ClassVar[tuple] = ('num_heads', 'dtype')
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    num_heads: int
class KERPLE(RelativePosition):
    @typing.overload
    def __init__(self, options: KERPLEOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> KERPLEOptions:
        ...
class KERPLEOptions:
    fields: typing.ClassVar[tuple] = ('num_heads', 'kernel', 'dtype')
    dtype: seqlab._core.dtype
    kernel: str
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    num_heads: int
class AbsolutePosition(Module):
    def __call__(self, x: Tensor, offset: typing.SupportsInt | typing.SupportsIndex = 0, position_ids: Tensor | None = None) -> Tensor:
        ...
    def forward(self, x: Tensor, offset: typing.SupportsInt | typing.SupportsIndex = 0, position_ids: Tensor | None = None) -> Tensor:
        ...
class SinusoidalPositionalEncoding(AbsolutePosition):
    @typing.overload
    def __init__(self, options: SinusoidalPositionalEncodingOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def encoding(self, length: typing.SupportsInt | typing.SupportsIndex, offset: typing.SupportsInt | typing.SupportsIndex = 0, dtype: seqlab._core.dtype = dtype.float32) -> Tensor:
        ...
    @property
    def options(self) -> SinusoidalPositionalEncodingOptions:
        ...
class SinusoidalPositionalEncodingOptions:
    fields: typing.ClassVar[tuple] = ('d_model', 'dropout', 'base', 'batch_first')
    batch_first: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    base: float
    d_model: int
    dropout: float
class LearnedPositionalEmbedding(AbsolutePosition):
    @typing.overload
    def __init__(self, options: LearnedPositionalEmbeddingOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> LearnedPositionalEmbeddingOptions:
        ...
class LearnedPositionalEmbeddingOptions:
    fields: typing.ClassVar[tuple] = ('max_len', 'd_model', 'dropout', 'batch_first', 'dtype')
    batch_first: bool
    dtype: seqlab._core.dtype
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    d_model: int
    dropout: float
    max_len: int
class Seq2SeqAttention(Module):
    def __call__(self, query: Tensor, keys: Tensor, values: Tensor | None = None, key_padding_mask: Tensor | None = None) -> typing.Any:
        ...
    @typing.overload
    def __init__(self, options: Seq2SeqAttentionOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, query: Tensor, keys: Tensor, values: Tensor | None = None, key_padding_mask: Tensor | None = None) -> typing.Any:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def options(self) -> Seq2SeqAttentionOptions:
        ...
class Seq2SeqAttentionOptions:
    fields: typing.ClassVar[tuple] = ('query_size', 'key_size', 'score', 'hidden_size', 'bias', 'dtype')
    bias: bool
    dtype: seqlab._core.dtype
    score: str
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    @property
    def hidden_size(self) -> int | None:
        ...
    @hidden_size.setter
    def hidden_size(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def key_size(self) -> int | None:
        ...
    @key_size.setter
    def key_size(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    query_size: int
class ModuleList(Module):
    def __getitem__(self, idx: typing.SupportsInt | typing.SupportsIndex) -> Module:
        ...
    def __len__(self) -> int:
        ...
class MultiheadAttention(Module):
    def __call__(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None, need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False, cache: seqlab._core.AttentionCache = None) -> typing.Any:
        ...
    @typing.overload
    def __init__(self, options: MultiheadAttentionOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None, need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False, cache: seqlab._core.AttentionCache = None) -> typing.Any:
        ...
    @property
    def options(self) -> MultiheadAttentionOptions:
        ...
class MultiheadAttentionOptions:
    fields: typing.ClassVar[tuple] = ('embed_dim', 'num_heads', 'dropout', 'bias', 'add_bias_kv', 'add_zero_attn', 'kdim', 'vdim', 'batch_first', 'dtype', 'pos', 'scale', 'num_key_value_heads', 'head_dim')
    add_bias_kv: bool
    add_zero_attn: bool
    batch_first: bool
    bias: bool
    dtype: seqlab._core.dtype
    pos: RelativePosition
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    dropout: float
    embed_dim: int
    @property
    def head_dim(self) -> int | None:
        ...
    @head_dim.setter
    def head_dim(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def kdim(self) -> int | None:
        ...
    @kdim.setter
    def kdim(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    num_heads: int
    @property
    def num_key_value_heads(self) -> int | None:
        ...
    @num_key_value_heads.setter
    def num_key_value_heads(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def scale(self) -> float | None:
        ...
    @scale.setter
    def scale(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None:
        ...
    @property
    def vdim(self) -> int | None:
        ...
    @vdim.setter
    def vdim(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
class TransformerLayerOptions:
    fields: typing.ClassVar[tuple] = ('d_model', 'nhead', 'dim_feedforward', 'dropout', 'activation', 'layer_norm_eps', 'batch_first', 'norm_first', 'bias', 'dtype', 'pos', 'scale', 'num_key_value_heads', 'rms_norm', 'glu', 'head_dim')
    activation: typing.Any
    batch_first: bool
    bias: bool
    dtype: seqlab._core.dtype
    glu: bool
    norm_first: bool
    pos: RelativePosition
    rms_norm: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    d_model: int
    dim_feedforward: int
    dropout: float
    @property
    def head_dim(self) -> int | None:
        ...
    @head_dim.setter
    def head_dim(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    layer_norm_eps: float
    nhead: int
    @property
    def num_key_value_heads(self) -> int | None:
        ...
    @num_key_value_heads.setter
    def num_key_value_heads(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
    @property
    def scale(self) -> float | None:
        ...
    @scale.setter
    def scale(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None:
        ...
class TransformerEncoderLayer(Module):
    def __call__(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None, is_causal: bool = False, cache: seqlab._core.AttentionCache = None) -> Tensor:
        ...
    @typing.overload
    def __init__(self, options: TransformerLayerOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None, is_causal: bool = False, cache: seqlab._core.AttentionCache = None) -> Tensor:
        ...
    @property
    def options(self) -> TransformerLayerOptions:
        ...
class TransformerDecoderLayer(Module):
    def __call__(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False, memory_is_causal: bool = False, cache: seqlab._core.AttentionCache = None, memory_cache: seqlab._core.AttentionCache = None) -> Tensor:
        ...
    @typing.overload
    def __init__(self, options: TransformerLayerOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False, memory_is_causal: bool = False, cache: seqlab._core.AttentionCache = None, memory_cache: seqlab._core.AttentionCache = None) -> Tensor:
        ...
    @property
    def options(self) -> TransformerLayerOptions:
        ...
class TransformerEncoder(Module):
    def __call__(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None, is_causal: bool | None = None, cache: seqlab._core.KVCache = None) -> Tensor:
        ...
    @typing.overload
    def __init__(self, options: TransformerEncoderOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None, is_causal: bool | None = None, cache: seqlab._core.KVCache = None) -> Tensor:
        ...
    @property
    def options(self) -> TransformerEncoderOptions:
        ...
    @property
    def use_nested_tensor(self) -> bool:
        ...
class TransformerEncoderOptions:
    fields: typing.ClassVar[tuple] = ('encoder_layer', 'num_layers', 'norm', 'enable_nested_tensor', 'mask_check')
    enable_nested_tensor: bool
    encoder_layer: TransformerEncoderLayer
    mask_check: bool
    norm: UnaryModule
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    num_layers: int
class TransformerDecoder(Module):
    def __call__(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None, memory_is_causal: bool = False, cache: seqlab._core.KVCache = None) -> Tensor:
        ...
    @typing.overload
    def __init__(self, options: TransformerDecoderOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None, memory_is_causal: bool = False, cache: seqlab._core.KVCache = None) -> Tensor:
        ...
    @property
    def options(self) -> TransformerDecoderOptions:
        ...
class TransformerDecoderOptions:
    fields: typing.ClassVar[tuple] = ('decoder_layer', 'num_layers', 'norm')
    decoder_layer: TransformerDecoderLayer
    norm: UnaryModule
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    num_layers: int
class Transformer(Module):
    @staticmethod
    def generate_square_subsequent_mask(sz: typing.SupportsInt | typing.SupportsIndex, dtype: seqlab._core.dtype = dtype.float32) -> Tensor:
        ...
    def __call__(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None, src_is_causal: bool | None = None, tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        ...
    @typing.overload
    def __init__(self, options: TransformerOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None, src_is_causal: bool | None = None, tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        ...
    @property
    def options(self) -> TransformerOptions:
        ...
class TransformerOptions:
    fields: typing.ClassVar[tuple] = ('d_model', 'nhead', 'num_encoder_layers', 'num_decoder_layers', 'dim_feedforward', 'dropout', 'activation', 'custom_encoder', 'custom_decoder', 'layer_norm_eps', 'batch_first', 'norm_first', 'bias', 'dtype')
    activation: typing.Any
    batch_first: bool
    bias: bool
    custom_decoder: TransformerDecoder
    custom_encoder: TransformerEncoder
    dtype: seqlab._core.dtype
    norm_first: bool
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    d_model: int
    dim_feedforward: int
    dropout: float
    layer_norm_eps: float
    nhead: int
    num_decoder_layers: int
    num_encoder_layers: int
class ConvNd(UnaryModule):
    pass
class ConvOptions:
    fields: typing.ClassVar[tuple] = ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups', 'bias', 'padding_mode', 'dtype')
    bias: bool
    dtype: seqlab._core.dtype
    padding: typing.Any
    padding_mode: str
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    @property
    def dilation(self) -> tuple:
        ...
    @dilation.setter
    def dilation(self, arg1: typing.Any) -> None:
        ...
    groups: int
    in_channels: int
    @property
    def kernel_size(self) -> tuple:
        ...
    @kernel_size.setter
    def kernel_size(self, arg1: typing.Any) -> None:
        ...
    out_channels: int
    @property
    def stride(self) -> tuple:
        ...
    @stride.setter
    def stride(self, arg1: typing.Any) -> None:
        ...
class Conv1d(ConvNd):
    @typing.overload
    def __init__(self, options: ConvOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> ConvOptions:
        ...
class Conv2d(ConvNd):
    @typing.overload
    def __init__(self, options: ConvOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> ConvOptions:
        ...
class ConvTransposeNd(UnaryModule):
    pass
class ConvTransposeOptions:
    fields: typing.ClassVar[tuple] = ('in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'output_padding', 'groups', 'bias', 'dilation', 'padding_mode', 'dtype')
    bias: bool
    dtype: seqlab._core.dtype
    padding_mode: str
    def __init__(self, **kwargs) -> None:
        ...
    def __repr__(self) -> str:
        ...
    @property
    def dilation(self) -> tuple:
        ...
    @dilation.setter
    def dilation(self, arg1: typing.Any) -> None:
        ...
    groups: int
    in_channels: int
    @property
    def kernel_size(self) -> tuple:
        ...
    @kernel_size.setter
    def kernel_size(self, arg1: typing.Any) -> None:
        ...
    out_channels: int
    @property
    def output_padding(self) -> tuple:
        ...
    @output_padding.setter
    def output_padding(self, arg1: typing.Any) -> None:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @padding.setter
    def padding(self, arg1: typing.Any) -> None:
        ...
    @property
    def stride(self) -> tuple:
        ...
    @stride.setter
    def stride(self, arg1: typing.Any) -> None:
        ...
class ConvTranspose1d(ConvTransposeNd):
    @typing.overload
    def __init__(self, options: ConvTransposeOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> ConvTransposeOptions:
        ...
class ConvTranspose2d(ConvTransposeNd):
    @typing.overload
    def __init__(self, options: ConvTransposeOptions) -> None:
        ...
    @typing.overload
    def __init__(self, *args, **kwargs) -> None:
        ...
    @property
    def options(self) -> ConvTransposeOptions:
        ...
BatchNorm1dOptions = BatchNormOptions
BatchNorm2dOptions = BatchNormOptions
AlphaDropoutOptions = DropoutOptions
FeatureAlphaDropoutOptions = DropoutOptions
CELUOptions = ELUOptions
InstanceNorm1dOptions = InstanceNormOptions
InstanceNorm2dOptions = InstanceNormOptions
Dropout1dOptions = DropoutOptions
Dropout2dOptions = DropoutOptions
LSTMOptions = RNNOptions
GRUOptions = RNNOptions
LSTMCellOptions = RNNCellOptions
GRUCellOptions = RNNCellOptions
TransformerEncoderLayerOptions = TransformerLayerOptions
TransformerDecoderLayerOptions = TransformerLayerOptions
Conv1dOptions = ConvOptions
Conv2dOptions = ConvOptions
ConvTranspose1dOptions = ConvTransposeOptions
ConvTranspose2dOptions = ConvTransposeOptions
