// The thread pool: every index runs exactly once, nested calls run inline, and an exception
// in any chunk reaches the caller with the pool still usable afterwards.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "seqlab/parallel.hpp"

using namespace seqlab;

TEST(Parallel, CoversEveryIndexOnce) {
  set_num_threads(2);
  std::vector<std::atomic<int>> hits(100000);
  parallel_for(100000, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[i]++;
    parallel_for(10, 1, [](int64_t, int64_t) {});  // nested: runs inline
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(Parallel, ExceptionsReachTheCallerAndThePoolSurvives) {
  set_num_threads(2);
  for (int64_t bad : {int64_t{0}, int64_t{99999}}) {  // in the caller's chunk, then in the worker's
    EXPECT_THROW(parallel_for(100000, 1000,
                              [&](int64_t b, int64_t e) {
                                if (b <= bad && bad < e) throw std::runtime_error("boom");
                              }),
                 std::runtime_error);
  }
  std::atomic<int64_t> total{0};
  parallel_for(100000, 1000, [&](int64_t b, int64_t e) { total += e - b; });
  EXPECT_EQ(total.load(), 100000);
}

TEST(Parallel, ThreadCountRoundTrips) {
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  set_num_threads(2);
  EXPECT_EQ(get_num_threads(), 2);
  EXPECT_THROW(set_num_threads(0), std::runtime_error);
  EXPECT_THROW(set_num_threads(-1), std::runtime_error);
  EXPECT_THROW(set_num_threads(int64_t{1} << 40), std::runtime_error);  // refused before any thread starts
  EXPECT_THROW(set_num_threads(max_threads() + 1), std::runtime_error);
  EXPECT_EQ(get_num_threads(), 2);
}
