// torch.linalg's LU and LDL families and Householder products through LAPACK (cpp/src/lapack.hpp):
// lu_factor(_ex), lu, lu_unpack, lu_solve (getrf, getrs), ldl_factor(_ex), ldl_solve (sytrf, sytrs),
// householder_product (orgqr), geqrf, ormqr, as the torch.linalg pages define them, each with its
// backward where torch has one. Batched over leading dims, float32 and float64. Tests: tests/test_linalg_lu.py.
#include <algorithm>
#include <cstring>
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

Tensor int32_tensor(const std::vector<int>& values, const Shape& shape) {
  Tensor t = Tensor::empty(shape, Dtype::Int32);
  if (!values.empty()) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(int));
  return t;
}

// The pivots of every matrix as one contiguous int vector, (batch, k).
std::vector<int> pivot_values(const Tensor& pivots) {
  const Tensor p = contiguous(pivots);
  std::vector<int> v(static_cast<size_t>(p.numel()));
  if (!v.empty()) std::memcpy(v.data(), p.raw_data(), v.size() * sizeof(int));
  return v;
}

// P (*, m, m) with A = P L U from getrf's k row swaps per matrix (row i went to piv[i] - 1, in turn):
// the swaps applied to 0..m-1 give perm with (P^T A)_i = A_perm[i], so P[perm[i], i] = 1.
Tensor permutation_matrix(const std::vector<int>& piv, const Shape& batch, int64_t k, int64_t m, Dtype dtype) {
  Tensor P = zeros(with_matrix(batch, m, m), dtype);
  const int64_t count = shape_numel(batch);
  dispatch_copy(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(P.raw_data());
    std::vector<int64_t> perm(static_cast<size_t>(m));
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < m; ++i) perm[i] = i;
      for (int64_t i = 0; i < k; ++i) std::swap(perm[i], perm[piv[b * k + i] - 1]);
      for (int64_t i = 0; i < m; ++i) p[b * m * m + perm[i] * m + i] = T(1);
    }
  });
  return P;
}

void check_lu_input(const Tensor& A, const char* op) {
  SEQLAB_CHECK(A.dim() >= 2, op, ": Expected tensor with 2 or more dimensions. Got size: ", shape_str(A.shape()),
               " instead");
  SEQLAB_CHECK_IMPL(is_floating(A.dtype()), "\"lu_cpu\" not implemented for '", scalar_type_name(A.dtype()), "'");
}

// L (m, k) unit lower and U (k, n) upper from the packed (m, n) LU, k = min(m, n); differentiable.
std::pair<Tensor, Tensor> unpack_lu(const Tensor& LU) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const Tensor L = tril(narrow(LU, -1, 0, k), -1) + eye(m, k, LU.dtype());
  const Tensor U = triu(narrow(LU, -2, 0, k), 0);
  return {L, U};
}

Tensor or_zeros(const Tensor& g, const Tensor& like) { return g.defined() ? g : zeros_like(like); }

