// The instruction sets seqlab's kernels are compiled for, and the one dispatcher every kernel
// family goes through (vec_math.cpp, panel_gemm.cpp): it calls the functor with the xsimd
// architecture of simd::active_isa() (the CPU's best, or SEQLAB_ISA's cap). Each ISA's kernels
// are instantiated in its vec_math_<isa>.cpp, compiled with that ISA's flags.
#pragma once
#include <utility>

#include <xsimd/xsimd.hpp>

#include "simd/isa.hpp"

namespace seqlab::simd {

using ArchAvx512 = xsimd::avx512f;
using ArchAvx2 = xsimd::fma3<xsimd::avx2>;
using ArchSse2 = xsimd::sse2;

// f(Arch{}, args...) for the architecture of `isa`. A switch on one relaxed atomic load per call
// (xsimd::dispatch fixes the choice at construction, so it could not follow SEQLAB_ISA's tests).
template <class F, class... Args>
decltype(auto) dispatch_to(Isa isa, const F& f, Args&&... args) {
  switch (isa) {
    case Isa::avx512: return f(ArchAvx512{}, std::forward<Args>(args)...);
    case Isa::avx2: return f(ArchAvx2{}, std::forward<Args>(args)...);
    default: return f(ArchSse2{}, std::forward<Args>(args)...);
  }
}
template <class F, class... Args>
decltype(auto) dispatch(const F& f, Args&&... args) {
  return dispatch_to(active_isa(), f, std::forward<Args>(args)...);
}

}  // namespace seqlab::simd
