// Shared by the binding files: Tensor <-> Python conversion (seqlab.Tensor wraps the
// TensorImpl, so the same tensor is the same Python object), releasing the GIL, and argument
// parsing helpers.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seqlab/seqlab.hpp"
#include "seqlab/text/corpus.hpp"

namespace py = pybind11;

namespace pybind11::detail {
template <>
struct type_caster<seqlab::Tensor> {
  PYBIND11_TYPE_CASTER(seqlab::Tensor, const_name("Tensor"));
  bool load(handle src, bool convert) {
    if (src.is_none()) return false;  // optional tensors are std::optional<Tensor>
    // A lazy module's placeholder (nn.UninitializedParameter/Buffer, the one Python subclass of
    // Tensor) has no data yet: every op refuses it, as torch's __torch_function__ does.
    static PyTypeObject* const tensor_type =
        reinterpret_cast<PyTypeObject*>(get_type_handle(typeid(seqlab::TensorImpl), true).ptr());
    if (Py_TYPE(src.ptr()) != tensor_type && hasattr(reinterpret_cast<PyObject*>(Py_TYPE(src.ptr())), "_uninitialized"))
      throw value_error("Attempted to use an uninitialized parameter in a seqlab op. This error happens when you are "
                        "using a `LazyModule` or explicitly manipulating `UninitializedParameter` objects. When using "
                        "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling "
                        "seqlab functions");
    make_caster<std::shared_ptr<seqlab::TensorImpl>> c;
    if (!c.load(src, convert)) return false;
    value = seqlab::Tensor(cast_op<std::shared_ptr<seqlab::TensorImpl>>(c));
    return static_cast<bool>(value.impl());
  }
  static handle cast(const seqlab::Tensor& t, return_value_policy, handle parent) {
    if (!t.defined()) return none().release();
    return make_caster<std::shared_ptr<seqlab::TensorImpl>>::cast(t.impl_ptr(), return_value_policy::take_ownership,
                                                                  parent);
  }
};
}  // namespace pybind11::detail

#include "bind_reduced_float.hpp"

namespace seqlab::bind {

// Every compute call releases the GIL (DESIGN.md, "Threads"), so other Python threads run while
// seqlab computes. A binding whose arguments and result are plain C++ types takes the call guard
// Release; one that must parse Python objects first (or build them after) wraps only the compute
// in released(f): f runs without the GIL, and its result (or void) is returned with the GIL held
// again, for pybind11 or the caller to cast.
using Release = py::call_guard<py::gil_scoped_release>;
template <class F>
auto released(F&& f) {
  py::gil_scoped_release nogil;
  return f();
}

// An op bound once from one definition as a module function seqlab.NAME(input, ...) (its first
// argument named "input", as torch's) and as the method Tensor.NAME(...); float16 and bfloat16
// arguments are computed in float32 (bind_reduced_float.hpp).
using TensorClass = py::class_<TensorImpl, std::shared_ptr<TensorImpl>>;
template <typename F, typename... Extra>
void both(py::module_& m, TensorClass& cls, const char* name, F f, const Extra&... extra) {
  auto g = through_float32(name, std::move(f));
  cls.def(name, g, extra...);
  m.def(name, g, py::arg("input"), extra...);
}
// An op bound as seqlab.NAME or Tensor.NAME (def_op(cls, ...)) alone, float16 and bfloat16 through float32.
template <typename Scope, typename F, typename... Extra>
void def_op(Scope& scope, const char* name, F f, const Extra&... extra) {
  scope.def(name, through_float32(name, std::move(f)), extra...);
}

// An optional tensor argument (None in Python) as the C++ functionals take it: undefined for None.
using OptTensor = std::optional<Tensor>;
inline Tensor opt(const OptTensor& t) { return t ? *t : Tensor(); }

// A parameter record of the layer functionals (MultiheadAttentionParams, LinearParams, ...) bound
// field by field: a no-argument constructor that takes its fields as keywords, each field a
// read-write attribute (an undefined tensor reads as None, and None clears it), and `fields`, the
// names in order, which the Python modules and the ONNX exporter read instead of listing them.
template <typename C>
class Record {
 public:
  Record(py::module_& m, const char* name, const char* doc) : cls_(m, name, doc), setters_(std::make_shared<Setters>()) {}

