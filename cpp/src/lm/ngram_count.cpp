// Counting n-grams (NGramModel::build), as KenLM's lmplz counts: each sentence is
// <s> w_1 .. w_m </s>, and every predicted token (the words and </s>) is counted with its
// full window of order-1 tokens before it, or, near the start, with all of them back to <s>
// (lmplz pads with more <s> and drops the n-grams made of padding; counting the shorter
// n-gram directly is the same and never stores the padding). So the raw count of any
// n-gram is the number of places in the sentences where it ends, and
//   N1+(. w_2..w_n) = the number of distinct left extensions v of w_2..w_n
// is the continuation count that Kneser-Ney uses for n-grams below the top order that do not
// start with <s> (Chen & Goodman 1998, sec. 3.6; Heafield et al. 2013, sec. 3.1).
//
// One order at a time, by sorting rather than hashing (lmplz sorts too). pos lists, entry by
// entry, the positions where each n-gram of order n ends (a run of count[e] positions). The
// (n+1)-grams with context c end at c's positions plus one, so order n+1 is c's run read in
// trie order, each position shifted by one and tagged with its token, sorted by token within
// c (radix for long runs; most runs above the bigrams have one token and are already sorted),
// and each run of one token is a new entry whose count is the run's length and whose
// positions go back into pos for the order above. No scan of the corpus per order. Memory:
// the tokens (2 bytes per position up to 65536 words, else 4) and pos (4), a sort buffer for
// a chunk of contexts, and the trie itself; no hash slots.
#include <algorithm>
#include <utility>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"
#include "seqlab/memory.hpp"
#include "seqlab/parallel.hpp"

