// Word2Vec and FastText training (seqlab/embed/word2vec.hpp): skip-gram and CBOW, negative
// sampling and hierarchical softmax, gensim 4's subsampling, windows and learning-rate decay.
// Deterministic for any number of threads: see docs/embeddings-design.md. Tested in
// tests/test_word2vec.py and tests/test_fasttext.py.
//
// The work of an epoch is cut into chunks of whole sentences (~chunk_words words), each with
// its own random stream seeded by (seed, epoch, chunk). Chunks run in blocks of block_chunks:
// every chunk of a block reads the parameters as they were at the block's start plus its own
// changes (copy-on-write rows), and at the block's end the chunks' changes are added to the
// parameters in chunk order. Threads only decide who computes which chunk, never the result.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include "../simd/isa.hpp"
#include "../simd/vec_math.hpp"
#include "seqlab/check.hpp"
#include "seqlab/embed/word2vec.hpp"
#include "seqlab/parallel.hpp"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace seqlab::embed {

void Word2VecOptions::check() const {
  SEQLAB_CHECK_VALUE(vector_size >= 1, "Word2Vec: vector_size must be >= 1, got ", vector_size);
  SEQLAB_CHECK_VALUE(vector_size <= kMaxVectorSize, "Word2Vec: vector_size must be at most ", kMaxVectorSize, ", got ",
                     vector_size);
  SEQLAB_CHECK_VALUE(window >= 1, "Word2Vec: window must be >= 1, got ", window);
  SEQLAB_CHECK_VALUE(negative >= 0, "Word2Vec: negative must be >= 0, got ", negative);
  SEQLAB_CHECK_VALUE(negative <= kMaxNegative, "Word2Vec: negative must be at most ", kMaxNegative, ", got ", negative);
  SEQLAB_CHECK_VALUE(hs || negative > 0, "Word2Vec: one of hs=1 or negative>0 is needed to train");
  SEQLAB_CHECK_VALUE(epochs >= 0, "Word2Vec: epochs must be >= 0, got ", epochs);
  // workers are std::threads started at once (a refused one would leave the others at a barrier):
  // at most max_threads(), the bound of set_num_threads.
  SEQLAB_CHECK_VALUE(workers >= 1 && workers <= max_threads(), "Word2Vec: workers must be from 1 to ", max_threads(),
                     " (4 per CPU), got ", workers);
  SEQLAB_CHECK_VALUE(alpha > 0 && min_alpha >= 0 && std::isfinite(alpha) && std::isfinite(min_alpha),
                     "Word2Vec: alpha must be > 0 and min_alpha >= 0, both finite, got alpha=", alpha,
                     ", min_alpha=", min_alpha);
  SEQLAB_CHECK_VALUE(std::isfinite(ns_exponent), "Word2Vec: ns_exponent must be finite, got ", ns_exponent);
  SEQLAB_CHECK_VALUE(chunk_words >= 1 && block_chunks >= 1, "Word2Vec: chunk_words and block_chunks must be >= 1");
  const int end = epoch_end < 0 ? epochs : epoch_end;
  SEQLAB_CHECK_VALUE(0 <= epoch_begin && epoch_begin <= end && end <= epochs,
                     "Word2Vec: epochs to run [", epoch_begin, ", ", end, ") must lie in [0, ", epochs, "]");
}

double decayed_alpha(double alpha, double min_alpha, int64_t words_done, int64_t total_words) {
  double progress = total_words > 0 ? static_cast<double>(words_done) / static_cast<double>(total_words) : 0.0;
  return std::max(min_alpha, alpha - (alpha - min_alpha) * progress);
}

// ---------------------------------------------------------------------------- Huffman tree

