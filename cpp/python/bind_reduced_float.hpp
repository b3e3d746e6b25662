// float16 and bfloat16 through float32, at the binding of each op: torch's CPU kernels load a
// 16-bit float, compute in float32 and round the result once to 16 bits; seqlab's kernels are
// float32 and float64 only, so the binding does the same around the whole op. through_float32(name,
// f) returns f with the same signature, which
//   - finds the float16/bfloat16 tensors among the arguments (a Tensor, an optional or a vector
//     of them, a Python object holding a tensor or a list of tensors), and a float16/bfloat16
//     `dtype=` argument;
//   - if there are none, calls f unchanged (one dtype test per tensor argument);
//   - else calls f with each of them converted to float32 (recorded by autograd, so a gradient
//     reaches the 16-bit tensor rounded to its dtype) and a 16-bit dtype argument replaced by
//     float32, and rounds each float32 tensor of the result to the dtype torch's type promotion
//     gives the tensor arguments (float16 + float16 is float16; float16 + float32 is float32; a
//     float16 tensor with an int64 tensor is float16; a 0-dim float32 with a float16 vector is
//     float16), or to the dtype argument;
//   - for an in-place op (NAME_ or __iNAME__), writes the result into its first tensor argument;
//   - under a float16/bfloat16 default dtype, rounds the float32 results of an op without floating
//     tensor arguments (integers promoted to the default) to it;
//   - rounds an operand that torch casts to the 16-bit result dtype before computing: a 0-dim
//     float32/float64 tensor, and the first Python float among the Python-object arguments (x + 2.7
//     adds 2.7 rounded to float16, as torch's), except for the ops whose CPU kernels keep such a
//     scalar in float32 when it is the second operand (mul, div, floor_divide, lerp, addcmul, addcdiv).
// refusing_reduced / refusing_low_precision wrap an op torch has no 16-bit CPU kernel for (LAPACK):
// it raises torch's exception for a float16/bfloat16 argument instead.
// Results that are not float32 (indices, masks) keep their dtype. Tests: tests/test_half_dtypes.py.
#pragma once
#include <atomic>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace seqlab::bind {

namespace reduced {

// seqlab.set_default_dtype(float16 or bfloat16): the kernels' default stays float32
// (default_float_dtype()), and an op whose tensors are not floating rounds its float32 results
// (int_tensor / 2, exp of ints, where(mask, 1.5, 2.0)) to this dtype, as torch gives them.
inline std::atomic<Dtype> default_dtype_{Dtype::Float32};
inline void set_default_dtype(Dtype d) { default_dtype_.store(d, std::memory_order_relaxed); }
inline std::optional<Dtype> reduced_default() {
  const Dtype d = default_dtype_.load(std::memory_order_relaxed);
  return is_reduced_float(d) ? std::optional<Dtype>(d) : std::nullopt;
}

// What the arguments hold, from a first pass over them.
struct Scan {
  bool any = false;                 // a float16/bfloat16 tensor or dtype argument is present
  std::optional<Dtype> dims, zero;  // torch's result_type, over tensors with dim > 0 and 0-dim ones
  std::optional<Dtype> dtype_arg;   // a `dtype=` argument (any dtype: it decides the result's)
  std::optional<Dtype> first_float;
  bool mixed = false;               // floating tensors of two dtypes

