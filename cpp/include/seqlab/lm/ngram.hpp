// N-gram language models: counting, smoothing (MLE, add-k, Katz, Witten-Bell, interpolated
// modified Kneser-Ney as KenLM's lmplz), ARPA files, scoring. Python: seqlab.lm.NGram
// (python/seqlab/lm/ngram.py); tests: tests/test_ngram*.py, cpp/tests/test_lm.cpp.
// Storage is a forward trie in flat arrays, one level per order, with no hash index: an
// n-gram is its context's entry in the order below and its last word, and each order's
// entries are sorted by (context entry, word), so that the n-grams that share a context are
// one contiguous run. Per n-gram: 4 bytes each for the word, the first child (orders below
// the top), the count, log10 p and the back-off weight (orders below the top) — 20 bytes, 12
// at the top order; building adds a few bytes per position for the counting sort, and
// scoring 18 bytes per n-gram for its hash index (NGramIndex).
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "seqlab/text/corpus.hpp"
#include "seqlab/text/token_index.hpp"

namespace seqlab::lm {

// Fixed ids, as KenLM numbers its vocabulary: <unk> 0, <s> 1, </s> 2, then the words.
constexpr uint32_t kUnk = 0, kBos = 1, kEos = 2;

// Arpa: read from a file; scored by the ARPA back-off rule like the back-off smoothings.
enum class Smoothing { MLE, AddK, Katz, WittenBell, KneserNey, Arpa };

// One order of the trie. Order n's entry e is the n-gram (context w_1..w_{n-1}, word[e]); the
// unigrams' entry is their vocabulary id. Entries are sorted by (context entry, word), so the
// children of an entry c of order n — the n-grams of order n+1 whose context it is — are the
// entries first_child[c] .. first_child[c+1] of order n+1 (first_child has size()+1 values;
// it is empty at the top order). What each smoothing stores, as in an ARPA file: log10 p(w |
// context) and, for n-grams that are contexts, the log10 back-off weight (0 where there is
// none; empty at the top order of a built model). Counts are 32-bit: fit refuses corpora of
// 2^32 tokens or more.
struct Order {
  std::vector<uint32_t> word;
  std::vector<uint32_t> first_child;
  std::vector<uint32_t> count;      // raw count (empty for a model read from ARPA)
  std::vector<uint32_t> ctx_count;  // Katz, MLE, add-k: sum of the raw counts of the n-grams this one is the context of
  std::vector<float> logprob;
  std::vector<float> backoff;
  size_t size() const { return word.size(); }
};

struct Discounts {  // one order's discounts, and how they were found
  // Modified Kneser-Ney's D1, D2, D3+.
  double d[3] = {0, 0, 0};
  uint64_t counts_of_counts[4] = {0, 0, 0, 0};  // n-grams with adjusted count 1, 2, 3, 4
  bool fallback = false;
  // Katz's Good-Turing discounts (smooth_katz): the largest count discounted (katz_k lowered as
  // SRILM lowers gtmax; 0: none), the counts of counts n_1 .. n_{K'+1} with K' = min(katz_k, the
  // order's largest count), the coefficients d_1 .. d_K (1 where unusable), and the contexts whose
  // denominator was raised to leave mass for unseen words.
  int katz_k = 0;
  std::vector<uint64_t> katz_counts_of_counts;
  std::vector<double> katz_d;
  uint64_t katz_raised_contexts = 0;
};

// The scorer's index of the trie (ngram_index.cpp). For each order n >= 2, an open-addressing
// table of its entries, each at the hash of its n words, as KenLM's probing model keys its
// tables. A token's n-grams are hashed from the words alone, so their slots can be requested
// tokens ahead (score) and a probe needs nothing from the previous token's lookups; the
// trie's binary search among a context's children (a bigram context has hundreds) is a chain
// of loads, each waiting for the one before and for the previous token's result. A slot
// holds the entry with its context entry and word, so a hit is checked exactly (a hash
// collision is never a match) without touching the trie. 12 bytes per slot, 3 slots per 2
// n-grams: 18 bytes per n-gram, built only when something is scored.
class NGramIndex {
 public:
  // The key of the n-gram (context, w) from its context's key; the empty context's key is kRoot.
  static constexpr uint64_t kRoot = 0x243F6A8885A308D3ull;
  static uint64_t extend(uint64_t context_key, uint32_t w) {
    uint64_t x = (context_key ^ w) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    return x ^ (x >> 32);
  }
  void build(const std::vector<Order>& orders);
  // Order n's entry with key `key`: context c (an entry of order n-1) and word w; -1 if none.
  int64_t find(int n, uint64_t key, uint32_t c, uint32_t w) const {
    const std::vector<Slot>& table = tables_[n - 2];
    if (table.empty()) return -1;
    for (size_t s = start(key, table.size());; s = s + 1 == table.size() ? 0 : s + 1) {
      const Slot& slot = table[s];
      if (slot.entry_plus_one == 0) return -1;
      if (slot.word == w && slot.context == c) return slot.entry_plus_one - 1;
    }
  }
  // Starts loading the slot where the probe for `key` in order n begins.
  void prefetch(int n, uint64_t key) const {
    const std::vector<Slot>& table = tables_[n - 2];
    if (!table.empty()) __builtin_prefetch(table.data() + start(key, table.size()));
  }

