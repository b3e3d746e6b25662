// Walking the forward trie of an NGramModel (ngram.hpp): an entry's children are one sorted
// run of words in the order above, so a lookup is a binary search per word, and the suffix
// of every n-gram of an order comes from merging sorted runs, with no search at all.
#include <algorithm>
#include <cstdlib>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"

namespace seqlab::lm {

std::pair<uint32_t, uint32_t> NGramModel::children(int n, uint32_t c) const {
  if (n == 0) return {0, static_cast<uint32_t>(orders_[0].size())};
  const std::vector<uint32_t>& first = orders_[n - 1].first_child;
  return {first[c], first[c + 1]};
}

int64_t NGramModel::child(int n, uint32_t c, uint32_t w) const {
  if (n == 0) return w < orders_[0].size() ? static_cast<int64_t>(w) : -1;
  if (n >= order()) return -1;
  const std::vector<uint32_t>& first = orders_[n - 1].first_child;
  const uint32_t* words = orders_[n].word.data();
  // Branch-free binary search: the runs are short above the bigrams, long (a word's
  // successors) for bigrams.
  const uint32_t* lo = words + first[c];
  size_t len = first[c + 1] - first[c];
  while (len > 1) {
    const size_t half = len / 2;
    lo = lo[half] <= w ? lo + half : lo;
    len -= half;
  }
  if (len == 0 || *lo != w) return -1;
  return lo - words;
}

int64_t NGramModel::find(const uint32_t* ids, int n) const {
  if (n < 1 || n > order()) return -1;
  int64_t e = child(0, 0, ids[0]);
  for (int k = 1; k < n && e >= 0; ++k) e = child(k, static_cast<uint32_t>(e), ids[k]);
  return e;
}

std::vector<uint32_t> NGramModel::keys(int n) const {
  SEQLAB_CHECK_INDEX(n >= 1 && n <= order(), "NGram: order ", n, " is outside 1..", order());
  // Row e of order k is its context's row of order k-1 and its word; contexts are visited in order.
  std::vector<uint32_t> rows(orders_[0].word);
  for (int k = 2; k <= n; ++k) {
    const Order& o = orders_[k - 1];
    std::vector<uint32_t> next(o.size() * k);
    const size_t n_ctx = orders_[k - 2].size();
    for (uint32_t c = 0; c < n_ctx; ++c) {
      auto [first, last] = children(k - 1, c);
      for (uint32_t e = first; e < last; ++e) {
        std::copy_n(rows.data() + static_cast<size_t>(c) * (k - 1), k - 1, next.data() + static_cast<size_t>(e) * k);
        next[static_cast<size_t>(e) * k + k - 1] = o.word[e];
      }
    }
    rows = std::move(next);
  }
  return rows;
}

void NGramModel::throw_missing_suffix(int n) {
  SEQLAB_CHECK(false, "NGram: internal error: a ", n, "-gram whose suffix is not in the model");
  std::abort();
}

std::vector<uint32_t> NGramModel::suffix_links(int n, const std::vector<uint32_t>& lower_links) const {
  std::vector<uint32_t> links(orders_[n - 1].size());
  for_each_suffix(
      n, [&](uint32_t c) { return lower_links[c]; }, [&](uint32_t e, uint32_t x) { links[e] = x; });
  return links;
}

std::pair<uint32_t, uint32_t> NGramModel::bos_range(int n) const {
  uint32_t first = kBos, last = kBos + 1;
  for (int k = 1; k < n; ++k) {
    const std::vector<uint32_t>& fc = orders_[k - 1].first_child;
    first = fc[first];
    last = fc[last];
  }
  return {first, last};
}

}  // namespace seqlab::lm
