// Argument errors in PyTorch's words, for every binding at once. When no overload of a binding
// accepts a call, pybind11 raises "narrow(): incompatible function arguments. The following
// argument types are supported: 1. (self: Tensor, dim: typing.SupportsInt | ...) -> Tensor ...";
// a bare .cast<T>() inside a binding raises "Unable to cast Python instance of type <class 'str'>
// to C++ type '?'" (a RuntimeError naming no op). Here every function object of seqlab._core is
// routed through a checked call (checked_fastcall), which leaves successful calls alone and hands
// a failed call's report and arguments to seqlab._args.explain (python/seqlab/_args.py). That
// names the function and the argument, as torch's argument parser does: "narrow(): argument 'dim'
// (position 1) must be int, not float". Tests: tests/test_hardening.py, section 9.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "bind_common.hpp"

namespace seqlab::bind {

namespace {

// pybind11's dispatcher, which every pybind11 function object calls: METH_FASTCALL |
// METH_KEYWORDS since pybind11 3, METH_VARARGS | METH_KEYWORDS before.
using FastcallWithKeywords = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
FastcallWithKeywords pybind_fastcall = nullptr;
PyCFunctionWithKeywords pybind_varargs = nullptr;

// A function pointer as the PyCFunction that PyMethodDef stores, whatever its convention.
template <typename F>
PyCFunction as_method(F f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}
// The function object's `self` (pybind11's record of its overloads) -> the function's name, for
// the reports that do not carry it (failed casts inside a binding).
std::unordered_map<PyObject*, std::string>* names = nullptr;

// Called with a failed call's exception set. The two reports above are replaced by explain's
// TypeError, or the exception it returns (a ValueError for a str UTF-8 cannot encode), if explain
// recognises the call; otherwise, or if explain itself fails, pybind11's
// report stays); every other exception passes untouched. call() gives the call's arguments as a
// tuple and a dict, built only here, on the error path.
template <typename Call>
void explain_failure(PyObject* self, Call call) {
  const bool type_error = PyErr_ExceptionMatches(PyExc_TypeError);
  if (!type_error && !PyErr_ExceptionMatches(PyExc_RuntimeError)) return;
  py::error_already_set report;  // takes the exception
  const std::string text = py::str(report.value());
  if (type_error ? text.find("(): incompatible ") == std::string::npos
                 : text.rfind("Unable to cast Python instance", 0) != 0) {
    report.restore();
    return;
  }
  try {
    const auto name = names->find(self);
    py::object fn = name == names->end() ? py::object(py::none()) : py::object(py::str(name->second));
    auto [args, kwargs] = call();
    py::object message = py::module_::import("seqlab._args").attr("explain")(text, fn, args, kwargs);
    if (!message.is_none()) {  // a message (a TypeError), or an exception to raise as it is
      PyObject* type = PyExceptionInstance_Check(message.ptr()) ? reinterpret_cast<PyObject*>(Py_TYPE(message.ptr()))
                                                                : PyExc_TypeError;
      PyErr_SetObject(type, message.ptr());
      return;
    }
  } catch (py::error_already_set&) {
  }
  report.restore();
}

// NumPy's argument names, which torch's argument parser takes for its own (python_arg_parser.cpp's
// numpy_compatibility_arg_names): sum(x, axis=0, keepdims=True). A call that failed to match and
// used one of them (and not torch's name too) is retried once with torch's names, so successful
// calls never pay for the rule. Python functions get it from seqlab._args.numpy_names.
const std::pair<const char*, const char*> kNumpyNames[] = {{"axis", "dim"}, {"keepdims", "keepdim"}};

// kwnames with NumPy's names replaced by torch's, or null if there is nothing to replace.
py::object torch_kwnames(PyObject* kwnames) {
  const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  auto has = [&](const char* name) {
    for (Py_ssize_t i = 0; i < n; ++i)
      if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), name) == 0) return true;
    return false;
  };
  bool any = false;
  for (auto [numpy_name, name] : kNumpyNames) any = any || (has(numpy_name) && !has(name));
  if (!any) return py::object();
  py::tuple renamed(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    py::object key = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(kwnames, i));
    for (auto [numpy_name, name] : kNumpyNames)
      if (PyUnicode_CompareWithASCIIString(key.ptr(), numpy_name) == 0 && !has(name)) key = py::str(name);
    renamed[i] = key;
  }
  return std::move(renamed);
}