  template <typename T>
  Record& field(const char* name, T C::*member) {
    cls_.def_readwrite(name, member);
    add(name, [member](C& c, py::handle v) { c.*member = v.cast<T>(); });
    return *this;
  }
  Record& field(const char* name, Tensor C::*member) {
    cls_.def_property(
        name, [member](const C& c) { return c.*member; },
        [member](C& c, const OptTensor& t) { c.*member = opt(t); });
    add(name, [member](C& c, py::handle v) { c.*member = v.is_none() ? Tensor() : v.template cast<Tensor>(); });
    return *this;
  }
  // A field whose Python value needs converting (a shape, an activation, None for a default):
  // get(const C&) -> the Python value, set(C&, py::handle).
  template <typename Get, typename Set>
  Record& field(const char* name, Get get, Set set) {
    cls_.def_property(name, get, set);
    add(name, set);
    return *this;
  }

  // The constructor and `fields`; call once, after the fields.
  void done() {
    auto setters = setters_;
    cls_.def(py::init([setters](py::kwargs kwargs) {
      C c;
      for (auto [key, value] : kwargs) {
        const std::string name = py::cast<std::string>(key);
        const auto it = setters->find(name);
        if (it == setters->end())
          throw py::type_error(py::str("{}() got an unexpected keyword argument '{}'")
                                   .format(py::type::of<C>().attr("__name__"), name));
        it->second(c, value);
      }
      return c;
    }));
    cls_.attr("fields") = py::tuple(py::cast(names_));
  }

 private:
  using Setters = std::map<std::string, std::function<void(C&, py::handle)>>;
  template <typename S>
  void add(const char* name, S set) {
    names_.push_back(name);
    (*setters_)[name] = [set](C& c, py::handle v) { set(c, v); };
  }
  py::class_<C> cls_;
  std::shared_ptr<Setters> setters_;
  std::vector<std::string> names_;
};

std::string type_name(const py::handle& o);  // "str", "NoneType", "Tensor": torch's spelling (defined below)
Shape size_arg(const py::handle& o, const char* fn, const char* arg);  // an int or a sequence of ints (below)

// An options object as "SGDOptions(lr=0.1, momentum=0.0, ...)": its class name and each of its `fields`.
inline py::str options_repr(const py::object& self) {
  py::list parts;
  for (py::handle key : self.attr("fields")) parts.append(py::str("{}={!r}").format(key, self.attr(key)));
  return py::str("{}({})").format(py::type::of(self).attr("__name__"), py::str(", ").attr("join")(parts));
}

// A C++ module's options struct (nn::LSTMOptions, nn::MultiheadAttentionOptions, ...: SEQLAB_ARG
// fields, seqlab/arg.hpp) bound field by field, each field written once: a read-write property
// per field under the Python keyword's name, a no-argument constructor that also takes the
// fields as keywords (required fields read 0 until set), `fields`, the names in order, and a
// repr. module_init() gives the module's Python constructor its twin's arguments from the same
// list: Module(options), or Module(*args, **kwargs), positional in the fields' order.
//   ModuleOptions<nn::ELUOptions>(c, "ELUOptions").arg("alpha", &O::alpha, &O::alpha).arg(...);
template <typename C>
class ModuleOptions {
 public:
  // make: the options before any field is set (a struct whose constructor takes the required fields).
  ModuleOptions(py::module_& m, const char* name, std::function<C()> make = [] { return C(); })
      : cls_(m, name), setters_(std::make_shared<Setters>()), make_(std::move(make)), name_(name) {
    auto setters = setters_;
    auto make_options = make_;
    cls_.def(py::init([setters, make_options](const py::kwargs& kwargs) {
      const auto name = py::cast<std::string>(py::type::of<C>().attr("__name__"));
      return build(*setters, make_options, name, py::tuple(), kwargs, false);
    }));
    cls_.def("__repr__", &options_repr);
  }

