// torch.linalg's LAPACK-backed ops (cpp/src/ops/lapack_linalg.cpp, lapack_decomp.cpp, lapack_lu.cpp) in
// seqlab._core.linalg, with torch's argument names; python/seqlab/linalg.py gives them torch's
// named-tuple results and composes the rest. LinAlgError is torch.linalg.LinAlgError (a RuntimeError).
#include "bind_common.hpp"
#include "seqlab/ops/lapack_linalg.hpp"

namespace seqlab::bind {

void bind_lapack(py::module_& m) {
  py::module_ linalg = m.attr("linalg").cast<py::module_>();
  // registered after module.cpp's translator, so tried before its std::runtime_error case
  py::register_exception<LinAlgError>(linalg, "LinAlgError", PyExc_RuntimeError);
  linalg.attr("LinAlgError").attr("__doc__") =
      "A factorization could not be completed: a singular or non-positive-definite matrix, or no convergence\n"
      "(torch.linalg.LinAlgError, a RuntimeError).";

  linalg.def("det", refusing_reduced("lu_cpu", [](const Tensor& A) { return linalg_det(A); }), py::arg("A"), Release(),
             "det(A): the determinant of each square matrix of A (*, n, n), by LU (torch.linalg.det).");
  linalg.def("slogdet", refusing_low_precision("linalg.slogdet", [](const Tensor& A) { return linalg_slogdet(A); }), py::arg("A"), Release(),
             "slogdet(A) -> (sign, logabsdet): det(A) = sign * exp(logabsdet) (torch.linalg.slogdet).");
  linalg.def("logdet", refusing_low_precision("logdet", [](const Tensor& A) { return logdet(A); }), py::arg("input"), Release(),
             "logdet(input): log det, nan where det < 0 and -inf where det = 0 (torch.logdet).");
  linalg.def("inv", refusing_low_precision("linalg.inv", [](const Tensor& A) { return linalg_inv(A); }), py::arg("A"), Release(),
             "inv(A): the inverse of each square matrix; LinAlgError if one is singular (torch.linalg.inv).");
  linalg.def("solve", refusing_reduced("lu_cpu", [](const Tensor& A, const Tensor& B, bool left) { return linalg_solve(A, B, left); }),
             py::arg("A"), py::arg("B"), py::kw_only(), py::arg("left") = true, Release(),
             "solve(A, B, *, left=True): X with A X = B (or X A = B); B a vector or a matrix, batch dims\n"
             "broadcast (torch.linalg.solve).");
  linalg.def("cholesky", refusing_reduced("cholesky_cpu", [](const Tensor& A, bool upper) { return linalg_cholesky(A, upper); }), py::arg("A"),
             py::kw_only(), py::arg("upper") = false, Release(),
             "cholesky(A, *, upper=False): L with A = L L^T (U with A = U^T U) for symmetric positive-definite A\n"
             "(torch.linalg.cholesky).");
  linalg.def("_cholesky", refusing_reduced("cholesky_cpu", [](const Tensor& A, bool upper) { return linalg_cholesky(A, upper, "cholesky"); }),
             py::arg("input"), py::arg("upper") = false, Release(),
             "torch.cholesky(input, upper=False): linalg.cholesky under the old name, which its errors carry.");
  linalg.def("solve_triangular", refusing_reduced("triangular_solve_cpu", [](const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
    return linalg_solve_triangular(A, B, upper, left, unitriangular);
  }), py::arg("A"), py::arg("B"), py::kw_only(), py::arg("upper"), py::arg("left") = true,
             py::arg("unitriangular") = false, Release(),
             "solve_triangular(A, B, *, upper, left=True, unitriangular=False): X with A X = B (or X A = B) for\n"
             "triangular A (torch.linalg.solve_triangular).");
  linalg.def("qr", refusing_reduced("geqrf_cpu", [](const Tensor& A, const std::string& mode) { return linalg_qr(A, mode); }), py::arg("A"),
             py::arg("mode") = "reduced", Release(),
             "qr(A, mode='reduced') -> (Q, R): A = Q R, Q orthonormal columns, R upper triangular (torch.linalg.qr).");
  linalg.def("eigh", refusing_reduced("linalg_eigh_cpu", [](const Tensor& A, const std::string& UPLO) { return linalg_eigh(A, UPLO); }), py::arg("A"),
             py::arg("UPLO") = "L", Release(),
             "eigh(A, UPLO='L') -> (eigenvalues, eigenvectors) of symmetric A, eigenvalues ascending\n"
             "(torch.linalg.eigh).");
  linalg.def("eigvalsh", refusing_reduced("linalg_eigh_cpu", [](const Tensor& A, const std::string& UPLO) { return linalg_eigvalsh(A, UPLO); }),
             py::arg("A"), py::arg("UPLO") = "L", Release(),
             "eigvalsh(A, UPLO='L'): the eigenvalues of symmetric A, ascending (torch.linalg.eigvalsh).");
  linalg.def("svd", refusing_reduced("linalg_svd_cpu", [](const Tensor& A, bool full_matrices) { return linalg_svd(A, full_matrices); }), py::arg("A"),
             py::arg("full_matrices") = true, Release(),
             "svd(A, full_matrices=True) -> (U, S, Vh): A = U diag(S) Vh, S descending (torch.linalg.svd).");
  linalg.def("svdvals", refusing_reduced("linalg_svd_cpu", [](const Tensor& A) { return linalg_svdvals(A); }), py::arg("A"), Release(),
             "svdvals(A): the singular values of A, descending (torch.linalg.svdvals).");
  linalg.def("lu_factor_ex", refusing_reduced("lu_cpu", [](const Tensor& A, bool pivot, bool check_errors, const std::string& op) {
    return linalg_lu_factor_ex(A, pivot, check_errors, op.c_str());
  }), py::arg("A"), py::kw_only(), py::arg("pivot") = true, py::arg("check_errors") = false,
             py::arg("_op") = "torch.linalg.lu_factor_ex", Release(),
             "lu_factor_ex(A, *, pivot=True, check_errors=False) -> (LU, pivots, info): P A = L U packed\n"
             "(torch.linalg.lu_factor_ex; _op names the caller in errors).");
  linalg.def("lu", refusing_reduced("lu_cpu", [](const Tensor& A, bool pivot) { return linalg_lu(A, pivot); }), py::arg("A"), py::kw_only(),
             py::arg("pivot") = true, Release(), "lu(A, *, pivot=True) -> (P, L, U): A = P L U (torch.linalg.lu).");
  def_op(linalg, "lu_unpack", [](const Tensor& LU, const Tensor& pivots, bool unpack_data, bool unpack_pivots) {
    return lu_unpack(LU, pivots, unpack_data, unpack_pivots);
  }, py::arg("LU_data"), py::arg("LU_pivots"), py::arg("unpack_data") = true, py::arg("unpack_pivots") = true,
             Release(), "lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True) -> (P, L, U) (torch.lu_unpack).");
  linalg.def("lu_solve", refusing_reduced("linalg.lu_solve_cpu", [](const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
    return linalg_lu_solve(LU, pivots, B, left, adjoint);
  }), py::arg("LU"), py::arg("pivots"), py::arg("B"), py::kw_only(), py::arg("left") = true, py::arg("adjoint") = false,
             Release(), "lu_solve(LU, pivots, B, *, left=True, adjoint=False): X with A X = B from A's lu_factor\n"
             "(torch.linalg.lu_solve).");
  linalg.def("ldl_factor_ex", refusing_reduced("ldl_factor_kernel_cpu", [](const Tensor& A, bool hermitian, bool check_errors, const std::string& op) {
    return linalg_ldl_factor_ex(A, hermitian, check_errors, op.c_str());
  }), py::arg("A"), py::kw_only(), py::arg("hermitian") = false, py::arg("check_errors") = false,
             py::arg("_op") = "torch.linalg.ldl_factor_ex", Release(),
             "ldl_factor_ex(A, *, hermitian=False, check_errors=False) -> (LD, pivots, info): A = L D L^T\n"
             "(torch.linalg.ldl_factor_ex).");
  linalg.def("ldl_solve", refusing_reduced("ldl_solve_kernel_cpu", [](const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
    return linalg_ldl_solve(LD, pivots, B, hermitian);
  }), py::arg("LD"), py::arg("pivots"), py::arg("B"), py::kw_only(), py::arg("hermitian") = false, Release(),
             "ldl_solve(LD, pivots, B, *, hermitian=False): X with A X = B from A's ldl_factor (torch.linalg.ldl_solve).");
  linalg.def("householder_product", refusing_reduced("orgqr_cpu", [](const Tensor& A, const Tensor& tau, const std::string& op) {
    return linalg_householder_product(A, tau, op.c_str());
  }), py::arg("A"), py::arg("tau"), py::arg("_op") = "torch.linalg.householder_product", Release(),
             "householder_product(A, tau): the first n columns of H_1 ... H_k (torch.linalg.householder_product).");
  linalg.def("geqrf", refusing_reduced("geqrf_cpu", [](const Tensor& A) { return geqrf(A); }), py::arg("input"), Release(),
             "geqrf(input) -> (a, tau): LAPACK's geqrf (torch.geqrf).");
  linalg.def("ormqr", refusing_reduced("ormqr_cpu", [](const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose) {
    return ormqr(A, tau, C, left, transpose);
  }), py::arg("input"), py::arg("tau"), py::arg("other"), py::arg("left") = true, py::arg("transpose") = false,
             Release(), "ormqr(input, tau, other, left=True, transpose=False): op(Q) other or other op(Q) (torch.ormqr).");
}

}  // namespace seqlab::bind
