// torch.nn's pointwise activations beyond relu/tanh/sigmoid/gelu/silu: ELU (SELU, CELU), LeakyReLU,
// Softplus, Hardtanh (ReLU6), LogSigmoid, Mish, Softsign, Tanhshrink, Hardsigmoid, Hardswish,
// Threshold; each forward with its backward closure below it, and the in-place forms
// (elu_, ...) as torch's: under autograd computed from a copy of self and rebased.
// Equations and kinks follow torch's CPU kernels (aten/src/ATen/native/cpu/Activation.cpp).
// Tests: tests/test_activations.py.
#include "seqlab/ops/activation.hpp"
#include "seqlab/default_dtype.hpp"

#include <cmath>
#include <limits>

#include "elementwise_impl.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

// torch has no integer kernel for these: NotImplementedError "\"elu_cpu\" not implemented for 'Long'".
void require_floating(const Tensor& x, const char* kernel) {
  SEQLAB_CHECK_IMPL(is_floating(x.dtype()), "\"", kernel, "\" not implemented for '", scalar_type_name(x.dtype()), "'");
}

// y[i] = f(x[i]) for a float tensor; make_f(T{}) returns f.
template <typename MakeF>
Tensor float_map(const Tensor& x, const char* op, MakeF make_f) {
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    unary_kernel<T, T>(y, x, make_f(tag));
  });
  return y;
}

// A pointwise activation y = f(x) whose backward is dx = df(g, x): records `node` with x saved.
template <typename MakeF, typename MakeDF>
Tensor pointwise(const Tensor& x, const char* op, const char* node, MakeF make_f, MakeDF make_df) {
  Tensor y = float_map(x, op, make_f);
  if (any_requires_grad({x}))
    attach(y, node, {x}, [sx = save(x), op, make_df](const Tensor& g) -> TensorList {
      const Tensor xs = sx.unpack();
      Tensor dx = Tensor::empty(xs.shape(), xs.dtype());
      dispatch_float(xs.dtype(), op, [&](auto tag) {
        using T = decltype(tag);
        binary_kernel<T, T>(dx, g, xs, make_df(tag));
      });
      return {dx};
    });
  return y;
}

// self = compute(self), as torch's in-place activations: refused on a leaf that requires grad;
// under autograd the result is computed from a copy of self and self's history rebased onto it.
template <typename F>
Tensor& inplace(Tensor& self, const char* name, F compute) {
  check_inplace(self, name);
  assert_no_internal_overlap(self, name);
  if (GradMode::is_enabled() && self.requires_grad()) {
    rebase_history(self, compute(clone(self)), name);
    return self;
  }
  copy_kernel(self, compute(self));
  self.bump_version();
  return self;
}

// torch's in-place elu_ (celu_) and leaky_relu_ compute their gradient from the result, which a negative
// alpha (slope) makes ambiguous: the forward runs and the backward raises torch's error (when it runs,
// as torch's). y is the result computed from t detached; `node` is recorded with t as its input.
Tensor refuse_backward(const Tensor& t, Tensor y, const char* node, const char* message) {
  if (any_requires_grad({t}))
    attach(y, node, {t}, [message](const Tensor&) -> TensorList {
      SEQLAB_CHECK(false, message);
      return {};
    });
  return y;
}

// The C type torch names in its Scalar conversion errors ("value cannot be converted to type int8_t ...").
const char* scalar_c_name(Dtype d) {
  switch (d) {
    case Dtype::UInt8: return "uint8_t";
    case Dtype::Int8: return "int8_t";
    case Dtype::Int16: return "int16_t";
    case Dtype::Int32: return "int";
    case Dtype::Int64: return "int64_t";
    default: return scalar_type_name(d);
  }
}

// log(1 + e^z) without overflow: max(z, 0) + log1p(e^-|z|).
template <typename T>
T softplus1(T z) { return std::max(z, T(0)) + std::log1p(std::exp(-std::abs(z))); }
template <typename T>
T sigmoid1(T z) { return T(1) / (T(1) + std::exp(-z)); }

}  // namespace

