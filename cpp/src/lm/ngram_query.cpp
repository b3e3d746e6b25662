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

double NGramModel::log10_prob(const uint32_t* history, size_t history_len, uint32_t w, int* ngram_length) const {
  SEQLAB_CHECK_INDEX(w < vocab_.size() && w != kBos, "NGram: token id ", w, " is not a token that can be predicted");
  const int N = order();
  if (history_len > static_cast<size_t>(N - 1)) {
    history += history_len - (N - 1);
    history_len = N - 1;
  }
  if (smoothing_ == Smoothing::MLE || smoothing_ == Smoothing::AddK)
    return direct_log10_prob(history, history_len, w, ngram_length);
  uint32_t key[64];
  SEQLAB_CHECK(N <= 64, "NGram: order ", N, " is above the supported 64");
  // Longest match: n-grams h_{L-n+1..L} w for n = 1, 2, ... (a seen n-gram's suffixes are seen).
  double lp = orders_[0].logprob[w];
  int match = 1;
  for (int n = 2; n <= static_cast<int>(history_len) + 1; ++n) {
    for (int i = 0; i < n - 1; ++i) key[i] = history[history_len - (n - 1) + i];
    key[n - 1] = w;
    int64_t e = orders_[n - 1].table.find(key);
    if (e < 0) break;
    lp = orders_[n - 1].logprob[e];
    match = n;
  }
  // Back-off weights of the histories longer than the matched one's.
  for (int j = match; j <= static_cast<int>(history_len); ++j) {
    int64_t e = orders_[j - 1].table.find(history + history_len - j);
    if (e < 0) break;
    lp += orders_[j - 1].backoff[e];
  }
  if (ngram_length) *ngram_length = match;
  return lp;
}

double NGramModel::direct_log10_prob(const uint32_t* history, size_t history_len, uint32_t w, int* ngram_length) const {
  const bool add = smoothing_ == Smoothing::AddK;
  const double V = static_cast<double>(vocab_size_without_bos());
  uint32_t key[64];
  for (int n = static_cast<int>(history_len) + 1; n >= 2; --n) {
    const uint32_t* h = history + history_len - (n - 1);
    int64_t c = orders_[n - 2].table.find(h);
    if (c < 0 || orders_[n - 2].ctx_count[c] == 0) continue;  // unseen history: a shorter one
    for (int i = 0; i < n - 1; ++i) key[i] = h[i];
    key[n - 1] = w;
    int64_t e = orders_[n - 1].table.find(key);
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
  std::vector<std::string_view> tokens;
  text::split_tokens(sentence, level, tokens);
  std::vector<uint32_t> ids(tokens.size());
  size_t oov = 0;
  std::vector<uint64_t> hashes(tokens.size());
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
// model are exactly the histories whose back-off weights the next token may need, and none
// longer than them can match; so each token costs only the lookups of its own n-grams.
void NGramModel::score(const uint32_t* ids, size_t n, bool bos, bool eos, double* out_log10, int* out_len) const {
  if (smoothing_ == Smoothing::MLE || smoothing_ == Smoothing::AddK) {
    const size_t keep = static_cast<size_t>(order() - 1);
    std::vector<uint32_t> hist;
    if (bos) hist.push_back(kBos);
    for (size_t i = 0; i < n + (eos ? 1 : 0); ++i) {
      uint32_t w = i == n ? kEos : ids[i];
      size_t L = std::min(hist.size(), keep);
      out_log10[i] = log10_prob(hist.data() + hist.size() - L, L, w, out_len ? out_len + i : nullptr);
      hist.push_back(w);
    }
    return;
  }
  const int N = order();
  SEQLAB_CHECK(N <= 64, "NGram: order ", N, " is above the supported 64");
  const size_t T = n + (eos ? 1 : 0), first = bos ? 1 : 0;
  // The sentence as the model sees it: <s>? tokens </s>?; token i is hist[first + i].
  std::vector<uint32_t> hist(first + T);
  if (bos) hist[0] = kBos;
  for (size_t i = 0; i < T; ++i) {
    const uint32_t w = i == n ? kEos : ids[i];
    SEQLAB_CHECK_INDEX(w < vocab_.size() && w != kBos, "NGram: token id ", w, " cannot be predicted");
    hist[first + i] = w;
  }
  // Lookups are memory-bound (a slot, then the entry's ids and values, per order). So they go
  // in three passes over the sentence: hash every n-gram that can be looked up and prefetch
  // its slot; read the slots and prefetch the candidate entries; then run the back-off rule,
  // whose lookups now hit the cache. (KenLM's state limits which orders are needed; the
  // first two passes cover all of them.)
  auto max_order = [&](size_t i) { return static_cast<int>(std::min<size_t>(N, first + i + 1)); };
  std::vector<uint64_t> hashes(T * N);
  for (size_t i = 0; i < T; ++i) {
    const uint32_t* end = hist.data() + first + i + 1;  // the order-k n-gram is end[-k .. 0)
    for (int k = 2; k <= max_order(i); ++k) {
      hashes[i * N + k - 1] = orders_[k - 1].table.hash(end - k);
      orders_[k - 1].table.prefetch(hashes[i * N + k - 1]);
    }
  }
  for (size_t i = 0; i < T; ++i)
    for (int k = 2; k <= max_order(i); ++k) {
      const NGramTable& t = orders_[k - 1].table;
      int64_t e = t.candidate(hashes[i * N + k - 1]);
      if (e < 0) continue;
      __builtin_prefetch(t.key(e));
      __builtin_prefetch(orders_[k - 1].logprob.data() + e);
      if (k < N) __builtin_prefetch(orders_[k - 1].backoff.data() + e);
    }

  float bo_prev[65], bo_cur[65];  // bo_prev[j]: back-off of the j-gram ending at the previous token
  int prev_match = 0;             // how many of those are in the model
  if (bos) {
    bo_prev[1] = orders_[0].backoff[kBos];
    prev_match = 1;
  }
  for (size_t i = 0; i < T; ++i) {
    const uint32_t w = hist[first + i];
    const uint32_t* end = hist.data() + first + i + 1;
    const int longest = std::min(prev_match + 1, N);
    double lp = orders_[0].logprob[w];
    bo_cur[1] = orders_[0].backoff[w];
    int match = 1;
    for (int k = 2; k <= longest; ++k) {
      int64_t e = orders_[k - 1].table.find(end - k, hashes[i * N + k - 1]);
      if (e < 0) break;
      lp = orders_[k - 1].logprob[e];
      bo_cur[k] = k < N ? orders_[k - 1].backoff[e] : 0.0f;
      match = k;
    }
    for (int j = match; j <= std::min(prev_match, N - 1); ++j) lp += bo_prev[j];
    out_log10[i] = lp;
    if (out_len) out_len[i] = match;
    std::copy(bo_cur + 1, bo_cur + match + 1, bo_prev + 1);
    prev_match = match;
  }
}

std::vector<double> NGramModel::distribution(const uint32_t* history, size_t history_len) const {
  std::vector<double> out(vocab_.size());
  for (uint32_t w = 0; w < vocab_.size(); ++w)
    out[w] = w == kBos ? -std::numeric_limits<double>::infinity() : log10_prob(history, history_len, w);
  return out;
}

}  // namespace seqlab::lm
