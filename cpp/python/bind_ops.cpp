// The ops, each bound twice from one definition: as seqlab.NAME(input, ...) and as the
// method Tensor.NAME(...), with PyTorch's argument names and defaults.
#include "bind_common.hpp"
#include "seqlab/default_dtype.hpp"
#include "simd/isa.hpp"
#include "simd/panel_gemm.hpp"
#include "simd/vec_math.hpp"

namespace seqlab::bind {
namespace {

py::class_<TensorImpl, std::shared_ptr<TensorImpl>> tensor_class(py::module_& m) {
  return py::reinterpret_borrow<py::class_<TensorImpl, std::shared_ptr<TensorImpl>>>(m.attr("Tensor"));
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

// A Python int that an op stores in an integer tensor unchanged (where, masked_fill, clamp) must
// fit its dtype: torch's "value cannot be converted to type int8_t without overflow".
void check_fits(const py::handle& v, Dtype d) {
  if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v) || is_floating(d) || d == Dtype::Bool) return;
  const py::int_ i = py::reinterpret_borrow<py::int_>(v);
  const char* name = nullptr;
  py::int_ lo, hi;
  switch (d) {
    case Dtype::Int8: name = "int8_t", lo = py::int_(-128), hi = py::int_(127); break;
    case Dtype::UInt8: name = "uint8_t", lo = py::int_(-255), hi = py::int_(255); break;  // negatives wrap, as torch
    case Dtype::Int16: name = "int16_t", lo = py::int_(-32768), hi = py::int_(32767); break;
    case Dtype::Int32: name = "int32_t", lo = py::int_(INT32_MIN), hi = py::int_(INT32_MAX); break;
    default: name = "int64_t", lo = py::int_(INT64_MIN), hi = py::int_(INT64_MAX); break;
  }
  if (i < lo || i > hi) throw std::runtime_error(str_cat("value cannot be converted to type ", name, " without overflow"));
}

// A clamp bound: None, or a number; a Python float bound makes an integer input float32 (torch's
// type promotion by kind), an int bound must fit the input's dtype.
std::optional<double> bound_arg(const py::handle& b, Tensor& x, const char* op, const char* arg) {
  if (b.is_none()) return std::nullopt;
  if (py::isinstance<py::float_>(b) && !is_floating(x.dtype())) x = to_dtype(x, default_float_dtype());
  const double v = number_arg(b, op, arg);  // first: an int outside 64 bits is torch's OverflowError
  check_fits(b, x.dtype());
  return v;
}

// alpha of add/sub: a Python float with integer tensors is refused, as torch does.
double alpha_arg(const py::handle& alpha, const Tensor& a, const Tensor& b, const char* op) {
  if (py::isinstance<py::float_>(alpha) && !is_floating(a.dtype()) && !is_floating(b.dtype()))
    throw std::runtime_error("For integral input tensors, argument alpha must not be a floating point number.");
  return number_arg(alpha, op, "alpha");
}

// A view op bound as seqlab.NAME(input, ...) and Tensor.NAME(...) as both() binds an op, but not
// through float32: a float16/bfloat16 view shares its base's memory as any other view does.
template <typename F, typename... Extra>
void both_view(py::module_& m, TensorClass& cls, const char* name, F f, const Extra&... extra) {
  cls.def(name, f, extra...);
  m.def(name, f, py::arg("input"), extra...);
}

}  // namespace

