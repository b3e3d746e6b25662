// Word2Vec (Mikolov et al. 2013, "Distributed Representations of Words and Phrases") and
// FastText (Bojanowski et al. 2017, "Enriching Word Vectors with Subword Information")
// training, with gensim 4's semantics, deterministic for any number of threads.
// Python: seqlab.embed.Word2Vec / FastText. Tests: tests/test_word2vec.py, tests/test_fasttext.py.
// Design (chunks, blocks, copy-on-write): docs/embeddings-design.md.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seqlab::embed {

// ---------------------------------------------------------------------------- FastText subwords

// The character n-grams of `<word>` with min_n <= n <= max_n characters, as UTF-8 byte
// strings, in gensim's order (compute_ngrams_bytes / Facebook's Dictionary::computeSubwords):
// by start position, then by length; the 1-grams "<" and ">" are never produced.
// "where", n = 3:  <wh whe her ere re>
std::vector<std::string> char_ngrams(std::string_view word, int min_n, int max_n);

// Facebook fastText's 32-bit FNV-1a over the bytes, each byte sign-extended first (the
// `int8_t` cast of dictionary.cc that gensim's ft_hash_bytes keeps for compatibility).
uint32_t ft_hash(std::string_view bytes);

// ft_hash(ngram) % bucket for every n-gram of `word` (gensim's ft_ngram_hashes).
std::vector<uint32_t> ngram_buckets(std::string_view word, int min_n, int max_n, uint32_t bucket);

// ---------------------------------------------------------------------------- Huffman tree

// The Huffman tree over word counts for hierarchical softmax (Mikolov et al. 2013, §2.1;
// the two-queue construction of word2vec.c). Word w's path from the root has
// code_offsets[w+1] - code_offsets[w] steps: inner node points[s] (a row of syn1, 0..V-2)
// and branch codes[s] (0/1). Counts need not be sorted.
struct HuffmanTree {
  std::vector<int64_t> code_offsets;  // V + 1
  std::vector<uint8_t> codes;
  std::vector<int32_t> points;
};
HuffmanTree build_huffman(const std::vector<int64_t>& counts);

// ---------------------------------------------------------------------------- training

// Bounds of the options (Word2VecOptions::check; DESIGN.md, "Bad input"):
// - a sentence holds at most kMaxSentenceWords words (gensim's MAX_WORDS_IN_BATCH: Python splits
//   longer ones), so a window never spans more than 2 (kMaxSentenceWords - 1) context words;
// - the outputs of one update block (FastText skip-gram: every context word's positive,
//   negatives and Huffman path) are counted in an int, as in gensim's Cython and word2vec.c:
//   2 (kMaxSentenceWords - 1) (negative + 1 + 92) < 2^31 for negative <= 107,288 (92: the
//   longest Huffman path over int64 counts, the Fibonacci bound), rounded down to kMaxNegative;
// - vector_size <= 2^20 (4 MiB a row, a thousand times the usual 100-1,000): a larger value is
//   a typo (10**9 would be 4 GB a word) that would fail, or be killed for memory, in build_vocab.
inline constexpr int64_t kMaxSentenceWords = 10000;
inline constexpr int kMaxNegative = 100000;
inline constexpr int64_t kMaxVectorSize = int64_t{1} << 20;

struct Word2VecOptions {
  int64_t vector_size = 100;
  int window = 5;
  bool sg = false;            // skip-gram (true) or CBOW (false)
  bool hs = false;            // hierarchical softmax
  int negative = 5;           // negative samples per positive (0 = none)
  double ns_exponent = 0.75;  // negatives drawn from count^ns_exponent
  bool cbow_mean = true;      // CBOW input: mean (true) or sum (false) of the context
  double alpha = 0.025;       // learning rate, decayed linearly ...
  double min_alpha = 0.0001;  // ... to this over all words of all epochs of one train()
  int epochs = 5;
  bool shrink_windows = true;  // window drawn uniformly from 1..window per word
  uint64_t seed = 1;
  int workers = 3;
  int64_t chunk_words = 256;   // words per chunk (a chunk ends at a sentence end)
  int block_chunks = 4;        // chunks per block (see docs/embeddings-design.md)
  bool compute_loss = false;   // sum the loss into Progress::loss (gensim's compute_loss)
  // Run only epochs [epoch_begin, epoch_end) of the `epochs` (-1: up to epochs); the random
  // streams and the learning rate are those of the whole run, so running the epochs one call
  // at a time gives the same vectors as one call (how Python calls back between epochs).
  int epoch_begin = 0, epoch_end = -1;
  void check() const;          // std::invalid_argument naming the field
};

// Borrowed arrays (the caller keeps them alive; the matrices are updated in place).
// Input rows: word w is row w; FastText's n-gram bucket b is row V + b, and word w's input
// vector is the mean of rows sub_rows[sub_offsets[w] .. sub_offsets[w+1]) (w itself first).
struct Word2VecData {
  const int32_t* ids = nullptr;  // the corpus: vocabulary ids in 0..V-1
  int64_t n_tokens = 0;
  const int64_t* offsets = nullptr;  // sentence s is ids[offsets[s] .. offsets[s+1])
  int64_t n_sentences = 0;
  const int64_t* counts = nullptr;       // V word counts (negative-sampling distribution, Huffman tree)
  const uint32_t* sample_int = nullptr;  // V keep thresholds (gensim's sample_int) or null: no subsampling
  int64_t V = 0;
  float* syn0 = nullptr;  // (n_input_rows, vector_size)
  int64_t n_input_rows = 0;
  float* syn1neg = nullptr;  // (V, vector_size) when negative > 0
  float* syn1 = nullptr;     // (V, vector_size) when hs (rows 0..V-2 used)
  const int64_t* sub_offsets = nullptr;  // FastText only (else null): V + 1
  const int32_t* sub_rows = nullptr;
};

// Shared with a thread that reports progress (Python's tqdm) or asks to stop.
struct Progress {
  std::atomic<int64_t> words_done{0};     // corpus words of finished chunks, all epochs
  std::atomic<int64_t> effective_words{0};  // after subsampling
  std::atomic<bool> stop{false};          // finish the current block, then return
  double last_alpha = 0;                  // the learning rate of the last sentence trained
  // With compute_loss: Σ -log σ(±s) over every (input, output) pair trained (label 1: s,
  // label 0: -s; NS and HS alike), added in chunk order after each block.
  double loss = 0;
};

// Trains for options.epochs epochs. The result depends on (data, options without workers):
// not on the number of threads or their timing.
void train_word2vec(const Word2VecData& data, const Word2VecOptions& options, Progress& progress);

// The learning rate after `words_done` of `total_words` (gensim's linear decay):
// alpha - (alpha - min_alpha) * words_done / total_words, never below min_alpha.
double decayed_alpha(double alpha, double min_alpha, int64_t words_done, int64_t total_words);

// One update of m input vectors H against n output rows O with labels L (Ji et al. 2016,
// "Parallelizing Word2Vec in Shared and Distributed Memory", §3: a window's inputs share
// their negatives, so the update is two small matrix products):
//   S = H Oᵀ (m×n),   G = alpha (L - σ(S))        (L broadcast over the m rows)
//   dH = G O          (m×d, written to dH; from O before its update)
//   O += Gᵀ H         (in place)
// Gradient ascent on Σ_jk L_k log σ(S_jk) + (1 - L_k) log σ(-S_jk). Skip-gram with negative
// sampling is one input (the context word), the positive then the negatives.
void sgd_block(int m, int n, int64_t d, const float* const* H, float* const* O, const float* L, float alpha,
               float* G, float* dH);

}  // namespace seqlab::embed
