// matmul with NumPy/PyTorch semantics (1-D, 2-D, batched with broadcast batch dims), through
// one BLAS entry point (cpp/src/blas.cpp). cpp/src/ops/linalg.cpp.
#pragma once
#include "seqlab/tensor.hpp"

namespace seqlab {

Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);   // 2-D only
Tensor bmm(const Tensor& a, const Tensor& b);  // 3-D only, equal batch
// y = x W^T + b, as torch.nn.functional.linear (bias may be undefined).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
// y_k = x1^T A_k x2 + b_k, x1: (*, I1), x2: (*, I2), A: (O, I1, I2), as torch.nn.functional.bilinear.
Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias = Tensor());

}  // namespace seqlab
