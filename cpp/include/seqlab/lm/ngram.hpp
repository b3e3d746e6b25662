// N-gram language models: counting, smoothing (MLE, add-k, Katz, Witten-Bell, interpolated
// modified Kneser-Ney as KenLM's lmplz), ARPA files, scoring. Python: seqlab.lm.NGram
// (python/seqlab/lm/ngram.py); tests: tests/test_ngram*.py. Memory is proportional to the
// number of distinct n-grams: each order is one flat table of ids with an open-addressing index
// (4n + 11..21 bytes per n-gram of order n, plus 4 bytes each for its count, log10 p and
// back-off weight; building adds 4 for the Kneser-Ney adjusted count and 8 for the links
// to its context and suffix, freed at the end).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "seqlab/text/corpus.hpp"
#include "seqlab/text/token_index.hpp"

namespace seqlab::lm {

// Fixed ids, as KenLM numbers its vocabulary: <unk> 0, <s> 1, </s> 2, then the words.
constexpr uint32_t kUnk = 0, kBos = 1, kEos = 2;

// Arpa: read from a file; scored by the ARPA back-off rule like the back-off smoothings.
enum class Smoothing { MLE, AddK, Katz, WittenBell, KneserNey, Arpa };

// One order's distinct n-grams. Entry e is ids[e*n .. e*n+n), oldest word first.
class NGramTable {
 public:
  explicit NGramTable(int n = 1) : n_(n) {}
  int order() const { return n_; }
  size_t size() const { return ids_.size() / n_; }
  const uint32_t* key(size_t e) const { return ids_.data() + e * n_; }
  // The entry with these n ids, or -1.
  int64_t find(const uint32_t* ids) const { return find(ids, hash(ids)); }
  int64_t find(const uint32_t* ids, uint64_t h) const;  // h = hash(ids)
  uint64_t hash(const uint32_t* ids) const;
  // Starts loading the slot where hash h's probe begins (the scorer issues all of a token's
  // lookups before it reads any, so their cache misses overlap).
  void prefetch(uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(slots_.data() + (h & (slots_.size() - 1)));
  }
  // The entry that find(ids, h) will most likely return (the first whose tag matches), or -1.
  int64_t candidate(uint64_t h) const;
  // The entry with these ids, added if new; `added` tells which.
  size_t insert(const uint32_t* ids, bool& added);
  // Room for `entries` ids without reallocation (pages are touched only as they fill).
  void reserve(size_t entries);

 private:
  void rehash(size_t slots);
  template <class Accept>
  int64_t probe(uint64_t h, Accept accept) const;
  int n_;
  std::vector<uint32_t> ids_;
  std::vector<uint64_t> slots_;  // hash tag << 32 | entry + 1, 0 = empty; power of two, load <= 3/4
};

// What each smoothing stores per n-gram, as in an ARPA file: log10 p(w | context) and, for
// n-grams that are contexts, the log10 back-off weight (0 where there is none; empty at the
// top order of a built model). Counts are 32-bit: fit refuses corpora of 2^32 tokens or more.
struct Order {
  NGramTable table;
  std::vector<uint32_t> count;      // raw count (empty for a model read from ARPA)
  std::vector<uint32_t> ctx_count;  // Katz, MLE, add-k: sum of the raw counts of the n-grams this one is the context of
  std::vector<float> logprob;
  std::vector<float> backoff;
};

struct Discounts {  // modified Kneser-Ney's D1, D2, D3+ of one order, and how they were found
  double d[3] = {0, 0, 0};
  uint64_t counts_of_counts[4] = {0, 0, 0, 0};  // n-grams with adjusted count 1, 2, 3, 4
  bool fallback = false;
};

struct BuildOptions {
  int order = 3;
  Smoothing smoothing = Smoothing::KneserNey;
  double k = 1.0;                        // add-k's k
  int katz_k = 5;                        // Katz: Good-Turing discounts counts r <= katz_k
  double fallback[3] = {0.5, 1.0, 1.5};  // KN discounts used where KenLM's estimate fails
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
  // adjusted[n-1]: Kneser-Ney's adjusted counts of order n < N (the top order's are its counts).
  void smooth_kneser_ney(const BuildOptions& opt, const std::vector<std::vector<uint32_t>>& adjusted);
  void smooth_witten_bell();
  void smooth_katz(int katz_k);
  void smooth_mle_add_k(double k);
  void index_vocab();
  // For entry e of order n >= 2: the entry of its context (first n-1 ids) in order n-1.
  int64_t context_of(int n, size_t e) const;
  // For entry e of order n >= 2: the entry of its suffix (last n-1 ids) in order n-1.
  int64_t suffix_of(int n, size_t e) const;
  // While the smoothing works on order n: every entry's context and suffix, found once (two
  // lookups per n-gram, which context_of/suffix_of otherwise repeat); unlink frees them, so
  // that only one order's links exist at a time.
  void link(int n);
  void unlink(int n);
  std::vector<std::vector<uint32_t>> context_index_, suffix_index_;
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

}  // namespace seqlab::lm
