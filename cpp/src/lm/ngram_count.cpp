// Counting n-grams (NGramModel::build). Each sentence is padded as KenLM's lmplz pads it:
// order-1 copies of <s> before the words and one </s> after, so every predicted token
// (the words and </s>) has a full-length window. The top order is counted from the windows;
// each lower order from the suffixes of the order above, which gives in the same pass
//   raw count  c(w_2..w_n)   = sum of c(v w_2..w_n) over the left extensions v, and
//   N1+(. w_2..w_n)          = the number of distinct left extensions v,
// the continuation count that Kneser-Ney uses for n-grams below the top order that do not
// start with <s> (Chen & Goodman 1998, sec. 3.6; Heafield et al. 2013, sec. 3.1).
// N-grams made only of padding (<s> <s> ...) are dropped once the counts are known.
#include <cmath>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"

namespace seqlab::lm {

void NGramModel::index_vocab() {
  index_.clear();
  index_.reserve(vocab_.size() * 2);
  for (size_t i = 0; i < vocab_.size(); ++i) index_.emplace(vocab_[i], static_cast<uint32_t>(i));
}

uint32_t NGramModel::id(std::string_view token) const {
  auto it = index_.find(std::string(token));
  return it == index_.end() ? kUnk : it->second;
}

int64_t NGramModel::context_of(int n, size_t e) const {
  if (!context_index_.empty()) return context_index_[n - 1][e];
  return orders_[n - 2].table.find(orders_[n - 1].table.key(e));
}

int64_t NGramModel::suffix_of(int n, size_t e) const {
  if (!suffix_index_.empty()) return suffix_index_[n - 1][e];
  return orders_[n - 2].table.find(orders_[n - 1].table.key(e) + 1);
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

  // The top order, from the padded windows.
  m.orders_.clear();
  for (int n = 1; n <= N; ++n) m.orders_.push_back(Order{NGramTable(n), {}, {}, {}, {}});
  Order& top = m.orders_[N - 1];
  std::vector<uint32_t> buf;
  for (int64_t s = 0; s < n_sentences; ++s) {
    buf.assign(N - 1, kBos);
    for (int64_t i = offsets[s]; i < offsets[s + 1]; ++i) buf.push_back(ids[i] < 0 ? kUnk : to_model[ids[i]]);
    buf.push_back(kEos);
    for (size_t p = N - 1; p < buf.size(); ++p) {
      bool added;
      size_t e = top.table.insert(&buf[p - (N - 1)], added);
      if (added) top.count.push_back(0);
      ++top.count[e];
    }
  }

  // Lower orders from the suffixes of the order above.
  std::vector<std::vector<uint64_t>> adjusted(N);
  adjusted[N - 1] = top.count;
  for (int n = N - 1; n >= 1; --n) {
    Order& hi = m.orders_[n];
    Order& lo = m.orders_[n - 1];
    std::vector<uint64_t>& cont = adjusted[n - 1];
    lo.table.reserve(hi.table.size() + 16);
    for (size_t e = 0; e < hi.table.size(); ++e) {
      bool added;
      size_t i = lo.table.insert(hi.table.key(e) + 1, added);
      if (added) {
        lo.count.push_back(0);
        cont.push_back(0);
      }
      lo.count[i] += hi.count[e];
      cont[i] += 1;
    }
    // An n-gram that starts with <s> has no left extension but padding: its raw count.
    for (size_t i = 0; i < lo.table.size(); ++i)
      if (lo.table.key(i)[0] == kBos) cont[i] = lo.count[i];
  }

  // Unigrams are renumbered so that entry == vocabulary id (every id present, <s> and <unk> too).
  {
    Order& uni = m.orders_[0];
    Order fresh{NGramTable(1), std::vector<uint64_t>(V, 0), {}, {}, {}};
    std::vector<uint64_t> adj(V, 0);
    fresh.table.reserve(V);
    for (uint32_t w = 0; w < V; ++w) {
      bool added;
      fresh.table.insert(&w, added);
    }
    for (size_t e = 0; e < uni.table.size(); ++e) {
      uint32_t w = uni.table.key(e)[0];
      fresh.count[w] = uni.count[e];
      adj[w] = adjusted[0][e];
    }
    adj[kBos] = 0;
    fresh.count[kBos] = 0;  // only padding precedes <s>; it is never predicted
    uni = std::move(fresh);
    adjusted[0] = std::move(adj);
  }

  // Drop the padding n-grams (<s> <s> ...).
  for (int n = 2; n <= N; ++n) {
    Order& o = m.orders_[n - 1];
    std::vector<char> keep(o.table.size());
    for (size_t e = 0; e < keep.size(); ++e) keep[e] = !(o.table.key(e)[0] == kBos && o.table.key(e)[1] == kBos);
    std::vector<int64_t> remap = o.table.compact(keep);
    std::vector<uint64_t> count(o.table.size()), adj(o.table.size());
    for (size_t e = 0; e < remap.size(); ++e) {
      if (remap[e] < 0) continue;
      count[remap[e]] = o.count[e];
      adj[remap[e]] = adjusted[n - 1][e];
    }
    o.count = std::move(count);
    adjusted[n - 1] = std::move(adj);
  }

  // Each n-gram's context (its first n-1 words) and suffix (its last n-1): seen n-grams
  // always have both in the order below.
  m.context_index_.assign(N, {});
  m.suffix_index_.assign(N, {});
  for (int n = 2; n <= N; ++n) {
    const Order& o = m.orders_[n - 1];
    const NGramTable& lower = m.orders_[n - 2].table;
    auto& ctx = m.context_index_[n - 1];
    auto& suf = m.suffix_index_[n - 1];
    ctx.resize(o.table.size());
    suf.resize(o.table.size());
    for (size_t e = 0; e < o.table.size(); ++e) {
      int64_t c = lower.find(o.table.key(e)), x = lower.find(o.table.key(e) + 1);
      SEQLAB_CHECK(c >= 0 && x >= 0, "NGram: internal error: a ", n, "-gram without its context or suffix");
      ctx[e] = static_cast<uint32_t>(c);
      suf[e] = static_cast<uint32_t>(x);
    }
  }

  // Context counts: c(h) = sum over w of c(h w); the unigrams' context is the empty history.
  for (int n = 1; n <= N; ++n) m.orders_[n - 1].ctx_count.assign(m.orders_[n - 1].table.size(), 0);
  m.root_total_ = 0;
  for (uint32_t w = 0; w < V; ++w) m.root_total_ += static_cast<double>(m.orders_[0].count[w]);
  for (int n = 2; n <= N; ++n)
    for (size_t e = 0; e < m.orders_[n - 1].table.size(); ++e)
      m.orders_[n - 2].ctx_count[m.context_of(n, e)] += m.orders_[n - 1].count[e];

  for (Order& o : m.orders_) {
    o.logprob.assign(o.table.size(), 0.0f);
    o.backoff.assign(o.table.size(), 0.0f);
  }
  switch (opt.smoothing) {
    case Smoothing::KneserNey: m.smooth_kneser_ney(opt, adjusted); break;
    case Smoothing::WittenBell: m.smooth_witten_bell(); break;
    case Smoothing::Katz: m.smooth_katz(opt.katz_k); break;
    case Smoothing::MLE:
    case Smoothing::AddK: m.smooth_mle_add_k(opt.k); break;
    case Smoothing::Arpa: SEQLAB_CHECK_VALUE(false, "NGram: 'arpa' is not a smoothing to build with");
  }
  m.context_index_.clear();
  m.suffix_index_.clear();
  return m;
}

}  // namespace seqlab::lm
