// The smoothings of NGramModel. Each fills, for every n-gram w_1..w_n, logprob = log10 p(w_n | w_1..w_{n-1})
// and, for every n-gram that is a context, backoff = log10 of its back-off weight, so that the
// ARPA back-off rule   p(w | h) = p*(h w) if h w was seen, else bow(h) * p(w | h minus its first word)
// reproduces the smoothed distribution (for MLE and add-k the scorer also reads the counts).
// V below is the vocabulary without <s> (<unk> and </s> included): the support of p(. | h).
#include <algorithm>
#include <limits>
#include <cmath>
#include <cstring>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"
#include "seqlab/parallel.hpp"

namespace seqlab::lm {
namespace {

float log10f_of(double p) { return p > 0 ? static_cast<float>(std::log10(p)) : -std::numeric_limits<float>::infinity(); }

// Integers kept for a while in a float array that is not filled yet.
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// p as a float kept in logprob while the order above reads it, then its log10.
void to_log10(std::vector<float>& p) {
  parallel_for(static_cast<int64_t>(p.size()), 1 << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = log10f_of(p[i]);
  });
}

}  // namespace

// Interpolated modified Kneser-Ney (Chen & Goodman 1998) with KenLM's estimates (Heafield et al. 2013):
//   a(h w)   adjusted count: raw at the top order and for n-grams starting with <s>, else N1+(. h w)
//   D_k      = k - (k+1) Y t_{k+1} / t_k,  Y = t_1 / (t_1 + 2 t_2),  t_k = #n-grams of the order with a = k
//   u(w | h) = (a(h w) - D(a(h w))) / sum_x a(h x)
//   g(h)     = (D1 N1(h .) + D2 N2(h .) + D3 N3+(h .)) / sum_x a(h x)
//   p(w | h) = u(w | h) + g(h) p(w | h'),   h' = h without its first word;  p(w | empty) ends in 1/V.
// Orders are smoothed from the unigrams up, each context's children being one run of the
// order's entries. While order n is smoothed, its entries' p stay probabilities in logprob,
// read by order n+1 through the suffix links, and become log10 p after that.
// No scratch arrays: until order n is smoothed, its logprob array holds its suffix links
// and its backoff array its adjusted counts (as bits: both 4 bytes), each read for an entry
// just before that entry's own value overwrites it. So the model's peak memory is its size.
void NGramModel::smooth_kneser_ney(const BuildOptions& opt) {
  const int N = order();
  const double V = static_cast<double>(vocab_size_without_bos());
  discounts_.assign(N, Discounts{});
  orders_[0].logprob.assign(orders_[0].size(), 0.0f);
  for (int n = 1; n <= N; ++n) {
    Order& o = orders_[n - 1];
    if (n < N) {
      // Order n+1's suffix links, from order n's (still in its logprob), into order n+1's logprob.
      Order& up = orders_[n];
      up.logprob.resize(up.size());
      for_each_suffix(
          n + 1, [&](uint32_t c) { return bits_of(o.logprob[c]); },
          [&](uint32_t e, uint32_t x) { up.logprob[e] = float_of_bits(x); });
      // N1+(. x): one per distinct left extension, i.e. per n+1-gram whose suffix is x.
      o.backoff.assign(o.size(), float_of_bits(0));
      for (float x : up.logprob) {
        float& count = o.backoff[bits_of(x)];
        count = float_of_bits(bits_of(count) + 1);
      }
      auto [first, last] = bos_range(n);  // no left extension but padding: the raw count
      for (uint32_t e = first; e < last; ++e) o.backoff[e] = float_of_bits(o.count[e]);
    }
    auto a = [&](uint32_t e) { return n == N ? o.count[e] : bits_of(o.backoff[e]); };
    Discounts& d = discounts_[n - 1];
    for (uint32_t e = 0; e < o.size(); ++e)
      if (a(e) >= 1 && a(e) <= 4) ++d.counts_of_counts[a(e) - 1];
    const uint64_t* t = d.counts_of_counts;
    bool ok = t[0] > 0 && t[1] > 0 && t[2] > 0;
    if (ok) {
      double Y = static_cast<double>(t[0]) / (t[0] + 2.0 * t[1]);
      for (int k = 1; k <= 3; ++k) {
        d.d[k - 1] = k - (k + 1) * Y * static_cast<double>(t[k]) / static_cast<double>(t[k - 1]);
        ok = ok && d.d[k - 1] >= 0 && d.d[k - 1] <= k;
      }
    }
    if (!ok) {
      d.fallback = true;
      for (int k = 0; k < 3; ++k) d.d[k] = opt.fallback[k];
      warnings_.push_back(str_cat("Kneser-Ney discounts for order ", n, " could not be estimated from the counts of ",
                                  "counts (n-grams with adjusted count 1..4: ", t[0], ", ", t[1], ", ", t[2], ", ", t[3],
                                  "), as on a small corpus; using D1=", opt.fallback[0], " D2=", opt.fallback[1],
                                  " D3+=", opt.fallback[2], " (KenLM's --discount_fallback)"));
    }
    auto discount = [&](uint32_t c) { return c == 0 ? 0.0 : d.d[std::min<uint32_t>(c, 3) - 1]; };

    Order* lo = n == 1 ? nullptr : &orders_[n - 2];
    const size_t n_ctx = lo ? lo->size() : 1;
    // Contexts are independent (each writes its own weight and its children's p), so the
    // threads share them; each value is computed as by one thread.
    parallel_for(static_cast<int64_t>(n_ctx), 1 << 12, [&](int64_t c_begin, int64_t c_end) {
      for (uint32_t c = static_cast<uint32_t>(c_begin); c < static_cast<uint32_t>(c_end); ++c) {
        auto [first, last] = children(n - 1, c);
        double total = 0, weighted = 0;
        for (uint32_t e = first; e < last; ++e) {
          total += a(e);
          weighted += discount(a(e));
        }
        // The context's weight replaces its adjusted count (used by the order below, done).
        const double gamma = total > 0 ? weighted / total : 0.0;
        if (lo) lo->backoff[c] = total > 0 ? log10f_of(gamma) : 0.0f;
        if (total == 0) continue;
        for (uint32_t e = first; e < last; ++e) {
          if (n == 1 && e == kBos) continue;
          const double back = lo ? lo->logprob[bits_of(o.logprob[e])] : 1.0 / V;
          const double ae = a(e);
          o.logprob[e] = static_cast<float>((ae - discount(a(e))) / total + gamma * back);
        }
      }
    });
    if (lo) to_log10(lo->logprob);
    if (n == N) to_log10(o.logprob);
    if (n == N && n > 1) std::vector<float>().swap(o.backoff);  // the top order has no weights
  }
  orders_[0].logprob[kBos] = 0.0f;  // KenLM writes 0 for <s>, which is never predicted
  if (N == 1) orders_[0].backoff.assign(orders_[0].size(), 0.0f);
}

