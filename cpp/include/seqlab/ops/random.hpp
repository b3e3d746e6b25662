// Random numbers from one seeded generator (seqlab.manual_seed), and dropout.
// cpp/src/ops/random.cpp; creation without randomness (zeros, full, ...): creation.hpp.
#pragma once
#include <cstdint>
#include <string>

#include "seqlab/tensor.hpp"

namespace seqlab {

void manual_seed(uint64_t seed);
uint64_t initial_seed();
// One 64-bit draw from the generator: the seed of a counter-based stream (attention's dropout).
uint64_t random_u64();

// Puts the generator back, when it goes out of scope, where it was when it was made (as
// torch.random.fork_rng): the C++ modules' deep copies are built and initialised under one,
// so that copying a layer draws no numbers, as Python's copy.deepcopy does not.
class ForkRng {
 public:
  ForkRng();
  ~ForkRng();
  ForkRng(const ForkRng&) = delete;
  ForkRng& operator=(const ForkRng&) = delete;

 private:
  std::string state_;
};

Tensor rand(const Shape& shape, Dtype dtype = Dtype::Float32);   // U[0, 1)
Tensor randn(const Shape& shape, Dtype dtype = Dtype::Float32);  // N(0, 1)
Tensor randint(int64_t low, int64_t high, const Shape& shape, Dtype dtype = Dtype::Int64);
Tensor& uniform_(Tensor& x, double from = 0.0, double to = 1.0);
Tensor& normal_(Tensor& x, double mean = 0.0, double std = 1.0);
Tensor randperm(int64_t n);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false);

// Inverted dropout: zero with probability p, scale the rest by 1/(1-p).
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);

}  // namespace seqlab
