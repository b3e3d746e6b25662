// Co-occurrence counting (seqlab/embed/cooccur.hpp), after Stanford's cooccur.c: every pair
// within the window adds 1/d (or 1). Pairs are buffered as (key = row << 32 | col, weight),
// and a full buffer is sorted, summed per key and merged into the running sorted result, so
// memory is the distinct pairs plus the buffer (cooccur.c's overflow files, in memory).
#include "seqlab/embed/cooccur.hpp"

#include <algorithm>
#include <thread>
#include <utility>

#include "seqlab/check.hpp"
#include "seqlab/parallel.hpp"

namespace seqlab::embed {
namespace {

using Entry = std::pair<uint64_t, double>;  // (row << 32 | col, weight)
constexpr size_t kBufferEntries = size_t{1} << 21;  // 32 MiB per thread

uint64_t pair_key(int32_t row, int32_t col) { return (uint64_t(uint32_t(row)) << 32) | uint32_t(col); }

// Sorts `buf` by key and sums equal keys in place (stable, so the sums are deterministic).
void sort_and_sum(std::vector<Entry>& buf) {
  std::stable_sort(buf.begin(), buf.end(), [](const Entry& a, const Entry& b) { return a.first < b.first; });
  size_t out = 0;
  for (size_t i = 0; i < buf.size(); ++i) {
    if (out > 0 && buf[out - 1].first == buf[i].first)
      buf[out - 1].second += buf[i].second;
    else
      buf[out++] = buf[i];
  }
  buf.resize(out);
}

// Merges two sorted, summed runs into one.
std::vector<Entry> merge_sum(const std::vector<Entry>& a, const std::vector<Entry>& b) {
  std::vector<Entry> out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      out.push_back(b[j++]);
    } else {
      out.emplace_back(a[i].first, a[i].second + b[j].second);
      ++i, ++j;
    }
  }
  return out;
}

// The pairs of sentences [s0, s1), summed.
std::vector<Entry> count_range(const int32_t* ids, const int64_t* offsets, int64_t s0, int64_t s1,
                               const CooccurOptions& o) {
  std::vector<Entry> total, buf;
  buf.reserve(kBufferEntries);
  std::vector<int32_t> kept;  // the sentence without dropped words
  auto flush = [&] {
    sort_and_sum(buf);
    total = merge_sum(total, buf);
    buf.clear();
  };
  for (int64_t s = s0; s < s1; ++s) {
    kept.clear();
    for (int64_t t = offsets[s]; t < offsets[s + 1]; ++t)
      if (ids[t] >= 0) kept.push_back(ids[t]);
    const int64_t n = static_cast<int64_t>(kept.size());
    for (int64_t j = 0; j < n; ++j) {
      // a = kept[j - d] is d words before b = kept[j]:  X[a][b] += 1/d  (and X[b][a] if symmetric)
      for (int64_t d = 1; d <= o.window && j - d >= 0; ++d) {
        const double w = o.distance_weighting ? 1.0 / static_cast<double>(d) : 1.0;
        buf.emplace_back(pair_key(kept[j - d], kept[j]), w);
        if (o.symmetric) buf.emplace_back(pair_key(kept[j], kept[j - d]), w);
      }
      if (buf.size() + 2 * o.window >= kBufferEntries) flush();
    }
  }
  flush();
  return total;
}

}  // namespace

Cooccurrence count_cooccurrences(const int32_t* ids, const int64_t* offsets, int64_t n_sentences, int64_t n_words,
                                 const CooccurOptions& o) {
  SEQLAB_CHECK_VALUE(o.window >= 1, "cooccurrence: window must be >= 1, got ", o.window);
  SEQLAB_CHECK_VALUE(o.workers >= 1 && o.workers <= max_threads(), "cooccurrence: workers must be from 1 to ",
                     max_threads(), " (4 per CPU), got ", o.workers);
  SEQLAB_CHECK_VALUE(n_words >= 0 && n_words < INT32_MAX, "cooccurrence: bad vocabulary size ", n_words);
  const int64_t n_tokens = offsets[n_sentences] - offsets[0];
  for (int64_t t = offsets[0]; t < offsets[n_sentences]; ++t)
    SEQLAB_CHECK_VALUE(ids[t] < n_words, "cooccurrence: token ", t, " has id ", ids[t], ", outside the vocabulary of ",
                       n_words, " words");

  // Split the sentences into `workers` ranges of about equal token counts.
  const int P = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(o.workers, n_sentences)));
  std::vector<int64_t> bounds{0};
  for (int p = 1; p < P; ++p) {
    const int64_t target = offsets[0] + n_tokens * p / P;
    bounds.push_back(std::upper_bound(offsets, offsets + n_sentences, target) - offsets - 1);
    bounds.back() = std::max(bounds.back(), bounds[p - 1]);
  }
  bounds.push_back(n_sentences);

  std::vector<std::vector<Entry>> parts(P);
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(P);
  for (int p = 0; p < P; ++p)
    threads.emplace_back([&, p] {
      try {
        parts[p] = count_range(ids, offsets, bounds[p], bounds[p + 1], o);
      } catch (...) {
        errors[p] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<Entry> all = std::move(parts[0]);
  for (int p = 1; p < P; ++p) all = merge_sum(all, parts[p]);

  Cooccurrence X;
  X.n_words = n_words;
  X.row.resize(all.size());
  X.col.resize(all.size());
  X.value.resize(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    X.row[i] = static_cast<int32_t>(all[i].first >> 32);
    X.col[i] = static_cast<int32_t>(all[i].first & 0xffffffffu);
    X.value[i] = all[i].second;
  }
  return X;
}

// Y[r, :] = sum over the nonzeros (r, c, a) of row r of  a * X[c, :]
void csr_matmul(const int64_t* indptr, const int32_t* indices, const double* data, int64_t n_rows, const double* X,
                int64_t k, double* Y, int workers) {
  SEQLAB_CHECK_VALUE(workers >= 1 && workers <= max_threads(), "csr_matmul: workers must be from 1 to ", max_threads(),
                     " (4 per CPU), got ", workers);
  auto rows = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      double* y = Y + r * k;
      std::fill(y, y + k, 0.0);
      for (int64_t e = indptr[r]; e < indptr[r + 1]; ++e) {
        const double a = data[e];
        const double* x = X + int64_t(indices[e]) * k;
        for (int64_t i = 0; i < k; ++i) y[i] += a * x[i];
      }
    }
  };
  const int P = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(workers, n_rows / 64)));
  std::vector<std::thread> threads;
  for (int p = 1; p < P; ++p) threads.emplace_back(rows, n_rows * p / P, n_rows * (p + 1) / P);
  rows(0, n_rows / P);
  for (auto& t : threads) t.join();
}

}  // namespace seqlab::embed
