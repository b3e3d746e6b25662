// Giving freed heap memory back to the operating system between the phases of a large job.
// glibc keeps freed blocks below its mmap threshold (which rises to 32 MiB as large blocks are
// freed) in the heap; after a phase that allocated and freed hundreds of MiB (encoding a
// corpus, counting n-grams), the next phase's peak resident memory would still include them.
#pragma once
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace seqlab {

inline void release_free_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace seqlab