HuffmanTree build_huffman(const std::vector<int64_t>& counts) {
  // word2vec.c's construction: leaves sorted by count descending are one queue, the inner
  // nodes (created in increasing weight) the other; always merge the two lightest.
  const int64_t V = static_cast<int64_t>(counts.size());
  HuffmanTree tree;
  tree.code_offsets.assign(V + 1, 0);
  if (V < 2) return tree;  // a single word has an empty path
  std::vector<int64_t> order(V);
  for (int64_t i = 0; i < V; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return counts[a] > counts[b]; });
  // Nodes 0..V-1 are leaves in `order`; V..2V-2 inner nodes.
  std::vector<int64_t> weight(2 * V - 1), parent(2 * V - 1, -1);
  std::vector<uint8_t> branch(2 * V - 1, 0);
  for (int64_t i = 0; i < V; ++i) weight[i] = counts[order[i]];
  int64_t leaf = V - 1, inner = V;  // next lightest leaf, next lightest inner node
  for (int64_t node = V; node < 2 * V - 1; ++node) {
    int64_t pick[2];
    for (int64_t& p : pick) {
      if (leaf >= 0 && (inner >= node || weight[leaf] < weight[inner])) p = leaf--;
      else p = inner++;
    }
    weight[node] = weight[pick[0]] + weight[pick[1]];
    parent[pick[0]] = parent[pick[1]] = node;
    branch[pick[1]] = 1;
  }
  // Paths: leaf -> root collected, then stored root first. Inner node k is syn1 row k - V.
  std::vector<std::vector<int32_t>> points(V);
  std::vector<std::vector<uint8_t>> codes(V);
  for (int64_t i = 0; i < V; ++i) {
    int64_t w = order[i];
    for (int64_t node = i; parent[node] >= 0; node = parent[node]) {
      codes[w].push_back(branch[node]);
      points[w].push_back(static_cast<int32_t>(parent[node] - V));
    }
    std::reverse(codes[w].begin(), codes[w].end());
    std::reverse(points[w].begin(), points[w].end());
  }
  for (int64_t w = 0; w < V; ++w) {
    tree.code_offsets[w + 1] = tree.code_offsets[w] + static_cast<int64_t>(codes[w].size());
    tree.codes.insert(tree.codes.end(), codes[w].begin(), codes[w].end());
    tree.points.insert(tree.points.end(), points[w].begin(), points[w].end());
  }
  return tree;
}

namespace {

// ---------------------------------------------------------------------------- random numbers

// SplitMix64 (Steele et al. 2014): one 64-bit state, a fresh stream per (seed, epoch, chunk).
struct Rng {
  uint64_t state;
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  Rng(uint64_t seed, uint64_t epoch, uint64_t chunk) : state(mix(mix(mix(seed) + epoch) + chunk)) {}
  uint64_t next() { return mix(state += 0x9E3779B97F4A7C15ull); }
  uint32_t next_u32() { return static_cast<uint32_t>(next() >> 32); }
};

// Walker's alias method (Vose's construction): O(1) draws from count^ns_exponent, in place
// of word2vec.c's 10^8-entry unigram table and gensim's bisection of a cumulative table.
struct AliasTable {
  std::vector<uint32_t> keep;  // column i keeps i when the 32-bit draw is < keep[i]
  std::vector<int32_t> alias;
  int64_t n = 0;