  // arg("dropout", &O::dropout, &O::dropout): a SEQLAB_ARG field's getter and setter.
  template <typename T>
  ModuleOptions& arg(const char* name, const T& (C::*get)() const, C& (C::*set)(T)) {
    arg(name, [get](const C& c) { return (c.*get)(); }, [set](C& c, T v) { (c.*set)(std::move(v)); });
    (*setters_)[name].expected = python_type<T>();
    return *this;
  }
  // A Shape field: an int or a sequence of ints in Python, as torch's layers take sizes; a tuple when read.
  ModuleOptions& shape_arg(const char* name, const Shape& (C::*get)() const, C& (C::*set)(Shape)) {
    const std::string owner = name_;
    return arg(
        name, [get](const C& c) { return py::tuple(py::cast((c.*get)())); },
        [set, owner, name](C& c, py::handle v) { (c.*set)(size_arg(v, owner.c_str(), name)); });
  }
  // The fields a module's Python constructor cannot do without (torch's TypeError when missing).
  ModuleOptions& required(std::initializer_list<const char*> names) {
    for (const char* name : names) setters_->at(name).required = true;
    return *this;
  }
  // A field whose Python value needs converting (an activation, a shape): get(const C&) -> the
  // Python value, set(C&, V) with V what pybind11 converts the value to (py::handle for any).
  template <typename Get, typename Set>
  ModuleOptions& arg(const char* name, Get get, Set set) {
    cls_.def_property(name, get, set);
    names_.push_back(name);
    (*setters_)[name] = {names_.size() - 1, [set](C& c, py::handle v) { set(c, cast_value<Set>(v)); }, "", false};
    cls_.attr("fields") = py::tuple(py::cast(names_));
    return *this;
  }

  // The constructors of module M: M(options) and M(*args, **kwargs) with these fields, named in
  // errors as `module`. `made` runs on each new module (a warning torch's constructor gives);
  // `not_taken`: fields of a struct that several modules share which M's Python twin does not take
  // (LSTM has no nonlinearity), left out of its arguments.
  template <typename M, typename Cls>
  void module_init(Cls& cls, const char* module, std::function<void(const M&)> made = nullptr,
                   std::vector<std::string> not_taken = {}) const {
    cls.def(py::init([made](const C& options) {
      auto m = std::make_shared<M>(options);
      if (made) made(*m);
      return m;
    }), py::arg("options"));
    auto setters = std::make_shared<Setters>(*setters_);
    for (const auto& name : not_taken) setters->erase(name);
    size_t position = 0;  // the others' positions, in order
    for (const auto& name : names_)
      if (setters->count(name)) (*setters)[name].position = position++;
    auto make = make_;
    std::string name = module;
    cls.def(py::init([setters, make, name, made](const py::args& args, const py::kwargs& kwargs) {
      auto m = std::make_shared<M>(build(*setters, make, name, args, kwargs, true));
      if (made) made(*m);
      return m;
    }));
    cls.def_readonly("options", &M::options);
  }

  py::class_<C>& cls() { return cls_; }

 private:
  struct Setter {
    size_t position;
    std::function<void(C&, py::handle)> set;
    std::string expected;  // the Python type, for errors ("" for a converted field)
    bool required;
  };
  template <typename T>
  static std::string python_type() {
    if constexpr (std::is_same_v<T, bool>) return "bool";
    else if constexpr (std::is_integral_v<T>) return "int";
    else if constexpr (std::is_floating_point_v<T>) return "float";
    else if constexpr (std::is_same_v<T, std::string>) return "str";
    else if constexpr (std::is_same_v<T, std::optional<int64_t>>) return "int or None";
    else if constexpr (std::is_same_v<T, std::optional<double>>) return "float or None";
    else return "";
  }
  using Setters = std::map<std::string, Setter>;

