// matmul (torch.matmul's dispatch over 1-D, 2-D and batched operands), mm, bmm; linear: linear.cpp.
// mm and bmm are the two nodes with hand-written backward; everything else is composed from
// them and views.   C = A B:  dA = dC B^T,  dB = A^T dC.   Tests: tests/test_linalg.py.
#include "seqlab/ops/linalg.hpp"

#include "blas.hpp"
#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

// A matrix as BLAS wants it: a pointer, transposed or not, and a leading dimension.
struct MatArg {
  Tensor keep;  // a contiguous copy when the strides do not fit BLAS
  bool trans = false;
  int64_t ld = 1;
  int64_t batch_stride = 0;
};

// rows x cols matrix with strides (s_r, s_c), batch dim (if any) first.
MatArg blas_arg(const Tensor& m) {
  const int64_t nd = m.dim();
  const int64_t rows = m.shape()[nd - 2], cols = m.shape()[nd - 1];
  const int64_t sr = m.strides()[nd - 2], sc = m.strides()[nd - 1];
  MatArg arg;
  arg.keep = m;
  if ((sc == 1 || cols <= 1) && sr >= std::max<int64_t>(1, cols)) {
    arg.ld = sr;
  } else if ((sr == 1 || rows <= 1) && sc >= std::max<int64_t>(1, rows)) {
    arg.trans = true;
    arg.ld = sc;
  } else {
    arg.keep = clone(m.detach());
    arg.ld = std::max<int64_t>(1, cols);
  }
  if (nd == 3) arg.batch_stride = arg.keep.strides()[0];
  return arg;
}

// torch multiplies matrices of one dtype only: no promotion, and no bool GEMM.
void check_same_dtype(const Tensor& a, const Tensor& b, const char* op) {
  if (std::string(op) == "bmm")
    SEQLAB_CHECK(a.dtype() == b.dtype(), "bmm: expected scalar type ", scalar_type_name(a.dtype()), " but found ",
                 scalar_type_name(b.dtype()), " (batch1 ", shape_str(a.shape()), ", batch2 ", shape_str(b.shape()), ")");
  SEQLAB_CHECK(a.dtype() == b.dtype(), op, ": expected m1 and m2 to have the same dtype, but got: ",
               dtype_name(a.dtype()), " != ", dtype_name(b.dtype()));
  // torch has no bool GEMM: NotImplementedError "addmm_impl_cpu_" not implemented for 'Bool'
  SEQLAB_CHECK_IMPL(a.dtype() != Dtype::Bool, "\"", op, "\" not implemented for 'Bool'");
}

// out[b] = a[b] @ w[b] for b in batch (batch = 1 for mm).
void gemm_batched(const Tensor& out, const Tensor& a, const Tensor& b, int64_t batch) {
  const int64_t nd = a.dim();
  const int64_t M = a.shape()[nd - 2], K = a.shape()[nd - 1], N = b.shape()[nd - 1];
  if (out.numel() == 0) return;
  if (K == 0) {
    Tensor o = out;
    NoGradGuard ng;
    zero_(o);
    return;
  }
  const MatArg A = blas_arg(a), B = blas_arg(b);
  dispatch_arith(a.dtype(), "matmul", [&](auto tag) {
    using T = decltype(tag);
    const T* pa = static_cast<const T*>(A.keep.raw_data());
    const T* pb = static_cast<const T*>(B.keep.raw_data());
    T* pc = static_cast<T*>(out.raw_data());
    for (int64_t i = 0; i < batch; ++i)
      gemm<T>(A.trans, B.trans, M, N, K, T(1), pa + i * A.batch_stride, A.ld, pb + i * B.batch_stride, B.ld, T(0),
              pc + i * M * N, N);
  });
}

}  // namespace

