// Tokenising and counting (seqlab/text/corpus.hpp). One hash lookup per token, no
// allocation per token: keys are views into the caller's text until a type is first seen.
#include "seqlab/text/corpus.hpp"
#include "seqlab/text/token_index.hpp"

#include <algorithm>
#include <fstream>
#include <numeric>

#include "seqlab/check.hpp"

namespace seqlab::text {
namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// Length of the UTF-8 sequence starting with byte c (1 for invalid lead bytes, so that
// malformed text still advances one byte at a time).
size_t utf8_length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xE) return 3;
  if ((c >> 3) == 0x1E) return 4;
  return 1;
}

// The counting pass shared by all entry points. `for_each_sentence(f)` calls f(tokens) per
// sentence, at most max_tokens in all. With `fixed` the ids index it; otherwise a vocabulary is built and then
// renumbered by descending count (ties: first occurrence, a stable sort).
template <class ForEachSentence>
Encoded count(size_t max_tokens, ForEachSentence&& for_each_sentence, const std::vector<std::string>* fixed) {
  Encoded e;
  e.ids.reserve(max_tokens);
  TokenIndex index;  // ids by token, probing with the tokens in e.vocab (no copies of them)
  if (fixed) {
    e.vocab = *fixed;
    e.counts.assign(fixed->size(), 0);
  }
  index.build(e.vocab);
  e.offsets.push_back(0);
  std::vector<uint64_t> hashes;
  for_each_sentence([&](const std::vector<std::string_view>& tokens) {
    // A sentence's slots are requested before the first is read: the lookups overlap.
    hashes.resize(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) {
      hashes[i] = TokenIndex::hash(tokens[i]);
      index.prefetch(hashes[i]);
    }
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string_view tok = tokens[i];
      uint32_t found = index.find(e.vocab, tok, hashes[i]);
      int32_t id;
      if (found != TokenIndex::kMissing) {
        id = static_cast<int32_t>(found);
      } else if (fixed) {
        e.ids.push_back(-1);
        ++e.n_unknown;
        continue;
      } else {
        SEQLAB_CHECK(e.vocab.size() < static_cast<size_t>(INT32_MAX), "text.encode: more than 2^31 distinct tokens");
        id = static_cast<int32_t>(e.vocab.size());
        e.vocab.emplace_back(tok);
        e.counts.push_back(0);
        index.add(e.vocab, static_cast<uint32_t>(id));
      }
      ++e.counts[id];
      e.ids.push_back(id);
    }
    e.offsets.push_back(static_cast<int64_t>(e.ids.size()));
  });
  if (fixed) return e;
  // Renumber: most frequent first.
  const size_t V = e.vocab.size();
  std::vector<int32_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return e.counts[a] > e.counts[b]; });
  std::vector<int32_t> rank(V);
  std::vector<std::string> vocab(V);
  std::vector<int64_t> counts(V);
  for (size_t r = 0; r < V; ++r) {
    rank[order[r]] = static_cast<int32_t>(r);
    vocab[r] = std::move(e.vocab[order[r]]);
    counts[r] = e.counts[order[r]];
  }
  for (int32_t& id : e.ids) id = rank[id];
  e.vocab = std::move(vocab);
  e.counts = std::move(counts);
  return e;
}

}  // namespace

void split_tokens(std::string_view line, Level level, std::vector<std::string_view>& out) {
  out.clear();
  const size_t n = line.size();
  if (level == Level::Char) {
    // Line endings are not symbols; everything else (spaces included) is.
    size_t end = n;
    while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r')) --end;
    for (size_t i = 0; i < end;) {
      size_t len = std::min(utf8_length(static_cast<unsigned char>(line[i])), end - i);
      out.push_back(line.substr(i, len));
      i += len;
    }
    return;
  }
  size_t i = 0;
  while (i < n) {
    while (i < n && is_space(static_cast<unsigned char>(line[i]))) ++i;
    size_t start = i;
    while (i < n && !is_space(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// Read into a string of the file's size (a stream copied through std::ostringstream held the
// text twice, and more while its buffer doubled: the encoder's peak memory).
std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  SEQLAB_CHECK(f.good(), "cannot open '", path, "' for reading");
  std::string text;
  f.seekg(0, std::ios::end);
  const std::streamoff size = f.good() ? static_cast<std::streamoff>(f.tellg()) : -1;
  f.clear();  // a pipe cannot seek: read it from where it is
  if (size > 0) {
    f.seekg(0);
    text.resize(static_cast<size_t>(size));
    f.read(text.data(), size);
    text.resize(static_cast<size_t>(f.gcount()));
  }
  // Whatever the size said (a pipe, a file that grows), read on to the end.
  char buf[1 << 16];
  while (f.good()) {
    f.read(buf, sizeof buf);
    text.append(buf, static_cast<size_t>(f.gcount()));
  }
  SEQLAB_CHECK(!f.bad(), "error while reading '", path, "'");
  return text;
}

static Encoded encode_lines(const std::vector<std::string_view>& lines, Level level, const std::vector<std::string>* fixed) {
  // At most one token per byte (characters), or per two (a word and the space after it):
  // room reserved for ids at once, so it is not copied while it grows (untouched pages cost nothing).
  size_t bound = 0;
  for (std::string_view line : lines) bound += level == Level::Char ? line.size() : (line.size() + 1) / 2;
  return count(bound, 
      [&](auto&& emit) {
        std::vector<std::string_view> tokens;
        for (std::string_view line : lines) {
          split_tokens(line, level, tokens);
          emit(tokens);
        }
      },
      fixed);
}

Encoded encode(const std::vector<std::string_view>& lines, Level level) { return encode_lines(lines, level, nullptr); }

Encoded encode(const std::vector<std::string_view>& lines, Level level, const std::vector<std::string>& vocab) {
  return encode_lines(lines, level, &vocab);
}

static Encoded encode_split(const std::vector<std::vector<std::string_view>>& sentences, const std::vector<std::string>* fixed) {
  size_t n = 0;
  for (const auto& s : sentences) n += s.size();
  return count(n, 
      [&](auto&& emit) {
        for (const auto& s : sentences) emit(s);
      },
      fixed);
}

Encoded encode_tokens(const std::vector<std::vector<std::string_view>>& sentences) { return encode_split(sentences, nullptr); }

Encoded encode_tokens(const std::vector<std::vector<std::string_view>>& sentences, const std::vector<std::string>& vocab) {
  return encode_split(sentences, &vocab);
}

}  // namespace seqlab::text
