"""seqlab: sequence models for learning and teaching, with a PyTorch-like C++ core.

    import seqlab
    x = seqlab.randn(3, 4, requires_grad=True)
    (x.tanh() ** 2).sum().backward()
    x.grad

The compiled core is seqlab._core; this package gives it PyTorch's layout
(seqlab.nn.functional, seqlab.autograd, ...)."""
from . import _blas

_blas.load()

from . import _core  # noqa: E402
from ._core import (  # noqa: E402,F401
    Tensor, dtype, Node,
    add, sub, mul, div, true_divide, pow, neg, negative, exp, log, sqrt, abs, clamp, clip, maximum, minimum, where,
    eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor, logical_not,
    sin, cos, tan, log2, log10, log1p, expm1, erf, erfc, erfinv, rsqrt, sign, floor, ceil, round, trunc, frac,
    remainder, fmod, floor_divide,
    bitwise_and, bitwise_or, bitwise_xor, bitwise_not, bitwise_left_shift, bitwise_right_shift,
    tanh, sigmoid, relu, softmax, log_softmax,
    sum, prod, mean, var, norm, max, min, argmax, argmin,
    matmul, mm, bmm, t, reshape, permute, flatten, transpose, swapaxes, unsqueeze, squeeze, narrow, select,
    split, chunk, cat, concat, stack, gather, index_select, masked_fill, nonzero, triu, tril, clone,
    multinomial, bernoulli, cumsum, cumprod, Generator, default_generator, set_num_threads, get_num_threads, set_flush_denormal,
    is_grad_enabled, from_numpy, from_dlpack,
)
from ._device import device  # noqa: E402,F401
from .random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state, normal  # noqa: E402,F401
from ._sorting import sort, argsort, topk, unique, unique_consecutive  # noqa: E402,F401
from ._order_statistics import (  # noqa: E402,F401
    kthvalue, median, nanmedian, quantile, nanquantile, mode, msort,
)
from ._add_products import addmm, addmv, addr, baddbmm, addbmm  # noqa: E402,F401
from ._distances import dist, cdist  # noqa: E402,F401
from ._searchsorted import searchsorted, bucketize  # noqa: E402,F401
from ._type_info import finfo, iinfo  # noqa: E402,F401
from ._histogram import histc, histogram, bincount  # noqa: E402,F401
from ._einsum import einsum  # noqa: E402,F401
from ._shape import (  # noqa: E402,F401
    atleast_1d, atleast_2d, atleast_3d, hstack, vstack, dstack, column_stack, tensor_split, hsplit, vsplit, movedim,
    moveaxis, swapdims, broadcast_to, broadcast_shapes, broadcast_tensors, tile, unflatten, fliplr, flipud, rot90,
    diag, diagonal, diag_embed, trace, outer, ger, kron, tensordot, cross, block_diag, meshgrid, cartesian_prod,
    combinations, take, take_along_dim, masked_select, argwhere,
)
from ._math import (  # noqa: E402,F401
    amax, amin, aminmax, nansum, nanmean, count_nonzero, diff, lerp, xlogy, logaddexp, logaddexp2, hypot, sgn, signbit,
    copysign, nan_to_num, nan_to_num_, isclose, sinh, cosh, asinh, acosh, atanh, arcsinh, arccosh, arctanh, atan, atan2,
    asin, acos, arctan, arctan2, arcsin, arccos, var_mean, std_mean, cummax, cummin, logcumsumexp,
)
from ._composed import (  # noqa: E402,F401
    flip, roll, repeat_interleave, all, any, mv, dot, linspace, logspace, logsumexp, isnan, isinf, isfinite,
    index_fill,
)
from ._tensor import (  # noqa: E402,F401
    float32, float64, int64, int32, int16, int8, uint8, bool, float, double, long, short,
    tensor, as_tensor, zeros, ones, empty, full, arange, eye, rand, randn, randint, randperm,
    zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like,
    std, equal, allclose, numel, is_tensor, unbind,
    FloatTensor, DoubleTensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor,
    get_default_dtype,
)
from ._tensor import int32 as int  # noqa: E402,F401  (torch.int; after this line `int` is the dtype)
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from .nn.interop import to_torch_state_dict  # noqa: E402,F401
from .training import train, evaluate  # noqa: E402,F401
from . import (accelerator, autograd, cuda, distributed, random, utils, linalg, nn, data, optim, lm,  # noqa: E402,F401
               embed, generation, hub, onnx)

from ._linalg_aliases import det, logdet, slogdet, inverse, cholesky, svd, pinverse, matrix_power  # noqa: E402,F401

from ._version import __version__  # noqa: E402,F401
from ._config import show_config  # noqa: E402,F401


def to_torch(module, share=False):
    """The torch.nn.Module computing what the seqlab `module` computes, with its parameters
    (copied; share=True: views through DLPack): seqlab.torch_modules. Imports torch."""
    from .torch_modules import to_torch as convert
    return convert(module, share=share)


def from_torch(module):
    """The seqlab module computing what the torch `module` computes (from to_torch, or one of
    torch.nn's layers seqlab has), with copies of its parameters: seqlab.torch_modules."""
    from .torch_modules import from_torch as convert
    return convert(module)


def blas_info():
    """The BLAS in use and the kernel it chose for this CPU."""
    return _core._blas_info()



