// TokenIndex (seqlab/text/token_index.hpp).
#include "seqlab/text/token_index.hpp"

#include <cstring>

namespace seqlab::text {

// 8 bytes at a time, multiply and fold (a wyhash-style mix; tokens are short, so the tail
// and the length matter as much as the body).
uint64_t TokenIndex::hash(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xBF58476D1CE4E5B9ull);
  auto mix = [](uint64_t a, uint64_t b) {
    __uint128_t r = static_cast<__uint128_t>(a) * b;
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
  };
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    h = mix(h ^ v, 0xA0761D6478BD642Full);
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  for (size_t i = 0; i < n; ++i) tail |= static_cast<uint64_t>(p[i]) << (8 * i);
  return mix(h ^ tail, 0xE7037ED1A0B428DBull);
}

void TokenIndex::grow(const std::vector<std::string>& tokens) {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(old.empty() ? 64 : 2 * old.size(), 0);
  const size_t mask = slots_.size() - 1;
  for (uint64_t v : old) {
    if (v == 0) continue;
    size_t s = hash(tokens[(v & 0xFFFFFFFFu) - 1]) & mask;
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = v;
  }
}

void TokenIndex::build(const std::vector<std::string>& tokens) {
  slots_.clear();
  size_ = 0;
  size_t want = 64;
  while (want < 2 * tokens.size()) want <<= 1;
  slots_.assign(want, 0);
  for (uint32_t id = 0; id < tokens.size(); ++id)
    if (find(tokens, tokens[id]) == kMissing) add(tokens, id);
}

void TokenIndex::add(const std::vector<std::string>& tokens, uint32_t id) {
  if (2 * (size_ + 1) > slots_.size()) grow(tokens);
  const uint64_t h = hash(tokens[id]);
  const size_t mask = slots_.size() - 1;
  size_t s = h & mask;
  while (slots_[s] != 0) s = (s + 1) & mask;
  slots_[s] = (h & 0xFFFFFFFF00000000ull) | (static_cast<uint64_t>(id) + 1);
  ++size_;
}

uint32_t TokenIndex::find(const std::vector<std::string>& tokens, std::string_view token, uint64_t h) const {
  if (slots_.empty()) return kMissing;
  const uint64_t tag = h & 0xFFFFFFFF00000000ull;
  const size_t mask = slots_.size() - 1;
  for (size_t s = h & mask;; s = (s + 1) & mask) {
    const uint64_t v = slots_[s];
    if (v == 0) return kMissing;
    if ((v & 0xFFFFFFFF00000000ull) == tag) {
      const uint32_t id = static_cast<uint32_t>((v & 0xFFFFFFFFu) - 1);
      if (tokens[id] == token) return id;
    }
  }
}

}  // namespace seqlab::text