// L^{-T} X for unit lower L;  X U^{-T} for upper U.
Tensor solve_lt(const Tensor& L, const Tensor& X) {
  return linalg_solve_triangular(mT(L), X, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
}
Tensor solve_ut_right(const Tensor& U, const Tensor& X) {
  return linalg_solve_triangular(mT(U), X, /*upper=*/false, /*left=*/false);
}

// A = P L U (Walter & Lehmann 2018, "Algorithmic differentiation of linear algebra functions with
// application in optimum experimental design"; torch's linalg_lu_backward):
//   square:  dA = P L^{-T} [tril(L^T dL, -1) + triu(dU U^T)] U^{-T}
//   wide (m < n), U = [U1 | U2]:  U2 = L^{-1} P^T A2 moves dU2 onto L:
//            dA1 = P L^{-T} [tril(L^T dL - dU2 U2^T, -1) + triu(dU1 U1^T)] U1^{-T},  dA2 = P L^{-T} dU2
//   tall (m > n), L = [L1; L2]:  L2 = A2' U^{-1} moves dL2 onto U:
//            dA1 = L1^{-T} [tril(L1^T dL1, -1) + triu(dU U^T - L2^T dL2)] U^{-T},  dA2 = dL2 U^{-T},
//            dA = P [dA1; dA2]
// The upper part of dL and the lower part of dU do not reach dA (L's unit diagonal, U's zeros).
Tensor lu_backward(const Tensor& gL_, const Tensor& gU_, const Tensor& P, const Tensor& L, const Tensor& U) {
  const Tensor gL = or_zeros(gL_, L), gU = or_zeros(gU_, U);
  const int64_t m = L.size(-2), n = U.size(-1);
  if (m == n) {
    const Tensor phi = tril(matmul(mT(L), gL), -1) + triu(matmul(gU, mT(U)), 0);
    return matmul(P, solve_ut_right(U, solve_lt(L, phi)));
  }
  if (m < n) {
    const Tensor U1 = narrow(U, -1, 0, m), U2 = narrow(U, -1, m, n - m);
    const Tensor gU1 = narrow(gU, -1, 0, m), gU2 = narrow(gU, -1, m, n - m);
    const Tensor phi = tril(matmul(mT(L), gL) - matmul(gU2, mT(U2)), -1) + triu(matmul(gU1, mT(U1)), 0);
    return matmul(P, cat({solve_ut_right(U1, solve_lt(L, phi)), solve_lt(L, gU2)}, -1));
  }
  const Tensor L1 = narrow(L, -2, 0, n), L2 = narrow(L, -2, n, m - n);
  const Tensor gL1 = narrow(gL, -2, 0, n), gL2 = narrow(gL, -2, n, m - n);
  const Tensor phi = tril(matmul(mT(L1), gL1), -1) + triu(matmul(gU, mT(U)) - matmul(mT(L2), gL2), 0);
  return matmul(P, cat({solve_ut_right(U, solve_lt(L1, phi)), solve_ut_right(U, gL2)}, -2));
}

struct Getrf {
  Tensor lu;
  std::vector<int> pivots, info;
  Shape batch;
  int64_t k = 0;
};

Getrf getrf_all(const Tensor& A, const char* op) {
  Getrf f;
  f.lu = fortran_copy(A);
  f.batch = batch_shape(A);
  const int64_t m = A.size(-2), n = A.size(-1), count = shape_numel(f.batch);
  f.k = std::min(m, n);
  f.pivots.assign(static_cast<size_t>(count * f.k), 0);
  f.info.assign(static_cast<size_t>(count), 0);
  const int mi = lapack_int(m, op), ni = lapack_int(n, op);
  if (f.k == 0) return f;
  dispatch_float(A.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(f.lu.raw_data());
    for (int64_t b = 0; b < count; ++b) f.info[b] = lapack::getrf<T>(mi, ni, a + b * m * n, mi, &f.pivots[b * f.k]);
  });
  return f;
}

}  // namespace