  void tensor(const Tensor& t) {
    if (!t.defined()) return;
    any = any || is_reduced_float(t.dtype());
    if (is_floating(t.dtype())) {
      mixed = mixed || (first_float && *first_float != t.dtype());
      if (!first_float) first_float = t.dtype();
    }
    auto& r = t.dim() > 0 ? dims : zero;
    r = r ? promote(*r, t.dtype()) : t.dtype();
  }
  // The dtype torch's type promotion gives the tensors: the dimensioned tensors' unless only the
  // 0-dim tensors are floating (a higher category wins).
  std::optional<Dtype> result() const {
    if (dtype_arg) return dtype_arg;
    if (dims && (is_floating(*dims) || !zero || !is_floating(*zero))) return dims;
    return zero;
  }
};

inline bool is_tensor(py::handle h) {
  static PyTypeObject* const type =
      reinterpret_cast<PyTypeObject*>(py::detail::get_type_handle(typeid(TensorImpl), true).ptr());
  return PyObject_TypeCheck(h.ptr(), type);
}
inline bool is_dtype(py::handle h) {
  static PyTypeObject* const type =
      reinterpret_cast<PyTypeObject*>(py::detail::get_type_handle(typeid(Dtype), true).ptr());
  return h.ptr() && Py_TYPE(h.ptr()) == type;
}

// Pass 1: what one argument holds.
inline void scan(Scan& s, const Tensor& t) { s.tensor(t); }
inline void scan(Scan& s, const std::optional<Tensor>& t) { if (t) s.tensor(*t); }
inline void scan(Scan& s, const std::vector<Tensor>& v) { for (const Tensor& t : v) s.tensor(t); }
inline void scan(Scan& s, const std::optional<std::vector<Tensor>>& v) { if (v) scan(s, *v); }
inline void scan_dtype(Scan& s, Dtype d) {
  s.dtype_arg = d;
  s.any = s.any || is_reduced_float(d);
}
inline void scan(Scan& s, Dtype d) { scan_dtype(s, d); }
inline void scan(Scan& s, const std::optional<Dtype>& d) { if (d) scan_dtype(s, *d); }
inline void scan_object(Scan& s, py::handle h) {
  if (is_tensor(h)) {
    s.tensor(h.cast<Tensor>());
  } else if (is_dtype(h)) {
    scan_dtype(s, h.cast<Dtype>());
  } else if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) {
    for (py::handle item : h)
      if (is_tensor(item)) s.tensor(item.cast<Tensor>());
  } else if (PyDict_Check(h.ptr())) {  // **kwargs
    for (auto item : py::reinterpret_borrow<py::dict>(h)) scan_object(s, item.second);
  }
}
// The parameter records of the layer functionals (MultiheadAttentionParams, TransformerEncoderLayerParams,
// ...): their tensors are tensor arguments too, a module's 16-bit parameters among them.
template <typename F>
void each_tensor(LinearParams& p, F f) { f(p.weight), f(p.bias); }
template <typename F>
void each_tensor(LayerNormParams& p, F f) { f(p.weight), f(p.bias); }
template <typename F>
void each_tensor(MultiheadAttentionParams& p, F f) {
  for (Tensor* t : {&p.in_proj_weight, &p.q_proj_weight, &p.k_proj_weight, &p.v_proj_weight, &p.in_proj_bias,
                    &p.out_proj_weight, &p.out_proj_bias, &p.bias_k, &p.bias_v})
    f(*t);
  for (auto& [name, t] : p.pos.params) f(t);
}
template <typename F>
void each_tensor(TransformerEncoderLayerParams& p, F f) {
  each_tensor(p.self_attn, f), each_tensor(p.linear1, f), each_tensor(p.linear2, f), each_tensor(p.linear3, f);
  each_tensor(p.norm1, f), each_tensor(p.norm2, f);
}
template <typename F>
void each_tensor(TransformerDecoderLayerParams& p, F f) {
  each_tensor(p.self_attn, f), each_tensor(p.multihead_attn, f), each_tensor(p.linear1, f);
  each_tensor(p.linear2, f), each_tensor(p.linear3, f), each_tensor(p.norm1, f), each_tensor(p.norm2, f);
  each_tensor(p.norm3, f);
}
template <typename T, typename = void>
struct is_record : std::false_type {};
template <typename T>
struct is_record<T, std::void_t<decltype(each_tensor(std::declval<T&>(), std::declval<void (*)(Tensor&)>()))>>
    : std::true_type {};

// A Python object (py::handle, py::object, py::args, py::kwargs): what it holds; any other
// argument (a number, a string, a shape) holds nothing to convert.
template <typename T>
void scan(Scan& s, const T& v) {
  if constexpr (std::is_base_of_v<py::handle, T>)
    scan_object(s, v);
  else if constexpr (is_record<T>::value)
    each_tensor(const_cast<T&>(v), [&](const Tensor& t) { s.tensor(t); });
}


// Pass 2: the argument as f receives it, 16-bit floats as float32. Rounding, while set (for the
// duration of one wrapped call, on this thread), is the 16-bit dtype a 0-dim float operand and the
// first Python float operand are rounded to first.
struct Rounding {
  std::optional<Dtype> to;
  bool number_done = false;
  bool first_tensor_only = false;  // mul, div: a scalar second operand stays in float32, a first one is rounded
  bool tensor_seen = false;
  const Tensor* leaf_self = nullptr;  // an in-place op's self that is (a view of) a leaf requiring grad
};
inline thread_local Rounding* rounding = nullptr;

