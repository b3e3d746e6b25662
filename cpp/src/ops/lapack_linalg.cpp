// torch.linalg's LU and Cholesky family through LAPACK (cpp/src/lapack.hpp): det, slogdet, logdet,
// inv, solve, cholesky, solve_triangular, each forward with its backward closure below it, as the
// torch.linalg pages define them. Matrices are batched over leading dims, float32 and float64.
// Tests: tests/test_linalg_lapack.py.
#include "seqlab/ops/lapack_linalg.hpp"

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "kernel_utils.hpp"
#include "lapack.hpp"
#include "lapack_impl.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/reduce.hpp"

namespace seqlab {

using namespace lapack_ops;

namespace {

// P A = L U of every matrix of A (..., n, n), by getrf: the factors in a column-major copy, the
// pivots (1-based row swaps, n per matrix) and LAPACK's info per matrix (k > 0: u_kk is exactly 0).
struct LUFactors {
  Tensor lu;
  std::vector<int> pivots;
  std::vector<int> info;
  int64_t batch = 0, n = 0;
};

LUFactors lu_factor(const Tensor& A, const char* op) {
  LUFactors f;
  f.lu = fortran_copy(A);
  f.n = A.size(-1);
  f.batch = shape_numel(batch_shape(A));
  const int n = lapack_int(f.n, op);
  f.pivots.assign(static_cast<size_t>(f.batch * f.n), 0);
  f.info.assign(static_cast<size_t>(f.batch), 0);
  if (f.n == 0) return f;
  dispatch_float(A.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(f.lu.raw_data());
    for (int64_t b = 0; b < f.batch; ++b) f.info[b] = lapack::getrf<T>(n, n, a + b * f.n * f.n, n, &f.pivots[b * f.n]);
  });
  return f;
}

// A^{-1} from getrf and getri. A singular matrix raises torch's LinAlgError when `check`, else
// its inverse is left NaN (det's backward replaces it).
Tensor inverse(const Tensor& A, bool check) {
  LUFactors f = lu_factor(A, "linalg.inv");
  const int n = static_cast<int>(f.n);
  dispatch_float(A.dtype(), "linalg.inv", [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(f.lu.raw_data());
    for (int64_t b = 0; b < f.batch; ++b) {
      T* ab = a + b * f.n * f.n;
      if (f.info[b] > 0) {
        if (check)
          throw LinAlgError(str_cat("linalg.inv: ", batch_prefix(A.dim() > 2, b), "The diagonal element ", f.info[b],
                                    " is zero, the inversion could not be completed because the input matrix is "
                                    "singular."));
        std::fill(ab, ab + f.n * f.n, std::numeric_limits<T>::quiet_NaN());
        continue;
      }
      lapack::getri<T>(n, ab, n, &f.pivots[b * f.n]);
    }
  });
  return f.lu;
}

// out_i = Π_{j≠i} s_j along the last dim, by prefix and suffix products (no division, so exact zeros are fine).
Tensor prod_others(const Tensor& s_) {
  const Tensor s = contiguous(s_);
  Tensor out = Tensor::empty(s.shape(), s.dtype());
  const int64_t n = s.size(-1), rows = n == 0 ? 0 : s.numel() / n;
  dispatch_float(s.dtype(), "linalg.det", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(s.raw_data());
    T* y = static_cast<T*>(out.raw_data());
    for (int64_t r = 0; r < rows; ++r) {
      T prefix = 1;
      for (int64_t i = 0; i < n; ++i) {
        y[r * n + i] = prefix;
        prefix *= x[r * n + i];
      }
      T suffix = 1;
      for (int64_t i = n - 1; i >= 0; --i) {
        y[r * n + i] *= suffix;
        suffix *= x[r * n + i];
      }
    }
  });
  return out;
}

Tensor as_matrices(const Tensor& per_matrix) { return unsqueeze(unsqueeze(per_matrix, -1), -1); }

}  // namespace

