// The thread pool: every index runs exactly once, nested calls run inline, an exception in any
// chunk reaches the caller with the pool still usable afterwards, and a stalled worker holds up
// only the task it claimed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
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

TEST(Parallel, AStalledWorkersShareIsTakenByTheOthers) {
  // A worker that stops (as when another process takes its core) holds up only the task it
  // claimed: the caller claims and runs every other task instead of waiting for a fixed share.
  set_num_threads(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> by_caller{0}, by_worker{0};
  std::atomic<bool> stalled{false};
  const int64_t n = 64;
  parallel_for(n, 1, [&](int64_t b, int64_t e) {
    if (std::this_thread::get_id() == caller) {
      by_caller += static_cast<int>(e - b);
      return;
    }
    by_worker += static_cast<int>(e - b);
    if (!stalled.exchange(true)) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  EXPECT_EQ(by_caller + by_worker, n);
  const int64_t task = n / 8;  // 2 threads x 4 tasks each
  EXPECT_LE(by_worker.load(), task);  // the worker ran at most the task it stalled in
}

TEST(Parallel, ManyShortJobsBackToBack) {
  // Jobs follow each other faster than a worker wakes: each task of each job runs exactly once.
  set_num_threads(2);
  std::vector<std::atomic<int>> hits(8 * 1000);
  for (int job = 0; job < 1000; ++job)
    parallel_for(8, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[job * 8 + i]++;
    });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}