  // The setter's second parameter type, for a value of any Python type.
  template <typename Set>
  static auto cast_value(py::handle v) {
    using V = std::decay_t<typename second_arg<decltype(&Set::operator())>::type>;
    if constexpr (std::is_same_v<V, py::handle>) {
      return v;
    } else {
      return v.cast<V>();
    }
  }
  template <typename F>
  struct second_arg;
  template <typename L, typename R, typename A, typename B>
  struct second_arg<R (L::*)(A, B) const> {
    using type = B;
  };

  // Options from Python arguments: positional ones in the fields' order, then keywords; torch's
  // TypeError for an unknown keyword, a repeated one, a value of the wrong type, too many, or (for
  // a module: check_required) a required one missing.
  static C build(const Setters& setters, const std::function<C()>& make, const std::string& fn, const py::tuple& args,
                 const py::kwargs& kwargs, bool check_required) {
    C c = make();
    std::vector<std::string> order(setters.size());
    for (const auto& [name, s] : setters) order[s.position] = name;
    if (args.size() > order.size())
      throw py::type_error(str_cat(fn, "() takes ", order.size(), " arguments but ", args.size(), " were given"));
    auto set = [&](const std::string& name, py::handle v) {
      try {
        setters.at(name).set(c, v);
      } catch (const py::cast_error&) {
        const std::string& expected = setters.at(name).expected;
        throw py::type_error(expected.empty() ? str_cat(fn, "(): argument '", name, "' cannot be ", type_name(v))
                                              : str_cat(fn, "(): argument '", name, "' must be ", expected, ", not ",
                                                        type_name(v)));
      }
    };
    for (size_t i = 0; i < args.size(); ++i) set(order[i], args[i]);
    for (auto [key, value] : kwargs) {
      const std::string name = py::cast<std::string>(key);
      const auto it = setters.find(name);
      if (it == setters.end())
        throw py::type_error(str_cat(fn, "() got an unexpected keyword argument '", name, "'"));
      if (it->second.position < args.size())
        throw py::type_error(str_cat(fn, "() got multiple values for argument '", name, "'"));
      set(name, value);
    }
    if (check_required)
      for (const auto& [name, s] : setters)
        if (s.required && s.position >= args.size() && !kwargs.contains(name.c_str()))
          throw py::type_error(str_cat(fn, "() missing required argument '", name, "'"));
    return c;
  }

