// A random number generator object, as torch.Generator: its own seed and stream, so that two
// generators never disturb each other and one seed always gives the same numbers. The random ops
// (random.hpp) take a `Generator*`; nullptr means default_generator(), the one behind
// seqlab.manual_seed. cpp/src/ops/generator.cpp; tests: tests/test_generator.py.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

namespace seqlab {

class Generator {
 public:
  // torch's default seed (c10::default_rng_seed_val), so initial_seed() starts where torch's does.
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;

  explicit Generator(uint64_t seed = kDefaultSeed);

  void manual_seed(uint64_t seed);
  // Seeds from std::random_device, as torch.Generator.seed(); returns the seed.
  uint64_t seed();
  uint64_t initial_seed() const;

  // The whole state as 64-bit words: the initial seed, then the engine's state. set_state
  // checks the length before it changes anything.
  std::vector<uint64_t> get_state() const;
  void set_state(const std::vector<uint64_t>& state);
  static size_t state_size();

  // A random op holds the lock for its whole draw (as torch's CPU kernels lock the generator's
  // mutex), so two threads sharing a generator get disjoint runs of the stream.
  std::mutex& mutex() { return mutex_; }
  std::mt19937_64& engine() { return engine_; }

 private:
  uint64_t initial_seed_;
  std::mt19937_64 engine_;
  std::mutex mutex_;
};

// The generator of seqlab.manual_seed, seqlab.rand without generator=, ..., and of the C++ API.
Generator& default_generator();
// nullptr -> default_generator(), else *g.
Generator& generator_or_default(Generator* g);

}  // namespace seqlab
