// The key/value cache of incremental decoding (ops/kv_cache.hpp) from C++, also under ASan/UBSan:
// a TransformerDecoder fed a few tokens at a time with a KVCache gives the full causal
// computation, the memory's keys are projected once, beam reordering moves whole sequences, and
// misuse throws. Equality with torch is tested in tests/test_kv_cache.py.
#include <gtest/gtest.h>

#include "seqlab/seqlab.hpp"
#include "test_util.hpp"

using namespace seqlab;
using seqlab::test::max_abs_diff;

namespace {

// True where key j is hidden from new row i after P cached positions: j > i + P.
Tensor causal_mask(int64_t L, int64_t P) { return triu(ones({L, P + L}, Dtype::Bool), P + 1); }

}  // namespace

TEST(KVCache, DecoderStepsEqualTheFullCausalComputation) {
  manual_seed(11);
  nn::TransformerDecoder decoder(nn::TransformerDecoderOptions(
      nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0).batch_first(true).norm_first(true), 2));
  decoder.eval();
  const Tensor tgt = randn({2, 6, 8}, Dtype::Float32);
  const Tensor memory = randn({2, 5, 8}, Dtype::Float32);
  const Tensor full = decoder.forward(tgt, memory, causal_mask(6, 0));
  KVCache cache;
  TensorList steps;
  int64_t P = 0;
  for (int64_t L : {3, 1, 2}) {
    const Tensor chunk = narrow(tgt, 1, P, L);
    steps.push_back(decoder.forward(chunk, memory, L > 1 ? causal_mask(L, P) : Tensor(), Tensor(), Tensor(),
                                    Tensor(), std::nullopt, false, &cache));
    P += L;
    EXPECT_EQ(cache.get_seq_length(), P);
    EXPECT_EQ(cache.cross_attention(1)->length(), 5);  // the memory, projected at the first step only
  }
  EXPECT_LT(max_abs_diff(cat(steps, 1), full), 1e-5);
}

TEST(KVCache, ReorderKeepsWholeSequences) {
  AttentionCache cache;
  // N = 3 sequences, H = 2 heads: row n·H + h holds the value n everywhere.
  Tensor k = reshape(expand(reshape(arange(0, 3, 1, Dtype::Float64), {3, 1, 1, 1}), {3, 2, 4, 5}), {6, 4, 5});
  cache.update(k, k, 2);
  cache.reorder(full({3}, 2.0, Dtype::Int64));  // every row takes sequence 2
  EXPECT_EQ(cache.key.shape(), (Shape{6, 4, 5}));
  EXPECT_EQ(min(cache.key).item<double>(), 2.0);
  EXPECT_EQ(max(cache.value).item<double>(), 2.0);
}

TEST(KVCache, MisuseThrows) {
  AttentionCache cache;
  cache.update(zeros({4, 2, 3}), zeros({4, 2, 3}), 2);
  EXPECT_THROW(cache.update(zeros({6, 1, 3}), zeros({6, 1, 3}), 2), std::runtime_error);  // another batch
  EXPECT_THROW(cache.update(zeros({4, 1, 3}), zeros({4, 2, 3}), 2), std::runtime_error);  // k and v lengths
  AttentionCache memory(/*is_static=*/true);
  memory.update(zeros({4, 2, 3}), zeros({4, 2, 3}), 2);
  EXPECT_THROW(memory.update(zeros({4, 1, 3}), zeros({4, 1, 3}), 2), std::runtime_error);  // filled once
  KVCache model;
  EXPECT_THROW(model.self_attention(-1), std::out_of_range);
  EXPECT_THROW(model.reorder_cache(zeros({2})), std::runtime_error);  // not int64
}
