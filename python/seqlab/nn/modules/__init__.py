"""seqlab.nn.modules (torch.nn.modules): each class of torch.nn is defined in the file torch defines
it in (linear.py: Linear, activation.py: the activations and MultiheadAttention, rnn.py: the
recurrent layers, ...), and this package re-exports them all, as torch's does; seqlab.nn
re-exports this package. seqlab's own layers (positional schemes, Seq2SeqAttention, the language
models) are in seqlab.nn's positional.py, seq2seq_attention.py, lm.py and masked_lm.py."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict
from .linear import Identity, Linear, Bilinear, LazyLinear
from .sparse import Embedding
from .dropout import Dropout
from .normalization import LayerNorm, RMSNorm
from .batchnorm import BatchNorm1d, LazyBatchNorm1d
from .flatten import Flatten
from .activation import (
    Tanh, Sigmoid, ReLU, SiLU, GELU, Softmax, LogSoftmax, ELU, SELU, CELU, LeakyReLU, Softplus, Hardtanh, ReLU6,
    LogSigmoid, Mish, Softsign, Tanhshrink, Hardsigmoid, Hardswish, Threshold, Softmin, GLU, PReLU, MultiheadAttention,
)
from .conv import Conv1d, Conv2d, LazyConv1d, LazyConv2d
from .pooling import MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import (
    TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder, Transformer,
)
from .loss import (
    CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss, KLDivLoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss,
    MarginRankingLoss, CosineEmbeddingLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss, MultiMarginLoss,
    SoftMarginLoss, HingeEmbeddingLoss, MultiLabelSoftMarginLoss,
)
from .distance import CosineSimilarity, PairwiseDistance
# more of torch.nn's containers and layers
from .container import ParameterList, ParameterDict
from .flatten import Unflatten
from .normalization import GroupNorm, LocalResponseNorm
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .activation import RReLU, Hardshrink, Softshrink, Softmax2d
from .dropout import Dropout1d, Dropout2d
from .sparse import EmbeddingBag
from .padding import (
    ZeroPad1d, ZeroPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
    ReplicationPad2d, CircularPad1d, CircularPad2d,
)

__all__ = [
    "Module",
    "Sequential", "ModuleList", "ModuleDict",
    "Identity", "Linear", "Bilinear", "LazyLinear",
    "Embedding", "Dropout", "LayerNorm", "RMSNorm", "BatchNorm1d", "LazyBatchNorm1d", "Flatten",
    "Tanh", "Sigmoid", "ReLU", "SiLU", "GELU", "Softmax", "LogSoftmax",
    "ELU", "SELU", "CELU", "LeakyReLU", "Softplus", "Hardtanh", "ReLU6", "LogSigmoid", "Mish", "Softsign",
    "Tanhshrink", "Hardsigmoid", "Hardswish", "Threshold", "Softmin", "GLU", "PReLU", "MultiheadAttention",
    "Conv1d", "Conv2d", "LazyConv1d", "LazyConv2d",
    "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder", "Transformer",
    "CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss", "KLDivLoss",
    "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss",
    "MarginRankingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
    "MultiMarginLoss", "SoftMarginLoss", "HingeEmbeddingLoss", "MultiLabelSoftMarginLoss",
    "CosineSimilarity", "PairwiseDistance",
    "ParameterList", "ParameterDict", "Unflatten", "GroupNorm", "LocalResponseNorm", "InstanceNorm1d",
    "InstanceNorm2d", "RReLU", "EmbeddingBag", "Hardshrink", "Softshrink", "Softmax2d", "Dropout1d", "Dropout2d",
    "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d",
]

# sequence-model losses and layers: CTC, adaptive softmax, the channel dropouts, pooling, transposed conv
from .loss import CTCLoss  # noqa: E402

__all__ += ["CTCLoss"]
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss"]
from .dropout import AlphaDropout, FeatureAlphaDropout  # noqa: E402

__all__ += ["AlphaDropout", "FeatureAlphaDropout"]
from .pooling import AdaptiveMaxPool1d, AdaptiveMaxPool2d, LPPool1d, LPPool2d  # noqa: E402

__all__ += ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d"]
from .conv import ConvTranspose1d, ConvTranspose2d  # noqa: E402

__all__ += ["ConvTranspose1d", "ConvTranspose2d"]
from .loss import MultiLabelMarginLoss, TripletMarginWithDistanceLoss, NLLLoss2d  # noqa: E402

__all__ += ["MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "NLLLoss2d"]
from .container import Container  # noqa: E402

__all__ += ["Container"]
from .batchnorm import BatchNorm2d  # noqa: E402

__all__ += ["BatchNorm2d"]
from .batchnorm import LazyBatchNorm2d  # noqa: E402
from .instancenorm import LazyInstanceNorm1d, LazyInstanceNorm2d  # noqa: E402
from .conv import LazyConvTranspose1d, LazyConvTranspose2d  # noqa: E402

__all__ += ["LazyBatchNorm2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyConvTranspose1d",
            "LazyConvTranspose2d"]
from .linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: E402
from .loss import LinearCrossEntropyLoss  # noqa: E402

__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