  AliasTable(const int64_t* counts, int64_t V, double power) : keep(V), alias(V), n(V) {
    std::vector<double> p(V);
    double total = 0;
    for (int64_t i = 0; i < V; ++i) total += p[i] = std::pow(static_cast<double>(counts[i]), power);
    SEQLAB_CHECK_VALUE(total > 0, "Word2Vec: negative sampling needs a word with a positive count");
    std::vector<int64_t> small, large;
    for (int64_t i = 0; i < V; ++i) {
      p[i] *= static_cast<double>(V) / total;
      (p[i] < 1.0 ? small : large).push_back(i);
    }
    while (!small.empty() && !large.empty()) {
      int64_t s = small.back(), l = large.back();
      small.pop_back();
      keep[s] = static_cast<uint32_t>(std::min(p[s] * 4294967296.0, 4294967295.0));
      alias[s] = static_cast<int32_t>(l);
      p[l] -= 1.0 - p[s];
      if (p[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (int64_t i : large) keep[i] = UINT32_MAX, alias[i] = static_cast<int32_t>(i);
    for (int64_t i : small) keep[i] = UINT32_MAX, alias[i] = static_cast<int32_t>(i);  // rounding leftovers
  }
  int32_t draw(Rng& rng) const {
    uint64_t r = rng.next();
    int64_t column = static_cast<int64_t>(((r & 0xFFFFFFFFull) * static_cast<uint64_t>(n)) >> 32);
    return static_cast<uint32_t>(r >> 32) < keep[column] ? static_cast<int32_t>(column) : alias[column];
  }
};

// ---------------------------------------------------------------------------- the update

// The kernels below are inlined into the per-instruction-set copies of train_chunk_body and
// merge_body (see Kernels), so they must inline whatever the compiler's heuristics say: a call
// would run the SSE2 copy.
#if defined(__GNUC__)
#define SEQLAB_W2V_INLINE inline __attribute__((always_inline))
#else
#define SEQLAB_W2V_INLINE inline
#endif

// Two 8-float partial sums (GCC/Clang vector extensions: one AVX register each, two SSE ones
// each under SSE2), reduced in registers in a fixed order: vectorised without -ffast-math, and
// the same summation order on every instruction set.
#if defined(__GNUC__)
typedef float v8f __attribute__((vector_size(32)));
typedef float v8f_u __attribute__((vector_size(32), aligned(4)));  // unaligned loads
typedef float v4f __attribute__((vector_size(16)));

SEQLAB_W2V_INLINE float dot(const float* a, const float* b, int64_t d) {
  v8f s0 = {}, s1 = {};
  int64_t k = 0;
  for (; k + 16 <= d; k += 16) {
    s0 += *reinterpret_cast<const v8f_u*>(a + k) * *reinterpret_cast<const v8f_u*>(b + k);
    s1 += *reinterpret_cast<const v8f_u*>(a + k + 8) * *reinterpret_cast<const v8f_u*>(b + k + 8);
  }
  if (k + 8 <= d) {
    s0 += *reinterpret_cast<const v8f_u*>(a + k) * *reinterpret_cast<const v8f_u*>(b + k);
    k += 8;
  }
  s0 += s1;
  v4f h = __builtin_shufflevector(s0, s0, 0, 1, 2, 3) + __builtin_shufflevector(s0, s0, 4, 5, 6, 7);
  float sum = (h[0] + h[2]) + (h[1] + h[3]);
  for (; k < d; ++k) sum += a[k] * b[k];
  return sum;
}
#else
inline float dot(const float* a, const float* b, int64_t d) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t k = 0; k < d; ++k) s += a[k] * b[k];
  return s;
}
#endif

SEQLAB_W2V_INLINE void axpy(float g, const float* x, float* y, int64_t d) {
#pragma omp simd
  for (int64_t k = 0; k < d; ++k) y[k] += g * x[k];
}

// out = Σ_r w[r·stride] x_r (w null: all ones), or out += that sum when `accumulate`, summed
// in r order exactly as repeated axpy would (into zeros, or into out), but in registers: out is
// read and written once instead of n times.
template <bool accumulate>
SEQLAB_W2V_INLINE void weighted_sum(const float* const* x, const float* w, int64_t stride, int64_t n, int64_t d,
                                    float* out) {
  int64_t k = 0;
#if defined(__GNUC__)
  for (; k + 16 <= d; k += 16) {
    v8f a0 = {}, a1 = {};
    if (accumulate) {
      a0 = *reinterpret_cast<const v8f_u*>(out + k);
      a1 = *reinterpret_cast<const v8f_u*>(out + k + 8);
    }
    for (int64_t r = 0; r < n; ++r) {
      const float g = w ? w[r * stride] : 1.0f;
      a0 += g * *reinterpret_cast<const v8f_u*>(x[r] + k);
      a1 += g * *reinterpret_cast<const v8f_u*>(x[r] + k + 8);
    }
    *reinterpret_cast<v8f_u*>(out + k) = a0;
    *reinterpret_cast<v8f_u*>(out + k + 8) = a1;
  }
#endif
  for (; k < d; ++k) {
    float a = accumulate ? out[k] : 0.0f;
    for (int64_t r = 0; r < n; ++r) a += (w ? w[r * stride] : 1.0f) * x[r][k];
    out[k] = a;
  }
}

// See sgd_block in the header. G: m*n scratch, dH: m*d output. With `loss` (else null):
// *loss += Σ_jk -log σ(±S_jk), + for label 1, - for label 0 (gensim's compute_loss terms).
SEQLAB_W2V_INLINE void sgd_block_impl(int m, int n, int64_t d, const float* const* H, float* const* O, const float* L,
                                      float alpha, float* G, float* dH, double* loss = nullptr) {
  // S = H Oᵀ
  for (int j = 0; j < m; ++j)
    for (int k = 0; k < n; ++k) G[j * n + k] = dot(H[j], O[k], d);
  if (loss) {
    // -log σ(x) = softplus(-x) = max(-x, 0) + log1p(exp(-|x|)), stable for any x
    double sum = 0;
    for (int j = 0; j < m; ++j)
      for (int k = 0; k < n; ++k) {
        const float x = L[k] != 0.0f ? G[j * n + k] : -G[j * n + k];
        sum += std::max(-x, 0.0f) + std::log1p(std::exp(-std::fabs(x)));
      }
    *loss += sum;
  }
  // G = alpha (L - σ(S))
  simd::unary(simd::VecOp::Sigmoid, G, G, static_cast<int64_t>(m) * n);
  for (int j = 0; j < m; ++j)
    for (int k = 0; k < n; ++k) G[j * n + k] = alpha * (L[k] - G[j * n + k]);
  // dH = G O   (O before its update)
  for (int j = 0; j < m; ++j) weighted_sum<false>(O, G + j * n, 1, n, d, dH + j * d);
  // O += Gᵀ H
  for (int k = 0; k < n; ++k) weighted_sum<true>(H, G + k, n, m, d, O[k]);
}

// ---------------------------------------------------------------------------- copy-on-write rows

// The rows of one matrix that one chunk has touched: a private copy of each, made at first
// touch from the block-start parameters. Pages never move, so row pointers stay valid.
// `where` maps a matrix row to its copy (-1: none); it lives through the block's merge, which
// reads the copies through it, and is reset when the slot's next chunk starts.
struct RowCache {
  int64_t d = 0;
  int page_shift = 9;          // 2^page_shift rows a page: 512, fewer for wide rows (set_width)
  std::vector<int32_t> rows;   // matrix row of each copy, in first-touch order
  std::vector<int32_t> where;  // matrix rows, -1 or the index of the row's copy
  std::vector<std::unique_ptr<float[]>> pages;

