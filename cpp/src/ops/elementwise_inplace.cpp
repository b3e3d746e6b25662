// In-place pointwise ops (add_, mul_, %=, &=, <<=, sin_, floor_, clamp_, ...): self = op(self, other)
// written back into self, or under autograd computed from a copy and rebased (autograd/inplace.cpp).
// Tests: tests/test_elementwise.py, tests/test_autograd.py.
#include "autograd/ops_used.hpp"  // declares clone, copy_, ... for autograd/
#include "elementwise_impl.hpp"
#include "seqlab/default_dtype.hpp"
#include "seqlab/ops/shape.hpp"
#include "seqlab/autograd.hpp"

namespace seqlab {

Tensor& inplace_binary(Tensor& self, const Tensor& other, InplaceOp op, double alpha) {
  static const char* names[] = {"add_", "sub_", "mul_", "div_", "remainder_", "fmod_", "floor_divide_",
                                "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
                                "bitwise_right_shift_"};
  const char* name = names[static_cast<int>(op)];
  check_inplace(self, name);
  assert_no_internal_overlap(self, name);
  auto compute = [&](const Tensor& a) {
    switch (op) {
      case InplaceOp::Add: return add(a, other, alpha);
      case InplaceOp::Sub: return sub(a, other, alpha);
      case InplaceOp::Mul: return mul(a, other);
      case InplaceOp::Div: return div(a, other);
      case InplaceOp::Remainder: return remainder(a, other);
      case InplaceOp::Fmod: return fmod(a, other);
      case InplaceOp::FloorDivide: return floor_divide(a, other);
      case InplaceOp::BitwiseAnd: return bitwise_and(a, other);
      case InplaceOp::BitwiseOr: return bitwise_or(a, other);
      case InplaceOp::BitwiseXor: return bitwise_xor(a, other);
      case InplaceOp::LeftShift: return bitwise_left_shift(a, other);
      case InplaceOp::RightShift: return bitwise_right_shift(a, other);
    }
    return Tensor();
  };
  const bool track = GradMode::is_enabled() && (self.requires_grad() || other.requires_grad());
  if (track) {
    // Compute from a copy: the backward may need self's old value, which this op overwrites
    // (PyTorch's "original_self").
    rebase_history(self, compute(clone(self)), name);
    return self;
  }
  const Dtype result = op == InplaceOp::Div && !is_floating(self.dtype()) ? default_float_dtype()
                                                                          : promote(self.dtype(), other.dtype());
  SEQLAB_CHECK(result == self.dtype() || (self.dtype() != Dtype::Bool && !is_floating(result)) ||
                   is_floating(self.dtype()),
               "result type ", scalar_type_name(result), " can't be cast to the desired output type ",
               scalar_type_name(self.dtype()), " (", name, ")");
  const Shape shape = broadcast_shapes(self.shape(), other.shape(), name);
  SEQLAB_CHECK(shape == self.shape(), name, ": output with shape ", shape_str(self.shape()),
               " doesn't match the broadcast shape ", shape_str(shape));
  const bool direct = op == InplaceOp::Add || op == InplaceOp::Sub || op == InplaceOp::Mul;
  if (direct && self.is_contiguous() && other.dtype() == self.dtype()) {
    // Write straight into self: out[i] depends on self[i] only, so aliasing is safe.
    dispatch_arith(self.dtype(), name, [&](auto tag) {
      using T = decltype(tag);
      const T al = static_cast<T>(alpha);
      switch (op) {
        case InplaceOp::Add: binary_kernel<T, T>(self, self, other, [al](T x, T y) { return wrap_add(x, wrap_mul(al, y)); }); break;
        case InplaceOp::Sub: binary_kernel<T, T>(self, self, other, [al](T x, T y) { return wrap_add(x, wrap_neg(wrap_mul(al, y))); }); break;
        default: binary_kernel<T, T>(self, self, other, [](T x, T y) { return wrap_mul(x, y); }); break;
      }
    });
  } else {
    copy_kernel(self, compute(self));
  }
  self.bump_version();
  return self;
}

Tensor& add_(Tensor& self, const Tensor& other, double alpha) {
  return inplace_binary(self, other, InplaceOp::Add, alpha);
}

Tensor& clamp_(Tensor& self, std::optional<double> lo, std::optional<double> hi) {
  check_inplace(self, "clamp_");
  SEQLAB_CHECK_TYPE(!fractional_bound(self, lo, hi), "result type Float can't be cast to the desired output type ",
                    scalar_type_name(self.dtype()));
  assert_no_internal_overlap(self, "clamp_");
  const bool track = GradMode::is_enabled() && self.requires_grad();
  Tensor r = clamp(track ? clone(self) : self, lo, hi);
  if (track) {
    rebase_history(self, r, "clamp_");
  } else {
    copy_kernel(self, r);
    self.bump_version();
  }
  return self;
}

// x.sin_(), x.floor_(), ...: self = op(self). torch refuses a result of another dtype (the float
// ops on an integer tensor) before writing anything.
Tensor& inplace_unary(Tensor& self, UnaryOp op, std::optional<int64_t> decimals) {
  static const char* names[] = {"sin_",   "cos_",  "tan_",   "log2_",  "log10_", "log1p_", "expm1_",
                                "erf_",   "erfc_", "erfinv_", "rsqrt_", "sign_",  "floor_", "ceil_",
                                "trunc_", "round_", "frac_",  "bitwise_not_"};
  const char* name = names[static_cast<int>(op)];
  check_inplace(self, name);
  assert_no_internal_overlap(self, name);
  const bool to_float = op <= UnaryOp::Rsqrt;  // sin .. rsqrt compute integers in float32
  SEQLAB_CHECK_TYPE(!to_float || is_floating(self.dtype()),
                    "result type Float can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  auto compute = [&](const Tensor& x) {
    switch (op) {
      case UnaryOp::Sin: return sin(x);
      case UnaryOp::Cos: return cos(x);
      case UnaryOp::Tan: return tan(x);
      case UnaryOp::Log2: return log2(x);
      case UnaryOp::Log10: return log10(x);
      case UnaryOp::Log1p: return log1p(x);
      case UnaryOp::Expm1: return expm1(x);
      case UnaryOp::Erf: return erf(x);
      case UnaryOp::Erfc: return erfc(x);
      case UnaryOp::Erfinv: return erfinv(x);
      case UnaryOp::Rsqrt: return rsqrt(x);
      case UnaryOp::Sign: return sign(x);
      case UnaryOp::Floor: return floor(x);
      case UnaryOp::Ceil: return ceil(x);
      case UnaryOp::Trunc: return trunc(x);
      case UnaryOp::Round: return round(x, decimals);
      case UnaryOp::Frac: return frac(x);
      case UnaryOp::BitwiseNot: return bitwise_not(x);
    }
    return Tensor();
  };
  const bool track = GradMode::is_enabled() && self.requires_grad();
  if (track) {
    rebase_history(self, compute(clone(self)), name);  // (a copy: the backward may need the old self)
    return self;
  }
  copy_kernel(self, compute(self));
  self.bump_version();
  return self;
}
}  // namespace seqlab
