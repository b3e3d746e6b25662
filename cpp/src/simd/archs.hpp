// The instruction sets seqlab's kernels are compiled for, best first: xsimd::dispatch picks the
// first the CPU has. One list for every dispatcher (vec_math.cpp, panel_gemm.cpp), each ISA's
// kernels instantiated in its vec_math_<isa>.cpp.
#pragma once
#include <xsimd/xsimd.hpp>

namespace seqlab::simd {
using Archs = xsimd::arch_list<xsimd::avx512f, xsimd::fma3<xsimd::avx2>, xsimd::sse2>;
}  // namespace seqlab::simd
