// TokenIndex: string -> id for a fixed list of tokens (a vocabulary), looked up with a
// string_view and no allocation. Open addressing over 32-bit ids; each slot keeps the top
// bits of the token's hash, so a probe reads the token's bytes only when those bits match.
// The strings stay in the caller's vector (ids index it), so the vector may grow.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seqlab::text {

class TokenIndex {
 public:
  static constexpr uint32_t kMissing = UINT32_MAX;
  // Indexes tokens[0 .. n); a token met twice keeps its first id.
  void build(const std::vector<std::string>& tokens);
  // Adds tokens[id] (after the caller appended it); the caller keeps ids dense.
  void add(const std::vector<std::string>& tokens, uint32_t id);
  uint32_t find(const std::vector<std::string>& tokens, std::string_view token) const {
    return find(tokens, token, hash(token));
  }
  uint32_t find(const std::vector<std::string>& tokens, std::string_view token, uint64_t h) const;  // h = hash(token)
  static uint64_t hash(std::string_view s);
  // Starts loading the slot where hash h's probe begins (for batches of lookups).
  void prefetch(uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(slots_.data() + (h & (slots_.size() - 1)));
  }

 private:
  void grow(const std::vector<std::string>& tokens);
  std::vector<uint64_t> slots_;  // (hash high 32 bits) << 32 | (id + 1); 0 = empty; load <= 1/2
  size_t size_ = 0;
};

}  // namespace seqlab::text
