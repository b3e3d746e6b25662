// The kernels of vec_math_impl.hpp for xsimd::avx512f (this file is compiled with its flags).
#include "simd/vec_math_impl.hpp"
#include "simd/softmax_impl.hpp"
#include "simd/panel_gemm_impl.hpp"

namespace seqlab::simd {
template void UnaryKernel::operator()<xsimd::avx512f, float>(xsimd::avx512f, VecOp, const float*, float*, int64_t) const noexcept;
template void UnaryKernel::operator()<xsimd::avx512f, double>(xsimd::avx512f, VecOp, const double*, double*, int64_t) const noexcept;
template void BinaryKernel::operator()<xsimd::avx512f, float>(xsimd::avx512f, BinOp, const float*, const float*, bool, float, float*, int64_t, int64_t) const noexcept;
template void BinaryKernel::operator()<xsimd::avx512f, double>(xsimd::avx512f, BinOp, const double*, const double*, bool, double, double*, int64_t, int64_t) const noexcept;
template double SumKernel::operator()<xsimd::avx512f, float>(xsimd::avx512f, const float*, int64_t) const noexcept;
template double SumKernel::operator()<xsimd::avx512f, double>(xsimd::avx512f, const double*, int64_t) const noexcept;
template float MaxKernel::operator()<xsimd::avx512f, float>(xsimd::avx512f, const float*, int64_t) const noexcept;
template double MaxKernel::operator()<xsimd::avx512f, double>(xsimd::avx512f, const double*, int64_t) const noexcept;
template double ExpSumKernel::operator()<xsimd::avx512f, float>(xsimd::avx512f, const float*, float, float*, int64_t) const noexcept;
template double ExpSumKernel::operator()<xsimd::avx512f, double>(xsimd::avx512f, const double*, double, double*, int64_t) const noexcept;
template void PanelGemmKernel::operator()<xsimd::avx512f, float>(xsimd::avx512f, const float*, int64_t, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*, int64_t, bool) const noexcept;
template void PanelGemmKernel::operator()<xsimd::avx512f, double>(xsimd::avx512f, const double*, int64_t, int64_t, int64_t, const double*, int64_t, int64_t, int64_t, int64_t, int64_t, double*, int64_t, bool) const noexcept;
template int64_t PanelWidthKernel::operator()<xsimd::avx512f, float>(xsimd::avx512f, float) const noexcept;
template int64_t PanelWidthKernel::operator()<xsimd::avx512f, double>(xsimd::avx512f, double) const noexcept;
template std::pair<int, int> PanelTileKernel::operator()<xsimd::avx512f>(xsimd::avx512f) const noexcept;
SEQLAB_ROW_KERNELS(template, xsimd::avx512f)
}  // namespace seqlab::simd
