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
// In-place relu and silu (activation_pointwise.cpp): refused on a leaf that requires grad, else
// computed from a copy of x under autograd and x's history rebased (torch's relu_, silu_).
Tensor& relu_(Tensor& x);
Tensor& silu_(Tensor& x);
// torch.nn's other pointwise activations (cpp/src/ops/activation_pointwise.cpp); each name_ is the
// in-place form (torch's elu_, ...). selu is elu with scale and alpha of Klambauer et al. 2017,
// celu elu with input_scale = 1/alpha, relu6 hardtanh(0, 6).
Tensor elu(const Tensor& x, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
Tensor& elu_(Tensor& x, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
Tensor selu(const Tensor& x);
Tensor& selu_(Tensor& x);
Tensor celu(const Tensor& x, double alpha = 1.0);
Tensor& celu_(Tensor& x, double alpha = 1.0);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
Tensor& leaky_relu_(Tensor& x, double negative_slope = 0.01);
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor hardtanh(const Tensor& x, double min_val = -1.0, double max_val = 1.0);
Tensor& hardtanh_(Tensor& x, double min_val = -1.0, double max_val = 1.0);
Tensor log_sigmoid(const Tensor& x);
Tensor mish(const Tensor& x);
Tensor& mish_(Tensor& x);
Tensor softsign(const Tensor& x);
Tensor tanhshrink(const Tensor& x);
Tensor hardsigmoid(const Tensor& x);
Tensor& hardsigmoid_(Tensor& x);
Tensor hardswish(const Tensor& x);
Tensor& hardswish_(Tensor& x);
Tensor threshold(const Tensor& x, double threshold, double value);
Tensor& threshold_(Tensor& x, double threshold, double value);
// x for x > 0, weight·x otherwise, weight per channel (dim 1) or one for all (torch.nn.functional.prelu).
Tensor prelu(const Tensor& x, const Tensor& weight);
// softmax(-x) over dim (torch.nn.functional.softmin).
Tensor softmin(const Tensor& x, int64_t dim);
// The gated linear unit (Dauphin et al. 2017): x split in halves a, b along dim, a ⊙ σ(b). Composed
// of chunk, sigmoid and mul, whose backward is the GLU's.
Tensor glu(const Tensor& x, int64_t dim = -1);
// The SELU constants (Klambauer et al. 2017, eq. 14), as torch's.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);

// The randomized leaky ReLU (Xu et al. 2015; F.rrelu, cpp/src/ops/rrelu.cpp): in training x for
// x > 0, a x otherwise with a ~ U(lower, upper) per element from the default generator (the
// gradient is the slope used); in eval leaky_relu(x, (lower + upper) / 2). rrelu_ in place.
Tensor rrelu(const Tensor& x, double lower = 1.0 / 8.0, double upper = 1.0 / 3.0, bool training = false);
Tensor& rrelu_(Tensor& x, double lower = 1.0 / 8.0, double upper = 1.0 / 3.0, bool training = false);

// hardshrink: x where |x| > lambd, else 0; softshrink: x - clamp(x, -lambd, lambd) (F.hardshrink,
// F.softshrink); feature_dropout: dropout of whole (n, c) channels of (N, C, *), kept ones scaled by
// 1 / (1 - p) (F.dropout1d / dropout2d). cpp/src/ops/shrink.cpp.
Tensor hardshrink(const Tensor& x, double lambd = 0.5);
Tensor softshrink(const Tensor& x, double lambd = 0.5);
Tensor feature_dropout(const Tensor& x, double p = 0.5, bool training = true);

}  // namespace seqlab