// det A = (-1)^(row swaps) Π u_ii from P A = L U.
// dA = g · det A · A^{-T}: the cofactor matrix (Jacobi's formula). Where |det A| < eps of the dtype
// (A singular or nearly so) A^{-1} is unusable, and the cofactor matrix comes from the SVD
// A = U S V^T instead: cof A = det U · det V · U diag(Π_{j≠i} s_j) V^T, defined for singular A too
// (torch switches to the SVD at the same test).
Tensor linalg_det(const Tensor& A) {
  check_square(A, "linalg.det");
  const LUFactors f = lu_factor(A, "linalg.det");
  Tensor det = Tensor::empty(batch_shape(A), A.dtype());
  dispatch_float(A.dtype(), "linalg.det", [&](auto tag) {
    using T = decltype(tag);
    const T* a = static_cast<const T*>(f.lu.raw_data());
    T* d = static_cast<T*>(det.raw_data());
    for (int64_t b = 0; b < f.batch; ++b) {
      const T* ab = a + b * f.n * f.n;
      T v = 1;
      for (int64_t i = 0; i < f.n; ++i) {
        v *= ab[i * f.n + i];
        if (f.pivots[b * f.n + i] != i + 1) v = -v;
      }
      d[b] = v;
    }
  });
  if (any_requires_grad({A}))
    attach(det, "LinalgDetBackward0", {A}, [sA = save(A), sdet = save(det)](const Tensor& g) -> TensorList {
      const Tensor A = sA.unpack(), det = sdet.unpack();
      const double eps = A.dtype() == Dtype::Float64 ? DBL_EPSILON : FLT_EPSILON;
      const Tensor singular = compare(abs(det), scalar_tensor(eps, det.dtype()), CompareOp::Lt);
      Tensor cof = mul(as_matrices(det), mT(inverse(A, false)));
      if (sum(to_dtype(singular, Dtype::Float64)).item<double>() > 0) {
        auto [U, S, Vh] = linalg_svd(A, false);
        const Tensor sign = mul(linalg_det(U), linalg_det(Vh));
        const Tensor cof_svd = mul(as_matrices(sign), matmul(mul(U, unsqueeze(prod_others(S), -2)), Vh));
        cof = where(as_matrices(singular), cof_svd, cof);
      }
      return {mul(as_matrices(g), cof)};
    });
  return det;
}

// sign · exp(logabsdet) = det A:  sign = (-1)^(row swaps) Π sign(u_ii),  logabsdet = Σ log|u_ii|
// (sign 0 and logabsdet -inf for a singular A).   d logabsdet / dA = A^{-T}; sign has no gradient.
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A, const char* op) {
  check_square(A, op);
  const LUFactors f = lu_factor(A, op);
  Tensor sign = Tensor::empty(batch_shape(A), A.dtype()), logabsdet = Tensor::empty(batch_shape(A), A.dtype());
  dispatch_float(A.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* a = static_cast<const T*>(f.lu.raw_data());
    T* s = static_cast<T*>(sign.raw_data());
    T* l = static_cast<T*>(logabsdet.raw_data());
    for (int64_t b = 0; b < f.batch; ++b) {
      const T* ab = a + b * f.n * f.n;
      T sg = 1, la = 0;
      for (int64_t i = 0; i < f.n; ++i) {
        const T u = ab[i * f.n + i];
        if (f.pivots[b * f.n + i] != i + 1) sg = -sg;
        if (u < 0) sg = -sg;
        if (u == 0) sg = 0;
        la += std::log(std::abs(u));
      }
      s[b] = sg;
      l[b] = la;
    }
  });
  if (any_requires_grad({A})) {  // both outputs record the node, as torch's; sign's gradient is ignored
    TensorList outs{sign, logabsdet};
    attach_multi(outs, "LinalgSlogdetBackward0", {A}, [sA = save(A)](const TensorList& g) -> TensorList {
      if (!g[1].defined()) return {Tensor()};
      return {mul(as_matrices(g[1]), mT(inverse(sA.unpack(), false)))};
    });
  }
  return {sign, logabsdet};
}

// log det A = logabsdet where sign = 1; nan where det A < 0 (-inf where det A = 0). The gradient
// flows through slogdet's logabsdet.
Tensor logdet(const Tensor& A) {
  auto [sign, logabsdet] = linalg_slogdet(A, "logdet");
  const Tensor negative = compare(sign, scalar_tensor(-1.0, sign.dtype()), CompareOp::Eq);
  return where(negative, scalar_tensor(std::numeric_limits<double>::quiet_NaN(), A.dtype()), logabsdet);
}

// X = A^{-1} by getrf and getri.   dA = -X^T g X^T
Tensor linalg_inv(const Tensor& A) {
  check_square(A, "linalg.inv");
  Tensor X = inverse(A, true);
  if (any_requires_grad({A}))
    attach(X, "LinalgInvExBackward0", {A}, [sX = save(X)](const Tensor& g) -> TensorList {
      const Tensor Xt = mT(sX.unpack());
      return {neg(matmul(Xt, matmul(g, Xt)))};
    });
  return X;
}