PyObject* checked_fastcall(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* result = pybind_fastcall(self, args, nargs, kwnames);
  py::object renamed;
  if (!result && kwnames && PyErr_ExceptionMatches(PyExc_TypeError)) {
    py::error_already_set first;  // takes the exception while the names are looked at
    renamed = torch_kwnames(kwnames);
    if (renamed) {
      kwnames = renamed.ptr();
      result = pybind_fastcall(self, args, nargs, kwnames);
    } else {
      first.restore();
    }
  }
  if (!result)
    explain_failure(self, [&] {
      py::tuple positional(nargs);
      for (Py_ssize_t i = 0; i < nargs; ++i) positional[i] = py::reinterpret_borrow<py::object>(args[i]);
      py::dict keywords;
      for (Py_ssize_t i = 0; kwnames && i < PyTuple_GET_SIZE(kwnames); ++i)
        keywords[PyTuple_GET_ITEM(kwnames, i)] = py::reinterpret_borrow<py::object>(args[nargs + i]);
      return std::make_pair(positional, keywords);
    });
  return result;
}

PyObject* checked_varargs(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* result = pybind_varargs(self, args, kwargs);
  py::object renamed;
  if (!result && kwargs && PyErr_ExceptionMatches(PyExc_TypeError)) {
    py::error_already_set first;
    py::object names = torch_kwnames(py::tuple(py::reinterpret_borrow<py::dict>(kwargs).attr("keys")()).ptr());
    if (names) {
      py::dict d;
      size_t i = 0;
      for (auto item : py::reinterpret_borrow<py::dict>(kwargs)) d[py::tuple(names)[i++]] = item.second;
      renamed = d;
      kwargs = renamed.ptr();
      result = pybind_varargs(self, args, kwargs);
    } else {
      first.restore();
    }
  }
  if (!result)
    explain_failure(self, [&] {
      return std::make_pair(py::reinterpret_borrow<py::tuple>(args),
                            kwargs ? py::reinterpret_borrow<py::dict>(kwargs) : py::dict());
    });
  return result;
}

// Route f through the checked call if it is a pybind11 function object. `name` overrides the
// function's own (a property's setter has none).
void route_function(PyObject* f, const std::string& name = "") {
  if (!f || !PyCFunction_Check(f)) return;
  PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(f)->m_ml;
  if (pybind_fastcall && def->ml_meth == as_method(pybind_fastcall))
    def->ml_meth = as_method(checked_fastcall);
  else if (pybind_varargs && def->ml_meth == as_method(pybind_varargs))
    def->ml_meth = as_method(checked_varargs);
  else
    return;
  (*names)[PyCFunction_GET_SELF(f)] = name.empty() ? def->ml_name : name;
}

// Every function reachable from `scope` (a module or a class of seqlab._core): module functions,
// methods, static methods, property getters and setters, and those of nested classes and modules.
void route_scope(const py::handle& scope, std::unordered_set<PyObject*>& seen) {
  if (!seen.insert(scope.ptr()).second) return;
  const py::dict members = py::reinterpret_borrow<py::dict>(py::module_::import("builtins").attr("dict")(
      scope.attr("__dict__")));
  for (auto [key, value] : members) {
    PyObject* v = value.ptr();
    if (PyModule_Check(v) || PyType_Check(v)) {
      const char* attr = PyModule_Check(v) ? "__name__" : "__module__";
      if (py::hasattr(value, attr) && py::str(value.attr(attr)).cast<std::string>().rfind("seqlab._core", 0) == 0)
        route_scope(value, seen);
    } else if (PyInstanceMethod_Check(v)) {
      route_function(PyInstanceMethod_GET_FUNCTION(v));
    } else if (PyObject_TypeCheck(v, &PyProperty_Type)) {
      route_function(value.attr("fget").ptr());
      route_function(value.attr("fset").ptr(), py::str(key));
    } else if (PyObject_TypeCheck(v, &PyStaticMethod_Type)) {
      route_function(value.attr("__func__").ptr());
    } else {
      route_function(v);
    }
  }
}

}  // namespace

void install_argument_errors(py::module_& m) {
  // Learn the dispatcher's address (and calling convention) from a function bound in this module.
  PyObject* probe = m.attr("manual_seed").ptr();
  if (!PyCFunction_Check(probe)) return;
  const PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(probe)->m_ml;
  if (def->ml_flags == (METH_FASTCALL | METH_KEYWORDS))
    pybind_fastcall = reinterpret_cast<FastcallWithKeywords>(reinterpret_cast<void (*)()>(def->ml_meth));
  else if (def->ml_flags == (METH_VARARGS | METH_KEYWORDS))
    pybind_varargs = reinterpret_cast<PyCFunctionWithKeywords>(reinterpret_cast<void (*)()>(def->ml_meth));
  else
    return;  // an unknown pybind11: keep its reports
  names = new std::unordered_map<PyObject*, std::string>();  // lives as long as the module
  std::unordered_set<PyObject*> seen;
  route_scope(m, seen);
}

}  // namespace seqlab::bind
