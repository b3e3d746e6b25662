// The engine: accumulation, retain_graph, freed graphs, version checks, and finite
// differences on a small composed graph.
#include <gtest/gtest.h>

#include <cmath>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

namespace {
Tensor leaf(const Shape& s, uint64_t seed) {
  manual_seed(seed);
  Tensor t = randn(s, Dtype::Float64);
  t.set_requires_grad(true);
  return t;
}
double scalar(const Tensor& t) { return t.item<double>(); }
}  // namespace

TEST(Autograd, GradAccumulatesOverTwoBackwards) {
  Tensor x = leaf({3}, 1);
  sum(x * 2.0).backward();
  sum(x * 3.0).backward();
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(x.grad().data<double>()[i], 5.0);
}

TEST(Autograd, SecondBackwardThroughFreedGraphThrows) {
  Tensor x = leaf({3}, 2);
  Tensor y = sum(tanh(x));
  y.backward();
  EXPECT_THROW(y.backward(), std::runtime_error);
}

TEST(Autograd, RetainGraphAllowsSecondBackward) {
  Tensor x = leaf({3}, 3);
  Tensor y = sum(tanh(x));
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  Tensor t = tanh(x.detach());
  for (int i = 0; i < 3; ++i) {
    const double th = t.data<double>()[i];
    EXPECT_NEAR(x.grad().data<double>()[i], 2 * (1 - th * th), 1e-12);
  }
}

TEST(Autograd, InPlaceChangeOfSavedTensorIsDetected) {
  Tensor x = leaf({3}, 4);
  Tensor y = exp(x);   // saves its output
  Tensor z = sum(y);
  {
    NoGradGuard ng;
    fill_(y, 1.0);
  }
  EXPECT_THROW(z.backward(), std::runtime_error);
}

TEST(Autograd, NonScalarBackwardNeedsAGradient) {
  Tensor x = leaf({3}, 5);
  Tensor y = x * 2.0;
  EXPECT_THROW(y.backward(), std::runtime_error);
}

TEST(Autograd, NoGradRecordsNothing) {
  Tensor x = leaf({3}, 6);
  NoGradGuard ng;
  Tensor y = x * 2.0;
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.grad_fn(), nullptr);
}

// Central differences on f(a, b) = sum(softmax(a @ b, dim=1) * log_softmax(a, dim=1)[:, :2])
TEST(Autograd, MatchesFiniteDifferences) {
  Tensor a = leaf({3, 4}, 7), b = leaf({4, 2}, 8);
  auto f = [](const Tensor& a, const Tensor& b) {
    return sum(mul(softmax(matmul(a, b), 1), narrow(log_softmax(a, 1), 1, 0, 2)));
  };
  f(a, b).backward();
  const double eps = 1e-6;
  for (Tensor* p : {&a, &b}) {
    for (int64_t i = 0; i < p->numel(); ++i) {
      double* v = p->data<double>() + i;
      const double orig = *v;
      double plus, minus;
      {
        NoGradGuard ng;
        *v = orig + eps;
        plus = scalar(f(a, b));
        *v = orig - eps;
        minus = scalar(f(a, b));
        *v = orig;
      }
      EXPECT_NEAR(p->grad().data<double>()[i], (plus - minus) / (2 * eps), 1e-7);
    }
  }
}

TEST(Autograd, GraphIsFreedWhenOutputsDie) {
  Tensor x = leaf({8}, 9);
  std::weak_ptr<Node> node;
  {
    Tensor y = tanh(x);
    node = y.grad_fn();
    EXPECT_FALSE(node.expired());
  }
  EXPECT_TRUE(node.expired());
}