Tensor& relu_(Tensor& x) { return inplace(x, "relu_", [](const Tensor& t) { return relu(t); }); }
Tensor& silu_(Tensor& x) { return inplace(x, "silu_", [](const Tensor& t) { return silu(t); }); }

// ELU (Clevert et al. 2016), SELU (Klambauer et al. 2017) and CELU (Barron 2017) in one, as torch:
//   y = scale·x                              x > 0
//   y = scale·alpha·(e^(input_scale·x) − 1)    x ≤ 0
//   dx = g·scale  |  g·scale·alpha·input_scale·e^(input_scale·x)   (the x ≤ 0 branch at 0, as torch)
// The backward tests x ≤ 0 first, as torch's kernel: at NaN the gradient is g·scale (1, 1.0507 for selu).
Tensor elu(const Tensor& x, double alpha, double scale, double input_scale) {
  require_floating(x, "elu_cpu");
  return pointwise(x, "elu", "EluBackward0",
      [=](auto tag) {
        using T = decltype(tag);
        const T a = T(alpha * scale), s = T(scale), is = T(input_scale);
        return [=](T v) { return v > T(0) ? v * s : a * std::expm1(v * is); };
      },
      [=](auto tag) {
        using T = decltype(tag);
        const T a = T(alpha * scale * input_scale), s = T(scale), is = T(input_scale);
        return [=](T gv, T v) { return v <= T(0) ? gv * a * std::exp(v * is) : gv * s; };
      });
}
namespace {
// elu_ and celu_ (torch's node names for the refused backward: EluBackward1, CeluBackward1).
Tensor& elu_inplace(Tensor& x, double alpha, double scale, double input_scale, const char* node) {
  return inplace(x, "elu_", [&](const Tensor& t) {
    if (alpha >= 0) return elu(t, alpha, scale, input_scale);
    return refuse_backward(t, elu(t.detach(), alpha, scale, input_scale), node,
        "In-place elu backward calculation is triggered with a negative slope which is not supported. This is "
        "caused by calling in-place forward function with a negative slope, please call out-of-place version "
        "instead.");
  });
}
}  // namespace
Tensor& elu_(Tensor& x, double alpha, double scale, double input_scale) {
  return elu_inplace(x, alpha, scale, input_scale, "EluBackward1");
}

