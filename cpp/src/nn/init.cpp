// torch.nn.init in C++: fans, gains and the in-place initialisers.
#include "seqlab/nn/init.hpp"

#include <cmath>
#include <vector>

#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/random.hpp"

namespace seqlab::nn::init {

double calculate_gain(const std::string& nl, double param) {
  if (nl == "linear" || nl == "conv1d" || nl == "conv2d" || nl == "conv3d" || nl == "conv_transpose1d" ||
      nl == "conv_transpose2d" || nl == "conv_transpose3d" || nl == "sigmoid")
    return 1.0;
  if (nl == "tanh") return 5.0 / 3.0;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") return std::sqrt(2.0 / (1.0 + param * param));
  if (nl == "selu") return 3.0 / 4.0;
  throw std::invalid_argument("Unsupported nonlinearity " + nl);
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  SEQLAB_CHECK_VALUE(t.dim() >= 2, "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions "
                                   "(got shape ", shape_str(t.shape()), ")");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.shape()[d];
  return {t.shape()[1] * receptive, t.shape()[0] * receptive};
}

static int64_t fan(const Tensor& t, const std::string& mode) {
  SEQLAB_CHECK_VALUE(mode == "fan_in" || mode == "fan_out", "Mode ", mode, " not supported, please use one of fan_in, fan_out");
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  return mode == "fan_in" ? in : out;
}

Tensor& uniform_(Tensor& t, double a, double b, Generator* generator) {
  NoGradGuard ng;
  return seqlab::uniform_(t, a, b, generator);
}
Tensor& normal_(Tensor& t, double mean, double std, Generator* generator) {
  NoGradGuard ng;
  return seqlab::normal_(t, mean, std, generator);
}
Tensor& constant_(Tensor& t, double value) {
  NoGradGuard ng;
  return fill_(t, value);
}
Tensor& zeros_(Tensor& t) { return constant_(t, 0.0); }
Tensor& ones_(Tensor& t) { return constant_(t, 1.0); }

Tensor& xavier_uniform_(Tensor& t, double gain, Generator* generator) {
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  const double a = gain * std::sqrt(6.0 / static_cast<double>(in + out));
  return init::uniform_(t, -a, a, generator);
}
Tensor& xavier_normal_(Tensor& t, double gain, Generator* generator) {
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  return init::normal_(t, 0.0, gain * std::sqrt(2.0 / static_cast<double>(in + out)), generator);
}

Tensor& kaiming_uniform_(Tensor& t, double a, const std::string& mode, const std::string& nonlinearity,
                         Generator* generator) {
  if (t.numel() == 0) return t;  // PyTorch warns and returns for empty tensors
  const double bound = std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan(t, mode)));
  return init::uniform_(t, -bound, bound, generator);
}
Tensor& kaiming_normal_(Tensor& t, double a, const std::string& mode, const std::string& nonlinearity,
                        Generator* generator) {
  if (t.numel() == 0) return t;
  return init::normal_(t, 0.0, calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan(t, mode))), generator);
}

// Q of a Gaussian (rows x cols) matrix by modified Gram-Schmidt, run twice for stability;
// it yields R with a positive diagonal, which is PyTorch's q · sign(diag(r)).
Tensor& orthogonal_(Tensor& t, double gain, Generator* generator) {
  SEQLAB_CHECK_VALUE(t.dim() >= 2, "Only tensors with 2 or more dimensions are supported (got shape ",
                     shape_str(t.shape()), ")");
  if (t.numel() == 0) return t;
  const int64_t rows = t.shape()[0], cols = t.numel() / rows;
  // Orthonormalise the columns of the tall orientation: n vectors of length m, n <= m.
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  Tensor g = randn({n, m}, Dtype::Float64, generator);  // row j = vector j
  double* v = g.data<double>();
  for (int64_t j = 0; j < n; ++j) {
    double* vj = v + j * m;
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t i = 0; i < j; ++i) {
        const double* vi = v + i * m;
        double dot = 0;
        for (int64_t k = 0; k < m; ++k) dot += vi[k] * vj[k];
        for (int64_t k = 0; k < m; ++k) vj[k] -= dot * vi[k];
      }
    double norm = 0;
    for (int64_t k = 0; k < m; ++k) norm += vj[k] * vj[k];
    norm = std::sqrt(norm);
    for (int64_t k = 0; k < m; ++k) vj[k] /= norm;
  }
  // Tall: Q is (rows, cols) with orthonormal columns = vectors as columns. Wide: Q^T, i.e.
  // orthonormal rows = the vectors as rows.
  Tensor q = Tensor::empty({rows, cols}, Dtype::Float64);
  double* pq = q.data<double>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) pq[r * cols + c] = gain * (wide ? v[r * m + c] : v[c * m + r]);
  NoGradGuard ng;
  Tensor flat = Tensor::from_blob(q.raw_data(), t.shape(), contiguous_strides(t.shape()), Dtype::Float64,
                                  q.impl()->storage->owner, q.impl()->storage->nbytes);
  copy_(t, flat);
  return t;
}

}  // namespace seqlab::nn::init
