// Scoring with an NGramModel. The back-off rule of ARPA files (KenLM's and SRILM's):
//   log p(w | h) = logprob(h_k w) + sum of backoff(h_j) for j = k .. |h|,
// where h_k w is the longest n-gram in the model ending in w and h_j are the histories of
// length j (those in the model; a missing one has weight 1). MLE and add-k read the counts.
#include <algorithm>
#include <cmath>
#include <limits>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"

namespace seqlab::lm {

// Longest match first: the n-grams ending in w are (h.entry[j], w), and if one is missing so is
// every longer one (its suffix); then the weights of the histories longer than the match's.
// Each lookup is a probe of the index at the n-gram's key (NGramIndex), checked against the
// trie: the entry must continue h.entry[j] (lie in its run of children).
double NGramModel::advance(const NGramIndex& index, History& h, uint32_t w, int* ngram_length) const {
  uint32_t found[kMaxOrder + 1];
  uint64_t key[kMaxOrder + 1];
  found[1] = w;
  key[1] = NGramIndex::extend(NGramIndex::kRoot, w);
  int match = 1;
  for (int j = 1; j <= h.len; ++j) {
    key[j + 1] = NGramIndex::extend(h.key[j], w);
    const int64_t e = index.find(j + 1, key[j + 1], h.entry[j], w);
    if (e < 0) break;
    found[j + 1] = static_cast<uint32_t>(e);
    match = j + 1;
  }
  double lp = orders_[match - 1].logprob[found[match]];
  for (int j = match; j <= h.len; ++j) lp += orders_[j - 1].backoff[h.entry[j]];
  if (ngram_length) *ngram_length = match;
  h.len = std::min(match, order() - 1);
  std::copy(found + 1, found + h.len + 1, h.entry + 1);
  std::copy(key + 1, key + h.len + 1, h.key + 1);
  return lp;
}

double NGramModel::log10_prob(const uint32_t* history, size_t history_len, uint32_t w, int* ngram_length) const {
  SEQLAB_CHECK_INDEX(w < vocab_.size() && w != kBos, "NGram: token id ", w, " is not a token that can be predicted");
  const int N = order();
  SEQLAB_CHECK(N <= kMaxOrder, "NGram: order ", N, " is above the supported ", kMaxOrder);
  if (history_len > static_cast<size_t>(N - 1)) {
    history += history_len - (N - 1);
    history_len = N - 1;
  }
  if (smoothing_ == Smoothing::MLE || smoothing_ == Smoothing::AddK)
    return direct_log10_prob(history, history_len, w, ngram_length);
  History h;
  for (int j = 1; j <= static_cast<int>(history_len); ++j) {  // a missing history: so are the longer ones
    const uint32_t* words = history + history_len - j;
    const int64_t e = find(words, j);
    if (e < 0) break;
    h.entry[j] = static_cast<uint32_t>(e);
    h.key[j] = NGramIndex::kRoot;
    for (int k = 0; k < j; ++k) h.key[j] = NGramIndex::extend(h.key[j], words[k]);
    h.len = j;
  }
  return advance(ngram_index(), h, w, ngram_length);
}

double NGramModel::direct_log10_prob(const uint32_t* history, size_t history_len, uint32_t w, int* ngram_length) const {
  const bool add = smoothing_ == Smoothing::AddK;
  const double V = static_cast<double>(vocab_size_without_bos());
  for (int n = static_cast<int>(history_len) + 1; n >= 2; --n) {
    const uint32_t* h = history + history_len - (n - 1);
    int64_t c = find(h, n - 1);
    if (c < 0 || orders_[n - 2].ctx_count[c] == 0) continue;  // unseen history: a shorter one
    int64_t e = child(n - 1, static_cast<uint32_t>(c), w);
    double count = e < 0 ? 0.0 : static_cast<double>(orders_[n - 1].count[e]);
    double total = static_cast<double>(orders_[n - 2].ctx_count[c]);
    if (ngram_length) *ngram_length = e < 0 ? n - 1 : n;
    double p = add ? (count + k_) / (total + k_ * V) : count / total;
    return p > 0 ? std::log10(p) : -std::numeric_limits<double>::infinity();
  }
  if (ngram_length) *ngram_length = 1;
  double count = static_cast<double>(orders_[0].count[w]);
  double p = add ? (count + k_) / (root_total_ + k_ * V) : count / root_total_;
  return p > 0 ? std::log10(p) : -std::numeric_limits<double>::infinity();
}

std::vector<uint32_t> NGramModel::encode(std::string_view sentence, text::Level level, size_t* n_oov) const {
  // Scratch kept per thread: a sentence is scored in a few microseconds, where allocating
  // these every call showed in the profile.
  thread_local std::vector<std::string_view> tokens;
  thread_local std::vector<uint64_t> hashes;
  text::split_tokens(sentence, level, tokens);
  std::vector<uint32_t> ids(tokens.size());
  size_t oov = 0;
  hashes.resize(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {  // hash all first: the slots' loads overlap
    if (level == text::Level::Char && tokens[i] == " ") tokens[i] = "<space>";
    hashes[i] = text::TokenIndex::hash(tokens[i]);
    index_.prefetch(hashes[i]);
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    uint32_t id = index_.find(vocab_, tokens[i], hashes[i]);
    ids[i] = id == text::TokenIndex::kMissing ? kUnk : id;
    oov += ids[i] == kUnk;
  }
  if (n_oov) *n_oov = oov;
  return ids;
}

// Left to right with KenLM's state: the n-grams that end at the previous token and are in the
// model are exactly the histories whose back-off weights the next token may need, and each
// token's n-grams continue them: one binary search among a history's children per order.
void NGramModel::score(const uint32_t* ids, size_t n, bool bos, bool eos, double* out_log10, int* out_len) const {
  const int N = order();
  SEQLAB_CHECK(N <= kMaxOrder, "NGram: order ", N, " is above the supported ", kMaxOrder);
  const size_t T = n + (eos ? 1 : 0);
  for (size_t i = 0; i < n; ++i)
    SEQLAB_CHECK_INDEX(ids[i] < vocab_.size() && ids[i] != kBos, "NGram: token id ", ids[i], " cannot be predicted");
  if (smoothing_ == Smoothing::MLE || smoothing_ == Smoothing::AddK) {
    const size_t keep = static_cast<size_t>(N - 1);
    std::vector<uint32_t> hist;
    if (bos) hist.push_back(kBos);
    for (size_t i = 0; i < T; ++i) {
      uint32_t w = i == n ? kEos : ids[i];
      size_t L = std::min(hist.size(), keep);
      out_log10[i] = log10_prob(hist.data() + hist.size() - L, L, w, out_len ? out_len + i : nullptr);
      hist.push_back(w);
    }
    return;
  }
  const NGramIndex& index = ngram_index();
  History h;
  if (bos && N > 1) {
    h.entry[1] = kBos;
    h.key[1] = NGramIndex::extend(NGramIndex::kRoot, kBos);
    h.len = 1;
  }
  // The index slots of token i + kAhead's n-grams are requested while token i is scored: their
  // keys come from the words alone (a key that turns out not to be needed costs one load).
  constexpr size_t kAhead = 4;  // measured on the KJV 5-gram: 2..8 alike, all ~1.4x faster than none
  auto token = [&](size_t i) { return i == n ? kEos : ids[i]; };
  uint64_t ahead[kMaxOrder + 1];  // keys of the n-grams ending at the token being requested
  int ahead_len = 0;              // how many of them fit after <s> (or the sentence's start)
  if (bos) {
    ahead[1] = NGramIndex::extend(NGramIndex::kRoot, kBos);
    ahead_len = 1;
  }
  auto request = [&](size_t u) {
    const uint32_t w = token(u);
    ahead_len = std::min(ahead_len + 1, N);
    for (int k = ahead_len; k >= 2; --k) {
      ahead[k] = NGramIndex::extend(ahead[k - 1], w);
      index.prefetch(k, ahead[k]);
    }
    ahead[1] = NGramIndex::extend(NGramIndex::kRoot, w);
  };
  for (size_t u = 0; u < std::min(kAhead, T); ++u) request(u);
  for (size_t i = 0; i < T; ++i) {
    if (i + kAhead < T) request(i + kAhead);
    out_log10[i] = advance(index, h, token(i), out_len ? out_len + i : nullptr);
  }
}

std::vector<double> NGramModel::distribution(const uint32_t* history, size_t history_len) const {
  std::vector<double> out(vocab_.size());
  for (uint32_t w = 0; w < vocab_.size(); ++w)
    out[w] = w == kBos ? -std::numeric_limits<double>::infinity() : log10_prob(history, history_len, w);
  return out;
}

}  // namespace seqlab::lm