  // Pages of at most 2^16 floats once rows are wider than 128: a page of 512 rows of a huge
  // vector_size would allocate gigabytes at a chunk's first touched row.
  void set_width(int64_t width) {
    d = width;
    page_shift = 9;
    while (page_shift > 0 && (d << page_shift) > (int64_t{1} << 16)) --page_shift;
  }
  float* at(size_t i) {
    return pages[i >> page_shift].get() + static_cast<int64_t>(i & ((size_t{1} << page_shift) - 1)) * d;
  }
  float* push(int32_t row) {
    size_t i = rows.size();
    if ((i >> page_shift) == pages.size()) pages.push_back(std::make_unique<float[]>(d << page_shift));
    rows.push_back(row);
    return at(i);
  }
};

// A matrix as one chunk sees it: param rows, or the chunk's copies of them.
struct CowMatrix {
  float* param = nullptr;
  int64_t d = 0;
  RowCache* cache = nullptr;

  SEQLAB_W2V_INLINE float* row(int32_t r) {
    int32_t& i = cache->where[r];
    if (i >= 0) return cache->at(static_cast<size_t>(i));
    i = static_cast<int32_t>(cache->rows.size());
    float* copy = cache->push(r);
    std::memcpy(copy, param + r * d, sizeof(float) * d);
    return copy;
  }
};

// One slot of a block: the chunk's changes, kept until the block's end.
struct Slot {
  RowCache in, out, hs;
  int64_t words = 0, effective_words = 0;
  double last_alpha = 0, loss = 0;
  int worker = -1;  // the thread that trained it (merges its rows: they are in its cache)
};

// ---------------------------------------------------------------------------- one chunk

struct Chunk {
  int64_t sentence_begin, sentence_end, word_begin;  // word_begin: words of the epoch before it
};

struct Shared {
  const Word2VecData& data;
  const Word2VecOptions& opt;
  const AliasTable* negatives;
  const HuffmanTree* tree;
  int64_t d, words_per_epoch, total_words;
};

// A worker's scratch, sized once.
struct Worker {
  std::vector<int32_t> sentence;  // after subsampling
  std::vector<const float*> H, rows;
  std::vector<float*> O;
  std::vector<float> L, G, dH, h;

