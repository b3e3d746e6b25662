"""Sizes read from traced tensors (x.shape, x.size(d)) that the graph can recompute.

torch's tracer records aten::size, so x.view(x.size(0), -1) or zeros(L, x.size(1), H) inside
forward follow a dynamic axis. Here, while a trace runs, x.shape and x.size() of a traced
tensor return SymInts: ints (Python and the C++ ops see their values) that also carry how the
graph computes them (Shape(x)[d], and +, -, *, // of them with ints). A view, reshape, expand or
creation function given SymInts builds its shape at run time from them; every other use of the
int, e.g. Python control flow, is traced away with the example's value, as in torch."""
import operator


class SymInt(int):
    """An int that remembers the graph value computing it: make(graph) -> a 1-D int64 [1] value."""

    def __new__(cls, value, make):
        self = super().__new__(cls, value)
        self._make = make
        self._name = None
        return self

    def value(self, graph):
        if self._name is None:
            self._name = self._make(graph)
        return self._name


def _value(graph, n):
    return n.value(graph) if isinstance(n, SymInt) else graph.ints([int(n)])


def _arithmetic(op_type, fn, reflected=False):
    def method(self, other):
        if isinstance(other, bool) or not isinstance(other, int):
            return getattr(int, method.__name__)(self, other)
        a, b = (other, self) if reflected else (self, other)
        return SymInt(fn(int(a), int(b)), lambda g: g.op(op_type, _value(g, a), _value(g, b)))
    return method


# Sizes are non-negative, so ONNX's integer Div (truncating) is Python's //.
for _name, _op, _fn in (("add", "Add", operator.add), ("sub", "Sub", operator.sub), ("mul", "Mul", operator.mul),
                        ("floordiv", "Div", operator.floordiv)):
    _forward = _arithmetic(_op, _fn)
    _forward.__name__ = f"__{_name}__"
    _reflected = _arithmetic(_op, _fn, reflected=True)
    _reflected.__name__ = f"__r{_name}__"
    setattr(SymInt, _forward.__name__, _forward)
    setattr(SymInt, _reflected.__name__, _reflected)


def symbolic(sizes):
    return any(isinstance(s, SymInt) for s in sizes)


def shape_value(graph, sizes):
    """The 1-D int64 value of a shape given as ints and SymInts."""
    return graph.op("Concat", *[_value(graph, s) for s in sizes], axis=0) if len(sizes) != 1 else \
        _value(graph, sizes[0])


def scalar_value(graph, n):
    """A 0-d int64 value of an int or SymInt (Range's inputs)."""
    return graph.squeeze(_value(graph, n), [0])


def sizes_of(tracer, name, shape):
    """x.shape of the traced value `name` as SymInts."""
    return tuple(SymInt(n, lambda g, d=d: g.shape_slice(name, d, d + 1)) for d, n in enumerate(shape))
