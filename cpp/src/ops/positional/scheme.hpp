// Private to cpp/src/ops/positional*: the registry of positional schemes. A scheme is one file in
// this folder that registers its description under its kind:
//
//   const SchemeRegistration kAlibi{"alibi", {alibi_tables, nullptr}};
//
// tables(ctx, rel) fills the per-head tables the fused kernel reads by distance (attention_impl.hpp's
// Relative: index, bias, mult, rel_key, rel_query, rel_value) and may set the default scale;
// inputs(ctx, in) changes the content query and key (RoPE rotates them, Transformer-XL adds its
// biases) and may give the position term its own query. Both read the scheme's options and
// parameters through the context, which names the scheme in every error. Nothing else in the
// library knows a scheme's kind: positional.cpp looks the description up by name.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ops/attention_impl.hpp"
#include "seqlab/ops/positional.hpp"

namespace seqlab::positional_detail {

constexpr const char* kOp = "positional_attention";

// The attention a scheme is lowered for: H heads of dimension D, L queries at positions
// off … off + L − 1, S keys at 0 … S − 1, in dtype.
struct SchemeContext {
  const PositionalScheme& pos;
  int64_t H, L, S, D, off;
  Dtype dtype;

  // An option by name: the scheme's default when absent; a value of another type is an error
  // naming the scheme and the option (an integer serves where a number is asked).
  bool option_bool(const std::string& name, bool fallback) const;
  int64_t option_int(const std::string& name, int64_t fallback) const;
  double option_double(const std::string& name, double fallback) const;
  std::string option_string(const std::string& name, const std::string& fallback) const;
  // A parameter by name, which must be given (param) or may be absent (optional_param: undefined),
  // its shape checked against `shape` when given.
  const Tensor& param(const std::string& name, const Shape& shape = {}) const;
  Tensor optional_param(const std::string& name, const Shape& shape = {}) const;
  // The option num_heads must equal the attention's H.
  void require_heads() const;

  // int64 (L + off + S − 1): entry t holds map(d) for the distance d = t − (S − 1), the lookup from
  // a query/key pair to a table row.
  template <typename F>
  Tensor distance_index(F map) const {
    const int64_t n = std::max<int64_t>(1, L + off + S - 1);
    Tensor t = Tensor::empty({n}, Dtype::Int64);
    int64_t* p = t.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) p[i] = map(i - (S - 1));
    return t;
  }
  // Distances −(S − 1) … L + off − 1 as float64 (S + L + off − 1), the rows of a distance table.
  Tensor distances() const;
};

// What inputs() may change: the content query and key, and the query of the position term
// (undefined: q).
struct SchemeInputs {
  Tensor q, k, q_pos;
};

struct SchemeDescription {
  // Fills the tables; returns the scale the scheme wants when none is given (nullopt: 1/√D).
  std::optional<double> (*tables)(const SchemeContext&, attention_detail::Relative&) = nullptr;
  void (*inputs)(const SchemeContext&, SchemeInputs&) = nullptr;
};

// Registers `description` under `kind` when the library loads (a static object in the scheme's
// file; the core is an object library, so no scheme file is left out of a link).
struct SchemeRegistration {
  SchemeRegistration(const char* kind, SchemeDescription description);
};

// The description of `kind`; an error listing the registered kinds when there is none.
const SchemeDescription& find_scheme(const std::string& kind);

// (H, R, D) from rows (R, H·D): a projected table split into heads.
Tensor by_head(const Tensor& rows, int64_t H);

}  // namespace seqlab::positional_detail
