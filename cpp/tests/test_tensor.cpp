// Tensor basics: allocation, views sharing storage and version counter, contiguity.
#include <gtest/gtest.h>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

TEST(Tensor, EmptyHasContiguousStrides) {
  Tensor t = Tensor::empty({2, 3, 4});
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.strides(), (Shape{12, 4, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.dtype(), Dtype::Float32);
}

TEST(Tensor, TransposeIsAViewSharingStorageAndVersion) {
  Tensor a = arange(0, 6, 1, Dtype::Float32);
  Tensor m = view(a, {2, 3});
  Tensor mt = transpose(m, 0, 1);
  EXPECT_EQ(mt.shape(), (Shape{3, 2}));
  EXPECT_FALSE(mt.is_contiguous());
  EXPECT_EQ(mt.raw_data(), a.raw_data());
  const uint32_t v = a.version();
  fill_(mt, 1.0);
  EXPECT_EQ(a.version(), v + 1);
  EXPECT_EQ(a.data<float>()[5], 1.0f);
}

TEST(Tensor, ViewOfNonContiguousThrowsReshapeCopies) {
  Tensor m = transpose(view(arange(0, 6, 1, Dtype::Float32), {2, 3}), 0, 1);
  EXPECT_THROW(view(m, {6}), std::runtime_error);
  Tensor r = reshape(m, {6});
  EXPECT_TRUE(r.is_contiguous());
  // m = [[0, 3], [1, 4], [2, 5]] flattened row-major
  const float expect[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.data<float>()[i], expect[i]);
}

TEST(Tensor, WrongDtypeAccessThrows) {
  Tensor t = zeros({2}, Dtype::Int64);
  EXPECT_THROW(t.data<float>(), std::runtime_error);
}

TEST(Tensor, DimOutOfRangeIsIndexError) {
  Tensor t = zeros({2, 3});
  EXPECT_THROW(t.size(2), std::out_of_range);
  EXPECT_EQ(t.size(-1), 3);
}
