// MultiheadAttention and the Transformer modules from C++, also run under ASan/UBSan (make
// asan-test): the explicit-weights path against the fused one (the same attention two ways),
// causality, deep copies that draw no random numbers, torch's names and folded reprs, and bad
// input that must throw. Equality with torch is tested in tests/test_transformer.py.
#include <gtest/gtest.h>

#include <cmath>

#include "seqlab/seqlab.hpp"
#include "test_util.hpp"

using namespace seqlab;
using seqlab::test::max_abs_diff;

namespace {

Tensor causal_mask(int64_t n) { return triu(ones({n, n}, Dtype::Bool), 1); }  // true = masked out

}  // namespace

TEST(MultiheadAttention, WeightsPathEqualsFusedPathWithGradients) {
  manual_seed(3);
  nn::MultiheadAttention mha(
      nn::MultiheadAttentionOptions(8, 2).add_bias_kv(true).add_zero_attn(true).dtype(Dtype::Float64));
  const Tensor kpm = compare(arange(0, 5, 1, Dtype::Int64), full({3, 1}, 3.0, Dtype::Int64), CompareOp::Ge);
  Tensor grads[2];
  Tensor outs[2];
  for (int path = 0; path < 2; ++path) {
    manual_seed(4);
    Tensor x = randn({5, 3, 8}, Dtype::Float64).set_requires_grad(true);
    auto [out, weights] = mha.forward(x, x, x, kpm, /*need_weights=*/path == 0, causal_mask(5));
    EXPECT_EQ(weights.defined(), path == 0);
    sum(mul(out, out)).backward();
    outs[path] = out.detach();
    grads[path] = x.grad();
  }
  EXPECT_LT(max_abs_diff(outs[0], outs[1]), 1e-12);
  EXPECT_LT(max_abs_diff(grads[0], grads[1]), 1e-12);
}

TEST(MultiheadAttention, CausalOutputsDoNotSeeTheFuture) {
  manual_seed(5);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).dtype(Dtype::Float64));
  Tensor x = randn({6, 2, 4}, Dtype::Float64).set_requires_grad(true);
  Tensor out = mha.forward(x, x, x, Tensor(), false, causal_mask(6)).first;
  sum(select(out, 0, 2)).backward();
  const Tensor future = narrow(x.grad(), 0, 3, 3);
  EXPECT_EQ(max(abs(future)).item<double>(), 0.0);
}

TEST(Transformer, StacksCopyTheirLayerWithoutDrawingNumbers) {
  manual_seed(7);
  const auto options = nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0);
  nn::TransformerEncoderLayer layer(options);
  const double next_after_layer = rand({1}, Dtype::Float64).item<double>();
  manual_seed(7);
  nn::TransformerEncoder encoder(nn::TransformerEncoderOptions(options, 3));
  EXPECT_EQ(rand({1}, Dtype::Float64).item<double>(), next_after_layer);  // the copies drew nothing
  const auto expected = layer.state_dict();
  for (const auto& [name, t] : encoder.state_dict()) {
    const std::string inner = name.substr(name.find('.', std::string("layers.").size()) + 1);
    EXPECT_EQ(max_abs_diff(t, expected.at(inner)), 0.0) << name;
  }
  EXPECT_EQ(encoder.named_parameters().front().first, "layers.0.self_attn.in_proj_weight");
  EXPECT_NE(encoder.repr().find("(0-2): 3 x TransformerEncoderLayer("), std::string::npos) << encoder.repr();
  EXPECT_NE(encoder.repr().find("(out_proj): NonDynamicallyQuantizableLinear(in_features=8"), std::string::npos);
}

TEST(Transformer, ForwardShapesAndCausalDetection) {
  manual_seed(9);
  nn::Transformer model(nn::TransformerOptions(8, 2)
                            .num_encoder_layers(1)
                            .num_decoder_layers(2)
                            .dim_feedforward(16)
                            .dropout(0.0)
                            .activation("gelu")
                            .batch_first(true));
  model.eval();
  const Tensor src = randn({2, 4, 8}), tgt = randn({2, 5, 8});
  const Tensor mask = nn::Transformer::generate_square_subsequent_mask(5);
  EXPECT_TRUE(detect_is_causal_mask(mask));
  EXPECT_TRUE(detect_is_causal_mask(causal_mask(5)));
  EXPECT_FALSE(detect_is_causal_mask(zeros({5, 5})));
  const Tensor a = model.forward(src, tgt, Tensor(), mask);
  const Tensor b = model.forward(src, tgt, Tensor(), mask, Tensor(), Tensor(), Tensor(), Tensor(), std::nullopt,
                                 /*tgt_is_causal=*/false);
  EXPECT_EQ(a.shape(), Shape({2, 5, 8}));
  EXPECT_LT(max_abs_diff(a, b), 1e-5);  // the hint (fused causal) and the mask agree
}

TEST(Transformer, BadInputThrows) {
  EXPECT_THROW(nn::MultiheadAttention(10, 3), assertion_error);
  EXPECT_THROW(nn::MultiheadAttention(0, 1), std::invalid_argument);
  EXPECT_THROW(nn::TransformerEncoderLayerOptions(8, 2).activation("tanh"), std::runtime_error);
  EXPECT_THROW(nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 4).num_key_value_heads(3)),
               std::invalid_argument);
  EXPECT_THROW(nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).head_dim(3).add_bias_kv(true)),
               std::invalid_argument);
  nn::MultiheadAttention mha(8, 2);
  const Tensor x = randn({5, 3, 8});
  EXPECT_THROW(mha.forward(x, x, x, Tensor(), true, zeros({5, 6}, Dtype::Bool)), std::runtime_error);
  EXPECT_THROW(mha.forward(x, x, randn({4, 3, 8})), assertion_error);
  EXPECT_THROW(mha.forward(x, x, x, zeros({3, 5}, Dtype::Int64)), assertion_error);
  EXPECT_THROW(mha.forward(randn({1, 5, 3, 8}), x, x), assertion_error);
  EXPECT_THROW(mha.forward(x, x, x, Tensor(), false, Tensor(), true, /*is_causal=*/true), std::runtime_error);
  nn::Transformer model(nn::TransformerOptions(8, 2).num_encoder_layers(1).num_decoder_layers(1).dim_feedforward(16));
  EXPECT_THROW(model.forward(randn({4, 2, 8}), randn({5, 3, 8})), std::runtime_error);
}