namespace {

// X = A^{-1} B for A (*, n, n), B (*, n, k), the batch dims broadcast: getrf then getrs.
// dB = A^{-T} g,  dA = -dB X^T   (each summed back over the dims broadcasting added)
Tensor solve_left(const Tensor& A, const Tensor& B) {
  const Shape batch = broadcast_shapes(batch_shape(B), batch_shape(A), "linalg.solve");
  const int64_t n = A.size(-1), k = B.size(-1);
  const LUFactors f = lu_factor(expand(A.detach(), with_matrix(batch, n, n)), "linalg.solve");
  Tensor X = fortran_copy(expand(B.detach(), with_matrix(batch, n, k)));
  const int ni = lapack_int(n, "linalg.solve"), ki = lapack_int(k, "linalg.solve");
  dispatch_float(A.dtype(), "linalg.solve", [&](auto tag) {
    using T = decltype(tag);
    const T* a = static_cast<const T*>(f.lu.raw_data());
    T* x = static_cast<T*>(X.raw_data());
    for (int64_t b = 0; b < f.batch; ++b) {
      if (f.info[b] > 0)
        throw LinAlgError(str_cat("torch.linalg.solve: ", batch_prefix(!batch.empty(), b),
                                  "The solver failed because the input matrix is singular."));
      if (n > 0 && k > 0) lapack::getrs<T>('N', ni, ki, a + b * n * n, ni, &f.pivots[b * n], x + b * n * k, ni);
    }
  });
  if (any_requires_grad({A, B})) {
    const bool need_a = A.requires_grad(), need_b = B.requires_grad();
    attach(X, "LinalgSolveExBackward0", {A, B},
           [sA = save(A), sX = need_a ? save(X) : SavedTensor(), need_a, need_b, a_shape = A.shape(),
            b_shape = B.shape()](const Tensor& g) -> TensorList {
             const Tensor gB = solve_left(mT(sA.unpack()), g);
             return {need_a ? sum_to(neg(matmul(gB, mT(sX.unpack()))), a_shape) : Tensor(),
                     need_b ? sum_to(gB, b_shape) : Tensor()};
           });
  }
  return X;
}

}  // namespace

// A X = B (left) or X A = B. B is a batch of vectors when it is 1-D or A's shape without its last
// dim, else of matrices (torch.linalg.solve's rule). X A = B is solved as A^T X^T = B^T.
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  check_matrix(A, "linalg.solve");
  SEQLAB_CHECK(B.dim() >= 1, "linalg.solve: The input tensor B must have at least 2 dimensions.");
  SEQLAB_CHECK(A.dtype() == B.dtype(), "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
               scalar_type_name(A.dtype()), " and B of type ", scalar_type_name(B.dtype()), " instead");
  check_square(A, "linalg.solve");
  const int64_t n = A.size(-1);
  const bool vector_case =
      B.dim() == 1 || (B.dim() == A.dim() - 1 && B.shape() == Shape(A.shape().begin(), A.shape().end() - 1));
  const Tensor B2 = vector_case ? unsqueeze(B, -1) : B;
  SEQLAB_CHECK((left ? B2.size(-2) : B2.size(-1)) == n, "linalg.solve: Incompatible shapes of A and B for the equation ",
               left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B2.size(-2), "x", B2.size(-1), ")");
  const Tensor X = left ? solve_left(A, B2) : mT(solve_left(mT(A), mT(B2)));
  return vector_case ? squeeze(X, -1) : X;
}