Tensor selu(const Tensor& x) { return elu(x, kSeluAlpha, kSeluScale); }
Tensor& selu_(Tensor& x) { return elu_(x, kSeluAlpha, kSeluScale); }
Tensor celu(const Tensor& x, double alpha) {
  SEQLAB_CHECK(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return elu(x, alpha, 1.0, 1.0 / alpha);
}
Tensor& celu_(Tensor& x, double alpha) {
  SEQLAB_CHECK(alpha != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return elu_inplace(x, alpha, 1.0, 1.0 / alpha, "CeluBackward1");
}

// y = x (x > 0), negative_slope·x (x ≤ 0).   dx = g  |  g·negative_slope (at 0 too, as torch)
Tensor leaky_relu(const Tensor& x, double negative_slope) {
  require_floating(x, "leaky_relu_cpu");
  return pointwise(x, "leaky_relu", "LeakyReluBackward0",
      [=](auto tag) {
        using T = decltype(tag);
        const T k = T(negative_slope);
        return [=](T v) { return v > T(0) ? v : v * k; };
      },
      [=](auto tag) {
        using T = decltype(tag);
        const T k = T(negative_slope);
        return [=](T gv, T v) { return v > T(0) ? gv : gv * k; };
      });
}
Tensor& leaky_relu_(Tensor& x, double negative_slope) {
  return inplace(x, "leaky_relu_", [&](const Tensor& t) {
    if (negative_slope >= 0) return leaky_relu(t, negative_slope);
    return refuse_backward(t, leaky_relu(t.detach(), negative_slope), "LeakyReluBackward1",
        "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This "
        "is caused by calling in-place forward function with a negative slope, please call out-of-place version "
        "instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place "
        "leakRelu backward calculation with negative slope");
  });
}

// y = log(1 + e^(βx)) / β, or x where βx > threshold.   dx = g·σ(βx), or g where βx > threshold.
// Computed as max(z,0) + log1p(e^-|z|): a threshold above ~88 (float32) would overflow e^z.
Tensor softplus(const Tensor& x, double beta, double threshold) {
  require_floating(x, "softplus_cpu");
  return pointwise(x, "softplus", "SoftplusBackward0",
      [=](auto tag) {
        using T = decltype(tag);
        const T b = T(beta), th = T(threshold);
        return [=](T v) { return v * b > th ? v : softplus1(v * b) / b; };
      },
      [=](auto tag) {
        using T = decltype(tag);
        const T b = T(beta), th = T(threshold);
        return [=](T gv, T v) { return v * b > th ? gv : gv * sigmoid1(v * b); };
      });
}

// y = min(max(x, min_val), max_val).   dx = g strictly inside, 0 on and outside the kinks (torch).
// Integer tensors are clamped in their dtype, as torch's; bool is refused. min_val > max_val: hardtanh
// raises F.hardtanh's ValueError (torch checks it in Python; here the C++ functional and module get it
// too); hardtanh_ does not check, as torch's, and gives max_val everywhere (clamp's order).
namespace {
Tensor hardtanh_impl(const Tensor& x, double min_val, double max_val) {
  SEQLAB_CHECK(x.dtype() != Dtype::Bool, "Bool inputs not supported for hardtanh");
  // torch converts the bounds to the integer type (truncating: hardtanh(int, -0.5, 0.5) is 0 everywhere)
  if (!is_floating(x.dtype())) return clamp(x, std::trunc(min_val), std::trunc(max_val));
  return pointwise(x, "hardtanh", "HardtanhBackward0",
      [=](auto tag) {
        using T = decltype(tag);
        const T lo = T(min_val), hi = T(max_val);
        return [=](T v) {
          const T c = v < lo ? lo : v;  // NaN stays NaN
          return c > hi ? hi : c;
        };
      },
      [=](auto tag) {
        using T = decltype(tag);
        const T lo = T(min_val), hi = T(max_val);
        return [=](T gv, T v) { return v <= lo || v >= hi ? T(0) : gv; };
      });
}
}  // namespace
Tensor hardtanh(const Tensor& x, double min_val, double max_val) {
  SEQLAB_CHECK_VALUE(!(min_val > max_val), "min_val cannot be greater than max_val");
  return hardtanh_impl(x, min_val, max_val);
}
Tensor& hardtanh_(Tensor& x, double min_val, double max_val) {
  return inplace(x, "hardtanh_", [&](const Tensor& t) { return hardtanh_impl(t, min_val, max_val); });
}

// y = log σ(x) = min(x, 0) − log1p(e^-|x|).
// dx = g·(1 − σ(x)) = g·e^-|x|/(1 + e^-|x|) (x ≥ 0), g/(1 + e^-|x|) (x < 0)
Tensor log_sigmoid(const Tensor& x) {
  require_floating(x, "log_sigmoid_cpu");
  return pointwise(x, "log_sigmoid", "LogSigmoidBackward0",
      [](auto tag) {
        using T = decltype(tag);
        return [](T v) { return std::min(v, T(0)) - std::log1p(std::exp(-std::abs(v))); };
      },
      [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T v) {
          const T z = std::exp(-std::abs(v));
          return v < T(0) ? gv / (T(1) + z) : gv * z / (T(1) + z);
        };
      });
}

// Mish (Misra 2019): y = x·tanh(softplus(x)).   dx = g·(t + x·σ(x)·(1 − t²)), t = tanh(softplus(x))
Tensor mish(const Tensor& x) {
  require_floating(x, "mish_cpu");
  return pointwise(x, "mish", "MishBackward0",
      [](auto tag) {
        using T = decltype(tag);
        return [](T v) { return v * std::tanh(softplus1(v)); };
      },
      [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T v) {
          const T t = std::tanh(softplus1(v));
          return gv * (t + v * sigmoid1(v) * (T(1) - t * t));
        };
      });
}
Tensor& mish_(Tensor& x) { return inplace(x, "mish_", [](const Tensor& t) { return mish(t); }); }

