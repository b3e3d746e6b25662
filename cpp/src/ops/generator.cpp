// Generator: a seed and a mt19937_64 engine (not torch's Philox/MT stream: same API, other
// numbers). The state round trip goes through the engine's standard text form (the 312 state
// words and the position), so it needs no knowledge of the library's internals.
// Tests: tests/test_generator.py.
#include "seqlab/ops/generator.hpp"

#include <sstream>

#include "seqlab/check.hpp"

namespace seqlab {

Generator::Generator(uint64_t seed) : initial_seed_(seed), engine_(seed) {}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  initial_seed_ = seed;
  engine_.seed(seed);
}

uint64_t Generator::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const { return initial_seed_; }

// mt19937_64's text form: n = 312 words of state and the position in them.
size_t Generator::state_size() { return 1 + std::mt19937_64::state_size + 1; }

std::vector<uint64_t> Generator::get_state() const {
  std::ostringstream os;
  os << engine_;
  std::istringstream is(os.str());
  std::vector<uint64_t> state{initial_seed_};
  uint64_t word;
  while (is >> word) state.push_back(word);
  SEQLAB_CHECK(state.size() == state_size(), "Generator.get_state: unexpected engine state of ", state.size(),
               " words");
  return state;
}

void Generator::set_state(const std::vector<uint64_t>& state) {
  SEQLAB_CHECK(state.size() == state_size(), "Generator.set_state: expected a state of ", state_size(),
               " int64 words (from get_state()), but found the input RNG state size to be ", state.size());
  SEQLAB_CHECK(state.back() <= std::mt19937_64::state_size,
               "Generator.set_state: the state is not one that get_state() returned");
  std::ostringstream os;
  for (size_t i = 1; i < state.size(); ++i) os << state[i] << ' ';
  std::mt19937_64 engine;
  std::istringstream is(os.str());
  is >> engine;
  SEQLAB_CHECK(!is.fail(), "Generator.set_state: the state is not one that get_state() returned");
  std::lock_guard<std::mutex> lock(mutex_);
  initial_seed_ = state[0];
  engine_ = engine;
}

Generator& default_generator() {
  static Generator gen;
  return gen;
}

Generator& generator_or_default(Generator* g) { return g ? *g : default_generator(); }

}  // namespace seqlab