 private:
  struct Slot {
    uint32_t entry_plus_one;  // 0: empty
    uint32_t context, word;
  };
  static size_t start(uint64_t key, size_t size) {
    return static_cast<size_t>((static_cast<__uint128_t>(key) * size) >> 64);
  }
  std::vector<std::vector<Slot>> tables_;  // tables_[n - 2]: order n's entries
};

// The highest order: scoring keeps KenLM's state, the n-grams ending at the previous token,
// in fixed arrays of kMaxOrder + 1 entries (ngram_query.cpp).
constexpr int kMaxOrder = 64;

struct BuildOptions {
  int order = 3;                         // 1 .. kMaxOrder
  Smoothing smoothing = Smoothing::KneserNey;
  double k = 1.0;                        // add-k's k > 0
  int katz_k = 5;                        // Katz: Good-Turing discounts counts r <= katz_k (>= 1)
  double fallback[3] = {0.5, 1.0, 1.5};  // KN discounts used where KenLM's estimate fails
  // Every field at once, before any counting (std::invalid_argument naming the field), as
  // LBFGSpp's check_param; NGram's constructor calls it, so fit never starts on bad options.
  // A fallback discount D_c must lie in [0, c], the range lmplz requires of the discounts it
  // estimates (lm/builder/adjust_counts.cc): an n-gram seen c times keeps c - D_c.
  void check() const;
};

class NGramModel {
 public:
  // Counts the sentences (ids into `words`, the vocabulary without specials) and smooths.
  // sentences: ids[offsets[s] .. offsets[s+1]); an id < 0 is <unk>.
  static NGramModel build(const std::vector<std::string>& words, const int32_t* ids, const int64_t* offsets,
                          int64_t n_sentences, const BuildOptions& opt);
  // ARPA files (KenLM's and SRILM's format); errors name the file and the line.
  static NGramModel read_arpa(const std::string& path);
  void write_arpa(const std::string& path) const;  // to `path` directly; Python makes it atomic

