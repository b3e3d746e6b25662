// LAPACK from the library GEMM comes from (scipy-openblas32 exports it with the `scipy_` prefix
// and the Fortran ABI): the few routines torch.linalg's dense ops need, one typed wrapper each,
// column-major, 32-bit ints; workspaces are queried and allocated inside. DESIGN.md "BLAS".
// The ops that call them: cpp/src/ops/lapack_linalg.cpp, lapack_decomp.cpp, lapack_lu.cpp.
#pragma once
#include <cstdint>

namespace seqlab::lapack {

// Every wrapper returns LAPACK's INFO: 0 success, < 0 a bad argument (a bug here), > 0 the
// routine's own failure (a zero pivot, a minor that is not positive-definite, no convergence).

// A = P L U, in place; ipiv: n 1-based row swaps.
template <typename T> int getrf(int m, int n, T* a, int lda, int* ipiv);
// op(A) X = B with A's getrf factors; trans 'N' or 'T'; B (n x nrhs) is overwritten by X.
template <typename T> int getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);
// A^{-1} from A's getrf factors, in place.
template <typename T> int getri(int n, T* a, int lda, const int* ipiv);
// A = L L^T (uplo 'L') or U^T U ('U'), in place, reading that triangle only.
template <typename T> int potrf(char uplo, int n, T* a, int lda);
// A = Q R: R in the upper triangle, Q as min(m,n) Householder reflectors below it and in tau.
template <typename T> int geqrf(int m, int n, T* a, int lda, T* tau);
// The first n columns of Q (m x n) from geqrf's k reflectors, in place.
template <typename T> int orgqr(int m, int n, int k, T* a, int lda, const T* tau);
// op(Q) C (left) or C op(Q) with Q = H_1 ... H_k from geqrf's k reflectors in A (lda rows) and
// tau; trans 'N' or 'T'; C (m x n) is overwritten.
template <typename T>
int ormqr(char side, char trans, int m, int n, int k, const T* a, int lda, const T* tau, T* c, int ldc);
// A = L D L^T (uplo 'L') by Bunch-Kaufman pivoting, in place; ipiv: 1-based interchanges, a
// negative pair marking a 2 x 2 block of D.
template <typename T> int sytrf(char uplo, int n, T* a, int lda, int* ipiv);
// A X = B with A's sytrf factors; B (n x nrhs) is overwritten by X.
template <typename T> int sytrs(char uplo, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);
// A = V diag(w) V^T for symmetric A (triangle uplo), w ascending; jobz 'V': V overwrites A.
template <typename T> int syevd(char jobz, char uplo, int n, T* a, int lda, T* w);
// A = U diag(s) V^T, s descending, by divide and conquer; jobz 'A' (U m x m, VT n x n), 'S'
// (k = min(m,n) columns / rows) or 'N' (s only). A is destroyed.
template <typename T> int gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt);
// op(A) X = alpha B or X op(A) = alpha B for triangular A, row-major, no singularity check (a zero
// diagonal gives inf, as torch's solve_triangular); BLAS's trsm, kept here beside its LAPACK users.
template <typename T>
void trsm(bool left, bool upper, bool trans, bool unit, int64_t m, int64_t n, const T* a, int64_t lda, T* b, int64_t ldb);

}  // namespace seqlab::lapack
