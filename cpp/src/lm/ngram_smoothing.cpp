// The smoothings of NGramModel. Each fills, for every n-gram w_1..w_n, logprob = log10 p(w_n | w_1..w_{n-1})
// and, for every n-gram that is a context, backoff = log10 of its back-off weight, so that the
// ARPA back-off rule   p(w | h) = p*(h w) if h w was seen, else bow(h) * p(w | h minus its first word)
// reproduces the smoothed distribution (for MLE and add-k the scorer also reads the counts).
// V below is the vocabulary without <s> (<unk> and </s> included): the support of p(. | h).
#include <algorithm>
#include <limits>
#include <cmath>

#include "seqlab/check.hpp"
#include "seqlab/lm/ngram.hpp"

namespace seqlab::lm {
namespace {

float log10f_of(double p) { return p > 0 ? static_cast<float>(std::log10(p)) : -std::numeric_limits<float>::infinity(); }

// Per-context sums over the n-grams of one order (the contexts are the entries of the order below).
// Per context h (an entry of the order below): the total of the (adjusted) counts c(h x)
// and a weighted number of continuations, sum over the x seen after h of weight(c(h x)):
// KN's discount D(c) gives g(h)'s numerator, weight 1 gives Witten-Bell's N1+(h .).
// Totals are 32-bit: they add counts of one order, whose sum is below 2^32 (checked by build).
struct ContextSums {
  std::vector<uint32_t> total;
  std::vector<double> weighted;
  explicit ContextSums(size_t n) : total(n, 0), weighted(n, 0.0) {}
  void add(size_t c, uint32_t count, double weight) {
    if (count == 0) return;
    total[c] += count;
    weighted[c] += weight;
  }
};

}  // namespace

// Interpolated modified Kneser-Ney (Chen & Goodman 1998) with KenLM's estimates (Heafield et al. 2013):
//   a(h w)   adjusted count: raw at the top order and for n-grams starting with <s>, else N1+(. h w)
//   D_k      = k - (k+1) Y t_{k+1} / t_k,  Y = t_1 / (t_1 + 2 t_2),  t_k = #n-grams of the order with a = k
//   u(w | h) = (a(h w) - D(a(h w))) / sum_x a(h x)
//   g(h)     = (D1 N1(h .) + D2 N2(h .) + D3 N3+(h .)) / sum_x a(h x)
//   p(w | h) = u(w | h) + g(h) p(w | h'),   h' = h without its first word;  p(w | empty) ends in 1/V.
void NGramModel::smooth_kneser_ney(const BuildOptions& opt, const std::vector<std::vector<uint32_t>>& adjusted) {
  const int N = order();
  const double V = static_cast<double>(vocab_size_without_bos());
  discounts_.assign(N, Discounts{});
  std::vector<float> lower;  // interpolated p of the previous order, per entry
  for (int n = 1; n <= N; ++n) {
    Order& o = orders_[n - 1];
    link(n);
    const std::vector<uint32_t>& a = n == N ? o.count : adjusted[n - 1];
    Discounts& d = discounts_[n - 1];
    for (size_t e = 0; e < a.size(); ++e)
      if (a[e] >= 1 && a[e] <= 4) ++d.counts_of_counts[a[e] - 1];
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
    auto ctx = [&](size_t e) -> size_t { return n == 1 ? 0 : context_of(n, e); };

    const size_t n_ctx = n == 1 ? 1 : orders_[n - 2].table.size();
    ContextSums sums(n_ctx);
    for (size_t e = 0; e < o.table.size(); ++e) sums.add(ctx(e), a[e], discount(a[e]));
    auto gamma = [&](size_t c) { return sums.weighted[c] / sums.total[c]; };
    if (n > 1)
      for (size_t c = 0; c < n_ctx; ++c)
        if (sums.total[c] > 0) orders_[n - 2].backoff[c] = log10f_of(gamma(c));

    std::vector<float> p(o.table.size(), 0.0f);
    for (size_t e = 0; e < o.table.size(); ++e) {
      if (n == 1 && e == kBos) continue;
      const size_t c = ctx(e);
      double u = (static_cast<double>(a[e]) - discount(a[e])) / sums.total[c];
      double back = n == 1 ? 1.0 / V : lower[suffix_of(n, e)];
      double pe = u + gamma(c) * back;
      p[e] = static_cast<float>(pe);
      o.logprob[e] = log10f_of(pe);
    }
    if (n == 1) o.logprob[kBos] = 0.0f;  // KenLM writes 0 for <s>, which is never predicted
    unlink(n);
    lower = std::move(p);
  }
}

// Interpolated Witten-Bell (Witten & Bell 1991; Chen & Goodman 1998, sec. 2.5), raw counts:
//   g(h) = N1+(h .) / (c(h) + N1+(h .)),  p(w | h) = (c(h w) + N1+(h .) p(w | h')) / (c(h) + N1+(h .)).
void NGramModel::smooth_witten_bell() {
  const int N = order();
  const double V = static_cast<double>(vocab_size_without_bos());
  std::vector<float> lower;
  for (int n = 1; n <= N; ++n) {
    Order& o = orders_[n - 1];
    link(n);
    const size_t n_ctx = n == 1 ? 1 : orders_[n - 2].table.size();
    auto ctx = [&](size_t e) -> size_t { return n == 1 ? 0 : context_of(n, e); };
    ContextSums sums(n_ctx);  // weighted = N1+(h .)
    for (size_t e = 0; e < o.table.size(); ++e) sums.add(ctx(e), o.count[e], 1.0);
    if (n > 1)
      for (size_t c = 0; c < n_ctx; ++c)
        if (sums.total[c] > 0)
          orders_[n - 2].backoff[c] = log10f_of(sums.weighted[c] / (sums.total[c] + sums.weighted[c]));
    std::vector<float> p(o.table.size(), 0.0f);
    for (size_t e = 0; e < o.table.size(); ++e) {
      if (n == 1 && e == kBos) continue;
      const size_t c = ctx(e);
      const double types = sums.weighted[c], total = sums.total[c];
      double back = n == 1 ? 1.0 / V : lower[suffix_of(n, e)];
      double pe = (static_cast<double>(o.count[e]) + types * back) / (total + types);
      p[e] = static_cast<float>(pe);
      o.logprob[e] = log10f_of(pe);
    }
    if (n == 1) o.logprob[kBos] = 0.0f;
    unlink(n);
    lower = std::move(p);
  }
}

// Katz back-off (Katz 1987) with Good-Turing discounts (Good 1953), raw counts r = c(h w):
//   r* = (r+1) n_{r+1} / n_r,   d_r = (r*/r - (K+1) n_{K+1}/n_1) / (1 - (K+1) n_{K+1}/n_1)  for r <= K, else 1
//   p(w | h) = d_r r / c(h) if r > 0, else alpha(h) p(w | h'),
//   alpha(h) = (1 - sum_{w seen after h} p(w | h)) / (1 - sum_{w seen after h} p(w | h')).
// Unigrams: p(w) = d_r c(w) / c, and the left-over mass is shared by the unseen words (<unk>).
// Where Good-Turing fails for an order (some n_r = 0, or d_r outside (0, 1]), K is lowered; at
// K = 0 the order uses absolute discounting by 0.5 instead, with a warning.
// Where the left-over mass has nowhere to go, it is not lost (as SRILM): with no unseen word
// (a corpus with <unk> in it) the unigrams share it equally; where the shorter history leaves
// nothing for the words unseen after h (denominator 0, e.g. p(b | a) = 1 on a tiny corpus),
// the seen n-grams of h are scaled to sum to 1 and alpha(h) = 0.
void NGramModel::smooth_katz(int K) {
  const int N = order();
  for (int n = 1; n <= N; ++n) {
    Order& o = orders_[n - 1];
    std::vector<uint64_t> nr(K + 2, 0);
    for (size_t e = 0; e < o.table.size(); ++e)
      if (o.count[e] >= 1 && o.count[e] <= static_cast<uint32_t>(K + 1)) ++nr[o.count[e]];
    std::vector<double> dr;
    int k = K;
    for (; k >= 1; --k) {
      bool ok = true;
      for (int r = 1; r <= k + 1; ++r) ok = ok && nr[r] > 0;
      if (!ok) continue;
      const double common = (k + 1) * static_cast<double>(nr[k + 1]) / nr[1];
      dr.assign(k + 1, 1.0);
      for (int r = 1; r <= k; ++r) {
        double rstar = (r + 1) * static_cast<double>(nr[r + 1]) / nr[r];
        dr[r] = (rstar / r - common) / (1 - common);
        ok = ok && dr[r] > 0 && dr[r] <= 1;
      }
      if (ok) break;
    }
    if (k < K)
      warnings_.push_back(k >= 1 ? str_cat("Katz: Good-Turing discounts for order ", n, " use counts up to ", k,
                                           " instead of ", K, " (counts of counts too sparse)")
                                 : str_cat("Katz: Good-Turing discounts for order ", n, " could not be estimated ",
                                           "(counts of counts too sparse, as on a small corpus); using absolute ",
                                           "discounting by 0.5 for that order"));
    auto discounted = [&](uint32_t r) {
      if (k >= 1) return r <= static_cast<uint32_t>(k) ? dr[r] * r : static_cast<double>(r);
      return r - 0.5;
    };

    if (n == 1) {
      double seen_mass = 0;
      size_t unseen = 0;
      for (size_t w = 0; w < o.table.size(); ++w) {
        if (w == kBos) continue;
        if (o.count[w] > 0) {
          double p = discounted(o.count[w]) / root_total_;
          o.logprob[w] = log10f_of(p);
          seen_mass += p;
        } else {
          ++unseen;
        }
      }
      const double share = (1 - seen_mass) / static_cast<double>(unseen > 0 ? unseen : vocab_size_without_bos());
      for (size_t w = 0; w < o.table.size(); ++w) {
        if (w == kBos) continue;
        if (o.count[w] == 0) o.logprob[w] = log10f_of(share);
        else if (unseen == 0) o.logprob[w] = log10f_of(discounted(o.count[w]) / root_total_ + share);
      }
      o.logprob[kBos] = 0.0f;
      continue;
    }
    Order& lo = orders_[n - 2];
    std::vector<double> seen(lo.table.size(), 0.0), seen_lower(lo.table.size(), 0.0);
    for (size_t e = 0; e < o.table.size(); ++e) {
      const size_t c = context_of(n, e);
      double p = discounted(o.count[e]) / static_cast<double>(lo.ctx_count[c]);
      o.logprob[e] = log10f_of(p);
      seen[c] += p;
      // p(w | h') by the back-off rule: h' w may itself be unseen at order n-1.
      const uint32_t* key = o.table.key(e);
      seen_lower[c] += std::pow(10.0, log10_prob(key + 1, n - 2, key[n - 1]));
    }
    bool rescale = false;
    for (size_t c = 0; c < lo.table.size(); ++c) {
      if (lo.ctx_count[c] == 0) continue;
      double num = 1 - seen[c], den = 1 - seen_lower[c];
      lo.backoff[c] = den > 1e-12 && num > 0 ? log10f_of(num / den) : -std::numeric_limits<float>::infinity();
      if (!(den > 1e-12) && num > 1e-12) {
        rescale = true;
        seen[c] = -seen[c];  // marks the context whose seen n-grams take the left-over mass
      }
    }
    if (rescale)
      for (size_t e = 0; e < o.table.size(); ++e) {
        const size_t c = context_of(n, e);
        if (seen[c] < 0) o.logprob[e] = log10f_of(discounted(o.count[e]) / lo.ctx_count[c] / -seen[c]);
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
  for (int n = 1; n <= order(); ++n) {
    Order& o = orders_[n - 1];
    for (size_t e = 0; e < o.table.size(); ++e) {
      if (n == 1 && e == kBos) continue;
      double h = n == 1 ? root_total_ : static_cast<double>(orders_[n - 2].ctx_count[context_of(n, e)]);
      double c = static_cast<double>(o.count[e]);
      o.logprob[e] = log10f_of(add ? (c + k) / (h + k * V) : c / h);
    }
    if (n == 1) o.logprob[kBos] = 0.0f;
    if (!add && n > 1)
      for (size_t c = 0; c < orders_[n - 2].table.size(); ++c)
        if (orders_[n - 2].ctx_count[c] > 0) orders_[n - 2].backoff[c] = -std::numeric_limits<float>::infinity();
  }
}

}  // namespace seqlab::lm