  py::class_<C> cls_;
  std::shared_ptr<Setters> setters_;
  std::function<C()> make_;
  std::vector<std::string> names_;
  std::string name_;
};

// A Python number or tensor as an operand next to `like` (PyTorch's wrapped-number rule).
// Returns an undefined Tensor when `o` is neither (operators then return NotImplemented).
// A Python int must be a 64-bit Scalar, as torch reads it (check_int_scalar); `op` and `arg`
// name the call in that error.
Tensor operand(const py::handle& o, const Tensor& like, const char* op, const char* arg = "other");
// The same for a method or function argument: PyTorch's TypeError when `o` is neither,
// "add(): argument 'other' must be a Tensor or a number".
Tensor operand_arg(const py::handle& o, const Tensor& like, const char* op, const char* arg = "other");
// self ** exponent for seqlab.pow, Tensor.pow and __pow__, computed without the GIL: a number
// exponent is pow(self, double), anything else goes through operand(). Undefined when
// `exponent` is neither (the caller raises TypeError or returns NotImplemented).
Tensor power(const Tensor& self, const py::handle& exponent, const char* op = "pow");
// A Python int where torch takes a Scalar: outside [-2^63, 2^64) torch's OverflowError; in
// [2^63, 2^64) (a uint64 Scalar) only a floating `like` takes it (as a double), an integer or
// bool one raises torch's "value cannot be converted to type int64_t without overflow".
// Anything but an int passes.
void check_int_scalar(const py::handle& o, const Tensor& like, const char* op, const char* arg);

// Arguments a binding parses by hand (py::handle, py::args) are converted by these, which raise
// torch's TypeError naming the function and the argument ("view(): argument 'size' must be tuple
// of ints, not str") where a bare .cast<T>() would raise pybind11's "Unable to cast Python
// instance ... to C++ type '?'". Typed arguments pybind11 cannot convert are reported in the
// same words by bind_errors.cpp.
std::string type_name(const py::handle& o);  // "str", "NoneType", "Tensor": torch's spelling
// An int, or anything with __index__ but a float (NumPy integers, 0-d integer tensors).
int64_t int_arg(const py::handle& o, const char* fn, const char* arg);
// A real number: int, float, bool or a NumPy scalar (not a str); an int outside [-2^63, 2^64)
// is torch's OverflowError.
double number_arg(const py::handle& o, const char* fn, const char* arg);
// dim=None / int / sequence of ints -> list of dims (empty = all).
std::vector<int64_t> dims_arg(const py::handle& o, const char* fn, const char* arg = "dim");
// *size varargs (ints, or one sequence of ints) -> Shape.
Shape size_args(const py::args& args, const char* fn, const char* arg = "size");
// An int or a sequence of ints -> Shape.
Shape size_arg(const py::handle& o, const char* fn, const char* arg = "size");
// Route every function of the module through pybind11's dispatcher and then, when a call fails,
// through seqlab._args.explain (bind_errors.cpp). Called last, when every binding exists.
void install_argument_errors(py::module_& m);

void bind_tensor(py::module_& m);
void bind_ops(py::module_& m);
void bind_random(py::module_& m);  // bind_random.cpp: Generator and the random ops
void bind_autograd(py::module_& m);
void bind_interop(py::module_& m);
void bind_nn(py::module_& m);
void bind_nn_modules(py::module_& m);  // bind_nn_modules.cpp: the C++ twins of seqlab.nn's layers
void bind_attention(py::module_& m);  // bind_attention.cpp: scaled_dot_product_attention and its oracle
void bind_positional(py::module_& m);  // bind_positional.cpp: positional schemes inside the attention
void bind_rnn(py::module_& m);  // bind_rnn.cpp: the recurrent functionals and C++ twins (after bind_nn_modules)
// bind_seq2seq_attention.cpp: seq2seq attention and its C++ twin (after bind_nn_modules)
void bind_seq2seq_attention(py::module_& m);
// bind_transformer.cpp: multi-head attention and the Transformer layers, functionals and C++ twins
// (after bind_nn_modules)
void bind_kv_cache(py::module_& m);  // bind_kv_cache.cpp: AttentionCache, KVCache (before bind_transformer)
void bind_transformer(py::module_& m);
void bind_optim(py::module_& m);
void bind_text(py::module_& m);      // bind_text.cpp: corpus encoding
// level='word' / 'char' of seqlab.data and seqlab.lm; ValueError otherwise (bind_text.cpp).
text::Level text_level_arg(const std::string& level);
void bind_lm(py::module_& m);        // bind_lm.cpp: n-gram counting and smoothing
void bind_word2vec(py::module_& m);  // bind_word2vec.cpp: word2vec and FastText training
void bind_glove(py::module_& m);     // bind_glove.cpp: GloVe training
void bind_conv(py::module_& m);      // bind_conv.cpp: convolutions and pooling (seqlab.nn.functional)
// bind_py_function.cpp: torch.autograd.Function's node and Tensor.register_hook; node_object is a
// grad_fn as Python sees it (a Function's ctx for the nodes Function.apply records).
void bind_py_function(py::module_& m);
py::object node_object(const std::shared_ptr<Node>& node);
void bind_scatter(py::module_& m);   // bind_scatter.cpp: scatter, scatter_add, scatter_reduce, index_add/copy/reduce
void bind_special(py::module_& m);   // bind_special.cpp: the gamma family and torch.special's kernels
void bind_lapack(py::module_& m);    // bind_lapack.cpp: torch.linalg's LAPACK ops (after bind_ops)
void bind_ctc(py::module_& m);       // bind_ctc.cpp: torch.ctc_loss (ops/ctc_loss.cpp)

}  // namespace seqlab::bind
