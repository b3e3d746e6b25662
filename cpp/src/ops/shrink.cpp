// hardshrink and softshrink (torch.nn.functional.hardshrink / softshrink), composed of ops, and
// feature (channel) dropout (F.dropout1d / dropout2d: Tompson et al. 2015), one mask entry per
// (n, c) channel. The backward of each is its ops'. Tests: tests/test_nn_modules_more.py.
#include <limits>

#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/random.hpp"

namespace seqlab {

namespace {

void check_float(const Tensor& x, const char* kernel) {
  SEQLAB_CHECK_IMPL(is_floating(x.dtype()), "\"", kernel, "\" not implemented for '", scalar_type_name(x.dtype()), "'");
}

// softshrink's lambd (hardshrink takes any, as torch's: a negative one keeps every x)
void check_lambd(const Tensor& x, double lambd) {
  const double most = x.dtype() == Dtype::Float64 ? std::numeric_limits<double>::max()
                                                  : double(std::numeric_limits<float>::max());
  SEQLAB_CHECK(lambd >= 0 && lambd <= most, "lambda must be in range [0, ", most, "] for input dtype ",
               scalar_type_name(x.dtype()), ", but found ", lambd);
}

}  // namespace

// y = x where |x| > λ, else 0.   dx = g where |x| > λ, else 0 (0 at |x| = λ, as torch's)
Tensor hardshrink(const Tensor& x, double lambd) {
  check_float(x, "hardshrink_cpu");
  const Tensor keep = compare(abs(x.detach()), scalar_tensor(lambd, x.dtype()), CompareOp::Gt);
  return where(keep, x, scalar_tensor(0.0, x.dtype()));
}

// y = x - clamp(x, -λ, λ): x - λ above λ, x + λ below -λ, 0 between.   dx = g where |x| > λ
// (clamp passes the gradient on [-λ, λ], bounds included, so at |x| = λ it is 0, as torch's)
Tensor softshrink(const Tensor& x, double lambd) {
  check_float(x, "softshrink_cpu");
  check_lambd(x, lambd);
  return sub(x, clamp(x, -lambd, lambd));
}

// training: y = x m,  m[n, c, ...] = b / (1 - p) with b ~ Bernoulli(1 - p), one per (n, c)
// channel (0 when p = 1);  dx = g m.   eval (or p = 0): x itself.
Tensor feature_dropout(const Tensor& x, double p, bool training) {
  SEQLAB_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (!training || p == 0) return x;
  SEQLAB_CHECK(x.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  SEQLAB_CHECK_TYPE(is_floating(x.dtype()), "feature_dropout: expected a floating point input, got ",
                    dtype_name(x.dtype()));
  Shape mask_shape(x.dim(), 1);
  mask_shape[0] = x.shape()[0];
  mask_shape[1] = x.shape()[1];
  Tensor mask = Tensor::empty(mask_shape, x.dtype());
  {
    NoGradGuard ng;
    if (p == 1) {
      zero_(mask);
    } else {
      bernoulli_(mask, 1 - p);
      mask = mask / (1 - p);
    }
  }
  return mul(x, mask);
}

}  // namespace seqlab
