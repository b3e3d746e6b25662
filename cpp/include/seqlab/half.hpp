// The two 16-bit float storage types, float16 (IEEE 754 binary16: 1 sign, 5 exponent, 10
// mantissa bits) and bfloat16 (the top half of a float32: 1, 8, 7), as torch stores them
// (c10::Half, c10::BFloat16). seqlab keeps them for storage; arithmetic goes through float32, one
// rounding per op, as torch's CPU kernels do. Tests: tests/test_half_dtypes.py.
#pragma once
#include <cstdint>
#include <cstring>

namespace seqlab {

namespace half_bits {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// binary16 -> float32, exact (every binary16 value is a float32 value).
inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13));  // inf, NaN (payload kept)
  if (exp != 0) return bits_float(sign | ((exp + 112) << 23) | (man << 13));  // normal: rebias 15 -> 127
  // zero or subnormal: man * 2^-24, exact in float32
  const float v = static_cast<float>(man) * 5.9604644775390625e-8f;
  return sign ? -v : v;
}

// float32 -> binary16, rounding to nearest with ties to even; overflow gives inf, NaN stays NaN.
inline uint16_t float_to_half(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return static_cast<uint16_t>(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds past 65504
  if (a < 0x38800000u) {
    // below 2^-14: a subnormal of binary16 (or zero); the float's value in units of 2^-24,
    // rounded to nearest even by adding 0.5 ulp in a float whose ulp is 2^-24 · 1.
    const float mag = bits_float(a) + 0.5f;  // 0.5 = 2^-1: its ulp is 2^-24, so the add rounds
    return static_cast<uint16_t>(sign | (float_bits(mag) - 0x3f000000u));
  }
  // normal: drop 13 mantissa bits with round-to-nearest-even, then rebias the exponent 127 -> 15
  const uint32_t odd = (a >> 13) & 1u;
  const uint32_t r = a + 0xfffu + odd;
  return static_cast<uint16_t>(sign | ((r - 0x38000000u) >> 13));
}

// bfloat16 -> float32, exact.
inline float bfloat16_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }

// float32 -> bfloat16, nearest with ties to even (torch's round_to_nearest_even); NaN -> quiet NaN.
inline uint16_t float_to_bfloat16(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace half_bits

// The element types. Each converts to and from float32 (and, through it, any arithmetic type),
// so a copy or a comparison reads as with float; arithmetic on them is float arithmetic.
struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) : x(half_bits::float_to_half(f)) {}  // NOLINT: implicit, as c10::Half
  template <typename T, typename = decltype(static_cast<float>(T()))>
  Half(T v) : Half(static_cast<float>(v)) {}  // NOLINT
  operator float() const { return half_bits::half_to_float(x); }  // NOLINT
};
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) : x(half_bits::float_to_bfloat16(f)) {}  // NOLINT
  template <typename T, typename = decltype(static_cast<float>(T()))>
  BFloat16(T v) : BFloat16(static_cast<float>(v)) {}  // NOLINT
  operator float() const { return half_bits::bfloat16_to_float(x); }  // NOLINT
};

}  // namespace seqlab
