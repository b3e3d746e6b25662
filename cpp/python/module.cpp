// seqlab._core: the compiled core. Bindings only convert and forward; the Python package
// (python/seqlab) re-exports them with PyTorch's module layout. The argument helpers declared
// in bind_common.hpp (operands, pow's exponent, dims, sizes) are defined here.
#include "bind_common.hpp"

namespace seqlab::bind {

Tensor operand(const py::handle& o, const Tensor& like) {
  if (py::isinstance<py::bool_>(o)) return scalar_like(o.cast<bool>() ? 1.0 : 0.0, like, true);
  if (py::isinstance<py::int_>(o)) return scalar_like(static_cast<double>(o.cast<int64_t>()), like, true);
  if (py::isinstance<py::float_>(o)) return scalar_like(o.cast<double>(), like, false);
  if (py::isinstance<TensorImpl>(o)) return o.cast<Tensor>();
  // NumPy scalars and 0-d arrays behave like numbers.
  if (py::hasattr(o, "dtype") && py::hasattr(o, "item") && py::hasattr(o, "ndim") && o.attr("ndim").cast<int>() == 0)
    return operand(o.attr("item")(), like);
  return Tensor();
}

Tensor operand_arg(const py::handle& o, const Tensor& like, const char* op, const char* arg) {
  Tensor t = operand(o, like);
  if (!t.defined())
    throw py::type_error(std::string(op) + "(): argument '" + arg + "' must be a Tensor or a number");
  return t;
}

Tensor power(const Tensor& self, const py::handle& exponent) {
  if (py::isinstance<py::int_>(exponent) || py::isinstance<py::float_>(exponent)) {
    const double e = exponent.cast<double>();
    return released([&] { return pow(self, e); });
  }
  Tensor o = operand(exponent, self);
  if (!o.defined()) return o;
  return released([&] { return pow(self, o); });
}

double number_arg(const py::handle& o, const char* op, const char* arg) {
  if (py::isinstance<py::bool_>(o) || py::isinstance<py::int_>(o) || py::isinstance<py::float_>(o))
    return o.cast<double>();
  if (py::hasattr(o, "dtype") && py::hasattr(o, "item") && py::hasattr(o, "ndim") && o.attr("ndim").cast<int>() == 0 &&
      !py::isinstance<TensorImpl>(o))
    return number_arg(o.attr("item")(), op, arg);
  throw py::type_error(std::string(op) + "(): argument '" + arg + "' must be Number, not " +
                       py::type::of(o).attr("__name__").cast<std::string>());
}

std::vector<int64_t> dims_arg(const py::handle& o) {
  if (o.is_none()) return {};
  if (py::isinstance<py::int_>(o)) return {o.cast<int64_t>()};
  return o.cast<std::vector<int64_t>>();
}

Shape size_arg(const py::handle& o) {
  if (py::isinstance<py::int_>(o)) return {o.cast<int64_t>()};
  return o.cast<std::vector<int64_t>>();
}

Shape size_args(const py::args& args) {
  if (args.size() == 1 && !py::isinstance<py::int_>(args[0])) return size_arg(args[0]);
  Shape s;
  for (auto a : args) {
    if (!py::isinstance<py::int_>(a))
      throw py::type_error("size must be a sequence of ints or ints, got " + std::string(py::str(py::type::of(a))));
    s.push_back(a.cast<int64_t>());
  }
  return s;
}

}  // namespace seqlab::bind

PYBIND11_MODULE(_core, m) {
  m.doc() = "seqlab's C++ core: tensors, autograd and ops";
  // std::domain_error carries dtype problems: TypeError, as PyTorch raises.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::domain_error& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    }
  });
  seqlab::bind::bind_tensor(m);
  seqlab::bind::bind_ops(m);
  seqlab::bind::bind_autograd(m);
  seqlab::bind::bind_interop(m);
  seqlab::bind::bind_nn(m);
  seqlab::bind::bind_nn_modules(m);
  seqlab::bind::bind_optim(m);
  seqlab::bind::bind_text(m);
  seqlab::bind::bind_lm(m);
  seqlab::bind::bind_word2vec(m);
  seqlab::bind::bind_glove(m);
}
