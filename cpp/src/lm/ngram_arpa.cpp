// ARPA files (Doug Paul's format as SRILM and KenLM write it):
//   \data\ / ngram n=<count> ... / \n-grams: / log10 p <TAB> w1 .. wn [<TAB> log10 backoff] / \end\
// Numbers are written in the shortest form that reads back to the same float, so a file
// round-trips exactly; log10 0 (-inf) is written as -99, SRILM's and KenLM's convention.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"
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

}  // namespace

void NGramModel::write_arpa(const std::string& path) const {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  SEQLAB_CHECK(f, "cannot open '", path, "' for writing");
  std::string out = "\\data\\\n";
  for (int n = 1; n <= order(); ++n) out += str_cat("ngram ", n, "=", orders_[n - 1].table.size(), "\n");
  bool ok = true;
  for (int n = 1; n <= order() && ok; ++n) {
    out += str_cat("\n\\", n, "-grams:\n");
    const Order& o = orders_[n - 1];
    for (size_t e = 0; e < o.table.size(); ++e) {
      put_float(out, o.logprob[e]);
      const uint32_t* key = o.table.key(e);
      for (int j = 0; j < n; ++j) {
        out += j == 0 ? '\t' : ' ';
        out += vocab_[key[j]];
      }
      if (n < order()) {
        out += '\t';
        put_float(out, o.backoff[e]);
      }
      out += '\n';
      if (out.size() > (1 << 20)) {
        ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
        out.clear();
      }
    }
  }
  out += "\n\\end\\\n";
  ok = ok && std::fwrite(out.data(), 1, out.size(), f) == out.size();
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
  const int N = static_cast<int>(counts.size());

  NGramModel m;
  m.smoothing_ = Smoothing::Arpa;
  for (int n = 1; n <= N; ++n) m.orders_.push_back(Order{NGramTable(n), {}, {}, {}, {}});
  // Unigrams first fix the vocabulary: <unk> <s> </s> keep ids 0 1 2 whatever their place.
  m.vocab_ = {"<unk>", "<s>", "</s>"};
  m.index_vocab();
  std::vector<uint32_t> key(N);
  std::vector<std::string_view> fields;
  for (int n = 1; n <= N; ++n) {
    r.skip_blank();
    std::string header = str_cat("\\", n, "-grams:");
    if (!r.more()) r.fail(str_cat("missing the section '", header, "' (file truncated?)"));
    if (r.line() != header) r.fail(str_cat("expected '", header, "', got '", r.line(), "'"));
    ++r.i;
    Order& o = m.orders_[n - 1];
    o.table.reserve(counts[n - 1]);
    if (n == 1) {
      o.logprob.assign(3, -99.0f);  // placeholders for specials missing from the file
      o.backoff.assign(3, 0.0f);
      for (uint32_t w = 0; w < 3; ++w) {
        bool added;
        o.table.insert(&w, added);
      }
    }
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
      float bo = fields.size() == static_cast<size_t>(n) + 2 ? parse_float(r, fields[n + 1]) : 0.0f;
      if (lp <= -99.0f) lp = -std::numeric_limits<float>::infinity();
      if (bo <= -99.0f) bo = -std::numeric_limits<float>::infinity();
      for (int j = 0; j < n; ++j) {
        std::string_view w = fields[j + 1];
        key[j] = m.index_.find(m.vocab_, w);
        if (key[j] != text::TokenIndex::kMissing) continue;
        if (n > 1) r.fail(str_cat("the word '", w, "' of this ", n, "-gram is not among the unigrams"));
        key[j] = static_cast<uint32_t>(m.vocab_.size());
        m.vocab_.emplace_back(w);
        m.index_.add(m.vocab_, key[j]);
      }
      bool added;
      size_t e = o.table.insert(key.data(), added);
      if (n == 1 && e < 3 && !added && !special_seen[e]) added = special_seen[e] = true;  // a special's own line
      if (!added) r.fail(str_cat("duplicate ", n, "-gram '", l, "'"));
      if (e >= o.logprob.size()) {
        o.logprob.resize(e + 1);
        o.backoff.resize(e + 1);
      }
      o.logprob[e] = lp;
      o.backoff[e] = bo;
      ++seen;
    }
    if (seen != counts[n - 1])
      r.fail(str_cat("the \\data\\ header says ngram ", n, "=", counts[n - 1], " but the section has ", seen,
                     " entries"));
  }
  r.skip_blank();
  if (r.more() && r.line().size() > 1 && r.line()[0] == '\\' && r.line().find("-grams:") != std::string_view::npos)
    r.fail(str_cat("the section '", r.line(), "' is not announced in the \\data\\ header (", N, " orders)"));
  if (!r.more() || r.line() != "\\end\\") r.fail("missing '\\end\\' (file truncated?)");
  if (m.orders_[0].logprob[kUnk] == -99.0f)
    m.warnings_.push_back(str_cat("ARPA file '", path, "' has no <unk>; unknown words get log10 p = -99"));
  return m;
}

}  // namespace seqlab::lm