// Interpolated Witten-Bell (Witten & Bell 1991; Chen & Goodman 1998, sec. 2.5), raw counts:
//   g(h) = N1+(h .) / (c(h) + N1+(h .)),  p(w | h) = (c(h w) + N1+(h .) p(w | h')) / (c(h) + N1+(h .)).
void NGramModel::smooth_witten_bell() {
  const int N = order();
  const double V = static_cast<double>(vocab_size_without_bos());
  std::vector<uint32_t> suffix;
  for (int n = 1; n <= N; ++n) {
    Order& o = orders_[n - 1];
    if (n >= 2) suffix = suffix_links(n, suffix);
    o.logprob.assign(o.size(), 0.0f);
    Order* lo = n == 1 ? nullptr : &orders_[n - 2];
    if (lo) lo->backoff.assign(lo->size(), 0.0f);
    const size_t n_ctx = lo ? lo->size() : 1;
    for (uint32_t c = 0; c < n_ctx; ++c) {
      auto [first, last] = children(n - 1, c);
      double total = 0, types = 0;  // c(h), N1+(h .)
      for (uint32_t e = first; e < last; ++e)
        if (o.count[e] > 0) {
          total += o.count[e];
          types += 1;
        }
      if (total == 0) continue;
      if (lo) lo->backoff[c] = log10f_of(types / (total + types));
      for (uint32_t e = first; e < last; ++e) {
        if (n == 1 && e == kBos) continue;
        const double back = lo ? lo->logprob[suffix[e]] : 1.0 / V;
        o.logprob[e] = static_cast<float>((o.count[e] + types * back) / (total + types));
      }
    }
    if (lo) to_log10(lo->logprob);
    if (n == N) to_log10(o.logprob);
  }
  orders_[0].logprob[kBos] = 0.0f;
  if (N == 1) orders_[0].backoff.assign(orders_[0].size(), 0.0f);
}

