// torch.linalg's decompositions through LAPACK (cpp/src/lapack.hpp): qr (geqrf, orgqr), eigh and
// eigvalsh (syevd), svd and svdvals (gesdd), each forward with its backward closure below it, as the
// torch.linalg pages define them; batched over leading dims, float32 and float64.
// Tests: tests/test_linalg_lapack.py.
#include "seqlab/ops/lapack_linalg.hpp"

#include <cmath>
#include <vector>

#include "kernel_utils.hpp"
#include "lapack.hpp"
#include "lapack_impl.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/linalg.hpp"

namespace seqlab {

using namespace lapack_ops;

namespace {

// Z R^{-T} for upper-triangular R: the solve X R^T = Z.
Tensor times_inv_rt(const Tensor& Z, const Tensor& R) {
  return linalg_solve_triangular(mT(R), Z, /*upper=*/false, /*left=*/false);
}

// A = Q R with m >= n (Q: m x n, R: n x n), as TensorFlow's QrGrad and torch's linalg_qr_backward:
//   M  = Q^T dQ - dQ^T Q + R dR^T - dR R^T
//   dA = Q dR + (Q tril(M) + dQ - Q Q^T dQ) R^{-T}
Tensor qr_backward_tall(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  const Tensor QtgQ = matmul(mT(Q), gQ), RgRt = matmul(R, mT(gR));
  const Tensor M = QtgQ - mT(QtgQ) + RgRt - mT(RgRt);
  return matmul(Q, gR) + times_inv_rt(matmul(Q, tril(M, 0)) + gQ - matmul(Q, QtgQ), R);
}

}  // namespace

// A = Q R by Householder reflections (geqrf), Q formed by orgqr. k = min(m, n);
// 'reduced': Q (m, k), R (k, n); 'complete': Q (m, m), R (m, n); 'r': R (k, n) and an empty Q.
// Backward for m >= n: qr_backward_tall. For m < n (Q square): A = [X | Y], R = [U | V] with
// X = Q U, Y = Q V, so dY = Q dV and X's gradient is the square case with dQ + Y dV^T.
std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode) {
  SEQLAB_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '", mode,
               "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const char* op = "linalg.qr";
  check_matrix(A, op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool complete = mode == "complete", want_q = mode != "r";
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  const Shape batch = batch_shape(A);
  const int64_t count = shape_numel(batch);
  Tensor a = fortran_copy(A);
  Tensor R = empty_fortran(with_matrix(batch, rrows, n), A.dtype());
  Tensor Q = want_q ? empty_fortran(with_matrix(batch, m, qcols), A.dtype()) : Tensor::empty({0}, A.dtype());
  const int mi = lapack_int(m, op), ni = lapack_int(n, op), ki = static_cast<int>(k), qi = static_cast<int>(qcols);
  dispatch_float(A.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(1, k)));
    for (int64_t b = 0; b < count; ++b) {
      T* ab = static_cast<T*>(a.raw_data()) + b * m * n;  // column-major: a(i, j) = ab[i + j m]
      if (m > 0 && n > 0) lapack::geqrf<T>(mi, ni, ab, mi, tau.data());
      T* rb = static_cast<T*>(R.raw_data()) + b * rrows * n;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < rrows; ++i) rb[i + j * rrows] = i <= j ? ab[i + j * m] : T(0);
      if (!want_q || m == 0) continue;
      T* qb = static_cast<T*>(Q.raw_data()) + b * m * qcols;
      for (int64_t j = 0; j < qcols; ++j)
        for (int64_t i = 0; i < m; ++i) qb[i + j * m] = j < n ? ab[i + j * m] : T(0);
      if (qcols > 0) lapack::orgqr<T>(mi, qi, ki, qb, mi, tau.data());
    }
  });
  if (any_requires_grad({A})) {
    if (!want_q) {
      attach(R, "LinalgQrBackward0", {A}, [](const Tensor&) -> TensorList {
        throw std::runtime_error(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
            "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
      });
    } else {
      TensorList outs{Q, R};
      attach_multi(outs, "LinalgQrBackward0", {A}, [sQ = save(Q), sR = save(R), m, n](const TensorList& g) -> TensorList {
        SEQLAB_CHECK(m <= n || sQ.unpack().size(-1) == n,
                     "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
        const Tensor Q = sQ.unpack(), R = sR.unpack();
        const Tensor gQ = g[0].defined() ? g[0] : zeros_like(Q), gR = g[1].defined() ? g[1] : zeros_like(R);
        if (m >= n) return {qr_backward_tall(gQ, gR, Q, R)};
        const Tensor U = narrow(R, -1, 0, m), V = narrow(R, -1, m, n - m);
        const Tensor gU = narrow(gR, -1, 0, m), gV = narrow(gR, -1, m, n - m);
        const Tensor Y = matmul(Q, V);
        const Tensor gX = qr_backward_tall(gQ + matmul(Y, mT(gV)), gU, Q, U);
        return {cat({gX, matmul(Q, gV)}, -1)};
      });
      Q = outs[0];
      R = outs[1];
    }
  }
  return {Q, R};
}

namespace {

// (eigenvalues, eigenvectors or undefined) of every symmetric matrix of A, by syevd.
std::pair<Tensor, Tensor> eigh_forward(const Tensor& A, const std::string& UPLO, bool vectors) {
  const char* op = "linalg.eigh";
  SEQLAB_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u",
               "Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  SEQLAB_CHECK(A.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  SEQLAB_CHECK(A.size(-1) == A.size(-2), op, ": A must be batches of square matrices, but they are ", A.size(-2),
               " by ", A.size(-1), " matrices");
  SEQLAB_CHECK_IMPL(is_floating(A.dtype()), "\"linalg_eigh_cpu\" not implemented for '", scalar_type_name(A.dtype()),
                    "'");
  const int64_t n = A.size(-1);
  const Shape batch = batch_shape(A);
  const int64_t count = shape_numel(batch);
  Tensor V = fortran_copy(A);
  Shape w_shape = batch;
  w_shape.push_back(n);
  Tensor w = Tensor::empty(w_shape, A.dtype());
  const int ni = lapack_int(n, op);
  const char uplo = (UPLO == "U" || UPLO == "u") ? 'U' : 'L';
  dispatch_float(A.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < count && n > 0; ++b) {
      const int info = lapack::syevd<T>(vectors ? 'V' : 'N', uplo, ni, static_cast<T*>(V.raw_data()) + b * n * n, ni,
                                        static_cast<T*>(w.raw_data()) + b * n);
      if (info > 0)
        throw LinAlgError(str_cat(op, ": ", batch_prefix(A.dim() > 2, b),
                                  "The algorithm failed to converge because the input matrix is ill-conditioned or has "
                                  "too many repeated eigenvalues (error code: ", info, ")."));
    }
  });
  return {w, vectors ? V : Tensor()};
}

