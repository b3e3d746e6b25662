// Activations and (log-)softmax, fused forward/backward. cpp/src/ops/activation.cpp.
#pragma once
#include "seqlab/tensor.hpp"

namespace seqlab {

Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x, bool tanh_approximate = false);
// x σ(x) (Swish-1, Ramachandran et al. 2017; torch.nn.functional.silu): the activation of the
// SiLU-gated feed-forward of Llama-family models.
Tensor silu(const Tensor& x);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);

}  // namespace seqlab
