// The C++ optimizers' typed options: torch.optim's defaults, chained setters, per-group options,
// and validation errors in torch's words. The update rules themselves are compared with
// torch.optim in tests/test_optim.py.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

namespace {
// A float64 parameter of n elements all equal to `value`, with gradient `grad`.
Tensor param(int64_t n, double value, double grad) {
  Tensor p = full({n}, value, Dtype::Float64);
  p.set_requires_grad(true);
  p.set_grad(full({n}, grad, Dtype::Float64));
  return p;
}

// Runs f, which must throw E with exactly the message `what`.
template <typename E, typename F>
void expect_error(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "expected an error: " << what;
  } catch (const E& e) {
    EXPECT_EQ(std::string(e.what()), what);
  }
}
}  // namespace

TEST(OptimOptions, DefaultsAreTorchOptims) {
  const optim::SGDOptions sgd;
  EXPECT_EQ(sgd.lr(), 1e-3);
  EXPECT_EQ(sgd.momentum(), 0);
  EXPECT_EQ(sgd.dampening(), 0);
  EXPECT_EQ(sgd.weight_decay(), 0);
  EXPECT_FALSE(sgd.nesterov());
  EXPECT_FALSE(sgd.maximize());

  const optim::AdamOptions adam;
  EXPECT_EQ(adam.lr(), 1e-3);
  EXPECT_EQ(adam.betas(), optim::betas_t(0.9, 0.999));
  EXPECT_EQ(adam.eps(), 1e-8);
  EXPECT_EQ(adam.weight_decay(), 0);
  EXPECT_FALSE(adam.amsgrad());
  EXPECT_FALSE(adam.maximize());

  const optim::AdamWOptions adamw;
  EXPECT_EQ(adamw.lr(), 1e-3);
  EXPECT_EQ(adamw.betas(), optim::betas_t(0.9, 0.999));
  EXPECT_EQ(adamw.eps(), 1e-8);
  EXPECT_EQ(adamw.weight_decay(), 1e-2);  // not Adam's 0
  EXPECT_FALSE(adamw.amsgrad());

  const optim::AdagradOptions adagrad;
  EXPECT_EQ(adagrad.lr(), 1e-2);
  EXPECT_EQ(adagrad.lr_decay(), 0);
  EXPECT_EQ(adagrad.weight_decay(), 0);
  EXPECT_EQ(adagrad.initial_accumulator_value(), 0);
  EXPECT_EQ(adagrad.eps(), 1e-10);

  const optim::RMSpropOptions rmsprop;
  EXPECT_EQ(rmsprop.lr(), 1e-2);
  EXPECT_EQ(rmsprop.alpha(), 0.99);
  EXPECT_EQ(rmsprop.eps(), 1e-8);
  EXPECT_EQ(rmsprop.weight_decay(), 0);
  EXPECT_EQ(rmsprop.momentum(), 0);
  EXPECT_FALSE(rmsprop.centered());

  // An optimizer built without options has these defaults.
  optim::AdamW opt({param(1, 0, 0)});
  EXPECT_EQ(opt.defaults().weight_decay(), 1e-2);
  EXPECT_EQ(opt.options(0).weight_decay(), 1e-2);
}

TEST(OptimOptions, SettersChainAndReturnTheSameObject) {
  optim::SGDOptions o = optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(1e-4);
  EXPECT_EQ(o.lr(), 0.1);
  EXPECT_EQ(o.momentum(), 0.9);
  EXPECT_TRUE(o.nesterov());
  EXPECT_EQ(o.weight_decay(), 1e-4);
  EXPECT_EQ(o.dampening(), 0);  // untouched fields keep their defaults
  EXPECT_EQ(&o.lr(0.2), &o);

  const auto adam = optim::AdamOptions(0.02).betas({0.8, 0.95}).amsgrad(true);
  EXPECT_EQ(adam.lr(), 0.02);
  EXPECT_EQ(adam.betas().first, 0.8);
  EXPECT_EQ(adam.betas().second, 0.95);
  EXPECT_TRUE(adam.amsgrad());
}

TEST(OptimOptions, EachGroupHasItsOwnOptions) {
  Tensor a = param(2, 1.0, 1.0), b = param(2, 1.0, 1.0), c = param(2, 1.0, 1.0);
  optim::SGD opt({a}, optim::SGDOptions(0.1));
  opt.add_param_group({b}, optim::SGDOptions(opt.defaults()).lr(0.5));  // overrides lr only
  opt.add_param_group({c});                                             // the defaults
  EXPECT_EQ(opt.num_param_groups(), 3u);
  EXPECT_EQ(opt.options(1).lr(), 0.5);
  EXPECT_EQ(opt.options(2).lr(), 0.1);

  opt.step();  // p -= lr·g with g = 1
  EXPECT_DOUBLE_EQ(a.data<double>()[0], 0.9);
  EXPECT_DOUBLE_EQ(b.data<double>()[0], 0.5);
  EXPECT_DOUBLE_EQ(c.data<double>()[1], 0.9);

  // A scheduler's change reaches one group and no other.
  opt.set_options(0, optim::SGDOptions(opt.options(0)).lr(0.25));
  opt.param_groups()[2].options.lr(0.0);  // in place, as torch::optim allows
  opt.step();
  EXPECT_DOUBLE_EQ(a.data<double>()[0], 0.65);
  EXPECT_DOUBLE_EQ(b.data<double>()[0], 0.0);
  EXPECT_DOUBLE_EQ(c.data<double>()[0], 0.9);
  EXPECT_EQ(opt.defaults().lr(), 0.1);  // the defaults do not change with the groups
}

