// Seq2SeqAttention for C++ users, the twin of python/seqlab/nn/seq2seq_attention.py: the same
// constructor arguments, parameter names (W; query_proj, key_proj, v), shapes, initialisation in
// the same order, and repr; forward is one call of the functional in ops/seq2seq_attention.hpp
// (DESIGN.md, "The twin policy"). cpp/src/nn/seq2seq_attention.cpp; tests: tests/test_nn_twins.py,
// cpp/tests/test_seq2seq_attention.cpp.
#pragma once
#include <memory>
#include <optional>
#include <string>

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
class Seq2SeqAttention : public Module {
 public:
  Seq2SeqAttention(int64_t query_size, std::optional<int64_t> key_size = std::nullopt,
                   const std::string& score = "dot", std::optional<int64_t> hidden_size = std::nullopt,
                   bool bias = true, Dtype dtype = Dtype::Float32);
  // query (B, Dq) or (B, T, Dq), keys (B, S, Dk), values (B, S, Dv) or undefined = keys,
  // key_padding_mask (B, S) bool, True = padding. Returns (context, weights).
  Seq2SeqAttentionResult forward(const Tensor& query, const Tensor& keys, const Tensor& values = Tensor(),
                                 const Tensor& key_padding_mask = Tensor());
  void reset_parameters();  // W; the Linear children have their own, as in torch
  std::string extra_repr() const override;

  const int64_t query_size, key_size;
  const Seq2SeqScore score;
  const int64_t hidden_size;  // 0 unless additive
  const bool bias;
  Tensor W;                                        // general
  std::shared_ptr<Linear> query_proj, key_proj, v;  // additive
};

}  // namespace seqlab::nn