// y = x / (1 + |x|).   dx = g / (1 + |x|)². Integers compute in float32 (torch composes it of abs
// and a true division); bool has no abs.
Tensor softsign(const Tensor& x_) {
  SEQLAB_CHECK_IMPL(x_.dtype() != Dtype::Bool, "\"abs_cpu\" not implemented for 'Bool'");
  const Tensor x = is_floating(x_.dtype()) ? x_ : to_dtype(x_, default_float_dtype());
  return pointwise(x, "softsign", "SoftsignBackward0",
      [](auto tag) {
        using T = decltype(tag);
        return [](T v) { return v / (std::abs(v) + T(1)); };
      },
      [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T v) {
          const T d = std::abs(v) + T(1);
          return gv / (d * d);
        };
      });
}

// y = x − tanh(x).   dx = g·tanh²(x). Integers compute in float32 (torch: x − tanh(x)).
Tensor tanhshrink(const Tensor& x_) {
  SEQLAB_CHECK(x_.dtype() != Dtype::Bool,
               "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
               "mask, use the `~` or `logical_not()` operator instead.");
  const Tensor x = is_floating(x_.dtype()) ? x_ : to_dtype(x_, default_float_dtype());
  return pointwise(x, "tanhshrink", "TanhshrinkBackward0",
      [](auto tag) {
        using T = decltype(tag);
        return [](T v) { return v - std::tanh(v); };
      },
      [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T v) {
          const T t = std::tanh(v);
          return gv * t * t;
        };
      });
}

namespace {
// min(max(x + 3, 0), 6): the ramp of hardsigmoid and hardswish (Howard et al. 2019, MobileNetV3).
template <typename T>
T hard_ramp(T v) {
  const T u = v + T(3);
  return u < T(0) ? T(0) : (u > T(6) ? T(6) : u);
}
}  // namespace

// y = min(max(x + 3, 0), 6) / 6.   dx = g/6 for −3 < x < 3, else 0 (torch).
Tensor hardsigmoid(const Tensor& x) {
  require_floating(x, "hardsigmoid_cpu");
  return pointwise(x, "hardsigmoid", "HardsigmoidBackward0",
      [](auto tag) {
        using T = decltype(tag);
        return [](T v) { return hard_ramp(v) / T(6); };
      },
      [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T v) { return v > T(-3) && v < T(3) ? gv / T(6) : T(0); };
      });
}
Tensor& hardsigmoid_(Tensor& x) { return inplace(x, "hardsigmoid_", [](const Tensor& t) { return hardsigmoid(t); }); }

// Hardswish (Howard et al. 2019, MobileNetV3): y = x·min(max(x + 3, 0), 6) / 6.
// dx = 0 (x ≤ −3), g·(x/3 + 1/2) (−3 < x < 3), g (x ≥ 3): torch's kinks.
Tensor hardswish(const Tensor& x) {
  require_floating(x, "hardswish_cpu");
  return pointwise(x, "hardswish", "HardswishBackward0",
      [](auto tag) {
        using T = decltype(tag);
        return [](T v) { return v * hard_ramp(v) / T(6); };
      },
      [](auto tag) {
        using T = decltype(tag);
        return [](T gv, T v) { return v <= T(-3) ? T(0) : (v < T(3) ? gv * (v / T(3) + T(0.5)) : gv); };
      });
}
Tensor& hardswish_(Tensor& x) { return inplace(x, "hardswish_", [](const Tensor& t) { return hardswish(t); }); }