  Worker(const Shared& s, int64_t max_subwords, int64_t longest_sentence) {
    const auto& opt = s.opt;
    int64_t max_code = 0;
    if (opt.hs)
      for (int64_t w = 0; w < s.data.V; ++w)
        max_code = std::max(max_code, s.tree->code_offsets[w + 1] - s.tree->code_offsets[w]);
    // A window reaches no further than the sentence: a huge window costs no memory.
    const int64_t ctx = 2 * std::min<int64_t>(opt.window, std::max<int64_t>(longest_sentence - 1, 0));
    const int64_t n_max = ctx * (max_code + opt.negative + 1);  // FastText skip-gram: all contexts in one block
    SEQLAB_CHECK_VALUE(n_max < std::numeric_limits<int>::max(), "Word2Vec: an update block of ", n_max,
                       " outputs (window x (negative + Huffman path)) exceeds the int range; lower negative");
    H.resize(ctx + 1);
    O.resize(n_max);
    L.resize(n_max);
    rows.resize(ctx * max_subwords + max_subwords);
    G.resize(std::max<int64_t>(n_max, 1));  // an update's m x n scores: m context rows x their outputs, or 1 x n_max
    dH.resize((ctx + 1) * s.d);
    h.resize(s.d);
  }
};

// Appends word w's path in the Huffman tree (labels 1 - code, as word2vec.c) to O, L.
SEQLAB_W2V_INLINE int add_hs_outputs(const HuffmanTree& tree, CowMatrix& syn1, int32_t w, Worker& wk, int n) {
  for (int64_t s = tree.code_offsets[w]; s < tree.code_offsets[w + 1]; ++s) {
    wk.O[n] = syn1.row(tree.points[s]);
    wk.L[n] = 1.0f - static_cast<float>(tree.codes[s]);
    ++n;
  }
  return n;
}

// Appends w as the positive and `negative` draws (not equal to w) as negatives.
SEQLAB_W2V_INLINE int add_ns_outputs(const Shared& s, CowMatrix& syn1neg, Rng& rng, int32_t w, Worker& wk, int n) {
  wk.O[n] = syn1neg.row(w);
  wk.L[n++] = 1.0f;
  for (int k = 0; k < s.opt.negative; ++k) {
    int32_t t = s.negatives->draw(rng);
    if (t == w) continue;  // as word2vec.c and gensim: a draw of the positive is dropped
    wk.O[n] = syn1neg.row(t);
    wk.L[n++] = 0.0f;
  }
  return n;
}

// Trains one chunk into `slot`. The body is compiled once per instruction set (below), so the
// dot/axpy loops use AVX2+FMA or AVX-512 where the CPU has them.
SEQLAB_W2V_INLINE void train_chunk_body(const Shared& s, Worker& wk, Slot& slot, const Chunk& chunk, int epoch,
                                        int64_t chunk_index) {
  const Word2VecData& data = s.data;
  const Word2VecOptions& opt = s.opt;
  const int64_t d = s.d;
  const bool fasttext = data.sub_offsets != nullptr;
  Rng rng(opt.seed, static_cast<uint64_t>(epoch), static_cast<uint64_t>(chunk_index));
  for (RowCache* rc : {&slot.in, &slot.out, &slot.hs}) {  // the previous block's map, kept for its merge
    for (int32_t r : rc->rows) rc->where[r] = -1;
    rc->rows.clear();
  }
  CowMatrix syn0{data.syn0, d, &slot.in};
  CowMatrix syn1neg{data.syn1neg, d, &slot.out};
  CowMatrix syn1{data.syn1, d, &slot.hs};
  int64_t words_before = epoch * s.words_per_epoch + chunk.word_begin, effective = 0;
  slot.loss = 0;
  double* const loss = opt.compute_loss ? &slot.loss : nullptr;
  float alpha = 0;

  // The input rows of word w: itself, and for FastText its n-gram buckets.
  auto input_rows = [&](int32_t w, int64_t n_rows) -> int64_t {
    if (!fasttext) {
      wk.rows[n_rows] = syn0.row(w);
      return n_rows + 1;
    }
    for (int64_t i = data.sub_offsets[w]; i < data.sub_offsets[w + 1]; ++i) wk.rows[n_rows++] = syn0.row(data.sub_rows[i]);
    return n_rows;
  };

  for (int64_t sent = chunk.sentence_begin; sent < chunk.sentence_end; ++sent) {
    const int64_t begin = data.offsets[sent], end = data.offsets[sent + 1];
    alpha = static_cast<float>(decayed_alpha(opt.alpha, opt.min_alpha, words_before, s.total_words));
    words_before += end - begin;
    // Subsampling (Mikolov et al. 2013, §2.3, gensim's form): keep w if sample_int[w] >= a
    // uniform 32-bit draw. Windows are then taken over the kept words.
    wk.sentence.clear();
    for (int64_t t = begin; t < end; ++t) {
      int32_t w = data.ids[t];
      if (data.sample_int && data.sample_int[w] < rng.next_u32()) continue;
      wk.sentence.push_back(w);
    }
    const int n = static_cast<int>(wk.sentence.size());
    effective += n;
    for (int i = 0; i < n; ++i) {
      const int32_t w = wk.sentence[i];
      // Reduced window: b uniform in 0..window-1, the window spans window - b words each side.
      const int b = opt.shrink_windows ? static_cast<int>(rng.next() % static_cast<uint64_t>(opt.window)) : 0;
      const int64_t reach = static_cast<int64_t>(opt.window) - b;  // i + reach overflows an int near INT_MAX
      const int lo = static_cast<int>(std::max<int64_t>(0, i - reach)),
                hi = static_cast<int>(std::min<int64_t>(n - 1, i + reach));
      if (hi == lo) continue;  // a one-word sentence has no context

      if (opt.sg && !fasttext) {
        // Skip-gram: each context word's input vector predicts w. The contexts share the
        // negatives (Ji et al. 2016), so one block updates them all.
        int m = 0;
        for (int j = lo; j <= hi; ++j)
          if (j != i) wk.H[m++] = syn0.row(wk.sentence[j]);
        for (int pass = 0; pass < 2; ++pass) {
          int n_out = 0;
          if (pass == 0 && opt.hs) n_out = add_hs_outputs(*s.tree, syn1, w, wk, 0);
          if (pass == 1 && opt.negative > 0) n_out = add_ns_outputs(s, syn1neg, rng, w, wk, 0);
          if (n_out == 0) continue;
          sgd_block_impl(m, n_out, d, wk.H.data(), wk.O.data(), wk.L.data(), alpha, wk.G.data(), wk.dH.data(), loss);
          for (int j = 0; j < m; ++j) axpy(1.0f, wk.dH.data() + j * d, const_cast<float*>(wk.H[j]), d);
        }
      } else if (opt.sg) {
        // FastText skip-gram (gensim's direction): the centre's subword mean predicts each
        // context word, each with its own negatives; one block of 1 input.
        int64_t n_rows = input_rows(w, 0);
        weighted_sum<false>(wk.rows.data(), nullptr, 0, n_rows, d, wk.h.data());
        const float inv = 1.0f / static_cast<float>(n_rows);
        for (int64_t k = 0; k < d; ++k) wk.h[k] *= inv;
        int n_out = 0;
        for (int j = lo; j <= hi; ++j) {
          if (j == i) continue;
          if (opt.hs) n_out = add_hs_outputs(*s.tree, syn1, wk.sentence[j], wk, n_out);
          if (opt.negative > 0) n_out = add_ns_outputs(s, syn1neg, rng, wk.sentence[j], wk, n_out);
        }
        if (n_out == 0) continue;
        const float* hp = wk.h.data();
        sgd_block_impl(1, n_out, d, &hp, wk.O.data(), wk.L.data(), alpha, wk.G.data(), wk.dH.data(), loss);
        // The gradient of the mean reaches every row whole, as in fastText and gensim.
        for (int64_t r = 0; r < n_rows; ++r) axpy(1.0f, wk.dH.data(), const_cast<float*>(wk.rows[r]), d);
      } else {
        // CBOW: the context's mean (cbow_mean) or sum predicts w; the input gradient goes to
        // every context row whole (mean), or divided by their number (sum), as gensim.
        for (int pass = 0; pass < 2; ++pass) {
          if ((pass == 0 && !opt.hs) || (pass == 1 && opt.negative == 0)) continue;
          int64_t n_rows = 0;
          for (int j = lo; j <= hi; ++j)
            if (j != i) n_rows = input_rows(wk.sentence[j], n_rows);
          weighted_sum<false>(wk.rows.data(), nullptr, 0, n_rows, d, wk.h.data());
          const float inv = 1.0f / static_cast<float>(n_rows);
          if (opt.cbow_mean)
            for (int64_t k = 0; k < d; ++k) wk.h[k] *= inv;
          int n_out = pass == 0 ? add_hs_outputs(*s.tree, syn1, w, wk, 0) : add_ns_outputs(s, syn1neg, rng, w, wk, 0);
          if (n_out == 0) continue;
          const float* hp = wk.h.data();
          sgd_block_impl(1, n_out, d, &hp, wk.O.data(), wk.L.data(), alpha, wk.G.data(), wk.dH.data(), loss);
          const float scale = opt.cbow_mean ? 1.0f : inv;
          for (int64_t r = 0; r < n_rows; ++r) axpy(scale, wk.dH.data(), const_cast<float*>(wk.rows[r]), d);
        }
      }
    }
  }
  slot.words = words_before - (epoch * s.words_per_epoch + chunk.word_begin);
  slot.effective_words = effective;
  slot.last_alpha = alpha;
}

// Adds the chunks' changes (copy - block-start value) to the parameters. Each row is merged
// once, by the thread that trained the first slot holding it (that slot's copy is in its
// cache), adding the slots' deltas in slot order: the result does not depend on which thread
// merges a row. The `where` maps are only read here (reset at the slot's next chunk), so the
// threads need no other agreement.
//
// A row changed by n chunks of the block gets min(1, 2/n) times the sum of their deltas.
// Each chunk moved the row from the same block-start value; for a row that every chunk
// updates many times (the frequent words' output rows, the inner nodes near the Huffman
// root) each delta is already most of the way to that chunk's optimum, and adding n of them
// overshoots n-fold and diverges. In a linear model of one chunk's effect (error e -> ρ e,
// 0 < ρ < 1) a step of s times the sum leaves (1 - s n (1 - ρ)) e, which stays below e in size
// whenever s n <= 2: so rare rows (n <= 2) keep the full sum, as sequential SGD would give
// them, and hot rows move at most two chunks' worth per block. A row changed by one chunk
// (most rows) takes that chunk's copy.
// `start` is the worker's scratch row (d floats).
SEQLAB_W2V_INLINE void merge_body(float* param, int64_t d, std::vector<Slot>& slots, int n_slots,
                                  RowCache Slot::*cache, int worker, float* start) {
  for (int c = 0; c < n_slots; ++c) {
    if (slots[c].worker != worker) continue;
    RowCache& rc = slots[c].*cache;
    for (size_t i = 0; i < rc.rows.size(); ++i) {
      const int32_t r = rc.rows[i];
      bool first = true;
      for (int c2 = 0; c2 < c && first; ++c2) first = (slots[c2].*cache).where[r] < 0;
      if (!first) continue;  // merged by the thread of an earlier slot
      int n = 1;
      for (int c2 = c + 1; c2 < n_slots; ++c2) n += (slots[c2].*cache).where[r] >= 0;
      float* p = param + r * d;
      if (n == 1) {
        std::memcpy(p, rc.at(i), sizeof(float) * d);
        continue;
      }
      const float scale = n <= 2 ? 1.0f : 2.0f / static_cast<float>(n);
      std::memcpy(start, p, sizeof(float) * d);
      for (int c2 = c; c2 < n_slots; ++c2) {
        const RowCache& other = slots[c2].*cache;
        const int32_t j = other.where[r];
        if (j < 0) continue;
        const float* copy = const_cast<RowCache&>(other).at(static_cast<size_t>(j));
#pragma omp simd
        for (int64_t k = 0; k < d; ++k) p[k] += scale * (copy[k] - start[k]);
      }
    }
  }
}

// train_chunk_body and merge_body for each instruction set, chosen at run time from the CPU's
// features (as seqlab::simd, by xsimd's detection). Not GCC's target_clones("arch=haswell",
// ...): its dispatcher tests the CPU *model* (__builtin_cpu_is), so every AMD CPU and every
// Intel one newer than the listed models ran the SSE2 copy.
struct Kernels {
  void (*train_chunk)(const Shared&, Worker&, Slot&, const Chunk&, int, int64_t);
  void (*merge)(float*, int64_t, std::vector<Slot>&, int, RowCache Slot::*, int, float*);
};

#define SEQLAB_W2V_KERNELS(NAME, TARGET)                                                                         \
  TARGET void train_chunk_##NAME(const Shared& s, Worker& wk, Slot& slot, const Chunk& chunk, int epoch,         \
                                 int64_t chunk_index) {                                                           \
    train_chunk_body(s, wk, slot, chunk, epoch, chunk_index);                                                     \
  }                                                                                                               \
  TARGET void merge_##NAME(float* param, int64_t d, std::vector<Slot>& slots, int n_slots, RowCache Slot::*cache, \
                           int worker, float* start) {                                                            \
    merge_body(param, d, slots, n_slots, cache, worker, start);                                                   \
  }
