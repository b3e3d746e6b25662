// A C++-only use of seqlab: a 2-layer MLP on random data, trained with optim::SGD (momentum),
// with one gradient checked against central differences. No Python involved.
//   build/cpp/seqlab_example_mlp        (exit code 0 = the check passed)
#include <cmath>
#include <cstdio>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

int main() {
  manual_seed(42);
  const int64_t B = 32, D = 8, H = 16, C = 4;
  Tensor x = randn({B, D}, Dtype::Float64);
  Tensor y = randint(0, C, {B});
  Tensor W1 = randn({D, H}, Dtype::Float64) * 0.3, W2 = randn({H, C}, Dtype::Float64) * 0.3;
  W1.set_requires_grad(true);
  W2.set_requires_grad(true);

  auto loss_fn = [&] { return cross_entropy(matmul(tanh(matmul(x, W1)), W2), y); };

  optim::SGD opt({W1, W2}, optim::SGDOptions(0.2).momentum(0.9));
  double first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    opt.zero_grad();
    Tensor loss = loss_fn();
    loss.backward();
    opt.step();
    if (step == 0) first = loss.item<double>();
    last = loss.item<double>();
  }
  std::printf("loss: %.4f -> %.4f\n", first, last);

  // d loss / d W1[0, 0] by backward and by central differences.
  opt.zero_grad();
  Tensor loss = loss_fn();
  loss.backward();
  const double analytic = W1.grad().data<double>()[0];
  const double eps = 1e-6;
  double* w = W1.data<double>();
  const double orig = w[0];
  double plus, minus;
  {
    NoGradGuard ng;
    w[0] = orig + eps;
    plus = loss_fn().item<double>();
    w[0] = orig - eps;
    minus = loss_fn().item<double>();
    w[0] = orig;
  }
  const double numeric = (plus - minus) / (2 * eps);
  std::printf("dL/dW1[0,0]: backward %.10f, finite differences %.10f\n", analytic, numeric);
  const bool ok = std::fabs(analytic - numeric) < 1e-7 && last < first;
  std::printf("%s\n", ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}