// y = x where x > threshold, else value.   dx = g where x > threshold, else 0.
// Integer tensors keep their dtype (torch's threshold has integer kernels); threshold and value are
// first converted to that dtype, as torch's (threshold(int, -0.5, 7) replaces 0 too: -0.5 becomes 0).
Tensor threshold(const Tensor& x, double th, double value) {
  SEQLAB_CHECK_IMPL(x.dtype() != Dtype::Bool, "\"threshold_cpu\" not implemented for 'Bool'");
  if (!is_floating(x.dtype())) {
    Tensor y = Tensor::empty(x.shape(), x.dtype());
    dispatch_arith(x.dtype(), "threshold", [&](auto tag) {
      using T = decltype(tag);
      // torch's Scalar::to<T>: a value outside T's range (or NaN) is refused, threshold first; a negative
      // whole number wraps into uint8 (torch allows that for Python ints: -3 is 253).
      using L = std::numeric_limits<T>;
      for (const double s : {th, value}) {
        const bool wraps = !L::is_signed && s < 0 && s == std::trunc(s) && -s <= double(L::max());
        SEQLAB_CHECK(wraps || !(std::isnan(s) || s < double(L::lowest()) || s > double(L::max())),
                     "value cannot be converted to type ", scalar_c_name(x.dtype()), " without overflow");
      }
      const T t = from_double<T>(th), v = from_double<T>(value);
      unary_kernel<T, T>(y, x, [=](T e) { return e <= t ? v : e; });
    });
    return y;
  }
  return pointwise(x, "threshold", "ThresholdBackward0",
      [=](auto tag) {
        using T = decltype(tag);
        const T t = T(th), v = T(value);
        return [=](T e) { return e <= t ? v : e; };
      },
      [=](auto tag) {
        using T = decltype(tag);
        const T t = T(th);
        return [=](T gv, T e) { return e <= t ? T(0) : gv; };
      });
}
Tensor& threshold_(Tensor& x, double th, double value) {
  return inplace(x, "threshold_", [&](const Tensor& t) { return threshold(t, th, value); });
}

// PReLU (He et al. 2015): y = x (x > 0), w_c·x (x ≤ 0), w_c the weight of x's channel (dim 1), or
// one weight for every element. Composed of where and a product, whose backward is PReLU's:
// dx = g (x > 0) | w_c·g,  dw_c = Σ g·x over x ≤ 0 in channel c.
Tensor prelu(const Tensor& x, const Tensor& w) {
  SEQLAB_CHECK(w.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ", w.dim());
  require_floating(x, "prelu_cpu");
  SEQLAB_CHECK(x.dtype() == w.dtype(), "prelu: Type promoting not supported. Got ", scalar_type_name(x.dtype()),
               " and ", scalar_type_name(w.dtype()));
  Tensor wb;
  if (w.numel() == 1) {
    wb = reshape(w, Shape{});
  } else {
    SEQLAB_CHECK(x.dim() > 0, "Not allow zero-dim input tensor.");
    const int64_t channels = x.dim() >= 2 ? x.shape()[1] : 1;
    SEQLAB_CHECK(w.numel() == channels, "Mismatch of parameter numbers and input channel size. Found parameter "
                 "numbers = ", w.numel(), " and channel size = ", channels, ".");
    Shape shape(x.dim(), 1);
    shape[1] = channels;
    wb = reshape(w, shape);
  }
  return where(compare(x, scalar_tensor(0.0, x.dtype()), CompareOp::Gt), x, mul(wb, x));
}

// softmin(x) = softmax(−x) along dim. Integer tensors are refused as torch's softmax kernels refuse them
// (seqlab's softmax would compute them in float32).
Tensor softmin(const Tensor& x, int64_t dim) {
  const Tensor nx = neg(x);  // bool: neg's error first, as torch's -input
  if (!is_floating(x.dtype())) {
    if (x.numel() == 0) return nx;  // torch's kernels never run: an empty tensor of x's dtype
    const int64_t d = wrap_dim(dim, std::max<int64_t>(x.dim(), 1), "softmin");
    require_floating(x, d == std::max<int64_t>(x.dim(), 1) - 1 ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl");
  }
  return softmax(nx, dim);
}

// GLU(x) = a ⊙ σ(b), (a, b) = the halves of x along dim (Dauphin et al. 2017).
Tensor glu(const Tensor& x, int64_t dim) {
  SEQLAB_CHECK(x.dim() > 0, "glu does not support scalars because halving size must be even");
  SEQLAB_CHECK_INDEX(-x.dim() <= dim && dim < x.dim(), "Dimension out of range (expected to be in range of [",
                     -x.dim(), ", ", x.dim() - 1, "], but got ", dim, ")");
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  SEQLAB_CHECK(x.shape()[d] % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", x.shape()[d]);
  require_floating(x, "glu_cpu");
  const TensorList ab = chunk(x, 2, d);
  return mul(ab[0], sigmoid(ab[1]));
}

}  // namespace seqlab
