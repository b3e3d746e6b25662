// torch.linalg's dense factorizations through LAPACK (cpp/src/lapack.hpp), float32 and float64,
// batched over leading dims, each with its backward: cpp/src/ops/lapack_linalg.cpp (det, slogdet,
// inv, solve, cholesky, solve_triangular) and lapack_decomp.cpp (qr, eigh, svd).
// Tests: tests/test_linalg_lapack.py.
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

}  // namespace seqlab
