// Giving freed heap memory back to the operating system between the phases of a large job.
// glibc keeps freed blocks below its mmap threshold (which rises to 32 MiB as large blocks are
// freed) in the heap; after a phase that allocated and freed hundreds of MiB (encoding a
// corpus, counting n-grams), the next phase's peak resident memory would still include them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace seqlab {

inline void release_free_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// Reserves room for n elements and asks for transparent huge pages (2 MiB) there, before the
// pages are first touched. An array read at random (the n-gram scorer's tables) otherwise
// misses the TLB at nearly every access with 4 KiB pages; KenLM asks the same for its tables.
// Linux's default THP mode, "madvise", gives huge pages only where asked.
template <class T>
void reserve_huge_pages(std::vector<T>& v, size_t n) {
  v.reserve(n);
#ifdef __linux__
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t begin = (p + kHuge - 1) & ~(kHuge - 1), end = (p + n * sizeof(T)) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: errors ignored
#endif
}

}  // namespace seqlab
