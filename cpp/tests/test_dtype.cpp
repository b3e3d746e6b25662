// Dtypes: torch's promotion table (promote, result_type's tiers), conversions between the
// integer types and from floats, wrapping integer arithmetic. The Python side, against torch:
// tests/test_int_dtypes.py.
#include <gtest/gtest.h>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

TEST(Dtype, PromoteIsTorchsTable) {
  using D = Dtype;
  // torch.promote_types for every pair (symmetric), written out as torch prints them
  const D all[] = {D::Bool, D::UInt8, D::Int8, D::Int16, D::Int32, D::Int64, D::Float32, D::Float64};
  const D table[8][8] = {
      /* bool    */ {D::Bool, D::UInt8, D::Int8, D::Int16, D::Int32, D::Int64, D::Float32, D::Float64},
      /* uint8   */ {D::UInt8, D::UInt8, D::Int16, D::Int16, D::Int32, D::Int64, D::Float32, D::Float64},
      /* int8    */ {D::Int8, D::Int16, D::Int8, D::Int16, D::Int32, D::Int64, D::Float32, D::Float64},
      /* int16   */ {D::Int16, D::Int16, D::Int16, D::Int16, D::Int32, D::Int64, D::Float32, D::Float64},
      /* int32   */ {D::Int32, D::Int32, D::Int32, D::Int32, D::Int32, D::Int64, D::Float32, D::Float64},
      /* int64   */ {D::Int64, D::Int64, D::Int64, D::Int64, D::Int64, D::Int64, D::Float32, D::Float64},
      /* float32 */ {D::Float32, D::Float32, D::Float32, D::Float32, D::Float32, D::Float32, D::Float32, D::Float64},
      /* float64 */ {D::Float64, D::Float64, D::Float64, D::Float64, D::Float64, D::Float64, D::Float64, D::Float64}};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(promote(all[i], all[j]), table[i][j]) << dtype_name(all[i]) << " " << dtype_name(all[j]);
  EXPECT_EQ(itemsize(D::Int16), 2u);
  EXPECT_STREQ(scalar_type_name(D::UInt8), "Byte");
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
