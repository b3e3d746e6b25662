// Counting n-grams (NGramModel::build), as KenLM's lmplz counts: each sentence is
// <s> w_1 .. w_m </s>, and every predicted token (the words and </s>) is counted with its
// full window of order-1 tokens before it, or, near the start, with all of them back to <s>
// (lmplz pads with more <s> and drops the n-grams made of padding; counting the shorter
// n-gram directly is the same and never stores the padding). Each lower order is then
// derived from the suffixes of the order above, which gives in the same pass
//   raw count  c(w_2..w_n)   = sum of c(v w_2..w_n) over the left extensions v, and
//   N1+(. w_2..w_n)          = the number of distinct left extensions v,
// the continuation count that Kneser-Ney uses for n-grams below the top order that do not
// start with <s> (Chen & Goodman 1998, sec. 3.6; Heafield et al. 2013, sec. 3.1).
#include <algorithm>
#include <cmath>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"

namespace seqlab::lm {

void NGramModel::index_vocab() {
  index_.build(vocab_);
}

uint32_t NGramModel::id(std::string_view token) const {
  uint32_t id = index_.find(vocab_, token);
  return id == text::TokenIndex::kMissing ? kUnk : id;
}

int64_t NGramModel::context_of(int n, size_t e) const {
  if (static_cast<size_t>(n) <= context_index_.size() && !context_index_[n - 1].empty()) return context_index_[n - 1][e];
  return orders_[n - 2].table.find(orders_[n - 1].table.key(e));
}

int64_t NGramModel::suffix_of(int n, size_t e) const {
  if (static_cast<size_t>(n) <= suffix_index_.size() && !suffix_index_[n - 1].empty()) return suffix_index_[n - 1][e];
  return orders_[n - 2].table.find(orders_[n - 1].table.key(e) + 1);
}

// Seen n-grams always have both their context and their suffix in the order below.
void NGramModel::link(int n) {
  if (n < 2) return;
  if (context_index_.size() < static_cast<size_t>(n)) {
    context_index_.resize(n);
    suffix_index_.resize(n);
  }
  const NGramTable& table = orders_[n - 1].table;
  const NGramTable& lower = orders_[n - 2].table;
  auto& ctx = context_index_[n - 1];
  auto& suf = suffix_index_[n - 1];
  ctx.resize(table.size());
  suf.resize(table.size());
  for (size_t e = 0; e < table.size(); ++e) {
    int64_t c = lower.find(table.key(e)), x = lower.find(table.key(e) + 1);
    SEQLAB_CHECK(c >= 0 && x >= 0, "NGram: internal error: a ", n, "-gram without its context or suffix");
    ctx[e] = static_cast<uint32_t>(c);
    suf[e] = static_cast<uint32_t>(x);
  }
}

void NGramModel::unlink(int n) {
  if (static_cast<size_t>(n) > context_index_.size()) return;
  std::vector<uint32_t>().swap(context_index_[n - 1]);
  std::vector<uint32_t>().swap(suffix_index_[n - 1]);
}

NGramModel NGramModel::build(const std::vector<std::string>& words, const int32_t* ids, const int64_t* offsets,
                             int64_t n_sentences, const BuildOptions& opt) {
  const int N = opt.order;
  SEQLAB_CHECK_VALUE(N >= 1, "NGram: order must be >= 1, got ", N);
  SEQLAB_CHECK_VALUE(n_sentences > 0 && offsets[n_sentences] > 0, "NGram.fit: the corpus is empty (no tokens)");
  SEQLAB_CHECK_VALUE(opt.smoothing != Smoothing::AddK || opt.k > 0, "NGram: add-k needs k > 0, got ", opt.k);

  NGramModel m;
  m.smoothing_ = opt.smoothing;
  m.k_ = opt.k;
  // Vocabulary: <unk> <s> </s>, then the words in the given order ("<unk>" in the text is <unk>).
  m.vocab_ = {"<unk>", "<s>", "</s>"};
  std::vector<uint32_t> to_model(words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    SEQLAB_CHECK_VALUE(w != "<s>" && w != "</s>", "NGram.fit: the corpus contains the special token '", w,
                       "'; sentence boundaries are added by the model (bos/eos)");
    if (w == "<unk>") {
      to_model[i] = kUnk;
    } else {
      to_model[i] = static_cast<uint32_t>(m.vocab_.size());
      m.vocab_.push_back(w);
    }
  }
  m.index_vocab();
  const size_t V = m.vocab_.size();

  const uint64_t windows = static_cast<uint64_t>(offsets[n_sentences]) + static_cast<uint64_t>(n_sentences);
  SEQLAB_CHECK_VALUE(windows < UINT32_MAX, "NGram.fit: ", offsets[n_sentences], " tokens in ", n_sentences,
                     " sentences; counts are 32-bit, so corpora must have fewer than 2^32 tokens");
  const bool kn = opt.smoothing == Smoothing::KneserNey;

  // Each predicted token's n-gram: the full window, or <s> and everything after it.
  m.orders_.clear();
  for (int n = 1; n <= N; ++n) m.orders_.push_back(Order{NGramTable(n), {}, {}, {}, {}});
  m.orders_[N - 1].table.reserve(windows);  // an upper bound; untouched pages cost nothing
  m.orders_[N - 1].count.reserve(windows);
  std::vector<uint32_t> buf;
  for (int64_t s = 0; s < n_sentences; ++s) {
    buf.assign(1, kBos);
    for (int64_t i = offsets[s]; i < offsets[s + 1]; ++i) buf.push_back(ids[i] < 0 ? kUnk : to_model[ids[i]]);
    buf.push_back(kEos);
    for (size_t p = 1; p < buf.size(); ++p) {
      const int n = static_cast<int>(std::min<size_t>(N, p + 1));
      Order& o = m.orders_[n - 1];
      bool added;
      size_t e = o.table.insert(&buf[p + 1 - n], added);
      if (added) o.count.push_back(0);
      ++o.count[e];
    }
  }

  // Lower orders from the suffixes of the order above (adding to the start-of-sentence
  // n-grams counted directly); KN's continuation counts on the way.
  std::vector<std::vector<uint32_t>> adjusted(N);
  for (int n = N - 1; n >= 1; --n) {
    Order& hi = m.orders_[n];
    Order& lo = m.orders_[n - 1];
    std::vector<uint32_t>& cont = adjusted[n - 1];
    if (kn) cont.assign(lo.count.size(), 0);
    lo.table.reserve(lo.table.size() + hi.table.size());
    for (size_t e = 0; e < hi.table.size(); ++e) {
      bool added;
      size_t i = lo.table.insert(hi.table.key(e) + 1, added);
      if (added) {
        lo.count.push_back(0);
        if (kn) cont.push_back(0);
      }
      lo.count[i] += hi.count[e];
      if (kn) cont[i] += 1;
    }
    // An n-gram that starts with <s> has no left extension but padding: its raw count.
    if (kn)
      for (size_t i = 0; i < lo.table.size(); ++i)
        if (lo.table.key(i)[0] == kBos) cont[i] = lo.count[i];
  }

  // Unigrams are renumbered so that entry == vocabulary id (every id present, <s> and <unk> too).
  {
    Order& uni = m.orders_[0];
    Order fresh{NGramTable(1), std::vector<uint32_t>(V, 0), {}, {}, {}};
    const bool adjust = kn && N > 1;  // a unigram model's adjusted counts are its counts
    std::vector<uint32_t> adj(adjust ? V : 0, 0);
    for (uint32_t w = 0; w < V; ++w) {
      bool added;
      fresh.table.insert(&w, added);
    }
    for (size_t e = 0; e < uni.table.size(); ++e) {
      uint32_t w = uni.table.key(e)[0];
      fresh.count[w] = uni.count[e];
      if (adjust) adj[w] = adjusted[0][e];
    }
    if (adjust) adj[kBos] = 0;
    fresh.count[kBos] = 0;  // nothing precedes <s>; it is never predicted
    uni = std::move(fresh);
    adjusted[0] = std::move(adj);
  }

  m.root_total_ = 0;
  for (uint32_t w = 0; w < V; ++w) m.root_total_ += static_cast<double>(m.orders_[0].count[w]);
  // Context counts c(h) = sum over w of c(h w), for the smoothings that divide by them.
  if (opt.smoothing == Smoothing::Katz || opt.smoothing == Smoothing::MLE || opt.smoothing == Smoothing::AddK) {
    for (int n = 1; n < N; ++n) m.orders_[n - 1].ctx_count.assign(m.orders_[n - 1].table.size(), 0);
    for (int n = 2; n <= N; ++n)
      for (size_t e = 0; e < m.orders_[n - 1].table.size(); ++e)
        m.orders_[n - 2].ctx_count[m.context_of(n, e)] += m.orders_[n - 1].count[e];
  }

  for (int n = 1; n <= N; ++n) {
    Order& o = m.orders_[n - 1];
    o.logprob.assign(o.table.size(), 0.0f);
    // The top order has no back-off weights (unigrams keep theirs, zero, for the scorer's state).
    if (n < N || n == 1) o.backoff.assign(o.table.size(), 0.0f);
  }
  switch (opt.smoothing) {
    case Smoothing::KneserNey: m.smooth_kneser_ney(opt, adjusted); break;
    case Smoothing::WittenBell: m.smooth_witten_bell(); break;
    case Smoothing::Katz: m.smooth_katz(opt.katz_k); break;
    case Smoothing::MLE:
    case Smoothing::AddK: m.smooth_mle_add_k(opt.k); break;
    case Smoothing::Arpa: SEQLAB_CHECK_VALUE(false, "NGram: 'arpa' is not a smoothing to build with");
  }
  return m;
}

}  // namespace seqlab::lm
