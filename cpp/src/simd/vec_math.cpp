// Run-time dispatch of the vectorised kernels to the architecture of simd::active_isa() (the
// CPU's best unless SEQLAB_ISA caps it). No -march flags anywhere: the wheel runs on any x86-64.
#include "simd/vec_math.hpp"

#include "simd/archs.hpp"

namespace seqlab::simd {

#define SEQLAB_EXTERN_ARCH(A)                                                                                     \
  extern template void UnaryKernel::operator()<A, float>(A, VecOp, const float*, float*, int64_t) const noexcept; \
  extern template void UnaryKernel::operator()<A, double>(A, VecOp, const double*, double*, int64_t) const noexcept; \
  extern template double SumKernel::operator()<A, float>(A, const float*, int64_t) const noexcept;                   \
  extern template double SumKernel::operator()<A, double>(A, const double*, int64_t) const noexcept;                 \
  extern template float MaxKernel::operator()<A, float>(A, const float*, int64_t) const noexcept;                    \
  extern template double MaxKernel::operator()<A, double>(A, const double*, int64_t) const noexcept;                 \
  extern template double ExpSumKernel::operator()<A, float>(A, const float*, float, float*, int64_t) const noexcept; \
  extern template double ExpSumKernel::operator()<A, double>(A, const double*, double, double*, int64_t)             \
      const noexcept;                                                                                               \
  extern template void BinaryKernel::operator()<A, float>(A, BinOp, const float*, const float*, bool, float, float*, \
                                                          int64_t, int64_t) const noexcept;                                  \
  extern template void BinaryKernel::operator()<A, double>(A, BinOp, const double*, const double*, bool, double,   \
                                                           double*, int64_t, int64_t) const noexcept;
SEQLAB_EXTERN_ARCH(ArchAvx512)
SEQLAB_EXTERN_ARCH(ArchAvx2)
SEQLAB_EXTERN_ARCH(ArchSse2)
SEQLAB_ROW_KERNELS(extern template, ArchAvx512)
SEQLAB_ROW_KERNELS(extern template, ArchAvx2)
SEQLAB_ROW_KERNELS(extern template, ArchSse2)


void unary(VecOp op, const float* x, float* y, int64_t n) { dispatch(UnaryKernel{}, op, x, y, n); }
void unary(VecOp op, const double* x, double* y, int64_t n) { dispatch(UnaryKernel{}, op, x, y, n); }
double sum(const float* x, int64_t n) { return dispatch(SumKernel{}, x, n); }
double sum(const double* x, int64_t n) { return dispatch(SumKernel{}, x, n); }
float reduce_max(const float* x, int64_t n) { return dispatch(MaxKernel{}, x, n); }
double reduce_max(const double* x, int64_t n) { return dispatch(MaxKernel{}, x, n); }
double exp_sum(const float* x, float shift, float* y, int64_t n) { return dispatch(ExpSumKernel{}, x, shift, y, n); }
double exp_sum(const double* x, double shift, double* y, int64_t n) { return dispatch(ExpSumKernel{}, x, shift, y, n); }
void softmax_rows(const float* x, float* y, int64_t rows, int64_t D, bool log) { dispatch(SoftmaxKernel{}, x, y, rows, D, log); }
void softmax_rows(const double* x, double* y, int64_t rows, int64_t D, bool log) { dispatch(SoftmaxKernel{}, x, y, rows, D, log); }
void softmax_columns(const float* x, float* y, int64_t D, int64_t ld, int64_t width, bool log, float* scratch) {
  dispatch(SoftmaxColumnsKernel{}, x, y, D, ld, width, log, scratch);
}
void softmax_columns(const double* x, double* y, int64_t D, int64_t ld, int64_t width, bool log, double* scratch) {
  dispatch(SoftmaxColumnsKernel{}, x, y, D, ld, width, log, scratch);
}
void softmax_backward_rows(const float* g, const float* y, float* dx, int64_t rows, int64_t D, bool log) {
  dispatch(SoftmaxBackwardKernel{}, g, y, dx, rows, D, log);
}
void softmax_backward_rows(const double* g, const double* y, double* dx, int64_t rows, int64_t D, bool log) {
  dispatch(SoftmaxBackwardKernel{}, g, y, dx, rows, D, log);
}
void softmax_backward_columns(const float* g, const float* y, float* dx, int64_t D, int64_t ld, int64_t width,
                              bool log, float* scratch) {
  dispatch(SoftmaxColumnsBackwardKernel{}, g, y, dx, D, ld, width, log, scratch);
}
void softmax_backward_columns(const double* g, const double* y, double* dx, int64_t D, int64_t ld, int64_t width,
                              bool log, double* scratch) {
  dispatch(SoftmaxColumnsBackwardKernel{}, g, y, dx, D, ld, width, log, scratch);
}
void column_sum(const float* x, int64_t R, int64_t ld, int64_t width, double* acc) {
  dispatch(ColumnSumKernel{}, x, R, ld, width, acc);
}
void column_sum(const double* x, int64_t R, int64_t ld, int64_t width, double* acc) {
  dispatch(ColumnSumKernel{}, x, R, ld, width, acc);
}
void gelu_backward(const float* g, const float* x, float* dx, int64_t n, bool approx) {
  dispatch(GeluBackwardKernel{}, g, x, dx, n, approx);
}
void gelu_backward(const double* g, const double* x, double* dx, int64_t n, bool approx) {
  dispatch(GeluBackwardKernel{}, g, x, dx, n, approx);
}
void binary(BinOp op, const float* a, const float* b, bool s, float alpha, float* y, int64_t n) {
  dispatch(BinaryKernel{}, op, a, b, s, alpha, y, n, int64_t(1));
}
void binary(BinOp op, const double* a, const double* b, bool s, double alpha, double* y, int64_t n) {
  dispatch(BinaryKernel{}, op, a, b, s, alpha, y, n, int64_t(1));
}
void binary_rows(BinOp op, const float* a, const float* b, float alpha, float* y, int64_t rows, int64_t n) {
  dispatch(BinaryKernel{}, op, a, b, false, alpha, y, n, rows);
}
void binary_rows(BinOp op, const double* a, const double* b, double alpha, double* y, int64_t rows, int64_t n) {
  dispatch(BinaryKernel{}, op, a, b, false, alpha, y, n, rows);
}

const char* isa_name() { return simd::isa_name(active_isa()); }

}  // namespace seqlab::simd
