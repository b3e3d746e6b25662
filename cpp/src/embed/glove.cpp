// GloVe training (seqlab/embed/glove.hpp): Pennington et al. 2014, eq. (8), and the AdaGrad
// loop of Stanford's glove.c (train_thread), which the tests re-derive in NumPy.
#include "seqlab/embed/glove.hpp"

#include <cmath>
#include <exception>
#include <random>
#include <thread>

#include "seqlab/check.hpp"
#include "seqlab/parallel.hpp"

namespace seqlab::embed {
namespace {

// Weighting function, eq. (9):  f(x) = (x / x_max)^alpha if x < x_max, else 1.
double weight(double x, double x_max, double alpha) { return x < x_max ? std::pow(x / x_max, alpha) : 1.0; }

// A uniform integer in [0, n) from 64 random bits (multiply-shift, no modulo).
uint64_t below(std::mt19937_64& rng, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

GloveTrainer::GloveTrainer(Cooccurrence X, const GloveOptions& o) : X_(std::move(X)), o_(o) {
  SEQLAB_CHECK_VALUE(o.vector_size >= 1, "GloVe: vector_size must be >= 1, got ", o.vector_size);
  SEQLAB_CHECK_VALUE(o.x_max > 0 && std::isfinite(o.x_max), "GloVe: x_max must be > 0 and finite, got ", o.x_max);
  SEQLAB_CHECK_VALUE(o.alpha >= 0 && std::isfinite(o.alpha), "GloVe: alpha must be >= 0 and finite, got ", o.alpha);
  SEQLAB_CHECK_VALUE(o.learning_rate > 0 && std::isfinite(o.learning_rate),
                     "GloVe: learning_rate must be > 0 and finite, got ", o.learning_rate);
  SEQLAB_CHECK_VALUE(o.workers >= 1 && o.workers <= max_threads(), "GloVe: workers must be from 1 to ", max_threads(),
                     " (4 per CPU), got ", o.workers);
  const int64_t V = X_.n_words, d = o.vector_size, nnz = X_.nnz();
  SEQLAB_CHECK_VALUE(X_.row.size() == X_.value.size() && X_.col.size() == X_.value.size(),
                     "GloVe: row, col and value must have the same length");
  for (int64_t e = 0; e < nnz; ++e) {
    SEQLAB_CHECK_VALUE(X_.row[e] >= 0 && X_.row[e] < V && X_.col[e] >= 0 && X_.col[e] < V,
                       "GloVe: co-occurrence entry ", e, " (", X_.row[e], ", ", X_.col[e], ") is outside the ", V,
                       " x ", V, " matrix");
    SEQLAB_CHECK_VALUE(X_.value[e] > 0 && std::isfinite(X_.value[e]), "GloVe: co-occurrence entry ", e,
                       " has value ", X_.value[e], "; counts must be positive (log X is fitted)");
  }

  // glove.c initialisation: every weight and bias uniform in [-0.5, 0.5) / d; gradsq = 1.
  std::mt19937_64 rng(o.seed);
  auto draw = [&](std::vector<double>& v, int64_t n) {
    v.resize(n);
    for (auto& x : v) x = (uniform01(rng) - 0.5) / static_cast<double>(d);
  };
  draw(p_.W, V * d);
  draw(p_.C, V * d);
  draw(p_.bw, V);
  draw(p_.bc, V);
  p_.gW.assign(V * d, 1.0);
  p_.gC.assign(V * d, 1.0);
  p_.gbw.assign(V, 1.0);
  p_.gbc.assign(V, 1.0);

  // Shuffle the nonzeros once (glove's shuffle.c), then bucket them by (word, context) stratum.
  std::vector<int64_t> perm(nnz);
  for (int64_t e = 0; e < nnz; ++e) perm[e] = e;
  for (int64_t e = nnz - 1; e > 0; --e) std::swap(perm[e], perm[below(rng, static_cast<uint64_t>(e + 1))]);
  P_ = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(o.workers, V)));
  blocks_.assign(static_cast<size_t>(P_) * P_, {});
  for (int64_t e : perm) blocks_[(X_.row[e] % P_) * P_ + X_.col[e] % P_].push_back(e);
}

std::vector<int64_t> GloveTrainer::order() const {
  std::vector<int64_t> out;
  for (int s = 0; s < P_; ++s)
    for (int p = 0; p < P_; ++p) {
      const auto& b = blocks_[p * P_ + (p + s) % P_];
      out.insert(out.end(), b.begin(), b.end());
    }
  return out;
}

// The inner loop of glove.c, for the nonzeros of one block.
double GloveTrainer::train_block(const std::vector<int64_t>& block) {
  const int64_t d = o_.vector_size;
  const double eta = o_.learning_rate;
  double total = 0.0;
  for (int64_t e : block) {
    const int64_t i = X_.row[e], j = X_.col[e];
    const double x = X_.value[e];
    // four distinct rows (W and C are separate arrays), so the loops below may vectorise
    double* __restrict w = &p_.W[i * d];
    double* __restrict c = &p_.C[j * d];
    double* __restrict gw = &p_.gW[i * d];
    double* __restrict gc = &p_.gC[j * d];
    // J_ij = 1/2 f(x) diff^2,  diff = w . c + bw_i + bc_j - log x
    double diff = p_.bw[i] + p_.bc[j] - std::log(x);
    for (int64_t k = 0; k < d; ++k) diff += w[k] * c[k];
    double fdiff = weight(x, o_.x_max, o_.alpha) * diff;
    if (!std::isfinite(diff) || !std::isfinite(fdiff)) continue;  // glove.c skips such updates
    total += 0.5 * fdiff * diff;
    // dJ/dw = f diff c,  dJ/dc = f diff w,  dJ/dbw = dJ/dbc = f diff.
    // AdaGrad as glove.c: step = eta g / sqrt(G), then G += (eta g)^2 (G starts at 1).
    fdiff *= eta;
    for (int64_t k = 0; k < d; ++k) {
      const double step_w = fdiff * c[k];  // eta dJ/dw_k, from the values before this update
      const double step_c = fdiff * w[k];
      w[k] -= step_w / std::sqrt(gw[k]);
      c[k] -= step_c / std::sqrt(gc[k]);
      gw[k] += step_w * step_w;
      gc[k] += step_c * step_c;
    }
    p_.bw[i] -= fdiff / std::sqrt(p_.gbw[i]);
    p_.bc[j] -= fdiff / std::sqrt(p_.gbc[j]);
    p_.gbw[i] += fdiff * fdiff;
    p_.gbc[j] += fdiff * fdiff;
  }
  return total;
}

double GloveTrainer::train_epoch() {
  if (X_.nnz() == 0) return 0.0;
  std::vector<double> totals(static_cast<size_t>(P_) * P_, 0.0);
  for (int s = 0; s < P_; ++s) {
    // round s: worker p owns word stratum p and context stratum (p + s) mod P -- disjoint rows
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(P_);
    auto run = [&](int p) {
      try {
        const int b = p * P_ + (p + s) % P_;
        totals[b] = train_block(blocks_[b]);
      } catch (...) {
        errors[p] = std::current_exception();
      }
    };
    for (int p = 1; p < P_; ++p) threads.emplace_back(run, p);
    run(0);
    for (auto& t : threads) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
  double total = 0.0;
  for (double t : totals) total += t;  // a fixed order: deterministic
  return total / static_cast<double>(X_.nnz());
}

double GloveTrainer::cost() const {
  const int64_t d = o_.vector_size;
  double J = 0.0;
  for (int64_t e = 0; e < X_.nnz(); ++e) {
    const int64_t i = X_.row[e], j = X_.col[e];
    double diff = p_.bw[i] + p_.bc[j] - std::log(X_.value[e]);
    for (int64_t k = 0; k < d; ++k) diff += p_.W[i * d + k] * p_.C[j * d + k];
    J += 0.5 * weight(X_.value[e], o_.x_max, o_.alpha) * diff * diff;
  }
  return J;
}

GloveParameters GloveTrainer::gradient() const {
  const int64_t V = X_.n_words, d = o_.vector_size;
  GloveParameters g;
  g.W.assign(V * d, 0.0);
  g.C.assign(V * d, 0.0);
  g.bw.assign(V, 0.0);
  g.bc.assign(V, 0.0);
  for (int64_t e = 0; e < X_.nnz(); ++e) {
    const int64_t i = X_.row[e], j = X_.col[e];
    double diff = p_.bw[i] + p_.bc[j] - std::log(X_.value[e]);
    for (int64_t k = 0; k < d; ++k) diff += p_.W[i * d + k] * p_.C[j * d + k];
    const double fdiff = weight(X_.value[e], o_.x_max, o_.alpha) * diff;
    for (int64_t k = 0; k < d; ++k) {
      g.W[i * d + k] += fdiff * p_.C[j * d + k];
      g.C[j * d + k] += fdiff * p_.W[i * d + k];
    }
    g.bw[i] += fdiff;
    g.bc[j] += fdiff;
  }
  return g;
}

void GloveTrainer::set_parameters(GloveParameters p) {
  const size_t V = static_cast<size_t>(X_.n_words), Vd = V * static_cast<size_t>(o_.vector_size);
  auto check = [](const std::vector<double>& v, size_t n, const char* name) {
    SEQLAB_CHECK_VALUE(v.size() == n, "GloVe.set_parameters: ", name, " has ", v.size(), " values, expected ", n);
  };
  check(p.W, Vd, "W");
  check(p.C, Vd, "C");
  check(p.bw, V, "bw");
  check(p.bc, V, "bc");
  check(p.gW, Vd, "gW");
  check(p.gC, Vd, "gC");
  check(p.gbw, V, "gbw");
  check(p.gbc, V, "gbc");
  p_ = std::move(p);
}

}  // namespace seqlab::embed
