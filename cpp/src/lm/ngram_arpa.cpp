// ARPA files (Doug Paul's format as SRILM and KenLM write it):
//   \data\ / ngram n=<count> ... / \n-grams: / log10 p <TAB> w1 .. wn [<TAB> log10 backoff] / \end\
// Numbers are written in the shortest form that reads back to the same float, so a file
// round-trips exactly; log10 0 (-inf) is written as -99, SRILM's and KenLM's convention.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"
#include "seqlab/memory.hpp"
#include "seqlab/parallel.hpp"
#include "seqlab/text/corpus.hpp"

namespace seqlab::lm {
namespace {

void put_float(std::string& out, float v) {
  if (std::isinf(v) && v < 0) {
    out += "-99";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

struct ArpaReader {
  const std::string& path;
  std::vector<std::string_view> lines;
  size_t i = 0;
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(str_cat("ARPA file '", path, "', line ", i + 1, ": ", what));
  }
  bool more() const { return i < lines.size(); }
  std::string_view line() const {
    std::string_view l = lines[i];
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    return l;
  }
  void skip_blank() {
    while (more() && line().empty()) ++i;
  }
};

float parse_float(const ArpaReader& r, std::string_view s) {
  float v;
  const char* end = s.data() + s.size();
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto res = std::from_chars(s.data(), end, v);
  if (res.ec != std::errc() || res.ptr != end) r.fail(str_cat("'", s, "' is not a number"));
  if (std::isnan(v) || v > 0 && std::isinf(v)) r.fail(str_cat("'", s, "' is not a log10 probability or weight"));
  return v;
}

// The lines of order n's entries, in trie order, from any entry on: an entry's words are those
// of its path from the unigrams (its context's path and its own word). The path of the first
// entry is found by a binary search per order (an entry's parent c has first_child[c] <= e <
// first_child[c+1]); then, as e moves on, a parent moves on only when e leaves its run, and
// only the words from the lowest moved order on are written again.
class ArpaLines {
 public:
  ArpaLines(const NGramModel& m, int n, uint32_t e) : m_(m), n_(n), path_(n), mark_(n, 0) {
    path_[n - 1] = e;
    for (int k = n - 2; k >= 0; --k) {
      const std::vector<uint32_t>& first = m.order_table(k + 1).first_child;
      path_[k] = static_cast<uint32_t>(std::upper_bound(first.begin(), first.end(), path_[k + 1]) - first.begin() - 1);
    }
    rewrite(0);
  }
  // Appends entry e's line (e: this entry or a later one of order n).
  void append(uint32_t e, std::string& out) {
    path_[n_ - 1] = e;
    int moved = n_ - 1;
    for (int k = n_ - 2; k >= 0; --k) {
      const std::vector<uint32_t>& first = m_.order_table(k + 1).first_child;
      if (path_[k + 1] < first[path_[k] + 1]) break;
      do ++path_[k];
      while (path_[k + 1] >= first[path_[k] + 1]);
      moved = k;
    }
    if (moved < n_ - 1) rewrite(moved);
    const Order& o = m_.order_table(n_);
    put_float(out, o.logprob[e]);
    out += '\t';
    out += prefix_;
    out += m_.vocab()[o.word[e]];
    if (n_ < m_.order()) {
      out += '\t';
      put_float(out, o.backoff[e]);
    }
    out += '\n';
  }

 private:
  // prefix_ = the words of path_[0 .. n-2], each followed by a space, from order k+1's on.
  void rewrite(int k) {
    prefix_.resize(mark_[k]);
    for (; k < n_ - 1; ++k) {
      mark_[k] = prefix_.size();
      prefix_ += m_.vocab()[m_.order_table(k + 1).word[path_[k]]];
      prefix_ += ' ';
    }
  }
  const NGramModel& m_;
  int n_;
  std::vector<uint32_t> path_;  // path_[k]: the entry of order k+1 on the way to the current line
  std::vector<size_t> mark_;    // where path_[k]'s word starts in prefix_
  std::string prefix_;
};

}  // namespace

// Each order in pieces of lines formatted by the two threads side by side (formatting the
// numbers is most of the work), then written in order: the file is the same whatever the
// number of threads.
void NGramModel::write_arpa(const std::string& path) const {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  SEQLAB_CHECK(f, "cannot open '", path, "' for writing");
  bool ok = true;
  auto write = [&](const std::string& s) { ok = ok && std::fwrite(s.data(), 1, s.size(), f) == s.size(); };
  std::string head = "\\data\\\n";
  for (int n = 1; n <= order(); ++n) head += str_cat("ngram ", n, "=", orders_[n - 1].size(), "\n");
  write(head);
  constexpr uint32_t kPiece = 1 << 15;  // lines
  std::string pieces[2];
  for (int n = 1; n <= order() && ok; ++n) {
    write(str_cat("\n\\", n, "-grams:\n"));
    const uint32_t size = static_cast<uint32_t>(orders_[n - 1].size());
    for (uint32_t e0 = 0; e0 < size && ok; e0 += 2 * kPiece) {
      parallel_for(2, 1, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) {
          const uint32_t first = static_cast<uint32_t>(std::min<uint64_t>(size, e0 + k * uint64_t{kPiece}));
          const uint32_t last = static_cast<uint32_t>(std::min<uint64_t>(size, first + uint64_t{kPiece}));
          pieces[k].clear();
          if (first == last) continue;
          ArpaLines lines(*this, n, first);
          for (uint32_t x = first; x < last; ++x) lines.append(x, pieces[k]);
        }
      });
      write(pieces[0]);
      write(pieces[1]);
    }
  }
  write("\n\\end\\\n");
  ok = (std::fclose(f) == 0) && ok;
  SEQLAB_CHECK(ok, "error while writing '", path, "' (disk full?)");
}

