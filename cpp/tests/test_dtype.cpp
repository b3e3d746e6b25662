// Dtypes: torch's promotion table (promote, result_type's tiers), conversions between the
// integer types and from floats, wrapping integer arithmetic. The Python side, against torch:
// tests/test_int_dtypes.py.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

TEST(Dtype, PromoteIsTorchsTable) {
  using D = Dtype;
  // torch.promote_types for every pair (symmetric), written out as torch prints them
  const D all[] = {D::Bool, D::UInt8, D::Int8, D::Int16, D::Int32, D::Int64, D::Float16, D::BFloat16, D::Float32, D::Float64};
  const D H = D::Float16, B = D::BFloat16, F = D::Float32, G = D::Float64;
  const D table[10][10] = {
      /* bool     */ {D::Bool, D::UInt8, D::Int8, D::Int16, D::Int32, D::Int64, H, B, F, G},
      /* uint8    */ {D::UInt8, D::UInt8, D::Int16, D::Int16, D::Int32, D::Int64, H, B, F, G},
      /* int8     */ {D::Int8, D::Int16, D::Int8, D::Int16, D::Int32, D::Int64, H, B, F, G},
      /* int16    */ {D::Int16, D::Int16, D::Int16, D::Int16, D::Int32, D::Int64, H, B, F, G},
      /* int32    */ {D::Int32, D::Int32, D::Int32, D::Int32, D::Int32, D::Int64, H, B, F, G},
      /* int64    */ {D::Int64, D::Int64, D::Int64, D::Int64, D::Int64, D::Int64, H, B, F, G},
      /* float16  */ {H, H, H, H, H, H, H, F, F, G},
      /* bfloat16 */ {B, B, B, B, B, B, F, B, F, G},
      /* float32  */ {F, F, F, F, F, F, F, F, F, G},
      /* float64  */ {G, G, G, G, G, G, G, G, G, G}};
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) EXPECT_EQ(promote(all[i], all[j]), table[i][j]) << dtype_name(all[i]) << " " << dtype_name(all[j]);
  EXPECT_EQ(itemsize(D::Int16), 2u);
  EXPECT_EQ(itemsize(D::Float16), 2u);
  EXPECT_EQ(itemsize(D::BFloat16), 2u);
  EXPECT_STREQ(scalar_type_name(D::UInt8), "Byte");
  EXPECT_STREQ(scalar_type_name(D::Float16), "Half");
  EXPECT_TRUE(is_floating(D::BFloat16) && is_reduced_float(D::Float16) && !is_reduced_float(D::Float32));
}

// float32 -> float16 / bfloat16 bits, as torch 2.13 rounds them (x.half().view(int16)): ties to
// even at 1 + 2^-11 and at the subnormals 2^-25 and 1.5 * 2^-24, overflow past 65520 to inf,
// bfloat16's subnormal 2^-126 kept.
TEST(Dtype, SixteenBitFloatsRoundAsTorch) {
  struct Case {
    float x;
    uint16_t half, bf16;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const Case cases[] = {{0.0f, 0x0000, 0x0000},          {-0.0f, 0x8000, 0x8000},
                        {1.0f, 0x3c00, 0x3f80},          {65504.0f, 0x7bff, 0x4780},
                        {65519.99f, 0x7bff, 0x4780},     {65520.0f, 0x7c00, 0x4780},
                        {1e-8f, 0x0000, 0x322c},         {2.9802322387695312e-08f, 0x0000, 0x3300},
                        {5.960464477539063e-08f, 0x0001, 0x3380}, {8.940696716308594e-08f, 0x0002, 0x33c0},
                        {6.097555160522461e-05f, 0x03ff, 0x3880}, {1.00048828125f, 0x3c00, 0x3f80},
                        {1.0014648f, 0x3c02, 0x3f80},    {inf, 0x7c00, 0x7f80},
                        {-inf, 0xfc00, 0xff80},          {3.14159265f, 0x4248, 0x4049},
                        {-2.5e-05f, 0x81a3, 0xb7d2},     {1.1754943508222875e-38f, 0x0000, 0x0080},
                        {3.4e38f, 0x7c00, 0x7f80}};
  for (const Case& c : cases) {
    EXPECT_EQ(Half(c.x).x, c.half) << c.x;
    EXPECT_EQ(BFloat16(c.x).x, c.bf16) << c.x;
    // and back: every 16-bit value is exact in float32
    if (c.half != 0x7c00 && c.half != 0xfc00) EXPECT_EQ(Half(static_cast<float>(Half(c.x))).x, c.half);
    EXPECT_EQ(BFloat16(static_cast<float>(BFloat16(c.x))).x, c.bf16);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(nan))));
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(nan))));
  EXPECT_EQ(static_cast<float>(Half(5.960464477539063e-08f)), 5.960464477539063e-08f);  // the smallest subnormal, 2^-24
  // every float16 bit pattern survives float32 and back (NaNs stay NaN)
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    Half h;
    h.x = static_cast<uint16_t>(bits);
    const float f = h;
    if (std::isnan(f)) continue;
    EXPECT_EQ(Half(f).x, h.x) << bits;
  }
}

