// seqlab._core: the compiled core. Bindings only convert and forward; the Python package
// (python/seqlab) re-exports them with PyTorch's module layout. The argument helpers declared
// in bind_common.hpp (operands, pow's exponent, checked ints, numbers, dims, sizes) are defined here.
#include <cstring>

#include "bind_common.hpp"
#include "seqlab/default_dtype.hpp"
#include "simd/isa.hpp"

namespace seqlab::bind {

void bind_linear_cross_entropy(py::module_& m);  // bind_linear_cross_entropy.cpp: F.linear_cross_entropy's chunks

namespace {

// -1: o is an int below -2^63, 1: at or above 2^64, 0: anything else (torch reads an int
// Scalar as int64, or as uint64 from 2^63 on, and refuses what neither holds).
int outside_64_bits(const py::handle& o) {
  if (!PyLong_Check(o.ptr())) return 0;
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (overflow <= 0) return overflow;
  PyLong_AsUnsignedLongLong(o.ptr());
  if (!PyErr_Occurred()) return 0;
  PyErr_Clear();
  return 1;
}

[[noreturn]] void throw_outside_64_bits(int side, const char* op, const char* arg) {
  // torch's words ("int too big to convert", "can't convert negative int to unsigned") name
  // neither the op nor the argument
  throw std::overflow_error(str_cat(op, "(): argument '", arg, "' is an int ", side < 0 ? "below -2**63" : "of 2**64 or more",
                                    ", outside the 64 bits a Scalar holds (int too big to convert)"));
}

}  // namespace

void check_int_scalar(const py::handle& o, const Tensor& like, const char* op, const char* arg) {
  if (!PyLong_Check(o.ptr()) || PyBool_Check(o.ptr())) return;
  if (const int side = outside_64_bits(o)) throw_outside_64_bits(side, op, arg);
  int overflow = 0;
  PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (overflow > 0 && !is_floating(like.dtype()))  // a uint64 Scalar: a double for floats only
    throw std::runtime_error(str_cat(op, "(): argument '", arg, "': value cannot be converted to type int64_t "
                                     "without overflow"));
}

Tensor operand(const py::handle& o, const Tensor& like, const char* op, const char* arg) {
  // A Python bool is a bool number: it never raises the category (bool tensor + True is bool, as in
  // torch; as an integer it made `mask + True` int64 and `mask % True` an integer remainder).
  if (py::isinstance<py::bool_>(o)) {
    Tensor t = scalar_tensor(o.cast<bool>() ? 1.0 : 0.0, Dtype::Bool);
    t.impl()->is_wrapped_number = true;
    return t;
  }
  if (py::isinstance<py::int_>(o)) {
    check_int_scalar(o, like, op, arg);
    if (is_floating(like.dtype())) return scalar_like(PyLong_AsDouble(o.ptr()), like, true);
    // next to an integer tensor the int stays exact (a double would round 2**62 + 1)
    Tensor t = Tensor::empty({}, Dtype::Int64);
    *t.data<int64_t>() = PyLong_AsLongLong(o.ptr());
    t.impl()->is_wrapped_number = true;
    return t;
  }
  if (py::isinstance<py::float_>(o)) return scalar_like(o.cast<double>(), like, false);
  if (py::isinstance<TensorImpl>(o)) return o.cast<Tensor>();
  // NumPy scalars and 0-d arrays behave like numbers.
  if (py::hasattr(o, "dtype") && py::hasattr(o, "item") && py::hasattr(o, "ndim") && o.attr("ndim").cast<int>() == 0)
    return operand(o.attr("item")(), like, op, arg);
  return Tensor();
}

Tensor operand_arg(const py::handle& o, const Tensor& like, const char* op, const char* arg) {
  Tensor t = operand(o, like, op, arg);
  if (!t.defined())
    throw py::type_error(str_cat(op, "(): argument '", arg, "' must be a Tensor or a number, not ", type_name(o)));
  return t;
}

Tensor power(const Tensor& self, const py::handle& exponent, const char* op) {
  if (py::isinstance<py::int_>(exponent) || py::isinstance<py::float_>(exponent)) {
    check_int_scalar(exponent, self, op, "exponent");
    const double e = exponent.cast<double>();
    // a float exponent makes an integer base float32 (torch's promotion by kind: int16 ** 2.0 is float)
    const bool promote = py::isinstance<py::float_>(exponent) && !is_floating(self.dtype());
    return released([&] { return pow(promote ? to_dtype(self, default_float_dtype()) : self, e); });
  }
  Tensor o = operand(exponent, self, op, "exponent");
  if (!o.defined()) return o;
  return released([&] { return pow(self, o); });
}

std::string type_name(const py::handle& o) {
  if (py::isinstance<TensorImpl>(o)) return "Tensor";
  return py::str(py::type::of(o).attr("__name__"));
}

int64_t int_arg(const py::handle& o, const char* fn, const char* arg) {
  if (!PyFloat_Check(o.ptr()) && PyIndex_Check(o.ptr())) {
    auto i = py::reinterpret_steal<py::object>(PyNumber_Index(o.ptr()));  // fails for a float tensor
    if (i) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
      if (overflow) throw std::overflow_error(str_cat(fn, "(): argument '", arg, "' does not fit in int64"));
      return v;
    }
    PyErr_Clear();
  }
  throw py::type_error(str_cat(fn, "(): argument '", arg, "' must be int, not ", type_name(o)));
}