NGramModel NGramModel::read_arpa(const std::string& path) {
  std::string text = text::read_file(path);
  ArpaReader r{path, text::split_lines(text)};
  r.skip_blank();
  // SRILM allows text before \data\; skip it.
  while (r.more() && r.line() != "\\data\\") ++r.i;
  if (!r.more()) {
    r.i = 0;
    r.fail("no \\data\\ header (not an ARPA file?)");
  }
  ++r.i;
  std::vector<size_t> counts;
  for (; r.more(); ++r.i) {
    std::string_view l = r.line();
    if (l.empty()) break;
    if (l.substr(0, 6) != "ngram ") r.fail(str_cat("expected 'ngram N=count', got '", l, "'"));
    auto eq = l.find('=');
    if (eq == std::string_view::npos) r.fail(str_cat("expected 'ngram N=count', got '", l, "'"));
    size_t n = 0, c = 0;
    std::string_view ns = l.substr(6, eq - 6), cs = l.substr(eq + 1);
    while (!ns.empty() && ns.front() == ' ') ns.remove_prefix(1);
    while (!cs.empty() && cs.front() == ' ') cs.remove_prefix(1);
    if (std::from_chars(ns.data(), ns.data() + ns.size(), n).ec != std::errc() ||
        std::from_chars(cs.data(), cs.data() + cs.size(), c).ec != std::errc())
      r.fail(str_cat("bad count line '", l, "'"));
    if (n != counts.size() + 1) r.fail(str_cat("expected the count of order ", counts.size() + 1, ", got '", l, "'"));
    counts.push_back(c);
  }
  if (counts.empty()) r.fail("no 'ngram N=count' lines after \\data\\");
  if (counts.size() > static_cast<size_t>(kMaxOrder))
    r.fail(str_cat("the model has ", counts.size(), " orders; seqlab supports up to ", kMaxOrder));
  const int N = static_cast<int>(counts.size());

  NGramModel m;
  m.smoothing_ = Smoothing::Arpa;
  m.orders_.assign(N, Order{});
  // Unigrams first fix the vocabulary: <unk> <s> </s> keep ids 0 1 2 whatever their place.
  m.vocab_ = {"<unk>", "<s>", "</s>"};
  m.index_vocab();
  // An n-gram above the unigrams, until its order is sorted into the trie.
  struct Entry {
    uint64_t key;  // context entry << 32 | word
    float logprob, backoff;
    size_t line;
  };
  std::vector<Entry> entries;
  std::vector<uint32_t> key(N);
  std::vector<std::string_view> fields;
  for (int n = 1; n <= N; ++n) {
    r.skip_blank();
    std::string header = str_cat("\\", n, "-grams:");
    if (!r.more()) r.fail(str_cat("missing the section '", header, "' (file truncated?)"));
    if (r.line() != header) r.fail(str_cat("expected '", header, "', got '", r.line(), "'"));
    ++r.i;
    Order& o = m.orders_[n - 1];
    if (n == 1) {
      o.logprob.assign(3, -99.0f);  // placeholders for specials missing from the file
      o.backoff.assign(3, 0.0f);
    }
    entries.clear();
    entries.reserve(counts[n - 1]);
    size_t seen = 0;
    bool special_seen[3] = {false, false, false};
    for (; r.more(); ++r.i) {
      std::string_view l = r.line();
      if (l.empty() || l[0] == '\\') break;
      text::split_tokens(l, text::Level::Word, fields);
      if (fields.size() != static_cast<size_t>(n) + 1 && fields.size() != static_cast<size_t>(n) + 2)
        r.fail(str_cat("a ", n, "-gram line needs a probability, ", n, " words and optionally a back-off weight; got '",
                       l, "'"));
      float lp = parse_float(r, fields[0]);
      // a probability above 1 (IRSTLM writes them): KenLM refuses it by default, and so do we
      if (lp > 0)
        r.fail(str_cat("the log10 probability ", fields[0], " of '", l, "' is positive (a probability above 1); "
                       "KenLM refuses it too"));
      float bo = fields.size() == static_cast<size_t>(n) + 2 ? parse_float(r, fields[n + 1]) : 0.0f;
      if (lp <= -99.0f) lp = -std::numeric_limits<float>::infinity();
      if (bo <= -99.0f) bo = -std::numeric_limits<float>::infinity();
      ++seen;
      if (n == 1) {
        std::string_view w = fields[1];
        uint32_t id = m.index_.find(m.vocab_, w);
        if (id == text::TokenIndex::kMissing) {
          id = static_cast<uint32_t>(m.vocab_.size());
          m.vocab_.emplace_back(w);
          m.index_.add(m.vocab_, id);
          o.logprob.push_back(lp);
          o.backoff.push_back(bo);
          continue;
        }
        if (id >= 3 || special_seen[id]) r.fail(str_cat("duplicate 1-gram '", l, "'"));
        special_seen[id] = true;
        o.logprob[id] = lp;
        o.backoff[id] = bo;
        continue;
      }
      for (int j = 0; j < n; ++j) {
        key[j] = m.index_.find(m.vocab_, fields[j + 1]);
        if (key[j] == text::TokenIndex::kMissing)
          r.fail(str_cat("the word '", fields[j + 1], "' of this ", n, "-gram is not among the unigrams"));
      }
      const int64_t context = m.find(key.data(), n - 1);
      if (context < 0)
        r.fail(str_cat("the ", n, "-gram '", l, "' has no context (its first ", n - 1, " words) among the ", n - 1,
                       "-grams; seqlab's trie needs every n-gram's context, as KenLM's does"));
      entries.push_back({static_cast<uint64_t>(context) << 32 | key[n - 1], lp, bo, r.i});
    }
    if (seen != counts[n - 1])
      r.fail(str_cat("the \\data\\ header says ngram ", n, "=", counts[n - 1], " but the section has ", seen,
                     " entries"));
    if (n == 1) {
      o.word.resize(m.vocab_.size());
      for (uint32_t w = 0; w < o.word.size(); ++w) o.word[w] = w;
    } else {
      // Into trie order: sorted by (context entry, word); a repeated key is a duplicate line.
      std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.key != b.key ? a.key < b.key : a.line < b.line;
      });
      Order& ctx = m.orders_[n - 2];
      // The arrays the scorer reads at random, on huge pages (memory.hpp).
      reserve_huge_pages(ctx.first_child, ctx.size() + 1);
      ctx.first_child.assign(ctx.size() + 1, 0);
      reserve_huge_pages(o.word, entries.size());
      reserve_huge_pages(o.logprob, entries.size());
      if (n < N) reserve_huge_pages(o.backoff, entries.size());
      o.word.resize(entries.size());
      o.logprob.resize(entries.size());
      if (n < N) o.backoff.resize(entries.size());
      for (size_t e = 0; e < entries.size(); ++e) {
        const Entry& x = entries[e];
        if (e > 0 && x.key == entries[e - 1].key) {
          r.i = x.line;
          r.fail(str_cat("duplicate ", n, "-gram '", r.line(), "'"));
        }
        ++ctx.first_child[(x.key >> 32) + 1];
        o.word[e] = static_cast<uint32_t>(x.key);
        o.logprob[e] = x.logprob;
        if (n < N) o.backoff[e] = x.backoff;
      }
      for (size_t c = 0; c < ctx.size(); ++c) ctx.first_child[c + 1] += ctx.first_child[c];
    }
  }
  std::vector<Entry>().swap(entries);
  r.skip_blank();
  if (r.more() && r.line().size() > 1 && r.line()[0] == '\\' && r.line().find("-grams:") != std::string_view::npos)
    r.fail(str_cat("the section '", r.line(), "' is not announced in the \\data\\ header (", N, " orders)"));
  if (!r.more() || r.line() != "\\end\\") r.fail("missing '\\end\\' (file truncated?)");
  if (m.orders_[0].logprob[kUnk] == -99.0f)
    m.warnings_.push_back(str_cat("ARPA file '", path, "' has no <unk>; unknown words get log10 p = -99"));
  return m;
}

}  // namespace seqlab::lm
