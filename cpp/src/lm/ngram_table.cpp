// NGramTable: the distinct n-grams of one order in a flat id array with an open-addressing
// (linear probing) index of entry numbers: 4n bytes per n-gram for the ids and 8 per slot at
// a load between 3/8 and 3/4 (the slots' tags keep probes of a full table cheap); no node
// allocations.
#include <cstring>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"

namespace seqlab::lm {

// A 64-bit mix of the ids (multiply-xorshift per id; the index uses the high bits' spread).
uint64_t NGramTable::hash(const uint32_t* ids) const {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < n_; ++i) {
    h ^= ids[i];
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

// A slot holds (tag << 32) | (entry + 1), the tag being the hash's high half: most probes
// of other keys are rejected without reading their ids (a cache miss each).
namespace {
inline uint64_t slot_of(uint64_t h, size_t e) { return (h & 0xFFFFFFFF00000000ull) | static_cast<uint64_t>(e + 1); }
inline bool same_ids(const uint32_t* a, const uint32_t* b, int n) {
  for (int i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}
}  // namespace

// Linear probing from h's slot: the first entry whose tag matches and that `accept`s, or -1
// at the first empty slot.
template <class Accept>
int64_t NGramTable::probe(uint64_t h, Accept accept) const {
  if (slots_.empty()) return -1;
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = h & 0xFFFFFFFF00000000ull;
  for (size_t s = h & mask;; s = (s + 1) & mask) {
    uint64_t v = slots_[s];
    if (v == 0) return -1;
    const size_t e = (v & 0xFFFFFFFFu) - 1;
    if ((v & 0xFFFFFFFF00000000ull) == tag && accept(e)) return static_cast<int64_t>(e);
  }
}

int64_t NGramTable::find(const uint32_t* ids, uint64_t h) const {
  return probe(h, [&](size_t e) { return same_ids(key(e), ids, n_); });
}

int64_t NGramTable::candidate(uint64_t h) const {
  return probe(h, [](size_t) { return true; });
}

void NGramTable::rehash(size_t n_slots) {
  std::vector<uint64_t>().swap(slots_);  // the old slots are not needed: free them first
  slots_.assign(n_slots, 0);
  const size_t mask = n_slots - 1;
  for (size_t e = 0; e < size(); ++e) {
    const uint64_t h = hash(key(e));
    size_t s = h & mask;
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = slot_of(h, e);
  }
}

void NGramTable::reserve(size_t entries) { ids_.reserve(entries * n_); }

size_t NGramTable::insert(const uint32_t* ids, bool& added) {
  if (4 * (size() + 1) > 3 * slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
  const size_t mask = slots_.size() - 1;
  const uint64_t h = hash(ids), tag = h & 0xFFFFFFFF00000000ull;
  size_t s = h & mask;
  for (;; s = (s + 1) & mask) {
    uint64_t v = slots_[s];
    if (v == 0) break;
    if ((v & 0xFFFFFFFF00000000ull) == tag && same_ids(key((v & 0xFFFFFFFFu) - 1), ids, n_)) {
      added = false;
      return (v & 0xFFFFFFFFu) - 1;
    }
  }
  SEQLAB_CHECK(size() < UINT32_MAX - 1, "NGram: more than 2^32 distinct ", n_, "-grams");
  size_t e = size();
  ids_.insert(ids_.end(), ids, ids + n_);
  slots_[s] = slot_of(h, e);
  added = true;
  return e;
}

}  // namespace seqlab::lm
