// FastText's subwords (seqlab/embed/word2vec.hpp): character n-grams of "<word>" and
// Facebook's FNV-1a bucket hash, with the semantics of gensim's compute_ngrams_bytes and
// ft_hash_bytes (Bojanowski et al. 2017, §3.2). Tested in tests/test_fasttext.py against gensim.
#include "seqlab/check.hpp"
#include "seqlab/embed/word2vec.hpp"

namespace seqlab::embed {
namespace {

// A UTF-8 continuation byte (10xxxxxx) is not the start of a character.
bool continues_char(unsigned char c) { return (c & 0xC0) == 0x80; }

// Calls f(begin, end) for each n-gram's byte range in "<word>".
template <class F>
void for_each_ngram(const std::string& bounded, int min_n, int max_n, F&& f) {
  const size_t n_bytes = bounded.size();
  for (size_t i = 0; i < n_bytes; ++i) {
    if (continues_char(static_cast<unsigned char>(bounded[i]))) continue;
    size_t j = i;
    for (int n = 1; j < n_bytes && n <= max_n; ++n) {
      ++j;  // take one more character: its lead byte, then its continuation bytes
      while (j < n_bytes && continues_char(static_cast<unsigned char>(bounded[j]))) ++j;
      // A lone "<" or ">" is a boundary mark, not a subword.
      bool lone_mark = n == 1 && (i == 0 || j == n_bytes);
      if (n >= min_n && !lone_mark) f(i, j);
    }
  }
}

}  // namespace

std::vector<std::string> char_ngrams(std::string_view word, int min_n, int max_n) {
  SEQLAB_CHECK_VALUE(min_n >= 1 && max_n >= 0, "char_ngrams: min_n must be >= 1 and max_n >= 0, got min_n=", min_n,
                     ", max_n=", max_n);
  std::string bounded = "<" + std::string(word) + ">";
  std::vector<std::string> out;
  for_each_ngram(bounded, min_n, max_n, [&](size_t i, size_t j) { out.emplace_back(bounded.substr(i, j - i)); });
  return out;
}

// h = 2166136261; for each byte b: h = (h ^ int8(b)) * 16777619   (mod 2^32)
uint32_t ft_hash(std::string_view bytes) {
  uint32_t h = 2166136261u;
  for (char c : bytes) {
    h ^= static_cast<uint32_t>(static_cast<int8_t>(c));  // sign-extended, as fastText's dictionary.cc
    h *= 16777619u;
  }
  return h;
}

std::vector<uint32_t> ngram_buckets(std::string_view word, int min_n, int max_n, uint32_t bucket) {
  SEQLAB_CHECK_VALUE(bucket > 0, "ngram_buckets: bucket must be positive");
  SEQLAB_CHECK_VALUE(min_n >= 1 && max_n >= 0, "ngram_buckets: min_n must be >= 1 and max_n >= 0, got min_n=", min_n,
                     ", max_n=", max_n);
  std::string bounded = "<" + std::string(word) + ">";
  std::vector<uint32_t> out;
  for_each_ngram(bounded, min_n, max_n, [&](size_t i, size_t j) {
    out.push_back(ft_hash(std::string_view(bounded).substr(i, j - i)) % bucket);
  });
  return out;
}

}  // namespace seqlab::embed
