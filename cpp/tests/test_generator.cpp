// Generator (ops/generator.hpp) and the random ops' Generator* argument from C++: one seed, one
// stream; generators independent of each other and of the default one; the state round trip;
// ForkRng; and the cumulative ops of scan.hpp on a small case. Python side: tests/test_generator.py.
#include <gtest/gtest.h>

#include <vector>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

namespace {
std::vector<float> values(const Tensor& t) {
  const Tensor c = contiguous(t);
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}
}  // namespace

TEST(Generator, SameSeedSameStream) {
  Generator a(42), b(42), c(43);
  EXPECT_EQ(values(randn({16}, Dtype::Float32, &a)), values(randn({16}, Dtype::Float32, &b)));
  EXPECT_NE(values(rand({16}, Dtype::Float32, &a)), values(rand({16}, Dtype::Float32, &c)));
  EXPECT_EQ(a.initial_seed(), 42u);
  EXPECT_EQ(Generator().initial_seed(), Generator::kDefaultSeed);
}

TEST(Generator, IndependentOfTheDefault) {
  manual_seed(7);
  const auto expected = values(rand({8}));
  manual_seed(7);
  Generator g(1);
  rand({100}, Dtype::Float32, &g);
  Tensor x = Tensor::empty({10});
  normal_(x, 0.0, 1.0, &g);
  bernoulli_(x, 0.5, &g);
  randperm(10, Dtype::Int64, &g);
  EXPECT_EQ(values(rand({8})), expected);
}

TEST(Generator, StateRoundTripAndChecks) {
  Generator g(3);
  rand({5}, Dtype::Float32, &g);
  const auto state = g.get_state();
  EXPECT_EQ(state.size(), Generator::state_size());
  const auto a = values(randn({20}, Dtype::Float32, &g));
  g.set_state(state);
  EXPECT_EQ(values(randn({20}, Dtype::Float32, &g)), a);
  EXPECT_THROW(g.set_state(std::vector<uint64_t>(3)), std::runtime_error);
  auto bad = state;
  bad.back() = 100000;  // a position past the engine's words
  EXPECT_THROW(g.set_state(bad), std::runtime_error);
}

TEST(Generator, ForkRngPutsTheDefaultBack) {
  manual_seed(11);
  const auto expected = values(rand({4}));
  manual_seed(11);
  {
    ForkRng fork;
    rand({50});
  }
  EXPECT_EQ(values(rand({4})), expected);
}

TEST(Scan, CumsumCumprodAndTheirGradients) {
  Tensor x = Tensor::empty({4});
  const float v[] = {1, 2, 0, 3};
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = v[i];
  x.set_requires_grad(true);
  EXPECT_EQ(values(cumsum(x, 0)), (std::vector<float>{1, 3, 3, 6}));
  Tensor y = cumprod(x, 0);
  EXPECT_EQ(values(y), (std::vector<float>{1, 2, 0, 0}));
  sum(y, {}, false).backward();
  // dy/dx: x0 -> 1 + x1 = 3; x1 -> x0 = 1; x2 (the zero) -> x0 x1 + x0 x1 x3 = 8; x3 -> 0
  EXPECT_EQ(values(x.grad()), (std::vector<float>{3, 1, 8, 0}));
}
