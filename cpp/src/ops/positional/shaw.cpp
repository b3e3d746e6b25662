// Shaw et al. 2018, "Self-Attention with Relative Position Representations": s_ij = q_i·(k_j +
// a^K_r)/√D and o_i = Σ_j p_ij (v_j + a^V_r), r = clip(j − i, −k, k), the tables shared by the heads.
// A key table (and an optional value table) read at row r + k. Options: max_relative_position
// (k, 16). Parameters relative_key and relative_value (2k + 1, D). Tests: tests/test_positional.py.
#include <algorithm>

#include "ops/positional/scheme.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::positional_detail {
namespace {

std::optional<double> shaw_tables(const SchemeContext& ctx, attention_detail::Relative& rel) {
  const int64_t k = ctx.option_int("max_relative_position", 16);
  SEQLAB_CHECK(k >= 1, kOp, ": the shaw scheme needs max_relative_position >= 1, got ", k);
  rel.index = ctx.distance_index([k](int64_t d) { return std::clamp<int64_t>(-d, -k, k) + k; });  // j − i = −d
  rel.rel_key = unsqueeze(contiguous(ctx.param("relative_key", {2 * k + 1, ctx.D})), 0);
  const Tensor value = ctx.optional_param("relative_value", {2 * k + 1, ctx.D});
  if (value.defined()) rel.rel_value = unsqueeze(contiguous(value), 0);
  return std::nullopt;
}

const SchemeRegistration kShaw{"shaw", {shaw_tables, nullptr}};

}  // namespace
}  // namespace seqlab::positional_detail