// V diag(d) V^T
Tensor v_diag_vt(const Tensor& V, const Tensor& d) { return matmul(mul(V, unsqueeze(d, -2)), mT(V)); }

}  // namespace

// A = V diag(λ) V^T, λ ascending, from A's UPLO triangle.
// dA = V (diag(dλ) + skew(V^T dV) / E) V^T,  skew(X) = (X - X^T) / 2,  E_ij = λ_j - λ_i off the
// diagonal: torch's formula, a symmetric gradient; inf/nan where eigenvalues repeat and dV is
// nonzero, as torch's.
std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, const std::string& UPLO) {
  auto [w, V] = eigh_forward(A, UPLO, true);
  if (any_requires_grad({A})) {
    TensorList outs{w, V};
    attach_multi(outs, "LinalgEighBackward0", {A}, [sw = save(w), sV = save(V)](const TensorList& g) -> TensorList {
      const Tensor w = sw.unpack(), V = sV.unpack();
      const Tensor gw = g[0].defined() ? g[0] : zeros_like(w);
      if (!g[1].defined()) return {v_diag_vt(V, gw)};
      const Tensor I = eye(w.size(-1), w.size(-1), w.dtype());
      const Tensor VtgV = matmul(mT(V), g[1]);
      const Tensor skew = (VtgV - mT(VtgV)) * 0.5;  // 0 on the diagonal
      const Tensor E = unsqueeze(w, -2) - unsqueeze(w, -1) + I;  // 1 on the diagonal
      const Tensor inner = div(skew, E) + mul(unsqueeze(gw, -2), I);
      return {matmul(V, matmul(inner, mT(V)))};
    });
    w = outs[0];
    V = outs[1];
  }
  return {w, V};
}