// P A = L U, packed: L's strict lower part and U in one (m, n) matrix, as LAPACK's getrf leaves them.
// The gradient is lu_backward's with dL = tril(dLU, -1), dU = triu(dLU).
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors,
                                                       const char* op) {
  check_lu_input(A, "torch.lu_factor");
  SEQLAB_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  Getrf f = getrf_all(A, op);
  if (check_errors)
    for (size_t b = 0; b < f.info.size(); ++b)
      SEQLAB_CHECK(f.info[b] <= 0, op, ": ", batch_prefix(A.dim() > 2, static_cast<int64_t>(b)), "U[", f.info[b], ",",
                   f.info[b], "] is zero and using it on lu_solve would result in a division by zero. If you still "
                   "want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                   "linalg.lu_factor_ex(A, pivot)");
  Shape piv_shape = f.batch;
  piv_shape.push_back(f.k);
  Tensor pivots = int32_tensor(f.pivots, piv_shape), info = int32_tensor(f.info, f.batch);
  Tensor LU = f.lu;
  if (any_requires_grad({A}))
    attach(LU, "LinalgLuFactorExBackward0", {A},
           [sLU = save(LU), piv = std::move(f.pivots), batch = f.batch, k = f.k](const Tensor& g) -> TensorList {
             const Tensor LU = sLU.unpack();
             auto [L, U] = unpack_lu(LU);
             const Tensor P = permutation_matrix(piv, batch, k, LU.size(-2), LU.dtype());
             const Tensor gL = tril(narrow(g, -1, 0, k), -1), gU = triu(narrow(g, -2, 0, k), 0);
             return {lu_backward(gL, gU, P, L, U)};
           });
  return {LU, pivots, info};
}

// A = P L U: P (m, m), L (m, k) unit lower, U (k, n), k = min(m, n). P has no gradient.
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  check_lu_input(A, "linalg.lu");
  SEQLAB_CHECK(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  Getrf f = getrf_all(A, "linalg.lu");
  const int64_t m = A.size(-2);
  Tensor P = permutation_matrix(f.pivots, f.batch, f.k, m, A.dtype());
  auto [L, U] = unpack_lu(f.lu);
  L = contiguous(L);
  U = contiguous(U);
  if (any_requires_grad({A})) {
    TensorList outs{L, U};
    attach_multi(outs, "LinalgLuBackward0", {A}, [sP = save(P), sL = save(L), sU = save(U)](const TensorList& g) {
      return TensorList{lu_backward(g[0], g[1], sP.unpack(), sL.unpack(), sU.unpack())};
    });
    L = outs[0];
    U = outs[1];
  }
  return {P, L, U};
}

// (P, L, U) from (LU, pivots); L and U are copies of LU's triangles (differentiable), P is
// built from the pivots. torch accepts integer LU here too.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data,
                                             bool unpack_pivots) {
  const char* op = "torch.lu_unpack";
  SEQLAB_CHECK(LU.dim() >= 2, op, ": Expected tensor with 2 or more dimensions. Got size: ", shape_str(LU.shape()),
               " instead");
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  Tensor P = Tensor::empty({0}, LU.dtype()), L = P, U = P;
  if (unpack_pivots) {
    SEQLAB_CHECK(pivots.dtype() == Dtype::Int32, op, ": LU_pivots is expected to be a contiguous tensor of torch.int32 "
                 "dtype.\nNote: this function is intended to be used with the output produced by "
                 "torch.linalg.lu_factor");
    const Shape batch = batch_shape(LU);
    Shape piv_shape = batch;
    piv_shape.push_back(pivots.dim() ? pivots.size(-1) : 1);
    SEQLAB_CHECK(pivots.dim() >= 1 && pivots.size(-1) <= k, op, ": Expected at most min(LU.size(-2), LU.size(-1)) = ",
                 k, " pivots per matrix, but got pivots of shape ", shape_str(pivots.shape()));
    const int64_t kp = pivots.size(-1);
    const std::vector<int> piv = pivot_values(expand(pivots, piv_shape));
    for (int v : piv)
      SEQLAB_CHECK(v >= 1 && v <= m, "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                   "properly pass the result of lu_factor?");
    P = permutation_matrix(piv, batch, kp, m, LU.dtype());
  }
  if (unpack_data) {
    auto lu = unpack_lu(LU);
    L = lu.first;
    U = lu.second;
  }
  return {P, L, U};
}

namespace {

void check_pivots(const Tensor& LU, const Tensor& pivots, const char* op) {
  SEQLAB_CHECK(pivots.dtype() == Dtype::Int32, op, ": pivots should be a Tensor of scalar type torch.int32");
  SEQLAB_CHECK(pivots.dim() >= 1 && pivots.size(-1) == LU.size(-1), op,
               ": Number of pivots per batch should be same as the dimension of the matrix");
  SEQLAB_CHECK(Shape(LU.shape().begin(), LU.shape().end() - 1) == pivots.shape(), op,
               ": Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
               shape_str(pivots.shape()), " instead");
}

// op(A) X = B for A = P L U (getrs), B (*, n, k), batch dims broadcast; no autograd.
Tensor lu_solve_left(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool adjoint) {
  const char* op = "linalg.lu_solve";
  const Shape batch = broadcast_shapes(batch_shape(B), batch_shape(LU), op);
  const int64_t n = LU.size(-1), k = B.size(-1), count = shape_numel(batch);
  const Tensor lu = fortran_copy(expand(LU.detach(), with_matrix(batch, n, n)));
  Shape piv_shape = batch;
  piv_shape.push_back(n);
  const std::vector<int> piv = pivot_values(expand(pivots, piv_shape));
  for (int v : piv) {
    SEQLAB_CHECK(v >= 1, "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the "
                 "result of lu_factor?");
    SEQLAB_CHECK(v <= n, "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly "
                 "pass the result of lu_factor?");
  }
  Tensor X = fortran_copy(expand(B.detach(), with_matrix(batch, n, k)));
  if (n == 0 || k == 0) return X;
  const int ni = lapack_int(n, op), ki = lapack_int(k, op);
  dispatch_float(LU.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* a = static_cast<const T*>(lu.raw_data());
    T* x = static_cast<T*>(X.raw_data());
    for (int64_t b = 0; b < count; ++b)
      lapack::getrs<T>(adjoint ? 'T' : 'N', ni, ki, a + b * n * n, ni, &piv[b * n], x + b * n * k, ni);
  });
  return X;
}

Tensor lu_solve_forward(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  // X op(A) = B  <=>  op(A)^T X^T = B^T
  return left ? lu_solve_left(LU, pivots, B, adjoint) : mT(lu_solve_left(LU, pivots, mT(B), !adjoint));
}

}  // namespace

