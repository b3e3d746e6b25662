"""Translations of seqlab's ops into standard ONNX ops (the default domain, opset 17 and up).

Each translation is called after the op ran, as translate(tracer, out, *args, **kwargs) with
the op's own arguments (the binding's names), and names `out` in the graph: tracer.name(t)
gives a tensor's value (an input, an earlier result, an initializer or a constant),
tracer.bind(out, v) names the result. FUNCTIONS translates seqlab._core's functions (and
so seqlab.x and seqlab.nn.functional.x), METHODS the Tensor methods and operators; the recurrent
layers are in _rnn.py, attention and the transformer layers in _attention.py.
Sizes are constants only where ONNX needs them so (split sizes); shapes given as SymInts (sizes
read from traced tensors, _sizes.py) are computed at run time, and the leading dims a reshape
keeps are copied from its input (0 in Reshape's shape), so dynamic_axes stay dynamic through
views, flatten, expand and the layers."""
import math
import numbers

import numpy as np

from .. import _core
from ._graph import tensor_type
from ._sizes import SymInt, scalar_value, shape_value, symbolic

Tensor = _core.Tensor
_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "int16": np.int16,
       "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}
_INT64_MAX = 2 ** 63 - 1


def np_dtype(dtype):
    """The NumPy dtype of a seqlab dtype."""
    return np.dtype(_NP[str(dtype).rsplit(".", 1)[-1]])


def _dim(d, ndim):
    return d + ndim if d < 0 else d


def operand(tr, x, dtype):
    """x (a tensor or a Python number) as a value of `dtype` (a seqlab dtype): numbers become
    constants, tensors of another dtype are cast (seqlab promoted them in the op itself)."""
    if isinstance(x, Tensor):
        name = tr.name(x)
        return name if x.dtype == dtype else tr.graph.op("Cast", name, to=_onnx_type(dtype))
    return tr.graph.const(x, np_dtype(dtype))


def _onnx_type(dtype):
    return tensor_type(np_dtype(dtype))


# ---------------------------------------------------------------------------- elementwise
def _unary(op_type):
    def translate(tr, out, input, *args, **kwargs):
        tr.bind(out, tr.graph.op(op_type, operand(tr, input, out.dtype)))
    return translate


def _binary(op_type, reflected=False):
    """out = input op other (reflected: other op input, for __radd__ etc.); alpha scales other."""
    def translate(tr, out, input, other, *args, alpha=1, **kwargs):
        a, b = (other, input) if reflected else (input, other)
        x, y = operand(tr, a, out.dtype), operand(tr, b, out.dtype)
        if alpha != 1:
            y = tr.graph.op("Mul", y, tr.graph.const(alpha, np_dtype(out.dtype)))
        tr.bind(out, tr.graph.op(op_type, x, y))
    return translate


def gelu(g, x, dtype, approximate="none"):
    """GELU(x) = x Φ(x) = ½ x (1 + erf(x / √2))  (Hendrycks & Gimpel 2016), or its tanh form
    ½ x (1 + tanh(√(2/π) (x + 0.044715 x³))); dtype: NumPy's. Returns the value's name."""
    if approximate == "tanh":
        inner = g.op("Add", x, g.op("Mul", g.const(0.044715, dtype), g.op("Mul", x, g.op("Mul", x, x))))
        t = g.op("Tanh", g.op("Mul", g.const(math.sqrt(2 / math.pi), dtype), inner))
    else:
        t = g.op("Erf", g.op("Div", x, g.const(math.sqrt(2.0), dtype)))
    return g.op("Mul", g.op("Mul", g.const(0.5, dtype), x), g.op("Add", g.const(1.0, dtype), t))


def _compare(op_type, negate=False):
    """input op other -> bool; both sides in their promoted dtype (the result's is bool)."""
    def translate(tr, out, input, other):
        g = tr.graph
        dtypes = [np_dtype(t.dtype) for t in (input, other) if isinstance(t, Tensor)]
        common = np.result_type(*dtypes) if len(dtypes) == 2 else dtypes[0]

        def side(x):
            if not isinstance(x, Tensor):
                return g.const(x, common)
            name = tr.name(x)
            return name if np_dtype(x.dtype) == common else g.op("Cast", name, to=tensor_type(common))
        y = g.op(op_type, side(input), side(other))
        tr.bind(out, g.op("Not", y) if negate else y)
    return translate


def _gelu(tr, out, input, approximate="none"):
    tr.bind(out, gelu(tr.graph, tr.name(input), np_dtype(out.dtype), approximate))