inline Tensor up(const Tensor& t) {
  if (!t.defined()) return t;
  const bool first = rounding && !std::exchange(rounding->tensor_seen, true);
  if (rounding && rounding->leaf_self && t.impl() == rounding->leaf_self->impl()) {
    // self as a float32 leaf requiring grad, so the op refuses it or not as it does a float32 leaf's
    Tensor leaf = to_dtype(t.detach(), Dtype::Float32);
    leaf.set_requires_grad(true);
    return leaf;
  }
  if (is_reduced_float(t.dtype())) return to_dtype(t, Dtype::Float32);
  if (rounding && rounding->to && t.dim() == 0 && is_floating(t.dtype()) && (first || !rounding->first_tensor_only))
    return to_dtype(to_dtype(t, *rounding->to), Dtype::Float32);
  return t;
}
inline std::optional<Tensor> up(const std::optional<Tensor>& t) { return t ? std::optional<Tensor>(up(*t)) : t; }
inline std::vector<Tensor> up(const std::vector<Tensor>& v) {
  std::vector<Tensor> out;
  out.reserve(v.size());
  for (const Tensor& t : v) out.push_back(up(t));
  return out;
}
inline std::optional<std::vector<Tensor>> up(const std::optional<std::vector<Tensor>>& v) {
  return v ? std::optional<std::vector<Tensor>>(up(*v)) : v;
}
inline Dtype up(Dtype d) { return is_reduced_float(d) ? Dtype::Float32 : d; }
inline std::optional<Dtype> up(const std::optional<Dtype>& d) { return d ? std::optional<Dtype>(up(*d)) : d; }
inline py::object up_object(py::handle h) {
  if (is_tensor(h)) return py::cast(up(h.cast<Tensor>()));
  if (rounding && rounding->to && !rounding->first_tensor_only && !rounding->number_done && PyFloat_Check(h.ptr())) {
    rounding->number_done = true;
    const Tensor r = to_dtype(to_dtype(scalar_tensor(PyFloat_AsDouble(h.ptr()), Dtype::Float64), *rounding->to),
                              Dtype::Float64);
    return py::float_(r.item<double>());
  }
  if (is_dtype(h)) return py::cast(up(h.cast<Dtype>()));
  if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) {
    py::list items;
    for (py::handle item : h) items.append(up_object(item));
    if (PyTuple_Check(h.ptr())) return py::tuple(items);
    return std::move(items);
  }
  if (PyDict_Check(h.ptr())) {
    py::dict out;
    for (auto item : py::reinterpret_borrow<py::dict>(h)) out[item.first] = up_object(item.second);
    return std::move(out);
  }
  return py::reinterpret_borrow<py::object>(h);
}
// A Python object converted (a py::handle is held as an owning py::object for the call), a parameter
// record copied with its tensors converted; any other argument as it is.
template <typename T>
auto up(const T& v) {
  if constexpr (is_record<T>::value) {
    T q = v;
    each_tensor(q, [](Tensor& t) { t = up(t); });
    return q;
  } else if constexpr (std::is_same_v<T, py::handle>)
    return up_object(v);
  else if constexpr (std::is_base_of_v<py::object, T>)
    return py::reinterpret_steal<T>(up_object(v).release());
  else
    return v;
}

// Pass 3: the result with its float32 tensors rounded to `to`.
inline Tensor down(const Tensor& t, Dtype to) {
  return t.defined() && t.dtype() == Dtype::Float32 && to != Dtype::Float32 ? to_dtype(t, to) : t;
}
inline std::vector<Tensor> down(std::vector<Tensor> v, Dtype to) {
  for (Tensor& t : v) t = down(t, to);
  return v;
}
inline std::optional<Tensor> down(std::optional<Tensor> t, Dtype to) { return t ? std::optional<Tensor>(down(*t, to)) : t; }
inline py::object down(const py::object& o, Dtype to) {
  if (is_tensor(o)) return py::cast(down(o.cast<Tensor>(), to));
  if (PyTuple_Check(o.ptr()) || PyList_Check(o.ptr())) {
    py::list items;
    for (py::handle item : o)
      items.append(down(py::reinterpret_borrow<py::object>(item), to));  // nested: (output, (h_n, c_n))
    if (PyList_Check(o.ptr())) return std::move(items);
    if (py::hasattr(o, "_make")) return py::type::handle_of(o).attr("_make")(items);  // a named tuple keeps its type
    if (Py_TYPE(o.ptr()) != &PyTuple_Type) return py::type::handle_of(o)(py::tuple(items));  // values_indices and the like
    return py::tuple(items);
  }
  return o;
}
template <typename... T>
std::tuple<T...> down(std::tuple<T...> r, Dtype to) {
  return std::apply([to](auto&&... x) { return std::tuple<T...>(down(std::move(x), to)...); }, std::move(r));
}
template <typename A, typename B>
std::pair<A, B> down(std::pair<A, B> r, Dtype to) {
  return {down(std::move(r.first), to), down(std::move(r.second), to)};
}
template <typename T>
T down(T v, Dtype to) {
  if constexpr (std::is_base_of_v<py::object, T>)  // a py::tuple, py::list: as a py::object
    return py::reinterpret_steal<T>(down(static_cast<const py::object&>(v), to).release());
  else
    return v;
}

