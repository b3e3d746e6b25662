// seqlab's thread pool (seqlab.set_num_threads), which runs its loops and its GEMMs' blocks
// (OpenBLAS stays on one thread), so nothing oversubscribes the cores. The threads claim a job's
// tasks from a shared counter (a preempted thread's share is taken by the others), spin at most
// 50 µs between jobs and then sleep, and run each job with its caller's flush-to-zero setting.
#include "seqlab/parallel.hpp"

#include <sched.h>
#include <xmmintrin.h>

#include <algorithm>
#include <chrono>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <cblas.h>

namespace seqlab {

namespace {

thread_local bool in_worker = false;
constexpr int64_t kTasksPerThread = 4;
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bits: flush-to-zero (15) and denormals-are-zero (6)

int default_threads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Spin (with pause) for up to this long before sleeping: a back-to-back op then starts in a
// microsecond instead of a futex wake-up's tens, and a thread never spins for long while
// another process needs the core (a bound in time, not in pause instructions, whose cost varies
// from ~10 to ~140 cycles between CPUs).
constexpr auto kSpinTime = std::chrono::microseconds(50);

template <class Done>
bool spin_until(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  while (true) {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      _mm_pause();
    }
    if (std::chrono::steady_clock::now() >= until) return done();
    sched_yield();  // a thread of another process waiting for this core runs first
  }
}

// The pool. A job is `tasks` numbered tasks that every thread, the caller included, claims one at
// a time from a shared counter until none is left. Nobody owns a fixed share, so when another
// process takes a core and a worker is descheduled, the threads still running take its tasks
// instead of waiting for it (a fixed split made the whole op wait for the preempted thread).
//
// claim_ = job number << 32 | next task. Starting job g first closes the counter under g's
// number (kClosed: nothing to claim), then writes the job, then opens it at task 0. A worker
// claims task i of job g by a compare-and-swap from (g, i) to (g, i + 1), so a worker that read
// an older job's state cannot claim from a newer job, and a successful claim means job g is still
// running (its caller waits for every claimed task), so the job it then reads is g's.
class Pool {
 public:
  explicit Pool(int threads) { resize(threads); }
  ~Pool() { stop(); }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int threads) {
    stop();
    stopping_ = false;
    try {
      for (int i = 0; i < threads - 1; ++i) workers_.emplace_back([this, gen = generation_.load()] { loop(gen); });
    } catch (...) {  // std::system_error when the system has no thread to give: join those started
      stop();
      throw;
    }
  }

  // Runs job(k) for every k in [0, tasks) on the caller and the workers; returns when all ran.
  void run(int tasks, const std::function<void(int)>& job) {
    const uint64_t g = ++jobs_;  // only one caller at a time (g_pool_mutex)
    claim_.store(g << 32 | kClosed);
    job_.store(&job, std::memory_order_relaxed);
    ftz_daz_.store(_mm_getcsr() & kFtzDaz, std::memory_order_relaxed);
    done_count_.store(0, std::memory_order_relaxed);
    tasks_.store(tasks, std::memory_order_release);
    claim_.store(g << 32, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(m_);  // no lost wake-up for a worker about to sleep
      generation_.fetch_add(1, std::memory_order_release);
    }
    if (sleepers_.load() > 0) cv_.notify_all();
    work();
    auto all_done = [&] { return done_count_.load(std::memory_order_acquire) == tasks; };
    if (!spin_until(all_done)) {
      std::unique_lock<std::mutex> lock(m_);
      done_.wait(lock, all_done);
    }
    job_.store(nullptr, std::memory_order_relaxed);
    std::exception_ptr error = std::exchange(error_, nullptr);
    if (error) std::rethrow_exception(error);
  }

 private:
  static constexpr uint64_t kClosed = 0xffffffffu;