// X = op(A)^{-1} B (left) or B op(A)^{-1}, A = P L U. With gB = the same solve of g with op(A)^T:
//   left: gA = -gB X^T (adjoint: -X gB^T);   right: gA = -X^T gB (adjoint: -gB^T X)
// and through A = P L U to the packed factors:  gLU = tril(P^T gA U^T, -1) + triu(L^T P^T gA).
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  SEQLAB_CHECK(LU.dim() >= 2, "torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.");
  SEQLAB_CHECK(LU.size(-1) == LU.size(-2), "torch.linalg.lu_solve: A must be batches of square matrices, but they are ",
               LU.size(-2), " by ", LU.size(-1), " matrices");
  SEQLAB_CHECK(is_floating(LU.dtype()), "torch.linalg.lu_solve: Expected a floating point or complex tensor as input. "
               "Got ", scalar_type_name(LU.dtype()));
  SEQLAB_CHECK(B.dim() >= 2, op, ": The input tensor B must have at least 2 dimensions.");
  const int64_t n = LU.size(-1);
  SEQLAB_CHECK((left ? B.size(-2) : B.size(-1)) == n, op, ": Incompatible shapes of A and B for the equation ",
               left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", B.size(-2), "x", B.size(-1), ")");
  SEQLAB_CHECK(LU.dtype() == B.dtype(), op, ": Expected LU and B to have the same dtype, but found LU of type ",
               scalar_type_name(LU.dtype()), " and B of type ", scalar_type_name(B.dtype()), " instead");
  check_pivots(LU, pivots, op);
  Tensor X = lu_solve_forward(LU, pivots, B, left, adjoint);
  if (any_requires_grad({LU, B})) {
    const bool need_lu = LU.requires_grad(), need_b = B.requires_grad();
    attach(X, "LinalgLuSolveBackward0", {LU, B},
           [sLU = save(LU), sX = need_lu ? save(X) : SavedTensor(), piv = pivots.detach(), need_lu, need_b, left,
            adjoint, lu_shape = LU.shape(), b_shape = B.shape()](const Tensor& g) -> TensorList {
             const Tensor LU = sLU.unpack();
             const Tensor gB = lu_solve_forward(LU, piv, g, left, !adjoint);
             Tensor gLU;
             if (need_lu) {
               const Tensor X = sX.unpack();
               const Tensor gA = neg(left ? (adjoint ? matmul(X, mT(gB)) : matmul(gB, mT(X)))
                                          : (adjoint ? matmul(mT(gB), X) : matmul(mT(X), gB)));
               auto [L, U] = unpack_lu(LU);
               const int64_t n = LU.size(-1);
               const Tensor P = permutation_matrix(pivot_values(piv), batch_shape(LU), n, n, LU.dtype());
               const Tensor PtgA = matmul(mT(P), gA);
               gLU = sum_to(tril(matmul(PtgA, mT(U)), -1) + triu(matmul(mT(L), PtgA), 0), lu_shape);
             }
             return {gLU, need_b ? sum_to(gB, b_shape) : Tensor()};
           });
  }
  return X;
}

