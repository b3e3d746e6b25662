// The kernels of vec_math_impl.hpp for xsimd::sse2 (this file is compiled with its flags).
#include "simd/vec_math_impl.hpp"
#include "simd/softmax_impl.hpp"
#include "simd/panel_gemm_impl.hpp"

namespace seqlab::simd {
template void UnaryKernel::operator()<xsimd::sse2, float>(xsimd::sse2, VecOp, const float*, float*, int64_t) const noexcept;
template void UnaryKernel::operator()<xsimd::sse2, double>(xsimd::sse2, VecOp, const double*, double*, int64_t) const noexcept;
template void BinaryKernel::operator()<xsimd::sse2, float>(xsimd::sse2, BinOp, const float*, const float*, bool, float, float*, int64_t, int64_t) const noexcept;
template void BinaryKernel::operator()<xsimd::sse2, double>(xsimd::sse2, BinOp, const double*, const double*, bool, double, double*, int64_t, int64_t) const noexcept;
template double SumKernel::operator()<xsimd::sse2, float>(xsimd::sse2, const float*, int64_t) const noexcept;
template double SumKernel::operator()<xsimd::sse2, double>(xsimd::sse2, const double*, int64_t) const noexcept;
template float MaxKernel::operator()<xsimd::sse2, float>(xsimd::sse2, const float*, int64_t) const noexcept;
template double MaxKernel::operator()<xsimd::sse2, double>(xsimd::sse2, const double*, int64_t) const noexcept;
template double ExpSumKernel::operator()<xsimd::sse2, float>(xsimd::sse2, const float*, float, float*, int64_t) const noexcept;
template double ExpSumKernel::operator()<xsimd::sse2, double>(xsimd::sse2, const double*, double, double*, int64_t) const noexcept;
template void PanelGemmKernel::operator()<xsimd::sse2, float>(xsimd::sse2, const float*, int64_t, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*, int64_t, bool) const noexcept;
template void PanelGemmKernel::operator()<xsimd::sse2, double>(xsimd::sse2, const double*, int64_t, int64_t, int64_t, const double*, int64_t, int64_t, int64_t, int64_t, int64_t, double*, int64_t, bool) const noexcept;
template int64_t PanelWidthKernel::operator()<xsimd::sse2, float>(xsimd::sse2, float) const noexcept;
template int64_t PanelWidthKernel::operator()<xsimd::sse2, double>(xsimd::sse2, double) const noexcept;
template std::pair<int, int> PanelTileKernel::operator()<xsimd::sse2>(xsimd::sse2) const noexcept;
SEQLAB_ROW_KERNELS(template, xsimd::sse2)
}  // namespace seqlab::simd
