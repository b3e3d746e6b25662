// Seq2SeqAttention for C++ users; the Python twin is python/seqlab/nn/seq2seq_attention.py. Both
// register the same parameters in the same order, initialise them with the same nn::init calls and
// call seq2seq_attention (cpp/src/ops/seq2seq_attention.cpp). Tests: tests/test_nn_twins.py.
#include "seqlab/nn/seq2seq_attention.hpp"

#include <cmath>

#include "seqlab/nn/init.hpp"

namespace seqlab::nn {

Seq2SeqAttention::Seq2SeqAttention(const Seq2SeqAttentionOptions& options_)
    : Module("Seq2SeqAttention"), options(options_), key_size(options.key_size().value_or(options.query_size())),
      score(seq2seq_score(options.score())),
      hidden_size(score == Seq2SeqScore::Additive ? options.hidden_size().value_or(options.query_size()) : 0) {
  const int64_t query_size = options.query_size();
  const Dtype dtype = options.dtype();
  check_seq2seq_attention_args(query_size, key_size, score, hidden_size);
  if (score == Seq2SeqScore::General) {
    W = register_parameter("W", Tensor::empty({query_size, key_size}, dtype));
  } else if (score == Seq2SeqScore::Additive) {
    const auto linear = [dtype](int64_t in, int64_t out, bool bias) {
      return std::make_shared<Linear>(LinearOptions(in, out).bias(bias).dtype(dtype));
    };
    query_proj = register_module("query_proj", linear(query_size, hidden_size, false));
    key_proj = register_module("key_proj", linear(key_size, hidden_size, options.bias()));
    v = register_module("v", linear(hidden_size, 1, false));
  }
  reset_parameters();
}

// W as nn.Linear's weight: kaiming_uniform(a=√5) = U(±1/√key_size). As in torch, a module resets
// its own parameters only: the Linear children initialise themselves when built and have their own
// reset_parameters.
void Seq2SeqAttention::reset_parameters() {
  if (W.defined()) init::kaiming_uniform_(W, std::sqrt(5.0));
}

Seq2SeqAttentionResult Seq2SeqAttention::forward(const Tensor& query, const Tensor& keys, const Tensor& values,
                                                 const Tensor& key_padding_mask) {
  Seq2SeqAttentionParams p;
  p.W = W;
  if (score == Seq2SeqScore::Additive) {
    p.query_weight = query_proj->weight;
    p.key_weight = key_proj->weight;
    p.key_bias = key_proj->bias;
    p.v = v->weight;
  }
  return seq2seq_attention(query, keys, values, score, p, key_padding_mask);
}

// "query_size=4, key_size=6, score='additive', hidden_size=8, bias=False"
std::string Seq2SeqAttention::extra_repr() const {
  std::string s = str_cat("query_size=", options.query_size(), ", key_size=", key_size, ", score='",
                          seq2seq_score_name(score), "'");
  if (score == Seq2SeqScore::Additive)
    s += str_cat(", hidden_size=", hidden_size, options.bias() ? "" : ", bias=False");
  return s;
}

}  // namespace seqlab::nn