// Katz back-off (Katz 1987) with Good-Turing discounts (Good 1953), estimated as SRILM's ngram-count
// does (lm/src/Discount.cc GoodTuring::estimate; NgramLM.cc Ngram::estimate2, computeBOW), raw counts
// r = c(h w), n_r = the number of n-grams of the order seen r times:
//   K = min(katz_k, the order's largest count), 0 if n_1 = 0, lowered while n_{K+1} = 0 (SRILM's gtmax);
//   r* = (r+1) n_{r+1} / n_r,  d_r = (r*/r - (K+1) n_{K+1}/n_1) / (1 - (K+1) n_{K+1}/n_1)  for r <= K, else 1;
//   a d_r that is unusable (n_r = 0, r*/r > 1, d_r not finite or <= 3e-6) is 1, as in SRILM, and so is
//   a d_r > 1 (SRILM keeps it: it comes with (K+1) n_{K+1} > n_1, and would inflate the count).
//   p(w | h) = d_r r / T(h) if r > 0, else alpha(h) p(w | h'),
//   T(h) = c(h), plus 1 as many times as needed for the seen words to leave at least 3e-6 (SRILM's
//     Prob_Epsilon) unless every word was seen after h: "incrementing the denominator", a rule SRILM
//     credits to Doug Paul. A history whose continuations were all seen more than K times (in the KJV's
//     training verses "forefront" is followed by "of", 9 times, and by nothing else) thus keeps mass for a
//     word never seen after it (a held-out verse has "forefront ,");
//   alpha(h) = (1 - sum_{w seen after h} p(w | h)) / (1 - sum_{w seen after h} p(w | h')), each of the
//     two taken as 0 within 3e-6. Where the shorter history leaves nothing for the words unseen after h
//     (denominator 0) and h has mass left, the seen n-grams are scaled to sum to 1 and alpha(h) = 1.
// Unigrams: p(w) = d_r c(w) / T with the same rule for T; the left-over mass (0 below 3e-6) is shared by
// the unseen words (<unk>), or by all words if every word was seen (a corpus with <unk> in it).
// One departure from SRILM: where Good-Turing is disabled (K = 0) SRILM does not discount that order at
// all, and an event unseen there gets probability 0 (log10 -99); here the denominator rule still applies,
// so the model gives every word a probability > 0.
void NGramModel::smooth_katz(int K) {
  constexpr double kProbEpsilon = 3e-6;  // SRILM's Prob_Epsilon
  const int N = order();
  const uint64_t V = vocab_size_without_bos();
  discounts_.assign(N, Discounts{});
  std::vector<uint32_t> suffix;
  for (int n = 1; n <= N; ++n) {
    Order& o = orders_[n - 1];
    Discounts& info = discounts_[n - 1];
    o.logprob.assign(o.size(), 0.0f);
    if (n < N || n == 1) o.backoff.assign(o.size(), 0.0f);
    // No k at or above the largest count has n_{k+1} > 0, so the search starts below it: the same
    // discounts without a katz_k-sized table when katz_k is huge.
    uint32_t max_count = 0;
    for (uint32_t c : o.count) max_count = std::max(max_count, c);
    const int K_n = static_cast<int>(std::min<int64_t>(K, max_count));
    std::vector<uint64_t> nr(K_n + 2, 0);
    for (uint32_t c : o.count)
      if (c >= 1 && c <= static_cast<uint32_t>(K_n + 1)) ++nr[c];
    int k = nr[1] > 0 ? K_n : 0;
    while (k > 0 && nr[k + 1] == 0) --k;
    std::vector<double> dr(k + 1, 1.0);
    std::vector<int> unusable;
    if (k > 0) {
      const double common = (k + 1) * static_cast<double>(nr[k + 1]) / static_cast<double>(nr[1]);
      for (int r = 1; r <= k; ++r) {
        if (nr[r] == 0) {
          unusable.push_back(r);
          continue;
        }
        const double coeff0 = (r + 1) * static_cast<double>(nr[r + 1]) / (r * static_cast<double>(nr[r]));
        const double coeff = (coeff0 - common) / (1 - common);
        if (std::isfinite(coeff) && coeff > kProbEpsilon && coeff <= 1 && coeff0 <= 1)
          dr[r] = coeff;
        else
          unusable.push_back(r);
      }
    }
    info.katz_k = k;
    info.katz_counts_of_counts.assign(nr.begin() + 1, nr.end());
    info.katz_d.assign(dr.begin() + 1, dr.end());
    if (k == 0)
      warnings_.push_back(str_cat("Katz: Good-Turing discounts for order ", n, " could not be estimated (no n-gram ",
                                  "seen once, or none seen 2..", K_n + 1, " times, as on a small corpus); that ",
                                  "order's counts are not discounted, and each context keeps mass for unseen ",
                                  "words by SRILM's rule (its count total + 1)"));
    else if (k < K)
      warnings_.push_back(str_cat("Katz: Good-Turing discounts for order ", n, " use counts up to ", k, " instead of ",
                                  K, " (n_r = 0 for r = ", k + 2, "..", K_n + 1, "; SRILM lowers its gtmax the same ",
                                  "way)"));
    if (!unusable.empty()) {
      std::string rs;
      for (size_t i = 0; i < unusable.size() && i < 10; ++i) rs += str_cat(i ? ", " : "", unusable[i]);
      if (unusable.size() > 10) rs += str_cat(" and ", unusable.size() - 10, " more");
      warnings_.push_back(str_cat("Katz: Good-Turing discounts for order ", n, ": the coefficient of count ", rs,
                                  " is out of range (n_r = 0, r*/r > 1, or d_r outside (0, 1]), so those counts are ",
                                  "not discounted, as in SRILM"));
    }
    auto discounted = [&](uint32_t r) {
      return r <= static_cast<uint32_t>(k) ? dr[r] * r : static_cast<double>(r);
    };
    // T(h) from c(h): + 1 while the seen words (S: their discounted counts) leave less than kProbEpsilon.
    auto denominator = [&](double S, double total, uint64_t observed) {
      if (observed < V && S / total > 1 - kProbEpsilon) {
        ++info.katz_raised_contexts;
        do total += 1;
        while (S / total > 1 - kProbEpsilon);
      }
      return total;
    };

    if (n == 1) {
      double S = 0;
      uint64_t observed = 0;
      for (size_t w = 0; w < o.size(); ++w)
        if (w != kBos && o.count[w] > 0) {
          S += discounted(o.count[w]);
          ++observed;
        }
      const double T = denominator(S, root_total_, observed);
      double seen_mass = 0;
      for (size_t w = 0; w < o.size(); ++w)
        if (w != kBos && o.count[w] > 0) {
          const double p = discounted(o.count[w]) / T;
          o.logprob[w] = log10f_of(p);
          seen_mass += p;
        }
      double left = 1 - seen_mass;
      if (left < kProbEpsilon) left = 0;
      const uint64_t unseen = V - observed;
      const double share = left / static_cast<double>(unseen > 0 ? unseen : V);
      for (size_t w = 0; w < o.size(); ++w) {
        if (w == kBos) continue;
        if (o.count[w] == 0) o.logprob[w] = log10f_of(share);
        else if (unseen == 0) o.logprob[w] = log10f_of(discounted(o.count[w]) / T + share);
      }
      o.logprob[kBos] = 0.0f;
      continue;
    }
    suffix = suffix_links(n, suffix);
    Order& lo = orders_[n - 2];
    for (uint32_t c = 0; c < lo.size(); ++c) {
      if (lo.ctx_count[c] == 0) continue;
      auto [first, last] = children(n - 1, c);
      double S = 0;
      for (uint32_t e = first; e < last; ++e) S += discounted(o.count[e]);
      const double T = denominator(S, static_cast<double>(lo.ctx_count[c]), last - first);
      // p(w | h') by the back-off rule is the suffix's own p: a seen n-gram's suffix is seen.
      double seen = 0, seen_lower = 0;
      for (uint32_t e = first; e < last; ++e) {
        const double p = discounted(o.count[e]) / T;
        o.logprob[e] = log10f_of(p);
        seen += p;
        seen_lower += std::pow(10.0, static_cast<double>(lo.logprob[suffix[e]]));
      }
      double num = 1 - seen, den = 1 - seen_lower;
      if (std::fabs(num) < kProbEpsilon) num = 0;
      if (std::fabs(den) < kProbEpsilon) den = 0;
      float bow;
      if (den < kProbEpsilon && num > kProbEpsilon) {  // nothing to back off to: the seen take the left-over mass
        for (uint32_t e = first; e < last; ++e) o.logprob[e] = log10f_of(discounted(o.count[e]) / T / seen);
        bow = 0.0f;
      } else if (num < 0) {
        bow = -std::numeric_limits<float>::infinity();  // not reached: discounted counts never exceed T
      } else if (den <= 0) {
        bow = 0.0f;  // no mass left, and none to give
      } else {
        bow = log10f_of(num / den);  // -inf only where every word was seen after h
      }
      lo.backoff[c] = bow;
    }
  }
}