// A float16 tensor converts to and from the other dtypes through float32, as torch's copy.
TEST(Dtype, SixteenBitTensorsConvert) {
  Tensor x = Tensor::empty({3}, Dtype::Float32);
  x.data<float>()[0] = 1.5f, x.data<float>()[1] = -300.7f, x.data<float>()[2] = 70000.0f;
  const Tensor h = to_dtype(x, Dtype::Float16), b = to_dtype(x, Dtype::BFloat16);
  EXPECT_EQ(h.dtype(), Dtype::Float16);
  EXPECT_EQ(static_cast<float>(h.data<Half>()[1]), -300.75f);
  EXPECT_TRUE(std::isinf(static_cast<float>(h.data<Half>()[2])));
  EXPECT_EQ(static_cast<float>(b.data<BFloat16>()[2]), 70144.0f);
  const Tensor i = to_dtype(h, Dtype::Int32);
  EXPECT_EQ(i.data<int32_t>()[1], -300);
  EXPECT_EQ(to_dtype(b, Dtype::Float16).data<Half>()[0].x, Half(1.5f).x);
  EXPECT_EQ(to_dtype(slice(x, 0, 0, 1, 1), Dtype::Float16).item<double>(), 1.5);
  // creation fills 16-bit tensors directly (one conversion of the value)
  EXPECT_EQ(full({2}, 0.1, Dtype::Float16).data<Half>()[1].x, Half(0.1f).x);
  EXPECT_EQ(static_cast<float>(arange(0, 3, 0.5, Dtype::BFloat16).data<BFloat16>()[5]), 2.5f);
  EXPECT_EQ(static_cast<float>(eye(2, 2, Dtype::Float16).data<Half>()[3]), 1.0f);
  // arithmetic on them is refused by the kernels in torch's words (the bindings compute in float32)
  try {
    add(h, h, 1.0);
    FAIL() << "add of float16 tensors reached a kernel";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("not implemented for 'Half'"), std::string::npos) << e.what();
  }
}

TEST(Dtype, ResultTypeTiers) {
  const Tensor i8 = zeros({3}, Dtype::Int8), i8_0d = zeros({}, Dtype::Int8);
  // a 0-d int64 tensor does not widen an int8 tensor with dims; a 0-d float does raise it
  EXPECT_EQ(result_type(i8, zeros({}, Dtype::Int64)), Dtype::Int8);
  EXPECT_EQ(result_type(i8, zeros({}, Dtype::Float64)), Dtype::Float64);
  // two 0-d tensors promote; a Python number (wrapped) next to a 0-d tensor does not widen it
  EXPECT_EQ(result_type(i8_0d, zeros({}, Dtype::Int64)), Dtype::Int64);
  EXPECT_EQ(result_type(i8_0d, scalar_like(1000, i8_0d, true)), Dtype::Int8);
  EXPECT_EQ(result_type(i8_0d, scalar_like(2.5, i8_0d, false)), Dtype::Float32);
}

TEST(Dtype, ConversionsTruncateAndWrapAsTorch) {
  // floats truncate toward zero; uint8 takes negative floats through int64 (-1.0 -> 255)
  Tensor f = arange(-2.5, 3.0, 1.5, Dtype::Float64);  // -2.5, -1, 0.5, 2
  Tensor u8 = to_dtype(f, Dtype::UInt8);
  const uint8_t expect_u8[] = {254, 255, 0, 2};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(u8.data<uint8_t>()[i], expect_u8[i]);
  Tensor i16 = to_dtype(f, Dtype::Int16);
  const int16_t expect_i16[] = {-2, -1, 0, 2};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(i16.data<int16_t>()[i], expect_i16[i]);
  // integer to narrower integer: modulo 2^bits; back to int32 exactly
  Tensor big = full({2}, 300.0, Dtype::Int32);
  EXPECT_EQ(to_dtype(big, Dtype::Int8).data<int8_t>()[0], 44);
  EXPECT_EQ(to_dtype(to_dtype(big, Dtype::Int64), Dtype::Int32).data<int32_t>()[1], 300);
  EXPECT_TRUE(to_dtype(big, Dtype::Bool).data<bool>()[0]);
}

TEST(Dtype, IntegerArithmeticWrapsAndSumsInInt64) {
  Tensor a = full({2}, 127.0, Dtype::Int8);
  Tensor s = add(a, full({2}, 1.0, Dtype::Int8));
  EXPECT_EQ(s.dtype(), Dtype::Int8);
  EXPECT_EQ(s.data<int8_t>()[0], -128);
  Tensor m = mul(full({1}, 2147483647.0, Dtype::Int32), scalar_like(2, a, true));
  EXPECT_EQ(m.dtype(), Dtype::Int32);
  EXPECT_EQ(m.data<int32_t>()[0], -2);
  Tensor total = sum(a);
  EXPECT_EQ(total.dtype(), Dtype::Int64);
  EXPECT_EQ(total.item<int64_t>(), 254);
  EXPECT_EQ(add(zeros({2}, Dtype::UInt8), zeros({2}, Dtype::Int8)).dtype(), Dtype::Int16);
  // integer matmul wraps as torch's (100 * 3 = 300 = 44 mod 256); bool has no GEMM
  Tensor p = matmul(full({1, 1}, 100.0, Dtype::Int8), full({1, 1}, 3.0, Dtype::Int8));
  EXPECT_EQ(p.dtype(), Dtype::Int8);
  EXPECT_EQ(p.data<int8_t>()[0], 44);
  EXPECT_THROW(matmul(zeros({2, 2}, Dtype::Bool), zeros({2, 2}, Dtype::Bool)), NotImplementedError);
}