namespace {

// torch records a node that refuses the backward for the ops it cannot differentiate.
void refuse_grad(TensorList& outs, const TensorList& inputs, const char* node, std::string message,
                 bool not_implemented) {
  attach_multi(outs, node, inputs, [message, not_implemented](const TensorList&) -> TensorList {
    if (not_implemented) throw NotImplementedError(message);
    throw std::runtime_error(message);
  });
}

}  // namespace

// A = L D L^T by Bunch-Kaufman pivoting (sytrf on the lower triangle): LD holds L's strict lower
// part and D's blocks, its upper triangle 0. info > 0: D[info, info] is exactly zero (the
// factorization is complete, D singular), which check_errors refuses.
std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool hermitian, bool check_errors,
                                                        const char* op) {
  (void)hermitian;  // real inputs: hermitian and symmetric are the same
  SEQLAB_CHECK(A.dim() >= 2, "torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 dimensions.");
  SEQLAB_CHECK(A.size(-1) == A.size(-2), "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they "
               "are ", A.size(-2), " by ", A.size(-1), " matrices");
  SEQLAB_CHECK(is_floating(A.dtype()), "torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as "
               "input. Got ", scalar_type_name(A.dtype()));
  Tensor LD = fortran_copy(A);
  const Shape batch = batch_shape(A);
  const int64_t n = A.size(-1), count = shape_numel(batch);
  std::vector<int> piv(static_cast<size_t>(count * n), 0), info(static_cast<size_t>(count), 0);
  const int ni = lapack_int(n, op);
  if (n > 0)
    dispatch_float(A.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      T* a = static_cast<T*>(LD.raw_data());
      for (int64_t b = 0; b < count; ++b) {
        T* ab = a + b * n * n;  // column-major: a(i, j) = ab[i + j n]
        info[b] = lapack::sytrf<T>('L', ni, ab, ni, &piv[b * n]);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < j; ++i) ab[i + j * n] = T(0);
      }
    });
  if (check_errors)
    for (int64_t b = 0; b < count; ++b)
      SEQLAB_CHECK(info[b] <= 0, op, ": ", batch_prefix(A.dim() > 2, b), "The factorization could not be completed "
                   "because the block diagonal matrix D is exactly singular (D[", info[b], ",", info[b],
                   "] is zero; LAPACK sytrf error code: ", info[b], ").");
  Shape piv_shape = batch;
  piv_shape.push_back(n);
  Tensor pivots = int32_tensor(piv, piv_shape), infos = int32_tensor(info, batch);
  if (any_requires_grad({A})) {
    TensorList outs{LD};
    refuse_grad(outs, {A}, "NotImplemented", "derivative for aten::linalg_ldl_factor_ex is not implemented", false);
    LD = outs[0];
  }
  return {LD, pivots, infos};
}