// The eigenvalues alone (eigenvectors computed only for the backward).   dA = V diag(dλ) V^T
Tensor linalg_eigvalsh(const Tensor& A, const std::string& UPLO) {
  const bool grad = any_requires_grad({A});
  auto [w, V] = eigh_forward(A, UPLO, grad);
  if (grad)
    attach(w, "LinalgEighBackward0", {A},
           [sV = save(V)](const Tensor& g) -> TensorList { return {v_diag_vt(sV.unpack(), g)}; });
  return w;
}

namespace {

// (U, S, Vh) of every matrix of A by gesdd; jobz 'A' (full), 'S' (reduced) or 'N' (S only).
std::tuple<Tensor, Tensor, Tensor> svd_forward(const Tensor& A, char jobz) {
  const char* op = "linalg.svd";
  check_matrix(A, op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int64_t ucols = jobz == 'A' ? m : k, vrows = jobz == 'A' ? n : k;
  const Shape batch = batch_shape(A);
  const int64_t count = shape_numel(batch);
  Tensor a = fortran_copy(A);
  Shape s_shape = batch;
  s_shape.push_back(k);
  Tensor S = Tensor::empty(s_shape, A.dtype()), U, Vh;
  if (jobz != 'N') {
    U = empty_fortran(with_matrix(batch, m, ucols), A.dtype());
    Vh = empty_fortran(with_matrix(batch, vrows, n), A.dtype());
  }
  const int mi = lapack_int(m, op), ni = lapack_int(n, op);
  dispatch_float(A.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t b = 0; b < count; ++b) {
      T* ab = static_cast<T*>(a.raw_data()) + b * m * n;
      T* ub = jobz == 'N' ? nullptr : static_cast<T*>(U.raw_data()) + b * m * ucols;
      T* vb = jobz == 'N' ? nullptr : static_cast<T*>(Vh.raw_data()) + b * vrows * n;
      if (k == 0) {  // no singular values: the full U and Vh are identities, the reduced ones empty
        for (int64_t j = 0; ub && j < ucols; ++j)
          for (int64_t i = 0; i < m; ++i) ub[i + j * m] = i == j ? T(1) : T(0);
        for (int64_t j = 0; vb && j < n; ++j)
          for (int64_t i = 0; i < vrows; ++i) vb[i + j * vrows] = i == j ? T(1) : T(0);
        continue;
      }
      for (int64_t i = 0; i < m * n; ++i)
        if (!std::isfinite(ab[i]))
          throw LinAlgError(str_cat(op, ": ", batch_prefix(A.dim() > 2, b),
                                    "The algorithm failed to converge because the input matrix contained non-finite "
                                    "values."));
      T dummy[1];
      const int info = lapack::gesdd<T>(jobz, mi, ni, ab, mi, static_cast<T*>(S.raw_data()) + b * k, ub ? ub : dummy,
                                        ub ? mi : 1, vb ? vb : dummy, vb ? static_cast<int>(vrows) : 1);
      if (info > 0)
        throw LinAlgError(str_cat(op, ": ", batch_prefix(A.dim() > 2, b),
                                  "The algorithm failed to converge because the input matrix is ill-conditioned or has "
                                  "too many repeated singular values (error code: ", info, ")."));
    }
  });
  return {U, S, Vh};
}

