// GloVe (Pennington, Socher & Manning 2014): weighted least squares on log co-occurrence
// counts, trained with AdaGrad exactly as Stanford's glove.c. cpp/src/embed/glove.cpp;
// Python: seqlab.embed.GloVe (python/seqlab/embed/glove.py); tests/test_glove.py.
#pragma once
#include <cstdint>
#include <vector>

#include "seqlab/embed/cooccur.hpp"

namespace seqlab::embed {

struct GloveOptions {
  int64_t vector_size = 100;    // d
  double x_max = 100.0;         // f(x) = min(1, (x / x_max)^alpha)
  double alpha = 0.75;
  double learning_rate = 0.05;  // eta, AdaGrad's initial step
  int workers = 2;              // threads
  uint64_t seed = 1;            // initial vectors and the order of the nonzeros
};

// The model: word vectors W, context vectors C (the paper's w~), biases bw, bc, and AdaGrad's
// accumulators of squared steps (glove.c's gradsq, started at 1). All (V, d) or (V,), row-major.
struct GloveParameters {
  std::vector<double> W, C, bw, bc;
  std::vector<double> gW, gC, gbw, gbc;
};

class GloveTrainer {
 public:
  // Validates the options, draws W, C, bw, bc uniformly in [-0.5, 0.5) / d (as glove.c) and
  // shuffles the nonzeros once (seeded).
  GloveTrainer(Cooccurrence X, const GloveOptions& options);

  // One pass of AdaGrad over every nonzero; returns the mean of J_ij over the pass, each
  // taken just before its update (the "cost" glove.c prints).
  //
  // Deterministic for a given seed and number of workers (DSGD, Gemulla et al. 2011): words
  // and contexts are split into P = workers strata by id mod P, and the pass runs P rounds;
  // in round s worker p takes the nonzeros with word stratum p and context stratum
  // (p + s) mod P, so no two workers ever touch the same row, and each block keeps the
  // shuffled order. With one worker this is plain sequential SGD in the shuffled order.
  double train_epoch();

  // J = sum_ij 1/2 f(X_ij) (w_i . c_j + bw_i + bc_j - log X_ij)^2 at the current parameters,
  // and its gradient (same layout as the parameters; the accumulators are left empty).
  double cost() const;
  GloveParameters gradient() const;

  const GloveParameters& parameters() const { return p_; }
  void set_parameters(GloveParameters p);  // checks the sizes
  // The nonzeros (indices into X) in the order one pass visits them, block after block.
  std::vector<int64_t> order() const;
  const Cooccurrence& cooccurrence() const { return X_; }
  const GloveOptions& options() const { return o_; }

 private:
  double train_block(const std::vector<int64_t>& block);

  Cooccurrence X_;
  GloveOptions o_;
  GloveParameters p_;
  int P_ = 1;
  std::vector<std::vector<int64_t>> blocks_;  // blocks_[p * P + q]: word stratum p, context stratum q
};

}  // namespace seqlab::embed