// A X = B from A's ldl_factor (sytrs), B (*, n, k), batch dims broadcast; no gradient, as torch.
Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  (void)hermitian;
  const char* op = "torch.linalg.ldl_solve";
  SEQLAB_CHECK(LD.dim() >= 2, op, ": The input tensor LD must have at least 2 dimensions.");
  SEQLAB_CHECK(LD.size(-1) == LD.size(-2), op, ": LD must be batches of square matrices, but they are ", LD.size(-2),
               " by ", LD.size(-1), " matrices");
  SEQLAB_CHECK_INDEX(B.dim() >= 2, op, ": The input tensor B must have at least 2 dimensions (Dimension out of range "
                     "(expected to be in range of [-1, 0], but got -2))");
  SEQLAB_CHECK(pivots.dim() >= 1 && Shape(LD.shape().begin(), LD.shape().end() - 1) == pivots.shape(), op,
               ": Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
               shape_str(pivots.shape()), " instead");
  SEQLAB_CHECK(is_floating(LD.dtype()), op, ": Expected a floating point or complex tensor as input. Got ",
               scalar_type_name(LD.dtype()));
  SEQLAB_CHECK(is_integral(pivots.dtype()), op, ": pivots should be a Tensor of an integer type, but got ",
               scalar_type_name(pivots.dtype()));
  SEQLAB_CHECK(B.dtype() == LD.dtype(), "Expected b and A to have the same dtype, but found b of type ",
               scalar_type_name(B.dtype()), " and A of type ", scalar_type_name(LD.dtype()), " instead.");
  const int64_t n = LD.size(-1), k = B.size(-1);
  SEQLAB_CHECK(B.size(-2) == n, "Incompatible matrix sizes for ", op, ": each A matrix is ", n, " by ", n,
               " but each b matrix is ", B.size(-2), " by ", k);
  const Shape batch = broadcast_shapes(batch_shape(B), batch_shape(LD), op);
  const int64_t count = shape_numel(batch);
  const Tensor ld = fortran_copy(expand(LD.detach(), with_matrix(batch, n, n)));
  Shape piv_shape = batch;
  piv_shape.push_back(n);
  const std::vector<int> piv = pivot_values(to_dtype(expand(pivots, piv_shape), Dtype::Int32));
  for (int v : piv)
    SEQLAB_CHECK(v != 0 && v >= -n && v <= n, op, ": the pivots must be ldl_factor's, between -", n, " and ", n,
                 " and not 0");
  Tensor X = fortran_copy(expand(B.detach(), with_matrix(batch, n, k)));
  if (n > 0 && k > 0) {
    const int ni = lapack_int(n, op), ki = lapack_int(k, op);
    dispatch_float(LD.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      const T* a = static_cast<const T*>(ld.raw_data());
      T* x = static_cast<T*>(X.raw_data());
      for (int64_t b = 0; b < count; ++b)
        lapack::sytrs<T>('L', ni, ki, a + b * n * n, ni, &piv[b * n], x + b * n * k, ni);
    });
  }
  if (any_requires_grad({LD, B})) {
    TensorList outs{X};
    refuse_grad(outs, {LD, B}, "NotImplemented", "derivative for aten::linalg_ldl_solve is not implemented", false);
    X = outs[0];
  }
  return X;
}

namespace {

// torch's shared checks of (input, tau) for householder_product / orgqr and ormqr.
void check_tau(const Tensor& A, const Tensor& tau, const char* op) {
  SEQLAB_CHECK(A.dim() - tau.dim() == 1, op, ": Expected tau to have one dimension less than input, but got tau.ndim "
               "equal to ", tau.dim(), " and input.ndim is equal to ", A.dim());
  if (A.dim() > 2) {
    const Shape tb(tau.shape().begin(), tau.shape().end() - 1);
    SEQLAB_CHECK(tb == batch_shape(A), op, ": Expected batch dimensions of tau to be equal to input.shape[:-2], but "
                 "got ", shape_str(tb));
  }
}

// V (*, m, k): the Householder vectors below A's diagonal, with their unit leading entries.
Tensor householder_vectors(const Tensor& A, int64_t k) {
  return tril(narrow(A, -1, 0, k), -1) + eye(A.size(-2), k, A.dtype());
}

// X <- H_i X = X - tau_i v_i (v_i^T X)
Tensor apply_reflector(const Tensor& v, const Tensor& t, const Tensor& X) { return X - mul(t, matmul(v, matmul(mT(v), X))); }

// Q = H_0 ... H_{k-1} E (E: the first n columns of I). With S_i = H_{i+1} ... H_{k-1} E and
// G_i = H_{i-1} ... H_0 gQ, the reflector H_i = I - tau_i v_i v_i^T sees the gradient G_i S_i^T, so
//   g tau_i = -(G_i^T v_i) . (S_i^T v_i),   g v_i = -tau_i (G_i S_i^T v_i + S_i G_i^T v_i),
// g v_i landing on A's column i below the diagonal (v_i's other entries are fixed).
std::pair<Tensor, Tensor> householder_backward(const Tensor& gQ, const Tensor& A, const Tensor& tau) {
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  const Tensor V = householder_vectors(A, k);
  std::vector<Tensor> v(k), t(k), S(k);
  for (int64_t i = 0; i < k; ++i) {
    v[i] = narrow(V, -1, i, 1);
    t[i] = unsqueeze(narrow(tau, -1, i, 1), -1);
  }
  Tensor Si = expand(eye(m, n, A.dtype()), gQ.shape());
  for (int64_t i = k - 1; i >= 0; --i) {
    S[i] = Si;
    Si = apply_reflector(v[i], t[i], Si);
  }
  Tensor G = gQ;
  TensorList gv, gt;
  for (int64_t i = 0; i < k; ++i) {
    const Tensor a = matmul(mT(G), v[i]), b = matmul(mT(S[i]), v[i]);  // (*, n, 1)
    gt.push_back(neg(sum(mul(a, b), {-2, -1}, false)));
    gv.push_back(neg(mul(t[i], matmul(G, b) + matmul(S[i], a))));
    G = apply_reflector(v[i], t[i], G);
  }
  Tensor gA = zeros_like(A);
  if (k > 0) {
    gA = tril(cat(gv, -1), -1);
    if (n > k) gA = cat({gA, zeros(with_matrix(batch_shape(A), m, n - k), A.dtype())}, -1);
  }
  return {gA, k > 0 ? stack(gt, -1) : zeros_like(tau)};
}

}  // namespace

