// seqlab.Tensor: properties, autograd methods, operators. Ops that are both functions and
// methods (x.tanh() and seqlab.tanh(x)) are bound in bind_ops.cpp.
#include <tuple>

#include "bind_common.hpp"

namespace seqlab::bind {
namespace {

py::tuple shape_tuple(const Shape& s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i]);
  return t;
}

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

// a OP b (or b OP a when reflected) for a tensor and a Python operand; NotImplemented for
// unknown operands, so that Python tries the other operand's method. `name` (__add__) names
// the operator in the errors of operand().
template <typename F>
py::object binary(const char* name, const Tensor& self, const py::handle& other, bool reflected, F f) {
  const Tensor o = operand(other, self, name);
  if (!o.defined()) return not_implemented();
  return py::cast(released([&] { return reflected ? f(o, self) : f(self, o); }));
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::enum_<Dtype>(m, "dtype")
      .value("float32", Dtype::Float32)
      .value("float64", Dtype::Float64)
      .value("float16", Dtype::Float16)
      .value("bfloat16", Dtype::BFloat16)
      .value("int64", Dtype::Int64)
      .value("int32", Dtype::Int32)
      .value("int16", Dtype::Int16)
      .value("int8", Dtype::Int8)
      .value("uint8", Dtype::UInt8)
      .value("bool", Dtype::Bool)
      .def("__repr__", [](Dtype d) { return std::string("seqlab.") + dtype_name(d); })
      .def("__str__", [](Dtype d) { return std::string("seqlab.") + dtype_name(d); })
      .def_property_readonly("is_floating_point", [](Dtype d) { return is_floating(d); })
      .def_property_readonly("is_signed", [](Dtype d) { return d != Dtype::Bool && d != Dtype::UInt8; })
      .def_property_readonly("itemsize", [](Dtype d) { return itemsize(d); });

  py::class_<Node, std::shared_ptr<Node>>(m, "Node", "A recorded op (a tensor's grad_fn).")
      .def("name", [](const Node& n) { return std::string(n.name()); }, "The op's name, as torch's (MulBackward0).")
      .def("__repr__", [](const Node& n) { return "<" + std::string(n.name()) + " object>"; })
      .def_property_readonly("next_functions", [](const Node& n) {
        py::list out;
        for (const Edge& e : n.next_edges) {
          if (e.fn)
            out.append(py::make_tuple(node_object(e.fn), e.input_nr));
          else
            out.append(py::make_tuple(py::none(), 0));
        }
        return py::tuple(out);
      }, "((node, input_nr), ...): where the gradient goes next, one pair per input (None for a constant).")
      // torch: only AccumulateGrad nodes have .variable, the leaf they accumulate into
      .def_property_readonly("variable", [](const Node& n) -> Tensor {
        auto leaf = n.variable();
        if (!leaf) throw py::attribute_error("'" + std::string(n.name()) + "' object has no attribute 'variable'");
        return Tensor(leaf);
      }, "AccumulateGrad only: the leaf tensor whose .grad this node accumulates into.");

  py::class_<TensorImpl, std::shared_ptr<TensorImpl>> cls(m, "Tensor", R"(An n-dimensional array (float32, float64, float16, bfloat16, the integers int64, int32, int16, int8, uint8, or bool) with reverse-mode autograd, as torch.Tensor.
Make one with seqlab.tensor(data), zeros, randn, ...; Tensor(data) and Tensor(*sizes) are torch's legacy
constructors. A tensor that requires grad records the ops applied to it, and backward() fills .grad.)",
      py::dynamic_attr(), py::buffer_protocol());
  // torch.Tensor(...), the legacy constructor: Tensor([1, 2]) (data, as float32), Tensor(2, 3)
  // (uninitialised), Tensor() (empty). seqlab._tensor._legacy_new parses the arguments and makes
  // the tensor; the new Python object gets a handle of its own on the same storage (a fresh one
  // nobody else holds).
  cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) {
    const Tensor made = py::module_::import("seqlab._tensor").attr("_legacy_new")(*args, **kwargs).cast<Tensor>();
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = made.impl()->storage;
    impl->offset = made.impl()->offset;
    impl->shape = made.impl()->shape;
    impl->strides = made.impl()->strides;
    impl->numel = made.impl()->numel;
    impl->dtype = made.impl()->dtype;
    return impl;
  }), "Tensor(data) copies data as float32; Tensor(*sizes) is uninitialised; Tensor() is empty.");
  // x.data = y, as torch's Variable::set_data: x takes y's memory (storage, offset, shape,
  // strides, dtype) and keeps its identity and autograd metadata (requires_grad, grad_fn, .grad,
  // hooks), so a lazy module's placeholder Parameter is materialised in place and an optimizer
  // holding it sees the new data. A leaf's AccumulateGrad is dropped when the shape or dtype
  // changes, so the next graph makes one for the new metadata (an old graph's checks the shape).
  cls.def("_set_data", [](Tensor& self, const Tensor& data) {
    SEQLAB_CHECK_TYPE(!self.requires_grad() || is_floating(data.dtype()),
                      "data set to a tensor that requires gradients must be floating point or complex dtype");
    TensorImpl& x = *self.impl();
    const TensorImpl& y = *data.impl();
    if (x.shape != y.shape || x.dtype != y.dtype) x.grad_accumulator.reset();
    x.storage = y.storage;
    x.offset = y.offset;
    x.shape = y.shape;
    x.strides = y.strides;
    x.numel = y.numel;
    x.dtype = y.dtype;
    x.is_view = false;  // as after .data: autograd does not see x as a view of data's base
    x.view_base = nullptr;
  }, py::arg("data"), "x.data = data: x now shares data's memory, shape and dtype, keeping its own autograd state.");
  cls.def_property_readonly("shape", [](const Tensor& t) { return shape_tuple(t.shape()); }, "The sizes of the dims, a tuple.")
      .def("size", [](const Tensor& t, std::optional<int64_t> dim) -> py::object {
        if (dim) return py::int_(t.size(*dim));
        return shape_tuple(t.shape());
      }, py::arg("dim") = py::none(), "size(): the shape, a tuple; size(dim): the size of that dim.")
      .def("dim", [](const Tensor& t) { return t.dim(); }, "The number of dims.")
      .def("ndimension", [](const Tensor& t) { return t.dim(); }, "The number of dims (dim's other name).")
      .def_property_readonly("ndim", [](const Tensor& t) { return t.dim(); }, "The number of dims.")
      .def("numel", [](const Tensor& t) { return t.numel(); }, "The number of elements, the product of the sizes.")
      .def("nelement", [](const Tensor& t) { return t.numel(); }, "The number of elements (numel's other name).")
      .def("__len__", [](const Tensor& t) {
        if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
        return t.shape()[0];
      })
      .def_property_readonly("dtype", [](const Tensor& t) { return t.dtype(); }, "The element type (seqlab.float32, ...).")
      .def("stride", [](const Tensor& t, std::optional<int64_t> dim) -> py::object {
        if (dim) return py::int_(t.strides()[wrap_dim(*dim, t.dim(), "stride", false)]);
        return shape_tuple(t.strides());
      }, py::arg("dim") = py::none(), "The steps in elements between neighbours along each dim (or along dim).")
      .def("storage_offset", [](const Tensor& t) { return t.offset(); }, "Where the first element sits in the storage, in elements.")
      .def("element_size", [](const Tensor& t) { return itemsize(t.dtype()); }, "The size of one element in bytes.")
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); },
           "The address of the first element.")
      .def("is_contiguous", [](const Tensor& t) { return t.is_contiguous(); },
           "True if the elements lie in memory in row-major order with no gaps.")
      .def("is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); }, "True for float32 and float64.")
      .def_property_readonly("device", [](const Tensor&) { return "cpu"; })
      .def_property_readonly("_version", [](const Tensor& t) { return t.version(); })
      // --- autograd
      .def_property("requires_grad", [](const Tensor& t) { return t.requires_grad(); },
                    [](Tensor& t, bool v) { t.set_requires_grad(v); },
                    "True if autograd records the ops on this tensor (set it on leaves).")
      .def("requires_grad_", [](Tensor& t, bool v) { t.set_requires_grad(v); return t; },
           py::arg("requires_grad") = true, "Set requires_grad in place (leaves only); returns self.")
      .def_property("grad", [](const Tensor& t) { return t.grad(); }, [](Tensor& t, std::optional<Tensor> g) {
        if (g) {
          SEQLAB_CHECK(g->shape() == t.shape(), "assigned grad has data of a different size: ", shape_str(g->shape()),
                       " vs ", shape_str(t.shape()));
          SEQLAB_CHECK_TYPE(g->dtype() == t.dtype(), "assigned grad has data of a different type");
        }
        t.set_grad(g ? *g : Tensor());
      }, "d(loss)/d(self), summed over backward calls: set by backward() on leaves that require grad.")
      .def_property_readonly("grad_fn", [](const Tensor& t) { return node_object(t.grad_fn()); },
                             "The op that made this tensor (None for leaves), whose backward autograd runs.")
      .def_property_readonly("is_leaf", [](const Tensor& t) { return t.is_leaf(); },
                             "True if no recorded op made this tensor: backward() fills its .grad.")
      .def_property_readonly("retains_grad", [](const Tensor& t) { return t.impl()->retains_grad; },
                             "True if retain_grad() was called on this non-leaf.")
      .def("retain_grad", [](Tensor& t) { t.retain_grad(); }, "Keep .grad for this non-leaf tensor too at backward().")
      .def("backward", [](const Tensor& t, std::optional<Tensor> gradient, std::optional<bool> retain_graph) {
        t.backward(gradient ? *gradient : Tensor(), retain_graph.value_or(false));
      }, py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), Release(),
           "Accumulate d(self)/d(leaf), times gradient (needed unless self has one element), into every leaf's\n"
           ".grad by the chain rule, in reverse order of the ops; the graph is freed unless retain_graph.")
      .def("detach", [](const Tensor& t) { return t.detach(); },
           "The same memory as a new leaf without history: autograd does not see through it.")
      .def("detach_", [](Tensor& t) {
        t.impl()->grad_fn = nullptr;
        t.impl()->requires_grad = false;
        return t;
      }, "Cut self from its history in place; returns self.")
      // --- conversions
      .def("item", [](const Tensor& t) -> py::object {
        switch (t.dtype()) {
          case Dtype::Bool: return py::bool_(t.item<bool>());
          case Dtype::Float16:
          case Dtype::BFloat16:
          case Dtype::Float32:
          case Dtype::Float64: return py::float_(t.item<double>());
          default: return py::int_(t.item<int64_t>());
        }
      }, "The value of a one-element tensor as a Python number.")
      .def("__float__", [](const Tensor& t) { return t.item<double>(); })
      .def("__int__", [](const Tensor& t) { return t.item<int64_t>(); })
      .def("__index__", [](const Tensor& t) {
        if (is_floating(t.dtype()))
          throw py::type_error("only integer tensors of a single element can be converted to an index");
        return t.item<int64_t>();
      })
      .def("__bool__", [](const Tensor& t) {
        SEQLAB_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
        return t.item<double>() != 0.0;
      })
      .def("__hash__", [](const py::object& self) { return py::hash(py::int_(reinterpret_cast<uintptr_t>(self.ptr()))); })
      // --- operators
      .def("__matmul__", through_float32("__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }), py::arg("other"), Release(), py::is_operator())
      .def("__neg__", through_float32("__neg__", [](const Tensor& a) { return neg(a); }), Release())
      .def("__abs__", through_float32("__abs__", [](const Tensor& a) { return abs(a); }), Release())
      .def("__invert__", [](const Tensor& a) {
        if (is_floating(a.dtype()))  // (torch's TypeError, from its Python operator)
          throw py::type_error("~ (operator.invert) is only implemented on integer and Boolean-type tensors");
        return bitwise_not(a);
      }, Release())
      .def("__pow__", through_float32("__pow__", [](const Tensor& a, py::handle b) {
        const Tensor out = power(a, b, "__pow__");
        return out.defined() ? py::cast(out) : not_implemented();
      }), py::arg("exponent"), py::is_operator())
      .def("__rpow__", through_float32("__rpow__", [](const Tensor& a, py::handle b) {
        return binary("__rpow__", a, b, true, [](const Tensor& x, const Tensor& y) { return pow(x, y); });
      }), py::arg("other"), py::is_operator());

  // + - * / % // & | ^ << >>: a OP b, b OP a (reflected: 2 - x is sub(2, x)) and a OP= b.
  using Binary = Tensor (*)(const Tensor&, const Tensor&);
  const std::tuple<const char*, const char*, const char*, Binary, InplaceOp> arithmetic[] = {
      {"__add__", "__radd__", "__iadd__", [](const Tensor& x, const Tensor& y) { return add(x, y); }, InplaceOp::Add},
      {"__sub__", "__rsub__", "__isub__", [](const Tensor& x, const Tensor& y) { return sub(x, y); }, InplaceOp::Sub},
      {"__mul__", "__rmul__", "__imul__", [](const Tensor& x, const Tensor& y) { return mul(x, y); }, InplaceOp::Mul},
      {"__truediv__", "__rtruediv__", "__itruediv__", [](const Tensor& x, const Tensor& y) { return div(x, y); },
       InplaceOp::Div},
      // number % x is torch.remainder(number, x), which has no derivative (remainder_scalar_tensor)
      {"__mod__", "__rmod__", "__imod__", [](const Tensor& x, const Tensor& y) { return remainder(x, y); },
       InplaceOp::Remainder},
      {"__floordiv__", "__rfloordiv__", "__ifloordiv__",
       [](const Tensor& x, const Tensor& y) { return floor_divide(x, y); }, InplaceOp::FloorDivide},
      {"__and__", "__rand__", "__iand__", [](const Tensor& x, const Tensor& y) { return bitwise_and(x, y); },
       InplaceOp::BitwiseAnd},
      {"__or__", "__ror__", "__ior__", [](const Tensor& x, const Tensor& y) { return bitwise_or(x, y); },
       InplaceOp::BitwiseOr},
      {"__xor__", "__rxor__", "__ixor__", [](const Tensor& x, const Tensor& y) { return bitwise_xor(x, y); },
       InplaceOp::BitwiseXor},
      {"__lshift__", "__rlshift__", "__ilshift__",
       [](const Tensor& x, const Tensor& y) { return bitwise_left_shift(x, y); }, InplaceOp::LeftShift},
      {"__rshift__", "__rrshift__", "__irshift__",
       [](const Tensor& x, const Tensor& y) { return bitwise_right_shift(x, y); }, InplaceOp::RightShift}};
  for (auto [name, rname, iname, fn, op] : arithmetic) {
    cls.def(name, through_float32(name, [name = name, fn = fn](const Tensor& a, py::handle b) {
      return binary(name, a, b, false, fn);
    }), py::arg("other"), py::is_operator());
    const Binary reflected = op == InplaceOp::Remainder ? &remainder_scalar_tensor : fn;
    if (op != InplaceOp::Div)  // __rtruediv__ is bound below
      cls.def(rname, through_float32(rname, [rname = rname, reflected](const Tensor& a, py::handle b) {
        return binary(rname, a, b, true, reflected);
      }), py::arg("other"), py::is_operator());
    cls.def(iname, through_float32(iname, [iname = iname, op = op](const Tensor& a, py::handle b) {
      return binary(iname, a, b, false, [op](Tensor x, const Tensor& y) { return inplace_binary(x, y, op); });
    }), py::arg("other"), py::is_operator());
  }

  // b / x is x.reciprocal() * b in torch (its Tensor.__rtruediv__): for float16/bfloat16 the reciprocal
  // is rounded to 16 bits before the product, which keeps b in float32
  auto rdiv = through_float32("__rtruediv__", [](const Tensor& a, py::handle b) {
    return binary("__rtruediv__", a, b, true, [](const Tensor& x, const Tensor& y) { return div(x, y); });
  });
  auto reciprocal_of = through_float32("reciprocal", [](const Tensor& a) { return div(scalar_tensor(1.0, a.dtype()), a); });
  auto times = through_float32("__mul__", [](const Tensor& a, py::handle b) {
    return binary("__mul__", a, b, false, [](const Tensor& x, const Tensor& y) { return mul(x, y); });
  });
  cls.def("__rtruediv__", [rdiv, reciprocal_of, times](const Tensor& a, py::handle b) -> py::object {
    if (!is_reduced_float(a.dtype())) return rdiv(a, b);
    return times(reciprocal_of(a), b);
  }, py::arg("other"), py::is_operator());

  const std::pair<const char*, CompareOp> cmps[] = {{"__eq__", CompareOp::Eq}, {"__ne__", CompareOp::Ne},
                                                    {"__lt__", CompareOp::Lt}, {"__le__", CompareOp::Le},
                                                    {"__gt__", CompareOp::Gt}, {"__ge__", CompareOp::Ge}};
  for (auto [name, op] : cmps) {
    auto f = through_float32(name, [name = name, op = op](const Tensor& a, py::handle b) {
      return binary(name, a, b, false, [op](const Tensor& x, const Tensor& y) { return compare(x, y, op); });
    });
    cls.def(name, [f](const Tensor& a, py::handle b) {
      auto [x, y] = common_operands(a, b);  // (float16/bfloat16: both operands in that dtype first)
      return f(x, y);
    }, py::arg("other"), py::is_operator());
  }
}

}  // namespace seqlab::bind
