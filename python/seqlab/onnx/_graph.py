"""The ONNX graph an export builds: nodes in the order the traced model ran them, initializers
(the parameters and buffers it used, under their state-dict names), the graph's inputs and
outputs, and the helpers the op translations share (constants, Shape slices, Reshape).
The ModelProto is made by the onnx package's helpers (onnx.helper, onnx.numpy_helper), imported
when an export starts: it is an optional extra, `pip install seqlab[onnx]`."""
import numpy as np

from .._optional import require


def onnx_package():
    """The onnx module, or an error naming the extra that installs it."""
    require("onnx.numpy_helper", "onnx", "seqlab.onnx.export builds ONNX files with")  # (imports onnx too)
    import onnx
    return onnx


def tensor_type(dtype):
    """ONNX's TensorProto.DataType of a NumPy dtype."""
    return onnx_package().helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class Graph:
    """Nodes as (op_type, inputs, outputs, attributes); values are named by strings."""

    def __init__(self, opset):
        self.opset = opset
        self.nodes = []
        self.initializers = {}        # name -> NumPy array
        self.inputs = []              # (name, dtype, shape)
        self.outputs = []
        self.output_values = set()   # names already given to graph outputs
        self.renamed = {}             # a node output renamed to a graph output's name: old -> new
        self._used = set()
        self._count = {}

    def fresh(self, hint):
        """A value name not used yet: hint, or hint_1, hint_2, ..."""
        name = hint
        while name in self._used:
            self._count[hint] = self._count.get(hint, 0) + 1
            name = f"{hint}_{self._count[hint]}"
        self._used.add(name)
        return name

    def reserve(self, name):
        if name in self._used:
            raise ValueError(f"seqlab.onnx.export: the name {name!r} is given to two values")
        self._used.add(name)
        return name

    def op(self, op_type, *inputs, outputs=1, **attributes):
        """Append a node; returns its output name (or the list of them when outputs > 1).
        An input None is an omitted optional input."""
        names = [self.fresh(f"/{op_type}_output_{i}" if outputs > 1 else f"/{op_type}_output") for i in range(outputs)]
        self.nodes.append((op_type, ["" if i is None else i for i in inputs], names, attributes))
        return names if outputs > 1 else names[0]

    def const(self, value, dtype=None):
        """A Constant node holding `value` (an array-like; dtype as NumPy's)."""
        array = np.array(value, dtype=dtype)
        return self.op("Constant", value=array)

    def ints(self, values):
        """A 1-D int64 constant: the axes, sizes and shapes that ONNX takes as inputs."""
        return self.const([int(v) for v in values], np.int64)

    def shape_slice(self, x, start, end=None):
        """Shape(x)[start:end] at run time (1-D int64), so that dynamic dims stay dynamic."""
        attributes = {"start": start} if end is None else {"start": start, "end": end}
        return self.op("Shape", x, **attributes)

    def unsqueeze(self, x, axes):
        return self.op("Unsqueeze", x, self.ints(axes))

    def squeeze(self, x, axes):
        return self.op("Squeeze", x, self.ints(axes))

    def transpose(self, x, perm):
        return self.op("Transpose", x, perm=list(perm))

    def reshape(self, x, pieces):
        """Reshape x to the concatenation of pieces: each an int list (0 copies the input's dim at
        that position, -1 is inferred) or the name of a 1-D int64 value (e.g. a shape_slice)."""
        if all(not isinstance(p, str) for p in pieces):
            return self.op("Reshape", x, self.ints([d for p in pieces for d in p]))
        names = [p if isinstance(p, str) else self.ints(p) for p in pieces if isinstance(p, str) or len(p)]
        shape = names[0] if len(names) == 1 else self.op("Concat", *names, axis=0)
        return self.op("Reshape", x, shape)

    def model(self, name, producer_version, ir_version):
        """The ModelProto (onnx.helper), importing the default domain at the graph's opset."""
        onnx = onnx_package()
        helper, from_array = onnx.helper, onnx.numpy_helper.from_array
        nodes = []
        for i, (op, ins, outs, attrs) in enumerate(self.nodes):
            nodes.append(helper.make_node(op, ins, outs, f"/{op}_{i}"))
            nodes[-1].attribute.extend(_attribute(onnx, k, v) for k, v in attrs.items())
        graph = helper.make_graph(
            nodes, name, [helper.make_tensor_value_info(n, tensor_type(t), shape) for n, t, shape in self.inputs],
            [helper.make_tensor_value_info(n, tensor_type(t), shape) for n, t, shape in self.outputs],
            initializer=[from_array(v, k) for k, v in self.initializers.items()])
        return helper.make_model(graph, producer_name="seqlab", producer_version=producer_version,
                                 ir_version=ir_version, opset_imports=[helper.make_opsetid("", self.opset)])

    def text(self):
        """A readable listing, for export(verbose=True)."""
        lines = [f"graph(inputs: {', '.join(n for n, _, _ in self.inputs)})"]
        lines += [f"  initializer {k}: {v.dtype}{list(v.shape)}" for k, v in self.initializers.items()]
        for op, ins, outs, attrs in self.nodes:
            shown = {k: (v.tolist() if isinstance(v, np.ndarray) and v.size <= 8 else
                         f"<{v.dtype}{list(v.shape)}>" if isinstance(v, np.ndarray) else v) for k, v in attrs.items()}
            extra = f"  {shown}" if shown else ""
            lines.append(f"  {', '.join(outs)} = {op}({', '.join(ins)}){extra}")
        lines.append(f"  return {', '.join(n for n, _, _ in self.outputs)}")
        return "\n".join(lines)



def _attribute(onnx, key, value):
    """An AttributeProto; its type follows the Python value (onnx.helper.make_attribute's rule):
    int, float, str, a NumPy array (a tensor), or a list of ints, floats or strs."""
    if isinstance(value, np.ndarray):
        value = onnx.numpy_helper.from_array(value)
    elif isinstance(value, (bool, np.bool_, np.integer)):
        value = int(value)
    elif isinstance(value, np.floating):
        value = float(value)
    elif isinstance(value, (list, tuple)):
        value = [int(v) if isinstance(v, (bool, np.integer)) else float(v) if isinstance(v, np.floating) else v
                 for v in value]
        if not value:   # (the type of an empty list cannot be inferred: ints, as axes and perms are)
            return onnx.helper.make_attribute(key, value, attr_type=onnx.AttributeProto.INTS)
    return onnx.helper.make_attribute(key, value)
