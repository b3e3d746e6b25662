// Tokenising and counting a corpus in one C++ pass: the shared front end of seqlab.lm
// (n-gram counting) and seqlab.embed (word2vec, FastText, GloVe, PPMI).
// Tested in tests/test_text_encode.py.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seqlab::text {

// Word: tokens are the runs of non-whitespace (ASCII space, \t, \n, \v, \f, \r), as KenLM's
// lmplz and gensim's LineSentence split. Char: every UTF-8 code point of the line is a token,
// spaces included (the Shannon game's 27 symbols are a-z and space).
enum class Level { Word, Char };

// A corpus as ids. Sentence s is ids[offsets[s] .. offsets[s+1]).
struct Encoded {
  std::vector<std::string> vocab;  // fresh vocabulary: by count descending, ties by first occurrence
  std::vector<int64_t> counts;     // occurrences of vocab[i] in this corpus
  std::vector<int32_t> ids;        // every token; -1 = not in a given fixed vocabulary
  std::vector<int64_t> offsets;    // n_sentences + 1 entries, offsets[0] = 0
  int64_t n_unknown = 0;           // tokens not in the fixed vocabulary (0 for a fresh one)
};

// Builds a vocabulary from the lines and encodes them.
Encoded encode(const std::vector<std::string_view>& lines, Level level);
// Encodes against a fixed vocabulary (ids index `vocab`; unknown tokens get -1).
Encoded encode(const std::vector<std::string_view>& lines, Level level, const std::vector<std::string>& vocab);
// Pre-split sentences (token lists): no splitting, vocabulary built as above.
Encoded encode_tokens(const std::vector<std::vector<std::string_view>>& sentences);
Encoded encode_tokens(const std::vector<std::vector<std::string_view>>& sentences, const std::vector<std::string>& vocab);

// Reads a text file (one sentence per line); raises a RuntimeError naming the file if it cannot.
std::string read_file(const std::string& path);
// Splits a buffer into lines without copying (a trailing '\n' ends the last line, an empty
// last line is dropped; '\r' before '\n' is kept as whitespace of the line).
std::vector<std::string_view> split_lines(std::string_view text);

// The tokens of one line, as `encode` sees them.
void split_tokens(std::string_view line, Level level, std::vector<std::string_view>& out);

}  // namespace seqlab::text
