// seqlab's thread pool and the BLAS thread count, set together (seqlab.set_num_threads), so
// that BLAS threads and seqlab's loops never oversubscribe the cores. Workers sleep on a
// condition variable between jobs (no spinning that would steal a core from OpenBLAS) and
// run with flush-to-zero / denormals-are-zero.
#include "seqlab/parallel.hpp"

#include <sched.h>
#include <xmmintrin.h>

#include <algorithm>
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
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bits: flush-to-zero (15) and denormals-are-zero (6)

int default_threads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Workers spin briefly after each job (a back-to-back op then starts in a microsecond
// instead of a futex wake-up's tens), then sleep on a condition variable.
class Pool {
 public:
  explicit Pool(int threads) { resize(threads); }
  ~Pool() { stop(); }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int threads) {
    stop();
    stopping_ = false;
    try {
      for (int i = 0; i < threads - 1; ++i)
        workers_.emplace_back([this, i, gen = generation_.load()] { loop(i + 1, gen); });
    } catch (...) {  // std::system_error when the system has no thread to give: join those started
      stop();
      throw;
    }
  }

  // Chunk k of `chunks` runs on worker k (k >= 1); the caller runs chunk 0.
  void run(int chunks, const std::function<void(int)>& job) {
    job_ = &job;
    chunks_ = chunks;
    pending_.store(chunks - 1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(m_);  // no lost wake-up for a worker about to sleep
      generation_.fetch_add(1, std::memory_order_release);
    }
    if (sleepers_.load() > 0) cv_.notify_all();
    std::exception_ptr error;
    try {
      job(0);
    } catch (...) {
      error = std::current_exception();
    }
    // Always wait for the workers: they still use `job` (and its captures) until they finish.
    for (int spin = 0; spin < kSpin && pending_.load(std::memory_order_acquire) > 0; ++spin) _mm_pause();
    if (pending_.load(std::memory_order_acquire) > 0) {
      std::unique_lock<std::mutex> lock(m_);
      done_.wait(lock, [this] { return pending_.load() == 0; });
    }
    job_ = nullptr;
    if (!error) error = std::exchange(worker_error_, nullptr);
    worker_error_ = nullptr;
    if (error) std::rethrow_exception(error);
  }

 private:
  static constexpr int kSpin = 4000;

  void loop(int id, uint64_t seen) {
    in_worker = true;
    _mm_setcsr(_mm_getcsr() | kFtzDaz);
    while (true) {
      for (int spin = 0; spin < kSpin && generation_.load(std::memory_order_acquire) == seen && !stopping_; ++spin)
        _mm_pause();
      if (generation_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lock(m_);
        ++sleepers_;
        cv_.wait(lock, [&] { return stopping_ || generation_.load() != seen; });
        --sleepers_;
      }
      if (stopping_) return;
      seen = generation_.load(std::memory_order_acquire);
      if (id >= chunks_) continue;
      try {
        (*job_)(id);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m_);
        if (!worker_error_) worker_error_ = std::current_exception();  // rethrown by run()
      }
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(m_);
        done_.notify_one();
      }
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
  const std::function<void(int)>* job_ = nullptr;
  int chunks_ = 0;
  std::atomic<int> pending_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::exception_ptr worker_error_;
};

int g_threads = 0;
std::mutex g_pool_mutex;

Pool& pool() {
  static Pool p([] {
    g_threads = default_threads();
    scipy_openblas_set_num_threads(g_threads);
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
  scipy_openblas_set_num_threads(g_threads);
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
  const int chunks = static_cast<int>(std::min<int64_t>(p.size(), (n + grain - 1) / grain));
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
