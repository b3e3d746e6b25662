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
from ._core import (  # noqa: E402,F401
    scatter, scatter_add, scatter_reduce, index_add, index_copy, index_reduce,
)
from ._tensor import (  # noqa: E402,F401
    float32, float64, float16, bfloat16, half, int64, int32, int16, int8, uint8, bool, float, double, long, short,
    tensor, as_tensor, zeros, ones, empty, full, arange, eye, rand, randn, randint, randperm,
    zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like,
    std, equal, allclose, numel, is_tensor, unbind,
    FloatTensor, DoubleTensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor, HalfTensor,
    BFloat16Tensor, get_default_dtype,
)
from ._tensor import int32 as int  # noqa: E402,F401  (torch.int; after this line `int` is the dtype)
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from .nn.interop import to_torch_state_dict  # noqa: E402,F401
from .training import train, evaluate  # noqa: E402,F401
from . import (accelerator, autograd, cuda, distributed, random, utils, linalg, nn, data, optim, lm,  # noqa: E402,F401
               embed, generation, hub, onnx)

from ._linalg_aliases import (  # noqa: E402,F401
    det, logdet, slogdet, inverse, cholesky, svd, pinverse, matrix_power, qr, cholesky_solve, cholesky_inverse,
    triangular_solve, matrix_exp, lu, lu_solve, lu_unpack, geqrf, orgqr, ormqr,
)

from ._version import __version__  # noqa: E402,F401
from ._config import show_config  # noqa: E402,F401
from . import func  # noqa: E402,F401  (torch.func: grad, vjp, jacrev, vmap, functional_call)
from .func import vmap  # noqa: E402,F401  (torch.vmap is torch.func.vmap)


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



from . import distributions  # noqa: E402,F401  (torch.distributions; seqlab/distributions/)
from ._core import ctc_loss  # noqa: E402,F401  (torch.ctc_loss: reduction as torch's enum; cpp/src/ops/ctc_loss.cpp)
from ._core import as_strided  # noqa: E402,F401  (a view: cpp/src/ops/shape.cpp)
from ._lowrank import svd_lowrank, pca_lowrank  # noqa: E402,F401  (randomized SVD, Halko et al. 2009)
from ._segment import segment_reduce  # noqa: E402,F401

# ---- torch's aliases, in-place forms, switches and constants (tests/test_torch_aliases.py,
# tests/test_torch_switches.py, tests/test_torch_compositions.py)
from ._switches import (  # noqa: E402,F401
    e, pi, inf, nan, newaxis, Size, layout, strided, memory_format, contiguous_format, preserve_format,
    legacy_contiguous_format, get_default_device, set_default_device, set_default_tensor_type,
    get_float32_matmul_precision, set_float32_matmul_precision, get_num_interop_threads, set_num_interop_threads,
    use_deterministic_algorithms, are_deterministic_algorithms_enabled, is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode, get_deterministic_debug_mode, set_warn_always, is_warn_always_enabled, compile,
    typename,
)
from ._dtypes import set_default_dtype  # noqa: E402,F401
from ._tensor_str import set_printoptions  # noqa: E402,F401
from ._promotion import promote_types, result_type, can_cast  # noqa: E402,F401
from ._aliases import (  # noqa: E402,F401
    div, divide, absolute, multiply, subtract, greater, greater_equal, less, less_equal, not_equal, fix, row_stack,
    unsafe_chunk, unsafe_split, concatenate, positive, split_with_sizes, unsafe_split_with_sizes, ravel, range,
    is_floating_point, is_signed, is_nonzero, is_same_size, is_inference, get_device, adjoint,
)
from ._inplace_forms import (  # noqa: E402,F401
    reciprocal, square, clamp_min, clamp_max, float_power, fill, masked_scatter, put, renorm, clamp, clip,
)
from ._inplace_forms import FUNCTION_FORMS as _FUNCTION_FORMS  # noqa: E402