SEQLAB_W2V_KERNELS(sse2, )
#if defined(__GNUC__) && defined(__x86_64__)
#define SEQLAB_W2V_X86_DISPATCH 1
SEQLAB_W2V_KERNELS(avx2, __attribute__((target("avx2,fma"))))
SEQLAB_W2V_KERNELS(avx512, __attribute__((target("avx512f,avx2,fma"))))
#endif
#undef SEQLAB_W2V_KERNELS

Kernels pick_kernels() {
#if defined(SEQLAB_W2V_X86_DISPATCH)
  const simd::Isa isa = simd::active_isa();  // SEQLAB_ISA's cap, as every dispatcher
  if (isa == simd::Isa::avx512) return {train_chunk_avx512, merge_avx512};
  if (isa == simd::Isa::avx2) return {train_chunk_avx2, merge_avx2};
#endif
  return {train_chunk_sse2, merge_sse2};
}

// A reusable barrier whose last arriving thread runs `on_complete` before releasing the rest.
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  template <class F>
  void arrive_and_wait(F&& on_complete) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t gen = generation_;
    if (++arrived_ == n_) {
      on_complete();
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != gen; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_, arrived_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace

void sgd_block(int m, int n, int64_t d, const float* const* H, float* const* O, const float* L, float alpha, float* G,
               float* dH) {
  sgd_block_impl(m, n, d, H, O, L, alpha, G, dH);
}

void train_word2vec(const Word2VecData& data, const Word2VecOptions& opt, Progress& progress) {
  opt.check();
  SEQLAB_CHECK_VALUE(data.V >= 1, "Word2Vec: the vocabulary is empty");
  SEQLAB_CHECK_VALUE(data.n_input_rows >= data.V, "Word2Vec: syn0 has fewer rows than the vocabulary");
  SEQLAB_CHECK_VALUE(opt.negative == 0 || data.syn1neg, "Word2Vec: negative > 0 needs syn1neg");
  SEQLAB_CHECK_VALUE(!opt.hs || data.syn1, "Word2Vec: hs needs syn1");
  const int64_t d = opt.vector_size;

  // Chunks: whole sentences, closed once they hold chunk_words words.
  std::vector<Chunk> chunks;
  for (int64_t sent = 0, begin = 0; sent < data.n_sentences; ++sent) {
    if (data.offsets[sent + 1] - data.offsets[begin] >= opt.chunk_words || sent + 1 == data.n_sentences) {
      chunks.push_back({begin, sent + 1, data.offsets[begin] - data.offsets[0]});
      begin = sent + 1;
    }
  }
  const int64_t words_per_epoch = data.offsets[data.n_sentences] - data.offsets[0];
  const int epoch_end = opt.epoch_end < 0 ? opt.epochs : opt.epoch_end;
  if (chunks.empty() || words_per_epoch == 0 || opt.epoch_begin == epoch_end) return;

  std::unique_ptr<AliasTable> negatives;
  if (opt.negative > 0) negatives = std::make_unique<AliasTable>(data.counts, data.V, opt.ns_exponent);
  HuffmanTree tree;
  if (opt.hs) tree = build_huffman(std::vector<int64_t>(data.counts, data.counts + data.V));
  int64_t max_subwords = 1;
  if (data.sub_offsets)
    for (int64_t w = 0; w < data.V; ++w) max_subwords = std::max(max_subwords, data.sub_offsets[w + 1] - data.sub_offsets[w]);
  int64_t longest_sentence = 0;
  for (int64_t sent = 0; sent < data.n_sentences; ++sent)
    longest_sentence = std::max(longest_sentence, data.offsets[sent + 1] - data.offsets[sent]);
  Shared shared{data, opt, negatives.get(), &tree, d, words_per_epoch, words_per_epoch * opt.epochs};
  const Kernels kernels = pick_kernels();  // per call: SEQLAB_ISA's cap can change between calls

  const int K = opt.block_chunks;
  std::vector<Slot> slots(K);
  for (Slot& sl : slots) {
    for (RowCache* rc : {&sl.in, &sl.out, &sl.hs}) rc->set_width(d);
    sl.in.where.assign(data.n_input_rows, -1);
    if (opt.negative > 0) sl.out.where.assign(data.V, -1);
    if (opt.hs) sl.hs.where.assign(data.V, -1);
  }
  const int n_chunks = static_cast<int>(chunks.size());
  const int W = std::max(1, std::min(opt.workers, K));
  Barrier barrier(W);
  std::atomic<int> next_chunk{0};
  int epoch = opt.epoch_begin, block_begin = 0, block_end = 0;  // written by the barrier's completion only
  bool done = false;
  std::exception_ptr error;
  std::mutex error_mu;

  // Runs at each block boundary by the last thread to arrive: account for the finished
  // block, then pick the next one (or stop).
  auto next_block = [&]() {
    for (int c = 0; c < block_end - block_begin; ++c) {
      progress.words_done += slots[c].words;
      progress.effective_words += slots[c].effective_words;
      progress.last_alpha = slots[c].last_alpha;
      progress.loss += slots[c].loss;
    }
    block_begin = block_end;
    if (block_begin == n_chunks) {
      block_begin = 0;
      ++epoch;
    }
    block_end = std::min(n_chunks, block_begin + K);
    next_chunk = block_begin;
    done = epoch == epoch_end || progress.stop.load() || error != nullptr;
  };

  auto run = [&](int worker) {
#if defined(__SSE__)
    _mm_setcsr(_mm_getcsr() | 0x8040);  // flush-to-zero, denormals-are-zero
#endif
    std::unique_ptr<Worker> wk;
    std::vector<float> start;
    try {
      wk = std::make_unique<Worker>(shared, max_subwords, longest_sentence);
      start.resize(d);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
    barrier.arrive_and_wait([] {});
    while (true) {
      barrier.arrive_and_wait(next_block);
      if (done) break;
      for (int c; (c = next_chunk.fetch_add(1)) < block_end;) {
        try {
          slots[c - block_begin].worker = worker;
          kernels.train_chunk(shared, *wk, slots[c - block_begin], chunks[c], epoch, c);
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mu);
          if (!error) error = std::current_exception();
        }
      }
      barrier.arrive_and_wait([] {});
      if (error) continue;  // next_block stops everyone
      const int n_slots = block_end - block_begin;
      kernels.merge(data.syn0, d, slots, n_slots, &Slot::in, worker, start.data());
      if (opt.negative > 0) kernels.merge(data.syn1neg, d, slots, n_slots, &Slot::out, worker, start.data());
      if (opt.hs) kernels.merge(data.syn1, d, slots, n_slots, &Slot::hs, worker, start.data());
    }
  };
  // The first call of next_block must not account anything: start with an empty block.
  block_begin = block_end = 0;
  std::vector<std::thread> threads;
  for (int w = 1; w < W; ++w) threads.emplace_back(run, w);
  run(0);
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace seqlab::embed