namespace seqlab::lm {

void NGramModel::index_vocab() {
  index_.build(vocab_);
}

uint32_t NGramModel::id(std::string_view token) const {
  uint32_t id = index_.find(vocab_, token);
  return id == text::TokenIndex::kMissing ? kUnk : id;
}

namespace {

// Sorts keys word << 32 | position, given ascending by position, by word (stably, so then by
// position). Long runs (a bigram context's successors) by LSD radix on the word's bits in
// digits of at most 8 (a 256-bucket histogram stays in L1), skipping digits all keys share;
// short ones by comparison. words < 2^word_bits.
void sort_by_word(uint64_t* first, uint64_t* last, int word_bits, std::vector<uint64_t>& tmp) {
  const size_t n = static_cast<size_t>(last - first);
  if (std::is_sorted(first, last)) return;
  if (n < 256) {
    std::sort(first, last);
    return;
  }
  const int passes = (word_bits + 7) / 8, bits = (word_bits + passes - 1) / passes;
  const uint32_t mask = (1u << bits) - 1;
  std::vector<uint32_t> hist(static_cast<size_t>(passes) << bits, 0);
  for (const uint64_t* k = first; k < last; ++k)
    for (int d = 0; d < passes; ++d) ++hist[(static_cast<size_t>(d) << bits) + ((*k >> (32 + d * bits)) & mask)];
  tmp.resize(n);
  uint64_t *from = first, *to = tmp.data();
  for (int d = 0; d < passes; ++d) {
    uint32_t* h = hist.data() + (static_cast<size_t>(d) << bits);
    if (*std::max_element(h, h + mask + 1) == n) continue;  // every key has this digit
    uint32_t sum = 0;
    for (uint32_t i = 0; i <= mask; ++i) sum += std::exchange(h[i], sum);
    for (const uint64_t* k = from; k < from + n; ++k) to[h[(*k >> (32 + d * bits)) & mask]++] = *k;
    std::swap(from, to);
  }
  if (from != first) std::copy(from, from + n, first);
}

}  // namespace

void NGramModel::count_ngrams(const int32_t* ids, const int64_t* offsets, int64_t n_sentences,
                              const std::vector<uint32_t>& to_model, int N) {
  const size_t V = vocab_.size();
  // tok[t]: the token at position t; sentence s is <s> w_1 .. w_m </s> at start(s) .. start(s+1)-1.
  // Read at random below (the successor of each position of an entry), so on huge pages, and
  // 2 bytes each where the vocabulary allows (half the memory and the cache lines).
  auto start = [&](int64_t s) { return static_cast<uint64_t>(offsets[s]) + 2 * static_cast<uint64_t>(s); };
  auto count = [&](auto token_type) {
    using Token = decltype(token_type);
    std::vector<Token> tok;
    reserve_huge_pages(tok, start(n_sentences));
    tok.resize(start(n_sentences));
    for (int64_t s = 0; s < n_sentences; ++s) {
      Token* out = tok.data() + start(s);
      *out++ = kBos;
      for (int64_t i = offsets[s]; i < offsets[s + 1]; ++i)
        *out++ = static_cast<Token>(ids[i] < 0 ? kUnk : to_model[ids[i]]);
      *out = kEos;
    }
    // Unigrams: entry = id; nothing precedes <s>, so it is never predicted (count 0).
    Order& uni = orders_[0];
    uni.word.resize(V);
    for (uint32_t w = 0; w < V; ++w) uni.word[w] = w;
    uni.count.assign(V, 0);
    for (Token w : tok) ++uni.count[w];
    if (N == 1) {
      uni.count[kBos] = 0;
      return;
    }
    // pos: the positions where each entry of the current order ends, entry by entry (an entry's
    // run has count[e] positions, ascending), leaving out the entries that end in </s>: nothing
    // follows them. So the children of context c are found among its run's positions plus one:
    // no scan of the corpus per order. Order 1 by a counting sort of the positions by token.
    std::vector<uint32_t> pos;
    {
      std::vector<uint32_t> at(V + 1, 0);
      for (uint32_t w = 0; w < V; ++w) at[w + 1] = at[w] + (w == kEos ? 0 : uni.count[w]);
      pos.resize(at[V]);
      for (uint32_t t = 0; t < tok.size(); ++t)
        if (tok[t] != kEos) pos[at[tok[t]]++] = t;
    }
    uni.count[kBos] = 0;  // after its run: the sentences' starts are contexts

    int word_bits = 1;
    while (word_bits < 32 && (uint64_t{1} << word_bits) < V) ++word_bits;
    std::vector<uint64_t> sorted;  // word << 32 | position, one chunk of contexts' runs
    std::vector<uint32_t> run;     // per context of the chunk: where its run starts in `sorted`
    const size_t budget = size_t{1} << 18;  // positions per chunk (a context with more is one chunk)
    for (int n = 2; n <= N; ++n) {
      Order& ctx = orders_[n - 2];
      Order& o = orders_[n - 1];
      // The length of context c's run in pos: its count, but <s> (count 0) ends every sentence's
      // first position and an n-gram ending in </s> has no successor.
      auto run_length = [&](uint32_t c) -> size_t {
        if (ctx.word[c] == kEos) return 0;
        return n == 2 && c == kBos ? static_cast<size_t>(n_sentences) : ctx.count[c];
      };
      ctx.first_child.assign(ctx.size() + 1, 0);
      // At most one entry per position; pages past the last entry are never touched.
      o.word.reserve(pos.size());
      o.count.reserve(pos.size());
      size_t read = 0, write = 0;  // in pos: this order's runs are read, the next order's written behind
      for (size_t c0 = 0; c0 < ctx.size();) {
        size_t c1 = c0, len = 0;
        run.clear();
        for (; c1 < ctx.size() && (c1 == c0 || len + run_length(c1) <= budget); ++c1) {
          run.push_back(static_cast<uint32_t>(len));
          len += run_length(c1);
        }
        run.push_back(static_cast<uint32_t>(len));
        // The successors of the chunk's positions, with their words; the threads share them.
        sorted.resize(len);
        const uint32_t* p = pos.data() + read;
        parallel_for(static_cast<int64_t>(len), 1 << 14, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            if (i + 64 < e) __builtin_prefetch(tok.data() + p[i + 64] + 1);  // ~ a memory latency ahead
            const uint32_t t = p[i] + 1;
            sorted[i] = static_cast<uint64_t>(tok[t]) << 32 | t;
          }
        });
        // Each context's successors by word, then position. They come ascending by position, so
        // a context followed by one word (most, above the bigrams) is already sorted, and a
        // stable sort by word is enough. The threads share the contexts by their positions.
        parallel_for(static_cast<int64_t>(len), 1 << 14, [&](int64_t b, int64_t e) {
          std::vector<uint64_t> tmp;
          size_t k = std::lower_bound(run.begin(), run.end() - 1, static_cast<uint32_t>(b)) - run.begin();
          for (; k + 1 < run.size() && run[k] < static_cast<uint64_t>(e); ++k)
            sort_by_word(sorted.data() + run[k], sorted.data() + run[k + 1], word_bits, tmp);
        });
        // Each run of one word is a new entry, its positions the entry's run for the order above.
        for (size_t c = c0; c < c1; ++c) {
          const size_t begin = run[c - c0], end = run[c - c0 + 1];
          ctx.first_child[c] = static_cast<uint32_t>(o.size());
          for (size_t i = begin; i < end;) {
            const uint32_t w = static_cast<uint32_t>(sorted[i] >> 32);
            SEQLAB_CHECK(o.size() < UINT32_MAX - 1, "NGram: more than 2^32 distinct ", n, "-grams");
            size_t j = i;
            while (j < end && static_cast<uint32_t>(sorted[j] >> 32) == w) ++j;
            if (n < N && w != kEos)  // the run of the order above
              for (size_t k = i; k < j; ++k) pos[write++] = static_cast<uint32_t>(sorted[k]);
            o.word.push_back(w);
            o.count.push_back(static_cast<uint32_t>(j - i));
            i = j;
          }
        }
        read += len;
        c0 = c1;
      }
      ctx.first_child[ctx.size()] = static_cast<uint32_t>(o.size());
      pos.resize(write);
    }
  };
  if (V <= size_t{1} << 16)
    count(uint16_t{});
  else
    count(uint32_t{});
}

