// Attention for RNN encoder-decoders (seq2seq): a query (the decoder state) scores every key (the
// encoder states), a softmax over the source turns the scores into weights, and the context is the
// weighted sum of the values. One functional, composed of ordinary ops, that the Python module
// (python/seqlab/nn/seq2seq_attention.py) and the C++ module (nn/seq2seq_attention.hpp) both call.
// cpp/src/ops/seq2seq_attention.cpp; tests: tests/test_seq2seq_attention.py,
// cpp/tests/test_seq2seq_attention.cpp.
//
//   score(q, k_j):
//     dot       qᵀ k_j                              (Luong et al. 2015, §3.1)
//     scaled    qᵀ k_j / √d,  d = size of q and k    (the scaling of Vaswani et al. 2017, §3.2.1)
//     general   qᵀ W k_j,  W: (Dq, Dk)               (Luong et al. 2015; alias "bilinear")
//     additive  vᵀ tanh(W₁ q + W₂ k_j + b)            (Bahdanau et al. 2015; alias "concat")
//               W₁: (H, Dq), W₂: (H, Dk), b: (H) on the key side, v: (H)
//     linear    qᵀ k_j, and no softmax: the weights are the raw scores
//   a_j = softmax_j(score(q, k_j))  over the positions j that are not padding (linear: a_j = score)
//   context = Σ_j a_j v_j
#pragma once
#include <string>
#include <utility>

#include "seqlab/autograd.hpp"

namespace seqlab {

enum class Seq2SeqScore { Dot, Scaled, General, Additive, Linear };

// "dot", "scaled", "general" (or "bilinear"), "additive" (or "concat"), "linear"; anything else
// is a ValueError (std::invalid_argument) listing the names.
Seq2SeqScore seq2seq_score(const std::string& name);
const char* seq2seq_score_name(Seq2SeqScore score);  // the canonical name: "general" for "bilinear"

// The module's constructor checks, shared by both twins (ValueError): sizes >= 1, and for the
// scores without parameters (dot, scaled, linear) key_size == query_size.
void check_seq2seq_attention_args(int64_t query_size, int64_t key_size, Seq2SeqScore score, int64_t hidden_size);

// A score's parameters; the ones a score does not use stay undefined.
struct Seq2SeqAttentionParams {
  Tensor W;             // general: (Dq, Dk)
  Tensor query_weight;  // additive: W₁ (H, Dq)
  Tensor key_weight;    // additive: W₂ (H, Dk)
  Tensor key_bias;      // additive: b (H) or undefined
  Tensor v;             // additive: (H) or (1, H), the weight of a Linear(H, 1)
};

struct Seq2SeqAttentionResult {
  Tensor context;  // (B, Dv) for a (B, Dq) query, (B, T, Dv) for (B, T, Dq)
  Tensor weights;  // (B, S) or (B, T, S)
};

// query (B, Dq): one decoder step, or (B, T, Dq): every step at once; keys (B, S, Dk);
// values (B, S, Dv), undefined = the keys; key_padding_mask (B, S) bool, True = padding
// (ignored), as torch.nn.MultiheadAttention's, or undefined.
// A row whose keys are all padding (or S = 0) attends to nothing: its weights are 0 and its
// context is 0 (not the NaN of a softmax over -inf only), and no gradient flows through it.
Seq2SeqAttentionResult seq2seq_attention(const Tensor& query, const Tensor& keys, const Tensor& values,
                                         Seq2SeqScore score, const Seq2SeqAttentionParams& params = {},
                                         const Tensor& key_padding_mask = Tensor());

}  // namespace seqlab
