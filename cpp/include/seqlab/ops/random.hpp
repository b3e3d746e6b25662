// Random numbers and dropout. Every draw comes from a Generator (generator.hpp): the one given,
// or with nullptr the default one behind seqlab.manual_seed.
// cpp/src/ops/random.cpp; creation without randomness (zeros, full, ...): creation.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "seqlab/ops/generator.hpp"
#include "seqlab/tensor.hpp"

namespace seqlab {

// The default generator's seed and state (torch.manual_seed, torch.initial_seed).
void manual_seed(uint64_t seed);
uint64_t initial_seed();
// One 64-bit draw from the generator: the seed of a counter-based stream (attention's dropout).
uint64_t random_u64(Generator* gen = nullptr);

// Puts the default generator back, when it goes out of scope, where it was when it was made (as
// torch.random.fork_rng): the C++ modules' deep copies are built and initialised under one,
// so that copying a layer draws no numbers, as Python's copy.deepcopy does not.
class ForkRng {
 public:
  ForkRng();
  ~ForkRng();
  ForkRng(const ForkRng&) = delete;
  ForkRng& operator=(const ForkRng&) = delete;

 private:
  std::vector<uint64_t> state_;
};

Tensor rand(const Shape& shape, Dtype dtype = Dtype::Float32, Generator* gen = nullptr);   // U[0, 1)
Tensor randn(const Shape& shape, Dtype dtype = Dtype::Float32, Generator* gen = nullptr);  // N(0, 1)
Tensor randint(int64_t low, int64_t high, const Shape& shape, Dtype dtype = Dtype::Int64, Generator* gen = nullptr);
Tensor& uniform_(Tensor& x, double from = 0.0, double to = 1.0, Generator* gen = nullptr);
Tensor& normal_(Tensor& x, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
// x_i ~ Exp(lambd): -log(1 - u) / lambd, u ~ U[0, 1).
Tensor& exponential_(Tensor& x, double lambd = 1.0, Generator* gen = nullptr);
// Integers uniform in [from, to); to = nullopt: [0, 2^mantissa] for floats, [0, max] for int64.
Tensor& random_(Tensor& x, int64_t from = 0, std::optional<int64_t> to = std::nullopt, Generator* gen = nullptr);
// x_i = 1 with probability p_i (p a tensor broadcast to x, or a number), else 0.
Tensor& bernoulli_(Tensor& x, const Tensor& p, Generator* gen = nullptr);
Tensor& bernoulli_(Tensor& x, double p = 0.5, Generator* gen = nullptr);
Tensor bernoulli(const Tensor& probs, Generator* gen = nullptr);  // same shape and dtype as probs
Tensor randperm(int64_t n, Dtype dtype = Dtype::Int64, Generator* gen = nullptr);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false, Generator* gen = nullptr);

// Inverted dropout: zero with probability p, scale the rest by 1/(1-p).
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);
// torch.alpha_dropout (Klambauer et al. 2017): dropped units take SELU's saturation -λα, then an affine map
// keeps zero mean and unit variance; torch.feature_alpha_dropout drops whole channels so.
Tensor alpha_dropout(const Tensor& x, double p = 0.5, bool training = true);
Tensor feature_alpha_dropout(const Tensor& x, double p = 0.5, bool training = true);

}  // namespace seqlab