globals().update(_FUNCTION_FORMS)  # seqlab.exp_(x), seqlab.clamp_(x, 0, 1), ...: x.exp_(), ...
from .amp import (  # noqa: E402,F401
    autocast, is_autocast_available, is_autocast_enabled, set_autocast_enabled, get_autocast_dtype, set_autocast_dtype,
    is_autocast_cpu_enabled, set_autocast_cpu_enabled, get_autocast_cpu_dtype, set_autocast_cpu_dtype,
    is_autocast_cache_enabled, set_autocast_cache_enabled, clear_autocast_cache, GradScaler,
)
from .autograd import (  # noqa: E402,F401
    is_anomaly_enabled, set_anomaly_enabled, is_anomaly_check_nan_enabled, is_inference_mode_enabled,
)
from . import amp  # noqa: E402,F401
from . import _tensor_surface, _random_extra  # noqa: E402

# Tensor.new / new_empty / cuda / resize_ / unfold / apply_ / cauchy_ ..., and memory_format= on clone,
# contiguous and the *_like functions (tests/test_torch_aliases.py)
for _name, _method in {**_tensor_surface.METHODS, **_random_extra.METHODS}.items():
    setattr(Tensor, _name, _method)
from ._tensor_surface import (  # noqa: E402,F401
    clone, empty_strided, empty_permuted, resize_as_, to_dlpack, index_put, nonzero_static,
)
from ._tensor_surface import _index_put_ as index_put_  # noqa: E402,F401
from ._random_extra import binomial, poisson  # noqa: E402,F401

globals().update(_tensor_surface.LIKE)  # empty_like, zeros_like, ... with memory_format=
from ._pointwise_extra import (  # noqa: E402,F401
    addcmul, addcdiv, fmax, fmin, frexp, ldexp, deg2rad, rad2deg, heaviside, nextafter, gcd, lcm, isin, isneginf,
    isposinf, rsub, scalar_tensor, hardshrink,
)
from . import _pointwise_extra, _math, _inplace_forms as _forms  # noqa: E402

# their Tensor methods and in-place forms: x.addcmul_(t1, t2, value=v), seqlab.deg2rad_(x), ...
for _name, _method in _pointwise_extra.METHODS.items():
    setattr(Tensor, _name, _method)
for _name in _pointwise_extra.IN_PLACE_OF:
    setattr(Tensor, _name + "_", _math._in_place(_pointwise_extra.METHODS[_name], _name + "_"))
for _name in ("deg2rad_", "rad2deg_", "gcd_", "lcm_", "ldexp_"):
    globals()[_name] = _forms._function_form(_name)
from . import _nn_top_level  # noqa: E402

# torch.dropout, torch.layer_norm, torch.kl_div, ...: nn.functional under torch's top-level signatures
for _name in _nn_top_level.__all__:
    globals()[_name] = getattr(_nn_top_level, _name)
Tensor.prelu = _nn_top_level.prelu
from . import _top_level_more  # noqa: E402

# torch.group_norm, torch.rrelu, torch.chain_matmul, torch.nuclear_norm, ... and Tensor.resize / resize_as
for _name in _top_level_more.__all__:
    globals()[_name] = getattr(_top_level_more, _name)
for _name, _method in _top_level_more.METHODS.items():
    setattr(Tensor, _name, _method)
from ._compositions import (  # noqa: E402,F401
    inner, vdot, diagflat, dsplit, cov, corrcoef, trapezoid, trapz, cumulative_trapezoid, gradient, vander,
    tril_indices, triu_indices, unravel_index, diagonal_scatter, select_scatter, slice_scatter, as_strided_scatter,
    as_strided_copy, as_strided_, alias_copy,
    detach_copy, diagonal_copy, expand_copy, permute_copy, select_copy, slice_copy, split_copy, split_with_sizes_copy,
    squeeze_copy, t_copy, transpose_copy, unbind_copy, unfold_copy, unsqueeze_copy, view_copy, narrow_copy, asarray,
    frombuffer,
)
from . import _compositions  # noqa: E402

for _name in ("inner", "vdot", "diagflat", "dsplit", "cov", "corrcoef", "diagonal_scatter", "select_scatter",
              "slice_scatter", "as_strided_scatter", "narrow_copy"):
    setattr(Tensor, _name, getattr(_compositions, _name))
del _name, _method

# The gamma family and torch.special (cpp/src/ops/special.cpp, seqlab/special.py).
from ._core import lgamma, digamma, polygamma, mvlgamma, i0, sinc, logit, exp2, igamma, igammac  # noqa: E402,F401
from . import special  # noqa: E402,F401