// The first tensor argument: the `self` an in-place op writes into.
inline const Tensor* first_tensor(const Tensor& t) { return &t; }
template <typename T>
const Tensor* first_tensor(const T&) { return nullptr; }

template <typename... P>
const Tensor* first_of(P... p) {
  const Tensor* out = nullptr;
  ((out = out ? out : p), ...);
  return out;
}

// The result r of an in-place op run on self's float32 copy, written back into self; returns
// self in r's place.
// (A view of) a leaf that requires grad, which an in-place op may only fill without recording
// (uniform_, an init function): the op runs on a float32 leaf copy and refuses it as it refuses a
// float32 leaf, or its values are written back without history.
inline bool leaf_or_view_of_leaf(const Tensor& t) {
  if (!GradMode::is_enabled() || !t.requires_grad()) return false;
  if (t.is_leaf()) return true;
  if (!t.impl()->is_view || !t.impl()->view_base) return false;
  const Tensor base(t.impl()->view_base);
  return base.is_leaf() && base.requires_grad();
}

inline Tensor write_back(const Tensor& self, const Tensor& r, bool leaf) {
  Tensor s = self;
  if (r.defined() && r.impl() != self.impl()) {
    if (leaf) {
      NoGradGuard no_grad;
      copy_(s, r);
    } else {
      copy_(s, r);
    }
  }
  return self;
}
inline py::object write_back(const Tensor& self, const py::object& r, bool leaf) {
  if (is_tensor(r)) return py::cast(write_back(self, r.cast<Tensor>(), leaf));
  return r;
}

template <typename F> struct fn_traits : fn_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... A> struct fn_traits<R (C::*)(A...) const> { using sig = R (*)(A...); };
template <typename C, typename R, typename... A> struct fn_traits<R (C::*)(A...)> { using sig = R (*)(A...); };
template <typename R, typename... A> struct fn_traits<R (*)(A...)> { using sig = R (*)(A...); };

template <typename F, typename R, typename... A>
auto wrap(const char* name, F f, R (*)(A...)) {
  const std::string n = name;
  static const char* const augmented[] = {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__imod__",
                                          "__ifloordiv__", "__iand__", "__ior__", "__ixor__", "__ilshift__",
                                          "__irshift__", "__ipow__", "__imatmul__"};
  bool inplace = n.size() > 1 && n.back() == '_' && n[n.size() - 2] != '_';
  for (const char* a : augmented) inplace = inplace || n == a;
  // torch's CPU kernels of these take a scalar operand in float32 instead of casting it to 16 bits
  static const char* const exact_scalar[] = {"mul", "mul_", "multiply", "multiply_", "__mul__", "__rmul__",
                                             "__imul__", "div", "div_", "divide", "divide_", "true_divide",
                                             "true_divide_", "__truediv__", "__itruediv__", "floor_divide",
                                             "floor_divide_", "__floordiv__", "__rfloordiv__", "__ifloordiv__",
                                             "lerp", "lerp_", "addcmul", "addcmul_", "addcdiv", "addcdiv_"};
  bool round_scalars = true;
  for (const char* e : exact_scalar) round_scalars = round_scalars && n != e;
  // torch's matrix products and convolutions take no mixed dtypes: for float16 with float32 the op
  // gets its arguments unconverted, so that its own check refuses them
  static const char* const same_dtype[] = {"matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "addmm", "addbmm",
                                           "baddbmm", "addmv", "mv", "dot", "vdot", "linear", "bilinear",
                                           "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"};
  bool refuse_mixed = false;
  for (const char* e : same_dtype) refuse_mixed = refuse_mixed || n == e;
  return [f = std::move(f), inplace, round_scalars, refuse_mixed](A... a) -> R {
    Scan s;
    (scan(s, a), ...);
    if (!s.any) {
      const std::optional<Dtype> dflt = reduced_default();
      const std::optional<Dtype> kind = s.result();
      if constexpr (!std::is_void_v<R>)
        if (dflt && !(kind && is_floating(*kind))) return down(f(std::forward<A>(a)...), *dflt);
      return f(std::forward<A>(a)...);
    }
    if (refuse_mixed && s.mixed) return f(std::forward<A>(a)...);
    const std::optional<Dtype> to = s.result();
    const Tensor* self = nullptr;
    if (inplace) ((self = self ? self : first_tensor(a)), ...);
    const bool write = self && is_reduced_float(self->dtype());
    const bool leaf = write && leaf_or_view_of_leaf(*self);
    Rounding round;
    if (to && is_reduced_float(*to)) round.to = to, round.first_tensor_only = !round_scalars;
    if (leaf) round.leaf_self = self;
    Rounding* const outer = std::exchange(rounding, &round);
    std::optional<std::tuple<std::decay_t<decltype(up(a))>...>> holder;
    try {
      holder.emplace(std::tuple<std::decay_t<decltype(up(a))>...>{up(a)...});  // braces: left to right
    } catch (...) {
      rounding = outer;
      throw;
    }
    rounding = outer;
    auto& converted = *holder;
    if constexpr (std::is_void_v<R>) {
      std::apply(f, converted);
      if (write)
        std::apply([&](const auto&... c) { write_back(*self, *first_of(first_tensor(c)...), leaf); }, converted);
    } else {
      R r = std::apply(f, converted);
      if constexpr (std::is_same_v<R, Tensor> || std::is_same_v<R, py::object>)
        if (write) return write_back(*self, r, leaf);
      if (to && is_reduced_float(*to)) return down(std::move(r), *to);
      return r;
    }
  };
}

