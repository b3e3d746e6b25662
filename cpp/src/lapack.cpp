// The LAPACK routines of lapack.hpp: declared once here with their Fortran names and ABI (every
// argument by pointer, a hidden length after the arguments for each character argument, as
// gfortran passes them), then wrapped per type. The library is the one blas.cpp links.
#include "lapack.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstddef>
#include <vector>

extern "C" {
// clang-format off
void scipy_sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void scipy_dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void scipy_sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
                   float* b, const int* ldb, int* info, size_t trans_len);
void scipy_dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
                   double* b, const int* ldb, int* info, size_t trans_len);
void scipy_sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork, int* info);
void scipy_dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
void scipy_spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t uplo_len);
void scipy_dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
void scipy_sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
                   int* info);
void scipy_dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
                   int* info);
void scipy_sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
                   const int* lwork, int* info);
void scipy_dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
                   double* work, const int* lwork, int* info);
void scipy_ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
                   const int* lwork, int* iwork, const int* liwork, int* info, size_t jobz_len, size_t uplo_len);
void scipy_dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
                   double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t jobz_len,
                   size_t uplo_len);
void scipy_sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
                   const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
                   size_t jobz_len);
void scipy_dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
                   const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
                   size_t jobz_len);
void scipy_sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const float* a,
                   const int* lda, const float* tau, float* c, const int* ldc, float* work, const int* lwork, int* info,
                   size_t side_len, size_t trans_len);
void scipy_dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const double* a,
                   const int* lda, const double* tau, double* c, const int* ldc, double* work, const int* lwork,
                   int* info, size_t side_len, size_t trans_len);
void scipy_ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
                   int* info, size_t uplo_len);
void scipy_dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work,
                   const int* lwork, int* info, size_t uplo_len);
void scipy_ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
                   float* b, const int* ldb, int* info, size_t uplo_len);
void scipy_dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
                   double* b, const int* ldb, int* info, size_t uplo_len);
// clang-format on
}

