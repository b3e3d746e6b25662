// A counter-based random stream: element i of the stream of `seed` is a hash of (seed, i), so
// elements can be drawn in any order, on any thread, and drawn again (a backward pass regenerates
// the dropout mask of its forward instead of storing it). The hash is SplitMix64's finaliser
// (Steele, Lea & Flood 2014). Used by dropout (random.cpp) and attention's dropout (attention*.cpp).
#pragma once
#include <cstdint>

namespace seqlab::counter_rng {

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Element `index` of the stream of `seed`: uniform on [0, 2^64).
inline uint64_t draw(uint64_t seed, uint64_t index) { return mix64(seed + (index + 1) * 0x9e3779b97f4a7c15ULL); }

// Keep with probability 1 − p: draw >= p·2^64. For 0 <= p < 1 (p = 1 drops everything; callers handle it).
inline uint64_t dropout_threshold(double p) { return static_cast<uint64_t>(p * 18446744073709551616.0); }
inline bool dropout_keep(uint64_t seed, uint64_t index, uint64_t threshold) { return draw(seed, index) >= threshold; }

}  // namespace seqlab::counter_rng
