// torch.linalg's LAPACK-backed ops (cpp/src/ops/lapack_linalg.cpp, lapack_decomp.cpp) in
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
}

}  // namespace seqlab::bind