  // Claims and runs tasks of the current job until none is left.
  void work() {
    uint64_t c = claim_.load(std::memory_order_acquire);
    while (true) {
      const int tasks = tasks_.load(std::memory_order_acquire);
      if ((c & kClosed) >= static_cast<uint64_t>(tasks)) return;
      if (!claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      const int k = static_cast<int>(c & kClosed);
      // The caller's flush-to-zero / denormals-are-zero (off unless seqlab.set_flush_denormal(True),
      // as in torch), so that a result's bits do not depend on which thread computed it.
      const unsigned csr = _mm_getcsr(), want = (csr & ~kFtzDaz) | ftz_daz_.load(std::memory_order_relaxed);
      if (csr != want) _mm_setcsr(want);
      try {
        (*job_.load(std::memory_order_relaxed))(k);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m_);
        if (!error_) error_ = std::current_exception();  // rethrown by run()
      }
      if (done_count_.fetch_add(1, std::memory_order_acq_rel) + 1 == tasks) {
        std::lock_guard<std::mutex> lock(m_);
        done_.notify_all();
      }
      c = claim_.load(std::memory_order_acquire);
    }
  }

  void loop(uint64_t seen) {
    in_worker = true;
    while (true) {
      auto woken = [&] { return stopping_ || generation_.load(std::memory_order_acquire) != seen; };
      if (!spin_until(woken)) {
        std::unique_lock<std::mutex> lock(m_);
        ++sleepers_;
        cv_.wait(lock, woken);
        --sleepers_;
      }
      if (stopping_) return;
      seen = generation_.load(std::memory_order_acquire);
      work();
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable cv_, done_;
  uint64_t jobs_ = 0;
  std::atomic<uint64_t> claim_{kClosed};
  std::atomic<const std::function<void(int)>*> job_{nullptr};
  std::atomic<int> tasks_{0};
  std::atomic<unsigned> ftz_daz_{0};  // the caller's MXCSR bits for the job
  std::atomic<int> done_count_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::exception_ptr error_;
};

int g_threads = 0;
std::mutex g_pool_mutex;

Pool& pool() {
  static Pool p([] {
    g_threads = default_threads();
    // OpenBLAS stays on one thread: seqlab splits large products over this pool (blas.cpp).
    scipy_openblas_set_num_threads(1);
    return g_threads;
  }());
  return p;
}

}  // namespace

// The most threads set_num_threads accepts: 4 per CPU. A compute pool gains nothing from
// threads beyond the cores (they only take turns on them), 4 per CPU still lets a test
// oversubscribe on purpose, and set_num_threads(10**6) is refused before a million threads
// (8 MiB of stack reserved each) are started. (OpenBLAS caps its own count at its MAX_THREADS, 64.)
int max_threads() {
  return 4 * std::max(default_threads(), static_cast<int>(std::thread::hardware_concurrency()));
}

void set_num_threads(int64_t n) {
  // torch's wording and type (RuntimeError) for n < 1.
  if (n < 1) throw std::runtime_error("set_num_threads expects a positive integer, got " + std::to_string(n));
  if (n > max_threads())
    throw std::runtime_error("set_num_threads: " + std::to_string(n) + " threads is more than " +
                             std::to_string(max_threads()) + ", 4 per CPU of this machine");
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  try {
    pool().resize(static_cast<int>(n));
  } catch (...) {  // the system refused a thread: keep the pool at its old size
    pool().resize(g_threads);
    throw;
  }
  g_threads = static_cast<int>(n);
}

int get_num_threads() {
  pool();
  return g_threads;
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (in_worker || n <= grain) {
    f(0, n);
    return;
  }
  std::unique_lock<std::mutex> lock(g_pool_mutex, std::try_to_lock);
  if (!lock.owns_lock()) {  // another thread is using the pool: run inline
    f(0, n);
    return;
  }
  Pool& p = pool();
  // Up to kTasksPerThread tasks per thread, so that a thread descheduled by another process
  // holds up at most a small task while the others take the rest.
  const int chunks = static_cast<int>(std::min<int64_t>(int64_t(p.size()) * kTasksPerThread, (n + grain - 1) / grain));
  if (chunks <= 1) {
    f(0, n);
    return;
  }
  const int64_t per = (n + chunks - 1) / chunks;
  p.run(chunks, [&](int k) {
    const int64_t b = k * per, e = std::min(n, b + per);
    if (b < e) f(b, e);
  });
}

bool set_flush_denormal(bool on) {
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(on ? (csr | kFtzDaz) : (csr & ~kFtzDaz));
  return true;
}

std::string blas_info() {
  return std::string(scipy_openblas_get_config()) + " (core: " + scipy_openblas_get_corename() + ")";
}

}  // namespace seqlab
