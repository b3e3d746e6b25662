// The ops, each bound twice from one definition: as seqlab.NAME(input, ...) and as the
// method Tensor.NAME(...), with PyTorch's argument names and defaults.
#include "bind_common.hpp"
#include "simd/vec_math.hpp"

namespace seqlab::bind {
namespace {

py::class_<TensorImpl, std::shared_ptr<TensorImpl>> tensor_class(py::module_& m) {
  return py::reinterpret_borrow<py::class_<TensorImpl, std::shared_ptr<TensorImpl>>>(m.attr("Tensor"));
}

// Bind f as a module function (first argument named "input") and as a Tensor method.
template <typename F, typename... Extra>
void both(py::module_& m, py::class_<TensorImpl, std::shared_ptr<TensorImpl>>& cls, const char* name, F f,
          const Extra&... extra) {
  cls.def(name, f, extra...);
  m.def(name, f, py::arg("input"), extra...);
}

// torch.norm's p: a number is linalg.vector_norm's ord, and so is 'fro' (ord 2) over at most two
// dims, as torch.norm does; torch sends other strings ('nuc') to linalg.matrix_norm.
double norm_ord(const py::handle& p, const std::vector<int64_t>& dims) {
  if (p.is_none()) return 2.0;
  if (!py::isinstance<py::str>(p)) return number_arg(p, "norm", "p");
  const std::string s = p.cast<std::string>();
  if (s == "fro") {
    SEQLAB_CHECK(dims.size() <= 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dims.size(), " dims");
    return 2.0;
  }
  SEQLAB_CHECK(s != "nuc", "norm(): p='nuc' (the nuclear norm, a sum of singular values) is not supported by seqlab");
  SEQLAB_CHECK(false, "linalg.matrix_norm: Order ", s, " not supported.");
  return 0;
}

py::object values_indices(const py::module_& m, std::pair<Tensor, Tensor> r) {
  return m.attr("_values_indices")(py::cast(r.first), py::cast(r.second));
}

}  // namespace

void bind_ops(py::module_& m) {
  auto cls = tensor_class(m);
  // ------------------------------------------------------------ elementwise
  // self OP other, `other` a tensor or a number (operand_arg).
  using AlphaOp = Tensor (*)(const Tensor&, const Tensor&, double);
  for (auto [name, fn] : {std::pair<const char*, AlphaOp>{"add", &add}, {"sub", &sub}})
    both(m, cls, name, [name = name, fn = fn](const Tensor& a, py::handle b, double alpha) {
      const Tensor o = operand_arg(b, a, name);
      return released([&] { return fn(a, o, alpha); });
    }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1.0);
  auto def_binary = [&](const char* name, Tensor (*fn)(const Tensor&, const Tensor&)) {
    both(m, cls, name, [fn, name](const Tensor& a, py::handle b) {
      const Tensor o = operand_arg(b, a, name);
      return released([&] { return fn(a, o); });
    }, py::arg("other"));
  };
  def_binary("mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); });
  def_binary("div", [](const Tensor& a, const Tensor& b) { return div(a, b); });
  def_binary("true_divide", [](const Tensor& a, const Tensor& b) { return div(a, b); });
  def_binary("maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); });
  def_binary("minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); });
  def_binary("eq", [](const Tensor& a, const Tensor& b) { return compare(a, b, CompareOp::Eq); });
  def_binary("ne", [](const Tensor& a, const Tensor& b) { return compare(a, b, CompareOp::Ne); });
  def_binary("lt", [](const Tensor& a, const Tensor& b) { return compare(a, b, CompareOp::Lt); });
  def_binary("le", [](const Tensor& a, const Tensor& b) { return compare(a, b, CompareOp::Le); });
  def_binary("gt", [](const Tensor& a, const Tensor& b) { return compare(a, b, CompareOp::Gt); });
  def_binary("ge", [](const Tensor& a, const Tensor& b) { return compare(a, b, CompareOp::Ge); });
  def_binary("logical_and", [](const Tensor& a, const Tensor& b) { return logical_and(a, b); });
  def_binary("logical_or", [](const Tensor& a, const Tensor& b) { return logical_or(a, b); });
  def_binary("logical_xor", [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); });
  def_binary("fmod", [](const Tensor& a, const Tensor& b) { return fmod(a, b); });
  // torch.remainder also takes a number as its input (remainder(2, x), as 2 % x): torch records
  // no derivative for that form (remainder_scalar_tensor).
  cls.def("remainder", [](const Tensor& a, py::handle b) {
    const Tensor o = operand_arg(b, a, "remainder");
    return released([&] { return remainder(a, o); });
  }, py::arg("other"));
  m.def("remainder", [](py::handle a, py::handle b) {
    if (py::isinstance<TensorImpl>(a)) {
      const Tensor x = a.cast<Tensor>(), o = operand_arg(b, x, "remainder");
      return released([&] { return remainder(x, o); });
    }
    if (!py::isinstance<TensorImpl>(b))
      throw py::type_error("remainder(): argument 'input' (position 1) must be Tensor, not " + type_name(a));
    const Tensor y = b.cast<Tensor>(), n = operand_arg(a, y, "remainder", "input");
    return released([&] { return remainder_scalar_tensor(n, y); });
  }, py::arg("input"), py::arg("other"));
  both(m, cls, "pow", [](const Tensor& a, py::handle exponent) {
    const Tensor out = power(a, exponent);
    if (!out.defined())
      throw py::type_error("pow(): argument 'exponent' must be a Tensor or a number, not " + type_name(exponent));
    return out;
  }, py::arg("exponent"));
  m.def("where", [](const Tensor& cond, py::handle a, py::handle b) {
    Tensor ta = py::isinstance<TensorImpl>(a) ? a.cast<Tensor>() : Tensor();
    Tensor tb = py::isinstance<TensorImpl>(b) ? b.cast<Tensor>() : Tensor();
    const Tensor& like = ta.defined() ? ta : (tb.defined() ? tb : scalar_tensor(0.0, Dtype::Float32));
    if (!ta.defined()) ta = operand_arg(a, like, "where", "input");
    if (!tb.defined()) tb = operand_arg(b, like, "where", "other");
    return released([&] { return where(cond, ta, tb); });
  }, py::arg("condition"), py::arg("input"), py::arg("other"));
  cls.def("where", [](const Tensor& self, const Tensor& cond, py::handle other) {
    const Tensor o = operand_arg(other, self, "where");
    return released([&] { return where(cond, self, o); });
  }, py::arg("condition"), py::arg("other"));

  both(m, cls, "neg", [](const Tensor& x) { return neg(x); }, Release());
  both(m, cls, "negative", [](const Tensor& x) { return neg(x); }, Release());
  both(m, cls, "exp", [](const Tensor& x) { return exp(x); }, Release());
  both(m, cls, "log", [](const Tensor& x) { return log(x); }, Release());
  both(m, cls, "sqrt", [](const Tensor& x) { return sqrt(x); }, Release());
  both(m, cls, "abs", [](const Tensor& x) { return abs(x); }, Release());
  both(m, cls, "logical_not", [](const Tensor& x) { return logical_not(x); }, Release());
  both(m, cls, "tanh", [](const Tensor& x) { return tanh(x); }, Release());
  both(m, cls, "sigmoid", [](const Tensor& x) { return sigmoid(x); }, Release());
  both(m, cls, "relu", [](const Tensor& x) { return relu(x); }, Release());
  both(m, cls, "clamp", [](const Tensor& x, std::optional<double> lo, std::optional<double> hi) { return clamp(x, lo, hi); },
       py::arg("min") = py::none(), py::arg("max") = py::none(), Release());
  both(m, cls, "clip", [](const Tensor& x, std::optional<double> lo, std::optional<double> hi) { return clamp(x, lo, hi); },
       py::arg("min") = py::none(), py::arg("max") = py::none(), Release());
  cls.def("clamp_", [](Tensor& x, std::optional<double> lo, std::optional<double> hi) { return clamp_(x, lo, hi); },
          py::arg("min") = py::none(), py::arg("max") = py::none(), Release());
  // sin .. frac, each as seqlab.f(x), x.f() and the in-place x.f_().
  using Unary = Tensor (*)(const Tensor&);
  const std::tuple<const char*, const char*, Unary, UnaryOp> unary[] = {
      {"sin", "sin_", [](const Tensor& x) { return sin(x); }, UnaryOp::Sin},
      {"cos", "cos_", [](const Tensor& x) { return cos(x); }, UnaryOp::Cos},
      {"tan", "tan_", [](const Tensor& x) { return tan(x); }, UnaryOp::Tan},
      {"log2", "log2_", [](const Tensor& x) { return log2(x); }, UnaryOp::Log2},
      {"log10", "log10_", [](const Tensor& x) { return log10(x); }, UnaryOp::Log10},
      {"log1p", "log1p_", [](const Tensor& x) { return log1p(x); }, UnaryOp::Log1p},
      {"expm1", "expm1_", [](const Tensor& x) { return expm1(x); }, UnaryOp::Expm1},
      {"sign", "sign_", [](const Tensor& x) { return sign(x); }, UnaryOp::Sign},
      {"floor", "floor_", [](const Tensor& x) { return floor(x); }, UnaryOp::Floor},
      {"ceil", "ceil_", [](const Tensor& x) { return ceil(x); }, UnaryOp::Ceil},
      {"trunc", "trunc_", [](const Tensor& x) { return trunc(x); }, UnaryOp::Trunc},
      {"frac", "frac_", [](const Tensor& x) { return frac(x); }, UnaryOp::Frac}};
  for (auto [name, inplace_name, fn, op] : unary) {
    both(m, cls, name, fn, Release());
    cls.def(inplace_name, [op = op](Tensor& x) -> Tensor { return inplace_unary(x, op); }, Release());
  }
  // torch.round(input, *, decimals=0): an explicit decimals is torch's round.decimals overload.
  both(m, cls, "round", [](const Tensor& x, std::optional<int64_t> decimals) { return round(x, decimals); },
       py::kw_only(), py::arg("decimals") = py::none(), Release());
  cls.def("round_", [](Tensor& x, std::optional<int64_t> decimals) -> Tensor {
    return inplace_unary(x, UnaryOp::Round, decimals);
  }, py::kw_only(), py::arg("decimals") = py::none(), Release());

  // ------------------------------------------------------------ in place
  auto def_inplace = [&](const char* name, InplaceOp op) {
    cls.def(name, [op, name](Tensor& self, py::handle other, double alpha) -> Tensor {
      const Tensor o = operand_arg(other, self, name);
      return released([&] { return inplace_binary(self, o, op, alpha); });
    }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1.0);
  };
  def_inplace("add_", InplaceOp::Add);
  def_inplace("sub_", InplaceOp::Sub);
  def_inplace("mul_", InplaceOp::Mul);
  def_inplace("div_", InplaceOp::Div);
  for (auto [name, op] :
       {std::pair<const char*, InplaceOp>{"remainder_", InplaceOp::Remainder}, {"fmod_", InplaceOp::Fmod}})
    cls.def(name, [op = op, name = name](Tensor& self, py::handle other) -> Tensor {
      const Tensor o = operand_arg(other, self, name);
      return released([&] { return inplace_binary(self, o, op); });
    }, py::arg("other"));
  cls.def("zero_", [](Tensor& x) -> Tensor { return zero_(x); }, Release());
  cls.def("fill_", [](Tensor& x, double v) -> Tensor { return fill_(x, v); }, py::arg("value"), Release());
  cls.def("copy_", [](Tensor& x, const Tensor& src) -> Tensor { return copy_(x, src); }, py::arg("src"), Release());
  cls.def("masked_fill_", [](Tensor& x, const Tensor& mask, double v) -> Tensor { return masked_fill_(x, mask, v); },
          py::arg("mask"), py::arg("value"), Release());
  cls.def("scatter_add_", [](Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) -> Tensor {
    return scatter_add_(x, dim, index, src);
  }, py::arg("dim"), py::arg("index"), py::arg("src"), Release());
  m.def("_index_put", [](const Tensor& x, std::vector<std::optional<Tensor>> idx, const Tensor& v, bool acc) {
    TensorList l;
    for (auto& i : idx) l.push_back(i ? *i : Tensor());
    return index_put(x, l, v, acc);
  }, Release());
  cls.def("_rebase", [](Tensor& self, const Tensor& result) { rebase_history(self, result, "setitem"); }, Release());
  cls.def("_index_put_", [](Tensor& x, std::vector<std::optional<Tensor>> idx, const Tensor& v, bool acc) -> Tensor {
    TensorList l;
    for (auto& i : idx) l.push_back(i ? *i : Tensor());
    return index_put_(x, l, v, acc);
  }, Release());

  // ------------------------------------------------------------ copies and dtypes
  both(m, cls, "clone", [](const Tensor& x) { return clone(x); }, Release());
  cls.def("contiguous", [](const Tensor& x) { return contiguous(x); }, Release());
  cls.def("to", [](const Tensor& x, Dtype d) { return to_dtype(x, d); }, py::arg("dtype"), Release());
  cls.def("type", [](const Tensor& x, Dtype d) { return to_dtype(x, d); }, py::arg("dtype"), Release());
  cls.def("float", [](const Tensor& x) { return to_dtype(x, Dtype::Float32); }, Release());
  cls.def("double", [](const Tensor& x) { return to_dtype(x, Dtype::Float64); }, Release());
  cls.def("long", [](const Tensor& x) { return to_dtype(x, Dtype::Int64); }, Release());
  cls.def("int", [](const Tensor& x) { return to_dtype(x, Dtype::Int32); }, Release());
  cls.def("short", [](const Tensor& x) { return to_dtype(x, Dtype::Int16); }, Release());
  cls.def("char", [](const Tensor& x) { return to_dtype(x, Dtype::Int8); }, Release());
  cls.def("byte", [](const Tensor& x) { return to_dtype(x, Dtype::UInt8); }, Release());
  cls.def("bool", [](const Tensor& x) { return to_dtype(x, Dtype::Bool); }, Release());

  // ------------------------------------------------------------ reductions
  // `keepdims` is accepted as PyTorch accepts it (NumPy's spelling, common in course code).
  both(m, cls, "sum", [](const Tensor& x, py::object dim, bool keepdim, std::optional<Dtype> dtype, bool keepdims) {
    const auto dims = dims_arg(dim, "sum");
    // (an integer sum is computed in int64 and then given the asked dtype: the same value modulo 2^bits)
    return released([&] {
      const Tensor s = sum(dtype ? to_dtype(x, *dtype) : x, dims, keepdim || keepdims);
      return dtype ? to_dtype(s, *dtype) : s;
    });
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("keepdims") = false);
  both(m, cls, "mean", [](const Tensor& x, py::object dim, bool keepdim, std::optional<Dtype> dtype, bool keepdims) {
    const auto dims = dims_arg(dim, "mean");
    return released([&] { return mean(dtype ? to_dtype(x, *dtype) : x, dims, keepdim || keepdims); });
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("keepdims") = false);
  both(m, cls, "var", [](const Tensor& x, py::object dim, std::optional<bool> unbiased, bool keepdim,
                         std::optional<double> correction, bool keepdims) {
    const auto dims = dims_arg(dim, "var");
    const double c = correction ? *correction : (unbiased.value_or(true) ? 1.0 : 0.0);
    return released([&] { return var(x, dims, c, keepdim || keepdims); });
  }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
     py::arg("correction") = py::none(), py::arg("keepdims") = false);
  // torch.norm / Tensor.norm: p = 'fro' (the default) or a number, both linalg.vector_norm's ord.
  both(m, cls, "norm", [](const Tensor& x, py::object p, py::object dim, bool keepdim, std::optional<Dtype> dtype) {
    const auto dims = dims_arg(dim, "norm");
    const double ord = norm_ord(p, dims);
    return released([&] { return vector_norm(x, ord, dims, keepdim, dtype); });
  }, py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("dtype") = py::none());
  py::module_ linalg = m.def_submodule("linalg", "torch.linalg's names (python/seqlab/linalg.py re-exports them)");
  linalg.def("vector_norm", [](const Tensor& x, py::object ord, py::object dim, bool keepdim,
                               std::optional<Dtype> dtype) {
    const auto dims = dims_arg(dim, "linalg.vector_norm");
    const double o = number_arg(ord, "linalg.vector_norm", "ord");
    return released([&] { return vector_norm(x, o, dims, keepdim, dtype); });
  }, py::arg("x"), py::arg("ord") = 2, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
     py::arg("dtype") = py::none());
  auto def_extreme = [&](const char* name, bool is_max) {
    both(m, cls, name, [m, name, is_max](const Tensor& x, py::object dim, bool keepdim, bool keepdims) -> py::object {
      keepdim = keepdim || keepdims;
      if (dim.is_none()) return py::cast(released([&] { return is_max ? max(x) : min(x); }));
      if (py::isinstance<TensorImpl>(dim)) {  // torch.max(a, b) = maximum
        const Tensor o = dim.cast<Tensor>();
        return py::cast(released([&] { return is_max ? maximum(x, o) : minimum(x, o); }));
      }
      const int64_t d = int_arg(dim, name, "dim");
      return values_indices(m, released([&] { return is_max ? max(x, d, keepdim) : min(x, d, keepdim); }));
    }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("keepdims") = false);
  };
  def_extreme("max", true);
  def_extreme("min", false);
  both(m, cls, "argmax", [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return argmax(x, dim, keepdim); },
       py::arg("dim") = py::none(), py::arg("keepdim") = false, Release());
  both(m, cls, "argmin", [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return argmin(x, dim, keepdim); },
       py::arg("dim") = py::none(), py::arg("keepdim") = false, Release());

  // ------------------------------------------------------------ linalg
  both(m, cls, "matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, py::arg("other"), Release());
  both(m, cls, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, py::arg("mat2"), Release());
  both(m, cls, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, py::arg("mat2"), Release());
  m.def("_linear", [](const Tensor& x, const Tensor& w, std::optional<Tensor> b) { return linear(x, w, b ? *b : Tensor()); },
        Release());

  // ------------------------------------------------------------ shape
  cls.def("view", [](const Tensor& x, py::args size) {
    if (size.size() == 1 && py::isinstance<Dtype>(size[0]))
      throw py::type_error("view(dtype) is not supported by seqlab; use .to(dtype)");
    const Shape s = size_args(size, "view");
    return released([&] { return view(x, s); });
  });
  cls.def("reshape", [](const Tensor& x, py::args size) {
    const Shape s = size_args(size, "reshape", "shape");
    return released([&] { return reshape(x, s); });
  });
  m.def("reshape", [](const Tensor& x, py::handle shape) {
    const Shape s = size_arg(shape, "reshape", "shape");
    return released([&] { return reshape(x, s); });
  }, py::arg("input"), py::arg("shape"));
  cls.def("expand", [](const Tensor& x, py::args size) {
    const Shape s = size_args(size, "expand");
    return released([&] { return expand(x, s); });
  });
  cls.def("permute", [](const Tensor& x, py::args dims) {
    const Shape s = size_args(dims, "permute", "dims");
    return released([&] { return permute(x, s); });
  });
  m.def("permute", [](const Tensor& x, std::vector<int64_t> dims) { return permute(x, dims); }, py::arg("input"),
        py::arg("dims"), Release());
  both(m, cls, "flatten", [](const Tensor& x, int64_t s, int64_t e) { return flatten(x, s, e); },
       py::arg("start_dim") = 0, py::arg("end_dim") = -1, Release());
  both(m, cls, "transpose", [](const Tensor& x, int64_t a, int64_t b) { return transpose(x, a, b); }, py::arg("dim0"),
       py::arg("dim1"), Release());
  both(m, cls, "swapaxes", [](const Tensor& x, int64_t a, int64_t b) { return transpose(x, a, b); }, py::arg("axis0"),
       py::arg("axis1"), Release());
  both(m, cls, "t", [](const Tensor& x) { return t(x); }, Release());
  cls.def_property_readonly("T", [](const Tensor& x) {
    std::vector<int64_t> perm;
    for (int64_t d = x.dim() - 1; d >= 0; --d) perm.push_back(d);
    return permute(x, perm);
  });
  cls.def_property_readonly("mT", [](const Tensor& x) { return transpose(x, -2, -1); });
  both(m, cls, "unsqueeze", [](const Tensor& x, int64_t d) { return unsqueeze(x, d); }, py::arg("dim"), Release());
  both(m, cls, "squeeze", [](const Tensor& x, py::object dim) {
    if (dim.is_none()) return squeeze(x);
    auto dims = dims_arg(dim, "squeeze");
    Tensor r = x;
    std::vector<int64_t> ws;
    for (int64_t d : dims) ws.push_back(wrap_dim(d, std::max<int64_t>(x.dim(), 1), "squeeze"));
    std::sort(ws.rbegin(), ws.rend());
    for (int64_t d : ws) r = squeeze(r, d);
    return r;
  }, py::arg("dim") = py::none());
  both(m, cls, "narrow", [](const Tensor& x, int64_t d, int64_t s, int64_t l) { return narrow(x, d, s, l); },
       py::arg("dim"), py::arg("start"), py::arg("length"), Release());
  both(m, cls, "select", [](const Tensor& x, int64_t d, int64_t i) { return select(x, d, i); }, py::arg("dim"),
       py::arg("index"), Release());
  cls.def("_slice", [](const Tensor& x, int64_t d, int64_t s, int64_t e, int64_t st) { return slice(x, d, s, e, st); },
          Release());
  both(m, cls, "split", [](const Tensor& x, py::handle size, int64_t dim) {
    const char* arg = "split_size_or_sections";
    if (py::isinstance<py::int_>(size)) return split(x, int_arg(size, "split", arg), dim);
    return split(x, size_arg(size, "split", arg), dim);
  }, py::arg("split_size_or_sections"), py::arg("dim") = 0);
  both(m, cls, "chunk", [](const Tensor& x, int64_t c, int64_t d) { return chunk(x, c, d); }, py::arg("chunks"),
       py::arg("dim") = 0, Release());
  m.def("cat", [](const TensorList& xs, int64_t dim) { return cat(xs, dim); }, py::arg("tensors"), py::arg("dim") = 0,
        Release());
  m.def("concat", [](const TensorList& xs, int64_t dim) { return cat(xs, dim); }, py::arg("tensors"), py::arg("dim") = 0,
        Release());
  m.def("stack", [](const TensorList& xs, int64_t dim) { return stack(xs, dim); }, py::arg("tensors"), py::arg("dim") = 0,
        Release());

  // ------------------------------------------------------------ indexing
  cls.def("_index", [](const Tensor& x, std::vector<std::optional<Tensor>> idx) {
    TensorList l;
    for (auto& i : idx) l.push_back(i ? *i : Tensor());
    return index(x, l);
  }, Release());
  both(m, cls, "gather", [](const Tensor& x, int64_t dim, const Tensor& index) { return gather(x, dim, index); },
       py::arg("dim"), py::arg("index"), Release());
  both(m, cls, "index_select", [](const Tensor& x, int64_t dim, const Tensor& index) { return index_select(x, dim, index); },
       py::arg("dim"), py::arg("index"), Release());
  both(m, cls, "masked_fill", [](const Tensor& x, const Tensor& mask, py::handle value) {
    const double v = py::isinstance<TensorImpl>(value) ? value.cast<Tensor>().item<double>()
                                                       : number_arg(value, "masked_fill", "value");
    return released([&] { return masked_fill(x, mask, v); });
  }, py::arg("mask"), py::arg("value"));
  both(m, cls, "nonzero", [](const Tensor& x) { return nonzero(x); }, Release());
  both(m, cls, "triu", [](const Tensor& x, int64_t d) { return triu(x, d); }, py::arg("diagonal") = 0, Release());
  both(m, cls, "tril", [](const Tensor& x, int64_t d) { return tril(x, d); }, py::arg("diagonal") = 0, Release());

  // ------------------------------------------------------------ softmax family, losses (seqlab.nn.functional)
  both(m, cls, "softmax", [](const Tensor& x, int64_t dim) { return softmax(x, dim); }, py::arg("dim"), Release());
  both(m, cls, "log_softmax", [](const Tensor& x, int64_t dim) { return log_softmax(x, dim); }, py::arg("dim"), Release());
  m.def("gelu", [](const Tensor& x, const std::string& approximate) {
    SEQLAB_CHECK(approximate == "none" || approximate == "tanh",
                 "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
    return gelu(x, approximate == "tanh");
  }, py::arg("input"), py::arg("approximate") = "none", Release());
  m.def("cross_entropy", [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight,
                            int64_t ignore_index, const std::string& reduction, double label_smoothing) {
    return cross_entropy(input, target, weight ? *weight : Tensor(), ignore_index, parse_reduction(reduction),
                         label_smoothing);
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0, Release());
  m.def("nll_loss", [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight, int64_t ignore_index,
                       const std::string& reduction) {
    return nll_loss(input, target, weight ? *weight : Tensor(), ignore_index, parse_reduction(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean", Release());
  m.def("mse_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction) {
    return mse_loss(input, target, parse_reduction(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", Release());
  m.def("binary_cross_entropy_with_logits", [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight,
                                               const std::string& reduction, std::optional<Tensor> pos_weight) {
    return binary_cross_entropy_with_logits(input, target, weight ? *weight : Tensor(), parse_reduction(reduction),
                                            pos_weight ? *pos_weight : Tensor());
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
        py::arg("pos_weight") = py::none(), Release());
  m.def("dropout", [](const Tensor& x, double p, bool training) { return dropout(x, p, training); }, py::arg("input"),
        py::arg("p") = 0.5, py::arg("training") = true, Release());

  // cumsum(input, dim, *, dtype=None), cumprod: scan.cpp.
  both(m, cls, "cumsum", [](const Tensor& x, int64_t dim, std::optional<Dtype> d) { return cumsum(x, dim, d); },
       py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none(), Release(),
       "Cumulative sum along dim: y_i = x_0 + ... + x_i (torch.cumsum). Integers and bools give int64\n"
       "unless dtype= says otherwise; dtype= casts the input first.");
  both(m, cls, "cumprod", [](const Tensor& x, int64_t dim, std::optional<Dtype> d) { return cumprod(x, dim, d); },
       py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none(), Release(),
       "Cumulative product along dim: y_i = x_0 * ... * x_i (torch.cumprod), differentiable also\n"
       "where x has zeros.");

  // ------------------------------------------------------------ creation (the random ops: bind_random.cpp)
  m.def("_empty", [](const Shape& s, Dtype d) { return Tensor::empty(s, d); });
  m.def("_full", [](const Shape& s, double v, Dtype d) { return full(s, v, d); }, Release());
  m.def("_arange", [](double a, double b, double st, Dtype d) { return arange(a, b, st, d); }, Release());
  m.def("_eye", [](int64_t n, int64_t mm, Dtype d) { return eye(n, mm, d); }, Release());
  m.def("_max_threads", &max_threads, "the most threads set_num_threads and the embedding trainers' workers accept");
  m.def("set_num_threads", [](const py::int_& n) {
    // A Python int beyond int64 is refused as 10**6 is (pybind11 alone would say "incompatible arguments").
    if (n < py::int_(1))
      throw std::runtime_error("set_num_threads expects a positive integer, got " + std::string(py::str(n)));
    if (n > py::int_(max_threads()))
      throw std::runtime_error("set_num_threads: " + std::string(py::str(n)) + " threads is more than " +
                               std::to_string(max_threads()) + ", 4 per CPU of this machine");
    set_num_threads(n.cast<int64_t>());
  }, py::arg("n"));
  m.def("get_num_threads", &get_num_threads);
  m.def("set_flush_denormal", &set_flush_denormal, py::arg("mode"));
  m.def("_blas_info", &blas_info);
  m.def("_simd_isa", &simd::isa_name);
}

}  // namespace seqlab::bind
