"""seqlab.onnx: torch.onnx.export for seqlab models, checked with the onnx and onnxruntime packages.

    seqlab.onnx.export(model, (input, hidden), "model.onnx", input_names=["input", "h0", "c0"],
                       dynamic_axes={"input": {0: "seq", 1: "batch"}})

export() runs model(*args) once in eval mode and records the seqlab ops it calls (_trace.py)
as standard ONNX ops (_symbolic.py; the recurrent layers as ONNX's RNN/LSTM/GRU: _rnn.py;
attention and the transformer layers written out: _attention.py), then builds the ModelProto
with the onnx package's helpers (_graph.py) and writes it atomically. onnx is an optional extra:
`pip install seqlab[onnx]`; without it export() says so.
Tests: tests/test_onnx.py (onnx.checker, onnxruntime against seqlab's own outputs)."""
import enum
import importlib.metadata
import inspect
import os
import warnings

from .. import _core
from .._atomic import atomic_open
from ..autograd import enable_grad
from . import _attention, _rnn, _symbolic
from ._graph import Graph, onnx_package
from ._symbolic import np_dtype
from ._trace import Tracer, instances_in

__all__ = ["export", "is_in_onnx_export", "TrainingMode", "OperatorExportTypes"]

Tensor = _core.Tensor

# torch 2.13's default opset; 17 is the first with LayerNormalization. IR version per opset (onnx's table).
_DEFAULT_OPSET = 20
_IR_VERSION = {17: 8, 18: 8, 19: 9, 20: 9}
_MAX_PROTO = 2 ** 31 - 1

FUNCTIONS = {**_symbolic.FUNCTIONS, **_rnn.FUNCTIONS, **_attention.FUNCTIONS}
METHODS = _symbolic.METHODS


