// The kernels of vec_math_impl.hpp for xsimd::sse2 (this file is compiled with its flags).
#include "simd/vec_math_impl.hpp"

namespace seqlab::simd {
template void UnaryKernel::operator()<xsimd::sse2, float>(xsimd::sse2, VecOp, const float*, float*, int64_t) const noexcept;
template void UnaryKernel::operator()<xsimd::sse2, double>(xsimd::sse2, VecOp, const double*, double*, int64_t) const noexcept;
template void BinaryKernel::operator()<xsimd::sse2, float>(xsimd::sse2, BinOp, const float*, const float*, bool, float, float*, int64_t) const noexcept;
template void BinaryKernel::operator()<xsimd::sse2, double>(xsimd::sse2, BinOp, const double*, const double*, bool, double, double*, int64_t) const noexcept;
template double SumKernel::operator()<xsimd::sse2, float>(xsimd::sse2, const float*, int64_t) const noexcept;
template double SumKernel::operator()<xsimd::sse2, double>(xsimd::sse2, const double*, int64_t) const noexcept;
}  // namespace seqlab::simd
