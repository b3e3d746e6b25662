// ALiBi (Press et al. 2022, "Train Short, Test Long"): s_ij += −m_h·|d|, one fixed slope m_h per
// head (alibi_slopes: geometric for a power of two heads, the paper's interleaving otherwise). A
// bias table (H, R) read at row d + S − 1. Options: num_heads. No parameters.
// Tests: tests/test_positional.py, tests/test_positional_hf.py (Bloom's build_alibi_tensor).
#include <cmath>
#include <cstdlib>
#include <vector>

#include "ops/positional/scheme.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/elementwise.hpp"

namespace seqlab {

Tensor alibi_slopes(int64_t num_heads) {
  SEQLAB_CHECK(num_heads >= 1, "alibi_slopes: num_heads must be positive, got ", num_heads);
  auto geometric = [](int64_t n) {  // 2^(−8/n), 2^(−16/n), ..., 2^(−8)
    std::vector<double> s(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) s[i] = std::pow(2.0, -8.0 * static_cast<double>(i + 1) / static_cast<double>(n));
    return s;
  };
  int64_t p = 1;
  while (p * 2 <= num_heads) p *= 2;
  std::vector<double> s = geometric(p);
  if (p < num_heads) {
    const std::vector<double> twice = geometric(2 * p);
    for (int64_t i = 0; static_cast<int64_t>(s.size()) < num_heads; i += 2) s.push_back(twice[i]);
  }
  Tensor out = Tensor::empty({num_heads}, Dtype::Float64);
  std::copy(s.begin(), s.end(), out.data<double>());
  return out;
}

namespace positional_detail {
namespace {

std::optional<double> alibi_tables(const SchemeContext& ctx, attention_detail::Relative& rel) {
  ctx.require_heads();
  const int64_t H = ctx.H, S = ctx.S;
  rel.index = ctx.distance_index([S](int64_t d) { return d + S - 1; });
  const int64_t R = rel.index.size(0);
  const Tensor slopes = alibi_slopes(H);
  Tensor bias = Tensor::empty({H, R}, Dtype::Float64);
  for (int64_t h = 0; h < H; ++h)  // −m_h · |d|, d = t − (S − 1)
    for (int64_t t = 0; t < R; ++t)
      bias.data<double>()[h * R + t] = -slopes.data<double>()[h] * static_cast<double>(std::abs(t - (S - 1)));
  rel.bias = to_dtype(bias, ctx.dtype);
  return std::nullopt;
}

const SchemeRegistration kAlibi{"alibi", {alibi_tables, nullptr}};

}  // namespace
}  // namespace positional_detail
}  // namespace seqlab
