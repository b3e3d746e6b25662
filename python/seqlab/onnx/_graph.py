"""The ONNX graph an export builds: nodes in the order the traced model ran them, initializers
(the parameters and buffers it used, under their state-dict names), the graph's inputs and
outputs, and the helpers the op translations share (constants, Shape slices, Reshape)."""
import numpy as np

from . import _proto


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

    def encode(self, name, producer_version, ir_version):
        """The ModelProto bytes."""
        nodes = [_proto.node(op, ins, outs, f"/{op}_{i}", attrs) for i, (op, ins, outs, attrs) in enumerate(self.nodes)]
        initializers = [_proto.tensor(k, v) for k, v in self.initializers.items()]
        inputs = [_proto.value_info(*i) for i in self.inputs]
        outputs = [_proto.value_info(*o) for o in self.outputs]
        return _proto.model(_proto.graph(name, nodes, initializers, inputs, outputs), ir_version, self.opset,
                            producer_version)

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
