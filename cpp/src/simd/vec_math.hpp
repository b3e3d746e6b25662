// Vectorised transcendental kernels over contiguous float/double arrays, dispatched at run
// time to the best instruction set the CPU has (AVX-512F, AVX2+FMA, SSE2) with xsimd.
// Each instruction set's code is compiled in its own translation unit with its own flags
// (vec_math_<isa>.cpp); this header is all the rest of seqlab sees.
#pragma once
#include <cstdint>

namespace seqlab::simd {

enum class VecOp {
  Exp,       // e^x
  Log,       // ln x
  Tanh,      // tanh x
  Sigmoid,   // 1 / (1 + e^-x)
  Relu,      // max(x, 0)
  GeluErf,   // x/2 (1 + erf(x/√2))
  GeluTanh,  // x/2 (1 + tanh(√(2/π)(x + 0.044715 x³)))
  Silu,      // x / (1 + e^-x) = x σ(x)
};

enum class BinOp { Add, Mul, Div };  // Add computes a + alpha*b (alpha = -1 for sub)

// y[i] = a[i] op b[i], or a[i] op b[0] when b_is_scalar (y may equal a or b).
void binary(BinOp op, const float* a, const float* b, bool b_is_scalar, float alpha, float* y, int64_t n);
void binary(BinOp op, const double* a, const double* b, bool b_is_scalar, double alpha, double* y, int64_t n);
// y[r·n + i] = a[r·n + i] op b[i] for r < rows: a row b repeated over `rows` contiguous rows (a
// bias, x * w[0]) in one dispatched call, not one per row.
void binary_rows(BinOp op, const float* a, const float* b, float alpha, float* y, int64_t rows, int64_t n);
void binary_rows(BinOp op, const double* a, const double* b, double alpha, double* y, int64_t rows, int64_t n);

// Σ x[i]: float lanes accumulate blocks of 4096 elements, the block sums add up in double
// (a cascade, as accurate as PyTorch's for float32).
double sum(const float* x, int64_t n);
double sum(const double* x, int64_t n);

// max_i x[i], −∞ for n = 0 (NaN-free input: the attention rows).
float reduce_max(const float* x, int64_t n);
double reduce_max(const double* x, int64_t n);

// y[i] = e^(x[i] − shift) and returns Σ y[i] in double (y may equal x): one step of a softmax.
double exp_sum(const float* x, float shift, float* y, int64_t n);
double exp_sum(const double* x, double shift, double* y, int64_t n);

// softmax (log = false) or log_softmax (log = true) of `rows` contiguous rows of length D (y may
// equal x). A row of −∞ gives NaN, as in torch.
void softmax_rows(const float* x, float* y, int64_t rows, int64_t D, bool log);
void softmax_rows(const double* x, double* y, int64_t rows, int64_t D, bool log);
// The same along d of the columns x[d·ld + j], d < D, j < width (a dim that is not the last;
// y has x's layout); scratch holds 2·width values. D >= 1.
void softmax_columns(const float* x, float* y, int64_t D, int64_t ld, int64_t width, bool log, float* scratch);
void softmax_columns(const double* x, double* y, int64_t D, int64_t ld, int64_t width, bool log, double* scratch);
// Their backward from the output y:  softmax dx = y ⊙ (g − Σ_d g⊙y),  log_softmax dx = g − e^y Σ_d g.
void softmax_backward_rows(const float* g, const float* y, float* dx, int64_t rows, int64_t D, bool log);
void softmax_backward_rows(const double* g, const double* y, double* dx, int64_t rows, int64_t D, bool log);
// scratch holds width values.
void softmax_backward_columns(const float* g, const float* y, float* dx, int64_t D, int64_t ld, int64_t width,
                              bool log, float* scratch);
void softmax_backward_columns(const double* g, const double* y, double* dx, int64_t D, int64_t ld, int64_t width,
                              bool log, double* scratch);

// acc[j] += Σ_{r<R} x[r·ld + j] for j < width: a sum over a dim that is not the last.
void column_sum(const float* x, int64_t R, int64_t ld, int64_t width, double* acc);
void column_sum(const double* x, int64_t R, int64_t ld, int64_t width, double* acc);

// GELU's backward dx[i] = g[i] · gelu'(x[i]), exact (erf) or tanh form.
void gelu_backward(const float* g, const float* x, float* dx, int64_t n, bool approx);
void gelu_backward(const double* g, const double* x, double* dx, int64_t n, bool approx);

// y[i] = op(x[i]) for i < n (y may equal x).
void unary(VecOp op, const float* x, float* y, int64_t n);
void unary(VecOp op, const double* x, double* y, int64_t n);

// The instruction set the dispatcher chose on this CPU, e.g. "avx2+fma".
const char* isa_name();

// The functor xsimd dispatches: operator() is instantiated once per architecture, each in
// the translation unit compiled for it (vec_math_<isa>.cpp).
struct UnaryKernel {
  template <class Arch, class T>
  void operator()(Arch, VecOp op, const T* x, T* y, int64_t n) const noexcept;
};
struct SumKernel {
  template <class Arch, class T>
  double operator()(Arch, const T* x, int64_t n) const noexcept;
};
struct MaxKernel {
  template <class Arch, class T>
  T operator()(Arch, const T* x, int64_t n) const noexcept;
};
struct ExpSumKernel {
  template <class Arch, class T>
  double operator()(Arch, const T* x, T shift, T* y, int64_t n) const noexcept;
};
struct SoftmaxKernel {
  template <class Arch, class T>
  void operator()(Arch, const T* x, T* y, int64_t rows, int64_t D, bool log) const noexcept;
};
struct SoftmaxBackwardKernel {
  template <class Arch, class T>
  void operator()(Arch, const T* g, const T* y, T* dx, int64_t rows, int64_t D, bool log) const noexcept;
};
struct SoftmaxColumnsKernel {
  template <class Arch, class T>
  void operator()(Arch, const T* x, T* y, int64_t D, int64_t ld, int64_t width, bool log, T* scratch) const noexcept;
};
struct SoftmaxColumnsBackwardKernel {
  template <class Arch, class T>
  void operator()(Arch, const T* g, const T* y, T* dx, int64_t D, int64_t ld, int64_t width, bool log,
                  T* scratch) const noexcept;
};
struct GeluBackwardKernel {
  template <class Arch, class T>
  void operator()(Arch, const T* g, const T* x, T* dx, int64_t n, bool approx) const noexcept;
};
struct ColumnSumKernel {
  template <class Arch, class T>
  void operator()(Arch, const T* x, int64_t R, int64_t ld, int64_t width, double* acc) const noexcept;
};
struct BinaryKernel {
  template <class Arch, class T>
  void operator()(Arch, BinOp op, const T* a, const T* b, bool b_is_scalar, T alpha, T* y, int64_t n,
                  int64_t rows) const noexcept;
};

// The explicit instantiations of the softmax, column-sum and GELU-backward kernels for one architecture A:
// `template` in vec_math_<isa>.cpp, `extern template` in vec_math.cpp.
#define SEQLAB_ROW_KERNELS_FOR(PREFIX, A, T)                                                                        \
  PREFIX void SoftmaxKernel::operator()<A, T>(A, const T*, T*, int64_t, int64_t, bool) const noexcept;              \
  PREFIX void SoftmaxBackwardKernel::operator()<A, T>(A, const T*, const T*, T*, int64_t, int64_t, bool)            \
      const noexcept;                                                                                               \
  PREFIX void SoftmaxColumnsKernel::operator()<A, T>(A, const T*, T*, int64_t, int64_t, int64_t, bool, T*)          \
      const noexcept;                                                                                               \
  PREFIX void SoftmaxColumnsBackwardKernel::operator()<A, T>(A, const T*, const T*, T*, int64_t, int64_t, int64_t,  \
                                                             bool, T*) const noexcept;                              \
  PREFIX void ColumnSumKernel::operator()<A, T>(A, const T*, int64_t, int64_t, int64_t, double*) const noexcept;   \
  PREFIX void GeluBackwardKernel::operator()<A, T>(A, const T*, const T*, T*, int64_t, bool) const noexcept;
#define SEQLAB_ROW_KERNELS(PREFIX, A) \
  SEQLAB_ROW_KERNELS_FOR(PREFIX, A, float) SEQLAB_ROW_KERNELS_FOR(PREFIX, A, double)

}  // namespace seqlab::simd