// C = A B.   dA = dC B^T,   dB = A^T dC
Tensor mm(const Tensor& a, const Tensor& b) {
  SEQLAB_CHECK(a.dim() == 2, "mm: self must be a matrix, got a tensor of shape ", shape_str(a.shape()));
  SEQLAB_CHECK(b.dim() == 2, "mm: mat2 must be a matrix, got a tensor of shape ", shape_str(b.shape()));
  SEQLAB_CHECK(a.shape()[1] == b.shape()[0], "mm: mat1 and mat2 shapes cannot be multiplied (", a.shape()[0], "x",
               a.shape()[1], " and ", b.shape()[0], "x", b.shape()[1], ")");
  check_same_dtype(a, b, "mm");
  Tensor out = Tensor::empty({a.shape()[0], b.shape()[1]}, a.dtype());
  gemm_batched(out, a, b, 1);
  if (any_requires_grad({a, b})) {
    const bool need_a = a.requires_grad(), need_b = b.requires_grad();
    attach(out, "MmBackward0", {a, b},
           [sa = need_b ? save(a) : SavedTensor(), sb = need_a ? save(b) : SavedTensor(), need_a,
            need_b](const Tensor& g) -> TensorList {
             return {need_a ? mm(g, t(sb.unpack())) : Tensor(), need_b ? mm(t(sa.unpack()), g) : Tensor()};
           });
  }
  return out;
}

// C[i] = A[i] B[i].   dA = dC B^T,   dB = A^T dC   (per batch)
Tensor bmm(const Tensor& a, const Tensor& b) {
  SEQLAB_CHECK(a.dim() == 3, "bmm: batch1 must be a 3D tensor, got a tensor of shape ", shape_str(a.shape()));
  SEQLAB_CHECK(b.dim() == 3, "bmm: batch2 must be a 3D tensor, got a tensor of shape ", shape_str(b.shape()));
  SEQLAB_CHECK(a.shape()[0] == b.shape()[0], "bmm: batch1 and batch2 must have same number of batches, got ",
               a.shape()[0], " and ", b.shape()[0], " (shapes ", shape_str(a.shape()), " and ", shape_str(b.shape()), ")");
  SEQLAB_CHECK(a.shape()[2] == b.shape()[1], "bmm: Expected size for first two dimensions of batch2 tensor to be: [",
               a.shape()[0], ", ", a.shape()[2], "] but got: [", b.shape()[0], ", ", b.shape()[1], "] (shapes ",
               shape_str(a.shape()), " and ", shape_str(b.shape()), ")");
  check_same_dtype(a, b, "bmm");
  Tensor out = Tensor::empty({a.shape()[0], a.shape()[1], b.shape()[2]}, a.dtype());
  gemm_batched(out, a, b, a.shape()[0]);
  if (any_requires_grad({a, b})) {
    const bool need_a = a.requires_grad(), need_b = b.requires_grad();
    attach(out, "BmmBackward0", {a, b},
           [sa = need_b ? save(a) : SavedTensor(), sb = need_a ? save(b) : SavedTensor(), need_a,
            need_b](const Tensor& g) -> TensorList {
             return {need_a ? bmm(g, transpose(sb.unpack(), 1, 2)) : Tensor(),
                     need_b ? bmm(transpose(sa.unpack(), 1, 2), g) : Tensor()};
           });
  }
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  const int64_t da = a.dim(), db = b.dim();
  SEQLAB_CHECK(da > 0 && db > 0, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ", db,
               "D");
  check_same_dtype(a, b, "matmul");
  if (da == 1 && db == 1) {
    SEQLAB_CHECK(a.shape()[0] == b.shape()[0], "matmul: 1D tensors expected to have the same size, but got ",
                 shape_str(a.shape()), " and ", shape_str(b.shape()));
    // (integers: a 1 x K by K x 1 GEMM, so that the dot keeps the dtype and wraps as torch's;
    // sum would give int64)
    if (!is_floating(a.dtype())) return reshape(mm(unsqueeze(a, 0), unsqueeze(b, 1)), {});
    return sum(mul(a, b));
  }
  if (da == 2 && db == 2) return mm(a, b);
  if (da == 1 && db == 2) return squeeze(mm(unsqueeze(a, 0), b), 0);
  if (da == 2 && db == 1) return squeeze(mm(a, unsqueeze(b, 1)), 1);
  const int64_t K = a.shape()[da - 1];
  const int64_t Kb = db == 1 ? b.shape()[0] : b.shape()[db - 2];
  SEQLAB_CHECK(K == Kb, "matmul: shapes cannot be multiplied: ", shape_str(a.shape()), " @ ", shape_str(b.shape()),
               " (size ", K, " of the last dim of the first must equal size ", Kb, ")");
  if (da >= 3 && db <= 2) {
    // (..., n, k) @ (k, m): fold the batch into the rows of one GEMM.
    Shape out_shape(a.shape().begin(), a.shape().end() - 1);
    Tensor a2 = reshape(a, {-1, K});
    Tensor r = db == 1 ? squeeze(mm(a2, unsqueeze(b, 1)), 1) : mm(a2, b);
    if (db == 2) out_shape.push_back(b.shape()[1]);
    return reshape(r, out_shape);
  }
  // General case: broadcast the batch dims and run bmm.
  const Tensor a3 = da == 1 ? unsqueeze(a, 0) : a;
  const Tensor b3 = db == 1 ? unsqueeze(b, 1) : b;
  const Shape ba(a3.shape().begin(), a3.shape().end() - 2), bb(b3.shape().begin(), b3.shape().end() - 2);
  const Shape batch = broadcast_shapes(ba, bb, "matmul");
  const int64_t n = a3.shape()[a3.dim() - 2], m = b3.shape()[b3.dim() - 1];
  Shape ea = batch, eb = batch;
  ea.insert(ea.end(), {n, K});
  eb.insert(eb.end(), {K, m});
  const int64_t B = shape_numel(batch);
  Tensor r = bmm(reshape(expand(a3, ea), {B, n, K}), reshape(expand(b3, eb), {B, K, m}));
  Shape out_shape = batch;
  if (da > 1) out_shape.push_back(n);
  if (db > 1) out_shape.push_back(m);
  return reshape(r, out_shape);
}

