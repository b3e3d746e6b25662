// torch.linalg's dense factorizations through LAPACK (cpp/src/lapack.hpp), float32 and float64,
// batched over leading dims, each with its backward: cpp/src/ops/lapack_linalg.cpp (det, slogdet,
// inv, solve, cholesky, solve_triangular), lapack_decomp.cpp (qr, eigh, svd) and lapack_lu.cpp (the
// LU and LDL families, householder_product, geqrf, ormqr).
// Tests: tests/test_linalg_lapack.py, tests/test_linalg_lu.py.
#pragma once
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "seqlab/tensor.hpp"

namespace seqlab {

// A factorization that could not be completed (a singular or non-positive-definite matrix, no
// convergence): torch.linalg.LinAlgError, a RuntimeError (bound as seqlab.linalg.LinAlgError).
struct LinAlgError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Tensor linalg_det(const Tensor& A);
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A, const char* op = "linalg.slogdet");  // (sign, logabsdet)
Tensor logdet(const Tensor& A);  // log det A: nan where det < 0, -inf where det = 0 (torch.logdet)
Tensor linalg_inv(const Tensor& A);
// X with A X = B (left) or X A = B; B a vector or a matrix (torch.linalg.solve's rule), batch dims broadcast.
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);
Tensor linalg_cholesky(const Tensor& A, bool upper = false, const char* op = "linalg.cholesky");
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false);
// mode "reduced", "complete" or "r" (Q is then an empty tensor).
std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode = "reduced");
// (eigenvalues ascending, eigenvectors as columns) of a symmetric A, read from its UPLO triangle.
std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, const std::string& UPLO = "L");
Tensor linalg_eigvalsh(const Tensor& A, const std::string& UPLO = "L");
// (U, S, Vh), S descending.
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true);
Tensor linalg_svdvals(const Tensor& A);

// P A = L U by getrf: (LU packed, pivots int32 1-based, info int32 per matrix). `op` names the
// caller in errors; check_errors raises on a zero pivot (info > 0).
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false,
                                                       const char* op = "torch.linalg.lu_factor_ex");
// (P, L, U) with A = P L U; P has no gradient.
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot = true);
// (P, L, U) from lu_factor's (LU, pivots); an empty tensor for the parts not asked for.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data = true,
                                             bool unpack_pivots = true);
// X with op(A) X = B (left) or X op(A) = B, A = P L U given as lu_factor's (LU, pivots), op(A) = A^T
// when adjoint; batch dims broadcast.
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                       bool adjoint = false);
// A = L D L^T by sytrf (Bunch-Kaufman): (LD, pivots, info); no gradient, as torch.
std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A, bool hermitian = false,
                                                        bool check_errors = false,
                                                        const char* op = "torch.linalg.ldl_factor_ex");
Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false);
// The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i below A's diagonal (orgqr).
Tensor linalg_householder_product(const Tensor& A, const Tensor& tau, const char* op = "torch.linalg.householder_product");
// (a, tau) of LAPACK's geqrf; no gradient, as torch.
std::pair<Tensor, Tensor> geqrf(const Tensor& A);
// op(Q) C (left) or C op(Q), Q = H_1 ... H_k from geqrf's (A, tau), op(Q) = Q^T when transpose.
Tensor ormqr(const Tensor& A, const Tensor& tau, const Tensor& C, bool left = true, bool transpose = false);

}  // namespace seqlab
