// The relative positional schemes as C++ modules (nn/positional.hpp) and as the pos of the C++
// attention and transformer layers, also run under ASan/UBSan (make asan-test): the Python
// modules' parameter names and shapes, ALiBi against its formula, MultiheadAttention with a
// scheme and a scale against the same attention written step by step, state dict names and deep
// copies in a stack, DeBERTa's shared projections, and bad options that must throw. Equality
// with the Python twins: tests/test_nn_twins.py; each scheme against torch: tests/test_positional.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "seqlab/nn/positional.hpp"
#include "seqlab/seqlab.hpp"
#include "test_util.hpp"

using namespace seqlab;
using seqlab::test::max_abs_diff;

namespace {

std::vector<std::pair<std::string, Shape>> names_and_shapes(const nn::Module& m) {
  std::vector<std::pair<std::string, Shape>> out;
  for (const auto& [name, t] : m.named_parameters()) out.emplace_back(name, t.shape());
  return out;
}

// The message of the exception `f` throws as E ("" when it throws none).
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PositionalModules, RegisterThePythonModulesNamesAndShapes) {
  using V = std::vector<std::pair<std::string, Shape>>;
  EXPECT_EQ(names_and_shapes(nn::T5RelativeBias(nn::T5RelativeBiasOptions(2))),
            (V{{"relative_attention_bias.weight", {32, 2}}}));
  EXPECT_EQ(names_and_shapes(nn::ShawRelativePosition(nn::ShawRelativePositionOptions(4).max_relative_position(3))),
            (V{{"relative_key", {7, 4}}, {"relative_value", {7, 4}}}));
  EXPECT_EQ(names_and_shapes(nn::TransformerXLRelativePosition(nn::TransformerXLRelativePositionOptions(8, 2))),
            (V{{"r_w_bias", {2, 4}}, {"r_r_bias", {2, 4}}, {"r_net.weight", {8, 8}}}));
  EXPECT_EQ(names_and_shapes(nn::DeBERTaRelativePosition(nn::DeBERTaRelativePositionOptions(8, 2))),
            (V{{"rel_embeddings.weight", {128, 8}}, {"pos_key_proj.weight", {8, 8}}, {"pos_key_proj.bias", {8}},
               {"pos_query_proj.weight", {8, 8}}, {"pos_query_proj.bias", {8}}}));
  EXPECT_EQ(names_and_shapes(nn::DARelativePosition(nn::DARelativePositionOptions(3))),
            (V{{"distance_weight", {3}}, {"sigmoid_shift", {3}}}));
  EXPECT_EQ(names_and_shapes(nn::KERPLE(nn::KERPLEOptions(3))), (V{{"bias_p", {3}}, {"bias_a", {3}}}));
  EXPECT_TRUE(names_and_shapes(nn::ALiBi(nn::ALiBiOptions(4))).empty());
  EXPECT_EQ(nn::RoPE(nn::RoPEOptions(8).base(500)).repr(), "RoPE(head_dim=8, base=500, interleaved=True)");
  EXPECT_EQ(nn::KERPLE(nn::KERPLEOptions(2).kernel("power")).repr(), "KERPLE(num_heads=2, kernel='power')");
}

// Press et al. 2022: softmax(q·k/√D − m_h·|i − j|)·V, the bias written out and given to the
// attention as a float mask.
TEST(PositionalModules, ALiBiEqualsItsFormula) {
  const int64_t B = 2, H = 4, L = 6, D = 8;
  nn::ALiBi alibi{nn::ALiBiOptions(H)};
  const Tensor slopes = alibi.slopes();
  Tensor bias = Tensor::empty({H, L, L}, Dtype::Float64);
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < L; ++i)
      for (int64_t j = 0; j < L; ++j)
        bias.data<double>()[(h * L + i) * L + j] = -slopes.data<double>()[h] * std::abs(static_cast<double>(i - j));
  manual_seed(0);
  const Tensor q = randn({B, H, L, D}, Dtype::Float64), k = randn({B, H, L, D}, Dtype::Float64),
               v = randn({B, H, L, D}, Dtype::Float64);
  EXPECT_LT(max_abs_diff(alibi.attention(q, k, v), scaled_dot_product_attention_math(q, k, v, bias)), 1e-12);
}

