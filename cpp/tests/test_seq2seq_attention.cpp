// Seq2seq attention from C++ (ops/seq2seq_attention.hpp, nn/seq2seq_attention.hpp), also run under
// ASan/UBSan (make asan-test): the additive score against its formula written one query step and one
// source position at a time, forward and gradients; a row that is all padding; and bad input that
// must throw. Every score against torch: tests/test_seq2seq_attention.py.
#include <gtest/gtest.h>

#include <cmath>

#include "seqlab/seqlab.hpp"
#include "test_util.hpp"

using namespace seqlab;
using seqlab::test::max_abs_diff;

namespace {

// (B, S) bool, True = padding: row b has lengths[b] keys.
Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t S) {
  Tensor m = Tensor::empty({static_cast<int64_t>(lengths.size()), S}, Dtype::Bool);
  for (size_t b = 0; b < lengths.size(); ++b)
    for (int64_t j = 0; j < S; ++j) m.data<bool>()[b * S + j] = j >= lengths[b];
  return m;
}

// Bahdanau et al. 2015, one (b, t) at a time, with the module's parameters:
//   e_j = vᵀ tanh(W₁ q + W₂ k_j + b),  a_j = exp(e_j) / Σ_{i not padding} exp(e_i),  c = Σ_j a_j v_j
std::pair<Tensor, Tensor> additive_by_the_formula(nn::Seq2SeqAttention& m, const Tensor& query, const Tensor& keys,
                                                  const Tensor& values, const std::vector<int64_t>& lengths) {
  const int64_t B = query.shape()[0], T = query.shape()[1], S = keys.shape()[1];
  const Tensor W1 = m.query_proj->weight, W2 = m.key_proj->weight, bias = m.key_proj->bias;
  const Tensor v = select(m.v->weight, 0, 0);
  TensorList contexts, weights;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) {
      const Tensor q = select(select(query, 0, b), 0, t);
      TensorList exps;
      for (int64_t j = 0; j < lengths[b]; ++j) {
        const Tensor k = select(select(keys, 0, b), 0, j);
        const Tensor e = sum(mul(v, tanh(add(add(matmul(W1, q), matmul(W2, k)), bias))));
        exps.push_back(exp(e));
      }
      const Tensor total = sum(stack(exps, 0));
      Tensor context = zeros({values.shape()[2]}, query.dtype());
      TensorList a;
      for (int64_t j = 0; j < S; ++j) {
        if (j >= lengths[b]) {
          a.push_back(zeros({}, query.dtype()));
          continue;
        }
        a.push_back(div(exps[j], total));
        context = add(context, mul(a.back(), select(select(values, 0, b), 0, j)));
      }
      contexts.push_back(context);
      weights.push_back(stack(a, 0));
    }
  }
  return {reshape(stack(contexts, 0), {B, T, -1}), reshape(stack(weights, 0), {B, T, S})};
}

}  // namespace

TEST(Seq2SeqAttention, AdditiveEqualsItsFormulaWithGradients) {
  manual_seed(4);
  nn::Seq2SeqAttention m(
      nn::Seq2SeqAttentionOptions(4).key_size(3).score("additive").hidden_size(5).dtype(Dtype::Float64));
  const Tensor q = randn({2, 3, 4}, Dtype::Float64).set_requires_grad(true);
  const Tensor k = randn({2, 6, 3}, Dtype::Float64).set_requires_grad(true);
  const Tensor val = randn({2, 6, 2}, Dtype::Float64).set_requires_grad(true);
  const std::vector<int64_t> lengths{6, 4};
  Seq2SeqAttentionResult r = m.forward(q, k, val, padding_mask(lengths, 6));
  auto [context, weights] = additive_by_the_formula(m, q, k, val, lengths);
  EXPECT_LT(max_abs_diff(r.context, context), 1e-12);
  EXPECT_LT(max_abs_diff(r.weights, weights), 1e-12);

  // The same loss through both graphs: every gradient agrees.
  const Tensor gw = randn({2, 3, 6}, Dtype::Float64);
  add(sum(mul(r.context, r.context)), sum(mul(r.weights, gw))).backward();
  const TensorList inputs{q, k, val, m.query_proj->weight, m.key_proj->weight, m.key_proj->bias, m.v->weight};
  TensorList first;
  for (Tensor t : inputs) {
    first.push_back(clone(t.grad()));
    t.set_grad(Tensor());
  }
  add(sum(mul(context, context)), sum(mul(weights, gw))).backward();
  for (size_t i = 0; i < inputs.size(); ++i)
    EXPECT_LT(max_abs_diff(first[i], inputs[i].grad()), 1e-11) << "gradient of input " << i;
}