class TrainingMode(enum.IntEnum):
    """torch.onnx.TrainingMode: the mode the model is exported in."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """torch.onnx.OperatorExportTypes; seqlab exports standard ONNX ops only."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def is_in_onnx_export():
    """True while export() is tracing a model (torch.onnx.is_in_onnx_export)."""
    return Tracer.active is not None


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=True, dynamic_shapes=None, custom_translation_table=None,
           report=False, optimize=True, verify=False, profile=False, dump_exported_program=False, artifacts_dir=".",
           export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None, training=TrainingMode.EVAL,
           operator_export_type=OperatorExportTypes.ONNX, do_constant_folding=True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining=True):
    """Export `model` to an ONNX file by tracing model(*args, **kwargs) once (torch.onnx.export).

    args: a tensor or a tuple of arguments (a tuple may hold tuples of tensors, e.g. an LSTM's
    (h_0, c_0): they are flattened into inputs in order, as torch does; a dict last holds
    keyword arguments). f: a path (written atomically) or a binary file object.
    input_names / output_names: the flattened inputs' and outputs' names (default: forward's
    parameter names, with _0, _1 for the elements of a tuple; outputs output_0, output_1, ...).
    dynamic_axes: {name: {dim: "symbol"}} or {name: [dims]}: those dims are symbolic (dim_param).
    opset_version: 17 to 20 (default 20, torch 2.13's). The model runs in eval mode (training=
    TrainingMode.EVAL; PRESERVE keeps its mode, and dropout in training mode is an error);
    modules' modes are restored afterwards. Parameters and buffers the trace uses become
    initializers named by their state-dict keys (export_params=False: graph inputs instead).
    Python control flow is traced away: the path this input takes is the one exported. An op
    with no ONNX translation raises NotImplementedError naming it and the supported ops.
    dynamo, external_data, optimize and do_constant_folding are accepted for torch's sake and
    change nothing (one tracer; a file under 2 GiB; the graph is written as traced: the gate
    reordering of recurrent weights stays as nodes so the initializers remain the parameters).
    Returns None."""
    for name, value, default in (("dynamic_shapes", dynamic_shapes, None),
                                 ("custom_translation_table", custom_translation_table, None),
                                 ("custom_opsets", custom_opsets, None), ("report", report, False),
                                 ("verify", verify, False), ("profile", profile, False),
                                 ("dump_exported_program", dump_exported_program, False),
                                 ("export_modules_as_functions", export_modules_as_functions, False)):
        if value is not default and value != default:
            raise NotImplementedError(f"seqlab.onnx.export: {name}={value!r} is not supported (seqlab's exporter "
                                      "is a tracer; give dynamic dims with dynamic_axes)")
    if operator_export_type not in (OperatorExportTypes.ONNX, None):
        raise NotImplementedError("seqlab.onnx.export: only operator_export_type=OperatorExportTypes.ONNX is supported")
    if training == TrainingMode.TRAINING:
        raise NotImplementedError("seqlab.onnx.export: training=TrainingMode.TRAINING is not supported; the model "
                                  "is exported in eval mode")
    if f is None:
        raise ValueError("seqlab.onnx.export: f (a path or a binary file object) must be given")
    onnx_package()   # before the trace: without the onnx package, say which extra installs it
    opset = _DEFAULT_OPSET if opset_version is None else int(opset_version)
    if opset not in _IR_VERSION:
        raise ValueError(f"seqlab.onnx.export: opset_version must be between {min(_IR_VERSION)} and "
                         f"{max(_IR_VERSION)}, got {opset_version}")
    if not hasattr(model, "named_parameters") or not callable(model):
        raise TypeError(f"seqlab.onnx.export: model must be a seqlab.nn.Module, got {type(model).__name__}")
    args, kwargs = _split_args(args, kwargs)

    graph = Graph(opset)
    inputs, args, kwargs = _inputs(model, args, kwargs, input_names)
    dynamic = _dynamic_axes(dynamic_axes)
    named = {}                       # id -> (state-dict name, tensor); tied weights under their first name
    for key, t in list(model.named_parameters()) + list(model.named_buffers()):
        if t is not None:
            named.setdefault(id(t), (key, t))
    graph.inputs = [(graph.reserve(name), np_dtype(t.dtype), _dims(name, t, dynamic)) for name, t in inputs]

    modes = [(m, m.training) for m in model.modules()]
    tracer = Tracer(graph, named, FUNCTIONS, METHODS, [inspect.getmodule(type(m)) for m, _ in modes])
    try:
        if training != TrainingMode.PRESERVE:
            model.train(False)
        with tracer, enable_grad():
            for name, t in inputs:
                tracer.bind(t, name)
            result = model(*args, **kwargs)
            outputs = list(instances_in(result))      # None outputs are left out, as torch does
            names = _output_names(outputs, output_names)
            for name, t in zip(names, outputs):
                _name_output(graph, tracer.name(t), name)
    finally:
        for m, mode in modes:
            m.training = mode
    graph.outputs = [(name, np_dtype(t.dtype), _dims(name, t, dynamic, output=True))
                     for name, t in zip(names, outputs)]
    known = {n for n, _, _ in graph.inputs} | set(names)
    for key in dynamic:
        if key not in known:
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output name", stacklevel=2)
    if not export_params or keep_initializers_as_inputs:
        graph.inputs += [(k, v.dtype, list(v.shape)) for k, v in graph.initializers.items()]
        if not export_params:
            graph.initializers = {}
    proto = graph.model("main_graph", _version(), _IR_VERSION[opset])
    if proto.ByteSize() > _MAX_PROTO:
        raise ValueError(f"seqlab.onnx.export: the model is {proto.ByteSize()} bytes; ONNX files in one piece stop "
                         "at 2 GiB")
    if verbose:
        print(graph.text())
    _write(f, proto.SerializeToString())


def _version():
    """seqlab's version for the file's producer_version (read from the installed package's metadata,
    since this module may not import the package's front door)."""
    try:
        return importlib.metadata.version("seqlab")
    except importlib.metadata.PackageNotFoundError:
        return ""