void BuildOptions::check() const {
  SEQLAB_CHECK_VALUE(order >= 1 && order <= kMaxOrder, "NGram: order must be from 1 to ", kMaxOrder, ", got ", order);
  SEQLAB_CHECK_VALUE(smoothing != Smoothing::Arpa, "NGram: 'arpa' is not a smoothing to build with");
  SEQLAB_CHECK_VALUE(smoothing != Smoothing::AddK || k > 0, "NGram: add-k needs k > 0, got ", k);
  SEQLAB_CHECK_VALUE(katz_k >= 1, "NGram: katz_k must be >= 1 (Good-Turing discounts counts 1..katz_k), got ", katz_k);
  for (int c = 1; c <= 3; ++c)
    SEQLAB_CHECK_VALUE(fallback[c - 1] >= 0 && fallback[c - 1] <= c, "NGram: discount_fallback's D", c,
                       c == 3 ? "+" : "", " must lie in [0, ", c, "], got ", fallback[c - 1]);
}

NGramModel NGramModel::build(const std::vector<std::string>& words, const int32_t* ids, const int64_t* offsets,
                             int64_t n_sentences, const BuildOptions& opt) {
  opt.check();
  const int N = opt.order;
  SEQLAB_CHECK_VALUE(n_sentences > 0 && offsets[n_sentences] > 0, "NGram.fit: the corpus is empty (no tokens)");

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

  // Positions (tokens plus each sentence's <s> and </s>) are 32-bit, and so are the counts.
  const uint64_t positions = static_cast<uint64_t>(offsets[n_sentences]) + 2 * static_cast<uint64_t>(n_sentences);
  SEQLAB_CHECK_VALUE(positions < UINT32_MAX, "NGram.fit: ", offsets[n_sentences], " tokens in ", n_sentences,
                     " sentences; counts are 32-bit, so corpora must have fewer than 2^32 tokens");

  m.orders_.assign(N, Order{});
  m.count_ngrams(ids, offsets, n_sentences, to_model, N);
  release_free_memory();  // the counting sort's buffers, before the smoothing allocates

  m.root_total_ = 0;
  for (uint32_t w = 0; w < V; ++w) m.root_total_ += static_cast<double>(m.orders_[0].count[w]);
  // Context counts c(h) = sum over w of c(h w), for the smoothings that divide by them.
  if (opt.smoothing == Smoothing::Katz || opt.smoothing == Smoothing::MLE || opt.smoothing == Smoothing::AddK)
    for (int n = 1; n < N; ++n) {
      Order& o = m.orders_[n - 1];
      const std::vector<uint32_t>& above = m.orders_[n].count;
      o.ctx_count.assign(o.size(), 0);
      for (uint32_t c = 0; c < o.size(); ++c)
        for (uint32_t e = o.first_child[c]; e < o.first_child[c + 1]; ++e) o.ctx_count[c] += above[e];
    }
  switch (opt.smoothing) {
    case Smoothing::KneserNey: m.smooth_kneser_ney(opt); break;
    case Smoothing::WittenBell: m.smooth_witten_bell(); break;
    case Smoothing::Katz: m.smooth_katz(opt.katz_k); break;
    case Smoothing::MLE:
    case Smoothing::AddK: m.smooth_mle_add_k(opt.k); break;
    case Smoothing::Arpa: SEQLAB_CHECK_VALUE(false, "NGram: 'arpa' is not a smoothing to build with");
  }
  return m;
}

}  // namespace seqlab::lm
