// Shape and size edge cases, in C++, so that the sanitizer build (make asan-test)
// runs them under ASan/UBSan: each must throw the C++ exception the Python layer turns into
// torch's error (std::out_of_range -> IndexError, runtime_error -> RuntimeError), or give torch's
// result, and never read or write outside a buffer or overflow a signed integer.
// (Allocations that merely fail are not tried here: ASan aborts on those instead of throwing.)
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "seqlab/seqlab.hpp"

using namespace seqlab;

namespace {

constexpr int64_t kHuge = int64_t{1} << 62;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

Tensor scalar() { return full({}, 2.5); }
Tensor iota(int64_t n) { return arange(0, static_cast<double>(n), 1, Dtype::Float32); }
Tensor ids(std::initializer_list<int64_t> v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, Dtype::Int64);
  int64_t i = 0;
  for (int64_t x : v) t.data<int64_t>()[i++] = x;
  return t;
}

}  // namespace

// ------------------------------------------------------------------ 0-d tensors and dims
TEST(EdgeCases, ZeroDimTensorsRefuseOpsThatNeedARealDim) {
  const Tensor s = scalar();
  EXPECT_THROW(narrow(s, 0, 0, 1), std::runtime_error);
  EXPECT_THROW(narrow(s, -1, 0, 0), std::runtime_error);
  EXPECT_THROW(chunk(s, 2, 0), std::runtime_error);
  EXPECT_THROW(split(s, 1, 0), std::runtime_error);
  EXPECT_THROW(split(s, std::vector<int64_t>{1}, 0), std::runtime_error);
  EXPECT_THROW(select(s, 0, 0), std::out_of_range);
  EXPECT_THROW(s.size(0), std::out_of_range);
  EXPECT_THROW(wrap_dim(0, 0, "unbind", /*wrap_scalar=*/false), std::out_of_range);
}

TEST(EdgeCases, ZeroDimTensorsTakeDimZeroOrMinusOneWhereTheyAreOneElement) {
  const Tensor s = scalar();
  EXPECT_EQ(index_select(s, 0, ids({0})).shape(), Shape{});
  EXPECT_THROW(index_select(s, -1, ids({0, 0})), std::runtime_error);  // torch: "Index to scalar can have only 1 value"
  EXPECT_THROW(index_select(s, 1, ids({0})), std::out_of_range);
  EXPECT_THROW(index_select(s, 0, ids({1})), std::out_of_range);
  EXPECT_EQ(flatten(s, 0, -1).shape(), Shape{1});
  EXPECT_THROW(flatten(s, 1, 1), std::out_of_range);
  EXPECT_EQ(sum(s, {0}).shape(), Shape{});
  EXPECT_THROW(sum(s, {1}), std::out_of_range);
}

TEST(EdgeCases, DimsOutOfRangeThrowForEveryShapeOp) {
  const Tensor x = view(iota(6), {2, 3});
  for (int64_t dim : {int64_t{2}, int64_t{-3}, kMax, std::numeric_limits<int64_t>::min()}) {
    EXPECT_THROW(narrow(x, dim, 0, 1), std::out_of_range) << dim;
    EXPECT_THROW(chunk(x, 2, dim), std::out_of_range) << dim;
    EXPECT_THROW(split(x, 1, dim), std::out_of_range) << dim;
    EXPECT_THROW(index_select(x, dim, ids({0})), std::out_of_range) << dim;
    EXPECT_THROW(flatten(x, dim, -1), std::out_of_range) << dim;
    EXPECT_THROW(select(x, dim, 0), std::out_of_range) << dim;
  }
}

// ------------------------------------------------------------------ narrow / chunk / split limits
TEST(EdgeCases, NarrowRefusesStartsAndLengthsPastTheEndWithoutOverflow) {
  const Tensor x = iota(4);
  EXPECT_THROW(narrow(x, 0, kMax, 1), std::out_of_range);
  EXPECT_THROW(narrow(x, 0, 1, kMax), std::runtime_error);  // start + length would overflow
  EXPECT_THROW(narrow(x, 0, 0, -1), std::runtime_error);
  EXPECT_EQ(narrow(x, 0, 4, 0).shape(), Shape{0});
  EXPECT_EQ(narrow(x, 0, -4, 4).shape(), Shape{4});
}

TEST(EdgeCases, ChunkAndSplitTakeHugeCountsAndSizes) {
  const Tensor x = iota(5);
  EXPECT_EQ(chunk(x, kMax, 0).size(), 5u);  // ceil(5 / chunks) = 1: pieces of one element
  EXPECT_EQ(split(x, kMax, 0).size(), 1u);
  EXPECT_EQ(split(x, kHuge, 0)[0].shape(), Shape{5});
  EXPECT_THROW(chunk(x, 0, 0), std::runtime_error);
  EXPECT_THROW(split(x, -1, 0), std::invalid_argument);
  EXPECT_THROW(split(x, std::vector<int64_t>{kMax, 1}, 0), std::runtime_error);  // the sizes' sum overflows
  EXPECT_THROW(split(x, std::vector<int64_t>{6, -1}, 0), std::runtime_error);
  const Tensor empty = Tensor::empty({0, 3});
  EXPECT_EQ(chunk(empty, 3, 0).size(), 3u);  // torch: `chunks` empty pieces of an empty dim
  EXPECT_EQ(split(empty, 0, 0).size(), 1u);
}

