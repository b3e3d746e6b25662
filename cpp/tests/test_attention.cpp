// The fused scaled dot-product attention from C++, also run under ASan/UBSan (make asan-test):
// forward and all three gradients against the composed oracle across block edges, masks,
// causality and dropout; empty sequences; bad input that must throw.
#include <gtest/gtest.h>

#include <algorithm>

#include "seqlab/seqlab.hpp"
#include "test_util.hpp"

using namespace seqlab;
using seqlab::test::max_abs_diff;

namespace {

using Sdpa = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Tensor&, double, bool,
                        std::optional<double>, bool);

// (out, dq, dk, dv) for one upstream gradient g.
TensorList run(Sdpa f, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double p, bool causal,
               const Tensor& g) {
  TensorList leaves;
  for (const Tensor& x : {q, k, v}) {
    Tensor l = clone(x);
    l.set_requires_grad(true);
    leaves.push_back(l);
  }
  manual_seed(11);
  Tensor out = f(leaves[0], leaves[1], leaves[2], mask, p, causal, std::nullopt, false);
  out.backward(g);
  return {out, leaves[0].grad(), leaves[1].grad(), leaves[2].grad()};
}

}  // namespace

TEST(Attention, FusedEqualsComposedAcrossBlocksMasksAndDropout) {
  manual_seed(0);
  struct Case { int64_t L, S, E, Ev; bool causal; int mask; double p; };
  const Case cases[] = {{1, 1, 1, 1, false, 0, 0.0},   {5, 7, 3, 2, true, 1, 0.0},     {97, 200, 16, 8, false, 2, 0.0},
                        {200, 97, 33, 17, true, 0, 0.2}, {193, 193, 8, 40, false, 1, 0.5}};
  for (const Case& c : cases) {
    const Tensor q = randn({2, 3, c.L, c.E}, Dtype::Float64), k = randn({2, 3, c.S, c.E}, Dtype::Float64);
    const Tensor v = randn({2, 3, c.S, c.Ev}, Dtype::Float64), g = randn({2, 3, c.L, c.Ev}, Dtype::Float64);
    Tensor mask;
    if (c.mask == 1) mask = compare(rand({c.L, c.S}, Dtype::Float64), scalar_tensor(0.3, Dtype::Float64), CompareOp::Gt);
    if (c.mask == 2) mask = randn({3, 1, c.S}, Dtype::Float64);
    const TensorList fused = run(&scaled_dot_product_attention, q, k, v, mask, c.p, c.causal, g);
    const TensorList oracle = run(&scaled_dot_product_attention_math, q, k, v, mask, c.p, c.causal, g);
    for (size_t i = 0; i < fused.size(); ++i)
      EXPECT_LT(max_abs_diff(fused[i], oracle[i]), 1e-11) << "L=" << c.L << " S=" << c.S << " output " << i;
  }
}

TEST(Attention, EmptySequencesAndFloat32) {
  for (auto [L, S] : {std::pair<int64_t, int64_t>{0, 4}, {4, 0}}) {
    const Tensor out = scaled_dot_product_attention(randn({2, L, 3}), randn({2, S, 3}), randn({2, S, 5}));
    EXPECT_EQ(out.shape(), (Shape{2, L, 5}));
    if (out.numel()) EXPECT_EQ(max(abs(out)).item<double>(), 0.0);
  }
  const Tensor q = randn({4, 130, 64}), k = randn({4, 150, 64}), v = randn({4, 150, 64});
  EXPECT_LT(max_abs_diff(scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true),
                         scaled_dot_product_attention_math(q, k, v, Tensor(), 0.0, true)),
            1e-5);
}

TEST(Attention, BadInputThrows) {
  const Tensor q = randn({2, 3, 4}), k = randn({2, 5, 4}), v = randn({2, 5, 6});
  EXPECT_THROW(scaled_dot_product_attention(randn({4}), k, v), std::runtime_error);
  EXPECT_THROW(scaled_dot_product_attention(q, randn({2, 5, 3}), v), std::runtime_error);
  EXPECT_THROW(scaled_dot_product_attention(q, k, randn({2, 4, 6})), std::runtime_error);
  EXPECT_THROW(scaled_dot_product_attention(q, k, v, ones({3, 4}, Dtype::Bool)), std::runtime_error);
  EXPECT_THROW(scaled_dot_product_attention(q, k, v, ones({3, 5}, Dtype::Int64)), std::runtime_error);
  EXPECT_THROW(scaled_dot_product_attention(q, k, v, Tensor(), 1.5), std::runtime_error);
}