// y = x W^T + b composed of matmul and add: linear.cpp's fallback outside its fused case.
Tensor linear_composed(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  Tensor y = matmul(x, t(weight));
  return bias.defined() ? add(y, bias) : y;
}

// One GEMM: t[n,k,j] = Σ_i x1[n,i] A[k,i,j] with A viewed as (I1, O·I2); then y = Σ_j t ⊙ x2.
Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias) {
  SEQLAB_CHECK(x1.dim() == x2.dim(), "bilinear(): input dimensions do not match: got ", x1.dim(), " and ", x2.dim());
  SEQLAB_CHECK(x1.dim() >= 1 && Shape(x1.shape().begin(), x1.shape().end() - 1) == Shape(x2.shape().begin(), x2.shape().end() - 1),
               "bilinear(): input batch dimensions do not match: got ", shape_str(x1.shape()), " and ",
               shape_str(x2.shape()));
  SEQLAB_CHECK(weight.dim() == 3, "bilinear(): weight must be 3-D (out, in1, in2), got ", weight.dim(), "-D");
  const int64_t O = weight.shape()[0], I1 = weight.shape()[1], I2 = weight.shape()[2];
  SEQLAB_CHECK(x1.shape().back() == I1, "bilinear(): input1 size does not match weight size: got ", x1.shape().back(),
               " but expected ", I1);
  SEQLAB_CHECK(x2.shape().back() == I2, "bilinear(): input2 size does not match weight size: got ", x2.shape().back(),
               " but expected ", I2);
  SEQLAB_CHECK(!bias.defined() || (bias.dim() == 1 && bias.shape()[0] == O), "bilinear(): bias size does not match "
               "weight size: got ", shape_str(bias.defined() ? bias.shape() : Shape{}), " but expected [", O, "]");
  Tensor a = reshape(x1, {-1, I1}), b = reshape(x2, {-1, I2});
  Tensor t = view(mm(a, reshape(permute(weight, {1, 0, 2}), {I1, O * I2})), {-1, O, I2});
  Tensor y = sum(mul(t, unsqueeze(b, 1)), {-1});
  if (bias.defined()) y = add(y, bias);
  Shape out(x1.shape().begin(), x1.shape().end() - 1);
  out.push_back(O);
  return reshape(y, out);
}

}  // namespace seqlab