double number_arg(const py::handle& o, const char* fn, const char* arg) {
  if (const int side = outside_64_bits(o)) throw_outside_64_bits(side, fn, arg);
  if (PyNumber_Check(o.ptr()) && !py::isinstance<TensorImpl>(o)) {
    const double v = PyFloat_AsDouble(o.ptr());
    if (!(v == -1.0 && PyErr_Occurred())) return v;
    PyErr_Clear();
  }
  throw py::type_error(str_cat(fn, "(): argument '", arg, "' must be Number, not ", type_name(o)));
}

namespace {

// A list, tuple or other sequence of ints, as torch's "tuple of ints" arguments take it.
Shape ints_arg(const py::handle& o, const char* fn, const char* arg, const char* expected) {
  if (PyUnicode_Check(o.ptr()) || PyBytes_Check(o.ptr()) || !PySequence_Check(o.ptr()) ||
      py::isinstance<TensorImpl>(o))
    throw py::type_error(str_cat(fn, "(): argument '", arg, "' must be ", expected, ", not ", type_name(o)));
  Shape out;
  size_t pos = 0;
  for (py::handle e : py::reinterpret_borrow<py::sequence>(o)) {
    if (PyFloat_Check(e.ptr()) || !PyIndex_Check(e.ptr()))
      throw py::type_error(str_cat(fn, "(): argument '", arg, "' must be tuple of ints, but found element of type ",
                                   type_name(e), " at pos ", pos));
    out.push_back(int_arg(e, fn, arg));
    ++pos;
  }
  return out;
}

bool is_int_like(const py::handle& o) { return !PyFloat_Check(o.ptr()) && PyIndex_Check(o.ptr()); }

}  // namespace

std::vector<int64_t> dims_arg(const py::handle& o, const char* fn, const char* arg) {
  if (o.is_none()) return {};
  if (is_int_like(o)) return {int_arg(o, fn, arg)};
  return ints_arg(o, fn, arg, "int or tuple of ints");
}

Shape size_arg(const py::handle& o, const char* fn, const char* arg) {
  if (is_int_like(o)) return {int_arg(o, fn, arg)};
  return ints_arg(o, fn, arg, "tuple of ints");
}

Shape size_args(const py::args& args, const char* fn, const char* arg) {
  if (args.size() == 0)  // x.view() is not x.view(()): torch refuses it
    throw py::type_error(str_cat(fn, "() missing 1 required positional arguments: \"", arg, "\""));
  if (args.size() == 1 && !is_int_like(args[0])) return size_arg(args[0], fn, arg);
  return ints_arg(args, fn, arg, "tuple of ints");
}

}  // namespace seqlab::bind

PYBIND11_MODULE(_core, m) {
  m.doc() = "seqlab's C++ core: tensors, autograd and ops";
  // SEQLAB_ISA caps every SIMD dispatcher; a value the CPU lacks or seqlab does not know fails
  // the import (ImportError) with a message naming what the CPU has.
  seqlab::simd::init_isa_from_env();
  // std::domain_error carries dtype problems: TypeError, as PyTorch raises.
  // The core's exceptions as PyTorch raises them (check.hpp): domain_error carries dtype problems,
  // TypeError. Messages are decoded with backslashreplace: one that quotes a damaged file's bytes
  // (an ARPA line that is not UTF-8) must still reach the user, not turn into a UnicodeDecodeError.
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](PyObject* type, const char* what) {
      py::object msg = py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "backslashreplace"));
      PyErr_SetObject(type, msg.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::builtin_exception& e) {  // py::type_error etc., thrown by the bindings
      e.set_error();
    } catch (const seqlab::assertion_error& e) {
      raise(PyExc_AssertionError, e.what());
    } catch (const std::domain_error& e) {
      raise(PyExc_TypeError, e.what());
    } catch (const seqlab::NotImplementedError& e) {
      raise(PyExc_NotImplementedError, e.what());
    } catch (const std::invalid_argument& e) {
      raise(PyExc_ValueError, e.what());
    } catch (const std::out_of_range& e) {
      raise(PyExc_IndexError, e.what());
    } catch (const std::overflow_error& e) {
      raise(PyExc_OverflowError, e.what());
    } catch (const std::bad_alloc& e) {
      raise(PyExc_MemoryError, e.what());
    } catch (const std::runtime_error& e) {
      raise(PyExc_RuntimeError, e.what());
    }
  });
  seqlab::bind::bind_tensor(m);
  seqlab::bind::bind_ops(m);
  seqlab::bind::bind_random(m);
  seqlab::bind::bind_autograd(m);
  seqlab::bind::bind_interop(m);
  seqlab::bind::bind_nn(m);
  seqlab::bind::bind_nn_modules(m);
  seqlab::bind::bind_rnn(m);
  seqlab::bind::bind_attention(m);
  seqlab::bind::bind_positional(m);
  seqlab::bind::bind_seq2seq_attention(m);
  seqlab::bind::bind_kv_cache(m);
  seqlab::bind::bind_transformer(m);
  seqlab::bind::bind_optim(m);
  seqlab::bind::bind_text(m);
  seqlab::bind::bind_lm(m);
  seqlab::bind::bind_word2vec(m);
  seqlab::bind::bind_glove(m);
  seqlab::bind::bind_conv(m);
  seqlab::bind::bind_py_function(m);
  seqlab::bind::bind_scatter(m);
  seqlab::bind::bind_special(m);
  seqlab::bind::bind_lapack(m);
  seqlab::bind::bind_ctc(m);
  seqlab::bind::bind_linear_cross_entropy(m);
  seqlab::bind::install_argument_errors(m);  // last: it reaches every function bound above
}
