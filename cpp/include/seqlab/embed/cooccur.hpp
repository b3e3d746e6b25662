// Word-context co-occurrence counts over a window (Pennington et al. 2014, §3; Stanford's
// cooccur.c), the input of GloVe and of PPMI + SVD (Levy & Goldberg 2014), and the sparse
// matrix product the randomised SVD needs. cpp/src/embed/cooccur.cpp; tests/test_glove.py,
// tests/test_ppmi.py.
#pragma once
#include <cstdint>
#include <vector>

namespace seqlab::embed {

struct CooccurOptions {
  int64_t window = 10;             // context words on each side (left only if !symmetric)
  bool symmetric = true;           // count right contexts too (Stanford's -symmetric 1)
  bool distance_weighting = true;  // a pair d words apart adds 1/d (else 1)
  int workers = 2;                 // threads (the sums are deterministic for a given number)
};

// A sparse V x V matrix in COO form, sorted by (row, col), one entry per distinct pair.
// As cooccur.c: X[a][b] += 1/d each time b occurs d <= window words after a; with
// `symmetric` also X[b][a] += 1/d, so X is symmetric and row a counts a's contexts on both sides.
struct Cooccurrence {
  int64_t n_words = 0;
  std::vector<int32_t> row, col;
  std::vector<double> value;
  int64_t nnz() const { return static_cast<int64_t>(value.size()); }
};

// ids: every token of the corpus (-1 = dropped word: removed before windowing, as word2vec
// and cooccur.c skip out-of-vocabulary words); sentence s is ids[offsets[s] .. offsets[s+1]),
// and windows never cross sentences. Memory: the distinct pairs plus a bounded buffer.
Cooccurrence count_cooccurrences(const int32_t* ids, const int64_t* offsets, int64_t n_sentences, int64_t n_words,
                                 const CooccurOptions& options);

// Y = A X for a CSR matrix A (n_rows x n_cols) and a dense row-major X (n_cols x k); Y is
// (n_rows x k), row-major. Rows are split over `workers` threads.
void csr_matmul(const int64_t* indptr, const int32_t* indices, const double* data, int64_t n_rows, const double* X,
                int64_t k, double* Y, int workers);

}  // namespace seqlab::embed