// Positional schemes (ops/positional.hpp): the fused kernel's relative terms against the composed
// oracle, forward and every gradient (q, k, v and the tables' parameters), across blocks, with a
// cache offset; under ASan this also checks the kernel's distance lookups stay inside the tables.
TEST(Attention, PositionalSchemesFusedEqualsComposed) {
  manual_seed(3);
  const int64_t B = 1, H = 2, D = 8, k = 3;
  auto leaf = [](Shape s, double scale = 1.0) {
    Tensor t = mul(randn(std::move(s), Dtype::Float64), scalar_tensor(scale, Dtype::Float64));
    t.set_requires_grad(true);
    return t;
  };
  struct Case { int64_t L, S, off; bool causal; };
  for (const Case c : {Case{5, 7, 0, false}, Case{100, 130, 0, true}, Case{40, 140, 100, true}}) {
    for (const char* kind : {"none", "rope", "alibi", "t5", "shaw", "xl", "deberta", "da"}) {
      PositionalScheme pos;
      pos.kind = kind;
      pos.options = {{"num_heads", H}, {"max_relative_position", k}};
      const std::string kd = kind;
      if (kd == "t5") pos.params = {{"relative_attention_bias", leaf({32, H})}};
      if (kd == "shaw") pos.params = {{"relative_key", leaf({2 * k + 1, D})}, {"relative_value", leaf({2 * k + 1, D})}};
      if (kd == "xl") pos.params = {{"r_w_bias", leaf({H, D})}, {"r_r_bias", leaf({H, D})}, {"r_net", leaf({H * D, H * D}, 0.3)}};
      if (kd == "deberta")
        pos.params = {{"rel_embeddings", leaf({2 * k, H * D})}, {"pos_key_proj_weight", leaf({H * D, H * D}, 0.3)},
                      {"pos_query_proj_weight", leaf({H * D, H * D}, 0.3)}};
      if (kd == "da") pos.params = {{"distance_weight", leaf({H}, 0.2)}, {"sigmoid_shift", leaf({H})}};
      TensorList leaves = {leaf({B, H, c.L, D}), leaf({B, H, c.S, D}), leaf({B, H, c.S, D})};
      for (auto& [name, t] : pos.params) leaves.push_back(t);
      const Tensor g = randn({B, H, c.L, D}, Dtype::Float64);
      TensorList got[2];
      for (int path = 0; path < 2; ++path) {
        for (Tensor& x : leaves) x.set_grad(Tensor());
        const Tensor out = path == 0 ? positional_attention(leaves[0], leaves[1], leaves[2], pos, Tensor(), 0.0,
                                                            c.causal, std::nullopt, c.off)
                                     : positional_attention_math(leaves[0], leaves[1], leaves[2], pos, Tensor(), 0.0,
                                                                 c.causal, std::nullopt, c.off);
        out.backward(g);
        got[path].push_back(out);
        for (const Tensor& x : leaves) got[path].push_back(x.grad());
      }
      for (size_t i = 0; i < got[0].size(); ++i)
        EXPECT_LT(max_abs_diff(got[0][i], got[1][i]), 1e-10) << kind << " L=" << c.L << " output/grad " << i;
    }
  }
}

TEST(Attention, PositionalErrors) {
  const Tensor q = randn({1, 2, 5, 8});
  PositionalScheme alibi{"alibi", {{"num_heads", int64_t(3)}}, {}};
  EXPECT_THROW(positional_attention(q, q, q, alibi), std::exception);  // built for 3 heads
  PositionalScheme unknown{"fire", {}, {}};
  EXPECT_THROW(positional_attention(q, q, q, unknown), std::exception);  // not registered
  PositionalScheme wrong_type{"t5", {{"num_heads", int64_t(2)}, {"num_buckets", 8.5}}, {}};
  EXPECT_THROW(positional_attention(q, q, q, wrong_type), std::exception);  // an integer option given a number
  const std::vector<std::string> kinds = positional_scheme_kinds();
  for (const char* kind : {"none", "rope", "alibi", "t5", "shaw", "xl", "deberta", "da"})
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind), kinds.end()) << kind << " is not registered";
  EXPECT_THROW(rotary_embedding(randn({4, 5})), std::exception);        // odd head dim
  EXPECT_THROW(positional_attention(randn({2, 5, 8}), q, q, PositionalScheme()), std::exception);
  EXPECT_THROW(t5_relative_position_bucket(zeros({3}, Dtype::Int64), true, 2, 128), std::exception);
}