TEST(OptimOptions, AdamWDecouplesTheDecayAdamAddsItToTheGradient) {
  // Zero gradient, p = 1, lr = 0.1, weight_decay = 0.5. AdamW: p *= 1 - lr·wd, and the Adam
  // step of a zero gradient is 0. Adam: g = wd·p = 0.5, and the first step moves p by lr·sign(g).
  Tensor p = param(1, 1.0, 0.0), q = param(1, 1.0, 0.0);
  optim::AdamW adamw({p}, optim::AdamWOptions(0.1).weight_decay(0.5));
  optim::Adam adam({q}, optim::AdamOptions(0.1).weight_decay(0.5));
  adamw.step();
  adam.step();
  EXPECT_DOUBLE_EQ(p.data<double>()[0], 0.95);
  EXPECT_NEAR(q.data<double>()[0], 0.9, 1e-7);
}

TEST(OptimOptions, InvalidOptionsThrowInTorchsWords) {
  using optim::SGDOptions;
  auto p = [] { return std::vector<Tensor>{param(1, 0, 0)}; };
  expect_error<std::invalid_argument>([&] { optim::SGD(p(), SGDOptions(-1)); }, "Invalid learning rate: -1");
  expect_error<std::invalid_argument>([&] { optim::SGD(p(), SGDOptions(0.1).momentum(-0.5)); },
                                      "Invalid momentum value: -0.5");
  expect_error<std::invalid_argument>([&] { optim::SGD(p(), SGDOptions(0.1).weight_decay(-1)); },
                                      "Invalid weight_decay value: -1");
  expect_error<std::invalid_argument>([&] { optim::SGD(p(), SGDOptions(0.1).nesterov(true)); },
                                      "Nesterov momentum requires a momentum and zero dampening");
  expect_error<std::invalid_argument>(
      [&] { optim::SGD(p(), SGDOptions(0.1).nesterov(true).momentum(0.9).dampening(0.1)); },
      "Nesterov momentum requires a momentum and zero dampening");

  expect_error<std::invalid_argument>([&] { optim::Adam(p(), optim::AdamOptions().betas({1.5, 0.999})); },
                                      "Invalid beta parameter at index 0: 1.5");
  expect_error<std::invalid_argument>([&] { optim::AdamW(p(), optim::AdamWOptions().betas({0.9, -0.1})); },
                                      "Invalid beta parameter at index 1: -0.1");
  expect_error<std::invalid_argument>([&] { optim::Adam(p(), optim::AdamOptions().eps(-1e-8)); },
                                      "Invalid epsilon value: -1e-08");
  expect_error<std::invalid_argument>([&] { optim::AdamW(p(), optim::AdamWOptions().weight_decay(-0.01)); },
                                      "Invalid weight_decay value: -0.01");
  expect_error<std::invalid_argument>([&] { optim::Adagrad(p(), optim::AdagradOptions().lr_decay(-1)); },
                                      "Invalid lr_decay value: -1");
  expect_error<std::invalid_argument>(
      [&] { optim::Adagrad(p(), optim::AdagradOptions().initial_accumulator_value(-1)); },
      "Invalid initial_accumulator_value value: -1");
  expect_error<std::invalid_argument>([&] { optim::RMSprop(p(), optim::RMSpropOptions().alpha(-0.5)); },
                                      "Invalid alpha value: -0.5");

  // The defaults are checked on construction, before any parameter is seen.
  expect_error<std::invalid_argument>([] { optim::Adam(optim::AdamOptions(-0.1)); }, "Invalid learning rate: -0.1");
  expect_error<std::invalid_argument>([] { optim::SGD(std::vector<Tensor>{}, SGDOptions(0.1)); },
                                      "SGD: optimizer got an empty parameter list");
}

TEST(OptimOptions, InvalidGroupOptionsLeaveTheOptimizerUnchanged) {
  Tensor a = param(1, 0, 0), b = param(1, 0, 0);
  optim::SGD opt({a}, optim::SGDOptions(0.1).momentum(0.9));
  expect_error<std::invalid_argument>([&] { opt.add_param_group({b}, optim::SGDOptions(-2)); },
                                      "Invalid learning rate: -2");
  EXPECT_EQ(opt.num_param_groups(), 1u);
  expect_error<std::invalid_argument>([&] { opt.set_options(0, optim::SGDOptions(opt.options(0)).momentum(-1)); },
                                      "Invalid momentum value: -1");
  EXPECT_EQ(opt.options(0).momentum(), 0.9);
  expect_error<std::out_of_range>([&] { opt.set_options(1, opt.defaults()); }, "SGD: no parameter group 1");
  expect_error<std::invalid_argument>([&] { opt.add_param_group({a}); },
                                      "SGD: some parameters appear in more than one parameter group");
}
