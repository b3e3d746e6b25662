// rrelu, the randomized leaky ReLU (Xu et al. 2015, "Empirical Evaluation of Rectified Activations
// in Convolutional Network"; torch.nn.functional.rrelu), composed of ops: the slopes are a tensor
// and the output their product with x, so mul's backward gives the gradient. Tests:
// tests/test_nn_modules_more.py.
#include <cmath>

#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/random.hpp"

namespace seqlab {

namespace {

void check_rrelu(const Tensor& x, double lower, double upper) {
  SEQLAB_CHECK(lower <= upper, "Lower bound should be less than or equal to the upper bound");
  SEQLAB_CHECK_IMPL(is_floating(x.dtype()), "\"rrelu_with_noise_out_cpu\" not implemented for '",
                    dtype_name(x.dtype()), "'");
}

// Training: slope[i] = 1 where x[i] > 0, else a[i] ~ U(lower, upper) from the default generator.
Tensor random_slopes(const Tensor& x, double lower, double upper) {
  NoGradGuard ng;
  Tensor a = Tensor::empty(x.shape(), x.dtype());
  uniform_(a, lower, upper);
  return where(compare(x.detach(), scalar_tensor(0.0, x.dtype()), CompareOp::Gt), ones_like(a), a);
}

}  // namespace

// training:  y = x slope,   slope = 1 (x > 0) or a ~ U(lower, upper) (x <= 0);   dx = g slope
// eval:      y = leaky_relu(x, (lower + upper) / 2)
Tensor rrelu(const Tensor& x, double lower, double upper, bool training) {
  check_rrelu(x, lower, upper);
  if (!training) return leaky_relu(x, (lower + upper) / 2);
  return mul(x, random_slopes(x, lower, upper));
}

// In place: x = rrelu(x), through mul_ / leaky_relu_ (autograd-aware as they are).
Tensor& rrelu_(Tensor& x, double lower, double upper, bool training) {
  check_rrelu(x, lower, upper);
  if (!training) return leaky_relu_(x, (lower + upper) / 2);
  return inplace_binary(x, random_slopes(x, lower, upper), InplaceOp::Mul);
}

}  // namespace seqlab