// Q's first n columns from the k <= n <= m reflectors of A and tau (orgqr), as torch.linalg.householder_product.
Tensor linalg_householder_product(const Tensor& A, const Tensor& tau, const char* op) {
  SEQLAB_CHECK(A.dim() >= 2, op, ": input must have at least 2 dimensions.");
  const int64_t m = A.size(-2), n = A.size(-1);
  SEQLAB_CHECK(m >= n, op, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  SEQLAB_CHECK(tau.dim() >= 1 && n >= tau.size(-1), op, ": input.shape[-1] must be greater than or equal to "
               "tau.shape[-1]");
  check_tau(A, tau, op);
  SEQLAB_CHECK(tau.dtype() == A.dtype(), op, ": tau dtype ", scalar_type_name(tau.dtype()),
               " does not match input dtype ", scalar_type_name(A.dtype()));
  SEQLAB_CHECK_IMPL(is_floating(A.dtype()), "\"orgqr_cpu\" not implemented for '", scalar_type_name(A.dtype()), "'");
  const int64_t k = tau.size(-1), count = shape_numel(batch_shape(A));
  Tensor Q = fortran_copy(A);
  const Tensor t = contiguous(tau.detach());
  if (m > 0 && n > 0) {
    const int mi = lapack_int(m, op), ni = lapack_int(n, op), ki = static_cast<int>(k);
    dispatch_float(A.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      T* q = static_cast<T*>(Q.raw_data());
      const T* tp = static_cast<const T*>(t.raw_data());
      for (int64_t b = 0; b < count; ++b) lapack::orgqr<T>(mi, ni, ki, q + b * m * n, mi, tp + b * k);
    });
  }
  if (any_requires_grad({A, tau}))
    attach(Q, "LinalgHouseholderProductBackward0", {A, tau},
           [sA = save(A), st = save(tau)](const Tensor& g) -> TensorList {
             auto [gA, gt] = householder_backward(g, sA.unpack(), st.unpack());
             return {gA, gt};
           });
  return Q;
}

// LAPACK's geqrf: R in a's upper triangle, the Householder vectors below it, their scales in tau.
// No gradient: torch records a node that refuses it.
std::pair<Tensor, Tensor> geqrf(const Tensor& A) {
  const char* op = "torch.geqrf";
  SEQLAB_CHECK(A.dim() >= 2, op, ": input must have at least 2 dimensions.");
  SEQLAB_CHECK_IMPL(is_floating(A.dtype()), "\"geqrf_cpu\" not implemented for '", scalar_type_name(A.dtype()), "'");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const Shape batch = batch_shape(A);
  const int64_t count = shape_numel(batch);
  Tensor a = fortran_copy(A);
  Shape tau_shape = batch;
  tau_shape.push_back(k);
  Tensor tau = zeros(tau_shape, A.dtype());
  if (k > 0) {
    const int mi = lapack_int(m, op), ni = lapack_int(n, op);
    dispatch_float(A.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t b = 0; b < count; ++b)
        lapack::geqrf<T>(mi, ni, static_cast<T*>(a.raw_data()) + b * m * n, mi,
                         static_cast<T*>(tau.raw_data()) + b * k);
    });
  }
  if (any_requires_grad({A})) {
    TensorList outs{a, tau};
    refuse_grad(outs, {A}, "GeqrfBackward0", "the derivative for 'geqrf' is not implemented.", true);
    a = outs[0];
    tau = outs[1];
  }
  return {a, tau};
}