// A = L L^T (or U^T U when upper), by potrf on A's lower (upper) triangle; the other triangle is 0.
// dA = ½ (S + S^T),  S = L^{-T} Φ(L^T dL) L^{-1},  Φ(X) = tril(X) with its diagonal halved
// (Murray 2016, "Differentiation of the Cholesky decomposition", eq. 10; torch's cholesky_backward).
// upper: U = L^T, dU = dL^T.
Tensor linalg_cholesky(const Tensor& A, bool upper, const char* op) {
  check_square(A, op);
  Tensor L = fortran_copy(A);
  const int64_t n = A.size(-1), batch = shape_numel(batch_shape(A));
  const int ni = lapack_int(n, op);
  dispatch_float(A.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(L.raw_data());
    for (int64_t b = 0; b < batch && n > 0; ++b) {
      T* ab = a + b * n * n;  // column-major: a(i, j) = ab[i + j n]
      const int info = lapack::potrf<T>(upper ? 'U' : 'L', ni, ab, ni);
      if (info > 0)
        throw LinAlgError(str_cat(op, ": ", batch_prefix(A.dim() > 2, b),
                                  "The factorization could not be completed because the input is not positive-definite "
                                  "(the leading minor of order ", info, " is not positive-definite)."));
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
          if (upper ? i > j : i < j) ab[i + j * n] = T(0);
    }
  });
  if (any_requires_grad({A}))
    attach(L, "LinalgCholeskyExBackward0", {A}, [sL = save(L), upper](const Tensor& g) -> TensorList {
      const Tensor Lo = upper ? mT(sL.unpack()) : sL.unpack();
      const Tensor gL = upper ? mT(g) : g;
      const Tensor P = matmul(mT(Lo), gL);
      const Tensor phi = (tril(P, 0) + tril(P, -1)) * 0.5;
      Tensor S = linalg_solve_triangular(mT(Lo), phi, /*upper=*/true, /*left=*/true);  // L^{-T} Φ
      S = linalg_solve_triangular(Lo, S, /*upper=*/false, /*left=*/false);             // (L^{-T} Φ) L^{-1}
      return {(S + mT(S)) * 0.5};
    });
  return L;
}

// X = A^{-1} B (left) or B A^{-1}, A triangular (only its `upper` or lower triangle is read, and not
// its diagonal when unitriangular), by BLAS's trsm; batch dims broadcast.
// left:  dB = A^{-T} g,  dA = -dB X^T;   right: dB = g A^{-T},  dA = -X^T dB;   dA keeps A's triangle.
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  SEQLAB_CHECK(A.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  SEQLAB_CHECK(B.dim() >= 2, op, ": The input tensor B must have at least 2 dimensions.");
  SEQLAB_CHECK(A.size(-1) == A.size(-2), op, ": A must be batches of square matrices, but they are ", A.size(-2),
               " by ", A.size(-1), " matrices");
  SEQLAB_CHECK_IMPL(is_floating(A.dtype()), "\"triangular_solve_cpu\" not implemented for '",
                    scalar_type_name(A.dtype()), "'");
  if (B.dtype() != A.dtype()) return linalg_solve_triangular(A, to_dtype(B, A.dtype()), upper, left, unitriangular);
  const int64_t n = A.size(-1), rows = B.size(-2), cols = B.size(-1);
  SEQLAB_CHECK((left ? rows : cols) == n, op, ": Incompatible shapes of A and B for the equation ",
               left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", rows, "x", cols, ")");
  const Shape batch = broadcast_shapes(batch_shape(B), batch_shape(A), op);
  const Tensor a = contiguous(expand(A.detach(), with_matrix(batch, n, n)));
  Tensor X = clone(expand(B.detach(), with_matrix(batch, rows, cols)));
  const int64_t count = shape_numel(batch);
  dispatch_float(A.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* pa = static_cast<const T*>(a.raw_data());
    T* px = static_cast<T*>(X.raw_data());
    for (int64_t b = 0; b < count; ++b)
      lapack::trsm<T>(left, upper, false, unitriangular, rows, cols, pa + b * n * n, std::max<int64_t>(1, n),
                      px + b * rows * cols, std::max<int64_t>(1, cols));
  });
  if (any_requires_grad({A, B})) {
    const bool need_a = A.requires_grad(), need_b = B.requires_grad();
    attach(X, "LinalgSolveTriangularBackward0", {A, B},
           [sA = save(A), sX = need_a ? save(X) : SavedTensor(), need_a, need_b, upper, left, unitriangular,
            a_shape = A.shape(), b_shape = B.shape()](const Tensor& g) -> TensorList {
             const Tensor gB = linalg_solve_triangular(mT(sA.unpack()), g, !upper, left, unitriangular);
             Tensor gA;
             if (need_a) {
               const Tensor X = sX.unpack();
               gA = neg(left ? matmul(gB, mT(X)) : matmul(mT(X), gB));
               const int64_t skip = unitriangular ? 1 : 0;
               gA = sum_to(upper ? triu(gA, skip) : tril(gA, -skip), a_shape);
             }
             return {gA, need_b ? sum_to(gB, b_shape) : Tensor()};
           });
  }
  return X;
}

}  // namespace seqlab
