// Element types. float32 is the default as in PyTorch; float64 for gradient checks;
// int64 for indices; bool for masks and comparisons (stored as one byte).
#pragma once
#include <cstdint>
#include <cstddef>

namespace seqlab {

enum class Dtype : uint8_t { Bool = 0, Int64 = 1, Float32 = 2, Float64 = 3 };

inline size_t itemsize(Dtype d) {
  switch (d) {
    case Dtype::Bool: return 1;
    case Dtype::Int64: return 8;
    case Dtype::Float32: return 4;
    case Dtype::Float64: return 8;
  }
  return 0;
}
inline bool is_floating(Dtype d) { return d == Dtype::Float32 || d == Dtype::Float64; }
// PyTorch's names: "float", "double", "long", "bool" in messages; "float32" etc. in reprs.
const char* dtype_name(Dtype d);
// torch's ScalarType names, which its kernel messages print: "\"frac_cpu\" not implemented for
// 'Long'", "result type Float can't be cast to the desired output type Long".
inline const char* scalar_type_name(Dtype d) {
  switch (d) {
    case Dtype::Bool: return "Bool";
    case Dtype::Int64: return "Long";
    case Dtype::Float32: return "Float";
    case Dtype::Float64: return "Double";
  }
  return "?";
}
// Type promotion of two tensor operands: bool < int64 < float32 < float64.
inline Dtype promote(Dtype a, Dtype b) { return a > b ? a : b; }

template <Dtype D> struct dtype_traits;
template <> struct dtype_traits<Dtype::Bool> { using type = bool; };
template <> struct dtype_traits<Dtype::Int64> { using type = int64_t; };
template <> struct dtype_traits<Dtype::Float32> { using type = float; };
template <> struct dtype_traits<Dtype::Float64> { using type = double; };

template <typename T> constexpr Dtype dtype_of();
template <> constexpr Dtype dtype_of<bool>() { return Dtype::Bool; }
template <> constexpr Dtype dtype_of<int64_t>() { return Dtype::Int64; }
template <> constexpr Dtype dtype_of<float>() { return Dtype::Float32; }
template <> constexpr Dtype dtype_of<double>() { return Dtype::Float64; }

}  // namespace seqlab
