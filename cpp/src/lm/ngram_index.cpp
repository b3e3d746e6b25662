// NGramIndex (seqlab/lm/ngram.hpp): the scorer's hash index of the trie's entries, keyed by
// their words as KenLM's probing tables are, so that a token's lookups do not wait for the
// previous token's. Tested in cpp/tests/test_lm.cpp (every n-gram found, absent ones not) and
// through scoring in tests/test_ngram*.py.
#include "seqlab/lm/ngram.hpp"
#include "seqlab/memory.hpp"

namespace seqlab::lm {

void NGramIndex::build(const std::vector<Order>& orders) {
  tables_.assign(orders.size() > 1 ? orders.size() - 1 : 0, {});
  if (orders.empty()) return;
  // key of order n's entry e = extend(key of its context, word[e]); the unigram w's context is the root.
  std::vector<uint64_t> keys(orders[0].size()), next;
  for (uint32_t w = 0; w < keys.size(); ++w) keys[w] = extend(kRoot, w);
  for (size_t n = 2; n <= orders.size(); ++n) {
    const Order& ctx = orders[n - 2];
    const Order& o = orders[n - 1];
    std::vector<Slot>& table = tables_[n - 2];
    const size_t size = o.size() + o.size() / 2 + 1;  // load <= 2/3: short probes
    reserve_huge_pages(table, size);
    table.assign(size, Slot{0, 0, 0});
    next.assign(n < orders.size() ? o.size() : 0, 0);
    for (uint32_t c = 0; c < ctx.size(); ++c)
      for (uint32_t e = ctx.first_child[c]; e < ctx.first_child[c + 1]; ++e) {
        const uint64_t key = extend(keys[c], o.word[e]);
        if (!next.empty()) next[e] = key;
        size_t s = start(key, table.size());
        while (table[s].entry_plus_one != 0) s = s + 1 == table.size() ? 0 : s + 1;
        table[s] = Slot{e + 1, c, o.word[e]};
      }
    keys.swap(next);
  }
}

const NGramIndex& NGramModel::ngram_index() const {
  std::call_once(lazy_->once, [this] { lazy_->index.build(orders_); });
  return lazy_->index;
}

}  // namespace seqlab::lm
