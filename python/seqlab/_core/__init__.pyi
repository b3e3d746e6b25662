"""
seqlab's C++ core: tensors, autograd and ops
"""
from __future__ import annotations
import collections.abc
import numpy
from seqlab._tensor import values_indices as _values_indices
import typing
from . import linalg
from . import init
from . import cpp_nn
from . import optim
from . import text
from . import lm
from . import word2vec
from . import glove
from . import special
__all__: list[str] = ['AttentionCache', 'Generator', 'KVCache', 'LayerNormParams', 'LinearParams', 'MultiheadAttentionParams', 'Node', 'PositionalScheme', 'Tensor', 'TransformerDecoderLayerParams', 'TransformerEncoderLayerParams', 'abs', 'adaptive_max_pool1d_with_indices', 'adaptive_max_pool2d_with_indices', 'add', 'alibi_slopes', 'alpha_dropout', 'argmax', 'argmin', 'attention_weights', 'avg_pool1d', 'avg_pool2d', 'batch_norm', 'batch_norm_module_forward', 'bernoulli', 'bilinear', 'binary_cross_entropy_with_logits', 'bitwise_and', 'bitwise_left_shift', 'bitwise_not', 'bitwise_or', 'bitwise_right_shift', 'bitwise_xor', 'bmm', 'canonical_mask', 'cat', 'ceil', 'celu', 'celu_', 'check_multihead_attention_args', 'check_rnn_args', 'check_seq2seq_attention_args', 'check_transformer_inputs', 'chunk', 'clamp', 'clip', 'clone', 'concat', 'conv1d', 'conv2d', 'conv_transpose1d', 'conv_transpose2d', 'cos', 'cpp_nn', 'cross_entropy', 'ctc_loss', 'cumprod', 'cumsum', 'deberta_log_bucket_position', 'default_generator', 'detect_is_causal_mask', 'digamma', 'div', 'dropout', 'dtype', 'elu', 'elu_', 'embedding', 'eq', 'erf', 'erfc', 'erfinv', 'exp', 'exp2', 'expm1', 'feature_alpha_dropout', 'feature_dropout', 'flatten', 'floor', 'floor_divide', 'fmod', 'frac', 'from_dlpack', 'from_numpy', 'gather', 'ge', 'gelu', 'generate_square_subsequent_mask', 'get_num_threads', 'glove', 'glu', 'group_norm', 'gru_cell', 'gt', 'hardshrink', 'hardsigmoid', 'hardsigmoid_', 'hardswish', 'hardswish_', 'hardtanh', 'hardtanh_', 'i0', 'igamma', 'igammac', 'index_add', 'index_copy', 'index_reduce', 'index_select', 'init', 'initial_seed', 'instance_norm', 'instance_norm_module_forward', 'is_grad_enabled', 'layer_norm', 'le', 'leaky_relu', 'leaky_relu_', 'lgamma', 'linalg', 'lm', 'log', 'log10', 'log1p', 'log2', 'log_sigmoid', 'log_softmax', 'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'logit', 'lstm_cell', 'lt', 'manual_seed', 'masked_fill', 'matmul', 'max', 'max_pool1d_with_indices', 'max_pool2d_with_indices', 'maximum', 'mean', 'min', 'minimum', 'mish', 'mish_', 'mm', 'mse_loss', 'mul', 'multi_head_attention_forward', 'multihead_attention', 'multinomial', 'mvlgamma', 'narrow', 'ne', 'neg', 'negative', 'nll_loss', 'nonzero', 'norm', 'optim', 'permute', 'polygamma', 'positional_attention', 'positional_attention_math', 'positional_attention_weights', 'positional_scheme_kinds', 'pow', 'prelu', 'prod', 'relu', 'relu_', 'remainder', 'reshape', 'rms_norm', 'rnn', 'rnn_gate_count', 'rnn_nonlinearity_mode', 'rnn_packed', 'rnn_relu_cell', 'rnn_tanh_cell', 'rotary_embedding', 'round', 'rrelu', 'rrelu_', 'rsqrt', 'scaled_dot_product_attention', 'scaled_dot_product_attention_math', 'scatter', 'scatter_add', 'scatter_reduce', 'select', 'selu', 'selu_', 'seq2seq_attention', 'seq2seq_score', 'set_flush_denormal', 'set_num_threads', 'sigmoid', 'sign', 'silu', 'silu_', 'sin', 'sinc', 'sinusoidal_encoding', 'softmax', 'softmin', 'softplus', 'softshrink', 'softsign', 'special', 'split', 'sqrt', 'squeeze', 'stack', 'sub', 'sum', 'swapaxes', 't', 't5_relative_position_bucket', 'tan', 'tanh', 'tanhshrink', 'text', 'threshold', 'threshold_', 'transformer_activation_check', 'transformer_decoder_layer', 'transformer_encoder_layer', 'transformer_encoder_nested_padding', 'transformer_encoder_why_not_nested', 'transpose', 'tril', 'triu', 'true_divide', 'trunc', 'unsqueeze', 'var', 'where', 'word2vec']
class dtype:
    """
    Members:
    
      float32
    
      float64
    
      float16
    
      bfloat16
    
      int64
    
      int32
    
      int16
    
      int8
    
      uint8
    
      bool
    """
    __members__: typing.ClassVar[dict[str, dtype]]
    bfloat16: typing.ClassVar[dtype]
    bool: typing.ClassVar[dtype]
    float16: typing.ClassVar[dtype]
    float32: typing.ClassVar[dtype]
    float64: typing.ClassVar[dtype]
    int16: typing.ClassVar[dtype]
    int32: typing.ClassVar[dtype]
    int64: typing.ClassVar[dtype]
    int8: typing.ClassVar[dtype]
    uint8: typing.ClassVar[dtype]
    @typing.overload
    def __eq__(self: dtype, other: dtype) -> bool:
        ...
    @typing.overload
    def __eq__(self: dtype, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self: dtype) -> int:
        ...
    def __init__(self: dtype, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self: dtype) -> int:
        ...
    @typing.overload
    def __ne__(self: dtype, other: dtype) -> bool:
        ...
    @typing.overload
    def __ne__(self: dtype, other: typing.Any) -> bool:
        ...
    @typing.overload
    def __repr__(self) -> str:
        ...
    @typing.overload
    def __repr__(self: dtype) -> str:
        ...
    def __setstate__(self: dtype, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @typing.overload
    def __str__(self: dtype) -> str:
        ...
    @typing.overload
    def __str__(self) -> str:
        ...
    @property
    def is_floating_point(self) -> bool:
        ...
    @property
    def is_signed(self) -> bool:
        ...
    @property
    def itemsize(self) -> int:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Node:
    """
    A recorded op (a tensor's grad_fn).
    """
    def __repr__(self) -> str:
        ...
    def name(self) -> str:
        """
        The op's name, as torch's (MulBackward0).
        """
    @property
    def next_functions(self) -> tuple:
        """
        ((node, input_nr), ...): where the gradient goes next, one pair per input (None for a constant).
        """
    @property
    def variable(self) -> Tensor:
        """
        AccumulateGrad only: the leaf tensor whose .grad this node accumulates into.
        """
class Tensor:
    """
    An n-dimensional array (float32, float64, the integers int64, int32, int16, int8, uint8, or bool) with reverse-mode autograd, as torch.Tensor.
    Make one with seqlab.tensor(data), zeros, randn, ...; Tensor(data) and Tensor(*sizes) are torch's legacy
    constructors. A tensor that requires grad records the ops applied to it, and backward() fills .grad.
    """
    __array_priority__: typing.ClassVar[int] = 1000
    def absolute(self):
        """
        |input| elementwise: abs under NumPy's name (torch.absolute).
        """
    def acos(self):
        """
        The angle in [0, π] whose cosine is input, atan2(sqrt((1 − x)(1 + x)), x); NaN outside [−1, 1];
            at 1 and −1, 0 and π with gradient −inf (torch.acos).
        """
    def acosh(self):
        """
        log(x + sqrt(x² − 1)) for x ≥ 1 (NaN below), computed as log1p((x − 1) + sqrt((x − 1)(x + 1)))
            and as log x + log 2 where x² would overflow; gradient +inf at 1 (torch.acosh).
        """
    def addbmm(self, batch1, batch2, *, beta = 1, alpha = 1):
        """
        beta·input + alpha·Σ_b batch1[b] @ batch2[b]: the batch's products summed, input broadcast to (n, p).
        """
    def addcdiv(self, tensor1, tensor2, *, value = 1):
        """
        input + value * tensor1 / tensor2, broadcast (torch.addcdiv); two integer tensors are
            torch's error (its old integer division is gone).
        """
    def addcmul(self, tensor1, tensor2, *, value = 1):
        """
        input + value * tensor1 * tensor2, broadcast (torch.addcmul). Integer operands take an
            integer value only, as torch's.
        """
    def addmm(self, mat1, mat2, *, beta = 1, alpha = 1):
        """
        beta·input + alpha·(mat1 @ mat2): mat1 (n, m), mat2 (m, p), input broadcast to (n, p).
        """
    def addmv(self, mat, vec, *, beta = 1, alpha = 1):
        """
        beta·input + alpha·(mat @ vec): mat (n, m), vec (m,), input broadcast to (n,).
        """
    def addr(self, vec1, vec2, *, beta = 1, alpha = 1):
        """
        beta·input + alpha·(vec1 ⊗ vec2), the outer product: vec1 (n,), vec2 (m,), input broadcast to (n, m).
        """
    def adjoint(self):
        """
        The conjugate transpose of the last two dims: for seqlab's real tensors, input.mT (torch.adjoint).
        """
    def all(self, dim = None, keepdim = False):
        """
        True where every element (along dim) is nonzero, as torch.all (a bool tensor; uint8 for a
            uint8 input, torch's legacy rule).
        """
    def amax(self, dim = ..., keepdim = False):
        """
        The largest element over dim (an int or a tuple; () or None: all); ties share the gradient
            evenly, NaN propagates (torch.amax).
        """
    def amin(self, dim = ..., keepdim = False):
        """
        The smallest element over dim (an int or a tuple; () or None: all); ties share the gradient
            evenly, NaN propagates (torch.amin).
        """
    def aminmax(self, *, dim = None, keepdim = False):
        """
        (min, max) of input over dim (None: every element), as torch.aminmax.
        """
    def any(self, dim = None, keepdim = False):
        """
        True where some element (along dim) is nonzero, as torch.any (a bool tensor; uint8 for a
            uint8 input).
        """
    arccos = acos
    arccosh = acosh
    def arcsin(self):
        """
        The angle in [−π/2, π/2] whose sine is input, atan2(x, sqrt((1 − x)(1 + x))); NaN outside
            [−1, 1]; at ±1, ±π/2 with gradient +inf (torch.asin).
        """
    def arcsinh(self):
        """
        log(x + sqrt(x² + 1)), computed as sign(x)·log1p(|x| + x²/(1 + sqrt(1 + x²))) for precision near
            0 and as sign(x)·(log|x| + log 2) where x² would overflow (torch.asinh).
        """
    def arctan(self):
        """
        The angle in (−π/2, π/2) whose tangent is input (torch.atan; see _ATAN_P for how).
        """
    def arctan2(self, other):
        """
        The angle in [−π, π] of the point (x, y) = (other, input): atan(y/x) moved to x's half-plane,
            as π/2·sign(y) − atan(x/y) where |y| > |x| (so no division by 0), with C's signed zeros and
            infinities; at (0, 0) the gradient is 0, as torch's (torch.atan2).
        """
    def arctanh(self):
        """
        ½·log((1 + x)/(1 − x)) for |x| ≤ 1, computed as ½·log1p(2x / (1 − x)); ±inf at ±1, with
            gradient +inf there (torch.atanh).
        """
    def argsort(self, dim = -1, descending = False, stable = False):
        """
        The indices that sort input along dim, as torch.argsort.
        """
    def argwhere(self):
        """
        The indices of the nonzero elements of input, one row per element: shape (n, input.dim())
            (torch.argwhere, = nonzero).
        """
    asin = arcsin
    asinh = arcsinh
    atan = arctan
    atan2 = arctan2
    atanh = arctanh
    def baddbmm(self, batch1, batch2, *, beta = 1, alpha = 1):
        """
        beta·input + alpha·(batch1 @ batch2) per batch: (b, n, m) @ (b, m, p), input broadcast to (b, n, p).
        """
    def bincount(self, weights = None, minlength = 0):
        """
        counts[i] = how many elements of the 1-d integer tensor `input` equal i (or the sum of their
            `weights`), for i in [0, max(max(input) + 1, minlength)). int64 counts; float32 weights sum in
            float32, other weights in float64, as torch's bincount.
        """
    def broadcast_to(self, size):
        """
        input expanded (a view, no copy) to `size`, -1 keeping a size (torch.broadcast_to).
        """
    def cholesky(self, upper = False):
        """
        torch.cholesky (deprecated in torch for linalg.cholesky): L with A = L L^T, or U = L^T when
            upper; errors name 'cholesky'. seqlab does not repeat torch's deprecation warning.
        """
    def cholesky_inverse(self, upper = False):
        """
        A⁻¹ from A's Cholesky factor input (L, or U when upper) (torch.cholesky_inverse):
            cholesky_solve of the identity.
        """
    def cholesky_solve(self, input2, upper = False):
        """
        X with A X = input, where input2 is A's Cholesky factor L (A = L L^T), or U (A = U^T U) when
            upper (torch.cholesky_solve): two triangular solves, L Y = input then L^T X = Y.
        """
    def clamp(self, min = None, max = None):
        """
        min(max(input, min), max) elementwise (torch.clamp, alias clip): the bounds numbers or
            tensors (broadcast and promoted as torch's; a tensor bound gets the gradient where it replaced
            input), either may be None; where min > max the result is max.
        """
    def clamp_max(self, max):
        """
        min(input, max) elementwise (torch.clamp_max): clamp with only an upper bound, a number or a
            tensor.
        """
    def clamp_min(self, min):
        """
        max(input, min) elementwise (torch.clamp_min): clamp with only a lower bound, a number or a
            tensor.
        """
    def clip(self, min = None, max = None):
        """
        torch.clip: clamp(input, min, max), the bounds numbers, tensors or None.
        """
    def clone(self, *, memory_format = ...):
        """
        A copy of input with its own memory, recorded for autograd (torch.clone); memory_format
            contiguous_format or preserve_format (the same for seqlab, whose copies are C-contiguous).
        """
    def copysign(self, other):
        """
        |input| with the sign (bit) of other; always floating point (torch.copysign).
        """
    def corrcoef(self):
        """
        Pearson's correlation coefficients of input's rows (torch.corrcoef): cov / (σ_i σ_j),
            clipped to [-1, 1].
        """
    def cosh(self):
        """
        (e^x + e^−x) / 2, as e^|x| / 2 without overflow for large |x| (torch.cosh).
        """
    def count_nonzero(self, dim = None):
        """
        How many elements of input along dim (an int, a tuple, None: all) are nonzero, as int64
            (torch.count_nonzero).
        """
    def cov(self, *, correction = 1, fweights = None, aweights = None):
        """
        The covariance matrix of the variables in input's rows (observations in columns; a 1-D input
            is one variable) (torch.cov): Σ_k w_k (x_ik - x̄_i)(x_jk - x̄_j) / (Σ w - correction·Σ w a / Σ w),
            w = fweights · aweights, x̄ the weighted means. A 1-D or one-row input gives a 0-d result.
        """
    def cross(self, other, dim = None):
        """
        The cross product of 3-vectors along dim (input and other broadcast): a × b = (a₁b₂ − a₂b₁,
            a₂b₀ − a₀b₂, a₀b₁ − a₁b₀) (torch.cross). Without dim, the first dim of size 3, with torch's
            deprecation warning.
        """
    def cummax(self, dim):
        """
        (values, indices): the running maximum along dim and where it was found (the last of equal
            values; NaN propagates, pointing at the latest NaN), as torch.cummax. The gradient goes to the
            element each value came from.
        """
    def cummin(self, dim):
        """
        (values, indices): the running minimum along dim and where it was found, as torch.cummin.
        """
    def deg2rad(self):
        """
        input * pi / 180 (torch.deg2rad); an integer input gives the default float dtype.
        """
    def det(self):
        """
        The determinant of each square matrix of input (torch.det = torch.linalg.det).
        """
    def diag(self, diagonal = 0):
        """
        Of a 1-d input, the square matrix with input on diagonal `diagonal`; of a 2-d input, that diagonal
            as a 1-d tensor (torch.diag).
        """
    def diag_embed(self, offset = 0, dim1 = -2, dim2 = -1):
        """
        A tensor whose diagonal `offset` in dims (dim1, dim2) holds input's last dim, zeros elsewhere
            (torch.diag_embed).
        """
    def diagflat(self, offset = 0):
        """
        A 2-D tensor with input's elements (flattened) on its offset-th diagonal (torch.diagflat).
        """
    def diagonal(self, offset = 0, dim1 = 0, dim2 = 1):
        """
        The elements input[..., i, i + offset, ...] of dims dim1 and dim2, as a new last dim (torch.diagonal).
            Unlike torch's, a copy, not a view: writing into it (x.diagonal().fill_(1)) leaves input unchanged
            (seqlab has no strided view from Python for it); gradients flow back to input as torch's do.
        """
    def diagonal_scatter(self, src, offset = 0, dim1 = 0, dim2 = 1):
        """
        input with its diagonal (offset, dim1, dim2) replaced by src (torch.diagonal_scatter).
        """
    def diff(self, n = 1, dim = -1, prepend = None, append = None):
        """
        The n-th forward difference out[i] = x[i+1] − x[i] along dim, after prepend and append are
            joined to input along it (torch.diff; for bools, x[i+1] != x[i]).
        """
    def dist(self, other, p = 2):
        """
        ‖input − other‖_p over all elements, the two broadcast together (p = 0 counts the nonzero
            differences, p = inf is the largest).
        """
    def div(self, other, *, rounding_mode = None):
        """
        input / other (torch.div): true division (an integer result becomes float) unless
            rounding_mode is "trunc" (toward zero) or "floor" (toward -inf), which keep integer
            operands integer. The rounded forms have gradient 0, as torch's.
        """
    divide = div
    def dot(self, tensor):
        """
        Σ_i input_i · tensor_i of two 1-d tensors of one size and dtype, as torch.dot.
        """
    def dsplit(self, indices_or_sections):
        """
        tensor_split along dim 2 (torch.dsplit); an int must divide that dim.
        """
    def equal(self, other):
        """
        True if the two tensors have the same shape and the same elements (torch.equal).
        """
    def fix(self):
        """
        input rounded toward zero: trunc under NumPy's name (torch.fix).
        """
    def flip(self, *dims, **kwargs):
        """
        Reverse the order of elements along dims (torch.flip(input, dims); x.flip(0, 1)).
        """
    def fliplr(self):
        """
        input with its columns (dim 1) in reverse order (torch.fliplr); needs 2 dims or more.
        """
    def flipud(self):
        """
        input with its rows (dim 0) in reverse order (torch.flipud); needs 1 dim or more.
        """
    def float_power(self, exponent):
        """
        input ** exponent computed in float64, whatever the operands' dtypes (torch.float_power);
            the gradient flows back into each operand's own dtype.
        """
    def fmax(self, other):
        """
        The elementwise maximum, ignoring NaN: where(input >= other or other is NaN, input, other)
            (torch.fmax); NaN only where both are. The gradient goes to the chosen operand (input on ties).
        """
    def fmin(self, other):
        """
        The elementwise minimum, ignoring NaN: where(input <= other or other is NaN, input, other)
            (torch.fmin).
        """
    def frexp(self):
        """
        (mantissa, exponent) with input = mantissa * 2**exponent and 0.5 <= |mantissa| < 1
            (torch.frexp); exponent is int32. mantissa = input * 2**-exponent, so its gradient is
            2**-exponent, as torch's.
        """
    def gcd(self, other):
        """
        The greatest common divisor of integer tensors, elementwise, never negative (torch.gcd).
        """
    def ger(self, vec2):
        """
        outer(input, vec2), torch's older name (torch.ger).
        """
    def get_device(self):
        """
        -1, torch's answer for a CPU tensor (torch.get_device).
        """
    def greater(self, other):
        """
        input > other elementwise: gt under NumPy's name (torch.greater).
        """
    def greater_equal(self, other):
        """
        input >= other elementwise: ge under NumPy's name (torch.greater_equal).
        """
    def hardshrink(self, lambd = 0.5):
        """
        x where |x| > lambd, else 0 (torch.nn.functional.hardshrink); the gradient passes where x is
            kept.
        """
    def heaviside(self, values):
        """
        0 where input < 0, values where input == 0, 1 where input > 0 (torch.heaviside); input and
            values must share a dtype. No gradient (torch has none for it).
        """
    def histc(self, bins = 100, min = 0, max = 0):
        """
        Counts of input's elements in `bins` equal bins over [min, max]; min == max means the
            data's range (widened by 1 each side if it is one value). Elements outside are ignored.
        """
    def histogram(self, bins, *, range = None, weight = None, density = False):
        """
        (hist, bin_edges): bins is a number of equal bins over `range` (the data's range by
            default, widened by 0.5 each side if it is one value) or a 1-d tensor of increasing edges.
            weight: one weight per element (the counts' sum). density: hist / (Σ hist · bin width).
        """
    def hsplit(self, indices_or_sections):
        """
        tensor_split along dim 1 (dim 0 for a 1-d input); n sections must divide evenly (torch.hsplit).
        """
    def hypot(self, other):
        """
        sqrt(input² + other²), scaled by max(|input|, |other|) so that the squares do not overflow
            (torch.hypot).
        """
    def index_fill(self, dim, index, value):
        """
        A copy of input with the entries at positions `index` along dim set to value (a number or a
            0-d tensor), as torch.index_fill; the gradient skips the filled entries.
        """
    def index_fill_(self, dim, index, value):
        """
        In place: input[..., index, ...] = value along dim (Tensor.index_fill_).
        """
    def index_put(self, indices, values, accumulate = False):
        """
        A copy of input with input[indices] = values, or += values when accumulate (torch.index_put:
            indices is a tuple of index tensors, None for a whole dim, as x[i, j] = v).
        """
    def inner(self, other):
        """
        The sum of products over the last dims of input and other (torch.inner): shape
            input.shape[:-1] + other.shape[:-1]; a 0-d operand multiplies.
        """
    def inverse(self):
        """
        The inverse of each square matrix (torch.inverse = torch.linalg.inv).
        """
    def is_inference(self):
        """
        False: seqlab has no inference tensors (inference_mode is no_grad), so none is one.
        """
    def is_nonzero(self):
        """
        The truth of a one-element tensor (torch.is_nonzero); more or fewer elements are torch's error.
        """
    def is_same_size(self, other):
        """
        True if the two tensors have the same shape (torch.is_same_size).
        """
    def is_signed(self):
        """
        True unless the dtype is uint8 or bool (torch.is_signed).
        """
    def isclose(self, other, rtol = 1e-05, atol = 1e-08, equal_nan = False):
        """
        True where |input − other| ≤ atol + rtol·|other|, or the two are equal (infinities), or both
            NaN when equal_nan (torch.isclose).
        """
    def isfinite(self):
        """
        True where input is neither NaN nor ±inf (torch.isfinite); always for integers.
        """
    def isinf(self):
        """
        True where input is +inf or −inf (torch.isinf); never for integers.
        """
    def isnan(self):
        """
        True where input is NaN (torch.isnan); never for integers.
        """
    def isneginf(self):
        """
        True where input is -inf (torch.isneginf); never for integers.
        """
    def isposinf(self):
        """
        True where input is +inf (torch.isposinf); never for integers.
        """
    def kron(self, other):
        """
        The Kronecker product: out[i·m + k, ...] = input[i, ...]·other[k, ...] for every dim (torch.kron).
        """
    def kthvalue(self, k, dim = -1, keepdim = False):
        """
        (values, indices): the k-th smallest element along dim (k = 1 is the smallest; NaN is the
            largest), torch.kthvalue.
        """
    def lcm(self, other):
        """
        The least common multiple of integer tensors, elementwise, never negative (torch.lcm).
        """
    def ldexp(self, other):
        """
        input * 2**other (torch.ldexp); an integer input gives the default float dtype.
        """
    def lerp(self, end, weight):
        """
        input + weight·(end − input), weight a number or a tensor (all broadcast); as torch, the
            form end − (end − input)·(1 − weight) where |weight| ≥ 0.5, exact at weight = 1 (torch.lerp;
            floating point only, as torch's kernels).
        """
    def less(self, other):
        """
        input < other elementwise: lt under NumPy's name (torch.less).
        """
    def less_equal(self, other):
        """
        input <= other elementwise: le under NumPy's name (torch.less_equal).
        """
    def logaddexp(self, other):
        """
        log(exp(input) + exp(other)), as max + log1p(exp(−|input − other|)) so nothing overflows
            (torch.logaddexp).
        """
    def logaddexp2(self, other):
        """
        log2(2^input + 2^other), as max + log2(1 + 2^(−|input − other|)) (torch.logaddexp2).
        """
    def logcumsumexp(self, dim):
        """
        out[i] = log Σ_{j ≤ i} exp(input[j]) along dim, by a scan of log2(n) logaddexp steps (each adds
            the partial results 1, 2, 4, ... places back), so no exp overflows or underflows
            (torch.logcumsumexp).
        """
    def logdet(self):
        """
        log det of each square matrix: nan where det < 0, -inf where det = 0 (torch.logdet).
        """
    def logsumexp(self, dim, keepdim = False):
        """
        log Σ exp(input) over dim (an int or a tuple), computed as m + log Σ exp(input − m) with m the
            (detached) maximum, so nothing overflows; rows of −inf give −inf, a +inf gives +inf (torch.logsumexp).
            Integer inputs compute in the default dtype. The gradient is softmax(input) along dim.
        """
    def masked_scatter(self, mask, source):
        """
        input with the positions where mask (a bool tensor broadcast to input's shape) is True
            filled, in row-major order, with source's first elements (torch.masked_scatter). Written as
            where(mask, source.flatten()[cumsum(mask) - 1], input), so both get their gradient.
        """
    def masked_select(self, mask):
        """
        The elements of input where the bool mask is True (the two broadcast), as a 1-d tensor
            (torch.masked_select).
        """
    def matrix_power(self, n):
        """
        input^n for an integer n (torch.matrix_power = torch.linalg.matrix_power).
        """
    def median(self, dim = None, keepdim = False):
        """
        The lower median (the ((m − 1) // 2)-th smallest of m values): of all elements as a 0-d
            tensor, or (values, indices) along dim; NaN wherever a NaN is among the values (torch.median).
        """
    def mode(self, dim = -1, keepdim = False):
        """
        (values, indices): the most frequent value along dim, the smallest among equally frequent
            ones, and the index of its last occurrence, as torch.mode on CPU. NaN counts as one value, the
            largest (torch's answer with NaN follows its sort's undefined order for NaN, and differs).
        """
    def moveaxis(self, source, destination):
        """
        A view with dims `source` moved to positions `destination`, the others in their order (torch.movedim).
        """
    movedim = moveaxis
    def msort(self):
        """
        input sorted along its first dim (torch.msort: sort(input, dim=0).values).
        """
    def multiply(self, other):
        """
        input * other: mul under NumPy's name (torch.multiply).
        """
    def mv(self, vec):
        """
        Matrix (n, m) times vector (m,), as torch.mv.
        """
    def nan_to_num(self, nan = 0.0, posinf = None, neginf = None):
        """
        input with NaN replaced by nan, +inf by posinf and −inf by neginf (default: the dtype's
            largest and lowest finite values) (torch.nan_to_num).
        """
    def nanmean(self, dim = None, keepdim = False, *, dtype = None):
        """
        The mean over dim of the elements that are not NaN (torch.nanmean; NaN where all are).
        """
    def nanmedian(self, dim = None, keepdim = False):
        """
        median ignoring NaN: the lower median of the numbers; NaN only where there are none
            (torch.nanmedian).
        """
    def nanquantile(self, q, dim = None, keepdim = False, *, interpolation = 'linear'):
        """
        quantile of the numbers only, NaN ignored; NaN where a row has no number (torch.nanquantile).
        """
    def nansum(self, dim = None, keepdim = False, *, dtype = None):
        """
        Σ input over dim with NaNs counted as 0 (torch.nansum).
        """
    def narrow_copy(self, dim, start, length):
        """
        input.narrow(dim, start, length) copied (torch.narrow_copy).
        """
    def nextafter(self, other):
        """
        The next representable float after input toward other, in input's dtype (torch.nextafter).
            No gradient.
        """
    def not_equal(self, other):
        """
        input != other elementwise: ne under NumPy's name (torch.not_equal).
        """
    def outer(self, vec2):
        """
        The outer product out[i, j] = input[i]·vec2[j] of two 1-d tensors (torch.outer).
        """
    def pinverse(self, rcond = 1e-15):
        """
        The pseudoinverse with singular values below rcond * largest dropped (torch.pinverse =
            torch.linalg.pinv(input, rtol=rcond)).
        """
    def positive(self):
        """
        input itself (torch.positive: +x); a bool tensor is torch's error.
        """
    def prelu(self, weight):
        """
        PReLU (He et al. 2015): x for x > 0, weight * x otherwise, weight one per channel (dim 1) or a
            single one for all (F.prelu).
        """
    def put(self, index, source, accumulate = False):
        """
        input with the elements at the flat positions `index` (negative ones count from the end)
            set to source's values, or increased by them with accumulate=True (torch.put).
        """
    def qr(self, some = True):
        """
        (Q, R) with input = Q R (torch.qr, deprecated in torch for linalg.qr): reduced when some,
            else complete.
        """
    def quantile(self, q, dim = None, keepdim = False, *, interpolation = 'linear'):
        """
        The q-th quantiles along dim (all elements with dim=None): at position q (m − 1) of the
            sorted values, between its neighbours by `interpolation` (linear, lower, higher, midpoint,
            nearest); a 1-D q adds a leading dim; NaN where the values hold a NaN (torch.quantile).
        """
    def rad2deg(self):
        """
        input * 180 / pi (torch.rad2deg); an integer input gives the default float dtype.
        """
    def ravel(self):
        """
        input flattened to one dimension, a view when its layout allows (torch.ravel).
        """
    def reciprocal(self):
        """
        1 / input elementwise (torch.reciprocal); an integer tensor gives the default float dtype.
        """
    def renorm(self, p, dim, maxnorm):
        """
        input with each slice along dim whose p-norm exceeds maxnorm scaled down to norm maxnorm
            (torch.renorm): factor = maxnorm / (norm + 1e-7) where norm > maxnorm, else 1.
        """
    def repeat(self, *sizes):
        """
        Tile input sizes[i] times along each dim (Tensor.repeat), as expand + reshape.
        """
    def repeat_interleave(self, repeats, dim = None, output_size = None):
        """
        Repeat each element repeats times (an int or one count per element) along dim, as torch's.
        """
    def roll(self, shifts, dims = None):
        """
        Roll elements along dims by shifts; without dims, the flattened tensor, as torch.roll.
        """
    def rot90(self, k = 1, dims = ...):
        """
        input rotated by k·90° in the plane of dims, from the first dim towards the second (torch.rot90).
        """
    def select_scatter(self, src, dim, index):
        """
        input with input.select(dim, index) replaced by src (torch.select_scatter).
        """
    def sgn(self):
        """
        The sign of input, −1, 0 or 1 (torch.sgn; for real numbers the same as sign).
        """
    def signbit(self):
        """
        True where input's sign bit is set: negative numbers and −0.0 (torch.signbit).
        """
    def sinh(self):
        """
        (e^x − e^−x) / 2, as (expm1(x) − expm1(−x)) / 2 to keep the digits of small x, and as
            sign(x)·e^|x| / 2 without overflow for large |x| (torch.sinh).
        """
    def slice_scatter(self, src, dim = 0, start = None, end = None, step = 1):
        """
        input with input[..., start:end:step, ...] (along dim) replaced by src (torch.slice_scatter).
        """
    def slogdet(self):
        """
        (sign, logabsdet) with det = sign * exp(logabsdet) (torch.slogdet).
        """
    def sort(self, dim = -1, descending = False, stable = False):
        """
        (values, indices) of input sorted along dim (ascending unless descending), as torch.sort.
        """
    def split_with_sizes(self, split_sizes, dim = 0):
        """
        input split along dim into pieces of the given sizes, which must sum to its size there
            (torch.split_with_sizes): views.
        """
    def square(self):
        """
        input ** 2 elementwise (torch.square); a bool tensor gives int64, as torch's pow does.
        """
    def std(self, dim = None, unbiased = None, keepdim = False, *, correction = None):
        """
        The standard deviation sqrt(var) over dim, correction 1 (Bessel's) unless unbiased=False or
            correction says otherwise (torch.std).
        """
    def subtract(self, other, *, alpha = 1):
        """
        input - alpha * other: sub under NumPy's name (torch.subtract).
        """
    def svd(self, some = True, compute_uv = True):
        """
        torch.svd, the old API: (U, S, V) with input = U diag(S) V^T (V, not Vh); some=True: the
            reduced U and V. compute_uv=False: S only, and zero-filled U (m, m) and V (n, n), as torch.
        """
    def swapdims(self, dim0, dim1):
        """
        input with dims dim0 and dim1 exchanged, a view (torch.swapdims, = transpose).
        """
    def take(self, index):
        """
        input seen as 1-d, read at `index` (negative counts from the end); the result has index's shape
            (torch.take).
        """
    def take_along_dim(self, indices, dim = None):
        """
        input read at `indices` along dim (−n ≤ i < 0 counts from the end), the other dims broadcast
            (torch.take_along_dim); without dim, of the flattened input (indices 0 ≤ i < numel, as torch's).
        """
    def tensor_split(self, indices_or_sections, dim = 0):
        """
        Views of input along dim: n sections (the first size % n one longer), or cut before each index
            of a list / 1-d tensor (torch.tensor_split).
        """
    def topk(self, k, dim = -1, largest = True, sorted = True):
        """
        The k largest (or smallest) values along dim and their indices, as torch.topk.
        """
    def trace(self):
        """
        Σ_i input[i, i] of a 2-d tensor; integers sum to int64, as torch.trace.
        """
    def unbind(self, dim = 0):
        """
        The slices of input along dim (views, that dim removed), as a tuple (torch.unbind).
        """
    def unflatten(self, dim, sizes):
        """
        dim of input split into dims of `sizes` (one may be -1), a view (torch.unflatten).
        """
    def unique(self, sorted = True, return_inverse = False, return_counts = False, dim = None):
        """
        The distinct values of input in ascending order (torch.unique); dim=None flattens input first,
            dim=d takes the distinct slices along d in lexicographic order. return_inverse: where each
            element (slice) of input went, shaped as input (as input.shape[d]); return_counts: how often
            each value occurs. NaNs are all distinct, as in torch. torch's CPU kernel sorts also when
            sorted=False, and so does seqlab.
        """
    def unique_consecutive(self, return_inverse = False, return_counts = False, dim = None):
        """
        Collapses each run of equal consecutive elements (slices along dim) to one, as
            torch.unique_consecutive; return_inverse and return_counts as in unique.
        """
    def unsafe_chunk(self, chunks, dim = 0):
        """
        chunk (torch.unsafe_chunk: torch skips a view check seqlab does not make).
        """
    def unsafe_split(self, split_size, dim = 0):
        """
        split (torch.unsafe_split: torch skips a view check seqlab does not make).
        """
    unsafe_split_with_sizes = split_with_sizes
    def vdot(self, other):
        """
        The dot product of two 1-D tensors (torch.vdot; for real tensors, dot).
        """
    def vsplit(self, indices_or_sections):
        """
        tensor_split along dim 0 of a tensor of at least 2 dims; n sections must divide evenly (torch.vsplit).
        """
    def xlogy(self, other):
        """
        input·log(other), 0 where input is 0 (unless other is NaN); ints compute in the default dtype (torch.xlogy).
        """
    def __abs__(self) -> Tensor:
        ...
    def __add__(self, other: typing.Any) -> typing.Any:
        ...
    def __and__(self, other: typing.Any) -> typing.Any:
        ...
    def __array__(self, dtype = None, copy = None):
        ...
    def __bool__(self) -> bool:
        ...
    def __deepcopy__(self, memo):
        """
        A copy with its own storage; keeps requires_grad and the Parameter mark, drops history.
        """
    def __dlpack__(self, *, stream: typing.Any = None, max_version: typing.Any = None, dl_device: typing.Any = None, copy: typing.Any = None) -> typing.Any:
        """
        A DLPack capsule sharing this tensor's memory, for another library's from_dlpack.
        """
    def __dlpack_device__(self) -> tuple[int, int]:
        """
        (device type, device id): (kDLCPU, 0).
        """
    def __eq__(self, other: typing.Any) -> typing.Any:
        ...
    def __float__(self) -> float:
        ...
    def __floordiv__(self, other: typing.Any) -> typing.Any:
        ...
    def __format__(self, spec):
        """
        format(t, '.4f') of a 0-d tensor formats its value; an empty spec is str(t), as torch's.
        """
    def __ge__(self, other: typing.Any) -> typing.Any:
        ...
    def __getitem__(self, key):
        ...
    def __gt__(self, other: typing.Any) -> typing.Any:
        ...
    def __hash__(self) -> int:
        ...
    def __iadd__(self, other: typing.Any) -> typing.Any:
        ...
    def __iand__(self, other: typing.Any) -> typing.Any:
        ...
    def __ifloordiv__(self, other: typing.Any) -> typing.Any:
        ...
    def __ilshift__(self, other: typing.Any) -> typing.Any:
        ...
    def __imod__(self, other: typing.Any) -> typing.Any:
        ...
    def __imul__(self, other: typing.Any) -> typing.Any:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, *args, **kwargs) -> None:
        """
        Tensor(data) copies data as float32; Tensor(*sizes) is uninitialised; Tensor() is empty.
        """
    def __int__(self) -> int:
        ...
    def __invert__(self) -> Tensor:
        ...
    def __ior__(self, other: typing.Any) -> typing.Any:
        ...
    def __irshift__(self, other: typing.Any) -> typing.Any:
        ...
    def __isub__(self, other: typing.Any) -> typing.Any:
        ...
    def __iter__(self):
        ...
    def __itruediv__(self, other: typing.Any) -> typing.Any:
        ...
    def __ixor__(self, other: typing.Any) -> typing.Any:
        ...
    def __le__(self, other: typing.Any) -> typing.Any:
        ...
    def __len__(self) -> int:
        ...
    def __lshift__(self, other: typing.Any) -> typing.Any:
        ...
    def __lt__(self, other: typing.Any) -> typing.Any:
        ...
    def __matmul__(self, other: Tensor) -> Tensor:
        ...
    def __mod__(self, other: typing.Any) -> typing.Any:
        ...
    def __mul__(self, other: typing.Any) -> typing.Any:
        ...
    def __ne__(self, other: typing.Any) -> typing.Any:
        ...
    def __neg__(self) -> Tensor:
        ...
    def __or__(self, other: typing.Any) -> typing.Any:
        ...
    def __pow__(self, exponent: typing.Any) -> typing.Any:
        ...
    def __radd__(self, other: typing.Any) -> typing.Any:
        ...
    def __rand__(self, other: typing.Any) -> typing.Any:
        ...
    def __reduce__(self):
        """
        Pickling: the data as a NumPy array, plus requires_grad and the Parameter mark.
        """
    def __repr__(self):
        """
        torch's repr: see _tensor_str.py.
        """
    def __rfloordiv__(self, other: typing.Any) -> typing.Any:
        ...
    def __rlshift__(self, other: typing.Any) -> typing.Any:
        ...
    def __rmod__(self, other: typing.Any) -> typing.Any:
        ...
    def __rmul__(self, other: typing.Any) -> typing.Any:
        ...
    def __ror__(self, other: typing.Any) -> typing.Any:
        ...
    def __rpow__(self, other: typing.Any) -> typing.Any:
        ...
    def __rrshift__(self, other: typing.Any) -> typing.Any:
        ...
    def __rshift__(self, other: typing.Any) -> typing.Any:
        ...
    def __rsub__(self, other: typing.Any) -> typing.Any:
        ...
    def __rtruediv__(self, other: typing.Any) -> typing.Any:
        ...
    def __rxor__(self, other: typing.Any) -> typing.Any:
        ...
    def __setitem__(self, key, value):
        ...
    def __str__(self):
        """
        torch's repr: see _tensor_str.py.
        """
    def __sub__(self, other: typing.Any) -> typing.Any:
        ...
    def __truediv__(self, other: typing.Any) -> typing.Any:
        ...
    def __xor__(self, other: typing.Any) -> typing.Any:
        ...
    def _index(self, indices: collections.abc.Sequence[Tensor | None]) -> Tensor:
        ...
    def _index_put_(self, indices: collections.abc.Sequence[Tensor | None], values: Tensor, accumulate: bool) -> Tensor:
        ...
    def _rebase(self, result: Tensor) -> None:
        ...
    def _set_data(self, data: Tensor) -> None:
        """
        x.data = data: x now shares data's memory, shape and dtype, keeping its own autograd state.
        """
    def _slice(self, dim: typing.SupportsInt | typing.SupportsIndex, start: typing.SupportsInt | typing.SupportsIndex, end: typing.SupportsInt | typing.SupportsIndex, step: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        ...
    def abs(self) -> Tensor:
        """
        out = |input| (torch.abs).
        """
    def abs_(self, *args, **kwargs):
        """
        In place: self = abs(self, ...), written into self (Tensor.abs_).
        """
    def absolute_(self, *args, **kwargs):
        """
        In place: self = abs(self, ...), written into self (Tensor.absolute_).
        """
    def acos_(self, *args, **kwargs):
        """
        In place: self = acos(self, ...), written into self (Tensor.acos_).
        """
    def acosh_(self, *args, **kwargs):
        """
        In place: self = acosh(self, ...), written into self (Tensor.acosh_).
        """
    def add(self, other: typing.Any, *, alpha: typing.Any = 1) -> Tensor:
        """
        out = input + alpha * other, elementwise with broadcasting; other may be a number (torch.add).
        """
    def add_(self, other: typing.Any, *, alpha: typing.Any = 1) -> Tensor:
        """
        In place: self = self OP alpha * other (add_, sub_), self OP other (mul_, div_); other broadcasts to self.
        """
    def addbmm_(self, *args, **kwargs):
        """
        In place: self = addbmm(self, ...), written into self (Tensor.addbmm_).
        """
    def addcdiv_(self, *args, **kwargs):
        """
        In place: self = addcdiv(self, ...), written into self (Tensor.addcdiv_).
        """
    def addcmul_(self, *args, **kwargs):
        """
        In place: self = addcmul(self, ...), written into self (Tensor.addcmul_).
        """
    def addmm_(self, *args, **kwargs):
        """
        In place: self = addmm(self, ...), written into self (Tensor.addmm_).
        """
    def addmv_(self, *args, **kwargs):
        """
        In place: self = addmv(self, ...), written into self (Tensor.addmv_).
        """
    def addr_(self, *args, **kwargs):
        """
        In place: self = addr(self, ...), written into self (Tensor.addr_).
        """
    def allclose(self, other, rtol = 1e-05, atol = 1e-08, equal_nan = False):
        """
        True if |self - other| <= atol + rtol * |other| everywhere (torch.Tensor.allclose).
        """
    def apply_(self, callable):
        """
        Replaces each element x with callable(x), a Python function, in place (torch.Tensor.apply_:
            CPU only, slow, no autograd).
        """
    def arccos_(self, *args, **kwargs):
        """
        In place: self = acos(self, ...), written into self (Tensor.arccos_).
        """
    def arccosh_(self, *args, **kwargs):
        """
        In place: self = acosh(self, ...), written into self (Tensor.arccosh_).
        """
    def arcsin_(self, *args, **kwargs):
        """
        In place: self = asin(self, ...), written into self (Tensor.arcsin_).
        """
    def arcsinh_(self, *args, **kwargs):
        """
        In place: self = asinh(self, ...), written into self (Tensor.arcsinh_).
        """
    def arctan2_(self, *args, **kwargs):
        """
        In place: self = atan2(self, ...), written into self (Tensor.arctan2_).
        """
    def arctan_(self, *args, **kwargs):
        """
        In place: self = atan(self, ...), written into self (Tensor.arctan_).
        """
    def arctanh_(self, *args, **kwargs):
        """
        In place: self = atanh(self, ...), written into self (Tensor.arctanh_).
        """
    def argmax(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False) -> Tensor:
        """
        The index of the largest value along dim (of the flattened input if dim is None), the first if tied
        (torch.argmax).
        """
    def argmin(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False) -> Tensor:
        """
        The index of the smallest value along dim (of the flattened input if dim is None) (torch.argmin).
        """
    def asin_(self, *args, **kwargs):
        """
        In place: self = asin(self, ...), written into self (Tensor.asin_).
        """
    def asinh_(self, *args, **kwargs):
        """
        In place: self = asinh(self, ...), written into self (Tensor.asinh_).
        """
    def atan2_(self, *args, **kwargs):
        """
        In place: self = atan2(self, ...), written into self (Tensor.atan2_).
        """
    def atan_(self, *args, **kwargs):
        """
        In place: self = atan(self, ...), written into self (Tensor.atan_).
        """
    def atanh_(self, *args, **kwargs):
        """
        In place: self = atanh(self, ...), written into self (Tensor.atanh_).
        """
    def backward(self, gradient = None, retain_graph = None, create_graph = False, inputs = None):
        """
        backward(self: Tensor, gradient: Tensor | None = None, retain_graph: bool | None = None) -> None
        
        Accumulate d(self)/d(leaf), times gradient (needed unless self has one element), into every leaf's
        .grad by the chain rule, in reverse order of the ops; the graph is freed unless retain_graph.
        
        The engine's backward (torch.Tensor.backward's arguments: inputs limits which .grad
            accumulate; create_graph=True needs the double backward seqlab does not have), then under
            detect_anomaly a check that no leaf's gradient holds NaN.
        """
    def baddbmm_(self, *args, **kwargs):
        """
        In place: self = baddbmm(self, ...), written into self (Tensor.baddbmm_).
        """
    @typing.overload
    def bernoulli(self, *, generator: Generator = None) -> Tensor:
        """
        1 with probability self_i, else 0 (torch.bernoulli).
        """
    @typing.overload
    def bernoulli(self, p: typing.SupportsFloat | typing.SupportsIndex, *, generator: Generator = None) -> Tensor:
        """
        1 with probability p, else 0, in the shape and dtype of self.
        """
    @typing.overload
    def bernoulli_(self, p: Tensor, *, generator: Generator = None) -> Tensor:
        """
        Fill with 1 with probability p_i (a tensor broadcast to self), else 0, in place.
        """
    @typing.overload
    def bernoulli_(self, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, *, generator: Generator = None) -> Tensor:
        """
        Fill with 1 with probability p, else 0, in place.
        """
    def bitwise_and(self, other: typing.Any) -> Tensor:
        """
        input & other on integer or bool tensors, with torch's promotion; either may be a number
        (torch.bitwise_and).
        """
    def bitwise_and_(self, other: typing.Any) -> Tensor:
        """
        In place: self = self & other.
        """
    def bitwise_left_shift(self, other: typing.Any) -> Tensor:
        """
        input << other on integer tensors, wrapping; a shift by a negative amount or by the width or
        more gives 0 (torch.bitwise_left_shift).
        """
    def bitwise_left_shift_(self, other: typing.Any) -> Tensor:
        """
        In place: self = self << other.
        """
    def bitwise_not(self) -> Tensor:
        """
        ~input: every bit flipped for integers, NOT for bools (torch.bitwise_not).
        """
    def bitwise_not_(self) -> Tensor:
        """
        In place: self = ~self.
        """
    def bitwise_or(self, other: typing.Any) -> Tensor:
        """
        input | other on integer or bool tensors, with torch's promotion; either may be a number
        (torch.bitwise_or).
        """
    def bitwise_or_(self, other: typing.Any) -> Tensor:
        """
        In place: self = self | other.
        """
    def bitwise_right_shift(self, other: typing.Any) -> Tensor:
        """
        input >> other on integer tensors, arithmetic for signed types; a shift by a negative amount or
        by the width or more gives 0 or -1 (torch.bitwise_right_shift).
        """
    def bitwise_right_shift_(self, other: typing.Any) -> Tensor:
        """
        In place: self = self >> other.
        """
    def bitwise_xor(self, other: typing.Any) -> Tensor:
        """
        input ^ other on integer or bool tensors, with torch's promotion; either may be a number
        (torch.bitwise_xor).
        """
    def bitwise_xor_(self, other: typing.Any) -> Tensor:
        """
        In place: self = self ^ other.
        """
    def bmm(self, mat2: Tensor) -> Tensor:
        """
        (b, n, m) @ (b, m, p) -> (b, n, p), one matrix product per batch (torch.bmm).
        """
    def bool(self) -> Tensor:
        """
        self converted to bool, as torch.Tensor.to(bool).
        """
    def byte(self) -> Tensor:
        """
        self converted to uint8, as torch.Tensor.to(uint8).
        """
    def cauchy_(self, median = 0, sigma = 1, *, generator = None):
        """
        Fills self with Cauchy(median, sigma) samples: median + sigma * tan(pi * (u - 1/2))
            (torch.Tensor.cauchy_).
        """
    def ceil(self) -> Tensor:
        """
        out = the smallest integer >= input (torch.ceil).
        """
    def ceil_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def char(self) -> Tensor:
        """
        self converted to int8, as torch.Tensor.to(int8).
        """
    def chunk(self, chunks: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> list[Tensor]:
        """
        At most `chunks` views of equal size ceil(n / chunks) along dim (torch.chunk).
        """
    def clamp_(self, *args, **kwargs):
        """
        In place: self = clamp(self, ...), written into self (Tensor.clamp_).
        """
    def clamp_max_(self, *args, **kwargs):
        """
        In place: self = clamp_max(self, ...), written into self (Tensor.clamp_max_).
        """
    def clamp_min_(self, *args, **kwargs):
        """
        In place: self = clamp_min(self, ...), written into self (Tensor.clamp_min_).
        """
    def clip_(self, *args, **kwargs):
        """
        In place: self = clip(self, ...), written into self (Tensor.clip_).
        """
    def contiguous(self, memory_format = ...):
        """
        self if C-contiguous, else a C-contiguous copy (torch.Tensor.contiguous).
        """
    def copy_(self, src, non_blocking = False):
        """
        Copy src's values into self (broadcast, converted to self's dtype). src may also be another
            library's tensor: any DLPack producer (a torch tensor, a NumPy array) is read through DLPack,
            without a copy of its own where its dtype is one of seqlab's. That is how nanoGPT-style code
            fills a seqlab model from Hugging Face's torch state dict: sd[k].copy_(sd_hf[k].t()).
            non_blocking: torch's, for device copies; seqlab's are on the CPU and always complete.
        """
    def copysign_(self, *args, **kwargs):
        """
        In place: self = copysign(self, ...), written into self (Tensor.copysign_).
        """
    def cos(self) -> Tensor:
        """
        out = cos(input), in radians (torch.cos).
        """
    def cos_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def cosh_(self, *args, **kwargs):
        """
        In place: self = cosh(self, ...), written into self (Tensor.cosh_).
        """
    def cpu(self, memory_format = None):
        """
        self: every seqlab tensor is on the CPU (torch's cpu() returns self there too).
        """
    def cuda(self, device = None, non_blocking = False, memory_format = ...):
        """
        torch's answer on a build without CUDA: AssertionError, as seqlab.cuda.synchronize.
        """
    def cumprod(self, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: dtype | None = None) -> Tensor:
        """
        Cumulative product along dim: y_i = x_0 * ... * x_i (torch.cumprod), differentiable also
        where x has zeros.
        """
    def cumprod_(self, dim, *, dtype = None):
        """
        In place: self = cumprod(self, dim), written into self (Tensor.cumprod_).
        """
    def cumsum(self, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: dtype | None = None) -> Tensor:
        """
        Cumulative sum along dim: y_i = x_0 + ... + x_i (torch.cumsum). Integers and bools give int64
        unless dtype= says otherwise; dtype= casts the input first.
        """
    def cumsum_(self, dim, *, dtype = None):
        """
        In place: self = cumsum(self, dim), written into self (Tensor.cumsum_).
        """
    def data_ptr(self) -> int:
        """
        The address of the first element.
        """
    def deg2rad_(self, *args, **kwargs):
        """
        In place: self = deg2rad(self, ...), written into self (Tensor.deg2rad_).
        """
    def detach(self) -> Tensor:
        """
        The same memory as a new leaf without history: autograd does not see through it.
        """
    def detach_(self) -> Tensor:
        """
        Cut self from its history in place; returns self.
        """
    def digamma(self) -> Tensor:
        """
        out = digamma(input) = Gamma'(x)/Gamma(x); -inf at 0, NaN at the negative integers; d/dx = polygamma(1, x) (torch.digamma).
        """
    def digamma_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore (self must be floating point).
        """
    def dim(self) -> int:
        """
        The number of dims.
        """
    def div_(self, other, *, rounding_mode = None):
        """
        In place: self = div(self, other, rounding_mode=...) (torch.Tensor.div_); true division of an
            integer tensor is torch's error, since its float result cannot be written back.
        """
    divide_ = div_
    def double(self) -> Tensor:
        """
        self converted to float64, as torch.Tensor.to(float64).
        """
    def element_size(self) -> int:
        """
        The size of one element in bytes.
        """
    def eq(self, other: typing.Any) -> Tensor:
        """
        input == other elementwise, a bool tensor (torch.eq).
        """
    def eq_(self, *args, **kwargs):
        """
        In place: self = eq(self, ...), written into self (Tensor.eq_).
        """
    def erf(self) -> Tensor:
        """
        out = erf(input) = 2/sqrt(pi) * integral_0^input exp(-t^2) dt (torch.erf).
        """
    def erf_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def erfc(self) -> Tensor:
        """
        out = 1 - erf(input), accurate for large input (torch.erfc).
        """
    def erfc_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def erfinv(self) -> Tensor:
        """
        out = the inverse error function of input, in [-1, 1]; +-inf at +-1, NaN outside (torch.erfinv).
        """
    def erfinv_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def exp(self) -> Tensor:
        """
        out = e^input (torch.exp).
        """
    def exp2(self) -> Tensor:
        """
        out = 2^input (torch.exp2).
        """
    def exp2_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore (self must be floating point).
        """
    def exp_(self, *args, **kwargs):
        """
        In place: self = exp(self, ...), written into self (Tensor.exp_).
        """
    def expand(self, *args) -> Tensor:
        """
        expand(*sizes): size-1 dims repeated to the given sizes without copying (stride 0); -1 keeps a size
        (torch.Tensor.expand).
        """
    def expand_as(self, other):
        """
        self expanded to other's shape, without copying (torch.Tensor.expand_as).
        """
    def expm1(self) -> Tensor:
        """
        out = e^input - 1, accurate for small input (torch.expm1).
        """
    def expm1_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def exponential_(self, lambd: typing.SupportsFloat | typing.SupportsIndex = 1.0, *, generator: Generator = None) -> Tensor:
        """
        Fill with x ~ Exp(lambd) in place: x = -log(1 - u) / lambd, u ~ U[0, 1).
        """
    def fill_(self, value: typing.Any) -> Tensor:
        """
        Fill self with value in place; returns self.
        """
    def fill_diagonal_(self, fill_value, wrap = False):
        """
        Writes fill_value on the main diagonal, in place (torch.Tensor.fill_diagonal_): a matrix's
            (i, i), or an n-d tensor's (i, i, ..., i) when all its dims are equal; with wrap=True a tall
            matrix starts the diagonal again every cols + 1 rows.
        """
    def fix_(self, *args, **kwargs):
        """
        In place: self = trunc(self, ...), written into self (Tensor.fix_).
        """
    def flatten(self, start_dim: typing.SupportsInt | typing.SupportsIndex = 0, end_dim: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
        """
        Dims start_dim..end_dim merged into one (a view when possible) (torch.flatten).
        """
    def float(self) -> Tensor:
        """
        self converted to float32, as torch.Tensor.to(float32).
        """
    def float_power_(self, exponent):
        """
        In place: self = float_power(self, exponent); self must be float64, as torch's.
        """
    def floor(self) -> Tensor:
        """
        out = the largest integer <= input (torch.floor).
        """
    def floor_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def floor_divide(self, other: typing.Any) -> Tensor:
        """
        input // other, rounded toward -inf as Python's // (torch.floor_divide); integers exactly (division
        by 0 raises ZeroDivisionError), floats with inf/NaN at 0. No gradient, as in torch.
        """
    def floor_divide_(self, other: typing.Any) -> Tensor:
        """
        In place: self = self // other (torch.Tensor.floor_divide_).
        """
    def fmod(self, other: typing.Any) -> Tensor:
        """
        The C remainder input - trunc(input / other) * other: the sign of input (torch.fmod).
        """
    def fmod_(self, other: typing.Any) -> Tensor:
        """
        In place: self = fmod(self, other).
        """
    def frac(self) -> Tensor:
        """
        out = input - trunc(input), with the sign of input (torch.frac).
        """
    def frac_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def gather(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor) -> Tensor:
        """
        out[i][j] = input[index[i][j]][j] for dim=0 (and likewise for other dims); out has index's shape
        (torch.gather).
        """
    def gcd_(self, *args, **kwargs):
        """
        In place: self = gcd(self, ...), written into self (Tensor.gcd_).
        """
    def ge(self, other: typing.Any) -> Tensor:
        """
        input >= other elementwise, a bool tensor (torch.ge).
        """
    def ge_(self, *args, **kwargs):
        """
        In place: self = ge(self, ...), written into self (Tensor.ge_).
        """
    def geometric_(self, p, *, generator = None):
        """
        Fills self with the number of Bernoulli(p) trials up to the first success, 1, 2, ...:
            ceil(log(1 - u) / log(1 - p)) (torch.Tensor.geometric_).
        """
    def greater_(self, *args, **kwargs):
        """
        In place: self = gt(self, ...), written into self (Tensor.greater_).
        """
    def greater_equal_(self, *args, **kwargs):
        """
        In place: self = ge(self, ...), written into self (Tensor.greater_equal_).
        """
    def gt(self, other: typing.Any) -> Tensor:
        """
        input > other elementwise, a bool tensor (torch.gt).
        """
    def gt_(self, *args, **kwargs):
        """
        In place: self = gt(self, ...), written into self (Tensor.gt_).
        """
    def heaviside_(self, *args, **kwargs):
        """
        In place: self = heaviside(self, ...), written into self (Tensor.heaviside_).
        """
    def hypot_(self, *args, **kwargs):
        """
        In place: self = hypot(self, ...), written into self (Tensor.hypot_).
        """
    def i0(self) -> Tensor:
        """
        out = I0(input), the modified Bessel function of the first kind of order 0; d/dx = I1(x) (torch.i0).
        """
    def i0_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore (self must be floating point).
        """
    def igamma(self, other: Tensor) -> Tensor:
        """
        out = P(input, other), the regularized lower incomplete gamma function; gradient for other only (torch.igamma).
        """
    def igamma_(self, other: Tensor) -> Tensor:
        """
        In place: self = igamma(self, other).
        """
    def igammac(self, other: Tensor) -> Tensor:
        """
        out = Q(input, other) = 1 - P(input, other), the regularized upper incomplete gamma function; gradient for other only (torch.igammac).
        """
    def igammac_(self, other: Tensor) -> Tensor:
        """
        In place: self = igammac(self, other).
        """
    def index_add(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, *, alpha: typing.Any = 1) -> Tensor:
        """
        out = input with out[..., index[i], ...] += alpha * source[..., i, ...] along dim; index is 1-d (int64 or
        int32), duplicates accumulate (torch.index_add).
        """
    def index_add_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, *, alpha: typing.Any = 1) -> Tensor:
        """
        In place: self[..., index[i], ...] += alpha * source[..., i, ...] along dim; returns self.
        """
    def index_copy(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor) -> Tensor:
        """
        out = input with out[..., index[i], ...] = source[..., i, ...] along dim; index is 1-d int64
        (torch.index_copy).
        """
    def index_copy_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor) -> Tensor:
        """
        In place: self[..., index[i], ...] = source[..., i, ...] along dim; returns self.
        """
    def index_put_(self, indices, values, accumulate = False):
        """
        In place: self[indices] = values, or += values when accumulate (torch.Tensor.index_put_).
        """
    def index_reduce(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        """
        out = input with every source[..., i, ...] reduced into out[..., index[i], ...] along dim; reduce is
        'prod', 'mean', 'amax' or 'amin', input's own value taking part when include_self (torch.index_reduce).
        """
    def index_reduce_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        """
        In place index_reduce; returns self (Tensor.index_reduce_).
        """
    def index_select(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor) -> Tensor:
        """
        The entries index (1-d, int64) along dim, copied (torch.index_select).
        """
    def int(self) -> Tensor:
        """
        self converted to int32, as torch.Tensor.to(int32).
        """
    def is_contiguous(self) -> bool:
        """
        True if the elements lie in memory in row-major order with no gaps.
        """
    def is_floating_point(self) -> bool:
        """
        True for float32 and float64.
        """
    def item(self) -> typing.Any:
        """
        The value of a one-element tensor as a Python number.
        """
    def lcm_(self, *args, **kwargs):
        """
        In place: self = lcm(self, ...), written into self (Tensor.lcm_).
        """
    def ldexp_(self, *args, **kwargs):
        """
        In place: self = ldexp(self, ...), written into self (Tensor.ldexp_).
        """
    def le(self, other: typing.Any) -> Tensor:
        """
        input <= other elementwise, a bool tensor (torch.le).
        """
    def le_(self, *args, **kwargs):
        """
        In place: self = le(self, ...), written into self (Tensor.le_).
        """
    def lerp_(self, *args, **kwargs):
        """
        In place: self = lerp(self, ...), written into self (Tensor.lerp_).
        """
    def less_(self, *args, **kwargs):
        """
        In place: self = lt(self, ...), written into self (Tensor.less_).
        """
    def less_equal_(self, *args, **kwargs):
        """
        In place: self = le(self, ...), written into self (Tensor.less_equal_).
        """
    def lgamma(self) -> Tensor:
        """
        out = ln|Gamma(input)|; inf at 0 and the negative integers; d/dx = digamma(x) (torch.lgamma).
        """
    def lgamma_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore (self must be floating point).
        """
    def log(self) -> Tensor:
        """
        out = ln(input), the natural logarithm; NaN below 0, -inf at 0 (torch.log).
        """
    def log10(self) -> Tensor:
        """
        out = log10(input) (torch.log10).
        """
    def log10_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def log1p(self) -> Tensor:
        """
        out = ln(1 + input), accurate for small input (torch.log1p).
        """
    def log1p_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def log2(self) -> Tensor:
        """
        out = log2(input) (torch.log2).
        """
    def log2_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def log_(self, *args, **kwargs):
        """
        In place: self = log(self, ...), written into self (Tensor.log_).
        """
    def log_normal_(self, mean = 1, std = 2, *, generator = None):
        """
        Fills self with exp(N(mean, std)) samples (torch.Tensor.log_normal_: mean and std are those
            of the underlying normal).
        """
    def log_softmax(self, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        log_softmax(x)_i = x_i - log sum_j exp(x_j), computed stably along dim (torch.log_softmax).
        """
    def logical_and(self, other: typing.Any) -> Tensor:
        """
        input AND other, zero meaning False, a bool tensor (torch.logical_and).
        """
    def logical_and_(self, *args, **kwargs):
        """
        In place: self = logical_and(self, ...), written into self (Tensor.logical_and_).
        """
    def logical_not(self) -> Tensor:
        """
        NOT input, zero meaning False, a bool tensor (torch.logical_not).
        """
    def logical_not_(self, *args, **kwargs):
        """
        In place: self = logical_not(self, ...), written into self (Tensor.logical_not_).
        """
    def logical_or(self, other: typing.Any) -> Tensor:
        """
        input OR other, zero meaning False, a bool tensor (torch.logical_or).
        """
    def logical_or_(self, *args, **kwargs):
        """
        In place: self = logical_or(self, ...), written into self (Tensor.logical_or_).
        """
    def logical_xor(self, other: typing.Any) -> Tensor:
        """
        input XOR other, zero meaning False, a bool tensor (torch.logical_xor).
        """
    def logical_xor_(self, *args, **kwargs):
        """
        In place: self = logical_xor(self, ...), written into self (Tensor.logical_xor_).
        """
    def logit(self, eps: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
        """
        out = ln(z/(1-z)) with z = input clamped to [eps, 1-eps] when eps is given (NaN outside [0, 1] without it) (torch.logit).
        """
    def logit_(self, eps: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
        """
        In place: self = logit(self, eps).
        """
    def long(self) -> Tensor:
        """
        self converted to int64, as torch.Tensor.to(int64).
        """
    def lt(self, other: typing.Any) -> Tensor:
        """
        input < other elementwise, a bool tensor (torch.lt).
        """
    def lt_(self, *args, **kwargs):
        """
        In place: self = lt(self, ...), written into self (Tensor.lt_).
        """
    def map2_(self, x, y, callable):
        """
        self[i] = callable(self[i], x[i], y[i]) with x and y broadcast to self (torch.Tensor.map2_).
        """
    def map_(self, tensor, callable):
        """
        self[i] = callable(self[i], tensor[i]) with tensor broadcast to self (torch.Tensor.map_).
        """
    def masked_fill(self, mask: Tensor, value: typing.Any) -> Tensor:
        """
        input with value where mask (broadcast to input) is True (torch.masked_fill).
        """
    def masked_fill_(self, mask: Tensor, value: typing.Any) -> Tensor:
        """
        self_i = value where mask_i is True, in place; returns self.
        """
    def masked_scatter_(self, *args, **kwargs):
        """
        In place: self = masked_scatter(self, ...), written into self (Tensor.masked_scatter_).
        """
    def matmul(self, other: Tensor) -> Tensor:
        """
        The matrix product with NumPy's rules: 1-d is a vector, batch dims broadcast (torch.matmul).
        """
    def matrix_exp(self):
        """
        e^self for each square matrix (torch.Tensor.matrix_exp).
        """
    def max(self, dim: typing.Any = None, keepdim: bool = False, *, keepdims: bool = False) -> typing.Any:
        """
        max(input): the largest element; max(input, dim, keepdim=False): (values, indices) along dim;
        max(input, other): maximum(input, other) (torch.max).
        """
    def maximum(self, other: typing.Any) -> Tensor:
        """
        The elementwise maximum of input and other; NaN if either is NaN (torch.maximum).
        """
    def mean(self, dim: typing.Any = None, keepdim: bool = False, *, dtype: dtype | None = None, keepdims: bool = False) -> Tensor:
        """
        The mean over dim (an int, a tuple of ints, or None: all) (torch.mean).
        """
    def min(self, dim: typing.Any = None, keepdim: bool = False, *, keepdims: bool = False) -> typing.Any:
        """
        min(input): the smallest element; min(input, dim, keepdim=False): (values, indices) along dim;
        min(input, other): minimum(input, other) (torch.min).
        """
    def minimum(self, other: typing.Any) -> Tensor:
        """
        The elementwise minimum of input and other; NaN if either is NaN (torch.minimum).
        """
    def mm(self, mat2: Tensor) -> Tensor:
        """
        (n, m) @ (m, p) -> (n, p), 2-d only (torch.mm).
        """
    def mul(self, other: typing.Any) -> Tensor:
        """
        out = input * other, elementwise with broadcasting; other may be a number (torch.mul).
        """
    def mul_(self, other: typing.Any, *, alpha: typing.Any = 1) -> Tensor:
        """
        In place: self = self OP alpha * other (add_, sub_), self OP other (mul_, div_); other broadcasts to self.
        """
    def multinomial(self, num_samples: typing.SupportsInt | typing.SupportsIndex, replacement: bool = False, *, generator: Generator = None) -> Tensor:
        """
        num_samples indices per row drawn with probabilities proportional to the row (torch.multinomial).
        """
    def multiply_(self, *args, **kwargs):
        """
        In place: self = mul(self, ...), written into self (Tensor.multiply_).
        """
    def mvlgamma(self, p: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        out = the multivariate log-gamma of dimension p, p(p-1)/4 ln(pi) + sum_{j<p} lgamma(input - j/2); p >= 1 (torch.mvlgamma).
        """
    def mvlgamma_(self, p: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        In place: self = mvlgamma(self, p).
        """
    def nan_to_num_(self, *args, **kwargs):
        """
        In place: self = nan_to_num(self, ...), written into self (Tensor.nan_to_num_).
        """
    def narrow(self, dim: typing.SupportsInt | typing.SupportsIndex, start: typing.SupportsInt | typing.SupportsIndex, length: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        A view of elements start..start+length-1 along dim (torch.narrow).
        """
    def ndimension(self) -> int:
        """
        The number of dims (dim's other name).
        """
    def ne(self, other: typing.Any) -> Tensor:
        """
        input != other elementwise, a bool tensor (torch.ne).
        """
    def ne_(self, *args, **kwargs):
        """
        In place: self = ne(self, ...), written into self (Tensor.ne_).
        """
    def neg(self) -> Tensor:
        """
        out = -input (torch.neg).
        """
    def neg_(self, *args, **kwargs):
        """
        In place: self = neg(self, ...), written into self (Tensor.neg_).
        """
    def negative(self) -> Tensor:
        """
        out = -input (torch.negative, an alias of neg).
        """
    def negative_(self, *args, **kwargs):
        """
        In place: self = neg(self, ...), written into self (Tensor.negative_).
        """
    def nelement(self) -> int:
        """
        The number of elements (numel's other name).
        """
    def new(self, *args, device = None):
        """
        torch.Tensor.new: a tensor of self's dtype: no arguments is an empty (0,) tensor, ints are
            a size (uninitialised), a sequence is data (copied), a tensor of self's dtype is shared.
        """
    def new_empty(self, *size, dtype = None, device = None, requires_grad = False, layout = None, pin_memory = False):
        """
        An uninitialised tensor of the given size, self's dtype unless dtype says otherwise
            (torch.Tensor.new_empty).
        """
    def new_empty_strided(self, size, stride, *, dtype = None, device = None, requires_grad = False, layout = None, pin_memory = False):
        """
        new_empty(size): seqlab makes every new tensor C-contiguous, so `stride` is checked (one per
            dim) but not used (torch.Tensor.new_empty_strided).
        """
    def new_full(self, size, fill_value, *, dtype = None, device = None, requires_grad = False, layout = None, pin_memory = False):
        """
        A tensor of the given size filled with fill_value, self's dtype unless dtype says otherwise
            (torch.Tensor.new_full).
        """
    def new_ones(self, *size, dtype = None, device = None, requires_grad = False):
        """
        ones of the given size with self's dtype unless dtype says otherwise (torch.Tensor.new_ones).
        """
    def new_tensor(self, data, dtype = None, device = None, requires_grad = False):
        """
        A copy of data as a tensor with self's dtype unless dtype says otherwise (torch.Tensor.new_tensor).
        """
    def new_zeros(self, *size, dtype = None, device = None, requires_grad = False):
        """
        zeros of the given size with self's dtype unless dtype says otherwise (torch.Tensor.new_zeros).
        """
    def nextafter_(self, *args, **kwargs):
        """
        In place: self = nextafter(self, ...), written into self (Tensor.nextafter_).
        """
    def nonzero(self) -> Tensor:
        """
        The indices of the non-zero elements, one row per element: shape (n, input.dim()) (torch.nonzero).
        """
    def nonzero_static(self, *, size, fill_value = -1):
        """
        nonzero(input) with exactly size rows (torch.nonzero_static): the first size indices of the
            nonzero elements, padded with rows of fill_value.
        """
    def norm(self, p: typing.Any = 'fro', dim: typing.Any = None, keepdim: bool = False, dtype: dtype | None = None) -> Tensor:
        """
        The vector p-norm (sum |x|^p)^(1/p) over dim; p='fro' is 2 (torch.norm).
        """
    def normal_(self, mean: typing.SupportsFloat | typing.SupportsIndex = 0.0, std: typing.SupportsFloat | typing.SupportsIndex = 1.0, *, generator: Generator = None) -> Tensor:
        """
        Fill with x ~ N(mean, std^2) in place.
        """
    def not_equal_(self, *args, **kwargs):
        """
        In place: self = ne(self, ...), written into self (Tensor.not_equal_).
        """
    def numel(self) -> int:
        """
        The number of elements, the product of the sizes.
        """
    def numpy(self, *, force: bool = False) -> numpy.ndarray:
        """
        A NumPy array sharing this tensor's memory (torch.Tensor.numpy); refuses tensors that require grad
        unless force=True.
        """
    def permute(self, *args) -> Tensor:
        """
        permute(*dims): a view with the dims reordered (torch.permute).
        """
    def polygamma(self, n: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        polygamma(n, self): the n-th derivative of digamma (torch.Tensor.polygamma).
        """
    def polygamma_(self, n: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        In place: self = polygamma(n, self).
        """
    def pow(self, exponent: typing.Any) -> Tensor:
        """
        out = input ** exponent elementwise; exponent a tensor (broadcast) or a number (torch.pow).
        """
    def pow_(self, *args, **kwargs):
        """
        In place: self = pow(self, ...), written into self (Tensor.pow_).
        """
    def prod(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
        """
        The product of all elements, or along dim (keepdim keeps it as size 1) (torch.prod). Integers and
        bools give int64 unless dtype= says otherwise; dtype= casts the input first. Differentiable also
        where the input has zeros.
        """
    def put_(self, *args, **kwargs):
        """
        In place: self = put(self, ...), written into self (Tensor.put_).
        """
    def rad2deg_(self, *args, **kwargs):
        """
        In place: self = rad2deg(self, ...), written into self (Tensor.rad2deg_).
        """
    def random_(self, *args, generator = None, **kwargs):
        """
        Fill with integers uniform in [from, to), in place: torch's random_(from=0, to=None, *,
            generator=None), where random_(to) alone means [0, to) and no bounds every integer the dtype
            holds exactly, from 0.
        """
    def reciprocal_(self, *args, **kwargs):
        """
        In place: self = reciprocal(self, ...), written into self (Tensor.reciprocal_).
        """
    def register_hook(self, hook):
        """
        Tensor.register_hook(hook): hook(grad) is called each time the gradient of this tensor is
            computed, before it is used (accumulated into a leaf's .grad, passed further back, kept by
            retain_grad, returned by autograd.grad); it may return a tensor to use instead, or None.
            Hooks run in the order they were registered. Returns a handle whose remove() unregisters it.
        """
    def register_post_accumulate_grad_hook(self, hook):
        """
        Tensor.register_post_accumulate_grad_hook(hook) on a leaf: hook(tensor) is called after
            backward has accumulated this tensor's gradient into .grad (not by autograd.grad). Its return
            value is ignored. Returns a handle whose remove() unregisters it.
        """
    def relu(self) -> Tensor:
        """
        out = max(input, 0); the gradient at 0 is 0, as torch's (torch.relu).
        """
    def relu_(self) -> Tensor:
        """
        In-place relu: input = max(input, 0); the gradient at 0 is 0 (torch.relu_).
        """
    def remainder(self, other: typing.Any) -> Tensor:
        """
        Python's modulus input - floor(input / other) * other: the sign of other (torch.remainder).
        """
    def remainder_(self, other: typing.Any) -> Tensor:
        """
        In place: self = remainder(self, other).
        """
    def renorm_(self, *args, **kwargs):
        """
        In place: self = renorm(self, ...), written into self (Tensor.renorm_).
        """
    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """
        Set requires_grad in place (leaves only); returns self.
        """
    def reshape(self, *args) -> Tensor:
        """
        reshape(*shape): a view with the new shape when the strides allow, else a copy (torch.reshape).
        """
    def reshape_as(self, other):
        """
        self reshaped to other's shape (torch.Tensor.reshape_as).
        """
    def resize(self, *sizes):
        """
        Tensor.resize (deprecated, as torch's, with its warning): self reshaped to sizes, which must
            hold the same number of elements; the gradient flows back through the reshape.
        """
    def resize_(self, *sizes, memory_format = None):
        """
        self reshaped to `sizes` in place, keeping its first elements in row-major order; new elements
            are uninitialised (torch.Tensor.resize_). seqlab reallocates: a view of self taken earlier no
            longer shares its memory afterwards (torch keeps the storage when it is large enough).
        """
    def resize_as(self, tensor):
        """
        Tensor.resize_as (deprecated, as torch's, with its warning): self reshaped to tensor's shape,
            which must hold the same number of elements.
        """
    def resize_as_(self, the_template, *, memory_format = None):
        """
        self.resize_(the_template.shape) (torch.Tensor.resize_as_).
        """
    def retain_grad(self) -> None:
        """
        Keep .grad for this non-leaf tensor too at backward().
        """
    def round(self, *, decimals: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        Rounds to the nearest integer, ties to even, or to `decimals` decimal places (torch.round).
        """
    def round_(self, *, decimals: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        In-place round (ties to even).
        """
    def rsqrt(self) -> Tensor:
        """
        out = 1 / sqrt(input) (torch.rsqrt).
        """
    def rsqrt_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    @typing.overload
    def scatter(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, *, reduce: str | None = None) -> Tensor:
        """
        out = input with out[index[i][j]][j] = src[i][j] for dim=0 (out[i][index[i][j]] = src[i][j] for dim=1, and
        likewise for other dims); src may be a number `value`. reduce='add' or 'multiply' combines instead of
        writing (deprecated in torch, no gradient). index is int64 or int32 with input's number of dims
        (torch.scatter).
        """
    @typing.overload
    def scatter(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: typing.Any, *, reduce: str | None = None) -> Tensor:
        """
        out = input with out[index[i][j]][j] = src[i][j] for dim=0 (out[i][index[i][j]] = src[i][j] for dim=1, and
        likewise for other dims); src may be a number `value`. reduce='add' or 'multiply' combines instead of
        writing (deprecated in torch, no gradient). index is int64 or int32 with input's number of dims
        (torch.scatter).
        """
    @typing.overload
    def scatter_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, *, reduce: str | None = None) -> Tensor:
        """
        In place: self[index[i][j]][j] = src[i][j] for dim=0 (or the number value; reduce='add' or 'multiply'
        combines); returns self (Tensor.scatter_).
        """
    @typing.overload
    def scatter_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: typing.Any, *, reduce: str | None = None) -> Tensor:
        """
        In place: self[index[i][j]][j] = value for dim=0 (and likewise for other dims); returns self.
        """
    def scatter_add(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> Tensor:
        """
        out = input with out[index[i][j]][j] += src[i][j] for dim=0 (and likewise for other dims); duplicate
        indices accumulate (torch.scatter_add).
        """
    def scatter_add_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> Tensor:
        """
        In place: self[index[i][j]][j] += src[i][j] for dim=0 (and likewise for other dims); returns self.
        """
    def scatter_reduce(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        """
        out = input with every src[i][j] reduced into out[index[i][j]][j] for dim=0 (and likewise for other dims);
        reduce is 'sum', 'prod', 'mean', 'amax' or 'amin', and input's own value takes part when include_self
        (torch.scatter_reduce). amax/amin split the gradient equally among tied values.
        """
    def scatter_reduce_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        """
        In place scatter_reduce; returns self (Tensor.scatter_reduce_).
        """
    def select(self, dim: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        A view of index along dim, that dim removed: x.select(0, i) is x[i] (torch.select).
        """
    def sgn_(self, *args, **kwargs):
        """
        In place: self = sgn(self, ...), written into self (Tensor.sgn_).
        """
    def short(self) -> Tensor:
        """
        self converted to int16, as torch.Tensor.to(int16).
        """
    def sigmoid(self) -> Tensor:
        """
        out = 1 / (1 + e^-input); d/dx = s(x)(1 - s(x)) (torch.sigmoid).
        """
    def sigmoid_(self, *args, **kwargs):
        """
        In place: self = sigmoid(self, ...), written into self (Tensor.sigmoid_).
        """
    def sign(self) -> Tensor:
        """
        out = -1, 0 or 1 by the sign of input; gradient 0 (torch.sign).
        """
    def sign_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def sin(self) -> Tensor:
        """
        out = sin(input), in radians (torch.sin).
        """
    def sin_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def sinc(self) -> Tensor:
        """
        out = sin(pi x)/(pi x), 1 at 0, the normalized sinc function (torch.sinc).
        """
    def sinc_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore (self must be floating point).
        """
    def sinh_(self, *args, **kwargs):
        """
        In place: self = sinh(self, ...), written into self (Tensor.sinh_).
        """
    def size(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> typing.Any:
        """
        size(): the shape, a tuple; size(dim): the size of that dim.
        """
    def softmax(self, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x) along dim (torch.softmax).
        """
    def split(self, split_size_or_sections: typing.Any, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> list[Tensor]:
        """
        Views of consecutive pieces along dim: of split_size each (the last may be smaller), or of the sizes
        listed (torch.split).
        """
    def sqrt(self) -> Tensor:
        """
        out = sqrt(input); NaN below 0 (torch.sqrt).
        """
    def sqrt_(self, *args, **kwargs):
        """
        In place: self = sqrt(self, ...), written into self (Tensor.sqrt_).
        """
    def square_(self, *args, **kwargs):
        """
        In place: self = square(self, ...), written into self (Tensor.square_).
        """
    def squeeze(self, dim: typing.Any = None) -> Tensor:
        """
        A view without the size-1 dims (all, or those in dim) (torch.squeeze).
        """
    def squeeze_(self, *args, **kwargs):
        """
        In place: self = self.squeeze(...), the same tensor object with the new shape.
        """
    def storage_offset(self) -> int:
        """
        Where the first element sits in the storage, in elements.
        """
    def stride(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> typing.Any:
        """
        The steps in elements between neighbours along each dim (or along dim).
        """
    def sub(self, other: typing.Any, *, alpha: typing.Any = 1) -> Tensor:
        """
        out = input - alpha * other, elementwise with broadcasting; other may be a number (torch.sub).
        """
    def sub_(self, other: typing.Any, *, alpha: typing.Any = 1) -> Tensor:
        """
        In place: self = self OP alpha * other (add_, sub_), self OP other (mul_, div_); other broadcasts to self.
        """
    def subtract_(self, *args, **kwargs):
        """
        In place: self = sub(self, ...), written into self (Tensor.subtract_).
        """
    def sum(self, dim: typing.Any = None, keepdim: bool = False, *, dtype: dtype | None = None, keepdims: bool = False) -> Tensor:
        """
        The sum over dim (an int, a tuple of ints, or None: all); keepdim keeps the reduced dims as size 1;
        dtype= converts input first (torch.sum). Integers and bools sum to int64.
        """
    def sum_to_size(self, *size):
        """
        self summed over the dims it was broadcast along, to `size` (torch.Tensor.sum_to_size):
            size must expand to self's shape.
        """
    def swapaxes(self, axis0: typing.SupportsInt | typing.SupportsIndex, axis1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        transpose with NumPy's names (torch.swapaxes).
        """
    def swapaxes_(self, *args, **kwargs):
        """
        In place: self = self.swapaxes(...), the same tensor object with the new shape.
        """
    def swapdims_(self, *args, **kwargs):
        """
        In place: self = self.swapdims(...), the same tensor object with the new shape.
        """
    def t(self) -> Tensor:
        """
        The transpose of a matrix (dims 0 and 1); 0-d and 1-d come back as they are (torch.t).
        """
    def t_(self, *args, **kwargs):
        """
        In place: self = self.t(...), the same tensor object with the new shape.
        """
    def tan(self) -> Tensor:
        """
        out = tan(input), in radians (torch.tan).
        """
    def tan_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def tanh(self) -> Tensor:
        """
        out = tanh(input) = (e^x - e^-x) / (e^x + e^-x); d/dx = 1 - tanh(x)^2 (torch.tanh).
        """
    def tanh_(self, *args, **kwargs):
        """
        In place: self = tanh(self, ...), written into self (Tensor.tanh_).
        """
    def tile(self, *dims):
        """
        input repeated dims[i] times along each dim (x.tile(2, 3) or x.tile((2, 3)), torch's Tensor.tile).
        """
    def to(self, *args, **kwargs):
        """
        x.to(dtype), x.to(device, dtype=None), x.to(other), with non_blocking and copy, as torch's
            (`data.to(device)` in scripts); the device must be the CPU. Returns x itself when nothing
            changes, unless copy=True.
        """
    def tolist(self):
        """
        The values as nested Python lists (a number for a 0-d tensor) (torch.Tensor.tolist).
        """
    def transpose(self, dim0: typing.SupportsInt | typing.SupportsIndex, dim1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        A view with dims dim0 and dim1 swapped (torch.transpose).
        """
    def transpose_(self, *args, **kwargs):
        """
        In place: self = self.transpose(...), the same tensor object with the new shape.
        """
    def triangular_solve(self, A, upper = True, transpose = False, unitriangular = False):
        """
        triangular_solve(self, A, ...) as a Tensor method (torch.Tensor.triangular_solve).
        """
    def tril(self, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        """
        The lower triangle: elements with j - i <= diagonal kept, the rest 0 (torch.tril).
        """
    def tril_(self, *args, **kwargs):
        """
        In place: self = tril(self, ...), written into self (Tensor.tril_).
        """
    def triu(self, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        """
        The upper triangle: elements with j - i >= diagonal kept, the rest 0 (torch.triu).
        """
    def triu_(self, *args, **kwargs):
        """
        In place: self = triu(self, ...), written into self (Tensor.triu_).
        """
    def true_divide(self, other: typing.Any) -> Tensor:
        """
        out = input / other, true division (torch.true_divide, an alias of div).
        """
    def true_divide_(self, *args, **kwargs):
        """
        In place: self = div(self, ...), written into self (Tensor.true_divide_).
        """
    def trunc(self) -> Tensor:
        """
        out = input rounded toward zero (torch.trunc).
        """
    def trunc_(self) -> Tensor:
        """
        In place: self = f(self), f as the method without the underscore.
        """
    def type(self, dtype = None, non_blocking = False):
        """
        x.type(): the type's name ("seqlab.FloatTensor"); x.type(dtype) converts, as x.to(dtype).
            A name ("torch.LongTensor" or "seqlab.LongTensor") converts to that type.
        """
    def type_as(self, other):
        """
        self converted to other's dtype (torch.Tensor.type_as).
        """
    def unfold(self, dimension, size, step):
        """
        Every window of `size` elements along `dimension`, `step` apart, as a new last dim
            (torch.Tensor.unfold): shape (..., (n - size) // step + 1, ..., size). torch returns a view;
            seqlab gathers a copy with index_select (so writing into it does not write into self), and the
            gradient adds each window's back where it came from, as torch's.
        """
    def uniform_(self, from_: typing.SupportsFloat | typing.SupportsIndex = 0.0, to: typing.SupportsFloat | typing.SupportsIndex = 1.0, *, generator: Generator = None) -> Tensor:
        """
        Fill with x ~ U[from, to) in place.
        """
    def unsqueeze(self, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        A view with a size-1 dim inserted at dim (torch.unsqueeze).
        """
    def unsqueeze_(self, *args, **kwargs):
        """
        In place: self = self.unsqueeze(...), the same tensor object with the new shape.
        """
    def var(self, dim: typing.Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: typing.SupportsFloat | typing.SupportsIndex | None = None, keepdims: bool = False) -> Tensor:
        """
        The variance sum((x - mean)^2) / (N - correction) over dim; correction 1 (Bessel's, the default,
        unbiased=True) or 0 (torch.var).
        """
    def view(self, *args) -> Tensor:
        """
        view(*shape): the same memory seen with another shape (one dim may be -1); the strides must allow it,
        else use reshape (torch.Tensor.view).
        """
    def view_as(self, other):
        """
        self viewed with other's shape (torch.Tensor.view_as).
        """
    def where(self, condition: Tensor, other: typing.Any) -> Tensor:
        """
        out_i = self_i if condition_i else other_i (torch.Tensor.where).
        """
    def xlogy_(self, *args, **kwargs):
        """
        In place: self = xlogy(self, ...), written into self (Tensor.xlogy_).
        """
    def zero_(self) -> Tensor:
        """
        Fill self with zeros in place; returns self.
        """
    @property
    def H(self):
        """
        The conjugate transpose of a matrix; for real tensors x.T of a 2-D x.
        """
    @property
    def T(self) -> Tensor:
        """
        All dims reversed (torch's Tensor.T).
        """
    @property
    def _version(self) -> int:
        ...
    @property
    def data(self):
        """
        The same memory without history (torch's .data); assigning swaps the memory in.
        """
    @data.setter
    def data(self, value):
        ...
    @property
    def device(self):
        """
        Where the data live: always seqlab.device('cpu').
        """
    @property
    def dtype(self) -> dtype:
        """
        The element type (seqlab.float32, ...).
        """
    @property
    def grad(self) -> Tensor:
        """
        d(loss)/d(self), summed over backward calls: set by backward() on leaves that require grad.
        """
    @grad.setter
    def grad(self, arg1: Tensor | None) -> None:
        ...
    @property
    def grad_fn(self) -> typing.Any:
        """
        The op that made this tensor (None for leaves), whose backward autograd runs.
        """
    @property
    def is_cpu(self):
        ...
    @property
    def is_cuda(self):
        ...
    @property
    def is_leaf(self) -> bool:
        """
        True if no recorded op made this tensor: backward() fills its .grad.
        """
    @property
    def is_meta(self):
        """
        False: no seqlab tensor lives on the meta device.
        """
    @property
    def is_quantized(self):
        """
        False: seqlab has no quantized tensors.
        """
    @property
    def itemsize(self):
        """
        Bytes per element (torch.Tensor.itemsize).
        """
    @property
    def layout(self):
        """
        seqlab.strided: every tensor is a strided one.
        """
    @property
    def mH(self):
        """
        The conjugate transpose of the last two dims; for real tensors mT.
        """
    @property
    def mT(self):
        """
        The last two dims swapped, a view (torch.Tensor.mT).
        """
    @property
    def nbytes(self):
        """
        Bytes the elements take: numel() * itemsize (torch.Tensor.nbytes).
        """
    @property
    def ndim(self) -> int:
        """
        The number of dims.
        """
    @property
    def output_nr(self):
        """
        The output of its grad_fn this tensor is: 0 (torch's output_nr; seqlab's multi-output ops do not record it).
        """
    @property
    def requires_grad(self) -> bool:
        """
        True if autograd records the ops on this tensor (set it on leaves).
        """
    @requires_grad.setter
    def requires_grad(self, arg1: bool) -> None:
        ...
    @property
    def retains_grad(self) -> bool:
        """
        True if retain_grad() was called on this non-leaf.
        """
    @property
    def shape(self) -> tuple:
        """
        The sizes of the dims, a tuple.
        """
class Generator:
    """
    Generator(device='cpu'): a random number generator with its own seed
    and stream, as torch.Generator. Pass it as generator= to the random functions; two generators
    never disturb each other, and one seed always gives the same numbers.
    """
    def __getstate__(self) -> tuple[int, Tensor]:
        ...
    def __init__(self, device: typing.Any = 'cpu') -> None:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def get_state(self) -> Tensor:
        """
        The whole state as an int64 tensor, for set_state.
        """
    def initial_seed(self) -> int:
        """
        The seed last set.
        """
    def manual_seed(self, seed: typing.Any) -> typing.Any:
        """
        Seed the generator; returns it.
        """
    def seed(self) -> int:
        """
        Seed from a non-deterministic source; returns the seed.
        """
    def set_state(self, new_state: Tensor) -> typing.Any:
        """
        Restore a state from get_state(); returns the generator.
        """
    @property
    def device(self) -> typing.Any:
        """
        Where the generator draws: always seqlab.device('cpu').
        """
class PositionalScheme:
    """
    What a positional module passes to the attention: its kind (a registered scheme),
    its options and its parameters by name.
    """
    def __init__(self, kind: str = 'none', options: collections.abc.Mapping[str, bool | typing.SupportsInt | typing.SupportsIndex | typing.SupportsFloat | typing.SupportsIndex | str] = {}, params: collections.abc.Mapping[str, Tensor] = {}) -> None:
        ...
    @property
    def kind(self) -> str:
        ...
    @property
    def options(self) -> dict[str, bool | int | float | str]:
        ...
    @property
    def params(self) -> dict[str, Tensor]:
        ...
class AttentionCache:
    """
    One attention layer's cached keys and values (B, H, T, Dh), grown by one step per decoding call,
    so generation attends over the past without recomputing it.
    """
    def __init__(self, is_static: bool = False) -> None:
        """
        An empty cache; is_static keeps its storage between reset() calls.
        """
    def __len__(self) -> int:
        """
        The number of positions cached.
        """
    def __repr__(self) -> str:
        ...
    def get_seq_length(self) -> int:
        """
        The number of positions cached.
        """
    def reorder_cache(self, beam_idx: Tensor) -> None:
        """
        Keep the batch rows beam_idx (beam search), in order.
        """
    def reset(self) -> None:
        """
        Forget every cached position.
        """
    @property
    def is_static(self) -> bool:
        ...
    @property
    def key(self) -> typing.Any:
        """
        The cached keys (B, H, T, Dh), or None.
        """
    @property
    def value(self) -> typing.Any:
        """
        The cached values (B, H, T, Dh), or None.
        """
class KVCache:
    """
    The key/value caches of a whole decoder: one self-attention and one cross-attention cache per layer.
    """
    def __init__(self) -> None:
        """
        An empty cache for every layer of a decoder.
        """
    def __len__(self) -> int:
        """
        The number of layers.
        """
    def __repr__(self) -> str:
        ...
    def cross_attention(self, layer: typing.SupportsInt | typing.SupportsIndex) -> AttentionCache:
        """
        The cross-attention cache of layer `layer` (the encoder's keys and values).
        """
    def get_seq_length(self) -> int:
        """
        The number of positions cached.
        """
    def reorder_cache(self, beam_idx: Tensor) -> None:
        """
        Keep the batch rows beam_idx in every layer (beam search).
        """
    def reset(self) -> None:
        """
        Forget every cached position of every layer.
        """
    def self_attention(self, layer: typing.SupportsInt | typing.SupportsIndex) -> AttentionCache:
        """
        The self-attention cache of layer `layer`.
        """
class MultiheadAttentionParams:
    """
    What a MultiheadAttention passes to its functional.
    """
    fields: typing.ClassVar[tuple] = ('embed_dim', 'num_heads', 'dropout', 'add_zero_attn', 'batch_first', 'in_proj_weight', 'q_proj_weight', 'k_proj_weight', 'v_proj_weight', 'in_proj_bias', 'out_proj_weight', 'out_proj_bias', 'bias_k', 'bias_v', 'pos', 'scale', 'num_key_value_heads', 'head_dim')
    add_zero_attn: bool
    batch_first: bool
    def __init__(self, **kwargs) -> None:
        ...
    @property
    def bias_k(self) -> Tensor:
        ...
    @bias_k.setter
    def bias_k(self, arg1: Tensor | None) -> None:
        ...
    @property
    def bias_v(self) -> Tensor:
        ...
    @bias_v.setter
    def bias_v(self, arg1: Tensor | None) -> None:
        ...
    dropout: float
    embed_dim: int
    head_dim: int
    @property
    def in_proj_bias(self) -> Tensor:
        ...
    @in_proj_bias.setter
    def in_proj_bias(self, arg1: Tensor | None) -> None:
        ...
    @property
    def in_proj_weight(self) -> Tensor:
        ...
    @in_proj_weight.setter
    def in_proj_weight(self, arg1: Tensor | None) -> None:
        ...
    @property
    def k_proj_weight(self) -> Tensor:
        ...
    @k_proj_weight.setter
    def k_proj_weight(self, arg1: Tensor | None) -> None:
        ...
    num_heads: int
    num_key_value_heads: int
    @property
    def out_proj_bias(self) -> Tensor:
        ...
    @out_proj_bias.setter
    def out_proj_bias(self, arg1: Tensor | None) -> None:
        ...
    @property
    def out_proj_weight(self) -> Tensor:
        ...
    @out_proj_weight.setter
    def out_proj_weight(self, arg1: Tensor | None) -> None:
        ...
    @property
    def pos(self) -> PositionalScheme:
        ...
    @pos.setter
    def pos(self, arg1: typing.Any) -> None:
        ...
    @property
    def q_proj_weight(self) -> Tensor:
        ...
    @q_proj_weight.setter
    def q_proj_weight(self, arg1: Tensor | None) -> None:
        ...
    @property
    def scale(self) -> float | None:
        ...
    @scale.setter
    def scale(self, arg0: typing.SupportsFloat | typing.SupportsIndex | None) -> None:
        ...
    @property
    def v_proj_weight(self) -> Tensor:
        ...
    @v_proj_weight.setter
    def v_proj_weight(self, arg1: Tensor | None) -> None:
        ...
class LinearParams:
    """
    What a Linear passes to the layer functionals.
    """
    fields: typing.ClassVar[tuple] = ('weight', 'bias')
    def __init__(self, **kwargs) -> None:
        ...
    @property
    def bias(self) -> Tensor:
        ...
    @bias.setter
    def bias(self, arg1: Tensor | None) -> None:
        ...
    @property
    def weight(self) -> Tensor:
        ...
    @weight.setter
    def weight(self, arg1: Tensor | None) -> None:
        ...
class LayerNormParams:
    """
    What a LayerNorm passes to the layer functionals.
    """
    fields: typing.ClassVar[tuple] = ('normalized_shape', 'weight', 'bias', 'eps', 'rms')
    rms: bool
    def __init__(self, **kwargs) -> None:
        ...
    @property
    def bias(self) -> Tensor:
        ...
    @bias.setter
    def bias(self, arg1: Tensor | None) -> None:
        ...
    eps: float
    @property
    def normalized_shape(self) -> list[int]:
        ...
    @normalized_shape.setter
    def normalized_shape(self, arg1: typing.Any) -> None:
        ...
    @property
    def weight(self) -> Tensor:
        ...
    @weight.setter
    def weight(self, arg1: Tensor | None) -> None:
        ...
class TransformerEncoderLayerParams:
    """
    What a TransformerEncoderLayer passes to its functional.
    """
    fields: typing.ClassVar[tuple] = ('self_attn', 'linear1', 'linear2', 'linear3', 'norm1', 'norm2', 'dropout', 'dropout1', 'dropout2', 'activation', 'norm_first')
    activation: typing.Any
    linear1: LinearParams
    linear2: LinearParams
    linear3: typing.Any
    norm1: LayerNormParams
    norm2: LayerNormParams
    norm_first: bool
    self_attn: MultiheadAttentionParams
    def __init__(self, **kwargs) -> None:
        ...
    dropout: float
    dropout1: float
    dropout2: float
class TransformerDecoderLayerParams:
    """
    What a TransformerDecoderLayer passes to its functional.
    """
    fields: typing.ClassVar[tuple] = ('self_attn', 'multihead_attn', 'linear1', 'linear2', 'linear3', 'norm1', 'norm2', 'norm3', 'dropout', 'dropout1', 'dropout2', 'dropout3', 'activation', 'norm_first')
    activation: typing.Any
    linear1: LinearParams
    linear2: LinearParams
    linear3: typing.Any
    multihead_attn: MultiheadAttentionParams
    norm1: LayerNormParams
    norm2: LayerNormParams
    norm3: LayerNormParams
    norm_first: bool
    self_attn: MultiheadAttentionParams
    def __init__(self, **kwargs) -> None:
        ...
    dropout: float
    dropout1: float
    dropout2: float
    dropout3: float
class _HookHandle:
    """
    Where a tensor hook is registered; remove() unregisters it.
    """
    def remove(self) -> None:
        """
        Unregister the hook (harmless if already removed).
        """
    @property
    def id(self) -> int:
        ...
class _FunctionNodeRef:
    """
    A Function ctx's link to the node it recorded.
    """
    def next_functions(self) -> tuple:
        """
        ((node, input_nr), ...) for the tensor inputs, as Node.next_functions.
        """
    def saved_tensors(self) -> tuple:
        """
        ctx.saved_tensors: what save_for_backward kept, checked against in-place changes since.
        """
def _adaptive_avg_pool1d(input: Tensor, output_size: typing.Any) -> Tensor:
    """
    The mean over windows [floor(i*L/O), ceil((i+1)*L/O)) of input (N, C, L) or (C, L).
    """
def _adaptive_avg_pool2d(input: Tensor, output_size: typing.Any) -> Tensor:
    """
    The mean over windows [floor(i*H/OH), ceil((i+1)*H/OH)) x [floor(j*W/OW), ceil((j+1)*W/OW)).
    """
def _arange(start: typing.SupportsFloat | typing.SupportsIndex, end: typing.SupportsFloat | typing.SupportsIndex, step: typing.SupportsFloat | typing.SupportsIndex, dtype: dtype) -> Tensor:
    ...
def _available_isas() -> list[str]:
    """
    Every instruction set level this CPU has, lowest first.
    """
def _blas_info() -> str:
    """
    The BLAS in use and the kernel it chose.
    """
def _build_info() -> dict:
    """
    How _core was compiled: the compiler, the CMake build type, the C++ standard.
    """
def _cpu_isa() -> str:
    """
    The best instruction set this CPU has.
    """
def _empty(size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: dtype) -> Tensor:
    ...
def _eye(n: typing.SupportsInt | typing.SupportsIndex, m: typing.SupportsInt | typing.SupportsIndex, dtype: dtype) -> Tensor:
    ...
def _full(size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], fill_value: typing.SupportsFloat | typing.SupportsIndex, dtype: dtype) -> Tensor:
    ...
def _function_record(ctx: typing.Any, name: str, inputs: collections.abc.Sequence[Tensor], outputs: collections.abc.Sequence[Tensor], dirty: collections.abc.Sequence[bool], differentiable: collections.abc.Sequence[bool], to_save: collections.abc.Sequence[Tensor | None]) -> tuple[list, _FunctionNodeRef]:
    """
    _function_record(ctx, name, inputs, outputs, dirty, differentiable, to_save) -> (outputs, node): record one Function.apply whose backward is ctx._backward_from_engine.
    """
def _grad(outputs: collections.abc.Sequence[Tensor], grad_outputs: collections.abc.Sequence[Tensor], inputs: collections.abc.Sequence[Tensor], retain_graph: bool = False) -> list:
    ...
def _index_put(input: Tensor, indices: collections.abc.Sequence[Tensor | None], values: Tensor, accumulate: bool) -> Tensor:
    ...
def _linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    ...
def _max_threads() -> int:
    """
    the most threads set_num_threads and the embedding trainers' workers accept
    """
def _panel_tile() -> tuple[int, int]:
    """
    (rows, registers) of the panel GEMM's register tile at the active instruction set.
    """
def _panel_width(is_double: bool = False) -> int:
    """
    Columns per panel of the recurrent and attention GEMM kernel at the active instruction set.
    """
def _rand(size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: dtype, generator: Generator) -> Tensor:
    ...
def _randint(low: typing.SupportsInt | typing.SupportsIndex, high: typing.SupportsInt | typing.SupportsIndex, size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: dtype, generator: Generator) -> Tensor:
    ...
def _randn(size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dtype: dtype, generator: Generator) -> Tensor:
    ...
def _random_(self: Tensor, from_: typing.SupportsInt | typing.SupportsIndex, to: typing.SupportsInt | typing.SupportsIndex | None, generator: Generator) -> Tensor:
    ...
def _randperm(n: typing.SupportsInt | typing.SupportsIndex, dtype: dtype, generator: Generator) -> Tensor:
    ...
def _register_hook(tensor: Tensor, hook: typing.Any) -> _HookHandle:
    """
    _register_hook(tensor, hook): hook(grad) -> replacement or None, run when the gradient of tensor is computed.
    """
def _register_post_accumulate_grad_hook(tensor: Tensor, hook: typing.Any) -> _HookHandle:
    """
    _register_post_accumulate_grad_hook(tensor, hook): hook(tensor) after backward updated tensor.grad.
    """
def _run_backward(tensors: collections.abc.Sequence[Tensor], grad_tensors: collections.abc.Sequence[Tensor], retain_graph: bool = False) -> None:
    ...
def _set_default_float_dtype(d: dtype) -> None:
    """
    The float dtype integers promote to in ops (seqlab.set_default_dtype sets it).
    """
def _set_grad_enabled(mode: bool) -> None:
    ...
def _set_isa(isa: str) -> None:
    """
    Caps every SIMD dispatcher at `isa` from the next op on (ValueError if the CPU lacks it).
    """
def _simd_isa() -> str:
    """
    The instruction set every SIMD dispatcher uses now: sse2, avx2 or avx512.
    """
def abs(input: Tensor) -> Tensor:
    """
    out = |input| (torch.abs).
    """
def adaptive_max_pool1d_with_indices(input: Tensor, output_size: typing.Any) -> tuple[Tensor, Tensor]:
    """
    (the max over windows [floor(i*L/O), ceil((i+1)*L/O)) of input (N, C, L) or (C, L), their argmax along L)
    (F.adaptive_max_pool1d_with_indices).
    """
def adaptive_max_pool2d_with_indices(input: Tensor, output_size: typing.Any) -> tuple[Tensor, Tensor]:
    """
    (the max over windows [floor(i*H/OH), ceil((i+1)*H/OH)) x [floor(j*W/OW), ceil((j+1)*W/OW)), the argmax
    positions h*W + w in each plane) (F.adaptive_max_pool2d_with_indices).
    """
def add(input: Tensor, other: typing.Any, *, alpha: typing.Any = 1) -> Tensor:
    """
    out = input + alpha * other, elementwise with broadcasting; other may be a number (torch.add).
    """
def alibi_slopes(num_heads: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    ALiBi's head slopes (Press et al. 2022): 2^(-8/n), 2^(-16/n), ..., 2^(-8) for n a power of two;
    otherwise those of the largest power of two p < n, then every other slope of 2p. float64 (n).
    """
def alpha_dropout(input: Tensor, p: typing.SupportsFloat | typing.SupportsIndex, train: bool) -> Tensor:
    """
    Alpha dropout (Klambauer et al. 2017; torch.alpha_dropout): in training each element is set to SELU's
    saturation with probability p, then all scaled and shifted to keep zero mean and unit variance.
    """
def argmax(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False) -> Tensor:
    """
    The index of the largest value along dim (of the flattened input if dim is None), the first if tied
    (torch.argmax).
    """
def argmin(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False) -> Tensor:
    """
    The index of the smallest value along dim (of the flattened input if dim is None) (torch.argmin).
    """
def attention_weights(query: Tensor, key: Tensor, attn_mask: Tensor | None = None, is_causal: bool = False, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, enable_gqa: bool = False) -> Tensor:
    """
    softmax(Q Kᵀ · scale + attn_mask) as a (..., Hq, L, S) tensor, differentiable: the attention
    weights of scaled_dot_product_attention, to plot (rows with every key masked are zeros).
    """
def avg_pool1d(input: Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """
    The mean over each window of input (N, C, L) or (C, L); the divisor counts the zero padding when
    count_include_pad (F.avg_pool1d). stride defaults to kernel_size.
    """
def avg_pool2d(input: Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    The mean over each window of input (N, C, H, W) or (C, H, W); the divisor counts the zero padding
    when count_include_pad, or is divisor_override (F.avg_pool2d). stride defaults to kernel_size.
    """
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False, momentum: typing.SupportsFloat | typing.SupportsIndex = 0.1, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> Tensor:
    """
    y = (x - mean) / sqrt(var + eps) * weight + bias per channel (dim 1): the batch's statistics in
    training (running_mean/var updated with momentum), the running ones otherwise (Ioffe & Szegedy 2015;
    F.batch_norm).
    """
def batch_norm_module_forward(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, num_batches_tracked: Tensor | None, weight: Tensor | None, bias: Tensor | None, training: bool, track_running_stats: bool, momentum: typing.SupportsFloat | typing.SupportsIndex | None, eps: typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
    """
    nn.BatchNorm1d's forward: batch_norm plus the num_batches_tracked count and momentum=None's
    cumulative average.
    """
@typing.overload
def bernoulli(input: Tensor, *, generator: Generator = None) -> Tensor:
    """
    1 with probability input_i, else 0 (torch.bernoulli); same shape and dtype as input.
    """
@typing.overload
def bernoulli(input: Tensor, p: typing.SupportsFloat | typing.SupportsIndex, *, generator: Generator = None) -> Tensor:
    """
    1 with probability p, else 0, in the shape and dtype of input.
    """
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """
    y_k = x1^T W_k x2 + b_k (F.bilinear).
    """
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = 'mean', pos_weight: Tensor | None = None) -> Tensor:
    """
    -w [pos_weight y log s(x) + (1 - y) log(1 - s(x))], s the sigmoid, computed stably from the logits x
    (F.binary_cross_entropy_with_logits).
    """
def bitwise_and(input: typing.Any, other: typing.Any) -> Tensor:
    """
    input & other on integer or bool tensors, with torch's promotion; either may be a number
    (torch.bitwise_and).
    """
def bitwise_left_shift(input: typing.Any, other: typing.Any) -> Tensor:
    """
    input << other on integer tensors, wrapping; a shift by a negative amount or by the width or
    more gives 0 (torch.bitwise_left_shift).
    """
def bitwise_not(input: Tensor) -> Tensor:
    """
    ~input: every bit flipped for integers, NOT for bools (torch.bitwise_not).
    """
def bitwise_or(input: typing.Any, other: typing.Any) -> Tensor:
    """
    input | other on integer or bool tensors, with torch's promotion; either may be a number
    (torch.bitwise_or).
    """
def bitwise_right_shift(input: typing.Any, other: typing.Any) -> Tensor:
    """
    input >> other on integer tensors, arithmetic for signed types; a shift by a negative amount or
    by the width or more gives 0 or -1 (torch.bitwise_right_shift).
    """
def bitwise_xor(input: typing.Any, other: typing.Any) -> Tensor:
    """
    input ^ other on integer or bool tensors, with torch's promotion; either may be a number
    (torch.bitwise_xor).
    """
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """
    (b, n, m) @ (b, m, p) -> (b, n, p), one matrix product per batch (torch.bmm).
    """
def canonical_mask(mask: Tensor | None, mask_name: str, other: Tensor | None, other_name: str, target_type: dtype) -> typing.Any:
    ...
def cat(tensors: collections.abc.Sequence[Tensor], dim: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    The tensors joined along an existing dim; the other dims must agree (torch.cat).
    """
def ceil(input: Tensor) -> Tensor:
    """
    out = the smallest integer >= input (torch.ceil).
    """
def celu(input: Tensor, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> Tensor:
    """
    max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (Barron 2017; torch.celu).
    """
def celu_(input: Tensor, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> Tensor:
    """
    In-place celu: input = celu(input).
    """
def check_multihead_attention_args(embed_dim: typing.SupportsInt | typing.SupportsIndex, num_heads: typing.SupportsInt | typing.SupportsIndex) -> None:
    ...
def check_rnn_args(mode: str, input_size: typing.SupportsInt | typing.SupportsIndex, hidden_size: typing.SupportsInt | typing.SupportsIndex, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, proj_size: typing.SupportsInt | typing.SupportsIndex) -> None:
    ...
def check_seq2seq_attention_args(query_size: typing.SupportsInt | typing.SupportsIndex, key_size: typing.SupportsInt | typing.SupportsIndex, score: str, hidden_size: typing.SupportsInt | typing.SupportsIndex) -> None:
    ...
def check_transformer_inputs(src: Tensor, tgt: Tensor, d_model: typing.SupportsInt | typing.SupportsIndex, batch_first: bool) -> None:
    ...
def chunk(input: Tensor, chunks: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> list[Tensor]:
    """
    At most `chunks` views of equal size ceil(n / chunks) along dim (torch.chunk).
    """
def clamp(input: Tensor, min: typing.Any = None, max: typing.Any = None) -> Tensor:
    """
    out = min(max(input, min), max), either bound optional; the gradient is 0 where clamped (torch.clamp).
    """
def clip(input: Tensor, min: typing.Any = None, max: typing.Any = None) -> Tensor:
    """
    out = min(max(input, min), max), either bound optional; the gradient is 0 where clamped (torch.clip).
    """
def clone(input: Tensor) -> Tensor:
    """
    A copy with its own memory; the gradient flows back to input (torch.clone).
    """
def concat(tensors: collections.abc.Sequence[Tensor], dim: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    cat's other name (torch.concat).
    """
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: typing.Any = 1, padding: typing.Any = 0, dilation: typing.Any = 1, groups: typing.SupportsInt | typing.SupportsIndex = 1) -> Tensor:
    """
    y[n, o, l] = b[o] + sum_{c, j} w[o, c, j] x[n, g*C/G + c, l*stride - padding + j*dilation]: a 1-D
    convolution (cross-correlation) over input (N, C, L) or (C, L), weight (out, C/groups, k) (F.conv1d).
    padding: an int, a tuple, 'valid' (0) or 'same' (output length = input length, stride 1).
    """
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: typing.Any = 1, padding: typing.Any = 0, dilation: typing.Any = 1, groups: typing.SupportsInt | typing.SupportsIndex = 1) -> Tensor:
    """
    y[n, o, i, j] = b[o] + sum_{c, p, q} w[o, c, p, q] x[n, g*C/G + c, i*sH - pH + p*dH, j*sW - pW + q*dW]:
    a 2-D convolution (cross-correlation) over input (N, C, H, W) or (C, H, W), weight
    (out, C/groups, kH, kW) (F.conv2d). padding: an int, a tuple, 'valid' (0) or 'same' (stride 1).
    """
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: typing.Any = 1, padding: typing.Any = 0, output_padding: typing.Any = 0, groups: typing.SupportsInt | typing.SupportsIndex = 1, dilation: typing.Any = 1) -> Tensor:
    """
    The transposed 1-D convolution (the adjoint of conv1d; F.conv_transpose1d) of input (N, C, L) or
    (C, L) by weight (C, out/groups, k): output length (L-1)*stride - 2 padding + dilation (k-1) +
    output_padding + 1.
    """
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: typing.Any = 1, padding: typing.Any = 0, output_padding: typing.Any = 0, groups: typing.SupportsInt | typing.SupportsIndex = 1, dilation: typing.Any = 1) -> Tensor:
    """
    The transposed 2-D convolution (the adjoint of conv2d; F.conv_transpose2d) of input (N, C, H, W) or
    (C, H, W) by weight (C, out/groups, kH, kW): each input value adds w[c] times itself into the output
    window at (i*sH - pH, j*sW - pW); output H (H-1)*sH - 2pH + dH(kH-1) + output_padding + 1.
    """
def cos(input: Tensor) -> Tensor:
    """
    out = cos(input), in radians (torch.cos).
    """
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduction: str = 'mean', label_smoothing: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> Tensor:
    """
    loss_n = -log softmax(input_n)[target_n] (class indices) or -sum_c target_nc log softmax(input_n)_c
    (probabilities), weighted, ignoring ignore_index, reduced by 'mean', 'sum' or 'none' (F.cross_entropy).
    """
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: typing.Any, target_lengths: typing.Any, blank: typing.SupportsInt | typing.SupportsIndex = 0, reduction: typing.SupportsInt | typing.SupportsIndex = 0, zero_infinity: bool = False) -> Tensor:
    """
    The connectionist temporal classification loss (Graves et al. 2006) of log_probs (T, N, C) or (T, C)
    against targets (N, S) padded or (sum(target_lengths)) concatenated: -log of the summed probability of
    every alignment (blanks, repeats) of each target to its first input_lengths[n] steps, computed by
    the forward-backward recursions in log space. reduction is torch's enum: 0 per-sample losses,
    1 the mean of loss_n / max(target_lengths[n], 1), 2 the sum; zero_infinity zeroes infinite losses
    (impossible alignments) and their gradients (torch.ctc_loss).
    """
def cumprod(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: dtype | None = None) -> Tensor:
    """
    Cumulative product along dim: y_i = x_0 * ... * x_i (torch.cumprod), differentiable also
    where x has zeros.
    """
def cumsum(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: dtype | None = None) -> Tensor:
    """
    Cumulative sum along dim: y_i = x_0 + ... + x_i (torch.cumsum). Integers and bools give int64
    unless dtype= says otherwise; dtype= casts the input first.
    """
def deberta_log_bucket_position(relative_position: Tensor, bucket_size: typing.SupportsInt | typing.SupportsIndex, max_position: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    DeBERTa-v2's log bucket (make_log_bucket_position) of each relative position i - j: distances
    below bucket_size / 2 kept, larger ones log-spaced up to max_position, in float32 as DeBERTa's code.
    """
def detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None = None, size: typing.SupportsInt | typing.SupportsIndex | None = None) -> bool:
    ...
def digamma(input: Tensor) -> Tensor:
    """
    out = digamma(input) = Gamma'(x)/Gamma(x); -inf at 0, NaN at the negative integers; d/dx = polygamma(1, x) (torch.digamma).
    """
def div(input: Tensor, other: typing.Any) -> Tensor:
    """
    out = input / other, true division, elementwise with broadcasting (torch.div).
    """
def dropout(input: Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, training: bool = True) -> Tensor:
    """
    In training, each element is zeroed with probability p and the rest scaled by 1 / (1 - p)
    (Srivastava et al. 2014; F.dropout); the input itself otherwise.
    """
def elu(input: Tensor, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, scale: typing.SupportsFloat | typing.SupportsIndex = 1.0, input_scale: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> Tensor:
    """
    scale * x for x > 0, scale * alpha * (exp(input_scale * x) - 1) otherwise (F.elu; selu and celu are
    this with their constants).
    """
def elu_(input: Tensor, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, scale: typing.SupportsFloat | typing.SupportsIndex = 1.0, input_scale: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> Tensor:
    """
    In-place elu: input = elu(input).
    """
def embedding(input: Tensor, weight: Tensor, padding_idx: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    The rows of weight at the indices in input: out[..., :] = weight[input[...], :]; the row
    padding_idx gets no gradient (F.embedding).
    """
def eq(input: Tensor, other: typing.Any) -> Tensor:
    """
    input == other elementwise, a bool tensor (torch.eq).
    """
def erf(input: Tensor) -> Tensor:
    """
    out = erf(input) = 2/sqrt(pi) * integral_0^input exp(-t^2) dt (torch.erf).
    """
def erfc(input: Tensor) -> Tensor:
    """
    out = 1 - erf(input), accurate for large input (torch.erfc).
    """
def erfinv(input: Tensor) -> Tensor:
    """
    out = the inverse error function of input, in [-1, 1]; +-inf at +-1, NaN outside (torch.erfinv).
    """
def exp(input: Tensor) -> Tensor:
    """
    out = e^input (torch.exp).
    """
def exp2(input: Tensor) -> Tensor:
    """
    out = 2^input (torch.exp2).
    """
def expm1(input: Tensor) -> Tensor:
    """
    out = e^input - 1, accurate for small input (torch.expm1).
    """
def feature_alpha_dropout(input: Tensor, p: typing.SupportsFloat | typing.SupportsIndex, train: bool) -> Tensor:
    """
    Alpha dropout of whole (n, c) channels of input (N, C, ...) (torch.feature_alpha_dropout).
    """
def feature_dropout(input: Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, training: bool = True) -> Tensor:
    """
    Dropout of whole (n, c) channels of (N, C, *): each kept with probability 1 - p and scaled by
    1 / (1 - p), or zeroed (Tompson et al. 2015; torch.feature_dropout, F.dropout1d / dropout2d).
    """
def flatten(input: Tensor, start_dim: typing.SupportsInt | typing.SupportsIndex = 0, end_dim: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
    """
    Dims start_dim..end_dim merged into one (a view when possible) (torch.flatten).
    """
def floor(input: Tensor) -> Tensor:
    """
    out = the largest integer <= input (torch.floor).
    """
def floor_divide(input: Tensor, other: typing.Any) -> Tensor:
    """
    input // other, rounded toward -inf as Python's // (torch.floor_divide); integers exactly (division
    by 0 raises ZeroDivisionError), floats with inf/NaN at 0. No gradient, as in torch.
    """
def fmod(input: Tensor, other: typing.Any) -> Tensor:
    """
    The C remainder input - trunc(input / other) * other: the sign of input (torch.fmod).
    """
def frac(input: Tensor) -> Tensor:
    """
    out = input - trunc(input), with the sign of input (torch.frac).
    """
def from_dlpack(ext_tensor: typing.Any) -> Tensor:
    """
    A tensor sharing the memory of an object with __dlpack__ (or a DLPack capsule), zero-copy
    (torch.from_dlpack).
    """
def from_numpy(ndarray: typing.Any) -> Tensor:
    """
    A tensor sharing the NumPy array's memory, zero-copy (torch.from_numpy).
    """
def gather(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor) -> Tensor:
    """
    out[i][j] = input[index[i][j]][j] for dim=0 (and likewise for other dims); out has index's shape
    (torch.gather).
    """
def ge(input: Tensor, other: typing.Any) -> Tensor:
    """
    input >= other elementwise, a bool tensor (torch.ge).
    """
def gelu(input: Tensor, approximate: str = 'none') -> Tensor:
    """
    GELU(x) = x * Phi(x), Phi the standard normal CDF; approximate='tanh' uses
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks & Gimpel 2016; F.gelu).
    """
def generate_square_subsequent_mask(sz: typing.SupportsInt | typing.SupportsIndex, dtype: dtype = numpy.dtype.float32) -> Tensor:
    ...
def get_num_threads() -> int:
    """
    The number of threads seqlab's loops and the BLAS use (torch.get_num_threads).
    """
def glu(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
    """
    a * sigmoid(b), a and b the halves of input along dim (Dauphin et al. 2017; F.glu).
    """
def group_norm(input: Tensor, num_groups: typing.SupportsInt | typing.SupportsIndex, weight: Tensor | None = None, bias: Tensor | None = None, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> Tensor:
    """
    y = (x - mean) / sqrt(var + eps) * weight[c] + bias[c], the statistics over each group of
    C / num_groups channels of each sample (Wu & He 2018; F.group_norm).
    """
def gru_cell(input: Tensor, hx: Tensor | None, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    ...
def gt(input: Tensor, other: typing.Any) -> Tensor:
    """
    input > other elementwise, a bool tensor (torch.gt).
    """
def hardshrink(input: Tensor, lambd: typing.SupportsFloat | typing.SupportsIndex = 0.5) -> Tensor:
    """
    x where |x| > lambd, else 0 (F.hardshrink).
    """
def hardsigmoid(input: Tensor) -> Tensor:
    """
    min(max(x + 3, 0), 6) / 6 (F.hardsigmoid).
    """
def hardsigmoid_(input: Tensor) -> Tensor:
    """
    In-place hardsigmoid: input = hardsigmoid(input).
    """
def hardswish(input: Tensor) -> Tensor:
    """
    x * min(max(x + 3, 0), 6) / 6 (Howard et al. 2019; F.hardswish).
    """
def hardswish_(input: Tensor) -> Tensor:
    """
    In-place hardswish: input = hardswish(input).
    """
def hardtanh(input: Tensor, min_val: typing.SupportsFloat | typing.SupportsIndex = -1.0, max_val: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> Tensor:
    """
    min(max(x, min_val), max_val); the gradient is 0 at and beyond the kinks (F.hardtanh).
    """
def hardtanh_(input: Tensor, min_val: typing.SupportsFloat | typing.SupportsIndex = -1.0, max_val: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> Tensor:
    """
    In-place hardtanh: input = hardtanh(input).
    """
def i0(input: Tensor) -> Tensor:
    """
    out = I0(input), the modified Bessel function of the first kind of order 0; d/dx = I1(x) (torch.i0).
    """
def igamma(input: Tensor, other: Tensor) -> Tensor:
    """
    out = P(input, other), the regularized lower incomplete gamma function; gradient for other only (torch.igamma).
    """
def igammac(input: Tensor, other: Tensor) -> Tensor:
    """
    out = Q(input, other) = 1 - P(input, other), the regularized upper incomplete gamma function; gradient for other only (torch.igammac).
    """
def index_add(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, *, alpha: typing.Any = 1) -> Tensor:
    """
    out = input with out[..., index[i], ...] += alpha * source[..., i, ...] along dim; index is 1-d (int64 or
    int32), duplicates accumulate (torch.index_add).
    """
def index_copy(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor) -> Tensor:
    """
    out = input with out[..., index[i], ...] = source[..., i, ...] along dim; index is 1-d int64
    (torch.index_copy).
    """
def index_reduce(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    """
    out = input with every source[..., i, ...] reduced into out[..., index[i], ...] along dim; reduce is
    'prod', 'mean', 'amax' or 'amin', input's own value taking part when include_self (torch.index_reduce).
    """
def index_select(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor) -> Tensor:
    """
    The entries index (1-d, int64) along dim, copied (torch.index_select).
    """
def initial_seed() -> int:
    """
    The seed of the default generator (torch.initial_seed).
    """
def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None, weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True, momentum: typing.SupportsFloat | typing.SupportsIndex = 0.1, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> Tensor:
    """
    Each (n, c) plane normalised by its own mean and biased variance (use_input_stats; the running
    statistics, if given, move towards the batch's average by momentum), or by the running ones
    (Ulyanov et al. 2016; F.instance_norm).
    """
def instance_norm_module_forward(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None, bias: Tensor | None, training: bool, track_running_stats: bool, momentum: typing.SupportsFloat | typing.SupportsIndex | None, eps: typing.SupportsFloat | typing.SupportsIndex, num_features: typing.SupportsInt | typing.SupportsIndex, spatial_dims: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    nn.InstanceNorm1d/2d's forward: the input's checks, unbatched input, and instance_norm with
    the planes' statistics in training or without tracked running statistics.
    """
def is_grad_enabled() -> bool:
    """
    True unless inside no_grad() (torch.is_grad_enabled).
    """
def layer_norm(input: Tensor, normalized_shape: typing.Any, weight: Tensor | None = None, bias: Tensor | None = None, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> Tensor:
    """
    y = (x - mean) / sqrt(var + eps) * weight + bias over the last len(normalized_shape) dims,
    var biased (Ba et al. 2016; F.layer_norm).
    """
def le(input: Tensor, other: typing.Any) -> Tensor:
    """
    input <= other elementwise, a bool tensor (torch.le).
    """
def leaky_relu(input: Tensor, negative_slope: typing.SupportsFloat | typing.SupportsIndex = 0.01) -> Tensor:
    """
    x for x > 0, negative_slope * x otherwise (F.leaky_relu).
    """
def leaky_relu_(input: Tensor, negative_slope: typing.SupportsFloat | typing.SupportsIndex = 0.01) -> Tensor:
    """
    In-place leaky_relu: input = leaky_relu(input).
    """
def lgamma(input: Tensor) -> Tensor:
    """
    out = ln|Gamma(input)|; inf at 0 and the negative integers; d/dx = digamma(x) (torch.lgamma).
    """
def log(input: Tensor) -> Tensor:
    """
    out = ln(input), the natural logarithm; NaN below 0, -inf at 0 (torch.log).
    """
def log10(input: Tensor) -> Tensor:
    """
    out = log10(input) (torch.log10).
    """
def log1p(input: Tensor) -> Tensor:
    """
    out = ln(1 + input), accurate for small input (torch.log1p).
    """
def log2(input: Tensor) -> Tensor:
    """
    out = log2(input) (torch.log2).
    """
def log_sigmoid(input: Tensor) -> Tensor:
    """
    log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)) (F.logsigmoid).
    """
def log_softmax(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    log_softmax(x)_i = x_i - log sum_j exp(x_j), computed stably along dim (torch.log_softmax).
    """
def logical_and(input: Tensor, other: typing.Any) -> Tensor:
    """
    input AND other, zero meaning False, a bool tensor (torch.logical_and).
    """
def logical_not(input: Tensor) -> Tensor:
    """
    NOT input, zero meaning False, a bool tensor (torch.logical_not).
    """
def logical_or(input: Tensor, other: typing.Any) -> Tensor:
    """
    input OR other, zero meaning False, a bool tensor (torch.logical_or).
    """
def logical_xor(input: Tensor, other: typing.Any) -> Tensor:
    """
    input XOR other, zero meaning False, a bool tensor (torch.logical_xor).
    """
def logit(input: Tensor, eps: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    out = ln(z/(1-z)) with z = input clamped to [eps, 1-eps] when eps is given (NaN outside [0, 1] without it) (torch.logit).
    """
def lstm_cell(input: Tensor, hx: Tensor | None, cx: Tensor | None, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    ...
def lt(input: Tensor, other: typing.Any) -> Tensor:
    """
    input < other elementwise, a bool tensor (torch.lt).
    """
def manual_seed(seed: typing.Any) -> typing.Any:
    """
    Seed the default generator; returns it (torch.manual_seed).
    """
def masked_fill(input: Tensor, mask: Tensor, value: typing.Any) -> Tensor:
    """
    input with value where mask (broadcast to input) is True (torch.masked_fill).
    """
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """
    The matrix product with NumPy's rules: 1-d is a vector, batch dims broadcast (torch.matmul).
    """
def max(input: Tensor, dim: typing.Any = None, keepdim: bool = False, *, keepdims: bool = False) -> typing.Any:
    """
    max(input): the largest element; max(input, dim, keepdim=False): (values, indices) along dim;
    max(input, other): maximum(input, other) (torch.max).
    """
def max_pool1d_with_indices(input: Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, dilation: typing.Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """
    (max over each window of input (N, C, L) or (C, L), the argmax's position in L) (F.max_pool1d
    with return_indices=True). stride defaults to kernel_size.
    """
def max_pool2d_with_indices(input: Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, dilation: typing.Any = 1, ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """
    (max over each window of input (N, C, H, W) or (C, H, W), the argmax's position h*W + w in its plane)
    (F.max_pool2d with return_indices=True). stride defaults to kernel_size.
    """
def maximum(input: Tensor, other: typing.Any) -> Tensor:
    """
    The elementwise maximum of input and other; NaN if either is NaN (torch.maximum).
    """
def mean(input: Tensor, dim: typing.Any = None, keepdim: bool = False, *, dtype: dtype | None = None, keepdims: bool = False) -> Tensor:
    """
    The mean over dim (an int, a tuple of ints, or None: all) (torch.mean).
    """
def min(input: Tensor, dim: typing.Any = None, keepdim: bool = False, *, keepdims: bool = False) -> typing.Any:
    """
    min(input): the smallest element; min(input, dim, keepdim=False): (values, indices) along dim;
    min(input, other): minimum(input, other) (torch.min).
    """
def minimum(input: Tensor, other: typing.Any) -> Tensor:
    """
    The elementwise minimum of input and other; NaN if either is NaN (torch.minimum).
    """
def mish(input: Tensor) -> Tensor:
    """
    x * tanh(softplus(x)) (Misra 2019; F.mish).
    """
def mish_(input: Tensor) -> Tensor:
    """
    In-place mish: input = mish(input).
    """
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """
    (n, m) @ (m, p) -> (n, p), 2-d only (torch.mm).
    """
def mse_loss(input: Tensor, target: Tensor, reduction: str = 'mean') -> Tensor:
    """
    (input - target)^2, reduced by 'mean', 'sum' or 'none' (F.mse_loss).
    """
def mul(input: Tensor, other: typing.Any) -> Tensor:
    """
    out = input * other, elementwise with broadcasting; other may be a number (torch.mul).
    """
def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: typing.SupportsInt | typing.SupportsIndex, num_heads: typing.SupportsInt | typing.SupportsIndex, in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool, dropout_p: typing.SupportsFloat | typing.SupportsIndex, out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True, attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None, static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False) -> tuple:
    """
    Multi-head attention, softmax(Q K^T / sqrt(d_k) + mask) V per head, with the input and output
    projections (Vaswani et al. 2017, §3.2; F.multi_head_attention_forward): (attn_output,
    attn_output_weights).
    """
def multihead_attention(query: Tensor, key: Tensor, value: Tensor, params: MultiheadAttentionParams, training: bool, key_padding_mask: Tensor | None = None, need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False, cache: AttentionCache = None) -> tuple:
    ...
def multinomial(input: Tensor, num_samples: typing.SupportsInt | typing.SupportsIndex, replacement: bool = False, *, generator: Generator = None) -> Tensor:
    """
    num_samples indices per row drawn with probabilities proportional to the row (torch.multinomial).
    """
def mvlgamma(input: Tensor, p: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    out = the multivariate log-gamma of dimension p, p(p-1)/4 ln(pi) + sum_{j<p} lgamma(input - j/2); p >= 1 (torch.mvlgamma).
    """
def narrow(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, start: typing.SupportsInt | typing.SupportsIndex, length: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    A view of elements start..start+length-1 along dim (torch.narrow).
    """
def ne(input: Tensor, other: typing.Any) -> Tensor:
    """
    input != other elementwise, a bool tensor (torch.ne).
    """
def neg(input: Tensor) -> Tensor:
    """
    out = -input (torch.neg).
    """
def negative(input: Tensor) -> Tensor:
    """
    out = -input (torch.negative, an alias of neg).
    """
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduction: str = 'mean') -> Tensor:
    """
    loss_n = -weight[target_n] * input[n, target_n] for log-probabilities input (F.nll_loss).
    """
def nonzero(input: Tensor) -> Tensor:
    """
    The indices of the non-zero elements, one row per element: shape (n, input.dim()) (torch.nonzero).
    """
def norm(input: Tensor, p: typing.Any = 'fro', dim: typing.Any = None, keepdim: bool = False, dtype: dtype | None = None) -> Tensor:
    """
    The vector p-norm (sum |x|^p)^(1/p) over dim; p='fro' is 2 (torch.norm).
    """
def permute(input: Tensor, dims: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> Tensor:
    """
    A view of input with its dims reordered as dims (torch.permute).
    """
def polygamma(n: typing.SupportsInt | typing.SupportsIndex, input: Tensor) -> Tensor:
    """
    out = the n-th derivative of digamma at input, (-1)^(n+1) n! zeta(n+1, input) for n >= 1; d/dx = polygamma(n+1, x) (torch.polygamma).
    """
def positional_attention(query: Tensor, key: Tensor, value: Tensor, pos: PositionalScheme, attn_mask: Tensor | None = None, dropout_p: typing.SupportsFloat | typing.SupportsIndex = 0.0, is_causal: bool = False, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, q_offset: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    Attention with a positional scheme, fused: query (B, H, L, D), key (B, H, S, D), value (B, H, S, Dv)
    -> (B, H, L, Dv). The scheme's relative terms are read from per-head tables by distance inside
    the kernel (no L×S bias). attn_mask and is_causal as scaled_dot_product_attention's; query l
    sits at position l + q_offset (after a key/value cache).
    """
def positional_attention_math(query: Tensor, key: Tensor, value: Tensor, pos: PositionalScheme, attn_mask: Tensor | None = None, dropout_p: typing.SupportsFloat | typing.SupportsIndex = 0.0, is_causal: bool = False, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, q_offset: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    positional_attention by ordinary ops with the (B, H, L, S) terms materialised: the oracle.
    """
def positional_attention_weights(query: Tensor, key: Tensor, pos: PositionalScheme, attn_mask: Tensor | None = None, is_causal: bool = False, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, q_offset: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    The attention weights (B, H, L, S) of positional_attention, differentiable: the maps to plot.
    """
def positional_scheme_kinds() -> list[str]:
    """
    The kinds of positional scheme the library registers.
    """
def pow(input: Tensor, exponent: typing.Any) -> Tensor:
    """
    out = input ** exponent elementwise; exponent a tensor (broadcast) or a number (torch.pow).
    """
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """
    x for x > 0, weight * x otherwise, weight per channel (dim 1) or a single one (He et al. 2015; F.prelu).
    """
def prod(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    """
    The product of all elements, or along dim (keepdim keeps it as size 1) (torch.prod). Integers and
    bools give int64 unless dtype= says otherwise; dtype= casts the input first. Differentiable also
    where the input has zeros.
    """
def relu(input: Tensor) -> Tensor:
    """
    out = max(input, 0); the gradient at 0 is 0, as torch's (torch.relu).
    """
def relu_(input: Tensor) -> Tensor:
    """
    In-place relu: input = max(input, 0); the gradient at 0 is 0 (torch.relu_).
    """
def remainder(input: typing.Any, other: typing.Any) -> Tensor:
    """
    Python's modulus input - floor(input / other) * other: the sign of other; either may be a number
    (torch.remainder).
    """
def reshape(input: Tensor, shape: typing.Any) -> Tensor:
    """
    input with a new shape (one dim may be -1): a view when the strides allow, else a copy (torch.reshape).
    """
def rms_norm(input: Tensor, normalized_shape: typing.Any, weight: Tensor | None = None, eps: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    y = x / sqrt(mean(x^2) + eps) * weight over the last len(normalized_shape) dims; eps None: the
    dtype's machine epsilon (Zhang & Sennrich 2019; F.rms_norm).
    """
def rnn(mode: str, input: Tensor, hx: Tensor | None, cx: Tensor | None, weights: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool, batch_first: bool, proj_size: typing.SupportsInt | typing.SupportsIndex = 0, grad_norms: Tensor | None = None) -> tuple:
    ...
def rnn_gate_count(mode: str) -> int:
    """
    Rows of W_ih per hidden unit for torch's mode string (LSTM 4, GRU 3, RNN_TANH and RNN_RELU 1), as its registered cell says.
    """
def rnn_nonlinearity_mode(nonlinearity: str) -> str:
    ...
def rnn_packed(mode: str, data: Tensor, batch_sizes: Tensor, sorted_indices: Tensor | None, unsorted_indices: Tensor | None, hx: Tensor | None, cx: Tensor | None, weights: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool, proj_size: typing.SupportsInt | typing.SupportsIndex = 0, grad_norms: Tensor | None = None) -> tuple:
    ...
def rnn_relu_cell(input: Tensor, hx: Tensor | None, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    ...
def rnn_tanh_cell(input: Tensor, hx: Tensor | None, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    ...
def rotary_embedding(x: Tensor, offset: typing.SupportsInt | typing.SupportsIndex = 0, base: typing.SupportsFloat | typing.SupportsIndex = 10000.0, interleaved: bool = True) -> Tensor:
    """
    RoPE (Su et al. 2021): rotate feature pairs of x (..., L, D) at position offset + l by
    (offset + l)·base^(-2c/D): pairs (2c, 2c+1) when interleaved (the paper), else (c, c + D/2)
    (GPT-NeoX, LLaMA). Elementwise cos/sin, not a D×D matrix.
    """
def round(input: Tensor, *, decimals: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    Rounds to the nearest integer, ties to even, or to `decimals` decimal places (torch.round).
    """
def rrelu(input: Tensor, lower: typing.SupportsFloat | typing.SupportsIndex = 0.125, upper: typing.SupportsFloat | typing.SupportsIndex = 0.3333333333333333, training: bool = False) -> Tensor:
    """
    The randomized leaky ReLU (Xu et al. 2015): in training x for x > 0, a x otherwise with a ~
    U(lower, upper) per element; in eval leaky_relu(x, (lower + upper) / 2) (F.rrelu).
    """
def rrelu_(input: Tensor, lower: typing.SupportsFloat | typing.SupportsIndex = 0.125, upper: typing.SupportsFloat | typing.SupportsIndex = 0.3333333333333333, training: bool = False) -> Tensor:
    """
    In-place rrelu: input = rrelu(input, lower, upper, training) (F.rrelu_).
    """
def rsqrt(input: Tensor) -> Tensor:
    """
    out = 1 / sqrt(input) (torch.rsqrt).
    """
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None, dropout_p: typing.SupportsFloat | typing.SupportsIndex = 0.0, is_causal: bool = False, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, enable_gqa: bool = False) -> Tensor:
    """
    softmax(Q Kᵀ · scale + attn_mask) V (torch.nn.functional.scaled_dot_product_attention).
    query (..., Hq, L, E), key (..., Hk, S, E), value (..., Hk, S, Ev) -> (..., Hq, L, Ev).
    attn_mask: bool (True = may attend) or float (added); is_causal masks j > i; scale defaults to
    1/sqrt(E). Fused: online softmax forward, recomputing backward, O(L·E) memory. The weights it
    never materialises: seqlab.nn.functional.attention_weights.
    """
def scaled_dot_product_attention_math(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None, dropout_p: typing.SupportsFloat | typing.SupportsIndex = 0.0, is_causal: bool = False, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, enable_gqa: bool = False) -> Tensor:
    """
    scaled_dot_product_attention computed by ordinary ops (bmm, softmax, dropout, bmm): the oracle.
    """
@typing.overload
def scatter(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, *, reduce: str | None = None) -> Tensor:
    """
    out = input with out[index[i][j]][j] = src[i][j] for dim=0 (out[i][index[i][j]] = src[i][j] for dim=1, and
    likewise for other dims); src may be a number `value`. reduce='add' or 'multiply' combines instead of
    writing (deprecated in torch, no gradient). index is int64 or int32 with input's number of dims
    (torch.scatter).
    """
@typing.overload
def scatter(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: typing.Any, *, reduce: str | None = None) -> Tensor:
    """
    out = input with out[index[i][j]][j] = src[i][j] for dim=0 (out[i][index[i][j]] = src[i][j] for dim=1, and
    likewise for other dims); src may be a number `value`. reduce='add' or 'multiply' combines instead of
    writing (deprecated in torch, no gradient). index is int64 or int32 with input's number of dims
    (torch.scatter).
    """
def scatter_add(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> Tensor:
    """
    out = input with out[index[i][j]][j] += src[i][j] for dim=0 (and likewise for other dims); duplicate
    indices accumulate (torch.scatter_add).
    """
def scatter_reduce(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    """
    out = input with every src[i][j] reduced into out[index[i][j]][j] for dim=0 (and likewise for other dims);
    reduce is 'sum', 'prod', 'mean', 'amax' or 'amin', and input's own value takes part when include_self
    (torch.scatter_reduce). amax/amin split the gradient equally among tied values.
    """
def select(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    A view of index along dim, that dim removed: x.select(0, i) is x[i] (torch.select).
    """
def selu(input: Tensor) -> Tensor:
    """
    scale * elu(x, alpha) with Klambauer et al.'s alpha = 1.6733, scale = 1.0507 (torch.selu).
    """
def selu_(input: Tensor) -> Tensor:
    """
    In-place selu: input = selu(input).
    """
def seq2seq_attention(query: Tensor, keys: Tensor, values: Tensor | None = None, score: str = 'dot', W: Tensor | None = None, query_weight: Tensor | None = None, key_weight: Tensor | None = None, key_bias: Tensor | None = None, v: Tensor | None = None, key_padding_mask: Tensor | None = None) -> tuple:
    ...
def seq2seq_score(score: str) -> str:
    """
    The canonical name of a score ('general' for 'bilinear', 'additive' for 'concat').
    """
def set_flush_denormal(mode: bool) -> bool:
    """
    mode=True flushes denormal floats to zero (they slow x86 arithmetic); returns True if supported
    (torch.set_flush_denormal).
    """
def set_num_threads(n: int) -> None:
    """
    Use n threads for seqlab's loops and the BLAS (torch.set_num_threads).
    """
def sigmoid(input: Tensor) -> Tensor:
    """
    out = 1 / (1 + e^-input); d/dx = s(x)(1 - s(x)) (torch.sigmoid).
    """
def sign(input: Tensor) -> Tensor:
    """
    out = -1, 0 or 1 by the sign of input; gradient 0 (torch.sign).
    """
def silu(input: Tensor) -> Tensor:
    """
    SiLU(x) = x * sigmoid(x) (Swish-1; F.silu); d/dx = s(x)(1 + x(1 - s(x))).
    """
def silu_(input: Tensor) -> Tensor:
    """
    In-place silu: input = input * sigmoid(input).
    """
def sin(input: Tensor) -> Tensor:
    """
    out = sin(input), in radians (torch.sin).
    """
def sinc(input: Tensor) -> Tensor:
    """
    out = sin(pi x)/(pi x), 1 at 0, the normalized sinc function (torch.sinc).
    """
def sinusoidal_encoding(positions: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, base: typing.SupportsFloat | typing.SupportsIndex = 10000.0, dtype: dtype = numpy.dtype.float32) -> Tensor:
    """
    PE(p, 2i) = sin(p / base^(2i/dim)), PE(p, 2i+1) = cos(p / base^(2i/dim)) for positions (P): (P, dim).
    """
def softmax(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x) along dim (torch.softmax).
    """
def softmin(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    softmax(-x) along dim (F.softmin).
    """
def softplus(input: Tensor, beta: typing.SupportsFloat | typing.SupportsIndex = 1.0, threshold: typing.SupportsFloat | typing.SupportsIndex = 20.0) -> Tensor:
    """
    log(1 + exp(beta * x)) / beta, or x where beta * x > threshold (F.softplus).
    """
def softshrink(input: Tensor, lambd: typing.SupportsFloat | typing.SupportsIndex = 0.5) -> Tensor:
    """
    x - lambd above lambd, x + lambd below -lambd, 0 between (F.softshrink).
    """
def softsign(input: Tensor) -> Tensor:
    """
    x / (1 + |x|) (F.softsign).
    """
def split(input: Tensor, split_size_or_sections: typing.Any, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> list[Tensor]:
    """
    Views of consecutive pieces along dim: of split_size each (the last may be smaller), or of the sizes
    listed (torch.split).
    """
def sqrt(input: Tensor) -> Tensor:
    """
    out = sqrt(input); NaN below 0 (torch.sqrt).
    """
def squeeze(input: Tensor, dim: typing.Any = None) -> Tensor:
    """
    A view without the size-1 dims (all, or those in dim) (torch.squeeze).
    """
def stack(tensors: collections.abc.Sequence[Tensor], dim: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    Tensors of one shape joined along a new dim (torch.stack).
    """
def sub(input: Tensor, other: typing.Any, *, alpha: typing.Any = 1) -> Tensor:
    """
    out = input - alpha * other, elementwise with broadcasting; other may be a number (torch.sub).
    """
def sum(input: Tensor, dim: typing.Any = None, keepdim: bool = False, *, dtype: dtype | None = None, keepdims: bool = False) -> Tensor:
    """
    The sum over dim (an int, a tuple of ints, or None: all); keepdim keeps the reduced dims as size 1;
    dtype= converts input first (torch.sum). Integers and bools sum to int64.
    """
def swapaxes(input: Tensor, axis0: typing.SupportsInt | typing.SupportsIndex, axis1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    transpose with NumPy's names (torch.swapaxes).
    """
def t(input: Tensor) -> Tensor:
    """
    The transpose of a matrix (dims 0 and 1); 0-d and 1-d come back as they are (torch.t).
    """
def t5_relative_position_bucket(relative_position: Tensor, bidirectional: bool = True, num_buckets: typing.SupportsInt | typing.SupportsIndex = 32, max_distance: typing.SupportsInt | typing.SupportsIndex = 128) -> Tensor:
    """
    T5's bucket (Raffel et al. 2020) of each relative position j - i: exact for small distances,
    log-spaced up to max_distance; bidirectional buckets split by sign.
    """
def tan(input: Tensor) -> Tensor:
    """
    out = tan(input), in radians (torch.tan).
    """
def tanh(input: Tensor) -> Tensor:
    """
    out = tanh(input) = (e^x - e^-x) / (e^x + e^-x); d/dx = 1 - tanh(x)^2 (torch.tanh).
    """
def tanhshrink(input: Tensor) -> Tensor:
    """
    x - tanh(x) (F.tanhshrink).
    """
def threshold(input: Tensor, threshold: typing.SupportsFloat | typing.SupportsIndex, value: typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
    """
    x where x > threshold, else value (F.threshold).
    """
def threshold_(input: Tensor, threshold: typing.SupportsFloat | typing.SupportsIndex, value: typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
    """
    In-place threshold: input = threshold(input).
    """
def transformer_activation_check(activation: str) -> None:
    ...
def transformer_decoder_layer(tgt: Tensor, memory: Tensor, params: TransformerDecoderLayerParams, training: bool, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False, memory_is_causal: bool = False, cache: AttentionCache = None, memory_cache: AttentionCache = None) -> Tensor:
    ...
def transformer_encoder_layer(src: Tensor, params: TransformerEncoderLayerParams, training: bool, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None, is_causal: bool = False, cache: AttentionCache = None) -> Tensor:
    ...
def transformer_encoder_nested_padding(src: Tensor, src_key_padding_mask: Tensor | None, mask: Tensor | None, use_nested_tensor: bool, first_layer_training: bool, mask_check: bool, first_layer_params: collections.abc.Sequence[Tensor | None]) -> typing.Any:
    ...
def transformer_encoder_why_not_nested(is_encoder_layer: bool, norm_first: bool, batch_first: bool, qkv_same_embed_dim: bool, has_in_proj_bias: bool, activation_relu_or_gelu: bool, norm1_eps: typing.SupportsFloat | typing.SupportsIndex, norm2_eps: typing.SupportsFloat | typing.SupportsIndex, num_heads: typing.SupportsInt | typing.SupportsIndex) -> str:
    ...
def transpose(input: Tensor, dim0: typing.SupportsInt | typing.SupportsIndex, dim1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    A view with dims dim0 and dim1 swapped (torch.transpose).
    """
def tril(input: Tensor, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    The lower triangle: elements with j - i <= diagonal kept, the rest 0 (torch.tril).
    """
def triu(input: Tensor, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    The upper triangle: elements with j - i >= diagonal kept, the rest 0 (torch.triu).
    """
def true_divide(input: Tensor, other: typing.Any) -> Tensor:
    """
    out = input / other, true division (torch.true_divide, an alias of div).
    """
def trunc(input: Tensor) -> Tensor:
    """
    out = input rounded toward zero (torch.trunc).
    """
def unsqueeze(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    A view with a size-1 dim inserted at dim (torch.unsqueeze).
    """
def var(input: Tensor, dim: typing.Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: typing.SupportsFloat | typing.SupportsIndex | None = None, keepdims: bool = False) -> Tensor:
    """
    The variance sum((x - mean)^2) / (N - correction) over dim; correction 1 (Bessel's, the default,
    unbiased=True) or 0 (torch.var).
    """
def where(condition: Tensor, input: typing.Any, other: typing.Any) -> Tensor:
    """
    out_i = input_i if condition_i else other_i, broadcast together; input or other may be a number
    (torch.where).
    """
default_generator: Generator
