// Helpers shared by the C++ tests.
#pragma once
#include <gtest/gtest.h>

#include "seqlab/seqlab.hpp"

namespace seqlab::test {

// max |a − b| over two tensors of the same shape (0 when empty).
inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  const Tensor d = abs(sub(contiguous(a), contiguous(b)));
  return d.numel() ? max(d).item<double>() : 0.0;
}

}  // namespace seqlab::test