def _softmax(op_type):
    def translate(tr, out, input, dim=None, dtype=None, *args, **kwargs):
        x = operand(tr, input, out.dtype)
        tr.bind(out, tr.graph.op(op_type, x, axis=_dim(int(dim), input.dim())))
    return translate


def _pow(tr, out, input, exponent):
    tr.bind(out, tr.graph.op("Pow", operand(tr, input, out.dtype), operand(tr, exponent, out.dtype)))


def _rpow(tr, out, input, other):
    # other ** input
    tr.bind(out, tr.graph.op("Pow", operand(tr, other, out.dtype), operand(tr, input, out.dtype)))


def _clamp(tr, out, input, min=None, max=None):
    g, dt = tr.graph, out.dtype
    lo = None if min is None else operand(tr, min, dt)
    hi = None if max is None else operand(tr, max, dt)
    tr.bind(out, g.op("Clip", operand(tr, input, dt), lo, hi))


def _where(tr, out, condition, input, other):
    tr.bind(out, tr.graph.op("Where", tr.name(condition), operand(tr, input, out.dtype),
                             operand(tr, other, out.dtype)))


def _masked_fill(tr, out, input, mask, value):
    # out = value where mask else input
    tr.bind(out, tr.graph.op("Where", tr.name(mask), operand(tr, value, out.dtype), tr.name(input)))


def _cast(tr, out, input, *args, **kwargs):
    if out.dtype == input.dtype:
        tr.bind(out, tr.name(input))
    else:
        tr.bind(out, tr.graph.op("Cast", tr.name(input), to=_onnx_type(out.dtype)))


def _same(tr, out, input, *args, **kwargs):
    """contiguous, clone, detach, .data, to() without a dtype change: the same values."""
    tr.bind(out, tr.name(input))


# ---------------------------------------------------------------------------- linear algebra
def _matmul(tr, out, input, other):
    tr.bind(out, tr.graph.op("MatMul", operand(tr, input, out.dtype), operand(tr, other, out.dtype)))


def _rmatmul(tr, out, input, other):
    _matmul(tr, out, other, input)


def _linear(tr, out, input, weight, bias=None):
    # y = x Wᵀ + b: Gemm for a matrix (torch's addmm), else MatMul then Add
    g = tr.graph
    x, w = tr.name(input), tr.name(weight)
    if input.dim() == 2 and weight.dim() == 2:
        tr.bind(out, g.op("Gemm", x, w, None if bias is None else tr.name(bias), transB=1))
        return
    y = g.op("MatMul", x, g.transpose(w, [1, 0]))
    tr.bind(out, y if bias is None else g.op("Add", y, tr.name(bias)))


def _embedding(tr, out, input, weight, padding_idx=None, *args, **kwargs):
    # row input[...] of weight: Gather along axis 0 (padding_idx only changes the gradient)
    tr.bind(out, tr.graph.op("Gather", tr.name(weight), tr.name(input), axis=0))


def _layer_norm(tr, out, input, normalized_shape, weight=None, bias=None, eps=1e-5):
    # y = (x - E[x]) / √(Var[x] + eps) · weight + bias over the last len(normalized_shape) dims
    g, dt = tr.graph, np_dtype(out.dtype)
    shape = [int(s) for s in normalized_shape]
    scale = tr.name(weight) if weight is not None else g.const(np.ones(shape, dt))
    b = None if bias is None else tr.name(bias)
    tr.bind(out, g.op("LayerNormalization", tr.name(input), scale, b, axis=-len(shape), epsilon=float(eps)))


def _dropout(tr, out, input, p=0.5, training=True):
    if training and p > 0:
        raise RuntimeError(
            f"seqlab.onnx.export: dropout(p={p}) was called with training=True; the exported model is the "
            f"model in eval mode (torch's TrainingMode.EVAL): pass training=self.training to F.dropout")
    tr.bind(out, tr.name(input))


def _reduce(op_type):
    def translate(tr, out, input, dim=None, keepdim=False, *, dtype=None, keepdims=False):
        g = tr.graph
        keepdim = keepdim or keepdims
        x = operand(tr, input, out.dtype)
        dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
        axes = [_dim(d, input.dim()) for d in dims]
        if op_type == "ReduceSum" or g.opset >= 18:
            tr.bind(out, g.op(op_type, x, g.ints(axes), keepdims=int(bool(keepdim))))
        else:
            tr.bind(out, g.op(op_type, x, axes=axes, keepdims=int(bool(keepdim))))
    return translate


def _trilu(upper):
    def translate(tr, out, input, diagonal=0):
        k = tr.graph.const(int(diagonal), np.int64)        # Trilu's k is a 0-d tensor
        tr.bind(out, tr.graph.op("Trilu", tr.name(input), k, upper=int(upper)))
    return translate