  int order() const { return static_cast<int>(orders_.size()); }
  Smoothing smoothing() const { return smoothing_; }
  double add_k() const { return k_; }
  bool has_counts() const { return !orders_.empty() && !orders_[0].count.empty(); }
  const std::vector<std::string>& vocab() const { return vocab_; }  // id -> token
  uint32_t id(std::string_view token) const;                         // kUnk if unknown
  const Order& order_table(int n) const { return orders_.at(n - 1); }
  // Order n's n-grams, entry by entry: size() rows of n ids, oldest word first.
  std::vector<uint32_t> keys(int n) const;
  // The entry of word w after entry c of order n (n = 0: the root), or -1: a binary search
  // among c's children.
  int64_t child(int n, uint32_t c, uint32_t w) const;
  // The entry of the n-gram ids[0..n) in order n, or -1.
  int64_t find(const uint32_t* ids, int n) const;
  const std::vector<Discounts>& discounts() const { return discounts_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Words that share the unigram distribution's uniform share: all but <s>.
  size_t vocab_size_without_bos() const { return vocab_.size() - 1; }

  // A sentence's ids, split as text::encode splits (words, or characters with ' ' spelled
  // "<space>" as in the model's vocabulary); unknown tokens become <unk> and are counted in n_oov.
  std::vector<uint32_t> encode(std::string_view sentence, text::Level level, size_t* n_oov = nullptr) const;

  // log10 p(w | history), history oldest first (only the last order-1 ids are used).
  // `ngram_length` gets the length of the n-gram that matched, as KenLM's full_scores.
  double log10_prob(const uint32_t* history, size_t history_len, uint32_t w, int* ngram_length = nullptr) const;
  // Per-token log10 probabilities of one sentence (plus </s> with eos), KenLM's semantics:
  // bos puts <s> before the first word.
  void score(const uint32_t* ids, size_t n, bool bos, bool eos, double* out_log10, int* out_len) const;
  // log10 p(w | history) for every id w (<s> gets -inf).
  std::vector<double> distribution(const uint32_t* history, size_t history_len) const;

 private:
  void smooth_kneser_ney(const BuildOptions& opt);
  void smooth_witten_bell();
  void smooth_katz(int katz_k);
  void smooth_mle_add_k(double k);
  void index_vocab();
  // Order n+1's entries that continue entry c of order n (n = 0: the root, whose children are
  // the unigrams): [first, last).
  std::pair<uint32_t, uint32_t> children(int n, uint32_t c) const;
  // For every entry of order n >= 2, the entry of its suffix w_2..w_n in order n-1, given
  // order n-1's (empty for n = 2): a merge of two sorted runs per context (a seen n-gram's
  // suffix is seen), no search.
  std::vector<uint32_t> suffix_links(int n, const std::vector<uint32_t>& lower_links) const;
  // The same merge, calling f(e, suffix of e) instead of storing the links; lower_link(c) is
  // order n-1's link of its entry c.
  template <class Links, class F>
  void for_each_suffix(int n, Links lower_link, F f) const;
  [[noreturn]] static void throw_missing_suffix(int n);
  // The entries of order n whose first word is <s>: one contiguous range.
  std::pair<uint32_t, uint32_t> bos_range(int n) const;
  // Fills orders 1..N's words, first children and counts from the sentences (as build's
  // arguments; to_model maps the ids to the model's).
  void count_ngrams(const int32_t* ids, const int64_t* offsets, int64_t n_sentences,
                    const std::vector<uint32_t>& to_model, int N);
  // KenLM's state: the n-grams ending at the previous token that are in the model, entry[j]
  // and key[j] (NGramIndex) for the j-gram, j = 1..len; those are exactly the histories whose
  // back-off weights the next token may need.
  struct History {
    uint32_t entry[kMaxOrder + 1];
    uint64_t key[kMaxOrder + 1];
    int len = 0;
  };
  // The back-off rule for one token w after the histories h; moves h on to w.
  double advance(const NGramIndex& index, History& h, uint32_t w, int* ngram_length) const;
  // The index of the trie, built by the first call that scores (thread-safe; the model does not
  // change after build or read_arpa).
  const NGramIndex& ngram_index() const;
  struct LazyIndex {
    std::once_flag once;
    NGramIndex index;
  };
  std::unique_ptr<LazyIndex> lazy_ = std::make_unique<LazyIndex>();
  double root_total_ = 0;  // sum of the unigram counts (all but <s>): MLE's and add-k's denominator
  double direct_log10_prob(const uint32_t* history, size_t history_len, uint32_t w, int* ngram_length) const;

  std::vector<std::string> vocab_;
  text::TokenIndex index_;  // vocab_ -> id
  std::vector<Order> orders_;
  std::vector<Discounts> discounts_;
  std::vector<std::string> warnings_;
  Smoothing smoothing_ = Smoothing::KneserNey;
  double k_ = 1.0;
};

// The suffix of (context c, word w) is (suffix of c, w): w among the children of c's suffix.
// Both runs are sorted by word and the first is a subset of the second, so one merge finds
// all of c's children's suffixes.
template <class Links, class F>
void NGramModel::for_each_suffix(int n, Links lower_link, F f) const {
  const Order& o = orders_[n - 1];
  if (n == 2) {
    for (uint32_t e = 0; e < o.size(); ++e) f(e, o.word[e]);
    return;
  }
  const Order& mid = orders_[n - 2];  // the contexts, of order n-1
  const Order& low = orders_[n - 3];  // their suffixes' order
  for (uint32_t c = 0; c < mid.size(); ++c) {
    auto [first, last] = children(n - 1, c);
    if (first == last) continue;
    const uint32_t s = lower_link(c);
    uint32_t j = low.first_child[s];
    const uint32_t j_end = low.first_child[s + 1];
    for (uint32_t e = first; e < last; ++e) {
      while (j < j_end && mid.word[j] < o.word[e]) ++j;
      if (j == j_end || mid.word[j] != o.word[e]) throw_missing_suffix(n);
      f(e, j);
    }
  }
}

}  // namespace seqlab::lm