// op(Q) C or C op(Q) by LAPACK's ormqr, Q = H_1 ... H_k (mn x mn, mn = C's rows when left, else
// its columns). With a gradient, the same product is composed instead: Q from householder_product
// of A's k reflector columns padded to mn columns, then a matmul, so gradients reach A, tau and C.
Tensor ormqr(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose) {
  const char* op = "torch.ormqr";
  SEQLAB_CHECK(A.dim() >= 2, op, ": input must have at least 2 dimensions.");
  SEQLAB_CHECK(C.dim() >= 2, op, ": other must have at least 2 dimensions.");
  const int64_t mn = A.size(-2);
  if (left)
    SEQLAB_CHECK(C.size(-2) == mn, op, ": other.shape[-2] must be equal to input.shape[-2]");
  else
    SEQLAB_CHECK(C.size(-1) == mn, op, ": other.shape[-1] must be equal to input.shape[-2]");
  const int64_t k = std::min(left ? C.size(-2) : C.size(-1), A.size(-1));
  SEQLAB_CHECK(tau.dim() >= 1 && tau.size(-1) == k, op, ": tau.shape[-1] must be equal to min(other.shape[",
               left ? "-2" : "-1", "], input.shape[-1])");
  check_tau(A, tau, op);
  SEQLAB_CHECK(C.dim() == A.dim(), op, ": Expected other to have the same number of dimensions as input, but got "
               "other.ndim equal to ", C.dim(), " and input.ndim is equal to ", A.dim());
  if (A.dim() > 2) {
    const Shape cb = batch_shape(C);
    SEQLAB_CHECK(cb == batch_shape(A), op, ": Expected batch dimensions of other to be equal to input.shape[:-2], but "
                 "got ", shape_str(cb));
  }
  SEQLAB_CHECK(tau.dtype() == A.dtype(), op, ": Expected input and tau to have the same dtype, but input has dtype",
               scalar_type_name(A.dtype()), " and tau has dtype ", scalar_type_name(tau.dtype()));
  SEQLAB_CHECK(C.dtype() == A.dtype(), op, ": Expected input and other to have the same dtype, but input has dtype",
               scalar_type_name(A.dtype()), " and other has dtype ", scalar_type_name(C.dtype()));
  SEQLAB_CHECK_IMPL(is_floating(A.dtype()), "\"ormqr_cpu\" not implemented for '", scalar_type_name(A.dtype()), "'");
  if (any_requires_grad({A, tau, C})) {
    Tensor H = narrow(A, -1, 0, k);
    if (mn > k) H = cat({H, zeros(with_matrix(batch_shape(A), mn, mn - k), A.dtype())}, -1);
    const Tensor Q = linalg_householder_product(H, tau, op);
    const Tensor opQ = transpose ? mT(Q) : Q;
    return left ? matmul(opQ, C) : matmul(C, opQ);
  }
  const int64_t m = C.size(-2), n = C.size(-1), count = shape_numel(batch_shape(C));
  const Tensor a = fortran_copy(narrow(A, -1, 0, k)), t = contiguous(tau);
  Tensor X = fortran_copy(C);
  if (m > 0 && n > 0) {
    const int mi = lapack_int(m, op), ni = lapack_int(n, op), ki = static_cast<int>(k),
              lda = std::max(1, static_cast<int>(mn));
    dispatch_float(A.dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      const T* pa = static_cast<const T*>(a.raw_data());
      const T* pt = static_cast<const T*>(t.raw_data());
      T* px = static_cast<T*>(X.raw_data());
      for (int64_t b = 0; b < count; ++b)
        lapack::ormqr<T>(left ? 'L' : 'R', transpose ? 'T' : 'N', mi, ni, ki, pa + b * mn * k, lda, pt + b * k,
                         px + b * m * n, mi);
    });
  }
  return X;
}

}  // namespace seqlab