# ---------------------------------------------------------------------------- shapes
def _shape_args(args):
    """view(2, 3), view((2, 3)), view([2, 3]) -> [2, 3] (ints and SymInts as given)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return [a if isinstance(a, SymInt) else int(a) for a in args]


def _shape(g, dims):
    """A shape input: constants, or built at run time when a dim is a SymInt."""
    return shape_value(g, dims) if symbolic(dims) else g.ints(dims)


def _reshape_to(tr, out, input, target):
    """Reshape input to target. Sizes read from traced tensors (SymInts) are recomputed at run
    time; of the others, the leading dims that the target keeps (same size at the same position:
    the batch and time dims of x.view(B, T, H, d)) are copied from the input (0 in Reshape's
    shape), and if then one dim is left and the target has no -1, it becomes the -1."""
    shape = list(input.shape)
    kept = 0
    while kept < min(len(shape), len(target)) and not isinstance(target[kept], SymInt) \
            and target[kept] == shape[kept] and target[kept] != 0:
        kept += 1
    dims = [0] * kept + list(target[kept:])
    if -1 not in dims and kept and len(dims) - kept == 1 and not isinstance(dims[-1], SymInt):
        dims[-1] = -1
    tr.bind(out, tr.graph.op("Reshape", tr.name(input), _shape(tr.graph, dims)))


def _view(tr, out, input, *shape, **kwargs):
    if not shape and kwargs:
        shape = (kwargs.get("shape", kwargs.get("size")),)
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, numbers.Integral)):
        raise NotImplementedError("seqlab.onnx.export: view(dtype) has no ONNX translation")
    _reshape_to(tr, out, input, _shape_args(shape))


def _view_as(tr, out, input, other):
    tr.bind(out, tr.graph.op("Reshape", tr.name(input), tr.graph.op("Shape", tr.name(other))))


def _flatten(default_start):
    def translate(tr, out, input, start_dim=default_start, end_dim=-1):
        g, n = tr.graph, input.dim()
        if n == 0:
            tr.bind(out, g.reshape(tr.name(input), [[1]]))
            return
        s, e = _dim(start_dim, n), _dim(end_dim, n)
        x = tr.name(input)
        pieces = [[0] * s, [-1]]
        if e + 1 < n:
            pieces.append(g.shape_slice(x, e + 1))
        tr.bind(out, g.reshape(x, pieces))
    return translate


def _transpose(tr, out, input, dim0, dim1):
    n = input.dim()
    perm = list(range(n))
    a, b = _dim(dim0, n), _dim(dim1, n)
    perm[a], perm[b] = perm[b], perm[a]
    tr.bind(out, tr.graph.transpose(tr.name(input), perm))


def _t(tr, out, input):
    if input.dim() < 2:
        tr.bind(out, tr.name(input))
    else:
        tr.bind(out, tr.graph.transpose(tr.name(input), [1, 0]))


def _T(tr, out, input):
    tr.bind(out, tr.graph.transpose(tr.name(input), list(reversed(range(input.dim())))))


def _mT(tr, out, input):
    _transpose(tr, out, input, -2, -1)


def _permute(tr, out, input, *dims):
    n = input.dim()
    tr.bind(out, tr.graph.transpose(tr.name(input), [_dim(d, n) for d in _shape_args(dims)]))


def _unsqueeze(tr, out, input, dim):
    tr.bind(out, tr.graph.unsqueeze(tr.name(input), [_dim(dim, input.dim() + 1)]))


def _squeeze(tr, out, input, dim=None):
    n, shape = input.dim(), list(input.shape)
    dims = range(n) if dim is None else [dim] if isinstance(dim, int) else dim
    axes = [_dim(d, n) for d in dims if shape[_dim(d, n)] == 1]
    tr.bind(out, tr.graph.squeeze(tr.name(input), axes) if axes else tr.name(input))


def _cat(tr, out, tensors, dim=0):
    names = [operand(tr, t, out.dtype) for t in tensors]
    tr.bind(out, tr.graph.op("Concat", *names, axis=_dim(dim, out.dim())))


def _stack(tr, out, tensors, dim=0):
    d = _dim(dim, out.dim())
    names = [tr.graph.unsqueeze(operand(tr, t, out.dtype), [d]) for t in tensors]
    tr.bind(out, tr.graph.op("Concat", *names, axis=d))


def _split(tr, out, input, split_size_or_sections=None, dim=0, **kwargs):
    d = _dim(dim, input.dim())
    sizes = [o.shape[d] for o in out]
    names = tr.graph.op("Split", tr.name(input), tr.graph.ints(sizes), axis=d, outputs=len(sizes))
    for o, name in zip(out, names if len(sizes) > 1 else [names]):
        tr.bind(o, name)


def _chunk(tr, out, input, chunks, dim=0):
    _split(tr, out, input, None, dim)


def _unbind(tr, out, input, dim=0):
    d = _dim(dim, input.dim())
    g = tr.graph
    for i, o in enumerate(out):
        tr.bind(o, g.op("Gather", tr.name(input), g.const(i, np.int64), axis=d))


def _narrow(tr, out, input, dim, start, length):
    g, d = tr.graph, _dim(dim, input.dim())
    tr.bind(out, g.op("Slice", tr.name(input), g.ints([start]), g.ints([start + length]), g.ints([d])))


def _select(tr, out, input, dim, index):
    g = tr.graph
    tr.bind(out, g.op("Gather", tr.name(input), g.const(int(index), np.int64), axis=_dim(dim, input.dim())))


def _expand(tr, out, input, *sizes):
    # Expand broadcasts, so a size the input already has (-1, or the same size at the same
    # right-aligned position) is a 1 there: that dim then follows the input at run time
    sizes = _shape_args(sizes)
    shape = [None] * (len(sizes) - input.dim()) + list(input.shape)
    sizes = [s if isinstance(s, SymInt) else 1 if s == -1 or s == d else s for s, d in zip(sizes, shape)]
    tr.bind(out, tr.graph.op("Expand", tr.name(input), _shape(tr.graph, sizes)))


def _filled(fill):
    """zeros(*size), ones(*size), full(size, value), x.new_zeros(*size), x.new_ones(*size): a constant, unless
    a size is a SymInt: then ConstantOfShape of the shape computed at run time."""
    def translate(tr, out, *args, **kwargs):
        if fill == "full":
            size, value = args[0], args[1] if len(args) > 1 else kwargs["fill_value"]
        elif fill.startswith("new_"):                      # x.new_zeros(*size)
            size, value = args[1:], float(fill == "new_ones")
        else:
            size, value = args, float(fill == "ones")
        sizes = _shape_args(size if isinstance(size, (tuple, list)) else (size,))
        if symbolic(sizes):
            array = np.array([value], np_dtype(out.dtype))
            tr.bind(out, tr.graph.op("ConstantOfShape", shape_value(tr.graph, sizes), value=array))
    return translate


def _arange(tr, out, start, end=None, step=1, *args, **kwargs):
    # start, start + step, ... < end: Range of scalars (computed at run time when one is a SymInt)
    from .._tensor import _NO_END
    if end is None or end is _NO_END:
        start, end = 0, start
    if not symbolic([start, end, step]):
        return
    g = tr.graph
    bounds = [scalar_value(g, v) if isinstance(v, SymInt) else g.const(v, np.int64) for v in (start, end, step)]
    if out.dtype != _core.dtype.int64:
        bounds = [g.op("Cast", b, to=_onnx_type(out.dtype)) for b in bounds]
    tr.bind(out, g.op("Range", *bounds))


def _setitem(tr, out, input, key, value):
    raise NotImplementedError(
        f"seqlab.onnx.export: an in-place write x[{key!r}] = ... to a traced tensor of shape {tuple(input.shape)} "
        "has no ONNX translation; build the value with ops (seqlab.where, masked_fill, cat) instead")


def _expand_as(tr, out, input, other):
    tr.bind(out, tr.graph.op("Expand", tr.name(input), tr.graph.op("Shape", tr.name(other))))


def _getitem(tr, out, input, key):
    """x[...] with ints, slices (step > 0), None, Ellipsis and one int64 index tensor or list of ints:
    Gather (an int drops the dim), Slice, Unsqueeze, in the order the key reads."""
    g = tr.graph
    key = key if isinstance(key, tuple) else (key,)
    for k in key:
        if isinstance(k, list) and not all(isinstance(i, int) and not isinstance(i, bool) for i in k):
            raise NotImplementedError(f"seqlab.onnx.export: indexing with the list {k!r} has no ONNX translation "
                                      "(lists of ints have)")
        if isinstance(k, Tensor) and (k.dtype == _core.dtype.bool or any(isinstance(j, (Tensor, list)) for j in key
                                                                           if j is not k)):
            raise NotImplementedError(
                f"seqlab.onnx.export: indexing with a bool mask or several index tensors has no ONNX "
                f"translation here (key {key!r} on shape {tuple(input.shape)}); use ints, slices, None, ... "
                f"and at most one int64 index tensor")
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    x, axis = tr.name(input), 0
    for k in key:
        if k is None:
            x = g.unsqueeze(x, [axis])
            axis += 1
        elif k is Ellipsis:
            axis += input.dim() - consumed
        elif isinstance(k, slice):
            step = 1 if k.step is None else int(k.step)
            if step <= 0:
                raise NotImplementedError(f"seqlab.onnx.export: slices with step {step} have no ONNX translation")
            start = 0 if k.start is None else k.start
            stop = _INT64_MAX if k.stop is None else k.stop
            if (start, stop, step) != (0, _INT64_MAX, 1):       # bounds read from sizes stay SymInts
                x = g.op("Slice", x, _shape(g, [start]), _shape(g, [stop]), g.ints([axis]), g.ints([step]))
            axis += 1
        elif isinstance(k, Tensor):
            x = g.op("Gather", x, tr.name(k), axis=axis)
            axis += k.dim()
        elif isinstance(k, list):                              # x[:, [-1]]: a list of ints keeps the dim
            x = g.op("Gather", x, g.ints(k), axis=axis)
            axis += 1
        else:
            x = g.op("Gather", x, g.const(int(k), np.int64), axis=axis)
    tr.bind(out, x)


def _to(tr, out, input, *args, **kwargs):
    _cast(tr, out, input)


# ---------------------------------------------------------------------------- the tables
_UNARY = {"relu": "Relu", "tanh": "Tanh", "sigmoid": "Sigmoid", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
          "abs": "Abs", "neg": "Neg", "negative": "Neg", "sin": "Sin", "cos": "Cos", "floor": "Floor",
          "ceil": "Ceil", "sign": "Sign", "erf": "Erf", "__neg__": "Neg", "reciprocal": "Reciprocal"}
_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "true_divide": "Div", "maximum": "Max",
           "minimum": "Min", "__add__": "Add", "__sub__": "Sub", "__mul__": "Mul", "__truediv__": "Div"}
_REFLECTED = {"__radd__": "Add", "__rsub__": "Sub", "__rmul__": "Mul", "__rtruediv__": "Div"}
_COMPARE = {"eq": ("Equal", False), "ne": ("Equal", True), "lt": ("Less", False), "le": ("LessOrEqual", False),
            "gt": ("Greater", False), "ge": ("GreaterOrEqual", False)}

COMMON = {name: _unary(op) for name, op in _UNARY.items()}
COMMON.update({name: _binary(op) for name, op in _BINARY.items()})
COMMON.update({name: _binary(op, reflected=True) for name, op in _REFLECTED.items()})
for _name, (_op, _negate) in _COMPARE.items():
    COMMON[_name] = COMMON[f"__{_name}__"] = _compare(_op, _negate)
COMMON.update({
    "gelu": _gelu, "softmax": _softmax("Softmax"), "log_softmax": _softmax("LogSoftmax"), "pow": _pow,
    "__pow__": _pow, "__rpow__": _rpow, "clamp": _clamp, "clip": _clamp, "where": _where, "masked_fill": _masked_fill,
    "matmul": _matmul, "mm": _matmul, "bmm": _matmul, "__matmul__": _matmul, "__rmatmul__": _rmatmul,
    "sum": _reduce("ReduceSum"), "mean": _reduce("ReduceMean"), "triu": _trilu(True), "tril": _trilu(False),
    "reshape": _view, "flatten": _flatten(0), "transpose": _transpose, "swapaxes": _transpose, "t": _t,
    "permute": _permute, "unsqueeze": _unsqueeze, "squeeze": _squeeze, "split": _split, "chunk": _chunk,
    "unbind": _unbind, "narrow": _narrow, "select": _select, "clone": _same,
})

FUNCTIONS = dict(COMMON)
FUNCTIONS.update({
    "_linear": _linear, "embedding": _embedding, "layer_norm": _layer_norm, "dropout": _dropout,
    "cat": _cat, "concat": _cat, "stack": _stack,
    "zeros": _filled("zeros"), "ones": _filled("ones"), "full": _filled("full"), "arange": _arange,
})

METHODS = dict(COMMON)
METHODS.update({
    "view": _view, "view_as": _view_as, "reshape_as": _view_as, "expand": _expand, "expand_as": _expand_as,
    "__getitem__": _getitem, "__setitem__": _setitem, "contiguous": _same, "detach": _same, "data": _same,
    "cpu": _same, "T": _T, "mT": _mT,
    "new_zeros": _filled("new_zeros"), "new_ones": _filled("new_ones"),
    "to": _to, "type_as": _to, "float": _cast, "double": _cast, "long": _cast, "int": _cast, "bool": _cast,
})