template <typename F, typename R, typename... A>
auto refuse(std::string message, bool runtime, F f, R (*)(A...)) {
  return [f = std::move(f), message = std::move(message), runtime](A... a) -> R {
    Scan s;
    (scan(s, a), ...);
    if (s.any) {
      const std::optional<Dtype> d = s.dims ? s.dims : s.zero;
      const char* name = scalar_type_name(d && is_reduced_float(*d) ? *d : Dtype::Float16);
      if (runtime) throw std::runtime_error(message + name);
      throw NotImplementedError("\"" + message + "\" not implemented for '" + name + "'");
    }
    return f(std::forward<A>(a)...);
  };
}

}  // namespace reduced

// torch's comparison kernels read both operands in their common dtype: where that is float16 or
// bfloat16, the other operand (a number, or a tensor of another dtype) is rounded to it first, so
// x_half == 2049 compares with 2048 and bf16(1/3) <= 1/3 holds; then the comparison runs in float32.
inline std::pair<Tensor, py::object> common_operands(const Tensor& a, py::handle b) {
  if (reduced::is_tensor(b)) {
    const Tensor o = b.cast<Tensor>();
    if (!is_reduced_float(a.dtype()) && !is_reduced_float(o.dtype())) return {a, py::reinterpret_borrow<py::object>(b)};
    reduced::Scan s;
    s.tensor(a);
    s.tensor(o);
    const std::optional<Dtype> to = s.result();
    if (!to || !is_reduced_float(*to)) return {a, py::reinterpret_borrow<py::object>(b)};
    return {to_dtype(a, *to), py::cast(to_dtype(o, *to))};
  }
  int overflow = 0;  // (an int beyond 64 bits goes on to the op's own OverflowError)
  const bool number = PyFloat_Check(b.ptr()) ||
                      (PyLong_Check(b.ptr()) && (PyLong_AsLongLongAndOverflow(b.ptr(), &overflow), overflow == 0));
  if (!is_reduced_float(a.dtype()) || !number) return {a, py::reinterpret_borrow<py::object>(b)};
  // (double -> 16 bits through float, as c10's conversion)
  return {a, py::cast(to_dtype(scalar_tensor(b.cast<double>(), Dtype::Float64), a.dtype()))};
}

// f (a lambda or a function pointer) with float16/bfloat16 arguments computed in float32.
template <typename F>
auto through_float32(const char* name, F f) {
  return reduced::wrap(name, std::move(f), typename reduced::fn_traits<std::decay_t<F>>::sig{});
}

// f refusing float16/bfloat16 tensor arguments where torch's CPU kernel has none (its LAPACK ops):
// NotImplementedError "\"kernel\" not implemented for 'Half'", as torch's dispatcher says, before f
// could read 16-bit elements.
template <typename F>
auto refusing_reduced(const char* kernel, F f) {
  return reduced::refuse(kernel, false, std::move(f), typename reduced::fn_traits<std::decay_t<F>>::sig{});
}
// The same with torch's RuntimeError "op: Low precision dtypes not supported. Got Half" (linalg.inv,
// slogdet, logdet check the dtype before dispatching).
template <typename F>
auto refusing_low_precision(const char* op, F f) {
  return reduced::refuse(std::string(op) + ": Low precision dtypes not supported. Got ", true, std::move(f),
                         typename reduced::fn_traits<std::decay_t<F>>::sig{});
}

}  // namespace seqlab::bind