// Maximum likelihood p(w | h) = c(h w) / c(h), and add-k (Laplace for k = 1)
// p(w | h) = (c(h w) + k) / (c(h) + k V). A history never seen backs off to the shorter one.
// These are scored from the counts (direct_log10_prob); the table holds the seen n-grams' values
// and, for MLE, back-off weight 0 (log10 = -inf) after a seen history, so an ARPA file says the same.
void NGramModel::smooth_mle_add_k(double k) {
  const bool add = smoothing_ == Smoothing::AddK;
  const double V = static_cast<double>(vocab_size_without_bos());
  const int N = order();
  for (int n = 1; n <= N; ++n) {
    Order& o = orders_[n - 1];
    o.logprob.assign(o.size(), 0.0f);
    if (n < N || n == 1) o.backoff.assign(o.size(), 0.0f);
    Order* lo = n == 1 ? nullptr : &orders_[n - 2];
    const size_t n_ctx = lo ? lo->size() : 1;
    for (uint32_t c = 0; c < n_ctx; ++c) {
      const double h = lo ? static_cast<double>(lo->ctx_count[c]) : root_total_;
      if (lo && lo->ctx_count[c] > 0 && !add) lo->backoff[c] = -std::numeric_limits<float>::infinity();
      auto [first, last] = children(n - 1, c);
      for (uint32_t e = first; e < last; ++e) {
        const double count = static_cast<double>(o.count[e]);
        o.logprob[e] = log10f_of(add ? (count + k) / (h + k * V) : count / h);
      }
    }
    if (n == 1) o.logprob[kBos] = 0.0f;
  }
}

}  // namespace seqlab::lm