def _split_args(args, kwargs):
    if isinstance(args, Tensor):
        args = (args,)
    elif isinstance(args, list):
        args = tuple(args)
    elif not isinstance(args, tuple):
        raise TypeError(f"seqlab.onnx.export: args must be a tensor or a tuple, got {type(args).__name__}")
    if args and isinstance(args[-1], dict) and kwargs is None:    # torch's convention: a dict last holds kwargs
        args, kwargs = args[:-1], args[-1]
    return args, dict(kwargs or {})


def _inputs(model, args, kwargs, input_names):
    """[(name, tensor)] of the flattened tensor inputs, and args/kwargs with each tensor replaced
    by a fresh alias (the trace knows an input by its alias; floating ones require grad so that
    work done on them outside the trace is caught)."""
    try:
        params = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    inputs = []

    def alias(obj, base):
        if isinstance(obj, Tensor):
            t = obj.detach()
            if t.is_floating_point():
                t.requires_grad_(True)
            inputs.append((base, t))
            return t
        if isinstance(obj, (tuple, list)):
            return type(obj)(alias(o, f"{base}_{i}") for i, o in enumerate(obj))
        return obj
    new_args = tuple(alias(a, positional[i] if i < len(positional) else f"input_{i}") for i, a in enumerate(args))
    new_kwargs = {k: alias(v, k) for k, v in kwargs.items()}
    if input_names is not None:
        names = list(input_names)
        inputs = [(names[i] if i < len(names) else n, t) for i, (n, t) in enumerate(inputs)]
    return inputs, new_args, new_kwargs


def _dynamic_axes(dynamic_axes):
    """{name: {dim: symbol}}; a list of dims gets torch's symbols name_dynamic_axes_1, ..."""
    out = {}
    for key, value in (dynamic_axes or {}).items():
        if isinstance(value, dict):
            out[key] = {int(k): str(v) for k, v in value.items()}
        else:
            out[key] = {int(d): f"{key}_dynamic_axes_{i + 1}" for i, d in enumerate(value)}
    return out


def _dims(name, t, dynamic, output=False):
    """A value's shape for the file: symbols at its dynamic axes; with dynamic_axes given, an
    output's other dims are left unknown (they may follow an input's dynamic dim)."""
    axes = {d + t.dim() if d < 0 else d: s for d, s in dynamic.get(name, {}).items()}
    unknown = output and bool(dynamic)
    return [axes[i] if i in axes else None if unknown else int(n) for i, n in enumerate(t.shape)]


def _output_names(outputs, output_names):
    defaults = ["output"] if len(outputs) == 1 else [f"output_{i}" for i in range(len(outputs))]
    given = list(output_names or [])
    return [given[i] if i < len(given) else defaults[i] for i in range(len(outputs))]


def _name_output(graph, value, name):
    """Give the graph output `name` to `value`: rename the node output that made it, or add an
    Identity when it is an input, an initializer, or already another output."""
    taken = {n for n, _, _ in graph.inputs} | set(graph.initializers) | graph.output_values
    if value not in taken and value != name:
        for i, (op, ins, outs, attrs) in enumerate(graph.nodes):
            if value in outs:
                graph.reserve(name)
                graph.nodes[i] = (op, ins, [name if o == value else o for o in outs], attrs)
                for j in range(i + 1, len(graph.nodes)):
                    op2, ins2, outs2, attrs2 = graph.nodes[j]
                    graph.nodes[j] = (op2, [name if x == value else x for x in ins2], outs2, attrs2)
                graph.output_values.add(name)
                graph.renamed[value] = name
                return
    if value in graph.renamed:
        value = graph.renamed[value]
    if value != name:
        graph.reserve(name)
        graph.nodes.append(("Identity", [value], [name], {}))
    graph.output_values.add(name)


def _write(f, data):
    if isinstance(f, (str, os.PathLike)):
        with atomic_open(f, "wb") as out:
            out.write(data)
    elif hasattr(f, "write"):
        f.write(data)
    else:
        raise TypeError(f"seqlab.onnx.export: f must be a path or a binary file object, got {type(f).__name__}")