TEST(Seq2SeqAttention, ARowOfPaddingOnlyGivesZerosNotNaN) {
  nn::Seq2SeqAttention m(nn::Seq2SeqAttentionOptions(3).score("scaled"));
  const Tensor q = randn({2, 3}).set_requires_grad(true);
  Seq2SeqAttentionResult r = m.forward(q, randn({2, 4, 3}), Tensor(), padding_mask({0, 2}, 4));
  EXPECT_EQ(r.context.shape(), (Shape{2, 3}));
  EXPECT_EQ(r.weights.shape(), (Shape{2, 4}));
  EXPECT_EQ(max(abs(select(r.context, 0, 0))).item<double>(), 0.0);
  EXPECT_EQ(max(abs(select(r.weights, 0, 0))).item<double>(), 0.0);
  EXPECT_NEAR(sum(select(r.weights, 0, 1)).item<double>(), 1.0, 1e-6);
  sum(r.context).backward();
  EXPECT_EQ(max(abs(select(q.grad(), 0, 0))).item<double>(), 0.0);
}

TEST(Seq2SeqAttention, BadInputThrows) {
  EXPECT_THROW(seq2seq_score("cosine"), std::invalid_argument);
  // dot needs key_size == query_size
  EXPECT_THROW(nn::Seq2SeqAttention(nn::Seq2SeqAttentionOptions(4).key_size(6)), std::invalid_argument);
  nn::Seq2SeqAttention m(nn::Seq2SeqAttentionOptions(4).key_size(6).score("general"));
  EXPECT_THROW(m.forward(randn({2, 4}), randn({3, 5, 6})), std::runtime_error);                          // batch
  EXPECT_THROW(m.forward(randn({2, 4}), randn({2, 5, 4})), std::runtime_error);                          // key size
  EXPECT_THROW(m.forward(randn({2, 4}), randn({2, 5, 6}), Tensor(), padding_mask({5}, 5)), std::runtime_error);
  EXPECT_THROW(m.forward(randn({2, 4}), randn({2, 5, 6}), Tensor(), zeros({2, 5})), std::runtime_error);  // dtype
  EXPECT_THROW(m.forward(randn({2, 1, 1, 4}), randn({2, 5, 6})), std::invalid_argument);                // 4-D
  EXPECT_THROW(seq2seq_attention(randn({2, 4}), randn({2, 5, 4}), Tensor(), Seq2SeqScore::General), std::invalid_argument);
  try {
    m.forward(randn({2, 4}), randn({2, 5, 4}));
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "seq2seq_attention: W of shape [4, 6] must be (query_size, key_size) = (4, 4)");
  }
}

TEST(Seq2SeqAttention, ReprAndParameterNames) {
  nn::Seq2SeqAttention m(nn::Seq2SeqAttentionOptions(4).key_size(6).score("concat").hidden_size(5).bias(false));
  EXPECT_EQ(m.repr(),
            "Seq2SeqAttention(\n"
            "  query_size=4, key_size=6, score='additive', hidden_size=5, bias=False\n"
            "  (query_proj): Linear(in_features=4, out_features=5, bias=False)\n"
            "  (key_proj): Linear(in_features=6, out_features=5, bias=False)\n"
            "  (v): Linear(in_features=5, out_features=1, bias=False)\n"
            ")");
  std::vector<std::string> names;
  for (auto& [n, p] : m.named_parameters()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"query_proj.weight", "key_proj.weight", "v.weight"}));
  EXPECT_EQ(nn::Seq2SeqAttention(nn::Seq2SeqAttentionOptions(4).key_size(6).score("bilinear")).repr(),
            "Seq2SeqAttention(query_size=4, key_size=6, score='general')");
}
