// Element types. float32 is the default as in PyTorch; float64 for gradient checks; int64 for
// indices; bool for masks and comparisons (stored as one byte); uint8, int8, int16 and int32 for
// what course code stores in them (images, token ids, counts); float16 and bfloat16 for what real
// checkpoints are stored in (seqlab/half.hpp: storage types, whose arithmetic goes through float32).
// Tests: tests/test_int_dtypes.py, tests/test_half_dtypes.py.
#pragma once
#include <cstdint>
#include <cstddef>

#include "seqlab/half.hpp"

namespace seqlab {

// Ordered as torch's promotion lattice reads: bool, the integers by width, the floats by width.
enum class Dtype : uint8_t { Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64 };

inline size_t itemsize(Dtype d) {
  switch (d) {
    case Dtype::Bool: case Dtype::UInt8: case Dtype::Int8: return 1;
    case Dtype::Int16: case Dtype::Float16: case Dtype::BFloat16: return 2;
    case Dtype::Int32: case Dtype::Float32: return 4;
    case Dtype::Int64: case Dtype::Float64: return 8;
  }
  return 0;
}
inline bool is_floating(Dtype d) { return d >= Dtype::Float16; }
// float16 or bfloat16: stored in 16 bits, computed in float32.
inline bool is_reduced_float(Dtype d) { return d == Dtype::Float16 || d == Dtype::BFloat16; }
// An integer type other than bool (torch's isIntegralType(t, includeBool=false)).
inline bool is_integral(Dtype d) { return d != Dtype::Bool && !is_floating(d); }
// PyTorch's names: "float32", "int32", "uint8"... as its dtypes print.
const char* dtype_name(Dtype d);
// torch's ScalarType names, which its kernel messages print: "\"frac_cpu\" not implemented for
// 'Long'", "result type Float can't be cast to the desired output type Byte".
inline const char* scalar_type_name(Dtype d) {
  switch (d) {
    case Dtype::Bool: return "Bool";
    case Dtype::UInt8: return "Byte";
    case Dtype::Int8: return "Char";
    case Dtype::Int16: return "Short";
    case Dtype::Int32: return "Int";
    case Dtype::Int64: return "Long";
    case Dtype::Float16: return "Half";
    case Dtype::BFloat16: return "BFloat16";
    case Dtype::Float32: return "Float";
    case Dtype::Float64: return "Double";
  }
  return "?";
}
// Type promotion of two tensor operands, torch's table (c10::promoteTypes): bool < integers <
// floats; within integers the wider wins, and uint8 with int8 needs int16 to hold both ranges
// (uint8 with a wider signed type is that type); an integer with a float is the float; float16
// with bfloat16 needs float32 (neither holds the other's range and precision).
inline Dtype promote(Dtype a, Dtype b) {
  if (a == b) return a;
  if (a > b) { const Dtype t = a; a = b; b = t; }   // now a < b in the enum's order
  if (a == Dtype::UInt8 && b == Dtype::Int8) return Dtype::Int16;
  if (a == Dtype::Float16 && b == Dtype::BFloat16) return Dtype::Float32;
  return b;
}

template <Dtype D> struct dtype_traits;
template <> struct dtype_traits<Dtype::Bool> { using type = bool; };
template <> struct dtype_traits<Dtype::UInt8> { using type = uint8_t; };
template <> struct dtype_traits<Dtype::Int8> { using type = int8_t; };
template <> struct dtype_traits<Dtype::Int16> { using type = int16_t; };
template <> struct dtype_traits<Dtype::Int32> { using type = int32_t; };
template <> struct dtype_traits<Dtype::Int64> { using type = int64_t; };
template <> struct dtype_traits<Dtype::Float16> { using type = Half; };
template <> struct dtype_traits<Dtype::BFloat16> { using type = BFloat16; };
template <> struct dtype_traits<Dtype::Float32> { using type = float; };
template <> struct dtype_traits<Dtype::Float64> { using type = double; };

template <typename T> constexpr Dtype dtype_of();
template <> constexpr Dtype dtype_of<bool>() { return Dtype::Bool; }
template <> constexpr Dtype dtype_of<uint8_t>() { return Dtype::UInt8; }
template <> constexpr Dtype dtype_of<int8_t>() { return Dtype::Int8; }
template <> constexpr Dtype dtype_of<int16_t>() { return Dtype::Int16; }
template <> constexpr Dtype dtype_of<int32_t>() { return Dtype::Int32; }
template <> constexpr Dtype dtype_of<int64_t>() { return Dtype::Int64; }
template <> constexpr Dtype dtype_of<Half>() { return Dtype::Float16; }
template <> constexpr Dtype dtype_of<BFloat16>() { return Dtype::BFloat16; }
template <> constexpr Dtype dtype_of<float>() { return Dtype::Float32; }
template <> constexpr Dtype dtype_of<double>() { return Dtype::Float64; }

}  // namespace seqlab