// A = U diag(S) Vh with U (m, k), Vh (k, n), k = min(m, n) (Townsend 2016, "Differentiating the
// singular value decomposition"; torch's svd_backward), F = skew(.) / E, E_ij = s_j^2 - s_i^2 (i != j):
//   dA = U [ (skew(U^T dU) / E) S + S (skew(Vh dVh^T) / E) + diag(dS) ] Vh
//        + (I - U U^T) dU S^{-1} Vh          (m > k)
//        + U S^{-1} (dVh - (dVh Vh^T) Vh)    (n > k)
// skew(X) = X - X^T. Repeated singular values make E zero: inf/nan where dU or dVh flow, as torch.
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S,
                    const Tensor& Vh) {
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  const Tensor gs = gS.defined() ? gS : zeros_like(S);
  const Tensor I = eye(k, k, S.dtype());
  Tensor inner = mul(unsqueeze(gs, -2), I);  // diag(dS)
  const Tensor s_row = unsqueeze(S, -2), s_col = unsqueeze(S, -1);  // s_j, s_i
  if (gU.defined() || gVh.defined()) {
    const Tensor S2 = mul(S, S);
    const Tensor E = unsqueeze(S2, -2) - unsqueeze(S2, -1) + I;  // 1 on the diagonal, where skew(.) is 0
    if (gU.defined()) {
      const Tensor UtgU = matmul(mT(U), gU);
      inner = inner + mul(div(UtgU - mT(UtgU), E), s_row);
    }
    if (gVh.defined()) {
      const Tensor VtgV = matmul(Vh, mT(gVh));
      inner = inner + mul(s_col, div(VtgV - mT(VtgV), E));
    }
  }
  Tensor gA = matmul(U, matmul(inner, Vh));
  if (gU.defined() && m > k) gA = gA + matmul(div(gU - matmul(U, matmul(mT(U), gU)), s_row), Vh);
  if (gVh.defined() && n > k) gA = gA + matmul(U, div(gVh - matmul(matmul(gVh, mT(Vh)), Vh), s_col));
  return gA;
}

}  // namespace

// A = U diag(S) Vh, S descending (gesdd). full_matrices: U (m, m), Vh (n, n); else U (m, k),
// Vh (k, n). The gradient reads the first k columns of U and rows of Vh only (torch ignores the rest).
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices) {
  auto [U, S, Vh] = svd_forward(A, full_matrices ? 'A' : 'S');
  if (any_requires_grad({A})) {
    const int64_t k = S.size(-1);
    TensorList outs{U, S, Vh};
    attach_multi(outs, "LinalgSvdBackward0", {A},
                 [sU = save(U), sS = save(S), sVh = save(Vh), k](const TensorList& g) -> TensorList {
                   const Tensor U = narrow(sU.unpack(), -1, 0, k), Vh = narrow(sVh.unpack(), -2, 0, k);
                   const Tensor gU = g[0].defined() ? narrow(g[0], -1, 0, k) : Tensor();
                   const Tensor gVh = g[2].defined() ? narrow(g[2], -2, 0, k) : Tensor();
                   return {svd_backward(gU, g[1], gVh, U, sS.unpack(), Vh)};
                 });
    U = outs[0];
    S = outs[1];
    Vh = outs[2];
  }
  return {U, S, Vh};
}

// The singular values alone (U and Vh computed only for the backward).   dA = U diag(dS) Vh
Tensor linalg_svdvals(const Tensor& A) {
  const bool grad = any_requires_grad({A});
  auto [U, S, Vh] = svd_forward(A, grad ? 'S' : 'N');
  if (grad)
    attach(S, "LinalgSvdBackward0", {A}, [sU = save(U), sVh = save(Vh)](const Tensor& g) -> TensorList {
      return {matmul(mul(sU.unpack(), unsqueeze(g, -2)), sVh.unpack())};
    });
  return S;
}

}  // namespace seqlab
