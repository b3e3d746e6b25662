// Seq2SeqAttention for C++ users, the twin of python/seqlab/nn/seq2seq_attention.py: the same
// constructor arguments, parameter names (W; query_proj, key_proj, v), shapes, initialisation in
// the same order, and repr; forward is one call of the functional in ops/seq2seq_attention.hpp
// (DESIGN.md, "The twin policy"). cpp/src/nn/seq2seq_attention.cpp; tests: tests/test_nn_twins.py,
// cpp/tests/test_seq2seq_attention.cpp.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "seqlab/arg.hpp"
#include "seqlab/nn/layers.hpp"
#include "seqlab/nn/module.hpp"
#include "seqlab/ops/seq2seq_attention.hpp"

namespace seqlab::nn {

// A decoder state (the query) attends over encoder states (the keys, and the values, by default
// the keys). Parameters by score:
//   dot, scaled, linear   none (key_size must equal query_size)
//   general               W (query_size, key_size) ~ kaiming_uniform(a=√5), as a Linear(key_size, query_size)'s weight
//   additive              query_proj = Linear(query_size, hidden_size, bias=False)   W₁
//                         key_proj = Linear(key_size, hidden_size, bias=bias)       W₂, b
//                         v = Linear(hidden_size, 1, bias=False)                    vᵀ
// key_size defaults to query_size, hidden_size (additive only) to query_size; bias concerns
// additive only (the other scores have no bias: a constant added to a row of scores does not
// change its softmax).
struct Seq2SeqAttentionOptions {
  explicit Seq2SeqAttentionOptions(int64_t query_size) : query_size_(query_size) {}

  SEQLAB_ARG(int64_t, query_size);
  SEQLAB_ARG(std::optional<int64_t>, key_size);  // unset: query_size
  SEQLAB_ARG(std::string, score) = "dot";        // or a name seq2seq_score (ops/seq2seq_attention.hpp) knows
  SEQLAB_ARG(std::optional<int64_t>, hidden_size);  // additive only; unset: query_size
  SEQLAB_ARG(bool, bias) = true;                    // additive only: key_proj's bias
  SEQLAB_ARG(Dtype, dtype) = Dtype::Float32;
};

class Seq2SeqAttention : public Module {
 public:
  explicit Seq2SeqAttention(const Seq2SeqAttentionOptions& options);
  explicit Seq2SeqAttention(int64_t query_size) : Seq2SeqAttention(Seq2SeqAttentionOptions(query_size)) {}
  // query (B, Dq) or (B, T, Dq), keys (B, S, Dk), values (B, S, Dv) or undefined = keys,
  // key_padding_mask (B, S) bool, True = padding. Returns (context, weights).
  Seq2SeqAttentionResult forward(const Tensor& query, const Tensor& keys, const Tensor& values = Tensor(),
                                 const Tensor& key_padding_mask = Tensor());
  void reset_parameters();  // W; the Linear children have their own, as in torch
  std::string extra_repr() const override;

  const Seq2SeqAttentionOptions options;
  // Resolved from the options: the sizes the defaults stand for, and the score (an alias such as
  // "bilinear" read as its name).
  const int64_t key_size;
  const Seq2SeqScore score;
  const int64_t hidden_size;  // 0 unless additive
  Tensor W;                                        // general
  std::shared_ptr<Linear> query_proj, key_proj, v;  // additive
};

}  // namespace seqlab::nn
