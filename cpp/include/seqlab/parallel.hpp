// One thread pool for seqlab's loops and its GEMMs (OpenBLAS itself runs single-threaded, large
// products split in blocks over this pool: blas.cpp), so nothing oversubscribes the cores
// (seqlab.set_num_threads). cpp/src/parallel.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace seqlab {

// Sizes seqlab's pool, which also runs the GEMMs' blocks; n from 1 to max_threads() (4 per CPU),
// else std::runtime_error.
void set_num_threads(int64_t n);
int max_threads();
int get_num_threads();
// Run f(begin, end) over [0, n) in chunks of at least `grain` on the pool (inline when small).
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& f);
// Flush-to-zero / denormals-are-zero on the calling thread; the pool runs the jobs it gets from
// that thread the same way (torch.set_flush_denormal; off by default, as in torch).
bool set_flush_denormal(bool on);
std::string blas_info();  // "OpenBLAS 0.3.x DYNAMIC_ARCH ... (core: Haswell)"

}  // namespace seqlab
