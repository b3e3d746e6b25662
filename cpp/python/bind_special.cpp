// Bindings of cpp/src/ops/special.cpp: torch's top-level gamma family and special functions
// (seqlab.lgamma, x.lgamma(), x.lgamma_(), ...) and the kernels only torch.special has, in
// seqlab._core.special (python/seqlab/special.py gives them torch.special's layout).
#include "bind_common.hpp"
#include "seqlab/ops/polynomials.hpp"
#include "seqlab/ops/special.hpp"

namespace seqlab::bind {
namespace {

// (input, other) of a function taking a tensor and a tensor or a number on either side, as
// torch.special.zeta and xlog1py (a number is a wrapped number next to the tensor).
std::pair<Tensor, Tensor> tensor_or_number(const char* fn, py::handle input, py::handle other,
                                           const char* other_name = "other") {
  const bool input_tensor = py::isinstance<TensorImpl>(input), other_tensor = py::isinstance<TensorImpl>(other);
  if (!input_tensor && !other_tensor)
    throw py::type_error(str_cat(fn, "() received an invalid combination of arguments - got (", type_name(input), ", ",
                                 type_name(other), "), but expected a Tensor for 'input' or '", other_name, "'"));
  if (input_tensor) {
    const Tensor x = input.cast<Tensor>();
    return {x, operand_arg(other, x, fn, other_name)};
  }
  const Tensor y = other.cast<Tensor>();
  return {operand_arg(input, y, fn, "input"), y};
}

}  // namespace

void bind_special(py::module_& m) {
  auto cls = py::reinterpret_borrow<TensorClass>(m.attr("Tensor"));

  // ------------------------------------------------------------ torch.* and Tensor methods
  using Unary = Tensor (*)(const Tensor&);
  using InPlace = Tensor& (*)(Tensor&);
  const std::tuple<const char*, const char*, Unary, InPlace, const char*> unary[] = {
      {"lgamma", "lgamma_", [](const Tensor& x) { return lgamma(x); }, [](Tensor& x) -> Tensor& { return lgamma_(x); },
       "out = ln|Gamma(input)|; inf at 0 and the negative integers; d/dx = digamma(x) (torch.lgamma)."},
      {"digamma", "digamma_", [](const Tensor& x) { return digamma(x); },
       [](Tensor& x) -> Tensor& { return digamma_(x); },
       "out = digamma(input) = Gamma'(x)/Gamma(x); -inf at 0, NaN at the negative integers; d/dx = polygamma(1, x) "
       "(torch.digamma)."},
      {"i0", "i0_", [](const Tensor& x) { return i0(x); }, [](Tensor& x) -> Tensor& { return i0_(x); },
       "out = I0(input), the modified Bessel function of the first kind of order 0; d/dx = I1(x) (torch.i0)."},
      {"sinc", "sinc_", [](const Tensor& x) { return sinc(x); }, [](Tensor& x) -> Tensor& { return sinc_(x); },
       "out = sin(pi x)/(pi x), 1 at 0, the normalized sinc function (torch.sinc)."},
      {"exp2", "exp2_", [](const Tensor& x) { return exp2(x); }, [](Tensor& x) -> Tensor& { return exp2_(x); },
       "out = 2^input (torch.exp2)."}};
  for (auto [name, inplace_name, fn, fn_, doc] : unary) {
    both(m, cls, name, fn, Release(), doc);
    def_op(cls, inplace_name, [f = fn_](Tensor& x) -> Tensor { return f(x); }, Release(),
            "In place: self = f(self), f as the method without the underscore (self must be floating point).");
  }

  def_op(m, "polygamma", [](int64_t n, const Tensor& x) { return polygamma(n, x); }, py::arg("n"), py::arg("input"),
        Release(),
        "out = the n-th derivative of digamma at input, (-1)^(n+1) n! zeta(n+1, input) for n >= 1; d/dx = "
        "polygamma(n+1, x) (torch.polygamma).");
  def_op(cls, "polygamma", [](const Tensor& x, int64_t n) { return polygamma(n, x); }, py::arg("n"), Release(),
          "polygamma(n, self): the n-th derivative of digamma (torch.Tensor.polygamma).");
  def_op(cls, "polygamma_", [](Tensor& x, int64_t n) -> Tensor { return polygamma_(x, n); }, py::arg("n"), Release(),
          "In place: self = polygamma(n, self).");
  both(m, cls, "mvlgamma", [](const Tensor& x, int64_t p) { return mvlgamma(x, p); }, py::arg("p"), Release(),
       "out = the multivariate log-gamma of dimension p, p(p-1)/4 ln(pi) + sum_{j<p} lgamma(input - j/2); p >= 1 "
       "(torch.mvlgamma).");
  def_op(cls, "mvlgamma_", [](Tensor& x, int64_t p) -> Tensor { return mvlgamma_(x, p); }, py::arg("p"), Release(),
          "In place: self = mvlgamma(self, p).");
  both(m, cls, "logit", [](const Tensor& x, std::optional<double> eps) { return logit(x, eps); },
       py::arg("eps") = py::none(), Release(),
       "out = ln(z/(1-z)) with z = input clamped to [eps, 1-eps] when eps is given (NaN outside [0, 1] "
       "without it) (torch.logit).");
  def_op(cls, "logit_", [](Tensor& x, std::optional<double> eps) -> Tensor { return logit_(x, eps); },
          py::arg("eps") = py::none(), Release(), "In place: self = logit(self, eps).");
  both(m, cls, "igamma", [](const Tensor& a, const Tensor& x) { return igamma(a, x); }, py::arg("other"), Release(),
       "out = P(input, other), the regularized lower incomplete gamma function; gradient for other only "
       "(torch.igamma).");
  both(m, cls, "igammac", [](const Tensor& a, const Tensor& x) { return igammac(a, x); }, py::arg("other"), Release(),
       "out = Q(input, other) = 1 - P(input, other), the regularized upper incomplete gamma function; gradient for "
       "other only (torch.igammac).");
  def_op(cls, "igamma_", [](Tensor& a, const Tensor& x) -> Tensor { return igamma_(a, x); }, py::arg("other"), Release(),
          "In place: self = igamma(self, other).");
  def_op(cls, "igammac_", [](Tensor& a, const Tensor& x) -> Tensor { return igammac_(a, x); }, py::arg("other"),
          Release(), "In place: self = igammac(self, other).");

  // ------------------------------------------------------------ torch.special only
  py::module_ s = m.def_submodule("special", "torch.special's kernels (python/seqlab/special.py re-exports them)");
  const std::tuple<const char*, Unary, const char*> special_unary[] = {
      {"i0e", [](const Tensor& x) { return i0e(x); }, "out = exp(-|input|) I0(input) (torch.special.i0e)."},
      {"i1", [](const Tensor& x) { return i1(x); },
       "out = I1(input), the modified Bessel function of the first kind of order 1 (torch.special.i1)."},
      {"i1e", [](const Tensor& x) { return i1e(x); }, "out = exp(-|input|) I1(input) (torch.special.i1e)."},
      {"erfcx", [](const Tensor& x) { return erfcx(x); },
       "out = exp(input^2) erfc(input), the scaled complementary error function (torch.special.erfcx)."},
      {"ndtri", [](const Tensor& x) { return ndtri(x); },
       "out = the x with Phi(x) = input, the inverse of the standard normal CDF; -inf at 0, inf at 1, NaN outside "
       "[0, 1] (torch.special.ndtri)."},
      {"log_ndtr", [](const Tensor& x) { return log_ndtr(x); },
       "out = ln Phi(input), the log of the standard normal CDF, exact far into the lower tail "
       "(torch.special.log_ndtr)."},
      {"entr", [](const Tensor& x) { return entr(x); },
       "out = -input ln(input) for input > 0, 0 at 0, -inf below (torch.special.entr)."}};
  // torch computes i0e, i1, i1e and entr for float16/bfloat16 (in float32); erfcx, ndtri and log_ndtr it
  // refuses, and so do their kernels here
  for (auto [name, fn, doc] : special_unary) {
    const std::string n = name;
    if (n == "erfcx" || n == "ndtri" || n == "log_ndtr")
      s.def(name, fn, py::arg("input"), Release(), doc);
    else
      def_op(s, name, fn, py::arg("input"), Release(), doc);
  }
  const std::tuple<const char*, BesselOp, const char*> bessel_ops[] = {
      {"bessel_j0", BesselOp::J0, "out = J0(input), the Bessel function of the first kind of order 0."},
      {"bessel_j1", BesselOp::J1, "out = J1(input), the Bessel function of the first kind of order 1."},
      {"bessel_y0", BesselOp::Y0, "out = Y0(input), the Bessel function of the second kind of order 0."},
      {"bessel_y1", BesselOp::Y1, "out = Y1(input), the Bessel function of the second kind of order 1."},
      {"modified_bessel_i0", BesselOp::I0, "out = I0(input), the modified Bessel function of the first kind."},
      {"modified_bessel_i1", BesselOp::I1, "out = I1(input), the modified Bessel function of the first kind."},
      {"modified_bessel_k0", BesselOp::K0, "out = K0(input), the modified Bessel function of the second kind."},
      {"modified_bessel_k1", BesselOp::K1, "out = K1(input), the modified Bessel function of the second kind."},
      {"scaled_modified_bessel_k0", BesselOp::K0Scaled, "out = exp(input) K0(input)."},
      {"scaled_modified_bessel_k1", BesselOp::K1Scaled, "out = exp(input) K1(input)."},
      {"spherical_bessel_j0", BesselOp::SphericalJ0,
       "out = j0(input) = sin(input)/input, the spherical Bessel function of the first kind of order 0."},
      {"airy_ai", BesselOp::AiryAi, "out = Ai(input), the Airy function of the first kind."}};
  for (auto [name, op, doc] : bessel_ops)
    s.def(name, [op = op](const Tensor& x) { return bessel(x, op); }, py::arg("input"), Release(),
          str_cat(doc, " No gradient, as torch.special.", name, ".").c_str());
  // torch has no float16/bfloat16 zeta on CPU: the kernel refuses them, as torch's
  s.def("zeta", [](py::handle input, py::handle other) {
    auto [x, q] = tensor_or_number("zeta", input, other);
    return released([&] { return zeta(x, q); });
  }, py::arg("input"), py::arg("other"),
        "out = the Hurwitz zeta function sum_k (k + other)^-input; gradient for other only (torch.special.zeta).");
  def_op(s, "xlog1py", [](py::handle input, py::handle other) {
    auto [x, y] = tensor_or_number("xlog1py", input, other);
    return released([&] { return xlog1py(x, y); });
  }, py::arg("input"), py::arg("other"),
        "out = input * log1p(other), 0 where input is 0 unless other is NaN (torch.special.xlog1py).");

  const std::tuple<Polynomial, const char*> polynomials[] = {
      {Polynomial::ChebyshevT, "T_n(input), the Chebyshev polynomial of the first kind"},
      {Polynomial::ChebyshevU, "U_n(input), the Chebyshev polynomial of the second kind"},
      {Polynomial::ChebyshevV, "V_n(input), the Chebyshev polynomial of the third kind"},
      {Polynomial::ChebyshevW, "W_n(input), the Chebyshev polynomial of the fourth kind"},
      {Polynomial::ShiftedChebyshevT, "T_n(2 input - 1), the shifted Chebyshev polynomial of the first kind"},
      {Polynomial::ShiftedChebyshevU, "U_n(2 input - 1), the shifted Chebyshev polynomial of the second kind"},
      {Polynomial::ShiftedChebyshevV, "V_n(2 input - 1), the shifted Chebyshev polynomial of the third kind"},
      {Polynomial::ShiftedChebyshevW, "W_n(2 input - 1), the shifted Chebyshev polynomial of the fourth kind"},
      {Polynomial::HermiteH, "H_n(input), the physicists' Hermite polynomial"},
      {Polynomial::HermiteHe, "He_n(input), the probabilists' Hermite polynomial"},
      {Polynomial::LaguerreL, "L_n(input), the Laguerre polynomial"},
      {Polynomial::LegendreP, "P_n(input), the Legendre polynomial"}};
  for (auto [kind, what] : polynomials) {
    const char* name = polynomial_name(kind);
    s.def(name, [kind = kind, name](py::handle input, py::handle n) {
      auto [x, nt] = tensor_or_number(name, input, n, "n");
      return released([&] { return polynomial(x, nt, kind); });
    }, py::arg("input"), py::arg("n"),
          str_cat("out = ", what, " of degree n (truncated to an integer; 0 for n < 0). No gradient, as "
                  "torch.special.", name, ".").c_str());
  }
}

}  // namespace seqlab::bind