void bind_ops(py::module_& m) {
  auto cls = tensor_class(m);
  // ------------------------------------------------------------ elementwise
  // self OP other, `other` a tensor or a number (operand_arg).
  using AlphaOp = Tensor (*)(const Tensor&, const Tensor&, double);
  for (auto [name, fn, doc] : {std::tuple<const char*, AlphaOp, const char*>{
           "add", &add, "out = input + alpha * other, elementwise with broadcasting; other may be a number (torch.add)."},
       {"sub", &sub, "out = input - alpha * other, elementwise with broadcasting; other may be a number (torch.sub)."}})
    both(m, cls, name, [name = name, fn = fn](const Tensor& a, py::handle b, py::handle alpha_) {
      const Tensor o = operand_arg(b, a, name);
      const double alpha = alpha_arg(alpha_, a, o, name);
      return released([&] { return fn(a, o, alpha); });
    }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1, doc);
  // tensor_only: torch takes no number for `other` (maximum, minimum, the logical ops)
  auto def_binary = [&](const char* name, Tensor (*fn)(const Tensor&, const Tensor&), const char* doc,
                        bool tensor_only = false) {
    both(m, cls, name, [fn, name, tensor_only](const Tensor& a, py::handle b) {
      if (tensor_only && !py::isinstance<TensorImpl>(b))
        throw py::type_error(str_cat(name, "(): argument 'other' must be Tensor, not ", type_name(b)));
      const Tensor o = operand_arg(b, a, name);
      return released([&] { return fn(a, o); });
    }, py::arg("other"), doc);
  };
  def_binary("mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); },
             "out = input * other, elementwise with broadcasting; other may be a number (torch.mul).");
  def_binary("div", [](const Tensor& a, const Tensor& b) { return div(a, b); },
             "out = input / other, true division, elementwise with broadcasting (torch.div).");
  def_binary("true_divide", [](const Tensor& a, const Tensor& b) { return div(a, b); },
             "out = input / other, true division (torch.true_divide, an alias of div).");
  def_binary("maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); },
             "The elementwise maximum of input and other; NaN if either is NaN (torch.maximum).", true);
  def_binary("minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); },
             "The elementwise minimum of input and other; NaN if either is NaN (torch.minimum).", true);
  // the comparisons: float16/bfloat16 operands are first brought to their common dtype (common_operands)
  for (auto [name, op, doc] : {std::tuple<const char*, CompareOp, const char*>{
           "eq", CompareOp::Eq, "input == other elementwise, a bool tensor (torch.eq)."},
       {"ne", CompareOp::Ne, "input != other elementwise, a bool tensor (torch.ne)."},
       {"lt", CompareOp::Lt, "input < other elementwise, a bool tensor (torch.lt)."},
       {"le", CompareOp::Le, "input <= other elementwise, a bool tensor (torch.le)."},
       {"gt", CompareOp::Gt, "input > other elementwise, a bool tensor (torch.gt)."},
       {"ge", CompareOp::Ge, "input >= other elementwise, a bool tensor (torch.ge)."}}) {
    auto f = through_float32(name, [name = name, op = op](const Tensor& a, py::handle b) {
      const Tensor o = operand_arg(b, a, name);
      return released([&] { return compare(a, o, op); });
    });
    auto g = [f](const Tensor& a, py::handle b) {
      auto [x, y] = common_operands(a, b);
      return f(x, y);
    };
    cls.def(name, g, py::arg("other"), doc);
    m.def(name, g, py::arg("input"), py::arg("other"), doc);
  }
  def_binary("logical_and", [](const Tensor& a, const Tensor& b) { return logical_and(a, b); },
             "input AND other, zero meaning False, a bool tensor (torch.logical_and).", true);
  def_binary("logical_or", [](const Tensor& a, const Tensor& b) { return logical_or(a, b); },
             "input OR other, zero meaning False, a bool tensor (torch.logical_or).", true);
  def_binary("logical_xor", [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); },
             "input XOR other, zero meaning False, a bool tensor (torch.logical_xor).", true);
  def_binary("fmod", [](const Tensor& a, const Tensor& b) { return fmod(a, b); },
             "The C remainder input - trunc(input / other) * other: the sign of input (torch.fmod).");
  def_binary("floor_divide", [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); },
             "input // other, rounded toward -inf as Python's // (torch.floor_divide); integers exactly (division\n"
             "by 0 raises ZeroDivisionError), floats with inf/NaN at 0. No gradient, as in torch.");
  // The bitwise ops also take a number as their input (torch.bitwise_and(3, x), as 3 & x).
  auto def_bitwise = [&](const char* name, Tensor (*fn)(const Tensor&, const Tensor&), const char* doc) {
    cls.def(name, [fn, name](const Tensor& a, py::handle b) {
      const Tensor o = operand_arg(b, a, name);
      return released([&] { return fn(a, o); });
    }, py::arg("other"), doc);
    m.def(name, [fn, name](py::handle a, py::handle b) {
      if (py::isinstance<TensorImpl>(a)) {
        const Tensor x = a.cast<Tensor>(), o = operand_arg(b, x, name);
        return released([&] { return fn(x, o); });
      }
      if (!py::isinstance<TensorImpl>(b))
        throw py::type_error(str_cat(name, "(): argument 'input' (position 1) must be Tensor, not ", type_name(a)));
      const Tensor y = b.cast<Tensor>(), n = operand_arg(a, y, name, "input");
      return released([&] { return fn(n, y); });
    }, py::arg("input"), py::arg("other"), doc);
  };
  def_bitwise("bitwise_and", [](const Tensor& a, const Tensor& b) { return bitwise_and(a, b); },
              "input & other on integer or bool tensors, with torch's promotion; either may be a number\n"
              "(torch.bitwise_and).");
  def_bitwise("bitwise_or", [](const Tensor& a, const Tensor& b) { return bitwise_or(a, b); },
              "input | other on integer or bool tensors, with torch's promotion; either may be a number\n"
              "(torch.bitwise_or).");
  def_bitwise("bitwise_xor", [](const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); },
              "input ^ other on integer or bool tensors, with torch's promotion; either may be a number\n"
              "(torch.bitwise_xor).");
  def_bitwise("bitwise_left_shift", [](const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); },
              "input << other on integer tensors, wrapping; a shift by a negative amount or by the width or\n"
              "more gives 0 (torch.bitwise_left_shift).");
  def_bitwise("bitwise_right_shift", [](const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); },
              "input >> other on integer tensors, arithmetic for signed types; a shift by a negative amount or\n"
              "by the width or more gives 0 or -1 (torch.bitwise_right_shift).");
  both(m, cls, "bitwise_not", [](const Tensor& x) { return bitwise_not(x); }, Release(),
       "~input: every bit flipped for integers, NOT for bools (torch.bitwise_not).");
  // torch.remainder also takes a number as its input (remainder(2, x), as 2 % x): torch records
  // no derivative for that form (remainder_scalar_tensor).
  def_op(cls, "remainder", [](const Tensor& a, py::handle b) {
    const Tensor o = operand_arg(b, a, "remainder");
    return released([&] { return remainder(a, o); });
  }, py::arg("other"), "Python's modulus input - floor(input / other) * other: the sign of other (torch.remainder).");
  def_op(m, "remainder", [](py::handle a, py::handle b) {
    if (py::isinstance<TensorImpl>(a)) {
      const Tensor x = a.cast<Tensor>(), o = operand_arg(b, x, "remainder");
      return released([&] { return remainder(x, o); });
    }
    if (!py::isinstance<TensorImpl>(b))
      throw py::type_error("remainder(): argument 'input' (position 1) must be Tensor, not " + type_name(a));
    const Tensor y = b.cast<Tensor>(), n = operand_arg(a, y, "remainder", "input");
    return released([&] { return remainder_scalar_tensor(n, y); });
  }, py::arg("input"), py::arg("other"),
        "Python's modulus input - floor(input / other) * other: the sign of other; either may be a number\n"
        "(torch.remainder).");
  both(m, cls, "pow", [](const Tensor& a, py::handle exponent) {
    const Tensor out = power(a, exponent);
    if (!out.defined())
      throw py::type_error("pow(): argument 'exponent' must be a Tensor or a number, not " + type_name(exponent));
    return out;
  }, py::arg("exponent"), "out = input ** exponent elementwise; exponent a tensor (broadcast) or a number (torch.pow).");
  def_op(m, "where", [](const Tensor& cond, py::handle a, py::handle b) {
    Tensor ta = py::isinstance<TensorImpl>(a) ? a.cast<Tensor>() : Tensor();
    Tensor tb = py::isinstance<TensorImpl>(b) ? b.cast<Tensor>() : Tensor();
    const Tensor& like = ta.defined() ? ta : (tb.defined() ? tb : scalar_tensor(0.0, default_float_dtype()));
    // operand_arg first: an int outside 64 bits is torch's OverflowError before any dtype's range
    if (!ta.defined()) ta = operand_arg(a, like, "where", "input"), check_fits(a, like.dtype());
    if (!tb.defined()) tb = operand_arg(b, like, "where", "other"), check_fits(b, like.dtype());
    return released([&] { return where(cond, ta, tb); });
  }, py::arg("condition"), py::arg("input"), py::arg("other"),
        "out_i = input_i if condition_i else other_i, broadcast together; input or other may be a number\n"
        "(torch.where).");
  def_op(cls, "where", [](const Tensor& self, const Tensor& cond, py::handle other) {
    check_fits(other, self.dtype());
    const Tensor o = operand_arg(other, self, "where");
    return released([&] { return where(cond, self, o); });
  }, py::arg("condition"), py::arg("other"), "out_i = self_i if condition_i else other_i (torch.Tensor.where).");

  both(m, cls, "neg", [](const Tensor& x) { return neg(x); }, Release(),
       "out = -input (torch.neg).");
  both(m, cls, "negative", [](const Tensor& x) { return neg(x); }, Release(),
       "out = -input (torch.negative, an alias of neg).");
  both(m, cls, "exp", [](const Tensor& x) { return exp(x); }, Release(),
       "out = e^input (torch.exp).");
  both(m, cls, "log", [](const Tensor& x) { return log(x); }, Release(),
       "out = ln(input), the natural logarithm; NaN below 0, -inf at 0 (torch.log).");
  both(m, cls, "sqrt", [](const Tensor& x) { return sqrt(x); }, Release(),
       "out = sqrt(input); NaN below 0 (torch.sqrt).");
  both(m, cls, "abs", [](const Tensor& x) { return abs(x); }, Release(),
       "out = |input| (torch.abs).");
  both(m, cls, "logical_not", [](const Tensor& x) { return logical_not(x); }, Release(),
       "NOT input, zero meaning False, a bool tensor (torch.logical_not).");
  both(m, cls, "tanh", [](const Tensor& x) { return tanh(x); }, Release(),
       "out = tanh(input) = (e^x - e^-x) / (e^x + e^-x); d/dx = 1 - tanh(x)^2 (torch.tanh).");
  both(m, cls, "sigmoid", [](const Tensor& x) { return sigmoid(x); }, Release(),
       "out = 1 / (1 + e^-input); d/dx = s(x)(1 - s(x)) (torch.sigmoid).");
  both(m, cls, "relu", [](const Tensor& x) { return relu(x); }, Release(),
       "out = max(input, 0); the gradient at 0 is 0, as torch's (torch.relu).");
  both(m, cls, "relu_", [](Tensor& x) { return relu_(x); }, Release(),
       "In-place relu: input = max(input, 0); the gradient at 0 is 0 (torch.relu_).");
  both(m, cls, "clamp", [](Tensor x, py::handle lo, py::handle hi) {
    const auto l = bound_arg(lo, x, "clamp", "min"), h = bound_arg(hi, x, "clamp", "max");
    return released([&] { return clamp(x, l, h); });
  }, py::arg("min") = py::none(), py::arg("max") = py::none(),
       "out = min(max(input, min), max), either bound optional; the gradient is 0 where clamped (torch.clamp).");
  both(m, cls, "clip", [](Tensor x, py::handle lo, py::handle hi) {
    const auto l = bound_arg(lo, x, "clip", "min"), h = bound_arg(hi, x, "clip", "max");
    return released([&] { return clamp(x, l, h); });
  }, py::arg("min") = py::none(), py::arg("max") = py::none(),
       "out = min(max(input, min), max), either bound optional; the gradient is 0 where clamped (torch.clip).");
  def_op(cls, "clamp_", [](Tensor& x, std::optional<double> lo, std::optional<double> hi) { return clamp_(x, lo, hi); },
          py::arg("min") = py::none(), py::arg("max") = py::none(), Release(), "In-place clamp: self = min(max(self, min), max).");
  // sin .. frac, each as seqlab.f(x), x.f() and the in-place x.f_().
  using Unary = Tensor (*)(const Tensor&);
  const std::tuple<const char*, const char*, Unary, UnaryOp, const char*> unary[] = {
      {"sin", "sin_", [](const Tensor& x) { return sin(x); }, UnaryOp::Sin,
       "out = sin(input), in radians (torch.sin)."},
      {"cos", "cos_", [](const Tensor& x) { return cos(x); }, UnaryOp::Cos,
       "out = cos(input), in radians (torch.cos)."},
      {"tan", "tan_", [](const Tensor& x) { return tan(x); }, UnaryOp::Tan,
       "out = tan(input), in radians (torch.tan)."},
      {"log2", "log2_", [](const Tensor& x) { return log2(x); }, UnaryOp::Log2,
       "out = log2(input) (torch.log2)."},
      {"log10", "log10_", [](const Tensor& x) { return log10(x); }, UnaryOp::Log10,
       "out = log10(input) (torch.log10)."},
      {"log1p", "log1p_", [](const Tensor& x) { return log1p(x); }, UnaryOp::Log1p,
       "out = ln(1 + input), accurate for small input (torch.log1p)."},
      {"expm1", "expm1_", [](const Tensor& x) { return expm1(x); }, UnaryOp::Expm1,
       "out = e^input - 1, accurate for small input (torch.expm1)."},
      {"erf", "erf_", [](const Tensor& x) { return erf(x); }, UnaryOp::Erf,
       "out = erf(input) = 2/sqrt(pi) * integral_0^input exp(-t^2) dt (torch.erf)."},
      {"erfc", "erfc_", [](const Tensor& x) { return erfc(x); }, UnaryOp::Erfc,
       "out = 1 - erf(input), accurate for large input (torch.erfc)."},
      {"erfinv", "erfinv_", [](const Tensor& x) { return erfinv(x); }, UnaryOp::Erfinv,
       "out = the inverse error function of input, in [-1, 1]; +-inf at +-1, NaN outside (torch.erfinv)."},
      {"rsqrt", "rsqrt_", [](const Tensor& x) { return rsqrt(x); }, UnaryOp::Rsqrt,
       "out = 1 / sqrt(input) (torch.rsqrt)."},
      {"sign", "sign_", [](const Tensor& x) { return sign(x); }, UnaryOp::Sign,
       "out = -1, 0 or 1 by the sign of input; gradient 0 (torch.sign)."},
      {"floor", "floor_", [](const Tensor& x) { return floor(x); }, UnaryOp::Floor,
       "out = the largest integer <= input (torch.floor)."},
      {"ceil", "ceil_", [](const Tensor& x) { return ceil(x); }, UnaryOp::Ceil,
       "out = the smallest integer >= input (torch.ceil)."},
      {"trunc", "trunc_", [](const Tensor& x) { return trunc(x); }, UnaryOp::Trunc,
       "out = input rounded toward zero (torch.trunc)."},
      {"frac", "frac_", [](const Tensor& x) { return frac(x); }, UnaryOp::Frac,
       "out = input - trunc(input), with the sign of input (torch.frac)."}};
  for (auto [name, inplace_name, fn, op, doc] : unary) {
    both(m, cls, name, fn, Release(), doc);
    def_op(cls, inplace_name, [op = op](Tensor& x) -> Tensor { return inplace_unary(x, op); }, Release(),
            "In place: self = f(self), f as the method without the underscore.");
  }
  // torch.round(input, *, decimals=0): an explicit decimals is torch's round.decimals overload.
  both(m, cls, "round", [](const Tensor& x, std::optional<int64_t> decimals) { return round(x, decimals); },
       py::kw_only(), py::arg("decimals") = py::none(), Release(),
       "Rounds to the nearest integer, ties to even, or to `decimals` decimal places (torch.round).");
  def_op(cls, "round_", [](Tensor& x, std::optional<int64_t> decimals) -> Tensor {
    return inplace_unary(x, UnaryOp::Round, decimals);
  }, py::kw_only(), py::arg("decimals") = py::none(), Release(), "In-place round (ties to even).");

  // ------------------------------------------------------------ in place
  auto def_inplace = [&](const char* name, InplaceOp op) {
    def_op(cls, name, [op, name](Tensor& self, py::handle other, py::handle alpha_) -> Tensor {
      const Tensor o = operand_arg(other, self, name);
      const double alpha = alpha_arg(alpha_, self, o, name);
      return released([&] { return inplace_binary(self, o, op, alpha); });
    }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1,
       "In place: self = self OP alpha * other (add_, sub_), self OP other (mul_, div_); other broadcasts to self.");
  };
  def_inplace("add_", InplaceOp::Add);
  def_inplace("sub_", InplaceOp::Sub);
  def_inplace("mul_", InplaceOp::Mul);
  def_inplace("div_", InplaceOp::Div);
  for (auto [name, op, doc] : {
           std::tuple<const char*, InplaceOp, const char*>{"remainder_", InplaceOp::Remainder,
                                                           "In place: self = remainder(self, other)."},
           {"fmod_", InplaceOp::Fmod, "In place: self = fmod(self, other)."},
           {"floor_divide_", InplaceOp::FloorDivide, "In place: self = self // other (torch.Tensor.floor_divide_)."},
           {"bitwise_and_", InplaceOp::BitwiseAnd, "In place: self = self & other."},
           {"bitwise_or_", InplaceOp::BitwiseOr, "In place: self = self | other."},
           {"bitwise_xor_", InplaceOp::BitwiseXor, "In place: self = self ^ other."},
           {"bitwise_left_shift_", InplaceOp::LeftShift, "In place: self = self << other."},
           {"bitwise_right_shift_", InplaceOp::RightShift, "In place: self = self >> other."}}) {
    auto f = [op = op, name = name](Tensor& self, py::handle other) -> Tensor {
      const Tensor o = operand_arg(other, self, name);
      return released([&] { return inplace_binary(self, o, op); });
    };
    // the bitwise ones are integer-only: their kernels refuse float16/bfloat16 as torch's do
    if (std::string(name).rfind("bitwise", 0) == 0)
      cls.def(name, f, py::arg("other"), doc);
    else
      def_op(cls, name, f, py::arg("other"), doc);
  }
  def_op(cls, "bitwise_not_", [](Tensor& x) -> Tensor { return inplace_unary(x, UnaryOp::BitwiseNot); }, Release(),
          "In place: self = ~self.");
  def_op(cls, "zero_", [](Tensor& x) -> Tensor { return zero_(x); }, Release(), "Fill self with zeros in place; returns self.");
  // value: a number (an int outside 64 bits is torch's OverflowError) or a one-element tensor
  const auto fill_value = [](const py::handle& value, const char* op) {
    return py::isinstance<TensorImpl>(value) ? value.cast<Tensor>().item<double>() : number_arg(value, op, "value");
  };
  // fill_ and masked_fill store one number: a float16/bfloat16 self refuses a value beyond its range
  // as torch's checked conversion does, before the float32 computation (which would give inf); a
  // 0-d tensor fill_ value is copied unchecked, as torch's
  const auto fits_16 = [fill_value](const Tensor& x, py::handle value, const char* op) {
    if (!is_reduced_float(x.dtype()) || (op[0] == 'f' && py::isinstance<TensorImpl>(value))) return;
    check_value_fits(fill_value(value, op), x.dtype(), op);
  };
  auto fill = through_float32("fill_", [fill_value](Tensor& x, py::handle value) -> Tensor {
    const double v = fill_value(value, "fill_");
    return released([&] { return fill_(x, v); });
  });
  cls.def("fill_", [fill, fits_16](Tensor& x, py::handle value) -> Tensor {
    fits_16(x, value, "fill_");
    return fill(x, value);
  }, py::arg("value"), "Fill self with value in place; returns self.");
  cls.def("copy_", [](Tensor& x, const Tensor& src) -> Tensor { return copy_(x, src); }, py::arg("src"), Release(),
          "Copy src's values into self in place (src broadcasts to self, dtypes convert); returns self.");
  auto masked_fill_in_place = through_float32("masked_fill_", [fill_value](Tensor& x, const Tensor& mask, py::handle value) -> Tensor {
    const double v = fill_value(value, "masked_fill_");
    return released([&] { return masked_fill_(x, mask, v); });
  });
  cls.def("masked_fill_", [masked_fill_in_place, fits_16](Tensor& x, const Tensor& mask, py::handle value) -> Tensor {
    fits_16(x, value, "masked_fill_");
    return masked_fill_in_place(x, mask, value);
  }, py::arg("mask"), py::arg("value"), "self_i = value where mask_i is True, in place; returns self.");
  def_op(m, "_index_put", [](const Tensor& x, std::vector<std::optional<Tensor>> idx, const Tensor& v, bool acc) {
    TensorList l;
    for (auto& i : idx) l.push_back(i ? *i : Tensor());
    return index_put(x, l, v, acc);
  }, py::arg("input"), py::arg("indices"), py::arg("values"), py::arg("accumulate"), Release());
  cls.def("_rebase", [](Tensor& self, const Tensor& result) { rebase_history(self, result, "setitem"); }, py::arg("result"),
          Release());
  def_op(cls, "_index_put_", [](Tensor& x, std::vector<std::optional<Tensor>> idx, const Tensor& v, bool acc) -> Tensor {
    TensorList l;
    for (auto& i : idx) l.push_back(i ? *i : Tensor());
    return index_put_(x, l, v, acc);
  }, py::arg("indices"), py::arg("values"), py::arg("accumulate"), Release());

  // ------------------------------------------------------------ copies and dtypes
  both(m, cls, "clone", [](const Tensor& x) { return clone(x); }, Release(),
       "A copy with its own memory; the gradient flows back to input (torch.clone).");
  cls.def("contiguous", [](const Tensor& x) { return contiguous(x); }, Release(),
          "self if its memory is contiguous (row-major), else a contiguous copy.");
  cls.def("to", [](const Tensor& x, Dtype d) { return to_dtype(x, d); }, py::arg("dtype"), Release(),
          "self converted to dtype.");
  cls.def("type", [](const Tensor& x, Dtype d) { return to_dtype(x, d); }, py::arg("dtype"), Release(),
          "self converted to dtype.");
  cls.def("float", [](const Tensor& x) { return to_dtype(x, Dtype::Float32); }, Release(), "self converted to float32, as torch.Tensor.to(float32).");
  cls.def("double", [](const Tensor& x) { return to_dtype(x, Dtype::Float64); }, Release(), "self converted to float64, as torch.Tensor.to(float64).");
  cls.def("half", [](const Tensor& x) { return to_dtype(x, Dtype::Float16); }, Release(), "self converted to float16, as torch.Tensor.to(float16).");
  cls.def("bfloat16", [](const Tensor& x) { return to_dtype(x, Dtype::BFloat16); }, Release(), "self converted to bfloat16, as torch.Tensor.to(bfloat16).");
  cls.def("long", [](const Tensor& x) { return to_dtype(x, Dtype::Int64); }, Release(), "self converted to int64, as torch.Tensor.to(int64).");
  cls.def("int", [](const Tensor& x) { return to_dtype(x, Dtype::Int32); }, Release(), "self converted to int32, as torch.Tensor.to(int32).");
  cls.def("short", [](const Tensor& x) { return to_dtype(x, Dtype::Int16); }, Release(), "self converted to int16, as torch.Tensor.to(int16).");
  cls.def("char", [](const Tensor& x) { return to_dtype(x, Dtype::Int8); }, Release(), "self converted to int8, as torch.Tensor.to(int8).");
  cls.def("byte", [](const Tensor& x) { return to_dtype(x, Dtype::UInt8); }, Release(), "self converted to uint8, as torch.Tensor.to(uint8).");
  cls.def("bool", [](const Tensor& x) { return to_dtype(x, Dtype::Bool); }, Release(), "self converted to bool, as torch.Tensor.to(bool).");

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
     py::arg("keepdims") = false,
     "The sum over dim (an int, a tuple of ints, or None: all); keepdim keeps the reduced dims as size 1;\n"
     "dtype= converts input first (torch.sum). Integers and bools sum to int64.");
  both(m, cls, "mean", [](const Tensor& x, py::object dim, bool keepdim, std::optional<Dtype> dtype, bool keepdims) {
    const auto dims = dims_arg(dim, "mean");
    return released([&] { return mean(dtype ? to_dtype(x, *dtype) : x, dims, keepdim || keepdims); });
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("keepdims") = false, "The mean over dim (an int, a tuple of ints, or None: all) (torch.mean).");
  both(m, cls, "var", [](const Tensor& x, py::object dim, std::optional<bool> unbiased, bool keepdim,
                         std::optional<double> correction, bool keepdims) {
    const auto dims = dims_arg(dim, "var");
    const double c = correction ? *correction : (unbiased.value_or(true) ? 1.0 : 0.0);
    return released([&] { return var(x, dims, c, keepdim || keepdims); });
  }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
     py::arg("correction") = py::none(), py::arg("keepdims") = false,
     "The variance sum((x - mean)^2) / (N - correction) over dim; correction 1 (Bessel's, the default,\n"
     "unbiased=True) or 0 (torch.var).");
  // torch.norm / Tensor.norm: p = 'fro' (the default) or a number, both linalg.vector_norm's ord.
  both(m, cls, "norm", [](const Tensor& x, py::object p, py::object dim, bool keepdim, std::optional<Dtype> dtype) {
    const auto dims = dims_arg(dim, "norm");
    const double ord = norm_ord(p, dims);
    return released([&] { return vector_norm(x, ord, dims, keepdim, dtype); });
  }, py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("dtype") = py::none(),
     "The vector p-norm (sum |x|^p)^(1/p) over dim; p='fro' is 2 (torch.norm).");
  py::module_ linalg = m.def_submodule("linalg", "torch.linalg's names (python/seqlab/linalg.py re-exports them)");
  def_op(linalg, "vector_norm", [](const Tensor& x, py::object ord, py::object dim, bool keepdim,
                               std::optional<Dtype> dtype) {
    const auto dims = dims_arg(dim, "linalg.vector_norm");
    const double o = number_arg(ord, "linalg.vector_norm", "ord");
    return released([&] { return vector_norm(x, o, dims, keepdim, dtype); });
  }, py::arg("x"), py::arg("ord") = 2, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
     py::arg("dtype") = py::none(),
     "(sum |x|^ord)^(1/ord) over dim; ord inf/-inf is max/min |x|, ord 0 counts non-zeros\n"
     "(torch.linalg.vector_norm). The gradient at a zero norm is 0.");
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
    }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("keepdims") = false,
       is_max ? "max(input): the largest element; max(input, dim, keepdim=False): (values, indices) along dim;\n"
                "max(input, other): maximum(input, other) (torch.max)."
              : "min(input): the smallest element; min(input, dim, keepdim=False): (values, indices) along dim;\n"
                "min(input, other): minimum(input, other) (torch.min).");
  };
  def_extreme("max", true);
  def_extreme("min", false);
  both(m, cls, "argmax", [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return argmax(x, dim, keepdim); },
       py::arg("dim") = py::none(), py::arg("keepdim") = false, Release(),
       "The index of the largest value along dim (of the flattened input if dim is None), the first if tied\n"
       "(torch.argmax).");
  both(m, cls, "argmin", [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return argmin(x, dim, keepdim); },
       py::arg("dim") = py::none(), py::arg("keepdim") = false, Release(),
       "The index of the smallest value along dim (of the flattened input if dim is None) (torch.argmin).");

  // ------------------------------------------------------------ linalg
  both(m, cls, "matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, py::arg("other"), Release(),
       "The matrix product with NumPy's rules: 1-d is a vector, batch dims broadcast (torch.matmul).");
  both(m, cls, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, py::arg("mat2"), Release(),
       "(n, m) @ (m, p) -> (n, p), 2-d only (torch.mm).");
  both(m, cls, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, py::arg("mat2"), Release(),
       "(b, n, m) @ (b, m, p) -> (b, n, p), one matrix product per batch (torch.bmm).");
  def_op(m, "_linear", [](const Tensor& x, const Tensor& w, std::optional<Tensor> b) { return linear(x, w, b ? *b : Tensor()); },
        py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), Release());

  // ------------------------------------------------------------ shape
  cls.def("view", [](const Tensor& x, py::args size) {
    if (size.size() == 1 && py::isinstance<Dtype>(size[0]))
      throw py::type_error("view(dtype) is not supported by seqlab; use .to(dtype)");
    const Shape s = size_args(size, "view");
    return released([&] { return view(x, s); });
  }, "view(*shape): the same memory seen with another shape (one dim may be -1); the strides must allow it,\n"
     "else use reshape (torch.Tensor.view).");
  cls.def("reshape", [](const Tensor& x, py::args size) {
    const Shape s = size_args(size, "reshape", "shape");
    return released([&] { return reshape(x, s); });
  }, "reshape(*shape): a view with the new shape when the strides allow, else a copy (torch.reshape).");
  m.def("reshape", [](const Tensor& x, py::handle shape) {
    const Shape s = size_arg(shape, "reshape", "shape");
    return released([&] { return reshape(x, s); });
  }, py::arg("input"), py::arg("shape"),
        "input with a new shape (one dim may be -1): a view when the strides allow, else a copy (torch.reshape).");
  cls.def("expand", [](const Tensor& x, py::args size) {
    const Shape s = size_args(size, "expand");
    return released([&] { return expand(x, s); });
  }, "expand(*sizes): size-1 dims repeated to the given sizes without copying (stride 0); -1 keeps a size\n"
     "(torch.Tensor.expand).");
  // as_strided is a view: bound without the float32 conversion of the ops (bind_reduced_float.hpp).
  const auto as_strided_view = [](const Tensor& x, py::handle size, py::handle stride, std::optional<int64_t> offset) {
    const Shape sz = size_arg(size, "as_strided", "size"), st = size_arg(stride, "as_strided", "stride");
    return released([&] { return as_strided(x, sz, st, offset); });
  };
  cls.def("as_strided", as_strided_view, py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none(),
          "A view of self's storage with the given sizes, strides (in elements) and storage offset (torch.as_strided).");
  m.def("as_strided", as_strided_view, py::arg("input"), py::arg("size"), py::arg("stride"),
        py::arg("storage_offset") = py::none(),
        "A view of input's storage with the given sizes, strides (in elements) and storage offset.");
  // as_strided_: self takes the new geometry (and, in the graph, the history of as_strided(self)).
  cls.def("as_strided_", [as_strided_view](const Tensor& x, py::handle size, py::handle stride,
                                          std::optional<int64_t> offset) {
    check_inplace(x, "as_strided_");
    const Tensor v = as_strided_view(x, size, stride, offset);
    TensorImpl& impl = *x.impl();
    impl.shape = v.shape(), impl.strides = v.strides(), impl.offset = v.offset(), impl.numel = v.numel();
    if (v.grad_fn()) impl.grad_fn = v.grad_fn(), impl.output_nr = v.impl()->output_nr;
    return x;
  }, py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none(),
     "self restrided in place over its storage (torch.Tensor.as_strided_); returns self.");
  cls.def("permute", [](const Tensor& x, py::args dims) {
    const Shape s = size_args(dims, "permute", "dims");
    return released([&] { return permute(x, s); });
  }, "permute(*dims): a view with the dims reordered (torch.permute).");
  m.def("permute", [](const Tensor& x, std::vector<int64_t> dims) { return permute(x, dims); }, py::arg("input"),
        py::arg("dims"), Release(), "A view of input with its dims reordered as dims (torch.permute).");
  both_view(m, cls, "flatten", [](const Tensor& x, int64_t s, int64_t e) { return flatten(x, s, e); },
       py::arg("start_dim") = 0, py::arg("end_dim") = -1, Release(),
       "Dims start_dim..end_dim merged into one (a view when possible) (torch.flatten).");
  both_view(m, cls, "transpose", [](const Tensor& x, int64_t a, int64_t b) { return transpose(x, a, b); }, py::arg("dim0"),
       py::arg("dim1"), Release(), "A view with dims dim0 and dim1 swapped (torch.transpose).");
  both_view(m, cls, "swapaxes", [](const Tensor& x, int64_t a, int64_t b) { return transpose(x, a, b); }, py::arg("axis0"),
       py::arg("axis1"), Release(), "transpose with NumPy's names (torch.swapaxes).");
  both_view(m, cls, "t", [](const Tensor& x) { return t(x); }, Release(),
       "The transpose of a matrix (dims 0 and 1); 0-d and 1-d come back as they are (torch.t).");
  cls.def_property_readonly("T", [](const Tensor& x) {
    std::vector<int64_t> perm;
    for (int64_t d = x.dim() - 1; d >= 0; --d) perm.push_back(d);
    return permute(x, perm);
  }, "All dims reversed (torch's Tensor.T).");
  cls.def_property_readonly("mT", [](const Tensor& x) { return transpose(x, -2, -1); },
                            "The last two dims swapped: a batch of matrices transposed (torch's Tensor.mT).");
  both_view(m, cls, "unsqueeze", [](const Tensor& x, int64_t d) { return unsqueeze(x, d); }, py::arg("dim"), Release(),
       "A view with a size-1 dim inserted at dim (torch.unsqueeze).");
  both_view(m, cls, "squeeze", [](const Tensor& x, py::object dim) {
    if (dim.is_none()) return squeeze(x);
    auto dims = dims_arg(dim, "squeeze");
    Tensor r = x;
    std::vector<int64_t> ws;
    for (int64_t d : dims) ws.push_back(wrap_dim(d, std::max<int64_t>(x.dim(), 1), "squeeze"));
    std::sort(ws.rbegin(), ws.rend());
    for (int64_t d : ws) r = squeeze(r, d);
    return r;
  }, py::arg("dim") = py::none(), "A view without the size-1 dims (all, or those in dim) (torch.squeeze).");
  both_view(m, cls, "narrow", [](const Tensor& x, int64_t d, int64_t s, int64_t l) { return narrow(x, d, s, l); },
       py::arg("dim"), py::arg("start"), py::arg("length"), Release(),
       "A view of elements start..start+length-1 along dim (torch.narrow).");
  both_view(m, cls, "select", [](const Tensor& x, int64_t d, int64_t i) { return select(x, d, i); }, py::arg("dim"),
       py::arg("index"), Release(), "A view of index along dim, that dim removed: x.select(0, i) is x[i] (torch.select).");
  cls.def("_slice", [](const Tensor& x, int64_t d, int64_t s, int64_t e, int64_t st) { return slice(x, d, s, e, st); },
          py::arg("dim"), py::arg("start"), py::arg("end"), py::arg("step"), Release());
  both_view(m, cls, "split", [](const Tensor& x, py::handle size, int64_t dim) {
    const char* arg = "split_size_or_sections";
    if (py::isinstance<py::int_>(size)) return split(x, int_arg(size, "split", arg), dim);
    return split(x, size_arg(size, "split", arg), dim);
  }, py::arg("split_size_or_sections"), py::arg("dim") = 0,
     "Views of consecutive pieces along dim: of split_size each (the last may be smaller), or of the sizes\n"
     "listed (torch.split).");
  both_view(m, cls, "chunk", [](const Tensor& x, int64_t c, int64_t d) { return chunk(x, c, d); }, py::arg("chunks"),
       py::arg("dim") = 0, Release(), "At most `chunks` views of equal size ceil(n / chunks) along dim (torch.chunk).");
  def_op(m, "cat", [](const TensorList& xs, int64_t dim) { return cat(xs, dim); }, py::arg("tensors"), py::arg("dim") = 0,
        Release(), "The tensors joined along an existing dim; the other dims must agree (torch.cat).");
  def_op(m, "concat", [](const TensorList& xs, int64_t dim) { return cat(xs, dim); }, py::arg("tensors"), py::arg("dim") = 0,
        Release(), "cat's other name (torch.concat).");
  def_op(m, "stack", [](const TensorList& xs, int64_t dim) { return stack(xs, dim); }, py::arg("tensors"), py::arg("dim") = 0,
        Release(), "Tensors of one shape joined along a new dim (torch.stack).");

  // ------------------------------------------------------------ indexing
  cls.def("_index", [](const Tensor& x, std::vector<std::optional<Tensor>> idx) {
    TensorList l;
    for (auto& i : idx) l.push_back(i ? *i : Tensor());
    return index(x, l);
  }, py::arg("indices"), Release());
  both(m, cls, "gather", [](const Tensor& x, int64_t dim, const Tensor& index) { return gather(x, dim, index); },
       py::arg("dim"), py::arg("index"), Release(),
       "out[i][j] = input[index[i][j]][j] for dim=0 (and likewise for other dims); out has index's shape\n"
       "(torch.gather).");
  both(m, cls, "index_select", [](const Tensor& x, int64_t dim, const Tensor& index) { return index_select(x, dim, index); },
       py::arg("dim"), py::arg("index"), Release(), "The entries index (1-d, int64) along dim, copied (torch.index_select).");
  {
    auto f = through_float32("masked_fill", [](const Tensor& x, const Tensor& mask, py::handle value) {
      const double v = py::isinstance<TensorImpl>(value) ? value.cast<Tensor>().item<double>()
                                                         : number_arg(value, "masked_fill", "value");
      return released([&] { return masked_fill(x, mask, v); });
    });
    auto g = [f, fits_16](const Tensor& x, const Tensor& mask, py::handle value) {
      fits_16(x, value, "masked_fill");
      return f(x, mask, value);
    };
    const char* doc = "input with value where mask (broadcast to input) is True (torch.masked_fill).";
    cls.def("masked_fill", g, py::arg("mask"), py::arg("value"), doc);
    m.def("masked_fill", g, py::arg("input"), py::arg("mask"), py::arg("value"), doc);
  }
  both(m, cls, "nonzero", [](const Tensor& x) { return nonzero(x); }, Release(),
       "The indices of the non-zero elements, one row per element: shape (n, input.dim()) (torch.nonzero).");
  both(m, cls, "triu", [](const Tensor& x, int64_t d) { return triu(x, d); }, py::arg("diagonal") = 0, Release(),
       "The upper triangle: elements with j - i >= diagonal kept, the rest 0 (torch.triu).");
  both(m, cls, "tril", [](const Tensor& x, int64_t d) { return tril(x, d); }, py::arg("diagonal") = 0, Release(),
       "The lower triangle: elements with j - i <= diagonal kept, the rest 0 (torch.tril).");

  // ------------------------------------------------------------ softmax family, losses (seqlab.nn.functional)
  both(m, cls, "softmax", [](const Tensor& x, int64_t dim) { return softmax(x, dim); }, py::arg("dim"), Release(),
       "softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x) along dim (torch.softmax).");
  both(m, cls, "log_softmax", [](const Tensor& x, int64_t dim) { return log_softmax(x, dim); },
       py::arg("dim"), Release(), "log_softmax(x)_i = x_i - log sum_j exp(x_j), computed stably along dim (torch.log_softmax).");
  def_op(m, "gelu", [](const Tensor& x, const std::string& approximate) {
    SEQLAB_CHECK(approximate == "none" || approximate == "tanh",
                 "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
    return gelu(x, approximate == "tanh");
  }, py::arg("input"), py::arg("approximate") = "none", Release(),
        "GELU(x) = x * Phi(x), Phi the standard normal CDF; approximate='tanh' uses\n"
        "0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks & Gimpel 2016; F.gelu).");
  def_op(m, "silu", [](const Tensor& x) { return silu(x); }, py::arg("input"), Release(),
        "SiLU(x) = x * sigmoid(x) (Swish-1; F.silu); d/dx = s(x)(1 + x(1 - s(x))).");
  def_op(m, "silu_", [](Tensor& x) { return silu_(x); }, py::arg("input"), Release(),
        "In-place silu: input = input * sigmoid(input).");
  // torch.nn's other pointwise activations (activation_pointwise.cpp); name_ writes into input.
  def_op(m, "elu", [](const Tensor& x, double alpha, double scale, double input_scale) {
    return elu(x, alpha, scale, input_scale);
  }, py::arg("input"), py::arg("alpha") = 1.0, py::arg("scale") = 1.0, py::arg("input_scale") = 1.0, Release(),
        "scale * x for x > 0, scale * alpha * (exp(input_scale * x) - 1) otherwise (F.elu; selu and celu are\n"
        "this with their constants).");
  def_op(m, "elu_", [](Tensor& x, double alpha, double scale, double input_scale) {
    return elu_(x, alpha, scale, input_scale);
  }, py::arg("input"), py::arg("alpha") = 1.0, py::arg("scale") = 1.0, py::arg("input_scale") = 1.0, Release(),
        "In-place elu: input = elu(input).");
  def_op(m, "selu", [](const Tensor& x) { return selu(x); }, py::arg("input"), Release(),
        "scale * elu(x, alpha) with Klambauer et al.'s alpha = 1.6733, scale = 1.0507 (torch.selu).");
  def_op(m, "selu_", [](Tensor& x) { return selu_(x); }, py::arg("input"), Release(), "In-place selu: input = selu(input).");
  def_op(m, "celu", [](const Tensor& x, double alpha) { return celu(x, alpha); }, py::arg("input"), py::arg("alpha") = 1.0,
        Release(), "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (Barron 2017; torch.celu).");
  def_op(m, "celu_", [](Tensor& x, double alpha) { return celu_(x, alpha); }, py::arg("input"), py::arg("alpha") = 1.0,
        Release(), "In-place celu: input = celu(input).");
  def_op(m, "prelu", [](const Tensor& x, const Tensor& w) { return prelu(x, w); }, py::arg("input"), py::arg("weight"),
        Release(), "x for x > 0, weight * x otherwise, weight per channel (dim 1) or a single one (He et al. 2015; F.prelu).");
  def_op(m, "softmin", [](const Tensor& x, int64_t dim) { return softmin(x, dim); }, py::arg("input"), py::arg("dim"),
        Release(), "softmax(-x) along dim (F.softmin).");
  def_op(m, "glu", [](const Tensor& x, int64_t dim) { return glu(x, dim); }, py::arg("input"), py::arg("dim") = -1,
        Release(), "a * sigmoid(b), a and b the halves of input along dim (Dauphin et al. 2017; F.glu).");
  def_op(m, "leaky_relu", [](const Tensor& x, double k) { return leaky_relu(x, k); }, py::arg("input"),
        py::arg("negative_slope") = 0.01, Release(), "x for x > 0, negative_slope * x otherwise (F.leaky_relu).");
  def_op(m, "leaky_relu_", [](Tensor& x, double k) { return leaky_relu_(x, k); }, py::arg("input"),
        py::arg("negative_slope") = 0.01, Release(), "In-place leaky_relu: input = leaky_relu(input).");
  def_op(m, "softplus", [](const Tensor& x, double beta, double th) { return softplus(x, beta, th); }, py::arg("input"),
        py::arg("beta") = 1.0, py::arg("threshold") = 20.0, Release(),
        "log(1 + exp(beta * x)) / beta, or x where beta * x > threshold (F.softplus).");
  def_op(m, "hardtanh", [](const Tensor& x, double lo, double hi) { return hardtanh(x, lo, hi); }, py::arg("input"),
        py::arg("min_val") = -1.0, py::arg("max_val") = 1.0, Release(),
        "min(max(x, min_val), max_val); the gradient is 0 at and beyond the kinks (F.hardtanh).");
  def_op(m, "hardtanh_", [](Tensor& x, double lo, double hi) { return hardtanh_(x, lo, hi); }, py::arg("input"),
        py::arg("min_val") = -1.0, py::arg("max_val") = 1.0, Release(), "In-place hardtanh: input = hardtanh(input).");
  def_op(m, "log_sigmoid", [](const Tensor& x) { return log_sigmoid(x); }, py::arg("input"), Release(),
        "log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)) (F.logsigmoid).");
  def_op(m, "mish", [](const Tensor& x) { return mish(x); }, py::arg("input"), Release(),
        "x * tanh(softplus(x)) (Misra 2019; F.mish).");
  def_op(m, "mish_", [](Tensor& x) { return mish_(x); }, py::arg("input"), Release(), "In-place mish: input = mish(input).");
  def_op(m, "softsign", [](const Tensor& x) { return softsign(x); }, py::arg("input"), Release(),
        "x / (1 + |x|) (F.softsign).");
  def_op(m, "tanhshrink", [](const Tensor& x) { return tanhshrink(x); }, py::arg("input"), Release(),
        "x - tanh(x) (F.tanhshrink).");
  def_op(m, "hardsigmoid", [](const Tensor& x) { return hardsigmoid(x); }, py::arg("input"), Release(),
        "min(max(x + 3, 0), 6) / 6 (F.hardsigmoid).");
  def_op(m, "hardsigmoid_", [](Tensor& x) { return hardsigmoid_(x); }, py::arg("input"), Release(),
        "In-place hardsigmoid: input = hardsigmoid(input).");
  def_op(m, "hardswish", [](const Tensor& x) { return hardswish(x); }, py::arg("input"), Release(),
        "x * min(max(x + 3, 0), 6) / 6 (Howard et al. 2019; F.hardswish).");
  def_op(m, "hardswish_", [](Tensor& x) { return hardswish_(x); }, py::arg("input"), Release(),
        "In-place hardswish: input = hardswish(input).");
  def_op(m, "threshold", [](const Tensor& x, double th, double v) { return threshold(x, th, v); }, py::arg("input"),
        py::arg("threshold"), py::arg("value"), Release(), "x where x > threshold, else value (F.threshold).");
  def_op(m, "threshold_", [](Tensor& x, double th, double v) { return threshold_(x, th, v); }, py::arg("input"),
        py::arg("threshold"), py::arg("value"), Release(), "In-place threshold: input = threshold(input).");
  def_op(m, "cross_entropy", [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight,
                            int64_t ignore_index, const std::string& reduction, double label_smoothing) {
    return cross_entropy(input, target, weight ? *weight : Tensor(), ignore_index, parse_reduction(reduction),
                         label_smoothing);
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0, Release(),
        "loss_n = -log softmax(input_n)[target_n] (class indices) or -sum_c target_nc log softmax(input_n)_c\n"
        "(probabilities), weighted, ignoring ignore_index, reduced by 'mean', 'sum' or 'none' (F.cross_entropy).");
  def_op(m, "nll_loss", [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight, int64_t ignore_index,
                       const std::string& reduction) {
    return nll_loss(input, target, weight ? *weight : Tensor(), ignore_index, parse_reduction(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean", Release(),
        "loss_n = -weight[target_n] * input[n, target_n] for log-probabilities input (F.nll_loss).");
  def_op(m, "mse_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction) {
    return mse_loss(input, target, parse_reduction(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", Release(),
        "(input - target)^2, reduced by 'mean', 'sum' or 'none' (F.mse_loss).");
  def_op(m, "binary_cross_entropy_with_logits", [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight,
                                               const std::string& reduction, std::optional<Tensor> pos_weight) {
    return binary_cross_entropy_with_logits(input, target, weight ? *weight : Tensor(), parse_reduction(reduction),
                                            pos_weight ? *pos_weight : Tensor());
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
        py::arg("pos_weight") = py::none(), Release(),
        "-w [pos_weight y log s(x) + (1 - y) log(1 - s(x))], s the sigmoid, computed stably from the logits x\n"
        "(F.binary_cross_entropy_with_logits).");
  def_op(m, "dropout", [](const Tensor& x, double p, bool training) { return dropout(x, p, training); }, py::arg("input"),
        py::arg("p") = 0.5, py::arg("training") = true, Release(),
        "In training, each element is zeroed with probability p and the rest scaled by 1 / (1 - p)\n"
        "(Srivastava et al. 2014; F.dropout); the input itself otherwise.");
  // torch.alpha_dropout, feature_alpha_dropout (random.cpp): F.alpha_dropout, F.feature_alpha_dropout
  // and the C++ twins call these (torch.feature_dropout is bind_nn.cpp's, shrink.cpp).
  def_op(m, "alpha_dropout", [](const Tensor& x, double p, bool train) { return alpha_dropout(x, p, train); },
        py::arg("input"), py::arg("p"), py::arg("train"), Release(),
        "Alpha dropout (Klambauer et al. 2017; torch.alpha_dropout): in training each element is set to SELU's\n"
        "saturation with probability p, then all scaled and shifted to keep zero mean and unit variance.");
  def_op(m, "feature_alpha_dropout", [](const Tensor& x, double p, bool train) { return feature_alpha_dropout(x, p, train); },
        py::arg("input"), py::arg("p"), py::arg("train"), Release(),
        "Alpha dropout of whole (n, c) channels of input (N, C, ...) (torch.feature_alpha_dropout).");

  // cumsum(input, dim, *, dtype=None), cumprod: scan.cpp.
  both(m, cls, "cumsum", [](const Tensor& x, int64_t dim, std::optional<Dtype> d) { return cumsum(x, dim, d); },
       py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none(), Release(),
       "Cumulative sum along dim: y_i = x_0 + ... + x_i (torch.cumsum). Integers and bools give int64\n"
       "unless dtype= says otherwise; dtype= casts the input first.");
  both(m, cls, "cumprod", [](const Tensor& x, int64_t dim, std::optional<Dtype> d) { return cumprod(x, dim, d); },
       py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none(), Release(),
       "Cumulative product along dim: y_i = x_0 * ... * x_i (torch.cumprod), differentiable also\n"
       "where x has zeros.");

  // prod(input, dim=None, keepdim=False, *, dtype=None): scan.cpp.
  both(m, cls, "prod", [](const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<Dtype> d) {
    return prod(x, dim, keepdim, d);
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none(), Release(),
       "The product of all elements, or along dim (keepdim keeps it as size 1) (torch.prod). Integers and\n"
       "bools give int64 unless dtype= says otherwise; dtype= casts the input first. Differentiable also\n"
       "where the input has zeros.");

  // ------------------------------------------------------------ creation (the random ops: bind_random.cpp)
  m.def("_empty", [](const Shape& s, Dtype d) { return Tensor::empty(s, d); }, py::arg("size"), py::arg("dtype"));
  // (a fill converts one value and copies it: float16 and bfloat16 directly, with their overflow check)
  m.def("_full", [](const Shape& s, double v, Dtype d) { return full(s, v, d); }, py::arg("size"), py::arg("fill_value"),
        py::arg("dtype"), Release());
  def_op(m, "_arange", [](double a, double b, double st, Dtype d) { return arange(a, b, st, d); }, py::arg("start"),
        py::arg("end"), py::arg("step"), py::arg("dtype"), Release());
  def_op(m, "_eye", [](int64_t n, int64_t mm, Dtype d) { return eye(n, mm, d); }, py::arg("n"), py::arg("m"),
        py::arg("dtype"), Release());
  m.def("_max_threads", &max_threads, "the most threads set_num_threads and the embedding trainers' workers accept");
  m.def("_set_default_float_dtype", [](Dtype d) {
    SEQLAB_CHECK_TYPE(is_floating(d), "only floating-point types are supported as the default type");
    // a float16/bfloat16 default: the kernels promote to float32 and the bindings round (bind_reduced_float.hpp)
    reduced::set_default_dtype(d);
    set_default_float_dtype(is_reduced_float(d) ? Dtype::Float32 : d);
  }, py::arg("d"), "The float dtype integers promote to in ops (seqlab.set_default_dtype sets it).");
  m.def("set_num_threads", [](const py::int_& n) {
    // A Python int beyond int64 is refused as 10**6 is (pybind11 alone would say "incompatible arguments").
    if (n < py::int_(1))
      throw std::runtime_error("set_num_threads expects a positive integer, got " + std::string(py::str(n)));
    if (n > py::int_(max_threads()))
      throw std::runtime_error("set_num_threads: " + std::string(py::str(n)) + " threads is more than " +
                               std::to_string(max_threads()) + ", 4 per CPU of this machine");
    set_num_threads(n.cast<int64_t>());
  }, py::arg("n"), "Use n threads for seqlab's loops and the BLAS (torch.set_num_threads).");
  m.def("get_num_threads", &get_num_threads, "The number of threads seqlab's loops and the BLAS use (torch.get_num_threads).");
  m.def("set_flush_denormal", &set_flush_denormal, py::arg("mode"),
        "mode=True flushes denormal floats to zero (they slow x86 arithmetic); returns True if supported\n"
        "(torch.set_flush_denormal).");
  m.def("_blas_info", &blas_info, "The BLAS in use and the kernel it chose.");
  // The instruction set of every dispatcher (simd/isa.hpp): SEQLAB_ISA is read at import
  // (module.cpp); _set_isa is the tests' way to run each kernel on each level the CPU has.
  m.def("_simd_isa", [] { return simd::isa_name(simd::active_isa()); },
        "The instruction set every SIMD dispatcher uses now: sse2, avx2 or avx512.");
  m.def("_cpu_isa", [] { return simd::isa_name(simd::cpu_isa()); }, "The best instruction set this CPU has.");
  m.def("_available_isas", [] {
    std::vector<std::string> out;
    for (simd::Isa isa : simd::available_isas()) out.emplace_back(simd::isa_name(isa));
    return out;
  }, "Every instruction set level this CPU has, lowest first.");
  m.def("_set_isa", [](const std::string& name) { simd::set_isa(simd::parse_isa(name)); }, py::arg("isa"),
        "Caps every SIMD dispatcher at `isa` from the next op on (ValueError if the CPU lacks it).");
  m.def("_panel_width", [](bool is_double) { return simd::panel_width(is_double); }, py::arg("is_double") = false,
        "Columns per panel of the recurrent and attention GEMM kernel at the active instruction set.");
  m.def("_panel_tile", [] { return simd::panel_tile(); },
        "(rows, registers) of the panel GEMM's register tile at the active instruction set.");
  m.def("_build_info", [] {
    py::dict d;
    d["compiler"] = std::string("GCC ") + __VERSION__;
    d["build_type"] = SEQLAB_BUILD_TYPE;
    d["cxx_standard"] = std::to_string(__cplusplus);
    return d;
  }, "How _core was compiled: the compiler, the CMake build type, the C++ standard.");
}

}  // namespace seqlab::bind
