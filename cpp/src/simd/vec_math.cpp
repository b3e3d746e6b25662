// Run-time dispatch of the vectorised kernels: xsimd picks the best architecture the CPU
// supports once, on first use. No -march flags anywhere: the wheel runs on any x86-64.
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
SEQLAB_EXTERN_ARCH(xsimd::avx512f)
SEQLAB_EXTERN_ARCH(xsimd::fma3<xsimd::avx2>)
SEQLAB_EXTERN_ARCH(xsimd::sse2)
SEQLAB_ROW_KERNELS(extern template, xsimd::avx512f)
SEQLAB_ROW_KERNELS(extern template, xsimd::fma3<xsimd::avx2>)
SEQLAB_ROW_KERNELS(extern template, xsimd::sse2)

namespace {
auto& unary_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(UnaryKernel{});
  return d;
}
auto& sum_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(SumKernel{});
  return d;
}
auto& max_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(MaxKernel{});
  return d;
}
auto& exp_sum_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(ExpSumKernel{});
  return d;
}
auto& softmax_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(SoftmaxKernel{});
  return d;
}
auto& softmax_backward_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(SoftmaxBackwardKernel{});
  return d;
}
auto& softmax_columns_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(SoftmaxColumnsKernel{});
  return d;
}
auto& softmax_columns_backward_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(SoftmaxColumnsBackwardKernel{});
  return d;
}
auto& column_sum_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(ColumnSumKernel{});
  return d;
}
auto& gelu_backward_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(GeluBackwardKernel{});
  return d;
}
auto& binary_dispatcher() {
  static auto d = xsimd::dispatch<Archs>(BinaryKernel{});
  return d;
}
}  // namespace

void unary(VecOp op, const float* x, float* y, int64_t n) { unary_dispatcher()(op, x, y, n); }
void unary(VecOp op, const double* x, double* y, int64_t n) { unary_dispatcher()(op, x, y, n); }
double sum(const float* x, int64_t n) { return sum_dispatcher()(x, n); }
double sum(const double* x, int64_t n) { return sum_dispatcher()(x, n); }
float reduce_max(const float* x, int64_t n) { return max_dispatcher()(x, n); }
double reduce_max(const double* x, int64_t n) { return max_dispatcher()(x, n); }
double exp_sum(const float* x, float shift, float* y, int64_t n) { return exp_sum_dispatcher()(x, shift, y, n); }
double exp_sum(const double* x, double shift, double* y, int64_t n) { return exp_sum_dispatcher()(x, shift, y, n); }
void softmax_rows(const float* x, float* y, int64_t rows, int64_t D, bool log) { softmax_dispatcher()(x, y, rows, D, log); }
void softmax_rows(const double* x, double* y, int64_t rows, int64_t D, bool log) { softmax_dispatcher()(x, y, rows, D, log); }
void softmax_columns(const float* x, float* y, int64_t D, int64_t ld, int64_t width, bool log, float* scratch) {
  softmax_columns_dispatcher()(x, y, D, ld, width, log, scratch);
}
void softmax_columns(const double* x, double* y, int64_t D, int64_t ld, int64_t width, bool log, double* scratch) {
  softmax_columns_dispatcher()(x, y, D, ld, width, log, scratch);
}
void softmax_backward_rows(const float* g, const float* y, float* dx, int64_t rows, int64_t D, bool log) {
  softmax_backward_dispatcher()(g, y, dx, rows, D, log);
}
void softmax_backward_rows(const double* g, const double* y, double* dx, int64_t rows, int64_t D, bool log) {
  softmax_backward_dispatcher()(g, y, dx, rows, D, log);
}
void softmax_backward_columns(const float* g, const float* y, float* dx, int64_t D, int64_t ld, int64_t width,
                              bool log, float* scratch) {
  softmax_columns_backward_dispatcher()(g, y, dx, D, ld, width, log, scratch);
}
void softmax_backward_columns(const double* g, const double* y, double* dx, int64_t D, int64_t ld, int64_t width,
                              bool log, double* scratch) {
  softmax_columns_backward_dispatcher()(g, y, dx, D, ld, width, log, scratch);
}
void column_sum(const float* x, int64_t R, int64_t ld, int64_t width, double* acc) {
  column_sum_dispatcher()(x, R, ld, width, acc);
}
void column_sum(const double* x, int64_t R, int64_t ld, int64_t width, double* acc) {
  column_sum_dispatcher()(x, R, ld, width, acc);
}
void gelu_backward(const float* g, const float* x, float* dx, int64_t n, bool approx) {
  gelu_backward_dispatcher()(g, x, dx, n, approx);
}
void gelu_backward(const double* g, const double* x, double* dx, int64_t n, bool approx) {
  gelu_backward_dispatcher()(g, x, dx, n, approx);
}
void binary(BinOp op, const float* a, const float* b, bool s, float alpha, float* y, int64_t n) {
  binary_dispatcher()(op, a, b, s, alpha, y, n, int64_t(1));
}
void binary(BinOp op, const double* a, const double* b, bool s, double alpha, double* y, int64_t n) {
  binary_dispatcher()(op, a, b, s, alpha, y, n, int64_t(1));
}
void binary_rows(BinOp op, const float* a, const float* b, float alpha, float* y, int64_t rows, int64_t n) {
  binary_dispatcher()(op, a, b, false, alpha, y, n, rows);
}
void binary_rows(BinOp op, const double* a, const double* b, double alpha, double* y, int64_t rows, int64_t n) {
  binary_dispatcher()(op, a, b, false, alpha, y, n, rows);
}

const char* isa_name() {
  const auto a = xsimd::available_architectures();
  if (a.avx512f) return "avx512f";
  if (a.fma3_avx2) return "avx2+fma";
  return "sse2";
}

}  // namespace seqlab::simd