namespace seqlab::lapack {

namespace {
// A workspace query's answer (a float holding an int) as a size, at least 1.
template <typename T>
int work_size(T query) {
  return std::max(1, static_cast<int>(query));
}
}  // namespace

template <>
int getrf<float>(int m, int n, float* a, int lda, int* ipiv) {
  int info = 0;
  scipy_sgetrf_(&m, &n, a, &lda, ipiv, &info);
  return info;
}
template <>
int getrf<double>(int m, int n, double* a, int lda, int* ipiv) {
  int info = 0;
  scipy_dgetrf_(&m, &n, a, &lda, ipiv, &info);
  return info;
}

template <>
int getrs<float>(char trans, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b, int ldb) {
  int info = 0;
  scipy_sgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}
template <>
int getrs<double>(char trans, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b, int ldb) {
  int info = 0;
  scipy_dgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}

template <>
int getri<float>(int n, float* a, int lda, const int* ipiv) {
  int info = 0, lwork = -1;
  float query = 0;
  scipy_sgetri_(&n, a, &lda, ipiv, &query, &lwork, &info);
  lwork = work_size(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  scipy_sgetri_(&n, a, &lda, ipiv, work.data(), &lwork, &info);
  return info;
}
template <>
int getri<double>(int n, double* a, int lda, const int* ipiv) {
  int info = 0, lwork = -1;
  double query = 0;
  scipy_dgetri_(&n, a, &lda, ipiv, &query, &lwork, &info);
  lwork = work_size(query);
  std::vector<double> work(static_cast<size_t>(lwork));
  scipy_dgetri_(&n, a, &lda, ipiv, work.data(), &lwork, &info);
  return info;
}

template <>
int potrf<float>(char uplo, int n, float* a, int lda) {
  int info = 0;
  scipy_spotrf_(&uplo, &n, a, &lda, &info, 1);
  return info;
}
template <>
int potrf<double>(char uplo, int n, double* a, int lda) {
  int info = 0;
  scipy_dpotrf_(&uplo, &n, a, &lda, &info, 1);
  return info;
}

template <>
int geqrf<float>(int m, int n, float* a, int lda, float* tau) {
  int info = 0, lwork = -1;
  float query = 0;
  scipy_sgeqrf_(&m, &n, a, &lda, tau, &query, &lwork, &info);
  lwork = work_size(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  scipy_sgeqrf_(&m, &n, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}
template <>
int geqrf<double>(int m, int n, double* a, int lda, double* tau) {
  int info = 0, lwork = -1;
  double query = 0;
  scipy_dgeqrf_(&m, &n, a, &lda, tau, &query, &lwork, &info);
  lwork = work_size(query);
  std::vector<double> work(static_cast<size_t>(lwork));
  scipy_dgeqrf_(&m, &n, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}

template <>
int orgqr<float>(int m, int n, int k, float* a, int lda, const float* tau) {
  int info = 0, lwork = -1;
  float query = 0;
  scipy_sorgqr_(&m, &n, &k, a, &lda, tau, &query, &lwork, &info);
  lwork = work_size(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  scipy_sorgqr_(&m, &n, &k, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}
template <>
int orgqr<double>(int m, int n, int k, double* a, int lda, const double* tau) {
  int info = 0, lwork = -1;
  double query = 0;
  scipy_dorgqr_(&m, &n, &k, a, &lda, tau, &query, &lwork, &info);
  lwork = work_size(query);
  std::vector<double> work(static_cast<size_t>(lwork));
  scipy_dorgqr_(&m, &n, &k, a, &lda, tau, work.data(), &lwork, &info);
  return info;
}

template <>
int ormqr<float>(char side, char trans, int m, int n, int k, const float* a, int lda, const float* tau, float* c,
                 int ldc) {
  int info = 0, lwork = -1;
  float query = 0;
  scipy_sormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, &query, &lwork, &info, 1, 1);
  lwork = work_size(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  scipy_sormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lwork, &info, 1, 1);
  return info;
}
template <>
int ormqr<double>(char side, char trans, int m, int n, int k, const double* a, int lda, const double* tau, double* c,
                  int ldc) {
  int info = 0, lwork = -1;
  double query = 0;
  scipy_dormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, &query, &lwork, &info, 1, 1);
  lwork = work_size(query);
  std::vector<double> work(static_cast<size_t>(lwork));
  scipy_dormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work.data(), &lwork, &info, 1, 1);
  return info;
}

template <>
int sytrf<float>(char uplo, int n, float* a, int lda, int* ipiv) {
  int info = 0, lwork = -1;
  float query = 0;
  scipy_ssytrf_(&uplo, &n, a, &lda, ipiv, &query, &lwork, &info, 1);
  lwork = work_size(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  scipy_ssytrf_(&uplo, &n, a, &lda, ipiv, work.data(), &lwork, &info, 1);
  return info;
}
template <>
int sytrf<double>(char uplo, int n, double* a, int lda, int* ipiv) {
  int info = 0, lwork = -1;
  double query = 0;
  scipy_dsytrf_(&uplo, &n, a, &lda, ipiv, &query, &lwork, &info, 1);
  lwork = work_size(query);
  std::vector<double> work(static_cast<size_t>(lwork));
  scipy_dsytrf_(&uplo, &n, a, &lda, ipiv, work.data(), &lwork, &info, 1);
  return info;
}

template <>
int sytrs<float>(char uplo, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b, int ldb) {
  int info = 0;
  scipy_ssytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}
template <>
int sytrs<double>(char uplo, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b, int ldb) {
  int info = 0;
  scipy_dsytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
  return info;
}

template <>
int syevd<float>(char jobz, char uplo, int n, float* a, int lda, float* w) {
  int info = 0, lwork = -1, liwork = -1, iquery = 0;
  float query = 0;
  scipy_ssyevd_(&jobz, &uplo, &n, a, &lda, w, &query, &lwork, &iquery, &liwork, &info, 1, 1);
  lwork = work_size(query);
  liwork = std::max(1, iquery);
  std::vector<float> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  scipy_ssyevd_(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  return info;
}
template <>
int syevd<double>(char jobz, char uplo, int n, double* a, int lda, double* w) {
  int info = 0, lwork = -1, liwork = -1, iquery = 0;
  double query = 0;
  scipy_dsyevd_(&jobz, &uplo, &n, a, &lda, w, &query, &lwork, &iquery, &liwork, &info, 1, 1);
  lwork = work_size(query);
  liwork = std::max(1, iquery);
  std::vector<double> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  scipy_dsyevd_(&jobz, &uplo, &n, a, &lda, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  return info;
}

template <>
int gesdd<float>(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt, int ldvt) {
  int info = 0, lwork = -1;
  float query = 0;
  std::vector<int> iwork(static_cast<size_t>(8 * std::max(1, std::min(m, n))));
  scipy_sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &query, &lwork, iwork.data(), &info, 1);
  lwork = work_size(query);
  std::vector<float> work(static_cast<size_t>(lwork));
  scipy_sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), &info, 1);
  return info;
}
template <>
int gesdd<double>(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu, double* vt, int ldvt) {
  int info = 0, lwork = -1;
  double query = 0;
  std::vector<int> iwork(static_cast<size_t>(8 * std::max(1, std::min(m, n))));
  scipy_dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, &query, &lwork, iwork.data(), &info, 1);
  lwork = work_size(query);
  std::vector<double> work(static_cast<size_t>(lwork));
  scipy_dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &lwork, iwork.data(), &info, 1);
  return info;
}

template <>
void trsm<float>(bool left, bool upper, bool trans, bool unit, int64_t m, int64_t n, const float* a, int64_t lda,
                 float* b, int64_t ldb) {
  if (m == 0 || n == 0) return;
  scipy_cblas_strsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                    trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, (blasint)m, (blasint)n, 1.0f,
                    a, (blasint)lda, b, (blasint)ldb);
}
template <>
void trsm<double>(bool left, bool upper, bool trans, bool unit, int64_t m, int64_t n, const double* a, int64_t lda,
                  double* b, int64_t ldb) {
  if (m == 0 || n == 0) return;
  scipy_cblas_dtrsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                    trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, (blasint)m, (blasint)n, 1.0,
                    a, (blasint)lda, b, (blasint)ldb);
}

}  // namespace seqlab::lapack