// The module's forward is the attention of its scheme, with its scale, between the projections:
// q, k, v = x W_qᵀ + b_q, ...; heads (N, H, L, D); pos.attention(q, k, v, scale); out_proj.
TEST(PositionalModules, MultiheadAttentionPassesItsSchemeAndScale) {
  const int64_t L = 5, N = 3, E = 8, H = 2, D = E / H;
  manual_seed(1);
  auto kerple = std::make_shared<nn::KERPLE>(nn::KERPLEOptions(H).dtype(Dtype::Float64));
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(E, H).pos(kerple).scale(0.3).dtype(Dtype::Float64));
  const Tensor x = randn({L, N, E}, Dtype::Float64);
  const Tensor qkv = linear(x, mha.in_proj_weight, mha.in_proj_bias);  // (L, N, 3E)
  auto heads = [&](int64_t which) {
    return permute(reshape(narrow(qkv, 2, which * E, E), {L, N, H, D}), {1, 2, 0, 3});  // (N, H, L, D)
  };
  const Tensor o = kerple->attention(heads(0), heads(1), heads(2), Tensor(), 0.0, false, 0.3);
  const Tensor expected = linear(reshape(permute(o, {2, 0, 1, 3}), {L, N, E}), mha.out_proj->weight, mha.out_proj->bias);
  EXPECT_LT(max_abs_diff(mha.forward(x, x, x, Tensor(), false).first, expected), 1e-12);
  // The scheme is a submodule, "pos", as in Python: its parameters are the attention's.
  EXPECT_EQ(mha.named_parameters().back().first, "pos.bias_a");
}

// Each layer of a stack gets its own copy of the scheme (copy.deepcopy in Python), under the
// names self_attn.pos.*; the copies start equal and train apart.
TEST(PositionalModules, StackLayersOwnTheirSchemesUnderPythonsNames) {
  manual_seed(2);
  auto t5 = std::make_shared<nn::T5RelativeBias>(nn::T5RelativeBiasOptions(2).num_buckets(8));
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).pos(t5).scale(1.0));
  EXPECT_TRUE(layer.state_dict().count("self_attn.pos.relative_attention_bias.weight"));
  nn::TransformerEncoder stack(nn::TransformerEncoderOptions(layer.clone(), 2));
  const auto state = stack.state_dict();
  const Tensor w0 = state.at("layers.0.self_attn.pos.relative_attention_bias.weight");
  const Tensor w1 = state.at("layers.1.self_attn.pos.relative_attention_bias.weight");
  EXPECT_EQ(max_abs_diff(w0, t5->relative_attention_bias->weight), 0.0);
  EXPECT_NE(w0.raw_data(), w1.raw_data());
  EXPECT_EQ(stack.layers[1]->self_attn->options.scale(), std::optional<double>(1.0));
}

// share_att_key: the position terms use the attention's own query and key projections, rows of
// its in_proj_weight (views, so its gradients reach them).
TEST(PositionalModules, DeBERTaSharedKeysReadTheAttentionsProjections) {
  auto deberta = std::make_shared<nn::DeBERTaRelativePosition>(
      nn::DeBERTaRelativePositionOptions(8, 2).max_relative_position(4).share_att_key(true));
  EXPECT_THROW(deberta->scheme(), std::invalid_argument);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(8, 2).pos(deberta));
  const PositionalScheme s = deberta->scheme(&mha);
  EXPECT_EQ(max_abs_diff(s.params.at("pos_query_proj_weight"), narrow(mha.in_proj_weight, 0, 0, 8)), 0.0);
  EXPECT_EQ(max_abs_diff(s.params.at("pos_key_proj_weight"), narrow(mha.in_proj_weight, 0, 8, 8)), 0.0);
  EXPECT_EQ(max_abs_diff(s.params.at("pos_key_proj_bias"), narrow(mha.in_proj_bias, 0, 8, 8)), 0.0);
}

TEST(PositionalModules, BadOptionsThrowInPythonsWords) {
  EXPECT_EQ(message_of<std::invalid_argument>([] { nn::RoPE(nn::RoPEOptions(3)); }),
            "RoPE rotates pairs of features, so head_dim must be even and positive, got 3");
  EXPECT_EQ(message_of<std::invalid_argument>([] { nn::KERPLE(nn::KERPLEOptions(2).kernel("cubic")); }),
            "KERPLE: kernel must be 'log' or 'power', got 'cubic'");
  EXPECT_EQ(message_of<std::invalid_argument>([] {
              nn::DeBERTaRelativePosition(nn::DeBERTaRelativePositionOptions(8, 2).pos_att_type({"c2p", "p2p"}));
            }),
            "DeBERTaRelativePosition: pos_att_type holds 'c2p' and/or 'p2c', got ('c2p', 'p2p')");
  auto alibi = std::make_shared<nn::ALiBi>(nn::ALiBiOptions(3));
  EXPECT_EQ(message_of<std::invalid_argument>([&] { nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).pos(alibi)); }),
            "MultiheadAttention: ALiBi was built for 3 heads but the attention has 2");
  auto rope = std::make_shared<nn::RoPE>(nn::RoPEOptions(8));
  EXPECT_EQ(message_of<std::invalid_argument>([&] { nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2).pos(rope)); }),
            "MultiheadAttention: RoPE was built for head_dim 8 but the attention has 2 heads of 4");
}
