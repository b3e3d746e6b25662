// The few ops the autograd side calls, declared here instead of included: ops sit above
// autograd (tensor <- autograd <- ops), so no file under autograd/ includes an ops header.
// Their definitions (and default arguments) are in cpp/src/ops/; a signature that drifts
// there fails at link time. tests/test_layering.py keeps this the only way down.
#pragma once
#include "seqlab/autograd.hpp"

namespace seqlab {

// engine.cpp: summing the gradients that reach one output, accumulating into .grad.
Tensor add(const Tensor& a, const Tensor& b, double alpha);  // a + alpha * b
Tensor& add_(Tensor& self, const Tensor& other, double alpha);  // self += alpha * other
Tensor clone(const Tensor& x);
Tensor to_dtype(const Tensor& x, Dtype dtype);

// inplace.cpp: an in-place op on a view rewrites its base through these (CopySlices).
Tensor& copy_(Tensor& dst, const Tensor& src);
Tensor reshape(const Tensor& x, Shape shape);
Tensor index(const Tensor& x, const TensorList& indices);
Tensor index_put(const Tensor& x, const TensorList& indices, const Tensor& values, bool accumulate);

}  // namespace seqlab