// ------------------------------------------------------------------ sizes
TEST(EdgeCases, SizeZeroDimsAreEmptyNotOverflows) {
  EXPECT_EQ(zeros({0, kHuge}).numel(), 0);
  EXPECT_THROW(zeros({0, kHuge, kHuge}), std::runtime_error);  // torch: "Stride calculation overflowed"
  EXPECT_EQ(sum(zeros({0, 4})).item<float>(), 0.0f);
  EXPECT_EQ(contiguous(transpose(zeros({0, 3}), 0, 1)).shape(), (Shape{3, 0}));
  EXPECT_EQ(eye(0, 5).shape(), (Shape{0, 5}));
  EXPECT_EQ(index_select(zeros({0, 2}), 1, ids({1, 0})).shape(), (Shape{0, 2}));
}

TEST(EdgeCases, OverflowingShapesThrowBeforeAllocating) {
  EXPECT_THROW(zeros({kHuge, kHuge}), std::runtime_error);
  EXPECT_THROW(Tensor::empty({kMax / 2}, Dtype::Float64), std::runtime_error);  // numel fits, bytes do not
  EXPECT_THROW(full({kMax, 2}, 2.5), std::runtime_error);
  EXPECT_THROW(eye(kHuge, kHuge), std::runtime_error);
  EXPECT_THROW(zeros({-1, 2}), std::runtime_error);
  try {
    zeros({int64_t{1} << 40, int64_t{1} << 40});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Storage size calculation overflowed"), std::string::npos) << e.what();
  }
}

TEST(EdgeCases, HugeExpandsAreViewsAndOverflowingOnesAreRefused) {
  const Tensor x = view(iota(1), {1, 1});
  EXPECT_THROW(expand(x, {kHuge, kHuge}), std::runtime_error);  // torch: "numel: integer multiplication overflow"
  EXPECT_THROW(expand(x, {kHuge, 2}), std::runtime_error);  // 2^63 elements
  const Tensor big = expand(x, {kHuge, 1});  // a view: no memory, stride 0
  EXPECT_EQ(big.shape(), (Shape{kHuge, 1}));
  EXPECT_EQ(big.strides()[0], 0);
  EXPECT_THROW(contiguous(big), std::runtime_error);  // 2^62 floats: the byte count overflows
  EXPECT_THROW(expand(x, {-2, 1}), std::runtime_error);
}

// ------------------------------------------------------------------ gather / scatter bounds
TEST(EdgeCases, GatherAndScatterCheckEveryIndexBeforeWriting) {
  const Tensor x = view(iota(6), {2, 3});
  const Tensor bad = view(ids({0, 3}), {1, 2});  // 3 is past dim 1's size
  EXPECT_THROW(gather(x, 1, bad), std::runtime_error);
  EXPECT_THROW(gather(x, 0, view(ids({-1, 0}), {1, 2})), std::runtime_error);
  Tensor target = zeros({2, 3});
  EXPECT_THROW(scatter_add_(target, 1, bad, ones({1, 2})), std::runtime_error);
  EXPECT_EQ(sum(target).item<float>(), 0.0f);  // nothing written before the check
  // an index larger than src in a dim that is not scattered (a heap over-read once)
  const Tensor wide = view(ids({0, 1, 2, 0, 1, 2}), {2, 3});
  EXPECT_THROW(scatter_add_(target, 0, wide, ones({1, 1})), std::runtime_error);
  EXPECT_THROW(index_select(x, 0, ids({2})), std::out_of_range);
  EXPECT_THROW(index_select(x, 1, ids({kMax})), std::out_of_range);
  EXPECT_THROW(embedding(ids({5}), zeros({3, 2})), std::out_of_range);
}

// ------------------------------------------------------------------ self-overlapping writes
TEST(EdgeCases, InPlaceWritesToAnExpandedTensorAreRefused) {
  Tensor e = expand(view(iota(3), {1, 3}), {4, 3});
  EXPECT_THROW(add_(e, ones({4, 3})), std::runtime_error);
  const Tensor index = view(ids({0, 0, 0, 0}), {4, 1});
  EXPECT_THROW(scatter_add_(e, 0, index, ones({4, 1})), std::runtime_error);
  EXPECT_FLOAT_EQ(iota(3).data<float>()[2], 2.0f);
  fill_(e, 1.0);  // filling is legal, as in torch: every element gets the same value
  EXPECT_EQ(contiguous(e).data<float>()[11], 1.0f);
}
