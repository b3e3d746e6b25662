// Scaled dot-product attention (Vaswani et al. 2017, §3.2.1), torch.nn.functional's
// scaled_dot_product_attention: softmax(Q Kᵀ · scale + mask) V.
// Fused kernel with online softmax (FlashAttention, Dao et al. 2022): cpp/src/ops/attention_fused.cpp;
// checks, the composed oracle and the weights for plots: cpp/src/ops/attention.cpp.
// Tests: tests/test_attention.py, cpp/tests/test_attention.cpp.
#pragma once
#include <cstdint>
#include <optional>

#include "seqlab/tensor.hpp"

namespace seqlab {

// query (..., Hq, L, E), key (..., Hk, S, E), value (..., Hk, S, Ev) -> (..., Hq, L, Ev).
// Batch dims broadcast as in matmul; Hk = Hq unless enable_gqa (grouped-query attention: query head
// h reads key/value head h / (Hq / Hk)). attn_mask broadcastable to (..., Hq, L, S): bool (true =
// may attend, the opposite of MultiheadAttention's) or the query's float dtype (added to the
// scores). is_causal masks j > i (top-left aligned, as torch), combined with attn_mask if both are
// given. scale defaults to 1/√E. A query row with every key masked gives zeros (torch's choice).
// dropout_p drops attention weights (after the softmax) with a mask that the backward regenerates.
// The forward never holds more than one block of the L×S scores per thread; memory is O(L·E).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = Tensor(), double dropout_p = 0.0,
                                    bool is_causal = false, std::optional<double> scale = std::nullopt,
                                    bool enable_gqa = false);

// The same computed by ordinary ops (matmul, softmax, dropout by the same mask, matmul): the oracle.
Tensor scaled_dot_product_attention_math(const Tensor& query, const Tensor& key, const Tensor& value,
                                         const Tensor& attn_mask = Tensor(), double dropout_p = 0.0,
                                         bool is_causal = false, std::optional<double> scale = std::nullopt,
                                         bool enable_gqa = false);

// softmax(Q Kᵀ · scale + mask) materialised as (..., Hq, L, S), differentiable: the weights to plot.
Tensor attention_weights(const Tensor& query, const Tensor& key, const Tensor& attn_mask = Tensor(),
                         bool is_causal = false, std::optional<double> scale = std::nullopt,
                         bool enable_gqa = false);

}  // namespace seqlab
