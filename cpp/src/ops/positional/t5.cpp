// T5's relative attention bias (Raffel et al. 2020, §2.1): s_ij += b[bucket(j − i), h], a learned
// scalar per head and bucket; buckets are exact for small distances and log-spaced up to
// max_distance (the bucketing of the T5 code); unidirectional (a causal decoder) counts only keys
// before the query. T5 itself does not scale q·k by 1/√D (pass scale=1.0). Options: num_heads,
// bidirectional (true), num_buckets (32), max_distance (128). Parameter relative_attention_bias
// (num_buckets, H). Tests: tests/test_positional.py, tests/test_positional_hf.py (T5Attention).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "ops/positional/scheme.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {
namespace {

int64_t t5_bucket(int64_t rel, bool bidirectional, int64_t num_buckets, int64_t max_distance) {
  int64_t bucket = 0;
  if (bidirectional) {
    num_buckets /= 2;
    if (rel > 0) bucket += num_buckets;
    rel = std::abs(rel);
  } else {
    rel = -std::min<int64_t>(rel, 0);
  }
  const int64_t max_exact = num_buckets / 2;
  if (rel < max_exact) return bucket + rel;
  // log-spaced: max_exact + log(rel / max_exact) / log(max_distance / max_exact) · (buckets − max_exact)
  const double f = std::log(static_cast<double>(rel) / static_cast<double>(max_exact)) /
                   std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact)) *
                   static_cast<double>(num_buckets - max_exact);
  return bucket + std::min<int64_t>(max_exact + static_cast<int64_t>(f), num_buckets - 1);
}

void check_t5(bool bidirectional, int64_t num_buckets, int64_t max_distance, const char* op) {
  const int64_t half = bidirectional ? num_buckets / 2 : num_buckets;
  SEQLAB_CHECK(half >= 2 && max_distance > half / 2, op, ": num_buckets ", num_buckets, " (",
               bidirectional ? "bidirectional" : "unidirectional", ") and max_distance ", max_distance,
               " leave no log-spaced buckets: need num_buckets >= ", bidirectional ? 4 : 2,
               " and max_distance > num_buckets / ", bidirectional ? 4 : 2);
}

}  // namespace

Tensor t5_relative_position_bucket(const Tensor& relative_position, bool bidirectional, int64_t num_buckets,
                                   int64_t max_distance) {
  SEQLAB_CHECK(relative_position.defined() && relative_position.dtype() == Dtype::Int64,
               "t5_relative_position_bucket: expected an int64 tensor of relative positions, got ",
               relative_position.defined() ? dtype_name(relative_position.dtype()) : "None");
  check_t5(bidirectional, num_buckets, max_distance, "t5_relative_position_bucket");
  const Tensor r = contiguous(relative_position);
  Tensor out = Tensor::empty(r.shape(), Dtype::Int64);
  const int64_t* rp = r.data<int64_t>();
  int64_t* o = out.data<int64_t>();
  for (int64_t i = 0; i < r.numel(); ++i) o[i] = t5_bucket(rp[i], bidirectional, num_buckets, max_distance);
  return out;
}

namespace positional_detail {
namespace {

std::optional<double> t5_tables(const SchemeContext& ctx, attention_detail::Relative& rel) {
  ctx.require_heads();
  const bool bidirectional = ctx.option_bool("bidirectional", true);
  const int64_t num_buckets = ctx.option_int("num_buckets", 32), max_distance = ctx.option_int("max_distance", 128);
  check_t5(bidirectional, num_buckets, max_distance, kOp);
  const Tensor& w = ctx.param("relative_attention_bias", {num_buckets, ctx.H});
  rel.index = ctx.distance_index([&](int64_t d) {  // T5 buckets j − i = −d
    return t5_bucket(-d, bidirectional, num_buckets, max_distance);
  });
  rel.bias = contiguous(transpose(w, 0, 1));
  return std::nullopt;
}

const SchemeRegistration kT5{"t5", {t5_tables, nullptr}};

}  // namespace
}  // namespace positional_detail
}  // namespace seqlab
